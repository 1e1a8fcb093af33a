"""The desk's ``start_match`` at the table: the same start sent again is accepted without restarting anything,
another start is refused while a match is on (the desk retries it), and every result names the start it was
played under (null for a match the table started on its own)."""

from __future__ import annotations

from table_daemon.controller import Command, Reply

from .harness import Harness, error_of

START = {"id": "ev/T9/m1/start", "match": 1, "match_end": {"method": "deals", "deals": 1},
         "teams": {"NS": {"name": "红队", "id": 3}, "EW": {"name": "蓝队", "id": 5}}}


def replies(h: Harness) -> dict[str | None, Reply]:
    return {e.token: e for e in h.effects if isinstance(e, Reply)}


def test_a_resent_start_is_accepted_and_changes_nothing() -> None:
    h = Harness(auto_deal=True)
    h.start_match(**START)
    assert h.c.start_id == "ev/T9/m1/start" and h.c.match_active
    for _ in range(5):
        h.bot_step()
    before = (h.deal.number, len(h.of("events")))
    h.send(Command("start_match", dict(START), token="again"))
    assert replies(h)["again"].ok and (h.deal.number, len(h.of("events"))) == before
    h.send(Command("start_match", {**START, "id": "ev/T9/m2/start", "match": 2}, token="next"))
    assert not replies(h)["next"].ok and "in progress" in error_of(replies(h)["next"])
    h.play_out()
    deal, = h.of("results", "deal_result")
    match, = h.of("results", "match_result")
    assert deal["start"] == match["start"] == "ev/T9/m1/start" and match["teams"]["NS"]["id"] == 3
    assert h.of("state")[-1]["start"] == "ev/T9/m1/start"
    # the match is over: the desk's resend of it is still accepted, and does not play it again
    h.send(Command("start_match", dict(START), token="late"))
    assert replies(h)["late"].ok and h.c.phase == "match_over"
    h.send(Command("start_match", {**START, "id": "ev/T9/m2/start", "match": 2}, token="round2"))
    assert replies(h)["round2"].ok and h.c.start_id == "ev/T9/m2/start"


def test_a_match_the_table_started_itself_names_no_start() -> None:
    h = Harness(auto_deal=True)
    h.start_match()
    h.play_out()
    assert h.of("results", "match_result")[0]["start"] is None
