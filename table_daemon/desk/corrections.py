"""Referees' corrections: change or void a match's result, void or restore one deal, apply a penalty, withdraw a
team from the event (退赛) or reinstate it.

Each is checked against the stored event and then appended to the store's ``corrections`` log with who,
when and why; nothing received is ever rewritten, and the standings are recomputed from the log. Every
correction raises the standings' version.
"""

from __future__ import annotations

import argparse
import math
import unicodedata
from typing import Any

from .ledger import tally, withdrawn
from .points import LEVEL_ORDER, VARIANTS, ScoringError, level_index, score_match
from .store import Store, StoreError


class CorrectionError(ValueError):
    """A correction that names something the event does not have, or is missing a part."""


def _match(store: Store, round_no: int | None, table: str | None) -> dict[str, Any]:
    if round_no is None or not table:
        raise CorrectionError("a match is named by --round N and --table T")
    for row in store.pairings(round_no):
        if row["tbl"] == table and row["ew"] is not None:
            return {"round": round_no, "table": table}
    raise CorrectionError(f"round {round_no} has no match at table {table}")


def _no_knockout_draw(store: Store, round_no: int, table: str, winner: str | None) -> None:
    """A knockout match has a winner: equal at the end, one more deal decides it (004; the tables play it). A
    draw entered by a referee stalled the bracket (its next round could not be paired) and scored a point."""
    if winner is None and any(p["tbl"] == table and p.get("method") == "knockout" for p in store.pairings(round_no)):
        raise CorrectionError("淘汰赛不能平局：平局须加赛一副决出胜负，请录入加赛后的结果 | a knockout match has a "
                              "winner: a draw plays one more deal; enter the result after it")


def _add(store: Store, who: str, why: str, action: str, target: dict[str, Any], payload: dict[str, Any]) -> int:
    try:
        return store.add_correction(who, why, action, target, payload)
    except StoreError as exc:
        raise CorrectionError(str(exc)) from exc


def change_match(store: Store, who: str, why: str, round_no: int, table: str, *, levels: dict[str, str],
                 winner: str | None, walkover: bool = False) -> int:
    """Set a match's final levels and winner (None: a draw); also enters a result that never arrived."""
    target = _match(store, round_no, table)
    levels = checked_outcome(levels, winner, agree=not walkover)
    _no_knockout_draw(store, round_no, table, winner)
    return _add(store, who, why, "change", target, {"levels": levels, "winner": winner, "walkover": walkover})


def checked_outcome(levels: dict[str, str] | None, winner: str | None, *, agree: bool = True) -> dict[str, str]:
    """A correction's final levels (both teams, in the desk's spelling) and winner (NS, EW or None: a draw),
    checked; with ``agree`` the levels must also agree with the winner (a walkover need not)."""
    if levels is None or set(levels) != {"NS", "EW"}:
        raise CorrectionError("levels need NS and EW, e.g. NS=A+,EW=5")
    try:
        levels = {team: LEVEL_ORDER[level_index(value)] for team, value in levels.items()}
    except ScoringError as exc:
        raise CorrectionError(str(exc)) from exc
    if winner not in ("NS", "EW", None):
        raise CorrectionError("winner must be NS, EW or a draw")
    if agree:
        check_levels(levels, winner)
    return levels


def check_levels(levels: dict[str, str], winner: str | None) -> None:
    """Final levels that agree with the winner: the winner ends higher (both past A cannot be), a draw level."""
    ns, ew = level_index(levels["NS"]), level_index(levels["EW"])
    if levels["NS"] == levels["EW"] == "A+":
        raise CorrectionError("两队不能都过A both teams cannot have passed A (NS=A+, EW=A+)")
    if winner is None and ns != ew:
        raise CorrectionError(f"平局需级数相同 a draw needs equal levels, got NS {levels['NS']} EW {levels['EW']}")
    if winner is not None:
        loser = "EW" if winner == "NS" else "NS"
        if level_index(levels[winner]) <= level_index(levels[loser]):
            raise CorrectionError(
                f"胜方级数须高于负方 the winner {winner} must end above {loser}: got NS {levels['NS']} EW "
                f"{levels['EW']} (级数与胜方矛盾 levels contradict the winner)")


def propose_match(store: Store, who: str, why: str, round_no: int, table: str, *, levels: dict[str, str] | None,
                  winner: str | None, void: bool = False, walkover: bool = False) -> int:
    """A referee enters a match correction; it counts once another referee approves it (``approve``).
    It is checked now as it will be then, so a bad one is refused at once. ``walkover`` (弃权: a pair absent or
    too late): the winner's, no levels needed (nothing was played; scored 26/0)."""
    _match(store, round_no, table)
    if void:
        payload: dict[str, Any] = {"round": round_no, "table": table, "void": True}
    elif walkover:
        if winner not in ("NS", "EW"):
            raise CorrectionError("弃权须指明胜方 | a walk-over needs its winner, NS or EW")
        payload = {"round": round_no, "table": table, "levels": {"NS": "2", "EW": "2"}, "winner": winner,
                   "walkover": True}
    else:
        levels = checked_outcome(levels, winner)
        _no_knockout_draw(store, round_no, table, winner)
        payload = {"round": round_no, "table": table, "levels": levels, "winner": winner}
    try:
        return store.propose(who, why, "match", payload)
    except StoreError as exc:
        raise CorrectionError(str(exc)) from exc


def _same_name(a: str, b: str) -> bool:
    """One referee's name however typed: ``A`` and ``a``, full-width ``ａ`` (NFKC, case folded, trimmed)."""
    def key(name: str) -> str:
        return unicodedata.normalize("NFKC", name).casefold().strip()
    return key(a) == key(b)


def approve(store: Store, n: int, who: str) -> int:
    """A second referee approves proposal ``n``: it becomes a correction (who entered it and who approved it
    are both recorded). The one who entered it cannot approve it."""
    found = next((p for p in store.proposals() if p["n"] == n), None)
    if found is None:
        raise CorrectionError(f"没有待批准的更正 #{n} no proposed correction #{n}")
    if found["approved_at"]:
        raise CorrectionError(f"更正 #{n} 已批准 correction #{n} is approved already")
    if not who.strip() or _same_name(who, found["who"]):
        raise CorrectionError("须由另一位裁判批准 another referee must approve it (not the one who entered it)")
    p = found["payload"]
    by = f"{found['who']} (批准 approved by {who})"
    if p.get("void"):
        number = void_match(store, by, found["why"], p["round"], p["table"])
    else:
        number = change_match(store, by, found["why"], p["round"], p["table"], levels=p["levels"], winner=p["winner"],
                              walkover=bool(p.get("walkover")))
    store.mark_approved(n, who, number)
    return number


def void_match(store: Store, who: str, why: str, round_no: int, table: str) -> int:
    """The match counts nothing (the teams still count as having met)."""
    return _add(store, who, why, "void", _match(store, round_no, table), {})


def void_deal(store: Store, who: str, why: str, result_id: str, *, restore: bool = False) -> int:
    """Void one deal record (or count it again): matters for duplicate boards, one_to_three and fouls."""
    if not any(r["id"] == result_id and r["kind"] == "deal" for r in store.results("deal")):
        raise CorrectionError(f"no deal record with id {result_id!r}")
    return _add(store, who, why, "restore" if restore else "void", {"id": result_id}, {})


def most_points(settings: dict[str, Any]) -> tuple[float, float]:
    """(场分, 级差分) the most one match gives a team under the event's scoring (rules §9), as the desk scores a
    match (A+ over 2): 2 or 3 场分, and 26 级差分 (26-point table: 13 + 13; by face value: 14 + 12), or under
    ``one_to_three`` 3 a deal of the longest match the event's match end allows. A penalty takes off at most so
    much."""
    variant = str(settings.get("scoring") or "standard")
    if variant not in VARIANTS:
        variant = "standard"
    score = score_match({"NS": "A+", "EW": "2"}, "NS", variant=variant, finished=True)
    level = score.level["NS"]
    if variant == "one_to_three":
        from ..controller.match import MAX_DEALS

        deals = (settings.get("match_end") or {}).get("deals")
        level = 3.0 * (deals if isinstance(deals, int) and deals > 0 else MAX_DEALS)
    return score.match["NS"], level


def penalty(store: Store, who: str, why: str, team: str | int, kind: str, *,
            match_points: float = 0.0, level_points: float = 0.0) -> int:
    """A confirmed violation (counts as a foul) or points taken off (``deduct``): each a finite number of at most
    what one match can give (:func:`most_points`), either way: a negative deduction gives back one made in error
    (the log of corrections is never edited); ``-1e23`` took the team out of every standings for good."""
    team_id = _team(store, team)
    if kind not in ("violation", "deduct"):
        raise CorrectionError("penalty kind is violation or deduct")
    for option, value, most in zip(("--match-points", "--level-points"), (match_points, level_points),
                                   most_points(store.settings()), strict=True):
        if not (isinstance(value, int | float) and math.isfinite(value) and -most <= value <= most):
            raise CorrectionError(f"{option} {value!r}: 扣分须在 -{most:g} 到 {most:g} 之间（一场比赛最多所得；负数为退还误扣）| "
                                  f"points taken off are from -{most:g} to {most:g}, the most one match gives under "
                                  "this event's scoring (a negative number gives back a deduction made in error)")
    payload = {"kind": kind, "violations": 1 if kind == "violation" else 0,
               "match_points": match_points, "level_points": level_points}
    return _add(store, who, why, "penalty", {"team": team_id}, payload)


def _team(store: Store, team: str | int) -> int:
    found = [t for t in store.teams() if str(t.id) == str(team) or t.name == str(team)]
    if not found:
        raise CorrectionError(f"没有报名队伍 {team!r} | no registered team {team!r}")
    return found[0].id


def unplayed(store: Store, team: str | int) -> list[dict[str, Any]]:
    """The team's matches already paired that have no result yet (round, table, ns, ew): after a withdrawal,
    the referees' to enter as a walk-over."""
    team_id = _team(store, team)
    with store.lock:
        pending = tally(store.teams(), store.pairings(), store.results(), store.corrections())[3]
    return [p for p in pending if team_id in (p["ns"], p["ew"])]


def withdraw(store: Store, who: str, why: str, team: str | int, *, reinstate: bool = False) -> int:
    """Withdraw a team from the event (退赛: 放弃比赛, a pair that cannot go on): it is paired in no round after
    the last one paired now, its results so far stand and it stays in the standings, marked. A match of its
    already paired but not played is the referees' to enter (a walk-over: ``desk correct --walkover``).
    ``reinstate`` undoes a withdrawal (a mistake): the team is paired again from the next round."""
    team_id = _team(store, team)
    gone = withdrawn(store.corrections())
    if reinstate:
        if team_id not in gone:
            raise CorrectionError(f"队伍 {team!r} 未退赛 | team {team!r} has not withdrawn")
        return _add(store, who, why, "reinstate", {"team": team_id}, {})
    if team_id in gone:
        raise CorrectionError(f"队伍 {team!r} 已于第 {gone[team_id]['after_round']} 轮后退赛 | team {team!r} "
                              f"withdrew already (after round {gone[team_id]['after_round']})")
    # the last round it played: a match of the round now paired that it has not played does not count as one
    last = store.last_round()
    after = last - 1 if any(p["round"] == last for p in unplayed(store, team_id)) else last
    return _add(store, who, why, "withdraw", {"team": team_id}, {"after_round": after})


def _levels(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        team, sep, value = part.partition("=")
        if not sep:
            raise CorrectionError(f"--levels {text!r}: write NS=A+,EW=5")
        out[team.strip().upper()] = value.strip()
    return out


#: the options of ``desk correct`` that name what to correct, and the ones each kind of correction reads
_OPTIONS = ("round", "table", "result", "team", "void", "restore", "levels", "winner", "walkover", "withdraw",
            "reinstate", "penalty", "match_points", "level_points")
_READS = {
    "withdraw": {"team", "withdraw", "reinstate"},
    "penalty": {"team", "penalty", "match_points", "level_points"},
    "deal": {"result", "void", "restore"},
    "void": {"round", "table", "void"},
    "change": {"round", "table", "levels", "winner", "walkover"},
}


def _unread(args: argparse.Namespace, kind: str) -> None:
    """Refuse an option the correction would not read (``--void --winner NS`` voided the match, the winner
    silently dropped): the referee meant something else, so nothing is recorded."""
    given = [o for o in _OPTIONS if getattr(args, o, None) not in (None, False, 0, 0.0, "")]
    extra = [o for o in given if o not in _READS[kind]]
    if extra:
        named = ", ".join("--" + o.replace("_", "-") for o in extra)
        what = {"withdraw": "--withdraw/--reinstate", "penalty": "--penalty", "deal": "--result",
                "void": "--void", "change": "--levels/--winner"}[kind]
        raise CorrectionError(f"{named} 与 {what} 不能同用，未作更正 | {named} cannot go with {what} (it would be "
                              "ignored); nothing was corrected")


def correction_from_args(store: Store, args: argparse.Namespace) -> int:
    """The ``desk correct`` command line as one correction; an option it would not read is refused."""
    if args.withdraw or args.reinstate:
        _unread(args, "withdraw")
        if not args.team or (args.withdraw and args.reinstate):
            raise CorrectionError("--withdraw or --reinstate needs --team (one of them)")
        return withdraw(store, args.by, args.reason, args.team, reinstate=args.reinstate)
    if args.penalty:
        _unread(args, "penalty")
        if not args.team:
            raise CorrectionError("--penalty needs --team")
        return penalty(store, args.by, args.reason, args.team, args.penalty,
                       match_points=args.match_points, level_points=args.level_points)
    if args.result:
        _unread(args, "deal")
        if not (args.void or args.restore):
            raise CorrectionError("--result needs --void or --restore")
        return void_deal(store, args.by, args.reason, args.result, restore=args.restore)
    if args.void:
        _unread(args, "void")
        return void_match(store, args.by, args.reason, args.round, args.table)
    if args.restore:
        raise CorrectionError("--restore needs --result ID (the deal record to count again)")
    if args.walkover or args.levels or args.winner:
        _unread(args, "change")
    if args.walkover and args.winner in ("NS", "EW") and not args.levels:
        # 弃权 (a pair absent, late past the limit: 003 §十三): nothing was played, so no levels to invent; the
        # walk-over scores as one (26/0) whatever they are, and the match stands at the levels it began with
        return change_match(store, args.by, args.reason, args.round, args.table, levels={"NS": "2", "EW": "2"},
                            winner=args.winner, walkover=True)
    if args.levels and args.winner:
        winner = None if args.winner == "draw" else args.winner
        return change_match(store, args.by, args.reason, args.round, args.table, levels=_levels(args.levels),
                            winner=winner, walkover=args.walkover)
    raise CorrectionError("请说明更正内容 | say what to correct: --void, --levels L --winner W, --walkover --winner W, "
                          "--result ID --void, --penalty, or --withdraw / --reinstate")
