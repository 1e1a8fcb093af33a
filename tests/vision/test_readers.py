"""Choosing a card reader by name and by the deck it was enrolled for (vision.readers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.net.reader import CardReader as NetReader
from vision.reader import CardReader as GlyphReader
from vision.readers import ReaderError, make_card_reader


def test_readers_by_name() -> None:
    assert isinstance(make_card_reader(), NetReader)
    assert isinstance(make_card_reader("net"), NetReader)
    assert isinstance(make_card_reader("glyphs"), GlyphReader)
    with pytest.raises(ReaderError, match="unknown card reader 'yolo'"):
        make_card_reader("yolo")


def test_bad_deck_files_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="deck profile not found"):
        make_card_reader(None, tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_text("not a deck")
    with pytest.raises(ReaderError, match="not an enrolled deck file"):
        make_card_reader(None, junk)
    with pytest.raises(ReaderError, match=str(junk)):
        make_card_reader("glyphs", junk)
