"""Referee signatures and reply topics (table_daemon/controller/auth.py), and the controller's use of them."""

from __future__ import annotations

from typing import Any

from guandan import get_profile
from table_daemon.controller import Command, Reply, TableController
from table_daemon.controller.auth import check_signature, reply_topic_error, sign_command

KEY = b"k" * 16


def test_a_reply_goes_where_the_command_says_but_never_among_the_tables_own_topics() -> None:
    for ok in ("guandan/v1/replies/desk/ev/T01", "guandan/v1/replies/tool1/ev/T02", "tools/replies/abc",
               "x/replies/desk/ev/T01"):
        assert reply_topic_error(ok, "guandan/v1", "ev", "T01") is None, ok
    for bad in ("guandan/v1/ev/T01/results", "guandan/v1/ev/T02/state", "guandan/v1", "guandan/v1/replies/+/ev/T01",
                "tools/#", "$SYS/x", "", "t" * 600):
        assert reply_topic_error(bad, "guandan/v1", "ev", "T01"), bad


def test_signature_binds_table_command_payload_and_nonce() -> None:
    body = {"team": "NS", "kind": "warning", "role": "referee"}
    signed = sign_command(KEY, "T01", "penalty", body, "nonce-123")
    assert check_signature(KEY, "T01", "penalty", signed, set()) == (None, "nonce-123")
    assert check_signature(KEY, "T02", "penalty", signed, set())[0]
    assert check_signature(KEY, "T01", "correct", signed, set())[0]
    assert check_signature(b"other-key", "T01", "penalty", signed, set())[0]
    assert check_signature(KEY, "T01", "penalty", {**signed, "kind": "forfeit"}, set())[0]
    assert check_signature(KEY, "T01", "penalty", signed, {"nonce-123"})[0]
    assert check_signature(KEY, "T01", "penalty", body, set())[0]


def test_controller_obeys_a_signed_referee_command_once() -> None:
    c = TableController("T01", "ev", get_profile("national"), referee_key=KEY)
    c.handle(Command("start_match", {"match_end": {"method": "deals", "deals": 1}}, "s"), 0.5)  # a penalty's match
    body = {"team": "EW", "kind": "verbal_warning", "role": "referee"}

    def reply(payload: dict[str, Any]) -> Reply:
        return next(e for e in c.handle(Command("penalty", payload, "t"), 1.0) if isinstance(e, Reply))

    assert not reply(body).ok  # unsigned
    assert c.penalties["EW"]["verbal_warning"] == 0
    signed = sign_command(KEY, "T01", "penalty", body, "nonce-abc")
    assert reply(signed).ok and c.penalties["EW"]["verbal_warning"] == 1
    assert not reply(signed).ok and c.penalties["EW"]["verbal_warning"] == 1
