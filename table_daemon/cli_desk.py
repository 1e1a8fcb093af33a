"""``guandan-table desk``: the scoring desk (记分台) and its sub-actions for scripts and referees.

Run form: ``guandan-table desk --broker URL --event ID --db FILE [--http PORT]`` runs the desk until
interrupted. Sub-actions: ``init`` (event from a CSV of registered pairs), ``pair`` (pair the next round),
``standings`` (JSON or CSV), ``correct`` (a referee's change, void, penalty or a team's withdrawal, with who
and why), and
``display`` (a display server on its own, without a desk).

This module registers the arguments; the handlers live in ``cli_desk_event`` (init, pair, standings,
correct, referee accounts) and ``cli_desk_run`` (the running desk and ``display``), and are re-exported here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .cli_desk_event import match_end_arg, run_correct, run_init, run_pair, run_referee, run_standings
from .cli_desk_run import run_desk, run_display
from .cli_support import event_id, number, topic_prefix

__all__ = ["match_end_arg", "register", "run_correct", "run_desk", "run_display", "run_init", "run_pair",
           "run_referee", "run_standings"]


def _port(text: str) -> int:
    """``--http``: a TCP port, 0 for any free one (a port beyond 65535 made ``bind`` raise a traceback)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} must be from 0 to 65535 (0: any free port)")
    return port


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    desk = subparsers.add_parser(
        "desk", help="scoring desk 记分台: results, pairings, standings, live displays",
        description="记分台 Scoring desk. Run form: desk --broker URL --event ID --db FILE [--http PORT].")
    desk.add_argument("--broker", help="MQTT broker, mqtt://HOST:PORT")
    desk.add_argument("--event", type=event_id, help="event id 赛事编号")
    desk.add_argument("--db", help="SQLite file of the desk 记分数据库")
    desk.add_argument("--http", type=_port, default=None, help="serve the desk and display pages on this port")
    desk.add_argument("--host", default="127.0.0.1", help="address for --http (default 127.0.0.1)")
    desk.add_argument("--public-url", metavar="URL",
                      help="address spectators' phones open (the overview's link and QR code), e.g. "
                           "http://hall.example:8080; default: the address the screen itself used")
    desk.add_argument("--prefix", type=topic_prefix, default="guandan/v1", help="topic prefix (default guandan/v1)")
    desk.add_argument("--no-shared", action="store_true", help="plain subscriptions instead of $share")
    desk.add_argument("--ca-file", help="CA certificate of a TLS broker (mqtts://, wss://)")
    desk.add_argument("--standby", metavar="NAME",
                      help="备用记分台 stand by as second desk NAME: copy what the desk counts, take over when "
                           "the first desk's status goes offline")
    desk.add_argument("--referee-password-file", type=Path, metavar="FILE",
                      help="file holding the referee password: the desk page (--http) is behind it and referees "
                           "work from it (pair, start, correct, acknowledge); without it the page is read-only")
    desk.add_argument("--referee-accounts", type=Path, metavar="FILE",
                      help="referees' own accounts instead (desk referee adds one): each logs in as themself, "
                           "so a correction's second referee is a second account, not a second name typed")
    desk.add_argument("--referee-broker-user", metavar="NAME",
                      help="牌桌指令 the broker's referee account (deploy/mosquitto/guandan.acl: referee): the page "
                           "then commands tables (pause, resume, deal, penalty, correction); the desk's own account "
                           "may only start matches")
    desk.add_argument("--referee-broker-password-file", type=Path, metavar="FILE",
                      help="file holding that account's broker password")
    desk.add_argument("--referee-key-file", type=Path, metavar="KEY",
                      help="the referees' signing key, when the tables check signatures (table.referee_key_file)")
    desk.set_defaults(handler=run_desk)
    actions = desk.add_subparsers(dest="desk_action", metavar="ACTION")

    ref = actions.add_parser("referee", help="add a referee's own account (or a new password) 裁判账号",
                             description="Adds a referee's account to an accounts file for desk --referee-accounts. "
                                         "The password is asked (twice) on a terminal, else read from the first "
                                         "line of standard input; the file keeps only its salted hash.")
    ref.add_argument("--accounts", type=Path, required=True, metavar="FILE")
    ref.add_argument("--name", required=True, help="the referee's name, as the desk will show it 裁判姓名")
    ref.set_defaults(handler=run_referee)

    init = actions.add_parser("init", help="set up the event from a CSV of registered pairs 报名表")
    init.add_argument("--db", required=True)
    init.add_argument("--event", required=True, type=event_id)
    init.add_argument("--pairs", required=True, help="CSV: team,player1,player2,unit (队名,队员1,队员2,单位)")
    init.add_argument("--profile", default="national", help="rule profile sent to the tables")
    init.add_argument("--scoring", default="standard",
                      choices=("standard", "three_point", "level_value", "one_to_three"))
    init.add_argument("--match-end", default=None,
                      help="pass_a | deals:N | time:MINUTES | time_or_deals:MINUTES:N (default pass_a; with --boards "
                           "deals:N, one deal a board)")
    init.add_argument("--duplicate", action="store_true", help="复式 duplicate event: compare boards")
    init.add_argument("--units-together", action="store_true", help="不回避: do not keep same-unit pairs apart")
    init.add_argument("--seating", choices=("first_ns", "first_ew", "lot"),
                      help="方位 who sits NS: first_ns, the better placed team of a match; first_ew, it sits EW (004 "
                           "六); lot, the larger 抽签号 sits NS (003 十四 第2条); default: the profile's documents "
                           "(jiangsu lot, club-004 first_ew, others first_ns)")
    init.add_argument("--tables", help="table ids in order, comma separated, one for each match of a round "
                                       "(default T01, T02, ...)")
    init.add_argument("--lot-seed", help="seed of the lots (default: drawn at random and recorded)")
    init.add_argument("--deal-file", help="复式 deal file (guandan-deals/1) the tables deal from")
    init.add_argument("--boards", help="boards of the deal file each match of round 1 plays, e.g. 1-8 or 1,3,5; "
                                       "each later round plays the next ones (1-8, then 9-16 ...)")
    init.add_argument("--timezone", default="Asia/Shanghai",
                      help="time zone the desk shows times in 时区 (default Asia/Shanghai)")
    init.set_defaults(handler=run_init)

    pair = actions.add_parser("pair", help="pair the next round 编排 (sent to the tables by the running desk)")
    pair.add_argument("--db", required=True)
    pair.add_argument("--round", type=int, required=True)
    pair.add_argument("--method", choices=("swiss", "round_robin", "knockout"),
                      help="积分编排 swiss (default), round_robin 循环, knockout 淘汰 (with play-offs)")
    pair.add_argument("--top", type=int, help="淘汰赛出线队数: the first knockout round takes only the best N teams "
                                             "of the standings (e.g. 8 after the Swiss rounds)")
    pair.set_defaults(handler=run_pair)

    stand = actions.add_parser("standings", help="print the standings 成绩")
    stand.add_argument("--db", required=True)
    stand.add_argument("--format", choices=("json", "csv"), default="json")
    stand.set_defaults(handler=run_standings)

    cor = actions.add_parser("correct", help="referee: change or void a result, or apply a penalty 更正")
    cor.add_argument("--db", required=True)
    cor.add_argument("--by", required=True, help="who makes the change 裁判")
    cor.add_argument("--reason", required=True, help="why 原因")
    cor.add_argument("--round", type=int)
    cor.add_argument("--table")
    cor.add_argument("--result", help="a deal record's result id (to void or restore one deal)")
    cor.add_argument("--team", help="team name or id (for --penalty, --withdraw, --reinstate)")
    cor.add_argument("--void", action="store_true")
    cor.add_argument("--restore", action="store_true", help="count a voided deal again")
    cor.add_argument("--levels", help="final levels, e.g. NS=A+,EW=5")
    cor.add_argument("--winner", choices=("NS", "EW", "draw"))
    cor.add_argument("--walkover", action="store_true")
    cor.add_argument("--withdraw", action="store_true",
                     help="退赛: --team leaves the event (paired in no later round; its results stand)")
    cor.add_argument("--reinstate", action="store_true", help="undo a withdrawal of --team (a mistake)")
    cor.add_argument("--penalty", choices=("violation", "deduct"))
    cor.add_argument("--match-points", type=number, default=0.0, help="场分 taken off")
    cor.add_argument("--level-points", type=number, default=0.0, help="级差分 taken off")
    cor.set_defaults(handler=run_correct)

    disp = actions.add_parser("display", help="display server on its own 现场显示 (no desk)")
    disp.add_argument("--broker", required=True)
    disp.add_argument("--event", required=True, type=event_id)
    disp.add_argument("--http", type=_port, required=True)
    disp.add_argument("--host", default="127.0.0.1")
    disp.add_argument("--prefix", type=topic_prefix, default="guandan/v1")
    disp.add_argument("--ca-file", help="CA certificate of a TLS broker (mqtts://, wss://)")
    disp.add_argument("--public-url", metavar="URL",
                      help="address spectators' phones open (the hall screen's link and QR code), e.g. "
                           "http://hall.example:8080; default: the address the screen itself used")
    disp.add_argument("--commentary-delay", type=number, metavar="SECONDS",
                      help="解说视图 add the commentators' view of the hands, this many seconds late, at "
                           "/commentary/TABLE (needs --referee-password-file and a broker user allowed private/#)")
    disp.add_argument("--referee-password-file", type=Path, metavar="FILE",
                      help="file holding the referee password that opens the commentary view")
    disp.add_argument("--referee-accounts", type=Path, metavar="FILE",
                      help="referees' own accounts (desk referee) instead of one shared password")
    disp.set_defaults(handler=run_display)
