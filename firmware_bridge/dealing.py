"""One deal from the host's side: load and commit the plan, start, follow the cards, recover, judge.

Recovery policy: a jam, stalled motor, opened door or host silence stops the dealer; the host resumes it
(RESUME carries the boot id the deal started under, so a rebooted dealer refuses) up to ``max_recoveries``
times. A changed boot id, an emergency stop, a refused command or the deadline fouls the deal at once;
everything else is judged by :class:`DealVerifier` when the dealer reports the end of the deal.
"""

from __future__ import annotations

import queue
import secrets
import time
from collections.abc import Callable
from typing import Protocol

from .deal import DealPlan
from .dealer_types import CommandRefused, DealerError, DeviceInfo, Inbound
from .messages import Boot, CardMsg, DealDone, FaultMsg, Status
from .protocol import PAUSING_FAULTS, Fault, Result, State
from .runner import LinkError, LinkRunner
from .verify import CardRecord, DealOutcome, DealVerifier

IN_DEAL = (State.DEALING, State.PAUSED, State.FAULTED, State.ESTOP)


class DealingClient(Protocol):
    """What a deal's run needs of the dealer client (``client.DealerClient`` is the one there is)."""

    inbox: queue.Queue[Inbound]
    min_quality: float
    runner: LinkRunner

    @property
    def retransmits(self) -> int: ...
    def identify(self, *, timeout: float | None = None) -> DeviceInfo: ...
    def status(self) -> Status: ...
    def configure(self, *, host_timeout_s: float = 1.5, heartbeat_s: float = 0.2, max_reads: int = 3) -> None: ...
    def load_plan(self, deal_id: int, plan: DealPlan) -> None: ...
    def start(self, deal_id: int, *, use_plan: bool) -> None: ...
    def resume(self, boot_id: int) -> None: ...
    def abort(self) -> None: ...


def _drain(client: DealingClient) -> None:
    while True:
        try:
            client.inbox.get_nowait()
        except queue.Empty:
            return


class _Deal:
    def __init__(
        self, client: DealingClient, verifier: DealVerifier, boot_id: int, deal_id: int, max_recoveries: int
    ) -> None:
        self.client = client
        self.max_recoveries = max_recoveries
        self.verifier = verifier
        self.boot_id = boot_id
        self.deal_id = deal_id
        self.recoveries = 0
        self.resume_at: float | None = None
        self.done: DealDone | None = None
        self.finished = False
        self.estopped = False  # an emergency stop stays latched for the operator: never ABORT it away

    def try_resume(self, now: float) -> None:
        """Resume a stopped dealer (if it is still the same boot); retry later while the link is down."""
        self.resume_at = None
        try:
            status = self.client.status()
            if self.verifier.boot_seen(status.boot_id):
                return
            if status.state in (State.PAUSED, State.FAULTED):
                if self.recoveries >= self.max_recoveries:
                    self.verifier.foul(f"recovery: dealer stopped {self.recoveries + 1} times; gave up")
                    return
                self.client.resume(self.boot_id)
                self.recoveries += 1
        except CommandRefused as exc:
            if exc.code == Result.DOOR_OPEN:
                self.resume_at = now + 0.1
            elif exc.code == Result.BOOT_MISMATCH:
                self.verifier.foul(f"reset: dealer refused to resume: {exc.text}")
        except LinkError:
            self.resume_at = now + 0.5

    def handle(self, item: object, on_card: Callable[[CardRecord], None] | None) -> None:
        notice = getattr(item, "notice", None)
        if notice is not None:
            if notice.boot_id is not None and notice.kind in ("boot_changed", "identified"):
                if not self.verifier.boot_seen(notice.boot_id) and notice.kind == "identified":
                    self.resume_at = time.monotonic()  # reconnected to the same boot: carry on
            return
        body = getattr(item, "body", None)
        if isinstance(body, CardMsg):
            if body.deal_id == self.deal_id:
                record = self.verifier.card(body)
                if on_card is not None:
                    on_card(record)
        elif isinstance(body, FaultMsg):
            if body.deal_id not in (self.deal_id, 0):
                return
            self.verifier.fault(body)
            if body.code == Fault.ESTOP:
                self.estopped = True
                self.verifier.foul("estop: emergency stop during the deal")
            elif body.code in PAUSING_FAULTS:
                self.resume_at = time.monotonic()
        elif isinstance(body, DealDone):
            if body.deal_id == self.deal_id:
                self.done = body
                self.finished = True
        elif isinstance(body, Boot | Status):
            self.verifier.boot_seen(body.boot_id)


def _follow(
    client: DealingClient, state: _Deal, deadline: float, timeout: float,
    on_card: Callable[[CardRecord], None] | None,
) -> None:
    """Consume events until DEAL_DONE, a foul, or the deadline; resume the dealer when it stops."""
    verifier = state.verifier
    while not state.finished and verifier.fouled is None:
        now = time.monotonic()
        if now >= deadline:
            verifier.foul(f"timeout: the deal did not finish within {timeout:.0f} s")
            return
        if state.resume_at is not None and now >= state.resume_at:
            state.try_resume(now)
            continue
        wake = min(deadline, state.resume_at if state.resume_at is not None else deadline)
        try:
            item = client.inbox.get(timeout=max(0.0, min(0.5, wake - now)))
        except queue.Empty:
            continue
        state.handle(item, on_card)


def run_deal(
    client: DealingClient, plan: DealPlan | None, on_card: Callable[[CardRecord], None] | None, *,
    timeout: float, max_recoveries: int,
) -> DealOutcome:

    started = time.monotonic()
    deadline = started + timeout
    retransmits_before = client.retransmits
    info = client.identify()
    if plan is not None and not info.deals_to_plan:
        raise DealerError("this dealer cannot deal to a plan: it can only deal 27 cards a seat unchecked")
    if plan is None and info.deals_to_plan:
        raise DealerError("this dealer deals only to a plan: give one (new_deal() draws a fresh one)")
    verifier = DealVerifier(plan, info.boot_id, reads_faces=info.reads_faces, min_quality=client.min_quality)
    deal_id = secrets.randbits(32)
    state = _Deal(client, verifier, info.boot_id, deal_id, max_recoveries)
    _drain(client)
    try:
        client.configure()
        status = client.status()
        verifier.boot_seen(status.boot_id)
        if status.state in IN_DEAL:
            client.abort()
        if plan is not None:
            client.load_plan(deal_id, plan)
        client.start(deal_id, use_plan=plan is not None)
    except (DealerError, LinkError) as exc:
        try:  # a refusal right after a reboot (the plan is gone) is a reset, say so
            verifier.boot_seen(client.identify(timeout=2.0).boot_id)
        except (DealerError, LinkError):
            pass
        verifier.foul(f"setup: {exc}")
    try:
        _follow(client, state, deadline, timeout, on_card)
    finally:  # fouled, timed out, or the caller's on_card raised: stop a dealer still busy with this deal
        if not state.finished and not state.estopped and client.runner.boot_id == info.boot_id:
            try:
                client.abort()
            except (DealerError, LinkError):
                pass
    ok, reason = verifier.finish(state.done)
    return DealOutcome(
        ok=ok, fouled=reason, hands=verifier.hands(), cards=list(verifier.cards),
        faces_verified=info.reads_faces, faults=list(verifier.faults),
        commitment=plan.commitment if plan is not None else None,
        deal_line=plan.deal_line() if plan is not None else None,
        board=plan.board if plan is not None else None, boot_id=info.boot_id,
        retransmits=client.retransmits - retransmits_before, seconds=time.monotonic() - started,
        recoveries=state.recoveries,
    )
