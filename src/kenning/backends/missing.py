"""The store that does not exist yet: it holds nothing, and refuses to be written.

``open_store(create=False, missing_ok=True)`` returns a :class:`~kenning.store.MemoryStore`
over this backend when the project has no store yet, so that every read answers the way an
empty store does (no results, zero counts, no provenance) without creating a file, a table
or a collection, and every surface gives one answer to "no store yet". A write raises the
:class:`~kenning.errors.StoreNotFound` the open would have raised.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import numpy as np

from ..errors import StoreNotFound
from ..model import Memory, Provenance
from .base import (
    DamagedRow,
    Filters,
    MemoryRecord,
    MetadataEntry,
    ScoredMemory,
    TermStatistics,
)


class MissingBackend:
    """A :class:`~kenning.backends.base.Backend` for a store that was never created."""

    def __init__(self, location: str, reason: str) -> None:
        self.location = location
        #: Why there is no store (the message of the :class:`StoreNotFound` it stands for).
        self.reason = reason

    def _refuse(self) -> StoreNotFound:
        return StoreNotFound(self.reason)

    # -- reads: an empty store --------------------------------------------------------------

    def vector_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[ScoredMemory]:
        return []

    def lexical_search(self, query: str, k: int, filters: Filters) -> list[ScoredMemory]:
        return []

    def term_statistics(self, query: str) -> TermStatistics:
        return TermStatistics(0, {})

    def get(self, ids: Sequence[str]) -> list[Memory]:
        return []

    def find_by_hash(self, group_id: str, content_hash: str) -> Memory | None:
        return None

    def find_by_hashes(self, group_id: str, content_hashes: Sequence[str]) -> dict[str, Memory]:
        return {}

    def find_by_fingerprint(self, fingerprint: str, filters: Filters) -> list[Memory]:
        return []

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return {}

    def count(self, filters: Filters) -> int:
        return 0

    def count_by(self, group_id: str | None) -> dict[tuple[str, str], int]:
        return {}

    def iterate(
        self, filters: Filters, batch_size: int = 500, *, oldest_first: bool = False
    ) -> Iterator[MemoryRecord]:
        return iter(())

    def newest(self, filters: Filters, n: int, before: datetime | None = None) -> list[Memory]:
        return []

    def stored_since(self, filters: Filters, since: datetime) -> list[datetime]:
        return []

    def metadata_entries(self, filters: Filters, key: str | None) -> list[MetadataEntry]:
        return []

    def get_meta(self, key: str) -> str | None:
        return None

    def read_provenance(self) -> Provenance | None:
        return None

    def damaged_rows(self) -> list[DamagedRow]:
        return []

    # -- writes: refused --------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord]) -> None:
        raise self._refuse()

    def delete(self, ids: Sequence[str]) -> int:
        raise self._refuse()

    def update_vectors(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        raise self._refuse()

    def record_seen(self, sightings: Sequence[tuple[str, datetime]]) -> None:
        raise self._refuse()

    def update_metadata(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        raise self._refuse()

    def set_meta(self, key: str, value: str | None) -> None:
        raise self._refuse()

    def write_provenance(self, provenance: Provenance) -> None:
        raise self._refuse()

    def exclusive(self) -> AbstractContextManager[None]:
        raise self._refuse()

    def replaced(self) -> bool:
        return False  # nothing is open; a long-lived surface opens it again each time

    def close(self) -> None:
        pass


__all__ = ["MissingBackend"]
