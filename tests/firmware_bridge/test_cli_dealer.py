"""``guandan-table dealer`` per shared/spec/cli.md, run in-process against sim:// dealers."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import CardRecord, DealerClient, LinkError
from firmware_bridge.deal import canonical_json, new_deal
from table_daemon.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_identify(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "dealer", "--port", "sim://?speed=0", "identify")
    assert code == 0 and len(lines) == 1
    ident = lines[0]
    assert ident["protocol"] == 1 and len(ident["boot_id"]) == 8 and ident["reset_cause"] == "power_on"
    assert ident["capabilities"]["reads_faces"] and ident["capabilities"]["deals_to_plan"]


def test_selftest(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "dealer", "--port", "sim://?speed=0", "selftest")
    assert code == 0 and lines[0]["ok"] is True and {c["check"] for c in lines[0]["checks"]} >= {"feeder", "reader"}


def test_fresh_deal_prints_each_card_then_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "dealer", "--port", "sim://?speed=0&corrupt=0.005&seed=3", "deal")
    assert code == 0
    cards, summary = lines[:-1], lines[-1]
    assert len(cards) == 108 and [c["index"] for c in cards] == list(range(108))
    assert all(set(c) == {"index", "card", "seat", "quality"} and 0 <= c["quality"] <= 1 for c in cards)
    assert summary["summary"] is True and summary["ok"] is True and summary["fouled"] is None
    assert all(len(summary["hands"][s]) == 27 for s in "SENW")
    assert set(Counter(c for s in "SENW" for c in summary["hands"][s]).values()) == {2}
    assert summary["faces_verified"] is True and isinstance(summary["retransmits"], int)
    assert hashlib.sha256(canonical_json(summary["deal_line"])).hexdigest() == summary["commitment"]
    assert {s: sorted(summary["deal_line"]["hands"][s]) for s in "SENW"} == {
        s: sorted(summary["hands"][s]) for s in "SENW"
    }
    assert summary["commitment"] in err  # published before the first card


def test_board_from_a_deal_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines_in = [new_deal(b).deal_line(salted=False) for b in (1, 2)]
    path = tmp_path / "boards.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines_in) + "\n")
    code, lines, _ = run(capsys, "dealer", "--port", "sim://?speed=0", "deal", "--deal-file", str(path), "--board", "2")
    summary = lines[-1]
    assert code == 0 and summary["ok"] and summary["board"] == 2
    assert {s: sorted(summary["hands"][s]) for s in "SENW"} == {s: sorted(lines_in[1]["hands"][s]) for s in "SENW"}


def test_a_fouled_deal_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "dealer", "--port", "sim://?speed=0&short=1&seed=1", "deal")
    summary = lines[-1]
    assert code == 0 and summary["ok"] is False and summary["fouled"].startswith("count:")
    assert len(lines) == 108  # 107 cards and the summary
    assert "fouled" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["dealer", "--port", "sim://?jam=7", "identify"], "probability"),
        (["dealer", "--port", "tcp://host:1", "identify"], "device path"),
        (["dealer", "--port", "sim://", "deal", "--board", "2"], "--board needs --deal-file"),
        (["dealer", "--port", "sim://", "deal", "--deal-file", "/nonexistent/deals.jsonl"], "cannot read"),
        (["dealer", "--port", "sim://", "--timeout", "0", "identify"], "--timeout"),
        (["dealer", "--port", "sim://", "deal", "--deal-timeout", "0"], "--deal-timeout"),
        (["dealer", "--port", "/tmp", "identify"], "not a serial device"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and lines == []
    assert len(err.strip().splitlines()) == 1 and message in err


def test_bad_deal_file_names_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(new_deal(1).deal_line(salted=False)) + "\n{broken\n")
    code, _, err = run(capsys, "dealer", "--port", "sim://", "deal", "--deal-file", str(path), "--board", "9")
    assert code == 2 and f"{path}:2" in err
    # a broken line after the board asked for, and a board written twice, are said before dealing too
    code, _, err = run(capsys, "dealer", "--port", "sim://", "deal", "--deal-file", str(path), "--board", "1")
    assert code == 2 and f"{path}:2" in err
    path.write_text("\n".join(json.dumps(new_deal(1).deal_line(salted=False)) for _ in range(2)) + "\n")
    code, lines, err = run(capsys, "dealer", "--port", "sim://", "deal", "--deal-file", str(path), "--board", "1")
    assert code == 2 and lines == [] and f"{path}:2: board 1 again" in err


def test_unreachable_port_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """A serial device that is there but never answers: the dealer cannot be reached (exit 1), on any action."""
    controller, device = os.openpty()
    try:
        for action in ("identify", "deal"):
            code, lines, err = run(capsys, "dealer", "--port", os.ttyname(device), "--timeout", "0.5", action)
            assert code == 1 and lines == [] and "no reply" in err.splitlines()[-1]
    finally:
        os.close(controller)
        os.close(device)


def test_a_deal_the_link_gives_up_on_prints_its_cards_and_a_fouled_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The link gives up after 10 cards: those 10 are already out (streamed, not held to the end), and the run
    ends with a summary that fouls the deal naming the link, exit 0 (a fouled deal is an answer)."""
    real_deal = DealerClient.deal
    streamed: list[tuple[str, str]] = []

    def failing_deal(self: DealerClient, plan: Any, on_card: Any = None, **kwargs: Any) -> Any:
        def card(record: CardRecord) -> None:
            on_card(record)
            if record.index == 9:
                out, err = capsys.readouterr()  # what stdout already holds when the link dies
                streamed.append((out, err))
                raise LinkError(f"{self.description}: no reply after 15 attempts")

        return real_deal(self, plan, card, **kwargs)

    monkeypatch.setattr(DealerClient, "deal", failing_deal)
    code, lines, err = run(capsys, "dealer", "--port", "sim://?speed=0&seed=3", "deal")
    early = [json.loads(line) for line in streamed[0][0].splitlines()]
    err = streamed[0][1] + err
    assert code == 0 and [c["index"] for c in early] == list(range(10)) and lines[-1]["summary"] is True
    summary = lines[-1]
    assert summary["ok"] is False and summary["fouled"].startswith("link:") and "no reply" in summary["fouled"]
    assert sum(len(h) for h in summary["hands"].values()) == 10
    assert summary["commitment"] in err and summary["board"] == 1 and "fouled" in err
    assert "error" not in err


def test_a_deal_whose_first_identify_gets_no_reply_is_fouled_not_a_crash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_identify = DealerClient.identify

    def silent(self: DealerClient, **kwargs: Any) -> Any:
        real_identify(self, **kwargs)  # the dealer did answer once (it is reached)...
        raise LinkError(f"{self.description}: no reply after 15 attempts")  # ...then the link gave up

    monkeypatch.setattr(DealerClient, "identify", silent)
    code, lines, err = run(capsys, "dealer", "--port", "sim://?speed=0", "deal")
    assert code == 0 and len(lines) == 1
    assert lines[0]["summary"] is True and lines[0]["ok"] is False and lines[0]["fouled"].startswith("link:")
    assert lines[0]["hands"] == {s: [] for s in "SENW"}


def test_a_port_that_does_not_exist_is_a_bad_argument(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for port in ("/dev/ttyNOPE", str(tmp_path / "ttyACM9")):
        code, lines, err = run(capsys, "dealer", "--port", port, "--timeout", "0.5", "identify")
        assert code == 2 and lines == []
        assert len(err.strip().splitlines()) == 1 and port in err and "does not exist" in err
