"""A pure harness for controller tests: a fake clock, a dealer that reports chosen hands, and bots acting
through card readings and button presses (no threads, no I/O)."""

from __future__ import annotations

import random
from typing import Any

from guandan import SEATS, Bot, DealState, full_pack, get_profile, parse_cards
from guandan import actions as act
from guandan import deal as engine
from table_daemon.controller import (
    CardsSeen,
    Command,
    DealerDo,
    DealerDone,
    Effect,
    Input,
    Press,
    Publish,
    Reply,
    TableController,
    Timing,
    TurnChanged,
    ZoneCleared,
)
from table_daemon.controller.state import TableDeal


def error_of(reply: Reply) -> str:
    """The error of a reply that refused."""
    assert reply.error is not None, reply
    return reply.error


def hands_with(seed: int, fixed: dict[str, str] | None = None) -> dict[str, list[str]]:
    """A full legal deal (27 a seat, each face twice) where the given seats hold the given cards."""
    rng = random.Random(seed)
    pack = full_pack()
    rng.shuffle(pack)
    hands: dict[str, list[Any]] = {s: [] for s in SEATS}
    wanted = {s: parse_cards(v) for s, v in (fixed or {}).items()}
    for s, cards in wanted.items():
        for c in cards:
            pack.remove(c)
        hands[s] = list(cards)
    for s in SEATS:
        while len(hands[s]) < 27:
            hands[s].append(pack.pop())
    return {s: [c.code for c in hands[s]] for s in SEATS}


class Harness:
    def __init__(self, profile: str = "national", *, auto_deal: bool = False, timing: Timing | None = None,
                 hands: list[dict[str, list[str]]] | None = None, seed: int = 1) -> None:
        self.c = TableController("T9", "ev", get_profile(profile), auto_deal=auto_deal, timing=timing)
        self.now = 1_000_000.0
        self.published: list[Publish] = []
        self.effects: list[Effect] = []
        self.hands = list(hands or [])
        self.seed = seed
        self.bots = {s: Bot(seed * 4 + i) for i, s in enumerate(SEATS)}
        self.pending: list[Input] = []
        self.turns: list[TurnChanged] = []

    @property
    def deal(self) -> TableDeal:
        """The table's deal in progress (for a test that has started one)."""
        deal = self.c.deal
        assert deal is not None, "no deal in progress"
        return deal

    @property
    def state(self) -> DealState:
        """The rules engine's state of the deal in progress (for a test whose deal has been dealt)."""
        state = self.deal.state
        assert state is not None, "the deal has no engine state"
        return state

    @property
    def to_move(self) -> str:
        """The seat whose turn it is in play (for a test that is in play)."""
        seat = self.state.to_move
        assert seat is not None, "nobody is to move"
        return seat

    def send(self, event: Input, dt: float = 0.5) -> list[Effect]:
        self.now += dt
        return self.record(self.c.handle(event, self.now))

    def record(self, effects: list[Effect]) -> list[Effect]:
        """Keep what an input caused, and be the dealer: a deal asked for is reported dealt (chosen hands)."""
        self.effects.extend(effects)
        for ef in effects:
            if isinstance(ef, Publish):
                self.published.append(ef)
            elif isinstance(ef, DealerDo):
                hands = self.hands.pop(0) if self.hands else hands_with(self.seed + len(self.published))
                self.pending.append(DealerDone(True, None, hands, "c0ffee"))
            elif isinstance(ef, TurnChanged) and ef.seat:
                self.turns.append(ef)
        return effects

    def flush(self) -> None:
        while self.pending:
            self.send(self.pending.pop(0))

    def start_match(self, **payload: Any) -> None:
        self.send(Command("start_match", payload or {"match_end": {"method": "deals", "deals": 1}}))
        self.flush()

    def bot_step(self) -> bool:
        """Let the seat to act make its bot's move through the devices; False when nobody is to act."""
        d = self.c.deal
        if d is None or d.state is None or d.state.over:
            return False
        st = d.state
        movers = (st.pending_gives() if st.phase == engine.TRIBUTE else
                  [s for s, _ in st.pending_returns()] if st.phase == engine.RETURNING else
                  sorted(st.report_due) + [st.to_move])
        seat = movers[0]
        assert seat is not None
        action = self.bots[seat].choose(st, seat)
        self.do(action)
        return True

    def do(self, action: act.Action) -> None:
        seat = action.seat
        if action.kind == act.PASS:
            self.send(Press(seat, "pass"))
        elif action.kind == act.REPORT:
            self.send(Press(seat, "confirm"))
        else:
            self.send(CardsSeen(seat, [c.code for c in action.cards]))
            pd = self.c.deal.pending_declare if self.c.deal else None
            if pd is not None and action.reading is not None:
                self.send(Command("declare", {"seat": seat, "reading": action.reading.to_json()}))
            self.send(ZoneCleared(seat))
        self.flush()

    def play_out(self, limit: int = 3000) -> None:
        for _ in range(limit):
            if self.c.phase in ("match_over", "idle") or not self.bot_step():
                if self.c.phase == "deal_over" or (self.c.deal is None and self.c.phase != "match_over"):
                    return
                if self.c.phase == "match_over":
                    return
        raise AssertionError("the deal did not finish")

    def of(self, topic: str, type_: str | None = None) -> list[dict[str, Any]]:
        return [p.payload for p in self.published if p.topic == topic and (type_ is None or p.payload["type"] == type_)]

    def alerts(self, code: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.of("alerts") if code is None or a["code"] == code]
