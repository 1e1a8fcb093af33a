"""Swiss (积分编排), round robin and knockout pairing."""

import itertools
import random

import pytest

from table_daemon.desk import pairing


def play_swiss(n: int, rounds: int, units: dict[int, str] | None = None, seed: int = 3) -> list[pairing.Pairing]:
    rng = random.Random(seed)
    scores = dict.fromkeys(range(1, n + 1), 0.0)
    met: set[frozenset[int]] = set()
    had_bye: set[int] = set()
    history = []
    for _ in range(rounds):
        order = sorted(scores, key=lambda t: (-scores[t], t))
        pairs = pairing.swiss(order, scores, met, units=units, had_bye=had_bye)
        history.append(pairs)
        for a, b in pairs:
            if b is None:
                had_bye.add(a)
                scores[a] += 2
                continue
            met.add(frozenset((a, b)))
            scores[rng.choice((a, b))] += 2
    return history


def test_swiss_never_rematches_and_pairs_everyone_once_per_round() -> None:
    history = play_swiss(20, 9)
    seen: set[frozenset[int]] = set()
    for pairs in history:
        teams = [t for p in pairs for t in p if t is not None]
        assert sorted(teams) == list(range(1, 21))
        for a, b in pairs:
            assert b is not None
            assert frozenset((a, b)) not in seen
            seen.add(frozenset((a, b)))


def test_swiss_pairs_equal_scores_when_it_can() -> None:
    scores = {1: 4.0, 2: 4.0, 3: 2.0, 4: 2.0, 5: 0.0, 6: 0.0}
    pairs = pairing.swiss([1, 2, 3, 4, 5, 6], scores, set())
    assert pairs == [(1, 2), (3, 4), (5, 6)]


def test_swiss_keeps_units_apart_where_possible() -> None:
    scores = dict.fromkeys(range(1, 5), 0.0)
    units = {1: "A", 2: "A", 3: "B", 4: "B"}
    pairs = pairing.swiss([1, 2, 3, 4], scores, set(), units=units)
    assert all(b is not None and units[a] != units[b] for a, b in pairs)
    # Not kept apart when the event says 不回避.
    assert pairing.swiss([1, 2, 3, 4], scores, set(), units=units, keep_units_apart=False) == [(1, 2), (3, 4)]


def all_pairings(teams: list[int]) -> list[list[tuple[int, int]]]:
    if not teams:
        return [[]]
    first, rest = teams[0], teams[1:]
    return [[(first, b), *more] for i, b in enumerate(rest) for more in all_pairings(rest[:i] + rest[i + 1:])]


def test_swiss_keeps_units_apart_whenever_a_same_score_pairing_allows_over_the_whole_round() -> None:
    """Against every pairing of the round: a same-unit match is paired only when every pairing without it
    costs at least a point of 场分 difference (or a rematch), counted over all the round's matches."""

    def cost(pairs: list[tuple[int, int]], scores: dict[int, float], units: dict[int, str]) -> int:
        half_points = sum((round(2 * scores[a]) - round(2 * scores[b])) ** 2 for a, b in pairs)
        return half_points + 4 * sum(units[a] == units[b] for a, b in pairs)  # a unit weighs one point (4)

    checked = 0
    for seed in range(400):
        rng = random.Random(seed)
        teams = list(range(1, rng.choice((4, 6, 8)) + 1))
        scores = {t: float(rng.choice((0, 1, 2, 3, 4))) for t in teams}
        units = {t: rng.choice("ABC") for t in teams}
        met = {frozenset(rng.sample(teams, 2)) for _ in range(rng.randint(0, len(teams)))}
        order = sorted(teams, key=lambda t: (-scores[t], t))
        legal = [m for m in all_pairings(order) if all(frozenset(p) not in met for p in m)]
        if not legal:
            continue
        got = pairing.swiss(order, scores, met, units=units)
        assert all(b is not None and frozenset((a, b)) not in met for a, b in got)
        pairs = [(a, b) for a, b in got if b is not None]
        assert cost(pairs, scores, units) == min(cost(m, scores, units) for m in legal), seed
        checked += 1
    assert checked > 300


def test_odd_count_gives_the_bye_to_the_lowest_team_without_one() -> None:
    scores = {1: 4.0, 2: 2.0, 3: 2.0, 4: 0.0, 5: 0.0}
    pairs = pairing.swiss([1, 2, 3, 4, 5], scores, set(), had_bye={5})
    assert pairs[-1] == (4, None)
    history = play_swiss(7, 6)
    byes = [a for pairs in history for a, b in pairs if b is None]
    assert len(byes) == len(set(byes)) == 6


def test_no_pairing_without_a_rematch_is_an_error() -> None:
    met = {frozenset(p) for p in itertools.combinations(range(1, 5), 2)}
    with pytest.raises(pairing.PairingError):
        pairing.swiss([1, 2, 3, 4], dict.fromkeys(range(1, 5), 0.0), met)


def test_round_robin_meets_everyone_exactly_once() -> None:
    for n in (6, 7):
        met = []
        for r in range(1, n + (n % 2)):
            pairs = pairing.round_robin(list(range(1, n + 1)), r)
            teams = [t for p in pairs for t in p if t is not None]
            assert sorted(teams) == list(range(1, n + 1))
            met += [frozenset(p) for p in pairs if p[1] is not None]
        assert len(met) == len(set(met)) == n * (n - 1) // 2
    with pytest.raises(pairing.PairingError):
        pairing.round_robin([1, 2, 3, 4], 4)


def _without_byes(pairs: pairing.Pairing) -> list[tuple[int, int]]:
    """The matches of a round that has no bye."""
    matches = []
    for a, b in pairs:
        assert b is not None
        matches.append((a, b))
    return matches


def test_knockout_with_play_offs_for_every_place() -> None:
    seeds = list(range(1, 9))
    r1 = pairing.knockout(seeds, [], 1)
    assert r1 == [(1, 8), (4, 5), (2, 7), (3, 6)]
    # the better seed wins every match, except 5 beats 4
    w1 = {frozenset(p): min(p) for p in _without_byes(r1)} | {frozenset((4, 5)): 5}
    r2 = pairing.knockout(seeds, [w1], 2)
    assert r2 == [(1, 5), (2, 3), (8, 4), (7, 6)]
    w2 = {frozenset(p): min(p) for p in _without_byes(r2)}
    r3 = pairing.knockout(seeds, [w1, w2], 3)
    # final, match for 3rd, for 5th, for 7th
    assert r3 == [(1, 2), (5, 3), (4, 6), (8, 7)]
    with pytest.raises(pairing.PairingError):
        pairing.knockout(seeds, [w1], 3)


def test_knockout_gives_top_seeds_byes() -> None:
    assert pairing.knockout([1, 2, 3, 4, 5, 6], [], 1) == [(1, None), (4, 5), (2, None), (3, 6)]
