"""What ``check-config`` and ``run`` check beyond the file itself: that the files and devices a config names
are there (issue 14 item 6).

:func:`table_daemon.config.parse_config` checks keys, types and values; this checks the machine: a journal
directory that exists or can be made, a rule profile (a shipped name or a readable profile file), a deal file,
deck, calibration, key and certificate files that can be read, the TLS files loaded as the MQTT connection loads
them, a dealer port that is a device path. Each problem is one :class:`~table_daemon.config.ConfigError` naming the key,
the file and the line, so ``check-config`` on the Pi finds it before the event, and ``run`` says it instead of
crashing at the first deal.

A camera or pin driver that is absent on this machine is a warning, not an error (:func:`device_warnings`): the
table is meant to start without it and report it missing (health, an alert) until it is plugged in, so refusing
to run would take the rest of the table down with it; but the organiser checking the Pi hears of it now.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from guandan import SEATS

from .config import TableConfig, error_reporter, message_reporter, parse_config, read_config_text

#: (section, key) of files a config may name; "" means not used
FILES = (("table", "referee_key_file"), ("mqtt", "password_file"), ("mqtt", "ca_file"), ("mqtt", "cert_file"),
         ("mqtt", "key_file"), ("dealer", "deal_file"), ("camera", "deck"), ("camera", "calibration"))


#: the pin driver module each gpiozero pin factory imports, and its Raspberry Pi OS package (``native``: none)
PIN_DRIVERS = {"lgpio": ("lgpio", "python3-lgpio"), "rpigpio": ("RPi.GPIO", "python3-rpi.gpio")}
#: where the video devices of ``usb://N`` cameras are (``/dev/videoN``; a variable for the tests)
DEV = Path("/dev")


def load_checked(path: str | Path, warnings: list[str] | None = None) -> TableConfig:
    """Read, parse and check a config file and what it names; raises :class:`ConfigError`.

    Devices named but absent on this machine (:func:`device_warnings`) do not stop it: each is printed on stderr
    as one line ``guandan-table: warning: FILE:LINE: key: ...`` (for ``check-config`` and ``run`` alike) and
    added to ``warnings`` when one is given (``check-config``'s JSON lists them)."""
    text = read_config_text(path)
    cfg = parse_config(text, str(path))
    err = error_reporter(text, str(path))
    check_resources(cfg, err)
    given = tomllib.loads(text).get("table")
    for key, what in (("id", "table id (桌号)"), ("event", "event id (赛事)")):
        if not isinstance(given, dict) or key not in given:
            # the defaults are the demo's: a real table left without them would join event "demo" as T01, and
            # a second one would take the first one's place at the broker (the same client id)
            err(("table", key), f"missing: a real table names its {what} in [table]")
    found = device_warnings(cfg, message_reporter(text, str(path)))
    for warning in found:
        print(f"guandan-table: warning: {warning}", file=sys.stderr)
    if warnings is not None:
        warnings.extend(found)
    return cfg


def device_warnings(cfg: TableConfig, say: Callable[[tuple[str, ...], str], str]) -> list[str]:
    """The devices ``cfg`` names that this machine lacks, one line each (``say(path, message)`` names file, line
    and key): a ``usb://N`` or ``/dev/videoN`` camera without its device, a ``picamera://`` camera without a
    picamera2 that imports, a pin factory without its driver module, a dealer port that is not there. The table
    runs without them and reports them missing."""
    found: list[str] = []
    port = cfg.dealer.port
    if port.startswith("/") and not os.path.exists(port):
        found.append(say(("dealer", "port"), f"发牌机不存在 | no such device: {port} (is the dealer plugged in? "
                                             "`ls /dev/ttyACM*`): the table starts and reports the dealer missing "
                                             "until it is plugged in"))
    src = cfg.camera.source
    device = _video_device(src)
    if device is not None and sys.platform.startswith("linux") and not device.exists():
        found.append(say(("camera", "source"), f"摄像头不存在 | no camera {device} on this machine ({src}): the "
                                               "table starts and reports the camera missing until it is plugged in"))
    if src.startswith("picamera://"):
        # the import the camera itself makes, with its reasons (not installed, built for another numpy)
        from hardware.cameras.base import CameraError
        from hardware.cameras.picamera import _import_picamera2

        try:
            _import_picamera2()
        except CameraError as exc:
            found.append(say(("camera", "source"), f"Pi 摄像头不可用 | the Pi camera cannot be used here: {exc}; "
                                                   "the table starts and reports the camera missing"))
    bare = [seat for seat in SEATS if seat not in cfg.table.software_seats and not (
        (pins := cfg.panels.seats.get(seat)) and pins.pass_button and pins.confirm_button)]
    if cfg.panels.pin_factory != "mock" and bare:
        seats = ", ".join(bare)
        found.append(say(("panels", "pin_factory"), f"座位 {seats} 没有过牌/确认按钮 | seat {seats}: no pass or "
                                                    "confirm button in [panels.seats.*] (nor in table.software_seats): "
                                                    "a player there could neither pass nor report; the table reports "
                                                    "its panels missing"))
    if cfg.panels.pin_factory in PIN_DRIVERS:
        driver, package = PIN_DRIVERS[cfg.panels.pin_factory]
        try:
            importlib.import_module(driver)
        except Exception as exc:  # ImportError, or a driver that fails as it loads (no GPIO chip library)
            found.append(say(("panels", "pin_factory"),
                             f"引脚驱动 {driver} 无法导入 | the pin driver {driver} of pin factory "
                             f"{cfg.panels.pin_factory!r} cannot be imported ({type(exc).__name__}: {exc}): the "
                             "table starts and reports its seat panels missing (Raspberry Pi OS: sudo apt install "
                             f"{package}, and a venv made with --system-site-packages)"))
    return found


def _video_device(source: str) -> Path | None:
    """The ``/dev/videoN`` (or ``/dev/...``) an OpenCV camera source opens: ``usb://N``, ``usb:///dev/...`` or a
    bare ``N`` or a bare ``/dev/...`` (hardware.cameras.open_camera); None for other sources."""
    if source.isdigit():
        return DEV / f"video{int(source)}"
    if source.startswith("/dev/"):
        return Path(source)
    if not source.startswith("usb://"):
        return None
    parsed = urlparse(source)
    target = (parsed.netloc + parsed.path) or "0"
    if target.isdigit():
        return DEV / f"video{int(target)}"
    return Path(target) if target.startswith("/") else None


def check_resources(cfg: TableConfig, err: Any) -> None:
    """The files and devices ``cfg`` names exist and can be used (``err(path, message)`` raises)."""
    for section, key in FILES:
        value = getattr(getattr(cfg, section), key)
        if not value:
            continue
        f = Path(value)
        if not f.is_file():
            err((section, key), f"no such file: {value}")
        if not os.access(f, os.R_OK):
            err((section, key), f"cannot read {value}")
    _check_tls(cfg, err)
    _check_profile(cfg, err)
    if cfg.dealer.deal_file and Path(cfg.dealer.deal_file).is_file():
        _check_deal_file(cfg, err)
    _check_journal(cfg, err)
    _check_reader(cfg, err)
    if cfg.camera.calibration and Path(cfg.camera.calibration).is_file():
        _check_calibration(cfg.camera.calibration, err)
    port = cfg.dealer.port
    if not port.startswith("sim:"):
        if "://" in port or not port.startswith("/"):
            err(("dealer", "port"), f"must be a device path (/dev/ttyACM0) or sim://..., got {port!r}")
    src = cfg.camera.source
    if src.startswith("replay://") and not Path(src.removeprefix("replay://")).exists():
        err(("camera", "source"), f"no such replay folder or file: {src.removeprefix('replay://')}")


def _check_calibration(path: str, err: Any) -> None:
    """The calibration file loads as the camera will load it: one that is not JSON, or not a calibration, passed
    before, and ``run`` then stopped with a traceback."""
    from vision.calibration import CalibrationError, TableCalibration

    try:
        TableCalibration.load(Path(path))
    except CalibrationError as exc:
        err(("camera", "calibration"), f"{exc} (make one with guandan-table vision calibrate)")


def _check_tls(cfg: TableConfig, err: Any) -> None:
    """The CA file, and the client certificate and key when given, load as the MQTT connection will load them:
    a file that is there but holds no certificate (a text file, the key in place of the certificate) passed
    before, and ``run`` then crashed in paho's ``tls_set`` with a bare ``ssl.SSLError`` naming no file."""
    m = cfg.mqtt
    if not (m.ca_file or m.cert_file or m.key_file):
        return
    from .adapters.mqtt_connection import tls_files_problem

    problem = tls_files_problem(m.ca_file or None, m.cert_file or None, m.key_file or None)
    if problem is not None:
        setting, message = problem
        err(("mqtt", setting), message)


def _check_deal_file(cfg: TableConfig, err: Any) -> None:
    """Every deal of the deal file is one the dealer can deal, each board once (a file is read a board at a time
    while play goes on: a bad line found at its board would stop the event there)."""
    from firmware_bridge.deal import DealFileError, check_deal_file

    try:
        check_deal_file(cfg.dealer.deal_file)
    except DealFileError as exc:
        err(("dealer", "deal_file"), str(exc))


def _check_profile(cfg: TableConfig, err: Any) -> None:
    """The rule profile is a shipped one, or a profile file that can be read and holds only known settings."""
    from guandan import ProfileError

    from .rules_ops_deal import resolve_profile

    try:
        resolve_profile(cfg.table.profile)
    except ProfileError as exc:
        err(("table", "profile"), str(exc))


def _check_reader(cfg: TableConfig, err: Any) -> None:
    """The card reader the camera section names can be made, with its enrolled deck (a deck made for the other
    reader, or with another network, is said here, before the event)."""
    from vision.readers import ReaderError, make_card_reader

    try:
        make_card_reader(cfg.camera.reader or None, Path(cfg.camera.deck) if cfg.camera.deck else None,
                         runtime=cfg.camera.runtime)
    except ReaderError as exc:
        err(("camera", exc.setting), str(exc))


def _check_journal(cfg: TableConfig, err: Any) -> None:
    path = cfg.journal.path
    if path == ":memory:":
        return
    p = Path(path)
    if p.is_dir():
        err(("journal", "path"), f"{path} is a directory: name the journal file in it")
    if cfg.journal.mirror:
        _check_mirror(cfg.journal.mirror, err)
    if p.exists():
        if not os.access(p, os.R_OK | os.W_OK):
            err(("journal", "path"), f"cannot read and write {path}")
        problem = _journal_damage(p)
        if problem is not None and not _mirror_sound(cfg):  # a sound mirror is taken up at the start instead
            err(("journal", "path"), f"the journal {path}: {problem}")
        _check_free_space(p.parent, path, err)
        return
    folder = p.parent
    while not folder.exists():  # the first folder that exists must let us make the rest
        folder = folder.parent
    if not folder.is_dir():
        err(("journal", "path"), f"{folder} is not a directory: the journal {path} cannot be made")
    if not os.access(folder, os.W_OK | os.X_OK):
        err(("journal", "path"), f"cannot make the journal {path}: {folder} is not writable")
    _check_free_space(folder, path, err)


def _mirror_sound(cfg: TableConfig) -> bool:
    from table_daemon.adapters.journal_mirror import mirror_problem

    return bool(cfg.journal.mirror) and mirror_problem(cfg.journal.mirror) is None


def _check_mirror(mirror: str, err: Any) -> None:
    """The mirror's folder can take it (a stick not mounted is a folder that is missing or not ours)."""
    folder = Path(mirror).parent
    if not folder.is_dir():
        err(("journal", "mirror"), f"{folder} is not a directory: is the USB stick mounted?")
    if not os.access(folder, os.W_OK | os.X_OK):
        err(("journal", "mirror"), f"cannot write the mirror {mirror}: {folder} is not writable")


#: the least free space a journal's disk must have to start a table (a day's journal stays well under this)
MIN_FREE_BYTES = 4 << 20


def _check_free_space(folder: Path, path: str, err: Any) -> None:
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if free < MIN_FREE_BYTES:
        err(("journal", "path"), f"the disk holding the journal {path} is full ({free // 1024} KB free, "
                                 f"{MIN_FREE_BYTES >> 20} MB needed): free space on the SD card")


def _journal_damage(path: Path) -> str | None:
    """What is wrong with an existing journal file (SQLite's own check), or None: a file cut short by a power
    cut started the table on half its match, or crashed it with a traceback."""
    from table_daemon.adapters.journal import sqlite_check

    found = sqlite_check(path)
    return None if found is None else f"{found[0]} [{found[1]}]"
