"""The desk names every alert a table raises in Chinese and English: fouls, the dealer's, the camera's and the
table's health (a referee must never read 其他警报 "other alert" for a table that is failing)."""

from __future__ import annotations

from table_daemon.controller import camera, health
from table_daemon.controller.steps import FOUL_OF_REASON
from table_daemon.desk.alerts import NAMES, describe, type_words


def test_every_alert_code_a_table_raises_has_its_names() -> None:
    raised = {*health.TEXT, *camera.TEXT, *FOUL_OF_REASON.values(), "misread", "exposed_card", "slow_play",
              "missing_report", "dealer_jam", "dealer_fault", "referee_call"}
    unnamed = sorted(raised - NAMES.keys())
    assert unnamed == []
    for zh, en in NAMES.values():
        assert zh and not zh.isascii() and en.isascii()


def test_a_journal_failure_reads_in_both_languages() -> None:
    row = describe({"code": "journal_write_failed", "table": "T07", "ts": "2026-12-07T06:00:00.000Z",
                    "message": health.TEXT["journal_write_failed"], "evidence": {"detail": "1× since ..."}},
                   "Asia/Shanghai")
    assert row["type"] == "牌局日志无法写入 journal cannot be written"
    assert row["time"].startswith("2026-12-07 14:00") and row["picture"] is False
    assert type_words("no_such_code") == "其他警报 no such code"
