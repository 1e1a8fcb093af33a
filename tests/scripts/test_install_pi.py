"""scripts/install-pi, run for real up to the steps that need a Raspberry Pi.

``scripts/test-bookworm`` (run by ``.ci/run``) makes its venv with ``scripts/install-pi`` from nothing, with
Bookworm's Python 3.11 and ``--system-site-packages``, and runs these tests inside it: they check that the venv
is what the script promises and that a second run changes nothing. Outside that venv only the refusal to run
the Pi steps on another system is checked (making a venv takes a minute: once per CI run is enough).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-pi"
BOOKWORM_VENV = os.environ.get("GUANDAN_BOOKWORM_VENV", "")
in_bookworm_venv = pytest.mark.skipif(
    not BOOKWORM_VENV or Path(sys.prefix).resolve() != Path(BOOKWORM_VENV).resolve(),
    reason="runs inside the venv scripts/install-pi made (scripts/test-bookworm, .ci/run)")


def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GUANDAN_INSTALL_")} | env
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=full, timeout=300, check=False)


@pytest.mark.skipif(Path("/etc/rpi-issue").exists(), reason="this is Raspberry Pi OS")
def test_the_pi_steps_are_refused_on_another_system() -> None:
    done = run({})
    assert done.returncode == 1
    assert "not Raspberry Pi OS" in done.stderr and "GUANDAN_INSTALL_STOP_BEFORE_PI=1" in done.stderr


@in_bookworm_venv
def test_the_venv_is_the_one_install_pi_promises() -> None:
    import cv2
    import numpy

    venv = Path(sys.prefix)
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    assert sys.version_info[:2] == (3, 11)
    assert numpy.__version__.startswith("1.24.") and cv2.__version__ == "4.9.0"
    assert list(venv.glob(".install-pi-*")), "install-pi's stamp is missing"
    # the package is installed from this checkout (editable), so the daemon runs what was tested
    import table_daemon

    assert Path(table_daemon.__file__).resolve().is_relative_to(ROOT)


@in_bookworm_venv
def test_a_second_run_changes_nothing_and_stops_before_the_pi_steps() -> None:
    import numpy

    before = sorted(p.name for p in (Path(sys.prefix) / "lib").glob("python3.11/site-packages/*"))
    done = run({"GUANDAN_INSTALL_STOP_BEFORE_PI": "1", "GUANDAN_INSTALL_VENV": sys.prefix,
                "GUANDAN_INSTALL_PYTHON": sys.executable})
    assert done.returncode == 0, done.stderr
    assert "exists: Python 3.11" in done.stderr and "up to date" in done.stderr
    assert f"numpy {numpy.__version__}" in done.stdout and "OpenCV 4.9.0" in done.stdout
    assert "picamera2" in done.stdout  # loads on a Pi; says why not here
    assert "stopping before the steps that need a Raspberry Pi" in done.stderr
    assert "7/7" not in done.stderr and "1/7" not in done.stderr
    after = sorted(p.name for p in (Path(sys.prefix) / "lib").glob("python3.11/site-packages/*"))
    assert after == before


# -- the steps on their own: install-pi sourced, a step called (the Pi's users, groups and root are stubbed) ----------
ETC_FILE_MODE, ETC_DIR_MODE = 0o640, 0o750
DOC = ROOT / "docs" / "raspberry-pi.md"


def step(call: str, tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``install-pi`` sourced (its steps defined, none run), then ``call``; ``chown`` only logs its arguments (no
    user guandan here, maybe no root), in ``tmp_path/chown.log``. No controlling terminal, as under ssh -T."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "chown"
    stub.write_text(f'#!/bin/sh\necho "$*" >> {tmp_path}/chown.log\n')
    stub.chmod(0o755)
    full = {k: v for k, v in os.environ.items() if not k.startswith("GUANDAN_INSTALL_")} | (env or {})
    full["PATH"] = f"{bin_dir}:{full['PATH']}"
    # $1, not $0: sourced from `bash -c`, $0 would look like a run of the script itself and run every step
    return subprocess.run(["bash", "-c", f'source "$1"; {call}', "bash", str(SCRIPT)], capture_output=True,
                          text=True, env=full, timeout=60, check=False, start_new_session=True)


def password_command(file: str, tmp_path: Path) -> str:
    done = step(f"password_command {file}", tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_documented_password_command_leaves_a_file_the_daemon_can_read(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    secret = etc / "mqtt-password"
    command = password_command(str(secret), tmp_path)
    assert command.startswith("sudo sh -c '")
    # typed by a person: the password on stdin, never on the command line; stty complains without a terminal
    done = subprocess.run(["bash", "-c", command.removeprefix("sudo ")], input="pa ss\n", capture_output=True,
                          text=True, env={**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"},
                          timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert secret.read_text() == "pa ss"
    assert secret.stat().st_mode & 0o777 == ETC_FILE_MODE  # group guandan reads it, nobody else
    assert (tmp_path / "chown.log").read_text().split() == ["root:guandan", str(secret)]
    # the docs give the same command (a root:root file there stopped the daemon: "cannot read")
    assert password_command("/etc/guandan/mqtt-password", tmp_path) in DOC.read_text(encoding="utf-8")


def test_etc_is_readable_by_the_daemon_only_and_a_rerun_keeps_it_so(tmp_path: Path) -> None:
    etc = tmp_path / "guandan"
    etc.mkdir(mode=0o755)
    (etc / "referee.key").write_text("key\n")
    (etc / "referee.key").chmod(0o600)  # root's alone: the daemon (user guandan) could not read it
    (etc / "hall-ca.pem").write_text("ca\n")
    (etc / "hall-ca.pem").chmod(0o644)
    for _ in range(2):
        done = step("config_files", tmp_path, {"GUANDAN_INSTALL_ETC": str(etc)})
        assert done.returncode == 0, done.stderr
        # no terminal to ask for the password: it says how, with the command the docs give
        assert password_command(f"{etc}/mqtt-password", tmp_path) in done.stderr
    assert (etc / "table.toml").read_text() == (ROOT / "config" / "table.example.toml").read_text()
    assert etc.stat().st_mode & 0o777 == ETC_DIR_MODE
    assert {p.name: p.stat().st_mode & 0o777 for p in etc.iterdir()} == {
        "table.toml": ETC_FILE_MODE, "referee.key": ETC_FILE_MODE, "hall-ca.pem": ETC_FILE_MODE}
    assert (tmp_path / "chown.log").read_text().splitlines() == [f"-R root:guandan {etc}"] * 2


def test_the_commands_it_prints_work_for_the_person_who_runs_them(tmp_path: Path) -> None:
    done = step("how_to_check", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stderr.splitlines()]
    assert not [line for line in lines if " -P " in f"{line} " and not line.startswith("#")]  # "-P -" is a password
    # /etc/guandan is root:guandan 750: a command reading it runs as guandan (or root)
    reading = [line for line in lines if "/etc/guandan" in line and not line.startswith("#")]
    assert reading and all(line.startswith("sudo ") for line in reading), reading
    doc = [line.strip() for line in DOC.read_text(encoding="utf-8").splitlines()]
    for text in (lines, doc):
        runs = [line.lstrip("`") for line in text if "bin/guandan-table " in line and "/etc/guandan/" in line]
        assert runs and all(line.startswith("sudo -u guandan ") for line in runs), runs
