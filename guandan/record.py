"""Deal records (``guandan-deal/1``, deal-record.md): built from a finished deal, parsed back for replay.

``build_record`` turns a :class:`~.deal.DealState` (which keeps the hands as dealt and every accepted
action with its time) plus the match context (levels before, whose level was played, event/table/match/deal
numbers) into the record dict. Two optional fields beyond the example in the spec help a referee check
more: ``previous_finish`` (the finishing order the tribute was computed from) and, for a profile that is not
shipped, ``profile_settings`` (the full settings), so that any record can be replayed on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import PASS, PLAY, REPORT
from .cards import team_of
from .deal import DealState
from .levels import Settlement, format_team_level, settle, up_for
from .profiles import PROFILES

FORMAT = "guandan-deal/1"
REQUIRED = ("format", "profile", "level", "hands", "leader", "actions")
#: ``{"referee": KIND}`` actions (deal-record.md "Referee actions are actions too"): ``take_back`` (收回重出:
#: a play taken back) and ``undo_last`` undo the step before them; ``skip`` (``skip_turn`` is read as the same)
#: takes the turn from the seat on turn; ``skip_trick`` makes a seat pass for the rest of the trick (its passes
#: follow as ordinary passes); ``redo_tribute`` starts the tribute over (before play only); ``penalty`` changes
#: nothing in the play.
REFEREE_KINDS = ("take_back", "undo_last", "skip", "skip_turn", "skip_trick", "redo_tribute", "penalty")
#: penalties of rules §11 (003's escalation ladder)
PENALTY_KINDS = ("verbal_warning", "warning", "violation", "level_down", "level_up_opponent", "forfeit",
                 "suspension")


def build_record(
    state: DealState,
    *,
    levels_before: Mapping[str, int] | None = None,
    played: str | None = None,
    failed_a: Mapping[str, int] | None = None,
    previous_finish: list[str] | None = None,
    first_lead: dict[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    events: list[dict[str, Any]] | None = None,
    actions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The deal record of a finished (or abandoned) deal. ``meta`` supplies event/table/match/deal.

    ``actions``, when given, is the record's ``actions`` as the table logged them, referee corrections
    included (a take-back leaves the taken-back play and the ``{"referee": ...}`` entry in the record, while
    ``state``'s own history has forgotten it); by default they are the plays, passes and reports of
    ``state``'s history."""
    profile = state.profile
    record: dict[str, Any] = {"format": FORMAT}
    for key in ("event", "table", "match", "deal"):
        record[key] = (meta or {}).get(key)
    record["profile"] = profile.name
    if PROFILES.get(profile.name) != profile:
        record["profile_settings"] = profile.to_dict()
    if levels_before is not None:
        record["levels_before"] = {t: format_team_level(v) for t, v in levels_before.items()}
    record["played"] = played
    if failed_a is not None:
        record["failed_a_before"] = dict(failed_a)
    record["level"] = format_team_level(state.level)
    record["first_lead"] = first_lead
    record["previous_finish"] = previous_finish
    record["hands"] = state.hands_json(dealt=True)
    record["tribute"] = [{"from": g, "to": r, "card": c.code} for g, r, c in state.given]
    record["returns"] = [{"from": g, "to": r, "card": c.code} for g, r, c in state.returned]
    record["leader"] = state.leader
    if actions is None:
        actions = []
        for action, t in state.actions():
            if action.kind in (PLAY, PASS, REPORT):
                entry = action.to_json()
                entry["t"] = round(t, 3)
                actions.append(entry)
    record["actions"] = [dict(a) for a in actions]
    if state.over:
        record["result"] = result_of(state, levels_before, played, failed_a)
    else:
        record["result"] = None
    record["events"] = list(events or [])
    return record


def result_of(
    state: DealState,
    levels_before: Mapping[str, int] | None,
    played: str | None,
    failed_a: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """``result`` of a finished deal: finish, winner, up and, with the levels before, levels after."""
    finish = state.finish_order()
    out: dict[str, Any] = {"finish": finish}
    if levels_before is not None and played is not None:
        s: Settlement = settle(state.profile, levels_before, played, finish, failed_a)
        out.update(winner=s.winner, up=s.up, levels_after=s.levels_json(), match_winner=s.match_winner)
        out["failed_a"] = s.failed_a
    else:
        out.update(winner=team_of(finish[0]), up=up_for(state.profile, finish))
    return out
