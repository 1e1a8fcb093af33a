"""The fixed split of the shared real photos: which ones may be trained on, calibrated on, and only tested on.

Only ``cardcounter`` is split. Its photos come in bursts (the same card, or the same spread, shot a few times
within seconds), so a photo is never split alone: photos are grouped, and a whole group goes to one side.
- ``IMG_*`` phone photos: grouped by the set of cards labelled in them (every photo of the queen of hearts,
  whatever the deck, is on one side);
- ``WIN_*`` webcam photos of spreads: grouped by the two minutes they were taken in.
A group goes to ``train`` (about 60 %), ``calibration`` (about 10 %: the softmax temperature and the accept
threshold are chosen on it, never on the test photos) or ``test`` (about 30 %), by a hash of its key, so the
split does not depend on the order of files and is the same on every machine.

``bidly`` (cards and deals) and ``edje`` are never trained or calibrated on: their figures are always on
photos of decks the network has not seen a real photo of.

The split is committed as data (``vision/data/real_split.json``); ``python -m vision.training.real_split``
rewrites it from the photos, and training, the bench and the tests read it from there.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from vision.types import BLACK_JOKER, RED_JOKER, normalise_label

ROOT = Path(__file__).resolve().parents[2]
CARDS = ROOT / ".." / "shared" / "data" / "cards"
SPLIT_PATH = ROOT / "vision" / "data" / "real_split.json"
#: cardcounter's class names that are not ``normalise_label`` codes (None: a card face down)
SPECIAL_NAMES = {"BLACK JOKER": BLACK_JOKER, "RED JOKER": RED_JOKER, "BACK": None}
PARTS = ("train", "calibration", "test")


@dataclass(frozen=True)
class Box:
    """One labelled corner index of a cardcounter photo, relative to the image (centre, size)."""

    code: str | None  # None: the back of a card
    cx: float
    cy: float
    w: float
    h: float


def class_names(folder: Path) -> list[str]:
    for line in (folder / "data.yaml").read_text().splitlines():
        if line.startswith("names:"):
            return list(json.loads(line.split(":", 1)[1].strip().replace("'", '"')))
    raise ValueError(f"no class names in {folder / 'data.yaml'}")


def cardcounter_boxes(folder: Path = CARDS / "cardcounter") -> dict[str, list[Box]]:
    """Every cardcounter photo's labelled index boxes, by file name (polygon lines taken as their bounding box)."""
    names = class_names(folder)
    out: dict[str, list[Box]] = {}
    for label in sorted((folder / "labels").glob("*.txt")):
        if not (folder / "images" / (label.stem + ".jpg")).exists():
            continue
        boxes = []
        for line in label.read_text().splitlines():
            parts = line.split()
            if not parts:
                continue
            name = names[int(parts[0])]
            code = SPECIAL_NAMES[name] if name in SPECIAL_NAMES else normalise_label(name)
            values = [float(v) for v in parts[1:]]
            if len(values) == 4:
                cx, cy, w, h = values
            else:  # a polygon: x1 y1 x2 y2 ...
                xs, ys = values[0::2], values[1::2]
                cx, cy, w, h = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(xs) - min(xs), max(ys) - min(ys)
            boxes.append(Box(code, cx, cy, w, h))
        out[label.stem + ".jpg"] = boxes
    return out


def group_of(name: str, boxes: list[Box]) -> str:
    """The burst a photo belongs to (see the module's docstring)."""
    match = re.match(r"WIN_(\d{8})_(\d{2})_(\d{2})_", name)
    if match:
        return f"win:{match[1]}:{match[2]}:{int(match[3]) // 2}"
    return "img:" + ",".join(sorted({b.code or "BACK" for b in boxes}))


def part_of(group: str) -> str:
    bucket = int(hashlib.sha1(group.encode()).hexdigest(), 16) % 10
    return "train" if bucket < 6 else "calibration" if bucket == 6 else "test"


class Split(TypedDict):
    """The split as written to ``real_split.json``."""

    about: str
    cardcounter: dict[str, list[str]]
    bidly: str
    edje: str


def make_split(folder: Path = CARDS / "cardcounter") -> Split:
    parts: dict[str, list[str]] = {p: [] for p in PARTS}
    for name, boxes in cardcounter_boxes(folder).items():
        parts[part_of(group_of(name, boxes))].append(name)
    return {"about": "vision/training/real_split.py: which shared real photos may be trained on",
            "cardcounter": parts,
            "bidly": "test only (cards and deals): never trained or calibrated on",
            "edje": "test only: never trained or calibrated on"}


def load_split(path: Path = SPLIT_PATH) -> dict[str, list[str]]:
    """cardcounter's file names by part (``train``, ``calibration``, ``test``)."""
    data = json.loads(path.read_text("utf-8"))
    return {p: list(data["cardcounter"][p]) for p in PARTS}


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else SPLIT_PATH
    split = make_split()
    out.write_text(json.dumps(split, indent=1) + "\n", "utf-8")
    counts = {p: len(v) for p, v in split["cardcounter"].items()}
    print(f"wrote {out}: cardcounter {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
