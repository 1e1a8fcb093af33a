"""The desk's web pages and JSON, added to the display server: the referees' desk page (standings, the current
round at each table, alerts, corrections, results not counted), CSV exports and a printable page.

With a referee password the desk page and all of its JSON are behind it (HTTP basic), and referees work from
the page: pair and start the next round, enter a correction and approve another referee's, resend a start,
ask the tables for their unacknowledged results, acknowledge alerts. Every change leaves who, when and why
in the store. Without a password the page is read-only. The displays (``/display/``) stay public. Times are
shown in the event's time zone.

With the referee account's broker credentials (``desk --referee-broker-user``: a
:class:`~table_daemon.adapters.referee_link.RefereeLink`) referees also command a table from its row: pause,
resume, deal (again, after the dealer gave up), a penalty, a correction (``/api/table-command``). The desk's
own account may only start matches, so without them the page offers no table commands and says why.

The routes are here; what the page reads is :mod:`views`, what referees do from it :mod:`page_actions`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..display.hub import Hub
from ..display.referees import Referees
from ..display.server import Response, Route, WebServer, json_response
from . import alerts as al
from . import clock, export, rounds
from . import event as ev
from .clock import local, zone_name
from .page_actions import CORRECTION_WORDS, NO_TABLE_COMMANDS, actions
from .store import Store
from .views import board_results, correction_words, results_view, tables_view

if TYPE_CHECKING:
    from ..adapters.referee_link import RefereeLink
    from .service import Desk


def _page(name: str) -> Response:
    return 200, "text/html; charset=utf-8", resources.files("table_daemon.desk").joinpath(name).read_bytes()


def routes(store: Store, hub: Hub, *, referee: bool = False,
           link: Callable[[], dict[str, Any]] | None = None,
           table_commands_off: str | None = NO_TABLE_COMMANDS,
           halls: Callable[[], list[dict[str, Any]]] | None = None, public: bool = False) -> dict[str, Route]:
    """The desk's GET routes. ``referee``: the page offers the referees' actions; ``table_commands_off``: why it
    offers no table commands (None: it does, through the referee account); ``public``: anyone may open the page
    (no referee password), so in a duplicate event it shows only what the hall may see (rules §12): no result
    of a board the desk has not released, no board results per table, no cards an alert saw."""
    sealed = public and bool(store.settings().get("duplicate"))
    def tz() -> str:
        return zone_name(store.settings().get("timezone"))

    counted: dict[int, dict[tuple[int, str], dict[str, Any]]] = {}  # results_view by the store's revision
    played: dict[int, dict[str, list[dict[str, int]]]] = {}  # the round's board_results, likewise
    standings = ev.LatestStandings(store, public=sealed)

    def pairings() -> list[dict[str, Any]]:
        teams = store.teams()
        revision = store.revision  # every page refresh asks; the tally is redone only when something changed
        if revision not in counted:
            counted.clear()
            counted[revision] = results_view(store, public=sealed)
        return export.pairing_rows(store.pairings(), {t.id: t.name for t in teams}, {t.id: t.unit for t in teams},
                                   counted[revision])

    def boards_played() -> dict[str, list[dict[str, int]]]:
        revision = store.revision  # the full records of a round, decoded again only when something changed
        if revision not in played:
            played.clear()
            played[revision] = {} if sealed else board_results(store, store.last_round())
        return played[revision]

    shown: dict[int, list[dict[str, Any]]] = {}  # the corrections the page may show, by the store's revision

    def corrections() -> list[dict[str, Any]]:
        revision = store.revision  # the public view decodes every result: once per change, not per refresh
        if revision not in shown:
            rows = store.corrections()
            if sealed:
                with store.lock:
                    rows = ev.public_inputs(store.pairings(), store.results(), rows)[1]
            shown.clear()
            shown[revision] = rows
        names = {t.id: t.name for t in store.teams()}
        return [{**r, **correction_words(r, names)} for r in with_local(shown[revision], "at")]

    def csv(text: str) -> Response:
        return 200, "text/csv; charset=utf-8", ("\ufeff" + text).encode()

    def alert_list(q: dict[str, str]) -> Response:
        rows = [al.describe(a, tz()) for a in store.alerts(q.get("table") or None, limit=200)]
        if sealed:  # a sealed board's cards stay with the referees
            rows = [{**r, "seen": None} for r in rows]
        return json_response([r for r in rows if not r["acked_at"]] if q.get("open") else rows)

    def evidence(rest: str, q: dict[str, str]) -> Response:
        found = store.alert(int(rest)) if rest.isascii() and rest.isdigit() and len(rest) <= 12 else None
        image = al.picture(found) if found else None
        if image is None:
            return 404, "text/plain; charset=utf-8", "no picture 无图片".encode()
        return 200, "image/jpeg", image

    def with_local(rows: list[dict[str, Any]], *keys: str) -> list[dict[str, Any]]:
        zone = tz()
        return [{**r, **{f"{k}_local": local(r.get(k), zone) for k in keys}} for r in rows]

    def info() -> dict[str, Any]:
        commands = referee and table_commands_off is None
        return {"event": store.event(), "timezone": tz(), "round": store.last_round(), "referee": referee,
                "teams": len(store.teams()), "table_commands": commands,
                "table_commands_off": table_commands_off if referee and not commands else None,
                **({"penalty_kinds": list(rounds.PENALTY_WORDS.items()),
                    "corrections": list(CORRECTION_WORDS.items())} if commands else {})}

    def print_page(rest: str, q: dict[str, str]) -> Response:
        zone = q.get("tz") or tz()
        try:
            clock.zone(zone)
        except clock.ClockError as exc:  # said, not printed in UTC as if nothing were wrong
            return 400, "text/plain; charset=utf-8", f"{exc}: /print?tz=Asia/Shanghai".encode()
        return 200, "text/html; charset=utf-8", export.print_page(standings(), pairings(), zone).encode()

    page: Callable[[str, dict[str, str]], Response] = lambda rest, q: _page("desk.html")  # noqa: E731
    return {
        "/": page,
        "/desk": page,
        "/api/desk": lambda rest, q: json_response(info()),
        "/api/standings": lambda rest, q: json_response(standings()),
        "/api/knockout": lambda rest, q: json_response(export.knockout_lines(standings())),
        "/api/pairings": lambda rest, q: json_response(pairings()),
        "/api/tables": lambda rest, q: json_response(tables_view(store, hub, link, halls, standings(),
                                                                 boards_played(), sealed=sealed)),
        "/api/alerts": lambda rest, q: alert_list(q),
        "/api/evidence/": evidence,
        "/api/corrections": lambda rest, q: json_response(corrections()),
        # what referees weigh (proposed corrections, messages the desk could not count: a sealed board's full
        # record among them): none of it for the hall while a board may be sealed
        "/api/proposals": lambda rest, q: json_response(
            [] if sealed else with_local(store.proposals(), "at", "approved_at")),
        "/api/rejects": lambda rest, q: json_response(
            [] if sealed else with_local(store.rejects()[-100:], "received_at")),
        "/export/standings.csv": lambda rest, q: csv(export.standings_csv(standings())),
        "/export/pairings.csv": lambda rest, q: csv(export.pairings_csv(pairings())),
        "/print": print_page,
    }


def desk_server(store: Store, hub: Hub, port: int = 0, host: str = "127.0.0.1", *, password: str | None = None,
                desk: Desk | None = None, public_url: str | None = None,
                referees: Referees | None = None, read_only: bool = False,
                referee_link: RefereeLink | None = None) -> WebServer:
    """The web server of a running desk: the display routes plus the desk's own, behind the referees when
    ``password`` or ``referees`` (their own accounts) is given, with the referees' actions unless ``read_only``
    (a standby desk: it keeps a copy, and referees act on the desk that is counting); ``public_url``: the
    address the overview gives spectators' phones; ``referee_link``: the referee account's link, for the
    table commands (pause, resume, deal, penalty, correction; never on a read-only page)."""
    if referees is None and password is not None:
        referees = Referees.with_password(password)
    if read_only:
        referee_link = None
    own = routes(store, hub, referee=referees is not None and not read_only, public=referees is None,
                 link=desk.link.link_state if desk is not None else None,
                 halls=getattr(desk, "halls", None),
                 table_commands_off=None if referee_link is not None else NO_TABLE_COMMANDS)
    if referees is None:
        own.pop("/api/evidence/")  # camera pictures only for referees
        return WebServer(hub, port, host, extra=own, public_url=public_url)
    return WebServer(hub, port, host, protected=own, referees=referees,
                     actions={} if read_only else actions(store, desk, referee_link), public_url=public_url)
