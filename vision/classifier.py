"""The glyph classifiers: two small multilayer perceptrons (rank glyph, suit pip) run with numpy.

Weights live in ``vision/data/index_model.npz`` (well under 1 MB), made by ``vision/training/train_index.py``.
Each network is ``features -> dense(ReLU) -> dense -> softmax``; the last class of each is "not an index glyph"
(``X``), so pips and picture fragments that happen to pair up are rejected instead of guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .types import RANKS, SUITS

MODEL_PATH = Path(__file__).resolve().parent / "data" / "index_model.npz"
RANK_CLASSES: tuple[str, ...] = RANKS + ("X",)
SUIT_CLASSES: tuple[str, ...] = SUITS + ("X",)


class ModelMissingError(RuntimeError):
    """The trained weights file is absent or unreadable."""


@dataclass(frozen=True)
class Mlp:
    """One trained network with its input standardisation."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Class probabilities, one row per feature row."""
        x = (np.atleast_2d(features) - self.mean) / self.scale
        hidden = np.maximum(x @ self.w1 + self.b1, 0.0)
        logits = hidden @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}_{k}": getattr(self, k).astype(np.float32)
                for k in ("mean", "scale", "w1", "b1", "w2", "b2")}

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray], prefix: str) -> Mlp:
        return cls(*(np.asarray(data[f"{prefix}_{k}"], np.float32) for k in ("mean", "scale", "w1", "b1", "w2", "b2")))


@dataclass(frozen=True)
class Ensemble:
    """Several networks for one task; their probabilities are averaged."""

    members: tuple[Mlp, ...]

    def predict(self, features: np.ndarray) -> np.ndarray:
        return np.mean([m.predict(features) for m in self.members], axis=0)


@dataclass(frozen=True)
class GlyphModel:
    """The rank and suit classifiers, each an ensemble of one or more trained networks."""

    rank: Ensemble
    suit: Ensemble

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> GlyphModel:
        try:
            with np.load(path) as data:
                arrays = dict(data)
            count = int(arrays.get("members", np.array(1)))
            ranks = tuple(Mlp.from_arrays(arrays, _prefix("rank", i)) for i in range(count))
            suits = tuple(Mlp.from_arrays(arrays, _prefix("suit", i)) for i in range(count))
        except (OSError, ValueError, KeyError) as exc:
            raise ModelMissingError(f"cannot load the card index model {path}: {exc}") from exc
        return cls(Ensemble(ranks), Ensemble(suits))

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {"members": np.array(len(self.rank.members))}
        for i, (rank, suit) in enumerate(zip(self.rank.members, self.suit.members, strict=True)):
            arrays |= rank.arrays(_prefix("rank", i)) | suit.arrays(_prefix("suit", i))
        # mypy matches **arrays against the keyword allow_pickle: bool too; no key of arrays is named so
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def joined(self, other: GlyphModel) -> GlyphModel:
        """This model with ``other``'s networks added to the ensembles."""
        return GlyphModel(Ensemble(self.rank.members + other.rank.members),
                          Ensemble(self.suit.members + other.suit.members))


def _prefix(task: str, index: int) -> str:
    return task if index == 0 else f"{task}{index}"


def train_mlp(x: np.ndarray, y: np.ndarray, classes: int, *, hidden: int = 128, epochs: int = 40,
              seed: int = 0, lr: float = 2e-3, decay: float = 1e-4) -> Mlp:
    """Train one network with Adam on softmax cross-entropy (deterministic for a given seed)."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = ((x - mean) / scale).astype(np.float32)
    params = [rng.normal(0, np.sqrt(2 / xs.shape[1]), (xs.shape[1], hidden)).astype(np.float32),
              np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, classes)).astype(np.float32),
              np.zeros(classes, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    onehot = np.eye(classes, dtype=np.float32)[y]
    for epoch in range(epochs):
        order = rng.permutation(len(xs))
        rate = lr * (0.5 * (1 + np.cos(np.pi * epoch / epochs)))
        for start in range(0, len(xs), 128):
            idx = order[start:start + 128]
            xb, tb = xs[idx], onehot[idx]
            w1, b1, w2, b2 = params
            pre = xb @ w1 + b1
            hid = np.maximum(pre, 0)
            logits = hid @ w2 + b2
            logits -= logits.max(axis=1, keepdims=True)
            prob = np.exp(logits)
            prob /= prob.sum(axis=1, keepdims=True)
            d_logits = (prob - tb) / len(idx)
            g_w2 = hid.T @ d_logits + decay * w2
            g_b2 = d_logits.sum(axis=0)
            d_hid = (d_logits @ w2.T) * (pre > 0)
            g_w1 = xb.T @ d_hid + decay * w1
            g_b1 = d_hid.sum(axis=0)
            step += 1
            for i, g in enumerate((g_w1, g_b1, g_w2, g_b2)):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                mh = m[i] / (1 - 0.9 ** step)
                vh = v[i] / (1 - 0.999 ** step)
                params[i] -= rate * mh / (np.sqrt(vh) + 1e-8)
    return Mlp(mean.astype(np.float32), scale.astype(np.float32), *params)
