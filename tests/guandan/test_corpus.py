"""Data-driven checks: worked examples of the seeds and the spec (corpus/*.jsonl), through the engine's API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guandan.cards import parse_cards, parse_level
from guandan.combinations import Reading, beats, classify

CORPUS = Path(__file__).parent / "corpus"


def _load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (CORPUS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("case", _load("classify.jsonl"), ids=lambda c: c["source"])
def test_classify_corpus(case: dict[str, Any]) -> None:
    readings = classify(parse_cards(case["cards"]), parse_level(case["level"]))
    assert [r.to_json() for r in readings] == case["readings"]


@pytest.mark.parametrize("case", _load("beats.jsonl"), ids=lambda c: c["source"])
def test_beats_corpus(case: dict[str, Any]) -> None:
    level = parse_level(case["level"])
    play = classify(parse_cards(case["play"]), level)
    over_all = classify(parse_cards(case["over"]), level)
    over = Reading.from_json(case["over_reading"]) if "over_reading" in case else over_all[0]
    if "play_reading" in case:
        play = [Reading.from_json(case["play_reading"])]
    assert any(beats(r, over, level) for r in play) is case["beats"]
