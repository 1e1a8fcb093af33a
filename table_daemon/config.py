"""The table's TOML config: every device real or simulated, strictly checked.

One file describes one table: its id and event, the rule profile, the MQTT broker (URL with TLS and
credentials), the journal, the dealer link, the camera, the seat panels' pin map and the timers. Any device
may be simulated (``port = "sim://"``, ``source = "sim://"``, ``pin_factory = "mock"``). Unknown keys and
wrong types are rejected with an error that names the key, the file and the line (:class:`ConfigError`), so
a typo on a Pi is found by ``guandan-table check-config`` before the event, not at the first deal.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints
from urllib.parse import urlparse

from guandan import SEATS
from vision.readers import READERS, RUNTIMES


class ConfigError(ValueError):
    """A bad config file: the message names the file, line and key."""


@dataclass
class TableSection:
    id: str = "T01"
    event: str = "demo"
    profile: str = "national"
    #: start the next deal on its own when one ends (a real table waits for ``start_deal`` or a button).
    auto_deal: bool = False
    #: the ``role`` a referee command must carry for this table to obey it (the broker's ACL is the gate).
    referee_role: str = "referee"
    #: a file holding the referees' signing key: referee commands must then carry their signature
    #: (table_daemon/controller/auth.py); empty: the role and the broker's ACL are the only checks
    referee_key_file: str = ""
    #: seats played by software (bots, screens): they take 001's automatic action on a time-out.
    software_seats: list[str] = field(default_factory=list)


@dataclass
class MqttSection:
    url: str = "mqtt://127.0.0.1:1883"
    prefix: str = "guandan/v1"
    username: str = ""
    password: str = ""
    password_file: str = ""
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    insecure: bool = False
    keepalive: int = 10
    client_id: str = ""
    protocol: int = 5


#: the gpiozero pin factories the panels can be built on (hardware.panels.make_pin_factory); pigpio is not one: it
#: does not run on a Raspberry Pi 5
PIN_FACTORIES = ("", "mock", "lgpio", "rpigpio", "native")


@dataclass
class JournalSection:
    path: str = "journal.sqlite"


@dataclass
class DealerSection:
    port: str = "sim://?speed=0"
    baud: int = 115200
    deal_file: str = ""


@dataclass
class CameraSection:
    source: str = "sim://"
    fps: float = 15.0
    deck: str = ""
    #: the card reader: "net" (the learned one), "glyphs" (the glyph rules), "": the one ``deck`` was enrolled
    #: for, else the learned one
    reader: str = ""
    #: what runs the learned reader's network: "opencv" (cv2.dnn, always installed) or "onnxruntime" (the
    #: ``onnxruntime`` extra: faster, and more memory)
    runtime: str = "opencv"
    width: int = 1280
    height: int = 720
    #: frames a laid-out set must stay unchanged before it counts as played
    stable_frames: int = 2
    #: frames an unsure set (low confidence, a card not read) waits for a sure reading before the referee is called
    unsure_wait_frames: int = 8
    #: a card read less sure than this is unsure: chosen among the reader's candidates by what the seat holds,
    #: or laid again, never a foul (0: the reader's own threshold, chosen on held-out real photos: 0.998 for the
    #: learned reader, 0.6 for the glyph rules)
    min_confidence: float = 0.0
    #: a saved calibration (``vision calibrate`` JSON); empty: calibrate from the table markers when they show
    calibration: str = ""
    #: markers further than this (pixels) from where the calibration expects them: the camera or table moved
    move_px: float = 6.0
    #: Pi camera (``picamera://``) settings, applied as picamera2 controls (hardware/cameras/picamera.py):
    #: which camera (``rpicam-hello --list-cameras``; a Pi 5 has CAM0 = 0 and CAM1 = 1)
    camera_num: int = 0
    #: manual focus in dioptres (1 / distance in metres; Camera Module 3); negative: the camera's own focus
    lens_position: float = -1.0
    #: fixed exposure time in microseconds (0: automatic) and analogue gain (0: automatic)
    exposure_us: int = 0
    analogue_gain: float = 0.0
    #: fixed white balance as [red, blue] gains (empty: automatic); ``vision calibrate`` prints the current ones
    colour_gains: list[float] = field(default_factory=list)
    #: mains frequency of the hall lighting (50 in China, 60, 0: none): exposure kept to its flicker period
    flicker_hz: int = 50


@dataclass
class SeatPins:
    pass_button: int = 0
    confirm_button: int = 0
    referee_button: int = 0
    turn_light: int = 0
    report_light: int = 0


@dataclass
class PanelsSection:
    #: "lgpio" (Raspberry Pi 5), "rpigpio", "native", "mock" (simulation, tests), "" (gpiozero's default)
    pin_factory: str = "mock"
    debounce_ms: int = 40
    status_light: int = 0
    buzzer: int = 0
    seats: dict[str, SeatPins] = field(default_factory=dict)
    #: reserved header pins (I²C, SPI, UART, HAT EEPROM) this table uses anyway, e.g. ``[7, 8]`` with no SPI device
    allow_pins: list[int] = field(default_factory=list)


@dataclass
class TimingSection:
    """Turn limits for profiles whose limits the event sets (national); 0: no limit."""

    play_seconds: float = 0.0
    first_lead_seconds: float = 0.0
    return_seconds: float = 0.0
    declare_seconds: float = 10.0
    tick_seconds: float = 0.5


@dataclass
class HealthSection:
    interval_seconds: float = 10.0
    watchdog: bool = True
    #: alert limits: CPU temperature (the Pi 5 throttles at 85 °C) and free space where the journal lives
    max_cpu_temp_c: float = 80.0
    min_free_mb: float = 500.0


@dataclass
class TableConfig:
    table: TableSection = field(default_factory=TableSection)
    mqtt: MqttSection = field(default_factory=MqttSection)
    journal: JournalSection = field(default_factory=JournalSection)
    dealer: DealerSection = field(default_factory=DealerSection)
    camera: CameraSection = field(default_factory=CameraSection)
    panels: PanelsSection = field(default_factory=PanelsSection)
    timing: TimingSection = field(default_factory=TimingSection)
    health: HealthSection = field(default_factory=HealthSection)
    source: str = "<defaults>"

    @property
    def root(self) -> str:
        """The topic root ``{prefix}/{event}/{table}/``."""
        return f"{self.mqtt.prefix.rstrip('/')}/{self.table.event}/{self.table.id}/"

    def referee_key(self) -> bytes | None:
        """The referees' signing key (the first line of ``table.referee_key_file``), or None."""
        if not self.table.referee_key_file:
            return None
        return Path(self.table.referee_key_file).read_text("utf-8").strip().encode("utf-8") or None

    def mqtt_password(self) -> str:
        if self.mqtt.password_file:
            return Path(self.mqtt.password_file).read_text().strip()
        return self.mqtt.password


#: The simulated table's pin map (MockFactory pins: every lamp fitted; a real table's map is
#: config/table.example.toml, which keeps the I²C, SPI and UART pins free).
DEFAULT_PINS: dict[str, SeatPins] = {
    "S": SeatPins(5, 6, 13, 19, 26),
    "E": SeatPins(12, 16, 20, 21, 25),
    "N": SeatPins(17, 27, 22, 23, 24),
    "W": SeatPins(4, 14, 15, 18, 7),
}

#: Header pins (BCM) with a bus function: a button or lamp there blocks the bus, and I²C's pull-ups on
#: GPIO 2 and 3 switch a buzzer or lamp on at boot, before the daemon runs.
RESERVED_PINS: dict[int, str] = {
    0: "HAT EEPROM ID_SD", 1: "HAT EEPROM ID_SC", 2: "I²C SDA", 3: "I²C SCL",
    7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK",
    14: "UART TXD", 15: "UART RXD",
}

_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
#: what an event or table id may be: it is a level of every MQTT topic (no "/", "+" or "#") and a file name
ID_RULE = "1 to 40 letters, digits, _ . -"


def prefix_error(prefix: str) -> str | None:
    """Why ``prefix`` cannot begin every topic of an event (``guandan/v1``), or None."""
    if (not prefix.strip("/") or any(ch in prefix for ch in "+#\0") or prefix.startswith("$")
            or "//" in prefix.strip("/")):
        return f"bad topic prefix {prefix!r} (topic levels without +, #, $ or empty levels)"
    return None


_LABEL_RE = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")


def host_error(host: str) -> str | None:
    """Why ``host`` cannot be a broker's host (a host name or an IP address), or None.

    ``urlparse`` takes anything between ``//`` and the port as the host: ``mqtt://broker hall`` would only fail
    at the first connect, as an unknown host, retried all evening. A name is dot-separated labels of letters,
    digits, ``-`` (not at either end) and ``_`` (container names), at most 253 characters; a non-ASCII name
    counts as its IDNA (punycode) form, as the resolver would look it up.
    """
    import ipaddress

    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    try:
        name = host.encode("idna").decode("ascii")
    except UnicodeError:
        name = host
    labels = name.removesuffix(".").split(".")
    if len(name) > 253 or not all(_LABEL_RE.fullmatch(label) for label in labels) or name.replace(".", "").isdigit():
        return f"主机名无效 | {host!r} is not a host name or IP address (letters, digits, - and . only, no spaces)"
    return None


def id_error(what: str, value: str) -> str | None:
    """Why ``value`` cannot be an event or table id (``what`` names which, e.g. "table id"), or None."""
    return None if _ID_RE.fullmatch(value) else f"bad {what} {value!r} ({ID_RULE})"


class _Locator:
    """Finds the line of ``a.b.key`` in a TOML text, for error messages (headers and ``key =`` lines)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def line_of(self, path: tuple[str, ...]) -> int:
        """The line of ``path``: its header or ``key =`` line; for an item inside a value (``colour_gains.1``
        of ``colour_gains = [1.9, "x"]``, a key of an inline table) the line of the key holding it; 0: not found."""
        header: tuple[str, ...] = ()
        best = 0
        within = 0
        for number, raw in enumerate(self.lines, 1):
            line = raw.split("#", 1)[0].strip()
            m = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?$", line)
            if m:
                header = tuple(p.strip().strip('"') for p in m.group(1).split("."))
                if header == path:
                    return number
                if header == path[: len(header)] and not best and len(header) == len(path) - 1:
                    best = 0
                continue
            k = re.match(r'^(?:"([^"]+)"|([A-Za-z0-9_.-]+))\s*=', line)
            if k:
                key = k.group(1) if k.group(1) is not None else k.group(2)
                full = header + (tuple(p.strip('"') for p in key.split(".")) if k.group(2) else (key,))
                if full == path or full[: len(path)] == path:
                    return number
                if not within and len(full) < len(path) and path[: len(full)] == full:
                    within = number  # the key whose value holds the path, unless the path has a line of its own
        return best or within


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


def _convert(value: Any, tp: Any, path: tuple[str, ...], err: Any) -> Any:
    origin = get_origin(tp)
    if is_dataclass(tp):
        if not isinstance(value, dict):
            err(path, f"must be a table, got {type(value).__name__}")
        return _build(tp, value, path, err)
    if origin is dict:
        _, vtp = get_args(tp)
        if not isinstance(value, dict):
            err(path, "must be a table")
        return {k: _convert(v, vtp, (*path, k), err) for k, v in value.items()}
    if origin is list:
        (itp,) = get_args(tp)
        if not isinstance(value, list):
            err(path, "must be a list")
        return [_convert(v, itp, (*path, str(i)), err) for i, v in enumerate(value)]
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            err(path, f"must be a number, got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            err(path, f"must be an integer, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            err(path, f"must be true or false, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            err(path, f"must be a string, got {value!r}")
        return value
    err(path, f"unsupported type {_type_name(tp)}")
    return None


def _build(cls: Any, data: dict[str, Any], path: tuple[str, ...], err: Any) -> Any:
    hints = get_type_hints(cls)
    names = {f.name for f in fields(cls) if not (cls is TableConfig and f.name == "source")}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in names:
            allowed = ", ".join(sorted(names))
            err((*path, key), f"unknown key (allowed here: {allowed})")
        kwargs[key] = _convert(value, hints[key], (*path, key), err)
    return cls(**kwargs)


def _validate(cfg: TableConfig, err: Any) -> None:
    for key, what in (("id", "table id"), ("event", "event id")):
        error = id_error(what, getattr(cfg.table, key))
        if error is not None:
            err(("table", key), error)
    for i, seat in enumerate(cfg.table.software_seats):
        if seat not in SEATS:
            err(("table", "software_seats", str(i)), f"unknown seat {seat!r} (S, E, N or W)")
    url = urlparse(cfg.mqtt.url)
    if url.scheme not in ("mqtt", "mqtts", "tcp", "ssl", "ws", "wss") or not url.hostname:
        err(("mqtt", "url"), f"bad broker URL {cfg.mqtt.url!r} (mqtt://HOST:PORT or mqtts://HOST:PORT)")
    bad_host = host_error(url.hostname or "")
    if bad_host is not None:
        err(("mqtt", "url"), f"bad broker URL {cfg.mqtt.url!r}: {bad_host}")
    if cfg.mqtt.protocol not in (4, 5):
        err(("mqtt", "protocol"), "must be 4 (MQTT 3.1.1) or 5")
    if not 2 <= cfg.mqtt.keepalive <= 120:
        err(("mqtt", "keepalive"), "must be between 2 and 120 seconds")
    for seat in cfg.panels.seats:
        if seat not in SEATS:
            err(("panels", "seats", seat), f"unknown seat {seat!r} (S, E, N or W)")
    if cfg.panels.pin_factory not in PIN_FACTORIES:
        err(("panels", "pin_factory"), f"unknown pin factory {cfg.panels.pin_factory!r} (one of "
                                       f"{', '.join(repr(f) for f in PIN_FACTORIES)})")
    used: dict[int, str] = {}
    pins: list[tuple[str, ...]] = [("panels", "status_light"), ("panels", "buzzer")]
    values = [cfg.panels.status_light, cfg.panels.buzzer]
    for seat, sp in cfg.panels.seats.items():
        for f in fields(SeatPins):
            pins.append(("panels", "seats", seat, f.name))
            values.append(getattr(sp, f.name))
    for p, v in zip(pins, values, strict=True):
        if v == 0:
            continue
        if not 1 <= v <= 27:
            err(p, f"GPIO {v} is not a header GPIO (1..27)")
        if v in used:
            err(p, f"GPIO {v} is already used by {used[v]}")
        if v in RESERVED_PINS and v not in cfg.panels.allow_pins:
            err(p, f"GPIO {v} 是保留引脚 / is reserved for {RESERVED_PINS[v]}: keep I²C, SPI and UART free, "
                   f"or allow it explicitly with panels.allow_pins = [{v}]")
        used[v] = ".".join(p)
    _validate_camera(cfg, err)
    if cfg.camera.fps <= 0:
        err(("camera", "fps"), "must be positive")
    if not 0 <= cfg.camera.unsure_wait_frames <= 100:
        err(("camera", "unsure_wait_frames"), "must be between 0 and 100")
    if cfg.camera.move_px <= 0:
        err(("camera", "move_px"), "must be positive")
    src = cfg.camera.source
    if not (src.startswith(("sim://", "picamera://", "usb://", "replay://", "/dev/")) or src.isdigit()):
        err(("camera", "source"), f"unknown camera {src!r} (picamera://, usb://0, /dev/video0, replay:///path, sim://)")
    if src.startswith("sim://"):
        from hardware.cameras.simulated import deck_in_url

        try:
            deck_in_url(src)
        except ValueError as exc:
            err(("camera", "source"), str(exc))
    if cfg.camera.reader not in ("", *READERS):
        err(("camera", "reader"), f"unknown card reader {cfg.camera.reader!r} (net, glyphs, or empty: the one the "
                                  "deck was enrolled for)")
    if cfg.camera.runtime not in RUNTIMES:
        err(("camera", "runtime"), f"unknown network runtime {cfg.camera.runtime!r} ({' or '.join(RUNTIMES)})")


def _validate_camera(cfg: TableConfig, err: Any) -> None:
    """The Pi camera's controls: values picamera2 accepts, and an exposure that does not band under the lights."""
    cam = cfg.camera
    if not 0 <= cam.camera_num <= 7:
        err(("camera", "camera_num"), "must be between 0 and 7 (a Pi 5: 0 = CAM0, 1 = CAM1)")
    if cam.lens_position > 32:
        err(("camera", "lens_position"), "is in dioptres (1 / metres): 0 is infinity, 32 the closest; negative: auto")
    if cam.flicker_hz not in (0, 50, 60):
        err(("camera", "flicker_hz"), "must be 50 (China), 60 or 0")
    if cam.exposure_us < 0:
        err(("camera", "exposure_us"), "must be 0 (automatic) or a time in microseconds")
    if cam.exposure_us and cam.exposure_us > 1_000_000 / cam.fps:
        err(("camera", "exposure_us"), f"{cam.exposure_us} µs is longer than a frame at camera.fps = {cam.fps:g}")
    if cam.exposure_us and cam.flicker_hz:
        period = 1_000_000 / (2 * cam.flicker_hz)
        periods = cam.exposure_us / period
        if round(periods) < 1 or abs(periods - round(periods)) * period > 50:
            err(("camera", "exposure_us"), f"灯光频闪 / under {cam.flicker_hz} Hz lighting the exposure must be a "
                                           f"multiple of {period:.0f} µs (e.g. {round(period) * 2}), got {cam.exposure_us}")
    if cam.analogue_gain and not 1.0 <= cam.analogue_gain <= 16.0:
        err(("camera", "analogue_gain"), "must be 0 (automatic) or between 1 and 16")
    if cam.colour_gains and (len(cam.colour_gains) != 2 or not all(0 < g <= 32 for g in cam.colour_gains)):
        err(("camera", "colour_gains"), "must be [red, blue], each between 0 and 32 (empty: automatic white balance)")


def _validate_values(cfg: TableConfig, err: Any) -> None:
    """Values the types allow but ``run`` cannot use: ports, topic prefix, times, sizes, rates (issue 14)."""
    url = urlparse(cfg.mqtt.url)
    try:
        port = url.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        err(("mqtt", "url"), f"the port of {cfg.mqtt.url!r} must be a number from 1 to 65535")
    error = prefix_error(cfg.mqtt.prefix)
    if error is not None:
        err(("mqtt", "prefix"), error)
    if not cfg.journal.path.strip():
        err(("journal", "path"), "must name the journal file (or :memory:)")
    if not 0 < cfg.dealer.baud <= 4_000_000:
        err(("dealer", "baud"), f"must be a baud rate above 0, got {cfg.dealer.baud}")
    if cfg.dealer.port.startswith("sim:"):  # the simulated dealer's options, as the dealer itself reads them
        from hardware.sim_dealer.config import SimConfigError, parse_sim_url

        try:
            parse_sim_url(cfg.dealer.port)
        except SimConfigError as exc:
            err(("dealer", "port"), str(exc))
    if not 0 <= cfg.camera.min_confidence <= 1:
        err(("camera", "min_confidence"), f"must be between 0 and 1, got {cfg.camera.min_confidence}")
    for key in ("width", "height", "stable_frames"):
        if getattr(cfg.camera, key) < 1:
            err(("camera", key), f"must be at least 1, got {getattr(cfg.camera, key)}")
    if cfg.panels.debounce_ms < 0:
        err(("panels", "debounce_ms"), "must not be negative")
    t = cfg.timing
    if not 0 < t.tick_seconds <= 60:
        err(("timing", "tick_seconds"), f"must be above 0 and at most 60 seconds, got {t.tick_seconds}")
    for key in ("play_seconds", "first_lead_seconds", "return_seconds", "declare_seconds"):
        if getattr(t, key) < 0:
            err(("timing", key), f"must not be negative (0: no limit), got {getattr(t, key)}")
    if cfg.health.interval_seconds <= 0:
        err(("health", "interval_seconds"), f"must be above 0, got {cfg.health.interval_seconds}")


def message_reporter(text: str, source: str) -> Callable[[tuple[str, ...], str], str]:
    """``say(path, message)`` -> ``source:line: key: message``: how every error and warning about a config
    names its file, line and key (one line)."""
    locator = _Locator(text)

    def say(path: tuple[str, ...], message: str) -> str:
        line = locator.line_of(path)
        where = f"{source}:{line}" if line else source
        return f"{where}: {'.'.join(path)}: {message}"

    return say


def error_reporter(text: str, source: str) -> Any:
    """``err(path, message)`` raising :class:`ConfigError` with ``source:line: key: message``."""
    say = message_reporter(text, source)

    def err(path: tuple[str, ...], message: str) -> None:
        raise ConfigError(say(path, message))

    return err


#: what is said with a TOML error on a line whose key is not ASCII (帧率 = 10, [panels.seats.南])
ASCII_KEYS = "键名须为英文半角 | keys are ASCII names such as fps"
ASCII_SEATS = "座位为 S、E、N、W | seats are S, E, N, W"


def toml_error(text: str, source: str, exc: tomllib.TOMLDecodeError) -> str:
    """The one line that says why ``text`` is not TOML: file and line, tomllib's reason, the line itself (trimmed,
    so the key is named) and, when the key there is not ASCII (a Chinese key, a full-width ``＝``), that keys
    are ASCII: a Chinese key is the likely slip of a Chinese-speaking organiser, and tomllib says only
    ``Invalid statement``."""
    found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
    lines = text.splitlines()
    if found is None or not 0 < int(found.group(1)) <= len(lines):
        return f"{source}: not valid TOML: {exc}"
    number = int(found.group(1))
    raw = lines[number - 1].strip()
    shown = raw if len(raw) <= 60 else raw[:57] + "..."
    message = f"{source}:{number}: not valid TOML: {exc}: 「{shown}」"
    key = raw if raw.startswith("[") else raw.split("=", 1)[0]
    if not key.split("#", 1)[0].isascii():
        message += f"; {ASCII_KEYS}"
        if raw.startswith("[") and "seats" in key:
            message += f"; {ASCII_SEATS}"
    return message


def parse_config(text: str, source: str = "<string>") -> TableConfig:
    """Parse and check a config text; raises :class:`ConfigError` naming file, line and key."""
    err = error_reporter(text, source)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(toml_error(text, source, exc)) from None
    cfg: TableConfig = _build(TableConfig, data, (), err)
    cfg.source = source
    _validate(cfg, err)
    _validate_values(cfg, err)
    return cfg


def read_config_text(path: str | Path) -> str:
    """A config file's text; a file that cannot be read or is not UTF-8 is a :class:`ConfigError`."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text") from None


def load_config(path: str | Path) -> TableConfig:
    """Read and check a config file."""
    return parse_config(read_config_text(path), str(path))


def simulated_config(table: str = "T01", event: str = "demo", profile: str = "national",
                     broker: str = "mqtt://127.0.0.1:1883", journal: str = ":memory:") -> TableConfig:
    """A config with every device simulated (``simulate`` and the tests)."""
    cfg = TableConfig()
    cfg.table = TableSection(id=table, event=event, profile=profile, auto_deal=True,
                             software_seats=list(SEATS))
    cfg.mqtt = MqttSection(url=broker)
    cfg.journal = JournalSection(path=journal)
    cfg.panels = PanelsSection(pin_factory="mock", seats=dict(DEFAULT_PINS), status_light=2, buzzer=3)
    cfg.source = "<simulated>"
    return cfg
