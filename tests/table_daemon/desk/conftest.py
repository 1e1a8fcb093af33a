"""The desk page tests use the display tests' real headless Chromium."""

from ..display.conftest import browser  # noqa: F401
