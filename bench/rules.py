"""Rules engine speed: classify, legal leads and legal replies (issue 2 targets).

Prints, for random 27-card hands holding 0, 1 and 2 wild cards:
- median µs per ``classify`` of random real plays of up to 10 cards (target ≤ 5 µs),
- median ms to list every legal lead of the hand with its cards (target ≤ 0.5 ms),
- median ms to list every legal reply (with cards) to a random play (target ≤ 0.2 ms).

Usage: python bench/rules.py [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guandan import Card, classify, full_pack, legal_plays, wild_card  # noqa: E402


def deal_hand(rng: random.Random, level: int, wilds: int) -> list[Card]:
    wild = wild_card(level)
    rest = [c for c in full_pack() if c is not wild]
    hand = rng.sample(rest, 27 - wilds) + [wild] * wilds
    rng.shuffle(hand)
    return hand


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds per call over ``repeat`` calls, each timed alone."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{'wilds':>5} {'classify µs':>12} {'5-10 cards':>10} {'plays/hand':>10} {'lead ms':>8} {'reply ms':>9} {'replies':>8}")
    for wilds in (0, 1, 2):
        classify_us: list[float] = []
        classify_big_us: list[float] = []
        lead_ms: list[float] = []
        reply_ms: list[float] = []
        n_leads: list[int] = []
        n_replies: list[int] = []
        for _ in range(args.hands):
            level = rng.randint(2, 14)
            hand = deal_hand(rng, level, wilds)
            lead_ms.append(timed(lambda: list(legal_plays(hand, level)), 3) * 1e3)  # noqa: B023
            plays = list(legal_plays(hand, level))
            n_leads.append(len(plays))
            for play in rng.sample(plays, min(10, len(plays))):
                cards = list(play.cards)
                us = timed(lambda: classify(cards, level), 5) * 1e6  # noqa: B023
                classify_us.append(us)
                if len(cards) >= 5:
                    classify_big_us.append(us)
            over = rng.choice(plays).reading
            other = deal_hand(rng, level, wilds)
            reply_ms.append(timed(lambda: list(legal_plays(other, level, over)), 3) * 1e3)  # noqa: B023
            n_replies.append(len(list(legal_plays(other, level, over))))
        print(
            f"{wilds:>5} {statistics.median(classify_us):>12.2f} {statistics.median(classify_big_us):>10.2f} "
            f"{statistics.median(n_leads):>10.0f} "
            f"{statistics.median(lead_ms):>8.3f} {statistics.median(reply_ms):>9.3f} {statistics.median(n_replies):>8.0f}"
        )


if __name__ == "__main__":
    main()
