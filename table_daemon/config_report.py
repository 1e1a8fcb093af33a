"""How a bad table config is reported: :class:`ConfigError` and messages that name the file, line and key.

Finds the line of a dotted key in the TOML text and explains TOML syntax errors (with a hint when a key is
not ASCII), so every error and warning about a config reads ``file:line: key: message``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from typing import Any


class ConfigError(ValueError):
    """A bad config file: the message names the file, line and key."""


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
