"""``calibrate``: measure where the recall floor should sit for this store.

The method of the ruvector seed, automated: run labelled queries (``{"query", "gold":
[ids]}``; an empty gold list marks an unrelated query), take each query's top-1 hit, and
report top-1 accuracy, the score range of correct hits, the highest score any unrelated
query reached, and the floor that separates them (the midpoint of the gap), or say that
they overlap.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .backends.base import Filters
from .errors import UserInputError

if TYPE_CHECKING:
    from .store import MemoryStore


@dataclass(frozen=True)
class QueryOutcome:
    query: str
    gold: tuple[str, ...]
    top_id: str | None
    top_score: float | None
    correct: bool | None  # None for unrelated queries


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
        labelled, unrelated = self.labelled, self.unrelated
        correct = [o.top_score for o in labelled if o.correct and o.top_score is not None]
        noise = [o.top_score for o in unrelated if o.top_score is not None]
        low = min(correct) if correct else None
        high_noise = max(noise) if noise else None
        floor: float | None = None
        separable: bool | None = None
        if low is not None and high_noise is not None:
            separable = high_noise < low
            floor = round((low + high_noise) / 2, 3) if separable else None
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
                }
                for o in self.outcomes
            ],
        }


def read_queries(lines: Iterable[str]) -> list[tuple[str, tuple[str, ...]]]:
    queries = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserInputError(
                f'line {number} is not JSON ({exc.msg}); expected {{"query", "gold"}}'
            ) from None
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("query"), str)
            or not data["query"].strip()
        ):
            raise UserInputError(f'line {number} needs a non-empty "query" string')
        gold = data.get("gold", [])
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise UserInputError(
                f'line {number}: "gold" must be a list of memory ids (empty = unrelated)'
            )
        queries.append((data["query"], tuple(gold)))
    if not queries:
        raise UserInputError(
            'no queries found; each line is {"query": "...", "gold": ["<id>", ...]}'
        )
    return queries


def calibrate(
    store: MemoryStore, queries: list[tuple[str, tuple[str, ...]]], group_id: str | None = None
) -> CalibrationReport:
    filters = Filters(group_id=store.resolve_group(group_id))
    outcomes = []
    for query, gold in queries:
        hits = store.retrieve(query, 1, filters)
        top = hits[0] if hits else None
        outcomes.append(
            QueryOutcome(
                query,
                gold,
                top.memory.id if top else None,
                top.semantic if top else None,
                (top is not None and top.memory.id in gold) if gold else None,
            )
        )
    return CalibrationReport(tuple(outcomes))
