"""The rules CLI as outside tools drive it: `guandan-table rules batch|classify` in a real subprocess."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guandan import PROFILES, build_record
from guandan.bot import Bot, deal_hands, play_out


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
    for text in ("[1, 2]", "42"):  # JSON, but no deal record at all: a bad file, not a failed replay
        bad.write_text(text, encoding="utf-8")
        done = _run(["rules", "replay", str(bad)])
        assert done.returncode == 2 and done.stdout == "" and "not a deal record" in done.stderr


def test_replay_reads_a_record_saved_with_a_bom(tmp_path: Path) -> None:
    """A record saved by a Windows editor starts with a UTF-8 BOM; it is read as the same record."""
    record = tmp_path / "record.json"
    record.write_text("\ufeff" + json.dumps({"format": "guandan-deal/1"}), encoding="utf-8")
    done = _run(["rules", "replay", str(record)])
    assert done.returncode == 0 and json.loads(done.stdout)["first_error"]["reason"] == "missing_field"


CLASSIFY = json.dumps({"op": "classify", "level": "2", "cards": ["C8", "H2"]})
SETTLE = {"op": "settle", "levels": {"NS": "K", "EW": "5"}, "played": "NS", "finish": ["S", "E", "N"]}


@pytest.mark.parametrize(("profile", "named"), [
    ("nosuch", "'nosuch'"),
    ("missing.toml", "missing.toml"),
    ("bad.toml", "bogus_key"),
    ("broken.toml", "not valid TOML"),
    ("gbk.toml", "gbk.toml: 不是 UTF-8 文本"),  # Chinese Notepad's ANSI: a traceback before
])
def test_batch_checks_its_profile_before_reading(tmp_path: Path, profile: str, named: str) -> None:
    """A bad ``--profile`` is a bad argument (cli.md "Every command"): one line on stderr, exit 2, no answers."""
    (tmp_path / "bad.toml").write_text("bogus_key = 1\n", encoding="utf-8")
    (tmp_path / "broken.toml").write_text("this is = = not toml\n", encoding="utf-8")
    (tmp_path / "gbk.toml").write_text('base = "national"\nname = "淮安公开赛"\n', encoding="gbk")
    arg = profile if profile == "nosuch" else str(tmp_path / profile)
    done = _run(["rules", "batch", "--profile", arg], json.dumps(SETTLE) + "\n")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and named in done.stderr and "--profile" in done.stderr


def test_batch_with_a_good_profile_file_and_a_bad_profile_in_a_line(tmp_path: Path) -> None:
    """A profile .toml is accepted up front; a bad ``"profile"`` inside one line is that line's error only."""
    good = tmp_path / "mine.toml"
    good.write_text('\ufeffbase = "national"\n', encoding="utf-8")  # with the mark Notepad puts first
    lines = [SETTLE, SETTLE | {"profile": "nosuch"}, SETTLE | {"profile": str(tmp_path / "gone.toml")}]
    done = _run(["rules", "batch", "--profile", str(good)], "".join(json.dumps(x) + "\n" for x in lines))
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(out) == 3 and out[0]["levels"] == {"NS": "A", "EW": "5"}
    assert "nosuch" in out[1]["error"] and "gone.toml" in out[2]["error"]


def test_an_unknown_profile_in_a_line_is_an_error_for_every_op() -> None:
    """classify, beats and plays do not use the profile, but a line naming one that does not exist is answered
    with an error, as settle's is (cli.md: "profile" inside a line overrides --profile)."""
    lines: list[dict[str, Any]] = [
        {"op": "classify", "level": "2", "cards": ["S3"]},
        {"op": "beats", "level": "2", "play": ["S9", "H9"], "over": ["C8", "H2"]},
        {"op": "plays", "level": "2", "hand": ["S3", "S4"], "over": None},
        SETTLE,
        {"op": "tribute", "level": "2", "finish": ["S", "E", "N", "W"], "hands": {"W": ["HR"], "S": ["C3"]}},
        {"op": "return_ok", "level": "2", "from": "S", "to": "W", "card": "C3", "hand": ["C3"]},
    ]
    stdin = "".join(json.dumps(x | {"profile": "nosuch"}) + "\n" for x in lines)
    stdin += json.dumps(lines[0] | {"profile": "jiangsu"}) + "\n" + json.dumps(lines[0] | {"profile": 7}) + "\n"
    done = _run(["rules", "batch"], stdin)
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(out) == len(lines) + 2
    assert all(set(a) == {"error"} and "nosuch" in a["error"] for a in out[:len(lines)]), out
    assert "readings" in out[-2] and set(out[-1]) == {"error"}


@pytest.mark.parametrize(("stdin", "answers"), [
    (f"{CLASSIFY}\n\n   \n{CLASSIFY}\n", ["ok", "empty", "empty", "ok"]),
    (f"{CLASSIFY}\n{CLASSIFY}\n", ["ok", "ok"]),  # the newline that ends the last line starts no new one
    (f"{CLASSIFY}\n{CLASSIFY}", ["ok", "ok"]),  # a last line without its newline is still a line
    (f"{CLASSIFY}\r\n\r\n{CLASSIFY}\r\n", ["ok", "empty", "ok"]),
    ("\n", ["empty"]),
    ("", []),
])
def test_batch_answers_blank_lines_too(stdin: str, answers: list[str]) -> None:
    """Exactly one answer per input line, in order: a blank line is answered with an error, not skipped."""
    done = _run(["rules", "batch"], stdin)
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert ["empty" if "empty line" in a.get("error", "") else "ok" if "readings" in a else a for a in out] == answers


def test_batch_answers_a_line_that_is_not_utf8() -> None:
    """Bytes that are not UTF-8 are that line's error whatever the locale; the run goes on."""
    stdin = (CLASSIFY + "\n").encode() + b'{"op": "\xff\xfe"}\n' + (CLASSIFY + "\n").encode()
    done = subprocess.run([sys.executable, "-m", "table_daemon.cli", "rules", "batch"], input=stdin,
                          capture_output=True, timeout=60, env=dict(os.environ, PYTHONIOENCODING="utf-8:strict"))
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    assert len(out) == 3 and "readings" in out[0] and "UTF-8" in out[1]["error"] and "readings" in out[2]


def _deal_record() -> dict[str, Any]:
    state = play_out(PROFILES["national"], 2, deal_hands(random.Random(4)), Bot(4), leader="E")
    record = json.loads(json.dumps(build_record(state, levels_before={"NS": 2, "EW": 2}, played="NS")))
    assert isinstance(record, dict)
    return record


@pytest.mark.parametrize("t", ["abc", None, True, [1.0], {"s": 1}])
def test_replay_refuses_an_action_time_that_is_not_a_number(tmp_path: Path, t: Any) -> None:
    """deal-record.md: ``t`` is seconds since the deal started; a ``t`` that is not a number is that action's
    malformed field (``first_error``, reason ``bad_action``), as a malformed seat or play is."""
    record = _deal_record()
    record["actions"][3]["t"] = t
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = _run(["rules", "replay", str(path)])
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is False and answer["first_error"]["index"] == 3
    assert answer["first_error"]["reason"] == "bad_action" and answer["first_error"]["field"] == "actions[3].t"


@pytest.mark.parametrize(("change", "field"), [
    (lambda r: r.pop("levels_before"), "levels_before"),
    (lambda r: r.pop("tribute"), "tribute"),
    (lambda r: r["result"].update(winner="EW" if r["result"]["winner"] == "NS" else "NS"), "result.winner"),
    (lambda r: r["result"].update(up=r["result"]["up"] + 1), "result.up"),
    (lambda r: r.update(result="x"), "result"),
])
def test_replay_names_a_missing_field_and_a_wrong_result(tmp_path: Path, change: Any, field: str) -> None:
    """``rules replay`` prints ok false with the first error naming the field (deal-record.md)."""
    record = _deal_record()
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    good = _run(["rules", "replay", str(path)])
    assert good.returncode == 0 and json.loads(good.stdout)["ok"]
    change(record)
    path.write_text(json.dumps(record), encoding="utf-8")
    done = _run(["rules", "replay", str(path)])
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is False and answer["first_error"]["field"] == field


def test_batch_reads_a_file_saved_with_a_bom() -> None:
    done = _run(["rules", "batch"], "\ufeff" + CLASSIFY + "\n" + CLASSIFY + "\n")
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert done.returncode == 0 and len(answers) == 2 and answers[0] == answers[1] and "readings" in answers[0]


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """``rules batch < many.jsonl | head -1``: a broken pipe printed a traceback on stderr."""
    many = (CLASSIFY + "\n") * 20000
    done = subprocess.run(f"{sys.executable} -m table_daemon.cli rules batch | head -1", shell=True, input=many,
                          capture_output=True, text=True, timeout=60, encoding="utf-8")
    assert json.loads(done.stdout)["readings"] and "Traceback" not in done.stderr and done.stderr == ""
