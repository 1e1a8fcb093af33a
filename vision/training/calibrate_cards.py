"""Fitting what a reported card's confidence means (``vision/net/card_calibration.py``) on real photos.

The whole reader reads photos the network was not trained on: the calibration part of cardcounter's split (the
photos that chose the thresholds) and edje's *train* folder (never trained on; edje's *test* folder stays for the
figures, so a figure on it is of the same deck, not of an unseen one). Every physical card from the reader's
floor up is a reading (``CardReader.sightings(unsure=True)``), right or wrong by the photo's labels as
``bench/vision.py`` scores them (with the label audit's corrections), and for each way of seeing (read in a card's outline, or spotted alone) a
logistic regression on the logit of its confidence (Platt scaling, scikit-learn) says how often such a reading
is the card. The curves are written into the model's ``index_net.json`` (``card_calibration``) with what they were
fitted on. Run after ``choose_threshold`` (``train.sh``): the thresholds stay on the network's scale.

Needs the ``train`` extra (scikit-learn).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.files import load_image
from vision.net.card_calibration import WAYS, CardCalibration, Platt, logit
from vision.net.network import MODEL_PATH, IndexNet
from vision.net.reader import CardReader

from .real_eval import Photo, cardcounter, edje, judged

#: inverse regularisation of the fit: one feature and hundreds of readings want almost none
C = 1e4


def fitting_photos() -> dict[str, list[Photo]]:
    """The photos the curves are fitted on (none of them trained on, none of them in a figure's test part), with
    their labels as the label audit corrects them."""
    singles, multi = cardcounter("calibration")
    return {"cardcounter_calibration": singles + multi, "edje_train": edje("train")}


def readings(reader: CardReader, photos: list[Photo]) -> list[tuple[float, bool, bool]]:
    """Every card ``reader`` sees in ``photos`` from its floor up: (confidence, spotted, right), right while the
    labels still owe the card (surest first, as ``real_eval.Score`` counts)."""
    return [(s.confidence, s.spotted, right) for photo in photos
            for s, right in judged(reader.sightings(load_image(photo.path), unsure=True), photo.wanted, photo.key)]


def fit(seen: list[tuple[float, bool, bool]]) -> tuple[CardCalibration, dict[str, dict[str, int]]]:
    """One Platt curve per way of seeing, fitted on ``seen`` (confidence, spotted, right), and the counts."""
    from sklearn.linear_model import LogisticRegression  # the train extra only

    curves: dict[str, Platt] = {}
    counts: dict[str, dict[str, int]] = {}
    for way in WAYS:
        mine = [(c, right) for c, spotted, right in seen if spotted == (way == "spotted")]
        labels = np.array([right for _, right in mine])
        if len(set(labels.tolist())) < 2:
            raise SystemExit(f"cannot fit the {way} curve: its {len(mine)} readings are all "
                             f"{'right' if mine and labels[0] else 'wrong'}")
        model = LogisticRegression(C=C).fit(np.array([[logit(c)] for c, _ in mine]), labels)
        curves[way] = Platt(float(model.coef_[0][0]), float(model.intercept_[0]))
        counts[way] = {"readings": len(mine), "right": int(labels.sum())}
    return CardCalibration(curves["region"], curves["spotted"]), counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=MODEL_PATH)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    net = IndexNet(args.model, threads=1)
    reader = CardReader(net)
    seen: list[tuple[float, bool, bool]] = []
    photos = fitting_photos()
    for name, part in photos.items():
        print(f"reading {len(part)} photos of {name}", file=sys.stderr, flush=True)
        seen += readings(reader, part)
    calibration, counts = fit(seen)
    meta_path = args.model.with_suffix(".json")
    meta = json.loads(meta_path.read_text("utf-8"))
    meta["card_calibration"] = calibration.to_meta()
    meta.setdefault("training", {})["card_calibration_fitted_on"] = {
        "photos": {name: len(part) for name, part in photos.items()}, "readings": counts,
        "method": "Platt scaling (scikit-learn LogisticRegression) on the logit of the reader's confidence, per way "
                  "of seeing, every card from the reader's floor up"}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    for way in WAYS:
        curve = getattr(calibration, way)
        marks = ", ".join(f"{p} -> {curve(p):.4f}" for p in (0.99, 0.998, 0.9999, 0.99999))
        print(f"{way}: {counts[way]}; {marks}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
