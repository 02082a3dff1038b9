"""The rows of the vector-file tests (test_vectorfile.py, test_annindex.py and the worker
processes of reliability/test_vector_file.py): a module of its own, without pytest, so that
a worker process does not import pytest (0.2 CPU-s a start) to make them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from kenning.backends.base import MemoryRecord
from kenning.model import COLLECTIONS, Memory, content_hash

DIM = 384
PAIRS = [(c, t) for c, ts in COLLECTIONS.items() for t in ts]
GROUPS = ["acme/a", "acme/b", "acme/c", "other/d"]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def vectors(n: int, seed: int) -> np.ndarray:
    """Clustered unit vectors (paraphrases of a few notes: many close scores), plus some
    spiky ones (one large component: the worst case for int8 codes) and exact twins."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(40, DIM))
    out = base[rng.integers(0, 40, n)] + rng.normal(0, 0.15, (n, DIM))
    spiky = rng.choice(n, n // 20, replace=False)
    out[spiky, rng.integers(0, DIM, len(spiky))] += 30.0
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    out[1::97] = out[0::97][: len(out[1::97])]  # twins: equal scores, broken by rowid
    return out.astype(np.float32)


def records(start: int, matrix: np.ndarray) -> list[MemoryRecord]:
    out = []
    for offset, vector in enumerate(matrix):
        i = start + offset
        collection, memory_type = PAIRS[i % len(PAIRS)]
        text = f"note {i}"
        out.append(
            MemoryRecord(
                Memory(
                    f"m{i:07d}",
                    text,
                    collection,
                    memory_type,
                    GROUPS[i % len(GROUPS)],
                    T0 + timedelta(seconds=i),
                    content_hash(text),
                ),
                vector,
            )
        )
    return out
