"""``MemoryStore``: the one core API. The CLI, the MCP server and the hooks call it; open
it with :func:`open_store` (:func:`remember_in_project`: one note, without a store left
behind when it is refused).

The class is a chain of parts, each a module one reads on its own that uses only the parts
below it (``tests/test_architecture.py`` checks it), bottom first: :mod:`.store_base` (the
backend, settings, provenance, closing), :mod:`.store_freshness` (the files and documents
memories name), :mod:`.store_read` (retrieval, the ruvector recall protocol and its log,
the AI Memory Module search), :mod:`.store_write` (validate, normalise, redact, dedup,
stamp provenance; forget), :mod:`.store_curation` (one memory at a time: get, browse,
update, mark reviewed), and here the whole-store jobs (count, newest, stats; export and
import, reembed and migrate are :mod:`.transfer`, :mod:`.reembed`, :mod:`.migrate`).
Backends store rows; embedders make vectors; the pure modules (:mod:`scoring`,
:mod:`search`, :mod:`render`, :mod:`safety`) decide.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from . import config, protocol
from .backends.base import Backend, BulkLoader, CountsDamagedRows, Filters
from .config import SettingsFiles
from .embedders.base import Embedder
from .errors import StoreCorrupted, StoreNotFound, UserInputError
from .model import Memory, RememberResult, known_kind, parse_timestamp
from .project import (
    Project,
    case_variants,
    check_store_location,
    file_in_the_way,
    git_asked_once,
    guards_a_path,
    keep_store_out_of_git,
    resolve_project,
    store_is_there,
)
from .search import check_whole_number
from .store_curation import StoreCuration
from .store_write import NewMemory

#: At most this many memories from :meth:`MemoryStore.newest` at once.
NEWEST_MAX = 10_000


class MemoryStore(StoreCuration):
    """A project's memory. Open it with :func:`open_store`."""

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
        from .search import chosen_collections, parse_types

        types = parse_types(memory_type)
        collections = chosen_collections(collection, types)
        filters = Filters(self.resolve_group(group_id), collections, types)
        total = self.backend.count(filters)
        return max(0, total - self._left_out(filters)) if readable else total

    def _left_out(self, filters: Filters, *, by_search: bool = False) -> int:
        """How many rows matching ``filters`` every read leaves out (their fields do not
        decode), or with ``by_search`` how many search leaves out (those, and the rows whose
        vector alone is damaged: what :meth:`stats` counts apart); 0 where the backend has
        none to count or cannot count them."""
        if not isinstance(self.backend, CountsDamagedRows):
            return 0
        try:  # counted over the whole store, as stats counts them (one count kept)
            if by_search:
                left_out = self.backend.count_damaged(Filters())
            else:
                left_out = self.backend.count_unreadable(Filters())
        except StoreCorrupted:  # a page that cannot be read: stats says so
            return 0
        return sum(
            n
            for (group, coll, typ), n in left_out.items()
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
        from .search import chosen_collections, parse_types

        limit = check_whole_number("limit", limit, NEWEST_MAX)
        types = parse_types(memory_type)
        collections = chosen_collections(collection, types)
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
        searchable: bool = False,
    ) -> list[datetime]:
        """When each memory stored at or after ``since`` was stored (this project by
        default, optionally one collection and some types), reading only that field of
        those rows: the page's weekly plot, and its count of an age filter's rows.
        ``readable``: only of those a listing returns, as :meth:`count` counts them (the age
        filter's count). ``searchable``: only of those search sees, as :meth:`stats` counts
        its memories (the weekly plot): a row whose vector alone is damaged is listed, but
        left out here."""
        from .search import chosen_collections, parse_types

        types = parse_types(memory_type)
        collections = chosen_collections(collection, types)
        filters = Filters(self.resolve_group(group_id), collections, types)
        since = parse_timestamp(since)
        if (readable or searchable) and self._left_out(filters, by_search=searchable):
            # A damaged row keeps its time, which alone is read here: the age filter counted
            # it and then listed one memory fewer ("older than" even hid an older one). The
            # rare filter holding one reads every row's time as a listing decodes it.
            entries = self.backend.metadata_entries(filters, None)
            skipped = frozenset[str]()
            if searchable and isinstance(self.backend, CountsDamagedRows):
                # listed, but not found: the weekly plot held it over the header's count
                skipped = self.backend.damaged_vector_ids(filters)
            return [e.stored_at for e in entries if e.stored_at >= since and e.id not in skipped]
        return self.backend.stored_since(filters, since)

    def _unknown_kinds(
        self, damaged: Mapping[tuple[object, object, object], int]
    ) -> dict[tuple[str, str], int]:
        """The store's rows of every project of a kind kenning does not know
        (:func:`~kenning.model.known_kind`) by ``(collection, type)``, less those of them
        ``damaged`` counts (stats leaves those out of the total already): one count per kind
        (a server's counts table, SQLite's ``(group_id, collection, type)`` index)."""
        kinds = self.backend.count_by(None)
        unknown = {key: n for key, n in kinds.items() if not known_kind(key[1], key[0])}
        for (_, coll, typ), n in damaged.items():
            key = cast(tuple[str, str], (coll, typ))
            if key in unknown:
                unknown[key] -= n
        return {key: n for key, n in unknown.items() if n > 0}

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
        # a row another writer left of a kind kenning does not know is held, not served
        # (model.known_kind): not a memory search can find, counted apart as well
        unknown = {key: n for key, n in by.items() if not known_kind(key[1], key[0])}
        mine = sum(by.values())  # (the rows of this project search does not skip)
        for key in unknown:
            del by[key]
        # and so are every project's in the store's total: those of the projects beside this
        # one counted by kind when there are any (a store of one project, an embedded
        # store's usual case, asks nothing more)
        other = gid is not None and everything > mine
        everywhere = self._unknown_kinds(damaged or {}) if other else unknown
        everything -= sum(everywhere.values())
        by_collection: dict[str, int] = {}
        by_type: dict[str, int] = {}
        for (coll, typ), n in by.items():
            by_collection[coll] = by_collection.get(coll, 0) + n
            by_type[typ] = by_type.get(typ, 0) + n
        # this project's notes under another id (a renamed repository): where they are
        others = self._other_projects(gid) if not by and everything else {}
        # or, beside this project's notes (on a server's store, also without any: it names
        # no other project), those of an earlier id of its repository
        alike = self._alike_projects(gid) if not others and everything > sum(by.values()) else {}
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
            "other_projects": others,
            "alike_projects": alike,
            # those of them spelt as the id asked but for letter case: the one likely meant
            "case_variants": list(case_variants(gid, others)),
            "damaged": damaged_here if damaged is not None else None,
            "damaged_all_projects": damaged_all if damaged is not None else None,
            "damaged_unreadable": unreadable,
            # rows of this project whose type and collection another writer set to a pair
            # kenning does not write: "type in collection" -> how many
            "unknown_kind": {f"{typ} in {coll}": n for (coll, typ), n in sorted(unknown.items())},
            # a server store's vector index a bulk load dropped (killed, or still running)
            "index_missing": (
                self.backend.missing_index() if isinstance(self.backend, BulkLoader) else None
            ),
            "by_collection": dict(sorted(by_collection.items())),
            "by_type": dict(sorted(by_type.items())),
            "provenance": provenance.to_dict() if provenance else None,
            "store_bytes": size,
            "settings": {
                "similarity_threshold": threshold,
                "recall_floor": settings.recall_floor,
                "error_recall_floor": settings.error_recall_floor,
                "half_life_overrides": dict(settings.half_lives()),
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
    connect_timeout: int | None = None,
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
    tests). ``connect_timeout``: at most this many seconds waiting for a server store to
    answer (a hook's budget: :func:`~kenning.config.connect_timeout_within`).
    """
    return _open_store(
        path,
        cwd=cwd,
        group_id=group_id,
        create=create,
        missing_ok=missing_ok,
        embedder=embedder,
        threshold=threshold,
        every_project=every_project,
        connect_timeout=connect_timeout,
    )


def _open_store(
    path: str | Path | None,
    *,
    cwd: str | Path | None,
    group_id: str | None,
    create: bool,
    missing_ok: bool,
    embedder: Embedder | str | None,
    threshold: float | None,
    every_project: bool,
    connect_timeout: int | None,
    server_writer: bool = False,
) -> MemoryStore:
    """:func:`open_store`. ``server_writer`` (``create=False``): a server's store that is
    there is opened as a write opens it (its schema migrated, a writer's checks), so that
    the one connection serves a write too (:func:`remember_in_project`); one that is not
    there is said as a read says it, and nothing is made. A store file, or a Qdrant
    local-mode folder, is opened as a read opens it (the location guard comes before a
    write's open)."""
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
    if isinstance(embedder, str):
        # a misspelt name is said here, not at a long-lived program's first recall (qa-s70a F4)
        from .embedders import check_embedder_name

        check_embedder_name(embedder)
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
        if create and guards_a_path(url):
            check_store_location(project)
        settings_files = SettingsFiles(
            project.dotenv_root or project.root, project.store_path.parent, threshold
        )
        settings = None  # read at first use (MemoryStore.settings)
        try:
            new = create and guards_a_path(url) and not store_is_there(project)
            writes_if_there = server_writer and _a_servers_store(url)
            backend = open_backend(
                url or project.store_path,
                create=create or writes_if_there,
                dimension=None,
                project_root=project.root,
                connect_timeout=connect_timeout,
                only_if_there=writes_if_there and not create,
            )
            # a read too: a store made before kenning wrote its .gitignore (or whose file
            # was removed) showed in `git status` until the next write, every file beside
            # it; one made elsewhere in the checkout is said once (doctor says it while it
            # lasts)
            keep_store_out_of_git(project, new=new)
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
        local = (
            url if url is not None and url.lower().startswith(config.QDRANT_LOCAL_PREFIX) else None
        )
        shown = local or str(exc.filename or path)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        if local and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            # the folder is there and may be a healthy store: local mode writes its lock file
            # in it even to read
            raise UserInputError(
                f"cannot use {shown}: {exc.strerror or exc}; Qdrant's local mode must write "
                "in its folder even to read it: make the folder writable, or use a Qdrant "
                "server (or a SQLite store, which reads a read-only folder)"
            ) from None
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


def _a_servers_store(url: str | None) -> bool:
    """Whether a store named so is a server's (PostgreSQL, a Qdrant server): no file or
    folder of this machine, which the store-location guard would check before a write."""
    return url is not None and not guards_a_path(url)


def _not_there(project: Project, reason: str) -> str:
    """Why a store file is missing: ``reason`` ("`kenning remember` creates it"), unless no
    remember from here would create it: named with --store or KENNING_STORE outside the
    project root (a mistyped path, a store moved), the write guard refuses it, and the
    promise sent the user to a refusal."""
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
        with _open_store(
            path,
            cwd=cwd,
            group_id=group_id,
            create=False,
            missing_ok=True,
            embedder=None,
            threshold=None,
            every_project=False,
            connect_timeout=None,
            server_writer=True,
        ) as probe:
            if probe.exists and _a_servers_store(probe.project.store_url):
                # opened as the write's open would open it: one connection, not a look's
                # and then the write's
                return probe.remember_many([item])[0]
            refused = None if probe.exists else probe.refusal(item)
            if refused is None and not probe.exists:
                embedder = probe.embedder  # a model that cannot load creates no store either
        if refused is not None:
            return refused
        with open_store(path, cwd=cwd, group_id=group_id, embedder=embedder) as store:
            return store.remember_many([item])[0]


__all__ = ["MemoryStore", "NewMemory", "open_store", "remember_in_project"]
