"""Memory per deal and journal growth of one table over a day-like run (issue 14 item 10).

One simulated table (dealer on a pty, four bots, cards read directly) plays ``--deals`` deals against a local
Mosquitto, match after match, with a desk that acknowledges every result. Python's traced memory (tracemalloc,
after a collection) is taken once ``--warmup`` deals are done and again at the end: the difference per deal is
what a table keeps for ever per deal. The journal's size (SQLite file and WAL) is taken the same way; a day at
a real table is about 80 deals (ten hours of 7-minute deals), so the per-deal figure times 80 is a day.

    python bench/memory_journal.py [--deals 120] [--warmup 20]
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import tempfile
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guandan import clear_caches as clear_engine_caches  # noqa: E402
from table_daemon.adapters.broker import LocalBroker  # noqa: E402
from table_daemon.config import simulated_config  # noqa: E402
from table_daemon.simulate import SimTable  # noqa: E402

DEALS_A_DAY = 80


def journal_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def traced(clear_caches: bool = False) -> int:
    if clear_caches:  # the rules engine's bounded reading cache (lru_cache, 65536 entries) fills over many deals
        clear_engine_caches()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=120)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--match-deals", type=int, default=10, help="deals per match (a new match follows)")
    ap.add_argument("--clear-caches", action="store_true",
                    help="empty the rules engine's bounded reading cache at both measurements (it fills over "
                         "hundreds of deals, then stays at 65536 entries)")
    ap.add_argument("--top", type=int, default=0, help="also print the N source lines that grew most")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="guandan-bench-mem-"))
    journal = tmp / "j.sqlite"
    with LocalBroker() as broker:
        cfg = simulated_config(table="M1", event="mem", broker=broker.url, journal=str(journal))
        cfg.panels = replace(cfg.panels, debounce_ms=0)
        sim = SimTable(cfg, seed=5, speed=0, camera=False)
        sim.matches = 0  # a new match whenever one ends
        done = [0]

        def on_published(topic: str, msg: dict[str, Any]) -> None:  # the desk: acknowledge every result
            if topic.endswith("/results") and sim.app.link is not None:
                sim.app.link.publish(sim.app.cfg.root + "results/ack", json.dumps({"id": msg["id"]}))
            if topic.endswith("/events") and msg.get("type") == "deal_over":
                done[0] += 1
                # gpiozero's mock pins (simulated panels only) keep every change they ever saw: not the table's
                for pin in list(sim.pin_factory.pins.values()):
                    pin.clear_states()

        sim.app.on_published = on_published
        tracemalloc.start(1)
        t0 = time.monotonic()
        sim.start({"method": "deals", "deals": args.match_deals})
        watch = time.monotonic()
        while done[0] < args.warmup:
            time.sleep(0.05)
            sim.watch(time.monotonic())
        mem0, j0, d0 = traced(args.clear_caches), journal_bytes(journal), done[0]
        snap0 = tracemalloc.take_snapshot() if args.top else None
        while done[0] < args.deals:
            time.sleep(0.05)
            if time.monotonic() - watch > 0.2:
                sim.watch(time.monotonic())
                watch = time.monotonic()
        mem1, j1, d1 = traced(args.clear_caches), journal_bytes(journal), done[0]
        if snap0 is not None:
            for stat in tracemalloc.take_snapshot().compare_to(snap0, "lineno")[:args.top]:
                print(f"  {stat.size_diff / 1024:+8.1f} KB  {stat.traceback}")
        wall = time.monotonic() - t0
        refs = len(sim.app.publisher.refs)
        sim.stop()
    shutil.rmtree(tmp, ignore_errors=True)  # the run's journal: its size is taken
    n = d1 - d0
    per_deal_mem = (mem1 - mem0) / n
    per_deal_journal = (j1 - j0) / n
    print(f"{d1} deals in {wall:.0f} s (measured over deals {d0}..{d1}, {args.match_deals} deals a match)")
    what = " (reading cache emptied at both points)" if args.clear_caches else ""
    print(f"memory kept per deal (tracemalloc){what}: {per_deal_mem / 1024:.1f} KB "
          f"({(mem1 - mem0) / 1024:.0f} KB over {n} deals); publisher refs held at the end: {refs}")
    print(f"journal growth per deal: {per_deal_journal / 1024:.1f} KB; a day of {DEALS_A_DAY} deals: "
          f"{per_deal_journal * DEALS_A_DAY / 1e6:.1f} MB (journal now {j1 / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
