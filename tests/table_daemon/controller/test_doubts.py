"""Asked again before a foul (controller/doubts.py): a sure reading that is no play the seat could make is first
taken for the reader's error where one to three hidden cards, one card read twice, a joker, or one card not held
would explain it; the same set shown again in the turn is the foul."""

from __future__ import annotations

import json

from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command, Press

from .harness import Harness, hands_with
from .test_seen_choice import _game, absent


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
    h.deal.state = engine.begin_play(h.state, "S", h.now)
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
    h.deal.state = engine.begin_play(h.state, "S", h.now)
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
    h.deal.state = engine.begin_play(h.state, "S", h.now)
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


def test_a_sure_reading_one_card_short_of_a_play_is_laid_again_once_before_it_is_a_foul() -> None:
    """A card lying almost wholly under another in a tight fan shows no index: a full house read surely as two
    pairs. The table asks for the cards again (misread), saying how many cards short of a play it is but not which
    held cards would make it (the alerts topic is public); the same set shown again in the turn is the foul."""
    h = Harness("national", hands=[hands_with(7, {"S": "H5 D5 S5 H9 C9"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.deal.state = engine.begin_play(h.state, "S", h.now)
    two_pairs = ["H5", "D5", "H9", "C9"]
    h.send(CardsSeen("S", two_pairs, 1.0, frame=20))
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["short_of"] == 1 and "completions" not in asked["evidence"]
    assert asked["evidence"]["seen"] == two_pairs and "S5" not in json.dumps(asked)
    assert not h.alerts("illegal_play") and h.state.to_move == "S"
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
    h.deal.state = engine.begin_play(h.state, "S", h.now)
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
    h.deal.state = engine.begin_play(h.state, "W", h.now)
    h.send(CardsSeen("W", ["S6", "C6", "D6", "H6"], 1.0, frame=30))
    assert h.of("events", "play")[0]["cards"] == ["S6", "C6", "D6", "H6"]
    h.send(Press("N", "pass"))
    h.send(Press("E", "pass"))
    assert h.state.to_move == "S"
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
    h.deal.state = engine.begin_play(h.state, "S", h.now)
    assert [c.code for c in h.state.hand("S")].count("D3") == 1
    h.send(CardsSeen("S", ["D3", "D3", "S3"], 1.0, frame=40))  # S holds one D3: seen as a triple, laid a pair
    (asked,) = h.alerts("misread")
    assert asked["evidence"]["one_over"] and asked["evidence"]["without"] == ["D3"]
    assert not h.alerts("not_held") and not h.alerts("illegal_play") and h.state.to_move == "S"
    h.send(CardsSeen("S", ["D3", "D3", "S3"], 1.0, frame=41))
    assert len(h.alerts("not_held")) == 1 and len(h.alerts("misread")) == 1
    h.send(CardsSeen("S", ["D3", "S3"], 1.0, frame=42))
    assert h.of("events", "play")[0]["cards"] == ["D3", "S3"]


def test_a_sure_illegal_reading_with_no_card_twice_is_a_foul_at_once() -> None:
    """Only a card read twice may be one too many: two different cards that are no play are the foul."""
    h = Harness("national", hands=[hands_with(7, {"S": "H5 H5 D9"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.deal.state = engine.begin_play(h.state, "S", h.now)
    h.send(CardsSeen("S", ["H5", "H5", "D9"], 1.0, frame=43))  # without D9 a pair, but D9 was read once
    assert len(h.alerts("illegal_play")) == 1 and not h.alerts("misread")
