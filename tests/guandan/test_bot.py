"""Property tests: bot-played deals under every profile conserve the cards, make only legal plays, finish,
and their records replay to the same result. Kept small for CI (bench/deals.py plays thousands)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from guandan.actions import PLAY, Action
from guandan.bot import Bot, deal_hands, play_out
from guandan.cards import ALL_CARDS, SEATS, Card, team_of
from guandan.combinations import Reading, legal_plays
from guandan.deal import apply, read_play, start_deal
from guandan.deal_state import DealState
from guandan.levels import parse_team_level
from guandan.profiles import PROFILES, Profile, profile_with
from guandan.record import build_record
from guandan.replay import replay

DEALS_PER_PROFILE = 60
CUSTOM = profile_with(PROFILES["national"], {"name": "custom", "tie_tribute": "winner_chooses",
                                             "return_limit": "ten_always", "jiefeng": False})
ALL = [*PROFILES.values(), CUSTOM]
FINISHES = [None, ["S", "N"], ["E", "W"], ["E", "S", "W", "N"], ["N", "E", "S", "W"], ["W", "S", "N", "E"]]


def bot_deals(
    profile: Profile, seed: int, n: int
) -> Iterator[tuple[dict[str, list[Card]], list[str] | None, DealState]]:
    rng = random.Random(seed)
    bots = {s: Bot(seed * 10 + i) for i, s in enumerate(SEATS)}
    for i in range(n):
        hands = deal_hands(rng)
        level = rng.randint(2, 14)
        finish = FINISHES[i % len(FINISHES)]
        state = play_out(profile, level, hands, bots, previous_finish=finish, leader=rng.choice(SEATS))
        yield hands, finish, state


@pytest.mark.parametrize("profile", ALL, ids=lambda p: p.name)
def test_bot_deals_conserve_cards_play_legally_and_replay(profile: Profile) -> None:
    for n, (hands, finish, state) in enumerate(bot_deals(profile, 7, DEALS_PER_PROFILE)):
        assert state.over
        # 108 cards, each code twice, before and after: hands left + cards played
        played = [c for a, _ in state.actions() if a.kind == PLAY for c in a.cards]
        now = Counter(c.id for h in state.hands for c in h) + Counter(c.id for c in played)
        assert now == Counter({c.id: 2 for c in ALL_CARDS})
        assert sum(len(h) for h in hands.values()) == 108
        # every play is among the legal plays the classifier lists for that hand and trick (a cross-check)
        replayed, _ = start_deal(profile, state.level, hands, previous_finish=finish, leader=state.leader)
        for action, _t in state.actions():
            if action.kind == PLAY:
                seat = action.seat
                if replayed.phase == "play":
                    over = replayed.trick_reading
                    readings = list(legal_plays(replayed.hand(seat), state.level, over).readings())
                    assert any(r.type == t.type and r.rank == t.rank and r.size == t.size
                               for r in readings for t in [_reading(replayed, action)])
            replayed, _ = apply(replayed, action, 0.0)
        assert replayed.finish_order() == state.finish_order()
        # the record round-trips through JSON and replays to the same result
        team = team_of(finish[0]) if finish else "NS"  # the previous deal's 上游 plays its level (rules §2)
        lv = {team: state.level, "EW" if team == "NS" else "NS": parse_team_level("5")}
        record = json.loads(json.dumps(build_record(state, levels_before=lv, played=team, previous_finish=finish)))
        answer = replay(record)
        assert answer["ok"], (n, answer)
        assert answer["finish"] == state.finish_order() == record["result"]["finish"]
        assert answer["levels_after"] == record["result"]["levels_after"]


def _reading(state: DealState, action: Action) -> Reading:
    return read_play(action.cards, state.level, state.profile.wild_reading, action.reading)


def test_same_seed_same_deal() -> None:
    a = [s.actions() for _, _, s in bot_deals(PROFILES["national"], 3, 3)]
    b = [s.actions() for _, _, s in bot_deals(PROFILES["national"], 3, 3)]
    assert [[x.to_json() for x, _ in d] for d in a] == [[x.to_json() for x, _ in d] for d in b]
