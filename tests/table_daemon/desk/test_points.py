"""Scoring of one match and one duplicate board, against the worked figures of rules §9 and §12."""

import pytest

from table_daemon.desk.points import (
    ScoringError,
    board_result_ns,
    bye_score,
    level_index,
    one_to_three_points,
    score_match,
)


def test_level_index_follows_the_26_point_table() -> None:
    assert [level_index(x) for x in ("2", "T", "10", "A", "A+")] == [0, 8, 8, 12, 13]
    with pytest.raises(ScoringError):
        level_index("B")


@pytest.mark.parametrize(
    ("levels", "winner", "match", "level"),
    [
        ({"NS": "A+", "EW": "5"}, "NS", {"NS": 2, "EW": 0}, {"NS": 23, "EW": 3}),  # d = 13 - 3 = 10
        ({"NS": "8", "EW": "K"}, "EW", {"NS": 0, "EW": 2}, {"NS": 8, "EW": 18}),  # d = 11 - 6 = 5
        ({"NS": "9", "EW": "9"}, None, {"NS": 1, "EW": 1}, {"NS": 13, "EW": 13}),
        ({"NS": "A+", "EW": "2"}, "NS", {"NS": 2, "EW": 0}, {"NS": 26, "EW": 0}),  # largest difference
    ],
)
def test_standard_scoring(levels: dict[str, str], winner: str | None, match: dict[str, int],
                          level: dict[str, int]) -> None:
    score = score_match(levels, winner)
    assert score.match == match
    assert score.level == level


def test_level_value_variant_matches_the_rules_example() -> None:
    # §9: winner at A, loser at 6: 14 + 8 = 22 and 6; passing A counts 14 too.
    assert score_match({"NS": "A", "EW": "6"}, "NS", variant="level_value").level == {"NS": 22, "EW": 6}
    assert score_match({"NS": "3", "EW": "A+"}, "EW", variant="level_value").level == {"NS": 3, "EW": 25}
    assert score_match({"NS": "2", "EW": "2"}, "EW", variant="level_value", walkover=True).level == {
        "EW": 14, "NS": 0}
    assert bye_score("level_value") == (2.0, 14.0)


def test_three_point_variant() -> None:
    assert score_match({"NS": "A+", "EW": "5"}, "NS", variant="three_point").match == {"NS": 3, "EW": 0}
    assert score_match({"NS": "Q", "EW": "5"}, "NS", variant="three_point").match == {"NS": 2, "EW": 1}
    assert score_match({"NS": "7", "EW": "7"}, None, variant="three_point").match == {"NS": 1.5, "EW": 1.5}


def test_one_to_three_deal_points_and_match() -> None:
    assert one_to_three_points(["S", "N"]) == {"NS": 3, "EW": 0}
    assert one_to_three_points(["E", "S", "W", "N"]) == {"EW": 2, "NS": 0}
    assert one_to_three_points(["W", "S", "N", "E"]) == {"EW": 1, "NS": 0}
    score = score_match({"NS": "2", "EW": "2"}, None, variant="one_to_three", deal_points={"NS": 7, "EW": 5})
    assert score.match == {"NS": 2, "EW": 0} and score.level == {"NS": 7, "EW": 5}


def test_duplicate_board_result_for_the_ns_cards() -> None:
    assert board_result_ns("NS", 3) == 3
    assert board_result_ns("EW", 2) == -2


def test_bad_input_is_refused() -> None:
    with pytest.raises(ScoringError):
        score_match({"NS": "A", "EW": "5"}, "XY")
    with pytest.raises(ScoringError):
        score_match({"NS": "A", "EW": "5"}, "NS", variant="chess")
