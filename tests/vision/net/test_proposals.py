"""The network's input: each crop scaled by its own paper level, so dim light and colour casts matter less."""

from __future__ import annotations

import numpy as np

from vision.net.proposals import CROP, PAPER_PERCENTILE, normalise


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
