"""What the host knows of a dealer and how a dealer request fails: the errors, the identity, an inbox item.

Below both the client (which sends commands) and a deal's run (which follows one deal), so that neither has to
import the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .framing import Frame
from .messages import Identity
from .protocol import Cap, Result, msg_name, reset_cause_name
from .runner import Notice


class DealerError(Exception):
    """The dealer cannot be used for this request (unreachable, refused, or lacks a capability)."""


class CommandRefused(DealerError):
    def __init__(self, command: int, code: int, text: str) -> None:
        self.command = command
        self.code = code
        self.text = text
        try:
            name = Result(code).name
        except ValueError:
            name = str(code)
        super().__init__(f"{msg_name(command)} refused: {name} ({text})")


@dataclass(frozen=True)
class DeviceInfo:
    firmware: str
    protocol: int
    boot_id: int
    reset_cause: str
    reads_faces: bool
    deals_to_plan: bool
    name: str
    capabilities: int

    @classmethod
    def from_identity(cls, ident: Identity) -> DeviceInfo:
        caps = ident.capabilities
        return cls(
            ident.firmware, ident.protocol, ident.boot_id, reset_cause_name(ident.reset_cause),
            bool(caps & Cap.READS_FACES), bool(caps & Cap.DEALS_TO_PLAN), ident.name, caps,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "firmware": self.firmware,
            "protocol": self.protocol,
            "boot_id": f"{self.boot_id:08x}",
            "reset_cause": self.reset_cause,
            "capabilities": {
                "reads_faces": self.reads_faces,
                "deals_to_plan": self.deals_to_plan,
                "double_feed_sensor": bool(self.capabilities & Cap.DOUBLE_FEED_SENSOR),
                "door_sensor": bool(self.capabilities & Cap.DOOR_SENSOR),
            },
        }


@dataclass(frozen=True)
class Inbound:
    """An item of the client's inbox: a decoded device event, or a link notice."""

    event: Frame | None = None
    body: Any = None
    notice: Notice | None = None


