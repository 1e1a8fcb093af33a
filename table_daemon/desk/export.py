"""Standings and pairings as CSV and as a printable HTML page (for notice boards), from plain data."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from . import bracket, rounds
from .clock import DEFAULT_TZ
from .standings import Outcome

STANDINGS_COLUMNS = (
    ("rank", "名次 Rank"), ("name", "队名 Team"), ("unit", "单位 Unit"), ("match_points", "场分 MP"),
    ("level_points", "级差分 Level pts"), ("opponent_points", "对手分 Opp."), ("fouls", "违例 Violations"),
    ("played", "场次 Played"), ("byes", "轮空 Byes"), ("duplicate", "复式 Dup."), ("lot_no", "抽签号 Lot no."),
)


def level_word(level: Any) -> str:
    """A level as organisers write it: 10 for the code ``T`` (A+ and the rest as they are)."""
    return "10" if level == "T" else str(level)


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def standings_csv(report: Mapping[str, Any]) -> str:
    """One header row (Chinese and English), then one row per pair, best first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([label for _, label in STANDINGS_COLUMNS] + ["队员 Players", "退赛 Withdrew after round"])
    for row in report["rows"]:
        gone = row.get("withdrawn")
        writer.writerow([_num(row[key]) for key, _ in STANDINGS_COLUMNS] + [" / ".join(row["players"])]
                        + [str(gone["after_round"]) if gone else ""])
    return out.getvalue()


def match_results(outcomes: Sequence[Outcome],
                  match_payloads: Mapping[tuple[int, str], Mapping[str, Any]] | None = None,
                  ) -> dict[tuple[int, str], dict[str, Any]]:
    """Each counted match's result by (round, table), from ``ledger.tally``'s outcomes (a referee's correction
    already over the table's result): final ``levels``, ``winner`` (NS, EW, None for a draw), ``void``,
    ``ruling`` (the referees' words from the table's match result, ``match_payloads``) and ``words`` for a
    cell. A bye and a match with no result yet have none."""
    payloads = match_payloads or {}
    out: dict[tuple[int, str], dict[str, Any]] = {}
    for o in outcomes:
        if o.ew is None:
            continue
        key = (o.round, o.table)
        levels = {"NS": str(o.levels.get("NS", "")), "EW": str(o.levels.get("EW", ""))}
        ruling = rounds.ruling_words(payloads.get(key))
        if o.void:
            words = "作废 void"
        else:
            won = f"胜方 winner {o.winner}" if o.winner in ("NS", "EW") else "平局 draw"
            words = f"NS {level_word(levels['NS'])} / EW {level_word(levels['EW'])} · {won}"
        out[key] = {"levels": levels, "winner": o.winner, "void": o.void, "ruling": ruling,
                    "words": " · ".join(filter(None, (words, ruling)))}
    return out


def pairing_rows(pairings: Sequence[Mapping[str, Any]], names: Mapping[int, str],
                 units: Mapping[int, str] | None = None,
                 results: Mapping[tuple[int, str], Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Pairings with team names: round, table, NS, EW (``轮空 bye`` when EW is empty), ``same_unit``: the
    unit both teams belong to when they do (同单位相遇, which an organiser keeping units apart wants to see), and
    ``result``: the match's counted result (see ``match_results``), None while there is none."""
    units = units or {}
    results = results or {}

    def same_unit(p: Mapping[str, Any]) -> str | None:
        unit = units.get(p["ns"]) or None
        return unit if p["ew"] is not None and unit == units.get(p["ew"]) else None

    def result(p: Mapping[str, Any]) -> dict[str, Any] | None:
        found = results.get((p["round"], p["tbl"]))
        return dict(found) if found is not None else None

    return [{"round": p["round"], "table": p["tbl"], "ns": p["ns"], "ns_name": names.get(p["ns"], "?"),
             "ew": p["ew"], "ew_name": names.get(p["ew"], "?") if p["ew"] is not None else "轮空 bye",
             "method": p["method"], "sent": bool(p.get("sent_at")), "same_unit": same_unit(p),
             "result": result(p)} for p in pairings]


def pairings_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """One row per match: round, table, teams, and its counted result (final levels, winner or draw, void,
    the referees' ruling); empty while a match has no result."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["轮次 Round", "桌号 Table", "南北 NS", "东西 EW", "南北级 NS level", "东西级 EW level",
                     "胜方 Winner", "裁判判罚 Ruling"])
    for r in rows:
        res = r.get("result")
        if res:
            winner = "作废 void" if res.get("void") else (
                res["winner"] if res.get("winner") in ("NS", "EW") else "平局 draw")
            tail = [level_word(res["levels"]["NS"]), level_word(res["levels"]["EW"]), winner, res.get("ruling") or ""]
        else:
            tail = ["", "", "", ""]
        writer.writerow([r["round"], r["table"], r["ns_name"], r["ew_name"], *tail])
    return out.getvalue()


#: an event's scoring variant (``points.VARIANTS``) as the notice board says it
SCORING_WORDS = {
    "standard": "场分 2/1/0，级差分 26 分制 · match points 2/1/0, level points out of 26",
    "three_point": "场分 3/0（未打完 2/1）· match points 3/0 (unfinished 2/1)",
    "level_value": "场分 2/1/0，级差分按级数牌面计 · match points 2/1/0, level points by face value",
    "one_to_three": "每副上游方得 3/2/1 分 · each deal 3/2/1 to the 上游 team",
}

#: Columns of the printed standings: what a notice board reader needs (no internal numbers such as lots).
PRINT_COLUMNS = (
    ("rank", "名次<br>Rank"), ("name", "队名 Team"), ("players", "队员 Players"), ("unit", "单位 Unit"),
    ("match_points", "场分<br>MP"), ("level_points", "级差分<br>Level pts"), ("opponent_points", "对手分<br>Opp."),
    ("fouls", "违例<br>Violations"), ("played", "场次<br>Played"),
)
def local_time(stamp: str, tz: str = DEFAULT_TZ) -> str:
    """``2026-11-29T10:00:00.123Z`` as local wall time, ``2026-11-29 18:00 (北京时间 UTC+08:00)``."""
    try:
        zone = ZoneInfo(tz)
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(zone)
    except (ValueError, ZoneInfoNotFoundError, AttributeError):
        return stamp
    offset = when.strftime("%z")
    label = "北京时间 " if tz == "Asia/Shanghai" else f"{tz} "
    return f"{when:%Y-%m-%d %H:%M} ({label}UTC{offset[:3]}:{offset[3:]})"


def print_page(report: Mapping[str, Any], pairings: Sequence[Mapping[str, Any]], tz: str = DEFAULT_TZ) -> str:
    """A self-contained printable page (A4, CJK font): standings with their version and local time, the
    knockout's bracket when one has begun, and the latest round's pairings. Lots and seeds stay in the CSV
    export: they mean nothing on a notice board."""
    e = html.escape
    columns: tuple[tuple[str, str], ...] = PRINT_COLUMNS
    if "boards" in report:  # a duplicate event ranks by the duplicate total first (rules §12): say it
        columns = (*PRINT_COLUMNS[:4], ("duplicate", "复式<br>Dup."), *PRINT_COLUMNS[4:])
    head = "".join(f"<th>{label}</th>" for _, label in columns)

    def cell(row: Mapping[str, Any], key: str) -> str:
        value = row.get(key, "")
        if key == "players":
            return e(" · ".join(value or []))
        if key == "name" and row.get("withdrawn"):  # as the CSV and the screens say it
            after = row["withdrawn"].get("after_round")
            return e(f"{value} · 第{after}轮后退赛 withdrew after round {after}")
        return e(_num(value))

    body = "".join(
        "<tr>" + "".join(f'<td class="{key}">{cell(row, key)}</td>' for key, _ in columns) + "</tr>"
        for row in report["rows"])
    last = max((p["round"] for p in pairings), default=0)
    pair_rows = "".join(
        f"<tr><td>{e(str(p['table']))}</td><td>{e(p['ns_name'])}</td><td>{e(p['ew_name'])}</td></tr>"
        for p in pairings if p["round"] == last)
    pairs = (f"""<h2>第 {last} 轮对阵 · Round {last} pairings</h2>
<table id="pairings"><tr><th>桌号 Table</th><th>南北 NS</th><th>东西 EW</th></tr>{pair_rows}</table>"""
             if pair_rows else "")
    knockout = _knockout_section(knockout_lines(report))
    places = report.get("knockout_places")
    ko_note = (f'<p class="meta">前 {len(places)} 名按淘汰赛名次排列 · places 1-{len(places)} by the knockout</p>\n'
               if isinstance(places, list) and places else "")
    event = e(str(report.get("event") or ""))
    return f"""<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>成绩公告 Standings {event}</title>
<style>
@page {{ size: A4; margin: 14mm 12mm; }}
body {{ font-family: "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Source Han Sans SC", "Microsoft YaHei",
  "PingFang SC", sans-serif; font-size: 10.5pt; color: #000; margin: 0 auto; max-width: 186mm; }}
h1 {{ font-size: 17pt; margin: 0 0 2mm; }} h2 {{ font-size: 12.5pt; margin: 6mm 0 2mm; }}
.meta {{ margin: 0 0 4mm; color: #333; }}
table {{ border-collapse: collapse; width: 100%; page-break-inside: auto; }}
tr {{ page-break-inside: avoid; }}
th, td {{ border: 0.3mm solid #555; padding: 1.2mm 1.8mm; vertical-align: top; }}
th {{ background: #eee; font-weight: 700; font-size: 9pt; text-align: left; }}
td.rank, td.match_points, td.level_points, td.opponent_points, td.fouls, td.played {{ text-align: right;
  font-variant-numeric: tabular-nums; white-space: nowrap; }}
td.rank {{ font-weight: 700; }} td.name {{ font-weight: 700; }} td.players {{ font-size: 9.5pt; }}
@media print {{ a {{ display: none; }} }}
</style></head><body>
<h1>成绩公告 · Standings — {event}</h1>
<p class="meta">版本 Version {report['version']} · 计算于 computed {e(local_time(str(report.get('computed_at', '')), tz))}
 · 计分 Scoring: {e(SCORING_WORDS.get(str(report.get('scoring', '')), str(report.get('scoring', ''))))}</p>
{ko_note}<table id="standings"><tr>{head}</tr>{body}</table>
{knockout}
{pairs}
</body></html>"""


def knockout_lines(report: Mapping[str, Any]) -> list[dict[str, str]]:
    """The knockout's bracket of a standings report as rows of words (``bracket.match_lines``), teams by name;
    none before a knockout begins."""
    if not isinstance(report.get("knockout"), dict):
        return []
    names = {int(r["team"]): str(r["name"]) for r in report["rows"] if "team" in r}
    return bracket.match_lines(report["knockout"], names)


def _knockout_section(lines: Sequence[Mapping[str, str]]) -> str:
    """The knockout's bracket on the notice board: each match with the places it decides, its table, its
    teams and how it went."""
    if not lines:
        return ""
    e = html.escape
    rows = "".join(
        "<tr>" + "".join(f'<td class="{k}">{e(line[k])}</td>' for k in
                         ("round", "stage", "table", "first", "second", "outcome")) + "</tr>"
        for line in lines)
    return ("""<h2>淘汰赛对阵 · Knockout bracket</h2>
<table id="knockout"><tr><th>轮次 Round</th><th>比赛 Match</th><th>桌号 Table</th><th>队 Team</th><th>队 Team</th>
<th>结果 Result</th></tr>""" + rows + "</table>")
