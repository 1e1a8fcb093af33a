"""The rules CLI as outside tools drive it: `guandan-table rules batch|classify` in a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table_daemon.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=60, encoding="utf-8",
    )


def test_batch_answers_every_line_in_order_and_goes_on_after_errors() -> None:
    lines = [
        {"op": "classify", "level": "2", "cards": ["C8", "H2"]},
        {"op": "classify", "level": "2", "cards": ["S10", "SX"]},
        {"op": "beats", "level": "2", "play": ["S9", "H9"], "over": ["C8", "H2"]},
        {"op": "classify", "level": "2", "cards": ["H5", "H5", "H5"]},
        {"op": "frobnicate"},
        {"op": "classify", "level": "2", "cards": []},
        {"op": "plays", "level": "2", "hand": ["S3", "D3", "SK"], "over": ["C2", "D2"]},
        {"op": "plays", "level": "2", "hand": ["S3", "D3"], "over": None},
        {"op": "beats", "level": "2", "play": ["SB", "H2"], "over": ["C8", "D8"],
         "play_reading": {"type": "pair", "rank": "SB", "size": 2}},
    ]
    text = "\n".join(json.dumps(x) for x in lines) + "\nnot json\n"
    done = _run(["rules", "batch"], text)
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(out) == len(lines) + 1
    assert out[0] == {"readings": [{"type": "pair", "rank": "8", "size": 2}]}
    assert "SX" in out[1]["error"]
    assert out[2] == {"beats": True}
    assert "H5" in out[3]["error"] and "3" in out[3]["error"]
    assert "unknown op" in out[4]["error"]
    assert "empty" in out[5]["error"]
    assert out[6] == {"plays": []}  # 2 is the level card: 33 does not beat 22
    assert {(p["type"], p["rank"]) for p in out[7]["plays"]} == {("single", "3"), ("pair", "3")}
    assert "joker" in out[8]["error"]
    assert "error" in out[9]


def test_plays_cards_come_from_the_hand() -> None:
    line = {"op": "plays", "level": "5", "hand": ["S6", "D6", "C6", "H5", "H5", "SB"], "over": ["S3", "D3"]}
    out = json.loads(_run(["rules", "batch"], json.dumps(line) + "\n").stdout)
    got = {(p["type"], p["rank"], p["size"]): p["cards"] for p in out["plays"]}
    assert got == {
        ("pair", "5", 2): ["H5", "H5"],
        ("pair", "6", 2): ["S6", "D6"],
        ("bomb", "6", 4): ["S6", "D6", "C6", "H5"],
        ("bomb", "6", 5): ["S6", "D6", "C6", "H5", "H5"],
    }


def test_classify_command_and_bad_arguments() -> None:
    done = _run(["rules", "classify", "--level", "2", "SK", "DK", "H6", "C6", "H2"])
    assert done.returncode == 0
    assert [r["rank"] for r in json.loads(done.stdout)["readings"]] == ["K", "6"]
    bad = _run(["rules", "classify", "--level", "Z", "H2"])
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "'Z'" in bad.stderr


@pytest.mark.parametrize("args", [["--help"], ["rules", "--help"], ["rules", "batch", "--help"]])
def test_help_works(args: list[str]) -> None:
    assert _run(args).returncode == 0


def test_replay_of_a_file_that_is_not_a_record_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    done = _run(["rules", "replay", str(bad)])
    assert done.returncode == 2 and done.stdout == ""
    assert "bad.json" in done.stderr
    missing = _run(["rules", "replay", str(tmp_path / "missing.json")])
    assert missing.returncode == 2 and "missing.json" in missing.stderr
