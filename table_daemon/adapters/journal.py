"""The table's journal on disk: SQLite in WAL mode, one file per table.

Why: a power cut or ``kill -9`` in the middle of a deal must restart into the same deal and the same turn
with nothing lost and nothing published twice under a new id. The journal is event-sourced:

- ``inputs``: every input the controller accepted (dealer event, card reading, button, command, timer tick
  that changed something), with its time. Replaying them through a fresh controller rebuilds the exact
  state.
- ``outbox``: every message published on a sequenced topic, with its ``epoch`` and ``seq``, written in the
  same transaction as the input that caused it; ``sent`` is set when the broker acknowledged it. After a
  restart the messages never acknowledged are sent again under their original epoch and seq (consumers drop
  duplicates by (epoch, seq)), never under a new one.
- ``results``: deal and match results, kept until the scoring desk acknowledges them on ``results/ack``.
- ``refs``: the controller's number of each event (``ref``) with the (epoch, seq) it went out under, written
  with the input that caused it, so that a referee correction after a restart still names (``replaces``) an
  event published before it.
- ``snapshots``: the controller's whole state after one input (at each deal's end, or every N inputs), so a
  restart loads it and replays only the inputs after it; taking one drops the inputs it stands for, and
  acknowledged results beyond the newest few, so the journal stays small over a day of play.
- ``meta``: the run counter (epochs) and other small values.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (id INTEGER PRIMARY KEY, ts REAL NOT NULL, kind TEXT NOT NULL,
                                   data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (epoch TEXT NOT NULL, seq INTEGER NOT NULL, topic TEXT NOT NULL,
                                   payload TEXT NOT NULL, qos INTEGER NOT NULL, retain INTEGER NOT NULL,
                                   sent INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (epoch, seq));
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (sent) WHERE sent = 0;
CREATE TABLE IF NOT EXISTS refs (ref INTEGER PRIMARY KEY, epoch TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (id INTEGER PRIMARY KEY, input_id INTEGER NOT NULL, ts REAL NOT NULL,
                                      version TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS results (id TEXT PRIMARY KEY, payload TEXT NOT NULL, created REAL NOT NULL,
                                    acked REAL);
"""


@dataclass(frozen=True)
class JournalInput:
    id: int
    ts: float
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class OutboxMessage:
    epoch: str
    seq: int
    topic: str
    payload: str
    qos: int
    retain: bool


class JournalError(RuntimeError):
    """The journal cannot be opened or started: damaged (a power cut mid-write on a card that lies about its
    writes), or its disk full. The message names the file and what to do."""


#: what to do, by what SQLite said
_FULL = "the disk holding it is full (free space on the SD card, then start the table again)"
_DAMAGED = ("it is damaged: move it aside and recover what it holds with `sqlite3 FILE .recover`, or start "
            "with an empty journal (the match in play must then be entered again by the referee)")


def journal_problem(exc: BaseException) -> str:
    """What an SQLite error says of a journal, in words a technician acts on."""
    text = str(exc)
    if "full" in text:
        return _FULL
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return _DAMAGED
    return text


def sqlite_check(path: str | Path, *, read_only: bool = False) -> tuple[str, str] | None:
    """SQLite's own check of a journal file (``quick_check``, and that it holds a journal's ``meta``): None when
    sound, else (the technician's words of :func:`journal_problem`, SQLite's own message)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True) if read_only else sqlite3.connect(str(path))
        try:
            rows = db.execute("PRAGMA quick_check").fetchall()
            if [tuple(r) for r in rows] == [("ok",)]:
                db.execute("SELECT count(*) FROM meta").fetchone()
        finally:
            db.close()
    except sqlite3.Error as exc:
        return journal_problem(exc), str(exc)
    if [tuple(r) for r in rows] != [("ok",)]:
        return journal_problem(sqlite3.DatabaseError("malformed")), str(rows[0][0])
    return None


class Journal:
    """Thread-safe access to one journal file (``:memory:`` for throw-away runs).

    ``synchronous`` is FULL by default: a committed input survives a power cut, at the cost of one fsync per
    input (a few per second at a table).
    """

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            checked = self._db.execute("PRAGMA quick_check").fetchall()  # a file cut short reads as half a match
            if [tuple(r) for r in checked] != [("ok",)]:
                raise sqlite3.DatabaseError(f"database disk image is malformed ({checked[0][0]})"[:300])
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"journal {self.path}: {journal_problem(exc)} [{exc}]") from exc
        self._synchronous = synchronous
        self._identity = self._file_identity()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- the file itself ----------------------------------------------------------------------------------
    def _file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the journal file at its path; None for ``:memory:`` or no file there."""
        if self.path == ":memory:":
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def file_lost(self) -> bool:
        """Whether the file at the journal's path is no longer the one the table writes (deleted, or replaced
        by another): SQLite goes on writing the open, unlinked file, so nothing fails, and the next restart
        would find no journal, or another one."""
        return self.path != ":memory:" and self._file_identity() != self._identity

    def restore_file(self) -> None:
        """Write the journal as the table holds it open (everything it journaled, the deleted file's contents)
        to a new file at its path, and go on with that one: nothing is lost. A file someone put at the path is
        moved aside (``.replaced-TIME``), never destroyed. Raises OSError or sqlite3.Error when it cannot (the
        folder not makeable, the disk full); the table then goes on with the file it has open."""
        with self._lock:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            part = f"{self.path}.restoring"
            for leftover in (part, part + "-wal", part + "-shm"):
                Path(leftover).unlink(missing_ok=True)
            copy = sqlite3.connect(part, isolation_level=None)
            try:
                self._db.backup(copy)
            finally:
                copy.close()
            # the open connection's -wal and -shm still go by the path's names: closing it takes them away, so
            # the new file never meets a write-ahead log that is not its own
            self._db.close()
            where = part  # until the copy is at the path, journaling goes on in it (said lost again next look)
            try:
                if os.path.exists(self.path):
                    aside = f"{self.path}.replaced-{int(time.time())}"
                    for suffix in ("", "-wal", "-shm"):
                        if os.path.exists(self.path + suffix):
                            os.replace(self.path + suffix, aside + suffix)
                os.replace(part, self.path)
                where = self.path
            finally:
                self._db = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(f"PRAGMA synchronous={self._synchronous}")
                self._identity = self._file_identity() if where == self.path else (-1, -1)

    def copy_to(self, target: str | Path) -> None:
        """Write the journal as it stands to ``target`` in one self-contained file (a mirror on other storage),
        atomically: the copy is made beside it, synced, then renamed over it, so a power cut or a stick pulled
        mid-copy leaves the mirror before it whole. It reads the journal's file through a connection of its own
        (WAL lets it read while the table writes), so a slow stick never holds the table's journal; safe to call
        from another thread. Raises OSError or sqlite3.Error when it cannot."""
        target = Path(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        part = Path(f"{target}.part")
        for leftover in (part, Path(f"{part}-wal"), Path(f"{part}-shm"), Path(f"{part}-journal")):
            leftover.unlink(missing_ok=True)
        copy = sqlite3.connect(part, isolation_level=None)
        try:
            if self.path == ":memory:":  # no file to read apart: the table's own connection, held meanwhile
                with self._lock:
                    self._db.backup(copy)
            else:
                source = sqlite3.connect(f"file:{urllib.parse.quote(self.path)}?mode=ro", uri=True)
                try:
                    source.backup(copy)  # one step: a consistent picture of what was committed
                finally:
                    source.close()
            copy.execute("PRAGMA journal_mode=DELETE")  # one file: no write-ahead log to carry beside it
        finally:
            copy.close()
        fd = os.open(part, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(part, target)
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)  # the rename itself survives a power cut
        finally:
            os.close(folder)

    def _rollback(self) -> None:
        """Undo the transaction a failed write left open. SQLite rolls back by itself on some errors (a full
        disk, I/O errors); a ROLLBACK then fails ("no transaction is active") and its error would hide the
        real one, which the caller re-raises and the referee must read ("database or disk is full")."""
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    # -- meta ---------------------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def new_epoch(self, table: str) -> str:
        """Start a new run: a boot id that differs from every earlier run of this journal."""
        with self._lock:
            try:
                runs = int(self.get_meta("runs", "0") or 0) + 1
                self.set_meta("runs", str(runs))
            except sqlite3.DatabaseError as exc:  # the table cannot start a run it could not recover from
                raise JournalError(f"journal {self.path}: {journal_problem(exc)} [{exc}]") from exc
        return f"{table}-{int(time.time())}-{runs}"

    # -- inputs -------------------------------------------------------------------------------------------
    def inputs(self, after: int = 0) -> Iterator[JournalInput]:
        """Every journaled input in order (``after``: skip ids up to that one)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, ts, kind, data FROM inputs WHERE id > ? ORDER BY id", (after,)
            ).fetchall()
        for row in rows:
            yield JournalInput(row[0], row[1], row[2], json.loads(row[3]))

    def input_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM inputs").fetchone()[0])

    def record(self, ts: float, kind: str, data: dict[str, Any], outbox: list[OutboxMessage],
               results: list[tuple[str, str]], refs: Sequence[tuple[int, str, int]] = ()) -> int:
        """Store one input with the messages and results it caused (and the (ref, epoch, seq) of its
        events), in one transaction."""
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.execute("INSERT INTO inputs (ts, kind, data) VALUES (?, ?, ?)",
                            (ts, kind, json.dumps(data, separators=(",", ":"))))
                rowid = int(cur.lastrowid or 0)
                cur.executemany(
                    "INSERT INTO outbox (epoch, seq, topic, payload, qos, retain) VALUES (?, ?, ?, ?, ?, ?)",
                    [(m.epoch, m.seq, m.topic, m.payload, m.qos, int(m.retain)) for m in outbox],
                )
                cur.executemany(
                    "INSERT OR IGNORE INTO results (id, payload, created) VALUES (?, ?, ?)",
                    [(rid, payload, ts) for rid, payload in results],
                )
                cur.executemany("INSERT OR REPLACE INTO refs (ref, epoch, seq) VALUES (?, ?, ?)", list(refs))
                cur.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        return rowid

    def record_outbox(self, messages: list[OutboxMessage]) -> None:
        """Messages caused by no input (status at start, resync answers)."""
        if not messages:
            return
        with self._lock:
            self._db.executemany(
                "INSERT INTO outbox (epoch, seq, topic, payload, qos, retain) VALUES (?, ?, ?, ?, ?, ?)",
                [(m.epoch, m.seq, m.topic, m.payload, m.qos, int(m.retain)) for m in messages],
            )

    # -- outbox -------------------------------------------------------------------------------------------
    def mark_sent(self, epoch: str, seq: int) -> None:
        with self._lock:
            self._db.execute("UPDATE outbox SET sent = 1 WHERE epoch = ? AND seq = ?", (epoch, seq))

    def is_sent(self, epoch: str, seq: int) -> bool:
        """Whether the broker acknowledged this message (a message not in the outbox counts as sent)."""
        with self._lock:
            row = self._db.execute("SELECT sent FROM outbox WHERE epoch = ? AND seq = ?", (epoch, seq)).fetchone()
        return row is None or bool(row[0])

    def unsent(self, epoch: str | None = None) -> list[OutboxMessage]:
        """Messages never acknowledged by the broker (of one epoch, or of every earlier one)."""
        q = "SELECT epoch, seq, topic, payload, qos, retain FROM outbox WHERE sent = 0"
        args: tuple[Any, ...] = ()
        if epoch is not None:
            q += " AND epoch = ?"
            args = (epoch,)
        with self._lock:
            rows = self._db.execute(q + " ORDER BY rowid", args).fetchall()
        return [OutboxMessage(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]

    def backlog(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox WHERE sent = 0").fetchone()[0])

    def prune_sent(self, keep: int = 5000) -> None:
        """Drop old acknowledged messages (the outbox is not an archive; the inputs are)."""
        with self._lock:
            self._db.execute(
                "DELETE FROM outbox WHERE sent = 1 AND rowid < (SELECT MAX(rowid) FROM outbox) - ?", (keep,)
            )

    # -- snapshots ---------------------------------------------------------------------------------------------
    def save_snapshot(self, input_id: int, ts: float, version: str, data: bytes, *,
                      keep_acked_results: int = 500) -> None:
        """Keep ``data`` (the state after input ``input_id``) as the one snapshot, and drop what it stands for:
        the inputs before it (the input itself stays, so row ids keep counting up) and acknowledged results
        beyond the newest ``keep_acked_results``. One transaction: a power cut leaves the old or the new."""
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                cur.execute("DELETE FROM snapshots")
                cur.execute("INSERT INTO snapshots (input_id, ts, version, data) VALUES (?, ?, ?, ?)",
                            (input_id, ts, version, data))
                cur.execute("DELETE FROM inputs WHERE id < ?", (input_id,))
                cur.execute("DELETE FROM results WHERE acked IS NOT NULL AND rowid NOT IN (SELECT rowid FROM "
                            "results WHERE acked IS NOT NULL ORDER BY rowid DESC LIMIT ?)", (keep_acked_results,))
                cur.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def snapshot(self) -> tuple[int, str, bytes] | None:
        """The latest snapshot: (the input it was taken after, its version, its data), or None."""
        with self._lock:
            row = self._db.execute("SELECT input_id, version, data FROM snapshots ORDER BY id DESC LIMIT 1").fetchone()
        return (int(row[0]), str(row[1]), bytes(row[2])) if row else None

    # -- refs -----------------------------------------------------------------------------------------------
    def refs(self, newest: int) -> dict[int, tuple[str, int]]:
        """The newest ``newest`` controller refs with the (epoch, seq) their events went out under."""
        with self._lock:
            rows = self._db.execute("SELECT ref, epoch, seq FROM refs ORDER BY ref DESC LIMIT ?",
                                    (newest,)).fetchall()
        return {int(r[0]): (str(r[1]), int(r[2])) for r in reversed(rows)}

    def prune_refs(self, keep: int) -> None:
        """Forget all but the newest ``keep`` refs (a correction names an event of the deal in play)."""
        with self._lock:
            self._db.execute("DELETE FROM refs WHERE ref <= (SELECT MAX(ref) FROM refs) - ?", (keep,))

    # -- results ------------------------------------------------------------------------------------------
    def ack_result(self, result_id: str) -> bool:
        """The desk acknowledged a result: returns True if it was pending."""
        with self._lock:
            cur = self._db.execute("UPDATE results SET acked = ? WHERE id = ? AND acked IS NULL",
                                   (time.time(), result_id))
            return cur.rowcount > 0

    def pending_results(self) -> list[tuple[str, str]]:
        """(id, payload JSON) of every result the desk has not acknowledged, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, payload FROM results WHERE acked IS NULL ORDER BY created, rowid"
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def all_results(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT payload FROM results ORDER BY created, rowid").fetchall()
        return [json.loads(r[0]) for r in rows]
