"""Restart time of a table after a day of play, and the controller's speed without devices (issue 13).

1. ``--deals`` (200) quick board deals (S and N go out with bombs: about 30 inputs a deal, every one through
   ``TableApp.handle``: journal on disk with an fsync per input, publisher, no broker), one deal left in play,
   then the table restarts from its journal: prints the time the restart took, how many inputs it replayed and
   the journal's size. Target: restart <= 2 s.
2. ``--bot-deals`` (30) whole deals played by four bots through card readings and buttons, through the pure
   controller (``TableController.handle``, no devices, no journal): prints deals/s.

Run: ``nice -n 5 .venv/bin/python bench/restart.py`` (``--no-fsync`` for a journal without fsync).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from table_daemon.controller import CardsSeen, Command, DealerDone  # noqa: E402
from tests.table_daemon.app_harness import AppHarness, play_quick_deals, quick_hands  # noqa: E402
from tests.table_daemon.controller.harness import Harness  # noqa: E402


def journal_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def restart_after(deals: int, durable: bool) -> None:
    path = Path(tempfile.mkdtemp(prefix="guandan-bench-restart-")) / "j.sqlite"
    h = AppHarness(path, auto_deal=False, durable=durable)
    h.app.on_published = None
    started = time.perf_counter()
    play_quick_deals(h, deals)
    played = time.perf_counter() - started
    h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1000}, "boards": [1]}))
    h.send(Command("start_deal", {}))
    h.pending.clear()
    h.send(DealerDone(True, None, quick_hands(), "c0ffee", leader="S", level="2"))
    h.send(CardsSeen("S", [x for x in h.state.hands_json()["S"] if x[1] == "A"]))
    inputs = h.app.journal.input_count()
    size = journal_bytes(path)
    started = time.perf_counter()
    h.restart()
    took = time.perf_counter() - started
    print(f"{deals} deals journaled in {played:.1f} s ({deals / played:.1f} deals/s through the app, "
          f"fsync per input: {durable})")
    print(f"journal after them: {inputs} inputs kept, {size / 1024:.0f} KiB (file + WAL)")
    print(f"restart: {took:.3f} s, {h.app.recovered} inputs replayed   (target <= 2 s)")
    h.app.journal.close()


def controller_speed(deals: int) -> None:
    h = Harness(auto_deal=True, seed=5)
    done = 0
    started, cpu = time.perf_counter(), time.process_time()
    while True:
        if not h.c.match_active:
            done += h.c.deals_done
            if done >= deals:
                break
            h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1000}}))
            h.flush()
        if not h.bot_step():
            raise SystemExit(f"stuck in {h.c.phase}")
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"controller without devices: {done} bot-played deals in {took:.1f} s = {done / took:.1f} deals/s "
          f"({done / cpu:.1f} deals per CPU second)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--bot-deals", type=int, default=30)
    ap.add_argument("--no-fsync", action="store_true", help="journal without an fsync per input")
    args = ap.parse_args()
    restart_after(args.deals, durable=not args.no_fsync)
    controller_speed(args.bot_deals)


if __name__ == "__main__":
    main()
