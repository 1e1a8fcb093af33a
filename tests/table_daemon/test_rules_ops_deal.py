"""The deal-level batch ops (settle, tribute, return_ok) and ``rules replay``, as cli.md specifies them:
through the handlers and through the real ``guandan-table`` console script."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guandan import PROFILES, Bot, build_record, deal_hands, play_out
from table_daemon.rules_ops_deal import DEAL_OPS, replay_file, resolve_profile


def ask(line: dict[str, Any]) -> dict[str, Any]:
    return DEAL_OPS[line["op"]](line)


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ({"profile": "national", "levels": {"NS": "Q", "EW": "5"}, "played": "NS", "finish": ["S", "N"]},
         {"levels": {"NS": "A", "EW": "5"}, "failed_a": {"NS": 0, "EW": 0}, "match_winner": None}),
        ({"profile": "competitive-2017", "levels": {"NS": "2", "EW": "5"}, "played": "EW", "finish": ["E", "W"]},
         {"levels": {"NS": "2", "EW": "9"}, "failed_a": {"NS": 0, "EW": 0}, "match_winner": None}),
        ({"profile": "national", "levels": {"NS": "A", "EW": "5"}, "played": "NS", "finish": ["N", "E", "S"]},
         {"levels": {"NS": "A+", "EW": "5"}, "failed_a": {"NS": 0, "EW": 0}, "match_winner": "NS"}),
        ({"profile": "club-004", "levels": {"NS": "A", "EW": "5"}, "played": "NS", "finish": ["N", "E", "S"],
          "failed_a": {"NS": 2, "EW": 0}},
         {"levels": {"NS": "A", "EW": "5"}, "failed_a": {"NS": 3, "EW": 0}, "match_winner": None}),
        ({"profile": "national", "levels": {"NS": "A", "EW": "10"}, "played": "EW", "finish": ["S", "N"]},
         {"levels": {"NS": "A", "EW": "T"}, "failed_a": {"NS": 0, "EW": 0}, "match_winner": None}),
    ],
)
def test_settle(line: dict[str, Any], answer: dict[str, Any]) -> None:
    assert ask({"op": "settle", **line}) == answer


def test_tribute_single_double_resisted() -> None:
    base = {"op": "tribute", "profile": "national", "level": "7"}
    out = ask(base | {"finish": ["N", "E", "S", "W"], "hands": {"W": ["H7", "D7", "SA"], "N": ["S3"]}})
    assert out == {"resisted": False, "payments": [{"from": "W", "to": "N", "candidates": ["D7"]}], "leader": "W"}
    out = ask(base | {"finish": ["N", "S"], "hands": {"E": ["HR", "S3"], "W": ["HR"]}})
    assert out == {"resisted": True, "payments": [], "leader": "N"}
    out = ask(base | {"profile": "jiangsu", "finish": ["N", "S"], "hands": {"E": ["SA", "S3"], "W": ["DA"]}})
    assert out["leader"] == "E" and [(p["from"], p["to"]) for p in out["payments"]] == [("W", "S"), ("E", "N")]


def test_return_ok() -> None:
    line = {"op": "return_ok", "profile": "national", "level": "5", "from": "N", "to": "S", "hand": ["SJ", "S4"]}
    assert ask(line | {"card": "SJ"}) == {"ok": False, "reason": "over_limit"}
    assert ask(line | {"card": "S4"}) == {"ok": True, "reason": "ok"}
    assert ask(line | {"card": "SJ", "profile": "jiangsu"}) == {"ok": True, "reason": "ok"}
    assert ask(line | {"card": "SJ", "to": "E"}) == {"ok": True, "reason": "ok"}
    assert ask(line | {"card": "HR"}) == {"ok": False, "reason": "not_held"}


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ({"op": "settle", "levels": {"NS": "Z", "EW": "2"}, "played": "NS", "finish": ["S", "N"]}, "level"),
        ({"op": "settle", "levels": {"NS": "2", "EW": "2"}, "played": "NS", "finish": ["S", "E"]}, "双下"),
        ({"op": "settle", "levels": {"NS": "2"}, "played": "NS", "finish": ["S", "N"]}, "levels"),
        ({"op": "tribute", "level": "2", "finish": ["S", "N"], "hands": {"E": ["SA", "SA", "SA"]}}, "SA"),
        ({"op": "return_ok", "level": "2", "from": "N", "to": "S", "card": "X9", "hand": []}, "X9"),
        ({"op": "settle", "profile": "mars", "levels": {}, "played": "NS", "finish": []}, "mars"),
        ({"op": "tribute", "level": "2", "hands": {}}, "finish"),
    ],
)
def test_bad_input_raises_a_clear_error(line: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        ask(line)


def test_custom_profile_file(tmp_path: Path) -> None:
    path = tmp_path / "event.toml"
    path.write_text('base = "national"\ndouble_down_up = 4\n', encoding="utf-8")
    assert resolve_profile(str(path)).double_down_up == 4
    out = ask({"op": "settle", "profile": str(path), "levels": {"NS": "2", "EW": "2"}, "played": "NS",
               "finish": ["S", "N"]})
    assert out["levels"] == {"NS": "6", "EW": "2"}
    path.write_text("double_down_up = 9\n", encoding="utf-8")
    with pytest.raises(ValueError, match="double_down_up"):
        resolve_profile(str(path))


def _record_file(tmp_path: Path) -> Path:
    state = play_out(PROFILES["national"], 2, deal_hands(random.Random(4)), Bot(4), leader="E")
    record = build_record(state, levels_before={"NS": 2, "EW": 2}, played="NS")
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


def test_replay_file(tmp_path: Path) -> None:
    path = _record_file(tmp_path)
    assert replay_file(str(path))["ok"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert replay_file(str(bad))["first_error"]["reason"] == "bad_record"


def test_through_the_console_script(tmp_path: Path) -> None:
    lines = [
        {"op": "settle", "levels": {"NS": "K", "EW": "5"}, "played": "NS", "finish": ["S", "E", "N"]},
        {"op": "settle", "profile": "club-004", "levels": {"NS": "K", "EW": "5"}, "played": "NS",
         "finish": ["S", "N"]},
        {"op": "return_ok", "level": "2", "from": "N", "to": "S", "card": "S9", "hand": ["S9"]},
        {"op": "frobnicate"},
    ]
    stdin = "\n".join(json.dumps(x) for x in lines) + "\n"
    cmd = [sys.executable, "-m", "table_daemon.cli", "rules", "batch"]
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60, check=True)
    answers = [json.loads(x) for x in out.stdout.splitlines()]
    assert answers[0]["levels"] == {"NS": "A", "EW": "5"} and answers[1]["levels"]["NS"] == "A"
    assert answers[2] == {"ok": True, "reason": "ok"} and "error" in answers[3]
    path = _record_file(tmp_path)
    out = subprocess.run([sys.executable, "-m", "table_daemon.cli", "rules", "replay", str(path)],
                         capture_output=True, text=True, timeout=60, check=True)
    answer = json.loads(out.stdout)
    assert answer["ok"] and answer["first_error"] is None and len(answer["finish"]) >= 2
