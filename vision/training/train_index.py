"""Train the corner-index glyph classifiers (``vision/data/index_model.npz``) on this machine's CPU.

Data: card faces rendered from the Debian card-art packages (``render_decks.py``: about 20 French-suited
designs with jokers) plus this package's own rendered faces (``vision.render``, six font styles). Each face is
pasted on a random cloth, turned up to 40 degrees, lit unevenly, tinted, blurred, noised, partly covered and
JPEG-compressed, and then goes through the reader's own pipeline (edge finder, rectification, ink mask, glyph
pairing), so the classifiers learn exactly what the reader will show them. The top-left pair of the upright
card is labelled with its rank and suit; the card's other pairs (rank only: their lower glyph is often a real
pip) and every pair seen with the card turned a quarter (sideways glyphs) are labelled "not an index" (X), as
are a joker's J-O-K-E-R letters as a suit. Deterministic for a given ``--seed``.

Usage: ``nice -n 10 python -m vision.training.train_index [--decks DIR] [--per-face N] [--out PATH]``
(renders the Debian decks into ``DIR`` first when it is empty; about 12 minutes on one shared core).
The committed model is an ensemble of three runs (under 13 minutes each):
``train_index --fans-per-face 0 --per-face 10 --out /tmp/a.npz`` then
``train_index --per-face 12 --add-to /tmp/a.npz --out /tmp/ab.npz`` (the second adds networks that also saw
fanned cards), then ``train_index --per-face 8 --fans-per-face 1 --table-fans-per-face 4 --seed 11
--add-to /tmp/ab.npz`` (the third saw fans as small and as loosely laid as the table camera sees them).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classifier import MODEL_PATH, RANK_CLASSES, SUIT_CLASSES, Ensemble, GlyphModel, train_mlp
from vision.files import load_face
from vision.geometry import CARD_H, find_regions, rectify
from vision.index import BAND, find_candidates, glyph_features, ink_mask
from vision.render import light_scene, paste_card, render_face, table_cloth
from vision.training import render_decks
from vision.types import CARD_CODES, JOKERS

SYNTHETIC_STYLES = 12


def load_faces(deck_dir: Path) -> list[tuple[str, np.ndarray]]:
    """(code, BGR face) for every rendered Debian face and every synthetic style."""
    faces: list[tuple[str, np.ndarray]] = []
    for png in sorted(deck_dir.glob("*/*.png")):
        image = load_face(png) if png.stem in CARD_CODES else None
        if image is not None:
            faces.append((png.stem, image))
    for style in range(SYNTHETIC_STYLES):
        for code in CARD_CODES:
            faces.append((code, render_face(code, 200, style)))
    return faces


def augmented_scene(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One photo-like scene of a single card, upright within 40 degrees."""
    h, w = int(rng.integers(300, 520)), int(rng.integers(400, 700))
    scene = table_cloth(h, w, rng)
    card_h = float(rng.uniform(0.45, 0.95)) * min(h, w)
    paste_card(scene, face, (w / 2 + rng.uniform(-20, 20), h / 2 + rng.uniform(-20, 20)),
               float(rng.uniform(-40, 40)), card_h, shadow=float(rng.uniform(0, 0.4)))
    if rng.random() < 0.3:  # a finger or another card over part of the face (never the top-left index)
        x0, y0 = int(w / 2 + rng.uniform(0, 0.3) * card_h), int(h / 2 + rng.uniform(0, 0.3) * card_h)
        colour = tuple(int(c) for c in rng.uniform(40, 220, 3))
        cv2.ellipse(scene, (x0, y0), (int(card_h * 0.15), int(card_h * 0.3)), float(rng.uniform(0, 180)),
                    0, 360, colour, -1, cv2.LINE_AA)
    scene = light_scene(scene, rng)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", scene, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("a scene did not decode from its own JPEG")
        scene = decoded
    return scene


def fan_scene(faces: list[tuple[str, np.ndarray]], rng: np.random.Generator, *, table: bool = False,
              ) -> tuple[np.ndarray, list[str], list[np.ndarray]]:
    """Two to five cards of one design overlapped left to right (only the top-left indices of the lower ones
    show), tilted together up to 40 degrees: (scene, codes, top-left corners in the scene).

    ``table``: as an overhead table camera sees a play laid in a seat's area: small cards (100-170 px high, so
    the reader enlarges blurred indices about twofold), the fan within 12 degrees of facing the seat and each
    card a few degrees out of line with the others."""
    h, w = int(rng.integers(320, 480)), int(rng.integers(560, 760))
    scene = table_cloth(h, w, rng)
    n = int(rng.integers(2, 6))
    card_h = float(rng.uniform(100, 170)) if table else float(rng.uniform(0.45, 0.75)) * h
    card_w = card_h / 1.45
    step = card_w * float(rng.uniform(0.3, 0.5))
    tilt = float(rng.uniform(-12, 12)) if table else float(rng.uniform(-40, 40))
    spread = 3.5 if table else 2.0
    a = np.deg2rad(tilt)
    along = np.array([np.cos(a), np.sin(a)])
    start = np.array([w / 2, h / 2]) - along * step * (n - 1) / 2
    codes: list[str] = []
    corners: list[np.ndarray] = []
    for i in range(n):
        code, face = faces[int(rng.integers(0, len(faces)))]
        centre = start + along * step * i + rng.normal(0, 2, 2)
        quad = paste_card(scene, face, (float(centre[0]), float(centre[1])), tilt + float(rng.normal(0, spread)),
                          card_h, shadow=float(rng.uniform(0, 0.4)))
        codes.append(code)
        corners.append(quad[0])
    scene = light_scene(scene, rng)
    if table:  # the camera's resolution: a little softer than the pasted faces
        scene = cv2.GaussianBlur(scene, (0, 0), float(rng.uniform(0.3, 0.9)))
    return scene, codes, corners


def fan_samples(scene: np.ndarray, codes: list[str], corners: list[np.ndarray],
                ) -> tuple[list[np.ndarray], list[int], list[np.ndarray], list[int]]:
    """Labelled samples from a fan: each index is told by where its card's top-left corner lies."""
    rx: list[np.ndarray] = []
    ry: list[int] = []
    sx: list[np.ndarray] = []
    sy: list[int] = []
    regions = find_regions(scene)
    if not regions:
        return rx, ry, sx, sy
    for turn in range(4):
        flat, inverse = rectify(scene, regions[0], turn)
        tl = cv2.perspectiveTransform(np.array([corners], np.float32), np.linalg.inv(inverse))[0]
        if not (np.all(tl[:, 1] > -0.1 * CARD_H) and np.all(tl[:, 1] < 0.15 * CARD_H)
                and np.all(np.diff(tl[:, 0]) > 0)):
            continue
        mask, _ = ink_mask(flat[: int(BAND * CARD_H)])
        for cand in find_candidates(mask):
            offset = np.array([cand.rank.cx, cand.rank.y]) - tl
            near = np.flatnonzero((offset[:, 0] > 0) & (offset[:, 0] < 0.12 * CARD_H) & (offset[:, 1] > -0.02 * CARD_H)
                                  & (offset[:, 1] < 0.11 * CARD_H))
            if len(near) == 0 or codes[near[-1]] in JOKERS:
                continue  # not clearly one card's index: negatives come from the single-card scenes
            code = codes[near[-1]]  # the card on top at that place
            rx.append(glyph_features(mask, cand.rank))
            ry.append(RANK_CLASSES.index(code[1]))
            sx.append(glyph_features(mask, cand.suit))
            sy.append(SUIT_CLASSES.index(code[0]))
        break
    return rx, ry, sx, sy


def samples_from(scene: np.ndarray, code: str) -> tuple[list[np.ndarray], list[int], list[np.ndarray], list[int]]:
    """Labelled rank and suit feature vectors from one scene, through the reader's own pipeline."""
    rx: list[np.ndarray] = []
    ry: list[int] = []
    sx: list[np.ndarray] = []
    sy: list[int] = []
    regions = find_regions(scene)
    if not regions:
        return rx, ry, sx, sy
    region = regions[0]
    for turn in (0, 1, 3):
        flat, _ = rectify(scene, region, turn)
        if turn == 0 and flat.shape[1] > 0.85 * CARD_H:
            return [], [], [], []  # not found as one upright card: no trustworthy label
        mask, _ = ink_mask(flat[: int(BAND * CARD_H)])
        candidates = find_candidates(mask)
        if turn == 0:
            index = [c for c in candidates if c.rank.x < 0.3 * flat.shape[1] and c.rank.y < 0.2 * CARD_H]
            index.sort(key=lambda c: c.rank.x + c.rank.y)
            first = index[0] if index else None
        for cand in candidates:
            is_index = turn == 0 and cand is first
            rank_label = RANK_CLASSES.index("X")
            suit_label = SUIT_CLASSES.index("X")
            if is_index and code not in JOKERS:
                rank_label = RANK_CLASSES.index(code[1])
                suit_label = SUIT_CLASSES.index(code[0])
            elif is_index:
                rank_label = RANK_CLASSES.index("J") if cand.stack >= 2 else rank_label
            rx.append(glyph_features(mask, cand.rank))
            ry.append(rank_label)
            if turn == 0 and not is_index:
                continue  # a pip of the card's body paired with another is still a suit shape: no suit label
            sx.append(glyph_features(mask, cand.suit))
            sy.append(suit_label)
    return rx, ry, sx, sy


def _balance(x: np.ndarray, y: np.ndarray, other: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Keep at most twice the mean class count of "not an index" samples, so X does not swamp real glyphs."""
    counts = np.bincount(y, minlength=other + 1)
    cap = int(2 * counts[:other].mean())
    x_idx = np.flatnonzero(y == other)
    if len(x_idx) > cap:
        drop = rng.choice(x_idx, len(x_idx) - cap, replace=False)
        keep = np.setdiff1d(np.arange(len(y)), drop)
        x, y = x[keep], y[keep]
    return x, y


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=Path, default=Path("/tmp/guandan-decks"))
    parser.add_argument("--per-face", type=int, default=10)
    parser.add_argument("--fans-per-face", type=int, default=2, help="of the scenes per face, fanned ones")
    parser.add_argument("--table-fans-per-face", type=int, default=0,
                        help="of the scenes per face, fans as small as a table camera sees them (after the fans)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--add-to", type=Path, help="add the new networks to this model's ensembles")
    args = parser.parse_args(argv)
    if not any(args.decks.glob("*/*.png")):
        render_decks.main([str(args.decks)])
    rng = np.random.default_rng(args.seed)
    faces = load_faces(args.decks)
    print(f"{len(faces)} faces", file=sys.stderr)
    rx: list[np.ndarray] = []
    ry: list[int] = []
    sx: list[np.ndarray] = []
    sy: list[int] = []
    start = time.monotonic()
    decks: dict[int, list[tuple[str, np.ndarray]]] = {}
    for i, (code, face) in enumerate(faces):
        decks.setdefault(i // 54, []).append((code, face))
    for i, (code, face) in enumerate(faces):
        for k in range(args.per_face):
            if k < args.fans_per_face:
                a, b, c, d = fan_samples(*fan_scene(decks[i // 54], rng))
            elif k < args.fans_per_face + args.table_fans_per_face:
                a, b, c, d = fan_samples(*fan_scene(decks[i // 54], rng, table=True))
            else:
                a, b, c, d = samples_from(augmented_scene(face, rng), code)
            rx += a
            ry += b
            sx += c
            sy += d
        if i % 200 == 0:
            print(f"face {i}/{len(faces)}: {len(rx)} samples, {time.monotonic() - start:.0f} s", file=sys.stderr)
    xr, yr = _balance(np.stack(rx), np.array(ry), len(RANK_CLASSES) - 1, rng)
    xs, ys = _balance(np.stack(sx), np.array(sy), len(SUIT_CLASSES) - 1, rng)
    print(f"rank samples {np.bincount(yr, minlength=len(RANK_CLASSES))}", file=sys.stderr)
    print(f"suit samples {np.bincount(ys, minlength=len(SUIT_CLASSES))}", file=sys.stderr)
    rank = train_mlp(xr, yr, len(RANK_CLASSES), epochs=args.epochs, seed=args.seed)
    suit = train_mlp(xs, ys, len(SUIT_CLASSES), epochs=args.epochs, seed=args.seed + 1)
    for name, mlp, x, y in (("rank", rank, xr, yr), ("suit", suit, xs, ys)):
        acc = float((mlp.predict(x).argmax(axis=1) == y).mean())
        print(f"{name} training accuracy {acc:.4f}", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model = GlyphModel(Ensemble((rank,)), Ensemble((suit,)))
    if args.add_to is not None:
        model = GlyphModel.load(args.add_to).joined(model)
    model.save(args.out)
    print(f"saved {args.out} ({args.out.stat().st_size} bytes) in {time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
