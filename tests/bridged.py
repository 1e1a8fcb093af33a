"""An event's brokers as deployed, on loopback: a central Mosquitto and one Mosquitto per hall bridged to it,
each from the shipped templates of ``deploy/mosquitto/`` (TLS between them, certificates made by ``openssl``
into a temp dir, per-table passwords and the shipped ACLs), and a pass-through TCP proxy on each hall's bridge
link that a test or the bench cuts to play a dropped link (the fault injector; the product's fan-out is the
brokers' bridge).

Used by ``tests/deploy/test_bridge.py`` and ``bench/scale.py``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from table_daemon.adapters.broker import LocalBroker, free_port, same_user_lines

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "deploy" / "mosquitto"
PASSWORD = "pw-guandan"  # every account's password in these throwaway set-ups


def load_render() -> ModuleType:
    """``deploy/mosquitto/render.py`` (a standalone script, so loaded from its file)."""
    spec = importlib.util.spec_from_file_location("guandan_render", TEMPLATES / "render.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_passwords(path: Path, users: list[str]) -> None:
    """A Mosquitto password file (hashed by ``mosquitto_passwd -U``) giving every user ``PASSWORD``."""
    path.write_text("".join(f"{u}:{PASSWORD}\n" for u in users))
    subprocess.run(["mosquitto_passwd", "-U", str(path)], check=True, capture_output=True)


@dataclass
class RenderedBroker(LocalBroker):
    """A Mosquitto child process run from a rendered configuration (``conf``); ``port`` is its loopback
    listener, which ``start()`` waits for. Restart keeps its persistence, as a real broker's."""

    conf: str = ""

    def _start_mosquitto(self, binary: str) -> subprocess.Popen[bytes]:
        assert self.workdir is not None
        path = self.workdir / "mosquitto.conf"
        # the shipped templates leave `user` to the distribution's default; this private temp dir needs ours
        user = "".join(line + "\n" for line in same_user_lines())
        path.write_text(self.conf + f"\n{user}log_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n")
        log = open(self.workdir / "broker.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            return subprocess.Popen([binary, "-c", str(path)], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        finally:
            log.close()


class CutProxy:
    """A TCP pass-through on 127.0.0.1 (``port``) to ``target``. ``cut()`` plays a dropped link: nothing more
    passes either way and new connections hang, silently, as when a cable is pulled (the brokers find out by
    their keepalives). ``heal()`` drops the dead connections and lets new ones through again."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, name="cut-proxy", daemon=True).start()

    @property
    def is_cut(self) -> bool:
        return not self._open.is_set()

    def cut(self) -> None:
        self._open.clear()

    def heal(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:  # shutdown first: it wakes a thread blocked in recv on it, close alone does not
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()
        self._open.set()

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self.listener.close()
        self.heal()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with self._lock:
            self._conns.append(client)
        self._open.wait()  # a connection made during a cut hangs until the link is back (then it is dropped)
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        with self._lock:
            self._conns.append(upstream)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                self._open.wait()  # cut: the bytes go nowhere until the connection is dropped at heal()
                if self._closed:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


@dataclass
class BridgedEvent:
    """A central broker and ``halls`` hall brokers (``tables`` maps a hall to its table ids), all started by
    ``start()``; ``close()`` stops them and removes the temp dir. The links of the ``cuttable`` halls (default
    all) run through a :class:`CutProxy` (``proxies[hall]``), the others straight to the central broker. Tables log in at their hall's loopback
    listener as ``mqtt://{table}:PASSWORD@...`` (``hall_url``); ``central_url(user)`` is the central broker's
    loopback listener, ``central_tls_url(user)`` its TLS client listener (CA file ``ca_file``)."""

    event: str
    tables: dict[str, list[str]]
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="guandan-bridged-")))
    central: RenderedBroker | None = None
    halls: dict[str, RenderedBroker] = field(default_factory=dict)
    proxies: dict[str, CutProxy] = field(default_factory=dict)
    client_port: int = 0
    hall_extra: list[str] = field(default_factory=list)  # lines added to every hall's configuration
    cuttable: list[str] | None = None  # halls whose link runs through a CutProxy (None: all)

    @property
    def ca_file(self) -> str:
        return str(self.workdir / "certs" / "ca.pem")

    def start(self) -> BridgedEvent:
        render = load_render()
        certs = render.make_certs(self.workdir / "certs", list(self.tables))
        cdir = self.workdir / "central"
        cdir.mkdir()
        bridge_port, self.client_port, ws_port, local = (free_port() for _ in range(4))
        (cdir / "central.acl").write_text(render.render(
            (TEMPLATES / "central.acl.template").read_text(), {"EVENT": self.event}, list(self.tables)))
        write_passwords(cdir / "central.passwd", ["desk", "referee", "display"])
        conf = render.render((TEMPLATES / "central.conf.template").read_text(), {
            "DATA_DIR": str(cdir), "CERT_DIR": str(certs), "BRIDGE_PORT": str(bridge_port),
            "BRIDGE_BIND": "127.0.0.1", "CLIENT_PORT": str(self.client_port), "CLIENT_BIND": "127.0.0.1",
            "WS_PORT": str(ws_port), "LOCAL_PORT": str(local)})
        self.central = RenderedBroker(workdir=cdir, port=local, conf=conf).start()
        for hall, table_ids in self.tables.items():
            hdir = self.workdir / hall
            hdir.mkdir()
            central = f"127.0.0.1:{bridge_port}"
            if self.cuttable is None or hall in self.cuttable:
                proxy = CutProxy(bridge_port)
                self.proxies[hall] = proxy
                central = f"127.0.0.1:{proxy.port}"
            (hdir / "hall.acl").write_text(render.render(
                (TEMPLATES / "hall.acl.template").read_text(), {"EVENT": self.event, "HALL": hall}))
            write_passwords(hdir / "hall.passwd",
                            [*table_ids, f"bridge-{hall}", f"referee-{hall}", f"commentary-{hall}",
                             f"display-{hall}"])
            hall_port, local = free_port(), free_port()
            conf = render.render((TEMPLATES / "hall.conf.template").read_text(), {
                "EVENT": self.event, "HALL": hall, "DATA_DIR": str(hdir), "CERT_DIR": str(certs),
                "HALL_PORT": str(hall_port), "HALL_BIND": "127.0.0.1", "LOCAL_PORT": str(local),
                "CENTRAL": central}, tables=table_ids)
            conf += "".join(line + "\n" for line in self.hall_extra)
            self.halls[hall] = RenderedBroker(workdir=hdir, port=local, conf=conf).start()
        return self

    def hall_url(self, hall: str, user: str = "{table}") -> str:
        return f"mqtt://{user}:{PASSWORD}@127.0.0.1:{self.halls[hall].port}"

    def central_url(self, user: str) -> str:
        assert self.central is not None
        return f"mqtt://{user}:{PASSWORD}@127.0.0.1:{self.central.port}"

    def central_tls_url(self, user: str) -> str:
        return f"mqtts://{user}:{PASSWORD}@localhost:{self.client_port}"

    def close(self) -> None:
        for proxy in self.proxies.values():
            proxy.close()
        for broker in [*self.halls.values(), self.central]:
            if broker is not None:
                broker.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> BridgedEvent:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
