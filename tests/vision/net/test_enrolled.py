"""The enrolled deck's file and how its evidence is mixed with the network's reading (no photos needed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.deck import DeckProfile, DeckProfileError
from vision.net.enrolled import (
    DECK_MOST,
    RAMP,
    Blend,
    EnrolledDeck,
    EnrolledDeckError,
    EnrolledNet,
    blend,
    model_fingerprint,
    sure_only_where_parted,
)
from vision.net.network import CLASSES, NONE, IndexModel, IndexNet

N = CLASSES.index(NONE)


@pytest.fixture(scope="module")
def net() -> IndexNet:
    return IndexNet()


def probs(**cards: float) -> np.ndarray:
    p = np.zeros((1, len(CLASSES)))
    for code, value in cards.items():
        p[0, CLASSES.index("--" if code == "none" else code)] = value
    return p


def sims(**cards: float) -> np.ndarray:
    s = np.full((1, len(CLASSES)), np.nan)
    for code, value in cards.items():
        s[0, CLASSES.index(code)] = value
    return s


MIX = Blend(temperature=0.05, weight=1.0, near=0.6)


def test_agreement_makes_a_reading_surer_and_leaves_none_alone() -> None:
    p = probs(SK=0.7, S8=0.25, none=0.05)
    out = blend(p, sims(SK=0.95, S8=0.7), MIX, N)
    assert out[0, CLASSES.index("SK")] > 0.94 and out[0, N] == pytest.approx(0.05)
    assert out.sum() == pytest.approx(1.0)


def test_disagreement_makes_a_reading_unsure_not_wrong_and_sure() -> None:
    p = probs(SK=0.999, none=0.0005, S8=0.0005)
    out = blend(p, sims(SK=0.8, S8=0.9), MIX, N)
    assert out[0, CLASSES.index("SK")] < 0.998 and out[0, CLASSES.index("S8")] < 0.998


def test_windows_far_from_every_exemplar_keep_the_network_reading() -> None:
    p = probs(SK=0.6, S8=0.3, none=0.1)
    assert np.allclose(blend(p, sims(S8=MIX.near - 0.01, SK=0.2), MIX, N), p)
    half = blend(p, sims(S8=MIX.near + RAMP / 2, SK=MIX.near - 0.1), MIX, N)
    full = blend(p, sims(S8=MIX.near + RAMP, SK=MIX.near - 0.1), MIX, N)
    assert p[0, CLASSES.index("S8")] < half[0, CLASSES.index("S8")] < full[0, CLASSES.index("S8")]


def test_a_card_not_enrolled_is_neither_for_nor_against() -> None:
    p = probs(SK=0.5, S8=0.3, HQ=0.1, none=0.1)
    out = blend(p, sims(S8=0.95, HQ=0.7), MIX, N)  # SK not enrolled: as near as S8
    assert out[0, CLASSES.index("SK")] / out[0, CLASSES.index("S8")] == pytest.approx(0.5 / 0.3)
    assert out[0, CLASSES.index("HQ")] < 0.01


def test_weight_zero_is_the_network_alone() -> None:
    p = probs(SK=0.6, S8=0.3, none=0.1)
    assert np.array_equal(blend(p, sims(S8=0.99), Blend(0.05, 0.0, 0.6), N), p)


def test_a_deck_leans_a_sure_reading_but_cannot_overturn_it() -> None:
    """The simulated table's case: the network reads an ace of spades at 0.99999; a deck whose exemplars put the
    window 0.1 nearer the ace of clubs would, at temperature 0.01, make the clubs 22,000 times likelier."""
    p = probs(SA=0.99999, CA=0.00001)
    out = blend(p, sims(SA=0.9, CA=1.0), Blend(temperature=0.01, weight=1.0, near=0.6), N)
    sa, ca = out[0, CLASSES.index("SA")], out[0, CLASSES.index("CA")]
    assert sa > ca and sa / ca == pytest.approx(0.99999 / 0.00001 / DECK_MOST, rel=1e-3)


BARS = (0.998, 0.9999)


def test_a_deck_that_hardly_parts_two_cards_does_not_carry_the_network_over_a_threshold() -> None:
    """The simulated table's case: the network reads a ten of clubs as the ten of spades at 0.9964 (the ten of
    clubs its runner-up at 0.0019); a deck whose two tens look alike agrees by 2.4 times and would make it 0.9992."""
    own = probs(ST=0.9964, CT=0.0019, DT=0.0016, none=0.0001)
    blended = probs(ST=0.9992, CT=0.0008, none=0.0001)
    np.testing.assert_array_equal(sure_only_where_parted(blended, own, N, BARS), own)


def test_a_deck_that_parts_the_card_clearly_may_make_it_sure() -> None:
    own = probs(ST=0.9964, CT=0.0019, DT=0.0016, none=0.0001)
    blended = probs(ST=0.99989, CT=0.00001, DT=0.0001, none=0.0001)  # 98 times likelier than the runner-up CT
    np.testing.assert_array_equal(sure_only_where_parted(blended, own, N, BARS), blended)


def test_a_reading_that_crosses_no_threshold_keeps_the_deck_s_say() -> None:
    own = probs(ST=0.6, CT=0.3, none=0.1)
    blended = probs(ST=0.8, CT=0.1, none=0.1)  # surer by a little, still under every threshold
    np.testing.assert_array_equal(sure_only_where_parted(blended, own, N, BARS), blended)
    sure = probs(ST=0.9995, CT=0.0004, none=0.0001)  # sure without the deck: the deck only adds
    surer = probs(ST=0.9998, CT=0.0001, none=0.0001)
    np.testing.assert_array_equal(sure_only_where_parted(surer, sure, N, (0.998,)), surer)


def test_the_network_alone_is_returned_as_it_is() -> None:
    own = probs(ST=0.9964, CT=0.0019, none=0.0017)
    assert sure_only_where_parted(own, own, N, BARS) is own


def deck_for(net: IndexNet, codes: tuple[str, ...] = ("SK", "HQ")) -> EnrolledDeck:
    rng = np.random.default_rng(0)
    _, emb = net.run(rng.integers(0, 255, (len(codes), 32, 32, 3), dtype=np.uint8))
    return EnrolledDeck(codes, emb, model_fingerprint(net), MIX, {"photos": len(codes)})


def test_a_deck_file_round_trips_and_reads_like_the_network_elsewhere(net: IndexNet, tmp_path: Path) -> None:
    deck = deck_for(net)
    deck.save(tmp_path / "deck.npz")
    back = EnrolledDeck.load(tmp_path / "deck.npz")
    assert back.codes == deck.codes and back.blend == MIX and back.report == {"photos": 2}
    assert np.allclose(back.embeddings, deck.embeddings, atol=2e-3)
    enrolled = EnrolledNet(net, back)
    assert enrolled.classes == net.classes and enrolled.accept == net.accept
    windows = np.full((3, 32, 32, 3), 255, np.uint8)  # blank paper: "not an index", whatever is enrolled
    assert np.allclose(enrolled.predict(windows)[:, N], net.predict(windows)[:, N])


def test_an_enrolled_network_offers_the_readers_all_the_network_alone_does(net: IndexNet) -> None:
    """The readers take either network as an ``IndexModel``: every member it names is there on both, the values the
    same (thresholds and card calibration are the network's), and ``readings`` gives the deck's probabilities with
    the network's own beside them."""
    enrolled = EnrolledNet(net, deck_for(net))
    members = set(IndexModel.__annotations__) | {name for name in vars(IndexModel) if callable(vars(IndexModel)[name])
                                                 and not name.startswith("_")}
    assert members == {"classes", "accept", "spot_accept", "card_calibration", "predict", "readings"}
    for name in members - {"predict", "readings"}:
        assert getattr(enrolled, name) == getattr(net, name), name
    windows = np.random.default_rng(1).integers(0, 255, (4, 32, 32, 3), dtype=np.uint8)
    mixed, own = enrolled.readings(windows)
    assert np.allclose(mixed, enrolled.predict(windows)) and np.allclose(own, net.predict(windows))
    assert mixed.shape == own.shape == (4, len(net.classes))


def test_bad_deck_files_are_refused_naming_the_file(net: IndexNet, tmp_path: Path) -> None:
    with pytest.raises(EnrolledDeckError, match="missing.npz"):
        EnrolledDeck.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(EnrolledDeckError, match="junk.npz.*not an .npz"):
        EnrolledDeck.load(tmp_path / "junk.npz")
    good = tmp_path / "good.npz"
    deck_for(net).save(good)
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[:200])
    with pytest.raises(EnrolledDeckError, match="登记牌面文件无效.*cut.npz"):
        EnrolledDeck.load(tmp_path / "cut.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(EnrolledDeckError, match="other.npz"):
        EnrolledDeck.load(tmp_path / "other.npz")
    np.savez(tmp_path / "codes.npz", kind=np.array("guandan-net-deck-1"), codes=np.array(["XX"]),
             embeddings=np.zeros((1, 4)), model=np.array("m"), blend=np.array('{"temperature": 0.05}'),
             report=np.array("{}"))
    with pytest.raises(EnrolledDeckError, match="do not fit"):
        EnrolledDeck.load(tmp_path / "codes.npz")


def test_a_profile_for_one_reader_is_refused_by_the_other(net: IndexNet, tmp_path: Path) -> None:
    deck_for(net).save(tmp_path / "net.npz")
    with pytest.raises(DeckProfileError, match="--reader net"):
        DeckProfile.load(tmp_path / "net.npz")
    glyph = DeckProfile(("SK",), np.zeros((1, 8), np.float32), np.zeros((1, 2), np.float32))
    glyph.save(tmp_path / "glyph.npz")
    with pytest.raises(EnrolledDeckError, match="--reader glyphs"):
        EnrolledDeck.load(tmp_path / "glyph.npz")


def test_a_deck_of_another_network_is_refused(net: IndexNet) -> None:
    deck = deck_for(net)
    other = EnrolledDeck(deck.codes, deck.embeddings, "0123456789abcdef", MIX)
    with pytest.raises(EnrolledDeckError, match="another index network"):
        EnrolledNet(net, other)
