"""Inputs and effects of the table controller: small frozen records, JSON round-trippable for the journal.

Inputs are what the world tells the table (dealer, card reader, seat buttons, timer ticks, commands); effects
are what the controller asks the adapters to do (publish, light a lamp, beep, tell the dealer to deal, reply to a
command). The controller never does I/O itself; the app journals every input and runs the effects.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, ClassVar


@dataclass(frozen=True)
class Input:
    """Base of every input; ``kind`` names it in the journal."""

    kind: ClassVar[str] = "input"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DealerStarted(Input):
    """The dealer began a deal; ``commitment`` is the SHA-256 of the salted deal line when known in advance."""

    kind: ClassVar[str] = "dealer_started"
    commitment: str | None = None
    board: int | None = None


@dataclass(frozen=True)
class DealerCard(Input):
    """One card left the dealer: ``card`` is None when the dealer cannot read faces; ``seat`` may be reject."""

    kind: ClassVar[str] = "dealer_card"
    index: int
    card: str | None
    seat: str
    quality: float = 1.0


@dataclass(frozen=True)
class DealerDone(Input):
    """The dealer's summary of one deal (cli.md ``dealer deal`` last line)."""

    kind: ClassVar[str] = "dealer_done"
    ok: bool
    fouled: str | None
    hands: dict[str, list[str]]
    commitment: str = ""
    retransmits: int = 0
    faces_verified: bool = True
    deal_line: str | None = None
    leader: str | None = None
    level: str | None = None
    #: the faults the dealer reported during the deal, by name (``jam``, ``door_open`` ... of the firmware
    #: protocol's ``Fault``), in order
    faults: list[str] = field(default_factory=list)


class DealerFaultKind(StrEnum):
    """Why the dealer could not deal, as the adapter knows it from the outcome's type (never from a text)."""

    JAM = "jam"  #: cards jammed and the deal could not go on
    LINK = "link"  #: the link to the dealer failed (port gone, no reply, bad frames beyond retries)
    REFUSED = "refused"  #: the dealer refused the request (or lacks what it needs)
    BUSY = "busy"  #: still dealing the previous deal
    NO_DEALER = "no_dealer"  #: no dealer configured
    RESTART = "restart"  #: the table restarted while dealing


@dataclass(frozen=True)
class DealerFault(Input):
    """The dealer failed: ``reason`` is a :class:`DealerFaultKind` value, ``detail`` the adapter's words."""

    kind: ClassVar[str] = "dealer_fault"
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class CameraNotice(Input):
    """The play-zone camera's own news: ``camera_lost`` / ``camera_restored`` (frames stopped / came back),
    ``camera_moved`` (the zones followed the table markers), ``camera_calibrated``, ``camera_uncalibrated``,
    ``camera_markers_hidden`` / ``camera_markers_visible``; ``evidence`` as the camera measured it."""

    kind: ClassVar[str] = "camera_notice"
    what: str
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CardsSeen(Input):
    """The reader saw a steady set of cards laid in a seat's play zone (left to right).

    ``confidence`` is the lowest card confidence; ``unreadable`` counts card-like shapes it could not read;
    ``frame`` identifies the camera frame (evidence for alerts); ``candidates`` gives, for each card of
    ``cards``, the reader's best candidates ``[code, probability]``, surest first (may be empty).
    ``provisional``: an unsure play the camera is still looking at (it reports the set again, sure or not, a few
    frames later); the table takes it now only if the seat's hand settles it, and otherwise says nothing yet.
    ``wait``: the camera's number for the hold such a set was in (0: none), which its provisional reports and its
    final report share: the final report of a play the table already took is the last word on that play.
    """

    kind: ClassVar[str] = "cards_seen"
    seat: str
    cards: list[str]
    confidence: float = 1.0
    frame: int = 0
    unreadable: int = 0
    candidates: list[list[tuple[str, float]]] = field(default_factory=list)
    provisional: bool = False
    wait: int = 0


@dataclass(frozen=True)
class ZoneCleared(Input):
    """A seat's play zone is empty again."""

    kind: ClassVar[str] = "zone_cleared"
    seat: str
    frame: int = 0


@dataclass(frozen=True)
class Press(Input):
    """An accepted (debounced) press of a seat button: ``pass``, ``confirm`` or ``referee``."""

    kind: ClassVar[str] = "press"
    seat: str
    button: str


@dataclass(frozen=True)
class Tick(Input):
    """Time passed (the time itself comes with every input)."""

    kind: ClassVar[str] = "tick"


@dataclass(frozen=True)
class Command(Input):
    """A command from MQTT (``cmd/{name}``); ``token`` lets the app route the reply, ``role`` who sent it."""

    kind: ClassVar[str] = "command"
    name: str
    payload: dict[str, Any] = field(default_factory=dict)
    token: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class HealthNotice(Input):
    """The table's hardware crossed a limit or came back (``table_daemon.adapters.pi_health``): ``what`` is a
    problem code (``pi_under_voltage``, ``pi_throttled``, ``pi_hot``, ``pi_disk_low``, ``dealer_missing``,
    ``camera_lost`` ...) or ``health_restored`` with the cleared code in ``evidence["cleared"]``."""

    kind: ClassVar[str] = "health_notice"
    what: str
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)


INPUT_TYPES: dict[str, type[Input]] = {
    cls.kind: cls
    for cls in (DealerStarted, DealerCard, DealerDone, DealerFault, CameraNotice, CardsSeen, ZoneCleared, Press,
                Tick, Command, HealthNotice)
}


def input_from_dict(kind: str, data: dict[str, Any]) -> Input:
    """Rebuild an input from its journal row."""
    cls = INPUT_TYPES[kind]
    return cls(**data)


# -- effects ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Effect:
    pass


@dataclass(frozen=True)
class Publish(Effect):
    """A message on ``events``, ``alerts``, ``state``, ``results`` or ``private/hands`` (the app adds the
    envelope: schema, table, event, epoch, seq, ts). ``ref`` is the controller's own number for the event,
    used by corrections (``replaces``)."""

    topic: str
    payload: dict[str, Any]
    ref: int = 0
    replaces_ref: int | None = None


@dataclass(frozen=True)
class Reply(Effect):
    token: str | None
    ok: bool
    error: str | None = None
    data: dict[str, Any] | None = None


@dataclass(frozen=True)
class Light(Effect):
    seat: str
    light: str
    on: bool


@dataclass(frozen=True)
class StatusLight(Effect):
    mode: str


@dataclass(frozen=True)
class Beep(Effect):
    times: int = 1


@dataclass(frozen=True)
class DealerDo(Effect):
    """Ask the dealer to deal (``board`` from the deal file, or a fresh CSPRNG deal)."""

    action: str
    board: int | None = None
    deal_no: int = 0


@dataclass(frozen=True)
class TurnChanged(Effect):
    """Whose turn it is now and what is being asked (``play``, ``tribute``, ``return``, ``declare``); used by
    simulated seats (bots) and displays."""

    seat: str | None
    asked: str
    state: Any = None
