"""Choosing a card reader by name and by the deck it was enrolled for (vision.readers)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tests.vision.net.test_reader import held_out_scene
from vision.card_regions import top_level
from vision.geometry import find_regions
from vision.net.network import MODEL_PATH
from vision.net.reader import CardReader as NetReader
from vision.reader import CardReader as GlyphReader
from vision.readers import ReaderError, make_card_reader


def test_readers_by_name() -> None:
    assert isinstance(make_card_reader(), NetReader)
    assert isinstance(make_card_reader("net"), NetReader)
    assert isinstance(make_card_reader("glyphs"), GlyphReader)
    with pytest.raises(ReaderError, match="unknown card reader 'yolo'"):
        make_card_reader("yolo")


def test_the_table_s_reader_reads_a_dim_region_as_it_is_and_the_free_standing_one_brightens_it() -> None:
    """A black card in a room five times too dim for the ink mask (its region as the table finds it in good light):
    the free-standing reader brightens it and reads it; the table's reader reads nothing (in such a hall the count
    of a fan fails too, and cards read there turned plays asked again into plays a card short taken silently:
    bench/table_reading.py --exposure 0.35)."""
    free, table = make_card_reader("net"), make_card_reader("net", table=True)
    assert free.dim_rules and not table.dim_rules
    for code in ("S7", "CK"):
        scene = held_out_scene("roboto-condensed", [(code, 450, 240, 6.0)], np.random.default_rng(3))
        (region,) = top_level(find_regions(scene))
        dim = (scene.astype(np.float32) * 0.2).astype(np.uint8)
        assert [r.card for r in free.read_region(dim, region).readings] == [code]
        assert table.read_region(dim, region).readings == []


def test_bad_deck_files_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="deck profile not found"):
        make_card_reader(None, tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_text("not a deck")
    with pytest.raises(ReaderError, match="not an enrolled deck file"):
        make_card_reader(None, junk)
    with pytest.raises(ReaderError, match=str(junk)):
        make_card_reader("glyphs", junk)


def test_the_network_runtime_is_checked_and_named_in_every_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ReaderError, match="unknown network runtime 'tensorrt'") as err:
        make_card_reader("net", runtime="tensorrt")
    assert err.value.setting == "runtime"
    with pytest.raises(ReaderError, match="for the learned reader") as err:
        make_card_reader("glyphs", runtime="onnxruntime")
    assert err.value.setting == "runtime"
    # onnxruntime not installed (as on a table without the extra): said before the event, naming the setting
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "onnxruntime" else real_find_spec(name, *a))
    with pytest.raises(ReaderError, match=r"onnxruntime is not installed: pip install") as err:
        make_card_reader("net", runtime="onnxruntime")
    assert err.value.setting == "runtime"


def test_another_index_network_is_read_with_when_given_and_refused_by_the_glyph_rules(tmp_path: Path) -> None:
    """A candidate network (the benches compare one against the committed model, bench/table_reading.py --model) is
    the learned reader's, at its own thresholds; a missing one and one given to the glyph rules are clear errors."""
    candidate = tmp_path / "candidate.onnx"
    candidate.write_bytes(MODEL_PATH.read_bytes())
    meta = json.loads(MODEL_PATH.with_suffix(".json").read_text("utf-8"))
    meta["accept"] = 0.9995
    candidate.with_suffix(".json").write_text(json.dumps(meta), "utf-8")
    reader = make_card_reader("net", table=True, model=candidate)
    assert reader.net.path == candidate and reader.sure == 0.9995 and reader.unsure
    assert make_card_reader("net").net.path == MODEL_PATH
    with pytest.raises(ReaderError, match="cannot read the card index network"):
        make_card_reader("net", model=tmp_path / "missing.onnx")
    with pytest.raises(ReaderError, match="for the learned reader"):
        make_card_reader("glyphs", model=candidate)


def test_both_runtimes_read_a_rendered_play_alike() -> None:
    pytest.importorskip("onnxruntime")
    image = held_out_scene("roboto-condensed", [("DQ", 250, 240, 8.0), ("S7", 560, 240, -6.0)],
                           np.random.default_rng(13))
    by_opencv = make_card_reader("net").read_image(image)
    by_onnxruntime = make_card_reader("net", runtime="onnxruntime").read_image(image)
    assert [r.card for r in by_opencv] == [r.card for r in by_onnxruntime] == ["DQ", "S7"]
    assert [r.confidence for r in by_opencv] == pytest.approx([r.confidence for r in by_onnxruntime], abs=1e-3)
