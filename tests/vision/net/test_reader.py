"""The learned reader on held-out designs (never trained on) and real photos: what it already reads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hardware.cameras.simulated import held_out_decks, load_deck
from tests.images import imread
from vision.geometry import Region, find_regions
from vision.net.grouping import Sighting
from vision.net.reader import CardReader, _several_cards
from vision.render import light_scene, paste_card, table_cloth
from vision.types import normalise_label


@pytest.fixture(scope="module")
def net_reader() -> CardReader:
    return CardReader()


def held_out_scene(deck: str, layout: list[tuple[str, float, float, float]], rng: np.random.Generator,
                   card_h: float = 240, size: tuple[int, int] = (480, 900)) -> np.ndarray:
    faces = load_deck(deck)
    scene = table_cloth(size[0], size[1], rng, light=False)
    for code, x, y, angle in layout:
        paste_card(scene, faces[code], (x, y), angle, card_h)
    return light_scene(scene, rng, 0.4)


def test_two_identical_cards_side_by_side_are_two_cards_not_four(net_reader: CardReader) -> None:
    rng = np.random.default_rng(13)
    got = net_reader.read_image(held_out_scene("roboto-condensed", [("DQ", 250, 240, 8.0), ("DQ", 560, 240, -6.0)],
                                               rng))
    assert [r.card for r in got] == ["DQ", "DQ"]
    assert all(r.candidates and r.candidates[0][0] == r.card for r in got)


def test_held_out_fans_find_most_cards(net_reader: CardReader) -> None:
    """Fans of ten on the four held-out designs: most cards found; the extra readings it still makes
    (pips and court pictures of the card on top, read as indices) are why this reader is not the table's yet."""
    rng = np.random.default_rng(11)
    codes = ["S3", "H5", "C6", "D8", "ST", "HJ", "CQ", "DK", "SA", "H2"]
    right = 0
    for deck in held_out_decks():
        got = [r.card for r in net_reader.read_image(
            held_out_scene(deck, [(c, 150 + 62 * i, 240, 3.0) for i, c in enumerate(codes)], rng))]
        found = sum(1 for c in codes if c in got)
        right += found
        assert len(got) - found <= len(codes), (deck, got)
    assert right >= 0.8 * len(codes) * len(held_out_decks())  # 0.85 to 0.9 (OpenCV 4.9 and 5 scenes)


def test_real_fanned_deal_photo(net_reader: CardReader, bidly: Path) -> None:
    """A real phone photo of four hands fanned in arcs, never trained on: most cards found, few invented (cards
    seen only by spotting must be very sure, a threshold chosen on the calibration photos: 31 of 52 found and none
    invented at this writing, 33 with the model of 2026-12-02, against 42 and 2 with spotted cards held to the
    ordinary threshold; over all seven deals the model of now finds more, 70.1 % -> 71.6 %)."""
    image = bidly / "deals" / "deal4-md-sq.jpg"
    wanted = {normalise_label(i["name"]) for i in json.loads((bidly / "deals" / "deal4-md-sq-labels.json").read_text())}
    got = [r.card for r in net_reader.read_image(imread(image))]
    assert len(set(got) & wanted) >= 0.55 * len(wanted)
    assert sum(1 for c in got if c not in wanted) <= 0.1 * len(got)


def test_blank_and_tiny_images_read_nothing(net_reader: CardReader) -> None:
    assert net_reader.read_image(np.full((480, 640, 3), 220, np.uint8)) == []
    assert net_reader.read_image(np.zeros((5, 5, 3), np.uint8)) == []


def test_table_plays_on_held_out_designs() -> None:
    """The table reader with the table's learned reader, on the simulated camera drawing each held-out design:
    plays read exactly and surely in most frames; a sure reading of a card that was not laid (which would make a
    false foul) is rare; every card read carries its candidates, unsure ones too, for the table to choose among
    by what the seat holds (bench/table_reading.py --deck held-out --reader net: 81 % exact, 1 of 300 frames
    wrong unflagged)."""
    import random

    from guandan import full_pack, legal_plays
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader
    from vision.types import UNREADABLE

    net = CardReader(unsure=True)
    rng = random.Random(5)
    exact = wrong = frames = 0
    for deck in held_out_decks():
        camera = SimulatedTableCamera(seed=3, deck=deck)
        reader = TableReader(camera.calibration, card_reader=net)
        for _ in range(12):
            pack = full_pack()
            rng.shuffle(pack)
            play = rng.choice(list(legal_plays(pack[:27], 2, None)))
            truth = [c.code for c in play.cards]
            seat = rng.choice("SENW")
            camera.clear()
            camera.lay(seat, truth)
            read = reader.read(camera.frame())[seat]
            got = [r.card for r in read]
            sure = all(r.confidence >= net.sure for r in read)
            frames += 1
            exact += got == truth and sure
            known = [c for c in got if c != UNREADABLE]
            wrong += sure and len(known) == len(got) and known != truth and len(known) >= len(truth)
            assert all(r.candidates and r.candidates[0][0] == r.card for r in read if r.card != UNREADABLE)
    assert exact >= 0.7 * frames, (exact, frames)
    assert wrong <= 2, (wrong, frames)


def test_held_out_court_cards_whose_rank_touches_the_frame_are_read_at_the_table() -> None:
    """arimo-four-colour's kings touch their picture's frame line (and the heart king's frame joins its rank to
    its suit): before their indices were proposed apart from the frame, no king of that design was read at the
    table ("a card seen but not read": 96 of its 105 misread alerts in bench/simulate.py, now 1 of 6)."""
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader

    net = CardReader(unsure=True)
    camera = SimulatedTableCamera(seed=5, deck="arimo-four-colour")
    plays = {"S": ["SK", "H5", "D9"], "E": ["HK", "DK"], "N": ["CK"]}
    for seat, cards in plays.items():
        camera.lay(seat, cards)
    got = TableReader(camera.calibration, card_reader=net).read(camera.frame())
    for seat, cards in plays.items():
        assert [(r.card, r.confidence >= net.sure) for r in got[seat]] == [(c, True) for c in cards], (seat, got[seat])


def test_a_held_out_pale_thin_index_broken_by_the_ink_mask_is_read_at_the_table() -> None:
    """lato-italic's grey spade 5 at the edge of a fan: the ink mask loses a stroke of its "5", and the lower
    piece alone was read as D5 (0.92); proposed whole it reads S5 (bench/simulate.py, that design: misread alerts
    54 -> 10 in 114 plays)."""
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader

    net = CardReader(unsure=True)
    camera = SimulatedTableCamera(seed=1, deck="lato-italic")
    camera.lay("W", ["S5", "C5", "C5"])
    got = TableReader(camera.calibration, card_reader=net).read(camera.frame())["W"]
    assert [r.card for r in got] == ["S5", "C5", "C5"], got
    assert got[0].candidates[0][0] == "S5" and got[0].confidence > 0.9


@pytest.mark.parametrize("seat", ["S", "E", "N"])
def test_a_held_out_tens_zero_is_not_a_queen_in_a_frame_read_whole(seat: str) -> None:
    """arimo-four-colour's ten of hearts, laid at the table and the frame read whole (``CardReader.sightings``, as
    bench/held_out_scenes.py reads it): the "0" of one of its corners, spotted with the heart below it, was read as
    the queen of hearts at 0.99999 or more, a sure wrong card beside the sure ten."""
    from hardware.cameras.simulated import SimulatedTableCamera

    camera = SimulatedTableCamera(seed=15000, deck="arimo-four-colour")
    camera.lay(seat, ["HT"])
    assert [s.card for s in CardReader().sightings(camera.frame())] == ["HT"]


@pytest.mark.parametrize("seed", [2, 3])
def test_a_pair_of_red_jokers_fanned_at_the_table_is_two_cards(seed: int) -> None:
    """arimo-four-colour's red jokers (大 over 王 in the corner): the 王 of the first one was read as a third red
    joker."""
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader

    net = CardReader(unsure=True)
    camera = SimulatedTableCamera(seed=seed, deck="arimo-four-colour")
    camera.lay("S", ["HR", "HR"])
    got = TableReader(camera.calibration, card_reader=net).read(camera.frame())["S"]
    assert [r.card for r in got] == ["HR", "HR"], got


@pytest.mark.parametrize(("seed", "play"), [(2, ["SB", "SB"]), (3, ["SB", "SB"]), (2, ["HR", "HR", "SB", "SB"])])
def test_small_jokers_fanned_at_the_table_are_read_once_each(seed: int, play: list[str]) -> None:
    """noto-sans-beside's small jokers (小 over 王): the pieces of 小 were read as more small jokers, so a pair was
    read as three cards and the four jokers' bomb as five or six."""
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader

    net = CardReader(unsure=True)
    camera = SimulatedTableCamera(seed=seed, deck="noto-sans-beside")
    camera.lay("S", play)
    got = TableReader(camera.calibration, card_reader=net).read(camera.frame())["S"]
    assert [r.card for r in got] == play, got


@pytest.mark.parametrize(("deck", "seed"), [("lato-italic", 5), ("roboto-condensed", 8)])
def test_a_pair_of_jokers_whose_face_says_joker_is_two_cards_at_the_table(deck: str, seed: int) -> None:
    """The word JOKER across the face was read surely as a third red joker."""
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader

    net = CardReader(unsure=True)
    camera = SimulatedTableCamera(seed=seed, deck=deck)
    camera.lay("S", ["HR", "HR"])
    got = TableReader(camera.calibration, card_reader=net).read(camera.frame())["S"]
    assert [r.card for r in got if r.confidence >= net.sure] == ["HR", "HR"], got


FRAMES = Path(__file__).parent / "frames"


@pytest.mark.parametrize(("frame", "laid"), [("builtin-d3-c3-s3", ["D3", "C3", "S3"]),
                                             ("builtin-st-ct-ct", ["ST", "CT", "CT"])])
def test_a_card_the_two_networks_read_as_two_different_cards_is_reported_unsure(frame: str, laid: list[str]) -> None:
    """Two zone views from bench/table_reading.py (builtin designs): the middle card's index, plain to the eye, is
    read by one of the model's two networks as one card and by the other as another, so each comes out just under
    one half. Left out, the triple read surely as a pair was a legal play and was taken silently; the table's
    reader reports it, unsure, with both cards among its candidates, for the seat's hand to settle."""
    view = imread(FRAMES / f"{frame}.png")
    [region] = find_regions(view, min_area_frac=0.02)
    net = CardReader(unsure=True)
    read = net.read_region(view, region, turns=(0,))
    assert [r.confidence >= net.sure for r in read.readings] == [True, False, True], read.readings
    assert [read.readings[0].card, read.readings[2].card] == [laid[0], laid[2]]
    assert laid[1] in {code for code, _ in read.readings[1].candidates}


def test_the_zero_of_a_loosely_set_ten_is_no_queen() -> None:
    """arimo-four-colour (held out) sets "10" loose: its "0" starts a glyph's height right of the "1" and was read
    as a queen of the same suit, so DT HT was seen as DT DQ HT HQ (the queens one sure, one not). A zone view from
    bench/table_reading.py."""
    view = imread(FRAMES / "arimo-four-colour-dt-ht.png")
    [region] = find_regions(view, min_area_frac=0.02)
    net = CardReader(unsure=True)
    read = net.read_region(view, region, turns=(0,))
    assert [(r.card, r.confidence >= net.sure) for r in read.readings] == [("DT", True), ("HT", True)]


def _box_region(x: float, y: float, w: float, h: float) -> Region:
    corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
    return Region(corners, w * h)


def test_several_cards_are_card_shaped_card_sized_regions_lying_apart_clear_of_the_edges() -> None:
    shape = (540, 960, 3)
    card, beside, on_it = _box_region(100, 50, 150, 210), _box_region(400, 60, 150, 210), _box_region(110, 60, 140, 200)
    assert _several_cards([card, beside], shape)
    assert not _several_cards([card, on_it], shape)  # a card's inner frame, or the card found twice
    assert not _several_cards([card], shape)
    assert not _several_cards([card, _box_region(400, 60, 20, 28)], shape)  # a pip or an index, not a card
    assert not _several_cards([card, _box_region(400, 60, 300, 60)], shape)  # not card-shaped
    # a corner's index and pip found as one region, in a photo cropped to one card: it runs into the photo's edge
    assert not _several_cards([card, _box_region(0, 330, 150, 210)], shape)


@pytest.mark.parametrize(("deck", "centre_y"), [("arimo-four-colour", 125), ("roboto-condensed", 130)])
def test_a_card_the_photo_cuts_is_one_card(net_reader: CardReader, deck: str, centre_y: int) -> None:
    """A held-out nine of diamonds whose upper index the top edge cuts: its cut index and its whole lower one are
    one card (both were reported, as two nines, before the cut glyph was allowed to measure short)."""
    scene = table_cloth(504, 378, np.random.default_rng(4), light=False)
    paste_card(scene, load_deck(deck)["D9"], (250, centre_y), 3.0, 300)
    assert [r.card for r in net_reader.read_image(scene)] == ["D9"]


def test_a_joker_is_held_to_the_spotted_threshold_however_it_was_found(net_reader: CardReader) -> None:
    """Between the outline's threshold and the spotted one, a card read in an outline is reported and a joker so read
    is not (a joker's index is a word or a picture, which a card's art inside an outline also shows); over the
    spotted threshold both are; a card spotted alone is held to the spotted threshold as before."""
    net = net_reader.net
    between = (net.accept + net.spot_accept) / 2
    over = (net.spot_accept + 1.0) / 2

    def seen(card: str, confidence: float, spotted: bool = False) -> Sighting:
        return Sighting(card, confidence, (0, 0, 10, 20), (5.0, 5.0), (0.0, -1.0), 10.0, spotted=spotted)

    cards = [seen("DK", between), seen("SB", between), seen("HR", between), seen("HR", over), seen("C5", between, True),
             seen("SB", over, True)]
    assert [(s.card, s.confidence) for s in net_reader.sure_only(cards)] == [("DK", between), ("HR", over),
                                                                             ("SB", over)]
    assert net_reader.threshold(cards[1]) == net_reader.threshold(cards[4]) == net.spot_accept
    assert net_reader.threshold(cards[0]) == net.accept
