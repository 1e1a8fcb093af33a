"""The desk's SQLite file: the event, its registered pairs, pairings, every result as received, table status,
alerts, and the log of corrections. The one place that reads or writes the file.

Results are keyed by (table, stable ``id``) (mqtt-api.md), so a result delivered twice is stored once (the row
counts how often it came). Each pairing also keeps how its start went: when the desk last sent it, how often,
the table's last refusal, and when the table accepted it. Nothing is ever rewritten: a referee's change is a new row in ``corrections``, and
standings are recomputed from the received results with the corrections applied in order. ``revision`` grows
with every change that can move the standings, and published standings carry it as their version.
One connection, guarded by a lock, is shared by the MQTT thread and the web server's threads.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .standings import Team

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, players TEXT NOT NULL,
    unit TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS pairings (round INTEGER NOT NULL, tbl TEXT NOT NULL, ns INTEGER NOT NULL,
    ew INTEGER, method TEXT NOT NULL, sent_at TEXT, reply TEXT, PRIMARY KEY (round, tbl));
CREATE TABLE IF NOT EXISTS results (id TEXT NOT NULL, tbl TEXT NOT NULL, kind TEXT NOT NULL,
    match INTEGER, deal INTEGER, payload TEXT NOT NULL, received_at TEXT NOT NULL, copies INTEGER NOT NULL,
    PRIMARY KEY (tbl, id));
CREATE TABLE IF NOT EXISTS status (tbl TEXT PRIMARY KEY, payload TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS alerts (n INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, epoch TEXT,
    seq INTEGER, payload TEXT NOT NULL, received_at TEXT NOT NULL, UNIQUE (tbl, epoch, seq));
CREATE TABLE IF NOT EXISTS corrections (n INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL,
    who TEXT NOT NULL, why TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS proposals (n INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL,
    why TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL, approved_by TEXT, approved_at TEXT,
    correction INTEGER);
CREATE TABLE IF NOT EXISTS rejects (n INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL,
    reason TEXT NOT NULL, payload TEXT NOT NULL, received_at TEXT NOT NULL);
"""

DEFAULT_SETTINGS: dict[str, Any] = {
    "profile": "national",
    "scoring": "standard",
    "duplicate": False,
    "keep_units_apart": True,
    "match_end": {"method": "pass_a"},
    "topic_prefix": "guandan/v1",
}


class StoreError(ValueError):
    """A request the stored event cannot satisfy (unknown team, event not set up ...)."""


def now() -> str:
    """UTC time as the spec writes it: ``2026-11-29T10:00:00.123Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


#: the tables every desk database has had since the first one (the others are added when missing)
CORE_TABLES = ("meta", "teams", "pairings", "results")
#: columns added to a table after databases were made without them: added when missing, never a reason to refuse
ADDED_COLUMNS = {"pairings": ("accepted_at TEXT", "attempts INTEGER NOT NULL DEFAULT 0", "last_error TEXT",
                              "last_try TEXT"),
                 "alerts": ("acked_at TEXT", "acked_by TEXT")}


def _schema_columns() -> dict[str, set[str]]:
    """Each table of :data:`SCHEMA` and its columns, as SQLite itself reads the schema."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                          "AND name NOT LIKE 'sqlite_%'")]
        return {name: {r[1] for r in db.execute(f"PRAGMA table_info({name})")} for name in names}
    finally:
        db.close()


DESK_COLUMNS = _schema_columns()


def _not_a_desk(db: sqlite3.Connection, path: str, *, create: bool) -> str | None:
    """Why the database open on ``db`` cannot be the desk's, or None. Only reads: a file that is not a desk's is
    left as it was (``Store`` used to write its tables into it first, and then failed on a column of its own)."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite_%'")}
    if not tables:
        if create:
            return None
        return f"no desk database at {path}: the file has no tables (create one with `guandan-table desk init`)"
    problems = [f"no table {t!r}" for t in CORE_TABLES if t not in tables]
    for table in sorted(tables & set(DESK_COLUMNS)):
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        added = {c.split()[0] for c in ADDED_COLUMNS.get(table, ())}
        problems += [f"table {table!r} lacks column {c!r}" for c in sorted(DESK_COLUMNS[table] - have - added)]
    if not problems:
        return None
    held = ", ".join(sorted(tables)[:8]) + (", ..." if len(tables) > 8 else "")
    kind = ("这是牌桌的日志 a table's journal" if {"inputs", "outbox"} <= tables else
            "另一程序的数据库？ another program's database?")
    return (f"{path} 不是记分台数据库（{kind}），未作任何改动 | is not a desk database ({problems[0]}; it holds the "
            f"tables {held}); left unchanged: give --db the desk's own file")


class Store:
    """The desk's database (see module docstring)."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        """Open the desk's database at ``path``. A file that holds tables but not a desk's (a table's journal,
        another program's database) is refused before anything is written to it; so is a file with no desk
        tables at all unless ``create`` (``desk init``, a new file of the demo or a test)."""
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open desk database {self.path}: {exc}") from exc
        try:
            problem = _not_a_desk(self._db, self.path, create=create)
        except sqlite3.Error as exc:
            problem = f"cannot open desk database {self.path}: {exc}"
        if problem is not None:
            self._db.close()
            raise StoreError(problem)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
            for table, columns in ADDED_COLUMNS.items():
                have = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
                for column in columns:
                    if column.split()[0] not in have:  # a database made before this was kept
                        self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open desk database {self.path}: {exc}") from exc
        self._db.row_factory = sqlite3.Row
        self.lock = threading.RLock()

    def close(self) -> None:
        with self.lock:
            self._db.close()

    # -- small helpers --------------------------------------------------------------------------------------
    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self.lock:
            return list(self._db.execute(sql, tuple(args)))

    def _write(self, sql: str, args: Iterable[Any] = (), *, bump: bool = False) -> sqlite3.Cursor:
        with self.lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(sql, tuple(args))
                if bump:
                    self._bump()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return cur

    def _bump(self) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES ('revision', '1') ON CONFLICT(key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    # -- event ----------------------------------------------------------------------------------------------
    def meta(self, key: str, default: Any = None) -> Any:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(rows[0]["value"]) if rows else default

    def set_meta(self, key: str, value: Any, *, bump: bool = False) -> None:
        self._write("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                    (key, json.dumps(value), json.dumps(value)), bump=bump)

    @property
    def revision(self) -> int:
        rows = self._rows("SELECT value FROM meta WHERE key = 'revision'")
        return int(rows[0]["value"]) if rows else 0

    def event(self) -> str | None:
        return self.meta("event")

    def settings(self) -> dict[str, Any]:
        stored = self.meta("settings", {}) or {}
        return {**DEFAULT_SETTINGS, **stored}

    def set_up(self, event: str, teams: list[Team], settings: dict[str, Any], lot_seed: str | None = None) -> None:
        """Create the event: its settings, its registered pairs and the seed its lots are drawn from."""
        known = self.event()
        if known is not None and known != event:
            raise StoreError(f"this database belongs to event {known!r}, not {event!r}")
        if self._rows("SELECT 1 FROM pairings LIMIT 1"):
            raise StoreError("the event has pairings already; its pairs can no longer be replaced")
        with self.lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM teams")
                self._db.executemany(
                    "INSERT INTO teams(id, name, players, unit) VALUES (?, ?, ?, ?)",
                    [(t.id, t.name, json.dumps(list(t.players), ensure_ascii=False), t.unit) for t in teams],
                )
                for key, value in (("event", event), ("settings", {**DEFAULT_SETTINGS, **settings}),
                                   ("lot_seed", lot_seed or self.meta("lot_seed") or secrets.token_hex(16))):
                    self._db.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) "
                                     "DO UPDATE SET value = excluded.value", (key, json.dumps(value)))
                self._bump()
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                raise StoreError(f"registered pairs: {exc}") from exc
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def teams(self) -> list[Team]:
        return [Team(r["id"], r["name"], tuple(json.loads(r["players"])), r["unit"])
                for r in self._rows("SELECT * FROM teams ORDER BY id")]

    # -- pairings -------------------------------------------------------------------------------------------
    def add_round(self, round_no: int, method: str, tables: list[tuple[str, int, int | None]]) -> None:
        """Store round ``round_no``: (table, NS team, EW team or None for a bye) each; all or nothing. A table
        given two matches is refused (StoreError), not left to crash the caller."""
        if self._rows("SELECT 1 FROM pairings WHERE round = ?", (round_no,)):
            raise StoreError(f"round {round_no} is paired already")
        with self.lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("INSERT INTO pairings(round, tbl, ns, ew, method) VALUES (?, ?, ?, ?, ?)",
                                     [(round_no, t, ns, ew, method) for t, ns, ew in tables])
                self._bump()
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                raise StoreError(f"round {round_no}: a table is given two matches ({exc})") from exc
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def pairings(self, round_no: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM pairings" + (" WHERE round = ?" if round_no is not None else "")
        rows = self._rows(sql + " ORDER BY round, tbl", () if round_no is None else (round_no,))
        return [dict(r) for r in rows]

    def last_round(self) -> int:
        rows = self._rows("SELECT MAX(round) AS r FROM pairings")
        return int(rows[0]["r"] or 0)

    def mark_sent(self, round_no: int, table: str, reply: dict[str, Any] | None = None) -> None:
        """The desk sent the start (again): counted, with the time of the first and of the last try."""
        at = now()
        self._write("UPDATE pairings SET sent_at = COALESCE(sent_at, ?), last_try = ?, attempts = attempts + 1, "
                    "reply = COALESCE(?, reply) WHERE round = ? AND tbl = ?",
                    (at, at, json.dumps(reply, ensure_ascii=False) if reply else None, round_no, table))

    def mark_accepted(self, round_no: int, table: str, reply: dict[str, Any]) -> bool:
        """The table accepted the start (its reply, or a result that names the start); True the first time."""
        cur = self._write("UPDATE pairings SET accepted_at = ?, reply = ?, last_error = NULL "
                          "WHERE round = ? AND tbl = ? AND accepted_at IS NULL",
                          (now(), json.dumps(reply, ensure_ascii=False), round_no, table))
        return cur.rowcount == 1

    def mark_refused(self, round_no: int, table: str, error: str) -> None:
        """The table refused the start (busy, or a bad command): why, for the referees; the desk retries."""
        self._write("UPDATE pairings SET last_error = ? WHERE round = ? AND tbl = ? AND accepted_at IS NULL",
                    (error, round_no, table))

    # -- results --------------------------------------------------------------------------------------------
    def add_result(self, rid: str, table: str, kind: str, match: int | None, deal: int | None,
                   payload: dict[str, Any]) -> bool:
        """Store a result once; True when it is new (a copy only counts how often it came)."""
        with self.lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO results(id, tbl, kind, match, deal, payload, received_at, copies) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING",
                    (rid, table, kind, match, deal, json.dumps(payload, ensure_ascii=False), now()))
                new = cur.rowcount == 1
                if new:
                    self._bump()
                else:
                    self._db.execute("UPDATE results SET copies = copies + 1 WHERE id = ? AND tbl = ?",
                                     (rid, table))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return new

    def results(self, kind: str | None = None, match: int | None = None) -> list[dict[str, Any]]:
        """Stored results, oldest first; ``kind`` (deal, match) and ``match`` (the round) narrow them in SQL, so a
        page refreshed every few seconds does not decode every result of the event to show one round's."""
        where = [(c, v) for c, v in (("kind", kind), ("match", match)) if v is not None]
        sql = ("SELECT * FROM results" + (" WHERE " + " AND ".join(f"{c} = ?" for c, _ in where) if where else "")
               + " ORDER BY received_at, id")
        out = []
        for r in self._rows(sql, tuple(v for _, v in where)):
            row = dict(r)
            row["payload"] = json.loads(row["payload"])
            out.append(row)
        return out

    def reject(self, topic: str, reason: str, payload: bytes | str) -> None:
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
        self._write("INSERT INTO rejects(topic, reason, payload, received_at) VALUES (?, ?, ?, ?)",
                    (topic, reason, text[:400000], now()))

    def rejects(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._rows("SELECT * FROM rejects ORDER BY n")]

    # -- tables: status and alerts --------------------------------------------------------------------------
    def set_status(self, table: str, payload: dict[str, Any]) -> None:
        self._write("INSERT INTO status(tbl, payload, updated_at) VALUES (?, ?, ?) ON CONFLICT(tbl) "
                    "DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at",
                    (table, json.dumps(payload, ensure_ascii=False), now()))

    def statuses(self) -> dict[str, dict[str, Any]]:
        return {r["tbl"]: {**json.loads(r["payload"]), "updated_at": r["updated_at"]}
                for r in self._rows("SELECT * FROM status ORDER BY tbl")}

    def add_alert(self, table: str, payload: dict[str, Any]) -> bool:
        cur = self._write("INSERT OR IGNORE INTO alerts(tbl, epoch, seq, payload, received_at) "
                          "VALUES (?, ?, ?, ?, ?)",
                          (table, payload.get("epoch"), payload.get("seq"),
                           json.dumps(payload, ensure_ascii=False), now()))
        return cur.rowcount == 1

    def alerts(self, table: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        sql = "SELECT * FROM alerts" + (" WHERE tbl = ?" if table else "") + " ORDER BY n DESC LIMIT ?"
        rows = self._rows(sql, (table, limit) if table else (limit,))
        return [{**json.loads(r["payload"]), "table": r["tbl"], "received_at": r["received_at"], "n": r["n"],
                 "acked_at": r["acked_at"], "acked_by": r["acked_by"]} for r in rows]

    def alert(self, n: int) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM alerts WHERE n = ?", (n,))
        return {**json.loads(rows[0]["payload"]), "table": rows[0]["tbl"], "n": n} if rows else None

    def ack_alerts_of(self, code: str, who: str) -> int:
        """Acknowledge every open alert of ``code`` (kept, marked with who and when); how many they were."""
        if not who.strip():
            raise StoreError("裁判姓名 who acknowledges the alerts?")
        cur = self._write("UPDATE alerts SET acked_at = ?, acked_by = ? WHERE acked_at IS NULL "
                          "AND json_extract(payload, '$.code') = ?", (now(), who, code))
        return int(cur.rowcount)

    def ack_alert(self, n: int, who: str) -> None:
        """A referee has seen to the alert (kept, marked with who and when)."""
        if not who.strip():
            raise StoreError("裁判姓名 who acknowledges the alert?")
        cur = self._write("UPDATE alerts SET acked_at = ?, acked_by = ? WHERE n = ? AND acked_at IS NULL",
                          (now(), who, n))
        if cur.rowcount != 1:
            raise StoreError(f"no open alert #{n} (已确认或不存在 acknowledged already or unknown)")

    # -- proposed corrections (entered by one referee, approved by another) ------------------------------------
    def propose(self, who: str, why: str, kind: str, payload: dict[str, Any]) -> int:
        if not who.strip() or not why.strip():
            raise StoreError("更正需要裁判与原因 a correction needs who enters it and why")
        cur = self._write("INSERT INTO proposals(at, who, why, kind, payload) VALUES (?, ?, ?, ?, ?)",
                          (now(), who, why, kind, json.dumps(payload, ensure_ascii=False)))
        return int(cur.lastrowid or 0)

    def proposals(self) -> list[dict[str, Any]]:
        out = []
        for r in self._rows("SELECT * FROM proposals ORDER BY n"):
            row = dict(r)
            row["payload"] = json.loads(row["payload"])
            out.append(row)
        return out

    def mark_approved(self, n: int, who: str, correction: int) -> None:
        self._write("UPDATE proposals SET approved_by = ?, approved_at = ?, correction = ? WHERE n = ?",
                    (who, now(), correction, n))

    # -- corrections ----------------------------------------------------------------------------------------
    def add_correction(self, who: str, why: str, action: str, target: dict[str, Any],
                       payload: dict[str, Any]) -> int:
        if not who.strip() or not why.strip():
            raise StoreError("a correction needs who made it and why")
        cur = self._write(
            "INSERT INTO corrections(at, who, why, action, target, payload) VALUES (?, ?, ?, ?, ?, ?)",
            (now(), who, why, action, json.dumps(target, ensure_ascii=False),
             json.dumps(payload, ensure_ascii=False)), bump=True)
        return int(cur.lastrowid or 0)

    def corrections(self) -> list[dict[str, Any]]:
        out = []
        for r in self._rows("SELECT * FROM corrections ORDER BY n"):
            row = dict(r)
            row["target"] = json.loads(row["target"])
            row["payload"] = json.loads(row["payload"])
            out.append(row)
        return out
