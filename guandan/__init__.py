"""The Guandan rules engine: pure, standard library only, no I/O; imports nothing else of the project.

Its public API is what this package exports (``__all__``): card values and parsing, the readings of a play and
what beats what, the rule profiles, the deal machine (``start_deal``, ``apply``: state and typed effects in and
out, time passed in), tribute, levels and the match machine, scoring, deal records and their replay, and a bot.
The rest of the project (the table controller, the dealer bridge, the simulator, the desk) uses it through these
names; the submodules are the engine's own layout and may change.
"""

from __future__ import annotations

from . import actions, deal, scoring
from .actions import PASS, PLAY, REPORT, give, pass_turn, play, report, return_card
from .bot import Bot, deal_hands, play_out
from .cards import (
    ALL_CARDS,
    BIG_JOKER,
    COPIES,
    SEAT_ZH,
    SEATS,
    SMALL_JOKER,
    SUITS,
    TEAMS,
    Card,
    card_of,
    full_pack,
    next_seat,
    parse_card,
    parse_cards,
    parse_level,
    parse_physical,
    parse_seat,
    partner,
    previous_seat,
    rank_name,
    single_order,
    team_of,
    wild_card,
)
from .classify import classify
from .combinations import DECLARE, candidates
from .deal import (
    OVER,
    PLAYING,
    RETURNING,
    DealState,
    apply,
    check_action,
    clear_caches,
    read_play,
    skip_turn,
    start_deal,
)
from .effects import (
    DealOver,
    EngineEffect,
    Foul,
    Given,
    MatchOver,
    Passed,
    Played,
    ReportDue,
    Reported,
    ReturnDue,
    Returned,
    SlowPlay,
    StopDeal,
    TimedOut,
    TimeUp,
    TributePlanned,
    TrickEnd,
    Turn,
    WentOut,
)
from .errors import AmbiguousPlayError, GuandanError, IllegalPlayError, InvalidCardError, InvalidPlayError
from .interpret import interpret
from .legal import legal_plays
from .levels import (
    ACE,
    PASSED,
    LevelError,
    Settlement,
    check_finish,
    format_team_level,
    next_deal,
    parse_team,
    parse_team_level,
    settle,
    up_for,
)
from .match import MatchState, clock, deal_finished, first_leader, new_match, next_setup, round_winner
from .profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    Profile,
    ProfileError,
    get_profile,
    profile_from_toml,
    profile_with,
)
from .readings import BOMB_TYPES, Reading, beats
from .record import PENALTY_KINDS, build_record
from .replay import replay
from .scoring import level_points, match_points, one_to_three, score_match, walkover
from .timers import deadline, tick
from .tribute import lowest_allowed_return, plan_tribute, return_allowed, tribute_candidates

__all__ = [
    "ACE", "ALL_CARDS", "AmbiguousPlayError", "BIG_JOKER", "BOMB_TYPES", "Bot", "COPIES", "Card", "DECLARE",
    "DEFAULT_PROFILE", "DealOver", "DealState", "EngineEffect", "Foul", "Given", "GuandanError",
    "IllegalPlayError", "InvalidCardError", "InvalidPlayError", "LevelError", "MatchOver", "MatchState",
    "OVER", "PASS", "PASSED", "PENALTY_KINDS", "PLAY", "PLAYING", "PROFILES", "Passed", "Played", "Profile",
    "ProfileError", "REPORT", "RETURNING", "Reading", "ReportDue", "Reported", "ReturnDue", "Returned",
    "SEAT_ZH", "SEATS", "SMALL_JOKER", "SUITS", "Settlement", "SlowPlay", "StopDeal", "TEAMS", "TimeUp", "TimedOut",
    "TributePlanned", "TrickEnd", "Turn", "WentOut", "actions", "apply", "beats", "build_record",
    "candidates", "card_of", "check_action", "check_finish", "classify", "clear_caches", "clock", "deadline",
    "deal", "deal_finished", "deal_hands", "first_leader", "format_team_level", "full_pack", "get_profile",
    "give", "interpret", "legal_plays", "level_points", "lowest_allowed_return", "match_points", "new_match",
    "next_deal", "next_seat", "next_setup", "one_to_three", "parse_card", "parse_cards", "parse_level",
    "parse_physical", "parse_seat", "parse_team", "parse_team_level", "partner", "pass_turn", "plan_tribute",
    "play", "play_out", "previous_seat", "profile_from_toml", "profile_with", "rank_name", "read_play",
    "replay", "report", "return_allowed", "return_card", "round_winner", "score_match", "scoring", "settle",
    "single_order", "skip_turn", "start_deal", "team_of", "tick", "tribute_candidates", "up_for", "walkover",
    "wild_card",
]
