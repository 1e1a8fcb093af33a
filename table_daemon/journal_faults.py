"""The journal's own failures, kept for the referee: writes SQLite refused, snapshots that could not be saved.

The journal is the table's memory across a crash: each input with the messages it caused, and a snapshot of the
controller at each deal's end. When a write fails (an SD card full or worn out, a filesystem remounted
read-only, a controller that cannot be pickled) the table plays on: the input has been handled, so its effects
are carried out and players, desk and displays see the table as it is. What is at risk is a restart, and that is
said loudly: each failure is a health problem with its alert (``journal_write_failed``, ``snapshot_failed``,
``journal_read_failed``) until a write (or read) succeeds again, then ``health_restored``. Pure bookkeeping: the app reports what happened, with the
time passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

from .adapters.publisher import iso_now

#: inputs were handled that the journal does not hold: a restart now would come back without them
JOURNAL_WRITE_FAILED = "journal_write_failed"
#: the controller's snapshot could not be saved: the journal keeps the inputs since the last one instead
SNAPSHOT_FAILED = "snapshot_failed"
#: the journal cannot even be read (its health figures are unknown): a card gone or failing
JOURNAL_READ_FAILED = "journal_read_failed"
#: the journal's file was deleted (or replaced) under the running table and cannot be written again
JOURNAL_FILE_LOST = "journal_file_lost"
#: the journal's mirror on other storage (``[journal] mirror``) cannot be written: the stick pulled or full
JOURNAL_MIRROR_FAILED = "journal_mirror_failed"


@dataclass
class Fault:
    """One kind of failure while it lasts: when it began, how often it happened, the latest error."""

    since: float
    count: int
    error: str

    def detail(self) -> str:
        return f"{self.count}× since {iso_now(self.since)}: {self.error}"


class JournalFaults:
    """The journal's failures that have not cleared, by problem code."""

    def __init__(self) -> None:
        self.open: dict[str, Fault] = {}

    def failed(self, code: str, exc: BaseException, now: float) -> bool:
        """Note a failure; True when the problem is new (its alert is due)."""
        error = f"{type(exc).__name__}: {exc}"[:300]
        fault = self.open.get(code)
        if fault is None:
            self.open[code] = Fault(now, 1, error)
            return True
        fault.count += 1
        fault.error = error
        return False

    def cleared(self, code: str) -> bool:
        """The problem is over; True when it was open (its ``health_restored`` is due)."""
        return self.open.pop(code, None) is not None

    def is_open(self, code: str) -> bool:
        return code in self.open

    def problems(self) -> dict[str, str]:
        """Each open problem with its evidence in words, as ``health`` lists them."""
        return {code: fault.detail() for code, fault in sorted(self.open.items())}
