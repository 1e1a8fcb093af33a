"""Benchmark: Swiss pairing (积分编排) of 500 pairs over 9 rounds; prints seconds per round and checks.

Each round is paired from the current standings by ``table_daemon.desk.pairing.swiss``, then every match gets
a random result (final levels drawn at random), and the standings are recomputed. Prints one line per round
(seconds to pair, window used, same-unit matches, largest 场分 gap in a match) and a summary: rematches must
be 0. Target: at most 5 s per round on the project machine. Run: ``nice -n 10 .venv/bin/python bench/pairing.py``.
"""

from __future__ import annotations

import argparse
import random
import time

from table_daemon.desk import pairing, standings
from table_daemon.desk.points import LEVEL_ORDER


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--units", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    teams = [standings.Team(i, f"P{i}", (), f"U{rng.randrange(args.units)}") for i in range(1, args.pairs + 1)]
    units = {t.id: t.unit for t in teams}
    outcomes: list[standings.Outcome] = []
    met: set[frozenset[int]] = set()
    had_bye: set[int] = set()
    rematches = 0
    times: list[float] = []
    for rnd in range(1, args.rounds + 1):
        rows = standings.compute(teams, outcomes, lot_seed="bench")
        order = [r.team for r in rows]
        scores = {r.team: r.match_points for r in rows}
        t0 = time.perf_counter()
        pairs = pairing.swiss(order, scores, met, units=units, had_bye=had_bye)
        dt = time.perf_counter() - t0
        times.append(dt)
        same_unit = gap = 0.0
        for i, (a, b) in enumerate(pairs, start=1):
            if b is None:
                had_bye.add(a)
                outcomes.append(standings.Outcome(rnd, f"T{i}", a, None))
                continue
            key = frozenset((a, b))
            rematches += key in met
            met.add(key)
            same_unit += units[a] == units[b]
            gap = max(gap, abs(scores[a] - scores[b]))
            win = rng.choice(["NS", "EW"])
            lose = "EW" if win == "NS" else "NS"
            levels = {win: rng.choice(LEVEL_ORDER[6:]), lose: rng.choice(LEVEL_ORDER[:6])}
            outcomes.append(standings.Outcome(rnd, f"T{i}", a, b, levels, win))
        print(f"round {rnd}: paired {len(pairs)} tables in {dt:.2f} s, same-unit matches {int(same_unit)}, "
              f"largest 场分 gap {gap:g}")
    print(f"summary: {args.pairs} pairs, {args.rounds} rounds, max {max(times):.2f} s, "
          f"mean {sum(times) / len(times):.2f} s per round, rematches {rematches}")


if __name__ == "__main__":
    main()
