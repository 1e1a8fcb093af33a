"""The simulated players of a simulated table: four bots that act on the table's ``TurnChanged`` through its
devices, as people do (lay cards in their play zone, press their panel's buttons, declare a reading, pick a
tied tribute card), and lay a set again when the reader got it wrong.

Kept apart from the table's composition (``sim_table``) and the run (``sim_run``): this is the players'
behaviour alone, the part that tests of seat timing, holds and tribute choice exercise.
"""

from __future__ import annotations

import logging
import random
import threading
from typing import Any

from guandan import Bot
from guandan import actions as act
from guandan import deal as engine
from hardware.panels import PanelPins, TablePanels

from .app import TableApp
from .controller import CardsSeen, Command, TurnChanged

# the name the seats have always logged under (log lines name their logger)
log = logging.getLogger("table_daemon.simulate")
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
