"""The training augmentation (the ``train`` extra: skipped where torch is not installed, as in the test command)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch.nn import functional as F  # noqa: E402, N812

from vision.net.network import CLASSES  # noqa: E402
from vision.training.real_data import EITHER_JOKER  # noqa: E402
from vision.training.train_net import augment, fit_temperature, index_loss, right  # noqa: E402

SB, HR = CLASSES.index("SB"), CLASSES.index("HR")


def _grey(batch: torch.Tensor) -> torch.Tensor:
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


def test_without_either_jokers_the_loss_is_cross_entropy_itself() -> None:
    logits = torch.randn(6, len(CLASSES), generator=torch.Generator().manual_seed(0))
    y = torch.tensor([0, 5, SB, HR, len(CLASSES) - 1, 3])
    weight = torch.rand(len(CLASSES), generator=torch.Generator().manual_seed(1)) + 0.5
    assert torch.equal(index_loss(logits, y, weight, 0.05), F.cross_entropy(logits, y, weight=weight, label_smoothing=0.05))


def test_a_joker_its_photo_cannot_name_is_scored_by_both_jokers_together() -> None:
    """A window labelled ``EITHER_JOKER`` costs nothing more when the network splits it between the two jokers,
    and as much as a wrong card when it reads another card; the named windows beside it count as before."""
    split = torch.full((1, len(CLASSES)), -20.0)
    split[0, SB] = split[0, HR] = 5.0
    either = torch.tensor([EITHER_JOKER])
    assert float(index_loss(split, either)) < 1e-6
    assert float(index_loss(split, torch.tensor([SB]))) == pytest.approx(float(torch.log(torch.tensor(2.0))), abs=1e-5)
    other = torch.full((1, len(CLASSES)), -20.0)
    other[0, 7] = 5.0
    assert float(index_loss(other, either)) > 20
    # mixed with named windows: the mean over all, each either window weighted as the jokers are on average
    named = torch.randn(3, len(CLASSES), generator=torch.Generator().manual_seed(2))
    weight = torch.ones(len(CLASSES))
    weight[SB], weight[HR] = 2.0, 4.0
    y = torch.tensor([1, 2, 3])
    both = index_loss(torch.cat([named, other]), torch.cat([y, either]), weight)
    expected = (F.cross_entropy(named, y, weight=weight, reduction="sum") + 3.0 * index_loss(other, either)) / 6.0
    assert float(both) == pytest.approx(float(expected), rel=1e-5)
    # counted right when either joker is likeliest, and the temperature is fitted over such windows too
    assert right(torch.cat([split, other]), torch.cat([either, either])).tolist() == [True, False]
    assert fit_temperature(torch.cat([named, split]), torch.cat([y, either])) > 0
