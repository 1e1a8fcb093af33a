"""Which of the learned reader's readings in one upright region are indices of different cards (``vision.net.places``)."""

from __future__ import annotations

from vision.index import Glyph
from vision.net.places import (
    IndexSeen,
    one_joker_per_index,
    plausible_starts,
    without_joker_columns,
    without_joker_words,
    without_second_glyphs,
)


def test_a_stroke_beside_an_index_is_not_another_index() -> None:
    """The inner frame line of a card (or the edge of the card on top) just left of an index is a thin stroke
    whose window shows that index: only the "1" of a "10" starts an index so, and a glyph far shorter than a
    fan's other first glyphs starts none (both were read as extra cards of held-out designs at the table)."""

    def seen(card: str, x: int, w: int, h: int) -> IndexSeen:
        return IndexSeen(card, 1.0, ((card, 1.0),), Glyph(x, 20, w, h))

    fan = [seen("H7", 16, 26, 35), seen("H2", 96, 2, 34), seen("H2", 105, 26, 34), seen("DT", 180, 5, 34),
           seen("SB", 260, 4, 12), seen("SJ", 300, 10, 13), seen("C4", 330, 25, 36)]
    assert [(s.card, s.glyph.x) for s in plausible_starts(fan)] == [
        ("H7", 16), ("H2", 105), ("DT", 180), ("SB", 260), ("C4", 330)]
    # two readings: too few to say what height the deck's first glyphs have
    assert len(plausible_starts([seen("D4", 13, 30, 37), seen("SJ", 83, 10, 11)])) == 2



def test_the_lower_glyphs_of_a_jokers_column_are_not_more_cards() -> None:
    """A joker's index is a column (JOKER spelt downwards, 大 over 王): the windows of its lower glyphs were read as
    cards too, 王 as the red joker again and the K as a king, so a pair of jokers was read as three cards. A
    reading standing beside the column (the next card's index), or surer than the joker, is kept."""

    def seen(card: str, confidence: float, x: int, y: int, h: int = 30) -> IndexSeen:
        return IndexSeen(card, confidence, ((card, confidence),), Glyph(x, y, 28, h))

    big = seen("HR", 1.0, 91, 4)
    assert without_joker_columns([big, seen("HR", 0.998, 93, 39), seen("CK", 0.97, 90, 150),
                                   seen("HR", 1.0, 127, 43)], 0.998) == [big, seen("HR", 1.0, 127, 43)]
    sure_king = seen("CK", 1.0, 92, 40)
    assert without_joker_columns([seen("SB", 0.999, 91, 4), sure_king], 0.998)[1] == sure_king
    unsure_joker = seen("SB", 0.95, 91, 4)
    assert len(without_joker_columns([unsure_joker, seen("C9", 0.9, 92, 40)], 0.998)) == 2
    below_the_column = seen("D9", 0.95, 91, 4 + 7 * 30)
    assert below_the_column in without_joker_columns([big, below_the_column], 0.998)



def test_a_joker_index_in_pieces_is_one_reading() -> None:
    """小 is three ink components and the network reads the small joker in more than one of them; the edge of a
    card beside its 大 is read as the red joker too. Two jokers' indices in a fan, each a whole character, stay two
    even fanned tight."""

    def seen(card: str, confidence: float, x: int, y: int, w: int, h: int) -> IndexSeen:
        return IndexSeen(card, confidence, ((card, confidence),), Glyph(x, y, w, h))

    left_stroke, right_dot = seen("SB", 1.0, 16, 22, 10, 19), seen("SB", 0.97, 40, 22, 10, 19)
    next_card = seen("SB", 1.0, 107, 29, 10, 18)
    assert one_joker_per_index([left_stroke, right_dot, next_card]) == [left_stroke, next_card]
    edge, big = seen("HR", 1.0, 85, 21, 3, 34), seen("HR", 1.0, 94, 18, 30, 29)
    assert one_joker_per_index([edge, big]) == [big]  # equally sure: the larger glyph stays
    tight = [seen("HR", 1.0, 10, 10, 30, 30), seen("HR", 1.0, 52, 12, 29, 30)]  # 大 and 大, 1.4 glyphs apart
    assert one_joker_per_index(tight) == tight
    assert one_joker_per_index([seen("SB", 1.0, 16, 22, 10, 19), seen("HR", 0.9, 40, 22, 10, 19)])[1].card == "HR"



def test_the_word_on_a_jokers_face_is_not_another_joker() -> None:
    """The big JOKER across the top of a face, right of and below the joker's small index, was read as one more
    joker (lato-italic at the table: a pair of red jokers read as three). A joker of the same index size beside it
    (the next card of a fan) stays."""

    def seen(card: str, x: int, y: int, w: int, h: int) -> IndexSeen:
        return IndexSeen(card, 1.0, ((card, 1.0),), Glyph(x, y, w, h))

    first, second = seen("HR", 10, 8, 7, 14), seen("HR", 122, 10, 7, 14)
    word = seen("HR", 158, 45, 30, 25)
    assert without_joker_words([first, second, word]) == [first, second]
    lower_card = seen("HR", 150, 30, 7, 15)  # a fan sloping down: the next index is lower, but of index size
    assert without_joker_words([first, second, lower_card]) == [first, second, lower_card]


def test_the_zero_of_a_ten_starts_no_index_but_the_next_card_after_it_does() -> None:
    """A "0" a glyph's height right of a ten's "1" (a loose "10") is the ten's; an index starting where the whole
    "10" would have been covered is the next card's, and a "0" right of anything but a ten is left alone."""

    def seen(card: str, x: int) -> IndexSeen:
        return IndexSeen(card, 1.0, ((card, 1.0),), Glyph(x, 20, 27, 33))

    loose = [seen("DT", 16), seen("DQ", 49), seen("HT", 114), seen("HQ", 148)]
    assert [s.card for s in without_second_glyphs(loose)] == ["DT", "HT"]
    fanned = [seen("DT", 16), seen("SQ", 16 + 57), seen("H9", 140), seen("HQ", 140 + 33)]  # 1.7 heights on
    assert [s.card for s in without_second_glyphs(fanned)] == ["DT", "SQ", "H9", "HQ"]

