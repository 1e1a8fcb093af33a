"""The journal's mirror on other storage: written whole and atomically, and taken up when the journal itself is
missing (a new SD card) or damaged, the damaged file kept aside; a table without a mirror is as before."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from table_daemon.adapters.journal import Journal, JournalError
from table_daemon.adapters.journal_mirror import MirrorWriter, mirror_problem, open_journal


def journal_with_a_result(path: Path) -> Journal:
    j = Journal(path)
    j.set_meta("runs", "3")
    j.record(1.0, "command", {"op": "start_match"}, [], [("ev/T01/m1/d1", '{"id": "ev/T01/m1/d1"}')], [])
    return j


def test_the_mirror_is_one_sound_file_holding_the_journal(tmp_path: Path) -> None:
    j = journal_with_a_result(tmp_path / "sd" / "j.sqlite")
    mirror = tmp_path / "usb" / "mirror.sqlite"
    j.copy_to(mirror)
    assert mirror_problem(mirror) is None
    assert sorted(p.name for p in mirror.parent.iterdir()) == ["mirror.sqlite"]  # no -wal beside it, no .part
    copy = Journal(mirror)
    assert copy.get_meta("runs") == "3" and copy.pending_results() == [("ev/T01/m1/d1", '{"id": "ev/T01/m1/d1"}')]
    copy.close()
    j.set_meta("runs", "4")
    j.copy_to(mirror)  # written again over the old one
    assert Journal(mirror).get_meta("runs") == "4"


def test_a_missing_journal_is_taken_up_from_the_mirror(tmp_path: Path) -> None:
    mirror = tmp_path / "usb" / "mirror.sqlite"
    journal_with_a_result(tmp_path / "old.sqlite").copy_to(mirror)
    j, taken = open_journal(str(tmp_path / "new-card" / "j.sqlite"), str(mirror))
    assert taken is not None and taken.kept is None and "missing" in taken.words()
    assert j.get_meta("runs") == "3" and j.pending_results()
    j.close()
    # once there, the journal is the journal: the mirror is not taken up again
    j, taken = open_journal(str(tmp_path / "new-card" / "j.sqlite"), str(mirror))
    assert taken is None


def test_a_damaged_journal_is_kept_aside_and_taken_up_from_a_sound_mirror(tmp_path: Path) -> None:
    mirror = tmp_path / "usb" / "mirror.sqlite"
    path = tmp_path / "j.sqlite"
    j = journal_with_a_result(path)
    j.copy_to(mirror)
    j.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a card that lost half the file in a power cut
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(JournalError):
        Journal(path)
    j, taken = open_journal(str(path), str(mirror))
    assert taken is not None and taken.kept and "damaged" in taken.words()
    assert Path(taken.kept).read_bytes() == data[: len(data) // 2]  # kept, never destroyed
    assert j.pending_results() and j.get_meta("runs") == "3"


def test_without_a_sound_mirror_a_damaged_journal_is_refused_as_before(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(JournalError, match="no mirror at"):
        open_journal(str(path), str(tmp_path / "usb" / "mirror.sqlite"))
    (tmp_path / "bad-mirror.sqlite").write_bytes(b"junk" * 100)
    with pytest.raises(JournalError, match="cannot be read|damaged"):
        open_journal(str(path), str(tmp_path / "bad-mirror.sqlite"))
    with pytest.raises(JournalError):
        open_journal(str(path))
    assert path.read_bytes().startswith(b"not a database")  # nothing moved
    j, taken = open_journal(str(tmp_path / "fresh.sqlite"), str(tmp_path / "usb" / "none.sqlite"))
    assert taken is None and not os.path.exists(tmp_path / "usb")


def test_requests_made_during_a_write_become_one_write_after_it() -> None:
    release, started = threading.Event(), threading.Event()
    writes: list[int] = []

    def write() -> None:
        started.set()
        assert release.wait(5)
        writes.append(len(writes))

    writer = MirrorWriter(write)
    assert writer.take_outcome() is None
    writer.request()
    assert started.wait(5)
    writer.request()
    writer.request()
    assert not writer.flush(0.05)  # the first write still runs
    release.set()
    assert writer.flush(5) and writes == [0, 1]
    assert writer.take_outcome() == (None,) and writer.take_outcome() is None
    assert writer.close(1)
    writer.request()  # after the close nothing more is written
    assert writer.flush(1) and writes == [0, 1]


def test_a_write_that_fails_leaves_what_stopped_it(tmp_path: Path) -> None:
    (tmp_path / "usb").write_text("a file where the stick's folder should be")
    j = journal_with_a_result(tmp_path / "j.sqlite")
    writer = MirrorWriter(lambda: j.copy_to(tmp_path / "usb" / "mirror.sqlite"))
    writer.request()
    assert writer.flush(5)
    outcome = writer.take_outcome()
    assert outcome is not None and isinstance(outcome[0], OSError)


def test_a_stop_does_not_wait_for_ever_on_a_stalled_stick() -> None:
    never = threading.Event()

    def stalled_stick() -> None:
        never.wait(30)

    writer = MirrorWriter(stalled_stick)
    writer.request()
    assert writer.close(0.1) is False
    never.set()
