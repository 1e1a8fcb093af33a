"""Counting the cards of a fan from its shape: holes where an index was not read, and no false alarms."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from guandan import classify, parse_cards
from hardware.cameras.simulated import SimulatedTableCamera
from table_daemon.controller.seen_choice import choose
from vision.counting import crowded, impossible_indices, missing_cards, on_the_top_card, read_twice
from vision.readers import make_card_reader
from vision.table import TableReader
from vision.types import UNREADABLE

H = 300.0  # the rectified fan's height
CARD = 0.69 * H


def fan(n: int, pitch: float = 85.0, offset: float = 8.0) -> tuple[list[float], float]:
    """Index positions and width of a regular fan of ``n`` cards."""
    xs = [offset + i * pitch for i in range(n)]
    return xs, xs[-1] - offset + CARD


def test_a_fan_read_whole_has_no_holes_even_when_laid_unevenly() -> None:
    xs, width = fan(5)
    assert missing_cards(xs, width, H) == (0, 0, [0, 0, 0, 0, 0])
    uneven = [8, 64, 154, 235, 307, 379]  # gaps from 56 to 90: one hand's fanning
    assert missing_cards(uneven, 379 - 8 + CARD, H) == (0, 0, [0] * 6)
    assert missing_cards([10], CARD, H) == (0, 0, [0])  # a lone card
    assert missing_cards([10], 0.72 * H, H) == (0, 0, [0])  # a lone poker card, a little wider
    assert missing_cards([], 500, H) == (0, 0, [])  # nothing read: nothing said
    # three cards fanned unevenly (gaps 56 and 88, held-out designs at the table): a card hidden in the wider gap
    # would stand closer than the least pitch players fan at to one of its neighbours, so there is none
    assert missing_cards([22, 78, 166], 166 - 22 + CARD, H) == (0, 0, [0, 0, 0])


def test_a_hidden_index_leaves_a_hole_in_the_middle_or_at_either_end() -> None:
    xs, width = fan(5)
    assert missing_cards(xs[:2] + xs[3:], width, H) == (0, 0, [0, 1, 0, 0])
    assert missing_cards(xs[:4], width, H) == (0, 1, [0, 0, 0, 0])  # the last card
    assert missing_cards(xs[1:], width, H) == (1, 0, [0, 0, 0, 0])  # the first card
    assert missing_cards([xs[0], xs[3], xs[4]], width, H) == (0, 0, [2, 0, 0])
    assert missing_cards([22, 78, 196], 196 - 22 + CARD, H) == (0, 0, [0, 1, 0])  # room for a card: two pitches
    # two indices further apart than players fan (held-out designs: D3 S3 H2 and HK DK CK taken without their
    # middle card, whose index lay cut off above the outline): a hole, though there is no other gap to compare
    assert missing_cards([10, 196], 196 - 10 + CARD, H) == (0, 0, [1, 0])
    loose, loose_width = fan(2, pitch=0.6 * CARD)  # a pair fanned as loosely as hands fan: none
    assert missing_cards(loose, loose_width, H) == (0, 0, [0, 0])
    # a held-out design's fan of six, its second index not read, laid unevenly (gaps 75 to 101 pixels)
    assert missing_cards([13, 180, 281, 356, 455], 645, H) == (0, 0, [1, 0, 0, 0, 0])
    pair_xs, pair_width = fan(2)
    assert missing_cards(pair_xs[:1], pair_width, H) == (0, 1, [0])  # a pair read as a single
    tight, tight_width = fan(2, pitch=0.27 * CARD)  # ... also when fanned nearly as tight as a hand fans
    assert missing_cards(tight[:1], tight_width, H) == (0, 1, [0])


def test_a_pair_whose_second_index_is_hidden_reads_as_one_card_and_one_unreadable() -> None:
    camera = SimulatedTableCamera(seed=8, deck="builtin")
    table = TableReader(camera.calibration)
    camera.lay("S", ["C8", "D8"])
    frame = camera.frame()
    got = table.read(frame)["S"]
    assert [r.card for r in got] == ["C8", "D8"]
    x, y, w, h = got[1].box  # glare over the second card's corner index
    cv2.rectangle(frame, (x - 3, y - 3), (x + w + 3, y + h + 3), (250, 250, 250), -1)
    again = table.read(frame)["S"]
    assert [r.card for r in again] == ["C8", UNREADABLE]
    assert again[1].confidence == 0.0 and again[1].flagged


def test_a_card_whose_index_is_not_read_at_all_is_one_unreadable_card_not_nothing() -> None:
    camera = SimulatedTableCamera(seed=8, deck="builtin")
    table = TableReader(camera.calibration)
    camera.lay("E", ["HK"])
    frame = camera.frame()
    (card,) = table.read(frame)["E"]
    assert card.card == "HK"
    x, y, w, h = card.box  # glare over the corner index: nothing of the card can be read
    cv2.rectangle(frame, (x - 3, y - 3), (x + w + 3, y + h + 3), (250, 250, 250), -1)
    (unread,) = table.read(frame)["E"]
    assert unread.card == UNREADABLE and unread.flagged
    camera.clear()
    assert table.read(camera.frame())["E"] == []  # an empty zone is still empty


def test_no_false_alarm_on_plays_read_right() -> None:
    camera = SimulatedTableCamera(seed=9, deck="builtin")
    table = TableReader(camera.calibration)
    rng = np.random.default_rng(3)
    ranks = "23456789TJQKA"
    flagged = right = 0
    for i in range(24):
        seat = "SENW"[i % 4]
        n = int(rng.integers(1, 7))
        start = int(rng.integers(0, 13 - n))
        cards = ["SHCD"[int(rng.integers(0, 4))] + ranks[start + k] for k in range(n)]
        camera.clear()
        camera.lay(seat, cards)
        got = [r.card for r in table.read(camera.frame())[seat]]
        known = [c for c in got if c != UNREADABLE]
        if known == cards:
            right += 1
            flagged += len(known) != len(got)
    assert right >= 20 and flagged == 0


def test_an_index_read_on_the_face_of_the_top_card_is_no_card() -> None:
    xs, width = fan(3)
    assert on_the_top_card(xs, width, H) == [False, False, False]  # every card's own index, the last one's too
    picture = width - 0.3 * H  # a court card's or a joker's picture, in the middle of the card lying on top
    assert on_the_top_card([*xs, picture], width, H) == [False, False, False, True]
    # a bridge-sized card (0.64 wide, its index 0.04 in) whose region's outline cut 0.05 into it keeps its index
    assert on_the_top_card([width - 0.64 * H + 0.04 * H + 0.05 * H], width, H) == [False]
    assert on_the_top_card([width - 0.46 * H, width - 0.44 * H], width, H) == [False, True]  # the boundary


def test_a_pair_whose_top_card_s_picture_reads_as_more_cards_is_read_as_the_pair() -> None:
    """Held-out designs: the red joker's picture, in the top card of a pair of jokers, read as D8 and DA (unsure)
    to the right of the two indices, and a queen's court picture as D4; the table asked for the pair again."""
    reader = make_card_reader("net", table=True)
    for seed, seat, pair in ((1002, "E", ["HR", "HR"]), (1001, "E", ["HQ", "CQ"])):
        camera = SimulatedTableCamera(seed=seed)
        camera.lay(seat, pair)
        assert [r.card for r in TableReader(camera.calibration, card_reader=reader).read(camera.frame())[seat]] == pair


def test_a_card_read_again_closer_than_two_indices_can_stand_is_read_once() -> None:
    pitch = 0.25 * 0.64 * H  # the least pitch of the narrowest cards
    # a red joker's word beside its index, read as the same joker surely, 0.12 card heights right of it
    assert read_twice([10, 10 + 0.12 * H], ["HR", "HR"], [1.0, 1.0], H) == [False, True]
    assert read_twice([10, 14], ["SB", "SB"], [0.62, 1.0], H) == [True, False]  # the less sure goes
    # two copies of a card fanned as players fan, and two different cards close together, all stay
    assert read_twice([10, 10 + pitch + 1], ["D5", "D5"], [1.0, 1.0], H) == [False, False]
    assert read_twice([10, 20], ["HR", "SB"], [1.0, 1.0], H) == [False, False]
    assert read_twice([], [], [], H) == []
    # a black king's suit beside its rank read as the black joker, as surely: the joker goes; a joker's own
    # index before it, or a joker surer than the index beside it, stays (a joker cannot stand that close either,
    # but which of the two is the card is not known)
    assert read_twice([10, 10 + 0.1 * H], ["CK", "SB"], [1.0, 1.0], H) == [False, True]
    assert read_twice([10, 10 + 0.1 * H], ["HR", "SB"], [1.0, 1.0], H) == [False, False]
    assert read_twice([10, 10 + 0.1 * H], ["CK", "SB"], [0.7, 1.0], H) == [False, False]


def test_three_readings_of_one_card_within_a_hair_are_one_card() -> None:
    """Each reading is weighed against the nearest one kept on its left, not only its neighbour: once the second
    of three goes, the third still stands too close to the first (it used to survive)."""
    step = 0.05 * H  # well under the least pitch (0.16 card heights)
    assert read_twice([10, 10 + step, 10 + 2 * step], ["HR"] * 3, [1.0, 0.99, 0.98], H) == [False, True, True]
    assert read_twice([10, 10 + step, 10 + 2 * step], ["HR"] * 3, [0.9, 0.99, 1.0], H) == [True, True, False]
    # the third reading a fanned card's distance from the first is another copy of it, and stays
    pitch = 0.25 * 0.64 * H
    assert read_twice([10, 10 + step, 10 + pitch + 1], ["D5"] * 3, [1.0, 0.9, 1.0], H) == [False, True, False]
    # a joker read beside a king's index goes; the king's own second reading, beyond it, is still weighed
    assert read_twice([10, 10 + step, 10 + 2 * step], ["CK", "SB", "CK"], [1.0, 0.9, 0.95], H) == [
        False, True, True]


def test_a_picture_on_the_top_card_cannot_knock_out_that_card_s_own_index() -> None:
    """A court card's picture read as the card itself, surer than the card's own index and closer to it than two
    indices stand: it is on the top card's face, so it goes and the index stays (weighed the other way round, the
    index went for the surer picture, then the picture went too, and a play read right was asked again)."""
    xs, _ = fan(2)
    width = xs[-1] + 0.55 * H  # the region's outline cut into the card on top (its index 0.52-0.70 from the edge)
    picture = xs[-1] + 0.12 * H  # on the face of the card on top, a hair right of its own index
    assert width - picture < 0.45 * H  # where no index can stand
    codes, sure = ["HQ", "CQ", "CQ"], [1.0, 0.9, 1.0]
    assert impossible_indices([*xs, picture], codes, sure, width, H) == [False, False, True]
    assert read_twice([*xs, picture], codes, sure, H) == [False, True, False]  # what the old order took first
    assert impossible_indices([], [], [], width, H) == []


def test_a_joker_read_twice_at_the_table_is_one_joker() -> None:
    """Held-out designs: the pair of red jokers read as three (the word beside the index read as another, surely)
    and the joker bomb read with a third small joker: the controller asked for both again."""
    reader = make_card_reader("net", table=True)
    for seed, seat, play in ((1006, "S", ["HR", "HR"]), (1004, "E", ["HR", "HR", "SB", "SB"])):
        camera = SimulatedTableCamera(seed=seed)
        camera.lay(seat, play)
        assert [r.card for r in TableReader(camera.calibration, card_reader=reader).read(camera.frame())[seat]] == play


def test_a_black_king_s_suit_beside_its_rank_is_not_read_as_the_black_joker_at_the_table() -> None:
    """noto-sans-beside prints the suit beside the rank; a black king's club or spade was read surely as SB, so a
    pair of kings was read as SK CK SB, a sure reading of no play."""
    reader = make_card_reader("net", table=True)
    camera = SimulatedTableCamera(seed=0, deck="noto-sans-beside")
    camera.lay("S", ["SK", "CK"])
    assert [r.card for r in TableReader(camera.calibration, card_reader=reader).read(camera.frame())["S"]] == ["SK", "CK"]


def test_an_unsure_reading_too_close_beside_a_sure_one_is_doubted() -> None:
    near, tight = 0.1 * H, 0.14 * H  # a pip beside a ten's index; the simulated table's tightest fans
    assert crowded([10, 10 + near], ["CT", "CQ"], [1.0, 0.59], H, sure=0.998) == [False, True]
    assert crowded([10, 10 + near], ["CQ", "CT"], [0.59, 1.0], H, sure=0.998) == [True, False]
    # a card fanned tight, both readings sure or both unsure, or the same card (``read_twice`` weighs those)
    assert crowded([10, 10 + tight], ["CT", "CQ"], [1.0, 0.59], H, sure=0.998) == [False, False]
    assert crowded([10, 10 + near], ["CT", "CQ"], [1.0, 0.999], H, sure=0.998) == [False, False]
    assert crowded([10, 10 + near], ["CT", "CQ"], [0.7, 0.59], H, sure=0.998) == [False, False]
    assert crowded([10, 10 + near], ["CT", "CT"], [1.0, 0.59], H, sure=0.998) == [False, False]
    assert crowded([], [], [], H, sure=0.998) == []


def test_a_pip_read_beside_an_index_is_left_out_by_the_seat_s_hand() -> None:
    """Held-out designs: a straight flush D9-DK read with a D7 (0.47) just right of DJ's index, where no index can
    stand. Taken as a card it made no play, and the table asked for the cards again although the seat holds D7;
    doubted, its leftover says "no card here", and the hand settles the play. (Under the Pi's OpenCV 4.9 a second
    unsure D7 is read right of DQ, further from it than a crowding reading stands: the table asks again there, so
    the choice is checked with the doubted reading and the sure ones.)"""
    reader = make_card_reader("net", table=True)
    camera = SimulatedTableCamera(seed=4)
    camera.lay("N", ["D9", "DT", "DJ", "DQ", "DK"])
    read = TableReader(camera.calibration, card_reader=reader).read(camera.frame())["N"]
    codes = [r.card for r in read]
    assert codes[:4] == ["D9", "DT", "DJ", "D7"] and codes[-1] == "DK" and "DQ" in codes
    doubted = read[3]
    assert doubted.confidence < 0.2 and sum(p for _, p in doubted.candidates) < 0.35
    sure = [r for r in read if r.confidence >= reader.sure]
    assert [r.card for r in sure] == ["D9", "DT", "DJ", "DQ", "DK"]
    held = Counter("D7 D9 DT DJ DQ DK S3 S4".split())

    def fits(codes: tuple[str, ...]) -> bool:
        return bool(codes) and not Counter(codes) - held and bool(classify(parse_cards(" ".join(codes)), 2))

    options = [list(r.candidates) for r in read if r is doubted or r.confidence >= reader.sure]
    assert choose(options, fits, reader.sure) == ("D9", "DT", "DJ", "DQ", "DK")
    undoubted = [list(r.candidates) for r in sure[:3]] + [[(c, p / 0.3) for c, p in doubted.candidates]] + \
        [list(r.candidates) for r in sure[3:]]
    assert choose(undoubted, fits, reader.sure) is None  # as read by the network alone: asked again
