"""How well the table reader reads plays laid on the simulated table, frame by frame.

Random legal plays (from random 27-card hands, so pairs, triples, bombs, straights, tubes, plates, jokers and
heart level cards all come up) are laid in random seats of simulated table cameras (a new camera, with its
own light, card design and cloth, every 50 plays) and each is read in ``--frames`` successive frames. Prints
one JSON object:

- ``frames_exact``: share of frames whose reading of the play was exactly right;
- ``plays_always_right``: share of plays read right in every frame;
- ``short_reads``: frames that missed a card, and how many of them the card count (``vision.counting``) caught,
  turning a confidently short reading (a pair read as a single) into an unreadable card;
- ``false_alarms``: frames read right but with an unreadable card too;
- ``unsure_right``: frames read right with a card under the reader's ``sure`` (the table chooses by the hand);
- ``wrong_unflagged``: frames with a wrong card code and no flag (the case only a person can catch);
- ``the_table_takes``: what the table makes of each frame's reading when the seat leads, choosing by the hand the
  play was drawn from as the controller does (``table_daemon.controller.seen_choice``): the play ``right``, a
  ``wrong`` one (silently), ``asked_again`` (a misread alert), or ``sure_but_no_play`` (sure, and nothing the hand
  could lay: asked again once where a card or two may be hidden or read twice, else a false foul); a reading
  with more copies of a card than the pack holds is asked again, sure or not, as the controller does;
- ``reliability``: whether the table's confidence means what it says on these designs: every card read (not
  ``??``), right while the play still owes its code (surest first), by bin of confidence, with how many were wrong
  and how many the confidences expect (``real_eval.reliability``). The table's foul rule (``FOUL_DOUBT``, one
  wrong reading in 10,000) assumes the readings at the top are that rare to be wrong.

Flagged frames are not lost at the table: it chooses among an unsure card's candidates by what the seat holds
(``table_daemon.controller.seen_choice``) or asks for the cards to be laid again; ``bench/simulate.py`` counts
what that leaves.

``--plays-of jokers`` lays only the plays made of jokers (each joker alone, a pair of each, the four jokers'
bomb 天王炸), which random hands rarely hold: fanned jokers are the hardest plays to read (a joker's 大王 or JOKER
word printed beside its index is read as one more card).

    python bench/table_reading.py [--plays 300] [--frames 3] [--seed 1] [--deck held-out] [--reader net]
                                  [--plays-of any|jokers] [--exposure 1.0] [--enrolled] [--model PATH]

``--exposure 0.25`` sets the cameras in a hall four times dimmer than their fixed exposure was set for.

``--enrolled`` reads each camera's deck with an enrolled deck (登记牌面), as an organiser prepares a table: the
design's 54 cards laid out apart under that table's camera in the spread's order (rows ♠ ♥ ♣ ♦ from A to K, then
the jokers; three photos of rows of seven, ``SimulatedTableCamera.lay_spread``), photographed by a camera like it
(the same light, cloth and sensor; its own frames, so the plays' frames stay those of the run without a deck) and
enrolled as ``vision enroll --camera`` does.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guandan import COPIES, classify, full_pack, legal_plays, parse_cards  # noqa: E402
from hardware.cameras.simulated import SimulatedTableCamera  # noqa: E402
from table_daemon.controller.seen_choice import SURE, choose  # noqa: E402
from vision.net.network import MODEL_PATH, IndexNet  # noqa: E402
from vision.net.reader import TABLE_FLOOR  # noqa: E402
from vision.net.spread import ORDER, SpreadError, enrol_spread_images  # noqa: E402
from vision.readers import make_card_reader  # noqa: E402
from vision.table import TableReader  # noqa: E402
from vision.training.real_eval import judged, reliability  # noqa: E402
from vision.types import UNREADABLE, CardReading  # noqa: E402

#: the plays made of jokers only, as laid left to right
JOKER_PLAYS = (("HR",), ("SB",), ("HR", "HR"), ("SB", "SB"), ("HR", "HR", "SB", "SB"))


#: the bins of the reliability figure: from the table reader's floor up
TABLE_EDGES = (TABLE_FLOOR, 0.9, 0.99, 0.998, 0.9999, 0.99999, 0.999999, 1.0)
#: the level the plays are drawn and judged at
LEVEL = 2
#: what the table makes of a frame's reading, choosing by the seat's hand as the controller does
TAKES = ("right", "wrong", "asked_again", "sure_but_no_play")


def what_the_table_takes(read: list[CardReading], truth: list[str], held: Counter[str], sure: float) -> str:
    """What the table takes of one frame's reading of a play the seat led (``held``: its hand): the reader's
    first reading when it is sure and a play the seat could make (cards it holds, a legal lead), else the most
    probable set of candidates the hand allows (``seen_choice.choose``); ``asked_again`` when a card was not read
    or nothing probable enough fits (a misread alert); ``sure_but_no_play`` when the reading is sure and no set
    fits (the table asks again once where a card or two may be hidden or read twice, else calls a foul)."""
    if any(r.card == UNREADABLE for r in read):
        return "asked_again"
    first = tuple(r.card for r in read)
    if any(n > COPIES for n in Counter(first).values()):
        return "asked_again"  # no seat can lay that: the controller asks again, sure or not (a card read twice)

    def fits(codes: tuple[str, ...]) -> bool:
        return bool(codes) and not Counter(codes) - held and bool(classify(parse_cards(" ".join(codes)), LEVEL))

    all_sure = all(r.confidence >= sure for r in read)
    chosen = first if all_sure and fits(first) else choose(
        [list(r.candidates) if r.candidates else [(r.card, r.confidence)] for r in read], fits, max(SURE, sure))
    if chosen is None:
        return "sure_but_no_play" if all_sure else "asked_again"
    return "right" if sorted(chosen) == sorted(truth) else "wrong"


def right_or_wrong(read: list[CardReading], truth: list[str]) -> list[tuple[float, bool]]:
    """Each card read (not ``??``) with whether it is right: while the play still owes its code, surest first."""
    return [(r.confidence, right) for r, right in judged([r for r in read if r.card != UNREADABLE], Counter(truth))]


def enrolled_reader(camera: SimulatedTableCamera, seed: int, exposure: float, model: Path | None = None) -> Any:
    """The table's learned reader with a deck enrolled from the spread of ``camera``'s design, photographed by a
    camera made as ``camera`` was (``seed``, ``exposure``): three photos of rows of seven."""
    spread_camera = SimulatedTableCamera(seed=seed, deck=camera.deck, exposure=exposure)
    empty = spread_camera.frame()  # the table cleared first: the cards are found by what changed
    photos = []
    for number, start in enumerate(range(0, len(ORDER), SPREAD_PHOTO), 1):
        spread_camera.clear()
        spread_camera.lay_spread(ORDER[start: start + SPREAD_PHOTO])
        photos.append((f"spread-{number}", spread_camera.frame()))
    try:
        deck, problems = enrol_spread_images(photos, IndexNet(model or MODEL_PATH), empty=empty)
    except SpreadError as exc:  # refused, as the organiser would be told: this table reads without a deck
        print(f"spread of {camera.deck} (camera {seed}) refused: {exc}", file=sys.stderr)
        REFUSED.append(seed)
        return make_card_reader("net", table=True, model=model)
    guard = deck.report.get("guard", {})
    assert isinstance(guard, dict)
    print(f"enrolled {camera.deck} (camera {seed}): {len(deck.codes)} exemplars, guard "
          f"{guard.get('decided')}" + (f", problems: {problems}" if problems else ""),
          file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="guandan-deck-") as folder:
        path = Path(folder) / "deck.npz"
        deck.save(path)
        return make_card_reader("net", path, table=True, model=model)


#: cards in one photo of the spread (three rows of seven fit under the simulated table's camera)
SPREAD_PHOTO = 21
#: the cameras whose spread was refused (their tables read without a deck)
REFUSED: list[int] = []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plays", type=int, default=300)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deck", default=None,
                    help="deck design: 'held-out' (default: one the reader never trained on, by seed), a name of "
                         "hardware/cameras/decks/, or 'builtin' (the designs the reader trained on)")
    ap.add_argument("--reader", choices=("glyphs", "net"), default="net",
                    help="the learned reader (vision.net, at its accept threshold; the table's) or the glyph rules")
    ap.add_argument("--plays-of", choices=("any", "jokers"), default="any",
                    help="random legal plays of random hands, or only plays made of jokers")
    ap.add_argument("--exposure", type=float, default=1.0,
                    help="the light the cameras' sensors get, 1 as the simulated halls are lit (0.25: a hall four "
                         "times dimmer for a fixed exposure; the sensor's noise stays)")
    ap.add_argument("--enrolled", action="store_true",
                    help="each camera's deck design enrolled first from a rendered spread (vision enroll --spread); "
                         "the learned reader only, on the held-out designs")
    ap.add_argument("--model", type=Path, default=None,
                    help="another index network for the learned reader (its JSON beside it; default: the committed one)")
    args = ap.parse_args()
    if args.enrolled and (args.reader != "net" or args.deck == "builtin"):
        ap.error("--enrolled enrols a held-out design for the learned reader (--reader net, not --deck builtin)")
    if args.model is not None and args.reader != "net":
        ap.error("--model is the learned reader's network (--reader net)")
    card_reader = make_card_reader(args.reader, table=True, model=args.model)
    rng = random.Random(args.seed)
    frames = exact = always = short = caught = false_alarm = unsure_right = wrong_unflagged = flagged_wrong = 0
    takes: Counter[str] = Counter()
    seen: list[tuple[float, bool]] = []
    camera = reader = None
    for n in range(args.plays):
        if n % 50 == 0:
            camera = SimulatedTableCamera(seed=args.seed * 1000 + n // 50, deck=args.deck, exposure=args.exposure)
            if args.enrolled:
                card_reader = enrolled_reader(camera, args.seed * 1000 + n // 50, args.exposure, args.model)
            reader = TableReader(camera.calibration, card_reader=card_reader)
        assert camera is not None and reader is not None
        if args.plays_of == "jokers":
            truth = list(rng.choice(JOKER_PLAYS))
            # the rest of the hand from a generator of its own, so that the plays drawn stay those of before
            others = [c for c in full_pack() if not c.is_joker]
            random.Random(n).shuffle(others)
            hand = [*parse_cards(" ".join(truth)), *others[:27 - len(truth)]]
        else:
            pack = full_pack()
            rng.shuffle(pack)
            hand = pack[:27]
            play = rng.choice(list(legal_plays(hand, LEVEL, None)))
            truth = [c.code for c in play.cards]
        held = Counter(c.code for c in hand)
        seat = rng.choice("SENW")
        camera.clear()
        camera.lay(seat, truth)
        right_every_frame = True
        for _ in range(args.frames):
            read = reader.read(camera.frame())[seat]
            got = [r.card for r in read]
            known = [c for c in got if c != UNREADABLE]
            # a card not read, or read less surely than the reader's threshold: the table does not take it as seen
            unread = len(known) != len(got)
            flagged = unread or any(r.confidence < card_reader.sure for r in read)
            frames += 1
            seen += right_or_wrong(read, truth)
            taken = what_the_table_takes(read, truth, held, card_reader.sure)
            takes[taken] += 1
            if taken in ("wrong", "sure_but_no_play"):
                print(f"the table: {taken}, play {n} laid {' '.join(truth)} read "
                      f"{' '.join(f'{r.card}:{r.confidence:.3f}' for r in read)}", file=sys.stderr)
            right = known == truth
            exact += right and not flagged
            right_every_frame &= right and not flagged
            false_alarm += right and unread
            unsure_right += right and flagged and not unread
            if not right and len(known) < len(truth):
                short += 1
                caught += flagged
            elif not right:
                wrong_unflagged += not flagged
                flagged_wrong += flagged
                if not flagged:  # the case only a person can catch: say which
                    print(f"wrong, unflagged: play {n} seat {seat} laid {' '.join(truth)} read {' '.join(got)}",
                          file=sys.stderr)
        always += right_every_frame
        if (n + 1) % 50 == 0:
            print(f"{n + 1}/{args.plays} plays", file=sys.stderr)
    print(json.dumps({"figure": "table_reading", "reader": args.reader, "deck": args.deck, "plays_of": args.plays_of,
                      "exposure": args.exposure, "enrolled": args.enrolled, "spreads_refused": REFUSED,
                      "plays": args.plays, "frames": frames,
                      "frames_exact": round(exact / frames, 4), "plays_always_right": round(always / args.plays, 4),
                      "short_reads": short, "short_reads_caught": caught, "false_alarms": false_alarm,
                      "unsure_right": unsure_right,
                      "wrong_unflagged": wrong_unflagged, "wrong_flagged": flagged_wrong,
                      "the_table_takes": {k: takes[k] for k in TAKES},
                      "reliability": reliability(seen, TABLE_EDGES)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
