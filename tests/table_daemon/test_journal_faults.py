"""A journal that cannot write does not stop the table: the handled input's effects are carried out (published,
alerted), the failure is a health problem with its alert in Chinese and English until a snapshot holds the table
again, and a restart after that comes back to the same table.

The faults are real ones: SQLite itself refusing writes (``PRAGMA query_only``, as on a card remounted
read-only) and pickle refusing the controller (an attribute it cannot pickle, as a bug would add).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from table_daemon.app import SNAPSHOT_RETRY_SECONDS
from table_daemon.controller import Command
from table_daemon.controller.views import public_state
from table_daemon.journal_faults import JOURNAL_WRITE_FAILED, SNAPSHOT_FAILED, JournalFaults

from .app_harness import AppHarness, play_quick_deals


def sent_alerts(h: AppHarness, code: str) -> list[dict[str, Any]]:
    return [m for m in h.sent if m.get("type") == "alert" and m.get("code") == code]


def restored(h: AppHarness, cleared: str) -> list[dict[str, Any]]:
    return [a for a in sent_alerts(h, "health_restored") if a["evidence"]["health"].get("cleared") == cleared]


def dealt_table(tmp_path: Path) -> AppHarness:
    """A table with its first health report made, dealt and ready for its first play."""
    h = AppHarness(tmp_path / "j.sqlite", auto_deal=False)
    health_now(h)
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    return h


def health_now(h: AppHarness) -> None:
    """What the loop does after each input: the health report, with the alerts of what changed when due."""
    h.app._housekeeping()


def mirror_now(h: AppHarness) -> None:
    """The housekeeping, the mirror's write (in its own thread) finished, and the housekeeping that says how it
    went."""
    h.app._housekeeping()
    assert h.app.mirror_writer is not None and h.app.mirror_writer.flush(10)
    h.app._housekeeping()


def test_faults_are_told_once_and_cleared_once() -> None:
    faults = JournalFaults()
    assert faults.failed(SNAPSHOT_FAILED, OSError(28, "No space left on device"), 1_000_000.0) is True
    assert faults.failed(SNAPSHOT_FAILED, OSError(5, "Input/output error"), 1_000_060.0) is False
    (detail,) = faults.problems().values()
    assert detail.startswith("2× since 1970-01-12T13:46:40.000Z") and "Input/output error" in detail
    assert faults.is_open(SNAPSHOT_FAILED) and not faults.is_open(JOURNAL_WRITE_FAILED)
    assert faults.cleared(SNAPSHOT_FAILED) is True and faults.cleared(SNAPSHOT_FAILED) is False
    assert faults.problems() == {}


def test_a_snapshot_that_cannot_be_saved_leaves_no_effect_undone(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", auto_deal=False)
    health_now(h)  # the first report: the next one comes at the interval, or when a problem is new
    h.c.unpicklable = threading.Lock()  # type: ignore[attr-defined]
    play_quick_deals(h, 1)  # the deal's end asks for a snapshot, which fails

    assert [m["type"] for m in h.sent if m.get("type") == "deal_result"] == ["deal_result"]
    assert h.c.phase in ("deal_over", "match_over")
    assert h.app.journal.snapshot() is None and h.app.unjournaled == 0  # every input is still journaled
    health = h.app.health()
    assert health["problems"] == [SNAPSHOT_FAILED] and "pickle" in health["journal_faults"][SNAPSHOT_FAILED]
    health_now(h)
    (alert,) = sent_alerts(h, SNAPSHOT_FAILED)
    assert "快照无法保存" in alert["message"] and "snapshot cannot be saved" in alert["message"]
    assert "pickle" in alert["evidence"]["detail"]

    # a restart now replays the journal from its start, and is the same table
    before = public_state(h.c)
    h.restart()
    assert h.app.recovered > 0 and public_state(h.c) == before

    # the restarted table fails the same way at its next deal's end, then the fault clears: a retry (no need
    # to wait for a deal's end) saves the snapshot, and the referee is told once
    health_now(h)
    h.c.unpicklable = threading.Lock()  # type: ignore[attr-defined]
    play_quick_deals(h, 1)
    health_now(h)
    assert len(sent_alerts(h, SNAPSHOT_FAILED)) == 2  # once by each run
    del h.c.unpicklable  # type: ignore[attr-defined]
    h.send(Command("start_deal", {}))
    assert h.app.journal.snapshot() is None  # not yet: tries are spaced
    h.send(Command("start_deal", {}), dt=SNAPSHOT_RETRY_SECONDS)
    assert h.app.journal.snapshot() is not None and h.app.health()["problems"] == []
    health_now(h)
    assert len(restored(h, SNAPSHOT_FAILED)) == 1 and len(sent_alerts(h, SNAPSHOT_FAILED)) == 2
    before = public_state(h.c)
    h.restart()
    assert h.app.recovered == 1 and public_state(h.c) == before  # replayed: the health_restored after it


def test_plays_the_journal_could_not_keep_are_published_and_alerted(tmp_path: Path) -> None:
    h = dealt_table(tmp_path)
    h.bot_step()
    sent = len(h.sent)
    journaled = h.app.journal.input_count()

    h.app.journal._db.execute("PRAGMA query_only = ON")  # SQLite refuses every write from here on
    h.bot_step()
    h.bot_step()
    moves = [m for m in h.sent[sent:] if m.get("type") in ("play", "pass")]
    assert len(moves) == 2  # what the seats did is shown all the same, in sequence
    assert [m["seq"] for m in h.sent[sent:]] == list(range(h.sent[sent - 1]["seq"] + 1, h.sent[-1]["seq"] + 1))
    assert h.app.journal.input_count() == journaled and h.app.unjournaled >= 2
    health_now(h)
    (alert,) = sent_alerts(h, JOURNAL_WRITE_FAILED)  # its own input is not journaled either, yet it is sent
    assert "日志无法写入" in alert["message"] and "readonly" in alert["evidence"]["detail"]
    assert h.app.health()["problems"] == [JOURNAL_WRITE_FAILED]

    # the card is writable again but the controller cannot be pickled: the journal holds inputs after a gap,
    # so the problem stays open until a snapshot stands for the inputs it missed
    h.app.journal._db.execute("PRAGMA query_only = OFF")
    h.c.unpicklable = threading.Lock()  # type: ignore[attr-defined]
    h.bot_step()
    assert h.app.journal.input_count() > journaled
    assert h.app.health()["problems"] == [JOURNAL_WRITE_FAILED, SNAPSHOT_FAILED]
    health_now(h)
    assert len(sent_alerts(h, SNAPSHOT_FAILED)) == 1 and not restored(h, JOURNAL_WRITE_FAILED)
    del h.c.unpicklable  # type: ignore[attr-defined]
    h.bot_step()  # the gap forces the snapshot at once
    assert h.app.unjournaled == 0 and h.app.health()["problems"] == []
    health_now(h)
    assert len(restored(h, JOURNAL_WRITE_FAILED)) == 1 and len(restored(h, SNAPSHOT_FAILED)) == 1

    # a restart comes back to the table as it was, plays the journal missed included
    before, hands, done = public_state(h.c), h.state.hands_json(), h.state.plays_made
    h.restart()
    assert public_state(h.c) == before and h.state.hands_json() == hands and h.state.plays_made == done
    assert h.app.recovered <= 3  # the snapshot stands for the gap: the rest of a step and two alerts after it
    assert h.bot_step() and h.state.plays_made >= done  # and plays on


def test_a_journal_gone_still_gets_a_health_report_and_its_alerts(tmp_path: Path) -> None:
    h = dealt_table(tmp_path)
    h.app.journal._db.close()  # the card is gone: every read and write fails
    h.bot_step()
    health = h.app.health()
    assert health["journal_backlog"] is None and health["pending_results"] is None  # unknown, never a healthy 0
    assert health["problems"] == ["journal_read_failed", JOURNAL_WRITE_FAILED]
    health_now(h)
    codes = [m.get("code") for m in h.sent if m.get("type") == "alert"]
    assert codes.count("journal_read_failed") == 1 and codes.count(JOURNAL_WRITE_FAILED) == 1
    (alert,) = sent_alerts(h, "journal_read_failed")
    assert "日志无法读取" in alert["message"] and "closed database" in alert["evidence"]["detail"]


def _look(h: AppHarness) -> None:
    h.app._journal_looked = 0.0  # the next housekeeping looks for the file now
    health_now(h)


def test_a_journal_file_deleted_under_the_table_is_written_again_and_nothing_is_lost(tmp_path: Path) -> None:
    """`rm journal.sqlite*` while a table plays: SQLite wrote on into the unlinked file, the health said nothing,
    and the next restart came back idle with no match. The table writes the journal again at its path from the
    copy it holds open, says so, and a restart then finds the whole match."""
    import os

    h = dealt_table(tmp_path)
    for _ in range(3):
        h.bot_step()
    path = tmp_path / "j.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{path}{suffix}"):
            os.remove(f"{path}{suffix}")
    _look(h)
    (said,) = sent_alerts(h, "journal_file_restored")
    assert "nothing lost" in said["message"] and path.exists()
    h.bot_step()  # journaled into the new file
    before = public_state(h.c)
    h.restart()
    assert h.c.match_active and public_state(h.c)["deal"] == before["deal"]
    assert public_state(h.c)["seats"] == before["seats"]
    # another file put at the path (an old copy) is kept aside, not destroyed, and the table's own comes back
    path.rename(tmp_path / "mine.sqlite")
    path.write_bytes(b"someone else's")
    _look(h)
    assert len(sent_alerts(h, "journal_file_restored")) == 2
    aside = [p for p in tmp_path.glob("j.sqlite.replaced-*") if not p.name.endswith(("-wal", "-shm"))]
    assert [p.read_bytes() for p in aside] == [b"someone else's"]


def test_a_journal_file_that_cannot_be_written_again_is_a_health_problem_until_it_can(tmp_path: Path) -> None:
    import os
    import shutil

    h = AppHarness(tmp_path / "var" / "j.sqlite", auto_deal=False)
    health_now(h)
    h.start_match(match_end={"method": "deals", "deals": 1})
    shutil.rmtree(tmp_path / "var")
    (tmp_path / "var").write_text("a file where the folder was")  # the folder cannot be made again
    _look(h)
    (lost,) = sent_alerts(h, "journal_file_lost")
    assert "do not restart" in lost["message"]
    assert "journal_file_lost" in h.app.health()["problems"]
    os.remove(tmp_path / "var")
    _look(h)
    assert sent_alerts(h, "journal_file_restored") and restored(h, "journal_file_lost")
    assert (tmp_path / "var" / "j.sqlite").exists()


def test_a_new_sd_card_takes_up_the_match_from_the_journals_mirror(tmp_path: Path) -> None:
    """A card that fails outright took the journal with it: the table could only start afresh and the referee
    enter the match again. With ``[journal] mirror`` on a USB stick, written at each deal's end, a table started
    on a new card takes up the match as the mirror holds it, and says loudly what was lost."""
    import os

    from .app_harness import play_quick_deals

    h = AppHarness(tmp_path / "sd" / "j.sqlite", auto_deal=False)
    h.cfg.journal.mirror = str(tmp_path / "usb" / "mirror.sqlite")
    h.app.cfg = h.cfg
    play_quick_deals(h, 2)  # two deals of a match, each ending in a snapshot and the mirror
    assert h.app.mirror_writer is not None and h.app.mirror_writer.flush(10)
    after_two = public_state(h.c)
    assert (tmp_path / "usb" / "mirror.sqlite").exists() and h.c.match_active
    h.app.journal.close()
    for f in (tmp_path / "sd").iterdir():  # the card is gone; a new one holds nothing
        os.remove(f)
    h.boot()
    assert h.c.match_active and public_state(h.c)["deals_played"] == after_two["deals_played"] == 2
    assert public_state(h.c)["levels"] == after_two["levels"]
    h.app._resume_after_recovery()
    (said,) = sent_alerts(h, "journal_from_mirror")
    assert "taken up from its mirror" in said["message"] and "从备份恢复" in said["message"]
    assert said["evidence"]["health"]["mirror"] == str(tmp_path / "usb" / "mirror.sqlite")


def test_a_mirror_that_cannot_be_written_is_a_health_problem_until_it_can(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", auto_deal=False)
    (tmp_path / "usb").write_text("the stick is not mounted: a file where its folder should be")
    h.cfg.journal.mirror = str(tmp_path / "usb" / "mirror.sqlite")
    h.app.cfg = h.cfg
    mirror_now(h)
    (failed,) = sent_alerts(h, "journal_mirror_failed")
    assert "USB stick" in failed["message"] and "journal_mirror_failed" in h.app.health()["problems"]
    (tmp_path / "usb").unlink()
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.app._mirrored_at = 0.0  # a minute later (the housekeeping writes it at most once a minute)
    mirror_now(h)
    assert restored(h, "journal_mirror_failed") and (tmp_path / "usb" / "mirror.sqlite").exists()


def test_a_stalled_usb_stick_never_pauses_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mirror is written in a thread of its own: while a stick stalls (the fault, injected at the edge: its
    write waits), the table journals and handles every input, and a write that does not finish is said (it
    would never report a failure); what came meanwhile is in the next write."""
    import sqlite3

    from table_daemon.adapters.journal_mirror import MirrorWriter

    h = AppHarness(tmp_path / "sd" / "j.sqlite", auto_deal=False)
    mirror = tmp_path / "usb" / "mirror.sqlite"
    h.cfg.journal.mirror = str(mirror)
    h.app.cfg = h.cfg
    stalled, writing = threading.Event(), threading.Event()

    def stalling_stick() -> None:
        writing.set()
        assert stalled.wait(10)
        h.app.journal.copy_to(mirror)

    h.app.mirror_writer = MirrorWriter(stalling_stick)
    h.app._write_mirror(snapshot=0)
    assert writing.wait(5)
    h.start_match(match_end={"method": "deals", "deals": 1})  # handled and journaled while the stick stalls
    h.send(Command("start_deal", {}))
    h.flush()
    assert h.c.match_active and not mirror.exists()
    h.app._write_mirror(snapshot=1)  # the deal's end: asked again while the first write still stalls
    monkeypatch.setattr("table_daemon.app_health.MIRROR_STALLED_S", 0.0)  # a minute on, still writing
    h.app._housekeeping()
    (stuck,) = sent_alerts(h, "journal_mirror_failed")
    assert "has not finished" in json.dumps(stuck, ensure_ascii=False), stuck
    stalled.set()
    assert h.app.mirror_writer.flush(10)
    with sqlite3.connect(mirror) as copy:
        in_mirror = copy.execute("SELECT count(*) FROM outbox").fetchone()[0]
    with sqlite3.connect(tmp_path / "sd" / "j.sqlite") as journal:
        assert in_mirror == journal.execute("SELECT count(*) FROM outbox").fetchone()[0] > 0
    h.app._housekeeping()
    assert "journal_mirror_failed" not in h.app.health()["problems"] and restored(h, "journal_mirror_failed")
