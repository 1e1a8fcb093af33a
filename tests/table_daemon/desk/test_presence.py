"""The desk's view of which tables are there (desk/presence.py): a line on each change only, an alert for a table
gone for a while in the middle of its match (not for a broker's blink), and an alert for two devices taking turns
as one table."""

from __future__ import annotations

from table_daemon.desk.presence import CLASH_WINDOW_S, OFFLINE_ALERT_S, Presence


def online(epoch: str) -> dict[str, object]:
    return {"online": True, "epoch": epoch}


OFFLINE = {"online": False, "epoch": "a"}


def test_a_line_on_each_change_only() -> None:
    p = Presence()
    assert p.status("T01", online("a"), 0.0) == (["T01 在线 online"], [])
    assert p.status("T01", online("a"), 1.0) == ([], [])  # a device changed: the same table, said once
    assert p.status("T01", OFFLINE, 2.0) == (["T01 离线 offline"], [])
    assert p.status("T01", OFFLINE, 3.0) == ([], [])  # the retained will again, after the desk reconnected
    assert p.status("T01", online("b"), 4.0) == (["T01 恢复在线 back online"], [])  # a restart: a new epoch
    assert p.status("T01", {"no": "online field"}, 5.0) == ([], [])


def test_an_alert_only_for_a_table_gone_mid_match_for_a_while() -> None:
    p = Presence()
    for table in ("T01", "T02", "T03"):
        p.status(table, online("a" + table), 0.0)
        p.status(table, OFFLINE, 10.0)
    p.status("T03", online("b"), 10.0 + OFFLINE_ALERT_S / 2)  # back before it was due: a blink
    assert p.waiting_offline()
    assert p.due(10.0 + OFFLINE_ALERT_S - 1, {"T01", "T02", "T03"}) == []
    due = p.due(10.0 + OFFLINE_ALERT_S, {"T01", "T03"})  # T02 has no unfinished match: no alert
    assert [(a.table, a.code) for a in due] == [("T01", "table_offline")]
    assert "牌桌离线" in due[0].message and due[0].evidence == {"offline_for_s": round(OFFLINE_ALERT_S)}
    assert p.due(10.0 + 10 * OFFLINE_ALERT_S, {"T01"}) == []  # once per absence
    p.status("T01", online("c"), 100.0)
    p.status("T01", OFFLINE, 101.0)
    assert [a.table for a in p.due(101.0 + OFFLINE_ALERT_S, {"T01"})] == ["T01"]  # a new absence, a new alert


def test_two_devices_as_one_table_are_said_once() -> None:
    p = Presence()
    p.status("T01", online("a"), 0.0)
    lines, alerts = p.status("T01", online("b"), 1.0)  # on its own: a restart
    assert alerts == [] and lines == []
    lines, alerts = p.status("T01", online("a"), 2.0)  # the first one is back: two devices
    assert [a.code for a in alerts] == ["table_id_clash"] and "table.id" in lines[0]
    assert alerts[0].evidence == {"epochs": ["a", "b"]}
    assert p.status("T01", online("b"), 3.0)[1] == []  # the same two: said once
    # while they take turns, their comings and goings are not a line each (64 lines a minute buried the alert)
    assert p.status("T01", {"online": False, "epoch": "b"}, 3.5) == ([], [])
    assert p.status("T01", online("a"), 4.0) == ([], [])
    assert p.status("T01", {"online": False}, 5.0 + CLASH_WINDOW_S) == (["T01 离线 offline"], [])  # over: said
    q = Presence()  # a restart, then another a minute later is no clash
    q.status("T02", online("a"), 0.0)
    q.status("T02", online("b"), 1.0)
    assert q.status("T02", online("a"), 2.0 + CLASH_WINDOW_S)[1] == []
