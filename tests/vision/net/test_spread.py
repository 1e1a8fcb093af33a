"""Spread enrolment on a rendered spread: bidly's 52 real single-card photos pasted, a little turned, onto a cloth
in the deck's order (a rendering of a spread, not a photo of one)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.cameras.simulated import SimulatedTableCamera
from table_daemon.cli import main
from vision.files import labelled_images, load_image
from vision.net.enrolled import EnrolledDeck
from vision.net.enrolment import enrol_images
from vision.net.network import IndexNet
from vision.net.reader import CardReader
from vision.net.spread import ORDER, SpreadError, enrol_spread_images, label_spread, spread_rows
from vision.render import render_face, spread_scene
from vision.training.dark_decks import dark_face


@pytest.fixture(scope="module")
def faces(bidly: Path) -> dict[str, np.ndarray]:
    return {code: load_image(path) for path, code in labelled_images(bidly / "cards")}


def layout(faces: dict[str, np.ndarray], codes: list[str], seed: int = 3, light_cloth: bool = False) -> np.ndarray:
    rows = [[faces[c] for c in codes[i: i + 13]] for i in range(0, len(codes), 13)]
    return spread_scene(rows, np.random.default_rng(seed), light_cloth=light_cloth)


def _thumb(image: np.ndarray) -> np.ndarray:
    v = cv2.resize(image, (20, 30), interpolation=cv2.INTER_AREA).astype(float)  # in colour: a dark deck's ♦ and ♣
    v = v.ravel() - v.mean()
    return np.asarray(v / (np.linalg.norm(v) + 1e-9))


def labelled_right(cards: list[tuple[str, str, np.ndarray]], faces: dict[str, np.ndarray]) -> int:
    """How many labelled card images look most like the face of their label (either end up)."""
    codes = list(faces)
    thumbs = np.stack([_thumb(faces[c]) for c in codes])
    right = 0
    for code, _, image in cards:
        score = np.maximum(thumbs @ _thumb(image), thumbs @ _thumb(image[::-1, ::-1]))
        right += codes[int(np.argmax(score))] == code
    return right


def test_cards_are_labelled_by_their_place(faces: dict[str, np.ndarray]) -> None:
    image = layout(faces, list(ORDER[:52]))
    assert [len(row) for row in spread_rows(image)] == [13] * 4
    cards = label_spread([("spread.png", image)])
    assert [c for c, _, _ in cards] == list(ORDER[:52]) and labelled_right(cards, faces) >= 50
    assert cards[14][1] == "spread.png row 2 card 2"
    # each labelled card is the face laid there: the network reads a few of them as their label
    reader = CardReader(IndexNet())
    picks = [0, 14, 30, 51]
    read = [[r.card for r in reader.read_image(cards[i][2])] for i in picks]
    assert sum(cards[i][0] in got for i, got in zip(picks, read, strict=True)) >= 3, read


def test_a_camera_turned_a_few_degrees_keeps_the_rows(faces: dict[str, np.ndarray]) -> None:
    image = layout(faces, list(ORDER[:52]))
    h, w = image.shape[:2]
    cloth = tuple(int(v) for v in image[5, 5])
    for angle in (5.0, -6.0):  # a row of 13 then climbs more than half a card
        turned = cv2.warpAffine(image, cv2.getRotationMatrix2D((w / 2, h / 2), angle, 0.8), (w, h), borderValue=cloth)
        assert labelled_right(label_spread([("turned.png", turned)]), faces) >= 50


def test_a_dark_deck_on_a_light_cloth_is_found_and_enrolled() -> None:
    """A deck printed light on black (rendered: ``training.dark_decks``) laid on a light cloth: its faces are the
    darker side of the paper threshold. Before, only the edge finder looked for them, and found 5 of 52."""
    faces = {code: dark_face(render_face(code, 200, 2), "builtin:4") for code in ORDER[:52]}
    image = layout(faces, list(ORDER[:52]), light_cloth=True)
    assert [len(row) for row in spread_rows(image)] == [13] * 4
    cards = label_spread([("dark.png", image)])
    assert [c for c, _, _ in cards] == list(ORDER[:52]) and labelled_right(cards, faces) >= 50
    deck, _ = enrol_images(IndexNet(), cards, 52)
    assert set(deck.codes) == set(ORDER[:52])  # every card of it gave windows of its index


def test_a_spread_missing_a_card_is_refused(faces: dict[str, np.ndarray]) -> None:
    image = layout(faces, [c for c in ORDER[:52] if c != "H7"])
    with pytest.raises(SpreadError, match="found 51 cards.*13 \\+ 13 \\+ 13 \\+ 12"):
        label_spread([("spread.png", image)])


def test_enroll_spread_from_the_command_line(faces: dict[str, np.ndarray], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # two photos: spades and hearts, then clubs and diamonds (the order runs on from photo to photo)
    paths = []
    for k in range(2):
        path = tmp_path / f"spread{k}.png"
        cv2.imwrite(str(path), layout(faces, list(ORDER[26 * k: 26 * k + 26]), seed=k))
        paths.append(str(path))
    deck = tmp_path / "deck.npz"
    assert main(["vision", "enroll", "--spread", *paths, "--out", str(deck)]) == 0
    err = capsys.readouterr().err
    assert "found 52 cards in 2 photo(s)" in err and "[52/52] spread1.png row 2 card 13: DK" in err
    enrolled = EnrolledDeck.load(deck)
    assert set(enrolled.codes) <= set(ORDER[:52]) and len(set(enrolled.codes)) >= 48
    assert main(["vision", "classify", "--reader", "net", "--deck", str(deck), paths[0]]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["image"] == paths[0]
    assert main(["vision", "enroll", "--spread", paths[0], "--out", str(deck)]) == 2
    assert "found 26 cards" in capsys.readouterr().err


def test_enroll_a_spread_photographed_by_the_table_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The organiser clears the table and presses Enter, then lays the deck out under the table's camera in three
    parts, pressing Enter for each: the frames (the simulated table camera's, on a light cloth where the cards'
    paper is hardly told from the cloth, replayed) are kept in --views, and the cards found by what changed from the
    empty table are enrolled."""
    table = SimulatedTableCamera(seed=8001)  # lato-italic on a light cloth
    shown = tmp_path / "camera"
    shown.mkdir()
    cv2.imwrite(str(shown / "0-empty.png"), table.frame())
    table.lay_spread(ORDER[:20])  # the first photo taken with a card short: the organiser takes it again
    cv2.imwrite(str(shown / "1-short.png"), table.frame())
    for number, start in enumerate(range(0, 54, 21), 2):
        table.clear()
        table.lay_spread(ORDER[start: start + 21])
        cv2.imwrite(str(shown / f"{number}-spread.png"), table.frame())
    views, deck = tmp_path / "views", tmp_path / "deck.npz"
    command = ["vision", "enroll", "--camera", f"replay://{shown}", "--views", str(views), "--photos", "3",
               "--out", str(deck)]
    # Enter: the empty table; photo 1; "r": photo 1 again; photo 1; photo 2; photo 3; enrol
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nr\n\n\n\n\n"))
    assert main(command) == 0
    err = capsys.readouterr().err
    assert "first clear the table" in err and "found 20 cards (7 + 7 + 6), labelled SA … H7" in err
    assert "found 21 cards (7 + 7 + 7), labelled SA … H8" in err and "labelled H9 … D3" in err and "labelled D4 … HR" in err
    assert "photo 3 of 3" in err and "Enter: enrol" in err and "found 54 cards in 3 photo(s)" in err
    assert f"photographed: {views / 'empty.jpg'}" in err and (views / "spread-3-found.jpg").is_file()
    assert set(EnrolledDeck.load(deck).codes) <= set(ORDER) and len(set(EnrolledDeck.load(deck).codes)) >= 50
    # without the empty table, the light cloth hides cards: fewer found, refused with the count per row
    spread = [str(views / f"spread-{n}.jpg") for n in (1, 2, 3)]
    assert main(["vision", "enroll", "--spread", *spread, "--out", str(tmp_path / "no.npz")]) == 2
    refusal = capsys.readouterr().err
    assert "cards per row" in refusal and "photograph the table empty too (--empty" in refusal
    assert main(["vision", "enroll", "--spread", *spread, "--empty", str(views / "empty.jpg"),
                 "--out", str(tmp_path / "again.npz")]) == 0
    # no Enter (input closed): nothing photographed, nothing enrolled; and the photos need a folder
    deck.unlink()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(command) == 2 and "no Enter for photo 0" in capsys.readouterr().err and not deck.exists()
    assert not (views / "spread-4.jpg").exists()
    assert main(command[:4] + command[6:]) == 2 and "needs --views DIR" in capsys.readouterr().err


def test_a_spread_found_short_of_two_cards_is_refused_not_enrolled_shifted() -> None:
    """54 cards laid out, two of them not found: 52 is a whole deck without its jokers to the count, and every card
    after the first one missed would be enrolled as its neighbour. The network reads them as the cards one place
    along, and the spread is refused."""
    table = SimulatedTableCamera(seed=2002)
    empty = table.frame()
    photos = []
    for number, start in enumerate(range(0, 54, 21), 1):
        table.clear()
        table.lay_spread([c for c in ORDER[start: start + 21] if c not in ("S5", "H9")])
        photos.append((f"spread-{number}", table.frame()))
    with pytest.raises(SpreadError, match="one or two places along"):
        enrol_spread_images(photos, IndexNet(), empty=empty)


def test_an_empty_table_photo_of_another_size_is_refused_by_name() -> None:
    table = SimulatedTableCamera(seed=2002)
    empty = cv2.resize(table.frame(), (640, 360))
    table.lay_spread(ORDER[:21])
    with pytest.raises(SpreadError, match="spread-1: .*take both with the same camera"):
        label_spread([("spread-1", table.frame())], empty)


def _spread_photos(order: list[str], seed: int = 2002) -> tuple[list[tuple[str, np.ndarray]], np.ndarray]:
    """The deck laid out in ``order`` under the simulated table's camera, 21 cards a photo, and the empty table."""
    table = SimulatedTableCamera(seed=seed)
    empty = table.frame()
    photos = []
    for number, start in enumerate(range(0, len(order), 21), 1):
        table.clear()
        table.lay_spread(order[start: start + 21])
        photos.append((f"spread-{number}", table.frame()))
    return photos, empty


def test_a_spread_whose_rows_are_out_of_order_is_refused() -> None:
    """Hearts laid before spades: every card is found, 54 to the count, and each would be enrolled as the card
    of the other suit. Before, the spread was enrolled and saved; the network is sure they are not their places."""
    photos, empty = _spread_photos(list(ORDER[13:26] + ORDER[:13] + ORDER[26:]))
    with pytest.raises(SpreadError, match="read surely as another card than their place.*row 1 card 1 \\(SA\\) reads "
                                          "as HA.*the right way up"):
        enrol_spread_images(photos, IndexNet(), empty=empty)


def test_two_cards_swapped_in_a_spread_are_refused_and_named() -> None:
    order = list(ORDER)
    order[5], order[6] = order[6], order[5]
    photos, empty = _spread_photos(order)
    with pytest.raises(SpreadError, match="2 card\\(s\\) read surely.*S6\\) reads as S7.*S7\\) reads as S6"):
        enrol_spread_images(photos, IndexNet(), empty=empty)


def test_photos_given_out_of_their_order_are_refused() -> None:
    photos, empty = _spread_photos(list(ORDER))
    with pytest.raises(SpreadError, match="give the photos in the order"):
        enrol_spread_images([photos[0], photos[2], photos[1]], IndexNet(), empty=empty)
