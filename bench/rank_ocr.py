"""A second opinion on the rank from a recogniser trained on real printed text: does it tell the reader's right
readings on real photos from its wrong ones?

The index network learned real photos from cardcounter's 357 train photos only, and on photos it never saw it is
sure of some wrong cards (``bench/vision.py``). PaddleOCR's PP-OCRv4 text recogniser (Apache-2.0; the ONNX export
that the ``rapidocr_onnxruntime`` wheel carries) learned printed characters from a great deal of real text. It
cannot read a suit (its characters hold no ♠♥♣♦), but it reads a rank's "10", "Q" or "7", and a pip, a court
picture or wood grain is no character to it. This bench reads every sighting of the reader on the choice sets from
its floor up (``CardReader.sightings(unsure=True)``), cuts the first glyph's neighbourhood upright
(``Sighting.centre``, ``up``, ``glyph_h``), reads it with the recogniser and says, by the network's confidence and
by outline or spotted, how often the recogniser reads the sighting's rank, another rank or none, for right and for
wrong readings; then what two rules would do:

- *promote*: a reading under the model's thresholds but at least ``--promote-from`` sure, whose rank the
  recogniser reads as the network does, is reported;
- *veto*: a sure reading whose first glyph the recogniser reads cleanly as another rank (the whole text one rank,
  at least ``--veto-from`` sure) is not.

Measured, not shipped: neither rule is in the reader (``vision/README.md``, *A second opinion on the rank
(twenty-second session)*). Sets: ``calibration`` and ``edje_train`` (never trained on, as ``bench/choice_sets.py``),
``train`` (cardcounter's train part: the network trained on these photos, so its confidences there are too high,
but its decks are the test part's).

Needs the recogniser's ONNX file (``pip download --no-deps rapidocr_onnxruntime==1.4.4``, unzip it:
``rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx``) and ``onnx`` (the ``train`` extra) to read its character
list. Run: ``.venv/bin/python bench/rank_ocr.py --ocr PATH [--sets calibration,edje_train,train] [--cache DIR]``
(about 7 minutes for the three sets on one core).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from choice_sets import REAL_SETS  # noqa: E402
from choice_sets import photos_of as choice_sets_photos  # noqa: E402

from vision.files import load_image  # noqa: E402
from vision.net.grouping import Sighting  # noqa: E402
from vision.net.network import MODEL_PATH, IndexNet  # noqa: E402
from vision.net.reader import CardReader  # noqa: E402
from vision.training.real_eval import Photo, cardcounter, judged  # noqa: E402
from vision.types import BLACK_JOKER, RED_JOKER  # noqa: E402

#: the recogniser's input height (PP-OCR's rec_image_shape 3 x 48 x W) and widest input
OCR_H, OCR_MAX_W = 48, 320
#: the neighbourhood of a sighting's first glyph that is read, in its glyph heights, upright: (left, right, top,
#: bottom) from the glyph's centre. Wide enough for a ten's "0" beside its "1"; narrower lets a tight fan's next
#: index in, which the recogniser reads as more characters (and a veto then sees no clean rank)
CROP = (-0.8, 1.3, -0.72, 0.72)
JOKER = "*"
CONFIDENCE_BANDS = (0.5, 0.99, 0.998, 0.9999, 0.99999, 1.000001)


class Recogniser:
    """PP-OCR's text recogniser run by OpenCV's dnn (as the table runs the index network), greedy CTC decoding."""

    def __init__(self, path: Path) -> None:
        import onnx  # only to read the character list the export keeps in its metadata

        meta = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
        self.characters = ["", *meta["character"].splitlines(), " "]
        self.net = cv2.dnn.readNetFromONNX(str(path))

    def read(self, crop: np.ndarray) -> tuple[str, float]:
        """The text in ``crop`` (BGR) and the mean probability of its characters."""
        h, w = crop.shape[:2]
        width = max(16, min(OCR_MAX_W, math.ceil(OCR_H * w / max(h, 1))))
        x = (cv2.resize(crop, (width, OCR_H)).astype(np.float32) / 255.0 - 0.5) / 0.5
        self.net.setInput(x.transpose(2, 0, 1)[None])
        probs = self.net.forward()[0]
        best, sure = probs.argmax(1), probs.max(1)
        text, kept, previous = [], [], 0
        for i, p in zip(best, sure, strict=True):
            if i != previous and i != 0:
                text.append(self.characters[int(i)])
                kept.append(float(p))
            previous = int(i)
        return "".join(text), (float(np.mean(kept)) if kept else 0.0)


def upright(image: np.ndarray, centre: tuple[float, float], up: tuple[float, float], glyph_h: float) -> np.ndarray:
    """The neighbourhood ``CROP`` of a glyph, turned so that its ``up`` points up."""
    angle = math.degrees(math.atan2(up[0], -up[1]))
    matrix = cv2.getRotationMatrix2D(centre, angle, 1.0)
    if (matrix[:, :2] @ np.array(up))[1] > -0.9:  # the other sense of rotation
        matrix = cv2.getRotationMatrix2D(centre, -angle, 1.0)
    left, right, top, bottom = (glyph_h * k for k in CROP)
    matrix[0, 2] -= centre[0] + left
    matrix[1, 2] -= centre[1] + top
    size = (max(8, round(right - left)), max(8, round(bottom - top)))
    return cv2.warpAffine(image, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def rank_in(text: str) -> tuple[str | None, bool]:
    """The rank a recognised text begins with (``JOKER`` for a joker's word), and whether the text is that rank
    alone (a clean reading, what a veto needs)."""
    t = unicodedata.normalize("NFKC", text).upper().replace(" ", "").strip(".,:;'\"-_")
    if "JO" in t or "王" in t:
        return JOKER, t in ("JO", "JOK", "JOKER", "大王", "小王")
    t = t.replace("IO", "10").replace("1O", "10").replace("LO", "10")
    m = re.match(r"^[^0-9AKQJ]*(10|[2-9AKQJ])", t)
    if m is None:
        return None, False
    rank = "T" if m.group(1) == "10" else m.group(1)
    return rank, t == m.group(1)


def rank_of(card: str) -> str:
    return JOKER if card in (RED_JOKER, BLACK_JOKER) else card[1:]


def photos_of(name: str) -> list[Photo]:
    """A choice set's photos as ``bench/choice_sets.py`` reads them, or cardcounter's ``train`` part."""
    if name in REAL_SETS:
        return choice_sets_photos(name)
    singles, several = cardcounter(name)
    return singles + several


def sightings_of(name: str, reader: CardReader, cache: Path | None) -> list[dict[str, Any]]:
    """Every sighting of the reader on the set's photos from its floor up, judged, with what the crop needs."""
    stored = cache / f"sightings_{name}.json" if cache is not None else None
    if stored is not None and stored.is_file():
        return json.loads(stored.read_text("utf-8"))
    net = reader.net
    rows = []
    for k, photo in enumerate(photos_of(name)):
        seen: list[Sighting] = reader.sightings(load_image(photo.path), unsure=True)
        for s, right in judged(seen, photo.wanted, photo.key):
            rows.append({"photo": str(photo.path), "card": s.card, "confidence": s.confidence, "spotted": s.spotted,
                         "right": right, "sure": s.confidence >= (net.spot_accept if s.spotted else net.accept),
                         "centre": list(s.centre), "up": list(s.up), "glyph_h": s.glyph_h,
                         "candidates": [list(c) for c in s.candidates]})
        if k % 50 == 0:
            print(f"{name}: photo {k}", file=sys.stderr, flush=True)
    if stored is not None:
        stored.write_text(json.dumps(rows), "utf-8")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ocr", type=Path, required=True, help="PP-OCRv4 rec ONNX (rapidocr_onnxruntime's)")
    ap.add_argument("--model", type=Path, default=MODEL_PATH)
    ap.add_argument("--sets", default="calibration,edje_train,train")
    ap.add_argument("--cache", type=Path, default=None, help="keep the reader's sightings here between runs")
    ap.add_argument("--promote-from", type=float, default=0.99)
    ap.add_argument("--veto-from", type=float, default=0.8)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    reader = CardReader(IndexNet(args.model, threads=1))
    ocr = Recogniser(args.ocr)
    images: dict[str, np.ndarray] = {}
    for name in args.sets.split(","):
        rows = sightings_of(name, reader, args.cache)
        for row in rows:
            image = images.get(row["photo"])
            if image is None:
                images.clear()
                image = images[row["photo"]] = load_image(Path(row["photo"]))
            crop = upright(image, tuple(row["centre"]), tuple(row["up"]), row["glyph_h"])
            row["text"], row["ocr"] = ocr.read(crop)
            rank, clean = rank_in(row["text"])
            row["says"] = "agrees" if rank == rank_of(row["card"]) else "none" if rank is None else "other"
            row["clean"] = clean
        bands = []
        for spotted in (False, True):
            for low, high in zip(CONFIDENCE_BANDS[:-1], CONFIDENCE_BANDS[1:], strict=True):
                band = [r for r in rows if r["spotted"] == spotted and low <= r["confidence"] < high]
                bands.append({"spotted": spotted, "from": low, "to": min(high, 1.0), **{
                    kind: dict(Counter(r["says"] for r in band if r["right"] == (kind == "right")))
                    for kind in ("right", "wrong")}})
        sure = [r for r in rows if r["sure"]]
        promoted = [r for r in rows if not r["sure"] and r["confidence"] >= args.promote_from
                    and r["says"] == "agrees"]
        vetoed = [r for r in sure if r["says"] == "other" and r["clean"] and r["ocr"] >= args.veto_from]
        print(json.dumps({
            "set": name, "reported": {"right": sum(r["right"] for r in sure), "wrong": sum(not r["right"] for r in sure)},
            "promote": {"from": args.promote_from, "right": sum(r["right"] for r in promoted),
                        "wrong": sum(not r["right"] for r in promoted)},
            "veto": {"from": args.veto_from, "right": sum(r["right"] for r in vetoed),
                     "wrong": sum(not r["right"] for r in vetoed),
                     "readings": [f"{Path(r['photo']).name} {r['card']} ({'right' if r['right'] else 'wrong'}) "
                                  f"read {r['text']!r}" for r in vetoed]},
            "bands": bands}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
