"""What makes a stored vector usable, and what a cosine may be.

Every backend answers with cosine similarity in [-1, 1], and the embedded store computes it
as a dot product, which is a cosine only for unit vectors. So a vector is accepted (from an
import, a write, a row read back) only when it has the store's dimension, holds no NaN or
infinity, and has unit length within :data:`UNIT_NORM_TOLERANCE`. A vector that fails is
not repaired by scaling: it did not come from the store's embedder, so the content is
embedded again (``kenning import``, ``kenning reembed``) instead.

A cosine outside [-1, 1] by more than rounding is a bug (a vector that skipped these
checks), never a very good match: :func:`checked_cosine` raises instead of clipping it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .errors import KenningError

#: How far from 1 a vector's L2 norm may be. float32 normalisation errs by ~1e-7; the issue
#: that introduced the check (a 1e30-scaled vector scoring 1.00 for every query) asked for
#: ±1e-3, which no embedder's rounding comes near and every tampered vector exceeds.
UNIT_NORM_TOLERANCE = 1e-3
#: The most a dot product of two accepted vectors can exceed 1: (1 + 1e-3)² - 1, plus
#: float32 rounding of a 384-term sum.
COSINE_TOLERANCE = (1 + UNIT_NORM_TOLERANCE) ** 2 - 1 + 1e-5

__all__ = [
    "COSINE_TOLERANCE",
    "UNIT_NORM_TOLERANCE",
    "ScoreOutOfRange",
    "bad_rows",
    "checked_cosine",
    "checked_cosines",
    "direction_of",
    "vector_problem",
]


class ScoreOutOfRange(KenningError):
    """A similarity outside [-1, 1]: a stored or query vector is not what the store
    accepts. It is a bug to report, not a match to show."""


def vector_problem(vector: object, dimension: int | None) -> str | None:
    """What is wrong with ``vector`` for a store of ``dimension`` (None: any), or None when
    it is usable: the right dimension, finite, unit length."""
    try:
        array = np.asarray(vector, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError):
        return "is not a vector of numbers"
    if dimension is not None and array.shape[0] != dimension:
        return f"has {array.shape[0]} dimensions, not {dimension}"
    if not np.isfinite(array).all():
        return "holds NaN or infinity"
    norm = float(np.linalg.norm(array.astype(np.float64)))
    if not abs(norm - 1.0) <= UNIT_NORM_TOLERANCE:
        return f"has length {norm:.6g}, not 1 (±{UNIT_NORM_TOLERANCE:g})"
    return None


def direction_of(vector: object, dimension: int | None) -> tuple[np.ndarray | None, float]:
    """A finite ``vector`` of another length than 1 as a server's search reads it (pgvector's
    cosine, Qdrant's cosine collection: :class:`~kenning.backends.base.ScoresDirections`):
    its direction, of unit length (float64 norm, then float32: the length errs by ~1e-7),
    and its length. ``(None, 0.0)`` for a zero vector, which has no direction (search
    scores it 0), and ``(None, nan)`` for one of another dimension or not finite, which no
    search can score."""
    array = np.asarray(vector, dtype=np.float64).reshape(-1)
    if dimension is not None and array.shape[0] != dimension:
        return None, math.nan
    with np.errstate(over="ignore", invalid="ignore"):
        length = float(np.linalg.norm(array))
    if not math.isfinite(length):
        return None, math.nan
    if length == 0.0:
        return None, 0.0
    direction = (array / length).astype(np.float32)
    if vector_problem(direction, dimension) is not None:  # (underflow: no direction left)
        return None, math.nan
    return direction, length


def bad_rows(matrix: np.ndarray) -> np.ndarray:
    """A boolean mask of the rows of a 2-d float32 matrix that are not finite unit vectors
    (one float32 pass, for a whole cached matrix: NaN, infinity and overflow all give a
    squared norm that fails the test)."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    ok: np.ndarray = np.abs(norms - 1.0) <= UNIT_NORM_TOLERANCE
    return ~ok


def checked_cosine(score: float, what: str = "a cosine") -> float:
    """``score`` as a cosine in [-1, 1]: rounding past ±1 (at most :data:`COSINE_TOLERANCE`)
    is removed; anything further out raises :class:`ScoreOutOfRange`."""
    value = float(score)
    if not math.isfinite(value) or abs(value) > 1.0 + COSINE_TOLERANCE:
        raise ScoreOutOfRange(
            f"{what} of {value:.6g} is outside [-1, 1]: a vector in the store or the query "
            "is not a unit vector. This is a bug in whatever wrote it; `kenning reembed` "
            "recomputes the vectors (`kenning doctor` names the row in an embedded store)"
        )
    return max(-1.0, min(1.0, value))


def checked_cosines(scores: Sequence[float] | np.ndarray, what: str = "a cosine") -> np.ndarray:
    """:func:`checked_cosine` over an array (non-finite entries, used as "masked out", are
    left as they are)."""
    array = np.asarray(scores, dtype=np.float64)
    finite = array[np.isfinite(array)]
    if finite.size and float(np.abs(finite).max()) > 1.0 + COSINE_TOLERANCE:
        worst = float(finite[np.argmax(np.abs(finite))])
        checked_cosine(worst, what)  # raises with the message
    return np.where(np.isfinite(array), np.clip(array, -1.0, 1.0), array)
