"""The printed standings (notice board): CJK font, local time in the event's zone, A4, no internal numbers such as
lots."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from table_daemon.desk.export import local_time, print_page
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import routes
from table_daemon.display.hub import Hub

REPORT = {"event": "淮安公开赛", "version": 7, "computed_at": "2026-11-29T10:05:00.123Z", "scoring": "standard",
          "lot_seed": "f3a9c1d2e4b5a6978877665544332211",
          "rows": [{"rank": 1, "team": 3, "name": "红旗队", "unit": "南京", "players": ["张伟", "李娜"],
                    "match_points": 4.0, "level_points": 30.0, "opponent_points": 2.0, "fouls": 0, "played": 2,
                    "byes": 0, "duplicate": 0, "lot": 187236459812734}]}
PAIRS = [{"round": 2, "table": "T01", "ns": 3, "ns_name": "红旗队", "ew": 4, "ew_name": "长江队", "method": "swiss",
          "sent": True}]


def test_print_page_speaks_local_time_and_hides_internal_numbers() -> None:
    page = print_page(REPORT, PAIRS)
    assert "WenQuanYi Micro Hei" in page and "Noto Sans CJK SC" in page and "size: A4" in page
    assert "2026-11-29 18:05 (北京时间 UTC+08:00)" in page
    text = re.sub(r"<style>.*?</style>|<[^>]+>", " ", page, flags=re.S)
    assert not re.search(r"\d{9,}", text) and "f3a9c1d2" not in text
    assert "张伟 · 李娜" in page and "长江队" in page and "版本 Version 7" in page


def test_a_duplicate_event_prints_the_duplicate_total_that_ranks_it() -> None:
    """A duplicate event ranks by the duplicate total first (rules §12): without its column a team with fewer
    场分 stood above one with more, unexplained."""
    row: dict[str, Any] = {**REPORT["rows"][0], "duplicate": 2.5}  # type: ignore[index]
    dup = {**REPORT, "boards": [], "rows": [row]}
    page = print_page(dup, PAIRS)
    assert "复式<br>Dup." in page and '<td class="duplicate">2.5</td>' in page
    assert page.index("复式<br>Dup.") < page.index("场分<br>MP")
    assert "Dup." not in print_page(REPORT, PAIRS)


def test_local_time_in_another_zone_and_a_bad_stamp_left_alone() -> None:
    assert local_time("2026-11-29T10:05:00Z", "Europe/Berlin") == "2026-11-29 11:05 (Europe/Berlin UTC+01:00)"
    assert local_time("not a time") == "not a time"
    assert local_time("2026-11-29T10:05:00Z", "Mars/Olympus") == "2026-11-29T10:05:00Z"


def _page_text(route: Any) -> str:
    status, _, body = route("", {})
    assert status == 200
    return body.decode() if isinstance(body, bytes) else str(body)


def test_the_desk_names_the_zone_its_times_are_in_and_prints_in_it(tmp_path: Path) -> None:
    """The desk page said "时区 Time zone:" and nothing for an event set up without a zone (the demo's), while
    its times were Beijing's; the printable page was in Beijing time whatever the event's zone."""
    for settings, zone, label in (({}, "Asia/Shanghai", "北京时间 UTC+08:00"),
                                  ({"timezone": "Europe/Berlin"}, "Europe/Berlin", "Europe/Berlin UTC+01:00")):
        store = Store(tmp_path / f"{zone.replace('/', '-')}.sqlite")
        try:
            store.set_up("ev", [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2")],
                         {"tables": ["T01"], **settings}, "seed")
            pages = routes(store, Hub("ev"))
            assert json.loads(_page_text(pages["/api/desk"]))["timezone"] == zone
            assert label in _page_text(pages["/print"])
            status, _, body = pages["/print"]("", {"tz": "Nowhere/Bad"})  # was printed in UTC without a word
            assert status == 400 and "未知时区 unknown time zone 'Nowhere/Bad'" in body.decode()
        finally:
            store.close()


def test_the_printed_standings_mark_a_withdrawal_and_levels_read_10() -> None:
    """An organiser's day: the printed standings listed a withdrawn pair as any other (the CSV and the screens
    mark it), and results read "NS T" where organisers write 10."""
    from table_daemon.desk.export import level_word, pairings_csv

    gone: dict[str, Any] = {**REPORT["rows"][0], "withdrawn": {"after_round": 2, "reason": "ill"}}  # type: ignore[index]
    page = print_page({**REPORT, "rows": [gone]}, PAIRS)
    assert "红旗队 · 第2轮后退赛 withdrew after round 2" in page and "ill" not in page
    assert [level_word(x) for x in ("T", "9", "A+")] == ["10", "9", "A+"]
    rows = [{"round": 1, "table": "T01", "ns_name": "红旗队", "ew_name": "长江队",
             "result": {"levels": {"NS": "T", "EW": "2"}, "winner": "NS"}}]
    assert "10,2,NS" in pairings_csv(rows)
