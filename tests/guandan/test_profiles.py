"""Rule profiles: the §10 table as shipped data, and custom TOML profiles validated key by key."""

from __future__ import annotations

import pytest

from guandan.profiles import PROFILES, ProfileError, get_profile, profile_from_toml


def test_the_four_profiles_of_the_spec_table() -> None:
    assert set(PROFILES) == {"national", "competitive-2017", "jiangsu", "club-004"}
    nat, comp, js, club = (PROFILES[n] for n in ("national", "competitive-2017", "jiangsu", "club-004"))
    assert [p.double_down_up for p in (nat, comp, js, club)] == [3, 4, 3, 4]
    assert [p.pass_a for p in (nat, comp, js, club)] == ["partner_not_last"] * 3 + ["double_down"]
    assert [p.first_lead for p in (nat, comp, js, club)] == ["turned_card", "first_dealt:H3", "turned_card",
                                                              "turned_card"]
    assert [p.tie_tribute for p in (nat, comp, js, club)] == ["clockwise", "clockwise", "counter_clockwise",
                                                               "clockwise"]
    assert js.return_limit == "below_level_to_partner" and nat.return_limit == comp.return_limit == "ten_to_partner"
    assert comp.wild_reading == "declare" and nat.wild_reading == "strongest_unless_declared"
    assert (comp.report, comp.report_on_ask) == ("auto", False)
    assert (nat.report, nat.report_on_ask) == ("player", False)
    assert (js.report, js.report_on_ask) == (club.report, club.report_on_ask) == ("player", True)
    assert (comp.play_seconds, comp.first_lead_seconds, comp.timeout_action) == (25.0, 40.0, "auto")
    assert js.play_seconds == 30.0 and js.return_seconds == 40.0 and club.play_seconds == 20.0
    assert nat.play_seconds is None  # the event sets it
    assert (nat.match_end, js.match_end, js.match_minutes, club.match_end, club.match_minutes) == (
        "pass_a", "time", 50.0, "time", 40.0)
    assert all(p.jiefeng for p in PROFILES.values())


def test_get_profile_names_the_known_ones() -> None:
    assert get_profile("jiangsu").name == "jiangsu"
    with pytest.raises(ProfileError, match="national"):
        get_profile("nope")


def test_toml_overrides_any_setting_on_a_base() -> None:
    p = profile_from_toml(
        'base = "jiangsu"\nname = "evt"\ndouble_down_up = 4\nfixed_level = "2"\ndeal_points = "one_to_three"\n'
        'match_end = "deals"\nmatch_deals = 6\nknockout = true\nplay_seconds = 0\na_drop_back = 3\n'
    )
    assert p.name == "evt" and p.double_down_up == 4 and p.fixed_level == "2" and p.fixed_level_value == 2
    assert p.tie_tribute == "counter_clockwise"  # from the base
    assert p.play_seconds is None and p.a_drop_back == 3 and p.knockout and p.match_deals == 6


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("double_down_up = 5", "double_down_up"),
        ('pass_a = "always"', "pass_a"),
        ("jiefeng = 1", "jiefeng"),
        ('fixed_level = "Z"', "fixed_level"),
        ('first_lead = "seat:X"', "first_lead"),
        ("play_seconds = -3", "play_seconds"),
        ("colour = 'red'", "colour"),
        ('base = "mars"', "base"),
        ('match_end = "deals"', "match_deals"),
        ("[timers]\nplay = 3", "timers"),
    ],
)
def test_toml_errors_name_the_key(text: str, key: str) -> None:
    with pytest.raises(ProfileError, match=key):
        profile_from_toml(text, source="evt.toml")


def test_bad_toml_syntax_is_a_profile_error() -> None:
    with pytest.raises(ProfileError, match="evt.toml: not valid TOML"):
        profile_from_toml("double_down_up = ", source="evt.toml")
