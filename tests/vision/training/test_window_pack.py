"""Packing training windows to carry them: real photo content through JPEG tiles and back, labels kept exactly."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.net.proposals import CROP
from vision.training.window_pack import TILE, PackError, main, pack, some_of, unpack, without_surplus_none

CLASSES = np.array(["S2", "HR", "none"])


def _windows_of(photo: Path, count: int) -> np.ndarray:
    """``count`` windows cut on a grid from a real photo (more than one tile's worth, so padding is exercised)."""
    image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    assert image is not None, photo
    rows, cols = image.shape[0] // CROP, image.shape[1] // CROP
    cut = [image[r * CROP:(r + 1) * CROP, c * CROP:(c + 1) * CROP] for r in range(rows) for c in range(cols)]
    return np.stack([cut[i % len(cut)] for i in range(count)])


def _set(crops: np.ndarray) -> dict[str, np.ndarray]:
    labels = (np.arange(len(crops)) % 3).astype(np.int16)
    return {"crops": crops, "labels": labels, "design": (np.arange(len(crops)) % 7).astype(np.int16),
            "designs": np.array([f"d{i}" for i in range(7)]), "classes": CLASSES}


def test_windows_of_a_real_photo_come_back_close_and_every_label_exactly(bidly: Path) -> None:
    crops = _windows_of(bidly / "deals" / "deal1-md-sq.jpg", TILE * TILE + 123)
    packed = pack(_set(crops), quality=90)
    assert packed["tiles"].nbytes < crops.nbytes / 4  # what makes it worth carrying
    back = unpack(packed)
    assert back["crops"].shape == crops.shape and back["crops"].dtype == np.uint8
    assert float(np.abs(back["crops"].astype(int) - crops).mean()) < 4.0  # under the augmentation's noise
    for key in ("labels", "design", "designs", "classes"):
        assert np.array_equal(back[key], _set(crops)[key]), key


def test_surplus_no_index_windows_are_left_out_and_every_array_cut_alike() -> None:
    crops = np.arange(40, dtype=np.uint8)[:, None, None, None] * np.ones((1, CROP, CROP, 3), np.uint8)
    labels = np.array([0] * 5 + [2] * 35, np.int16)
    kept = without_surplus_none({"crops": crops, "labels": labels, "design": np.arange(40, dtype=np.int16),
                                 "designs": np.array(["a"]), "classes": CLASSES}, ratio=1.3)
    assert int((kept["labels"] == 0).sum()) == 5 and int((kept["labels"] == 2).sum()) == 6
    assert np.array_equal(kept["crops"][:, 0, 0, 0], kept["design"])  # the same windows in each array
    assert list(kept["designs"]) == ["a"] and list(kept["classes"]) == list(CLASSES)


def test_a_sample_keeps_the_windows_in_order_with_their_labels() -> None:
    crops = np.arange(50, dtype=np.uint8)[:, None, None, None] * np.ones((1, CROP, CROP, 3), np.uint8)
    full: dict[str, np.ndarray] = {"crops": crops, "labels": (np.arange(50) % 3).astype(np.int16), "design": np.arange(50, dtype=np.int16),
            "designs": np.array(["a", "b"]), "classes": CLASSES}
    sample = some_of(full, 20)
    assert len(sample["labels"]) == 20 and list(sample["designs"]) == ["a", "b"]
    order = sample["crops"][:, 0, 0, 0].astype(int)
    assert list(order) == sorted(set(order)) and np.array_equal(sample["labels"], order % 3)
    assert some_of(full, 80) is full


def test_a_file_that_is_not_a_packed_set_is_refused_by_name(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PackError, match="no count, tile_ends, tiles"):
        unpack({"crops": np.zeros((1, CROP, CROP, 3), np.uint8)})
    with pytest.raises(PackError, match="crops must be"):
        pack({"crops": np.zeros((1, 8, 8, 3), np.uint8)})
    bad = tmp_path / "bad.npz"
    np.savez(bad, tiles=np.frombuffer(b"not a jpeg", np.uint8), tile_ends=np.array([10]), count=np.array(1))
    assert main(["unpack", str(bad), str(tmp_path / "out.npz")]) == 1
    assert "tile 0 does not decode" in capsys.readouterr().err
    assert not (tmp_path / "out.npz").exists()
