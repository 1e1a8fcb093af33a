"""Labelled windows for the index network cut from real photos (cardcounter's train or calibration part).

The reader's own steps run on each photo, as in ``index_data.py``: card regions by edges, dark cards as dark
paper, and the whole image, each rectified in its four quarter turns (a dark card read turned over,
``vision.polarity``), proposals over the whole card (so that pips, court pictures and card backs are read too),
and the spotting windows of ``vision.net.spotting`` (any direction, for fans) in the photo and in the photo
turned over. Each window's first glyph is then placed in the photo (centre, height, which way is up) and
labelled from cardcounter's boxes, which surround each visible corner index (rank and suit) but say nothing of
its direction:
- outside every box, or in a box of a card face down: ``NONE`` (the hard negatives: pips, pictures, backs,
  the desk);
- in a box whose joker the labels cannot name (``real_eval.jokers_alike``: one deck's only joker, labelled both
  ways): left out, neither positive nor negative;
- in a box, near its top and leftmost in the glyph's own frame: a candidate start of that card's index. An
  axis-aligned box cannot tell an upright index from one upside down, so of the candidate directions of a box
  the one the *teacher* (the network trained on rendered designs only) finds likeliest for the labelled card's
  rank (any suit: ``same_rank``) is taken as upright; windows of that box facing another way are ``NONE`` (an
  index lying sideways or upside down is not read as a card, as in the rendered data), and the rest of the box
  (the suit below, the "0" of a "10") is left out, neither positive nor negative.
Every negative that the teacher reads as a card (``HARD``) is kept, since those are the reader's false indices
(pips, court pictures, card backs); of the other negatives a random share.

With ``--audit`` (``vision/data/train_part_audit.json``, ``train_part_audit``: the train part's labels looked at
where they contradict the photo), a box labelled with a card it does not show is relabelled, and real indices that
no box surrounds (cards cut by the photo's edge, photos that box one corner of each card) are regions whose windows
are left out, neither positive nor negative: outside every box they would be "no index", teaching the network to
doubt real indices. The recipe does not pass it (a retrain with it read no better: ``vision/README.md``).

Writes ``OUT.npz`` like ``index_data.py`` (``crops``, ``labels``, ``design`` = the photo's number, ``designs`` =
the photo names, ``classes``). Deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.card_regions import dark_regions
from vision.files import load_image
from vision.geometry import find_regions, rectify, whole_image_region
from vision.index import ink_mask
from vision.net.network import CLASSES, NONE, IndexNet
from vision.net.proposals import crops, propose
from vision.net.reader import SpottingPass, spotting_passes
from vision.net.spotting import spot_windows
from vision.polarity import lit, printed_views, turn_over
from vision.training.real_eval import LabelAuditError, jokers_alike
from vision.training.real_split import CARDS, Box, cardcounter_boxes, load_split
from vision.types import JOKERS

N_NONE = CLASSES.index(NONE)
TRAIN_AUDIT_PATH = Path(__file__).resolve().parents[1] / "data" / "train_part_audit.json"
#: a negative window the teacher reads as some card at least this sure is always kept (a hard negative)
HARD = 0.3


@dataclass(frozen=True)
class Window:
    """One window the reader would read, with where its first glyph stands in the photo."""

    image: np.ndarray
    centre: np.ndarray  # (x, y) image pixels
    up: np.ndarray  # unit vector
    glyph_h: float


def flat_windows(image: np.ndarray, max_regions: int = 6) -> list[Window]:
    """Proposal windows of the photo's largest regions (by edges, and dark cards as dark paper) and of the whole
    photo, in their four turns."""
    out: list[Window] = []
    regions = find_regions(image)[:max_regions] + dark_regions(image)[:max_regions] + [whole_image_region(image)]
    for region in regions:
        for turn in range(4):
            upright, inverse = rectify(image, region, turn)
            for _, flat in printed_views(upright):  # as the reader reads it: each way a region may be printed
                mask, _ = ink_mask(flat)
                glyphs = propose(mask, max_top=1.0)
                if not glyphs:
                    continue
                pts = np.array([[[g.cx, g.y + g.h / 2], [g.cx, g.y], [g.cx, g.y + g.h]] for g in glyphs], np.float32)
                back = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inverse).reshape(-1, 3, 2)
                for window_image, (centre, top, bottom) in zip(crops(flat, glyphs), back, strict=True):
                    up = top - bottom
                    length = float(np.linalg.norm(up))
                    if length > 1:
                        out.append(Window(window_image, centre, up / length, length))
    return out


def spotted_windows(image: np.ndarray) -> list[Window]:
    """The spotting windows of the photo (brightened if dim, as the reader spots it) and of the photo turned over
    (the reader spots dark cards turned over: these are their windows and more), in each of the reader's
    ``spotting_passes`` over the whole photo (a close-up photo's larger indices in the second). Without the second
    pass a close-up's index gave no window to learn from, though the reader reads it there."""
    out: list[Window] = []
    for view in (lit(image), turn_over(image)):
        for spotting in spotting_passes(view):
            out += _spotted(view, spotting)
    return out


def _spotted(view: np.ndarray, spotting: SpottingPass) -> list[Window]:
    """The spotting windows of ``view`` as ``spotting`` looks, placed in ``view``'s own pixels (as
    ``CardReader._spot`` reads them)."""
    view, scale, least = spotting.view(view)
    _, windows, frames, _ = spot_windows(view, least, max_share=spotting.max_share)
    return [Window(w, np.array(c) / scale, np.array(u), h / scale) for w, (c, h, u) in zip(windows, frames, strict=True)]


def in_pixels(boxes: list[Box], size: tuple[int, int]) -> list[np.ndarray]:
    """cardcounter's boxes (centre and size, shares of the photo) as (x0, y0, x1, y1) pixels of a photo of ``size``
    (height, width)."""
    h, w = size
    return [np.array([(b.cx - b.w / 2) * w, (b.cy - b.h / 2) * h, (b.cx + b.w / 2) * w, (b.cy + b.h / 2) * h])
            for b in boxes]


def in_box(w: Window, box: np.ndarray, pad: float = 0.1) -> bool:
    """Whether the window's first glyph stands in ``box`` (pixels), give or take ``pad`` of its size."""
    x0, y0, x1, y1 = box
    px, py = pad * (x1 - x0), pad * (y1 - y0)
    return x0 - px <= w.centre[0] <= x1 + px and y0 - py <= w.centre[1] <= y1 + py


def _box_frame(w: Window, box: np.ndarray) -> tuple[float, float, float, float]:
    """The box's extent along the window's up and right directions, relative to the glyph centre, in glyph
    heights: (top, bottom, left, right)."""
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) - w.centre
    right = np.array([-w.up[1], w.up[0]])
    along_up = corners @ w.up / w.glyph_h
    along_right = corners @ right / w.glyph_h
    return float(along_up.max()), float(-along_up.min()), float(-along_right.min()), float(along_right.max())


def _other_corner(w: Window, box: np.ndarray) -> bool:
    """``box`` stands where a card's opposite corner index stands from an upright index at ``w``: below it and
    to its right, about a card's height over its width (loosely: the photos were stretched to a square)."""
    d = (box[:2] + box[2:]) / 2 - w.centre
    right = np.array([-w.up[1], w.up[0]])
    down, across = float(-(d @ w.up)), float(d @ right)
    return down > 2 * w.glyph_h and across > 0 and 0.3 <= across / down <= 1.4


def same_rank(code: str) -> list[int]:
    """The network's classes of ``code``'s rank, any suit (both jokers for a joker). Which way an index is up is
    a question of its rank: on a grey photo the teacher cannot tell a red suit from a black one (it read a grey
    seven of diamonds as the seven of spades), and asked for the labelled card itself it left a grey red card's
    index out, where no second corner was in sight, unless it read its suit right: the network did not learn them
    from the photos it trains on."""
    if code in JOKERS:
        return [CLASSES.index(j) for j in JOKERS]
    return [i for i, c in enumerate(CLASSES) if c != NONE and c not in JOKERS and c[1] == code[1]]


@dataclass(frozen=True)
class PhotoAudit:
    """What the audit of the train part says of one photo: boxes whose card is wrong, and real indices that no box
    surrounds."""

    relabel: tuple[tuple[str, str], ...] = ()  # (the card a box is labelled with, the card it shows)
    unboxed: tuple[Box, ...] = ()  # regions holding a real index no box surrounds (code None)


def train_part_audit(path: Path = TRAIN_AUDIT_PATH) -> dict[str, PhotoAudit]:
    """The audit of the train part's labels, by photo (cardcounter's file names). Unknown keys, unknown cards and
    regions outside the photo are errors that name the entry, so that a mistyped entry is never silently ignored."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise LabelAuditError(f"{path}: {e}") from e
    if not isinstance(data, dict) or set(data) - {"about", "relabel", "unboxed"}:
        got = sorted(data) if isinstance(data, dict) else data
        raise LabelAuditError(f"{path}: the keys are about, relabel and unboxed (got {got!r})")
    relabel: dict[str, list[tuple[str, str]]] = {}
    unboxed: dict[str, list[Box]] = {}
    for n, entry in enumerate(data.get("relabel", [])):
        _keys(path, "relabel", n, entry, {"photo", "labelled", "shows", "why"})
        for key in ("labelled", "shows"):
            if entry[key] not in CLASSES or entry[key] == NONE:
                raise LabelAuditError(f"{path}: relabel[{n}].{key}: {entry[key]!r} is not a card")
        relabel.setdefault(entry["photo"], []).append((entry["labelled"], entry["shows"]))
    for n, entry in enumerate(data.get("unboxed", [])):
        _keys(path, "unboxed", n, entry, {"photo", "box", "why"})
        box = entry["box"]
        if (not isinstance(box, list) or len(box) != 4 or not all(isinstance(v, int | float) for v in box)
                or not (0 <= box[0] <= 1 and 0 <= box[1] <= 1 and 0 < box[2] <= 1 and 0 < box[3] <= 1)):
            raise LabelAuditError(f"{path}: unboxed[{n}].box: {box!r} is not [cx, cy, w, h] in shares of the photo")
        unboxed.setdefault(entry["photo"], []).append(Box(None, *(float(v) for v in box)))
    return {photo: PhotoAudit(tuple(relabel.get(photo, ())), tuple(unboxed.get(photo, ())))
            for photo in sorted(set(relabel) | set(unboxed))}


def _keys(path: Path, section: str, n: int, entry: object, allowed: set[str]) -> None:
    """Raise ``LabelAuditError`` unless ``entry`` is an object with exactly the keys ``allowed``."""
    if not isinstance(entry, dict) or set(entry) != allowed:
        got = sorted(entry) if isinstance(entry, dict) else entry
        raise LabelAuditError(f"{path}: {section}[{n}] must have the keys {sorted(allowed)} (got {got!r})")
    if not isinstance(entry["photo"], str) or not entry["photo"]:
        raise LabelAuditError(f"{path}: {section}[{n}].photo: {entry['photo']!r} is not a photo's file name")


def relabelled(boxes: list[Box], audit: PhotoAudit | None) -> list[Box]:
    """``boxes`` with the audit's relabelling applied (every box labelled with a relabelled card)."""
    if audit is None:
        return boxes
    shows = dict(audit.relabel)
    return [Box(shows.get(b.code, b.code) if b.code is not None else None, b.cx, b.cy, b.w, b.h) for b in boxes]


def label_windows(windows: list[Window], boxes: list[Box], size: tuple[int, int], teacher: IndexNet,
                  rng: np.random.Generator, negatives_per_positive: float = 4.0,
                  hard_above: float = HARD, unnamed: frozenset[int] = frozenset(),
                  unboxed: tuple[Box, ...] = ()) -> tuple[list[np.ndarray], list[int]]:
    """Labels for the windows of one photo (see the module's docstring); negatives sampled. ``unnamed``: the boxes
    (by index) whose card the labels cannot name: their windows are left out. ``unboxed``: regions holding a real
    index that no box surrounds (the audit's): windows there outside every box are left out."""
    pixel_boxes = in_pixels(boxes, size)
    gaps = in_pixels(list(unboxed), size)
    negatives: list[int] = []
    by_box: dict[int, list[int]] = {}
    for i, win in enumerate(windows):
        inside = [k for k, pb in enumerate(pixel_boxes) if in_box(win, pb)]
        if any(k in unnamed for k in inside):
            continue
        if not inside:
            if not any(in_box(win, g, pad=0.0) for g in gaps):
                negatives.append(i)
        elif all(boxes[k].code is None for k in inside):
            negatives.append(i)  # the back of a card
        elif len(inside) == 1:
            by_box.setdefault(inside[0], []).append(i)
        # in two boxes at once (overlapping indices): left out
    positives: list[tuple[int, int]] = []
    for k, members in by_box.items():
        code = boxes[k].code
        assert code is not None
        want = CLASSES.index(code)
        # a candidate start: a glyph in the top of the box (in the glyph's own frame)
        candidates = [i for i in members if _box_frame(windows[i], pixel_boxes[k])[0] < 1.0
                      and _box_frame(windows[i], pixel_boxes[k])[1] > 0.7]
        if not candidates:
            continue
        partners = [pixel_boxes[j] for j, b in enumerate(boxes) if j != k and b.code == code]
        upright = [i for i in candidates if any(_other_corner(windows[i], pb) for pb in partners)]
        if not upright:
            # no second corner of the card in sight (a fan): the teacher, trained on rendered designs only,
            # says which way is up, when it is clearly sure of the labelled card's rank in one direction
            probs = teacher.predict(np.stack([windows[i].image for i in candidates]))
            rank = probs[:, same_rank(code)].sum(axis=1)
            best = int(np.argmax(rank))
            if rank[best] < 0.3:
                continue  # left out
            upright = [candidates[best]]
        up = windows[upright[0]].up
        upright = [i for i in candidates if float(windows[i].up @ up) > 0.8]
        # leftmost in the glyph's frame: the "1" of a "10", not its "0"
        lefts = {i: _box_frame(windows[i], pixel_boxes[k])[2] for i in upright}
        first = min(lefts.values())
        positives += [(i, want) for i in upright if lefts[i] <= first + 0.35]
        negatives += [i for i in members if float(windows[i].up @ up) < 0.3]
    # every negative the teacher takes for a card (the pips, pictures and backs that fooled it: hard negatives),
    # and a random share of the others
    hard: list[int] = []
    if negatives:
        probs = teacher.predict(np.stack([windows[i].image for i in negatives]))
        cards = np.delete(probs, N_NONE, axis=1).max(axis=1)
        hard = [i for i, p in zip(negatives, cards, strict=True) if p >= hard_above]
        negatives = [i for i, p in zip(negatives, cards, strict=True) if p < hard_above]
    keep = min(len(negatives), max(6, int(negatives_per_positive * max(len(positives), 1))))
    chosen = [negatives[j] for j in rng.choice(len(negatives), keep, replace=False)] if negatives else []
    x = [windows[i].image for i, _ in positives] + [windows[i].image for i in hard + chosen]
    y = [lab for _, lab in positives] + [N_NONE] * (len(hard) + len(chosen))
    return x, y


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--part", choices=("train", "calibration"), default="train",
                        help="which part of the fixed split (vision/data/real_split.json); never the test part")
    parser.add_argument("--teacher", type=Path, required=True, help="the network trained on rendered designs only")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--hard-above", type=float, default=HARD,
                        help="keep every negative the teacher reads as a card this sure (above 1: none)")
    parser.add_argument("--audit", type=Path, default=None,
                        help=f"apply this audit of the labels (relabelled boxes, unboxed indices left out; {TRAIN_AUDIT_PATH.name})")
    args = parser.parse_args(argv)
    start = time.monotonic()
    teacher = IndexNet(args.teacher, threads=1)
    names = load_split()[args.part]
    all_boxes = cardcounter_boxes()
    alike = jokers_alike("cardcounter")
    audit = train_part_audit(args.audit) if args.audit is not None else {}
    rng = np.random.default_rng(args.seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    ds: list[int] = []
    for n, name in enumerate(names):
        image = load_image(CARDS / "cardcounter" / "images" / name)
        windows = flat_windows(image) + spotted_windows(image)
        photo_audit = audit.get(name)
        boxes = relabelled(all_boxes[name], photo_audit)
        unnamed = frozenset(k for k, b in enumerate(boxes) if name in alike and b.code in JOKERS)
        x, y = label_windows(windows, boxes, image.shape[:2], teacher, rng, hard_above=args.hard_above,
                             unnamed=unnamed, unboxed=photo_audit.unboxed if photo_audit else ())
        xs += x
        ys += y
        ds += [n] * len(y)
        if (n + 1) % 50 == 0:
            print(f"{n + 1}/{len(names)} photos, {len(ys)} windows, {time.monotonic() - start:.0f} s", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, crops=np.stack(xs), labels=np.array(ys, np.int16), design=np.array(ds, np.int16),
                        designs=np.array(names), classes=np.array(CLASSES))
    counts = np.bincount(np.array(ys), minlength=len(CLASSES))
    print(f"saved {args.out}: {len(ys)} windows from {len(names)} photos ({args.part}), positives "
          f"{int(counts[:-1].sum())}, cards with none {int((counts[:-1] == 0).sum())}, "
          f"{time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
