"""deploy/mosquitto/render.py: the templates filled in, a missing value refused, the bridge's topic list."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.bridged import TEMPLATES, load_render

render = load_render()
HALL = {"EVENT": "ev", "HALL": "H1", "DATA_DIR": "/d", "CERT_DIR": "/c", "HALL_PORT": "8883",
        "HALL_BIND": "0.0.0.0", "LOCAL_PORT": "1883", "CENTRAL": "central:8884"}


def test_hall_bridge_names_each_table_and_never_the_hidden_hands() -> None:
    conf = render.render((TEMPLATES / "hall.conf.template").read_text(), HALL, tables=["T01", "T02"])
    topics = [line.split()[1:3] for line in conf.splitlines() if line.startswith("topic ")]
    out = [t for t, d in topics if d == "out"]
    assert sorted(out) == sorted([f"guandan/v1/ev/{t}/{k}" for t in ("T01", "T02")
                                  for k in ("status", "state", "events", "results", "alerts", "health")]
                                 + ["guandan/v1/replies/#"])
    assert [t for t, d in topics if d == "in"] == ["guandan/v1/ev/+/cmd/#", "guandan/v1/ev/+/results/ack",
                                                  "guandan/v1/ev/desk/#"]
    assert "private" not in " ".join(t for t, _ in topics)
    assert not re.search(r"@[A-Z_]+@", conf)
    assert "bridge_protocol_version mqttv311" in conf and "cleansession false" in conf


def test_central_acl_has_one_block_per_hall() -> None:
    acl = render.render((TEMPLATES / "central.acl.template").read_text(), {"EVENT": "ev"}, halls=["H1", "H2"])
    assert [line for line in acl.splitlines() if line.startswith("user H")] == ["user H1", "user H2"]
    assert not [line for line in acl.splitlines() if "private" in line and not line.startswith("#")]


def test_a_missing_value_or_a_bad_name_is_refused() -> None:
    text = (TEMPLATES / "hall.conf.template").read_text()
    with pytest.raises(render.RenderError, match="missing values: CENTRAL"):
        render.render(text, {k: v for k, v in HALL.items() if k != "CENTRAL"}, tables=["T01"])
    with pytest.raises(render.RenderError, match="per-table block"):
        render.render(text, HALL)
    with pytest.raises(render.RenderError, match="not desk"):
        render.render(text, HALL, tables=["desk"])


def _sans(cert: Path) -> str:
    done = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True, check=True)
    return done.stdout


def test_certs_carry_the_host_names_the_brokers_are_reached_by(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "certs"
    assert render.main(["certs", str(out), "--central", "central.lan,10.0.0.2", "H1=hall-h1.lan,10.0.1.5", "H2"]) == 0
    central = _sans(out / "central.crt")
    for name in ("DNS:central.lan", "IP Address:10.0.0.2", "DNS:localhost", "IP Address:127.0.0.1"):
        assert name in central
    h1, h2 = _sans(out / "H1.crt"), _sans(out / "H2.crt")
    assert "DNS:hall-h1.lan" in h1 and "IP Address:10.0.1.5" in h1 and "DNS:H1" in h1 and "DNS:localhost" in h1
    assert "DNS:H2" in h2 and "hall-h1" not in h2
    assert "central.lan" in capsys.readouterr().err


def test_certs_refuse_a_bad_host_name_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert render.main(["certs", str(tmp_path), "H1=hall h1"]) == 1
    assert "'hall h1' is not a host name" in capsys.readouterr().err
    assert render.main(["certs", str(tmp_path), "--central"]) == 2
    assert render.main(["certs", str(tmp_path), "--bogus", "H1"]) == 2
