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
