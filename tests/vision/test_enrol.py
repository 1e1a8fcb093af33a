"""Deck enrolment on a rendered deck with both jokers: one photo per card in, a profile that reads the deck."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.deck import DeckProfile, DeckProfileError
from vision.enrol import enrol_folder
from vision.reader import CardReader
from vision.render import light_scene, paste_card, render_face, table_cloth
from vision.types import CARD_CODES


def photo(code: str, rng: np.random.Generator) -> np.ndarray:
    scene = table_cloth(360, 480, rng, light=True)
    paste_card(scene, render_face(code, 200, 4), (240 + rng.uniform(-20, 20), 180), float(rng.uniform(-45, 45)),
               float(rng.uniform(220, 300)))
    return light_scene(scene, rng, 0.6)


def test_enrolled_profile_reads_other_photos_of_the_deck(tmp_path: Path, reader: CardReader) -> None:
    rng = np.random.default_rng(5)
    for code in CARD_CODES:
        cv2.imwrite(str(tmp_path / f"{code}.jpg"), photo(code, rng))
    (tmp_path / "notes.txt").write_text("not a card")
    messages: list[str] = []
    profile, problems = enrol_folder(tmp_path, reader, messages.append)
    assert problems == [] and len(messages) == 54 and set(profile.codes) == set(CARD_CODES)
    profile.save(tmp_path / "deck.npz")
    deck_reader = CardReader(deck=DeckProfile.load(tmp_path / "deck.npz"))
    codes = ["HR", "SB", "S7", "C7", "DQ", "HK", "ST", "DA", "C2"]
    read = [max(deck_reader.read_image(photo(c, rng)), key=lambda r: r.confidence).card for c in codes]
    assert read == codes


def test_profile_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DeckProfileError):
        DeckProfile.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(DeckProfileError, match="not a deck profile"):
        DeckProfile.load(tmp_path / "other.npz")
