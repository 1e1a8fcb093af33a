"""Train the index network with PyTorch on CPU and export it to ONNX (``vision/data/index_net.onnx``).

Input: the windows made by ``index_data.py`` (training designs) and, for choosing the temperature and
reporting, the held-out designs' windows. The network is small on purpose (about 5 M multiply-adds a window,
about 1.3 MB of weights): a table reads tens of windows a frame on a Raspberry Pi's CPU. Training augments each
batch (shift and scale of the window, contrast, brightness, channel order, grey) so that the exact framing of a
proposal and the colour of a deck matter less. Deterministic for a given seed (one thread per op).

One command reproduces the committed model on this machine's CPU (see ``vision/README.md``)::

    python -m vision.training.render_decks /tmp/guandan-decks
    python -m vision.training.index_data /tmp/idx/train.npz --scenes-per-deck 40
    python -m vision.training.index_data /tmp/idx/held.npz --held-out --scenes-per-deck 12 --seed 99
    python -m vision.training.train_net /tmp/idx/train.npz /tmp/idx/train2.npz --held /tmp/idx/held.npz

Needs the ``train`` extra (``pip install -e '.[train]'``: torch, onnx, Pillow).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

from vision.net.network import CLASSES, MODEL_PATH
from vision.net.proposals import CROP, normalise


def make_net(classes: int) -> nn.Sequential:
    """3x3 convolutions with batch norm: one at 32 px, one at 16, two at 8 and two at 4 (the last two scales
    hold the glyphs' shapes; their extra layers cost little at that size), then two dense layers."""
    def conv(cin: int, cout: int, pool: bool = False) -> list[nn.Module]:
        layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
        return layers + ([nn.MaxPool2d(2)] if pool else [])

    return nn.Sequential(*conv(3, 16, True), *conv(16, 32, True), *conv(32, 32), *conv(32, 64, True),
                         *conv(64, 64), *conv(64, 96), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(96 * (CROP // 8) ** 2, 128), nn.ReLU(), nn.Linear(128, classes))


def augment(x: torch.Tensor, gen: torch.Generator, keep_colour: torch.Tensor | None = None) -> torch.Tensor:
    """Random framing, resolution, contrast, brightness, channel order and grey for a normalised batch (N, 3, H, W);
    the windows where ``keep_colour`` (N booleans) is true are never turned grey (see ``--colour-only``)."""
    n, device = x.shape[0], x.device
    scale = 1 + (torch.rand(n, generator=gen, device=device) - 0.5) * 0.3
    shift = (torch.rand(n, 2, generator=gen, device=device) - 0.5) * 0.16
    angle = (torch.rand(n, generator=gen, device=device) - 0.5) * 0.2
    theta = torch.zeros(n, 2, 3, device=device)
    theta[:, 0, 0] = scale * torch.cos(angle)
    theta[:, 0, 1] = -scale * torch.sin(angle)
    theta[:, 1, 0] = scale * torch.sin(angle)
    theta[:, 1, 1] = scale * torch.cos(angle)
    theta[:, :, 2] = shift
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x + 0.5, grid, padding_mode="border", align_corners=False)
    low = torch.rand(n, generator=gen, device=device) < 0.3  # a small index in a phone photo: fewer pixels, scaled up again
    if low.any():
        side = int(torch.randint(12, 25, (1,), generator=gen, device=device))
        small = F.interpolate(x[low], size=(side, side), mode="bilinear", align_corners=False, antialias=True)
        x[low] = F.interpolate(small, size=tuple(x.shape[-2:]), mode="bilinear", align_corners=False)
    contrast = 0.6 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen, device=device)
    x = 1 - (1 - x) * contrast  # ink fainter or stronger against the paper
    x = x * (0.85 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen, device=device))
    swap = torch.rand(n, generator=gen, device=device) < 0.15
    if swap.any():
        x[swap] = x[swap][:, torch.randperm(3, generator=gen, device=device)]
    grey = torch.rand(n, generator=gen, device=device) < 0.1
    if keep_colour is not None:
        grey &= ~keep_colour
    if grey.any():
        x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    x = x + 0.03 * torch.randn(x.shape, generator=gen, device=device)
    return x - 0.5


def load(path: Path) -> tuple[torch.Tensor, torch.Tensor, list[str], np.ndarray, list[str]]:
    with np.load(path) as data:
        x = torch.from_numpy(normalise(data["crops"]))
        y = torch.from_numpy(data["labels"].astype(np.int64))
        return x, y, [str(c) for c in data["classes"]], data["design"], [str(d) for d in data["designs"]]


def evaluate(net: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, torch.Tensor]:
    net.eval()
    device = next(net.parameters()).device
    with torch.no_grad():
        logits = torch.cat([net(x[i:i + 2048].to(device)).cpu() for i in range(0, len(x), 2048)])
    return float((logits.argmax(1) == y).float().mean()), logits


def fit_temperature(logits: torch.Tensor, y: torch.Tensor) -> float:
    """The softmax temperature that minimises the negative log-likelihood of held-out labels."""
    best, best_t = float("inf"), 1.0
    for t in np.exp(np.linspace(np.log(0.15), np.log(4.0), 61)):
        nll = float(F.cross_entropy(logits / float(t), y))
        if nll < best:
            best, best_t = nll, float(t)
    return best_t


class WithEmbedding(nn.Module):
    """The trained net giving its last hidden layer too: the embedding that enrolment compares."""

    def __init__(self, net: nn.Sequential) -> None:
        super().__init__()
        self.body = net[:-1]
        self.head = net[-1]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.body(x)
        return self.head(features), features


def export(net: nn.Sequential, classes: list[str], temperature: float, out: Path, info: dict[str, object]) -> None:
    net.cpu().eval()
    dummy = torch.zeros(1, 3, CROP, CROP)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(WithEmbedding(net).eval(), (dummy,), str(out), input_names=["windows"],
                      output_names=["logits", "embedding"],
                      dynamic_axes={"windows": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
                      opset_version=17, dynamo=False)
    model = onnx.load(str(out))
    for key, value in (("classes", json.dumps(classes)), ("temperature", f"{temperature:.4f}"),
                       ("training", json.dumps(info))):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    # the runtimes read the class order and the temperature from beside the model (cv2.dnn has no metadata)
    out.with_suffix(".json").write_text(json.dumps({"classes": classes, "temperature": round(temperature, 4),
                                                    "training": info}, indent=1) + "\n", "utf-8")


def load_init(net: nn.Sequential, path: Path) -> None:
    """Start ``net`` from trained weights: a ``--save-state`` file, or an exported model (``.onnx``, where batch
    norm is folded into the convolutions: the norms become identities and are kept frozen while fine-tuning)."""
    if path.suffix != ".onnx":
        net.load_state_dict(torch.load(path, weights_only=True))
        return
    model = onnx.load(str(path))
    weights = {i.name: torch.from_numpy(onnx.numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    layers = [n for n in model.graph.node if n.op_type in ("Conv", "Gemm")]
    convs = [m for m in net if isinstance(m, nn.Conv2d)]
    norms = [m for m in net if isinstance(m, nn.BatchNorm2d)]
    dense = [m for m in net if isinstance(m, nn.Linear)]
    assert len(layers) == len(convs) + len(dense), f"{path} is not this network"
    with torch.no_grad():
        for node, conv, norm in zip(layers, convs, norms, strict=False):
            conv.weight.copy_(weights[node.input[1]])
            norm.weight.fill_(1.0)
            norm.bias.copy_(weights[node.input[2]])
            if norm.running_mean is None or norm.running_var is None:
                raise ValueError(f"{path}: the network's batch norms keep no running statistics")
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        for node, linear in zip(layers[len(convs):], dense, strict=True):
            linear.weight.copy_(weights[node.input[1]])
            linear.bias.copy_(weights[node.input[2]])


def _freeze_norms(net: nn.Module) -> None:
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def _cap_none(x: torch.Tensor, y: torch.Tensor, none: int, ratio: float,
              gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """At most ``ratio`` "no index" windows per index window (a random share of them)."""
    is_none = torch.nonzero(y == none).flatten()
    cap = int(ratio * int((y != none).sum()))
    if len(is_none) <= cap:
        return x, y
    drop = is_none[torch.randperm(len(is_none), generator=gen)[: len(is_none) - cap]]
    keep = torch.ones(len(y), dtype=torch.bool)
    keep[drop] = False
    return x[keep], y[keep]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("train", type=Path, nargs="+", help="training windows (one or more index_data outputs)")
    parser.add_argument("--held", type=Path, required=True, help="held-out designs' windows (temperature, report)")
    parser.add_argument("--held-dark", type=Path,
                        help="the held-out designs printed light on dark (index_data --dark --held-out), reported")
    parser.add_argument("--real", type=Path, action="append", default=[],
                        help="windows cut from real photos (real_data.py, the split's train part)")
    parser.add_argument("--real-repeat", type=int, default=4, help="each real window is seen this often an epoch")
    parser.add_argument("--calibration", type=Path,
                        help="real photos' windows for the temperature (the split's calibration part); "
                             "default: the held-out designs")
    parser.add_argument("--init", type=Path, help="start from these weights (a --save-state file or an exported "
                                                  ".onnx model): fine-tuning, with batch norm statistics frozen")
    parser.add_argument("--save-state", type=Path, help="also save the trained weights here (for --init)")
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu",
                        help="where to train: cpu (deterministic for a seed) or an accelerator, e.g. cuda")
    parser.add_argument("--none-per-card", type=float, default=1.3,
                        help="at most this many 'no index' windows per index window (rendered windows)")
    parser.add_argument("--colour-only", default="",
                        help="cards (comma-separated codes) whose windows are never turned grey: those told from another "
                             "by colour alone (HR: a red joker turned grey is a black joker's index, so training on it "
                             "as HR teaches the network to doubt every black joker)")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    colour_codes = [code for code in args.colour_only.split(",") if code]
    unknown = [code for code in colour_codes if code not in CLASSES]
    if unknown:  # said before the sets are loaded, which takes minutes
        parser.error(f"--colour-only names no card: {', '.join(unknown)}")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    gen = torch.Generator().manual_seed(args.seed)  # choosing the "no index" windows, on the CPU wherever it trains
    parts = [load(path) for path in args.train]
    classes = parts[0][2]
    assert all(p[2] == classes for p in parts), "the training sets name their classes differently"
    none = classes.index(classes[-1])
    x, y = _cap_none(torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts]), none,
                     args.none_per_card, gen)
    rendered = len(y)
    real_photos: list[str] = []
    if args.real:
        real = [load(path) for path in args.real]
        assert all(p[2] == classes for p in real), "the real windows name their classes differently"
        rx, ry = torch.cat([p[0] for p in real]), torch.cat([p[1] for p in real])
        real_photos = sorted({name for p in real for name in p[4]})
        x = torch.cat([x] + [rx] * args.real_repeat)
        y = torch.cat([y] + [ry] * args.real_repeat)
    hx, hy, held_classes, _, held_designs = load(args.held)
    assert classes == held_classes, "the two sets name their classes differently"
    counts = torch.bincount(y, minlength=len(classes)).float()
    weight = (counts.sum() / (len(classes) * counts.clamp(min=1))).clamp(max=4.0)
    print(f"{rendered} rendered and {len(y) - rendered} real training windows ({len(real_photos)} photos), "
          f"{len(hy)} held-out windows ({len(held_designs)} designs)", file=sys.stderr)
    net = make_net(len(classes))
    if args.init:
        load_init(net, args.init)
    if device.type != "cpu":  # the training windows and every random draw of an epoch on the accelerator
        net, x, y, weight = net.to(device), x.to(device), y.to(device), weight.to(device)
        gen = torch.Generator(device=device).manual_seed(args.seed)
        torch.backends.cudnn.benchmark = True
    colour_only = torch.tensor([classes.index(code) for code in colour_codes], dtype=torch.long, device=device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * ((len(y) + args.batch - 1) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    start = time.monotonic()
    for epoch in range(args.epochs):
        net.train()
        if args.init:
            _freeze_norms(net)
        order = torch.randperm(len(y), generator=gen, device=device)
        total = torch.zeros((), device=device)
        for i in range(0, len(y), args.batch):
            idx = order[i:i + args.batch]
            keep = torch.isin(y[idx], colour_only) if len(colour_only) else None
            logits = net(augment(x[idx], gen, keep))
            loss = F.cross_entropy(logits, y[idx], weight=weight, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.detach() * len(idx)
        acc, _ = evaluate(net, hx, hy)
        print(f"epoch {epoch + 1}/{args.epochs}: loss {float(total) / len(y):.4f}, held-out designs accuracy {acc:.4f}, "
              f"{time.monotonic() - start:.1f} s", file=sys.stderr)
    acc, held_logits = evaluate(net, hx, hy)
    info: dict[str, object] = {"train_windows": len(y), "rendered_windows": rendered,
                               "held_out_windows": len(hy), "held_out_designs": held_designs,
                               "held_out_accuracy": round(acc, 4), "epochs": args.epochs, "seed": args.seed,
                               "fine_tuned_from": str(args.init.name) if args.init else None,
                               "colour_only": colour_codes,
                               "real_photos_trained_on": real_photos}
    if args.held_dark:
        dx, dy, dark_classes, _, _ = load(args.held_dark)
        assert dark_classes == classes, "the dark held-out windows name their classes differently"
        info["held_out_dark_accuracy"] = round(evaluate(net, dx, dy)[0], 4)
    if args.calibration:
        cx, cy, cal_classes, _, cal_photos = load(args.calibration)
        assert cal_classes == classes, "the calibration windows name their classes differently"
        cal_acc, cal_logits = evaluate(net, cx, cy)
        temperature = fit_temperature(cal_logits, cy)
        info |= {"calibrated_on": f"{len(set(cal_photos))} real photos (cardcounter calibration part)",
                 "calibration_windows": len(cy), "calibration_accuracy": round(cal_acc, 4)}
    else:
        temperature = fit_temperature(held_logits, hy)
        info["calibrated_on"] = "held-out designs' windows"
    export(net, classes, temperature, args.out, info)
    if args.save_state:
        torch.save(net.state_dict(), args.save_state)
    print(f"saved {args.out} ({args.out.stat().st_size} bytes), temperature {temperature:.3f}, "
          f"held-out accuracy {acc:.4f}, {info.get('calibration_accuracy', '-')} on calibration photos, "
          f"{time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
