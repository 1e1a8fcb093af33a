"""Typed errors of the rules engine, in the spirit of python-chess (invalid / illegal / ambiguous).

All are ``ValueError`` subclasses so callers that only care about "bad input" can catch one type. Each
carries a short machine ``reason`` code (used in deal records, alerts and replay answers) and a human
message.
"""

from __future__ import annotations

from typing import Any


class GuandanError(ValueError):
    """Base class: bad input to the rules engine."""

    reason: str = "error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class InvalidCardError(GuandanError):
    """A card code, seat or level that cannot be parsed, or more copies of a card than the pack holds."""

    reason = "invalid_card"


class InvalidPlayError(GuandanError):
    """The cards form no combination (not a 牌型), or a declared reading they do not admit."""

    reason = "not_a_combination"


class IllegalPlayError(GuandanError):
    """A well-formed play that is not allowed now: does not beat, cards not held, not the seat's turn, ..."""

    reason = "illegal"


class AmbiguousPlayError(GuandanError):
    """The cards admit several readings and neither the laid-out order nor the profile picks one."""

    reason = "ambiguous"

    def __init__(self, message: str, candidates: list[Any]) -> None:
        super().__init__(message)
        self.candidates = candidates
