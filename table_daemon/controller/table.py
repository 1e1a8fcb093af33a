"""The table controller: a pure state machine for one table (events in, effects out, time passed in).

Inputs (:mod:`.model`): dealer events, card readings of the seats' play zones, seat buttons, timer ticks and
commands. Effects: messages to publish, lights, beeps, dealer commands and command replies. No I/O and no
clock of its own: the same inputs at the same times give the same state and effects, which is what lets the
app rebuild a table after a power cut from its journal.

The top layer: :class:`TableController` is the table's state (:class:`~.state.TableState`) with one
``handle()`` that lets the match clock run, dispatches the input to its flow (:mod:`.dealing`, :mod:`.play`,
:mod:`.tribute` through :mod:`.play`, :mod:`.commands` for commands and referee corrections, :mod:`.camera`,
:mod:`.health`) and then sequences what follows from it: a deal the engine ended is settled by the match flow
(:mod:`.match`), which may start the next deal. Layers import only downward::

    table -> commands -> referee -> match -> dealing -> steps -> views -> state -> model
                      -> play -> tribute -> steps
"""

from __future__ import annotations

from .camera import on_camera_notice
from .commands import handle_command
from .dealing import on_dealer_card, on_dealer_done, on_dealer_fault, on_dealer_started
from .early_offer import last_word_on_a_taken_play
from .health import on_health_notice
from .match import end_deal, on_clock
from .model import (
    CameraNotice,
    CardsSeen,
    Command,
    DealerCard,
    DealerDone,
    DealerFault,
    DealerStarted,
    Effect,
    HealthNotice,
    Input,
    Press,
    StatusLight,
    Tick,
    ZoneCleared,
)
from .play import on_cards_seen, on_press, on_tick, stop_clocks
from .sealing import seal_effects
from .state import FOULS, Phase, TableDeal, TableState, Timing
from .views import status_light

__all__ = ["FOULS", "Phase", "TableController", "TableDeal", "Timing"]


class TableController(TableState):
    """One table's rules-aware state. ``handle(event, now)`` returns the effects of one input."""

    def handle(self, event: Input, now: float) -> list[Effect]:
        """Apply one input at time ``now`` (seconds, wall clock) and return its effects."""
        if isinstance(event, HealthNotice) and event.what == "table_restarted" and now > self.now:
            stop_clocks(self, now - self.now)  # the table was down since its last input: no one's time ran
        self.now = now
        self._effects = []
        on_clock(self)
        self._dispatch(event)
        if self.settle_due:
            self.settle_due = False
            end_deal(self)
        mode = status_light(self)
        if mode != self.status_mode:
            self.status_mode = mode
            self.effect(StatusLight(mode))
        effects, self._effects = self._effects, []
        return seal_effects(self, effects)  # a duplicate board's cards and outcome stay off public topics (§12)

    def _dispatch(self, event: Input) -> None:
        if isinstance(event, Command):
            handle_command(self, event)
        elif isinstance(event, CameraNotice):  # the referee hears of the camera even while paused
            on_camera_notice(self, event)
        elif isinstance(event, HealthNotice):  # and of the table's hardware
            on_health_notice(self, event)
        elif self.phase == Phase.PAUSED and not isinstance(event, Tick):
            if isinstance(event, CardsSeen) and event.cards and not event.provisional \
                    and not last_word_on_a_taken_play(self, event):
                self.alert("out_of_turn", event.seat, "cards laid while the table is paused (暂停中出牌)",
                           {"frame": event.frame, "seen": event.cards})
        elif isinstance(event, DealerStarted):
            on_dealer_started(self, event)
        elif isinstance(event, DealerCard):
            on_dealer_card(self, event)
        elif isinstance(event, DealerDone):
            on_dealer_done(self, event)
        elif isinstance(event, DealerFault):
            on_dealer_fault(self, event)
        elif isinstance(event, CardsSeen):
            on_cards_seen(self, event)
        elif isinstance(event, ZoneCleared):
            if self.deal is not None:
                self.deal.zone[event.seat] = []
                self.deal.zone_read_as.pop(event.seat, None)
                self.deal.taken_in_wait.pop(event.seat, None)
        elif isinstance(event, Press):
            on_press(self, event)
        elif isinstance(event, Tick):
            on_tick(self)
