"""The fixed split of the real photos: committed, complete, bursts never straddling, the test part untrained."""

from __future__ import annotations

import json
from pathlib import Path

from vision.net.network import MODEL_PATH
from vision.training.real_split import PARTS, SPLIT_PATH, cardcounter_boxes, group_of, load_split, make_split


def test_committed_split_is_what_the_photos_give(cardcounter: Path) -> None:
    committed = json.loads(SPLIT_PATH.read_text())
    assert committed["cardcounter"] == make_split(cardcounter)["cardcounter"]
    split = load_split()
    names = [n for p in PARTS for n in split[p]]
    assert len(names) == len(set(names)) == len(list((cardcounter / "labels").glob("*.txt")))
    assert 0.5 < len(split["train"]) / len(names) < 0.7 and len(split["test"]) >= 0.25 * len(names)


def test_a_burst_lies_in_one_part(cardcounter: Path) -> None:
    boxes = cardcounter_boxes(cardcounter)
    part_of_group: dict[str, str] = {}
    for part, names in load_split().items():
        for name in names:
            assert part_of_group.setdefault(group_of(name, boxes[name]), part) == part, name


def test_the_model_was_trained_on_train_photos_only(cardcounter: Path) -> None:
    trained = set(json.loads(MODEL_PATH.with_suffix(".json").read_text())["training"]["real_photos_trained_on"])
    split = load_split()
    assert trained <= set(split["train"])
    assert not trained & (set(split["test"]) | set(split["calibration"]))
