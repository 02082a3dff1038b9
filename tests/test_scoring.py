"""Tests for kenning.scoring: decay, half-lives, override parsing."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning import protocol
from kenning.errors import UserInputError
from kenning.model import COLLECTIONS, TYPE_TO_COLLECTION
from kenning.scoring import (
    DEFAULT_COLLECTION_HALF_LIFE,
    DEFAULT_TYPE_HALF_LIFE,
    age_days,
    decayed_score,
    half_life_for,
    layered_half_lives,
    parse_half_life_overrides,
    temporal_score,
)

from .case_table import each_case

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


# --- defaults ---------------------------------------------------------------------------


def test_collection_defaults_match_spec():
    assert DEFAULT_COLLECTION_HALF_LIFE == {
        "code-patterns": 14.0,
        "conventions": 60.0,
        "discussions": 21.0,
    }
    assert set(DEFAULT_COLLECTION_HALF_LIFE) == set(COLLECTIONS)


def test_type_defaults_from_seed_and_valid():
    assert DEFAULT_TYPE_HALF_LIFE == {"session": 21.0, "rule": 60.0, "guideline": 60.0}
    assert set(DEFAULT_TYPE_HALF_LIFE) <= set(TYPE_TO_COLLECTION)


# --- age_days ---------------------------------------------------------------------------


@each_case(
    ("delta", "expected"),
    [
        (timedelta(0), 0.0),
        (timedelta(days=1), 1.0),
        (timedelta(hours=12), 0.5),
        (timedelta(hours=36), 1.5),
        (timedelta(days=14), 14.0),
        (timedelta(seconds=1), 1 / 86400),
        (timedelta(days=-3), 0.0),  # future timestamp: clamped
        (timedelta(seconds=-1), 0.0),
    ],
)
def test_age_days(delta, expected):
    assert age_days(NOW - delta, NOW) == pytest.approx(expected)


def test_age_days_naive_is_utc_and_timezones_are_respected():
    naive = datetime(2026, 3, 1, 0, 0)
    assert age_days(naive, NOW) == pytest.approx(0.5)
    plus2 = timezone(timedelta(hours=2))
    # 14:00+02:00 is 12:00 UTC: the same instant as NOW.
    assert age_days(datetime(2026, 3, 1, 14, 0, tzinfo=plus2), NOW) == 0.0


def test_age_days_is_fractional_not_whole_days():
    # The seed used timedelta.days (23 h -> 0 days); kenning does not truncate.
    assert age_days(NOW - timedelta(hours=23), NOW) == pytest.approx(23 / 24)


# --- temporal_score / decayed_score -----------------------------------------------------


@each_case(
    ("age", "half_life", "expected"),
    [
        (0, 14, 1.0),
        (14, 14, 0.5),
        (28, 14, 0.25),
        (7, 14, 2**-0.5),
        (60, 60, 0.5),
        (-5, 14, 1.0),  # negative age clamped
    ],
)
def test_temporal_score(age, half_life, expected):
    assert temporal_score(age, half_life) == pytest.approx(expected)


@each_case("half_life", [0, -1, math.nan, math.inf])
def test_temporal_score_rejects_bad_half_life(half_life):
    with pytest.raises(ValueError, match="half-life"):
        temporal_score(1.0, half_life)


@each_case(
    ("semantic", "age", "half_life", "expected_final", "expected_temporal"),
    [
        (0.85, 14, 14, 0.745, 0.5),
        (0.85, 0, 14, 0.895, 1.0),
        (0.85, 28, 14, 0.670, 0.25),
        (0.9, 30, 7, 0.6454, 0.5 ** (30 / 7)),
        (1.0, 0, 21, 1.0, 1.0),
        (0.0, 21, 21, 0.15, 0.5),
    ],
)
def test_decayed_score_cases(semantic, age, half_life, expected_final, expected_temporal):
    final, temporal = decayed_score(semantic, age, half_life)
    assert final == pytest.approx(expected_final, abs=5e-4)
    assert temporal == pytest.approx(expected_temporal)


def test_decayed_score_uses_protocol_weights():
    final, temporal = decayed_score(0.6, 10, 14)
    assert final == pytest.approx(
        protocol.SEMANTIC_WEIGHT * 0.6 + protocol.TEMPORAL_WEIGHT * temporal
    )
    assert pytest.approx(1.0) == protocol.SEMANTIC_WEIGHT + protocol.TEMPORAL_WEIGHT


def test_sub_scores_reported_exactly_not_by_inversion():
    # temporal is returned as computed; nothing is derived by inverting the formula.
    final, temporal = decayed_score(0.42, 3.3, 14)
    assert temporal == temporal_score(3.3, 14)
    assert final == protocol.SEMANTIC_WEIGHT * 0.42 + protocol.TEMPORAL_WEIGHT * temporal


semantics = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
ages = st.floats(min_value=0.0, max_value=10_000.0, allow_nan=False)
half_lives = st.floats(min_value=0.01, max_value=1_000.0, allow_nan=False)


@given(semantic=semantics, a1=ages, a2=ages, half_life=half_lives)
def test_decay_monotone_non_increasing_in_age(semantic, a1, a2, half_life):
    young, old = sorted((a1, a2))
    final_young, temporal_young = decayed_score(semantic, young, half_life)
    final_old, temporal_old = decayed_score(semantic, old, half_life)
    assert temporal_old <= temporal_young
    assert final_old <= final_young


@given(semantic=semantics, age=ages, half_life=half_lives)
def test_final_is_weighted_mean_between_sub_scores(semantic, age, half_life):
    final, temporal = decayed_score(semantic, age, half_life)
    assert 0.0 <= temporal <= 1.0
    eps = 1e-12
    assert min(semantic, temporal) - eps <= final <= max(semantic, temporal) + eps
    expected = protocol.SEMANTIC_WEIGHT * semantic + protocol.TEMPORAL_WEIGHT * temporal
    assert final == pytest.approx(expected, abs=1e-12)
    # Decay only ever blends toward the temporal score: the weighted bounds hold too.
    assert final <= protocol.SEMANTIC_WEIGHT * semantic + protocol.TEMPORAL_WEIGHT + eps
    assert final >= protocol.SEMANTIC_WEIGHT * semantic - eps


@given(semantic=semantics, half_life=half_lives)
def test_one_half_life_halves_temporal(semantic, half_life):
    _, temporal = decayed_score(semantic, half_life, half_life)
    assert temporal == pytest.approx(0.5)


# --- half_life_for ----------------------------------------------------------------------


@each_case(
    ("memory_type", "collection", "overrides", "expected"),
    [
        # collection defaults
        ("implementation", "code-patterns", {}, 14.0),
        ("error_fix", "code-patterns", {}, 14.0),
        ("port", "conventions", {}, 60.0),
        ("decision", "discussions", {}, 21.0),
        # type defaults (seed)
        ("session", "discussions", {}, 21.0),
        ("rule", "conventions", {}, 60.0),
        ("guideline", "conventions", {}, 60.0),
        # overrides by type win
        ("error_fix", "code-patterns", {"error_fix": 7.0}, 7.0),
        ("rule", "conventions", {"rule": 365.0}, 365.0),
        ("error_fix", "code-patterns", {"error_fix": 7.0, "code-patterns": 30.0}, 7.0),
        # overrides by collection beat built-in defaults (type and collection)
        ("implementation", "code-patterns", {"code-patterns": 30.0}, 30.0),
        ("rule", "conventions", {"conventions": 30.0}, 30.0),
        ("session", "discussions", {"discussions": 10.0}, 10.0),
        # an override for another type does not apply
        ("decision", "discussions", {"error_fix": 7.0}, 21.0),
        # None means no overrides
        ("refactor", "code-patterns", None, 14.0),
        # spelling variants
        ("Error-Fix", "Code_Patterns", {"error_fix": 5.0}, 5.0),
        ("implementation", "CODE-PATTERNS", {}, 14.0),
    ],
)
def test_half_life_for(memory_type, collection, overrides, expected):
    assert half_life_for(memory_type, collection, overrides) == expected


def test_half_life_for_unknown_falls_back_to_slowest_default():
    assert half_life_for("mystery", "elsewhere", {}) == max(DEFAULT_COLLECTION_HALF_LIFE.values())


@each_case(("memory_type", "collection"), TYPE_TO_COLLECTION.items())
def test_every_type_has_a_positive_half_life(memory_type, collection):
    assert half_life_for(memory_type, collection, {}) > 0


def test_half_life_for_with_parsed_overrides():
    overrides = parse_half_life_overrides("error_fix:7, decision:90, conventions:30")
    assert half_life_for("error_fix", "code-patterns", overrides) == 7.0
    assert half_life_for("decision", "discussions", overrides) == 90.0
    assert half_life_for("naming", "conventions", overrides) == 30.0
    assert half_life_for("implementation", "code-patterns", overrides) == 14.0


# --- parse_half_life_overrides ----------------------------------------------------------


@each_case(
    ("text", "expected"),
    [
        ("error_fix:7, decision:90", {"error_fix": 7.0, "decision": 90.0}),
        ("error_fix:7,decision:90", {"error_fix": 7.0, "decision": 90.0}),
        ("  error_fix : 7  ", {"error_fix": 7.0}),
        ("ERROR_FIX:7", {"error_fix": 7.0}),
        ("error-fix:7", {"error_fix": 7.0}),
        ("code-patterns:30", {"code-patterns": 30.0}),
        ("code_patterns:30", {"code-patterns": 30.0}),
        ("Conventions:1.5", {"conventions": 1.5}),
        ("session:0.25", {"session": 0.25}),
        ("rule:1e3", {"rule": 1000.0}),
        ("error_fix:7,", {"error_fix": 7.0}),  # trailing comma tolerated
        ("", {}),
        ("   ", {}),
    ],
)
def test_parse_overrides_string(text, expected):
    assert parse_half_life_overrides(text) == expected


def test_parse_overrides_none():
    assert parse_half_life_overrides(None) == {}


@each_case(
    ("mapping", "expected"),
    [
        ({"error_fix": 7, "decision": 90.0}, {"error_fix": 7.0, "decision": 90.0}),
        ({"Code-Patterns": 30}, {"code-patterns": 30.0}),
        ({"rule": "45"}, {"rule": 45.0}),
        ({}, {}),
    ],
)
def test_parse_overrides_mapping(mapping, expected):
    assert parse_half_life_overrides(mapping) == expected


@each_case(
    ("text", "names"),
    [
        ("error_fix:0", ["error_fix:0", "positive"]),
        ("error_fix:-7", ["error_fix:-7", "positive"]),
        ("error_fix:seven", ["error_fix:seven", "positive"]),
        ("error_fix:", ["error_fix:", "positive"]),
        ("error_fix:nan", ["error_fix:nan", "positive"]),
        ("error_fix:inf", ["error_fix:inf", "positive"]),
        ("error_fix:-inf", ["error_fix:-inf", "positive"]),
        ("error_fix 7", ["error_fix 7", "TYPE:DAYS"]),
        ("error_fix=7", ["error_fix=7", "TYPE:DAYS"]),
        (":7", [":7", "TYPE:DAYS"]),
        ("error_fix:7:8", ["error_fix:7:8", "TYPE:DAYS"]),
        ("decision:90, bogus:3", ["bogus:3", "unknown name 'bogus'", "error_fix", "conventions"]),
        ("github_commit:14", ["github_commit", "memory type"]),
        ("error_fix:7, error-fix:8", ["error-fix:8", "more than once"]),
    ],
)
def test_parse_overrides_rejects(text, names):
    with pytest.raises(UserInputError) as info:
        parse_half_life_overrides(text)
    message = str(info.value)
    for name in names:
        assert name in message
    assert "error_fix:7, decision:90" in message or "more than once" in message


@each_case(
    "mapping",
    [
        {"error_fix": 0},
        {"error_fix": -1.0},
        {"error_fix": math.nan},
        {"error_fix": math.inf},
        {"error_fix": True},
        {"error_fix": "soon"},
        {"error_fix": None},
        {"unknown": 7},
    ],
)
def test_parse_overrides_mapping_rejects(mapping):
    with pytest.raises(UserInputError, match=r"invalid half-life override .*(error_fix|unknown)"):
        parse_half_life_overrides(mapping)


def test_parse_overrides_rejects_other_types():
    with pytest.raises(UserInputError, match="TYPE:DAYS"):
        parse_half_life_overrides(7)  # type: ignore[arg-type]


def test_a_collection_a_higher_layer_names_sets_the_lower_layers_types_of_it() -> None:
    """config.toml's `error_fix = 7` kept beating the environment's `code-patterns:30`
    (half-lives are looked up by type first): error fixes still decayed in 7 days. A
    collection a layer names sets every type of it; the lower layer's other names stay."""
    lower = {"error_fix": 7.0, "decision": 90.0, "conventions": 40.0}
    merged = layered_half_lives(lower, {"code-patterns": 30.0})
    assert merged == {"decision": 90.0, "conventions": 40.0, "code-patterns": 30.0}
    assert half_life_for("error_fix", "code-patterns", merged) == 30.0
    # a type named above keeps its own, over its collection's from below
    merged = layered_half_lives({"code-patterns": 30.0}, {"error_fix": 5.0})
    assert half_life_for("error_fix", "code-patterns", merged) == 5.0
    assert half_life_for("refactor", "code-patterns", merged) == 30.0


def test_a_half_life_table_error_shows_the_table_form() -> None:
    """A bad value in config.toml's `half_life = { error_fix = -3 }` was explained with
    the environment's form ('error_fix:7, decision:90'), not the table the user wrote."""
    with pytest.raises(UserInputError) as caught:
        parse_half_life_overrides({"error_fix": -3})
    assert "half_life = { error_fix = 7" in str(caught.value), caught.value
    assert "error_fix = -3" in str(caught.value), caught.value
    with pytest.raises(UserInputError, match="TYPE:DAYS"):
        parse_half_life_overrides("error_fix:-3")
