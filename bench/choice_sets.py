"""Candidate index networks compared on the choice sets: the photos and frames a model or a reader rule is chosen on.

Every change to the learned reader since 2026-12-05 was decided on the same sets and by the same cost, and only then
read once on the test photos (``bench/vision.py``); this bench is that decision as one command, so that several
trained draws (an accelerator's, ``vision/training/accelerator/``) or a reader change can be put side by side:

- ``calibration``: cardcounter's calibration part (``vision/data/real_split.json``: 48 single-card photos and 22 of
  several cards; never trained on, the accept thresholds are chosen on it);
- ``edje_train``: edje's train folder (296 photos of one Bicycle deck, labelled by rank only; never trained on, the
  card calibration is fitted on it);
- ``enrolled`` (a check, asked for by name, outside the cost): the two real sets above read with cardcounter's deck
  enrolled, against the network alone, since an enrolled reader must never read worse;
- ``held_out``: the simulated table's frames of the held-out designs read whole (``bench/held_out_scenes.py``,
  seeds 7-15, plays of any size; rendered, so a check for false readings, not evidence of reading real decks).
  Nine seeds, not three: the sure wrong readings there vary from seed to seed far more than between networks (the
  committed model reads 11 wrong at seeds 7-9, 33 at 10-12 and 31 at 13-15; ``vision/README.md``, *Tried and not
  kept (seventeenth session)*), and at ten times a right card's cost three seeds decided choices by chance.

The real sets' labels are read as ``vision/data/label_audit.json`` corrects them (``real_eval``'s loaders): two of the
three sure wrong readings the committed model made on them were cards read right where the labels name another card
or none (twenty-first session).

Each model is read at its own thresholds (its JSON's ``accept`` and ``spot_accept``: run
``vision.training.choose_threshold`` on a new model first). Prints one JSON object per model and set (cards wanted as
``laid``, right, wrong, F1) and one per model with its total and the cost the choices were made by: right readings less ten times
the wrong ones (a wrong card costs about ten laid again: ``table_daemon/controller/seen_choice.SHARE``). ``--changes``
also prints, for each photo the models read differently, what each read wrong or missed.

Run: ``nice -n 5 .venv/bin/python bench/choice_sets.py [--model PATH ...] [--sets calibration,edje_train,held_out[,enrolled]]
[--jobs 2] [--changes] [--held-seeds 7,...,15]`` (default: the committed model; about 12 minutes a model on one core).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from enrolment import cardcounter_enrolment  # noqa: E402
from held_out_scenes import figure, read_scenes  # noqa: E402

from vision.files import load_image  # noqa: E402
from vision.net.enrolled import EnrolledNet  # noqa: E402
from vision.net.network import MODEL_PATH, IndexNet  # noqa: E402
from vision.net.reader import CardReader  # noqa: E402
from vision.training.choose_threshold import WRONG_COST  # noqa: E402
from vision.training.real_eval import Photo, cardcounter, edje, judged  # noqa: E402

SETS = ("calibration", "edje_train", "held_out")
#: a check, not in the cost: the two real sets read with cardcounter's deck enrolled (``bench/enrolment.py``'s: one
#: train-part single-card photo per code, its designs mixed), which an event's enrolled reader must read no worse
#: than the network alone (``--sets calibration,edje_train,enrolled``). The nineteenth session's dark-area pass read
#: no worse alone and one more wrong enrolled on the test photos (``vision/README.md``)
ENROLLED = "enrolled"
#: the real choice sets the enrolled reader reads
REAL_SETS = ("calibration", "edje_train")
#: the held-out frames: seeds never used to make a rule, plays of one card up (7-9 from the fifteenth session to
#: the sixteenth; 10-15 added in the seventeenth, when 7-9 alone proved too few)
HELD_OUT_SEEDS = tuple(range(7, 16))
HELD_OUT_PLAYS = 100


def photos_of(set_name: str) -> list[Photo]:
    """The photos of a real choice set, with their labels as the label audit corrects them (``real_eval``'s loaders
    correct every part but the test part)."""
    if set_name == "calibration":
        singles, several = cardcounter("calibration")
        return singles + several
    if set_name == "edje_train":
        return edje("train")
    if set_name == ENROLLED:
        return [photo for real in REAL_SETS for photo in photos_of(real)]
    raise ValueError(f"not a set of real photos: {set_name}")


@dataclass(frozen=True)
class SetReading:
    """One model's readings of one choice set: totals, and per photo (or per seed) what it read wrong or missed."""

    model: str
    set_name: str
    right: int
    wrong: int
    wanted: int
    per: dict[str, list[str]] = field(default_factory=dict)

    def figure(self) -> dict[str, object]:
        """Cards wanted (``laid``), right, wrong, precision, recall, F1 (as ``held_out_scenes`` reports) and the
        cost, as JSON."""
        counts = Counter(laid=self.wanted, right=self.right, wrong=self.wrong)
        return figure(counts, model=self.model, set=self.set_name) | {"right_less_10_wrong": cost(self.right, self.wrong)}


def cost(right: int, wrong: int) -> int:
    """Right readings less ``WRONG_COST`` times the wrong ones: what the choices are made by."""
    return right - round(WRONG_COST * wrong)


def read_set(model: str, set_name: str, seeds: tuple[int, ...] = HELD_OUT_SEEDS) -> SetReading:
    """``model`` at its own thresholds on the choice set ``set_name`` (``seeds``: the held-out frames')."""
    cv2.setNumThreads(1)
    net = IndexNet(Path(model), threads=1)
    reader = CardReader(EnrolledNet(net, cardcounter_enrolment(net)) if set_name == ENROLLED else net)
    totals: Counter[str] = Counter()
    per: dict[str, list[str]] = {}
    if set_name == "held_out":
        for seed in seeds:
            counts = read_scenes(reader, seed, HELD_OUT_PLAYS, least=1, label=f"{model}: ")
            totals.update(right=counts["right"], wrong=counts["wrong"], wanted=counts["laid"])
            per[f"seed {seed}"] = [f"{counts['right']} right", f"{counts['wrong']} wrong"]
    else:
        for photo in photos_of(set_name):
            readings = judged(reader.read_image(load_image(photo.path)), photo.wanted, photo.key)
            right = Counter(photo.key(r.card) for r, ok in readings if ok)
            wrong = [f"wrong {r.card}" for r, ok in readings if not ok]  # by card: models report on own scales
            missed = [f"missed {card}" for card in (photo.wanted - right).elements()]
            totals.update(right=sum(right.values()), wrong=len(wrong), wanted=sum(photo.wanted.values()))
            if wrong or missed:
                per[photo.path.name] = wrong + missed
    return SetReading(model, set_name, totals["right"], totals["wrong"], totals["wanted"], per)


def merged(results: list[SetReading]) -> list[SetReading]:
    """One reading per model and set, the held-out frames' seeds (read apart) added up, in the order first read."""
    out: dict[tuple[str, str], SetReading] = {}
    for r in results:
        key = (r.model, r.set_name)
        if key in out:
            o = out[key]
            r = SetReading(r.model, r.set_name, o.right + r.right, o.wrong + r.wrong, o.wanted + r.wanted,
                           o.per | r.per)
        out[key] = r
    return list(out.values())


def thresholds(model: str) -> dict[str, float]:
    """The thresholds ``model`` is read at."""
    net = IndexNet(Path(model))
    return {"accept": net.accept, "spot_accept": net.spot_accept}


def changes(results: list[SetReading], models: list[str], set_name: str) -> list[dict[str, object]]:
    """The photos of ``set_name`` that the models read differently: what each read wrong or missed there."""
    per = {r.model: r.per for r in results if r.set_name == set_name}
    out: list[dict[str, object]] = []
    for name in sorted({name for m in models for name in per[m]}):
        seen = {m: per[m].get(name, []) for m in models}
        if len({json.dumps(v) for v in seen.values()}) > 1:
            out.append({"changed": set_name, "photo": name, **seen})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", type=Path, help="an index network (its JSON beside it); "
                        "repeat to compare several (default: the committed model)")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    parser.add_argument("--jobs", type=int, default=2, help="sets read at once, one core each")
    parser.add_argument("--changes", action="store_true", help="list the photos the models read differently")
    parser.add_argument("--held-seeds", default=",".join(map(str, HELD_OUT_SEEDS)),
                        help="the held-out frames' seeds, comma-separated (default 7-15; 7,8,9 reads as the "
                        "sixteenth session did, in a third of the time)")
    args = parser.parse_args()
    models = [str(m) for m in (args.model or [MODEL_PATH])]
    sets = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(sets) - set(SETS) - {ENROLLED})
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}: choose from {', '.join(SETS + (ENROLLED,))}")
    if ENROLLED in sets and not set(REAL_SETS) <= set(sets):
        parser.error(f"the {ENROLLED} check compares against the network alone: ask for {', '.join(REAL_SETS)} too")
    for model in models:
        if not Path(model).is_file():
            parser.error(f"no such model: {model}")
    try:
        seeds = tuple(int(s) for s in args.held_seeds.split(",") if s)
    except ValueError:
        parser.error(f"--held-seeds takes whole numbers, comma-separated: {args.held_seeds!r}")
    if not seeds and "held_out" in sets:
        parser.error("--held-seeds names no seed")
    # the held-out frames one job per seed, so that nine seeds use every core given
    jobs = [(m, s, group) for m in models for s in sets
            for group in ([(seed,) for seed in seeds] if s == "held_out" else [()])]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = merged(list(pool.map(read_set, *zip(*jobs, strict=True))))
    for result in results:
        print(json.dumps(result.figure()), flush=True)
    costed = [s for s in sets if s != ENROLLED]
    for model in models:
        right = sum(r.right for r in results if r.model == model and r.set_name in costed)
        wrong = sum(r.wrong for r in results if r.model == model and r.set_name in costed)
        print(json.dumps({"model": model, **thresholds(model), "sets": costed, "held_seeds": list(seeds),
                          "right": right, "wrong": wrong,
                          "right_less_10_wrong": cost(right, wrong)}), flush=True)
        if ENROLLED in sets:
            alone = [r for r in results if r.model == model and r.set_name in REAL_SETS]
            (enrolled,) = [r for r in results if r.model == model and r.set_name == ENROLLED]
            alone_wrong = sum(r.wrong for r in alone)
            print(json.dumps({"model": model, "check": "enrolment never reads worse than the network alone",
                              "alone": {"right": sum(r.right for r in alone), "wrong": alone_wrong},
                              "enrolled": {"right": enrolled.right, "wrong": enrolled.wrong},
                              "holds": enrolled.wrong <= alone_wrong}), flush=True)
    if args.changes and len(models) > 1:
        for set_name in sets:
            for change in changes(results, models, set_name):
                print(json.dumps(change, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
