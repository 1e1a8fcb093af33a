"""``guandan-table simulate``'s run: start the simulated tables (:class:`~table_daemon.sim_table.SimTable`),
wait for the broker, play until done, a time limit or an interrupt, then wait for results to reach the broker,
report, and keep the journals only while they hold what was never sent.

Kept apart from the table (``sim_table``) and its players (``sim_seats``): this is the process's lifecycle,
its broker and its journal directory.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from guandan import format_team_level

from .adapters.journal import JournalError
from .adapters.mqtt_connection import redacted
from .cli_support import UsageError
from .config import simulated_config
from .sim_progress import progress_printer, topic_filter
from .sim_table import SimTable


def run_simulation(*, broker: str | None, table: str, event: str, profile: str, deals: int | None,
                   match: bool, seed: int | None, speed: float, tables: int, journal_dir: str | None = None,
                   timeout: float | None = None, quiet: bool = False, camera: bool = True, matches: int = 1,
                   await_desk: bool = False, broker_timeout: float = 10.0, deck: str | None = None,
                   reader: str = "", ca_file: str = "", deal_file: str = "") -> int:
    """Run ``tables`` simulated tables to the end of their match (or ``deals`` deals), ``matches`` times (0:
    until ``timeout``); with ``await_desk``, play the matches the event's desk starts until ``timeout`` or an
    interrupt. The simulated cameras draw ``deck`` (default: held-out designs, by seed) and are read by
    ``reader`` (default: the learned one). Returns the exit status: 1 when a broker could not be reached within
    ``broker_timeout`` seconds (one-shot runs), when results were still unsent at the end, or when a dealer kept
    failing. With ``deal_file`` the dealers deal its boards (duplicate play): a match of the tables' own plays
    its boards in order (the first ``deals`` of them), one deal each; at an event the desk names the boards."""
    from hardware.cameras.simulated import camera_url

    from .adapters.broker import LocalBroker

    local: LocalBroker | None = None
    if broker is None:
        local = LocalBroker().start()
        broker = local.url
        print(f"MQTT broker (嵌入式代理): {broker}", file=sys.stderr, flush=True)
    jdir = Path(journal_dir) if journal_dir else Path(tempfile.mkdtemp(prefix="guandan-sim-"))
    jdir.mkdir(parents=True, exist_ok=True)
    match_end: dict[str, Any] = {"method": "deals", "deals": deals or 1} if not match else {}
    boards: list[int] = []
    if deal_file:
        from firmware_bridge.deal import check_deal_file

        boards = sorted(check_deal_file(deal_file))[:deals or None]
        match_end = {"method": "deals", "deals": len(boards)}
    sims: list[SimTable] = []
    try:
        digits = len(table) - len(table.rstrip("0123456789"))
        base, first = (table[:-digits], int(table[-digits:])) if digits else (table, 1)
        if seed is None:  # the table's number: T02 on its own deals as T02 of a run of several tables does
            seed = first
        for i in range(tables):
            tid = table if tables == 1 else f"{base}{first + i:0{max(2, digits)}d}"  # T001 numbers on as T002
            # a hall's broker with per-table accounts: mqtt://{table}:PASSWORD@HOST:PORT logs each in as itself
            cfg = simulated_config(table=tid, event=event, profile=profile, broker=broker.replace("{table}", tid),
                                   journal=str(jdir / f"{tid}.sqlite"))
            if ca_file:  # a hall's TLS broker (mqtts://) signed by the event's own CA
                cfg.mqtt = replace(cfg.mqtt, ca_file=ca_file)
            cfg.camera.source = camera_url(deck)
            cfg.camera.reader = reader
            cfg.dealer.deal_file = deal_file
            try:
                sim = SimTable(cfg, seed=seed + i, speed=speed, camera=camera)
            except JournalError as exc:  # a damaged journal in --journal-dir: said in one line, as run says it
                raise UsageError(f"--journal-dir: {exc}") from None
            sim.boards = list(boards)
            sim.matches = matches
            sim.await_desk = await_desk
            if not quiet:
                sim.app.on_published = topic_filter(progress_printer(tid))
            sims.append(sim)
        for sim in sims:
            sim.connect()
        print(f"模拟 {tables} 张牌桌 | simulating {tables} table(s), event {event}, profile {profile}",
              file=sys.stderr, flush=True)
        # play starts once the broker is reached: a table flat out from the first second keeps paho's thread
        # from the interpreter, and a run that cannot reach its broker has then truly published nothing
        if not _await_broker(sims, broker, broker_timeout, one_shot=not await_desk):
            return 1
        for sim in sims:
            sim.begin(match_end)
        if await_desk:
            for s in sims:  # a table restarted from its journal mid-match plays that match on first
                c = s.app.controller
                if c.match_active:
                    print(f"[{s.cfg.table.id}] 继续日志中的第{c.match_no}场 | going on with match {c.match_no} from "
                          f"its journal", file=sys.stderr, flush=True)
            print("等待记分台开赛 | waiting for the desk to start matches (cmd/start_match)", file=sys.stderr,
                  flush=True)
        deadline = time.monotonic() + timeout if timeout else None
        try:
            while not all(s.done for s in sims):
                if deadline is not None and time.monotonic() > deadline:
                    print("时间到 | time limit reached", file=sys.stderr, flush=True)
                    break
                for s in sims:
                    s.watch(time.monotonic())
                time.sleep(0.05)
        except KeyboardInterrupt:  # an interrupt ends the run as --duration does: results are flushed first
            print("中断 | interrupted", file=sys.stderr, flush=True)
        for s in sims:
            s.rest()
        # for the broker to take what is still queued, and, at an event, for the desk to acknowledge the results
        flush_deadline = time.monotonic() + broker_timeout
        while time.monotonic() < flush_deadline and (_unsent(sims) or (await_desk and _unacked(sims))):
            time.sleep(0.05)
        unsent = _unsent(sims)
        unacked = _unacked(sims) if await_desk else 0
        for s in sims:
            c = s.app.controller
            lv = {t: format_team_level(v).replace("T", "10") for t, v in c.levels.items()}
            # the table's own numbers (a table restarted from its journal goes on with them)
            print(f"[{s.cfg.table.id}] 第{c.match_no}场 共{c.deals_done}副，南北 {lv['NS']} 东西 {lv['EW']} | match "
                  f"{c.match_no}: {c.deals_done} deals played, levels NS {lv['NS']} EW {lv['EW']}"
                  + (f", {s.matches_played + 1} matches" if matches != 1 else ""), file=sys.stderr, flush=True)
        if unsent:
            print(f"未发出 {unsent} 条消息（含成绩），保存在日志 {jdir} | {unsent} messages (results among them) were "
                  f"never taken by the broker {redacted(broker)}; they wait in the journals in {jdir}", file=sys.stderr,
                  flush=True)
            return 1
        if unacked:
            again = f"--journal-dir {jdir}" if journal_dir is None else "the same --journal-dir"
            print(f"记分台未确认 {unacked} 条成绩，保存在日志 {jdir}；再次运行（{again}）会重发 | {unacked} results were not "
                  f"acknowledged by the desk; they wait in the journals in {jdir} and are sent again by a run with "
                  f"{again}", file=sys.stderr, flush=True)
            return 1
        return 1 if any(s.gave_up for s in sims) else 0
    finally:
        # a run's own journals (no --journal-dir) are kept only while they hold what the broker never took or,
        # at an event, results the desk has not acknowledged
        keep = journal_dir is not None or _unsent_or_unknown(sims, await_desk)
        _stop_all(sims)
        if local is not None:
            local.close()
        if not keep:
            shutil.rmtree(jdir, ignore_errors=True)


def _stop_all(sims: list[SimTable]) -> None:
    """Stop the tables side by side: each takes about a second (its seat buttons' hold threads end at their
    next tick), so fifty one after another took most of a minute."""
    if len(sims) <= 1:
        for s in sims:
            s.stop()
        return
    with ThreadPoolExecutor(max_workers=min(16, len(sims)), thread_name_prefix="stop") as pool:
        for done in [pool.submit(s.stop) for s in sims]:
            done.result()


def _unsent(sims: list[SimTable]) -> int:
    return sum(s.app.journal.backlog() for s in sims)


def _unacked(sims: list[SimTable]) -> int:
    """Results the desk has not acknowledged yet (mqtt-api.md, Delivery: kept until it does)."""
    return sum(len(s.app.journal.pending_results()) for s in sims)


def _unsent_or_unknown(sims: list[SimTable], await_desk: bool = False) -> bool:
    """Whether any table's journal still holds messages for the broker (or, at an event, results the desk has
    not acknowledged), or cannot say (kept, then)."""
    try:
        return _unsent(sims) > 0 or (await_desk and _unacked(sims) > 0)
    except Exception:  # noqa: BLE001 - a journal that cannot answer is kept, whatever the cause
        return True


def _await_broker(sims: list[SimTable], broker: str, timeout: float, *, one_shot: bool) -> bool:
    """Wait for every table to reach the broker. A one-shot run gives up after ``timeout`` seconds (False);
    an ``--await-desk`` run says it is waiting and goes on (its links keep retrying loudly)."""
    deadline = time.monotonic() + timeout
    for s in sims:
        link = s.app.link
        if link is None or link.connected.wait(max(0.0, deadline - time.monotonic())):
            continue
        if one_shot:
            print(f"错误：{timeout:g} 秒内无法连接 MQTT 代理 {redacted(broker)}，停止 | error: cannot reach the MQTT "
                  f"broker {redacted(broker)} within {timeout:g} s; stopping, nothing was published (is it running? "
                  f"--broker-timeout S waits longer)", file=sys.stderr, flush=True)
            return False
        print(f"仍在等待 MQTT 代理 {redacted(broker)} | still waiting for the MQTT broker {redacted(broker)} (retrying)", file=sys.stderr,
              flush=True)
        return True
    sys.stderr.write(f"已连接 MQTT 代理 | connected to the MQTT broker {redacted(broker)}\n")  # one write: no line
    sys.stderr.flush()  # of the desk's thread runs into it
    return True
