"""sim:// options and the simulated card mechanics (the ground truth)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from hardware.sim_dealer.config import SimConfig, SimConfigError, parse_sim_url
from hardware.sim_dealer.mechanics import DoubleFed, Fed, Mechanics, Stopped
from hardware.sim_dealer.wire import WireDirection


def test_parse_sim_url() -> None:
    cfg = parse_sim_url("sim://?speed=0&corrupt=0.01&drop=0.02&jam=0.05&seed=7&faces=0")
    assert (cfg.speed, cfg.corrupt, cfg.drop, cfg.jam, cfg.seed, cfg.faces) == (0, 0.01, 0.02, 0.05, 7, False)
    assert parse_sim_url("sim://") == SimConfig()
    assert cfg.scaled(3.0) == 0.0 and SimConfig(speed=2).scaled(3.0) == 1.5


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sim://?nope=1", "unknown sim:// option 'nope'"),
        ("sim://?jam=2", "probability"),
        ("sim://?speed=-1", "not a valid value"),
        ("sim://?speed=fast", "not a valid value"),
        ("sim://?seed=1.5", "not a valid value"),
        ("sim://?faces=maybe", "not a valid value"),
        ("serial:///dev/x", "not a sim:// URL"),
    ],
)
def test_bad_sim_urls(url: str, message: str) -> None:
    with pytest.raises(SimConfigError, match=message):
        parse_sim_url(url)


def test_deck_is_a_full_pack_unless_a_deck_fault_strikes() -> None:
    mech = Mechanics(SimConfig(), random.Random(1))
    mech.load_deck()
    assert len(mech.hopper) == 108 and set(Counter(mech.hopper).values()) == {2}
    short = Mechanics(SimConfig(short=1.0), random.Random(2))
    short.load_deck()
    assert len(short.hopper) == 107 and Counter(short.hopper)[short.missing[0]] == 1
    extra = Mechanics(SimConfig(extra=1.0), random.Random(2))
    extra.load_deck()
    assert len(extra.hopper) == 109 and sorted(Counter(extra.hopper).values())[-1] == 3
    extra.load_deck()  # every deal starts again from the whole pack
    assert len(extra.hopper) == 109 and not extra.missing


def test_feed_faults() -> None:
    jam = Mechanics(SimConfig(jam=1.0), random.Random(1))
    jam.load_deck()
    assert jam.feed() == Stopped("jam") and len(jam.hopper) == 108
    double = Mechanics(SimConfig(double=1.0), random.Random(1))
    double.load_deck()
    first_two = (double.hopper[0], double.hopper[1])
    assert double.feed() == DoubleFed(first_two)
    misread = Mechanics(SimConfig(misread=1.0), random.Random(1))
    misread.load_deck()
    face = misread.hopper[0]
    fed = misread.feed(max_reads=3, min_quality=0.8)
    assert isinstance(fed, Fed) and fed.face == face and len(fed.reads) == 3
    assert all(r.face != face and r.quality < 0.8 for r in fed.reads)
    clean = Mechanics(SimConfig(), random.Random(1))
    clean.load_deck()
    fed = clean.feed(min_quality=0.8)
    assert isinstance(fed, Fed) and fed.reads[0].face == fed.face and fed.reads[0].quality >= 0.9
    clean.place(fed.face, 2)
    assert len(clean.truth()["N"]) == 1


def test_wire_faults_are_seeded_and_per_frame() -> None:
    frames = b"".join(bytes([1, i + 1, 0]) for i in range(200))
    a = WireDirection(SimConfig(drop=0.5, seed=3), random.Random(3)).process(frames, 0.0)
    b = WireDirection(SimConfig(drop=0.5, seed=3), random.Random(3)).process(frames, 0.0)
    assert a == b and 50 < len(a) < 150 and all(len(x) == 3 for _, x in a)
    delayed = WireDirection(SimConfig(delay=1.0, delay_ms=40), random.Random(1)).process(frames[:3], 1.0)
    assert delayed == [(1.04, frames[:3])]
    dup = WireDirection(SimConfig(dup=1.0), random.Random(1)).process(frames[:6], 0.0)
    assert [x for _, x in dup] == [frames[:3], frames[:3], frames[3:6], frames[3:6]]
    corrupt = WireDirection(SimConfig(corrupt=1.0), random.Random(1))
    out = corrupt.process(frames[:3], 0.0)
    assert all(x != y for x, y in zip(out[0][1], frames[:3], strict=True)) and corrupt.corrupted_bytes == 3
    assert WireDirection(SimConfig(), random.Random(1)).process(b"\x05\x06", 0.0) == [(0.0, b"\x05\x06")]
