"""vision.components: the same components as OpenCV's own call, whatever the label image's width."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.components import MAX_16BIT_LABELS, connected_components, most_components


def _opencv(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return int(n), labels, stats, centroids


@pytest.mark.parametrize("seed", range(5))
def test_matches_opencv_on_speckled_masks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mask = (rng.random((135, 551)) < 0.3).astype(np.uint8)
    n, labels, stats, centroids = connected_components(mask)
    want_n, want_labels, want_stats, want_centroids = _opencv(mask)
    assert labels.dtype == np.uint16  # a band of the reader's size takes the cheap labels
    assert n == want_n > 100
    assert np.array_equal(labels, want_labels)
    assert np.array_equal(stats, want_stats)
    assert np.array_equal(centroids, want_centroids)


def test_isolated_pixels_reach_the_bound() -> None:
    """The bound is tight: one pixel in every 2x2 block is that many components, none touching."""
    mask = np.zeros((7, 9), np.uint8)
    mask[::2, ::2] = 1
    n, _, _, _ = connected_components(mask)
    assert n - 1 == most_components(mask.shape) == 4 * 5


def test_a_mask_that_could_overflow_16_bits_gets_32_bit_labels() -> None:
    mask = np.zeros((600, 600), np.uint8)
    mask[::2, ::2] = 1  # 90,000 components: more than 16-bit labels hold
    assert most_components(mask.shape) > MAX_16BIT_LABELS
    n, labels, stats, _ = connected_components(mask)
    assert labels.dtype == np.int32
    assert n - 1 == 300 * 300 and int(labels.max()) == 300 * 300
    assert np.array_equal(stats, _opencv(mask)[2])
