"""``vision classify --reader net`` through the console entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_daemon.cli import main


def test_classify_with_the_net_reader(bidly: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vision", "classify", "--reader", "net", str(bidly / "cards" / "Ks.jpg")])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert code == 0 and len(out) == 1 and out[0]["image"].endswith("Ks.jpg")
    for card in out[0]["cards"]:
        assert 0 < card["confidence"] <= 1 and len(card["box"]) == 4 and card["candidates"][0][0] == card["card"]


def test_net_reader_takes_no_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "classify", "--reader", "net", "--deck", str(tmp_path / "d.npz"), "x.jpg"]) == 2
    assert "--deck" in capsys.readouterr().err
