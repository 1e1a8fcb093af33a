"""A duplicate board's full result (rules §12: off the public topics until the desk releases the board) is kept in
the table's journal like any result until the desk acknowledges it, survives a restart, and is sent again on
``results/sealed``, never on the public ``results``; the public stand-in is not a result waiting for an ack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from table_daemon.adapters.mqtt import MqttLink
from table_daemon.adapters.publisher import SEALED_RESULTS, Publisher
from table_daemon.controller.sealing import SEALED_TOPIC

from .app_harness import AppHarness, play_quick_deals


def test_a_boards_full_result_waits_in_the_journal_and_goes_again_only_on_the_sealed_topic(
        mosquitto: Any, topic_root: Any, mqtt_messages: Any, tmp_path: Path) -> None:
    assert SEALED_RESULTS == SEALED_TOPIC
    h = AppHarness(tmp_path / "j.sqlite", durable=False, auto_deal=False)
    play_quick_deals(h, 1)
    twins = [m for m in h.sent if m.get("type") == "deal_result"]
    assert len(twins) == 1 and twins[0]["sealed"] is True and "hands" not in twins[0]
    pending = h.app.journal.pending_results()
    assert [rid for rid, _ in pending] == [twins[0]["id"]]
    full = json.loads(pending[0][1])
    assert full["sealed_copy"] is True and len(full["hands"]) == 4 and "seq" not in full
    assert full["epoch"] == twins[0]["epoch"] and full["table"] == twins[0]["table"]

    h.restart()  # a power cut: the result still waits for the desk
    assert [rid for rid, _ in h.app.journal.pending_results()] == [twins[0]["id"]]

    root = f"guandan/v1/{topic_root.event}/{topic_root.table}/"
    log = mqtt_messages(mosquitto.url, root + "#")
    link = MqttLink(mosquitto.url, root, f"guandan/v1/{topic_root.event}/desk/status")
    link.start()
    try:
        assert link.connected.wait(10)
        publisher = Publisher(h.app.journal, link, table=topic_root.table, event=topic_root.event, epoch="e2",
                              root=root)
        assert publisher.resend_results() == 1
        got = log.wait_for(lambda ms: any(m.topic.endswith("/" + SEALED_RESULTS) for m in ms), timeout=10)
        (sent,) = [m for m in got if m.topic.endswith("/" + SEALED_RESULTS)]
        assert sent.payload == full and not sent.retain
        assert not [m for m in log.snapshot() if m.topic == root + "results"]
        assert h.app.journal.ack_result(full["id"]) and h.app.journal.pending_results() == []
    finally:
        link.stop()
