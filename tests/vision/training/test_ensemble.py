"""Joining trained networks into one model that averages them (onnx, the train extra)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.training.ensemble import join  # noqa: E402

CLASSES = ["SA", "HA", "--"]


def tiny_member(path: Path, bias: list[float], temperature: float) -> Path:
    """A stand-in network: ``logits`` = a fixed bias whatever the window, ``embedding`` = the window's mean."""
    nodes = [helper.make_node("ReduceMean", ["x"], ["m"], axes=[1, 2, 3], keepdims=0, name="pool"),
             helper.make_node("Unsqueeze", ["m", "one"], ["embedding"], name="embed"),
             helper.make_node("Mul", ["embedding", "zero"], ["z"], name="zero_out"),
             helper.make_node("Add", ["z", "bias"], ["logits"], name="scores")]
    weights = [numpy_helper.from_array(np.array(bias, np.float32)[None, :], "bias"),
               numpy_helper.from_array(np.array([1], np.int64), "one"),
               numpy_helper.from_array(np.zeros((1, 1), np.float32), "zero")]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 4, 4])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 3]),
                               helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", 1])], weights)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    path.with_suffix(".json").write_text(json.dumps({"classes": CLASSES, "temperature": temperature}))
    return path


def probabilities(path: Path) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits, _ = session.run(None, {session.get_inputs()[0].name: np.zeros((2, 3, 4, 4), np.float32)})
    assert isinstance(logits, np.ndarray)  # onnxruntime answers with numpy arrays
    return np.exp(logits)


def softmax(z: list[float], t: float) -> np.ndarray:
    e = np.exp(np.array(z) / t)
    return np.asarray(e / e.sum())


def test_a_joined_model_averages_its_members_and_can_itself_be_joined(tmp_path: Path) -> None:
    """Two joined models joined again average all four members (each joined model's own nodes are unnamed, and
    onnxruntime refuses a model whose nodes share a name)."""
    biases = ([3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0])
    members = [tiny_member(tmp_path / f"m{i}.onnx", b, 0.5 + i / 4) for i, b in enumerate(biases)]
    join(members[:2], tmp_path / "ab.onnx")
    join(members[2:], tmp_path / "cd.onnx")
    join([tmp_path / "ab.onnx", tmp_path / "cd.onnx"], tmp_path / "abcd.onnx")
    pair = (softmax(biases[0], 0.5) + softmax(biases[1], 0.75)) / 2
    four = sum(softmax(b, 0.5 + i / 4) for i, b in enumerate(biases)) / 4
    assert np.allclose(probabilities(tmp_path / "ab.onnx")[0], pair, atol=1e-5)
    assert np.allclose(probabilities(tmp_path / "abcd.onnx")[0], four, atol=1e-5)
    assert json.loads((tmp_path / "abcd.json").read_text())["temperature"] == 1.0
