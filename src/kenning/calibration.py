"""``calibrate``: measure where the recall floor should sit for this store.

The method of the ruvector seed, automated: run labelled queries (``{"query", "gold":
[ids]}``; an empty gold list marks an unrelated query), take each query's top-1 hit, and
report top-1 accuracy, the score range of correct hits, the highest score any unrelated
query reached, and the floor that separates them (the midpoint of the gap), or say that
they overlap.

``--write`` (:func:`write_calibration`) saves what was measured to ``.kenning/config.toml``,
where :mod:`kenning.config` reads it: ``similarity_threshold`` (search's bar) from every
query, ``recall_floor`` from the queries recall treats as generic and
``error_recall_floor`` from those it treats as errors (a floor whose queries are missing is
left as it is). It refuses — and writes nothing — when correct hits and unrelated queries
do not separate, and says why.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .backends.base import Filters
from .errors import UserInputError, json_error_said

if TYPE_CHECKING:
    from .store import MemoryStore


@dataclass(frozen=True)
class QueryOutcome:
    query: str
    gold: tuple[str, ...]
    top_id: str | None
    top_score: float | None
    correct: bool | None  # None for unrelated queries
    #: Recall treats the query as an error (the error floor applies to it).
    error_query: bool = False


@dataclass(frozen=True)
class CalibrationReport:
    outcomes: tuple[QueryOutcome, ...]

    @property
    def labelled(self) -> list[QueryOutcome]:
        return [o for o in self.outcomes if o.gold]

    @property
    def unrelated(self) -> list[QueryOutcome]:
        return [o for o in self.outcomes if not o.gold]

    def summary(self) -> dict[str, Any]:
        return separation(self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "queries": [
                {
                    "query": o.query,
                    "gold": list(o.gold),
                    "top_id": o.top_id,
                    "top_score": o.top_score,
                    "correct": o.correct,
                    "error_query": o.error_query,
                }
                for o in self.outcomes
            ],
        }


def separation(outcomes: Sequence[QueryOutcome]) -> dict[str, Any]:
    """Top-1 accuracy, the score ranges of correct hits and of unrelated queries, and the
    floor between them (None when they overlap or a side is missing)."""
    labelled = [o for o in outcomes if o.gold]
    unrelated = [o for o in outcomes if not o.gold]
    correct = [o.top_score for o in labelled if o.correct and o.top_score is not None]
    noise = [o.top_score for o in unrelated if o.top_score is not None]
    low = min(correct) if correct else None
    high_noise = max(noise) if noise else None
    floor: float | None = None
    separable: bool | None = None
    if low is not None and high_noise is not None:
        separable = high_noise < low
        if separable:
            # rounded for the reader, unless that takes it out of the gap (a gap under
            # 0.001): a floor at or under the loudest unrelated score lets it through
            middle = (low + high_noise) / 2
            rounded = round(middle, 3)
            floor = rounded if high_noise < rounded <= low else middle
    return {
        "labelled_queries": len(labelled),
        "unrelated_queries": len(unrelated),
        "top1_accuracy": (sum(bool(o.correct) for o in labelled) / len(labelled))
        if labelled
        else None,
        "correct_score_min": low,
        "correct_score_max": max(correct) if correct else None,
        "highest_unrelated_score": high_noise,
        "separable": separable,
        "suggested_floor": floor,
    }


def read_queries(lines: Iterable[str]) -> list[tuple[str, tuple[str, ...]]]:
    from .querybuild import check_query

    queries = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if number == 1:  # a byte order mark, as Notepad or PowerShell save UTF-8: no text
            line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserInputError(
                f'line {number} is not JSON ({json_error_said(exc)}); expected {{"query", "gold"}}'
            ) from None
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("query"), str)
            or not data["query"].strip()
        ):
            raise UserInputError(f'line {number} needs a non-empty "query" string')
        try:  # what recall and search refuse (a raw diff, a whole log) is measured by neither
            check_query(data["query"])
        except UserInputError as exc:
            raise UserInputError(f"line {number}: {exc}") from None
        if "gold" not in data:
            # a misspelt key would otherwise make a labelled query count as an unrelated one
            raise UserInputError(
                f'line {number} has no "gold" list; give the ids of the memories that answer '
                "the query, or [] for a query nothing in the store should answer"
            )
        gold = data["gold"]
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise UserInputError(
                f'line {number}: "gold" must be a list of memory ids (empty = unrelated)'
            )
        # the same query twice is one measurement counted twice: five copies of one query
        # would pass --write's minimum (MIN_QUERIES_PER_SIDE) and set a floor from one query
        key = " ".join(data["query"].split()).casefold()
        if key in first_line:
            raise UserInputError(
                f"line {number} repeats the query of line {first_line[key]}; give each query "
                "once (every memory that answers it goes in its one gold list)"
            )
        first_line[key] = number
        queries.append((data["query"], tuple(gold)))
    if not queries:
        raise UserInputError(
            'no queries found; each line is {"query": "...", "gold": ["<id>", ...]}'
        )
    return queries


def calibrate(
    store: MemoryStore, queries: list[tuple[str, tuple[str, ...]]], group_id: str | None = None
) -> CalibrationReport:
    from .signatures import looks_like_error

    filters = Filters(group_id=store.resolve_group(group_id))
    # a gold id as recall and search show it (its start, 12 hex digits on) names its memory,
    # as forget and edit take it: calibrate called it "not in this project" (qa76 F6)
    named = {g: store.resolve_id(g, group_id=group_id) for g in {g for _, q in queries for g in q}}
    queries = [(query, tuple(named[g] for g in gold)) for query, gold in queries]
    wanted = sorted(named)
    unknown = [g for g in wanted if store.get(named[g], group_id=group_id) is None]
    if unknown:
        # a gold id that is not there can never be a correct hit: the accuracy and the
        # floors would be measured against nothing
        shown = ", ".join(unknown[:3]) + (
            f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        )
        from .project import where_searched

        counted = (
            "1 gold memory id is not"
            if len(unknown) == 1
            else f"{len(unknown)} gold memory ids are not"
        )
        from .model import ID_PREFIX_MIN_HEX, too_short_for_prefix

        # "not in this project" of an id's first digits: forget says "too short" (qa77 F9)
        short = [g for g in unknown if too_short_for_prefix(g)]
        said = (
            f" ({', '.join(short[:3])}: too short to name a memory, an id is taken by its "
            f"start from {ID_PREFIX_MIN_HEX} hex digits on)"
            if short
            else ""
        )
        raise UserInputError(
            f"{counted} in {where_searched(group_id)}: {shown}{said}; use the ids `kenning "
            "search` or `kenning recall` shows (or --project for another project)"
        )
    outcomes = []
    # the queries embedded together: one model run per batch, not one per query
    found = store.retrieve_many([query for query, _ in queries], 1, filters)
    for (query, gold), hits in zip(queries, found, strict=True):
        top = hits[0] if hits else None
        outcomes.append(
            QueryOutcome(
                query,
                gold,
                top.memory.id if top else None,
                top.semantic if top else None,
                (top is not None and top.memory.id in gold) if gold else None,
                looks_like_error(query),
            )
        )
    return CalibrationReport(tuple(outcomes))


@dataclass(frozen=True)
class Written:
    """What ``calibrate --write`` saved, where, and each floor it left as it was (why)."""

    path: Path
    values: dict[str, float]
    kept: dict[str, str]
    #: Each value written that a variable (the environment or ``.env``) still overrides:
    #: the sentence that says which and how to let the written value apply.
    overridden: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "values": dict(self.values),
            "kept": dict(self.kept),
            "overridden": dict(self.overridden),
        }


#: ``--write`` saves a value only when it rests on at least this many correct top-1 hits and
#: this many unrelated queries that found a memory: the value is the midpoint between the
#: lowest correct hit and the loudest unrelated query, so with one or two queries on a side a
#: single odd query would set the project's floor (a floor of 0.2 from one unrelated query
#: that happened to score 0.1 lets every weak match through).
MIN_QUERIES_PER_SIDE = 5


def why_not_separable(outcomes: Sequence[QueryOutcome]) -> str | None:
    """Why these outcomes cannot place a threshold (None: they can)."""
    labelled = [o for o in outcomes if o.gold]
    unrelated = [o for o in outcomes if not o.gold and o.top_score is not None]
    correct = [o for o in labelled if o.correct and o.top_score is not None]
    if not labelled:
        return 'no labelled query (one with "gold" memory ids): nothing says what a hit scores'
    if not unrelated:
        asked = sum(1 for o in outcomes if not o.gold)
        said = (
            'no unrelated query (one with an empty "gold" list) was given'
            if not asked
            else f"none of the {asked} unrelated quer{'y' if asked == 1 else 'ies'} (an empty "
            '"gold" list) found any memory'
        )
        return (
            f"{said}: nothing says where noise ends; add at least {MIN_QUERIES_PER_SIDE} "
            "queries that nothing in the store answers"
        )
    if not correct:
        return "no labelled query found one of its gold memories at top-1"
    worst = min(correct, key=lambda o: o.top_score or 0.0)
    loudest = max(unrelated, key=lambda o: o.top_score or 0.0)
    if (loudest.top_score or 0.0) >= (worst.top_score or 0.0):
        return (
            f"correct hits and unrelated queries overlap: the unrelated query "
            f"{_shown(loudest.query)} scored {loudest.top_score:.3f}, at or above the correct hit "
            f"of {_shown(worst.query)} ({worst.top_score:.3f}); no threshold separates them "
            "— add memories or reword the queries, or set the values by hand"
        )
    if min(len(correct), len(unrelated)) < MIN_QUERIES_PER_SIDE:
        return (
            f"too few queries to rest a value on: {len(correct)} correct top-1 "
            f"hit{'' if len(correct) == 1 else 's'} and {len(unrelated)} unrelated "
            f"quer{'y' if len(unrelated) == 1 else 'ies'} that found a memory, and --write "
            f"needs at least {MIN_QUERIES_PER_SIDE} of each (one odd query would otherwise "
            "set the value); add queries, or set the value by hand"
        )
    return None


def _shown(query: str) -> str:
    flat = " ".join(query.split())
    return repr(flat if len(flat) <= 60 else flat[:57] + "...")


def measured_values(report: CalibrationReport) -> tuple[dict[str, float], dict[str, str]]:
    """The settings ``--write`` saves, and each floor left as it was with the reason.

    Raises :class:`~kenning.errors.UserInputError` (naming why) when the queries cannot
    separate correct hits from unrelated ones."""
    why = why_not_separable(report.outcomes)
    if why is not None:
        raise UserInputError(f"nothing written: {why}")
    values = {"similarity_threshold": float(report.summary()["suggested_floor"])}
    kept: dict[str, str] = {}
    for key, errors in (("recall_floor", False), ("error_recall_floor", True)):
        subset = [o for o in report.outcomes if o.error_query == errors]
        kind = "error" if errors else "generic"
        reason = why_not_separable(subset)
        if reason is None:
            values[key] = float(separation(subset)["suggested_floor"])
        else:
            kept[key] = f"left as it was: among the {kind} queries, {reason}"
    return values, kept


def write_calibration(store: MemoryStore, report: CalibrationReport) -> Written:
    """Save what ``report`` measured into the project's ``.kenning/config.toml`` (beside the
    store, where :func:`kenning.config.load_settings` reads it), keeping its other keys.
    The store-location guard applies, as to every write into ``.kenning``."""
    from .config import update_config_toml
    from .project import check_store_location

    values, kept = measured_values(report)
    check_store_location(store.project)
    path = update_config_toml(store.project.store_path.parent, values)
    # config.toml is the lowest layer: a value a variable sets is not what applies
    sources = store.settings.sources
    overridden = {
        key: f"KENNING_{key.upper()} from {sources[key]} overrides the value written; unset it "
        f"for {path.name}'s to apply"
        for key in values
        if sources.get(key) in ("environment", ".env")
    }
    return Written(path, values, kept, overridden)
