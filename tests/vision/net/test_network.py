"""The shipped index network: loads, names its classes, and reads the same under both runtimes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.geometry import CARD_H
from vision.index import BAND, ink_mask
from vision.net.network import NONE, IndexNet, ModelMissingError
from vision.net.proposals import CROP, crops, propose
from vision.render import render_face
from vision.types import CARD_CODES


def windows_of(face: np.ndarray) -> np.ndarray:
    scale = CARD_H / face.shape[0]
    upright = cv2.resize(face, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    mask, _ = ink_mask(upright[: int(BAND * CARD_H)])
    glyphs = sorted(propose(mask), key=lambda g: g.x + g.y)
    return crops(upright, glyphs)


def test_model_names_every_card_and_none() -> None:
    net = IndexNet()
    assert set(net.classes) == set(CARD_CODES) | {NONE}
    assert 0.1 < net.temperature < 5  # below 1: trained with label smoothing, the raw net is underconfident
    assert 0.5 <= net.accept <= 1.0 and net.spot_accept >= net.accept


def test_both_runtimes_give_the_same_probabilities() -> None:
    pytest.importorskip("onnxruntime")
    windows = windows_of(render_face("HQ", 200, 1))
    assert windows.shape[1:] == (CROP, CROP, 3)
    a = IndexNet(runtime="onnxruntime").predict(windows)
    b = IndexNet(runtime="opencv").predict(windows)
    assert np.allclose(a, b, atol=1e-3)
    assert np.allclose(a.sum(axis=1), 1.0, atol=1e-5)


def test_first_window_of_a_face_reads_its_card() -> None:
    net = IndexNet()
    for code in ("ST", "HQ", "C7", "DA"):
        p = net.predict(windows_of(render_face(code, 200, 3))[:1])[0]
        assert net.classes[int(np.argmax(p))] == code


def test_missing_or_bad_model_file(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError):
        IndexNet(tmp_path / "none.onnx")
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    (tmp_path / "bad.json").write_text('{"classes": ["SA"], "temperature": 1}')
    with pytest.raises(ModelMissingError):
        IndexNet(tmp_path / "bad.onnx")
    (tmp_path / "nometa.onnx").write_bytes((Path(__file__).resolve().parents[3] / "vision/data/index_net.onnx").read_bytes())
    with pytest.raises(ModelMissingError, match="classes"):
        IndexNet(tmp_path / "nometa.onnx")
    with pytest.raises(ValueError):
        IndexNet(runtime="tensorflow")


def test_a_malformed_card_calibration_is_refused_by_name(tmp_path: Path) -> None:
    """A model whose ``card_calibration`` is malformed does not load with readings reported on a wrong scale."""
    shipped = Path(__file__).resolve().parents[3] / "vision/data/index_net"
    meta = json.loads(shipped.with_suffix(".json").read_text("utf-8"))
    (tmp_path / "m.onnx").write_bytes(shipped.with_suffix(".onnx").read_bytes())
    meta["card_calibration"]["spotted"]["slope"] = "steep"
    (tmp_path / "m.json").write_text(json.dumps(meta), "utf-8")
    with pytest.raises(ModelMissingError, match=r"card_calibration\.spotted\.slope"):
        IndexNet(tmp_path / "m.onnx")
    del meta["card_calibration"]
    (tmp_path / "m.json").write_text(json.dumps(meta), "utf-8")
    assert IndexNet(tmp_path / "m.onnx").card_calibration is None  # an older model: the network's own scale
    assert IndexNet().card_calibration is not None
