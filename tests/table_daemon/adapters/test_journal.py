"""The journal: WAL mode, inputs in order, outbox and results survive a reopen until sent / acknowledged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from table_daemon.adapters.journal import Journal, OutboxMessage


def test_journal_keeps_inputs_outbox_and_results_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    epoch = j.new_epoch("T1")
    msgs = [OutboxMessage(epoch, 1, "r/events", '{"seq":1}', 1, False),
            OutboxMessage(epoch, 2, "r/results", '{"seq":2,"id":"a"}', 1, False)]
    j.record(10.0, "press", {"seat": "S", "button": "pass"}, msgs, [("a", '{"seq":2,"id":"a"}')])
    j.record(11.0, "tick", {}, [], [])
    j.mark_sent(epoch, 1)
    j.close()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    j = Journal(path)
    assert j.new_epoch("T1") != epoch
    assert [(i.kind, i.data) for i in j.inputs()] == [("press", {"seat": "S", "button": "pass"}), ("tick", {})]
    assert [m.seq for m in j.unsent()] == [2] and j.backlog() == 1
    assert j.pending_results() == [("a", '{"seq":2,"id":"a"}')]
    assert j.ack_result("a") and not j.ack_result("a") and j.pending_results() == []


def test_a_failed_transaction_stores_nothing(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    dup = OutboxMessage("e", 1, "t", "{}", 1, False)
    try:
        j.record(1.0, "tick", {}, [dup, dup], [])
    except sqlite3.IntegrityError:
        pass
    assert j.input_count() == 0 and j.unsent() == []


def test_prune_keeps_the_newest_sent_messages_and_every_unsent_one(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite", synchronous="OFF")
    epoch = j.new_epoch("T1")
    j.record_outbox([OutboxMessage(epoch, n, "r/state", "{}", 1, True) for n in range(1, 3001)])
    for n in range(1, 3001):
        if n != 7:  # one the broker never took
            j.mark_sent(epoch, n)
    j.prune_sent(keep=500)
    left = j._db.execute("SELECT seq FROM outbox ORDER BY seq").fetchall()
    assert [r[0] for r in left][0] == 7 and len(left) <= 502
    assert [m.seq for m in j.unsent()] == [7]
    j.close()


def test_a_full_disk_is_said_as_such_not_as_a_failed_rollback(tmp_path: Path) -> None:
    """SQLite rolls a transaction back by itself when the disk is full; the journal's own ROLLBACK then failed
    and its error ("cannot rollback - no transaction is active") reached the referee instead of the cause."""
    journal = Journal(tmp_path / "j.sqlite")
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")  # the SD card is full
    with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
        journal.record(1.0, "tick", {"big": "x" * 100_000}, [], [])
    journal._db.execute("PRAGMA max_page_count = 1000000")  # space freed: the journal writes again
    assert journal.record(2.0, "tick", {}, [], []) >= 1
