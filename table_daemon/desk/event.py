"""Setting up an event and its rounds: the CSV of registered pairs, pairing the next round from the stored
standings, and the ``start_match`` command each table gets (mqtt-api.md, Command payloads).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.deal import DealFileError, check_deal_file

from ..controller.match import MAX_NAME  # the longest name a table's start_match takes: a pairs CSV's too
from . import boards as bd
from . import ledger, pairing, rounds
from .standings import Team
from .store import Store, StoreError, now

METHODS = ("swiss", "round_robin", "knockout")
#: who sits NS at a table (方位): ``first_ns``, the pairing's first team (the better placed); ``first_ew``, the
#: first team sits EW (004 六: "对阵表上排前者就座东西方位，排后者则就座南北方位"); ``lot``, the larger 抽签号
#: sits NS (003 十四 第2条: "大号（指抽签号）运动员坐南北向，小号坐东西向")
SEATINGS = ("first_ns", "first_ew", "lot")
#: the seating a rule profile's documents give, when ``desk init --seating`` does not name one
PROFILE_SEATING = {"jiangsu": "lot", "club-004": "first_ew"}


def default_seating(profile: Any) -> str:
    """The seating of an event's profile (a shipped profile's name, or settings with a ``base``)."""
    name = profile.get("base", profile.get("name")) if isinstance(profile, dict) else profile
    return PROFILE_SEATING.get(str(name), "first_ns")


def seated(pairs: pairing.Pairing, seating: str, lot_no: dict[int, int]) -> pairing.Pairing:
    """Each match of ``pairs`` with its NS team first, as ``seating`` says (a bye as it is)."""
    out: pairing.Pairing = []
    for a, b in pairs:
        if b is not None and (seating == "first_ew" or (seating == "lot" and lot_no.get(a, 0) < lot_no.get(b, 0))):
            a, b = b, a
        out.append((a, b))
    return out
_HEADERS = {
    "name": ("team", "name", "队名", "队伍", "组合"),
    "player1": ("player1", "player 1", "队员1", "选手1"),
    "player2": ("player2", "player 2", "队员2", "选手2"),
    "players": ("players", "队员", "选手"),
    "unit": ("unit", "单位", "club"),
}


class EventError(ValueError):
    """A bad registration file or a round that cannot be paired now; the message names what is wrong."""


_LABELS = {"name": "队名 team", "player1": "队员1 player1", "player2": "队员2 player2", "players": "队员 players",
           "unit": "单位 unit"}


def decode_csv(data: bytes, path: str | Path) -> str:
    """The text of a CSV as organisers save it: UTF-8 with or without BOM, or GBK/GB18030 (Chinese Excel).

    A file of both (rows added by another program, in the other encoding) is refused naming a row of each: read
    as GBK its UTF-8 rows were garbled names, or a header "lacking" its columns."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError as exc:
        row = data[:exc.start].count(b"\n") + 1
        raise EventError(f"{path}: 第{row}行无法识别编码（应为 UTF-8 或 GBK）| row {row}: the file is neither UTF-8 "
                         f"nor GBK/GB18030 (byte {data[exc.start]:#04x} at offset {exc.start})") from exc
    mixed = _mixed_rows(data)
    if mixed is not None:
        utf8, other = mixed
        raise EventError(f"{path}: 文件混用两种编码（第{utf8}行为 UTF-8，第{other}行不是），请整体另存为 UTF-8 或 GBK | "
                         f"the file mixes encodings: row {utf8} is UTF-8, row {other} is not (GBK?); save the whole "
                         "file again in one encoding")
    return text


def _mixed_rows(data: bytes) -> tuple[int, int] | None:
    """(a row that is UTF-8 with Chinese in it, a row that is not UTF-8) of a file that is not UTF-8 as a whole,
    or None. Rows of GBK names are next to never valid UTF-8 as well, so a GBK file is not taken for mixed."""
    utf8 = other = None
    for number, line in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n"), start=1):
        if line.isascii():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            other = other or number
            continue
        if utf8 is None and any("\u4e00" <= ch <= "\u9fff" for ch in text):
            utf8 = number
    return (utf8, other) if utf8 is not None and other is not None else None


def _where(path: str | Path, row: int, col: int | None = None, key: str | None = None) -> str:
    if col is None:
        return f"{path}: 第{row}行 | row {row}"
    label = _LABELS.get(key or "", "")
    return f"{path}: 第{row}行第{col}列 {label} | row {row}, column {col} ({label.split(' ')[-1] or '?'})"


#: invisible characters pasted with a name (a zero-width space from WeChat or a web page, a second byte-order
#: mark from two files joined): dropped, since nobody could see them to take them out
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u2060\ufeff"))


def _key(name: str) -> str:
    """A name as compared for duplicates: NFKC (full-width ``Ｒｅｄ`` is ``Red``, an ideographic space a space),
    trimmed."""
    return unicodedata.normalize("NFKC", name).strip()


def _name_problem(value: str) -> str | None:
    """Why ``value`` cannot be a name on the hall's screens, or None: a control or format character (NUL, a
    line break inside quotes, a right-to-left mark ...), or more than :data:`MAX_NAME` characters."""
    bad = next((ch for ch in value if unicodedata.category(ch) in ("Cc", "Cf")), None)
    if bad is not None:
        return f"含控制字符 U+{ord(bad):04X} | holds the control character U+{ord(bad):04X}"
    if len(value) > MAX_NAME:
        return f"超过 {MAX_NAME} 个字符 | is longer than {MAX_NAME} characters ({len(value)})"
    return None


def _csv_rows(text: str, path: str | Path) -> Iterator[list[str]]:
    """The rows of a CSV, with a quote left open (the rest of the file read as one cell) or any other bad quoting
    refused naming the row it begins in (logical rows, as the other errors count them)."""
    reader = csv.reader(io.StringIO(text), strict=True)
    row_no = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise EventError(f"{_where(path, row_no)}: 引号未闭合（从此行到文件末尾都成了一格）| a quote is never "
                                 "closed (the rest of the file would be one cell)") from None
            if "field larger" in str(exc):
                raise EventError(f"{_where(path, row_no)}: 某格过长 a cell is far too long ({exc})") from None
            raise EventError(f"{_where(path, row_no)}: 引号用法有误 bad quoting ({exc}): a quote inside a cell is "
                             'written "" in a quoted cell') from None
        row_no += 1
        yield row


def namesakes(teams: list[Team]) -> list[str]:
    """A warning for each player name found in two or more teams (after NFKC): one person registered twice, or
    two people of one name (common in a large field: nothing to do then), for the organiser to look at."""
    where: dict[str, list[Team]] = {}
    for team in teams:
        for player in dict.fromkeys(_key(p) for p in team.players):
            where.setdefault(player, []).append(team)
    out = []
    for found in where.values():
        if len(found) > 1:
            name = next(p for p in found[0].players if _key(p) in {_key(q) for q in found[1].players})
            named = "、".join(t.name for t in found)
            out.append(f"注意：队员 {name!r} 在 {named} 都已报名（同一人？同名的两人可不理会）| warning: player {name!r} is "
                       f"in the teams {', '.join(t.name for t in found)}: one person registered twice? (two people "
                       "of one name: nothing to do)")
    return out


def read_pairs_csv(path: str | Path) -> list[Team]:
    """Registered pairs from a CSV with a header: team name, two players (or ``players`` split by / or 、), unit.

    Every column must be there; a row with a cell too many, an empty team or player, a team registered twice, one
    player as both of a team (names compared after NFKC, so full-width and half-width forms are one name), a name
    with a control character or over :data:`MAX_NAME` characters, or a quote never closed is refused with its row
    and column named in Chinese and English, and nothing is set up. The unit may be empty: a pair of no unit,
    kept apart from nobody. One name in two teams is not refused (:func:`namesakes`): 张伟 is a common name.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise EventError(f"无法读取 cannot read {path}: {exc.strerror or exc}") from exc
    text = decode_csv(data, path)
    if "\r" in text and "\n" not in text:  # Excel's "CSV (Macintosh)": rows end in a carriage return alone
        text = text.replace("\r", "\n")
    reader = _csv_rows(text, path)
    header = next(reader, None)
    if not header or not any(cell.strip() for cell in header):
        raise EventError(f"{path}: 空文件，缺表头 empty file, expected a header (队名,队员1,队员2,单位 / "
                         "team,player1,player2,unit)")
    cols: dict[str, int] = {}
    for i, heading in enumerate(header):
        for key, aliases in _HEADERS.items():
            if heading.strip().lower() in aliases:
                if key in cols:
                    raise EventError(f"{_where(path, 1, i + 1, key)}: 列重复 the column appears twice")
                cols[key] = i
    missing = [key for key in ("name", "unit") if key not in cols]
    if not ("players" in cols or {"player1", "player2"} <= set(cols)):
        missing[1:1] = [k for k in ("player1", "player2") if k not in cols]
    if missing:
        names = "、".join(_LABELS[k].split(" ")[0] for k in missing)
        english = ", ".join(_LABELS[k].split(" ")[1] for k in missing)
        raise EventError(f"{path}: 第1行（表头）缺少列 {names} | row 1 (header) lacks the column(s) {english}; "
                         "expected 队名,队员1,队员2,单位 / team,player1,player2,unit")
    teams: list[Team] = []
    seen: dict[str, tuple[int, str]] = {}  # a team's name (compared) -> (row, name as given)
    players_seen: dict[str, tuple[int, int]] = {}  # a player's name (compared) -> (row, column) first given
    for line_no, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header) and any(cell.strip() for cell in row[len(header):]):
            raise EventError(f"{_where(path, line_no, len(header) + 1)}: 多出一列（名字中有逗号？） a cell more than "
                             "the header has (a comma inside a name?)")

        def cell(key: str, row: list[str] = row) -> str:
            i = cols.get(key)
            return row[i].translate(INVISIBLE).strip() if i is not None and i < len(row) else ""

        def col(key: str) -> int:
            return cols[key] + 1

        def check(key: str, value: str, line_no: int = line_no) -> None:
            problem = _name_problem(value)
            if problem is not None:
                raise EventError(f"{_where(path, line_no, col(key), key)}: {problem}")

        name = cell("name")
        if not name:
            raise EventError(f"{_where(path, line_no, col('name'), 'name')}: 队名为空 the team name is empty")
        check("name", name)
        if _key(name) in seen:
            row_before, as_before = seen[_key(name)]
            spelt = "" if as_before == name else f", as {as_before!r}"
            raise EventError(f"{_where(path, line_no, col('name'), 'name')}: 队名 {name!r} 与第{row_before}行重复 | "
                             f"team {name!r} is registered twice (row {row_before} too{spelt})")
        seen[_key(name)] = (line_no, name)
        if "player1" in cols and "player2" in cols:
            players = [cell("player1"), cell("player2")]
            keys = ["player1", "player2"]
            for key, value in zip(keys, players, strict=True):
                if not value:
                    raise EventError(f"{_where(path, line_no, col(key), key)}: 队员为空 the player's name is empty")
        else:
            players = [p.strip() for p in cell("players").replace("、", "/").split("/") if p.strip()]
            keys = ["players", "players"]
            if len(players) != 2:
                raise EventError(f"{_where(path, line_no, col('players'), 'players')}: 需两名队员，如 张三/李四 | "
                                 f"two players are needed, like Zhang/Li (got {len(players)})")
        for key, player in zip(keys, players, strict=True):
            check(key, player)
            first = players_seen.get(_key(player))
            if first is not None and first[0] == line_no:  # in two teams: two people of one name, maybe (namesakes)
                raise EventError(f"{_where(path, line_no, col(key), key)}: 队员 {player!r} 在本队重复（亦见本行第{first[1]}"
                                 f"列）| player {player!r} is both players of the team (column {first[1]} of this row "
                                 "too)")
            players_seen[_key(player)] = (line_no, col(key))
        unit = cell("unit")
        if unit:
            check("unit", unit)
        teams.append(Team(len(teams) + 1, name, tuple(players), unit))
    if len(teams) < 2:
        raise EventError(f"{path}: 至少需要 2 对选手 an event needs at least 2 registered pairs, found {len(teams)}")
    return teams


def tables_error(tables: Sequence[str]) -> str | None:
    """Why ``tables`` cannot be an event's table ids (``desk init --tables``), or None.

    Each id is a level of its table's MQTT topics, so it follows the table config's own rule
    (:func:`table_daemon.config.id_error`: a table that could not be configured with it would never hear its
    start). A round stores one match per table, so an id listed twice would crash the pairing; and
    ``BYE01``, ``BYE02`` ... name the desk's bye rows, so a table cannot be called so.
    """
    from ..config import id_error  # lazy: the table config pulls in the vision readers

    seen: set[str] = set()
    for i, table in enumerate(tables, start=1):
        if not table:
            return f"table {i} of the list is empty (two commas in a row, or one at an end?)"
        error = id_error("table id", table)
        if error is not None:
            return error
        if re.fullmatch(r"BYE\d+", table):
            return f"table id {table!r} is taken: BYE01, BYE02 ... name the desk's byes"
        if table in seen:
            return f"table id {table!r} is listed twice (each match of a round needs its own table)"
        seen.add(table)
    return None


def too_few_tables(tables: Sequence[str], matches: int) -> str | None:
    """Why ``tables`` cannot host ``matches`` matches at once, or None (no list: the desk names T01, T02 ...).

    The matches of a round are started together, each at its own table, and the desk never invents a table
    name the hall does not have: more matches than listed tables is refused, naming how many are needed.
    """
    if not tables or len(tables) >= matches:
        return None
    return (f"{matches} matches a round need {matches} tables, but the event lists only {len(tables)} "
            f"({', '.join(tables)}): list at least {matches} with desk init --tables")


def public_inputs(pairings: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]],
                  corrections: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The results and corrections the public may see (rules §12): none of a duplicate board the desk has not
    released, nor the result of a match that played one (``boards.public_results``, ``public_corrections``)."""
    released = bd.released(pairings, results, corrections)
    return bd.public_results(results, released), bd.public_corrections(corrections, results, released)


def standings_report(store: Store, *, public: bool = False) -> dict[str, Any]:
    """The current standings of the stored event (see ``ledger.report``). ``public``: as the hall may see them,
    without a duplicate board the desk has not released yet, nor the result of a match that played one (rules
    §12); the desk's own pages and files count everything it holds."""
    with store.lock:
        pairings, results, corrections = store.pairings(), store.results(), store.corrections()
        if public:
            results, corrections = public_inputs(pairings, results, corrections)
        # a finished knockout ranks its teams by their places in it, whatever their points
        return ledger.report(store.teams(), pairings, results, corrections,
                             store.settings(), lot_seed=store.meta("lot_seed", ""), version=store.revision,
                             event=store.event(), computed_at=now(), knockout_seeds=store.meta("knockout_seeds"))


class LatestStandings:
    """The standings report of ``store``, tallied again only when the store's revision has moved on (a result,
    a pairing, a correction): the desk page asks on every refresh of every open page, and a whole event's
    tally is not worth redoing for a revision already tallied. ``computed_at`` stays the tally's time."""

    def __init__(self, store: Store, *, public: bool = False) -> None:
        self.store = store
        self.public = public  # as the hall may see them (``standings_report``)
        self._report: dict[str, Any] | None = None

    def __call__(self) -> dict[str, Any]:
        report = self._report
        if report is None or report["version"] != self.store.revision:
            report = self._report = standings_report(self.store, public=self.public)
        return report


def _check_round_boards(settings: dict[str, Any], round_no: int) -> None:
    """A round of boards is paired only when the deal file the desk knows holds them all (each round plays the
    next boards: :func:`boards.round_boards`); a file not on the desk's machine is the tables' to check."""
    wanted = bd.round_boards(settings.get("boards") or [], round_no)
    path = settings.get("deal_file")
    if not wanted or not path or not Path(path).exists():
        return
    try:
        held = set(check_deal_file(path))
    except DealFileError as exc:
        raise EventError(f"deal file {path}: {exc}") from None
    missing = sorted(set(wanted) - held)
    if missing:
        raise EventError(f"第{round_no}轮复式牌 {wanted[0]}-{wanted[-1]} 不全 | round {round_no} plays boards "
                         f"{', '.join(map(str, wanted))}, and {path} lacks {', '.join(map(str, missing[:10]))} "
                         "(each round plays the next boards: add them to the deal file)")


def pair_round(store: Store, round_no: int, method: str | None = None, *,
               top: int | None = None) -> list[dict[str, Any]]:
    """Pair round ``round_no`` (the next one) and store it; returns the stored pairings. ``top``: the first
    round of a knockout takes only the best ``top`` teams of the standings (withdrawn ones never), seeded in
    that order: a knockout stage after the Swiss rounds."""
    if store.event() is None:
        raise EventError("no event set up in this database (run `guandan-table desk init` first)")
    last = store.last_round()
    if round_no != last + 1:
        raise EventError(f"the next round to pair is {last + 1}, not {round_no}")
    pairings = store.pairings()
    method = method or (pairings[-1]["method"] if pairings else "swiss")
    if method not in METHODS:
        raise EventError(f"unknown pairing method {method!r} (one of {', '.join(METHODS)})")
    if top is not None and (method != "knockout" or any(p["method"] == "knockout" for p in pairings)):
        raise EventError("--top 只用于淘汰赛第一轮 | --top seeds the first round of a knockout only "
                         "(later rounds follow its bracket)")
    if top is not None and top < 2:
        raise EventError(f"--top {top}: a knockout needs at least 2 teams")
    _check_round_boards(store.settings(), round_no)
    report = standings_report(store)
    if report["pending"]:
        waiting = ", ".join(f"{p['table']}" for p in report["pending"])
        raise EventError(f"第{last}轮未完，尚无成绩：{waiting} | round {last} is not finished: no result yet from "
                         f"{waiting}")
    teams = store.teams()
    order = [r["team"] for r in report["rows"]]
    gone = set(ledger.withdrawn(store.corrections()))  # 退赛: paired in no later round
    if len(set(order) - gone) < 2:
        raise EventError(f"round {round_no}: fewer than two teams are still in the event (退赛 withdrawn: "
                         f"{len(gone)})")
    try:
        if method == "swiss":
            scores = {r["team"]: r["match_points"] for r in report["rows"]}
            had_bye = {p["ns"] for p in pairings if p["ew"] is None}
            pairs = pairing.swiss([t for t in order if t not in gone], scores, ledger.met_pairs(pairings),
                                  units={t.id: t.unit for t in teams}, had_bye=had_bye,
                                  keep_units_apart=bool(store.settings()["keep_units_apart"]))
        elif method == "round_robin":  # the schedule stays; a withdrawn team's opponent has the round off
            first = min((p["round"] for p in pairings if p["method"] == "round_robin"), default=round_no)
            pairs = pairing.without(pairing.round_robin([t.id for t in teams], round_no - first + 1), gone)
        else:
            pairs = _knockout(store, pairings, order, round_no, gone, top)
    except pairing.PairingError as exc:
        raise EventError(f"round {round_no}: {exc}") from exc
    seating = str(store.settings().get("seating") or "first_ns")
    pairs = seated(pairs, seating, {r["team"]: r["lot_no"] for r in report["rows"]})
    tables = list(store.settings().get("tables") or [])
    # a database set up before desk init checked its tables may hold a bad list: say so, never crash or invent
    error = tables_error(tables) or too_few_tables(tables, sum(b is not None for _, b in pairs))
    if error is not None:
        raise EventError(f"round {round_no}: {error}")
    rows: list[tuple[str, int, int | None]] = []
    matches = 0
    for i, (a, b) in enumerate(pairs):
        if b is None:
            rows.append((f"BYE{i + 1:02d}", a, b))
            continue
        # matches take the tables in order; a bye (a knockout's may come between matches) takes none
        rows.append((tables[matches] if tables else f"T{matches + 1:02d}", a, b))
        matches += 1
    try:
        store.add_round(round_no, method, rows)
    except StoreError as exc:
        raise EventError(str(exc)) from exc
    return store.pairings(round_no)


def _knockout(store: Store, pairings: list[dict[str, Any]], order: list[int], round_no: int,
              gone: set[int], top: int | None = None) -> pairing.Pairing:
    ko_rounds = sorted({p["round"] for p in pairings if p["method"] == "knockout"})
    seeds = store.meta("knockout_seeds")
    if not ko_rounds or seeds is None:
        # the standings' order; a team withdrawn before the knockout takes no place in it (a place of its
        # would give its opponent a bye in every round); ``top``: the qualifiers only
        seeds = [t for t in order if t not in gone][:top]
        if len(seeds) < 2:
            raise pairing.PairingError("fewer than two teams for the knockout")
        store.set_meta("knockout_seeds", seeds)
    size = pairing.bracket_size(len(seeds))
    if ko_rounds and len(ko_rounds) >= size.bit_length() - 1:  # every place decided: nothing left to pair
        raise pairing.PairingError(
            f"淘汰赛已打完（第{ko_rounds[0]}-{ko_rounds[-1]}轮），各名次已定；下一轮请选积分编排或循环 | the knockout "
            f"is over (rounds {ko_rounds[0]}-{ko_rounds[-1]}), every place decided: pair a next round by swiss or "
            "round robin")
    outcomes, _, _, _ = ledger.tally(store.teams(), pairings, store.results(), store.corrections())
    winners = ledger.knockout_winners(pairings, outcomes)
    try:
        return pairing.knockout(seeds, winners, len(ko_rounds) + 1, absent=gone)
    except pairing.PairingError as exc:  # said with the teams' names and the event's own round numbers
        names = {t.id: t.name for t in store.teams()}
        text = str(exc)
        for team in exc.teams:
            text = text.replace(f" {team} ", f" {names.get(team, team)} ")
        first = ko_rounds[0] if ko_rounds else round_no
        raise pairing.PairingError(f"{text} (淘汰赛自第{first}轮起 | the knockout began at round {first})") from None


def start_match_command(store: Store, row: dict[str, Any]) -> dict[str, Any]:
    """The ``start_match`` payload for one stored pairing (teams seated NS and EW, profile, match end)."""
    teams = {t.id: t for t in store.teams()}
    settings = store.settings()

    def side(team_id: int) -> dict[str, Any]:
        t = teams[team_id]
        players = list(t.players) + ["", ""]
        return {"name": t.name, "unit": t.unit, "id": t.id, "players": {"N": players[0], "S": players[1]}}

    ns, ew = side(row["ns"]), side(row["ew"])
    ew["players"] = {"E": ew["players"]["N"], "W": ew["players"]["S"]}
    profile = settings["profile"]
    if row.get("method") == "knockout":  # a knockout match must have a winner: equal at the end, one more deal
        profile = {**profile, "knockout": True} if isinstance(profile, dict) else {"base": profile, "knockout": True}
    return {"id": rounds.start_id(str(store.event()), row["tbl"], row["round"]), "teams": {"NS": ns, "EW": ew},
            "profile": profile, "match_end": settings["match_end"], "match": row["round"],
            **({"deal_file": settings["deal_file"]} if settings.get("deal_file") else {}),
            **({"boards": bd.round_boards(settings["boards"], row["round"])} if settings.get("boards") else {})}
