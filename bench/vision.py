"""Card reader benchmark: ms per 1280x720 table frame holding 10 cards (one core), and accuracy on real photos.

Run: ``.venv/bin/python bench/vision.py [--reader glyphs|net|both] [--frames N] [--limit N] [--runtime R]``. Prints one JSON
object per figure, each naming its reader (``glyphs``: ``vision.reader``; ``net``: the learned reader
``vision.net``) and, for real photos, which photos the network was trained on:
- ``model`` (net): size of ``vision/data/index_net.onnx``, temperature and accept thresholds, what it was
  trained and calibrated on; ``runtimes`` (net): ms per batch of 32 windows, cv2.dnn and onnxruntime, one thread;
- ``table_frame_ms``: median and p99 of ``TableReader.read`` on simulated frames (10 cards in 3 seats'
  areas, fanned, the camera's default deck), with OpenCV limited to one thread and the table's own reader (for
  the learned one: unsure readings reported too, a second look where a card was not read), and the share of
  frames read exactly right and surely;
- one figure per real set (``vision/training/real_eval.py``; cardcounter: the test part of the fixed split
  ``vision/data/real_split.json``, whose train part the network was fine-tuned on): single-card accuracy,
  card precision, recall and F1, and the readings at or above the accept threshold that were wrong; where
  ``vision/data/label_audit.json`` corrects labels of the set's photos (a label that does not say what the
  photo shows), the same figures with those corrections beside them (``labels_audited``);
- ``single_cards`` (glyphs): the bidly photos pasted turned on a light desk, without and with enrolment;
- ``reliability`` (``--reliability`` alone): for each real set, every card the net reader sees from its floor up
  by bin of confidence, with how many were wrong and how many their confidences expect (whether a reading at
  0.999 is wrong about once in a thousand), on the network's own scale and on the reported one (the model's card
  calibration, ``vision/net/card_calibration.py``, fitted on the calibration photos and edje's train folder).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware.cameras.simulated import SimulatedTableCamera  # noqa: E402
from vision.enrol import enrol_folder  # noqa: E402
from vision.files import labelled_images, load_image  # noqa: E402
from vision.net.network import MODEL_PATH, IndexNet, ModelMissingError  # noqa: E402
from vision.net.reader import CardReader as NetCardReader  # noqa: E402
from vision.net.reader import reading_of  # noqa: E402
from vision.reader import CardReader  # noqa: E402
from vision.readers import RUNTIMES, make_card_reader  # noqa: E402
from vision.table import TableReader  # noqa: E402
from vision.training.real_eval import (  # noqa: E402
    ALL_REPORTED,
    TRAINED_ON,
    Score,
    audited,
    photographed_grey,
    real_sets,
    reliability,
    score,
)
from vision.types import CARD_CODES, LOW_CONFIDENCE, CardReading  # noqa: E402

SHARED = ROOT / ".." / "shared" / "data" / "cards" / "bidly"
#: the bins of the reported confidences (the card calibration's: from nothing up to the surest, about 0.99)
CALIBRATED_EDGES = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0)


def bench_table(frames: int, name: str, model: Path = MODEL_PATH, runtime: str = "opencv") -> dict[str, object]:
    cv2.setNumThreads(1)
    # the table's own reader, as its composition root makes it: unsure readings too (the hand decides), without the
    # rules for dim regions (the table brightens whole frames), and a second look where a card was not read
    net_reader = make_card_reader("net", table=True, runtime=runtime, model=model) if name == "net" else None
    times: list[float] = []
    exact = 0
    rng = np.random.default_rng(1)
    reader: TableReader | None = None
    for i in range(frames):
        camera = SimulatedTableCamera(seed=i)
        codes = [str(c) for c in rng.choice(CARD_CODES, 10, replace=False)]
        plays = {"S": codes[:5], "E": codes[5:8], "N": codes[8:]}
        for seat, cards in plays.items():
            camera.lay(seat, cards)
        frame = camera.frame()
        if reader is None:
            reader = TableReader(camera.calibration, card_reader=net_reader)
            reader.read(frame)  # warm-up
        reader.calibration = camera.calibration
        reader._warps = {s: (z.upright_matrix(), z.size) for s, z in camera.calibration.zones.items()}
        start = time.perf_counter()
        got = reader.read(frame)
        times.append((time.perf_counter() - start) * 1000)
        sure = reader.reader.sure
        exact += all([r.card for r in got.get(s, [])] == cards and all(r.confidence >= sure for r in got.get(s, []))
                     for s, cards in plays.items())
    times.sort()
    return {"figure": "table_frame_ms", "reader": name, "runtime": runtime if name == "net" else None, "frames": frames,
            "median_ms": round(statistics.median(times), 2),
            "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 2),
            "frames_read_exactly": round(exact / frames, 4)}


def bench_single() -> dict[str, object]:
    """Real photos: as cropped, and pasted turned up to 45 degrees on a light desk (with and without enrolment)."""
    from vision.render import light_scene, paste_card, table_cloth

    folder = SHARED / "cards"
    files = list(labelled_images(folder))
    reader = CardReader()
    plain = sum(_best(reader, load_image(p)) == code for p, code in files)
    profile, _ = enrol_folder(folder, reader)
    deck_reader = CardReader(deck=profile)
    rng = np.random.default_rng(2024)
    desk_plain = desk_enrolled = desk_total = 0
    for _ in range(2):
        for path, code in files:
            scene = table_cloth(480, 640, rng, light=True)
            paste_card(scene, load_image(path), (320 + rng.uniform(-40, 40), 240 + rng.uniform(-20, 20)),
                       float(rng.uniform(-45, 45)), float(rng.uniform(250, 400)), shadow=float(rng.uniform(0, 0.3)))
            ok, buf = cv2.imencode(".jpg", light_scene(scene, rng, 0.8), [cv2.IMWRITE_JPEG_QUALITY, 80])
            image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            assert image is not None
            desk_total += 1
            desk_plain += _best(reader, image) == code
            desk_enrolled += _best(deck_reader, image) == code
    return {"figure": "single_cards", "images": len(files), "cropped_accuracy_no_enrolment": round(plain / len(files), 4),
            "desk_images": desk_total, "desk_accuracy_no_enrolment": round(desk_plain / desk_total, 4),
            "desk_accuracy_enrolled": round(desk_enrolled / desk_total, 4)}


def _best(reader: CardReader, image: np.ndarray) -> str | None:
    readings = reader.read_image(image)
    return max(readings, key=lambda r: r.confidence).card if readings else None


def bench_model(model: Path = MODEL_PATH) -> dict[str, object]:
    net = IndexNet(model)
    training = json.loads(model.with_suffix(".json").read_text()).get("training", {})
    return {"figure": "model", "reader": "net", "path": str(model.relative_to(ROOT) if model.is_relative_to(ROOT)
                                                           else model),
            "bytes": model.stat().st_size, "classes": len(net.classes),
            "temperature": net.temperature, "accept": net.accept, "spot_accept": net.spot_accept,
            "held_out_designs_window_accuracy": training.get("held_out_accuracy"),
            "held_out_dark_designs_window_accuracy": training.get("held_out_dark_accuracy"),
            "real_photos_trained_on": f"{len(training.get('real_photos_trained_on', []))} cardcounter photos "
                                      "(the train part of vision/data/real_split.json)",
            "calibrated_on": training.get("calibrated_on"),
            "card_calibration": {way: {"0.998": round(curve(0.998), 4), "0.9999": round(curve(0.9999), 4),
                                       "0.99999": round(curve(0.99999), 4)}
                                 for way, curve in (("region", net.card_calibration.region),
                                                    ("spotted", net.card_calibration.spotted))}
            if net.card_calibration else None,
            "card_calibration_fitted_on": training.get("card_calibration_fitted_on")}


def bench_runtimes(model: Path = MODEL_PATH) -> dict[str, object]:
    out: dict[str, object] = {"figure": "runtimes", "reader": "net", "batch": 32}
    windows = np.random.default_rng(0).integers(0, 255, (32, 32, 32, 3), dtype=np.uint8)
    for runtime in RUNTIMES:
        try:
            net = IndexNet(model, runtime=runtime, threads=1)
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


def bench_real(name: str, limit: int, model: Path = MODEL_PATH) -> list[dict[str, object]]:
    """Every real set, read by reader ``name``; wrong readings counted above its accept threshold (the net
    reader reports only readings at its thresholds: ``accept``, and the stricter ``spot_accept`` for cards seen
    only by spotting and for jokers)."""
    cv2.setNumThreads(1)
    read: Callable[[np.ndarray], list[CardReading]]
    if name == "net":
        net = IndexNet(model, threads=1)
        read, threshold = NetCardReader(net).read_image, net.accept
    else:
        read, threshold = CardReader().read_image, LOW_CONFIDENCE
    # every reading the net reader reports counts; the glyph reader reports all, flagging those under its
    # threshold as unsure
    counted = ALL_REPORTED if name == "net" else threshold
    out = []
    for set_name, photos in real_sets("test").items():
        photos = photos[:limit]
        readings, grey = {}, set()
        for photo in photos:
            image = load_image(photo.path)
            readings[photo.path] = read(image)
            if photographed_grey(image):
                grey.add(photo.path)
        result = score(readings.__getitem__, photos)
        figure: dict[str, object] = {"figure": set_name, "reader": name, "threshold": threshold}
        figure |= result.figures(counted)
        if 0 < len(grey) < len(photos):  # where the suit's colour is lost, and where it is not
            figure["by_colour"] = {
                kind: _brief(score(readings.__getitem__, [p for p in photos if (p.path in grey) == is_grey]), counted)
                for kind, is_grey in (("grey", True), ("colour", False))}
        corrected = audited(photos)
        changed = sum(a.wanted != b.wanted for a, b in zip(photos, corrected, strict=True))
        if changed:
            figure["labels_audited"] = {"photos_corrected": changed} | {
                k: v for k, v in score(readings.__getitem__, corrected).figures(counted).items()
                if k in ("precision", "recall", "f1", "wrong_above_threshold", "single_accuracy")}
        figure["trained_on"] = TRAINED_ON[set_name] if name == "net" else "glyph reader (vision/README.md)"
        out.append(figure)
    return out


def _brief(result: Score, counted: float) -> dict[str, object]:
    """The headline figures of a part of a set: its photos, F1 or single-card accuracy, wrong readings."""
    figures = result.figures(counted)
    keys = ("photos", "single_accuracy", "f1", "wrong_above_threshold") if result.singles == result.photos \
        else ("photos", "f1", "precision", "recall", "wrong_above_threshold")
    return {k: figures[k] for k in keys}


def bench_reliability(limit: int, model: Path = MODEL_PATH, runtime: str = "opencv") -> list[dict[str, object]]:
    """Whether the learned reader's confidence means what it says, on each real set (the test part): every
    physical card it sees from its floor up (``CardReader.sightings(unsure=True)``), right or wrong, by bin of
    confidence (``real_eval.reliability``), on the network's own scale (``network``) and as reported, through the
    model's card calibration (``reported``); and over the readings it reports (its thresholds) the wrong ones
    against the number their reported confidences expect."""
    cv2.setNumThreads(1)
    net = IndexNet(model, threads=1, runtime=runtime)
    reader = NetCardReader(net)
    out = []
    for set_name, photos in real_sets("test").items():
        photos = photos[:limit]
        raw, calibrated, reported = Score(), Score(), Score()
        for photo in photos:
            seen = reader.sightings(load_image(photo.path), unsure=True)
            raw.add(photo, [reading_of(s) for s in seen])
            as_reported = {id(s): reader.reported(s) for s in seen}
            calibrated.add(photo, list(as_reported.values()))
            reported.add(photo, [as_reported[id(s)] for s in reader.sure_only(seen)])  # what the reader reports
        out.append({"figure": "reliability", "set": set_name, "photos": len(photos),
                    "network": reliability(raw.readings),
                    "reported_scale": reliability(calibrated.readings, CALIBRATED_EDGES)
                    if net.card_calibration else None,
                    "reported": {"accept": net.accept, "spot_accept": net.spot_accept,
                                 "readings": len(reported.readings),
                                 "wrong": sum(not ok for _, ok in reported.readings),
                                 "expected_wrong": round(sum(1.0 - c for c, _ in reported.readings), 2)},
                    "trained_on": TRAINED_ON[set_name]})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", choices=("glyphs", "net", "both"), default="both")
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--limit", type=int, default=10_000, help="at most this many photos of each real set")
    parser.add_argument("--no-table", action="store_true", help="real photos only")
    parser.add_argument("--model", type=Path, default=MODEL_PATH, help="the index network (net reader)")
    parser.add_argument("--runtime", choices=RUNTIMES, default="opencv",
                        help="what runs the net reader's network for the table frame and reliability figures "
                             "([camera] runtime)")
    parser.add_argument("--reliability", action="store_true",
                        help="only whether the net reader's confidence means what it says, on the real photos "
                             "(the net reader whatever --reader says)")
    args = parser.parse_args()
    model = args.model.resolve()
    if args.runtime != "opencv":
        try:
            IndexNet(model, runtime=args.runtime)
        except ModelMissingError as exc:
            print(f"bench/vision.py: {exc}", file=sys.stderr)
            return 2
    if args.reliability:  # the learned reader's alone
        for figure in bench_reliability(args.limit, model, args.runtime):
            print(json.dumps(figure), flush=True)
        return 0
    names = ["glyphs", "net"] if args.reader == "both" else [args.reader]
    if "net" in names:
        print(json.dumps(bench_model(model)), flush=True)
        print(json.dumps(bench_runtimes(model)), flush=True)
    for name in names:
        if not args.no_table:
            print(json.dumps(bench_table(args.frames, name, model, args.runtime)), flush=True)
        if not SHARED.is_dir():
            print(json.dumps({"skipped": f"no real photos at {SHARED}"}))
            continue
        for figure in bench_real(name, args.limit, model):
            print(json.dumps(figure), flush=True)
        if name == "glyphs" and not args.no_table:
            print(json.dumps(bench_single()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
