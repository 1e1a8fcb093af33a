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


def test_enrol_then_classify_with_the_deck(bidly: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("Ks.jpg", "Qh.jpg", "10d.jpg"):
        (folder / name).write_bytes((bidly / "cards" / name).read_bytes())
    deck = tmp_path / "deck.npz"
    assert main(["vision", "enroll", "--reader", "net", str(folder), "--out", str(deck)]) == 0
    err = capsys.readouterr().err
    assert "[1/3] 10d.jpg: DT" in err and "[3/3] Qh.jpg: HQ" in err and "enrolled 3 cards" in err and deck.is_file()
    images = [str(bidly / "cards" / n) for n in ("Ks.jpg", "9h.jpg")]
    assert main(["vision", "classify", "--reader", "net", "--deck", str(deck), *images]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    # 9h was not enrolled: read as the network alone reads it; Ks (enrolled) is SK when it is read at all
    assert [o["image"] for o in out] == images and [c["card"] for c in out[1]["cards"]] == ["H9"]
    assert all(c["card"] == "SK" for c in out[0]["cards"])
    assert main(["vision", "eval", "--reader", "net", "--deck", str(deck), str(folder)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images"] == 3 and result["correct"] + result["unread"] == 3
    # without --reader, a deck is read by the reader it was enrolled for
    assert main(["vision", "classify", "--deck", str(deck), images[0]]) == 0
    assert [c["card"] for c in json.loads(capsys.readouterr().out)["cards"]] in ([], ["SK"])
    glyph = tmp_path / "glyph.npz"
    assert main(["vision", "enroll", "--reader", "glyphs", str(folder), "--out", str(glyph)]) == 0
    capsys.readouterr()
    assert main(["vision", "classify", "--deck", str(glyph), images[0]]) == 0
    assert [c["card"] for c in json.loads(capsys.readouterr().out)["cards"]] == ["SK"]
    # named, a reader refuses the other reader's deck
    assert main(["vision", "classify", "--reader", "glyphs", "--deck", str(deck), images[0]]) == 2
    assert "--reader net" in capsys.readouterr().err
    assert main(["vision", "classify", "--reader", "net", "--deck", str(glyph), images[0]]) == 2
    assert "--reader glyphs" in capsys.readouterr().err


def test_the_learned_reader_is_the_default(bidly: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # four kings on carpet (edje, never trained on): the learned reader reads all four, the glyph rules one
    photo = str(bidly.parent / "edje" / "images" / "test" / "cam_image2.jpg")
    answers = {}
    for reader in ([], ["--reader", "net"], ["--reader", "glyphs"]):
        assert main(["vision", "classify", *reader, photo]) == 0
        answers[" ".join(reader)] = [c["card"] for c in json.loads(capsys.readouterr().out)["cards"]]
    assert answers[""] == answers["--reader net"] != answers["--reader glyphs"]
    assert sorted(answers[""]) == ["CK", "DK", "HK", "SK"]


def test_a_corrupt_deck_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "d.npz").write_text("garbage")
    assert main(["vision", "classify", "--reader", "net", "--deck", str(tmp_path / "d.npz"), "x.jpg"]) == 2
    err = capsys.readouterr().err
    assert "d.npz" in err and "登记牌面文件无效" in err
