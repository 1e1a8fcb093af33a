"""The referee account's link against a real table on a real Mosquitto: several referees sending at once each get
their own table's answer (matched by correlation data, not by arrival), a table that checks signatures obeys
the link that signs and refuses the one that does not, and a table nobody runs is "no answer", said."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from table_daemon.adapters.mqtt_connection import parse_broker_url
from table_daemon.adapters.referee_link import NoAnswer, RefereeLink
from table_daemon.app import TableApp
from table_daemon.config import simulated_config


def test_answers_reach_their_own_callers_and_signed_commands_are_obeyed(mosquitto: Any, topic_root: Any,
                                                                         tmp_path: Path) -> None:
    key_file = tmp_path / "referee.key"
    key_file.write_text("a-referee-signing-key\n", "utf-8")
    cfg = simulated_config(table=topic_root.table, event=topic_root.event, broker=mosquitto.url,
                           journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False, referee_key_file=str(key_file))
    app = TableApp(cfg)
    address = parse_broker_url(mosquitto.url)
    signed = RefereeLink(address, topic_root.event, key=b"a-referee-signing-key")
    unsigned = RefereeLink(address, topic_root.event)
    app.start()
    signed.start()
    unsigned.start()
    try:
        assert app.link is not None and app.link.connected.wait(10)
        assert signed.wait_connected(10) and unsigned.wait_connected(10)
        time.sleep(0.2)
        answers: dict[str, dict[str, Any]] = {}

        def send(ruling: str, name: str, body: dict[str, Any]) -> None:
            answers[ruling] = signed.send(topic_root.table, name, {"id": ruling, **body}, 10)

        # at once from four threads: a resync and penalties (refused: no match), each its own answer
        threads = [threading.Thread(target=send, args=("r-sync", "resync", {}))] + [
            threading.Thread(target=send, args=(f"r-pen-{i}", "penalty", {"kind": "warning", "seat": "N"}))
            for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(15)
        assert answers["r-sync"] == {"ok": True, "error": None, "id": "r-sync"}
        for i in range(3):
            assert answers[f"r-pen-{i}"]["id"] == f"r-pen-{i}" and answers[f"r-pen-{i}"]["ok"] is False
            assert "no match in play" in answers[f"r-pen-{i}"]["error"]  # signed, so refused for the match alone
        said = unsigned.send(topic_root.table, "penalty", {"kind": "warning", "seat": "N"}, 10)
        assert said["ok"] is False and "signed" in said["error"]
        with pytest.raises(NoAnswer, match="no answer from table T99"):
            signed.send("T99", "pause", {}, 1)
    finally:
        signed.stop()
        unsigned.stop()
        app.stop()


def test_a_name_the_tables_would_not_answer_is_refused() -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        RefereeLink(parse_broker_url("mqtt://127.0.0.1:1"), "ev", user="referee/+")


def test_a_table_behind_an_mqtt_3_bridge_answers_by_reply_to_and_is_matched_by_id(mosquitto: Any, topic_root: Any,
                                                                                  tmp_path: Path) -> None:
    """A hall's bridge to the centre speaks MQTT 3.1.1 and drops the response topic and correlation data: the
    head referees' commands from the centre went unanswered. A table on MQTT 3.1.1 gets messages the same way."""
    cfg = simulated_config(table=topic_root.table, event=topic_root.event, broker=mosquitto.url,
                           journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False)
    cfg.mqtt = replace(cfg.mqtt, protocol=4)
    app = TableApp(cfg)
    link = RefereeLink(parse_broker_url(mosquitto.url), topic_root.event)
    app.start()
    link.start()
    try:
        assert app.link is not None and app.link.connected.wait(10) and link.wait_connected(10)
        time.sleep(0.2)
        answer = link.send(topic_root.table, "resync", {"id": "over-the-bridge"}, 10)
        assert answer == {"ok": True, "error": None, "id": "over-the-bridge"}
    finally:
        link.stop()
        app.stop()
