"""Device adapters of the table daemon: the dealer and the play-zone camera, behind small interfaces.

Each adapter turns its device's output into controller inputs through ``feed`` (thread-safe), and takes the
controller's requests (``deal``). Devices run in their own threads, so a slow dealer or camera never holds up
the table loop.

- :class:`SerialDealer`: the card dealer over its serial link (``/dev/ttyACM0`` or the simulated dealer on a
  pty, ``sim://``), through ``firmware_bridge``'s client.
- :class:`PlannedDealer`: deals without a dealing machine: the deal is drawn (CSPRNG, or a seeded RNG for a
  reproducible simulation) and reported card by card in dealing order, with its commitment. Used when no
  dealer link is available (a bench, a demo).
- :class:`DirectZones`: what a seat lays in its zone is reported as read; the stand-in for camera + reader.
- :class:`CameraZones`: frames from a camera (or the simulated table camera) through the card reader.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from firmware_bridge.deal import load_deal_file, new_deal
from firmware_bridge.dealer_types import DealerError
from firmware_bridge.runner import LinkError, Notice
from guandan import SEATS
from hardware.dealers import open_dealer
from table_daemon.controller import CardsSeen, DealerCard, DealerDone, DealerFault, DealerStarted, Input
from table_daemon.controller.model import DealerFaultKind, ZoneCleared

log = logging.getLogger(__name__)
Feed = Callable[[Input], None]


def fault_kind(exc: BaseException) -> DealerFaultKind:
    """What kind of dealer failure an exception of the dealer bridge is, by its type."""
    if isinstance(exc, LinkError | OSError | TimeoutError):
        return DealerFaultKind.LINK
    if isinstance(exc, DealerError):
        return DealerFaultKind.REFUSED
    return DealerFaultKind.LINK


def _summary_input(summary: dict[str, Any]) -> DealerDone:
    faults = [str(f["fault"]) for f in summary.get("faults") or () if isinstance(f, dict) and f.get("fault")]
    return DealerDone(
        ok=bool(summary.get("ok")), fouled=summary.get("fouled"), hands=dict(summary.get("hands") or {}),
        commitment=str(summary.get("commitment") or ""), retransmits=int(summary.get("retransmits") or 0),
        faces_verified=bool(summary.get("faces_verified", True)),
        deal_line=summary.get("deal_line") if isinstance(summary.get("deal_line"), str) else None,
        leader=summary.get("leader"), level=summary.get("level"), faults=faults,
    )


class _DealerBase:
    """Runs one deal at a time in a worker thread and feeds its lines to the controller."""

    def __init__(self) -> None:
        self.feed: Feed = lambda _e: None
        self._busy = threading.Lock()
        self.deals = 0
        self.faults = 0
        self.retransmits = 0
        self.state = "idle"

    def start(self, feed: Feed) -> None:
        self.feed = feed

    def deal(self, board: int | None, deal_no: int) -> None:
        if not self._busy.acquire(blocking=False):
            self.feed(DealerFault(DealerFaultKind.BUSY, "the dealer is still dealing"))
            return
        threading.Thread(target=self._run, args=(board, deal_no), daemon=True, name="dealer").start()

    def _run(self, board: int | None, deal_no: int) -> None:
        self.state = "dealing"
        try:
            for line in self.lines(board, deal_no):
                if line.get("commitment_only"):
                    self.feed(DealerStarted(line.get("commitment"), board))
                elif line.get("summary"):
                    self.retransmits += int(line.get("retransmits") or 0)
                    self.feed(_summary_input(line))
                else:
                    self.feed(DealerCard(int(line["index"]), line.get("card"), str(line["seat"]),
                                         float(line.get("quality", 1.0))))
            self.deals += 1
            self.state = "ready"
        except Exception as exc:  # the link failed: the table gets an alert, not a crash
            self.faults += 1
            self.state = "fault"
            log.warning("dealer failed: %s", exc)
            self.feed(DealerFault(fault_kind(exc), str(exc)))
        finally:
            self._busy.release()

    def lines(self, board: int | None, deal_no: int) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def health(self) -> dict[str, Any]:
        return {"state": self.state, "deals": self.deals, "faults": self.faults, "retransmits": self.retransmits}

    def close(self) -> None:
        pass


def _line_text(line: Any) -> str | None:
    if isinstance(line, dict):
        return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return line if isinstance(line, str) else None


class PlannedDealer(_DealerBase):
    """Draws each deal itself and reports it card by card (no dealing machine). ``seed`` makes the deals
    reproducible (simulation); without one they come from the CSPRNG. ``delay`` seconds per card."""

    def __init__(self, seed: int | None = None, delay: float = 0.0) -> None:
        super().__init__()
        self.rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
        self.delay = delay

    def lines(self, board: int | None, deal_no: int) -> Iterator[dict[str, Any]]:
        plan = new_deal(board or deal_no, rng=self.rng)
        yield {"commitment_only": True, "commitment": plan.commitment}
        order = [(c, s) for s in SEATS for c in plan.hands[s]]
        dealt = [order[(i % 4) * 27 + i // 4] for i in range(108)]  # one at a time, S E N W
        for i, (card, seat) in enumerate(dealt):
            if self.delay:
                time.sleep(self.delay)
            yield {"index": i, "card": card.code, "seat": seat, "quality": 1.0}
        yield {"summary": True, "ok": True, "fouled": None,
               "hands": {s: [c.code for c in plan.hands[s]] for s in SEATS}, "commitment": plan.commitment,
               "retransmits": 0, "deal_line": _line_text(plan.deal_line())}


class SerialDealer(_DealerBase):
    """The dealer on a serial port or ``sim://`` URL (the simulated dealer on a pty), through
    ``firmware_bridge``'s :class:`DealerClient`. Deals come from the CSPRNG, from ``seed`` (simulation) or
    from the deal file's boards."""

    def __init__(self, port: str, *, deal_file: str = "", seed: int | None = None) -> None:
        super().__init__()
        self.port = port
        self.deal_file = deal_file
        self.rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
        self.client: Any = None
        #: why the open link is down now (cable pulled mid-deal, the dealer silent), or None: the link reopens
        #: by itself, and until it does the dealer is ``lost``, never ``dealing`` as if all were well
        self.link_down: str | None = None

    def on_notice(self, notice: Notice) -> None:
        """The link's own news (from its thread): down on ``disconnected`` or ``link_lost``, up again once the
        dealer has answered (``identified``, ``link_up``)."""
        if notice.kind in ("disconnected", "link_lost"):
            self.link_down = notice.detail or notice.kind
        elif notice.kind in ("identified", "link_up"):
            self.link_down = None

    def _run(self, board: int | None, deal_no: int) -> None:
        self.state = "dealing"
        try:
            if self.client is None:
                self.client = open_dealer(self.port, on_notice=self.on_notice)
            if self.deal_file:
                plan = load_deal_file(self.deal_file, board or deal_no)
            else:
                plan = new_deal(board or deal_no, rng=self.rng)
            self.feed(DealerStarted(plan.commitment, board))

            def on_card(rec: Any) -> None:
                self.feed(DealerCard(int(rec.index), rec.card, str(rec.seat), float(rec.quality)))

            outcome = self.client.deal(plan, on_card=on_card)
            summary = outcome.summary()
            summary["deal_line"] = _line_text(summary.get("deal_line"))
            summary["level"], summary["leader"] = plan.level, plan.leader
            self.retransmits = int(getattr(self.client, "retransmits", 0) or 0)
            self.feed(_summary_input(summary))
            self.deals += 1
            self.state = "ready"
        except Exception as exc:  # the link failed: the table gets an alert, not a crash
            self.faults += 1
            self.state = "fault"
            log.warning("dealer failed: %s", exc)
            self.feed(DealerFault(fault_kind(exc), str(exc)))
        finally:
            self._busy.release()

    def health(self) -> dict[str, Any]:
        """As the base, with the port; a port that is not there (unplugged, wrong path, no permission) is
        ``missing`` with the reason, never an idle dealer; a link that went down while open (a cable pulled
        mid-deal) is ``lost`` until the dealer answers again."""
        out = {**super().health(), "port": self.port}
        problem = port_problem(self.port)
        if self.link_down is not None:
            out["state"], out["error"] = "lost", f"{self.link_down} (check the dealer's USB cable and power)"
        elif problem:  # while "dealing" too: a deal asked of a dealer that is not there is no deal in progress
            out["state"], out["error"] = "missing", problem
        return out

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def port_problem(port: str) -> str | None:
    """Why a dealer port cannot be used now, or None (``sim://`` ports are made on demand)."""
    if port.startswith("sim:"):
        return None
    if not os.path.exists(port):
        return f"no such device {port} (is the dealer plugged in? `ls /dev/ttyACM*`)"
    if not os.access(port, os.R_OK | os.W_OK):
        return f"no permission for {port} (the daemon's user must be in the dialout group)"
    return None


class DirectZones:
    """Play zones without a camera: a seat's laid cards are reported as read (simulation stand-in)."""

    def __init__(self) -> None:
        self.feed: Feed = lambda _e: None
        self.frame = 0

    def start(self, feed: Feed) -> None:
        """The first view: every zone empty (after a restart the journal's zones may be stale)."""
        self.feed = feed
        for seat in SEATS:
            self.clear(seat)

    def lay(self, seat: str, cards: Sequence[str]) -> None:
        self.frame += 1
        self.feed(CardsSeen(seat, list(cards), 1.0, self.frame))

    def clear(self, seat: str) -> None:
        self.frame += 1
        self.feed(ZoneCleared(seat, self.frame))

    def health(self) -> dict[str, Any]:
        return {"source": "direct", "frames": self.frame, "state": "ok"}

    def close(self) -> None:
        pass
