"""Seconds per deal of the demo table at the default speed (the issue's target: about a minute), with the
simulated dealer, camera and card reader as ``scripts/run`` runs them, from the console lines of
``guandan-table simulate --speed 1`` (deal started -> deal over), and the number of tricks per deal.

    python bench/demo_deal.py [--deals 2] [--speed 1] [--direct]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2)
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--direct", action="store_true", help="without the simulated camera")
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "table_daemon.cli", "simulate", "--deals", str(args.deals), "--speed",
           str(args.speed), "--seed", str(args.seed)] + (["--direct"] if args.direct else [])
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    started: dict[str, float] = {}
    tricks: dict[str, int] = {}
    results: list[tuple[str, float, int]] = []
    current = ""
    assert proc.stderr is not None
    for line in proc.stderr:
        now = time.monotonic()
        if m := re.search(r"deal (\d+) started", line):
            current = m.group(1)
            started[current] = now
            tricks[current] = 0
        elif re.search(r"trick \d+ won", line) and tricks:
            tricks[current] += 1
        elif (m := re.search(r"deal (\d+) over", line)) and m.group(1) in started:
            results.append((m.group(1), now - started[m.group(1)], tricks[m.group(1)]))
    proc.wait()
    for deal, seconds, n in results:
        print(f"deal {deal}: {seconds:.1f} s, {n} tricks (speed {args.speed:g}"
              f"{', direct' if args.direct else ', simulated camera'})")
    if results:
        mean = sum(s for _, s, _ in results) / len(results)
        print(f"mean seconds per deal: {mean:.1f} (target about 60 at speed 1)")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
