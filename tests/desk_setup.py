"""Test helper: a desk database set up as an organiser does (teams, match end) with round 1 paired at tables."""

from __future__ import annotations

from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store


def pair_round_one(store: Store, event: str, tables: list[str], deals: int) -> None:
    """Two teams a table, round 1 paired: the desk starts these matches (``deals`` deals each) at the tables."""
    teams = [Team(i, f"队{i} team {i}", (f"p{i}a", f"p{i}b"), f"U{i}") for i in range(1, 2 * len(tables) + 1)]
    store.set_up(event, teams, {"match_end": {"method": "deals", "deals": deals}})
    store.add_round(1, "swiss", [(t, 2 * i + 1, 2 * i + 2) for i, t in enumerate(tables)])
