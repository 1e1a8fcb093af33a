"""Several trainings of the index network joined into one ONNX model that averages what they say.

Two networks trained alike from different seeds are rarely sure of the same wrong card: a pip or a letter one
of them takes for an index the other mostly does not. Averaging their calibrated probabilities (a deep
ensemble) keeps the readings both are sure of and lowers the ones only one is sure of, so the accept threshold
can be lower for the same wrong readings (``bench/vision.py``; ``vision/README.md`` has the figures).

The joined model is one file with the interface of a single network, so the reader, the table, enrolment and
both runtimes (``cv2.dnn``, onnxruntime) use it unchanged: its ``logits`` output is the log of the members' mean
calibrated probability (its temperature is therefore 1), and its ``embedding`` output is the members'
embeddings side by side. Each member's own temperature is read from the JSON file beside it.

Run: ``python -m vision.training.ensemble OUT.onnx MEMBER.onnx MEMBER.onnx ...`` (writes ``OUT.json`` too; the
accept thresholds are then chosen with ``choose_threshold``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT = "windows"


def _member_graph(model: onnx.ModelProto, prefix: str) -> tuple[list[onnx.NodeProto], list[onnx.TensorProto]]:
    """A member's nodes and weights, every name but the shared input prefixed so that members do not clash."""
    graph = model.graph
    source = graph.input[0].name

    def rename(name: str) -> str:
        return INPUT if name == source else (f"{prefix}{name}" if name else name)

    nodes = []
    for node in graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        # an unnamed node stays unnamed: prefixed, every unnamed node of a member (a joined model's own Div, Softmax,
        # ...) would share one name, which onnxruntime refuses
        copy.name = f"{prefix}{node.name}" if node.name else ""
        del copy.input[:]
        copy.input.extend(rename(n) for n in node.input)
        del copy.output[:]
        copy.output.extend(rename(n) for n in node.output)
        nodes.append(copy)
    weights = []
    for tensor in graph.initializer:
        copy = onnx.TensorProto()
        copy.CopyFrom(tensor)
        copy.name = rename(tensor.name)
        weights.append(copy)
    return nodes, weights


def join(members: list[Path], out: Path) -> dict[str, object]:
    """Write the joined model to ``out`` and its class list and training notes beside it; returns the notes."""
    metas = [json.loads(m.with_suffix(".json").read_text("utf-8")) for m in members]
    classes = metas[0]["classes"]
    if any(meta["classes"] != classes for meta in metas):
        raise ValueError("the members name their classes differently")
    nodes: list[onnx.NodeProto] = []
    weights: list[onnx.TensorProto] = []
    probs: list[str] = []
    embeddings: list[str] = []
    opset = 17
    for i, (path, meta) in enumerate(zip(members, metas, strict=True)):
        model = onnx.load(str(path))
        opset = max(opset, max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")))
        prefix = f"m{i}/"
        member_nodes, member_weights = _member_graph(model, prefix)
        nodes += member_nodes
        weights += member_weights
        weights.append(numpy_helper.from_array(np.array(float(meta["temperature"]), np.float32), f"{prefix}t"))
        nodes.append(helper.make_node("Div", [f"{prefix}logits", f"{prefix}t"], [f"{prefix}scaled"]))
        nodes.append(helper.make_node("Softmax", [f"{prefix}scaled"], [f"{prefix}p"], axis=1))
        probs.append(f"{prefix}p")
        embeddings.append(f"{prefix}embedding")
    weights.append(numpy_helper.from_array(np.array(1.0 / len(members), np.float32), "share"))
    weights.append(numpy_helper.from_array(np.array(1e-12, np.float32), "tiny"))
    nodes.append(helper.make_node("Sum", probs, ["sum"]))
    nodes.append(helper.make_node("Mul", ["sum", "share"], ["mean"]))
    nodes.append(helper.make_node("Add", ["mean", "tiny"], ["mean_pos"]))
    nodes.append(helper.make_node("Log", ["mean_pos"], ["logits"]))
    nodes.append(helper.make_node("Concat", embeddings, ["embedding"], axis=1))
    first = onnx.load(str(members[0])).graph.input[0]
    graph = helper.make_graph(nodes, "index_net_ensemble", [first], [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", len(classes)]),
        helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", None])], weights)
    graph.input[0].name = INPUT
    joined = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                               producer_name="guandan-table vision.training.ensemble")
    notes: dict[str, object] = {"ensemble_of": [{"model": m.name, "temperature": meta["temperature"],
                                                 **meta.get("training", {})} for m, meta in zip(members, metas,
                                                                                                 strict=True)]}
    for key in ("held_out_accuracy", "held_out_dark_accuracy", "calibrated_on", "real_photos_trained_on"):
        if key in metas[0].get("training", {}):
            notes[key] = metas[0]["training"][key]
    for key, value in (("classes", json.dumps(classes)), ("temperature", "1.0"), ("training", json.dumps(notes))):
        entry = joined.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(joined)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(joined, str(out))
    out.with_suffix(".json").write_text(json.dumps({"classes": classes, "temperature": 1.0, "training": notes},
                                                   indent=1) + "\n", "utf-8")
    return notes


def window_accuracy(model: Path, windows: Path) -> float:
    """Share of an ``index_data.py`` set's windows whose most probable class is their label."""
    from vision.net.network import IndexNet

    net = IndexNet(model)
    with np.load(windows) as data:
        crops, labels = data["crops"], data["labels"]
    predicted = np.concatenate([net.predict(crops[i:i + 1024]).argmax(axis=1) for i in range(0, len(crops), 1024)])
    return round(float((predicted == labels).mean()), 4)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("members", type=Path, nargs="+", help="trained networks (train_net.py), JSON beside each")
    parser.add_argument("--held", type=Path, help="the held-out designs' windows: their accuracy is recorded")
    parser.add_argument("--held-dark", type=Path, help="the same designs printed light on dark, recorded too")
    args = parser.parse_args(argv)
    if len(args.members) < 2:
        parser.error("an ensemble needs at least two members")
    notes = join(args.members, args.out)
    for key, windows in (("held_out_accuracy", args.held), ("held_out_dark_accuracy", args.held_dark)):
        if windows is not None:
            notes[key] = window_accuracy(args.out, windows)
    meta_path = args.out.with_suffix(".json")
    meta = json.loads(meta_path.read_text("utf-8"))
    meta["training"] = notes
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    print(f"saved {args.out} ({args.out.stat().st_size} bytes), {len(args.members)} members", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
