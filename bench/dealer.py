"""Dealer link benchmark: many simulated deals over a pty with a noisy cable; prints the figures as JSON.

    nice -n 10 .venv/bin/python bench/dealer.py [--deals 1000] [--query "corrupt=0.01&drop=0.02"]
        [--realistic]

Figures: wrong deals (called good but not what the plan said, in the reports or physically in the bins;
target 0), fouled deals and why, retransmissions per deal, command round trip (median, p99: from submit to
reply, retransmissions included; and the clean RTT samples the RTO estimator used), deal duration.
``--realistic`` also times one deal at the default (realistic) speed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import DealerClient, DealOutcome, DealPlan, new_deal  # noqa: E402
from hardware.dealers import open_dealer  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def wrong(plan: DealPlan, outcome: DealOutcome, truth: dict[str, list[str]]) -> bool:
    for seat in "SENW":
        planned = sorted(c.code for c in plan.hands[seat])
        seen = [c for c in outcome.hands[seat] if c is not None]  # None: a card the dealer could not name
        if len(seen) != len(outcome.hands[seat]) or sorted(seen) != planned or sorted(truth[seat]) != planned:
            return True
    return False


def timed_commands(client: DealerClient) -> list[float]:
    """Wrap ``client.command`` to record the time from submit to reply of every command."""
    times: list[float] = []
    inner = client.command

    def command(*args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            times.append(time.perf_counter() - start)

    client.command = command  # type: ignore[method-assign]
    return times


def run(deals: int, query: str, seed: int) -> dict[str, object]:
    client = open_dealer(f"sim://?speed=0&seed={seed}&{query}")
    times = timed_commands(client)
    fouls: Counter[str] = Counter()
    faults: Counter[str] = Counter()
    wrong_deals = good = 0
    retransmits: list[int] = []
    durations: list[float] = []
    started = time.monotonic()
    try:
        client.identify()
        for board in range(1, deals + 1):
            plan = new_deal(board)
            outcome = client.deal(plan, timeout=120)
            truth = client.sim.truth()
            retransmits.append(outcome.retransmits)
            durations.append(outcome.seconds)
            faults.update(f["fault"] for f in outcome.faults)
            if outcome.ok:
                good += 1
                wrong_deals += wrong(plan, outcome, truth)
            else:
                fouls[(outcome.fouled or "?").split(":")[0]] += 1
        sim = client.sim.stats()
        rtts = list(client.rtts)
    finally:
        client.close()
    return {
        "deals": deals,
        "url": f"sim://?speed=0&seed={seed}&{query}",
        "good": good,
        "wrong": wrong_deals,
        "fouled": sum(fouls.values()),
        "foul_reasons": dict(fouls.most_common()),
        "dealer_faults": dict(faults.most_common()),
        "retransmits_per_deal": {
            "mean": round(statistics.fmean(retransmits), 2),
            "median": statistics.median(retransmits),
            "max": max(retransmits),
        },
        "command_round_trip_ms": {
            "commands": len(times),
            "median": round(statistics.median(times) * 1000, 3),
            "p99": round(percentile(times, 0.99) * 1000, 3),
        },
        "clean_rtt_samples_ms": {
            "samples": len(rtts),
            "median": round(statistics.median(rtts) * 1000, 3) if rtts else None,
            "p99": round(percentile(rtts, 0.99) * 1000, 3) if rtts else None,
        },
        "deal_seconds": {"median": round(statistics.median(durations), 3), "p99": round(percentile(durations, 0.99), 3)},
        "wire": {k: sim[k] for k in ("frames_lost", "bytes_corrupted", "device_retransmits", "duplicate_commands")},
        "wall_seconds": round(time.monotonic() - started, 1),
    }


def realistic() -> dict[str, object]:
    client = open_dealer("sim://?seed=1")
    try:
        client.identify()
        outcome = client.deal(new_deal(1), timeout=120)
        return {"realistic_deal_seconds": round(outcome.seconds, 2), "ok": outcome.ok}
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--query", default="corrupt=0.01&drop=0.02", help="sim:// fault options")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--realistic", action="store_true", help="also time one deal at realistic speed")
    args = parser.parse_args()
    print(json.dumps(run(args.deals, args.query, args.seed), ensure_ascii=False), flush=True)
    if args.realistic:
        print(json.dumps(realistic()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
