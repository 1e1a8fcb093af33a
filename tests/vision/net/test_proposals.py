"""Where an index may start (proposals, also where it touches a frame line) and the network's input: each crop
scaled by its own paper level, so dim light and colour casts matter less."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import CARD_H
from vision.net.proposals import CROP, MAX_H, PAPER_PERCENTILE, anchored, components, normalise, propose


def crops_of_paper_and_ink(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    batch = rng.integers(180, 250, (n, CROP, CROP, 3), dtype=np.uint8)  # paper
    batch[:, 8:20, 6:14] = rng.integers(0, 60, (n, 12, 8, 3), dtype=np.uint8)  # an ink stroke
    return batch


def test_paper_is_the_percentile_of_the_brightest_channel() -> None:
    batch = crops_of_paper_and_ink(7, 1)
    x = normalise(batch)
    assert x.shape == (7, 3, CROP, CROP) and x.dtype == np.float32 and x.flags["C_CONTIGUOUS"]
    paper = np.percentile(batch.max(axis=3).reshape(7, -1), PAPER_PERCENTILE, axis=1) / 255.0
    wanted = np.clip(batch / 255.0 / paper[:, None, None, None], 0.0, 1.5).transpose(0, 3, 1, 2) - 0.5
    assert np.allclose(x, wanted, atol=1e-5)


def test_dim_light_reads_as_bright_light() -> None:
    bright = crops_of_paper_and_ink(4, 2)
    dim = (bright * 0.5).astype(np.uint8)
    assert np.abs(normalise(bright) - normalise(dim)).max() < 0.02  # the rounding of halved grey levels


def test_a_black_crop_is_not_blown_up_and_none_is_empty() -> None:
    black = np.zeros((2, CROP, CROP, 3), np.uint8)
    assert np.all(normalise(black) == -0.5)
    assert normalise(black[:0]).shape == (0, 3, CROP, CROP)


def test_an_index_touching_a_frame_line_is_still_proposed() -> None:
    """A court card's rank that touches the thin frame line of its picture, with a short piece of the frame joining
    it to its suit, forms one component too large for a glyph: the rank is proposed once the lines are out."""
    alone = np.zeros((135, 300), np.uint8)
    cv2.putText(alone, "K", (14, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.8, 1, 7)
    cv2.circle(alone, (32, 76), 11, 1, -1)  # the suit below the rank
    (rank,) = [g for g in propose(alone) if g.y < 40]
    framed = alone.copy()
    cv2.line(framed, (rank.x + rank.w - 4, rank.y + rank.h - 2), (280, rank.y + rank.h - 2), 1, 2)  # frame's top
    cv2.line(framed, (rank.x + rank.w - 4, rank.y + rank.h - 2), (rank.x + rank.w - 4, 134), 1, 2)  # its side
    cv2.line(framed, (rank.x + 8, rank.y + rank.h - 3), (rank.x + 8, 70), 1, 2)  # a piece joining rank and suit
    n, _, stats, _ = cv2.connectedComponentsWithStats(framed, connectivity=8)
    assert n == 2 and stats[1][3] > MAX_H * CARD_H  # one component, taller than any glyph
    found = [g for g in propose(framed) if g.y < 40]
    assert len(found) == 1
    (g,) = found
    assert abs(g.x - rank.x) <= 3 and abs(g.y - rank.y) <= 3 and abs(g.h - rank.h) <= 4 and abs(g.w - rank.w) <= 5


def test_long_thin_lines_alone_propose_nothing() -> None:
    lines = np.zeros((135, 300), np.uint8)
    cv2.rectangle(lines, (20, 10), (280, 200), 1, 2)
    cv2.line(lines, (150, 10), (150, 134), 1, 3)
    assert propose(lines) == []


def test_a_glyph_broken_into_pieces_is_also_proposed_whole() -> None:
    """A pale thin "5" whose curve the ink mask parted from its bar (touching only at a corner, a pixel apart):
    each piece alone is proposed by its own height, so the whole is proposed too."""
    whole = np.zeros((135, 300), np.uint8)
    cv2.putText(whole, "5", (20, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 1, 2)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(whole, connectivity=8)
    assert n == 2
    x, y, w, h = (int(v) for v in stats[1][:4])
    broken = whole.copy()
    broken[y + h // 3: y + h // 3 + 2, :] = 0  # a two-pixel band of the stroke lost
    assert cv2.connectedComponentsWithStats(broken, connectivity=8)[0] > 2
    found = propose(broken)
    assert any(abs(g.x - x) <= 1 and abs(g.y - y) <= 1 and abs(g.h - h) <= 2 and abs(g.w - w) <= 2 for g in found)
    assert len(propose(whole)) == 1  # an unbroken glyph is proposed once


def test_a_rank_and_suit_joined_by_a_thin_sliver_are_proposed_apart() -> None:
    """A piece of a card's inner frame line beside the index joins the rank to the suit below it: one component
    as tall as both. Its two parts, cut at the thin join, are proposed too, each with its own box."""
    apart = np.zeros((135, 300), np.uint8)
    cv2.putText(apart, "7", (14, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 1, 6)
    cv2.circle(apart, (26, 60), 9, 1, -1)  # the suit below the rank
    n, labels, stats, _ = cv2.connectedComponentsWithStats(apart, connectivity=8)
    assert n == 3
    rank_label, suit_label = sorted((1, 2), key=lambda i: stats[i][1])
    rank, suit = (tuple(int(v) for v in stats[i][:4]) for i in (rank_label, suit_label))
    ys, xs = np.nonzero(labels == rank_label)
    lowest = (int(xs[ys.argmax()]), int(ys.max()))  # the rank's lowest ink ...
    ys, xs = np.nonzero(labels == suit_label)
    topmost = (int(xs[ys.argmin()]), int(ys.min()))  # ... joined to the suit's highest by a 1 px sliver
    joined = apart.copy()
    cv2.line(joined, lowest, topmost, 1, 1)
    assert cv2.connectedComponentsWithStats(joined, connectivity=8)[0] == 2
    boxes = [(g.x, g.y, g.w, g.h) for g in propose(joined)]
    assert any(b[3] > rank[3] + suit[3] for b in boxes)  # the whole, as before
    # the rank (an index's first glyph) with its own box; the suit's part keeps the sliver's rows above it
    assert any(abs(b[0] - rank[0]) <= 1 and abs(b[1] - rank[1]) <= 1 and abs(b[2] - rank[2]) <= 2
               and abs(b[3] - rank[3]) <= 3 for b in boxes), (rank, boxes)
    assert any(rank[1] + rank[3] <= b[1] <= suit[1] and b[1] + b[3] == suit[1] + suit[3] for b in boxes), boxes


def test_one_glyph_is_not_cut_into_parts() -> None:
    eight = np.zeros((135, 300), np.uint8)
    cv2.putText(eight, "8", (14, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 1, 7)
    assert len(propose(eight)) == 1


def drawn_k(band: np.ndarray) -> None:
    """A rank K in thin strokes, drawn as lines (OpenCV's text differs between its versions)."""
    cv2.line(band, (18, 20), (18, 48), 1, 2)
    cv2.line(band, (19, 36), (36, 20), 1, 2)
    cv2.line(band, (24, 31), (37, 48), 1, 2)


def test_an_index_joined_to_the_art_is_looked_at_at_the_fans_index_size() -> None:
    """A rank touching a disc of the card's art makes one component too large for a glyph, and its strokes are
    thinner than what splits a component into its thick cores: at most its upright stroke is proposed, whose window
    shows not the rank. Anchored at the fan's index size, the rank itself is proposed (its top-left ink); a disc
    lying lower on the card, apart from the rank, anchors nothing."""
    band = np.zeros((135, 300), np.uint8)
    drawn_k(band)
    (rank,) = propose(band)
    cv2.circle(band, (rank.x + rank.w + 26, rank.y + 30), 30, 1, -1)  # the art's disc, touching the rank's leg
    n, _, stats, _ = cv2.connectedComponentsWithStats(band, connectivity=8)
    assert n == 2 and stats[1][2] > MAX_H * CARD_H  # one component, wider than any glyph
    assert all(g.w < 0.5 * rank.w for g in propose(band))  # its upright stroke at most
    (g,) = anchored(components(band), float(rank.h))
    assert (g.x, g.y, g.h) == (rank.x, rank.y, rank.h) and rank.w <= g.w <= rank.w + 4
    alone = np.zeros((135, 300), np.uint8)
    drawn_k(alone)
    cv2.circle(alone, (200, 110), 30, 1, -1)
    assert anchored(components(alone), float(rank.h)) == []
