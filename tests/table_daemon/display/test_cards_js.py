"""The words and card logic of the display pages (cards.js), run in Node: what a wild stood for, the names of
plays in the rules' terms, ranks as people say them, hands sorted as a commentator reads them."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

import pytest

CARDS_JS = resources.files("table_daemon.display").joinpath("cards.js")


def js(expr: str) -> object:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node is not installed")
    script = f"const c = require({json.dumps(str(CARDS_JS))});\nprocess.stdout.write(JSON.stringify({expr}));"
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_what_wilds_stood_for() -> None:
    cases = js("""[
        c.wildsStoodFor(["H5", "S9"], {type: "pair", rank: "9", size: 2}, "5"),
        c.wildsStoodFor(["S3", "H5", "C5", "S6", "D7"], {type: "straight", rank: "3", size: 5}, "5"),
        c.wildsStoodFor(["S3", "S4", "H8", "S6", "S7"], {type: "straight_flush", rank: "3", size: 5, suit: "S"}, "8"),
        c.wildsStoodFor(["S9", "C9", "H2", "DJ", "SJ"], {type: "full_house", rank: "9", size: 5}, "2"),
        c.wildsStoodFor(["HT", "CT"], {type: "pair", rank: "T", size: 2}, "T"),
        c.wildsStoodFor(["SA", "H2", "S3", "D4", "C5"], {type: "straight", rank: "A", size: 5}, "2"),
        c.wildsStoodFor(["H3", "H3", "C4", "C4", "D5", "D5"], {type: "tube", rank: "3", size: 6}, "3"),
    ]""")
    assert cases == [
        [{"code": "H5", "as": "9"}],
        [{"code": "H5", "as": "4"}],  # the 5 in a 3-7 straight at level 5 stands for the missing 4
        [{"code": "H8", "as": "S5"}],
        [{"code": "H2", "as": "9"}],
        [],  # a heart level card played as itself
        [],  # 2 in A-2-3-4-5 at level 2: itself
        [],
    ]


def test_names_of_plays_and_ranks() -> None:
    names = js("""[
        c.playName({type: "single", rank: "T", size: 1}), c.playName({type: "pair", rank: "HR", size: 2}),
        c.playName({type: "tube", rank: "Q", size: 6}), c.playName({type: "plate", rank: "A", size: 6}),
        c.playName({type: "bomb", rank: "8", size: 6}), c.playName({type: "straight_flush", rank: "T", size: 5, suit: "H"}),
        c.playName({type: "four_jokers", rank: null, size: 4}), c.playName({type: "full_house", rank: "7", size: 5}),
        c.playName({type: "triple", rank: "2", size: 3}), c.playName({type: "straight", rank: "A", size: 5}),
    ]""")
    assert names == ["单张 10 · single", "对子 大王 · pair", "三连对 Q–A · three consecutive pairs", "三同连张 A–2 · two consecutive triples",
                     "6张炸弹 8 · 6-card bomb", "同花顺 ♥10–A · straight flush", "四大天王 · four jokers",
                     "三带对 7 · full house", "三同张 2 · three of a kind", "顺子 A–5 · straight"]


def test_hands_sort_jokers_then_level_cards_then_ranks() -> None:
    assert js('c.sortHand(["S3", "HA", "H7", "SB", "C7", "HR", "DK", "S7", "ST"], "7")') == [
        "HR", "SB", "H7", "S7", "C7", "HA", "DK", "ST", "S3"]
