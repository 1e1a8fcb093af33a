"""One simulated table: the real daemon (:class:`~table_daemon.app.TableApp`) composed with simulated devices
(the dealer on a pseudo-terminal, camera or direct play zones, seat panels on mock pins) and the simulated
players (:class:`~table_daemon.sim_seats.SimSeats`), plus what keeps it going: the next match, a deal dealt
again after a dealer fault, resting at the run's end.

Kept apart from the players (``sim_seats``) and the command-line run (``sim_run``): benches and tests build
tables from this alone.
"""

from __future__ import annotations

import sys
from typing import Any

from hardware.panels import PanelPins, TablePanels, make_pin_factory

from .adapters.devices import DirectZones, SerialDealer
from .app import TableApp
from .config import TableConfig
from .sim_seats import SimSeats


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
    #: the boards of the dealer's deal file its own matches play (duplicate, rules §12); none: random deals
    boards: list[int] = []  # a class default: each table gets its own list, never changed in place

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
        self.app.command("start_match", {"match_end": self._match_end, "profile": self.app.controller.profile.name,
                                         **({"boards": self.boards} if self.boards else {})})

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
    return SerialDealer(f"sim://?speed={speed:g}&seed={seed}", seed=seed, deal_file=cfg.dealer.deal_file or "")
