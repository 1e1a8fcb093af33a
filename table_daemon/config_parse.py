"""Parsing a table config's TOML text into its dataclasses: keys and types strictly checked.

Unknown keys and wrong types are errors naming the key, file and line; the values are then checked by
table_daemon/config_validate.py. Also reading a config file (not readable, not UTF-8: a :class:`ConfigError`).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from .config_report import ConfigError, error_reporter, toml_error
from .config_sections import TableConfig
from .config_validate import validate_config
from .text_files import NotUtf8Error, utf8_text


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
        if not math.isfinite(value):  # TOML writes nan and inf; no setting of a table means either
            err(path, f"must be a finite number, got {value!r}")
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


def parse_config(text: str, source: str = "<string>") -> TableConfig:
    """Parse and check a config text; raises :class:`ConfigError` naming file, line and key."""
    err = error_reporter(text, source)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(toml_error(text, source, exc)) from None
    cfg: TableConfig = _build(TableConfig, data, (), err)
    cfg.source = source
    validate_config(cfg, err)
    return cfg


def read_config_text(path: str | Path) -> str:
    """A config file's text (a byte-order mark dropped); a file that cannot be read or is not UTF-8 is a
    :class:`ConfigError`."""
    p = Path(path)
    try:
        return utf8_text(p)
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except NotUtf8Error as exc:
        raise ConfigError(f"{p}: {exc}") from None


def load_config(path: str | Path) -> TableConfig:
    """Read and check a config file."""
    return parse_config(read_config_text(path), str(path))
