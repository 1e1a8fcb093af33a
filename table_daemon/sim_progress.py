"""Progress lines of a simulated run: the deals, tricks, places, results and alerts each table publishes,
printed on stderr in Chinese and English as they happen.

Kept apart from the run (``sim_run``) since it only formats published messages: it knows no table.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def progress_printer(table: str, out: Any = sys.stderr) -> Callable[[str, dict[str, Any]], None]:
    """Prints deals and results on stderr, in Chinese and English."""

    tricks = {"n": 0}

    def show(topic: str, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "deal_started" and msg.get("board") is not None:
            tricks["n"] = 0
            print(f"[{table}] 第{msg.get('deal')}副开始 复式牌第{msg.get('board')}副 | deal {msg.get('deal')} started: "
                  f"board {msg.get('board')}", file=out, flush=True)
        elif kind == "deal_started":
            tricks["n"] = 0
            print(f"[{table}] 第{msg.get('deal')}副开始 打{msg.get('level')} ({msg.get('played')}) | deal "
                  f"{msg.get('deal')} started, level {msg.get('level')} of {msg.get('played')}", file=out, flush=True)
        elif kind == "trick_won":  # the deal's own count (a table restarted mid-deal goes on from it)
            tricks["n"] = msg["trick"] if isinstance(msg.get("trick"), int) else tricks["n"] + 1
            print(f"[{table}] 第{tricks['n']}墩 {msg.get('seat')} 赢 | trick {tricks['n']} won by {msg.get('seat')}",
                  file=out, flush=True)
        elif kind == "seat_out":
            print(f"[{table}] {msg.get('seat')} 出完 第{msg.get('place')}名 | {msg.get('seat')} out, place "
                  f"{msg.get('place')}", file=out, flush=True)
        elif kind in ("deal_over", "match_over") and msg.get("sealed"):  # a duplicate board: the desk's until released
            what = (f"第{msg.get('deal')}副结束 复式牌第{msg.get('board')}副" if kind == "deal_over" else "比赛结束")
            said = (f"deal {msg.get('deal')} (board {msg.get('board')}) over" if kind == "deal_over" else "match over")
            print(f"[{table}] {what}，成绩封存至公布 | {said}, its result sealed until the desk releases the board",
                  file=out, flush=True)
        elif kind == "deal_over":
            lv = msg.get("levels", {})
            print(f"[{table}] 第{msg.get('deal')}副结束 上游 {msg.get('finish', ['?'])[0]}，{msg.get('winner')} 升"
                  f"{msg.get('up')}级 → NS {lv.get('NS')} / EW {lv.get('EW')} | deal {msg.get('deal')} over: "
                  f"{msg.get('winner')} +{msg.get('up')}", file=out, flush=True)
        elif kind == "match_over":
            print(f"[{table}] 比赛结束 胜方 {msg.get('winner') or '平局'} 级数 {msg.get('levels')} | match over: "
                  f"winner {msg.get('winner') or 'draw'}", file=out, flush=True)
        elif kind == "alert" and msg.get("code") not in ("referee_call",):
            print(f"[{table}] 警告 alert {msg.get('code')}: {msg.get('message')}", file=out, flush=True)

    return show



def topic_filter(show: Callable[[str, dict[str, Any]], None]) -> Callable[[str, dict[str, Any]], None]:
    """Pass on only a table's events and alerts (what ``progress_printer`` shows)."""
    def on(topic: str, msg: dict[str, Any]) -> None:
        if topic.endswith(("/events", "/alerts")):
            show(topic, msg)

    return on
