"""How many viewers one display server holds: concurrent Server-Sent Events clients and the delay from a play
published by a table to the moment a viewer reads it.

The display server runs as in production, as its own process (``guandan-table desk display``) on a local
Mosquitto. Tables are stood in for by one MQTT client that publishes, per table, a ``play`` event followed by
the table's public ``state`` (as a table daemon does after every play) at ``--rate`` plays per second per
table. ``--viewers`` clients hold ``/events?table=...`` streams (the table page), spread over the tables, and
note for every play the time between its publication and its arrival. Prints viewers connected and still
connected at the end, messages received, and the median / p99 / max delay (target: 500 viewers, p99 <= 1 s).

    nice -n 5 python bench/display_fanout.py [--viewers 500] [--tables 4] [--rate 1] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from table_daemon.adapters.broker import LocalBroker  # noqa: E402

MARK = b'"bench_t": '


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def state(table: str, seq: int, left: int) -> dict[str, object]:
    """A public state of the size a real table publishes (seats, levels, trick, timer, teams)."""
    seats = {s: {"team": "NS" if s in "NS" else "EW", "cards_left": left, "place": None, "reported": False,
                 "report_due": False} for s in "SENW"}
    teams = {"NS": {"name": "红旗队 Red Flag", "players": {"N": "张伟", "S": "李娜"}},
             "EW": {"name": "长江队 Yangtze", "players": {"E": "王芳", "W": "刘洋"}}}
    return {"schema": 1, "table": table, "event": "bench", "epoch": "b1", "seq": seq, "type": "state",
            "phase": "playing", "profile": "national", "match": 1, "match_active": True, "teams": teams,
            "levels": {"NS": "5", "EW": "3"}, "deal": 3, "level": "5", "played": "NS", "seats": seats,
            "turn": "E", "timer": {"since": time.time(), "deadline": time.time() + 30},
            "trick": [{"seat": "W", "cards": ["C7", "D7"], "reading": {"type": "pair", "rank": "7", "size": 2}},
                      {"seat": "S", "cards": ["H9", "S9"], "reading": {"type": "pair", "rank": "9", "size": 2}}],
            "trick_passes": 0, "last_result": None, "match_end": {"method": "deals", "deals": 8}}


class Viewer:
    def __init__(self) -> None:
        self.delays: list[float] = []
        self.open = False
        self.ended = False


async def watch(port: int, table: str, viewer: Viewer, stop: asyncio.Event) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    except OSError:
        return
    writer.write(f"GET /events?table={table} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    try:
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                break
            if line.startswith(b"event: snapshot"):
                viewer.open = True
            i = line.find(MARK)
            if i >= 0:
                end = line.find(b",", i)
                stamp = line[i + len(MARK):end if end > 0 else None].strip().rstrip(b"}")
                viewer.delays.append(time.time() - float(stamp))
    except (OSError, ValueError, asyncio.LimitOverrunError):
        pass
    finally:
        viewer.ended = not stop.is_set()
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def run_viewers(port: int, tables: list[str], n: int, seconds: float, started: threading.Event,
                      publishing: threading.Event) -> list[Viewer]:
    stop = asyncio.Event()
    viewers = [Viewer() for _ in range(n)]
    tasks = []
    for i, v in enumerate(viewers):  # connect in small batches: the server's accept backlog is short
        tasks.append(asyncio.create_task(watch(port, tables[i % len(tables)], v, stop)))
        if i % 25 == 24:
            await asyncio.sleep(0.05)
    deadline = time.monotonic() + 60
    while sum(v.open for v in viewers) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    started.set()
    await asyncio.get_running_loop().run_in_executor(None, publishing.wait)
    await asyncio.sleep(seconds + 2.0)  # the last plays arrive
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return viewers


def publish(url: str, tables: list[str], rate: float, seconds: float, started: threading.Event,
            publishing: threading.Event) -> int:
    host, _, port = url.removeprefix("mqtt://").partition(":")
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-tables")
    client.connect(host, int(port))
    client.loop_start()
    seq = {t: 1 for t in tables}
    for t in tables:
        client.publish(f"guandan/v1/bench/{t}/state", json.dumps(state(t, 1, 27)), qos=1, retain=True).wait_for_publish()
    started.wait(90)
    publishing.set()
    sent = 0
    step = 1.0 / (rate * len(tables))
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        for t in tables:
            seq[t] += 1
            play = {"schema": 1, "table": t, "event": "bench", "epoch": "b1", "seq": seq[t], "type": "play",
                    "deal": 3, "seat": "S", "cards": ["H9", "S9"], "reading": {"type": "pair", "rank": "9", "size": 2},
                    "cards_left": 20, "bench_t": time.time()}
            client.publish(f"guandan/v1/bench/{t}/events", json.dumps(play), qos=1)
            seq[t] += 1
            client.publish(f"guandan/v1/bench/{t}/state", json.dumps(state(t, seq[t], 20)), qos=1, retain=True)
            sent += 1
            time.sleep(step)
    client.loop_stop()
    client.disconnect()
    return sent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--viewers", type=int, default=500)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--rate", type=float, default=1.0, help="plays per second per table")
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.viewers + 256)), hard))
    tables = [f"B{i + 1:02d}" for i in range(args.tables)]
    with LocalBroker() as broker:
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "table_daemon.cli", "desk", "display", "--broker", broker.url,
                                   "--event", "bench", "--http", str(port)], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live", timeout=2).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        print("display server did not start", file=sys.stderr)
                        return 1
                    time.sleep(0.2)
            started, publishing = threading.Event(), threading.Event()
            sent_box: list[int] = []
            pub = threading.Thread(target=lambda: sent_box.append(
                publish(broker.url, tables, args.rate, args.seconds, started, publishing)), daemon=True)
            pub.start()
            viewers = asyncio.run(run_viewers(port, tables, args.viewers, args.seconds, started, publishing))
            pub.join(10)
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(10)
    sent = sent_box[0] if sent_box else 0
    delays = sorted(d for v in viewers for d in v.delays)
    connected = sum(v.open for v in viewers)
    held = sum(v.open and not v.ended for v in viewers)
    expected = sum(sent // len(tables) for v in viewers if v.open)
    print(f"viewers: {args.viewers} asked, {connected} connected, {held} still connected at the end")
    print(f"plays: {sent} published ({args.tables} tables x {args.rate:g}/s for {args.seconds:g} s, each followed "
          f"by its state); received by viewers: {len(delays)} of about {expected}")
    if delays:
        p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
        print(f"delay play -> viewer: median {statistics.median(delays) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
              f"max {delays[-1] * 1000:.0f} ms (target p99 <= 1000 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
