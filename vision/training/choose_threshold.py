"""Choose the learned reader's accept threshold on held-out real photos and write it beside the model.

The reader reads the calibration part of the fixed split (``vision/data/real_split.json``: cardcounter photos
neither trained on nor used for any reported figure) with its thresholds lowered to ``FLOOR``; every reading
is then right or wrong (``real_eval``). A threshold ``t`` keeps the readings at least ``t`` sure: the one
chosen is the lowest ``t`` whose kept readings are at most ``MAX_WRONG_SHARE`` wrong, or, where none is, the
one that keeps most right readings less ``WRONG_COST`` times the wrong ones (a card taken wrongly costs far
more than one the player is asked to show again). Spotted indices (no card outline) keep at least
``vision.net.network.DEFAULT_SPOT_ACCEPT``. The temperature was fitted by ``train_net.py`` on the windows of
the same photos.

Run: ``python -m vision.training.choose_threshold [MODEL.onnx]`` (rewrites ``MODEL.json``'s ``accept``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.files import load_image
from vision.net.network import DEFAULT_SPOT_ACCEPT, MODEL_PATH, IndexNet
from vision.net.reader import CardReader
from vision.training.real_eval import Score, real_sets

FLOOR = 0.5
MAX_WRONG_SHARE = 0.01
WRONG_COST = 10.0


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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=MODEL_PATH)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    net = IndexNet(args.model, threads=1)
    net.accept = net.spot_accept = FLOOR
    reader = CardReader(net)
    total = Score()
    for photos in real_sets("calibration").values():
        for photo in photos:
            total.add(photo, reader.read_image(load_image(photo.path)))
    accept, facts = choose(total.readings)
    meta_path = args.model.with_suffix(".json")
    meta = json.loads(meta_path.read_text("utf-8"))
    meta["accept"] = accept
    meta["spot_accept"] = max(accept, DEFAULT_SPOT_ACCEPT)
    meta.setdefault("training", {})["threshold_chosen_on"] = {
        "photos": total.photos, "cards": total.wanted, "readings_at_floor": len(total.readings)} | facts
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    print(f"accept {accept} on {total.photos} calibration photos: {facts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
