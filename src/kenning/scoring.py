"""Scoring: time decay and half-lives (the near-duplicate decision is :mod:`kenning.dedup`).

Pure functions only: no I/O, no clock. The caller passes ``now`` so results are
reproducible and testable.

Decay (AI Memory Module, AD-5)::

    temporal = 0.5 ** (age_days / half_life)
    final    = SEMANTIC_WEIGHT * semantic + TEMPORAL_WEIGHT * temporal   # 0.7 / 0.3

Unlike the seed, which recomputed the sub-scores by inverting the formula from a combined
score and used whole days (``timedelta.days``), kenning computes ``semantic`` and
``temporal`` first and reports both exactly; ``age_days`` is fractional.

Half-life resolution (:func:`half_life_for`), first match wins:

1. a user override for the memory's *type*;
2. a user override for the memory's *collection*;
3. the built-in default for the type (:data:`DEFAULT_TYPE_HALF_LIFE`);
4. the built-in default for the collection (:data:`DEFAULT_COLLECTION_HALF_LIFE`).

Explicit configuration beats every built-in default, so ``conventions:30`` shortens the
half-life of ``rule`` and ``guideline`` memories too, as a user would expect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime

from .errors import UserInputError
from .model import COLLECTIONS, TYPE_TO_COLLECTION, parse_timestamp
from .protocol import SEMANTIC_WEIGHT, TEMPORAL_WEIGHT

__all__ = [
    "DEFAULT_COLLECTION_HALF_LIFE",
    "DEFAULT_TYPE_HALF_LIFE",
    "age_days",
    "decayed_score",
    "half_life_for",
    "parse_half_life_overrides",
    "temporal_score",
]

SECONDS_PER_DAY = 86_400.0

#: Half-life in days per collection (SPEC §5): how fast each kind of knowledge goes stale.
DEFAULT_COLLECTION_HALF_LIFE: Mapping[str, float] = {
    "code-patterns": 14.0,
    "conventions": 60.0,
    "discussions": 21.0,
}

#: Half-life in days per memory type, where the seed's ``decay_type_overrides`` name a type
#: that exists in kenning's taxonomy: ``session`` (the seed's ``conversation`` /
#: ``session_summary``) 21 d, ``rule`` and ``guideline`` 60 d. The seed's ``github_*``
#: types have no counterpart here. Every other type falls back to its collection's
#: default; the entries are kept even where they equal it, so that changing a collection
#: default does not silently change them.
DEFAULT_TYPE_HALF_LIFE: Mapping[str, float] = {
    "session": 21.0,
    "rule": 60.0,
    "guideline": 60.0,
}

_OVERRIDE_FORM = "TYPE:DAYS pairs separated by commas, e.g. 'error_fix:7, decision:90'"
#: The same in a TOML table (``.kenning/config.toml``), as a table is written there.
_TABLE_FORM = "a table of TYPE = DAYS, e.g. half_life = { error_fix = 7, decision = 90 }"


def age_days(stored_at: datetime, now: datetime) -> float:
    """Fractional days between ``stored_at`` and ``now`` (seconds / 86400).

    Naive datetimes are taken as UTC. A timestamp in the future (clock skew, imported
    data) counts as age 0, never as negative age.
    """
    delta = parse_timestamp(now) - parse_timestamp(stored_at)
    return max(0.0, delta.total_seconds() / SECONDS_PER_DAY)


def temporal_score(age_days: float, half_life_days: float) -> float:
    """``0.5 ** (age_days / half_life_days)``: 1.0 when new, 0.5 after one half-life.

    A negative age is clamped to 0. Raises :class:`ValueError` for a half-life that is
    not a positive finite number (a programming error: user input goes through
    :func:`parse_half_life_overrides`).
    """
    if not (half_life_days > 0 and math.isfinite(half_life_days)):
        raise ValueError(f"half-life must be a positive number of days, got {half_life_days!r}")
    return 0.5 ** (max(0.0, age_days) / half_life_days)


def decayed_score(semantic: float, age_days: float, half_life_days: float) -> tuple[float, float]:
    """Return ``(final, temporal)`` with ``final = 0.7 * semantic + 0.3 * temporal``.

    The weights are :data:`kenning.protocol.SEMANTIC_WEIGHT` and ``TEMPORAL_WEIGHT``.
    """
    temporal = temporal_score(age_days, half_life_days)
    return SEMANTIC_WEIGHT * semantic + TEMPORAL_WEIGHT * temporal, temporal


def _normalise_name(name: str) -> str | None:
    """Map a user-written type or collection name to its canonical spelling, or None."""
    key = name.strip().lower()
    as_type = key.replace("-", "_")
    if as_type in TYPE_TO_COLLECTION:
        return as_type
    as_collection = key.replace("_", "-")
    if as_collection in COLLECTIONS:
        return as_collection
    return None


def half_life_for(
    memory_type: str,
    collection: str,
    overrides: Mapping[str, float] | None = None,
) -> float:
    """The half-life in days for a memory of ``memory_type`` in ``collection``.

    ``overrides`` (as returned by :func:`parse_half_life_overrides`) may name types and
    collections. Order: type override, collection override, type default, collection
    default. An unknown collection with no applicable entry falls back to the longest
    collection default (decays slowest, i.e. is never unfairly buried).
    """
    overrides = overrides or {}
    type_key = _normalise_name(memory_type) or memory_type
    collection_key = _normalise_name(collection) or collection
    for table, key in (
        (overrides, type_key),
        (overrides, collection_key),
        (DEFAULT_TYPE_HALF_LIFE, type_key),
        (DEFAULT_COLLECTION_HALF_LIFE, collection_key),
    ):
        if key in table:
            return float(table[key])
    return max(DEFAULT_COLLECTION_HALF_LIFE.values())


def _valid_names() -> str:
    return (
        f"a memory type ({', '.join(TYPE_TO_COLLECTION)}) "
        f"or a collection ({', '.join(COLLECTIONS)})"
    )


def _parse_days(item: str, raw: object, form: str = _OVERRIDE_FORM) -> float:
    if isinstance(raw, bool):
        days = math.nan  # True/False are ints in Python, but never a number of days
    elif isinstance(raw, int | float):
        days = float(raw)
    else:
        try:
            days = float(str(raw).strip())
        except ValueError:
            days = math.nan
    if not (math.isfinite(days) and days > 0):
        raise UserInputError(
            f"invalid half-life override {item!r}: DAYS must be a positive number; expected {form}"
        )
    return days


def parse_half_life_overrides(
    text: str | Mapping[str, object] | None,
) -> dict[str, float]:
    """Parse half-life overrides into ``{canonical type or collection: days}``.

    Accepts the string form ``"error_fix:7, decision:90"`` (environment, ``.env``, CLI) or
    a mapping (a TOML table). Names are case-insensitive; ``error-fix`` and
    ``code_patterns`` are accepted for ``error_fix`` and ``code-patterns``. Blank items
    (a trailing comma) are ignored. Raises :class:`UserInputError` naming the bad item for
    a missing colon, an unknown name, a name given twice, or DAYS that is not a positive
    finite number.
    """
    if text is None:
        return {}
    form = _OVERRIDE_FORM
    if isinstance(text, Mapping):
        form = _TABLE_FORM
        pairs = [(str(k), v, f"{k} = {v!r}") for k, v in text.items()]
    elif isinstance(text, str):
        pairs = []
        for raw_item in text.split(","):
            item = raw_item.strip()
            if not item:
                continue
            name, sep, days = item.partition(":")
            if not sep or not name.strip() or ":" in days:
                raise UserInputError(
                    f"invalid half-life override {item!r}: expected {_OVERRIDE_FORM}"
                )
            pairs.append((name, days, item))
    else:
        raise UserInputError(f"invalid half-life overrides {text!r}: expected {_OVERRIDE_FORM}")

    result: dict[str, float] = {}
    for name, raw_days, item in pairs:
        key = _normalise_name(name)
        if key is None:
            raise UserInputError(
                f"invalid half-life override {item!r}: unknown name {name.strip()!r}; "
                f"TYPE must be {_valid_names()}; expected {form}"
            )
        if key in result:
            raise UserInputError(
                f"invalid half-life override {item!r}: {key!r} is given more than once"
            )
        result[key] = _parse_days(item, raw_days, form)
    return result


def layered_half_lives(lower: Mapping[str, float], higher: Mapping[str, float]) -> dict[str, float]:
    """The half-lives of two settings layers: ``higher``'s, and ``lower``'s for the names it
    does not set. A collection a higher layer names sets every type of it, a lower layer's
    type of that collection included (half-lives are looked up by type first: the lower
    layer's ``error_fix = 7`` kept beating an environment's ``code-patterns:30``)."""
    named = set(higher)
    kept = {
        name: days
        for name, days in lower.items()
        if name not in named and TYPE_TO_COLLECTION.get(name) not in named
    }
    return kept | dict(higher)
