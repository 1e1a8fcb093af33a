"""How much a hall screen's overview spends drawing its table tiles, in a real headless Chromium whose CPU is
slowed as a Pi-class screen's would be.

Feeds ``--tables`` tables through the display hub and its web server, each changing its state ``--rate`` times a
second (a play, a turn), staggered across the tables, for ``--seconds``; counts the tiles the page drew
(``drawTile`` calls) and the milliseconds it spent in them, per second. Since ddbb812 a tile is drawn only when its
table changed; before, every tile was drawn again at each redraw (up to five a second).

    python bench/overview.py [--tables 24] [--rate 1] [--seconds 20] [--throttle 4]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table_daemon.display.hub import Hub  # noqa: E402
from table_daemon.display.server import WebServer  # noqa: E402
from tests.table_daemon.display.live_pages import seats, table_state  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
COUNT_DRAWS = """() => {
  const original = window.drawTile;
  window.__tiles = { n: 0, ms: 0 };
  window.drawTile = function (...args) {
    const t = performance.now();
    try { return original.apply(this, args); } finally { window.__tiles.n += 1; window.__tiles.ms += performance.now() - t; }
  };
}"""


def feed(hub: Hub, names: list[str], rate: float, seconds: float, stop: threading.Event) -> None:
    """Each table changes ``rate`` times a second, staggered: its cards left count down, its turn moves on."""
    seq = {n: 100 for n in names}
    step = 1.0 / (rate * len(names))
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end and not stop.is_set():
        name = names[i % len(names)]
        seq[name] += 1
        left = 27 - (seq[name] % 20)
        hub.feed(name, "state", {**table_state(seq[name], seats=seats(S=left, E=left, N=left, W=left),
                                               turn="SENW"[seq[name] % 4]), "table": name})
        i += 1
        time.sleep(step)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=24)
    ap.add_argument("--rate", type=float, default=1.0, help="state changes per table per second")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--throttle", type=float, default=4.0, help="CPU slow-down of the page (1: none)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    hub = Hub("ev")
    names = [f"T{i:02d}" for i in range(1, args.tables + 1)]
    for n in names:
        hub.feed(n, "state", {**table_state(100), "table": n})
    web = WebServer(hub, 0)
    web.start()
    stop = threading.Event()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            cdp: Any = page.context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.throttle})
            page.goto(f"{web.url}/display/")
            page.wait_for_selector(f"#table-{names[-1]} .tile-head", timeout=30_000)
            page.evaluate(COUNT_DRAWS)
            feeder = threading.Thread(target=feed, args=(hub, names, args.rate, args.seconds, stop), daemon=True)
            t0 = time.monotonic()
            feeder.start()
            feeder.join()
            took = time.monotonic() - t0
            got = page.evaluate("window.__tiles")
            browser.close()
    finally:
        stop.set()
        web.stop()
    changes = args.tables * args.rate * took
    print(f"{args.tables} tables, {args.rate:g} change/s each, {took:.1f} s, CPU throttle {args.throttle:g}x: "
          f"{got['n'] / took:.1f} tiles drawn/s ({got['n'] / max(changes, 1):.2f} per table change), "
          f"{got['ms'] / took:.1f} ms/s drawing tiles ({got['ms'] / max(got['n'], 1):.2f} ms a tile)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
