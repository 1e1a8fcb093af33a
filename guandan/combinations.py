"""The play-level API of the rules engine in one import: readings, classification, comparison, legal plays.

    >>> from guandan.combinations import classify
    >>> from guandan.cards import parse_cards
    >>> [str(r) for r in classify(parse_cards("C8 H2"), 2)]
    ['pair 8 x2']
"""

from __future__ import annotations

from .classify import MAX_PLAY_SIZE, classify
from .interpret import DECLARE, STRONGEST_UNLESS_DECLARED, WILD_READINGS, candidates, interpret, order_fits
from .legal import LegalPlays, Play, legal_plays
from .readings import BOMB_TYPES, TYPES, Reading, beats

__all__ = [
    "BOMB_TYPES",
    "DECLARE",
    "MAX_PLAY_SIZE",
    "STRONGEST_UNLESS_DECLARED",
    "TYPES",
    "WILD_READINGS",
    "LegalPlays",
    "Play",
    "Reading",
    "beats",
    "candidates",
    "classify",
    "interpret",
    "legal_plays",
    "order_fits",
]
