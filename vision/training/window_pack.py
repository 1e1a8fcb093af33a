"""Pack a set of training windows (an ``index_data.py`` or ``real_data.py`` output) small enough to carry to a
machine that trains but cannot render: an accelerator without the Debian font and card-art packages.

A set's crops take about 1.8 KB a window as a compressed ``.npz`` (a stage-1 training run reads about 250,000
windows), too much to send over a link limited to tens of megabytes. Packed, the crops are laid in tiles of 64 x 64
windows and each tile is stored as a JPEG (about 0.35 KB a window at quality 90, 0.28 KB at 85, which
``accelerator/pack.sh`` uses for the rendered sets; the labels and every other array are kept exactly). JPEG is lossy: a window differs from its rendering by about 2.5 grey levels on average, less
than the noise that training's augmentation adds (``train_net.augment``, 0.03 of the range, about 8 levels), and
the windows of real photos were JPEG already. Unpacking writes the ``.npz`` the training reads.

``--none-per-card`` leaves out, before packing, the "no index" windows that training would leave out anyway
(``train_net --none-per-card``, a random share): a rendered set is about three quarters "no index" windows.

``--at-most N`` packs a random N of the windows (a held-out set that only watches training's progress).

    python -m vision.training.window_pack pack SET.npz SET.pack.npz [--quality 90] [--none-per-card 1.3]
                                                                    [--at-most N]
    python -m vision.training.window_pack unpack SET.pack.npz SET.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.net.proposals import CROP

#: windows a tile holds on a side (a tile is TILE * CROP pixels square)
TILE = 64


class PackError(ValueError):
    """A file that is not a packed set of windows, or whose tiles do not decode to the windows it says it holds."""


def pack(arrays: dict[str, np.ndarray], quality: int = 90) -> dict[str, np.ndarray]:
    """The arrays of a window set with ``crops`` (N, CROP, CROP, 3) replaced by JPEG tiles (``tiles``, the encoded
    bytes one after another, and ``tile_ends``, where each ends) and ``count`` (N)."""
    crops = arrays["crops"]
    if crops.ndim != 4 or crops.shape[1:] != (CROP, CROP, 3) or crops.dtype != np.uint8:
        raise PackError(f"crops must be (N, {CROP}, {CROP}, 3) uint8, not {crops.shape} {crops.dtype}")
    per_tile = TILE * TILE
    encoded: list[np.ndarray] = []
    for start in range(0, len(crops), per_tile):
        chunk = crops[start:start + per_tile]
        padded = np.zeros((per_tile, CROP, CROP, 3), np.uint8)
        padded[:len(chunk)] = chunk
        mosaic = padded.reshape(TILE, TILE, CROP, CROP, 3).transpose(0, 2, 1, 3, 4).reshape(TILE * CROP,
                                                                                           TILE * CROP, 3)
        ok, buffer = cv2.imencode(".jpg", mosaic, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise PackError("OpenCV could not encode a tile")
        encoded.append(buffer.reshape(-1))
    ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    rest = {key: value for key, value in arrays.items() if key != "crops"}
    return rest | {"tiles": np.concatenate(encoded) if encoded else np.zeros(0, np.uint8), "tile_ends": ends,
                   "count": np.array(len(crops), np.int64), "jpeg_quality": np.array(quality, np.int64)}


def without_surplus_none(arrays: dict[str, np.ndarray], ratio: float, seed: int = 0) -> dict[str, np.ndarray]:
    """The set with at most ``ratio`` "no index" windows (the last class) per index window, a random share of them
    kept; every per-window array is cut alike."""
    labels = arrays["labels"]
    none = len(arrays["classes"]) - 1
    is_none = np.flatnonzero(labels == none)
    cap = int(ratio * int((labels != none).sum()))
    if len(is_none) <= cap:
        return arrays
    keep = np.ones(len(labels), bool)
    keep[np.random.default_rng(seed).choice(is_none, len(is_none) - cap, replace=False)] = False
    return _cut(arrays, keep)


def some_of(arrays: dict[str, np.ndarray], count: int, seed: int = 0) -> dict[str, np.ndarray]:
    """A random ``count`` of the set's windows (all of them where it holds no more), in their order."""
    labels = arrays["labels"]
    if len(labels) <= count:
        return arrays
    keep = np.zeros(len(labels), bool)
    keep[np.random.default_rng(seed).choice(len(labels), count, replace=False)] = True
    return _cut(arrays, keep)


def _cut(arrays: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    """Every per-window array of the set cut to ``keep``; the lists of classes and designs kept whole."""
    return {key: value[keep] if key not in ("classes", "designs") and value.ndim and len(value) == len(keep)
            else value for key, value in arrays.items()}


def unpack(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The window set a :func:`pack` result holds, ``crops`` decoded from its tiles."""
    missing = {"tiles", "tile_ends", "count"} - set(arrays)
    if missing:
        raise PackError(f"not a packed window set: no {', '.join(sorted(missing))}")
    count, tiles, ends = int(arrays["count"]), arrays["tiles"], arrays["tile_ends"]
    per_tile = TILE * TILE
    if len(ends) != (count + per_tile - 1) // per_tile:
        raise PackError(f"{len(ends)} tiles cannot hold {count} windows")
    crops = np.empty((len(ends) * per_tile, CROP, CROP, 3), np.uint8)
    start = 0
    for i, end in enumerate(ends):
        mosaic = cv2.imdecode(tiles[start:int(end)], cv2.IMREAD_COLOR)
        if mosaic is None or mosaic.shape != (TILE * CROP, TILE * CROP, 3):
            raise PackError(f"tile {i} does not decode to a {TILE * CROP} px square")
        windows = mosaic.reshape(TILE, CROP, TILE, CROP, 3).transpose(0, 2, 1, 3, 4)
        crops[i * per_tile:(i + 1) * per_tile] = windows.reshape(-1, CROP, CROP, 3)
        start = int(end)
    rest = {key: value for key, value in arrays.items() if key not in ("tiles", "tile_ends", "count", "jpeg_quality")}
    return rest | {"crops": crops[:count]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("pack", "unpack"))
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--quality", type=int, default=90, help="JPEG quality of the tiles (pack)")
    parser.add_argument("--none-per-card", type=float,
                        help="pack at most this many 'no index' windows per index window (a random share)")
    parser.add_argument("--at-most", type=int, help="pack a random this many of the windows")
    args = parser.parse_args(argv)
    try:
        with np.load(args.source) as data:
            arrays = {key: data[key] for key in data.files}
        if args.action == "pack" and args.none_per_card is not None:
            arrays = without_surplus_none(arrays, args.none_per_card)
        if args.action == "pack" and args.at_most is not None:
            arrays = some_of(arrays, args.at_most)
        result = pack(arrays, args.quality) if args.action == "pack" else unpack(arrays)
    except (OSError, ValueError) as error:
        print(f"{args.source}: {error}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # the tiles are compressed already; an unpacked set is read where it is made. mypy matches **result against
    # the keyword allow_pickle: bool too; no array of a window set is named so
    np.savez(args.out, **result)  # type: ignore[arg-type]
    print(f"{args.action}ed {args.source} -> {args.out} ({args.out.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
