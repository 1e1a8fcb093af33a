"""Shared fixtures for the card reader tests: the real photos (skipped cleanly when absent) and one reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.reader import CardReader

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "cards" / "bidly"


@pytest.fixture(scope="session")
def bidly() -> Path:
    if not (SHARED / "cards").is_dir():
        pytest.skip(f"real card photos not found at {SHARED.resolve()} (shared/data/cards is not checked out)")
    return SHARED


@pytest.fixture(scope="session")
def reader() -> CardReader:
    return CardReader()


@pytest.fixture(scope="session")
def cardcounter() -> Path:
    folder = SHARED.parent / "cardcounter"
    if not (folder / "labels").is_dir():
        pytest.skip(f"real card photos not found at {folder.resolve()} (shared/data/cards is not checked out)")
    return folder


@pytest.fixture(scope="session")
def edje() -> Path:
    folder = SHARED.parent / "edje"
    if not (folder / "images" / "test").is_dir():
        pytest.skip(f"real card photos not found at {folder.resolve()} (shared/data/cards is not checked out)")
    return folder
