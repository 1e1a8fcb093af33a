"""What the table takes as laid: the reader's candidates weighed with what the seat holds; fouls only when sure."""

from __future__ import annotations

import json

import pytest

from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command, Press
from table_daemon.controller import seen_choice as sc

from .harness import Harness, hands_with

UNSURE_FIVE = [[("H5", 0.7), ("H6", 0.25)], [("S9", 0.9), ("C9", 0.08)]]

CHOICES = [
    # (options, the sets that fit (None: every set), the reader's sure threshold, what is taken)
    # H5 not held: its runner-up
    ([[("H5", 0.7), ("H6", 0.29)], [("S9", 0.97), ("C9", 0.02)]], {("H6", "S9"), ("H6", "C9")}, 0.9, ("H6", "S9")),
    (UNSURE_FIVE, {("H6", "S9"), ("H6", "C9")}, 0.9, None),  # not H5, but what else: H6 at 0.25 of 0.3 is unsure
    (UNSURE_FIVE, {("H6", "C9")}, 0.9, None),  # far less probable than what was seen
    (UNSURE_FIVE, set(), 0.9, None),  # nothing the seat could have laid
    (UNSURE_FIVE, None, 0.9, None),  # anything fits: the hand tells nothing, and 0.63 is not sure
    ([[("SB", 0.82), ("HR", 0.18)]], {("SB",)}, 0.998, ("SB",)),  # an unsure joker, the other one not held
    ([[("SB", 0.82), ("HR", 0.18)]], {("SB",), ("HR",)}, 0.998, None),  # both held: too near to choose
    ([[("H5", 0.5)]], None, 0.6, None),  # a reading with no runners-up: half of it may be any other card
    ([[("H5", 0.95)]], None, 0.9, ("H5",)),
    # a pip read as a third card, fairly surely: the held pair without it
    ([[("H5", 0.999)], [("H5", 0.999)], [("SK", 0.6), ("CK", 0.1)]], {("H5", "H5")}, 0.998, ("H5", "H5")),
    # a triple of kings, the third read unsurely as a jack: the pair without it fits, but so would the third king,
    # which its candidates do not name: asked again, not taken as the pair (seen in bench/table_reading.py)
    ([[("HK", 1.0)], [("SK", 1.0)], [("DJ", 0.45), ("DQ", 0.1), ("D8", 0.05)]],
     {("HK", "SK"), ("HK", "SK", "DK")}, 0.998, None),
    # the same reading where no unnamed card would make a play the seat could lay: the pair without it
    ([[("HK", 1.0)], [("SK", 1.0)], [("DJ", 0.45), ("DQ", 0.1), ("D8", 0.05)]], {("HK", "SK")}, 0.998, ("HK", "SK")),
]


@pytest.mark.parametrize(("options", "fitting", "sure_at", "taken"), CHOICES)
def test_choice_of_what_was_laid(options: list, fitting: set | None, sure_at: float,
                                 taken: tuple[str, ...] | None) -> None:
    assert sc.choose(options, lambda codes: fitting is None or codes in fitting, sure_at) == taken


def test_a_foul_needs_every_card_and_the_whole_reading_sure() -> None:
    readings = [[("H5", 0.99996)], [("S9", 1.0)]]
    assert sc.sure(readings) and sc.sure(readings, 0.998) and not sc.sure(UNSURE_FIVE)
    assert not sc.sure([[("H5", 0.9995)], [("S9", 0.997)]], 0.998)  # a card under the reader's threshold
    assert not sc.sure([[("H5", 0.99996)]] * 3)  # each sure, the three together wrong 1 time in 8,000
    assert not sc.sure([[("H5", 0.95)]], 0.6)
    assert not sc.sure([[("H5", 1.0)]], 0.998, least=0.9982)  # less sure in another settling frame


def _game() -> Harness:
    h = Harness("national", hands=[hands_with(7, {"S": "H3 D9 C9", "E": "H6", "W": "S4"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)  # S leads
    return h


def absent(h: Harness, seat: str, codes: list[str]) -> str:
    """The first of ``codes`` that ``seat`` does not hold."""
    held = {c.code for c in h.c.deal.state.hand(seat)}
    return next(code for code in codes if code not in held)


def test_a_card_read_wrong_but_held_in_second_place_is_taken() -> None:
    h = _game()
    # the reader is fairly sure of D6, which S does not hold; its second candidate D9 is held and legal
    wrong = absent(h, "S", ["D6", "D5", "D4", "D7"])
    h.send(CardsSeen("S", [wrong], 0.72, frame=5, candidates=[[(wrong, 0.72), ("D9", 0.27), ("D8", 0.005)]]))
    assert h.alerts() == []
    (play,) = h.of("events", "play")
    assert play["seat"] == "S" and play["cards"] == ["D9"]


def test_unsure_not_held_is_a_misread_not_a_foul() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    other = absent(h, "S", [c for c in ["SK", "SQ", "CK", "CQ"] if c != wrong])
    h.send(CardsSeen("S", [wrong], 0.8, frame=6, candidates=[[(wrong, 0.8), (other, 0.15)]]))
    assert not h.alerts("not_held") and len(h.alerts("misread")) == 1
    assert h.alerts("misread")[0]["evidence"]["candidates"][0][0] == [wrong, 0.8]
    assert h.c.deal.state.to_move == "S"  # nothing happened: S lays again


def test_sure_not_held_is_laid_again_once_then_a_foul() -> None:
    """Every card of both packs is dealt, so a card a seat does not hold lies in another hand: a sure reading of
    one is first taken for the reader mistaking a held card (S leads: any held card would be a play)."""
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    h.send(CardsSeen("S", [wrong], 1.0, frame=7, candidates=[[(wrong, 1.0), ("D9", 0.0)]]))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["not_held"] == wrong and asked["evidence"]["held_in_its_place"] is True
    assert not h.alerts("not_held")
    h.send(CardsSeen("S", [wrong], 1.0, frame=8, candidates=[[(wrong, 1.0), ("D9", 0.0)]]))
    assert len(h.alerts("not_held")) == 1 and len(h.alerts("misread")) == 1


def test_a_bomb_with_one_card_read_surely_as_one_not_held_is_laid_again_once() -> None:
    """The heart queen of a bomb of four queens read surely as the ten in a held-out design's court picture
    (bench/simulate.py, arimo-four-colour): asked again, not a foul; two cards not held are the foul at once."""
    h = Harness("national", hands=[hands_with(7, {"S": "DQ CQ HQ SQ H3"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    ten = absent(h, "S", ["HT", "ST", "CT", "DT"])
    h.send(CardsSeen("S", ["DQ", "CQ", ten, "SQ"], 1.0, frame=40))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["not_held"] == ten and "HQ" not in json.dumps(asked)
    h.send(CardsSeen("S", ["DQ", "CQ", "HQ", "SQ"], 1.0, frame=41))
    assert h.of("events", "play")[0]["cards"] == ["DQ", "CQ", "HQ", "SQ"] and not h.alerts("not_held")


def test_a_set_shown_again_in_the_turn_is_the_foul_even_with_another_shown_between() -> None:
    """Two sure readings of single cards S does not hold, shown in turn: each is asked for again once, and the
    first shown again is the foul (the table remembers every set it doubted in the turn, not only the last)."""
    h = _game()
    first = absent(h, "S", ["HK", "HQ", "HJ"])
    second = absent(h, "S", ["SK", "SQ", "SJ"])
    for frame, card in enumerate((first, second, first), start=20):
        h.send(CardsSeen("S", [card], 1.0, frame=frame, candidates=[[(card, 1.0)]]))
    assert [a["code"] for a in h.alerts()] == ["misread", "misread", "not_held"]
    assert h.alerts("not_held")[0]["evidence"]["seen"] == [first]


def test_a_pair_read_surely_with_a_card_not_held_between_is_laid_again_once() -> None:
    """lato-italic's SQ HQ read at 0.9999 as SQ H7 HQ, the queen's court picture read as H7 (bench/simulate.py):
    S holds no H7 and no third queen, but the pair without it is a play: asked again, then the foul."""
    # every other queen, and the wild hearts twos, in E's hand: no held card in H7's place makes a play
    h = Harness("national", hands=[hands_with(7, {"S": "SQ HQ D3", "E": "SQ HQ CQ CQ DQ DQ H2 H2"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    seven = absent(h, "S", ["H7", "S7", "C7", "D7"])
    h.send(CardsSeen("S", ["SQ", seven, "HQ"], 1.0, frame=50))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["without"] == [seven] and not h.alerts("not_held")
    h.send(CardsSeen("S", ["SQ", seven, "HQ"], 1.0, frame=51))
    assert len(h.alerts("not_held")) == 1


def test_a_pair_of_kings_read_surely_with_a_held_joker_beside_is_laid_again_once() -> None:
    """noto-sans-beside's DK CK read at 0.998 as DK CK SB, a king's court picture read as the black joker
    (bench/table_reading.py); the seat holds a black joker, so the reading is of held cards and no play: asked again
    once, then the illegal_play foul."""
    h = Harness("national", hands=[hands_with(7, {"S": "DK CK SB D3"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    h.send(CardsSeen("S", ["DK", "CK", "SB"], 1.0, frame=60))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["without"] == ["SB"] and not h.alerts("illegal_play")
    h.send(CardsSeen("S", ["DK", "CK", "SB"], 1.0, frame=61))
    assert len(h.alerts("illegal_play")) == 1


def test_two_cards_not_held_are_a_foul_at_once() -> None:
    h = _game()  # S holds H3 D9 C9
    wrong = [absent(h, "S", ["HK", "HQ", "HJ"]), absent(h, "S", ["SK", "SQ", "SJ"])]
    h.send(CardsSeen("S", wrong, 1.0, frame=9))
    assert len(h.alerts("not_held")) == 1 and not h.alerts("misread")


def test_nearly_sure_is_not_sure_enough_to_accuse() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    # surer than the learned reader's threshold, but wrong one time in 1,700: the cards are laid again
    h.send(CardsSeen("S", [wrong], 0.9994, frame=7, candidates=[[(wrong, 0.9994), ("D9", 0.0004)]]))
    assert not h.alerts("not_held") and len(h.alerts("misread")) == 1


def test_a_pair_read_with_one_wrong_card_becomes_the_held_pair() -> None:
    h = _game()
    wrong = absent(h, "S", ["S9", "H9"])
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=8,
                     candidates=[[("D9", 0.99), ("H9", 0.005)], [(wrong, 0.7), ("C9", 0.29)]]))
    assert h.alerts() == []
    assert h.of("events", "play")[0]["cards"] == ["D9", "C9"]


def test_unsure_cards_beside_the_play_of_a_seat_not_on_turn_raise_nothing() -> None:
    """A seat's play lies in its zone while the others play on; a pip of it read as another card, unsurely, in
    a few frames is no exposed card and asks nothing of a seat not on turn."""
    h = _game()
    h.send(CardsSeen("S", ["D9"], 1.0, frame=9))
    assert h.of("events", "play")[0]["cards"] == ["D9"] and h.c.deal.state.to_move == "E"
    h.send(CardsSeen("S", ["C9"], 0.5, frame=10, candidates=[[("C9", 0.5), ("S9", 0.3)]]))
    h.send(CardsSeen("S", [], 0.0, frame=11, unreadable=1))
    assert h.alerts() == []
    h.send(CardsSeen("S", ["C9"], 1.0, frame=12))  # surely another card laid beside it: an exposed card
    assert [a["code"] for a in h.alerts()] == ["exposed_card"]


def test_a_sure_reading_one_card_short_of_a_play_is_laid_again_once_before_it_is_a_foul() -> None:
    """A card lying almost wholly under another in a tight fan shows no index: a full house read surely as two
    pairs. The table asks for the cards again (misread), saying how many cards short of a play it is but not which
    held cards would make it (the alerts topic is public); the same set shown again in the turn is the foul."""
    h = Harness("national", hands=[hands_with(7, {"S": "H5 D5 S5 H9 C9"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    two_pairs = ["H5", "D5", "H9", "C9"]
    h.send(CardsSeen("S", two_pairs, 1.0, frame=20))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["short_of"] == 1 and "completions" not in asked["evidence"]
    assert asked["evidence"]["seen"] == two_pairs and "S5" not in json.dumps(asked)
    assert not h.alerts("illegal_play") and h.c.deal.state.to_move == "S"
    h.send(CardsSeen("S", two_pairs, 1.0, frame=21))  # laid again, and still two pairs: the foul
    assert len(h.alerts("illegal_play")) == 1 and len(h.alerts("misread")) == 1
    h.send(CardsSeen("S", ["H5", "D5", "S5", "H9", "C9"], 1.0, frame=22))
    assert h.of("events", "play")[0]["cards"] == ["H5", "D5", "S5", "H9", "C9"]


def test_a_full_house_read_surely_as_two_of_its_cards_is_laid_again_once() -> None:
    """roboto-condensed's S3 D3 C5 S5 D5 read at 0.9999 as S3 D5 alone (bench/simulate.py, a camera frame where
    the fan's count missed three cards): three held cards complete it, so it is asked again, not illegal_play."""
    h = Harness("national", hands=[hands_with(7, {"S": "S3 D3 C5 S5 D5"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    h.send(CardsSeen("S", ["S3", "D5"], 1.0, frame=24))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["short_of"] == 3 and not h.alerts("illegal_play")
    h.send(CardsSeen("S", ["S3", "D3", "C5", "S5", "D5"], 1.0, frame=25))
    assert h.of("events", "play")[0]["cards"] == ["S3", "D3", "C5", "S5", "D5"]


def test_a_sure_reading_no_held_card_completes_is_a_foul_at_once() -> None:
    h = _game()  # S holds H3 and HQ: no play, and no one to three held cards make one of them
    h.send(CardsSeen("S", ["H3", "HQ"], 1.0, frame=23))
    assert len(h.alerts("illegal_play")) == 1 and not h.alerts("misread")


def test_a_bomb_read_as_a_pair_that_does_not_beat_is_laid_again_once() -> None:
    """Two cards of a bomb of four hidden in a tight fan: the pair seen does not beat the bomb on the table, the
    bomb laid would; asked again once, then the foul."""
    h = Harness("national", hands=[hands_with(7, {"S": "S7 C7 D7 H7", "W": "S6 C6 D6 H6"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "W", h.now)
    h.send(CardsSeen("W", ["S6", "C6", "D6", "H6"], 1.0, frame=30))
    assert h.of("events", "play")[0]["cards"] == ["S6", "C6", "D6", "H6"]
    h.send(Press("N", "pass"))
    h.send(Press("E", "pass"))
    assert h.c.deal.state.to_move == "S"
    h.send(CardsSeen("S", ["C7", "H7"], 1.0, frame=31))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["short_of"] == 2 and "D7" not in json.dumps(asked) and "S7" not in json.dumps(asked)
    h.send(CardsSeen("S", ["C7", "H7"], 1.0, frame=32))
    assert "does not beat" in h.alerts("illegal_play")[0]["message"]


def test_a_sure_reading_with_a_card_read_twice_is_laid_again_once_before_it_is_a_foul() -> None:
    """A pair read surely with one card twice (at the table, the edge of a card read as the index beside it): not
    held, but the held pair without the card read twice. Asked again once; the same set shown again in the turn is
    the foul."""
    h = Harness("national", hands=[hands_with(2, {"S": "D3 S3 H9"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    assert [c.code for c in h.c.deal.state.hand("S")].count("D3") == 1
    h.send(CardsSeen("S", ["D3", "D3", "S3"], 1.0, frame=40))  # S holds one D3: seen as a triple, laid a pair
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["one_over"] and asked["evidence"]["without"] == ["D3"]
    assert not h.alerts("not_held") and not h.alerts("illegal_play") and h.c.deal.state.to_move == "S"
    h.send(CardsSeen("S", ["D3", "D3", "S3"], 1.0, frame=41))
    assert len(h.alerts("not_held")) == 1 and len(h.alerts("misread")) == 1
    h.send(CardsSeen("S", ["D3", "S3"], 1.0, frame=42))
    assert h.of("events", "play")[0]["cards"] == ["D3", "S3"]


def test_more_copies_of_a_card_than_the_pack_holds_is_never_a_foul() -> None:
    """Three red jokers read surely (the 大王 or JOKER printed beside a joker's index read as one more): no seat
    can lay that, so it is always a misread, and the table does not stop."""
    h = Harness("national", hands=[hands_with(7, {"S": "HR HR S4"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    for frame in (44, 45):
        h.send(CardsSeen("S", ["HR", "HR", "HR"], 1.0, frame=frame))
    assert [a["evidence"]["more_than_the_pack_holds"] for a in h.alerts("misread")] == [["HR"], ["HR"]]
    assert not any(h.alerts(code) for code in ("not_held", "illegal_play"))
    h.send(CardsSeen("S", ["HR", "HR"], 1.0, frame=46))
    assert h.of("events", "play")[0]["cards"] == ["HR", "HR"]


def test_a_sure_illegal_reading_with_no_card_twice_is_a_foul_at_once() -> None:
    """Only a card read twice may be one too many: two different cards that are no play are the foul."""
    h = Harness("national", hands=[hands_with(7, {"S": "H5 H5 D9"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    h.send(CardsSeen("S", ["H5", "H5", "D9"], 1.0, frame=43))  # without D9 a pair, but D9 was read once
    assert len(h.alerts("illegal_play")) == 1 and not h.alerts("misread")


def test_a_provisional_reading_the_hand_settles_is_taken_at_once() -> None:
    """An unsure play the camera still looks at: taken now when one held, legal reading is by far the likeliest."""
    h = _game()
    wrong = absent(h, "S", ["S9", "H9"])
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=8, provisional=True, wait=3,
                     candidates=[[("D9", 0.99), ("H9", 0.005)], [(wrong, 0.7), ("C9", 0.29)]]))
    assert h.alerts() == []
    assert h.of("events", "play")[0]["cards"] == ["D9", "C9"] and h.c.deal.state.to_move == "E"
    # the camera's final report of the same set (its hold's), now for a seat no longer on turn: nothing more
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=16, wait=3,
                     candidates=[[("D9", 0.99), ("H9", 0.005)], [(wrong, 0.7), ("C9", 0.29)]]))
    assert h.alerts() == [] and len(h.of("events", "play")) == 1


def test_a_provisional_reading_the_hand_cannot_settle_waits_for_the_final_report() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    other = absent(h, "S", [c for c in ["SK", "SQ", "CK", "CQ"] if c != wrong])
    unsure = {"confidence": 0.8, "candidates": [[(wrong, 0.8), (other, 0.15)]]}
    h.send(CardsSeen("S", [wrong], frame=6, provisional=True, **unsure))
    h.send(CardsSeen("S", ["D9", "??"], 0.5, frame=6, provisional=True, unreadable=1))
    assert h.alerts() == [] and h.c.deal.state.to_move == "S"  # no alert yet, no play
    h.send(CardsSeen("S", [wrong], frame=14, **unsure))  # the camera stopped waiting: judged now
    assert [a["code"] for a in h.alerts()] == ["misread"]


def test_a_provisional_reading_is_never_a_foul_nor_judged_off_turn_or_paused() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    h.send(CardsSeen("S", [wrong], 0.59, frame=7, provisional=True, candidates=[[(wrong, 1.0)]]))
    h.send(CardsSeen("E", ["H6"], 0.5, frame=7, provisional=True))  # E is not on turn
    h.send(Command("pause", {}))
    h.send(CardsSeen("S", ["D9"], 0.5, frame=8, provisional=True, candidates=[[("D9", 0.99)]]))
    assert h.alerts() == [] and not h.of("events", "play")


def test_the_final_report_of_a_play_taken_early_is_never_a_second_play_even_after_the_trick() -> None:
    """The play was taken from the provisional report; the trick ended (everyone passed) before the camera's final
    report of the same hold came, so the seat is on turn again with an empty zone: the report is no new play."""
    h = Harness("national", hands=[hands_with(7, {"S": "D9 D9 H3"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.c.deal.state = engine.begin_play(h.c.deal.state, "S", h.now)
    unsure = [[("D9", 0.55), ("S9", 0.44)]]
    h.send(CardsSeen("S", ["D9"], 0.55, frame=8, provisional=True, wait=4, candidates=unsure))
    for seat in ("E", "N", "W"):
        h.send(Press(seat, "pass"), dt=0.1)
    assert h.c.deal.state.to_move == "S" and h.c.deal.zone["S"] == []
    h.send(CardsSeen("S", ["D9"], 0.55, frame=16, wait=4, candidates=unsure))
    assert [p["cards"] for p in h.of("events", "play")] == [["D9"]] and h.alerts() == []
    # a set of a later hold is a play again
    h.send(CardsSeen("S", ["H3"], 1.0, frame=30))
    assert [p["cards"] for p in h.of("events", "play")] == [["D9"], ["H3"]]


def test_a_sure_final_report_unlike_the_play_taken_early_asks_the_referee_and_accuses_no_one() -> None:
    for final, alerts in ((["D9", "S9"], ["misread"]), (["D9", "H9"], ["misread"]), (["D9", "C9"], [])):
        h = _game()
        wrong = absent(h, "S", ["S9", "H9"])
        h.send(CardsSeen("S", ["D9", wrong], 0.5, frame=8, provisional=True, wait=2,
                         candidates=[[("D9", 0.99)], [(wrong, 0.5), ("C9", 0.499)]]))
        assert h.of("events", "play")[0]["cards"] == ["D9", "C9"]
        h.send(CardsSeen("S", final, 0.99999, frame=12, wait=2, candidates=[[(c, 0.99999)] for c in final]))
        assert [a["code"] for a in h.alerts()] == alerts, final  # never exposed_card nor not_held
        if alerts:
            assert h.alerts()[0]["evidence"]["taken"] == ["D9", "C9"] and h.alerts()[0]["seat"] == "S"
        assert len(h.of("events", "play")) == 1


def test_the_final_report_of_a_play_taken_early_raises_nothing_while_a_declaration_waits_or_paused() -> None:
    h = Harness("competitive-2017", hands=[hands_with(7, {"S": "H3 SK DK H6 C6 H2"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    seen = ["SK", "DK", "H6", "C6", "S2"]  # S2 not held: the hand takes H2, and the wild play needs declaring
    unsure = [[("SK", 1.0)], [("DK", 1.0)], [("H6", 1.0)], [("C6", 1.0)], [("S2", 0.58), ("H2", 0.419)]]
    h.send(CardsSeen("S", seen, 0.58, frame=7, provisional=True, wait=9, candidates=unsure))
    assert len(h.of("events", "declare_needed")) == 1
    h.send(CardsSeen("S", seen, 0.58, frame=15, wait=9, candidates=unsure))
    assert h.alerts() == []  # neither "unsure" nor out_of_turn while the declaration is awaited
    h2 = _game()
    h2.send(CardsSeen("S", ["D9"], 0.6, frame=5, provisional=True, wait=1, candidates=[[("D9", 0.6), ("D8", 0.01)]]))
    assert h2.of("events", "play")
    h2.send(Command("pause", {}))
    h2.send(CardsSeen("S", ["D9"], 0.6, frame=9, wait=1, candidates=[[("D9", 0.6), ("D8", 0.01)]]))
    assert h2.alerts() == []  # not "cards laid while the table is paused"


def test_a_deal_snapshotted_before_a_field_was_added_loads_with_its_default() -> None:
    """Snapshots of one version's format pickle the controller; a table deal written before ``taken_in_wait``
    existed loads with it empty instead of failing at the next card seen."""
    import pickle

    h = _game()
    d = h.c.deal
    del d.__dict__["taken_in_wait"]  # as a deal pickled by the build before it
    loaded = pickle.loads(pickle.dumps(d))
    assert loaded.taken_in_wait == {} and loaded.zone == d.zone and loaded.number == d.number
    assert loaded.state is not None and loaded.state.to_move == d.state.to_move
