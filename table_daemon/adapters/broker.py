"""A local MQTT broker run as a child process: the embedded broker of ``simulate`` and the tests' broker.

mqtt-api.md prefers a Mosquitto child process when the ``mosquitto`` binary exists (it times out silent
clients, so last wills fire, and keeps QoS 1 queues for persistent sessions); amqtt is only a fallback when
Mosquitto is missing and amqtt is installed. The broker binds to 127.0.0.1 on a free port, writes its config,
persistence and log into a private directory, and can be restarted on the same port with the same persistence
(tests use that to prove that a broker restart loses no result).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

MOSQUITTO_CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto", "/opt/homebrew/sbin/mosquitto")


class BrokerUnavailable(RuntimeError):
    """Neither Mosquitto nor amqtt can be started on this machine."""


def find_mosquitto() -> str | None:
    """Path of the ``mosquitto`` binary, or None."""
    found = shutil.which("mosquitto")
    if found:
        return found
    for candidate in MOSQUITTO_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def wait_listening(host: str, port: int, timeout: float = 10.0) -> None:
    """Block until something accepts TCP connections on host:port (raises BrokerUnavailable on timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.02)
    raise BrokerUnavailable(f"broker did not listen on {host}:{port} within {timeout:.0f} s")


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def ended_with_owner() -> Callable[[], None] | None:
    """What a child runs before exec so that it gets SIGTERM when its owner dies, even by SIGKILL; or None.

    Without it a broker whose owner was killed outright (SIGKILL, the OOM killer, a crash) would run on, holding
    its port, with nobody left to stop it. Linux sends the signal when the *thread* that started the child ends,
    so it is asked for only from the main thread, which lives as long as the process: a broker started from a
    worker thread would otherwise die with that thread. Elsewhere (not Linux) there is no such signal.
    """
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child between fork and exec does the least
    prctl, owner = libc.prctl, os.getpid()

    def in_child() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
        if os.getppid() != owner:  # the owner died before the request was made
            os._exit(1)

    return in_child


def same_user_lines() -> list[str]:
    """Config lines that keep a child Mosquitto under the user who started it.

    Started as root (a container, CI), Mosquitto switches to the user ``mosquitto``, who can neither write the
    persistence file into our private temp dir nor read it: every save fails ("Permission denied") and a
    restart forgets the persistent sessions, so subscribers miss what was published before they reconnected.
    """
    return ["user root"] if os.geteuid() == 0 else []


@dataclass
class LocalBroker:
    """A Mosquitto (or amqtt) child process on 127.0.0.1 with persistence in ``workdir``.

    ``start()`` picks a free port the first time; ``restart()`` stops it and starts it again on the same port
    with the same persistence file; ``stop()`` ends it. ``extra_config`` lines are appended to Mosquitto's
    config (e.g. a websockets listener or an ACL file).

    The child runs in a process group of its own: a terminal's Ctrl+C goes to the whole foreground group, and a
    broker that got it too would die before the tables and the desk publishing through it had stopped (they
    would say they lost the broker, and results would be left waiting in journals). Its owner stops it last,
    and on Linux a broker started from the main thread ends with its owner if the owner is killed outright
    (``ended_with_owner``).
    """

    workdir: Path | None = None
    port: int = 0
    host: str = "127.0.0.1"
    extra_config: list[str] = field(default_factory=list)
    kind: str = ""
    _proc: subprocess.Popen[bytes] | None = None
    _owns_workdir: bool = False

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> Self:
        if self.workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix="guandan-broker-"))
            self._owns_workdir = True
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not self.port:
            self.port = free_port(self.host)
        binary = find_mosquitto()
        if binary is not None:
            self.kind = "mosquitto"
            self._proc = self._start_mosquitto(binary)
        else:
            self.kind = "amqtt"
            self._proc = self._start_amqtt()
        try:
            wait_listening(self.host, self.port)
        except BrokerUnavailable:
            self.stop()
            log = self.workdir / "broker.log"
            detail = log.read_text(errors="replace")[-400:] if log.exists() else ""
            raise BrokerUnavailable(f"{self.kind} did not start on port {self.port}: {detail}") from None
        return self

    def _start_mosquitto(self, binary: str) -> subprocess.Popen[bytes]:
        assert self.workdir is not None
        conf = self.workdir / "mosquitto.conf"
        lines = [
            f"listener {self.port} {self.host}",
            "allow_anonymous true",
            "persistence true",
            f"persistence_location {self.workdir}/",
            "persistence_file broker.db",
            "autosave_interval 1",
            "max_queued_messages 100000",
            "max_inflight_messages 100",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            *same_user_lines(),
            *self.extra_config,
        ]
        conf.write_text("\n".join(lines) + "\n")
        log = open(self.workdir / "broker.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            return subprocess.Popen([binary, "-c", str(conf)], stdout=log, stderr=log,
                                    stdin=subprocess.DEVNULL, process_group=0, preexec_fn=ended_with_owner())
        finally:
            log.close()

    def _start_amqtt(self) -> subprocess.Popen[bytes]:
        assert self.workdir is not None
        try:
            import amqtt  # noqa: F401
        except ImportError:
            raise BrokerUnavailable(
                "no MQTT broker: install Mosquitto (apt-get install mosquitto) or give --broker mqtt://HOST:PORT"
            ) from None
        conf = self.workdir / "amqtt.yaml"
        conf.write_text(
            "listeners:\n  default:\n    type: tcp\n"
            f"    bind: {self.host}:{self.port}\n"
            "auth:\n  allow-anonymous: true\n"
        )
        log = open(self.workdir / "broker.log", "ab")  # noqa: SIM115
        try:
            return subprocess.Popen(
                [sys.executable, "-m", "amqtt.scripts.broker_script", "-c", str(conf)],
                stdout=log, stderr=log, stdin=subprocess.DEVNULL, process_group=0,
                preexec_fn=ended_with_owner(),
            )
        finally:
            log.close()

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)

    def restart(self, downtime: float = 0.0) -> None:
        """Stop the broker, optionally stay down ``downtime`` seconds, start it again on the same port."""
        self.stop()
        if downtime:
            time.sleep(downtime)
        self.start()

    def close(self) -> None:
        """Stop and remove the private directory if this object created it."""
        self.stop()
        if self._owns_workdir and self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
