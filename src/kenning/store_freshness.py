"""The part of :class:`~kenning.store.MemoryStore` that looks outside the store, at what
memories name: whether the files of this checkout a memory recorded changed since
(freshness, ``kenning stale``, the stale filter of a listing, recording them again), and
whether the document a memory points to may be read (:mod:`kenning.sources`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from .backends.base import Filters, MemoryRecord
from .errors import UserInputError
from .model import (
    MISSING,
    Freshness,
    Memory,
    SearchResult,
    SourceCheck,
    StaleReport,
    UncheckedFile,
    parse_timestamp,
)
from .project import means_every_project
from .search import check_whole_number
from .store_base import StoreBase, _check_memory_id, check_list_of

#: What a method that reads Memory objects says to pass instead of an id.
_MEMORIES_HINT = "pass memories from get, search or recall (to check one by id, get([id]) first)"

if TYPE_CHECKING:
    from .freshness import Observed


class StoreFreshness(StoreBase):
    """The files and documents part of :class:`~kenning.store.MemoryStore` (use that)."""

    # -- freshness: the files memories name -------------------------------------------------

    def freshness(self, memories: Sequence[Memory]) -> dict[str, Freshness]:
        """Whether the files each memory names changed since it was written, by memory id
        (:mod:`kenning.freshness`). Only memories of this project that recorded files are
        in the answer: another project's paths are not this checkout's. Hashes only those
        files, cached by path, mtime and size."""
        from .freshness import Observations

        memories = check_list_of(memories, Memory, "freshness", _MEMORIES_HINT)
        if not self.check_freshness:
            return {}
        out: dict[str, Freshness] = {}
        observed = Observations()  # each file checked once for the whole list
        for memory in memories:
            state = self._freshness_of(memory, observed)
            if state is not None:
                out[memory.id] = state
        return out

    def browse_by_freshness(
        self,
        stale: bool | None,
        *,
        group_id: str | None = None,
        collection: str | None = None,
        memory_type: str | Sequence[str] | None = None,
        stored_after: datetime | None = None,
        stored_before: datetime | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[list[Memory], dict[str, Freshness], int]:
        """The memories :meth:`browse` lists (same arguments, newest first) that are stale
        (``stale``) or not (:meth:`freshness`; None: every one, no file checked): ``limit``
        of them from ``offset`` on (None: all), their freshness, and how many there are in
        all.

        Which are stale is found from the files each memory recorded and its time alone
        (:meth:`Backend.metadata_entries`), and only the memories returned are read whole:
        the page's "stale only" filter decoded every memory of the project to count them
        (2.6 s at 100k), and so did its pages past what :meth:`newest` reads at once."""
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise UserInputError(f"offset is {offset!r:.40}; expected a whole number from 0")
        limit, filters, after, before = self._browse_filters(
            limit, group_id, collection, memory_type, stored_after, stored_before
        )
        matched, _, _, _ = self._by_freshness(stale, filters, after, before)
        end = None if limit is None else offset + limit
        wanted = matched[offset:end]
        by_id = {m.id: m for m in self.backend.get(wanted)}
        shown = [by_id[i] for i in wanted if i in by_id]  # one forgotten since is not shown
        return shown, self.freshness(shown), len(matched)

    def _browse_filters(
        self,
        limit: int | None,
        group_id: str | None,
        collection: str | None,
        memory_type: str | Sequence[str] | None,
        stored_after: str | datetime | None,
        stored_before: str | datetime | None,
    ) -> tuple[int | None, Filters, datetime | None, datetime | None]:
        """A listing's arguments checked: its limit, filters and time bounds."""
        from .search import chosen_collections, parse_types

        if limit is not None:
            limit = check_whole_number("limit", limit, 1 << 31)
        types = parse_types(memory_type)
        collections = chosen_collections(collection, types)
        after = parse_timestamp(stored_after) if stored_after else None
        before = parse_timestamp(stored_before) if stored_before else None
        return limit, Filters(self.resolve_group(group_id), collections, types), after, before

    def _by_freshness(
        self, stale: bool | None, filters: Filters, after: datetime | None, before: datetime | None
    ) -> tuple[list[str], int, list[UncheckedFile], int]:
        """The ids of the memories matching ``filters`` (stored from ``after``, before
        ``before``) that are stale (``stale``) or not (None: all of them, unchecked), newest
        first; how many of them recorded files of this checkout (:meth:`freshness` answers
        for those); the files of those records that could not be compared (no read rights,
        a symlink loop, an I/O error), each with how many of the memories name it; and how
        many of the memories that are not stale name one of those files."""
        from .freshness import FILES_KEY, Observations, check, recorded_files

        observed = Observations()  # each file checked once for the whole list
        verdicts: dict[tuple[tuple[str, str], ...], bool] = {}  # and each record once
        matched = []
        checked = 0
        naming: dict[str, int] = {}  # a file that could not be compared: memories naming it
        partial = 0  # memories not stale that name one
        for entry in self.backend.metadata_entries(filters, None if stale is None else FILES_KEY):
            if (after is not None and entry.stored_at < after) or (
                before is not None and entry.stored_at >= before
            ):
                continue
            # as _freshness_of: only this project's memories are checked, against this checkout
            if stale is None:
                matched.append(entry)
                continue
            mine = self.check_freshness and self.files_are_here(entry.group_id)
            files = tuple(recorded_files({FILES_KEY: entry.value}).items()) if mine else ()
            checked += bool(files)
            if files not in verdicts:
                verdicts[files] = (
                    bool(files) and check(dict(files), self.project.files_root, observed).stale
                )
            unreadable = [path for path, _blob in files if observed[path].unreadable]
            for path in unreadable:
                naming[path] = naming.get(path, 0) + 1
            partial += bool(unreadable) and not verdicts[files]
            if verdicts[files] == stale:
                matched.append(entry)
        matched.sort(key=lambda e: (e.stored_at, e.id), reverse=True)
        unchecked = [
            UncheckedFile(path, observed[path].reason or "cannot be read", n)
            for path, n in sorted(naming.items())
        ]
        return [e.id for e in matched], checked, unchecked, partial

    def _freshness_of(
        self, memory: Memory, observed: dict[str, Observed] | None = None
    ) -> Freshness | None:
        from .freshness import check, recorded_files

        if not self.check_freshness or not self.files_are_here(memory.group_id):
            return None
        files = recorded_files(memory.metadata)
        return check(files, self.project.files_root, observed) if files else None

    def _rank_fresh_first(
        self, results: Sequence[SearchResult], stale_penalty: float
    ) -> list[SearchResult]:
        from .freshness import apply_stale_penalty

        return apply_stale_penalty(
            results, self.freshness([r.memory for r in results]), stale_penalty
        )

    def stale(
        self, *, group_id: str | None = None, commits: int = 5, limit: int | None = None
    ) -> StaleReport:
        """This project's stale memories (newest first; the newest ``limit`` of them, or
        every one when it is None or 0, with how many there are in all), with what git says
        about each changed file since the memory was written: at most ``commits`` commits per
        file (:func:`kenning.freshness.file_history`). ``group_id`` may only name this
        project: other projects' files are not in this checkout."""
        from .freshness import check_commits, check_stale_limit, file_history
        from .model import StaleMemory

        commits = check_commits(commits)
        limit = check_stale_limit(limit)
        if means_every_project(self.group_id):
            # opened for every project outside a checkout (--project all): no files to
            # compare with, and its own "project" is the word for all (it checked nothing
            # and reported none stale)
            raise UserInputError(
                "kenning stale works on one project at a time (a memory is checked against "
                f"the files of its project's checkout), and the store {self.location} was "
                "opened for every project with no checkout here; run kenning stale in the "
                "checkout of each project to check"
            )
        if means_every_project(group_id):
            raise UserInputError(
                "kenning stale works on one project at a time (a memory is checked against "
                "the files of its project's checkout), and 'all' names every project; run it "
                f"without --project here for this checkout's project ({self.group_id}), and in "
                "each other project's checkout for its memories"
            )
        gid = self.resolve_group(group_id)
        if self.project.checkout_root is None:
            raise UserInputError(
                # (outside a checkout the project's root is where the store given is, which
                # may well be inside one: the folder run in is the one that is not; qa76 F4)
                "kenning stale checks memories against the files of their project's "
                "checkout, and the folder it runs in is not inside one (the project is named "
                f"by KENNING_PROJECT or --project); run it in a checkout of {self.group_id}"
            )
        if gid != self.group_id:
            raise UserInputError(
                f"stale memories can only be checked for this checkout's project "
                f"({self.group_id}): the files another project's memories name are not here; "
                "run kenning stale in that project's checkout (without --project here)"
            )
        # which memories are stale is found from the files each one recorded and its time
        # alone, and only those are read whole: browsing decoded every memory of the
        # project (8 of the 12 s `kenning stale` took at 100k memories)
        stale_ids, checked, unchecked, partial = self._by_freshness(True, Filters(gid), None, None)
        by_id = {m.id: m for m in self.backend.get(stale_ids)}
        memories = [by_id[i] for i in stale_ids if i in by_id]  # one forgotten since is not
        states = self.freshness(memories)
        memories = [m for m in memories if (state := states.get(m.id)) is not None and state.stale]
        listed = memories[:limit]  # git is asked about the listed ones alone
        found = []
        answers: dict[tuple[Any, ...], str | None] = {}  # git asked each question once
        oldest: dict[str, datetime] = {}  # each file's log is asked since its oldest memory
        for memory in listed:
            for f in states[memory.id].changed:
                if f.path not in oldest or memory.stored_at < oldest[f.path]:
                    oldest[f.path] = memory.stored_at
        for memory in listed:
            state = states[memory.id]
            history = {
                f.path: file_history(
                    self.project.files_root,
                    f.path,
                    memory.stored_at,
                    commits,
                    recorded=f.recorded,
                    missing=f.status == MISSING,
                    answers=answers,
                    oldest=oldest[f.path],
                )
                for f in state.changed
            }
            found.append(StaleMemory(memory, state, history))
        return StaleReport(
            self.group_id, checked, tuple(found), len(memories), tuple(unchecked), partial
        )

    def refresh_files(self, memory_id: str) -> Memory:
        """Record the files memory ``memory_id`` names as they are now: it is fresh again
        (someone checked it against them). Content, vector and the rest are kept."""
        memory_id = _check_memory_id(memory_id)
        self.check_can_write()
        with self.backend.exclusive():
            memory, vector = self._stored(memory_id)
            refreshed = self._with_files_recorded(memory)
            self.backend.upsert([MemoryRecord(refreshed, vector)])
        return refreshed

    def _stored(self, memory_id: str) -> tuple[Memory, np.ndarray]:
        """A memory and its vector, for a change that keeps the vector (inside the caller's
        exclusive transaction)."""
        found = self.backend.get([memory_id])
        vector = self.backend.get_vectors([memory_id]).get(memory_id)
        if not found or vector is None:
            raise UserInputError(f"no memory with id {memory_id} (it may have been forgotten)")
        return found[0], vector

    def _with_files_recorded(self, memory: Memory) -> Memory:
        """``memory`` with the files it names recorded as they are now in this checkout
        (another project's memory is returned as it is: its files are not here)."""
        import dataclasses

        if not self.files_are_here(memory.group_id):
            return memory
        metadata = {k: v for k, v in memory.metadata.items() if k != "file_blobs"}
        files = self._files_named(memory.content, memory.source, metadata, memory.group_id)
        if files:
            metadata["file_blobs"] = files
        return dataclasses.replace(memory, metadata=metadata)

    def _files_named(
        self, content: str, source: str | None, metadata: Mapping[str, Any], group_id: str
    ) -> dict[str, str]:
        """The freshness record of a note (:mod:`kenning.freshness`): the git blob hash of
        each file of this checkout it names. A record the note already carries (an import
        or a migration) is kept as it is; a note for another project records nothing (its
        paths are not this checkout's)."""
        from .freshness import named_paths, record, recorded_files

        given = recorded_files(metadata)
        if given:
            return given
        if not self.files_are_here(group_id):
            return {}
        return record(
            named_paths(content, source, metadata),
            self.project.files_root,
            self.project.subfolder,  # a path as written in the folder the note came from
        )

    # -- the documents memories point to ---------------------------------------------------

    def check_source(self, memory: Memory) -> SourceCheck | None:
        """Whether the document ``memory`` names (its ``source``, else its ERROR-FIX
        entry's ``SOURCE:``) may be read from this project's files; None when it names
        none. Fails closed (:func:`kenning.sources.check_source`)."""
        from .sources import source_of

        (memory,) = check_list_of([memory], Memory, "check_source", _MEMORIES_HINT)
        path = source_of(memory)
        return None if path is None else self.check_source_path(path)

    def check_source_path(self, path: str) -> SourceCheck:
        """Whether ``path``, as a memory gives it, may be read as a file of this project
        (:func:`kenning.sources.check_source`); refused outside a checkout of it."""
        from .sources import check_source

        if self.project.checkout_root is None:
            return self._no_checkout(path)
        return check_source(path, self.project.files_root)

    def _no_checkout(self, path: str) -> SourceCheck:
        # the folder kenning runs in is no project's: a file of it by the same name is not
        # the note's document
        return SourceCheck(
            path,
            False,
            reason=f"the folder kenning runs in is not inside a checkout of {self.group_id}, "
            "where the file would be: run this in the project's checkout",
            no_checkout=True,
        )

    def _with_source(self, result: SearchResult) -> SearchResult:
        """``result`` with its document's verdict (``source_ok``): what ``kenning source``
        and ``read_source`` would say of it — a missing file, a folder or a binary file too,
        not only a path that may not be read (an agent told it was ok read a moved file)."""
        from .sources import check_document

        check = self.check_source(result.memory)
        return replace(result, source=None if check is None else check_document(check))
