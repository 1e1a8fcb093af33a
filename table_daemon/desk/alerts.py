"""Alerts as the desk page shows them: the type in Chinese and English (rules §11 foul codes, the devices'
faults and the table's health: power, heat, SD card, journal), table, seat, local time, the table's message and
whether a camera picture came with it. Pure.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from guandan import SEAT_ZH

from .clock import local

#: alert code -> (中文, English)
NAMES: dict[str, tuple[str, str]] = {
    "out_of_turn": ("越序出牌", "out of turn"),
    "exposed_card": ("暴露张", "exposed card"),
    "illegal_play": ("出错牌", "illegal play"),
    "not_held": ("所出之牌不在手中", "card not in the seat's hand"),
    "missing_report": ("未报牌", "10-card report missing"),
    "wrong_report": ("报牌错误", "wrong 10-card report"),
    "slow_play": ("出牌超时", "slow play"),
    "wrong_tribute": ("进贡错误", "wrong tribute"),
    "wrong_return": ("还贡错误", "wrong return"),
    "wrong_manner": ("未按规定方式出牌", "wrong manner of play"),
    "misread": ("识别不确定", "misread (the reader is unsure)"),
    "dealer_fault": ("发牌机故障", "dealer fault"),
    "dealer_jam": ("发牌机卡牌", "dealer jam"),
    "dealer_gave_up": ("发牌机停止重发", "dealer stopped redealing"),
    "referee_call": ("呼叫裁判", "referee called"),
    "camera_lost": ("摄像头无画面", "camera lost"),
    "camera_restored": ("摄像头恢复", "camera restored"),
    "camera_moved": ("摄像头移动", "camera moved"),
    "camera_moved_out": ("摄像头移出桌角标记", "camera moved off the markers"),
    "camera_uncalibrated": ("摄像头未校准", "camera not calibrated"),
    "camera_markers_hidden": ("桌角标记被遮挡", "table markers covered"),
    "camera_markers_visible": ("桌角标记可见", "table markers visible"),
    "camera_calibrated": ("识别区已标定", "play areas calibrated"),
    "camera_missing": ("找不到摄像头", "camera not found"),
    "camera_dim": ("摄像头过暗", "camera too dark"),
    "dealer_missing": ("找不到发牌机", "dealer not found"),
    "dealer_lost": ("发牌机连接中断", "dealer link lost"),
    "panels_missing": ("座位面板不可用", "seat panels not available"),
    "panels_fault": ("座位面板故障", "seat panels failing"),
    "pi_under_voltage": ("树莓派供电不足", "Pi under-voltage"),
    "pi_throttled": ("树莓派降频", "Pi throttled"),
    "pi_hot": ("树莓派过热", "Pi too hot"),
    "pi_disk_low": ("存储卡空间不足", "SD card nearly full"),
    "journal_write_failed": ("牌局日志无法写入", "journal cannot be written"),
    "snapshot_failed": ("牌局快照无法保存", "snapshot cannot be saved"),
    "journal_read_failed": ("牌局日志无法读取", "journal cannot be read"),
    "journal_file_lost": ("牌局日志文件丢失", "journal file lost"),
    "journal_file_restored": ("牌局日志文件已重建", "journal file written again"),
    "journal_mirror_failed": ("牌局日志备份无法写入", "journal mirror cannot be written"),
    "journal_from_mirror": ("牌局日志已从备份恢复", "journal taken up from its mirror"),
    "health_restored": ("恢复正常", "back to normal"),
    "table_restarted": ("牌桌重启已恢复", "table restarted, match recovered"),
    # the desk's own (desk/presence.py)
    "table_offline": ("牌桌离线", "table offline mid-match"),
    "table_id_clash": ("桌号冲突", "two devices as one table"),
    "match_lost": ("牌桌丢失比赛", "table lost its match"),
}
#: alerts whose evidence is what the camera saw: the page shows the frame as a picture
PICTURE_CODES = frozenset({"misread", "exposed_card", "not_held", "illegal_play", "out_of_turn"})
SEAT_NAMES = {seat: f"{zh} {seat}" for seat, zh in SEAT_ZH.items()}


def type_words(code: str | None) -> str:
    zh, en = NAMES.get(str(code), ("其他警报", str(code or "alert").replace("_", " ")))
    return f"{zh} {en}"


def picture(alert: Mapping[str, Any]) -> bytes | None:
    """The JPEG a table attached to the alert's evidence (``evidence.image``: a ``data:image/jpeg;base64,``
    URL), or None."""
    evidence = alert.get("evidence")
    image = evidence.get("image") if isinstance(evidence, dict) else None
    if not isinstance(image, str) or not image.startswith("data:image/jpeg;base64,"):
        return None
    try:
        return base64.b64decode(image.split(",", 1)[1], validate=True)
    except (binascii.Error, ValueError):
        return None


def describe(alert: Mapping[str, Any], tz: str | None) -> dict[str, Any]:
    """One row of the desk's alert list (the evidence picture itself is served apart, by number)."""
    code = alert.get("code") or alert.get("type")
    raw = alert.get("evidence")
    evidence: dict[str, Any] = raw if isinstance(raw, dict) else {}
    seen = evidence.get("seen") or evidence.get("cards")
    return {
        "n": alert.get("n"), "table": alert.get("table"), "code": code, "type": type_words(code),
        "seat": SEAT_NAMES.get(str(alert.get("seat")), alert.get("seat")), "deal": alert.get("deal"),
        "time": local(alert.get("ts") or alert.get("received_at"), tz),
        "message": alert.get("message"), "frame": evidence.get("frame"),
        "seen": list(seen) if isinstance(seen, list) else None,
        "picture": picture(alert) is not None, "acked_by": alert.get("acked_by"),
        "acked_at": local(alert.get("acked_at"), tz),
    }
