"""Choosing a card reader: the learned one (``vision.net``) or the glyph rules (``vision.reader``), with the
event's enrolled deck when there is one.

One place makes readers for ``vision classify``, ``vision eval`` and the table's camera, so that a deck is read
by the reader it was enrolled for everywhere, and every failure (no model, a missing or damaged deck file, a
deck made for the other reader or with another network) is one :class:`ReaderError` naming the file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Literal

#: the readers by name; "net" reads unseen designs and real photos better (vision/README.md's figures)
READERS = ("net", "glyphs")
DEFAULT_READER: Literal["net"] = "net"
#: what runs the learned reader's network: OpenCV's cv2.dnn (always installed) or onnxruntime (the optional
#: ``onnxruntime`` extra: a frame a sixth faster on this CPU, and 18-28 MB more in the daemon)
RUNTIMES = ("opencv", "onnxruntime")
DEFAULT_RUNTIME: Literal["opencv"] = "opencv"


class ReaderError(ValueError):
    """A card reader could not be made: the message says what to do, and ``setting`` which of the camera's
    settings to change (``reader``, ``deck`` or ``runtime``)."""

    def __init__(self, message: str, setting: str = "reader") -> None:
        super().__init__(message)
        self.setting = setting


def reader_for_deck(deck_path: Path | None) -> str:
    """The reader a deck file was enrolled for ("net" when there is no deck)."""
    from .net.enrolled import enrolled_for

    return enrolled_for(deck_path) if deck_path is not None else DEFAULT_READER


def make_card_reader(name: str | None = None, deck_path: Path | None = None, *, table: bool = False,
                     runtime: str = DEFAULT_RUNTIME, model: Path | None = None) -> Any:
    """The card reader ``name`` ("net" or "glyphs"; None: the one ``deck_path`` was enrolled for, else the
    learned one), reading with the enrolled deck at ``deck_path`` if given. Both have ``read_region`` (the
    table reader's interface), ``read_image`` and ``sure`` (the confidence at which a reading is taken without a
    check). ``table``: the table's reader, whose ``read_region`` reports unsure readings too (the glyph reader
    always does), for the table to choose among their candidates by what the seat holds, and without the rules
    for dim regions (``CardReader.dim_rules``: a frame too dim for the count of a fan is better asked again).
    ``runtime``: what runs
    the learned reader's network (``RUNTIMES``); the glyph rules have none, so they take only the default.
    ``model``: another index network for the learned reader (a candidate compared on the benches), else the
    committed one."""
    if name is None:
        name = reader_for_deck(deck_path)
    if name not in READERS:
        raise ReaderError(f"unknown card reader {name!r} (one of {', '.join(READERS)})")
    if runtime not in RUNTIMES:
        raise ReaderError(f"unknown network runtime {runtime!r} (one of {', '.join(RUNTIMES)})", "runtime")
    if name != "net" and runtime != DEFAULT_RUNTIME:
        raise ReaderError(f"the network runtime {runtime!r} is for the learned reader (net); the {name} reader "
                          "runs no network", "runtime")
    if name != "net" and model is not None:
        raise ReaderError(f"an index network is for the learned reader (net); the {name} reader runs none")
    if deck_path is not None and not deck_path.is_file():
        raise ReaderError(f"找不到登记牌面文件 / deck profile not found: {deck_path}", "deck")
    return _net_reader(deck_path, table, runtime, model) if name == "net" else _glyph_reader(deck_path)


def _net_reader(deck_path: Path | None, unsure: bool, runtime: str, model: Path | None = None) -> Any:
    from .net.enrolled import EnrolledDeck, EnrolledDeckError, EnrolledNet
    from .net.network import MODEL_PATH, IndexNet, ModelMissingError
    from .net.reader import CardReader

    if runtime == "onnxruntime" and importlib.util.find_spec("onnxruntime") is None:
        raise ReaderError("the network runtime onnxruntime is not installed: pip install -e '.[onnxruntime]', or "
                          "use runtime opencv", "runtime")
    try:
        net = IndexNet(model or MODEL_PATH, runtime=runtime)
    except ModelMissingError as exc:
        raise ReaderError(str(exc)) from exc
    if deck_path is None:
        return CardReader(net, unsure=unsure, dim_rules=not unsure)
    try:
        return CardReader(EnrolledNet(net, EnrolledDeck.load(deck_path)), unsure=unsure, dim_rules=not unsure)
    except EnrolledDeckError as exc:
        raise ReaderError(str(exc), "deck") from exc


def _glyph_reader(deck_path: Path | None) -> Any:
    from .classifier import ModelMissingError
    from .deck import DeckProfile, DeckProfileError
    from .reader import CardReader

    deck = None
    if deck_path is not None:
        try:
            deck = DeckProfile.load(deck_path)
        except DeckProfileError as exc:
            raise ReaderError(str(exc), "deck") from exc
    try:
        return CardReader(deck=deck)
    except ModelMissingError as exc:
        raise ReaderError(str(exc)) from exc
