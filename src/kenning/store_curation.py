"""Curation of :class:`~kenning.store.MemoryStore`: one memory at a time, as a person
looks after them (``kenning ui``, ``kenning edit``, ``kenning source``): get one by id,
browse them without a query, change a memory's text or type through the write path, mark
it reviewed, and check the document it names.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .backends.base import Filters, FindsIdsByPrefix, MemoryRecord, skip_unsaid
from .errors import (
    AmbiguousIdError,
    EditConflict,
    InvalidTypeError,
    KenningError,
    UnknownMemoryError,
    UserInputError,
)
from .fingerprint_renewal import renewed_fingerprint
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
    id_prefix,
    parse_timestamp,
    resolve_type,
    short_id_candidates,
    utc_now,
    valid_types_message,
)
from .project import where_searched
from .store_base import _check_memory_id, _check_text
from .store_write import (
    _DERIVED_METADATA,
    EDITED_AT,
    IDENTICAL_CONTENT,
    REVIEWED_AT,
    NewMemory,
    StoreWrites,
    _refusal_reason,
    _refusal_redactions,
    check_metadata_argument,
)


def _is_type_name(name: object) -> bool:
    """Does the write path take ``name`` as a type (kenning's or ruvector's)?"""
    try:
        resolve_type(name)  # type: ignore[arg-type]  # what it is, it says
    except InvalidTypeError:
        return False
    return True


class _EditRefused(Exception):
    """Raised inside an edit's transaction to roll it back: the new text is a duplicate."""

    def __init__(
        self,
        edited: Memory,
        redactions: Mapping[str, int],
        existing: Memory,
        score: float,
        reason: str,
    ) -> None:
        super().__init__(existing.id)
        self.edited, self.existing, self.score, self.reason = edited, existing, score, reason
        #: what the new text's secrets were (its redacted form is what matched)
        self.redactions = redactions


log = logging.getLogger("kenning")


@dataclasses.dataclass(frozen=True)
class MoveReport:
    """What :meth:`StoreCuration.move_project` did (or, ``dry_run``, would do)."""

    from_group: str
    to_group: str
    #: the ids of the memories moved (kept: id, text, times, vector; only the project changes)
    moved: tuple[str, ...]
    #: a memory of ``from_group`` whose text the target already holds → that memory's id;
    #: the copy of ``from_group`` is dropped and the target's counts it as seen again
    duplicates: dict[str, str]
    dry_run: bool = False
    #: a memory of ``from_group`` that ``remember`` would merge into one of the target's (a
    #: near-duplicate, as :func:`kenning.dedup.decide` judges it) → (that memory's id, the
    #: score): dropped and counted as seen again, as ``duplicates`` are
    merged: dict[str, tuple[str, float]] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "from_project": self.from_group,
            "to_project": self.to_group,
            "moved": len(self.moved),
            "duplicates": len(self.duplicates),
            "duplicate_of": dict(self.duplicates),
            "merged": len(self.merged),
            "merged_into": {
                old: {"id": kept, "score": round(score, 4)}
                for old, (kept, score) in self.merged.items()
            },
            "dry_run": self.dry_run,
        }


class StoreCuration(StoreWrites):
    """The curation part of :class:`~kenning.store.MemoryStore` (use that)."""

    # -- curation: one memory at a time (`kenning ui`, `kenning edit`) -----------------------

    def get(self, memory_id: str, *, group_id: str | None = "all") -> Memory | None:
        """The memory with this id, or None: in any project of the store by default, or
        only in ``group_id``'s (None: this project)."""
        found = self.backend.get([_check_text(_check_memory_id(memory_id), "the memory id")])
        gid = self.resolve_group(group_id)
        if not found or (gid is not None and found[0].group_id != gid):
            return None
        return found[0]

    # -- ids by a prefix of them, as git and docker take them (`kenning forget 01a24969-93d9`) --

    #: How many memories an ambiguous prefix's error names.
    AMBIGUOUS_SHOWN = 5

    def _ids_with_prefixes(
        self, prefixes: Sequence[str], group_id: str | None, limit: int
    ) -> dict[str, list[str]]:
        if not self.exists or not prefixes:
            return {p: [] for p in prefixes}
        filters = Filters(group_id=group_id)
        if isinstance(self.backend, FindsIdsByPrefix):
            return self.backend.ids_with_prefixes(prefixes, filters, limit)
        found = sorted(e.id for e in self.backend.metadata_entries(filters, None))
        return {p: [i for i in found if i.startswith(p)][:limit] for p in prefixes}

    def ids_shown_as(self, shown: str, *, group_id: str | None = None) -> list[str]:
        """The ids of ``group_id``'s memories (None: this project; "all": any) that hold a
        control or invisible character (:func:`kenning.safety.hidden_character`: another
        writer's, kenning makes none) and read ``shown`` once those are taken out, as a
        listing on a terminal shows them: given back, such an id named no memory (qa77 F8).
        Asked when an id named none: it reads the project's ids (from the id index where the
        backend has one, :class:`~kenning.backends.base.FindsIdsByPrefix`: those that start
        below DEL, as the index's range does; 0.05 s at 20,000 rows, the rows' own read
        0.4 s)."""
        from .render import sanitise_for_terminal
        from .safety import hidden_character, without_terminal_sequences

        text = _check_text(_check_memory_id(shown), "the memory id")
        if not self.exists:
            return []
        gid = self.resolve_group(group_id)
        found = []
        filters = Filters(group_id=gid)
        if isinstance(self.backend, FindsIdsByPrefix):
            ids = self.backend.ids_with_prefix("", filters, 2**62)
        else:
            ids = [e.id for e in self.backend.metadata_entries(filters, None)]
        for stored in ids:
            if hidden_character(stored) is None:
                continue
            plain = sanitise_for_terminal(stored)
            forms = {
                plain,
                " ".join(plain.splitlines()),
                sanitise_for_terminal(without_terminal_sequences(stored)),
                "".join(ch for ch in plain if hidden_character(ch) is None),
            }
            if text in {f.strip() for f in forms}:
                found.append(stored)
        return sorted(found)

    def resolve_id(self, memory_id: str, *, group_id: str | None = None) -> str:
        """The id ``memory_id`` names in ``group_id``'s project (None: this project; "all":
        any): the one id it starts, when it is a prefix of kenning ids
        (:func:`kenning.model.id_prefix`: at least 12 hex digits, dashes optional) and no
        memory has it as its whole id; else ``memory_id`` as given (stripped), which a
        caller then looks up, and says it is unknown as for any id. A prefix that starts
        several ids raises :class:`~kenning.errors.AmbiguousIdError` naming them."""
        text = _check_text(_check_memory_id(memory_id), "the memory id")
        prefix = id_prefix(text)
        if prefix is None:
            return text
        gid = self.resolve_group(group_id)
        if self.exists and any(
            m.id == text and (gid is None or m.group_id == gid) for m in self.backend.get([text])
        ):
            # a memory's whole id, an imported one of hex digits (01a24a0de000), is that
            # memory's, not the start of a kenning id: forget deleted the other (qa-s70c F1)
            return text
        found = self._ids_with_prefixes([prefix], gid, self.AMBIGUOUS_SHOWN + 1)[prefix]
        if len(found) == 1:
            return found[0]
        if not found:
            return text
        shown = self.backend.get(found[: self.AMBIGUOUS_SHOWN])
        from .render import summary_line

        listed = "; ".join(
            f"{m.id} ({m.type}, {m.stored_at.date().isoformat()}: {summary_line(m.content, 60)})"
            for m in shown
        )
        more = " and more" if len(found) > self.AMBIGUOUS_SHOWN else ""
        raise AmbiguousIdError(
            f"id prefix {text} starts the ids of several memories in {where_searched(group_id)}: "
            f"{listed}{more}; give more of the id",
            text,
            tuple(found[: self.AMBIGUOUS_SHOWN]),
        )

    def short_ids(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """The shortest prefix of each id that no other memory of the store starts with, of
        at least 12 hex digits (``01a24969-93d9``; longer only for ids made in one
        millisecond), what :meth:`resolve_id` takes back in any project: a listing for a
        person shows it. An id that is no UUID (an imported ``mem_42``) is its own. One
        lookup of the id index per id (SQLite, PostgreSQL); Qdrant reads the store's ids."""
        shown: dict[str, str] = {}
        ids = list(dict.fromkeys(memory_ids))
        candidates = {i: short_id_candidates(i) for i in ids}
        uuids = {i: c for i, c in candidates.items() if c is not None and self.exists}
        # the ids sharing each one's shortest prefix, all looked up at once (one read of the
        # ids on Qdrant); a burst of more than the limit is looked up again, longer
        start = dict.fromkeys(uuids, 0)
        sharing: dict[str, list[str]] = {}
        while pending := [i for i in uuids if i not in sharing]:
            found = self._ids_with_prefixes([uuids[i][start[i]] for i in pending], None, 64)
            for i in pending:
                others = [o for o in found[uuids[i][start[i]]] if o != i]
                if len(others) < 63 or start[i] == len(uuids[i]) - 1:
                    sharing[i] = others
                else:
                    start[i] = min(start[i] + 4, len(uuids[i]) - 1)
        for i in ids:
            if i not in uuids:
                shown[i] = i
                continue
            shown[i] = next(
                (p for p in uuids[i][start[i] :] if not any(o.startswith(p) for o in sharing[i])),
                i,
            )
        return shown

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

    def _redact_merged_into(self, memories: Sequence[Memory]) -> None:
        """Redact in place the stored memories a redacted note was merged into whose text
        holds what this kenning redacts (an older kenning's rules, or another writer, left
        the secret there): the note came in without it, and the row kept it on disk. Each
        goes through :meth:`update` (redacted, re-embedded, the old text erased as an edit
        erases it); a failure is said, never fails the write that found it."""
        from .redaction import redact_secrets

        done: set[str] = set()
        for memory in memories:
            if memory.id in done or redact_secrets(memory.content)[0] == memory.content:
                continue
            done.add(memory.id)
            try:
                self.update(memory.id, content=memory.content, group_id=memory.group_id)
            except KenningError as exc:
                log.warning(
                    "kenning: memory %s holds a secret and could not be redacted: %s; "
                    "run `kenning edit %s --content …` to replace its text",
                    memory.id,
                    exc,
                    memory.id,
                )

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
        exclusive transaction. The result's ``id`` is always this memory's (with its
        collection and type as they are after the edit), and it says ``stored``, or
        ``near-duplicate`` (``existing_id``: the other memory's id; its score) / ``rejected``
        (the reason) / ``dedup-check-failed`` — in which cases nothing was changed. The
        memory's own text (once normalised and redacted) and type are ``stored`` with the reason
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
        metadata = check_metadata_argument(metadata)
        gid = self.resolve_group(group_id)
        self.check_can_write()
        self._check_provenance(stamp=False)
        old: Memory | None = None  # the memory edited, once read: every answer names it
        try:
            with self.backend.exclusive():
                self._check_provenance(stamp=True)  # again under the lock, as _write_batch
                # Read under the lock: the edit applies to the memory as it is now.
                with skip_unsaid(self.backend, memory_id):  # (said below, if damaged)
                    found = self.backend.get([memory_id])
                if not found:
                    self._refuse_damaged_edit(memory_id, gid)
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
                if not self.files_are_here(old.group_id) and "file_blobs" in old.metadata:
                    # another project's files are not in this checkout (nor any project's
                    # outside one): keep its record
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
                    {**derived, **metadata, EDITED_AT: utc_now().isoformat()},
                    old.stored_at,
                    old.id,
                )
                if type is None and not _is_type_name(asked):
                    # another tool's type: kept, the note could not be written again (the
                    # write path knows its types), and "unknown memory type" named what the
                    # edit never gave
                    return RememberResult(
                        REJECTED,
                        old.id,
                        None,
                        f"the memory's type {str(asked)[:60]!r} is not one kenning knows "
                        "(another tool wrote it), so its text cannot be changed alone; give "
                        f"a type with the new text (valid types are {valid_types_message()})",
                        old.collection,
                        old.type,
                    )
                try:
                    prep = self.prepare(item, old.group_id, editing=True)
                except UserInputError as exc:
                    return RememberResult(
                        REJECTED,
                        old.id,
                        None,
                        _refusal_reason(exc),
                        old.collection,
                        old.type,
                        _refusal_redactions(exc),
                    )
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
                        raise _EditRefused(old, prep.redactions, *dup)
                self.backend.upsert([MemoryRecord(new, vector)])
        except _EditRefused as refused:
            return RememberResult(
                NEAR_DUPLICATE,
                refused.edited.id,
                refused.score,
                refused.reason,
                refused.edited.collection,
                refused.edited.type,
                refused.redactions,
                existing_id=refused.existing.id,
            )
        except KenningError:
            raise
        except Exception as exc:
            return RememberResult(
                DEDUP_CHECK_FAILED,
                None if old is None else old.id,
                None,
                f"the store could not be checked for duplicates: {exc}; nothing was changed",
                None if old is None else old.collection,
                None if old is None else old.type,
            )
        return RememberResult(STORED, new.id, None, None, new.collection, new.type, prep.redactions)

    def _refuse_damaged_edit(self, memory_id: str, gid: str | None) -> None:
        """An edit of a row every read skips (its fields do not decode, or it is larger than
        kenning stores: another writer's) says so and how to remove it, not "no memory with
        id …, it may have been forgotten": its fields cannot be read to edit."""
        for row in self.backend.damaged_rows():
            if row.id == memory_id and (gid is None or row.group_id == gid):
                raise UserInputError(
                    f"memory {memory_id} cannot be edited: its {row.describe()}, so every "
                    f"read skips it; {row.fix or '`kenning forget` it'} (`kenning doctor` "
                    "names it and how to keep its text first)"
                )

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
        self.check_can_write()
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

    # -- a project's notes under another id (`kenning move`) ----------------------------------

    def move_project(
        self, from_group: str, *, to_group: str | None = None, dry_run: bool = False
    ) -> MoveReport:
        """Move every memory of project ``from_group`` into ``to_group`` (None: this
        project), as a checkout whose id changed (a remote added after its first notes, a
        renamed repository) takes its earlier notes along. A memory keeps its id, text, times,
        tags and vector; one that :meth:`remember` would merge into a memory of the target
        (or into one moved before it, oldest first) by the same rule
        (:meth:`_find_duplicate`: the same text, or a near-duplicate) is dropped, and the
        memory it merges into counted as seen again (:meth:`record_seen`, as a merge counts it).
        All or nothing in one transaction where the backend has them (SQLite, PostgreSQL);
        on Qdrant the moved memories are one request, and the dropped duplicates a second
        one after it: a failure between them leaves those duplicates under ``from_group``,
        where the same move drops them again. ``dry_run``: the report, nothing written. A
        memory whose fields do not decode stays where it is (``kenning doctor`` names it)."""
        try:
            source = self.resolve_group(from_group)
        except UserInputError as exc:  # (said of from_group, not of the group_id it checks as)
            if exc.parameter != "group_id":
                raise
            before, after = exc._around
            raise UserInputError.of_parameter(
                "from_group", "the from_group argument", after, before=before
            ) from None
        target = self.resolve_group(to_group)
        if source is None or target is None:
            raise UserInputError(
                "a move is from one project into another: name each (not all), e.g. "
                "`kenning move --from-project OLD-ID` run in the project's checkout"
            )
        if source == target:
            raise UserInputError(
                f"project {source} is the project to move into already; name the id that "
                "holds the notes with --from-project (`kenning stats` names the store's ids)"
            )
        if not dry_run:
            self.check_can_write()
        if not self.exists:
            return MoveReport(source, target, (), {}, dry_run)
        with self.backend.exclusive():
            records = list(self.backend.iterate(Filters(group_id=source), oldest_first=True))
            held = self.backend.find_by_hashes(target, [r.memory.content_hash for r in records])
            stored = {(target, h): m for h, m in held.items()}
            moving: list[MemoryRecord] = []
            moved_hashes: dict[str, Memory] = {}
            duplicates: dict[str, str] = {}
            merged: dict[str, tuple[str, float]] = {}
            sightings: list[tuple[str, datetime]] = []
            for r in records:
                memory = dataclasses.replace(r.memory, group_id=target)
                # judged as remember judges a new note: its error fingerprint under the
                # rules now (the one stored with it may be an older kenning's)
                renewed = renewed_fingerprint(memory)
                judged = (
                    memory if renewed is None else dataclasses.replace(memory, metadata=renewed)
                )
                dup = self._find_duplicate(judged, r.vector, moved_hashes, moving, True, stored)
                if dup is None:
                    moving.append(MemoryRecord(memory, r.vector))
                    moved_hashes[memory.content_hash] = memory
                    continue
                kept, score, reason = dup
                if reason == IDENTICAL_CONTENT:
                    duplicates[memory.id] = kept.id
                else:
                    merged[memory.id] = (kept.id, score)
                when = memory.last_seen_at or memory.stored_at
                if not self._refresh_pending(moving, kept.id, when):
                    sightings.append((kept.id, when))
            report = MoveReport(
                source,
                target,
                tuple(r.memory.id for r in moving),
                duplicates,
                dry_run,
                merged,
            )
            if dry_run:
                return report
            if moving:
                self.backend.upsert(moving)
            if sightings:
                self.backend.record_seen(sightings)
            if duplicates or merged:
                self.backend.delete([*duplicates, *merged])
        return report

    # -- the document a memory points to, by its id (`kenning source`) -------------------

    def source(self, memory_id: str, *, group_id: str | None = None) -> SourceCheck:
        """The check of the document memory ``memory_id`` names. Raises
        :class:`~kenning.errors.UnknownMemoryError` for an unknown id (a surface says how to
        find ids and name a project with its own words) and
        :class:`~kenning.errors.UserInputError` for a memory that names no document; a
        refused path is a check with ``ok`` False, not an error."""
        memory = self.get(memory_id, group_id=group_id)  # None: this project
        if memory is None:
            raise UnknownMemoryError(
                f"no memory with id {memory_id.strip()} in {where_searched(group_id)}; it may "
                "have been forgotten, or be another project's",
                memory_id.strip(),
                group_id,
            )
        check = self.check_source(memory)
        if check is None:
            raise UserInputError(
                f"memory {memory.id} names no source document (no source, no SOURCE: part)"
            )
        return check
