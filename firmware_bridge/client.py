"""``DealerClient``: the host's handle on one dealer (real on a serial port, or simulated on a pty).

Blocking methods, one per command, safe to call from one thread at a time; device events and link notices
queue up for :meth:`deal` (and go to ``on_notice`` as they happen, e.g. to tell the referee the cable is out).
The table daemon uses::

    client = open_dealer("/dev/ttyACM0")          # hardware.dealers; or "sim://?speed=0"
    plan = new_deal(board=1)                       # CSPRNG deal; publish plan.commitment first
    outcome = client.deal(plan, on_card=print)     # DealOutcome: ok, or fouled with a reason
    client.close()
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from .deal import PACK_SIZE, DealPlan
from .dealer_types import CommandRefused, DealerError, DeviceInfo, Inbound
from .dealing import run_deal
from .framing import Frame
from .link import LinkConfig
from .messages import (
    CommitPlan,
    Configure,
    Identity,
    LoadPlan,
    PayloadError,
    Ping,
    Pong,
    ResultMsg,
    Resume,
    SelfTestReport,
    Start,
    Status,
    decode_payload,
)
from .protocol import REPLY_TO, Msg, Result, SelfTestItem, msg_name
from .runner import LinkError, LinkRunner, Notice, Port
from .verify import CardRecord, DealOutcome


class DealerClient:
    def __init__(
        self, opener: Callable[[], Port], *, description: str = "dealer", config: LinkConfig | None = None,
        command_timeout: float = 10.0, on_notice: Callable[[Notice], None] | None = None, sim: Any = None,
        min_quality: float = 0.8,
    ) -> None:
        self.description = description
        self.command_timeout = command_timeout
        self.min_quality = min_quality
        self.sim = sim  # the SimDealer behind a sim:// URL (None for a real port)
        self._user_notice = on_notice
        self.inbox: queue.Queue[Inbound] = queue.Queue()
        self.bad_events = 0
        self.runner = LinkRunner(
            opener, config=config, description=description, on_event=self._event, on_notice=self._notice
        )
        self.runner.start()

    # -- plumbing --
    def _event(self, frame: Frame) -> None:
        try:
            body = decode_payload(frame.type, frame.payload, from_device=True)
        except PayloadError:
            self.bad_events += 1
            return
        self.inbox.put(Inbound(event=frame, body=body))

    def _notice(self, notice: Notice) -> None:
        self.inbox.put(Inbound(notice=notice))
        if self._user_notice is not None:
            self._user_notice(notice)

    def command(self, command: int, payload: bytes = b"", *, timeout: float | None = None) -> Any:
        """Send one command, wait for its reply, return the decoded reply (raises on RESULT errors)."""
        future = self.runner.submit(command, payload)
        try:
            frame = future.result(timeout=self.command_timeout if timeout is None else timeout)
        except FutureTimeout:
            future.cancel()
            if not self.runner.connected:
                why = self.runner.last_open_error or "port not open"
                raise LinkError(f"cannot open dealer port {self.description}: {why}") from None
            raise LinkError(f"{self.description}: no reply to {msg_name(command)}") from None
        body = decode_payload(frame.type, frame.payload, from_device=True)
        if isinstance(body, ResultMsg):
            if body.code != Result.OK:
                raise CommandRefused(command, body.code, body.text)
            return body
        expected = REPLY_TO.get(command)
        if expected is not None and frame.type != expected:
            raise DealerError(f"{msg_name(command)} answered with {msg_name(frame.type)}")
        return body

    @property
    def retransmits(self) -> int:
        """Commands the host sent again plus events the device sent again (those that arrived: they carry the
        RETRANSMIT flag)."""
        stats = self.runner.link.stats
        return stats.retransmits + stats.peer_retransmits

    @property
    def rtts(self) -> list[float]:
        return self.runner.link.stats.rtts

    # -- commands --
    def identify(self, *, timeout: float | None = None) -> DeviceInfo:
        ident: Identity = self.command(Msg.IDENTIFY, timeout=timeout)
        return DeviceInfo.from_identity(ident)

    def ping(self) -> float:
        nonce = int.from_bytes(os.urandom(4), "little")
        start = time.monotonic()
        pong: Pong = self.command(Msg.PING, Ping(nonce).pack())
        if pong.nonce != nonce:
            raise DealerError("PONG carries another nonce")
        return time.monotonic() - start

    def status(self) -> Status:
        return self.command(Msg.GET_STATUS)

    def configure(self, *, host_timeout_s: float = 1.5, heartbeat_s: float = 0.2, max_reads: int = 3) -> None:
        self.command(
            Msg.CONFIGURE,
            Configure(int(host_timeout_s * 1000), int(heartbeat_s * 1000), round(self.min_quality * 255),
                      max_reads).pack(),
        )

    def load_plan(self, deal_id: int, plan: DealPlan) -> None:
        data = plan.plan_bytes()
        self.command(Msg.LOAD_PLAN, LoadPlan(deal_id, 0, 1, data).pack())
        self.command(Msg.COMMIT_PLAN, CommitPlan(deal_id, PACK_SIZE, plan.digest()).pack())

    def start(self, deal_id: int, *, use_plan: bool) -> None:
        self.command(Msg.START, Start(deal_id, int(use_plan)).pack())

    def pause(self) -> None:
        self.command(Msg.PAUSE)

    def resume(self, boot_id: int) -> None:
        self.command(Msg.RESUME, Resume(boot_id).pack())

    def abort(self) -> None:
        self.command(Msg.ABORT)

    def purge(self) -> None:
        self.command(Msg.PURGE)

    def emergency_stop(self) -> None:
        self.command(Msg.ESTOP)

    def self_test(self) -> dict[str, Any]:
        report: SelfTestReport = self.command(Msg.SELF_TEST)
        checks = []
        for item, ok in report.items:
            try:
                name = SelfTestItem(item).name.lower()
            except ValueError:
                name = f"item_{item}"
            checks.append({"check": name, "ok": bool(ok)})
        return {"ok": bool(report.passed), "checks": checks}

    def deal(
        self, plan: DealPlan | None, on_card: Callable[[CardRecord], None] | None = None, *,
        timeout: float = 300.0, max_recoveries: int = 8,
    ) -> DealOutcome:
        """Deal ``plan`` (or, on a dealer without a reader, 27 a seat) and judge the result."""
        return run_deal(self, plan, on_card, timeout=timeout, max_recoveries=max_recoveries)

    def close(self) -> None:
        self.runner.stop()
        if self.sim is not None:
            self.sim.close()

    def __enter__(self) -> DealerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
