"""What the table takes as laid: the reader's candidates weighed with what the seat holds; fouls only when sure."""

from __future__ import annotations

from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command
from table_daemon.controller import seen_choice as sc

from .harness import Harness, hands_with


def test_most_probable_fitting_choice_best_first() -> None:
    options = [[("H5", 0.7), ("H6", 0.25)], [("S9", 0.9), ("C9", 0.08)]]
    assert sc.most_probable(options, lambda codes: True) == (("H5", "S9"), 0.7 * 0.9)
    got = sc.most_probable(options, lambda codes: codes[0] == "H6")
    assert got is not None and got[0] == ("H6", "S9")
    assert sc.choose(options, lambda codes: codes[0] == "H6") == ("H6", "S9")  # 0.225 >= 0.2 x 0.63
    assert sc.choose(options, lambda codes: codes == ("H6", "C9")) is None  # far less probable than what was seen
    assert sc.most_probable(options, lambda codes: False) is None
    assert sc.sure([[("H5", 0.95)], [("S9", 0.91)]]) and not sc.sure(options)


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
    h.send(CardsSeen("S", [wrong], 0.72, frame=5, candidates=[[(wrong, 0.72), ("D9", 0.24), ("D8", 0.02)]]))
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


def test_sure_not_held_is_still_a_foul() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    h.send(CardsSeen("S", [wrong], 0.98, frame=7, candidates=[[(wrong, 0.98), ("D9", 0.01)]]))
    assert len(h.alerts("not_held")) == 1 and not h.alerts("misread")


def test_a_pair_read_with_one_wrong_card_becomes_the_held_pair() -> None:
    h = _game()
    wrong = absent(h, "S", ["S9", "H9"])
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=8,
                     candidates=[[("D9", 0.97), ("H9", 0.01)], [(wrong, 0.7), ("C9", 0.28)]]))
    assert h.alerts() == []
    assert h.of("events", "play")[0]["cards"] == ["D9", "C9"]
