"""The learned reader (``vision.net``, under development): accuracy on real photos never trained on, speed.

Run: ``.venv/bin/python bench/vision_net.py [--limit N]``. Prints one JSON object per figure. The index
network is trained on rendered designs only (``vision/training``): every real photo below is unseen, and only
``bidly`` shares a deck between its two folders.
- ``model``: size of ``vision/data/index_net.onnx`` and its training record (held-out designs' window accuracy);
- ``runtimes``: ms per batch of 32 windows, OpenCV's ``cv2.dnn`` and (when installed) onnxruntime, one thread;
- ``bidly_single``: the 52 cropped single-card photos: share read right (the one card reported);
- ``bidly_deals``: 7 phone photos of four fanned hands: card precision, recall and F1 (a card reported twice
  counts once right and once wrong);
- ``cardcounter_single``: phone photos holding one card (two labelled corners of one code): share read right,
  share with exactly one card reported;
- ``cardcounter_multi``: photos of 2 to 28 overlapping or fanned cards: card precision, recall, F1;
- ``edje``: photos of 1 to 5 Bicycle cards labelled by rank only (9 to A): rank precision, recall, F1;
- ``wrong_above_threshold``: of all cards reported at or above the accept threshold (``LOW_CONFIDENCE``) in the
  labelled sets, those not in the photo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.files import labelled_images, load_image  # noqa: E402
from vision.net.network import MODEL_PATH, IndexNet, ModelMissingError  # noqa: E402
from vision.net.reader import CardReader  # noqa: E402
from vision.types import LOW_CONFIDENCE, CardReading, normalise_label  # noqa: E402

CARDS = ROOT / ".." / "shared" / "data" / "cards"
CARDCOUNTER_NAMES = {"BLACK JOKER": "SB", "RED JOKER": "HR", "BACK": None}
EDJE_RANKS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


class Tally:
    """Card-level counts for precision and recall, and the wrong cards reported above the threshold."""

    def __init__(self) -> None:
        self.want = self.got = self.right = 0
        self.sure = self.sure_wrong = 0

    def add(self, wanted: Counter[str], readings: list[CardReading], key=lambda code: code) -> None:  # noqa: ANN001
        seen = Counter(key(r.card) for r in readings)
        self.want += sum(wanted.values())
        self.got += sum(seen.values())
        self.right += sum((seen & wanted).values())
        for r in readings:
            if r.confidence >= LOW_CONFIDENCE:
                self.sure += 1
                self.sure_wrong += wanted[key(r.card)] == 0

    def figures(self) -> dict[str, object]:
        p = self.right / max(self.got, 1)
        r = self.right / max(self.want, 1)
        return {"cards": self.want, "reported": self.got, "precision": round(p, 4), "recall": round(r, 4),
                "f1": round(2 * p * r / max(p + r, 1e-9), 4)}


WRONG = Tally()


def bench_model() -> dict[str, object]:
    net = IndexNet()
    training = json.loads(MODEL_PATH.with_suffix(".json").read_text()).get("training", {})
    return {"figure": "model", "bytes": MODEL_PATH.stat().st_size, "classes": len(net.classes),
            "temperature": net.temperature, "held_out_designs_window_accuracy": training.get("held_out_accuracy"),
            "held_out_designs": len(training.get("held_out_designs", []))}


def bench_runtimes() -> dict[str, object]:
    out: dict[str, object] = {"figure": "runtimes", "batch": 32}
    windows = np.random.default_rng(0).integers(0, 255, (32, 32, 32, 3), dtype=np.uint8)
    for runtime in ("opencv", "onnxruntime"):
        try:
            net = IndexNet(runtime=runtime, threads=1)
        except ModelMissingError as exc:
            out[f"{runtime}_ms"] = str(exc)
            continue
        net.predict(windows)
        times = []
        for _ in range(50):
            start = time.perf_counter()
            net.predict(windows)
            times.append((time.perf_counter() - start) * 1000)
        out[f"{runtime}_ms"] = round(statistics.median(times), 3)
    return out


def bench_bidly_single(reader: CardReader) -> dict[str, object]:
    files = list(labelled_images(CARDS / "bidly" / "cards"))
    right = one = 0
    for path, code in files:
        readings = reader.read_image(load_image(path))
        WRONG.add(Counter([code]), readings)
        right += bool(readings) and max(readings, key=lambda r: r.confidence).card == code
        one += len(readings) == 1
    return {"figure": "bidly_single", "images": len(files), "accuracy": round(right / len(files), 4),
            "exactly_one_card": round(one / len(files), 4)}


def bench_bidly_deals(reader: CardReader) -> dict[str, object]:
    tally = Tally()
    for path in sorted((CARDS / "bidly" / "deals").glob("*.jpg")):
        labels = json.loads(path.with_name(path.stem + "-labels.json").read_text())
        wanted = Counter({c: 1 for c in {normalise_label(item["name"]) for item in labels} - {None}})
        readings = reader.read_image(load_image(path))
        tally.add(wanted, readings)
        WRONG.add(wanted, readings)
    return {"figure": "bidly_deals", "images": 7} | tally.figures()


def _cardcounter_labels() -> dict[Path, list[str | None]]:
    folder = CARDS / "cardcounter"
    names: list[str] = []
    for line in (folder / "data.yaml").read_text().splitlines():
        if line.startswith("names:"):
            names = json.loads(line.split(":", 1)[1].strip().replace("'", '"'))
    out: dict[Path, list[str | None]] = {}
    for label in sorted((folder / "labels").glob("*.txt")):
        image = folder / "images" / (label.stem + ".jpg")
        if not image.exists():
            continue
        codes = []
        for line in label.read_text().splitlines():
            if line.strip():
                name = names[int(line.split()[0])]
                codes.append(CARDCOUNTER_NAMES[name] if name in CARDCOUNTER_NAMES else normalise_label(name))
        out[image] = codes
    return out


def bench_cardcounter(reader: CardReader, limit: int) -> list[dict[str, object]]:
    singles = right = one = 0
    tally = Tally()
    multi = 0
    for image_path, codes in list(_cardcounter_labels().items())[:limit]:
        known = [c for c in codes if c is not None]
        if not known:
            continue
        readings = reader.read_image(load_image(image_path))
        wanted = Counter({c: 1 for c in set(known)})  # one deck: each code is one card, seen at one or two corners
        WRONG.add(wanted, readings)
        if len(set(known)) == 1 and len(known) <= 2 and image_path.name.startswith("IMG"):
            singles += 1
            right += bool(readings) and max(readings, key=lambda r: r.confidence).card == known[0]
            one += len(readings) == 1
        else:
            multi += 1
            tally.add(wanted, readings)
    return [{"figure": "cardcounter_single", "images": singles, "accuracy": round(right / max(singles, 1), 4),
             "exactly_one_card": round(one / max(singles, 1), 4)},
            {"figure": "cardcounter_multi", "images": multi} | tally.figures()]


def bench_edje(reader: CardReader, limit: int) -> dict[str, object]:
    folder = CARDS / "edje" / "images" / "test"
    wanted_by_file: dict[str, Counter[str]] = {}
    for line in (CARDS / "edje" / "images" / "test_labels.csv").read_text().splitlines()[1:]:
        parts = line.split(",")
        wanted_by_file.setdefault(parts[0], Counter())[EDJE_RANKS[parts[3]]] += 1
    tally = Tally()
    for name, wanted in list(wanted_by_file.items())[:limit]:
        path = folder / name
        if not path.exists():
            continue
        readings = [r for r in reader.read_image(load_image(path)) if r.card not in ("SB", "HR")]
        tally.add(wanted, [r for r in readings if r.card[1] in EDJE_RANKS.values()] , key=lambda code: code[1])
    return {"figure": "edje_ranks", "images": len(wanted_by_file)} | tally.figures()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=10_000, help="at most this many photos of each real set")
    args = parser.parse_args()
    print(json.dumps(bench_model()), flush=True)
    print(json.dumps(bench_runtimes()), flush=True)
    if not CARDS.is_dir():
        print(json.dumps({"skipped": f"no real photos at {CARDS}"}))
        return 0
    cv2.setNumThreads(1)
    reader = CardReader(IndexNet(threads=1))
    print(json.dumps(bench_bidly_single(reader)), flush=True)
    print(json.dumps(bench_bidly_deals(reader)), flush=True)
    for figure in bench_cardcounter(reader, args.limit):
        print(json.dumps(figure), flush=True)
    print(json.dumps(bench_edje(reader, args.limit)), flush=True)
    print(json.dumps({"figure": "wrong_above_threshold", "threshold": LOW_CONFIDENCE, "sure_cards": WRONG.sure,
                      "wrong": WRONG.sure_wrong, "rate": round(WRONG.sure_wrong / max(WRONG.sure, 1), 5)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
