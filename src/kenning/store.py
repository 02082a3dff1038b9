"""``MemoryStore``: the one core API. The CLI, the MCP server and the hooks call it.

It owns the write path (validate, normalise, redact, dedup, stamp provenance), the read
paths (the ruvector recall protocol and the AI Memory Module search), and whole-store jobs
(stats, export/import, reembed). Backends store rows; embedders make vectors; the pure
modules (:mod:`scoring`, :mod:`search`, :mod:`render`, :mod:`safety`) decide.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from . import config, protocol
from .backends.base import Backend, CountsDamagedRows, Filters, MemoryRecord
from .config import SettingsFiles
from .embedders.base import Embedder
from .errors import (
    EditConflict,
    InvalidTypeError,
    KenningError,
    StoreCorrupted,
    StoreNotFound,
    UnknownMemoryError,
    UserInputError,
)
from .model import (
    DEDUP_CHECK_FAILED,
    NEAR_DUPLICATE,
    REJECTED,
    STORED,
    UNCHANGED,
    Memory,
    RememberResult,
    SourceCheck,
    edit_version,
    parse_timestamp,
    resolve_type,
    utc_now,
)
from .project import (
    Project,
    check_store_location,
    git_asked_once,
    ignore_store_files,
    resolve_project,
    where_searched,
)
from .search import check_whole_number
from .store_base import _check_memory_id, _check_text
from .store_write import (
    _DERIVED_METADATA,
    EDITED_AT,
    REVIEWED_AT,
    NewMemory,
    StoreWrites,
    _refusal_reason,
)


def _is_type_name(name: object) -> bool:
    """Does the write path take ``name`` as a type (kenning's or ruvector's)?"""
    try:
        resolve_type(name)  # type: ignore[arg-type]  # what it is, it says
    except InvalidTypeError:
        return False
    return True


#: At most this many memories from :meth:`MemoryStore.newest` at once.
NEWEST_MAX = 10_000


class _EditRefused(Exception):
    """Raised inside an edit's transaction to roll it back: the new text is a duplicate."""

    def __init__(self, existing: Memory, score: float, reason: str) -> None:
        super().__init__(existing.id)
        self.existing, self.score, self.reason = existing, score, reason


class MemoryStore(StoreWrites):
    """A project's memory. Open it with :func:`open_store`."""

    # -- the documents memories point to ---------------------------------------------------

    def source(self, memory_id: str, *, group_id: str | None = None) -> SourceCheck:
        """The check of the document memory ``memory_id`` names. Raises
        :class:`~kenning.errors.UserInputError` for an unknown id or a memory that names no
        document; a refused path is a check with ``ok`` False, not an error."""
        memory = self.get(memory_id, group_id=group_id)  # None: this project
        if memory is None:
            raise UserInputError(
                f"no memory with id {memory_id.strip()} in {where_searched(group_id)}; it may "
                "have been forgotten, or be another project's (name its project)"
            )
        check = self.check_source(memory)
        if check is None:
            raise UserInputError(
                f"memory {memory.id} names no source document (no source, no SOURCE: part)"
            )
        return check

    # -- whole-store jobs -------------------------------------------------------------------

    def count(
        self,
        *,
        collection: str | None = None,
        memory_type: str | Sequence[str] | None = None,
        group_id: str | None = None,
        readable: bool = False,
    ) -> int:
        """How many memories match: this project by default (``group_id="all"``: every
        project), optionally one collection and some types. ``readable``: only those a
        listing returns, without the rows whose fields do not decode (counted apart by
        :meth:`stats`; this costs what its count of them costs, kept until the store
        changes)."""
        from .search import check_types_of, parse_types

        types = parse_types(memory_type)
        collections = (check_types_of(collection, types),) if collection is not None else ()
        filters = Filters(self.resolve_group(group_id), collections, types)
        total = self.backend.count(filters)
        return max(0, total - self._unreadable(filters)) if readable else total

    def _unreadable(self, filters: Filters) -> int:
        """How many rows matching ``filters`` every read leaves out (their fields do not
        decode); 0 where the backend has none to count or cannot count them."""
        if not isinstance(self.backend, CountsDamagedRows):
            return 0
        try:  # counted over the whole store, as stats counts them (one count kept)
            unreadable = self.backend.count_unreadable(Filters())
        except StoreCorrupted:  # a page that cannot be read: stats says so
            return 0
        return sum(
            n
            for (group, coll, typ), n in unreadable.items()
            if (filters.group_id is None or group == filters.group_id)
            and (not filters.collections or coll in filters.collections)
            and (not filters.types or typ in filters.types)
        )

    def newest(
        self,
        limit: int,
        *,
        collection: str | None = None,
        memory_type: str | Sequence[str] | None = None,
        group_id: str | None = None,
        stored_before: datetime | None = None,
    ) -> list[Memory]:
        """The ``limit`` most recently stored memories (this project by default), newest
        first; no query, no model. The backend reads only those rows (an index on SQLite),
        and more when it skipped damaged ones. ``stored_before``: of the memories stored
        before that time."""
        from .search import check_types_of, parse_types

        limit = check_whole_number("limit", limit, NEWEST_MAX)
        types = parse_types(memory_type)
        collections = (check_types_of(collection, types),) if collection is not None else ()
        filters = Filters(self.resolve_group(group_id), collections, types)
        before = parse_timestamp(stored_before) if stored_before is not None else None

        def read(n: int) -> list[Memory]:
            if before is None:  # as a backend written before ``before`` existed is called
                return self.backend.newest(filters, n)
            return self.backend.newest(filters, n, before)

        rows = read(limit)
        if len(rows) == limit:
            return rows
        # a row whose fields do not decode is skipped by the read (and named): the rows
        # after it take its place (session start keeps its slots, a page its length), read
        # twice as many at a time until the stored rows, the skipped ones counted, run out
        stored = self.backend.count(filters)
        asked = limit
        while len(rows) < limit and asked < stored:
            asked = min(2 * asked, stored)
            more = read(asked)
            if before is not None and len(more) <= len(rows):
                break  # none added: the rows before ``before`` ran out (count has all)
            rows = more
        return rows[:limit]

    def count_by(self, *, group_id: str | None = None) -> dict[tuple[str, str], int]:
        """How many memories per ``(collection, type)``: this project by default
        (``group_id="all"``: every project). No row is read."""
        return self.backend.count_by(self.resolve_group(group_id))

    def stored_since(
        self,
        since: datetime,
        *,
        group_id: str | None = None,
        collection: str | None = None,
        memory_type: str | Sequence[str] | None = None,
        readable: bool = False,
    ) -> list[datetime]:
        """When each memory stored at or after ``since`` was stored (this project by
        default, optionally one collection and some types), reading only that field of
        those rows: the page's weekly plot, and its count of an age filter's rows.
        ``readable``: only of those a listing returns, as :meth:`count` counts them."""
        from .search import check_types_of, parse_types

        types = parse_types(memory_type)
        collections = (check_types_of(collection, types),) if collection is not None else ()
        filters = Filters(self.resolve_group(group_id), collections, types)
        since = parse_timestamp(since)
        if readable and self._unreadable(filters):
            # A damaged row keeps its time, which alone is read here: the age filter counted
            # it and then listed one memory fewer ("older than" even hid an older one). The
            # rare filter holding one reads every row's time as a listing decodes it.
            entries = self.backend.metadata_entries(filters, None)
            return [e.stored_at for e in entries if e.stored_at >= since]
        return self.backend.stored_since(filters, since)

    def stats(self, group_id: str | None = None) -> dict[str, Any]:
        """Counts (of this project, or of ``group_id``'s; ``"all"``: of every project), the
        store's path, provenance and settings."""
        gid = self.resolve_group(group_id)
        provenance = self.backend.read_provenance()
        threshold, origin = self.similarity_threshold()
        settings = self.settings  # once: each read looks whether the files changed
        by = dict(self.backend.count_by(gid))
        everything = self.backend.count(Filters())
        # The rows search skips (a field or a vector that does not decode) are counted
        # apart, not as memories: "5 memories" must mean five a search can find.
        damaged, unreadable = self._damaged_rows()
        damaged_here = damaged_all = 0
        for (group, coll, typ), n in (damaged or {}).items():
            damaged_all += n
            if gid is None or group == gid:
                damaged_here += n
                key = cast(tuple[str, str], (coll, typ))  # as count_by has them, raw
                left = by.get(key, 0) - n
                if left > 0:
                    by[key] = left
                else:
                    by.pop(key, None)
        everything -= damaged_all
        by_collection: dict[str, int] = {}
        by_type: dict[str, int] = {}
        for (coll, typ), n in by.items():
            by_collection[coll] = by_collection.get(coll, 0) + n
            by_type[typ] = by_type.get(typ, 0) + n
        size = None
        if self.project.store_url is None and self.exists:
            from .backends.sqlite import store_bytes

            size = store_bytes(Path(self.location))
        return {
            "intel_path": self.location,
            "store_exists": self.exists,
            "project_root": str(root) if (root := self.project.checkout_root) else None,
            "group_id": gid if gid is not None else "all",
            "memories": sum(by.values()),
            "memories_all_projects": everything,
            # this project's notes under another id (a renamed repository): where they are
            "other_projects": self._other_projects(gid) if not by and everything else {},
            "damaged": damaged_here if damaged is not None else None,
            "damaged_all_projects": damaged_all if damaged is not None else None,
            "damaged_unreadable": unreadable,
            "by_collection": dict(sorted(by_collection.items())),
            "by_type": dict(sorted(by_type.items())),
            "provenance": provenance.to_dict() if provenance else None,
            "store_bytes": size,
            "settings": {
                "similarity_threshold": threshold,
                "recall_floor": settings.recall_floor,
                "error_recall_floor": settings.error_recall_floor,
                "half_life_overrides": dict(settings.half_life_overrides),
                "recall_log": settings.recall_log,
                "stale_penalty": settings.stale_penalty,
                "sources": dict(settings.sources) | {"similarity_threshold": origin},
                "warnings": list(settings.warnings),
            },
            "protocol": {
                "recall_top_k": protocol.RECALL_TOP_K,
                "recall_floor": protocol.RECALL_FLOOR,
                "error_recall_floor": protocol.ERROR_RECALL_FLOOR,
                "recall_keep": protocol.RECALL_KEEP,
                "recall_char_budget": protocol.RECALL_CHAR_BUDGET,
                "dedup_threshold": protocol.DEDUP_THRESHOLD,
            },
        }

    def _damaged_rows(self) -> tuple[dict[tuple[object, object, object], int] | None, str | None]:
        """The rows of the store that search skips, by ``(group_id, collection, type)``; or
        None and why, when a page of the file cannot be read (the counts, taken from the
        indexes, still can: stats is what one runs to look at such a store). A server's
        typed columns hold what kenning wrote: none to count."""
        if not isinstance(self.backend, CountsDamagedRows):
            return {}, None
        try:
            return self.backend.count_damaged(Filters()), None
        except StoreCorrupted as exc:
            return None, str(exc)

    # -- curation: one memory at a time (`kenning ui`, `kenning edit`) -----------------------

    def get(self, memory_id: str, *, group_id: str | None = "all") -> Memory | None:
        """The memory with this id, or None: in any project of the store by default, or
        only in ``group_id``'s (None: this project)."""
        found = self.backend.get([_check_text(_check_memory_id(memory_id), "the memory id")])
        gid = self.resolve_group(group_id)
        if not found or (gid is not None and found[0].group_id != gid):
            return None
        return found[0]

    def browse(
        self,
        *,
        group_id: str | None = None,
        collection: str | None = None,
        memory_type: str | Sequence[str] | None = None,
        stored_after: datetime | None = None,
        stored_before: datetime | None = None,
        limit: int | None = None,
    ) -> list[Memory]:
        """Memories newest first, without a query (the page's list and its plots).

        ``group_id``, ``collection`` and ``memory_type`` as in :meth:`search` (None: this
        project; ``"all"``: every project; types as ``"a,b"`` or a list). Reads every
        matching row once: linear in the project's size.
        """
        import heapq

        limit, filters, after, before = self._browse_filters(
            limit, group_id, collection, memory_type, stored_after, stored_before
        )
        rows = (
            r.memory
            for r in self.backend.iterate(filters)
            if (after is None or r.memory.stored_at >= after)
            and (before is None or r.memory.stored_at < before)
        )

        def newest_first(m: Memory) -> tuple[datetime, str]:
            return (m.stored_at, m.id)

        if limit is None:
            return sorted(rows, key=newest_first, reverse=True)
        return heapq.nlargest(max(limit, 0), rows, key=newest_first)

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        type: str | None = None,
        group_id: str | None = None,
        expected_version: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> RememberResult:
        """Change a memory's content and/or type through the write path of :meth:`remember`.

        The new text is normalised, redacted and re-embedded, and deduplicated against the
        project's *other* memories; it is stored under the same id (``stored_at``, source,
        tags and the rest of the metadata kept but a new text's ``reviewed_at``, which vouched for
        the old one; ``metadata["edited_at"]`` recorded) in one
        exclusive transaction. The result says ``stored`` (same id), or ``near-duplicate``
        (the other memory's id and score) / ``rejected`` (the reason) /
        ``dedup-check-failed`` — in which cases nothing was changed. The memory's own text
        (once normalised and redacted) and type are ``stored`` with the reason
        :data:`~kenning.model.UNCHANGED` (``result.unchanged``): nothing is written, no
        ``edited_at``, its files' record kept (a stale memory stays stale). An unknown id raises
        :class:`~kenning.errors.UserInputError`, and so does a memory of another project
        unless ``group_id`` names it (``"all"``: any project), as for :meth:`forget`.
        ``expected_version`` (:func:`kenning.model.edit_version` of the memory the edit was
        made from) is compared under the write lock: a memory changed since raises
        :class:`~kenning.errors.EditConflict`, and nothing is changed. ``metadata``: keys
        set along with a new text (the seeding records which text it wrote).
        """
        import dataclasses

        memory_id = _check_memory_id(memory_id)
        if content is None and type is None:
            raise UserInputError("pass the new content, the new type, or both")
        gid = self.resolve_group(group_id)
        self.check_location()
        self._check_provenance(stamp=False)
        try:
            with self.backend.exclusive():
                self._check_provenance(stamp=True)  # again under the lock, as _write_batch
                # Read under the lock: the edit applies to the memory as it is now.
                found = self.backend.get([memory_id])
                if not found or (gid is not None and found[0].group_id != gid):
                    # another project's memory is not this project's to change (a shared
                    # server holds many projects): it is not found here, as for forget
                    raise UnknownMemoryError(
                        f"no memory with id {memory_id} in {where_searched(group_id)} (it may "
                        "have been forgotten, or be another project's)",
                        memory_id,
                        group_id,
                    )
                old = found[0]
                if expected_version is not None and edit_version(old) != expected_version:
                    raise EditConflict(
                        f"memory {memory_id} changed since this edit was made from it (by "
                        "another process, an agent or a second tab); nothing was changed: "
                        "read it again and redo the edit"
                    )
                derived = {k: v for k, v in old.metadata.items() if k not in _DERIVED_METADATA}
                if old.group_id != self.group_id and "file_blobs" in old.metadata:
                    # another project's files are not in this checkout: keep its record
                    derived["file_blobs"] = old.metadata["file_blobs"]
                # The type as it was asked for, so that the same rules map it again
                # (``context`` holding an ERROR-FIX entry becomes ``error_fix``).
                given = old.metadata.get("given_type")
                # a store written before kenning owned the key may hold a note's own value
                asked = type if type is not None else (given if _is_type_name(given) else old.type)
                item = NewMemory(
                    old.content if content is None else content,
                    str(asked),
                    old.source,
                    old.tags,
                    {**derived, **(metadata or {}), EDITED_AT: utc_now().isoformat()},
                    old.stored_at,
                    old.id,
                )
                try:
                    prep = self.prepare(item, old.group_id, editing=True)
                except UserInputError as exc:
                    return RememberResult(status=REJECTED, reason=_refusal_reason(exc))
                m = prep.memory
                metadata = m.metadata
                if m.content_hash != old.content_hash:
                    # a person vouched for the old text, not for this one
                    metadata = {k: v for k, v in metadata.items() if k != REVIEWED_AT}
                new = dataclasses.replace(
                    old,
                    content=m.content,
                    collection=m.collection,
                    type=m.type,
                    content_hash=m.content_hash,
                    source=m.source,
                    tags=m.tags,
                    metadata=metadata,
                )
                if (new.content_hash, new.collection, new.type) == (
                    old.content_hash,
                    old.collection,
                    old.type,
                ):
                    # the memory's own text and type: nothing to save, and nothing is
                    # written (an edit stamp, or its files recorded as they are now,
                    # would make a stale memory look checked)
                    return RememberResult(
                        STORED, old.id, None, UNCHANGED, old.collection, old.type, prep.redactions
                    )
                vector = self._embed([new.content])[0]
                if new.content_hash != old.content_hash:
                    # Dedup against the *other* memories. The memory is never deleted first:
                    # a backend without transactions (Qdrant) would lose it to a crash
                    # between the delete and the write; the write replaces it by its id.
                    dup = self._find_duplicate(new, vector, {}, [], True, besides=old.id)
                    if dup is not None:
                        raise _EditRefused(*dup)
                self.backend.upsert([MemoryRecord(new, vector)])
        except _EditRefused as refused:
            return RememberResult(
                NEAR_DUPLICATE,
                refused.existing.id,
                refused.score,
                refused.reason,
                refused.existing.collection,
                refused.existing.type,
            )
        except KenningError:
            raise
        except Exception as exc:
            return RememberResult(
                DEDUP_CHECK_FAILED,
                None,
                None,
                f"the store could not be checked for duplicates: {exc}; nothing was changed",
            )
        return RememberResult(STORED, new.id, None, None, new.collection, new.type, prep.redactions)

    def mark_reviewed(
        self,
        memory_id: str,
        *,
        now: datetime | None = None,
        group_id: str | None = None,
        expected_version: str | None = None,
    ) -> Memory:
        """Record that a person checked this memory: ``metadata["reviewed_at"]`` (UTC, ISO
        8601), and the files it names as they are now (it is no longer stale). Content,
        vector and everything else are kept. Only a memory of this project, unless
        ``group_id`` names another (``"all"``: any project). ``expected_version``
        (:func:`kenning.model.edit_version` of the memory the person checked) is compared
        under the write lock: a memory changed since raises
        :class:`~kenning.errors.EditConflict`, and is not marked."""
        import dataclasses

        memory_id = _check_memory_id(memory_id)
        moment = parse_timestamp(now) if now else utc_now()
        gid = self.resolve_group(group_id)
        self.check_location()
        with self.backend.exclusive():
            memory, vector = self._stored(memory_id)
            if gid is not None and memory.group_id != gid:
                raise UnknownMemoryError(
                    f"no memory with id {memory_id} in {where_searched(group_id)}",
                    memory_id,
                    group_id,
                )
            if expected_version is not None and edit_version(memory) != expected_version:
                raise EditConflict(
                    f"memory {memory_id} changed since it was shown (by another process, an "
                    "agent or a second tab); it was not marked reviewed: read it again first"
                )
            # The person checked the memory against the files as they are: record those.
            current = self._with_files_recorded(memory)
            reviewed = dataclasses.replace(
                current, metadata={**current.metadata, REVIEWED_AT: moment.isoformat()}
            )
            self.backend.upsert([MemoryRecord(reviewed, vector)])
        return reviewed


def open_store(
    path: str | Path | None = None,
    *,
    cwd: str | Path | None = None,
    group_id: str | None = None,
    create: bool = True,
    missing_ok: bool = False,
    embedder: Embedder | str | None = None,
    threshold: float | None = None,
    every_project: bool = False,
) -> MemoryStore:
    """Open the store for the project containing ``cwd`` (default: the current folder).

    ``every_project``: the caller reads every project of the store (``--project all``):
    outside a checkout, with a store named and no ``KENNING_PROJECT``, it is opened for none
    of them (:func:`~kenning.project.resolve_project`; writes of new notes are refused).

    ``path`` (or ``KENNING_STORE``) overrides the location: a ``.db`` file or a folder, or
    a server: ``postgresql://…`` (PostgreSQL + pgvector) or ``http(s)://…`` (Qdrant).
    ``create=False`` raises :class:`~kenning.errors.StoreNotFound` instead of creating it,
    unless ``missing_ok``: then the store answers every read as an empty store would (and
    ``exists`` is False) and refuses writes, so callers need no special case for "no store
    yet". ``embedder`` is an :class:`Embedder`, or a name (``minilm``; ``hashing`` is for
    tests).
    """

    from .backends.registry import open_backend

    for name, value in (("path", path), ("cwd", cwd)):
        if value is not None and (
            not isinstance(value, str | os.PathLike) or "\x00" in os.fspath(value)
        ):
            raise UserInputError(
                f"{name} must be a path (a str or os.PathLike without NUL), not {value!r:.80}"
            )
    if path is not None and not os.fspath(path).strip():
        path = None  # blank, as an empty KENNING_STORE: the default store, not "./memory.db"
    if group_id is not None and not isinstance(group_id, str):
        raise UserInputError(f"group_id must be a project id (text), not {group_id!r:.80}")
    if (
        embedder is not None
        and not isinstance(embedder, str)
        and not (hasattr(embedder, "provenance") and callable(getattr(embedder, "embed", None)))
    ):
        raise UserInputError(
            f"embedder must be an Embedder or a name ('minilm'), not {embedder!r:.80}"
        )
    url = str(path).strip() if path is not None and config.is_store_url(path) else None
    try:
        store_path = Path(path).expanduser() if path is not None and url is None else None
    except RuntimeError:  # "~name" where no user is called name
        raise UserInputError(
            f"cannot use the store path {str(path)[:80]}: no such user's home folder; pass a "
            "usable path to a .db file or a folder with --store or KENNING_STORE"
        ) from None
    backend: Backend
    try:
        # kept, so that a store kept open can tell when .env names another project or store
        resolve = functools.partial(
            resolve_project,
            Path(cwd) if cwd else Path.cwd(),
            group_id,
            store_path,
            url,
            every_project=every_project,
        )
        project = resolve()
        url = project.store_url
        if create and url is None:
            check_store_location(project)
        settings_files = SettingsFiles(project.root, project.store_path.parent, threshold)
        settings = settings_files.load()
        try:
            backend = open_backend(
                url or project.store_path, create=create, dimension=None, project_root=project.root
            )
            if create:
                ignore_store_files(project)
        except StoreNotFound as exc:
            if create or not missing_ok:
                raise
            from .backends.missing import MissingBackend
            from .redaction import redact_url

            # a server URL's password never reaches intel_path (shown to agents over MCP)
            where = redact_url(url) if url else str(project.store_path)
            backend = MissingBackend(where, str(exc) if url else _not_there(project, str(exc)))
    except OSError as exc:  # a path the OS cannot use: too long, a file where a folder is…
        # a local Qdrant folder is named as typed, as every other message names the store
        local = url if url is not None and url.lower().startswith("qdrant-local:") else None
        shown = local or str(exc.filename or path)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        if local:  # a folder only
            raise UserInputError(
                f"cannot use {shown}: {exc.strerror or exc}; "
                "write qdrant-local:<folder> naming a folder (a new or a Qdrant one, not a "
                "file) with --store or KENNING_STORE"
            ) from None
        raise UserInputError(
            f"cannot use the store path {shown}: {exc.strerror or exc}; pass a usable path "
            "to a .db file or a folder with --store or KENNING_STORE"
        ) from None
    name = config.embedder_name()
    instance: Embedder | None = None
    if isinstance(embedder, str):
        name = embedder
    elif embedder is not None:
        instance = embedder
    return MemoryStore(backend, project, settings, instance, name, settings_files, resolve)


def _not_there(project: Project, reason: str) -> str:
    """Why a store file is missing: ``reason`` ("`kenning remember` creates it"), unless no
    remember from here would create it: named with --store or KENNING_STORE outside the
    project root (a mistyped path, a store moved), the write guard refuses it, and the
    promise sent the user to a refusal."""
    from .backends.sqlite import file_in_the_way
    from .errors import StoreLocationError

    if file_in_the_way(project.store_path) is not None:
        return reason  # says what is in the way
    try:
        check_store_location(project)
    except StoreLocationError:
        return (
            f"no kenning store at {project.store_path}: nothing is there, and it lies outside "
            f"the project root {project.root}, so no `kenning remember` from here creates it; "
            "check the path given with --store or KENNING_STORE"
        )
    return reason


def remember_in_project(
    item: NewMemory,
    path: str | Path | None = None,
    *,
    cwd: str | Path | None = None,
    group_id: str | None = None,
) -> RememberResult:
    """:meth:`MemoryStore.remember` of one note into the project's store, opened for it (and
    created by the first note it takes: a note the write path refuses creates no store, so
    that an agent's ``test -d .kenning`` still says there is none)."""
    embedder: Embedder | None = None
    with git_asked_once():  # the project is found for the look and again for the write
        with open_store(path, cwd=cwd, group_id=group_id, create=False, missing_ok=True) as probe:
            refused = None if probe.exists else probe.refusal(item)
            if refused is None and not probe.exists:
                embedder = probe.embedder  # a model that cannot load creates no store either
        if refused is not None:
            return refused
        with open_store(path, cwd=cwd, group_id=group_id, embedder=embedder) as store:
            return store.remember_many([item])[0]


__all__ = ["MemoryStore", "NewMemory", "open_store", "remember_in_project"]
