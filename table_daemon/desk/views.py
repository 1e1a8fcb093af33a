"""What the desk page reads (pure over the store and the hub): each table's row (online, devices, where its
match stands, a sealed table's boards), each match's counted result, a correction in words."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..display.hub import Hub
from . import alerts as al
from . import event as ev
from . import export, ledger, rounds
from .clock import local, local_at
from .points import board_result_ns
from .store import Store

#: a referee's correction (a stored row's ``action``) in words
ACTION_WORDS = {"change": "更正成绩 change", "void": "作废 void", "restore": "恢复 restore",
                "penalty": "判罚 penalty", "withdraw": "退赛 withdraw", "reinstate": "恢复参赛 reinstate"}


def board_results(store: Store, round_no: int) -> dict[str, list[dict[str, int]]]:
    """The duplicate boards each table has played in round ``round_no``, from the full deal records the desk
    holds (sealed from the hall until released): per table, in board order, ``board`` and ``result_ns`` (the
    NS cards' result, rules §12). Empty outside a duplicate event."""
    if not store.settings().get("duplicate"):
        return {}
    out: dict[str, list[dict[str, int]]] = {}
    for row in store.results("deal", match=round_no):
        rec = row["payload"]
        if not isinstance(rec, dict) or rec.get("board") is None:
            continue
        result = rec.get("result") or {}
        out.setdefault(str(row["tbl"]), []).append(
            {"board": int(rec["board"]), "result_ns": board_result_ns(result.get("winner"), int(result.get("up") or 0))})
    return {table: sorted(plays, key=lambda p: p["board"]) for table, plays in out.items()}


def tables_view(store: Store, hub: Hub, link: Callable[[], dict[str, Any]] | None = None,
                halls: Callable[[], list[dict[str, Any]]] | None = None,
                report: dict[str, Any] | None = None,
                boards: dict[str, list[dict[str, int]]] | None = None, *, sealed: bool = False) -> dict[str, Any]:
    """Each table: online, devices, phase, level, the current round's match and where it stands, results
    still awaited, journal backlog, recent alerts; and ``broker``, whether the desk itself reaches the broker
    (``link``: its link's state; while it does not, every table's status on the page is as last heard);
    ``report``: the standings report, when the caller has it already; ``boards``: the round's
    ``board_results``, likewise. A sealed match (duplicate boards) publishes no levels: its ``match`` lists the
    boards played and their results instead, from the records only the desk and referees read. ``sealed``: the
    public page of a duplicate event, which shows no cards an alert saw."""
    report = report if report is not None else ev.standings_report(store)
    tz = store.settings().get("timezone")
    live = hub.snapshot(brief=True)["tables"]
    statuses = store.statuses()
    round_no = store.last_round()
    current = {p["tbl"]: p for p in store.pairings(round_no) if p["ew"] is not None}
    waiting = {(p["round"], p["table"]) for p in report["pending"]}  # no result yet, nor a referee's entry
    names = {t.id: t.name for t in store.teams()}
    match_results = {r["tbl"]: r["payload"] for r in store.results("match", match=round_no)}
    boards = boards if boards is not None else board_results(store, round_no)
    out = []
    for name in sorted(set(live) | set(statuses) | set(current)):
        tab = live.get(name, {})
        state = tab.get("state") or {}
        status = tab.get("status") or statuses.get(name, {})
        health = tab.get("health") or {}
        pairing = current.get(name)
        row: dict[str, Any] = {
            "table": name, "online": bool(status.get("online", False)), "devices": status.get("devices"),
            "device_words": rounds.device_words(status.get("devices")),
            "phase": state.get("phase"), "phase_words": rounds.phase_words(state.get("phase")),
            "level": state.get("level"), "levels": state.get("levels"),
            "deal": state.get("deal"), "deals_played": state.get("deals_played"),
            "pending": [p for p in report["pending"] if p["table"] == name],
            "journal_backlog": health.get("journal_backlog", health.get("pending_results")),
            # what the table's latest health report says is wrong (SD card, power, heat, devices, journal), named
            "problems": [al.type_words(code) for code in health.get("problems") or [] if isinstance(code, str)],
            # the public page of a duplicate event: no cards an alert saw (a sealed board's, maybe)
            "alerts": [{**al.describe(a, tz), **({"seen": None} if sealed else {})} for a in store.alerts(name, limit=5)],
        }
        if pairing is not None:
            row["match"] = {"round": round_no, "ns": names.get(pairing["ns"]), "ew": names.get(pairing["ew"]),
                            **rounds.progress(pairing, tab, (round_no, name) not in waiting, str(store.event()),
                                              offline=status.get("online") is False)}
            for key in ("sent_at", "accepted_at"):
                row["match"][key] = local(row["match"][key], tz)
            row["match"]["ruling"] = rounds.ruling_words(match_results.get(name))
            if name in boards:
                row["match"]["boards"] = boards[name]
        out.append(row)
    broker = dict(link()) if link is not None else None
    if broker is not None and broker.get("away_since") is not None:
        broker["away_since_local"] = local_at(float(broker["away_since"]), tz)
    hall_links = [{**h, "since_local": local_at(float(h["since"]), tz)} for h in (halls() if halls else [])]
    return {"version": report["version"], "round": round_no, "tables": out, "broker": broker, "halls": hall_links}


def correction_words(row: dict[str, Any], names: dict[int, str]) -> dict[str, str]:
    """A stored correction's action and target in words for the page: ``第1轮 T04 round 1``, ``副 deal ID``,
    ``队 NAME team``; anything else as it is stored."""
    action, target = str(row.get("action") or ""), row.get("target") or {}
    said = ACTION_WORDS.get(action, action)
    if action == "void" and "id" in target:
        said = "本副作废 void the deal"
    elif action == "restore" and "id" in target:
        said = "恢复此副 restore the deal"
    if "round" in target and "table" in target:
        where = f"第{target['round']}轮 {target['table']} round {target['round']}"
    elif "id" in target:
        where = f"副 deal {target['id']}"
    elif "team" in target:
        team = target["team"]
        where = f"队 {names.get(int(team), '?')} team {team}" if str(team).isdigit() else f"队 team {team}"
    else:
        where = json.dumps(target, ensure_ascii=False)
    return {"action_words": said, "target_words": where}


def results_view(store: Store, *, public: bool = False) -> dict[tuple[int, str], dict[str, Any]]:
    """Each counted match's result by (round, table), as the standings count it (``ledger.tally``: a
    referee's correction over the table's result), with the referees' ruling words from its match result;
    ``public``: only what the hall may see (``event.public_inputs``)."""
    with store.lock:
        pairings, results, corrections = store.pairings(), store.results(), store.corrections()
        if public:
            results, corrections = ev.public_inputs(pairings, results, corrections)
        outcomes = ledger.tally(store.teams(), pairings, results, corrections)[0]
    payloads = {(r["match"], r["tbl"]): r["payload"] for r in results if r["kind"] == "match"}
    return export.match_results(outcomes, payloads)
