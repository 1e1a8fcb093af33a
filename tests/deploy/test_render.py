"""deploy/mosquitto/render.py: the templates filled in, a missing value refused, the bridge's topic list."""

from __future__ import annotations

import re

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
