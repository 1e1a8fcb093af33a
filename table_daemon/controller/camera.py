"""The camera's own news for the referee: lost and restored frames, a moved table, missing markers.

The camera adapter notices these (``table_daemon.adapters.camera``); the controller turns them into alerts on
the ``alerts`` topic (mqtt-api.md lists "camera lost" among them) so the referee knows when plays cannot be
seen (the camera's condition itself is in the table's ``health``). The table goes on: seat buttons, turn
lights and commands still work while the camera is out.
"""

from __future__ import annotations

from .model import CameraNotice
from .state import TableState

#: what each notice says to a person (Chinese first, as the referees read it)
TEXT = {
    "camera_lost": "摄像头无画面，无法识别出牌 / camera lost: plays cannot be seen",
    "camera_restored": "摄像头恢复 / camera restored",
    "camera_moved": "摄像头或牌桌被移动，识别区已随标记调整 / camera or table moved: play areas follow the markers",
    "camera_moved_out": "摄像头被移动，桌角标记移出画面，无法识别出牌 / camera moved: table markers left the picture, "
                        "plays cannot be read until it is set back with all four markers in view",
    "camera_calibrated": "桌角标记已找到，识别区已标定 / table markers found: play areas calibrated",
    "camera_uncalibrated": "看不到桌角标记，无法识别出牌 / table markers not visible: plays cannot be read",
    "camera_markers_hidden": "桌角标记被遮挡 / table markers covered: a moved camera would go unnoticed",
    "camera_markers_visible": "桌角标记重新可见 / table markers visible again",
}


def on_camera_notice(c: TableState, e: CameraNotice) -> None:
    """Alert the referee with the camera's evidence."""
    text = TEXT.get(e.what, e.what)
    if e.detail:
        text = f"{text} ({e.detail})"
    c.alert(e.what, None, text, {"camera": dict(e.evidence), "detail": e.detail})
