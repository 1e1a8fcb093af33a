"""The index network: a small convolutional net (trained with PyTorch, shipped as ONNX) run with OpenCV's dnn.

``IndexNet.predict(crops)`` gives, for each window of ``vision.proposals``, the probability of each card code
starting an index there and of none (``NONE``). The weights, ``vision/data/index_net.onnx``, are made by
``python -m vision.training.train_net`` (see ``vision/README.md``); the class order and the temperature are
stored beside it (``index_net.json``) with the accept thresholds chosen on held-out real photos, so a model and the code reading it cannot disagree about which output is
which card.

Two runtimes can run the model: OpenCV's ``cv2.dnn`` (the default: no extra package on the table) and
onnxruntime when it is installed (as fast as OpenCV 5.1's ``cv2.dnn`` on this CPU with one thread, faster than
OpenCV 4's: ``bench/vision.py``'s ``runtimes`` figure).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from ..types import CARD_CODES
from .card_calibration import CardCalibration, CardCalibrationError, from_meta
from .proposals import normalise

MODEL_PATH = Path(__file__).resolve().parents[1] / "data" / "index_net.onnx"
NONE = "--"
#: what the network's outputs stand for, in order: the 54 cards' indices, then "not an index"
CLASSES: tuple[str, ...] = CARD_CODES + (NONE,)
#: accept thresholds for a model whose ``index_net.json`` names none
DEFAULT_ACCEPT = 0.85
DEFAULT_SPOT_ACCEPT = 0.9


class ModelMissingError(RuntimeError):
    """The trained index network is absent or unreadable."""


class IndexModel(Protocol):
    """What the readers (``vision.net.reader``, ``vision.net.spotting``) ask of the network that reads windows:
    ``IndexNet`` alone, or with an enrolled deck (``vision.net.enrolled.EnrolledNet``), which reads the same
    windows with the deck's evidence mixed in and keeps the network's thresholds and card calibration."""

    #: what the probabilities' columns stand for: the card codes, then ``NONE``
    classes: tuple[str, ...]
    #: the probability at which a window in a card outline is taken as an index
    accept: float
    #: the stricter one for a spotted index (no card outline) and for a joker
    spot_accept: float
    #: what a reported card's confidence means on real photos; None: the network's own
    card_calibration: CardCalibration | None

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities (N, classes) for uint8 windows (N, CROP, CROP, 3)."""
        ...

    def readings(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``predict``'s probabilities and the network's own (the same array where no deck is enrolled)."""
        ...


class IndexNet:
    """The trained index network behind one runtime; ``classes`` names its outputs."""

    def __init__(self, path: Path = MODEL_PATH, *, runtime: str = "opencv", threads: int = 1) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ModelMissingError(f"cannot read the card index network {path}: {exc}") from exc
        self.path = path
        self.runtime = runtime
        try:
            meta = json.loads(path.with_suffix(".json").read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelMissingError(f"cannot read the card index network's classes {path.with_suffix('.json')}: "
                                    f"{exc}") from exc
        if runtime == "onnxruntime":
            try:  # optional, and imported only when asked for: loaded, it holds about 18 MB the table does not use
                import onnxruntime as ort
            except ImportError as exc:
                raise ModelMissingError("onnxruntime is not installed (pip install onnxruntime), use runtime "
                                        "opencv") from exc
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            try:
                self._session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own exception types for bad files
                raise ModelMissingError(f"cannot load the card index network {path}: {exc}") from exc
            self._input = self._session.get_inputs()[0].name
        elif runtime == "opencv":
            try:
                self._net = cv2.dnn.readNetFromONNX(str(path))
            except cv2.error as exc:
                raise ModelMissingError(f"cannot load the card index network {path}: {exc}") from exc
            cv2.setNumThreads(threads)
        else:
            raise ValueError(f"unknown runtime {runtime!r} (onnxruntime or opencv)")
        try:
            self.classes: tuple[str, ...] = tuple(meta["classes"])
            #: temperature fitted on held-out photos so that probabilities mean what they say
            self.temperature = float(meta.get("temperature", "1.0"))
            #: the calibrated probability at which a window is taken as an index (chosen on held-out photos so
            #: that wrong readings above it are rare), and the stricter one for spotted indices (no card outline)
            self.accept = float(meta.get("accept", DEFAULT_ACCEPT))
            self.spot_accept = float(meta.get("spot_accept", max(self.accept, DEFAULT_SPOT_ACCEPT)))
        except (KeyError, ValueError, TypeError) as exc:
            raise ModelMissingError(f"the card index network {path} carries no class list: {exc}") from exc
        try:
            #: what a reported card's confidence means on real photos (``card_calibration``); None: the network's own
            self.card_calibration = from_meta(meta.get("card_calibration"))
        except CardCalibrationError as exc:
            raise ModelMissingError(f"the card index network {path.with_suffix('.json')}: {exc}") from exc

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw scores (N, classes) and unit-length embeddings (N, D) for uint8 crops (N, CROP, CROP, 3)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 1), np.float32)
        x = normalise(crops)
        if self.runtime == "onnxruntime":
            logits, embedding = self._session.run(None, {self._input: x})
        else:
            self._net.setInput(x)
            logits, embedding = self._net.forward(["logits", "embedding"])
        embedding = np.asarray(embedding, np.float32)
        embedding /= np.maximum(np.linalg.norm(embedding, axis=1, keepdims=True), 1e-6)
        return np.asarray(logits, np.float32), embedding

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities (N, classes)."""
        logits, _ = self.run(crops)
        return self.calibrated(logits)

    def readings(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``predict``'s probabilities and the network's own, for a reader that must know where they differ: here
        one and the same array; a reader with an enrolled deck (``EnrolledNet.readings``) gives the two apart."""
        probs = self.predict(crops)
        return probs, probs

    def calibrated(self, logits: np.ndarray) -> np.ndarray:
        """Raw scores (N, classes) as calibrated probabilities: the softmax at the fitted temperature."""
        z = logits / self.temperature
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)
