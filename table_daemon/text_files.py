"""Reading the small text files people write by hand (configs, profiles): UTF-8, with or without the byte-order
mark Windows Notepad puts first, and a file saved in another encoding said as such, not as a parse error."""

from __future__ import annotations

from pathlib import Path

NOT_UTF8 = ("不是 UTF-8 文本（是否以 GBK/ANSI 保存？请另存为 UTF-8）| not UTF-8 text (saved as GBK or ANSI? save it as "
            "UTF-8)")


class NotUtf8Error(ValueError):
    """The file is not UTF-8 text; the message says so in Chinese and English."""


def utf8_text(path: str | Path) -> str:
    """The file's text, a leading byte-order mark dropped; raises OSError, or NotUtf8Error."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotUtf8Error(f"{NOT_UTF8}: byte {exc.start}") from None
