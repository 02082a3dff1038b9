"""Module-level convenience functions over :class:`~kenning.store.MemoryStore`.

Each call opens the current project's store (or the one given by ``path``/``cwd``), runs
one operation and closes it. Long-lived callers (servers, batch jobs) should hold a store
from :func:`kenning.open_store` instead, so the model stays loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from . import protocol
from .model import DEFAULT_TYPE, RecallResult, RememberResult, SearchResult
from .store import NewMemory, open_store, remember_in_project


def remember(
    content: str,
    type: str = DEFAULT_TYPE,
    *,
    source: str | None = None,
    tags: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
    group_id: str | None = None,
    path: str | Path | None = None,
    cwd: str | Path | None = None,
) -> RememberResult:
    """Remember one note in the project of ``cwd`` (default: the current folder): redacted,
    deduplicated, embedded and stored. Never raises for the note itself: an empty or
    oversized note, or an unknown type, comes back as ``status="rejected"`` with the reason,
    a repeated one as ``"near-duplicate"`` with the existing memory's id (check
    ``result.ok``). Raises :class:`KenningError` for the store (not a git checkout, a server
    that is down, …). ``path``: another store (a file, folder or server URL)."""
    # tags as given: the write path refuses one text (it must not become its letters)
    # metadata as given: the write path refuses one that is no mapping, in the result
    note = NewMemory(
        content, type, source, cast(tuple[str, ...], tags), {} if metadata is None else metadata
    )
    return remember_in_project(note, path, cwd=cwd, group_id=group_id)


def recall(
    query: str,
    top_k: int = protocol.RECALL_TOP_K,
    *,
    errors: bool | None = None,
    group_id: str | None = None,
    path: str | Path | None = None,
    cwd: str | Path | None = None,
) -> RecallResult:
    """The recall protocol for ``query`` in the project of ``cwd``: the ``top_k`` best
    candidates, those under the floor (0.5; 0.40 for an error query, or ``errors=True``)
    dropped, the best 3 kept, their text cut to 800 characters at a word boundary. No store
    yet: an empty result. :func:`kenning.render.render_recall_result` gives the fenced block
    for a prompt."""
    with open_store(path, cwd=cwd, create=False, missing_ok=True) as store:
        return store.recall(query, top_k, errors=errors, group_id=group_id)


def search_memories(
    query: str,
    collection: str | None = None,
    memory_type: str | Sequence[str] | None = None,
    use_cascading: bool = True,
    intent: str | None = None,
    limit: int = protocol.SEARCH_DEFAULT_LIMIT,
    group_id: str | None = None,
    threshold: float | None = None,
    decay: bool = True,
    now: datetime | None = None,
    *,
    path: str | Path | None = None,
    cwd: str | Path | None = None,
) -> list[SearchResult]:
    """AI Memory Module search. Returns frozen results with ``score``, ``semantic``,
    ``temporal`` and ``memory``; see :meth:`MemoryStore.search` for the full response."""
    with open_store(path, cwd=cwd, create=False, missing_ok=True, threshold=threshold) as store:
        response = store.search(
            query,
            collection=collection,
            memory_type=memory_type,
            use_cascading=use_cascading,
            intent=intent,
            limit=limit,
            group_id=group_id,
            threshold=threshold,
            decay=decay,
            now=now,
        )
        return list(response.results)
