"""The table app driven without devices, broker or threads: the controller harness's bots and dealer, with
every input going through ``TableApp.handle`` (journal, publisher) at the time of a fake clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_daemon.app import TableApp
from table_daemon.config import simulated_config
from table_daemon.controller import DealerDo, DealerDone, Effect, Input, Publish, TurnChanged

from .controller.harness import Harness, hands_with


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class AppHarness(Harness):
    """A :class:`Harness` whose inputs go through a real :class:`TableApp` (journal on disk, no link)."""

    def __init__(self, journal: Path, *, clock: Clock | None = None, seed: int = 1, **table: Any) -> None:
        super().__init__(seed=seed)
        self.cfg = simulated_config(journal=str(journal))
        for key, value in table.items():
            setattr(self.cfg.table, key, value)
        self.clock = clock or Clock()
        self.sent: list[dict[str, Any]] = []  # every sequenced message as published (envelope included)
        self.app = self.boot()

    def boot(self) -> TableApp:
        """A table app on the journal (a restart when one ran before: the journal is replayed)."""
        app = TableApp(self.cfg, connect=False, clock=self.clock)
        app.on_published = lambda topic, payload: self.sent.append(payload)
        self.app, self.c = app, app.controller
        return app

    def restart(self) -> TableApp:
        self.app.journal.close()
        return self.boot()

    def send(self, event: Input, dt: float = 0.5) -> list[Effect]:
        self.clock.t += dt
        self.now = self.clock.t
        effects = self.app.handle(event)
        self.effects.extend(effects)
        for ef in effects:
            if isinstance(ef, Publish):
                self.published.append(ef)
            elif isinstance(ef, DealerDo):
                hands = self.hands.pop(0) if self.hands else hands_with(self.seed + len(self.published))
                self.pending.append(DealerDone(True, None, hands, "c0ffee"))
            elif isinstance(ef, TurnChanged) and ef.seat:
                self.turns.append(ef)
        while not self.app.inbox.empty():  # "no dealer configured": this harness is the dealer
            self.app.inbox.get_nowait()
        return effects
