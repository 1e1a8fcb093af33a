"""The training augmentation (the ``train`` extra: skipped where torch is not installed, as in the test command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from torch import Tensor

torch = pytest.importorskip("torch")

from vision.training.train_net import augment  # noqa: E402


def _grey(batch: Tensor) -> Tensor:
    """Which windows came out grey: their channels differ only by the added sensor noise."""
    return (batch[:, 0] - batch[:, 1]).abs().mean(dim=(1, 2)) < 0.1


def test_windows_kept_in_colour_are_never_turned_grey() -> None:
    """A red joker turned grey is a black joker's index: trained on as HR, it taught the network to doubt every
    black joker (``--colour-only HR``). Red windows only: the others are turned grey one time in ten, these never."""
    red = torch.zeros(400, 3, 32, 32)
    red[:, 0], red[:, 1], red[:, 2] = 0.4, -0.4, -0.4
    free = _grey(augment(red.clone(), torch.Generator().manual_seed(1)))
    assert 15 <= int(free.sum()) <= 70  # about 40 of 400
    kept = augment(red.clone(), torch.Generator().manual_seed(1), torch.ones(400, dtype=torch.bool))
    assert not _grey(kept).any()
    # only the windows asked for: half kept in colour, the other half still turned grey as often
    half = torch.arange(400) < 200
    mixed = _grey(augment(red.clone(), torch.Generator().manual_seed(1), half))
    assert not mixed[:200].any() and bool(torch.equal(mixed[200:], free[200:]))
