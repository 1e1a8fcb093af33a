"""Labelled windows for the index network, made from rendered scenes through the reader's own proposals.

Each scene lays one card, a fan (2 to 10 cards, tight as a bomb or loose), or a few cards spread and
overlapping, of one deck design, on a cloth, at any angle, then lights it like a hall or a phone photo
(uneven light, colour cast, glare, shadow, blur, noise, perspective, dim light, JPEG, sometimes grey). The
reader's own steps then run on it: card regions by edges, each rectified in its four quarter turns, the ink
mask of the top band, the proposals (``vision.proposals``). A proposal is labelled with a card code when its
component is the first glyph of that card's corner index, seen upright and not covered by another card;
everything else (pips, pictures, second glyphs, sideways or upside-down indices) is labelled ``NONE``.
Where an index starts on a face is found once per face from the face itself (``face_anchors``), so any deck
design can be used without knowing its layout.

Writes ``OUT.npz`` with ``crops`` (N, 32, 32, 3) uint8, ``labels`` (N,) int, ``design`` (N,) int and the
``designs`` and ``classes`` name lists. Deterministic for a given seed and set of designs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from vision.files import load_face
from vision.geometry import CARD_H, find_regions, rectify, whole_image_region
from vision.index import BAND, Glyph, ink_mask
from vision.net.network import CLASSES, NONE
from vision.net.proposals import crops, propose
from vision.polarity import as_read
from vision.render import CARD_RATIO, light_scene, render_face, table_cloth
from vision.training import font_faces
from vision.training.dark_decks import dark_face
from vision.training.printed_surfaces import printed_page
from vision.types import CARD_CODES, JOKERS

#: Debian decks never trained on (reported on as unseen designs)
HELD_OUT_DECKS = frozenset({"paris", "tango_nuevo", "svg-oxygen-white", "anglo_bitmap"})
HERSHEY_STYLES = 12


@dataclass(frozen=True)
class Deck:
    """One design: its name and its faces by card code."""

    name: str
    faces: dict[str, np.ndarray]


def _debian_deck(deck_dir: Path) -> Deck | None:
    """A deck rendered by ``render_decks.py`` (alpha flattened onto white)."""
    faces = {}
    for png in sorted(deck_dir.glob("*.png")):
        image = load_face(png) if png.stem in CARD_CODES else None
        if image is not None:
            faces[png.stem] = image
    return Deck(deck_dir.name, faces) if len(faces) >= 40 else None


def debian_decks(folder: Path) -> list[Deck]:
    """Every deck rendered into ``folder``."""
    decks = [_debian_deck(p) for p in sorted(folder.iterdir()) if p.is_dir()] if folder.is_dir() else []
    return [d for d in decks if d is not None]


def deck_specs(folder: Path, *, held: bool, font_seed: int = 1, dark: bool = False) -> list[tuple[str, object]]:
    """Training (``held=False``) or held-out designs, as (kind, what) to be drawn by ``make_deck``: Debian decks,
    font designs and (training only) the built-in styles of ``vision.render``; ``dark``: each of them printed
    light on dark (``dark_decks``)."""
    if dark:
        return [("dark", spec) for spec in deck_specs(folder, held=held, font_seed=font_seed)]
    specs: list[tuple[str, object]] = []
    debian: list[Path] = []
    if folder.is_dir():
        debian = [p for p in sorted(folder.iterdir()) if p.is_dir() and (p.name in HELD_OUT_DECKS) == held]
        specs += [("debian", p) for p in debian]
    courts = [p for p in debian if all((p / f"S{rank}.png").is_file() for rank in "JQK")]
    specs += [("font", (design, _court_source(design, courts))) for design in font_faces.designs(font_seed, held=held)]
    if not held:
        specs += [("builtin", style) for style in range(HERSHEY_STYLES)]
    return specs


#: share of generated designs whose court cards carry a Debian deck's court pictures (the rest: a frame of
#: coloured discs), so that the network sees real court art beside indices of every type face
COURT_ART_SHARE = 0.6


def _court_source(design: font_faces.Design, debian: list[Path]) -> Path | None:
    """The Debian deck (of the same side of the split) whose court pictures ``design`` borrows, if any."""
    rng = np.random.default_rng([design.seed, 6])
    if not debian or rng.random() >= COURT_ART_SHARE:
        return None
    return debian[int(rng.integers(len(debian)))]


def _court_art(folder: Path | None) -> dict[str, np.ndarray]:
    """The court pictures of a rendered Debian deck, by card code (none when it has no usable faces)."""
    if folder is None:
        return {}
    out = {}
    for code in CARD_CODES:
        if code[1:] in ("J", "Q", "K"):
            face = load_face(folder / f"{code}.png") if (folder / f"{code}.png").is_file() else None
            if face is not None:
                out[code] = font_faces.court_picture(face)
    return out


def make_deck(spec: tuple[str, object]) -> Deck | None:
    """The faces of one design spec (None for a Debian deck with too few usable faces)."""
    kind, what = spec
    if kind == "dark":
        assert isinstance(what, tuple)
        light = make_deck(what)
        return None if light is None else Deck(spec_name(spec), {c: dark_face(f, light.name)
                                                                 for c, f in light.faces.items()})
    if kind == "debian":
        assert isinstance(what, Path)
        return _debian_deck(what)
    if kind == "font":
        assert isinstance(what, tuple)
        design, court_dir = what
        art = _court_art(court_dir)
        return Deck(f"font:{design.font.stem}", {c: font_faces.render(design, c, court_art=art.get(c))
                                                 for c in CARD_CODES})
    assert isinstance(what, int)
    return Deck(f"builtin:{what}", {c: render_face(c, 200, what) for c in CARD_CODES})


def spec_name(spec: tuple[str, object]) -> str:
    kind, what = spec
    if kind == "dark":
        return "dark:" + spec_name(what)  # type: ignore[arg-type]
    if kind == "debian":
        return str(getattr(what, "name", what))
    if kind == "font":
        return f"font:{what[0].font.stem}"  # type: ignore[index]
    return f"builtin:{what}"


def face_anchors(face: np.ndarray) -> tuple[Glyph | None, Glyph | None]:
    """The first glyph of the top-left index and of the bottom-right one (the face turned), in face pixels."""
    out: list[Glyph | None] = []
    for turned in (face, face[::-1, ::-1]):
        scale = CARD_H / turned.shape[0]
        upright = as_read(cv2.resize(turned, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))
        mask, _ = ink_mask(upright[: int(BAND * CARD_H)])
        width = upright.shape[1]
        near = [g for g in propose(mask) if g.x < 0.3 * width and g.y < 0.2 * CARD_H and g.x > 0.01 * width]
        if not near:
            out.append(None)
            continue
        g = min(near, key=lambda g: g.x + g.y)
        out.append(Glyph(round(g.x / scale), round(g.y / scale), round(g.w / scale), round(g.h / scale)))
    return out[0], out[1]


@dataclass(frozen=True)
class Placed:
    """A card laid in a scene: its code, face size, the face-to-scene affine map and its index anchors."""

    code: str
    size: tuple[int, int]
    to_scene: np.ndarray  # 2x3
    anchors: tuple[Glyph | None, Glyph | None]


def _lay(scene: np.ndarray, face: np.ndarray, centre: np.ndarray, angle: float, card_h: float,
         rng: np.random.Generator) -> np.ndarray:
    """Paste ``face`` (in place, with a soft shadow); returns its face-to-scene affine matrix."""
    fh, fw = face.shape[:2]
    s = card_h / fh
    a = np.deg2rad(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s
    offset = centre - rot @ np.array([fw / 2, fh / 2])
    matrix = np.hstack([rot, offset[:, None]]).astype(np.float32)
    corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32) @ rot.T.astype(np.float32) + offset
    margin = 0.06 * card_h + 3
    x0 = int(max(0, corners[:, 0].min() - margin))
    y0 = int(max(0, corners[:, 1].min() - margin))
    x1 = int(min(scene.shape[1], corners[:, 0].max() + margin))
    y1 = int(min(scene.shape[0], corners[:, 1].max() + margin))
    if x1 <= x0 or y1 <= y0:
        return matrix
    local = matrix.copy()
    local[:, 2] -= (x0, y0)  # work on the card's own box of the scene only
    size = (x1 - x0, y1 - y0)
    roi = scene[y0:y1, x0:x1].astype(np.float32)
    warped = cv2.warpAffine(face, local, size, flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(np.full((fh, fw), 255, np.uint8), local, size, flags=cv2.INTER_LINEAR)
    shadow = float(rng.uniform(0, 0.45))
    if shadow > 0.05:
        shift = np.array([[1, 0, card_h * rng.uniform(-0.02, 0.03)], [0, 1, card_h * rng.uniform(0, 0.03)]],
                         dtype=np.float32)
        soft = cv2.GaussianBlur(cv2.warpAffine(alpha, shift, size), (0, 0), max(1.0, card_h * 0.012))
        roi *= 1 - shadow * soft[..., None].astype(np.float32) / 255.0
    a3 = alpha[..., None].astype(np.float32) / 255.0
    scene[y0:y1, x0:x1] = (roi * (1 - a3) + warped * a3).astype(np.uint8)
    return matrix


def _cloth(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table cloth, or a busier surface (wood grain, stripes, a printed pattern)."""
    scene = table_cloth(h, w, rng)
    kind = rng.random()
    if kind < 0.25:  # wood grain / stripes
        y = np.arange(h, dtype=np.float32)[:, None]
        x = np.arange(w, dtype=np.float32)[None, :]
        period = float(rng.uniform(6, 40))
        wave = np.sin((y + 8 * np.sin(x / rng.uniform(30, 120))) / period * 2 * np.pi)
        colour = rng.uniform(-40, 40, 3)
        scene = np.clip(scene + wave[..., None] * colour, 0, 255).astype(np.uint8)
    elif kind < 0.4:  # blotches of colour
        for _ in range(int(rng.integers(5, 25))):
            c = tuple(int(v) for v in rng.integers(0, 255, 3))
            cv2.circle(scene, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(5, 60)), c, -1)
        scene = cv2.GaussianBlur(scene, (0, 0), float(rng.uniform(0.5, 3)))
    return scene


def scene_of(deck: Deck, rng: np.random.Generator, kind: str, text_share: float = 0.0
             ) -> tuple[np.ndarray, list[Placed]]:
    """A photo-like scene of ``kind`` ("single", "fan", "table", "spread") and the cards laid in it; laid on a
    printed page (``printed_surfaces``) ``text_share`` of the time."""
    codes = list(deck.faces)
    h, w = int(rng.integers(320, 560)), int(rng.integers(420, 760))
    scene = _cloth(h, w, rng)
    if text_share > 0 and rng.random() < text_share:  # drawn only then: sets made without pages stay the same
        scene = printed_page(h, w, rng)
    placed: list[Placed] = []
    turn = float(rng.choice([0, 90, 180, 270])) if rng.random() < 0.5 else 0.0

    def lay(code: str, centre: np.ndarray, angle: float, card_h: float) -> None:
        face = deck.faces[code]
        matrix = _lay(scene, face, centre, angle, card_h, rng)
        placed.append(Placed(code, (face.shape[1], face.shape[0]), matrix, ANCHORS.get(id(face)) or face_anchors(face)))

    if kind == "cropped":  # a photo cropped to the card: no cloth around it
        code = codes[int(rng.integers(len(codes)))]
        face = deck.faces[code]
        fh, fw = face.shape[:2]
        scale = float(rng.uniform(0.8, 1.6))
        scene = cv2.resize(face, (round(fw * scale), round(fh * scale)), interpolation=cv2.INTER_AREA)
        h, w = scene.shape[:2]
        matrix = np.array([[scale * w / (fw * scale), 0, 0], [0, scale * h / (fh * scale), 0]], np.float32)
        placed.append(Placed(code, (fw, fh), matrix, ANCHORS.get(id(face)) or face_anchors(face)))
    elif kind == "single":
        card_h = float(rng.uniform(0.4, 0.9)) * min(h, w)
        lay(codes[int(rng.integers(len(codes)))], np.array([w / 2, h / 2]) + rng.uniform(-25, 25, 2),
            turn + float(rng.uniform(-40, 40)), card_h)
    elif kind in ("fan", "table"):
        n = int(rng.integers(2, 11))
        card_h = float(rng.uniform(90, 170)) if kind == "table" else float(rng.uniform(0.35, 0.7)) * h
        step = card_h / CARD_RATIO * float(rng.uniform(0.17, 0.5))
        card_h = min(card_h, 0.9 * h, (0.9 * w - step * (n - 1)) * CARD_RATIO)
        tilt = turn + float(rng.uniform(-12, 12) if kind == "table" else rng.uniform(-40, 40))
        a = np.deg2rad(tilt)
        along = np.array([np.cos(a), np.sin(a)])
        start = np.array([w / 2, h / 2]) - along * step * (n - 1) / 2
        same = rng.random() < 0.15  # a bomb: the same rank (and copies of the same card, two decks)
        first = codes[int(rng.integers(len(codes)))]
        for i in range(n):
            code = first if same and rng.random() < 0.5 else codes[int(rng.integers(len(codes)))]
            if same and code != first and first not in JOKERS:
                code = next((c for c in codes if c[1:] == first[1:] and rng.random() < 0.5), first)
            lay(code, start + along * step * i + rng.normal(0, 2, 2), tilt + float(rng.normal(0, 3)), card_h)
    else:  # spread: two or three cards, apart or overlapping
        n = int(rng.integers(2, 4))
        card_h = float(rng.uniform(0.3, 0.55)) * min(h, w)
        for _ in range(n):
            centre = np.array([rng.uniform(0.25, 0.75) * w, rng.uniform(0.3, 0.7) * h])
            lay(codes[int(rng.integers(len(codes)))], centre, turn + float(rng.uniform(-60, 60)), card_h)
    scene = light_scene(scene, rng, float(rng.uniform(0.5, 1.2)))
    if rng.random() < 0.3:  # perspective: a camera not straight above
        d = 0.08 * min(h, w)
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
        dst = (src + rng.uniform(-d, d, (4, 2))).astype(np.float32)
        homography = cv2.getPerspectiveTransform(src, dst)
        scene = cv2.warpPerspective(scene, homography, (w, h), borderMode=cv2.BORDER_REFLECT)
        placed = [Placed(p.code, p.size, _compose(homography, p.to_scene), p.anchors) for p in placed]
    if rng.random() < 0.2:  # dim hall
        scene = (scene * rng.uniform(0.35, 0.7)).astype(np.uint8)
    if kind == "table" or rng.random() < 0.3:
        scene = cv2.GaussianBlur(scene, (0, 0), float(rng.uniform(0.3, 1.1)))
    if rng.random() < 0.1:
        scene = cv2.cvtColor(cv2.cvtColor(scene, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.7:
        _, buf = cv2.imencode(".jpg", scene, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("a scene did not decode from its own JPEG")
        scene = decoded
    return scene, placed


ANCHORS: dict[int, tuple[Glyph | None, Glyph | None]] = {}


def _compose(homography: np.ndarray, affine: np.ndarray) -> np.ndarray:
    """A 3x3 face-to-scene map: the affine paste followed by the camera's perspective."""
    return homography @ np.vstack([affine, [0, 0, 1]])


def _to_face(p: Placed) -> np.ndarray:
    m = p.to_scene if p.to_scene.shape == (3, 3) else np.vstack([p.to_scene, [0, 0, 1]])
    return np.linalg.inv(m)


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ m.T
    return q[:, :2] / q[:, 2:3]


def label_of(glyph: Glyph, flat_to_scene: np.ndarray, placed: list[Placed]) -> int:
    """The class of a proposal: the card whose upright corner index starts with this glyph, else NONE."""
    centre = np.array([[glyph.cx, glyph.y + glyph.h / 2]])
    top_bottom = np.array([[glyph.cx, glyph.y], [glyph.cx, glyph.y + glyph.h]])
    scene_pts = _apply(flat_to_scene, np.vstack([centre, top_bottom]))
    for p in reversed(placed):  # the card on top first
        to_face = _to_face(p)
        face_pts = _apply(to_face, scene_pts)
        fw, fh = p.size
        c = face_pts[0]
        if not (0 <= c[0] < fw and 0 <= c[1] < fh):
            continue
        up = face_pts[1] - face_pts[2]  # the glyph's top minus its bottom, in face pixels
        length = float(np.linalg.norm(up))
        for k, anchor in enumerate(p.anchors):
            if anchor is None:
                continue
            a = Glyph(anchor.x, anchor.y, anchor.w, anchor.h) if k == 0 else \
                Glyph(fw - anchor.x - anchor.w, fh - anchor.y - anchor.h, anchor.w, anchor.h)
            want_up = np.array([0.0, -1.0]) if k == 0 else np.array([0.0, 1.0])
            pad = 0.3 * a.h
            inside = a.x - pad <= c[0] <= a.x + a.w + pad and a.y - pad <= c[1] <= a.y + a.h + pad
            if inside and length > 0 and float(up @ want_up) / length > 0.8 and 0.6 * a.h <= length <= 1.6 * a.h:
                return CLASSES.index(p.code)
        return CLASSES.index(NONE)  # on this card, not its index
    return CLASSES.index(NONE)


def samples(scene: np.ndarray, placed: list[Placed], rng: np.random.Generator,
            negatives_per_positive: float = 3.0) -> tuple[list[np.ndarray], list[int]]:
    """Labelled windows of every proposal of the scene's two largest regions in their four turns."""
    pos: list[tuple[np.ndarray, int]] = []
    neg: list[np.ndarray] = []
    regions = find_regions(scene)[:4]  # the card, and what lies inside it (pips, a court's frame) as the reader sees
    regions.append(whole_image_region(scene))
    for region in regions:
        for turn in range(4):
            flat, inverse = rectify(scene, region, turn)
            flat = as_read(flat)  # a dark card turned over, as the reader reads it
            mask, _ = ink_mask(flat)  # the whole card: pips and pictures of its middle are negatives too
            glyphs = propose(mask, max_top=1.0)
            if not glyphs:
                continue
            windows = crops(flat, glyphs)
            for glyph, window_image in zip(glyphs, windows, strict=True):
                label = label_of(glyph, inverse, placed)
                if label == CLASSES.index(NONE):
                    neg.append(window_image)
                else:
                    pos.append((window_image, label))
    keep = min(len(neg), max(2, int(negatives_per_positive * max(len(pos), 1))))
    chosen: np.ndarray | list[int] = rng.choice(len(neg), keep, replace=False) if neg else []
    x = [c for c, _ in pos] + [neg[i] for i in chosen]
    y = [lab for _, lab in pos] + [CLASSES.index(NONE)] * len(chosen)
    return x, y


KINDS = ("single", "fan", "table", "spread", "cropped")
KIND_P = (0.15, 0.35, 0.3, 0.08, 0.12)


def _work(job: tuple[int, tuple[str, object], int, int, tuple[str, ...], float]
          ) -> tuple[list[np.ndarray], list[int], int]:
    deck_index, spec, scenes, seed, only, text_share = job
    deck = make_deck(spec)
    if deck is not None and only:
        deck = Deck(deck.name, {c: f for c, f in deck.faces.items() if c in only})
    if deck is None or not deck.faces:
        return [], [], deck_index
    for face in deck.faces.values():
        ANCHORS[id(face)] = face_anchors(face)
    rng = np.random.default_rng([seed, deck_index])
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for _ in range(scenes):
        kind = str(rng.choice(KINDS, p=KIND_P))
        scene, placed = scene_of(deck, rng, kind, text_share)
        x, y = samples(scene, placed, rng)
        xs += x
        ys += y
    ANCHORS.clear()
    return xs, ys, deck_index


def build(specs: list[tuple[str, object]], scenes_per_deck: int, seed: int,
          workers: int, only: tuple[str, ...] = (), text_share: float = 0.0) -> Iterator[tuple[list[np.ndarray], list[int], int]]:
    """(windows, labels, design index) per design, made in ``workers`` processes (each draws its own faces);
    ``only``: lay only these cards (a set aimed at a weakness, such as telling the two jokers apart)."""
    jobs = [(i, spec, scenes_per_deck, seed, only, text_share) for i, spec in enumerate(specs)]
    if workers <= 1:
        yield from map(_work, jobs)
        return
    with Pool(workers) as pool:
        yield from pool.imap_unordered(_work, jobs)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--decks", type=Path, default=Path("/tmp/guandan-decks"))
    parser.add_argument("--held-out", action="store_true", help="make the held-out designs' set instead")
    parser.add_argument("--scenes-per-deck", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--text-share", type=float, default=0.0,
                        help="lay this share of scenes on printed pages (newspaper, book: printed_surfaces.py)")
    parser.add_argument("--dark", action="store_true", help="every design printed light on dark (dark_decks.py)")
    parser.add_argument("--cards", default="", help="lay only these cards (comma-separated codes, e.g. SB,HR)")
    args = parser.parse_args(argv)
    only = tuple(c for c in args.cards.split(",") if c)
    unknown = [c for c in only if c not in CARD_CODES]
    if unknown:
        parser.error(f"unknown card code(s) in --cards: {' '.join(unknown)}")
    start = time.monotonic()
    decks = deck_specs(args.decks, held=args.held_out, dark=args.dark)
    print(f"{len(decks)} designs", file=sys.stderr)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    ds: list[int] = []
    for n, (x, y, deck_index) in enumerate(build(decks, args.scenes_per_deck, args.seed, args.workers, only,
                                                          args.text_share), 1):
        xs += x
        ys += y
        ds += [deck_index] * len(y)
        if n % 10 == 0 or n == len(decks):
            print(f"{n}/{len(decks)} designs, {len(ys)} windows, {time.monotonic() - start:.0f} s", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, crops=np.stack(xs), labels=np.array(ys, np.int16), design=np.array(ds, np.int16),
                        designs=np.array([spec_name(d) for d in decks]), classes=np.array(CLASSES))
    counts = np.bincount(np.array(ys), minlength=len(CLASSES))
    print(f"saved {args.out}: {len(ys)} windows, positives {int(counts[:-1].sum())}, min per card "
          f"{int(counts[:-1].min())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
