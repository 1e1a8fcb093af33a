"""What ``check-config`` and ``run`` check beyond the file itself: that the files and devices a config names
are there (issue 14 item 6).

:func:`table_daemon.config.parse_config` checks keys, types and values; this checks the machine: a journal
directory that exists or can be made, a rule profile (a shipped name or a readable profile file), a deal file,
deck, calibration, key and certificate files that can be read, a dealer port that exists. Each problem is one :class:`~table_daemon.config.ConfigError` naming the key,
the file and the line, so ``check-config`` on the Pi finds it before the event, and ``run`` says it instead of
crashing at the first deal.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from .config import TableConfig, error_reporter, parse_config, read_config_text

#: (section, key) of files a config may name; "" means not used
FILES = (("table", "referee_key_file"), ("mqtt", "password_file"), ("mqtt", "ca_file"), ("mqtt", "cert_file"),
         ("mqtt", "key_file"), ("dealer", "deal_file"), ("camera", "deck"), ("camera", "calibration"))


def load_checked(path: str | Path) -> TableConfig:
    """Read, parse and check a config file and what it names; raises :class:`ConfigError`."""
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
    return cfg


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
    _check_profile(cfg, err)
    if cfg.dealer.deal_file and Path(cfg.dealer.deal_file).is_file():
        _check_deal_file(cfg, err)
    _check_journal(cfg, err)
    _check_reader(cfg, err)
    port = cfg.dealer.port
    if not port.startswith("sim:"):
        if "://" in port or not port.startswith("/"):
            err(("dealer", "port"), f"must be a device path (/dev/ttyACM0) or sim://..., got {port!r}")
        if not os.path.exists(port):
            err(("dealer", "port"), f"no such device: {port} (is the dealer plugged in?)")
    src = cfg.camera.source
    if src.startswith("/dev/") and not os.path.exists(src):
        err(("camera", "source"), f"no such device: {src} (is the camera plugged in?)")
    if src.startswith("replay://") and not Path(src.removeprefix("replay://")).exists():
        err(("camera", "source"), f"no such replay folder or file: {src.removeprefix('replay://')}")


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
    if p.exists():
        if not os.access(p, os.R_OK | os.W_OK):
            err(("journal", "path"), f"cannot read and write {path}")
        return
    folder = p.parent
    while not folder.exists():  # the first folder that exists must let us make the rest
        folder = folder.parent
    if not folder.is_dir():
        err(("journal", "path"), f"{folder} is not a directory: the journal {path} cannot be made")
    if not os.access(folder, os.W_OK | os.X_OK):
        err(("journal", "path"), f"cannot make the journal {path}: {folder} is not writable")
