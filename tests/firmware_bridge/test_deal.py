"""Deal plans: CSPRNG deals, commitments, plan encoding, guandan-deals/1 files."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.deal import (
    DealFileError,
    check_deal_file,
    check_hands,
    load_deal_file,
    new_deal,
    pack_bins,
    plan_from_line,
    unpack_bins,
)
from guandan import SEATS, full_pack


def test_new_deal_is_a_full_pack_27_a_seat_with_a_fresh_salt() -> None:
    a, b = new_deal(3, level="7", leader="E"), new_deal(3)
    assert check_hands(a.hands) is None
    assert Counter(c for s in SEATS for c in a.hands[s]) == Counter(full_pack())
    assert a.hands != b.hands  # 2^-300-ish chance of a false failure
    assert len(a.salt) == 64 and int(a.salt, 16) >= 0 and a.salt != b.salt
    line = a.deal_line()
    assert line["format"] == "guandan-deals/1" and line["board"] == 3
    assert line["level"] == "7" and line["leader"] == "E" and "level" not in b.deal_line()


def test_commitment_is_sha256_of_the_canonical_salted_line() -> None:
    plan = new_deal(1)
    line = plan.deal_line()
    text = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert " " not in text
    assert plan.commitment == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert plan.commitment != hashlib.sha256(
        json.dumps(plan.deal_line(salted=False), sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def test_plan_bytes_name_each_copy_s_bin() -> None:
    plan = new_deal(1)
    bins = plan.plan_bins()
    assert len(bins) == 108 and Counter(bins) == {0: 27, 1: 27, 2: 27, 3: 27}
    for seat_index, seat in enumerate(SEATS):
        for card in plan.hands[seat]:
            assert seat_index in (bins[2 * card.id], bins[2 * card.id + 1])
    data = plan.plan_bytes()
    assert len(data) == 27 and unpack_bins(data) == bins
    assert plan.digest() == hashlib.sha256(data).digest()[:8]
    assert pack_bins([1, 2, 3, 0, 3]) == bytes([0b00111001, 0b11])
    with pytest.raises(ValueError):
        unpack_bins(data[:-1])


def _write(tmp_path: Path, lines: list[object]) -> Path:
    path = tmp_path / "deals.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_deal_file_boards(tmp_path: Path) -> None:
    one, two = new_deal(1).deal_line(salted=False), new_deal(2).deal_line(salted=False)
    two["level"], two["leader"] = "Q", "N"
    path = _write(tmp_path, [one, "", two])
    plan = load_deal_file(path, 2)
    assert plan.board == 2 and plan.level == "Q" and plan.leader == "N"
    assert {s: [c.code for c in plan.hands[s]] for s in SEATS} == two["hands"]
    assert load_deal_file(path).board == 1
    with pytest.raises(DealFileError, match=r"no board 5 \(boards: 1, 2\)"):
        load_deal_file(path, 5)
    assert check_deal_file(path) == [1, 2]
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # saved by a Windows editor: a UTF-8 BOM first
    assert check_deal_file(path) == [1, 2] and load_deal_file(path).board == 1


def test_a_board_written_twice_is_refused_with_both_lines(tmp_path: Path) -> None:
    """load_deal_file would deal the first and nobody would know the second was meant (a merge gone wrong)."""
    path = _write(tmp_path, [new_deal(1).deal_line(salted=False), new_deal(2).deal_line(salted=False),
                             new_deal(1).deal_line(salted=False)])
    with pytest.raises(DealFileError, match=r":3: board 1 again \(first on line 1\)"):
        check_deal_file(path)
    with pytest.raises(DealFileError, match=r":2: seat S has 26 cards"):
        bad = new_deal(2).deal_line(salted=False)
        bad["hands"]["S"].pop()
        check_deal_file(_write(tmp_path, [new_deal(1).deal_line(salted=False), bad]))  # a line past board 1 too


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="x"), "format"),
        (lambda d: d.update(board="1"), "board must be a whole number from 1"),
        (lambda d: d.update(board=0), "board must be a whole number from 1 to 1000000 .牌号., got 0"),  # passed before
        (lambda d: d.update(board=10**30), "board must be a whole number from 1"),
        (lambda d: d["hands"].pop("W"), "hands.W missing"),
        (lambda d: d["hands"]["S"].__setitem__(0, "ZZ"), "hands.S: unknown card code 'ZZ'"),
        (lambda d: d["hands"]["S"].pop(), "seat S has 26 cards"),
        (lambda d: d["hands"]["S"].__setitem__(0, next(c for c in d["hands"]["E"] if c not in d["hands"]["S"])),
         "appears [13] times, not 2"),
        (lambda d: d.update(leader="X"), "leader"),
        (lambda d: d.update(level="Z"), "level"),
    ],
)
def test_bad_deal_lines_name_file_line_and_field(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], object], message: str
) -> None:
    line = new_deal(1).deal_line(salted=False)
    mutate(line)
    path = _write(tmp_path, [new_deal(7).deal_line(salted=False), line])
    with pytest.raises(DealFileError, match=message) as info:
        load_deal_file(path, 1)
    assert f"{path}:2" in str(info.value)


def test_unreadable_deal_files(tmp_path: Path) -> None:
    with pytest.raises(DealFileError, match="cannot read"):
        load_deal_file(tmp_path / "missing.jsonl")
    with pytest.raises(DealFileError, match=":1: not valid JSON"):
        load_deal_file(_write(tmp_path, ["{nope"]))
    with pytest.raises(DealFileError, match="no deals"):
        load_deal_file(_write(tmp_path, [""]))
    with pytest.raises(DealFileError, match="not a JSON object"):
        plan_from_line([1, 2])  # type: ignore[arg-type]
