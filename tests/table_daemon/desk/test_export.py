"""Standings and pairings as CSV, as Excel opens them."""

from table_daemon.desk.export import standings_csv
from table_daemon.desk.standings import Team, compute

TEAMS = [Team(i, f"队{i}", (f"甲{i}", f"乙{i}"), "单位") for i in range(1, 9)]


def test_standings_csv_shows_the_draw_number_not_the_raw_lot() -> None:
    rows = compute(TEAMS, [], lot_seed="x")
    lines = standings_csv({"rows": [r.to_json() for r in rows]}).splitlines()
    header = lines[0].split(",")
    column = header.index("抽签号 Lot no.")
    assert [int(line.split(",")[column]) for line in lines[1:]] == [r.lot_no for r in rows]
    assert all(str(r.lot) not in "\n".join(lines) for r in rows)  # Excel shows a 15-digit lot as 2.01E+14
