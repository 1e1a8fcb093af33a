"""Scoring a reader on the shared real photos, part by part of the fixed split (``real_split.py``).

The sets, as ``bench/vision.py`` reports them:
- ``bidly_single``: 52 cropped photos of single cards (never trained on);
- ``bidly_deals``: 7 phone photos of four fanned hands (never trained on; deals 1, 2, 3 and 7 miss a few labels,
  so a card read right there may count as wrong);
- ``cardcounter_single`` / ``cardcounter_multi``: the split's photos of one card (two corners of one code) and
  of several cards (only the part asked for: ``test`` for figures, ``calibration`` for choosing thresholds);
- ``edje``: the photos of ``edje/images/test`` (never trained on; the card calibration is fitted on its ``train``
  folder), labelled by rank only (9 to A; a reading of
  any other rank, or a joker, is wrong).

A photo's labels are a multiset of cards (one deck: each code at most once, whatever the number of its corners
in sight). A reading is right while its card is still owed by the labels (surest readings first): a card
reported twice is once right and once wrong. Pure Python and OpenCV: no torch.

Some labels do not say what their photo shows (a seven of spades labelled as the six, a card in sight with no
label). ``vision/data/label_audit.json`` lists those found by looking at the photos, each with why;
``audited`` applies it. Figures (``bench/vision.py``, the test part) are reported as labelled first, and with the
audit beside them; every other part (``cardcounter``'s calibration and train parts, edje's train folder) comes with
the audit's corrections, so that what chooses (the thresholds, the card calibration, the choice sets of
``bench/choice_sets.py``, the enrolment blend) reads the photos as the audit says they are, since a choice made by a wrong label favours the reader that misses
the card it names (an unlabelled card read right costs as much as ten missed ones). The same file
lists photos whose joker labels cannot say which joker is shown (``jokers_alike``: one deck's only joker design,
labelled both ways): there either joker read is that joker, in every use of the labels, since no correction
could say which one it is.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from vision.files import labelled_images
from vision.net.reader import SIGHTING_FLOOR
from vision.types import JOKERS, CardReading, normalise_label

from .real_split import CARDS, cardcounter_boxes, load_split

EDJE_RANKS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
#: what a photo of ``jokers_alike`` labels its jokers as, and what either joker read there counts as
A_JOKER = "joker"


@dataclass(frozen=True)
class Photo:
    """One labelled real photo."""

    path: Path
    wanted: Counter[str]
    single: bool  # one card in sight
    by_rank: bool = False  # labels name ranks only (edje)
    jokers_alike: bool = False  # labels do not say which joker is shown: both count as ``A_JOKER``

    def key(self, code: str) -> str:
        if code in JOKERS:
            return A_JOKER if self.jokers_alike else code
        return code[1:] if self.by_rank else code


def bidly_single() -> list[Photo]:
    return [Photo(path, Counter([code]), True) for path, code in labelled_images(CARDS / "bidly" / "cards")]


def bidly_deals() -> list[Photo]:
    out = []
    for path in sorted((CARDS / "bidly" / "deals").glob("*.jpg")):
        labels = json.loads(path.with_name(path.stem + "-labels.json").read_text())
        codes = {normalise_label(item["name"]) for item in labels} - {None}
        out.append(Photo(path, Counter({c: 1 for c in codes if c}), False))
    return out


#: the part of each set that figures are reported on: its labels are given as shipped (``bench/vision.py`` adds the
#: audit's corrections beside them); every other part is what choices are made on, and comes with the corrections
FIGURES_PART = "test"


def _as_chosen_on(photos: list[Photo], part: str, as_labelled: bool) -> list[Photo]:
    """``photos`` of ``part`` with the label audit's corrections, unless ``part`` is the figures' part or the labels
    as shipped are asked for: so that no threshold, calibration or choice set is chosen against a known wrong label."""
    return photos if as_labelled or part == FIGURES_PART else audited(photos)


def cardcounter(part: str, *, as_labelled: bool = False) -> tuple[list[Photo], list[Photo]]:
    """The split part's single-card photos and its photos of several cards (photos of backs only left out); outside
    the test part with the label audit's corrections (``as_labelled``: as shipped)."""
    boxes = cardcounter_boxes()
    alike = jokers_alike("cardcounter")
    singles: list[Photo] = []
    multi: list[Photo] = []
    for name in load_split()[part]:
        known = [b.code for b in boxes[name] if b.code is not None]
        if not known:
            continue
        photo = Photo(CARDS / "cardcounter" / "images" / name, Counter(), len(set(known)) == 1 and len(boxes[name]) <= 2,
                      jokers_alike=name in alike)
        photo = replace(photo, wanted=Counter({photo.key(c): 1 for c in known}))  # what the labels can say
        (singles if photo.single else multi).append(photo)
    return _as_chosen_on(singles, part, as_labelled), _as_chosen_on(multi, part, as_labelled)


def edje(part: str = "test", *, as_labelled: bool = False) -> list[Photo]:
    """edje's photos of ``part`` (its own folders: ``test`` for figures; ``train``, never trained on, is where the card
    calibration is fitted, ``calibrate_cards.py``, with the label audit's corrections unless ``as_labelled``)."""
    folder = CARDS / "edje" / "images" / part
    wanted: dict[str, Counter[str]] = {}
    for line in (CARDS / "edje" / "images" / f"{part}_labels.csv").read_text().splitlines()[1:]:
        parts = line.split(",")
        wanted.setdefault(parts[0], Counter())[EDJE_RANKS[parts[3]]] += 1
    photos = [Photo(folder / name, w, sum(w.values()) == 1, by_rank=True) for name, w in wanted.items()
              if (folder / name).exists()]
    return _as_chosen_on(photos, part, as_labelled)


AUDIT_PATH = Path(__file__).resolve().parents[1] / "data" / "label_audit.json"
#: the sets the audit may name (folders of ``CARDS``)
AUDIT_SETS = ("bidly", "cardcounter", "edje")
#: an audited photo: (its set, its file name)
AuditKey = tuple[str, str]


class LabelAuditError(ValueError):
    """The label audit names a photo or a label that is not there."""


def label_audit(path: Path = AUDIT_PATH) -> dict[AuditKey, tuple[Counter[str], Counter[str]]]:
    """The audited photos, by set and file name: (codes labelled that the photo does not show, codes it shows that are
    not labelled). Kept beside the model data so that anyone can look at the same photos and disagree."""
    try:
        entries = json.loads(path.read_text())["photos"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LabelAuditError(f"{path}: not a label audit ({exc!r}): a JSON object with a list \"photos\"") from exc
    out: dict[AuditKey, tuple[Counter[str], Counter[str]]] = {}
    for n, entry in enumerate(entries):
        missing_keys = [k for k in ("set", "photo", "labelled", "shows") if not isinstance(entry, dict) or k not in entry]
        if missing_keys:
            raise LabelAuditError(f"{path}: entry {n} lacks {', '.join(missing_keys)}")
        if entry["set"] not in AUDIT_SETS:
            raise LabelAuditError(f"{path}: unknown set {entry['set']!r} for {entry['photo']}")
        codes = [*entry["labelled"], *entry["shows"]]
        if entry["set"] == "edje":  # labelled by rank only (``edje``): a correction names ranks
            if any(c not in EDJE_RANKS.values() for c in codes):
                raise LabelAuditError(f"{path}: {entry['photo']}: edje's photos are labelled by rank, written as ours "
                                      f"({', '.join(EDJE_RANKS.values())}): {codes}")
        elif any(not isinstance(c, str) or normalise_label(c) != c for c in codes):
            raise LabelAuditError(f"{path}: {entry['photo']}: card codes must be written as ours (SA, HT, SB): {codes}")
        out[(entry["set"], entry["photo"])] = (Counter(entry["labelled"]), Counter(entry["shows"]))
    return out


def jokers_alike(in_set: str, path: Path = AUDIT_PATH) -> frozenset[str]:
    """The photos of ``in_set`` whose joker labels do not say which joker is shown (the audit's ``jokers_alike``)."""
    try:
        entries = json.loads(path.read_text()).get("jokers_alike", [])
        names = [name for e in entries if e["set"] == in_set for name in e["photos"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise LabelAuditError(f"{path}: jokers_alike is not a list of {{set, photos, why}} ({exc!r})") from exc
    if any(not isinstance(n, str) for n in names):
        raise LabelAuditError(f"{path}: jokers_alike names photos by their file names: {names}")
    return frozenset(names)


def audited(photos: list[Photo], audit: dict[AuditKey, tuple[Counter[str], Counter[str]]] | None = None
            ) -> list[Photo]:
    """``photos`` with the label audit's corrections (a photo's cards are a set of codes: a corrected card
    already labelled elsewhere in the photo stays once)."""
    audit = label_audit() if audit is None else audit
    out = []
    for photo in photos:
        key = (photo.path.relative_to(CARDS).parts[0], photo.path.name) if photo.path.is_relative_to(CARDS) else None
        if key not in audit:
            out.append(photo)
            continue
        wrong, missing = audit[key]
        if any(photo.wanted[c] < n for c, n in wrong.items()):
            raise LabelAuditError(f"{photo.path.name}: the audit removes {dict(wrong)}, not all labelled there")
        wanted = (photo.wanted - wrong) | Counter({c: 1 for c in missing})
        out.append(replace(photo, wanted=wanted))
    return out


def real_sets(part: str = "test") -> dict[str, list[Photo]]:
    """Every set scored on ``part`` of the split (bidly and edje are never trained on, so always included when
    ``part`` is ``test``; the calibration part is cardcounter's only)."""
    singles, multi = cardcounter(part)
    if part != "test":
        return {"cardcounter_single": singles, "cardcounter_multi": multi}
    return {"bidly_single": bidly_single(), "bidly_deals": bidly_deals(), "cardcounter_single": singles,
            "cardcounter_multi": multi, "edje": edje()}


TRAINED_ON = {
    "bidly_single": "never trained or calibrated on (no bidly photo was)",
    "bidly_deals": "never trained or calibrated on (no bidly photo was)",
    "cardcounter_single": "the split's test part: other cardcounter photos (train part) were trained on",
    "cardcounter_multi": "the split's test part: other cardcounter photos (train part) were trained on",
    "edje": "never trained on (no edje photo was); the card calibration was fitted on edje's train folder (the same "
            "deck), not on these",
}


class Read(Protocol):
    """A reading of one card: what ``judged`` needs of it."""

    @property
    def card(self) -> str: ...

    @property
    def confidence(self) -> float: ...


Judged = TypeVar("Judged", bound=Read)


def judged(readings: Iterable[Judged], wanted: Counter[str], key: Callable[[str], str] = lambda code: code
           ) -> list[tuple[Judged, bool]]:
    """Each reading, surest first, with whether it is right: while ``wanted`` still owes its card (``key``: what
    the labels name of a code, a rank alone for edje), so a card reported twice is once right and once wrong."""
    owed = Counter(wanted)
    out = []
    for r in sorted(readings, key=lambda r: -r.confidence):
        k = key(r.card)
        right = owed[k] > 0
        owed[k] -= right
        out.append((r, right))
    return out


#: the confidence from which the learned reader's readings count as above its threshold: all of them, since it
#: reports only readings at its thresholds (on the network's scale), while the confidence it reports is the card
#: calibration's (``vision/net/card_calibration.py``), mostly under those thresholds
ALL_REPORTED = 0.0


@dataclass
class Score:
    """Counts over the photos of one set."""

    photos: int = 0
    #: each single-card photo's readings, surest first: (confidence, right)
    singles_read: list[list[tuple[float, bool]]] = field(default_factory=list)
    wanted: int = 0
    #: every reading: (confidence, right)
    readings: list[tuple[float, bool]] = field(default_factory=list)

    def add(self, photo: Photo, readings: Iterable[CardReading]) -> None:
        self.photos += 1
        self.wanted += sum(photo.wanted.values())
        seen = [(r.confidence, right) for r, right in judged(readings, photo.wanted, photo.key)]
        self.readings += seen
        if photo.single:
            self.singles_read.append(seen)

    @property
    def singles(self) -> int:
        return len(self.singles_read)

    def singles_right(self, at: float = 0.0) -> int:
        """Single-card photos whose surest reading at least ``at`` sure is their card."""
        return sum(bool(s) and s[0][0] >= at and s[0][1] for s in self.singles_read)

    def figures(self, threshold: float, at: float = 0.0) -> dict[str, object]:
        """Precision, recall and F1 of the readings at least ``at`` sure; wrong readings above ``threshold``;
        single-card accuracy of the surest reading at least ``at`` sure."""
        kept = [right for c, right in self.readings if c >= at]
        right = sum(kept)
        p = right / max(len(kept), 1)
        r = right / max(self.wanted, 1)
        sure = [ok for c, ok in self.readings if c >= threshold]
        out: dict[str, object] = {"photos": self.photos, "cards": self.wanted, "reported": len(kept),
                                  "precision": round(p, 4), "recall": round(r, 4),
                                  "f1": round(2 * p * r / max(p + r, 1e-9), 4),
                                  "above_threshold": len(sure), "wrong_above_threshold": len(sure) - sum(sure)}
        if self.singles:
            one = sum(sum(c >= at for c, _ in s) == 1 for s in self.singles_read)
            out |= {"single_photos": self.singles,
                    "single_accuracy": round(self.singles_right(at) / self.singles, 4),
                    "single_exactly_one": round(one / self.singles, 4)}
        return out


#: the confidence bins of :func:`reliability` (from the reader's floor, ``vision.net.reader.SIGHTING_FLOOR``)
RELIABILITY_EDGES = (SIGHTING_FLOOR, 0.9, 0.99, 0.998, 0.9999, 0.99999, 1.0)


def reliability(readings: Iterable[tuple[float, bool]], edges: tuple[float, ...] = RELIABILITY_EDGES
                ) -> list[dict[str, object]]:
    """Whether confidence means what it says: for each bin of confidence (``[edges[i], edges[i + 1])``, the
    last one closed), the readings in it, how many were wrong, and how many the confidences themselves expect
    to be wrong (the sum of one less each confidence). A reader whose confidence means something has about as
    many wrong as expected in each bin; more wrong than expected is overconfidence (a sure wrong card at the
    table)."""
    bins: list[list[tuple[float, bool]]] = [[] for _ in edges[:-1]]
    for confidence, right in readings:
        for i, (low, high) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
            if low <= confidence < high or (confidence == high == edges[-1]):
                bins[i].append((confidence, right))
                break
    out: list[dict[str, object]] = []
    for (low, high), kept in zip(zip(edges[:-1], edges[1:], strict=True), bins, strict=True):
        wrong = sum(not right for _, right in kept)
        out.append({"from": low, "to": high, "readings": len(kept), "wrong": wrong,
                    "share_wrong": round(wrong / len(kept), 5) if kept else None,
                    "expected_wrong": round(sum(1.0 - c for c, _ in kept), 2)})
    return out


#: a photo is grey when 99 of 100 of its pixels differ between colour channels by less than this (JPEG's own colour
#: noise on a photo saved grey); a colour photo of a card has red ink or a coloured surface well over it
GREY_CHROMA = 12


def photographed_grey(image: np.ndarray) -> bool:
    """Whether ``image`` (BGR) holds no colour: a photo taken or saved grey, where a red suit is told from a black
    one by its shape alone (a heart from a spade, a diamond from a club). About a third of cardcounter's photos of
    one card are."""
    pixels = image.reshape(-1, 3)[:: max(1, image.shape[0] * image.shape[1] // 200_000)].astype(np.int16)
    chroma = np.abs(pixels[:, 0] - pixels[:, 1]) + np.abs(pixels[:, 1] - pixels[:, 2])
    return float(np.percentile(chroma, 99)) < GREY_CHROMA


def score(read: Callable[[Path], list[CardReading]], photos: list[Photo]) -> Score:
    out = Score()
    for photo in photos:
        out.add(photo, read(photo.path))
    return out
