"""vision.files.load_face: a rendered face with alpha comes out flattened onto white; an unreadable one is None."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.files import load_face


def test_a_face_with_alpha_is_flattened_onto_white(tmp_path: Path) -> None:
    rgba = np.zeros((4, 4, 4), np.uint8)
    rgba[:2, :, :3] = (0, 0, 255)
    rgba[:2, :, 3] = 255  # the top half opaque red, the bottom half transparent
    cv2.imwrite(str(tmp_path / "HA.png"), rgba)
    face = load_face(tmp_path / "HA.png")
    assert face is not None and face.shape == (4, 4, 3)
    assert face[0, 0].tolist() == [0, 0, 255] and face[3, 3].tolist() == [255, 255, 255]


def test_an_unreadable_face_is_none(tmp_path: Path) -> None:
    (tmp_path / "HA.png").write_bytes(b"not a png")
    assert load_face(tmp_path / "HA.png") is None
