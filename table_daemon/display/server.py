"""The HTTP server for screens (standard library ``http.server`` in a thread): the display pages, their assets,
a JSON snapshot and a Server-Sent Events stream of every change the hub sees.

Routes: ``/display/`` (hall overview), ``/display/{table}`` (one table), ``/static/{file}`` (html/js/css of
this package), ``/api/live[?table=T][&brief=1]`` (snapshot), ``/events[?table=T][&brief=1]`` (SSE: ``snapshot``
first, then ``state`` / ``events`` / ``status`` / ``results`` / ``standings`` / ``chart`` messages, ``board``
when the desk releases a duplicate board, and ``link`` when the server's own link to the broker changes), ``/qr.svg[?path=P]``
(a QR code of the public address of page ``P``, for spectators' phones: ``public_url`` when given, else the
address the screen itself used). The desk adds its own routes
through ``extra``. Every screen reads from the hub's memory, never from a table. Routes given as ``protected``
(the commentators' delayed view of the hands) answer only to HTTP basic authentication by a referee
(:mod:`.referees`: the shared referee password, or a referee's own account), and are never served without one;
``/api/whoami`` says who logged in, and an action done under an account is done by that account.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from io import BytesIO
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlparse

import segno

from .hub import Hub
from .login_limit import LoginLimiter
from .referees import Referees

log = logging.getLogger(__name__)

Response = tuple[int, str, bytes]
Route = Callable[[str, dict[str, str]], Response]
#: a POST route: the request's JSON object in, a response out (only behind the referee password)
Action = Callable[[dict[str, Any]], Response]
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}


def json_response(data: Any, status: int = 200) -> Response:
    return status, "application/json; charset=utf-8", json.dumps(data, ensure_ascii=False).encode()


def asset(name: str) -> Response:
    """A file shipped in this package (display pages and assets)."""
    if "/" in name or name.startswith(".") or not any(name.endswith(ext) for ext in TYPES):
        return 404, "text/plain; charset=utf-8", b"not found"
    ref = resources.files("table_daemon.display").joinpath(name)
    if not ref.is_file():
        return 404, "text/plain; charset=utf-8", b"not found"
    return 200, TYPES[name[name.rfind("."):]], ref.read_bytes()


class _Server(ThreadingHTTPServer):
    """A longer accept queue than the standard 5: after a restart every screen and phone reconnects at once. At
    most ``MAX_CONNECTIONS`` connections are served at once: one more is closed at once, and said in the log
    (once a minute), so that idle connections from one spectator cannot take every thread and file."""

    request_queue_size = 256

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._refused_said = 0.0

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._open.acquire(blocking=False):
            now = time.monotonic()
            if now - self._refused_said >= 60.0:
                self._refused_said = now
                log.error("web server: %d connections open, the most it serves; refusing more (from %s)",
                          MAX_CONNECTIONS, client_address[0])
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._open.release()


#: seconds between the pings a quiet event stream sends; a page that hears nothing for three of them takes the
#: stream as stalled (a network that drops packets without closing the connection) and says so (display.js)
KEEPALIVE_S = 5.0
#: seconds a connection may stay silent (a request not sent, an event stream not read) before it is closed:
#: without it a spectator's idle connections held a thread each for ever
IDLE_S = 30.0
#: connections served at once (each event stream of a screen or phone holds one)
MAX_CONNECTIONS = 2000
#: the largest request body an action takes (a correction or an acknowledgement is a few hundred bytes)
MAX_BODY = 64 * 1024

class WebServer:
    """Serves the display routes plus ``extra`` ones (exact path -> route, or prefix ending in ``/``)."""

    def __init__(self, hub: Hub, port: int = 0, host: str = "127.0.0.1",
                 extra: dict[str, Route] | None = None, keepalive_s: float = KEEPALIVE_S,
                 protected: dict[str, Route] | None = None, actions: dict[str, Action] | None = None,
                 public_url: str | None = None, referees: Referees | None = None) -> None:
        if (protected or actions) and referees is None:
            raise ValueError("protected routes need the referees (a password or their accounts)")
        self.hub = hub
        self.routes: dict[str, Route] = {
            "/display/": lambda rest, q: asset("table.html" if rest else "overview.html"),
            "/static/": lambda rest, q: asset(rest),
            "/standings": lambda rest, q: asset("standings.html"),  # every team, for spectators' phones
            # what every browser asks first: a 404 there is an error in a screen's console (a red heart on green felt)
            "/favicon.ico": lambda rest, q: asset("favicon.svg"),
            "/api/live": lambda rest, q: json_response(hub.snapshot(q.get("table"), brief=q.get("brief") == "1")),
            **(extra or {}),
            **(protected or {}),
        }
        self.protected = frozenset(protected or {})
        self.actions = dict(actions or {})
        self.referees = referees or Referees()
        #: wrong passwords at the protected routes, per client address (a wait that doubles after 5 misses)
        self.logins = LoginLimiter(time.monotonic)
        self.keepalive_s = keepalive_s
        self.public_url = public_url.rstrip("/") if public_url else None
        self._stop = threading.Event()
        self._streams: set[socket.socket] = set()
        self._streams_lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = IDLE_S  # the socket's: an idle reader or a stream that is never read is let go

            def log_message(self, format: str, *args: Any) -> None:  # quiet: screens poll a lot
                return

            def do_GET(self) -> None:
                server._get(self)

            def do_HEAD(self) -> None:  # a monitor's check: the GET's status and headers, no body
                self.head_only = True
                server._get(self)

            def do_POST(self) -> None:
                server._post(self)

            def _not_allowed(self) -> None:
                server._reply(self, 405, "text/plain; charset=utf-8",
                              f"不支持 {self.command} | method {self.command} not allowed: GET or POST".encode(),
                              allow="GET, HEAD, POST")

            do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

        self.httpd = _Server((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="desk-http", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and cut every open event stream (screens reconnect to whoever serves next)."""
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        with self._streams_lock:
            streams, self._streams = list(self._streams), set()
        for sock in streams:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    # -- dispatch -------------------------------------------------------------------------------------------
    def _get(self, req: BaseHTTPRequestHandler) -> None:
        url = urlparse(req.path)
        path = unquote(url.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if path == "/events":
            if getattr(req, "head_only", False):
                self._reply(req, 200, "text/event-stream; charset=utf-8", b"")
            else:
                self._sse(req, query.get("table"), query.get("brief") == "1")
            return
        if path in self.actions:
            self._reply(req, 405, "text/plain; charset=utf-8", f"请用 POST | {path} takes POST".encode(),
                        allow="POST")
            return
        if path == "/api/address":
            self._reply(req, *json_response({"url": self.public_address(req, query.get("path", "/display/"))}))
            return
        if path == "/qr.svg":
            try:
                self._reply(req, 200, "image/svg+xml", self._qr(req, query.get("path", "/display/")))
            except Exception:  # noqa: BLE001 - an address too long for a QR code (segno's DataOverflowError)
                self._reply(req, 414, "text/plain; charset=utf-8", "地址过长 | the address is too long for a QR code".encode())
            return
        route, rest = self._find(path)
        if route is not None and self._prefix(path) in self.protected and self._limited(req):
            return
        if path == "/api/whoami" and self.protected:  # who the page's referee is (accounts: the login)
            if not self._limited(req):
                user = self._login(req)
                if user is None:
                    self._refuse(req)
                else:
                    self._reply(req, *json_response({"user": user, "named": self.referees.named}))
            return
        if route is not None and self._prefix(path) in self.protected and self._login(req) is None:
            self._refuse(req)
            return
        if route is None:
            status, ctype, body = 404, "text/plain; charset=utf-8", "not found 未找到".encode()
        else:
            try:
                status, ctype, body = route(rest, query)
            except Exception as exc:  # a bad request must not take the server down
                status, ctype, body = 500, "text/plain; charset=utf-8", f"error 错误: {exc}".encode()
        self._reply(req, status, ctype, body)

    @staticmethod
    def _reply(req: BaseHTTPRequestHandler, status: int, ctype: str, body: bytes, *, allow: str | None = None
               ) -> None:
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(body)))
        req.send_header("Cache-Control", "no-store")
        if allow:
            req.send_header("Allow", allow)
        try:
            req.end_headers()
            if not getattr(req, "head_only", False):
                req.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            req.close_connection = True  # the page gave up waiting (its own timeout): nobody left to answer

    def _post(self, req: BaseHTTPRequestHandler) -> None:
        """A referee's action: JSON in (``Content-Type: application/json``, which a form on another site cannot
        send without the browser asking first), behind the referee password; JSON out."""
        path = unquote(urlparse(req.path).path)
        length, refusal = self._body_length(req)
        if refusal is not None:
            req.close_connection = True  # what follows on the connection cannot be told from the body
            self._reply(req, *json_response({"ok": False, "error": refusal[1]}, refusal[0]))
            return
        raw = req.rfile.read(length) if length > 0 else b""
        action = self.actions.get(path)
        if action is None and self._find(path)[0] is not None:
            self._reply(req, 405, "text/plain; charset=utf-8", f"请用 GET | {path} takes GET".encode(),
                        allow="GET, HEAD")
        elif action is None:
            self._reply(req, 404, "text/plain; charset=utf-8", "not found 未找到".encode())
        elif self._limited(req):
            return
        elif (user := self._login(req)) is None:
            self._refuse(req)
        elif not req.headers.get("Content-Type", "").startswith("application/json"):
            self._reply(req, *json_response({"ok": False, "error": "需要 JSON needs Content-Type: application/json"},
                                            415))
        else:
            try:
                body = json.loads(raw.decode("utf-8") or "{}")
                if not isinstance(body, dict):
                    raise ValueError("the body must be a JSON object")
                if user:  # a referee's own account: the one who acts is the one logged in, whatever is typed
                    body["by"] = user
            except (UnicodeDecodeError, ValueError) as exc:
                self._reply(req, *json_response({"ok": False, "error": f"请求无法读取 unreadable request: {exc}"},
                                                400))
                return
            try:
                self._reply(req, *action(body))
            except Exception as exc:  # a bad request must not take the server down
                self._reply(req, *json_response({"ok": False, "error": f"错误 error: {exc}"}, 500))

    @staticmethod
    def _body_length(req: BaseHTTPRequestHandler) -> tuple[int, tuple[int, str] | None]:
        """The request body's length, or the status and words refusing it: a chunked body (never read: the
        action ran on an empty one), a length that is not a number (an exception and no answer before), or a
        body larger than any action takes (read in part, the rest was taken as the next request)."""
        if req.headers.get("Transfer-Encoding"):
            return 0, (411, "需要 Content-Length | a Content-Length is needed (no chunked bodies)")
        text = (req.headers.get("Content-Length") or "0").strip()
        if not text.isascii() or not text.isdigit() or len(text) > 12:
            return 0, (400, f"Content-Length 无效 | Content-Length must be a whole number of bytes, got {text[:20]!r}")
        if int(text) > MAX_BODY:
            return 0, (413, f"请求过大 | the request is too large ({int(text)} bytes; at most {MAX_BODY})")
        return int(text), None

    def _refuse(self, req: BaseHTTPRequestHandler) -> None:
        body = "referee password needed 需要裁判密码".encode()
        req.send_response(401)
        req.send_header("WWW-Authenticate", 'Basic realm="guandan referee", charset="UTF-8"')
        req.send_header("Content-Type", "text/plain; charset=utf-8")
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        if not getattr(req, "head_only", False):
            req.wfile.write(body)

    def _limited(self, req: BaseHTTPRequestHandler) -> bool:
        """Answer 429 (and True) while this client must wait after too many wrong passwords; a referee already
        let in with these very credentials is never kept waiting (wrong guesses from elsewhere in the hall, or
        from behind the same proxy, locked every referee out)."""
        wait = self.logins.wait(req.client_address[0])
        if wait <= 0 or self._known(req):
            return False
        body = f"too many wrong passwords, wait {wait:.0f} s 密码错误次数过多，请等待".encode()
        req.send_response(429)
        req.send_header("Retry-After", str(max(1, round(wait))))
        req.send_header("Content-Type", "text/plain; charset=utf-8")
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        if not getattr(req, "head_only", False):
            req.wfile.write(body)
        return True

    def public_address(self, req: BaseHTTPRequestHandler, path: str) -> str:
        """The address phones should open for ``path``: ``public_url`` when configured, else the host the
        requesting screen used (right when the hall screen and the phones reach the server the same way)."""
        if not path.startswith("/"):
            path = "/" + path
        base = self.public_url or f"http://{req.headers.get('Host') or f'127.0.0.1:{self.port}'}"
        return base + quote(path, safe="/?=&")

    def _qr(self, req: BaseHTTPRequestHandler, path: str) -> bytes:
        """A QR code (SVG, crisp at any size) of the public address of ``path``."""
        out = BytesIO()
        segno.make(self.public_address(req, path), error="m").save(
            out, kind="svg", scale=8, border=2, dark="#111", light="#fff", xmldecl=False, svgns=True,
            title="扫码观看 Scan to watch")
        return out.getvalue()

    def _known(self, req: BaseHTTPRequestHandler) -> bool:
        user, given = self._credentials(req)
        return given is not None and self.referees.known(user, given)

    @staticmethod
    def _credentials(req: BaseHTTPRequestHandler) -> tuple[str, str | None]:
        """The user and password of the request's basic authentication (password None: none offered)."""
        header = req.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return "", None
        try:
            user, _, given = base64.b64decode(header[6:], validate=True).decode("utf-8").partition(":")
        except (binascii.Error, ValueError):
            return "", ""
        return user, given

    def _login(self, req: BaseHTTPRequestHandler) -> str | None:
        """HTTP basic authentication against the referees (:class:`Referees`: the shared password with any
        user name, or a referee's own account): the referee let in ("" for the shared password), or None. A
        wrong password counts toward the client's login limit, a right one clears it."""
        user, given = self._credentials(req)
        if given is None:
            return None  # no password offered yet (a browser's first request): asked for, not counted
        who = self.referees.login(user, given)
        addr = req.client_address[0]
        if who is not None:
            self.logins.succeeded(addr)
        else:
            self.logins.failed(addr)
        return who

    def _prefix(self, path: str) -> str:
        """The route key ``path`` is served by (an exact path, or the longest prefix ending in ``/``)."""
        if path in self.routes:
            return path
        return max((p for p in self.routes if p.endswith("/") and p != "/" and path.startswith(p)), key=len,
                   default="")

    def _find(self, path: str) -> tuple[Route | None, str]:
        if path in self.routes:
            return self.routes[path], ""
        if path == "/display":
            return self.routes["/display/"], ""
        # "/" is the home page only, never a prefix: an unknown address is a 404
        best = max((p for p in self.routes if p.endswith("/") and p != "/" and path.startswith(p)), key=len,
                   default=None)
        return (self.routes[best], path[len(best):]) if best else (None, "")

    def _sse(self, req: BaseHTTPRequestHandler, table: str | None, brief: bool = False) -> None:
        q = self.hub.subscribe(table)
        with self._streams_lock:
            self._streams.add(req.connection)
        try:
            req.send_response(200)
            req.send_header("Content-Type", "text/event-stream; charset=utf-8")
            req.send_header("Cache-Control", "no-store")
            req.send_header("Connection", "close")
            req.end_headers()
            req.close_connection = True
            req.wfile.write(b"retry: 1000\n\n")  # reconnect within a second after a drop
            # ping_s: how often a quiet stream pings, so the page knows how long a silence is a stall
            self._send(req, "snapshot", {**self.hub.snapshot(table, brief=brief), "ping_s": self.keepalive_s})
            while not self._stop.is_set():
                try:
                    kind, name, _, frame = q.get(timeout=self.keepalive_s)
                except queue.Empty:
                    if not self.hub.listening(q):
                        break  # dropped for falling behind: the browser reconnects and gets a snapshot
                    # an event, not an SSE comment: a page sees it, and knows the stream is alive (display.js)
                    req.wfile.write(b"event: ping\ndata: {}\n\n")
                    req.wfile.flush()
                    continue
                if table and name and name != table:
                    continue
                req.wfile.write(frame)
                req.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            self.hub.unsubscribe(q)
            with self._streams_lock:
                self._streams.discard(req.connection)

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, kind: str, data: Any) -> None:
        body = json.dumps(data, ensure_ascii=False)
        req.wfile.write(f"event: {kind}\ndata: {body}\n\n".encode())
        req.wfile.flush()
