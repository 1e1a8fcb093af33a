"""The table's hardware news for the referee: power, heat, SD card, the journal, and devices missing or failing.

The app compares the health figures with their limits (``table_daemon.adapters.pi_health.problems``) and
sends a :class:`HealthNotice` when a problem appears or clears; the controller turns it into an alert on the
``alerts`` topic, in the referee's words. The figures themselves are in the table's ``health``.
"""

from __future__ import annotations

from .model import HealthNotice
from .state import TableState

#: what each problem says to a person (Chinese first, as the referees read it)
TEXT = {
    "pi_under_voltage": "树莓派供电不足 / Pi under-voltage: check the power supply (5 V 5 A for a Pi 5)",
    "pi_throttled": "树莓派降频 / Pi throttled: the card reader may fall behind",
    "pi_hot": "树莓派过热 / Pi too hot: give it air or a fan",
    "pi_disk_low": "存储卡空间不足 / SD card nearly full: the journal cannot grow",
    "dealer_missing": "找不到发牌机 / dealer not found: check its USB cable",
    "dealer_fault": "发牌机故障 / dealer failing",
    "dealer_lost": "发牌机连接中断 / dealer link lost: check its USB cable and power; the deal goes on when it "
                   "is back",
    "camera_missing": "找不到摄像头 / camera not found: check its cable and camera.source (camera.camera_num for a "
                      "Pi camera)",
    "camera_dim": "摄像头过暗 / camera too dark: the hall is darker than brightening the frames can make up for; "
                  "set the camera's exposure again (vision calibrate --camera)",
    "camera_lost": "摄像头无画面 / camera delivers no frames",
    "panels_missing": "座位面板不可用 / seat panels not available: buttons and lights do not work",
    "panels_fault": "座位面板故障 / seat panels failing",
    "journal_write_failed": "牌局日志无法写入 / the journal cannot be written: play goes on, but a restart now would "
                            "lose the plays since; check the SD card",
    "snapshot_failed": "牌局快照无法保存 / the table's snapshot cannot be saved: every play is still journaled, "
                       "a restart replays more; check the SD card",
    "journal_read_failed": "牌局日志无法读取 / the journal cannot be read: the SD card may be gone or failing; "
                           "replace it between deals",
    "journal_file_lost": "牌局日志文件被删除且无法重建 / the journal file was deleted and cannot be written again: "
                         "do not restart the table (it would lose the match); check the SD card",
    "journal_file_restored": "牌局日志文件被删除或替换，已按运行中的日志重建，未丢失 / the journal file was deleted or "
                             "replaced while the table ran: written again from the journal it holds open, nothing "
                             "lost",
    "journal_mirror_failed": "牌局日志备份无法写入 / the journal's mirror cannot be written: play goes on and the "
                             "journal itself is whole; check the USB stick",
    "journal_from_mirror": "牌局日志损坏或丢失，已从备份恢复；备份之后的出牌已丢失，请裁判核对本副 / the journal was "
                           "lost or damaged and was taken up from its mirror: what was played after the mirror was "
                           "written is lost, referee: check the deal",
    "health_restored": "恢复正常 / back to normal",
    "table_restarted": "牌桌重启，已从日志恢复比赛 / the table restarted and took up its match from its journal",
}


def on_health_notice(c: TableState, e: HealthNotice) -> None:
    """Alert the referee with the figures that crossed the limit."""
    text = TEXT.get(e.what, e.what)
    if e.what == "health_restored" and e.evidence.get("cleared"):
        cleared = str(e.evidence["cleared"])
        text = f"{TEXT.get(cleared, cleared)}: {text}"
    if e.detail:
        text = f"{text} ({e.detail})"
    c.alert(e.what, None, text, {"health": dict(e.evidence), "detail": e.detail})
