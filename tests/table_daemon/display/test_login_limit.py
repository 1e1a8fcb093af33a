"""Wrong referee passwords at the commentators' view are limited (table_daemon/display/login_limit.py and the
web server's protected routes; issue 14 item 10)."""

from __future__ import annotations

import base64
import urllib.error
import urllib.request

from table_daemon.display.hub import Hub
from table_daemon.display.login_limit import LoginLimiter
from table_daemon.display.referees import Referees
from table_daemon.display.server import WebServer, json_response


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_waits_double_after_the_allowed_misses_and_a_right_password_clears_them() -> None:
    clock = Clock()
    lim = LoginLimiter(clock, allowed=3, max_wait=60)
    for _ in range(2):
        lim.failed("10.0.0.5")
        assert lim.wait("10.0.0.5") == 0
    lim.failed("10.0.0.5")
    assert lim.wait("10.0.0.5") == 1.0 and lim.wait("10.0.0.6") == 0
    clock.now += 1
    lim.failed("10.0.0.5")
    assert lim.wait("10.0.0.5") == 2.0
    for _ in range(20):
        lim.failed("10.0.0.5")
    assert lim.wait("10.0.0.5") == 60.0  # capped
    lim.succeeded("10.0.0.5")
    assert lim.wait("10.0.0.5") == 0


def test_the_hall_wide_limit_stops_a_guesser_with_many_addresses() -> None:
    clock = Clock()
    lim = LoginLimiter(clock, allowed=100, hall_per_minute=10)
    for i in range(10):
        lim.failed(f"10.0.1.{i}")
    assert lim.wait("10.0.9.9") > 0
    clock.now += 61
    assert lim.wait("10.0.9.9") == 0


def _get(url: str, password: str | None) -> int:
    req = urllib.request.Request(url)
    if password is not None:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"x:{password}".encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_protected_route_answers_429_after_wrong_passwords() -> None:
    server = WebServer(Hub("ev"), protected={"/commentary/": lambda rest, q: json_response({"ok": 1})},
                       referees=Referees.with_password("right-password"))
    server.logins = LoginLimiter(Clock())  # time stands still: the waits do not run out during the test
    server.start()
    try:
        url = server.url + "/commentary/T01"
        assert _get(url, None) == 401  # asked for the password: not a miss
        assert _get(url, "right-password") == 200
        codes = [_get(url, f"guess-{i}") for i in range(7)]
        assert codes[:5] == [401] * 5 and codes[5:] == [429, 429]
        assert _get(url, "right-password") == 429  # even the right one must wait
        assert _get(server.url + "/display/", None) == 200  # public pages are not limited
    finally:
        server.stop()
