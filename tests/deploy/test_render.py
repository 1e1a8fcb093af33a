"""deploy/mosquitto/render.py: the templates filled in, a missing value refused, the bridge's topic list; and who
each shipped ACL lets read and write a table's sealed results (``results/sealed``, rules §12)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.client import topic_matches_sub

from tests.bridged import TEMPLATES, load_render

render = load_render()
HALL = {"EVENT": "ev", "HALL": "H1", "DATA_DIR": "/d", "CERT_DIR": "/c", "HALL_PORT": "8883",
        "HALL_BIND": "0.0.0.0", "LOCAL_PORT": "1883", "CENTRAL": "central:8884"}


def test_hall_bridge_names_each_table_and_never_the_hidden_hands() -> None:
    conf = render.render((TEMPLATES / "hall.conf.template").read_text(), HALL, tables=["T01", "T02"])
    topics = [line.split()[1:3] for line in conf.splitlines() if line.startswith("topic ")]
    out = [t for t, d in topics if d == "out"]
    assert sorted(out) == sorted([f"guandan/v1/ev/{t}/{k}" for t in ("T01", "T02")
                                  for k in ("status", "state", "events", "results", "results/sealed", "alerts",
                                                                  "health")]
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


def _rules(acl: str) -> tuple[dict[str, list[tuple[str, str]]], list[tuple[str, str]]]:
    """The ``topic`` lines of each user (``""``: before any ``user`` line) and the ``pattern`` lines of an ACL,
    as (access, topic)."""
    users: dict[str, list[tuple[str, str]]] = {}
    patterns: list[tuple[str, str]] = []
    user = ""
    for line in acl.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "user":
            user = words[1]
        elif words[0] in ("topic", "pattern"):
            rule = (words[1], words[2]) if len(words) == 3 else ("readwrite", words[1])
            (patterns if words[0] == "pattern" else users.setdefault(user, [])).append(rule)
    return users, patterns


def _may(acl: str, user: str, access: str, topic: str) -> bool:
    """Whether ``user`` may ``access`` (read or write) ``topic`` by this ACL, as Mosquitto 2 decides it: a
    ``deny`` that matches refuses; else any matching rule of the user's or pattern (``%u`` = the user) grants."""
    users, patterns = _rules(acl)
    rules = users.get(user, []) + [(a, t.replace("%u", user)) for a, t in patterns]
    if any(a == "deny" and topic_matches_sub(t, topic) for a, t in rules):
        return False
    return any(a in (access, "readwrite") and topic_matches_sub(t, topic) for a, t in rules)


def _shipped_acls() -> list[Any]:
    """(name, ACL text, event, accounts) of the hall-in-one ACL and the rendered hall and central ACLs."""
    tables = ["T01", "T02"]
    acls = [
        ("guandan.acl", (TEMPLATES / "guandan.acl").read_text(), "huaian-open",
         [*tables, "desk", "referee", "commentary", "display"]),
        ("hall.acl", render.render((TEMPLATES / "hall.acl.template").read_text(), {"EVENT": "ev", "HALL": "H1"}),
         "ev", [*tables, "bridge-H1", "referee-H1", "commentary-H1", "display-H1"]),
        ("central.acl", render.render((TEMPLATES / "central.acl.template").read_text(), {"EVENT": "ev"},
                                      halls=["H1", "H2"]), "ev", ["H1", "H2", "desk", "referee", "display"]),
    ]
    return [pytest.param(*acl, id=acl[0]) for acl in acls]


@pytest.mark.parametrize("name, acl, event, accounts", _shipped_acls())
def test_sealed_results_are_for_the_desk_and_referees_only(name: str, acl: str, event: str,
                                                           accounts: list[str]) -> None:
    """A duplicate board's full results stay off every display (rules §12): only the desk, the referees and
    (in a hall) the bridge that carries them to the desk read ``T01/results/sealed``; only T01 (in a hall) or a
    hall's bridge (at the centre) writes it. Displays and commentary still read the public ``results``."""
    sealed, public = f"guandan/v1/{event}/T01/results/sealed", f"guandan/v1/{event}/T01/results"
    readers = {u for u in accounts if _may(acl, u, "read", sealed)}
    writers = {u for u in accounts if _may(acl, u, "write", sealed)}
    assert readers == {"guandan.acl": {"desk", "referee"}, "hall.acl": {"bridge-H1", "referee-H1"},
                       "central.acl": {"desk", "referee"}}[name]
    assert writers == {"guandan.acl": {"T01"}, "hall.acl": {"T01"}, "central.acl": {"H1", "H2"}}[name]
    watchers = [u for u in accounts if u.startswith(("display", "commentary"))]
    assert watchers and all(_may(acl, u, "read", public) for u in watchers)
    # and no rule of theirs could match it by a wildcard put in later: none has a `#`
    users, _ = _rules(acl)
    assert not [t for u in watchers for a, t in users[u] if a != "deny" and "#" in t and "/desk/" not in t]
