"""The simulated table (``guandan-table simulate``): whole tables on one machine, published over MQTT exactly
as real tables publish.

Each table is the real daemon (:class:`~table_daemon.app.TableApp`: controller, journal, MQTT link) with
simulated devices: the dealer (the simulated dealer over a pty when ``firmware_bridge``'s client is
installed, else a seeded dealer in process), the play zones (the simulated camera through the real card reader
when ``vision`` provides them, else read directly), seat panels on gpiozero's ``MockFactory`` pins, and four
bots (:class:`~guandan.bot.Bot`) that act through those devices: they lay cards in their zone and
press their panel's buttons, like players.
"""

from __future__ import annotations

import logging
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from guandan import Bot, format_team_level
from guandan import actions as act
from guandan import deal as engine
from hardware.panels import PanelPins, TablePanels, make_pin_factory

from .adapters.devices import DirectZones, SerialDealer
from .adapters.mqtt_connection import redacted
from .app import TableApp
from .config import TableConfig, simulated_config
from .controller import CardsSeen, Command, TurnChanged

log = logging.getLogger(__name__)
MAX_RELAYS = 12  # a seat lays a misread set again at most this often
RELAY_CODES = frozenset({"misread", "illegal_play", "not_held", "wrong_tribute", "wrong_return"})


class SimSeats:
    """Four bots playing one table through its devices (zones and mock buttons)."""

    def __init__(self, app: TableApp, zones: Any, panels: TablePanels, pin_factory: Any, seed: int,
                 speed: float) -> None:
        self.app = app
        self.zones = zones
        self.panels = panels
        self.pins = pin_factory
        self.speed = speed
        self.rng = random.Random(seed)
        self.bots = {s: Bot(seed * 4 + i) for i, s in enumerate("SENW")}
        self.intended: dict[str, Any] = {}
        self.laid: set[str] = set()
        self.immediate_clear = not hasattr(zones, "turn_changed")  # direct zones: read at once
        self.last_laid: dict[str, list[str]] = {}
        self.retries: dict[str, int] = {}
        self.token: dict[str, int] = {}
        #: the players have stood up (the run's time is up): they lay and press nothing more
        self.resting = False
        self.holds = 0  # how often the table has asked nobody (a pause, a deal's end): a move asked before is off
        app.turn_listeners.append(self.on_turn)
        app.alert_listeners.append(self.on_alert)

    def on_alert(self, alert: dict[str, Any]) -> None:
        """A laid set the table refused because the reader got it wrong: take it up and lay it again, as a
        player does when the referee asks (a few times at most)."""
        seat = alert.get("seat")
        if alert.get("code") not in RELAY_CODES or seat not in self.last_laid or self.immediate_clear \
                or self.resting:
            return
        self.relay(seat)

    def relay(self, seat: str) -> None:
        tries = self.retries.get(seat, 0) + 1
        self.retries[seat] = tries
        cards = self.last_laid[seat]
        if tries > MAX_RELAYS:  # the referee reads the cards and enters them by hand
            self.app.feed(CardsSeen(seat, cards, 1.0, 0))
            return
        self.zones.clear(seat)
        timer = threading.Timer(0.3 if self.speed <= 0 else 1.0 / self.speed, self._lay, args=(seat, cards))
        timer.daemon = True
        timer.start()

    def _lay(self, seat: str, cards: list[str]) -> None:
        """Lay cards in the camera's view and check later that the table took them (a set the reader
        cannot read at all raises no alert: only the wait shows it)."""
        if self.resting:
            return
        self.token[seat] = token = self.token.get(seat, 0) + 1
        self.zones.lay(seat, cards)
        timer = threading.Timer(3.0 if self.speed <= 0 else max(3.0, 3.0 / self.speed), self._check,
                                args=(seat, token))
        timer.daemon = True
        timer.start()

    def _check(self, seat: str, token: int) -> None:
        if self.token.get(seat) != token:
            return
        d = self.app.controller.deal
        st = d.state if d is not None else None
        if d is None or st is None or d.pending_declare is not None or d.tribute_choice is not None:
            return
        gives = [x for x in st.pending_gives() if x not in d.tribute_held]  # a held tribute card was read
        waiting = [st.to_move] if st.to_move else gives or [x for x, _ in st.pending_returns()]
        if seat in waiting and seat in self.laid:
            self.relay(seat)

    def on_turn(self, ef: TurnChanged) -> None:
        # the turn moved on: what the other seats laid was accepted, take it up (tribute and return cards are
        # laid by several seats at once: they stay until play begins)
        if not self.immediate_clear and ef.asked not in ("tribute", "return", "choose_tribute"):
            for seat in sorted(self.laid - {ef.seat}):
                self.zones.clear(seat)
                self.laid.discard(seat)
        if ef.asked == "wait":
            self.holds += 1  # the table asks nobody now (a pause, a deal's end): what a seat was about to do is off
        if ef.seat is None or ef.state is None or ef.asked == "wait" or self.resting:
            return
        if self.speed <= 0:
            self.act(ef)
            return
        delay = (0.2 + self.rng.random() * 0.4) / self.speed  # 0.2-0.6 s at speed 1: a deal takes about a minute
        timer = threading.Timer(delay, self.act, args=(ef, self.holds))
        timer.daemon = True
        timer.start()

    def press(self, seat: str, button: str) -> None:
        pin_no = getattr(self.panels_pins[seat], f"{button}_button")
        pin = self.pins.pin(pin_no)
        pin.drive_low()
        pin.drive_high()

    panels_pins: dict[str, PanelPins] = {}

    def act(self, ef: TurnChanged, holds: int | None = None) -> None:
        """The seat's move when the table asked it (``holds``: the table's holds when it was asked; a hold since,
        such as a referee's pause, means the player never moves: a paused table asks again on resume)."""
        seat, st = ef.seat, ef.state
        assert seat is not None
        if self.resting or (holds is not None and holds != self.holds):
            return
        try:
            if ef.asked == "declare":
                self._declare(seat)
                return
            if ef.asked == "choose_tribute":
                self._choose_tribute(seat)
                return
            if ef.asked == "report":
                if seat in st.report_due:
                    self.press(seat, "confirm")
                return
            action = self.bots[seat].choose(st, seat)
            if action.kind == act.REPORT:
                self.press(seat, "confirm")
                st, _ = engine.apply(st, action, st.turn_since)
                action = self.bots[seat].choose(st, seat)
            if action.kind == act.PASS:
                self.press(seat, "pass")
            elif action.kind in (act.PLAY, act.GIVE, act.RETURN):
                if action.kind == act.PLAY:
                    self.intended[seat] = action.reading
                if seat in self.laid:
                    self.zones.clear(seat)
                self.last_laid[seat] = [c.code for c in action.cards]
                self.retries[seat] = 0
                if self.immediate_clear:
                    self.zones.lay(seat, self.last_laid[seat])
                    self.zones.clear(seat)
                else:
                    self.laid.add(seat)
                    self._lay(seat, self.last_laid[seat])
        except Exception:
            log.exception("simulated seat %s failed", seat)

    def _declare(self, seat: str) -> None:
        d = self.app.controller.deal
        pending = d.pending_declare if d is not None else None
        if pending is None:
            return
        wanted = self.intended.get(seat)
        first = pending["candidates"][0]
        if wanted is None or wanted.to_json() == first:
            self.press(seat, "confirm")
        else:
            self.app.feed(Command("declare", {"seat": seat, "reading": wanted.to_json()}))


    def _choose_tribute(self, seat: str) -> None:
        """上游 picks one of two equal tribute cards (``winner_chooses``), at random from the seed: by its pass
        button (the default giver's card), its confirm button (the other card) or the ``declare`` command."""
        d = self.app.controller.deal
        choice = d.tribute_choice if d is not None else None
        if choice is None or choice["seat"] != seat:
            return
        pick = self.rng.random()
        if pick < 0.4:
            self.press(seat, "pass")
        elif pick < 0.8:
            self.press(seat, "confirm")
        else:
            giver = self.rng.choice([choice["default"], choice["other"]])
            self.app.feed(Command("declare", {"seat": seat, "tribute_from": giver}))


class SimTable:
    """One simulated table: the daemon plus simulated devices and bots."""

    def __init__(self, cfg: TableConfig, *, seed: int, speed: float, camera: bool = True) -> None:
        self.cfg = cfg
        factory = make_pin_factory("mock")
        self.pin_factory = factory
        pins = {s: PanelPins(**vars(p)) for s, p in cfg.panels.seats.items()}
        # simulated presses never bounce, and fast bots press faster than any debounce window
        self.panels = TablePanels(pins, status_light=cfg.panels.status_light, buzzer=cfg.panels.buzzer,
                                  pin_factory=factory, debounce_ms=0)
        self.dealer = make_sim_dealer(cfg, seed, speed)
        self.zones: Any = DirectZones()
        if camera:
            from hardware.cameras.simulated import deck_in_url

            from .adapters.camera import CameraZones

            self.zones = CameraZones.simulated_table(seed, stable_frames=cfg.camera.stable_frames,
                                                     unsure_wait_frames=cfg.camera.unsure_wait_frames,
                                                     min_confidence=cfg.camera.min_confidence,
                                                     deck=deck_in_url(cfg.camera.source), reader=cfg.camera.reader,
                                                     runtime=cfg.camera.runtime)
        self.app = TableApp(cfg, dealer=self.dealer, camera=self.zones, panels=self.panels)
        self.seats = SimSeats(self.app, self.zones, self.panels, factory, seed, speed)
        self.seats.panels_pins = pins

    #: matches to play one after another (0: a new one whenever one ends, until stopped), as a desk starts the
    #: next round's match at a table
    matches = 1
    matches_played = 0
    #: ``--await-desk``: start no match of its own; play what the desk starts (cmd/start_match), until stopped
    await_desk = False

    def start(self, match_end: dict[str, Any]) -> None:
        """Connect and play at once (``connect`` then ``begin``)."""
        self.connect()
        self.begin(match_end)

    def connect(self) -> None:
        """Start the table: its devices, and its link to the broker (connecting in the background)."""
        self.app.start()

    def begin(self, match_end: dict[str, Any]) -> None:
        """Start a match of its own (unless the desk starts them, or the journal holds one going on)."""
        self._match_end = match_end
        if self.await_desk:
            return
        if not self.app.controller.match_active and self.app.controller.phase != "match_over":
            self._start_match()

    def _start_match(self) -> None:
        # the configured profile (a shipped name, or a .toml file the app has read already)
        self.app.command("start_match", {"match_end": self._match_end, "profile": self.app.controller.profile.name})

    @property
    def done(self) -> bool:
        if self.await_desk:
            return self.gave_up
        over = self.app.controller.phase == "match_over" and 0 < self.matches <= self.matches_played + 1
        return over or self.gave_up

    gave_up = False
    _next_asked = False
    _match_end: dict[str, Any] = {}
    _idle_since: float | None = None
    _restarts = 0

    def watch(self, now: float) -> None:
        """A deal voided by a dealer fault leaves the table idle: deal again, up to 5 times in a row. A match
        over with more to play: the next one starts."""
        c = self.app.controller
        if self.await_desk:
            pass  # the desk starts the next match
        elif c.phase == "match_over" and not self.done and not self._next_asked:
            self._next_asked = True
            self.matches_played += 1
            self._start_match()
        elif c.phase != "match_over":
            self._next_asked = False
        if c.match_active and c.phase == "idle":
            if self._idle_since is None:
                self._idle_since = now
            elif now - self._idle_since > 1.0:
                self._idle_since = None
                self._restarts += 1
                if self._restarts > 5:
                    self.gave_up = True
                    print(f"[{self.cfg.table.id}] 发牌机反复故障，停止 | dealer keeps failing, giving up",
                          file=sys.stderr, flush=True)
                else:
                    self.app.command("start_deal")
        else:
            self._idle_since = None
            if c.phase == "playing":
                self._restarts = 0

    def rest(self) -> None:
        """The run's time is up: the bots stop playing, so the table stops publishing and what it sent can be
        seen to reach the broker (a table still playing always has messages on their way)."""
        self.seats.resting = True

    def stop(self) -> None:
        self.app.stop()
        self.panels.close()


def make_sim_dealer(cfg: TableConfig, seed: int, speed: float) -> Any:
    """The simulated dealer on a pseudo-terminal, driven by the real serial code (``hardware.dealers``)."""
    return SerialDealer(f"sim://?speed={speed:g}&seed={seed}", seed=seed)


def progress_printer(table: str, out: Any = sys.stderr) -> Callable[[str, dict[str, Any]], None]:
    """Prints deals and results on stderr, in Chinese and English."""

    tricks = {"n": 0}

    def show(topic: str, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "deal_started":
            tricks["n"] = 0
            print(f"[{table}] 第{msg.get('deal')}副开始 打{msg.get('level')} ({msg.get('played')}) | deal "
                  f"{msg.get('deal')} started, level {msg.get('level')} of {msg.get('played')}", file=out, flush=True)
        elif kind == "trick_won":  # the deal's own count (a table restarted mid-deal goes on from it)
            tricks["n"] = msg["trick"] if isinstance(msg.get("trick"), int) else tricks["n"] + 1
            print(f"[{table}] 第{tricks['n']}墩 {msg.get('seat')} 赢 | trick {tricks['n']} won by {msg.get('seat')}",
                  file=out, flush=True)
        elif kind == "seat_out":
            print(f"[{table}] {msg.get('seat')} 出完 第{msg.get('place')}名 | {msg.get('seat')} out, place "
                  f"{msg.get('place')}", file=out, flush=True)
        elif kind == "deal_over":
            lv = msg.get("levels", {})
            print(f"[{table}] 第{msg.get('deal')}副结束 上游 {msg.get('finish', ['?'])[0]}，{msg.get('winner')} 升"
                  f"{msg.get('up')}级 → NS {lv.get('NS')} / EW {lv.get('EW')} | deal {msg.get('deal')} over: "
                  f"{msg.get('winner')} +{msg.get('up')}", file=out, flush=True)
        elif kind == "match_over":
            print(f"[{table}] 比赛结束 胜方 {msg.get('winner') or '平局'} 级数 {msg.get('levels')} | match over: "
                  f"winner {msg.get('winner') or 'draw'}", file=out, flush=True)
        elif kind == "alert" and msg.get("code") not in ("referee_call",):
            print(f"[{table}] 警告 alert {msg.get('code')}: {msg.get('message')}", file=out, flush=True)

    return show


def run_simulation(*, broker: str | None, table: str, event: str, profile: str, deals: int | None,
                   match: bool, seed: int | None, speed: float, tables: int, journal_dir: str | None = None,
                   timeout: float | None = None, quiet: bool = False, camera: bool = True, matches: int = 1,
                   await_desk: bool = False, broker_timeout: float = 10.0, deck: str | None = None,
                   reader: str = "", ca_file: str = "") -> int:
    """Run ``tables`` simulated tables to the end of their match (or ``deals`` deals), ``matches`` times (0:
    until ``timeout``); with ``await_desk``, play the matches the event's desk starts until ``timeout`` or an
    interrupt. The simulated cameras draw ``deck`` (default: held-out designs, by seed) and are read by
    ``reader`` (default: the learned one). Returns the exit status: 1 when a broker could not be reached within
    ``broker_timeout`` seconds (one-shot runs), when results were still unsent at the end, or when a dealer kept
    failing."""
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
            sim = SimTable(cfg, seed=seed + i, speed=speed, camera=camera)
            sim.matches = matches
            sim.await_desk = await_desk
            if not quiet:
                sim.app.on_published = _topic_filter(progress_printer(tid))
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
        flush_deadline = time.monotonic() + broker_timeout  # for the broker to take what is still queued
        while time.monotonic() < flush_deadline and any(s.app.journal.backlog() for s in sims):
            time.sleep(0.05)
        unsent = _unsent(sims)
        for s in sims:
            c = s.app.controller
            lv = {t: format_team_level(v) for t, v in c.levels.items()}
            # the table's own numbers (a table restarted from its journal goes on with them)
            print(f"[{s.cfg.table.id}] 第{c.match_no}场 共{c.deals_done}副 | match {c.match_no}: {c.deals_done} "
                  f"deals played, levels NS {lv['NS']} EW {lv['EW']}"
                  + (f", {s.matches_played + 1} matches" if matches != 1 else ""), file=sys.stderr, flush=True)
        if unsent:
            print(f"未发出 {unsent} 条消息（含成绩），保存在日志 {jdir} | {unsent} messages (results among them) were "
                  f"never taken by the broker {redacted(broker)}; they wait in the journals in {jdir}", file=sys.stderr,
                  flush=True)
            return 1
        return 1 if any(s.gave_up for s in sims) else 0
    finally:
        # a run's own journals (no --journal-dir) are kept only while they hold what the broker never took
        keep = journal_dir is not None or _unsent_or_unknown(sims)
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


def _unsent_or_unknown(sims: list[SimTable]) -> bool:
    """Whether any table's journal still holds messages for the broker, or cannot say (kept, then)."""
    try:
        return _unsent(sims) > 0
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
    print(f"已连接 MQTT 代理 | connected to the MQTT broker {redacted(broker)}", file=sys.stderr, flush=True)
    return True


def _topic_filter(show: Callable[[str, dict[str, Any]], None]) -> Callable[[str, dict[str, Any]], None]:
    def on(topic: str, msg: dict[str, Any]) -> None:
        if topic.endswith(("/events", "/alerts")):
            show(topic, msg)

    return on
