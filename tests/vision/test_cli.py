"""``guandan-table vision classify|enroll|eval`` through the real console entry point, on real photos."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from table_daemon.cli import main
from tests.images import imread
from vision.render import light_scene, paste_card, render_face, table_cloth


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["vision", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_classify_real_photo_and_rendered_fan(tmp_path: Path, bidly: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(4)
    scene = table_cloth(480, 720, rng, light=True)
    for i, face in enumerate(["S9", "HK", "D4"]):  # three separate cards: left to right
        paste_card(scene, render_face(face, 200, 1), (150 + 210 * i, 240), float(rng.uniform(-20, 20)), 230)
    fan = tmp_path / "three.png"
    cv2.imwrite(str(fan), light_scene(scene, rng, 0.5))
    # (the queens of spades and diamonds, Qs.jpg and Qd.jpg, are the two of bidly's 52 photos the learned reader
    # now leaves unread: unsure, not wrong)
    code, lines, _ = run(capsys, "classify", str(bidly / "cards" / "Ks.jpg"), str(fan))
    assert code == 0 and len(lines) == 2
    assert lines[0]["image"].endswith("Ks.jpg") and [c["card"] for c in lines[0]["cards"]] == ["SK"]
    card = lines[0]["cards"][0]
    assert 0 < card["confidence"] <= 1 and len(card["box"]) == 4
    assert [c["card"] for c in lines[1]["cards"]] == ["S9", "HK", "D4"]
    xs = [c["box"][0] for c in lines[1]["cards"]]
    assert xs == sorted(xs)


def test_empty_corrupt_tiny_and_missing_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 200, np.uint8))
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((3, 3, 3), np.uint8))
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff garbage")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    code, lines, err = run(capsys, "classify", str(blank), str(tiny), str(corrupt), str(empty),
                           str(tmp_path / "missing.jpg"))
    assert code == 2  # some files were bad: said on stderr, and every image still got its line
    # cards is always a list (cli.md); an image that could not be read says why in "error"
    assert [line["cards"] for line in lines] == [[], [], [], [], []]
    assert [bool(line.get("error")) for line in lines] == [False, False, True, True, True]
    assert "corrupt.jpg" in err and "empty" in err and "missing.jpg" in err


def test_a_file_that_is_not_an_image_gets_an_empty_cards_list_and_its_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """cli.md's line shape holds for a file that is no image: ``"cards": []`` (a list, never null) and ``"error"``."""
    text = tmp_path / "hostname"
    text.write_text("table-07\n", encoding="utf-8")
    code, lines, err = run(capsys, "classify", str(text))
    assert code == 2 and len(lines) == 1
    assert lines[0]["image"] == str(text) and lines[0]["cards"] == [] and "not a readable image" in lines[0]["error"]
    assert len(err.strip().splitlines()) == 1 and str(text) in err


def test_bad_deck_profile_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bogus = tmp_path / "deck.npz"
    bogus.write_bytes(b"not a profile")
    code, _, err = run(capsys, "classify", "x.jpg", "--deck", str(bogus))
    assert code == 2 and "deck" in err and err.count("\n") == 1
    code, _, err = run(capsys, "enroll", str(tmp_path / "nothere"), "--out", str(tmp_path / "p.npz"))
    assert code == 2 and "not a folder" in err


def test_enroll_then_eval_on_other_photos_of_the_deck(tmp_path: Path, bidly: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The glyph reader's enrolment: enrol on the 52 real photos; read new photos of them (turned up to 45 degrees,
    on a light desk). The deck is read by the reader it was enrolled for (the learned reader's enrolment is tested in
    tests/vision/net/test_cli.py)."""
    profile = tmp_path / "bidly.npz"
    code, _, err = run(capsys, "enroll", "--reader", "glyphs", str(bidly / "cards"), "--out", str(profile))
    assert code == 0 and profile.is_file() and "[52/52]" in err and "HR" in err  # jokers missing: warned
    desk = tmp_path / "desk"
    desk.mkdir()
    rng = np.random.default_rng(11)
    photos = sorted((bidly / "cards").glob("*.jpg"))[::3]
    for path in photos:
        scene = table_cloth(480, 640, rng, light=True)
        paste_card(scene, imread(path), (320, 240), float(rng.uniform(-45, 45)), float(rng.uniform(280, 400)))
        cv2.imwrite(str(desk / path.name), light_scene(scene, rng, 0.6), [cv2.IMWRITE_JPEG_QUALITY, 85])
    code, lines, _ = run(capsys, "eval", str(desk), "--deck", str(profile))
    assert code == 0 and lines[0]["images"] == len(photos)
    assert lines[0]["accuracy"] >= 0.94


def test_calibrate_from_a_simulated_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hardware.cameras.simulated import SimulatedTableCamera

    frame = tmp_path / "table.png"
    cv2.imwrite(str(frame), SimulatedTableCamera(seed=5).frame())
    code, lines, _ = run(capsys, "calibrate", str(frame), "--out", str(tmp_path / "cal.json"))
    assert code == 0 and set(lines[0]["zones"]) == {"S", "E", "N", "W"}
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 200, 3), 90, np.uint8))
    code, _, err = run(capsys, "calibrate", str(blank), "--out", str(tmp_path / "c2.json"))
    assert code == 2 and "marker" in err
    assert "看不到桌角标记" in err
    assert "warning" not in run(capsys, "calibrate", str(frame), "--out", str(tmp_path / "cal.json"))[2]
    dark = tmp_path / "dark.png"  # the markers still found, the cards not readable: written, and said (silent before)
    cv2.imwrite(str(dark), SimulatedTableCamera(seed=5, exposure=0.08).frame())
    code, lines, err = run(capsys, "calibrate", str(dark), "--out", str(tmp_path / "c3.json"))
    assert code == 0 and lines[0]["zones"] and "太暗 / too dark" in err and "set the camera's exposure" in err


def test_printed_markers_are_found_where_they_are_laid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.calibration import find_markers

    code, lines, _ = run(capsys, "markers", "--out", str(tmp_path / "m"), "--mm", "40")
    assert code == 0 and [line["marker"] for line in lines] == [0, 1, 2, 3]
    table = np.full((900, 1400, 3), 60, np.uint8)  # the printed sheets laid on a dark cloth, photographed
    places = {0: (200, 150), 1: (1200, 150), 2: (1200, 750), 3: (200, 750)}
    for line in lines:
        sheet = imread(line["file"])
        small = cv2.resize(sheet, (120, 120), interpolation=cv2.INTER_AREA)
        x, y = places[line["marker"]]
        table[y - 60:y + 60, x - 60:x + 60] = small
    found = find_markers(table)
    assert sorted(found) == [0, 1, 2, 3]
    assert all(np.hypot(found[i][0] - x, found[i][1] - y) < 2 for i, (x, y) in places.items())
    code, _, err = run(capsys, "markers", "--out", str(tmp_path / "m2"), "--mm", "5")
    assert code == 2 and "--mm" in err
