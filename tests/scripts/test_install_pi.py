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
