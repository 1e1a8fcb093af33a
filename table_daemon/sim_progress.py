"""Progress lines of a simulated run: the deals, tricks, places, results and alerts each table publishes,
printed on stderr in Chinese and English as they happen.

Kept apart from the run (``sim_run``) since it only formats published messages: it knows no table.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .desk.alerts import SEAT_NAMES, type_words  # the alert kinds as the desk page names them

#: teams as referees say them (南北 NS; seats as the desk names them: 东 E)
TEAM_WORDS = {"NS": "南北 NS", "EW": "东西 EW"}
#: places in the order of going out (rules: 上游, 二游, 三游, 下游)
PLACE_WORDS = {1: "上游", 2: "二游", 3: "三游", 4: "下游"}


def _seat(seat: Any) -> str:
    return SEAT_NAMES.get(str(seat), str(seat))


def _level(level: Any) -> str:
    """A level as organisers write it: 10 for the code ``T``."""
    return "10" if level == "T" else str(level)


def _levels(levels: Any) -> str:
    lv = levels if isinstance(levels, dict) else {}
    return f"NS {_level(lv.get('NS'))} / EW {_level(lv.get('EW'))}"


def progress_printer(table: str, out: Any = sys.stderr) -> Callable[[str, dict[str, Any]], None]:
    """Prints deals and results on stderr, in Chinese and English, in the referees' words (上游, 南北 NS)."""

    tricks = {"n": 0}

    def say(text: str) -> None:  # one write: the desk's thread prints too, and lines must not run together
        out.write(f"[{table}] {text}\n")
        out.flush()

    def show(topic: str, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "deal_started" and msg.get("board") is not None:
            tricks["n"] = 0
            say(f"第{msg.get('deal')}副开始 复式牌第{msg.get('board')}副 | deal {msg.get('deal')} started: "
                f"board {msg.get('board')}")
        elif kind == "deal_started":
            tricks["n"] = 0
            team = TEAM_WORDS.get(str(msg.get("played")), str(msg.get("played")))
            say(f"第{msg.get('deal')}副开始 打{_level(msg.get('level'))}（{team} 的级） | deal {msg.get('deal')} "
                f"started, level {_level(msg.get('level'))} of {msg.get('played')}")
        elif kind == "trick_won":  # the deal's own count (a table restarted mid-deal goes on from it)
            tricks["n"] = msg["trick"] if isinstance(msg.get("trick"), int) else tricks["n"] + 1
            say(f"第{tricks['n']}圈 {_seat(msg.get('seat'))} 拿下 | trick {tricks['n']} won by {msg.get('seat')}")
        elif kind == "seat_out":
            place = msg.get("place")
            said = PLACE_WORDS.get(place, f"第{place}名") if isinstance(place, int) else f"第{place}名"
            say(f"{_seat(msg.get('seat'))} 出完 {said} | {msg.get('seat')} out, place {place}")
        elif kind in ("deal_over", "match_over") and msg.get("sealed"):  # a duplicate board: the desk's until released
            what = (f"第{msg.get('deal')}副结束 复式牌第{msg.get('board')}副" if kind == "deal_over" else "比赛结束")
            said = (f"deal {msg.get('deal')} (board {msg.get('board')}) over" if kind == "deal_over" else "match over")
            say(f"{what}，成绩封存至公布 | {said}, its result sealed until the desk releases the board")
        elif kind == "deal_over":
            first = (msg.get("finish") or ["?"])[0]
            team = TEAM_WORDS.get(str(msg.get("winner")), str(msg.get("winner")))
            say(f"第{msg.get('deal')}副结束 上游 {_seat(first)}，{team} 升{msg.get('up')}级 → "
                f"{_levels(msg.get('levels'))} | deal {msg.get('deal')} over: {msg.get('winner')} +{msg.get('up')}")
        elif kind == "match_over":
            winner = msg.get("winner")
            won = f"{TEAM_WORDS.get(str(winner), str(winner))} 胜" if winner else "平局"
            say(f"比赛结束 {won} · {_levels(msg.get('levels'))} | match over: "
                f"{f'{winner} wins' if winner else 'draw'}")
        elif kind == "tribute_plan" and msg.get("resisted"):
            say("抗贡：下游有两个大王，不进贡 | no tribute: two big jokers")
        elif kind in ("tribute", "return"):
            what = "进贡" if kind == "tribute" else "还贡"
            say(f"{what} {_seat(msg.get('seat'))} → {_seat(msg.get('to'))} {msg.get('card')} | {kind} "
                f"{msg.get('seat')} to {msg.get('to')}: {msg.get('card')}")
        elif kind == "alert" and msg.get("code") not in ("referee_call",):
            say(f"警报 alert {type_words(str(msg.get('code')))}: {msg.get('message')}")

    return show


def topic_filter(show: Callable[[str, dict[str, Any]], None]) -> Callable[[str, dict[str, Any]], None]:
    """Pass on only a table's events and alerts (what ``progress_printer`` shows)."""
    def on(topic: str, msg: dict[str, Any]) -> None:
        if topic.endswith(("/events", "/alerts")):
            show(topic, msg)

    return on
