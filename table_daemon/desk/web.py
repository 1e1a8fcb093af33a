"""The desk's web pages and JSON, added to the display server: standings, pairings, each table's status,
corrections, CSV exports and a printable page. Read-only: changes go through the CLI (``desk correct``),
which leaves who, when and why in the store.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from ..display.hub import Hub
from ..display.server import Response, Route, WebServer, json_response
from . import event as ev
from . import export
from .store import Store


def _page(name: str) -> Response:
    return 200, "text/html; charset=utf-8", resources.files("table_daemon.desk").joinpath(name).read_bytes()


def tables_view(store: Store, hub: Hub) -> dict[str, Any]:
    """Each table: online, phase, level, results still awaited, journal backlog, recent alerts."""
    report = ev.standings_report(store)
    live = hub.snapshot(brief=True)["tables"]
    statuses = store.statuses()
    playing = {p["tbl"] for p in store.pairings(store.last_round()) if p["ew"] is not None}
    names = sorted(set(live) | set(statuses) | playing)
    out = []
    for name in names:
        tab = live.get(name, {})
        state = tab.get("state") or {}
        status = tab.get("status") or statuses.get(name, {})
        health = tab.get("health") or {}
        alerts = store.alerts(name, limit=5)
        out.append({
            "table": name, "online": bool(status.get("online", False)), "phase": state.get("phase"),
            "level": state.get("level"), "levels": state.get("levels"),
            "pending": [p for p in report["pending"] if p["table"] == name],
            "journal_backlog": health.get("journal_backlog", health.get("pending_results")),
            "alerts": [{"type": a.get("type"), "what": a.get("what") or a.get("foul") or a.get("kind"),
                        "seat": a.get("seat"), "ts": a.get("ts")} for a in alerts],
        })
    return {"version": report["version"], "tables": out}


def routes(store: Store, hub: Hub) -> dict[str, Route]:
    def pairings() -> list[dict[str, Any]]:
        names = {t.id: t.name for t in store.teams()}
        return export.pairing_rows(store.pairings(), names)

    def csv(text: str) -> Response:
        return 200, "text/csv; charset=utf-8", ("\ufeff" + text).encode()

    return {
        "/": lambda rest, q: _page("desk.html"),
        "/api/standings": lambda rest, q: json_response(ev.standings_report(store)),
        "/api/pairings": lambda rest, q: json_response(pairings()),
        "/api/tables": lambda rest, q: json_response(tables_view(store, hub)),
        "/api/corrections": lambda rest, q: json_response(store.corrections()),
        "/api/rejects": lambda rest, q: json_response(store.rejects()[-50:]),
        "/export/standings.csv": lambda rest, q: csv(export.standings_csv(ev.standings_report(store))),
        "/export/pairings.csv": lambda rest, q: csv(export.pairings_csv(pairings())),
        "/print": lambda rest, q: (200, "text/html; charset=utf-8",
                                   export.print_page(ev.standings_report(store), pairings(),
                                                     q.get("tz") or export.PRINT_TZ).encode()),
    }


def desk_server(store: Store, hub: Hub, port: int = 0, host: str = "127.0.0.1") -> WebServer:
    """The web server of a running desk: the display routes plus the desk's own."""
    return WebServer(hub, port, host, extra=routes(store, hub))
