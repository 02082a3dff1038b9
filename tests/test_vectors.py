"""What a usable vector is, and what a cosine may be (issue 13, item 1).

A score above 1 is a bug to report, never a match to clip into "1.00": the checks here
are the ones import, doctor, the SQLite backend and hybrid fusion share.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kenning.backends.base import Filters
from kenning.backends.sqlite import SQLiteBackend
from kenning.errors import KenningError
from kenning.search import LEXICAL_WEIGHT, fused_score
from kenning.vectors import (
    COSINE_TOLERANCE,
    ScoreOutOfRange,
    bad_rows,
    checked_cosine,
    checked_cosines,
    vector_problem,
)

from .test_conformance import record, unit

RNG = np.random.default_rng(11)
GOOD = unit(RNG, 384)


@pytest.mark.parametrize(
    ("vector", "dimension", "problem"),
    [
        (GOOD, 384, None),
        (GOOD * 1.0009, 384, None),
        (GOOD * 1.0011, 384, "length"),
        (GOOD * 0.5, 384, "length"),
        (np.full(384, 1e30, dtype=np.float32), 384, "length"),
        (np.full(384, -np.inf, dtype=np.float32), 384, "NaN or infinity"),
        (np.where(np.arange(384) == 3, np.nan, GOOD), 384, "NaN or infinity"),
        (np.zeros(384, dtype=np.float32), 384, "length"),
        (GOOD[:383], 384, "383 dimensions, not 384"),
        (GOOD, None, None),
        ("not a vector", 384, "not a vector"),
    ],
)
def test_vector_problem(vector: object, dimension: int | None, problem: str | None) -> None:
    found = vector_problem(vector, dimension)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_bad_rows_matches_vector_problem() -> None:
    rows = [GOOD, GOOD * 2, np.full(384, np.inf), np.zeros(384), GOOD * 1.0005, unit(RNG, 384)]
    matrix = np.vstack(rows).astype(np.float32)
    expected = [vector_problem(r, 384) is not None for r in rows]
    assert bad_rows(matrix).tolist() == expected == [False, True, True, True, False, False]


def test_a_cosine_above_one_is_an_error_not_a_perfect_match() -> None:
    assert checked_cosine(1.0 + COSINE_TOLERANCE / 2) == 1.0  # rounding of unit vectors
    assert checked_cosine(-1.0 - COSINE_TOLERANCE / 2) == -1.0
    for score in (1.5, -1.5, 1e30, float("nan"), float("inf")):
        with pytest.raises(ScoreOutOfRange, match="kenning doctor"):
            checked_cosine(score)
    with pytest.raises(ScoreOutOfRange):
        checked_cosines(np.array([0.2, 3.0, -np.inf]))
    np.testing.assert_array_equal(
        checked_cosines(np.array([0.2, 1.0 + 1e-6, -np.inf])), [0.2, 1.0, -np.inf]
    )


def test_fused_score_refuses_a_cosine_out_of_range() -> None:
    with pytest.raises(ScoreOutOfRange):
        fused_score(1e30, 0.0, 0.0, 0.0)
    with pytest.raises(ScoreOutOfRange):
        fused_score(2.0, 4.0, 4.0, 1.0)


def test_fused_score_stays_on_the_cosine_scale_by_design() -> None:
    """The fused score is a cosine plus a bounded lexical bonus (at most LEXICAL_WEIGHT):
    a near-perfect cosine with a strong lexical match may sum past 1, and that is a real,
    certain match. It is reported below 1 (the top of the cosine scale, so the floors keep
    their meaning) without tying with a weaker one; only the cosine that goes into it must
    be a cosine."""
    assert 0.95 + LEXICAL_WEIGHT > 1.0
    assert 0.99 < fused_score(0.95, 10.0, 10.0, 1.0) < 1.0
    assert fused_score(0.9, 10.0, 10.0, 1.0) < fused_score(0.95, 10.0, 10.0, 1.0)
    assert fused_score(0.5, 10.0, 10.0, 1.0) == pytest.approx(0.5 + LEXICAL_WEIGHT)


def test_sqlite_refuses_a_query_vector_that_is_not_unit(tmp_path: Path) -> None:
    backend = SQLiteBackend(tmp_path / "m.db")
    backend.upsert([record(i, unit(RNG, 384)) for i in range(5)])
    with pytest.raises(KenningError, match="length"):
        backend.vector_search(GOOD * 3, 3, Filters())
    hits = backend.vector_search(GOOD, 5, Filters())
    assert len(hits) == 5 and all(-1.0 <= h.score <= 1.0 for h in hits)
    backend.close()


def test_sqlite_refuses_to_store_a_vector_that_is_not_unit(tmp_path: Path) -> None:
    backend = SQLiteBackend(tmp_path / "m.db")
    with pytest.raises(KenningError, match="nothing was written"):
        backend.upsert([record(0, unit(RNG, 384)), record(1, GOOD * 1e30)])
    assert backend.count(Filters()) == 0
    backend.upsert([record(0, unit(RNG, 384))])
    with pytest.raises(KenningError, match="nothing was written"):
        backend.update_vectors([(record(0, GOOD).memory.id, GOOD * 2)])
    backend.close()


def test_a_vector_rewritten_elsewhere_is_seen_by_a_cached_reader(tmp_path: Path) -> None:
    """``kenning reembed`` (another process) rewrites vectors in place: the row count and
    the largest rowid stay the same, yet a long-running reader's cached matrix must not
    keep the old vectors."""
    rows = [record(i, unit(RNG, 384)) for i in range(6)]
    reader = SQLiteBackend(tmp_path / "m.db")
    reader.upsert(rows)
    target = rows[2].memory.id
    assert reader.vector_search(rows[2].vector, 1, Filters())[0].memory.id == target
    writer = SQLiteBackend(tmp_path / "m.db", create=False)
    fresh = unit(RNG, 384)
    writer.update_vectors([(target, fresh)])
    hits = reader.vector_search(fresh, 1, Filters())
    assert hits[0].memory.id == target and hits[0].score == pytest.approx(1.0, abs=1e-5)
    # and the process's own rewrite
    again = unit(RNG, 384)
    reader.update_vectors([(target, again)])
    assert reader.vector_search(again, 1, Filters())[0].score == pytest.approx(1.0, abs=1e-5)
    writer.close()
    reader.close()
