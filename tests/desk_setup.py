"""Test helpers: a desk database set up as an organiser does (teams, match end) with round 1 paired at tables;
simulated tables that play what the desk starts, and the results they produced."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from table_daemon.config import simulated_config
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.simulate import SimTable


def pair_round_one(store: Store, event: str, tables: list[str], deals: int) -> None:
    """Two teams a table, round 1 paired: the desk starts these matches (``deals`` deals each) at the tables."""
    teams = [Team(i, f"队{i} team {i}", (f"p{i}a", f"p{i}b"), f"U{i}") for i in range(1, 2 * len(tables) + 1)]
    store.set_up(event, teams, {"match_end": {"method": "deals", "deals": deals}})
    store.add_round(1, "swiss", [(t, 2 * i + 1, 2 * i + 2) for i, t in enumerate(tables)])


class Produced:
    """The result ids the tables published (their own account, to compare with what the desk stored)."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.lock = threading.Lock()

    def note(self, topic: str, msg: dict[str, Any]) -> None:
        if topic.endswith("/results"):
            with self.lock:
                self.ids.add(msg["id"])

    def snapshot(self) -> set[str]:
        with self.lock:
            return set(self.ids)


def desk_table(table: str, event: str, broker: str, journal: Path, seed: int, produced: Produced) -> SimTable:
    """A simulated table (no camera, as fast as it goes) that plays only what the desk starts, noting its
    results in ``produced``."""
    cfg = simulated_config(table=table, event=event, broker=broker, journal=str(journal))
    sim = SimTable(cfg, seed=seed, speed=0, camera=False)
    sim.await_desk = True
    sim.app.on_published = produced.note
    return sim
