"""``guandan-table simulate`` as acceptance runs it: an ordinary MQTT client subscribes, replays every deal
record; the embedded broker; several tables; the simulated camera through the real card reader."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from guandan import replay
from table_daemon.adapters.camera import CameraZones
from table_daemon.cli import main
from table_daemon.controller import CardsSeen, Input, TurnChanged, ZoneCleared

from .test_app import check_sequence


def _run(*args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table_daemon.cli", "simulate", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def test_two_tables_publish_replayable_records(mosquitto: Any, topic_root: Any, mqtt_messages: Any) -> None:
    log = mqtt_messages(mosquitto.url, f"guandan/v1/{topic_root.event}/#")
    # a hall's numbering (T001 on, as deploy/README names them) and a password in the URL (never printed)
    with_password = mosquitto.url.replace("mqtt://", "mqtt://T001:secret-pw@")
    done = _run("--broker", with_password, "--event", topic_root.event, "--deals", "1", "--speed", "0",
                "--tables", "2", "--table", "T001", "--seed", "9", "--direct")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""
    assert "第1副结束" in done.stderr and "deal 1 over" in done.stderr
    assert "secret-pw" not in done.stderr and "T001:***@" in done.stderr
    msgs = log.wait_for(lambda ms: len([m for m in ms if m.topic.endswith("/results")]) >= 4, timeout=20)
    records = [m.payload for m in msgs if m.topic.endswith("/results") and m.payload.get("format")]
    assert sorted(r["table"] for r in records) == ["T001", "T002"]
    for r in records:
        assert r["format"] == "guandan-deal/1" and replay(r)["ok"]
    for table in ("T001", "T002"):
        check_sequence([m for m in msgs if f"/{table}/" in m.topic])


def test_a_profile_file_is_played_and_its_records_replay_on_their_own(mosquitto: Any, topic_root: Any,
                                                                      mqtt_messages: Any, tmp_path: Any) -> None:
    profile = tmp_path / "open.toml"
    profile.write_text('base = "national"\nname = "open-2026"\ntie_tribute = "winner_chooses"\n', "utf-8")
    log = mqtt_messages(mosquitto.url, f"guandan/v1/{topic_root.event}/#")
    done = _run("--broker", mosquitto.url, "--event", topic_root.event, "--deals", "1", "--speed", "0",
                "--seed", "4", "--direct", "--profile", str(profile))
    assert done.returncode == 0, done.stderr[-2000:]
    msgs = log.wait_for(lambda ms: any(m.topic.endswith("/results") and m.payload.get("format") for m in ms),
                        timeout=20)
    record = next(m.payload for m in msgs if m.topic.endswith("/results") and m.payload.get("format"))
    assert record["profile"] == "open-2026"
    assert record["profile_settings"]["tie_tribute"] == "winner_chooses"
    assert replay(record)["ok"]
    assert any(m.payload.get("profile") == "open-2026" for m in msgs if m.topic.endswith("/state"))
    bad = tmp_path / "bad.toml"
    bad.write_text('tie_tribute = "coin_toss"\n', "utf-8")
    refused = _run("--profile", str(bad), "--deals", "1")
    assert refused.returncode == 2 and "tie_tribute" in refused.stderr


def test_embedded_broker_and_bad_arguments(tmp_path: Path) -> None:
    done = _run("--deals", "1", "--speed", "0", "--direct", "--quiet", env={"TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "mqtt://127.0.0.1:" in done.stderr
    # the journals it made for itself (no --journal-dir), every message taken by the broker: nothing left behind
    assert not list(tmp_path.glob("guandan-sim-*"))
    bad = _run("--tables", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--tables" in bad.stderr
    bad = _run("--profile", "nope")
    assert bad.returncode == 2 and "unknown profile" in bad.stderr
    bad = _run("--matches", "0")
    assert bad.returncode == 2 and "--duration" in bad.stderr
    (tmp_path / "not-a-ca.pem").write_text("plain text\n")
    bad = _run("--ca-file", str(tmp_path / "not-a-ca.pem"), "--deals", "1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--ca-file" in bad.stderr, bad.stderr[-500:]
    for option, value in (("--event", "a+b"), ("--event", "hall/2"), ("--table", ""), ("--table", "T#1")):
        bad = _run(option, value, "--deals", "1")  # a topic level: refused before anything starts
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and option in bad.stderr, bad.stderr[-500:]
    for option, value in (("--speed", "nan"), ("--duration", "-5"), ("--duration", "inf"),
                          ("--journal-dir", str(tmp_path / "not-a-ca.pem"))):
        bad = _run(option, value, "--deals", "1")  # before: loops of dealer failures, 0 deals with exit 0, a traceback
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and option in bad.stderr, bad.stderr[-500:]
    damaged = tmp_path / "journals"
    damaged.mkdir()
    (damaged / "T01.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    bad = _run("--journal-dir", str(damaged), "--deals", "1", "--speed", "0", "--direct", "--quiet")
    said = bad.stderr.strip().splitlines()
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--journal-dir" in said[-1], bad.stderr[-800:]


def test_time_up_at_full_speed_flushes_and_stops_cleanly(tmp_path: Path) -> None:
    """Ten tables flat out until ``--duration``: at the time limit the players stand up, so what the tables
    sent can be seen to reach the broker. Before, the tables played on while the run waited for the broker,
    always had messages on their way, and the run said (falsely) that the broker never took them, kept the
    journals and exited 1."""
    done = _run("--tables", "10", "--match", "--matches", "0", "--speed", "0", "--duration", "3", "--direct",
                "--quiet", env={"TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "time limit reached" in done.stderr and "never taken by the broker" not in done.stderr
    assert done.stderr.count("deals played") == 10
    assert not list(tmp_path.glob("guandan-sim-*"))  # every message taken: the run's own journals are gone


def test_matches_in_a_row(mosquitto: Any, topic_root: Any, mqtt_messages: Any) -> None:
    log = mqtt_messages(mosquitto.url, f"guandan/v1/{topic_root.event}/T01/results")
    done = _run("--broker", mosquitto.url, "--event", topic_root.event, "--deals", "1", "--matches", "2",
                "--speed", "0", "--seed", "5", "--direct", "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2 matches" in done.stderr
    msgs = log.wait_for(lambda ms: len([m for m in ms if m.payload.get("type") == "match_result"]) >= 2, timeout=20)
    assert len({m.payload["match"] for m in msgs if m.payload.get("type") == "match_result"}) == 2


def test_simulated_camera_through_the_real_reader() -> None:
    zones = CameraZones.simulated_table(seed=4, stable_frames=2)
    got: list[Input] = []
    seen = threading.Event()

    def feed(e: Input) -> None:
        got.append(e)
        if isinstance(e, CardsSeen) and e.seat == "S":
            seen.set()

    zones.start(feed)
    try:
        zones.turn_changed(TurnChanged("S", "play"))
        zones.lay("S", ["D3", "D4", "D5", "D6", "D7"])
        assert seen.wait(30), "the laid cards were never reported"
        play = next(e for e in got if isinstance(e, CardsSeen) and e.seat == "S")
        assert play.cards == ["D3", "D4", "D5", "D6", "D7"] and play.confidence > 0.5 and play.frame > 0
        zones.clear("S")
        deadline = time.monotonic() + 20
        while not any(isinstance(e, ZoneCleared) and e.seat == "S" and e.frame > play.frame for e in got):
            assert time.monotonic() < deadline, "the cleared zone was never reported"
            time.sleep(0.05)
        assert zones.health()["frames"] >= 4
    finally:
        zones.close()


def test_a_simulated_table_runs_the_network_on_the_configured_runtime(tmp_path: Any) -> None:
    import pytest

    from table_daemon.config import simulated_config
    from table_daemon.simulate import SimTable

    pytest.importorskip("onnxruntime")
    cfg = simulated_config(table="R1", event="rt", broker="mqtt://127.0.0.1:1", journal=str(tmp_path / "j.sqlite"))
    cfg.camera.runtime = "onnxruntime"
    sim = SimTable(cfg, seed=1, speed=0, camera=True)
    try:
        assert sim.zones.reader.reader.net.runtime == "onnxruntime"
    finally:
        sim.zones.close()


def test_tables_run_as_separate_processes_deal_differently(mosquitto: Any, topic_root: Any,
                                                           mqtt_messages: Any) -> None:
    """Without --seed each table takes its own number for one: T02 alone deals as T02 of a run of several
    tables, not as T01 (a rehearsal of separate processes had every table play the same deals)."""
    log = mqtt_messages(mosquitto.url, f"guandan/v1/{topic_root.event}/#")
    for table in ("T02", "T03"):
        done = _run("--broker", mosquitto.url, "--event", topic_root.event, "--table", table, "--deals", "1",
                    "--speed", "0", "--direct")
        assert done.returncode == 0, done.stderr[-2000:]
    msgs = log.wait_for(lambda ms: len([m for m in ms if m.topic.endswith("/results")
                                        and m.payload.get("format")]) >= 2, timeout=20)
    hands = {m.payload["table"]: m.payload["hands"] for m in msgs if m.topic.endswith("/results")
             and m.payload.get("format")}
    assert set(hands) == {"T02", "T03"} and hands["T02"] != hands["T03"]


def test_a_simulated_seat_never_plays_into_a_pause_and_plays_on_after_it(tmp_path: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee pauses the table just after a seat was asked to play: the seat's move, already on its way
    (0.2-0.6 s at speed 1), is off; it had been laid into the pause, an out_of_turn alert against a player who
    did nothing wrong. On resume the seat is asked again and plays."""
    from table_daemon import sim_table
    from table_daemon.config import simulated_config
    from table_daemon.simulate import SimTable

    dealer = sim_table.make_sim_dealer  # the seats at speed 1; the deal itself at full speed (16 s at speed 1)
    monkeypatch.setattr(sim_table, "make_sim_dealer", lambda cfg, seed, speed: dealer(cfg, seed, 0))
    cfg = simulated_config(table="P1", event="pause", broker="mqtt://127.0.0.1:1", journal=str(tmp_path / "j.sqlite"))
    sim = SimTable(cfg, seed=5, speed=1, camera=False)
    alerts: list[dict[str, Any]] = []
    paused = threading.Event()

    def pause_at_the_first_play_asked(ef: TurnChanged) -> None:
        if ef.asked == "play" and ef.seat and not paused.is_set():
            paused.set()
            sim.app.command("pause", {"reason": "referee"})

    sim.app.turn_listeners.append(pause_at_the_first_play_asked)
    sim.app.alert_listeners.append(alerts.append)
    sim.start({"method": "deals", "deals": 1})
    try:
        assert paused.wait(30)
        time.sleep(1.5)  # longer than any seat's move
        assert sim.app.controller.phase == "paused"
        assert [a["code"] for a in alerts if a.get("code") in ("out_of_turn", "exposed_card")] == []
        def plays_made() -> int:
            deal = sim.app.controller.deal
            return deal.state.plays_made if deal is not None and deal.state is not None else 0

        before = plays_made()
        sim.app.command("resume", {})
        deadline = time.monotonic() + 10
        while plays_made() == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert plays_made() > before  # asked again on resume, the seat played
    finally:
        sim.stop()


def test_results_no_desk_acknowledged_are_kept_and_said(mosquitto: Any, topic_root: Any, mqtt_messages: Any,
                                                          tmp_path: Path) -> None:
    """At an event (``--await-desk``) a result is kept until the desk acknowledges it (mqtt-api.md, Delivery):
    a run that ends with results unacknowledged says so, exits 1 and keeps its journals (they were removed)."""
    log = mqtt_messages(mosquitto.url, f"guandan/v1/{topic_root.event}/T08/results")
    proc = subprocess.Popen([sys.executable, "-m", "table_daemon.cli", "simulate", "--broker", mosquitto.url,
                             "--event", topic_root.event, "--table", "T08", "--await-desk", "--speed", "0",
                             "--direct", "--quiet", "--duration", "120", "--broker-timeout", "2"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        status = mqtt_messages(mosquitto.url, f"guandan/v1/{topic_root.event}/T08/status")
        status.wait_for(lambda ms: any(m.payload.get("online") for m in ms), timeout=60)
        time.sleep(0.5)  # subscribed to its commands, waiting for the desk
        log.publish(f"guandan/v1/{topic_root.event}/T08/cmd/start_match",  # started by hand: no desk to ack
                    {"id": "s8", "match": 1, "match_end": {"method": "deals", "deals": 1}})
        log.wait_for(lambda ms: len(ms) >= 2, timeout=60)  # the deal record and the match result
        proc.send_signal(signal.SIGTERM)  # the organiser ends the run (before --duration), as Ctrl+C or systemd
        err = proc.communicate(timeout=90)[1]
    finally:
        proc.kill()
    assert proc.returncode == 1, err[-2000:]
    assert "2 results were not acknowledged by the desk" in err
    kept = list(tmp_path.glob("guandan-sim-*"))
    assert len(kept) == 1 and f"--journal-dir {kept[0]}" in err


def test_simulate_plays_the_boards_of_a_deal_file_sealed(mosquitto: Any, topic_root: Any, mqtt_messages: Any,
                                                        tmp_path: Path) -> None:
    """A duplicate event can be rehearsed: ``--deal-file`` has the simulated dealer deal its boards (it ignored
    the deal file: a walk-through had to patch the dealer in). Each board is played once, its full record goes on
    ``results/sealed`` only, and no public message names a card of it."""
    from firmware_bridge.deal import new_deal

    from .controller.test_public_secrecy import codes_in

    plans = [new_deal(b, level="3", leader="E") for b in (4, 5)]
    deal_file = tmp_path / "boards.jsonl"
    deal_file.write_text("".join(json.dumps(p.deal_line()) + "\n" for p in plans))
    root = topic_root.root
    public = mqtt_messages(mosquitto.url, root + "state", root + "events", root + "results")
    sealed = mqtt_messages(mosquitto.url, root + "results/sealed")
    proc = subprocess.run([sys.executable, "-m", "table_daemon.cli", "simulate", "--broker", mosquitto.url,
                           "--event", topic_root.event, "--table", topic_root.table, "--speed", "0", "--direct",
                           "--quiet", "--deal-file", str(deal_file)], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = sealed.wait_for(lambda ms: len(ms) >= 3, timeout=30)  # two boards and the match result
    deals = [m.payload for m in records if m.payload["type"] == "deal_result"]
    assert [(d["board"], d["level"], d["leader"]) for d in deals] == [(4, "3", "E"), (5, "3", "E")]
    for record, plan in zip(deals, plans, strict=True):
        assert {s: sorted(cards) for s, cards in record["hands"].items()} == {
            s: sorted(c.code for c in cards) for s, cards in plan.hands.items()}
        assert replay(record)["ok"]
    for m in public.snapshot():
        assert not set(codes_in(m.payload)), (m.topic, m.payload.get("type"))
    assert [m.payload["board"] for m in public.on("/results") if m.payload["type"] == "deal_result"] == [4, 5]
    assert main(["simulate", "--deal-file", str(tmp_path / "none.jsonl")]) == 2
