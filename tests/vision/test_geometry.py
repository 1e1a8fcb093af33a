"""Regions found by their edges, and their rectification."""

from __future__ import annotations

import numpy as np

from vision.geometry import (
    CARD_H,
    Region,
    box_intersection,
    box_iou,
    box_overlap,
    clear_of_edges,
    raised_at_the_top,
    rectify,
    rectifying,
    widened_at_the_start,
)

CORNERS = np.array([[100, 50], [400, 50], [400, 350], [100, 350]], np.float32)  # 300 x 300: one px a flat px


def test_a_region_is_widened_at_its_start_only_where_its_outline_cut_off_much() -> None:
    near = np.array([[95, 50], [400, 50], [400, 350], [95, 350]], np.float32)  # 5 px out: ordinary
    assert widened_at_the_start(Region(CORNERS, 9e4, near), 0.05, 0.02) is None
    assert widened_at_the_start(Region(CORNERS, 9e4), 0.05, 0.02) is None
    cut = np.array([[70, 60], [400, 50], [400, 350], [70, 340]], np.float32)  # 30 px out at the left end
    wider = widened_at_the_start(Region(CORNERS, 9e4, cut), 0.05, 0.02)
    assert wider is not None
    assert np.allclose(wider.corners[1:3], CORNERS[1:3])  # the right end stays
    assert np.allclose(wider.corners[[0, 3], 0], 100 - 30 - 0.02 * CARD_H, atol=1)  # past it, by the margin


def test_rectify_warps_by_the_rectifying_transform() -> None:
    image = np.zeros((400, 500, 3), np.uint8)
    image[50:351, 100:250] = 255  # the region's left half white
    region = Region(CORNERS, 9e4)
    flat, inverse = rectify(image, region, 0)
    forward, width = rectifying(region, 0)
    assert flat.shape[:2] == (CARD_H, width) and np.allclose(np.linalg.inv(forward), inverse)
    assert flat[:, : width // 2 - 2].min() == 255 and flat[:, width // 2 + 2:].max() == 0


def test_a_region_is_raised_at_the_end_of_its_top_side_where_what_was_found_sticks_out_above() -> None:
    wide = np.array([[100, 50], [700, 50], [700, 350], [100, 350]], np.float32)  # 600 x 300: two card heights
    flush = np.array([[100, 48], [700, 48], [700, 350], [100, 350]], np.float32)  # 2 px out: ordinary
    assert raised_at_the_top(Region(wide, 1.8e5, flush), 0.02, 0.02, 0.69) is None
    assert raised_at_the_top(Region(wide, 1.8e5), 0.02, 0.02, 0.69) is None
    # the card on top lies turned: its top-left corner 30 px above the outline, 150 px from the right end
    turned = np.array([[100, 50], [550, 20], [700, 50], [700, 350], [100, 350]], np.float32)
    raised = raised_at_the_top(Region(wide, 1.8e5, turned), 0.02, 0.02, 0.69)
    assert raised is not None
    assert np.allclose(raised.corners[[0, 2, 3]], wide[[0, 2, 3]])  # the left end and the bottom stay
    assert np.allclose(raised.corners[1], [700, 50 - 30 - 0.02 * CARD_H], atol=1)  # past it, by the margin
    # the same corner in the left half of a fan is the left end's: only that end rises
    early = np.array([[100, 50], [250, 20], [700, 50], [700, 350], [100, 350]], np.float32)
    raised = raised_at_the_top(Region(wide, 1.8e5, early), 0.02, 0.02, 0.69)
    assert raised is not None and np.allclose(raised.corners[1:], wide[1:])
    assert np.allclose(raised.corners[0], [100, 50 - 30 - 0.02 * CARD_H], atol=1)


def test_box_measures_of_two_boxes() -> None:
    big, small, apart = (0, 0, 100, 50), (80, 40, 40, 20), (200, 200, 10, 10)
    assert box_intersection(big, small) == 20 * 10
    assert box_iou(big, small) == 200 / (5000 + 800 - 200)
    assert box_overlap(big, small) == 200 / 800  # of the smaller box
    assert box_overlap((10, 10, 20, 20), big) == 1.0  # wholly inside
    assert box_iou(big, apart) == box_overlap(big, apart) == 0.0
    assert box_iou(big, big) == 1.0


def test_a_box_clear_of_the_edges_is_wholly_inside_the_image() -> None:
    shape = (100, 200, 3)
    assert clear_of_edges((10, 10, 50, 50), shape)
    assert not clear_of_edges((0, 10, 50, 50), shape)  # cut by the left edge
    assert not clear_of_edges((150, 10, 50, 50), shape)  # runs to the right edge
    assert not clear_of_edges((10, 60, 50, 40), shape)  # runs to the bottom edge
