"""The table app driven without devices, broker or threads: the controller harness's bots and dealer, with
every input going through ``TableApp.handle`` (journal, publisher) at the time of a fake clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from guandan import DealState, full_pack
from table_daemon.app import TableApp
from table_daemon.config import simulated_config
from table_daemon.controller import (
    CardsSeen,
    Command,
    DealerDone,
    Effect,
    Input,
    Press,
)

from .controller.harness import Harness


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class AppHarness(Harness):
    """A :class:`Harness` whose inputs go through a real :class:`TableApp` (journal on disk, no link)."""

    def __init__(self, journal: Path, *, clock: Clock | None = None, seed: int = 1, durable: bool = True,
                 **table: Any) -> None:
        super().__init__(seed=seed)
        self.durable = durable
        self.cfg = simulated_config(journal=str(journal))
        for key, value in table.items():
            setattr(self.cfg.table, key, value)
        self.clock = clock or Clock()
        self.sent: list[dict[str, Any]] = []  # every sequenced message as published (envelope included)
        self.app = self.boot()

    def boot(self) -> TableApp:
        """A table app on the journal (a restart when one ran before: the journal is replayed)."""
        app = TableApp(self.cfg, connect=False, clock=self.clock)
        if not self.durable:  # speed only: no fsync per input (what a power cut would keep is not tested here)
            app.journal._db.execute("PRAGMA synchronous=OFF")
        app.on_published = lambda topic, payload: self.sent.append(payload)
        self.app, self.c = app, app.controller
        return app

    def restart(self) -> TableApp:
        self.app.journal.close()
        return self.boot()

    def send(self, event: Input, dt: float = 0.5) -> list[Effect]:
        self.clock.t += dt
        self.now = self.clock.t
        effects = self.record(self.app.handle(event))
        while not self.app.inbox.empty():  # "no dealer configured": this harness is the dealer
            self.app.inbox.get_nowait()
        return effects


def quick_hands() -> dict[str, list[str]]:
    """A deal NS win in a few moves (:func:`quick_deal`): S holds the eight A, K, Q and three J; N the four
    jokers, the eight T and 9 and seven 8; E and W the rest."""
    pack = [c.code for c in full_pack()]
    s = [x for x in pack if x[1] in "AKQ"] + [x for x in pack if x[1] == "J"][:3]
    n = ["SB", "SB", "HR", "HR"] + [x for x in pack if x[1] in "T9"] + [x for x in pack if x[1] == "8"][:7]
    rest = list(pack)
    for x in s + n:
        rest.remove(x)
    return {"S": s, "N": n, "E": rest[:27], "W": rest[27:]}


def _state_if_dealing(h: Harness) -> DealState | None:
    """The engine's state of the table's deal; None when no deal is on."""
    if h.c.deal is None:
        return None
    assert h.c.deal.state is not None
    return h.c.deal.state


def quick_deal(h: Harness) -> None:
    """Play the dealt :func:`quick_hands` board (leader S, level 2) through card readings and buttons: S
    leads its bombs and the three J, N (借风) its four jokers and bombs; E and W pass; 双下 for NS."""
    hands = h.state.hands_json()
    groups = {"S": ["A", "K", "Q", "J"], "N": ["B", "T", "9", "8"]}
    for seat in ("S", "N"):
        for rank in groups[seat]:
            cards = [x for x in hands[seat] if x[1] == rank or (rank == "B" and x in ("SB", "HR"))]
            if seat in h.state.report_due:
                h.send(Press(seat, "confirm"))
            h.send(CardsSeen(seat, cards))  # the zone empties itself when the trick ends
            while (st := _state_if_dealing(h)) is not None and not st.over and st.to_move != seat \
                    and not st.leading:
                assert st.to_move is not None
                h.send(Press(st.to_move, "pass"))
            st = _state_if_dealing(h)
            if st is None or st.over:
                return
    raise AssertionError("the quick deal did not end")


#: the deal file a table of quick board deals is configured with (the harness is its dealer: never opened)
QUICK_BOARDS = "quick-boards.jsonl"


def with_boards(h: Harness) -> None:
    """Configure ``h``'s table with a deal file (and, for an app harness, its restarts too)."""
    h.c.configured_deal_file = QUICK_BOARDS
    cfg = getattr(h, "cfg", None)
    if cfg is not None:
        cfg.dealer.deal_file = QUICK_BOARDS


def play_quick_deals(h: Harness, deals: int) -> None:
    """Play ``deals`` quick board deals (:func:`quick_hands`), match after match (a match ends when NS pass A).
    Boards are dealt only from a table's own deal file: the table is configured with one (the harness deals)."""
    with_boards(h)
    for _ in range(deals):
        if not h.c.match_active:
            h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1000},
                                           "boards": list(range(1, 1001))}))
        h.send(Command("start_deal", {}))
        h.pending.clear()
        h.send(DealerDone(True, None, quick_hands(), "c0ffee", leader="S", level="2"))
        assert h.c.phase == "playing", (h.c.phase, h.alerts())
        quick_deal(h)
        assert h.c.phase in ("deal_over", "match_over"), h.c.phase
