"""Data types of kenning: memories, the collection/type taxonomy, embedder provenance.

Everything here is a frozen dataclass or a constant table; no I/O.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .errors import InvalidTypeError, UserInputError
from .protocol import MAX_SEEN_COUNT, RECALL_FLOOR

#: Collections and their types (AI Memory Module taxonomy). A type belongs to one collection.
COLLECTIONS: Mapping[str, tuple[str, ...]] = {
    "code-patterns": ("implementation", "error_fix", "refactor", "file_pattern"),
    "conventions": ("rule", "guideline", "port", "naming", "structure"),
    "discussions": ("decision", "session", "blocker", "preference", "context"),
}

#: What each collection answers: HOW things are built, WHAT rules hold, WHY it was decided.
COLLECTION_PURPOSE: Mapping[str, str] = {
    "code-patterns": "HOW things are built",
    "conventions": "WHAT rules to follow",
    "discussions": "WHY things were decided",
}

#: The type of a note stored without one.
DEFAULT_TYPE = "context"

TYPE_TO_COLLECTION: Mapping[str, str] = {
    t: collection for collection, types in COLLECTIONS.items() for t in types
}


def known_kind(memory_type: str, collection: str) -> bool:
    """Whether ``(memory_type, collection)`` is a pair kenning writes (a type of
    :data:`COLLECTIONS` in its own collection). The one rule for a row another writer (an
    older or newer kenning, SQL by hand, a script) left of any other kind: kenning holds it
    but does not serve it. Recall and search never return it (its type decides its
    half-life, its rendering and which collection is searched: none is known), stats counts
    it apart from the memories, migrate does not copy it (it names it; kenning writes no
    such row), export writes it and names it (a backup keeps every row), import refuses it
    and doctor names it; listing, ``kenning edit ID --type TYPE`` and ``kenning forget ID``
    reach it by its id, which gives it a kenning type (docs/team-backends.md)."""
    return TYPE_TO_COLLECTION.get(memory_type) == collection


def duplicate_reason(existing: Memory, reason: str) -> str:
    """``reason`` a note is a duplicate of ``existing``, and, when ``existing`` is of a kind
    kenning does not know (:func:`known_kind`: recall and search do not return it), that and
    its fix: the note remembered again was otherwise "not stored" and never recalled."""
    if known_kind(existing.type, existing.collection):
        return reason
    return (
        f"{reason}; it is of a kind kenning does not know (type {existing.type!r} in collection "
        f"{existing.collection!r}, another writer's), which recall and search do not return: "
        f"`kenning edit {existing.id} --type TYPE` gives it a kenning type"
    )


def served(memory: Memory) -> bool:
    """Whether a read (recall, search) may return ``memory``: not a row another writer left
    of a kind kenning does not know, held but not served (:func:`known_kind`)."""
    return known_kind(memory.type, memory.collection)


#: The ruvector protocol's own types, mapped onto the taxonomy. ``decision`` and ``context``
#: exist in both. ``context`` holding an ERROR-FIX entry (the seed stores error fixes as
#: ``context``) becomes ``error_fix``: see :func:`resolve_type`.
RUVECTOR_TYPE_MAP: Mapping[str, str] = {
    "decision": "decision",
    "context": "context",
    "project": "context",
    "code": "implementation",
    "general": "context",
}

ERROR_FIX_PREFIX = "ERROR-FIX:"
#: The metadata key of an entry ``kenning seed-solutions`` wrote: the path of its document
#: (its source). The seeding updates and retires the entries it marks so.
SEEDED_FROM = "seeded_from"


def starts_as_error_fix(content: str) -> bool:
    """``content`` opens with the ERROR-FIX prefix, in any case and after leading whitespace,
    as :func:`kenning.errorfix.parse_error_fix` reads an entry (``error-fix: …`` too)."""
    head = content.lstrip()[: len(ERROR_FIX_PREFIX)]
    return head.upper() == ERROR_FIX_PREFIX


def valid_types_message() -> str:
    parts = [f"{c}: {', '.join(ts)}" for c, ts in COLLECTIONS.items()]
    ruv = ", ".join(sorted(set(RUVECTOR_TYPE_MAP) - set(TYPE_TO_COLLECTION)))
    return "; ".join(parts) + f" (ruvector types also accepted: {ruv})"


def resolve_type(memory_type: str, content: str = "") -> tuple[str, str]:
    """Return ``(type, collection)`` for a kenning or ruvector type name.

    Raises :class:`InvalidTypeError` naming the valid types; never defaults silently.
    """
    if memory_type is not None and not isinstance(memory_type, str):
        raise InvalidTypeError(
            f"a memory type must be text, got {type(memory_type).__name__}; valid types are "
            + valid_types_message()
        )
    name = (memory_type or "").strip().lower().replace("-", "_")
    if name in RUVECTOR_TYPE_MAP and name not in TYPE_TO_COLLECTION:
        name = RUVECTOR_TYPE_MAP[name]
    if name == "context" and starts_as_error_fix(content):
        name = "error_fix"
    if name not in TYPE_TO_COLLECTION:
        raise InvalidTypeError(
            f"unknown memory type {memory_type!r}; valid types are {valid_types_message()}"
        )
    return name, TYPE_TO_COLLECTION[name]


def check_collection(collection: str) -> str:
    if collection is not None and not isinstance(collection, str):
        raise InvalidTypeError(
            f"a collection must be text, got {type(collection).__name__}; valid collections "
            f"are {', '.join(COLLECTIONS)}"
        )
    name = (collection or "").strip().lower()
    if name not in COLLECTIONS:
        raise InvalidTypeError(
            f"unknown collection {collection!r}; valid collections are {', '.join(COLLECTIONS)}"
        )
    return name


def content_hash(normalised_content: str) -> str:
    return hashlib.sha256(normalised_content.encode("utf-8")).hexdigest()


def new_memory_id() -> str:
    """A UUIDv7 string: millisecond time prefix (sortable) plus 74 random bits.

    Never derived from a second-resolution clock, so two writes in one second differ.
    """
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


#: What a memory id may be: kenning's UUIDv7s, and the short ids other tools give (``mem_42``,
#: ``ruvector:2024.08-1``); nothing that could carry markup, a path, a control or
#: invisible character, or blanks.
MEMORY_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


def check_memory_id(value: str) -> str:
    """``value`` if it is a usable memory id (:data:`MEMORY_ID_PATTERN`), else
    :class:`~kenning.errors.UserInputError` saying what an id may be."""
    if not isinstance(value, str) or not MEMORY_ID_PATTERN.fullmatch(value):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise UserInputError(
            f"{shown} is not a usable memory id: use 1 to 128 letters, digits and . _ : - "
            "starting with a letter or digit (kenning's own ids are UUIDs)"
        )
    return value


#: The fewest hex digits of an id that name a memory by a prefix (``kenning forget
#: 01a24969-93d9``): a UUIDv7's first 12 are the millisecond it was made, so a typo in them
#: names a moment no other note was made at, where a shorter prefix (the first 8 digits are
#: the same for every note of a minute) could name another note.
ID_PREFIX_MIN_HEX = 12

_UUID_DASHES = (8, 12, 16, 20)  # hex digits before each dash of a UUID's text


def _dashed(hexdigits: str) -> str:
    """Hex digits as the start of a UUID's text, with its dashes where they fall."""
    out, last = [], 0
    for cut in _UUID_DASHES:
        if len(hexdigits) <= cut:
            break
        out.append(hexdigits[last:cut])
        last = cut
    out.append(hexdigits[last:])
    return "-".join(out)


def id_prefix(text: str) -> str | None:
    """``text`` as the start of a kenning id (a UUID's text, lowercase, with its dashes) when
    it can be one: hex digits, dashes anywhere or nowhere (``01a2496993d9`` selects with a
    double click), at least :data:`ID_PREFIX_MIN_HEX` and at most a whole UUID's 32 of
    them, in either case (the whole id too: a tool that prints UUIDs in capitals or without
    dashes; qa-s69c F1); None otherwise (an id is then only ever matched whole)."""
    digits = text.strip().replace("-", "").lower()
    if not ID_PREFIX_MIN_HEX <= len(digits) <= 32 or not all(
        c in "0123456789abcdef" for c in digits
    ):
        return None
    return _dashed(digits)


def too_short_for_prefix(text: str) -> bool:
    """Whether ``text`` reads as the start of an id given with fewer hex digits than
    :func:`id_prefix` takes (git's habit of typing 7): hex digits and dashes, as there."""
    digits = text.strip().replace("-", "").lower()
    return 0 < len(digits) < ID_PREFIX_MIN_HEX and all(c in "0123456789abcdef" for c in digits)


def short_id_candidates(memory_id: str) -> list[str] | None:
    """The prefixes of a kenning id shown for it, shortest first (from
    :data:`ID_PREFIX_MIN_HEX` hex digits to the whole id); None for an id that is no UUID
    (an imported ``mem_42``: shown whole)."""
    digits = memory_id.replace("-", "").lower()
    if (
        len(digits) != 32
        or memory_id != _dashed(digits)
        or not all(c in "0123456789abcdef" for c in digits)
    ):
        return None
    return [_dashed(digits[:n]) for n in range(ID_PREFIX_MIN_HEX, 33)]


def utc_now() -> datetime:
    return datetime.now(UTC)


class InvalidTimestamp(UserInputError, ValueError):
    """A timestamp that is not ISO 8601 (a ValueError too: a stored row's bad timestamp is
    judged a damaged row where ValueError is caught)."""


def parse_timestamp(value: str | datetime) -> datetime:
    """Parse an ISO 8601 timestamp; naive values are taken as UTC."""
    try:
        dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        raise InvalidTimestamp(
            f"{str(value)[:40]!r} is not an ISO 8601 timestamp (e.g. 2026-03-01T12:00:00Z)"
        ) from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except OverflowError:  # 0001-01-01 at +05:00 is in year 0 in UTC
        raise InvalidTimestamp(
            f"{dt.isoformat()} has no UTC time within the years 1 to 9999; pass a time inside them"
        ) from None


#: When a memory's text or type was last changed (:meth:`MemoryStore.update`): metadata key.
EDITED_AT = "edited_at"


@dataclass(frozen=True)
class Memory:
    """One stored note. ``content`` is already normalised and redacted.

    ``seen_count`` is how many times this knowledge was remembered (1 when first stored;
    each near-duplicate merged into it adds one) and ``last_seen_at`` when it was last
    remembered (``stored_at`` until a near-duplicate refreshes it).
    """

    id: str
    content: str
    collection: str
    type: str
    group_id: str
    stored_at: datetime
    content_hash: str
    source: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    last_seen_at: datetime | None = None
    seen_count: int = 1

    def __post_init__(self) -> None:
        if self.last_seen_at is None:
            object.__setattr__(self, "last_seen_at", self.stored_at)

    @property
    def written_at(self) -> datetime:
        """When its text was written: stored, or last edited since (kenning stamps an edit
        in :data:`EDITED_AT`; a stamp it cannot read, or before the memory was stored, is
        none)."""
        stamp = self.metadata.get(EDITED_AT) if isinstance(self.metadata, Mapping) else None
        try:
            edited = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
        except ValueError:
            return self.stored_at
        if edited is None or edited.tzinfo is None or edited <= self.stored_at:
            return self.stored_at
        return edited.astimezone(UTC)

    def __hash__(self) -> int:
        # frozen, so hashable (a set of hits): by the fields that say which memory and which
        # text it is (equal memories agree on them), not its metadata, which is a dict
        return hash((self.id, self.group_id, self.content_hash, self.type, self.stored_at))

    @classmethod
    def of_checked_fields(
        cls,
        *,
        id: str,
        content: str,
        collection: str,
        type: str,
        group_id: str,
        stored_at: datetime,
        content_hash: str,
        source: str | None,
        tags: tuple[str, ...],
        metadata: Mapping[str, Any],
        last_seen_at: datetime | None,
        seen_count: int,
    ) -> Memory:
        """The memory ``Memory(...)`` makes of these fields, each already checked by a store's
        row decoder, made without the generated ``__init__``: a frozen dataclass sets each
        field through ``object.__setattr__``, ~5 of the ~15 µs a row costs, and a warm recall
        decodes 20 or more rows. Every field is named (tests/test_model.py holds this to the
        dataclass's fields)."""
        memory = object.__new__(cls)
        memory.__dict__.update(
            id=id,
            content=content,
            collection=collection,
            type=type,
            group_id=group_id,
            stored_at=stored_at,
            content_hash=content_hash,
            source=source,
            tags=tags,
            metadata=metadata,
            last_seen_at=stored_at if last_seen_at is None else last_seen_at,
            seen_count=seen_count,
        )
        return memory

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "content": self.content,
            "collection": self.collection,
            "type": self.type,
            "group_id": self.group_id,
            "stored_at": self.stored_at.isoformat(),
            "content_hash": self.content_hash,
            "source": self.source,
            "tags": list(self.tags),
            "metadata": dict(self.metadata),
            "last_seen_at": (self.last_seen_at or self.stored_at).isoformat(),
            "seen_count": self.seen_count,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Memory:
        """The inverse of :meth:`to_dict`; ``last_seen_at`` and ``seen_count`` may be absent
        (data written before they existed): then ``stored_at`` and 1. Nothing is coerced: a
        field missing or of another kind raises :class:`MemoryDictError` naming it (a
        ``content`` of None was the text ``'None'``, ``tags`` of ``"urgent"`` six tags)."""
        if not isinstance(data, Mapping):
            raise MemoryDictError(f"Memory.from_dict takes a dict, not a {type(data).__name__}")
        missing = [key for key in (*_MEMORY_TEXT_FIELDS, "stored_at") if key not in data]
        if missing:
            raise MemoryDictError(
                f"the memory's dict lacks {', '.join(missing)}; Memory.from_dict reads what "
                "Memory.to_dict wrote"
            )
        for key in _MEMORY_TEXT_FIELDS:
            _field_of_kind(data, key, str, "text")
        source = data.get("source")
        if source is not None:
            _field_of_kind(data, "source", str, "text or null")
        tags = data.get("tags") or []
        if not isinstance(tags, list | tuple) or not all(isinstance(t, str) for t in tags):
            raise MemoryDictError(f"tags must be a list of texts, got {_kind_of(tags)}")
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise MemoryDictError(f"metadata must be a JSON object, got {_kind_of(metadata)}")
        last_seen = data.get("last_seen_at")
        try:
            return cls(
                id=data["id"],
                content=data["content"],
                collection=data["collection"],
                type=data["type"],
                group_id=data["group_id"],
                stored_at=parse_timestamp(data["stored_at"]),
                content_hash=data["content_hash"],
                source=source,
                tags=tuple(tags),
                metadata=dict(metadata),
                last_seen_at=parse_timestamp(last_seen) if last_seen else None,
                seen_count=check_seen_count(data.get("seen_count", 1)),
            )
        except (TypeError, ValueError, OverflowError) as exc:  # a time or a count
            raise MemoryDictError(f"the memory's dict does not read: {exc}") from None


class MemoryDictError(UserInputError, ValueError):
    """A dict :meth:`Memory.from_dict` cannot read (a ``ValueError`` too, as a damaged
    row's fields are to the backends that read rows through it)."""


#: The fields of a memory's dict that are text.
_MEMORY_TEXT_FIELDS = ("id", "content", "collection", "type", "group_id", "content_hash")


def _kind_of(value: object) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


def _field_of_kind(data: Mapping[str, Any], key: str, kind: type, said: str) -> None:
    if not isinstance(data[key], kind):
        raise MemoryDictError(f"{key} must be {said}, got {_kind_of(data[key])}")


def edit_version(memory: Memory) -> str:
    """What an edit starts from: the memory's text (by hash) and its type. An edit made
    from one version is not applied over another (:meth:`MemoryStore.update`'s
    ``expected_version``)."""
    return f"{memory.content_hash}:{memory.type}"


def same_memory(held: Memory, memory: Memory) -> bool:
    """Whether ``held`` (a store's memory) is ``memory`` under the same id, as an import or
    a migration brings it again: a memory never changes project or ``stored_at``, and an
    edit keeps both; the same text in the same project is the same note whatever its date.
    Anything else is another memory that happens to have its id (two tools' short ids)."""
    return held.group_id == memory.group_id and (
        held.stored_at == memory.stored_at or held.content_hash == memory.content_hash
    )


def fields_changed(stored: Memory, shown: Memory) -> list[str]:
    """The fields a writer gives (content, source, tags, metadata) that differ between
    ``stored`` and ``shown``, a redacted reading of it: where a credential was left."""
    return [
        name
        for name in ("content", "source", "tags", "metadata")
        if getattr(stored, name) != getattr(shown, name)
    ]


def check_seen_count(value: object) -> int:
    """``value`` as a ``seen_count``: a whole number of at least 1 (``ValueError``
    otherwise), kept at :data:`MAX_SEEN_COUNT` when larger (a kenning before that limit
    stored and exported larger counts: its stores and exports still read)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"seen_count must be a whole number of at least 1, got {value!r:.40}")
    return min(value, MAX_SEEN_COUNT)


@dataclass(frozen=True)
class Provenance:
    """What produced a store's vectors. Two stores mix only when these are equal."""

    embedder: str
    model_id: str
    dimension: int
    normalised: bool
    prefix_policy: str = "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "embedder": self.embedder,
            "model_id": self.model_id,
            "dimension": self.dimension,
            "normalised": self.normalised,
            "prefix_policy": self.prefix_policy,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Provenance:
        return cls(
            embedder=str(data["embedder"]),
            model_id=str(data["model_id"]),
            dimension=int(data["dimension"]),
            normalised=bool(data["normalised"]),
            prefix_policy=str(data.get("prefix_policy", "none")),
        )

    def describe(self) -> str:
        return f"{self.embedder}:{self.model_id} ({self.dimension}-d)"


@dataclass(frozen=True)
class SourceCheck:
    """Whether the document a memory names may be read (SPEC §7): ``path`` as the memory
    gives it; ``resolved`` (inside the project) when ``ok``, else the ``reason`` it was
    refused. Made by :func:`kenning.sources.check_source`; ``missing``: refused as no file
    is there (by :func:`kenning.sources.check_source` already for a symlink to nothing),
    ``not_a_document``: as what is there is no document to read (a folder, a pipe,
    a device, a binary file) — both by :func:`kenning.sources.check_document`, nothing
    unsafe about either; ``no_checkout``: not looked for, as kenning runs outside a checkout
    of the project (:meth:`~kenning.store.MemoryStore.check_source_path`); ``unreadable``:
    refused as the file system would not give it (this user may not read the file or search
    a folder on its path, chmod 000; a symlink loop; an I/O error), so nothing is known of
    what is there (``reason`` says why, and what lets it be read). ``broken_link``: missing
    as the path is a symlink to nothing (or a folder on it is), whose ``reason`` says where
    it points (:data:`kenning.sources.BROKEN_LINK_FIX` says what to do)."""

    path: str
    ok: bool
    resolved: str | None = None
    reason: str | None = None
    missing: bool = False
    broken_link: bool = False
    not_a_document: bool = False
    no_checkout: bool = False
    unreadable: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "ok": self.ok, "resolved": self.resolved, "reason": self.reason}


def source_fields(check: SourceCheck | None) -> dict[str, Any]:
    """The ``source_path`` / ``source_ok`` keys of a result (both None: no document)."""
    if check is None:
        return {"source_path": None, "source_ok": None}
    return {"source_path": check.path, "source_ok": check.ok}


#: How a file a memory names compares with the version recorded when it was written.
FRESH, CHANGED, MISSING, REFUSED = "fresh", "changed", "missing", "refused"
#: A file the file system would not give (no read rights, a symlink loop, an I/O error):
#: not compared, so neither fresh nor stale (:attr:`Freshness.unchecked`).
UNCHECKED = "unchecked"
#: How the reason of a document missing as a broken symlink starts
#: (:func:`kenning.sources.broken_link_reason`).
BROKEN_LINK = "broken symlink"
#: What to do about a path that is a broken symlink (qa77 F6).
BROKEN_LINK_FIX = "create its target or fix the link"


@dataclass(frozen=True)
class FileState:
    """One file a memory names: ``recorded`` is its git blob hash when the memory was
    written, ``current`` the hash now (None: the file is gone, or its path is refused).
    ``status`` is :data:`FRESH`, :data:`CHANGED`, :data:`MISSING` or :data:`REFUSED`
    (the path no longer passes the source-path checks; ``reason`` says why), or
    :data:`UNCHECKED` (not compared: ``reason`` says why, with what lets it be read)."""

    path: str
    recorded: str
    current: str | None
    status: str
    reason: str | None = None

    @property
    def broken_link(self) -> bool:
        """Missing as the path is a symlink to nothing (``reason`` says where it points:
        :func:`kenning.sources.broken_link_reason`): ``ls`` shows it, nothing is there."""
        return self.status == MISSING and (self.reason or "").startswith(BROKEN_LINK)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "recorded": self.recorded,
            "current": self.current,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Freshness:
    """Whether the files a memory names are as they were when it was written (SPEC §7).
    A memory is ``stale`` when one of them changed, disappeared or is refused. ``unchecked``:
    the files it names that could not be compared (:data:`UNCHECKED`; nothing says they
    changed, so they do not make it stale). Made by :mod:`kenning.freshness`."""

    files: tuple[FileState, ...] = ()
    unchecked: tuple[FileState, ...] = ()

    @property
    def stale(self) -> bool:
        return any(f.status != FRESH for f in self.files)

    @property
    def changed(self) -> tuple[FileState, ...]:
        return tuple(f for f in self.files if f.status != FRESH)

    def to_dict(self) -> dict[str, Any]:
        return {"stale": self.stale, "changed": [f.to_dict() for f in self.changed]}


@dataclass(frozen=True)
class Commit:
    hash: str
    date: str
    subject: str

    def to_dict(self) -> dict[str, str]:
        return {"hash": self.hash, "date": self.date, "subject": self.subject}


@dataclass(frozen=True)
class FileHistory:
    """What git says about a stale memory's file since the memory was written: the newest
    commits that touched it (at most the limit; ``more`` says there were others), whether
    the work tree differs from the last commit, where a moved file went, and why git may
    have no history of it (the file is ignored, a shallow clone's history stops before the
    change, the repository has no commit yet, no commit ever held the file)."""

    path: str
    commits: tuple[Commit, ...] = ()
    more: bool = False
    uncommitted: bool = False
    moved_to: str | None = None
    #: git ignores the path (.gitignore): it has no commits, whatever changed it
    ignored: bool = False
    #: a shallow clone whose history stops before the version the memory saw was reached
    shallow: bool = False
    #: the repository has no commit yet: git has no history of anything
    no_commits: bool = False
    #: no commit of any branch ever held the file
    never_committed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "commits": [c.to_dict() for c in self.commits],
            "more_commits": self.more,
            "uncommitted": self.uncommitted,
            "moved_to": self.moved_to,
            "ignored": self.ignored,
            "shallow": self.shallow,
            "no_commits": self.no_commits,
            "never_committed": self.never_committed,
        }


@dataclass(frozen=True)
class StaleMemory:
    """A stale memory, what changed, and git's account of each changed file."""

    memory: Memory
    freshness: Freshness
    history: Mapping[str, FileHistory]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "type": self.memory.type,
            "collection": self.memory.collection,
            "stored_at": self.memory.stored_at.isoformat(),
            "content": self.memory.content,
            "source": self.memory.source,
            "changed": [
                {
                    **f.to_dict(),
                    **(self.history[f.path].to_dict() if f.path in self.history else {}),
                }
                for f in self.freshness.changed
            ],
            # the files it names that could not be compared: not why it is stale
            "unchecked": [f.to_dict() for f in self.freshness.unchecked],
        }


@dataclass(frozen=True)
class UncheckedFile:
    """A file of the project that memories recorded and ``kenning stale`` could not compare
    (:data:`UNCHECKED`): ``reason`` says why and what lets it be read; ``memories`` name it."""

    path: str
    reason: str
    memories: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "memories": self.memories}


#: How many stale memories ``kenning stale`` lists unless told (``--limit``; 0 lists all):
#: one broad commit at 100k memories made 6,942 stale, 44,454 lines (2 MB) on a terminal.
STALE_LISTED = 20


@dataclass(frozen=True)
class StaleReport:
    """What :meth:`MemoryStore.stale` finds (``kenning stale``): the project's stale
    memories, newest first; ``checked`` memories named files of the project. ``stale``
    counts them all; ``memories`` holds the newest of them, up to the limit asked for (-1:
    as many as ``memories`` holds). ``unchecked``: the files of the checked memories that
    could not be compared (no read rights, a symlink loop, an I/O error), which make none
    of them stale: the report is not complete while there is one; ``unchecked_memories``
    of the checked memories are not stale and name one of them."""

    group_id: str
    checked: int
    memories: tuple[StaleMemory, ...]
    stale: int = -1
    unchecked: tuple[UncheckedFile, ...] = ()
    unchecked_memories: int = 0

    def __post_init__(self) -> None:
        if self.stale < 0:
            object.__setattr__(self, "stale", len(self.memories))

    @property
    def left_out(self) -> int:
        """How many stale memories the limit left out of ``memories``."""
        return self.stale - len(self.memories)

    def to_dict(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id,
            "checked": self.checked,
            "stale": self.stale,
            "shown": len(self.memories),
            "memories": [m.to_dict() for m in self.memories],
            "unchecked": [f.to_dict() for f in self.unchecked],
            "unchecked_memories": self.unchecked_memories,
        }


def freshness_fields(freshness: Freshness | None) -> dict[str, Any]:
    """The ``stale`` / ``changed`` keys of a result (a memory that names no file, or was not
    checked, is not stale)."""
    if freshness is None:
        return {"stale": False, "changed": []}
    return freshness.to_dict()


@dataclass(frozen=True)
class SearchResult:
    """One ranked memory. ``score`` is what results are sorted by.

    With decay on, ``score = 0.7 * semantic + 0.3 * temporal``; with decay off it equals
    ``semantic``. ``semantic`` is the calibrated relevance in [-1, 1] (cosine, or the fused
    dense+lexical score); ``temporal`` is ``None`` when decay is off or the age is unknown.
    ``match`` says how it was found: ``fingerprint`` (exact error fingerprint), ``hybrid``
    or ``dense``. ``source`` is the check of the document the memory names (set by the
    store; None when it names none). ``freshness`` says whether the files it names changed
    since it was written (set by the store; None when it names none or was not checked); a
    stale result's ``score`` is lowered by ``stale_penalty`` (the setting, default
    :data:`kenning.protocol.STALE_PENALTY`; 0 for a fresh one), its sub-scores are not.
    """

    memory: Memory
    score: float
    semantic: float
    temporal: float | None = None
    lexical: float | None = None
    match: str = "dense"
    source: SourceCheck | None = None
    freshness: Freshness | None = None
    stale_penalty: float = 0.0

    @property
    def stale(self) -> bool:
        return self.freshness is not None and self.freshness.stale

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 6),
            "semantic": round(self.semantic, 6),
            "temporal": None if self.temporal is None else round(self.temporal, 6),
            "lexical": None if self.lexical is None else round(self.lexical, 6),
            "match": self.match,
            **source_fields(self.source),
            **freshness_fields(self.freshness),
            "stale_penalty": round(self.stale_penalty, 6),
            "memory": self.memory.to_dict(),
        }


#: Outcomes of ``remember`` (the ruvector protocol's words).
STORED = "stored"
NEAR_DUPLICATE = "near-duplicate"
REJECTED = "rejected"
DEDUP_CHECK_FAILED = "dedup-check-failed"
#: The ``reason`` of a ``stored`` edit that changed nothing (:meth:`MemoryStore.update`
#: given the memory's own text and type): nothing was written.
UNCHANGED = "unchanged: the text and type are those stored"


@dataclass(frozen=True)
class RememberResult:
    """What ``remember`` or an edit (:meth:`~kenning.store.MemoryStore.update`) did.

    ``id`` is the memory the answer is about: for ``remember`` the new memory's id (stored)
    or the existing one it repeats (near-duplicate); for an edit always the memory edited,
    whatever the outcome (a script reading an edit's ``id`` must not be handed another
    memory's). ``existing_id`` is the memory a near-duplicate repeats; None means the one
    ``id`` names (``remember``'s answer) — :attr:`duplicate_of` reads both. ``score`` is the
    duplicate's similarity (1.0 for identical content); ``collection`` and ``type`` are
    those of the memory ``id`` names."""

    status: str
    id: str | None = None
    score: float | None = None
    reason: str | None = None
    collection: str | None = None
    type: str | None = None
    redactions: Mapping[str, int] = field(default_factory=dict)
    existing_id: str | None = None

    def __hash__(self) -> int:  # (as Memory's: not by the redactions, a dict)
        return hash((self.status, self.id, self.score, self.reason, self.existing_id))

    @property
    def ok(self) -> bool:
        return self.status in (STORED, NEAR_DUPLICATE)

    @property
    def duplicate_of(self) -> str | None:
        """The id of the memory a near-duplicate repeats (None for any other outcome)."""
        if self.status != NEAR_DUPLICATE:
            return None
        return self.id if self.existing_id is None else self.existing_id

    @property
    def unchanged(self) -> bool:
        """An edit whose text and type were those stored: nothing was written."""
        return self.status == STORED and self.reason == UNCHANGED

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "id": self.id}
        if self.status == NEAR_DUPLICATE:
            out["existing_id"] = self.duplicate_of
        out["score"] = None if self.score is None else round(self.score, 6)
        out["reason"] = self.reason
        out["collection"] = self.collection
        out["type"] = self.type
        out["redactions"] = dict(self.redactions)
        return out


@dataclass(frozen=True)
class RecallResult:
    """The ruvector recall protocol's answer: at most ``keep`` hits above ``floor``, and
    their contents cut so that together they fit the character budget."""

    query: str
    floor: float
    hits: tuple[SearchResult, ...]
    texts: tuple[str, ...]
    truncated: bool
    #: Whether the query was treated as an error; None: judged from the floor (a project's
    #: calibrated floors may differ from the protocol's, so recall says it).
    error_query: bool | None = None
    #: Nothing recalled and the project has no memories in a store that holds others': how
    #: many each other project id holds (:meth:`~kenning.store.MemoryStore.other_projects`).
    other_projects: Mapping[str, int] = field(default_factory=dict)
    #: Those of ``other_projects`` that differ from the project asked only in letter case
    #: (:func:`kenning.project.case_variants`): project ids are case-sensitive.
    case_variants: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        """True when the query was treated as an error (the lower error floor applied)."""
        return self.floor < RECALL_FLOOR if self.error_query is None else self.error_query

    @property
    def cut(self) -> tuple[bool, ...]:
        """Per hit, whether its text was cut to the budget (not the whole note); a recall
        whose budget left a hit out altogether is ``truncated`` with none of these."""
        return tuple(
            text != h.memory.content for h, text in zip(self.hits, self.texts, strict=True)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "floor": self.floor,
            "truncated": self.truncated,
            "results": [
                {
                    "id": h.memory.id,
                    "score": round(h.score, 6),
                    "content": text,
                    # cut to the budget: not the whole note (its content_hash is the note's)
                    "truncated": cut,
                    "type": h.memory.type,
                    "collection": h.memory.collection,
                    "group_id": h.memory.group_id,
                    "source": h.memory.source,
                    "tags": list(h.memory.tags),
                    "metadata": dict(h.memory.metadata),
                    "content_hash": h.memory.content_hash,
                    "stored_at": h.memory.stored_at.isoformat(),
                    "last_seen_at": (h.memory.last_seen_at or h.memory.stored_at).isoformat(),
                    "seen_count": h.memory.seen_count,
                    "match": h.match,
                    **source_fields(h.source),
                    **freshness_fields(h.freshness),
                    "stale_penalty": round(h.stale_penalty, 6),
                }
                for h, text, cut in zip(self.hits, self.texts, self.cut, strict=True)
            ],
            **({"other_projects": dict(self.other_projects)} if self.other_projects else {}),
            **({"case_variants": list(self.case_variants)} if self.case_variants else {}),
        }
