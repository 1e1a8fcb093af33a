"""The journal's side of a restart: a snapshot of the controller at each deal's end, and the replay of what came
after it; refused commands journaled short.

A snapshot is a pickle of the controller, written and read by this table's own daemon only. Saving one lets the
journal drop the inputs before it and the messages the broker already took, so a restart after a day of play
replays one deal, not the day. A snapshot this version cannot read stops the table loudly: the inputs before it
are gone, and a guess would be a wrong table.
"""

from __future__ import annotations

import json
import logging
import pickle
import sys
from dataclasses import dataclass
from typing import Any

from .adapters.journal import Journal
from .adapters.publisher import MAX_REFS
from .controller import Command, Effect, Input, Reply, TableController, input_from_dict
from .version import VERSION

log = logging.getLogger(__name__)

#: acknowledged outbox messages kept in the journal (a few deals' worth, for looking back after a fault)
OUTBOX_KEEP = 2000
#: a snapshot of the controller at each deal's end, and at least every this many journaled inputs
SNAPSHOT_EVERY = 1000
#: the snapshot format: a pickle of the controller, written and read by this table's own daemon only
SNAPSHOT_VERSION = f"controller-pickle/{VERSION}"
#: the journal's kind for a command that was refused and changed nothing: a short entry, never replayed
REFUSED = "refused"
#: what the config decides, not the journal: a restored controller takes these from the freshly built one
CONFIGURED = ("auto_deal", "software_seats", "referee_role", "referee_key", "timing", "configured_deal_file",
              "deal_file_boards")


def refused_entry(event: Input, effects: list[Effect]) -> tuple[str, dict[str, Any]] | None:
    """A command whose only effect is its refusal is journaled short (name, why, size), not in full: a
    flood of large bad commands must not fill the Pi's SD card, and replaying it would change nothing."""
    if not isinstance(event, Command) or len(effects) != 1:
        return None
    reply = effects[0]
    if not isinstance(reply, Reply) or reply.ok:
        return None
    size = len(json.dumps(event.payload, ensure_ascii=False, default=str))
    return REFUSED, {"name": event.name[:80], "error": (reply.error or "")[:300], "bytes": size}


def prune(journal: Journal) -> None:
    """Drop the sent messages and refs the journal no longer needs (results stay until the desk's ack)."""
    journal.prune_sent(keep=OUTBOX_KEEP)
    journal.prune_refs(keep=MAX_REFS)


def save_snapshot(journal: Journal, controller: TableController, input_id: int, now: float) -> None:
    """Keep the controller's state after input ``input_id``; the journal drops the inputs before it and the
    messages the broker took."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))  # a deal's history is a linked list, one level per action
    try:
        data = pickle.dumps(controller, protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        sys.setrecursionlimit(limit)
    journal.save_snapshot(input_id, now, SNAPSHOT_VERSION, data)
    prune(journal)


@dataclass
class Recovered:
    controller: TableController
    #: the input the snapshot was taken after (0: none)
    snapshot_input: int
    #: journaled inputs replayed after it
    replayed: int


def recover(journal: Journal, fresh: TableController, where: str) -> Recovered:
    """The controller as the journal left it: the latest snapshot (with ``fresh``'s configured settings) and the
    inputs after it replayed, effects dropped (the run that journaled them carried them out)."""
    controller, after, n = fresh, 0, 0
    snap = journal.snapshot()
    if snap is not None:
        after, version, data = snap
        try:
            restored = pickle.loads(data)  # noqa: S301 -- the table's own journal, written by this daemon
        except Exception as exc:
            raise RuntimeError(
                f"journal {where}: its snapshot ({version}) cannot be read by this version ({SNAPSHOT_VERSION}): "
                f"{exc}. Finish the match with the version that wrote it, or move the journal away to start "
                f"afresh (日志快照无法读取)") from exc
        if not isinstance(restored, TableController):
            raise RuntimeError(f"journal {where}: its snapshot is not a table controller")
        if version != SNAPSHOT_VERSION:
            log.warning("journal snapshot written by %s, read by %s", version, SNAPSHOT_VERSION)
        for name in CONFIGURED:  # what the config says now applies to the restored table too
            setattr(restored, name, getattr(fresh, name))
        controller = restored
    controller.replaying = True
    try:
        for row in journal.inputs(after=after):
            if row.kind == REFUSED:  # changed nothing: kept as evidence only
                continue
            controller.handle(input_from_dict(row.kind, row.data), row.ts)
            n += 1
    finally:
        controller.replaying = False
    if n:
        log.info("recovered %d journaled inputs: match %s deal %s phase %s", n, controller.match_no,
                 controller.deal.number if controller.deal else None, controller.phase)
    return Recovered(controller, after, n)
