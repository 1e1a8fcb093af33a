"""A second press of confirm after a seat's 10-card report (a player pressing twice, or a bot asked again after
the table restarted) is no foul: no false ``wrong_report`` (issue 14 item 10)."""

from __future__ import annotations

from table_daemon.controller import Command, Press

from .harness import Harness


def test_confirm_pressed_again_after_a_report_raises_no_wrong_report() -> None:
    h = Harness(seed=3)
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    for _ in range(3000):
        st = h.state
        if st.reported:
            break
        assert h.bot_step()
    seat = sorted(st.reported)[0]
    assert not h.alerts("wrong_report")
    h.send(Press(seat, "confirm"))
    h.send(Press(seat, "confirm"))
    assert not h.alerts("wrong_report")
    h.play_out()
    assert h.of("results", "deal_result")
