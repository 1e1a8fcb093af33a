"""Wrong referee passwords at the commentators' view are limited (table_daemon/display/login_limit.py and the
web server's protected routes; issue 14 item 10)."""

from __future__ import annotations

import base64
import time
import urllib.error
import urllib.request

import pytest

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


def _get(url: str, password: str | None, user: str = "x") -> int:
    req = urllib.request.Request(url)
    if password is not None:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())
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
        assert _get(url, "right-password", user="y") == 429  # a right password not yet let in must wait too
        # but a referee already at work is not locked out by the guesses (a helper locked every referee out with
        # 60 wrong passwords from 12 addresses: the hall-wide limit held the right password back as well)
        assert _get(url, "right-password") == 200
        assert _get(server.url + "/display/", None) == 200  # public pages are not limited
    finally:
        server.stop()


def _raw(port: int, request: bytes, wait: float = 5.0) -> bytes:
    """What the server answers a hand-written request (the helpers of urllib cannot send a broken one)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def test_a_broken_post_is_answered_by_status_never_by_a_dropped_connection_or_a_run_action() -> None:
    """A Content-Length that is not a number got no answer and a traceback; a chunked body ran the action on an
    empty one; a 10 MB body was read in part, the rest taken as the next request."""
    ran: list[dict[str, object]] = []

    def action(body: dict[str, object]) -> tuple[int, str, bytes]:
        ran.append(body)
        return json_response({"ok": True})

    server = WebServer(Hub("ev"), actions={"/api/ack": action}, referees=Referees.with_password("pw"))
    server.start()
    auth = b"Authorization: Basic " + base64.b64encode(b"r:pw") + b"\r\n"
    head = b"POST /api/ack HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + auth
    try:
        for extra, status in ((b"Content-Length: 1e3\r\n\r\n{}", b"400"),
                              (b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", b"411"),
                              (b"Content-Length: 10000000\r\n\r\n{", b"413")):
            answer = _raw(server.port, head + extra)
            assert answer.startswith(b"HTTP/1.1 " + status), answer[:200]
            assert "请求".encode() in answer or b"Content-Length" in answer
        assert ran == []
        ok = _raw(server.port, head + b"Content-Length: 8\r\n\r\n{\"n\": 1}")
        assert ok.startswith(b"HTTP/1.1 200") and ran == [{"n": 1}]
        too_long = _raw(server.port, b"GET /qr.svg?path=/" + b"a" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        assert too_long.startswith(b"HTTP/1.1 414")  # was a dropped connection and a traceback
    finally:
        server.stop()


def test_an_idle_connection_is_let_go(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spectator's idle connections held a thread each for ever, until the desk served nobody."""
    import socket

    from table_daemon.display import server as web

    monkeypatch.setattr(web, "IDLE_S", 0.5)
    server = WebServer(Hub("ev"))
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as idle:
            idle.sendall(b"GET /display/ HTTP/1.1\r\n")  # and nothing more
            started = time.monotonic()
            assert idle.recv(1024) == b"" and time.monotonic() - started < 4  # closed by the server
    finally:
        server.stop()


def test_other_methods_are_answered_in_both_languages() -> None:
    """HEAD (a monitor's check) gets the GET's status without a body; PUT and OPTIONS a 405 naming what is
    taken (the standard library's English 501 page before); a GET of an action and a POST of a page, 405."""
    server = WebServer(Hub("ev"), actions={"/api/ack": lambda body: json_response({"ok": True})},
                       referees=Referees.with_password("pw"))
    server.start()
    try:
        head = _raw(server.port, b"HEAD /display/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and head.endswith(b"\r\n\r\n")  # headers only
        for request, allowed in ((b"PUT /display/ HTTP/1.1", b"GET, HEAD, POST"),
                                 (b"OPTIONS /api/ack HTTP/1.1", b"GET, HEAD, POST"),
                                 (b"GET /api/ack HTTP/1.1", b"POST"),
                                 (b"POST /display/ HTTP/1.1", b"GET, HEAD")):
            answer = _raw(server.port, request + b"\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 405") and b"Allow: " + allowed in answer, answer[:300]
            assert "不支持".encode() in answer or "请用".encode() in answer
    finally:
        server.stop()
