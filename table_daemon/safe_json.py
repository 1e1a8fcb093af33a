"""JSON from outside (MQTT commands, ``rules batch`` lines, deal records, deal files) read within limits.

Python's ``json`` recurses once per nesting level (a few thousand ``[`` end in ``RecursionError``), turns a
5,000-digit number into a ``ValueError`` deep in ``int()`` and reads ``1e999`` as infinity. Every reader of
outside JSON goes through :func:`loads`, which refuses such input up front with one :class:`JsonLimitError`
(a ``ValueError``) that says what was too big, so the caller answers that input with an error and goes on.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 64
MAX_NUMBER_CHARS = 40
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class JsonLimitError(ValueError):
    """Input refused before or while parsing: too large, too deep, a number out of range, not JSON."""


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonLimitError(f"number with {len(text)} digits refused (at most {MAX_NUMBER_CHARS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text) if len(text) <= MAX_NUMBER_CHARS else math.inf
    if not math.isfinite(value):
        raise JsonLimitError(f"number {text[:20]}{'...' if len(text) > 20 else ''} is out of range")
    return value


def _constant(name: str) -> Any:
    raise JsonLimitError(f"{name} is not a JSON number")


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped), without recursing."""
    level = deepest = 0
    for m in _TOKENS.finditer(text):
        ch = m.group()
        if ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def loads(data: str | bytes, *, max_bytes: int = 1 << 20, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``data`` as JSON within the limits; raises :class:`JsonLimitError` (bytes must be UTF-8)."""
    size = len(data)
    if size > max_bytes:
        raise JsonLimitError(f"input of {size} bytes refused (at most {max_bytes})")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonLimitError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    deepest = depth(data)
    if deepest > max_depth:
        raise JsonLimitError(f"JSON nested {deepest} deep refused (at most {max_depth})")
    try:
        return json.loads(data, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except JsonLimitError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonLimitError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (RecursionError, ValueError) as exc:
        raise JsonLimitError(f"not valid JSON: {exc}") from None
