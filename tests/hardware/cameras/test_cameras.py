"""Camera sources: replay of real photos, the simulated table, and clear errors for missing devices."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.cameras import CameraError, open_camera
from hardware.cameras.picamera import PiCamera
from hardware.cameras.replay import ReplayCamera
from hardware.cameras.simulated import SimulatedTableCamera
from tests.images import imread
from vision.calibration import TableCalibration

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "cards" / "bidly"


def test_replay_folder_of_real_photos(tmp_path: Path) -> None:
    if not SHARED.is_dir():
        pytest.skip(f"shared card photos not found at {SHARED}")
    src = sorted((SHARED / "cards").glob("*.jpg"))[:3]
    for i, p in enumerate(src):
        (tmp_path / f"{i:02d}.jpg").write_bytes(p.read_bytes())
    (tmp_path / "99.jpg").write_bytes(b"not an image")  # a corrupt frame is skipped, not a crash
    cam = open_camera(f"replay://{tmp_path}")
    frames = [cam.frame() for _ in range(3)]
    assert [f.shape for f in frames] == [imread(p).shape for p in src]
    with pytest.raises(CameraError):
        cam.frame()
    looping = ReplayCamera(tmp_path, loop=True)
    assert all(looping.frame().ndim == 3 for _ in range(7))


def test_replay_video_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 5, (64, 48))
    for i in range(4):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    cam = ReplayCamera(path)
    assert [round(cam.frame().mean() / 40) for _ in range(4)] == [0, 1, 2, 3]
    with pytest.raises(CameraError):
        cam.frame()
    cam.close()


def test_missing_devices_raise_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError):
        open_camera(f"replay://{tmp_path / 'nothing'}")
    with pytest.raises(CameraError):
        open_camera("usb:///dev/no-such-video")
    with pytest.raises(CameraError):
        open_camera("ftp://camera")
    if "picamera2" not in sys.modules:
        try:
            import picamera2  # noqa: F401
        except ImportError:
            with pytest.raises(CameraError, match="picamera2"):
                PiCamera()


def test_simulated_camera_is_deterministic_and_calibratable() -> None:
    a, b = SimulatedTableCamera(seed=3), SimulatedTableCamera(seed=3)
    for cam in (a, b):
        cam.lay("S", ["H3", "H4", "H5"])
        cam.lay("E", ["SB"])
    fa, fb = a.frame(), b.frame()
    assert fa.shape == (720, 1280, 3) and fa.dtype == np.uint8
    assert np.array_equal(fa, fb)
    found = TableCalibration.from_markers(fa)
    for seat, zone in a.calibration.zones.items():
        assert np.abs(found.zones[seat].corners - zone.corners).max() < 3
    a.clear("S")
    a.clear("E")
    empty = a.frame()
    a.hand_over("N", frames=1)
    covered = a.frame()
    assert np.abs(covered.astype(int) - empty.astype(int)).mean() > 1
    with pytest.raises(CameraError):
        a.lay("S", ["ZZ"])


def test_simulated_camera_draws_held_out_designs_unless_told() -> None:
    """The simulated table draws deck designs the reader never trained on (by seed), so its figures are honest;
    ``sim://?deck=...`` names one, or the built-in styles it trained on."""
    from hardware.cameras.simulated import deck_in_url, held_out_decks

    names = held_out_decks()
    assert len(names) >= 4
    assert {SimulatedTableCamera(seed=s).deck for s in range(len(names))} == set(names)
    assert SimulatedTableCamera(seed=0, deck="builtin").deck == "builtin"
    assert SimulatedTableCamera(seed=0, style=2).deck == "builtin"
    assert deck_in_url("sim://") is None
    assert deck_in_url("sim://?deck=held-out") == "held-out"
    assert deck_in_url(f"sim://?deck={names[0]}") == names[0]
    for bad in ("sim://?deck=paris", "sim://?speed=2"):
        with pytest.raises(ValueError, match="unknown"):
            deck_in_url(bad)
    with pytest.raises(ValueError, match="unknown deck design"):
        SimulatedTableCamera(seed=0, deck="paris")


def test_a_dim_hall_gives_darker_frames_with_the_same_sensor_noise() -> None:
    """``exposure``: the light the sensor gets for its fixed exposure (bench/table_reading.py --exposure); a value
    no camera could have is refused by name."""
    bright = SimulatedTableCamera(seed=4).frame().astype(np.float32)
    dim = SimulatedTableCamera(seed=4, exposure=0.25).frame().astype(np.float32)
    assert 0.2 < dim.mean() / bright.mean() < 0.3
    for bad in (0.0, -1.0, 5.0):
        with pytest.raises(ValueError, match="exposure"):
            SimulatedTableCamera(seed=4, exposure=bad)


def test_a_deck_laid_out_under_the_simulated_camera_is_found_in_the_spread_s_order() -> None:
    """Three photos of a held-out design laid out in rows of seven, as ``vision enroll --camera`` takes them: the
    spread finder finds all 54 cards and labels each by its place."""
    from vision.net.spread import ORDER, label_spread

    camera = SimulatedTableCamera(seed=8002)
    photos = []
    for k, start in enumerate(range(0, 54, 21)):
        camera.clear()
        camera.lay_spread(ORDER[start: start + 21])
        photos.append((f"spread-{k + 1}", camera.frame()))
    cards = label_spread(photos)
    assert [code for code, _, _ in cards] == list(ORDER)
    assert cards[21][1] == "spread-2 row 1 card 1"  # the order runs on from photo to photo
    with pytest.raises(CameraError):
        camera.lay_spread(["S1"])
