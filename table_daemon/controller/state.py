"""The table's state as data (layer 1 of the controller, below every flow): the phase (an enum), the event's
timing, the deal in progress as the table sees it (:class:`TableDeal` around the engine's immutable deal), and
:class:`TableState`: the engine's ``MatchState`` plus what belongs to a physical table. Its helpers only queue
effects (messages, lights, turn news); nothing here decides a rule or imports a flow.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import MISSING, dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from guandan import (
    PASS,
    PLAY,
    REPORT,
    SEATS,
    Card,
    DealState,
    MatchState,
    Profile,
    Reading,
    new_match,
    parse_card,
    parse_cards,
)

from .model import Beep, Effect, Light, Publish, TurnChanged


class Phase(StrEnum):
    """Where the table is (the ``phase`` of the public state; a str, so it reads and prints as its value)."""

    IDLE = "idle"
    DEALING = "dealing"
    TRIBUTE = "tribute"
    PLAYING = "playing"
    DEAL_OVER = "deal_over"
    MATCH_OVER = "match_over"
    PAUSED = "paused"


#: the phases in which a deal is being dealt or played
IN_DEAL = (Phase.DEALING, Phase.TRIBUTE, Phase.PLAYING)


@dataclass
class Timing:
    #: the event's limits where the profile sets none (None: no limit)
    play_seconds: float | None = None
    first_lead_seconds: float | None = None
    return_seconds: float | None = None
    warn_before: float = 5.0
    min_confidence: float = 0.6


#: One step the referee can undo: the engine state before it, the ref of the event it published, and the
#: step in the deal record's form without ``t`` (the actions it applied, or the referee's own entry).
Undo = tuple[DealState, int, list[dict[str, Any]]]


@dataclass
class TableDeal:
    """The table's side of the deal in progress: dealing, evidence, zones, timers; ``state`` is the rules
    engine's immutable deal (:mod:`guandan.deal`), ``undo`` the states before each step.

    ``actions`` is the deal record's ``actions`` list as it happened: every play, pass and report the engine
    accepted and every referee correction, in order, with ``t`` (seconds since the deal started). The engine's
    own history forgets what a referee took back; this log keeps it, so a replay of the published record
    sees the take-back too. ``tribute_held`` and ``tribute_choice`` serve the ``winner_chooses`` tie: the
    two tribute cards wait on the table until 上游 picks one (:mod:`.tribute`).
    """

    number: int
    level: int
    played: str
    levels_before: dict[str, int]
    started: float
    board: int | None = None
    commitment: str | None = None
    deal_line: str | None = None
    dealt: Counter[str] = field(default_factory=Counter)
    dealt_order: list[tuple[int, str | None, str]] = field(default_factory=list)
    hands: dict[str, list[Card]] = field(default_factory=dict)
    first_lead: str | None = None
    state: DealState | None = None
    undo: list[Undo] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    referee: list[dict[str, Any]] = field(default_factory=list)
    pending_declare: dict[str, Any] | None = None
    zone: dict[str, list[Card]] = field(default_factory=lambda: {s: [] for s in SEATS})
    #: what the reader first read of a zone's cards, where the table took them as other candidates of that
    #: reading (the seat's hand chose): the same reading again is the same cards, not new ones
    zone_read_as: dict[str, tuple[str, ...]] = field(default_factory=dict)
    warned_at: float | None = None
    skip_trick: set[str] = field(default_factory=set)
    redeal_attempts: int = 0
    tribute_held: dict[str, Card] = field(default_factory=dict)
    tribute_choice: dict[str, Any] | None = None
    #: the sure readings of this turn asked for again once, each (seat, its codes, the turn's start): a card or
    #: more short of a play, one card over, one card not held (``doubts.doubt_the_reading``); shown again, a foul
    doubted_in_turn: set[tuple[str, tuple[str, ...], float]] = field(default_factory=set)
    #: per seat, the camera's hold (``CardsSeen.wait``) a play was taken from while the camera still looked at it,
    #: and the codes of the zone as taken: the hold's final report is the last word on that play, not a new one
    taken_in_wait: dict[str, tuple[int, tuple[str, ...]]] = field(default_factory=dict)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A snapshot written before a field was added loads with that field's default (snapshots of this
        version's format carry no field list of their own)."""
        for f in fields(self):
            if f.name not in state:
                if f.default_factory is not MISSING:
                    state[f.name] = f.default_factory()
                elif f.default is not MISSING:
                    state[f.name] = f.default
        self.__dict__.update(state)

    def t(self, now: float) -> float:
        """Seconds since the deal started (the ``t`` of record actions and events)."""
        return round(now - self.started, 3)

    def log_since(self, before: DealState, ref: int) -> list[dict[str, Any]]:
        """Log the actions the engine accepted since ``before`` (``state`` extends its history) and keep
        ``before`` as one undo step. Plays, passes and reports go to the record's ``actions``; tribute and
        return cards have their own record fields. Returns the steps' record form (without ``t``)."""
        assert self.state is not None
        node, stop = self.state.history, before.history
        steps = []
        while node is not None and node is not stop:
            node, action, t = node
            steps.append((action, t))
        entries = []
        for action, t in reversed(steps):
            entry = action.to_json()
            entries.append(dict(entry))
            if action.kind in (PLAY, PASS, REPORT):
                entry["t"] = round(t, 3)
                self.actions.append(entry)
        self.undo.append((before, ref, entries))
        return entries


FOULS = frozenset({"out_of_turn", "exposed_card", "illegal_play", "not_held", "missing_report",
                   "wrong_report", "slow_play", "wrong_tribute", "wrong_return", "wrong_manner"})


class TableState:
    """One table's state as data: the engine's match and deal, the table's own side of the deal (devices,
    timers, evidence), commands obeyed; and the few helpers every flow uses to queue effects (``emit``,
    ``alert``, ``set_turn``). The flows change it; :class:`~.table.TableController` dispatches inputs to them."""

    # Kept at class level so that a snapshot taken before they existed still loads (pickle restores __dict__).
    #: the status light's mode last asked of the panels ("" in a snapshot older than it: asked at the next input)
    status_mode: str = ""
    #: the ids of the referee commands obeyed, newest last (commands.REMEMBERED_IDS of them): each once
    referee_ids: tuple[str, ...] = ()

    def __init__(self, table: str, event: str, profile: Profile, *, auto_deal: bool = False,
                 software_seats: tuple[str, ...] = (), referee_role: str = "referee",
                 timing: Timing | None = None, referee_key: bytes | None = None, deal_file: str = "",
                 deal_file_boards: tuple[int, ...] = ()) -> None:
        self.table = table
        self.event = event
        self.timing = timing or Timing()
        #: the profile the table was configured with (``start_match`` may name another one)
        self.configured_profile = profile
        self.profile = profile
        self.use_profile(profile)
        self.auto_deal = auto_deal
        self.software_seats = tuple(software_seats)
        self.referee_role = referee_role
        #: the referees' signing key (None: the role and the broker's ACL are the only checks), and the nonces
        #: of the signed commands obeyed (each is obeyed once)
        self.referee_key = referee_key
        self.referee_nonces: set[str] = set()
        self.phase = Phase.IDLE
        #: idle's status light (views.status_light), which the app drives at start: no effect until it changes
        self.status_mode = "blink"
        self.paused_from: Phase | None = None
        self.paused_at = 0.0
        self.match_no = 0
        #: the ``id`` of the ``start_match`` this match was started by (the desk's), None for a local start
        self.start_id: str | None = None
        self.match_active = False
        self.match_end: dict[str, Any] = {"method": profile.match_end, "deals": profile.match_deals,
                                          "minutes": profile.match_minutes}
        self.teams: dict[str, Any] = {}
        #: the match as the rules engine keeps it (levels, failed A deals, deal points, deals counted, the
        #: previous finish, time up, over and winner): every rule of the match is decided there
        self.match: MatchState = new_match(self.profile)
        #: the finish the current deal's tribute came from (None on a first deal or a board)
        self.previous_finish: list[str] | None = None
        self.failed_a_before: dict[str, int] = dict(self.match.failed_a)
        self.last_result: dict[str, Any] | None = None
        self.match_result: dict[str, Any] | None = None
        self.deal: TableDeal | None = None
        self.deal_file: str | None = None
        #: the deal file the table's dealer deals boards from (config ``dealer.deal_file``; "" for none)
        self.configured_deal_file = deal_file
        #: the boards that deal file holds (read by the composition root; empty: not known), so that a start of
        #: boards it lacks is refused rather than failing at the dealer deal after deal
        self.deal_file_boards = tuple(deal_file_boards)
        #: the journal's inputs are being replayed after a restart: a command accepted then is taken as it was,
        #: checks added since (a newer version's) never refuse it now and lose what followed it
        self.replaying = False
        #: every match number started at this table, with its settings: a number is never used twice
        self.matches_started: dict[int, dict[str, Any]] = {}
        self.boards: list[int] = []
        self.penalties: dict[str, Counter[str]] = {"NS": Counter(), "EW": Counter()}
        self.ref = 0
        #: the deal ended in this input: the dispatcher settles it once the flow that ended it is done
        self.settle_due = False
        self.now = 0.0
        self._effects: list[Effect] = []

    def use_profile(self, profile: Profile) -> None:
        """Play by ``profile`` from now on; the event's timers (config) fill in where it sets none ("event
        sets")."""
        fill = {k: getattr(self.timing, k) for k in ("play_seconds", "first_lead_seconds", "return_seconds")
                if getattr(profile, k) is None and getattr(self.timing, k)}
        self.profile = replace(profile, **fill) if fill else profile

    # -- the engine's match, read through -------------------------------------------------------------------
    @property
    def levels(self) -> dict[str, int]:
        return self.match.levels

    @property
    def failed_a(self) -> dict[str, int]:
        return self.match.failed_a

    @property
    def deals_done(self) -> int:
        return self.match.deals

    @property
    def last_finish(self) -> list[str] | None:
        return list(self.match.last_finish) if self.match.last_finish is not None else None

    @property
    def last_winner(self) -> str | None:
        return self.match.last_winner

    @property
    def match_started(self) -> float:
        return self.match.t_start

    # -- plumbing -----------------------------------------------------------------------------------------
    def effect(self, effect: Effect) -> None:
        self._effects.append(effect)

    def emit(self, type_: str, topic: str = "events", replaces: int | None = None, **fields: Any) -> int:
        """Queue a message of ``type_`` on ``topic``; returns its ref (for later corrections)."""
        self.ref += 1
        payload = {"type": type_, **fields}
        self.effect(Publish(topic, payload, self.ref, replaces))
        return self.ref

    def alert(self, code: str, seat: str | None, text: str, evidence: dict[str, Any]) -> None:
        """A foul or fault for the referee, with its evidence, also kept in the deal record."""
        d = self.deal
        body: dict[str, Any] = {"code": code, "seat": seat, "message": text, "evidence": evidence,
                                "phase": self.phase}
        if d is not None:
            body["deal"] = d.number
            body["turn"] = d.state.to_move if d.state else None
            body["t"] = round(self.now - d.started, 3)
            d.events.append({"t": body["t"], "kind": "foul" if code in FOULS else "fault", "seat": seat,
                             "what": code, "detail": text})
        self.emit("alert", topic="alerts", **body)
        self.effect(Beep(2))

    def t(self) -> float:
        return round(self.now - self.deal.started, 3) if self.deal else 0.0

    # -- turn lights and timers ---------------------------------------------------------------------------
    def set_turn(self, seat: str | list[str] | None, asked: str = "play") -> None:
        """Light the turn lamp of the seat(s) asked to act and tell simulated seats; restart the timer."""
        seats: list[str | None] = [] if seat is None else [seat] if isinstance(seat, str) else list(seat)
        if self.phase == Phase.PAUSED and seats:
            return  # nobody is asked while the referee holds the table: resume asks whoever must act then
        for s in SEATS:
            self.effect(Light(s, "turn", s in seats))
        for asked_seat in seats or [None]:
            self.effect(TurnChanged(asked_seat, asked if asked_seat else "wait",
                                    self.deal.state if self.deal else None))

    # -- helpers used by flow and commands ----------------------------------------------------------------
    def parse_seen(self, codes: list[str]) -> list[Card] | None:
        try:
            return parse_cards(codes, max_copies=None)
        except ValueError:
            return None

    def reading_from(self, data: Any) -> Reading:
        return Reading.from_json(data)

    def card(self, code: str) -> Card:
        return parse_card(code)
