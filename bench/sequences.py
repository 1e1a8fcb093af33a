"""What a subscriber saw of the tables' sequenced messages (mqtt-api.md: ``seq`` counts without gaps within one
run): shared by the benches that count it, so that "out of order" means the same in each."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class SequenceFaults:
    #: seqs missing between a run's first and last seen
    lost: int
    #: first arrivals of a seq lower than one that arrived before it
    out_of_order: int
    #: copies of a seq already seen (QoS 1 may deliver twice; consumers drop them)
    duplicates: int


def sequence_faults(runs: Iterable[list[int]]) -> SequenceFaults:
    """Count, over each run's seqs in arrival order, what a consumer would have to mend."""
    lost = disorder = dup = 0
    for got in runs:
        seen: set[int] = set()
        last = 0
        for seq in got:
            if seq in seen:
                dup += 1
                continue
            if seq < last:
                disorder += 1
            seen.add(seq)
            last = max(last, seq)
        if seen:
            lost += (max(seen) - min(seen) + 1) - len(seen)
    return SequenceFaults(lost, disorder, dup)
