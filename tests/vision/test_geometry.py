"""Regions found by their edges, and their rectification."""

from __future__ import annotations

import numpy as np

from vision.geometry import CARD_H, Region, rectify, rectifying, widened_at_the_start

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
