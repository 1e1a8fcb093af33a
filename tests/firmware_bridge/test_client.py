"""DealerClient against a scripted device on a real pty: exact replies, losses, reorderings, reboots."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from firmware_bridge import (
    CommandRefused,
    DealerClient,
    DealerError,
    LinkError,
    Notice,
    new_deal,
    serial_opener,
)
from firmware_bridge.framing import Frame
from firmware_bridge.link import LinkConfig
from firmware_bridge.messages import Ping, Pong, ResultMsg, Status
from firmware_bridge.protocol import Msg, Result

from .scripted import ScriptedDevice


def client_for(device: ScriptedDevice, notices: list[Notice] | None = None, **kw: Any) -> DealerClient:
    return DealerClient(
        serial_opener(device.path), description="scripted", on_notice=notices.append if notices is not None else None,
        command_timeout=kw.pop("command_timeout", 5.0), **kw,
    )


def standard(device: ScriptedDevice, frame: Frame) -> None:
    if frame.type == Msg.IDENTIFY:
        device.identity(frame)
    elif frame.type == Msg.PING:
        nonce = Ping.unpack(frame.payload).nonce
        device.reply(frame, Msg.PONG, Pong(nonce, 5).pack())
    elif frame.type == Msg.PURGE:
        device.reply(frame, Msg.RESULT, ResultMsg(Result.BAD_STATE, "pause or abort first").pack())


def wait_for(condition: Callable[[], object], timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def test_lost_reply_is_retransmitted_with_the_same_sequence_number() -> None:
    dropped: list[int] = []

    def lossy(device: ScriptedDevice, frame: Frame) -> None:
        if frame.type == Msg.PING and not dropped:
            dropped.append(frame.seq)  # swallow the first reply
            return
        standard(device, frame)

    device = ScriptedDevice(lossy)
    client = client_for(device)
    try:
        assert client.identify().name == "scripted"
        client.ping()
        pings = [f for f in device.received if f.type == Msg.PING]
        assert len(pings) == 2 and pings[0].seq == pings[1].seq == dropped[0]
        assert pings[0].payload == pings[1].payload
        assert client.runner.link.stats.retransmits >= 1
    finally:
        client.close()
        device.close()


def test_refusals_raise_with_the_reason() -> None:
    device = ScriptedDevice(standard)
    client = client_for(device)
    try:
        with pytest.raises(CommandRefused, match="BAD_STATE") as info:
            client.purge()
        assert info.value.code == Result.BAD_STATE and info.value.text == "pause or abort first"
    finally:
        client.close()
        device.close()


def test_a_silent_device_gives_a_link_error_and_a_link_lost_notice() -> None:
    notices: list[Notice] = []
    device = ScriptedDevice(lambda d, f: None)
    client = client_for(device, notices, command_timeout=1.0, config=LinkConfig(link_lost_s=0.3))
    try:
        with pytest.raises(LinkError, match="no reply to IDENTIFY"):
            client.identify()
        assert any(n.kind == "link_lost" for n in notices)
        assert len({f.seq for f in device.received if f.type == Msg.IDENTIFY}) == 1  # one command, resent
    finally:
        client.close()
        device.close()


def test_events_are_delivered_in_order_even_when_they_arrive_out_of_order() -> None:
    device = ScriptedDevice(standard)
    client = client_for(device)
    try:
        client.identify()
        wait_for(lambda: client.runner.ready)
        base = device.event_seq
        for offset in (2, 0, 1):
            device.event(Msg.STATUS, bytes(19), seq=base + offset)
        wait_for(lambda: client.inbox.qsize() >= 5)  # 'connected' + 'identified' notices, then 3 events
        items = [client.inbox.get() for _ in range(client.inbox.qsize())]
        seqs = [i.event.seq for i in items if i.event is not None]
        assert seqs == [base, base + 1, base + 2]
        # the cumulative ACK of all three follows their delivery (the device gets it a moment later)
        wait_for(lambda: any(f.type == Msg.ACK and f.ack == base + 2 for f in list(device.received)))
        acks = [f.ack for f in device.received if f.type == Msg.ACK]
        assert max(acks) == base + 2
    finally:
        client.close()
        device.close()


def test_boot_id_change_is_noticed_and_the_stream_resynchronised() -> None:
    notices: list[Notice] = []
    device = ScriptedDevice(standard)
    client = client_for(device, notices)
    try:
        first = client.identify().boot_id
        device.boot_id = 0x12345678
        device.event_seq = 7
        device.heartbeat()
        wait_for(lambda: any(n.kind == "boot_changed" for n in notices))
        changed = next(n for n in notices if n.kind == "boot_changed")
        assert (changed.old_boot_id, changed.boot_id) == (first, 0x12345678)
        wait_for(lambda: client.runner.ready and client.runner.link.expected_event == 7)
    finally:
        client.close()
        device.close()


def test_unplug_is_reported_and_the_port_reopened() -> None:
    notices: list[Notice] = []
    device = ScriptedDevice(standard)
    client = client_for(device, notices)
    try:
        client.identify()
        device.unplug()
        wait_for(lambda: any(n.kind == "disconnected" for n in notices))
        time.sleep(0.3)  # the client keeps trying meanwhile
        device.replug()
        wait_for(lambda: [n.kind for n in notices].count("identified") == 2)
        assert client.ping() >= 0
        assert client.runner.reconnects == 1
    finally:
        client.close()
        device.close()


def test_reply_of_an_unexpected_type_is_an_error() -> None:
    def odd(device: ScriptedDevice, frame: Frame) -> None:
        if frame.type == Msg.PING:
            device.reply(frame, Msg.STATUS_REPLY, bytes(19))
        else:
            standard(device, frame)

    device = ScriptedDevice(odd)
    client = client_for(device)
    try:
        with pytest.raises(DealerError, match="PING answered with STATUS_REPLY"):
            client.ping()
    finally:
        client.close()
        device.close()


def test_a_command_outstanding_across_a_reconnect_keeps_its_sequence_number() -> None:
    executed: list[int] = []

    def flaky(device: ScriptedDevice, frame: Frame) -> None:
        if frame.type == Msg.START:
            if not executed:  # execute, then the cable is pulled before the reply gets out
                executed.append(frame.seq)
                def pull_the_cable() -> None:
                    device.unplug()
                    time.sleep(0.2)
                    device.replug()

                threading.Timer(0.0, pull_the_cable).start()
                return
            device.reply(frame, Msg.RESULT, ResultMsg(Result.OK, "cached").pack())  # same seq: from the cache
            return
        standard(device, frame)

    device = ScriptedDevice(flaky)
    client = client_for(device)
    try:
        client.identify()
        client.start(7, use_plan=True)
        starts = [f for f in device.received if f.type == Msg.START]
        assert len(starts) >= 2 and {f.seq for f in starts} == {executed[0]}

        def identified_after_start() -> bool:
            kinds = [f.type for f in device.received]
            return Msg.IDENTIFY in kinds[len(kinds) - 1 - kinds[::-1].index(Msg.START) :]

        wait_for(identified_after_start)  # resynchronised once the outstanding command was answered
    finally:
        client.close()
        device.close()


def test_a_setup_refusal_after_a_reboot_is_reported_as_a_reset() -> None:
    def rebooting(device: ScriptedDevice, frame: Frame) -> None:
        if frame.type == Msg.START:  # the dealer rebooted just before: its plan is gone
            device.boot_id = 0x0BADB007
            device.reply(frame, Msg.RESULT, ResultMsg(Result.NO_PLAN, "no committed plan").pack())
        elif frame.type == Msg.GET_STATUS:
            device.reply(frame, Msg.STATUS_REPLY, Status(0, device.boot_id, 0, 0, (0, 0, 0, 0), 0, 108, 0, 0).pack())
        elif frame.type in (Msg.CONFIGURE, Msg.LOAD_PLAN, Msg.COMMIT_PLAN, Msg.ABORT):
            device.reply(frame, Msg.RESULT, ResultMsg(Result.OK, "").pack())
        else:
            standard(device, frame)

    device = ScriptedDevice(rebooting)
    client = client_for(device)
    try:
        outcome = client.deal(new_deal(1), timeout=10)
        assert not outcome.ok
        assert outcome.fouled is not None and outcome.fouled.startswith("reset: dealer rebooted mid-deal (boot id b0b0b0b0 -> 0badb007)")
    finally:
        client.close()
        device.close()
