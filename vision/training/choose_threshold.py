"""Choose the learned reader's accept threshold on held-out real photos and write it beside the model.

The reader reads the calibration part of the fixed split (``vision/data/real_split.json``: cardcounter photos
neither trained on nor used for any reported figure) with its thresholds lowered to ``FLOOR``; every reading is then
right or wrong (``real_eval``; by the labels as ``vision/data/label_audit.json`` corrects them). A threshold ``t``
keeps the readings at least ``t`` sure: the one chosen is the lowest ``t`` whose kept readings are at most
``MAX_WRONG_SHARE`` wrong, or, where none is, the one that keeps most right readings less ``WRONG_COST`` times the
wrong ones (a card taken wrongly costs far more than one the player is asked to show again). Cards seen only by
spotting (no card outline around their index: most false indices are pips and pictures spotted this way) then get
their own, stricter threshold, chosen by the same cost among ``SPOT_GRID``, never below ``accept`` nor
``vision.net.network.DEFAULT_SPOT_ACCEPT``, nor ``--spot-floor`` (by default ``SPOT_FLOOR``: what the calibration
photos alone cannot see; 0 to choose on them alone). The temperature was fitted by ``train_net.py`` on the windows
of the same photos.

Run: ``python -m vision.training.choose_threshold [MODEL.onnx] [--spot-floor 0.99995]`` (rewrites ``MODEL.json``'s
``accept`` and ``spot_accept``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.files import load_image
from vision.net.grouping import Sighting
from vision.net.network import DEFAULT_SPOT_ACCEPT, MODEL_PATH, IndexNet
from vision.net.reader import CardReader, reading_of
from vision.training.real_eval import Photo, Score, real_sets

FLOOR = 0.5
MAX_WRONG_SHARE = 0.01
WRONG_COST = 10.0
SPOT_GRID = (0.999, 0.9995, 0.9998, 0.9999, 0.99995)
#: the least threshold of a card spotted alone that is taken (unless ``--spot-floor`` says otherwise): on the choice sets' held-out
#: frames at nine seeds, the committed model's readings spotted between 0.9999 and 0.99995 were 22 wrong for 2
#: right, and on the real choice sets 1 wrong for 5 right; the 70 calibration photos, where the two thresholds
#: differ by one card, chose 0.9999 (``vision/README.md``, *The spotted threshold at 0.99995*)
SPOT_FLOOR = 0.99995


def choose(readings: list[tuple[float, bool]]) -> tuple[float, dict[str, object]]:
    """The threshold for ``readings`` (confidence, right) and the counts at it."""
    grid = [round(float(t), 3) for t in np.concatenate([np.arange(0.5, 0.95, 0.01), np.arange(0.95, 0.999, 0.002)])]
    table = []
    for t in grid:
        kept = [ok for c, ok in readings if c >= t]
        table.append((t, sum(kept), len(kept) - sum(kept)))
    safe = [row for row in table if row[1] + row[2] and row[2] <= MAX_WRONG_SHARE * (row[1] + row[2])]
    t, right, wrong = safe[0] if safe else max(table, key=lambda row: row[1] - WRONG_COST * row[2])
    return t, {"threshold": t, "right_above": right, "wrong_above": wrong, "rule": "lowest t with at most "
               f"{MAX_WRONG_SHARE:.0%} wrong" if safe else f"most right less {WRONG_COST:g} x wrong"}


def choose_spot(read: list[tuple[Photo, list[Sighting]]], accept: float, floor: float = 0.0
                ) -> tuple[float, dict[str, object]]:
    """The threshold for cards seen only by spotting, ``accept`` holding for the others: the one of ``accept``
    and ``SPOT_GRID`` that keeps most right readings less ``WRONG_COST`` times the wrong ones, never under
    ``floor``."""
    best: tuple[float, float, int, int] | None = None
    least = max(accept, DEFAULT_SPOT_ACCEPT, floor)
    for t in sorted({least} | {g for g in SPOT_GRID if g > accept and g >= floor}):
        score = Score()
        for photo, sightings in read:
            score.add(photo, [reading_of(s) for s in sightings if s.confidence >= (t if s.spotted else accept)])
        right = sum(ok for _, ok in score.readings)
        wrong = len(score.readings) - right
        if best is None or right - WRONG_COST * wrong > best[1]:
            best = (t, right - WRONG_COST * wrong, right, wrong)
    assert best is not None
    return best[0], {"spot_threshold": best[0], "right_above": best[2], "wrong_above": best[3]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=MODEL_PATH)
    parser.add_argument("--spot-floor", type=float, default=SPOT_FLOOR,
                        help=f"the least spotted threshold taken (default {SPOT_FLOOR}; 0: the calibration photos alone)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    net = IndexNet(args.model, threads=1)
    net.accept = net.spot_accept = FLOOR
    reader = CardReader(net)
    total = Score()
    read: list[tuple[Photo, list[Sighting]]] = []
    for photos in real_sets("calibration").values():
        for photo in photos:
            read.append((photo, reader.sightings(load_image(photo.path))))
            total.add(photo, [reading_of(s) for s in read[-1][1]])
    accept, facts = choose(total.readings)
    spot_accept, spot_facts = choose_spot(read, accept, args.spot_floor)
    meta_path = args.model.with_suffix(".json")
    meta = json.loads(meta_path.read_text("utf-8"))
    meta["accept"] = accept
    meta["spot_accept"] = spot_accept
    meta.setdefault("training", {})["threshold_chosen_on"] = {
        "photos": total.photos, "cards": total.wanted, "readings_at_floor": len(total.readings)} | facts \
        | {"spotted_only": spot_facts | ({"floor": args.spot_floor} if args.spot_floor else {})}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    print(f"accept {accept}, spotted {spot_accept} on {total.photos} calibration photos: {facts} {spot_facts}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
