"""The progress lines of a simulated table: a sealed duplicate board (rules §12) is said as sealed, not as
"deal 6 over: None +None" and "match over: winner draw" (a walk-through's console)."""

from __future__ import annotations

import io

from table_daemon.sim_progress import progress_printer


def test_a_sealed_board_is_said_sealed_not_none() -> None:
    out = io.StringIO()
    show = progress_printer("T01", out)
    show("events", {"type": "deal_started", "deal": 6, "board": 2, "level": None})
    show("events", {"type": "deal_over", "deal": 6, "board": 2, "sealed": True})
    show("events", {"type": "match_over", "match": 1, "sealed": True})
    show("events", {"type": "deal_over", "deal": 7, "finish": ["N"], "winner": "NS", "up": 3,
                    "levels": {"NS": "5", "EW": "2"}})
    lines = out.getvalue().splitlines()
    assert lines[0] == "[T01] 第6副开始 复式牌第2副 | deal 6 started: board 2"
    assert "board 2) over, its result sealed" in lines[1] and "封存" in lines[2] and "draw" not in lines[2]
    assert not any("None" in line for line in lines[:3])
    assert lines[3].endswith("deal 7 over: NS +3")


def test_the_console_speaks_the_referees_words() -> None:
    """A walk-through of the wording: "E 出完 第1名", "打T", "级数 {'NS': '3', 'EW': 'A+'}" (a Python dict), a trick
    called 墩 and an alert called 警告 (a penalty's name, rules §11) with its raw code."""
    out = io.StringIO()
    show = progress_printer("T01", out)
    show("events", {"type": "deal_started", "deal": 1, "level": "T", "played": "EW"})
    show("events", {"type": "trick_won", "deal": 1, "trick": 3, "seat": "E"})
    show("events", {"type": "seat_out", "deal": 1, "seat": "E", "place": 1})
    show("events", {"type": "deal_over", "deal": 1, "finish": ["E", "W"], "winner": "EW", "up": 3,
                    "levels": {"NS": "2", "EW": "K"}})
    show("events", {"type": "match_over", "winner": "EW", "levels": {"NS": "3", "EW": "A+"}})
    show("alerts", {"type": "alert", "code": "out_of_turn", "message": "越序出牌 | out of turn"})
    show("events", {"type": "tribute", "deal": 2, "seat": "W", "to": "S", "card": "SB"})
    show("events", {"type": "return", "deal": 2, "seat": "S", "to": "W", "card": "C2"})
    show("events", {"type": "tribute_plan", "deal": 3, "resisted": True, "payments": []})
    lines = out.getvalue().splitlines()
    assert lines == [
        "[T01] 第1副开始 打10（东西 EW 的级） | deal 1 started, level 10 of EW",
        "[T01] 第3圈 东 E 拿下 | trick 3 won by E",
        "[T01] 东 E 出完 上游 | E out, place 1",
        "[T01] 第1副结束 上游 东 E，东西 EW 升3级 → NS 2 / EW K | deal 1 over: EW +3",
        "[T01] 比赛结束 东西 EW 胜 · NS 3 / EW A+ | match over: EW wins",
        "[T01] 警报 alert 越序出牌 out of turn: 越序出牌 | out of turn",
        "[T01] 进贡 西 W → 南 S SB | tribute W to S: SB",  # the console never said the tribute (a walk-through)
        "[T01] 还贡 南 S → 西 W C2 | return S to W: C2",
        "[T01] 抗贡：下游有两个大王，不进贡 | no tribute: two big jokers"]
