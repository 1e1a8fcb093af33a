"""Referees' own accounts (display/referees.py and the desk's web server): a file of salted hashes made by
``desk referee``, each referee logging in as themself, so that the second referee who approves a correction is a
second account and not a second name typed on the same login."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from table_daemon.desk import event as ev
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server
from table_daemon.display.hub import Hub
from table_daemon.display.referees import (
    AccountsError,
    Referees,
    add_account,
    hash_password,
    read_accounts,
    verify,
)

FAST = 1000  # PBKDF2 rounds for the tests' own accounts (the product's are 600,000)


def test_hashes_and_the_accounts_file(tmp_path: Path) -> None:
    stored = hash_password("秘密 secret 1", rounds=FAST)
    assert stored.startswith("pbkdf2_sha256$1000$") and "秘密" not in stored
    assert verify("秘密 secret 1", stored) and not verify("秘密 secret 2", stored) and not verify("x", "nonsense")
    path = tmp_path / "referees"
    assert add_account(path, "李裁判", "password-li", rounds=FAST) is True
    assert add_account(path, "Wang 2", "password-wang", rounds=FAST) is True
    assert add_account(path, "李裁判", "new-password-li", rounds=FAST) is False  # a new password, same account
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and "password" not in path.read_text()
    assert set(read_accounts(path)) == {"李裁判", "Wang 2"}
    referees = Referees.with_accounts(path)
    assert referees.login("李裁判", "new-password-li") == "李裁判" and referees.login("李裁判", "password-li") is None
    assert referees.login("李裁判", "new-password-li") == "李裁判"  # remembered: no hash the second time
    assert referees.login("nobody", "new-password-li") is None
    shared = Referees.with_password("one-for-all")
    assert shared.login("anyone", "one-for-all") == "" and shared.login("anyone", "wrong") is None


@pytest.mark.parametrize(("text", "named"), [
    ("", "no referee accounts"),
    ("李裁判 password\n", ":1: not an account line"),
    ("a:pbkdf2_sha256$1$x$y\na:pbkdf2_sha256$1$x$y\n", ":2: 'a' has two accounts"),
])
def test_a_bad_accounts_file_is_named_with_its_line(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "referees"
    path.write_text(text, "utf-8")
    with pytest.raises(AccountsError, match=named):
        read_accounts(path)
    with pytest.raises(AccountsError, match="at least 8"):
        add_account(tmp_path / "other", "李", "short")


def _call(url: str, user: str, password: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    auth = base64.b64encode(f"{user}:{password}".encode()).decode()
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": f"Basic {auth}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        text = exc.read().decode(errors="replace")
        return exc.code, json.loads(text) if text.startswith("{") else text


def test_a_correction_is_approved_by_a_second_account_not_a_second_name(tmp_path: Path) -> None:
    path = tmp_path / "referees"
    add_account(path, "李裁判", "password-li", rounds=FAST)
    add_account(path, "王裁判", "password-wang", rounds=FAST)
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", [Team(i, f"队{i}", ("甲", "乙"), "U") for i in (1, 2)], {"tables": ["T01"]}, "seed")
    ev.pair_round(store, 1)
    web = desk_server(store, Hub("ev"), referees=Referees.with_accounts(path))
    web.start()
    try:
        assert _call(f"{web.url}/api/whoami", "李裁判", "password-li") == (200, {"user": "李裁判", "named": True})
        assert _call(f"{web.url}/api/whoami", "李裁判", "password-wang")[0] == 401
        status, made = _call(f"{web.url}/api/propose", "李裁判", "password-li",
                             {"by": "someone else", "reason": "scoresheet", "round": 1, "table": "T01",
                              "levels": {"NS": "A+", "EW": "5"}, "winner": "NS"})
        assert status == 200 and made["ok"], made
        assert store.proposals()[-1]["who"] == "李裁判"  # the login, not the name typed
        status, again = _call(f"{web.url}/api/approve", "李裁判", "password-li", {"n": made["proposal"], "by": "王裁判"})
        assert status == 400 and "another referee" in again["error"]  # the same login, another name typed
        status, done = _call(f"{web.url}/api/approve", "王裁判", "password-wang", {"n": made["proposal"], "by": "李"})
        assert status == 200 and done["ok"] and store.proposals()[-1]["approved_by"] == "王裁判"
    finally:
        web.stop()
        store.close()


def test_desk_referee_adds_an_account_and_the_desk_refuses_a_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "referees"
    cmd = [sys.executable, "-m", "table_daemon.cli", "desk", "referee", "--accounts", str(path), "--name", "李裁判"]
    done = subprocess.run(cmd, input="password-li\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True, "file": str(path), "name": "李裁判", "new": True}
    assert Referees.with_accounts(path).login("李裁判", "password-li") == "李裁判"
    short = subprocess.run(cmd, input="short\n", capture_output=True, text=True, timeout=60)
    assert short.returncode == 2 and "at least 8" in short.stderr and short.stderr.count("\n") == 1
    path.write_text("not an account\n")
    bad = subprocess.run([sys.executable, "-m", "table_daemon.cli", "desk", "--broker", "mqtt://127.0.0.1:1",
                          "--event", "ev", "--db", str(tmp_path / "d.sqlite"), "--http", "0", "--referee-accounts",
                          str(path)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and f"{path}:1: not an account line" in bad.stderr


def test_accounts_changed_while_the_desk_runs_count_at_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A referee added, a password changed or taken away: no restart of the desk, and never a revoked password
    still working because the file was left bad."""
    path = tmp_path / "referees"
    add_account(path, "李裁判", "password-li", rounds=FAST)
    referees = Referees.with_accounts(path)
    assert referees.login("李裁判", "password-li") == "李裁判"
    add_account(path, "赵裁判", "password-zhao", rounds=FAST)
    assert referees.login("赵裁判", "password-zhao") == "赵裁判"  # added: in at once
    add_account(path, "李裁判", "another-password", rounds=FAST)
    assert referees.login("李裁判", "password-li") is None  # changed: the old one (remembered) no longer works
    assert referees.login("李裁判", "another-password") == "李裁判"
    path.write_text("赵裁判 broken line\n", "utf-8")
    with caplog.at_level("ERROR", logger="table_daemon.display.referees"):
        assert referees.login("李裁判", "another-password") is None  # a bad file lets nobody in
        assert referees.login("赵裁判", "password-zhao") is None
    assert sum("nobody can log in" in r.getMessage() for r in caplog.records) == 1  # said once
