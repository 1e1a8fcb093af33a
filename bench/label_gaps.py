"""Real card indices that the train part's labels leave outside every box, which training takes as "no index".

``vision/training/real_data.py`` labels every window outside cardcounter's boxes "no index" and keeps every one its
teacher reads as a card (``HARD``) as a hard negative. The boxes leave out cards cut by the photo's edge, and some
photos box one corner of each card only, so some of those hard negatives are real indices (``vision/README.md``,
*Tried and not kept (twenty-second session)*). Windows in the regions ``vision/data/train_part_audit.json`` already
holds (the twenty-third session's audit of this bench's candidates) are counted as ``audited`` and not listed. This bench cuts the train part's windows as training does, keeps
the hard negatives the teacher reads as a card at least ``--sure`` sure, and reads each with an independent reader
(PaddleOCR's text recogniser, ``bench/rank_ocr.py``): where it reads the teacher's rank, the window is probably a
real index the labels miss. Prints the counts and one JSON line per such window (photo, centre, glyph height, up,
the teacher's card and the recogniser's text), which is what boxes for an audit of the train part would start
from; ``--sheet PNG`` draws them.

Run: ``.venv/bin/python bench/label_gaps.py --ocr REC.onnx [--part train] [--sure 0.99] [--sheet gaps.png]`` (about
4 minutes on one core; ``onnx`` of the ``train`` extra reads the recogniser's characters).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from rank_ocr import Recogniser, rank_in, rank_of, upright  # noqa: E402

from vision.files import load_image  # noqa: E402
from vision.net.network import CLASSES, IndexNet  # noqa: E402
from vision.training.real_data import (  # noqa: E402
    HARD,
    N_NONE,
    flat_windows,
    in_box,
    in_pixels,
    spotted_windows,
    train_part_audit,
)
from vision.training.real_split import CARDS, cardcounter_boxes, load_split  # noqa: E402

TEACHER = ROOT / "vision" / "data" / "index_net_rendered.onnx"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ocr", type=Path, required=True, help="PP-OCRv4 rec ONNX (rapidocr_onnxruntime's)")
    ap.add_argument("--teacher", type=Path, default=TEACHER, help="the network trained on rendered designs only")
    ap.add_argument("--part", choices=("train", "calibration"), default="train")
    ap.add_argument("--sure", type=float, default=0.99, help="the hard negatives looked at: read this sure")
    ap.add_argument("--sheet", type=Path, default=None, help="draw the probable indices' windows here (PNG)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    teacher = IndexNet(args.teacher, threads=1)
    ocr = Recogniser(args.ocr)
    boxes = cardcounter_boxes()
    audit = train_part_audit()
    counts = {"photos": 0, "negatives": 0, "hard": 0, "sure": 0, "read_alike": 0, "audited": 0}
    tiles: list[np.ndarray] = []
    for name in load_split()[args.part]:
        image = load_image(CARDS / "cardcounter" / "images" / name)
        counts["photos"] += 1
        boxed = in_pixels(boxes[name], image.shape[:2])
        gaps = in_pixels(list(audit[name].unboxed), image.shape[:2]) if name in audit else []
        outside = [x for x in flat_windows(image) + spotted_windows(image) if not any(in_box(x, b) for b in boxed)]
        # what the audit already holds is left out of training (real_data --audit): counted, not listed again
        listed = len(outside)
        outside = [x for x in outside if not any(in_box(x, g, pad=0.0) for g in gaps)]
        counts["audited"] += listed - len(outside)
        counts["negatives"] += len(outside)
        if not outside:
            continue
        cards = np.delete(teacher.predict(np.stack([x.image for x in outside])), N_NONE, axis=1)
        for x, p in zip(outside, cards, strict=True):
            sure = float(p.max())
            counts["hard"] += sure >= HARD
            if sure < args.sure:
                continue
            counts["sure"] += 1
            card = CLASSES[int(p.argmax())]  # the card columns come first, "no index" last
            centre, up = (float(x.centre[0]), float(x.centre[1])), (float(x.up[0]), float(x.up[1]))
            text, _ = ocr.read(upright(image, centre, up, x.glyph_h))
            if rank_in(text)[0] != rank_of(card):
                continue
            counts["read_alike"] += 1
            print(json.dumps({"photo": name, "centre": [round(c, 1) for c in centre], "glyph_h": round(x.glyph_h, 1),
                              "up": [round(u, 3) for u in up], "teacher": card, "teacher_p": round(sure, 4),
                              "recogniser": text}, ensure_ascii=False))
            if args.sheet is not None:
                tile = cv2.resize(x.image, (96, 96), interpolation=cv2.INTER_NEAREST)
                tiles.append(tile if tile.ndim == 3 else cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR))
    print(json.dumps({"part": args.part, "hard_above": HARD, "sure_from": args.sure, **counts}))
    if args.sheet is not None and tiles:
        while len(tiles) % 12:
            tiles.append(np.zeros_like(tiles[0]))
        cv2.imwrite(str(args.sheet), np.vstack([np.hstack(tiles[i:i + 12]) for i in range(0, len(tiles), 12)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
