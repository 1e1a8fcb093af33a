"""Mounting and focusing the camera with live views: `vision calibrate --camera` on the simulated table and on
replayed frames (sharp, blurred, a marker covered), views saved as pictures, advice, calibration from them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.cameras.simulated import SimulatedTableCamera
from table_daemon.cli import main
from vision.calibration import TableCalibration
from vision.mounting import focus_measure, view_report


@pytest.fixture(scope="module")
def table_frame() -> np.ndarray:
    return SimulatedTableCamera(seed=4).frame()


def test_focus_figure_falls_as_the_picture_blurs(table_frame: np.ndarray) -> None:
    sharp = focus_measure(table_frame)
    soft = focus_measure(cv2.GaussianBlur(table_frame, (0, 0), 2.0))
    softer = focus_measure(cv2.GaussianBlur(table_frame, (0, 0), 4.0))
    assert sharp > soft > softer > 0


def test_advice_names_a_covered_marker_and_a_lost_focus(table_frame: np.ndarray) -> None:
    good = view_report(table_frame)
    assert good.ready and sorted(good.markers) == [0, 1, 2, 3] and good.advice[0].startswith("好 / good")
    covered = table_frame.copy()
    x, y = (int(v) for v in good.markers[1])
    covered[max(0, y - 60):y + 60, max(0, x - 60):x + 60] = 90  # a hand over marker 1
    blurred = cv2.GaussianBlur(covered, (0, 0), 1.5)
    report = view_report(blurred, best_focus=good.focus)
    assert not report.ready and 1 not in report.markers
    text = " ".join(report.advice)
    assert "marker 1 (N/E corner) not seen" in text and "best so far" in text


def test_a_marker_at_the_edge_is_not_ready(table_frame: np.ndarray) -> None:
    good = view_report(table_frame)
    x, _ = good.markers[0]
    shifted = np.full_like(table_frame, 120)
    cut = int(x) - 20  # move the picture left so that marker 0 sits 20 px from the edge
    shifted[:, : table_frame.shape[1] - cut] = table_frame[:, cut:]
    report = view_report(shifted)
    if 0 in report.markers:
        assert not report.ready and any("from the edge" in a for a in report.advice)
    else:
        assert not report.ready


def test_live_calibration_saves_views_and_writes_the_calibration(tmp_path: Path, table_frame: np.ndarray,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "00.png"), cv2.GaussianBlur(table_frame, (0, 0), 3.0))  # out of focus
    cv2.imwrite(str(frames / "01.png"), table_frame)                                  # focused
    cv2.imwrite(str(frames / "02.png"), cv2.GaussianBlur(table_frame, (0, 0), 3.0))  # turned too far
    views, out = tmp_path / "views", tmp_path / "cal.json"
    assert main(["vision", "calibrate", "--camera", f"replay://{frames}", "--views", str(views), "--count", "3",
                 "--every", "0", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["view"] for line in lines[:3]] == [1, 2, 3]
    assert lines[1]["focus"] > lines[0]["focus"] and lines[2]["best_focus"] == lines[1]["focus"]
    assert any("best so far" in a for a in lines[2]["advice"])
    assert lines[-1] == {"views": 3, "best_focus": lines[1]["focus"], "ready": True, "calibration": str(out),
                         "exposure_ok": True}
    assert "warning" not in captured.err and not any("太暗" in a for line in lines[:3] for a in line["advice"])
    for name in ("view-0001.jpg", "view-0002.jpg", "view-0003.jpg", "latest.jpg"):
        picture = cv2.imread(str(views / name))
        assert picture is not None and picture.shape == table_frame.shape
    assert "Ctrl-C" in captured.err
    found = TableCalibration.load(out)
    expected = TableCalibration.from_markers(table_frame)
    for seat, zone in expected.zones.items():
        assert np.abs(found.zones[seat].corners - zone.corners).max() < 3


def test_live_calibration_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "calibrate", "--camera", "sim://", "--count", "1"]) == 2
    assert "--views" in capsys.readouterr().err
    assert main(["vision", "calibrate", "--camera", "usb:///dev/no-such-video", "--views", str(tmp_path)]) == 2
    assert "cannot open the camera" in capsys.readouterr().err
    assert main(["vision", "calibrate"]) == 2
    # a view without the markers writes no calibration and says so
    frames = tmp_path / "blank"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), np.full((480, 640, 3), 128, np.uint8))
    assert main(["vision", "calibrate", "--camera", f"replay://{frames}", "--views", str(tmp_path / "v"),
                 "--count", "1", "--every", "0", "--out", str(tmp_path / "c.json")]) == 1
    captured = capsys.readouterr()
    assert "no calibration written" in captured.err and not (tmp_path / "c.json").exists()
    assert "marker 0 (N/W corner) not seen" in json.loads(captured.out.splitlines()[0])["advice"][0]


def test_live_calibration_from_the_table_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nsource = "sim://"\n')
    assert main(["vision", "calibrate", "--config", str(config), "--views", str(tmp_path / "v"), "--count", "1",
                 "--every", "0"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["ready"] is True and first["markers"] == [0, 1, 2, 3]
