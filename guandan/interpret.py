"""Which reading a laid-out play means (rules spec §5).

Players lay a play left to right from low to high with the wild where it stands (000 出牌方式 二–三). When that
order fits exactly one reading, it decides. Otherwise the profile's ``wild_reading`` does: under
``strongest_unless_declared`` the strongest candidate counts unless the player declared another; under
``declare`` an undeclared play with several candidates is ambiguous and the table must ask. A play without a
wild never needs a declaration (the rule is about wild cards): its strongest reading counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .cards import Card, single_order
from .classify import classify
from .errors import AmbiguousPlayError, InvalidPlayError
from .readings import FULL_HOUSE, PLATE, SEQUENCE_TYPES, TUBE, Reading

STRONGEST_UNLESS_DECLARED = "strongest_unless_declared"
DECLARE = "declare"
WILD_READINGS = (STRONGEST_UNLESS_DECLARED, DECLARE)


def _is_wild(card: Card, level: int) -> bool:
    return card.suit == "H" and card.rank == level


ValueOf = Callable[[int], float]


def _missing(reading: Reading, naturals: list[float], value_of_rank: ValueOf) -> tuple[list[float], bool] | None:
    """The values the wilds must take for this reading, and whether a full house's pair is made only of wilds
    (free rank). None when the natural cards do not fit the reading."""
    kind, s = reading.type, reading.rank
    free_pair = False
    if kind in SEQUENCE_TYPES:
        width, copies = {TUBE: (3, 2), PLATE: (2, 3)}.get(kind, (5, 1))
        need = [float(s + i) for i in range(width) for _ in range(copies)]
    elif kind == FULL_HOUSE:
        triple = value_of_rank(s)
        others = [v for v in naturals if v != triple]
        free_pair = not others
        need = [triple] * 3 + ([others[0]] * 2 if others else [])
    else:
        need = [value_of_rank(s)] * reading.size
    missing = list(need)
    for v in naturals:
        if v not in missing:
            return None
        missing.remove(v)
    return sorted(missing), free_pair


def order_fits(cards: Sequence[Card], reading: Reading, level: int) -> bool:
    """Whether the laid-out order is low to high for this reading, with each wild standing where it lies."""
    if reading.type in SEQUENCE_TYPES:
        low_ace = reading.rank == 1

        def natural_value(rank: int) -> float:
            return 1.0 if (low_ace and rank == 14) else float(rank)

        return _fits(cards, reading, level, natural_value)
    if _fits(cards, reading, level, float):
        return True
    return _fits(cards, reading, level, lambda rank: float(single_order(rank, level)))


def _fits(cards: Sequence[Card], reading: Reading, level: int, value_of_rank: ValueOf) -> bool:
    values: list[float | None] = [None if _is_wild(c, level) else value_of_rank(c.rank) for c in cards]
    naturals = [v for v in values if v is not None]
    found = _missing(reading, naturals, value_of_rank)
    if found is None:
        return False
    missing, free_pair = found
    if not free_pair:
        return _ascending(values, missing)
    triple = value_of_rank(reading.rank)
    # A pair made only of wilds may be of any rank but the triple's: try it below and above the triple.
    return any(_ascending(values, sorted(missing + [pair, pair])) for pair in (triple - 0.5, triple + 0.5))


def _ascending(values: list[float | None], wild_values: list[float]) -> bool:
    if len(wild_values) != values.count(None):
        return False
    it = iter(wild_values)
    filled = [v if v is not None else next(it) for v in values]
    return all(a <= b for a, b in zip(filled, filled[1:], strict=False))


def candidates(cards: Sequence[Card], level: int) -> list[Reading]:
    """The readings still in question once the laid-out order has been taken into account (strongest first)."""
    readings = classify(cards, level)
    if len(readings) <= 1:
        return readings
    fitting = [r for r in readings if order_fits(cards, r, level)]
    return fitting or readings


def interpret(
    cards: Sequence[Card],
    level: int,
    *,
    wild_reading: str = STRONGEST_UNLESS_DECLARED,
    declared: Reading | None = None,
) -> Reading:
    """The reading this laid-out play counts as.

    Raises :class:`InvalidPlayError` when the cards form no combination or the declared reading is not one
    they admit, and :class:`AmbiguousPlayError` (with the candidates) when a declaration is needed.
    """
    if wild_reading not in WILD_READINGS:
        raise ValueError(f"unknown wild_reading {wild_reading!r}")
    readings = classify(cards, level)
    if not readings:
        raise InvalidPlayError("these cards form no combination: " + " ".join(c.code for c in cards))
    if declared is not None:
        for reading in readings:
            if reading.same_as(declared):
                return reading
        raise InvalidPlayError(
            f"declared reading {declared} is not one these cards admit: {', '.join(map(str, readings))}"
        )
    if len(readings) == 1 or not any(_is_wild(c, level) for c in cards):
        return readings[0]
    pool = candidates(cards, level)
    if len(pool) == 1 or wild_reading == STRONGEST_UNLESS_DECLARED:
        return pool[0]
    raise AmbiguousPlayError(
        "the play needs a declared reading: " + ", ".join(map(str, pool)), pool
    )
