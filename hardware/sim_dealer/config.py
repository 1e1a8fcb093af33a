"""Options of the simulated dealer, parsed from a ``sim://`` URL query (``sim://?speed=0&jam=0.05&seed=7``).

Every fault is off by default and switched on by a probability: per byte (``corrupt``), per frame in either
direction (``drop``, ``dup``, ``delay``), per card fed (``jam``, ``double``, ``misread``, ``stall``) or per
deal (``door``, ``short``, ``extra``, ``reset``, ``unplug``). ``seed`` makes the fault draws repeatable.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from urllib.parse import parse_qsl, urlsplit


class SimConfigError(ValueError):
    """A ``sim://`` URL names an unknown option or gives a bad value."""


_PROBABILITIES = (
    "corrupt", "drop", "dup", "delay", "jam", "double", "misread", "stall", "door", "short", "extra", "reset",
    "unplug",
)


@dataclass(frozen=True)
class SimConfig:
    speed: float = 1.0  # time scale of the mechanics; 0 = as fast as possible
    seed: int | None = None
    # wire faults (both directions)
    corrupt: float = 0.0  # per byte: flip it
    drop: float = 0.0  # per frame: lose it
    dup: float = 0.0  # per frame: deliver it twice
    delay: float = 0.0  # per frame: hold it back delay_ms (so later frames overtake it)
    delay_ms: float = 40.0
    # card mechanics faults
    jam: float = 0.0  # per card: the feeder jams (dealer stops until RESUME)
    double: float = 0.0  # per card: two cards fed at once (both go to the reject bin)
    misread: float = 0.0  # per read: a wrong face with low confidence (re-read, then reject)
    stall: float = 0.0  # per card: a motor stalls (dealer stops until RESUME)
    door: float = 0.0  # per deal: the door opens mid-deal (closes again after door_s)
    door_s: float = 0.5
    short: float = 0.0  # per deal: one card missing from the deck
    extra: float = 0.0  # per deal: one extra card (a third copy of some face) in the deck
    reset: float = 0.0  # per deal: the dealer reboots mid-deal (brown-out or watchdog)
    unplug: float = 0.0  # per deal: the USB cable is pulled mid-deal for unplug_s seconds
    unplug_s: float = 1.0
    # capabilities
    faces: bool = True  # the dealer reads card faces
    plan: bool = True  # the dealer deals to a plan (needs faces)
    card_s: float = 0.15  # seconds per card at speed 1 (108 cards in about 16 s)

    @property
    def deals_to_plan(self) -> bool:
        return self.faces and self.plan

    def scaled(self, seconds: float) -> float:
        """A mechanical duration at this speed (0 at speed 0)."""
        return 0.0 if self.speed == 0 else seconds / self.speed


def parse_sim_url(url: str) -> SimConfig:
    """Parse ``sim://?key=value&...``; raises :class:`SimConfigError` naming the bad option."""
    parts = urlsplit(url)
    if parts.scheme != "sim":
        raise SimConfigError(f"not a sim:// URL: {url!r}")
    known = {f.name: f for f in fields(SimConfig)}
    values: dict[str, object] = {}
    for key, raw in parse_qsl(parts.query, keep_blank_values=True):
        if key not in known:
            raise SimConfigError(f"unknown sim:// option {key!r} (known: {', '.join(sorted(known))})")
        try:
            if key == "seed":
                values[key] = int(raw)
            elif key in ("faces", "plan"):
                if raw.lower() not in ("0", "1", "true", "false", "yes", "no"):
                    raise ValueError(raw)
                values[key] = raw.lower() in ("1", "true", "yes")
            else:
                number = float(raw)
                if number != number or number < 0 or number == float("inf"):
                    raise ValueError(raw)
                values[key] = number
        except ValueError:
            raise SimConfigError(f"sim:// option {key}={raw!r} is not a valid value") from None
        if key in _PROBABILITIES and values[key] > 1:  # type: ignore[operator]
            raise SimConfigError(f"sim:// option {key}={raw} is a probability: give 0..1")
    return SimConfig(**values)  # type: ignore[arg-type]


@dataclass
class DeviceSettings:
    """What the host set with CONFIGURE (the firmware's defaults until it does)."""

    host_timeout_s: float = 1.5
    heartbeat_s: float = 0.2
    min_quality: int = 204  # 0.8 * 255
    max_reads: int = 3
