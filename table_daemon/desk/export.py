"""Standings and pairings as CSV and as a printable HTML page (for notice boards), from plain data."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from typing import Any

STANDINGS_COLUMNS = (
    ("rank", "名次 Rank"), ("name", "队名 Team"), ("unit", "单位 Unit"), ("match_points", "场分 MP"),
    ("level_points", "级差分 Level pts"), ("opponent_points", "对手分 Opp."), ("fouls", "违例 Fouls"),
    ("played", "场次 Played"), ("byes", "轮空 Byes"), ("duplicate", "复式 Dup."), ("lot", "抽签 Lot"),
)


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def standings_csv(report: Mapping[str, Any]) -> str:
    """One header row (Chinese and English), then one row per pair, best first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([label for _, label in STANDINGS_COLUMNS] + ["队员 Players"])
    for row in report["rows"]:
        writer.writerow([_num(row[key]) for key, _ in STANDINGS_COLUMNS] + [" / ".join(row["players"])])
    return out.getvalue()


def pairing_rows(pairings: Sequence[Mapping[str, Any]], names: Mapping[int, str]) -> list[dict[str, Any]]:
    """Pairings with team names: round, table, NS, EW (``轮空 bye`` when EW is empty)."""
    return [{"round": p["round"], "table": p["tbl"], "ns": p["ns"], "ns_name": names.get(p["ns"], "?"),
             "ew": p["ew"], "ew_name": names.get(p["ew"], "?") if p["ew"] is not None else "轮空 bye",
             "method": p["method"], "sent": bool(p.get("sent_at"))} for p in pairings]


def pairings_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["轮次 Round", "桌号 Table", "南北 NS", "东西 EW"])
    for r in rows:
        writer.writerow([r["round"], r["table"], r["ns_name"], r["ew_name"]])
    return out.getvalue()


def print_page(report: Mapping[str, Any], pairings: Sequence[Mapping[str, Any]]) -> str:
    """A self-contained printable page: standings with their version, and the latest round's pairings."""
    e = html.escape
    head = "".join(f"<th>{e(label)}</th>" for _, label in STANDINGS_COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{e(_num(row[key]))}</td>" for key, _ in STANDINGS_COLUMNS) + "</tr>"
        for row in report["rows"])
    last = max((p["round"] for p in pairings), default=0)
    pair_rows = "".join(
        f"<tr><td>{e(p['table'])}</td><td>{e(p['ns_name'])}</td><td>{e(p['ew_name'])}</td></tr>"
        for p in pairings if p["round"] == last)
    return f"""<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>成绩公告 Standings {e(str(report.get('event')))}</title>
<style>body{{font-family:sans-serif}} table{{border-collapse:collapse}} td,th{{border:1px solid #444;
padding:2px 6px}} @media print{{a{{display:none}}}}</style></head><body>
<h1>成绩公告 Standings — {e(str(report.get('event')))}</h1>
<p>版本 Version {report['version']} · 计算于 computed {e(report['computed_at'])} · 计分 scoring
{e(report['scoring'])} · 抽签种子 lot seed <code>{e(report['lot_seed'])}</code></p>
<table id="standings"><tr>{head}</tr>{body}</table>
<h2>第 {last} 轮对阵 Round {last} pairings</h2>
<table id="pairings"><tr><th>桌号 Table</th><th>南北 NS</th><th>东西 EW</th></tr>{pair_rows}</table>
</body></html>"""
