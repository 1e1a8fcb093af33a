"""The real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) for the page tests, and the display
hub with its web server (``served``) that feeds them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (run scripts/setup)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def served() -> Iterator[tuple[Hub, WebServer]]:
    hub = Hub("ev")
    web = WebServer(hub, 0)
    web.start()
    try:
        yield hub, web
    finally:
        web.stop()
