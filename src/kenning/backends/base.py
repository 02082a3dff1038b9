"""The narrow backend Protocol every store engine implements.

A backend stores memories with their vectors and answers filtered top-k queries. It knows
nothing of dedup, decay or the protocol constants: that is :mod:`kenning.store`'s job.
Every backend returns cosine similarity in [-1, 1] so thresholds mean the same everywhere.
"""

from __future__ import annotations

import json
import logging
import os
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from ..errors import DuplicateContent, KenningError, StoreCorrupted
from ..model import InvalidTimestamp, Memory, Provenance, parse_timestamp
from ..protocol import MAX_CONTENT_BYTES, MAX_STORED_METADATA_BYTES

K = TypeVar("K")
#: Where :func:`oldest_first` puts a row whose time does not read (among those, by id).
_EARLIEST = datetime.min.replace(tzinfo=UTC)

#: The meta key every backend keeps its embedding provenance under.
PROVENANCE_KEY = "provenance"

#: Called by a write between its tries for another process's write lock: raising gives the
#: write up, nothing changed. kenning's MCP server sets it in a tool call's worker thread to
#: raise once the client cancelled the call — a cancelled write that went on waiting was made
#: once the lock came free, unasked.
WRITE_WAIT_CHECK: ContextVar[Callable[[], None] | None] = ContextVar(
    "kenning_write_wait_check", default=None
)


def give_up_if_unwanted() -> None:
    """Between a write's tries for the store's write lock, and once more after a wait when
    it has the lock: raise when its caller no longer wants the write
    (:data:`WRITE_WAIT_CHECK`, a cancelled MCP call). The last check is for a cancel that
    came while the lock came free: the next try took the lock and made the write."""
    give_up = WRITE_WAIT_CHECK.get()
    if give_up is not None:
        give_up()


def encode_provenance(provenance: Provenance) -> str:
    return json.dumps(provenance.to_dict(), sort_keys=True)


def encode_metadata(metadata: Mapping[str, Any]) -> str:
    """A memory's metadata as the text a store keeps (sorted keys, characters as they are):
    one form for SQLite's column and PostgreSQL's ``metadata_text``, so that a note reads
    back alike from either."""
    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True)


def decode_provenance(raw: str | None, location: str, remedy: str) -> Provenance | None:
    """The stamp stored under :data:`PROVENANCE_KEY`, or None; an unreadable stamp is a
    corrupted store (``remedy`` says how to recover in this backend)."""
    if raw is None:
        return None
    try:
        return Provenance.from_dict(json.loads(raw))
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreCorrupted(
            f"the store in {location} has an unreadable provenance stamp ({exc}); {remedy}"
        ) from None


def batch_dimension(vectors: Sequence[np.ndarray]) -> int:
    """The one dimension of a batch of vectors; a batch that mixes dimensions or holds NaN
    or infinity is refused (nothing written)."""
    dims = {int(np.asarray(v).reshape(-1).shape[0]) for v in vectors}
    if len(dims) > 1:
        raise KenningError(
            f"vectors of one batch have different dimensions ({sorted(dims)}); nothing was written"
        )
    if not all(np.isfinite(v).all() for v in vectors):
        raise KenningError("a vector contains NaN or infinity; nothing was written")
    return dims.pop()


def check_dimension(dimension: int, expected: int | None, location: str, remedy: str) -> None:
    """Refuse a vector of another dimension than the store's (``expected``; None: the store
    has none yet). ``remedy`` says how this backend gets to the new dimension."""
    if expected is not None and dimension != expected:
        raise KenningError(
            f"a vector has {dimension} dimensions but the store in {location} holds "
            f"{expected}-dimensional vectors; nothing was written. {remedy}"
        )


def duplicate_content(location: str) -> DuplicateContent:
    """The error every backend raises for a batch that repeats a project's content."""
    return DuplicateContent(
        f"a memory with the same content already exists in its project in {location} "
        "(content is unique per project); nothing was written"
    )


@dataclass(frozen=True)
class Filters:
    """Which memories a query may see. ``None`` / empty means "no restriction"."""

    group_id: str | None = None
    collections: tuple[str, ...] = ()
    types: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryRecord:
    """A memory with its embedding, as a backend stores it."""

    memory: Memory
    vector: np.ndarray


@dataclass(frozen=True)
class MetadataEntry:
    """One entry of a memory's metadata, with what places the memory in a listing
    (:meth:`Backend.metadata_entries`). ``value``: stored data, None when there is none."""

    id: str
    group_id: str
    stored_at: datetime
    value: object


@dataclass(frozen=True)
class DamagedRow:
    """A stored row a read could not use, and why. ``column`` is the field that does not
    decode (``embedding`` for a vector of the wrong size, not finite or not unit length: the
    memory itself is still readable, and ``kenning reembed`` recomputes its vector).
    ``fix``: how to repair it where ``kenning doctor`` cannot (a server store), else None."""

    id: str
    group_id: str | None
    column: str
    reason: str
    fix: str | None = None

    @property
    def vector_only(self) -> bool:
        return self.column == "embedding"

    def describe(self) -> str:
        return f"{self.column} {self.reason}"


class FieldDamage(ValueError):
    """A stored field that does not hold what kenning writes there (another tool, a script or
    a hand edit wrote it). ``column`` names it; the message says how; ``fix``, when given,
    how to repair it (:data:`OVERSIZE_FIX`)."""

    def __init__(self, column: str, reason: str, fix: str | None = None) -> None:
        super().__init__(f"{column} {reason}")
        self.column = column
        self.reason = reason
        self.fix = fix


#: The fix for a note :func:`blank_reason` refuses, where ``kenning doctor`` cannot name it.
BLANK_FIX = "`kenning forget` it: it holds no note"


def blank_reason(content: str) -> str | None:
    """Why a stored note's text is no note, or None when it has text: kenning refuses to
    store an empty note, so another writer of the store (another tool, an older version,
    damage) left it, and every read skips it as a damaged row (an empty finding otherwise).
    Whitespace is what :meth:`str.isspace` takes (see
    :data:`kenning.backends.sqlite.WHITESPACE_CODES`)."""
    if not content:
        return "is empty"
    if content.isspace():
        return "is only whitespace"
    return None


#: The fix for a note :func:`oversize_reason` refuses, where ``kenning doctor`` cannot name it.
OVERSIZE_FIX = (
    "`kenning forget` it (after keeping its text elsewhere, if you need it): kenning stores "
    "at most 64 KiB of text a note, and of metadata; remember a summary instead, with the "
    "full text's file as its source"
)


#: The most characters a note's text, and its metadata's JSON, can have and surely be no
#: larger than kenning stores (4 UTF-8 bytes a character at most): only a longer one is
#: measured by :func:`oversize_reason`. The backends test a row read against these inline,
#: before calling it (every row read passes there).
CONTENT_CHARS_SURELY_STORED = MAX_CONTENT_BYTES // 4
METADATA_CHARS_SURELY_STORED = MAX_STORED_METADATA_BYTES // 4


def _utf8_size_over(text: str, limit: int) -> int | None:
    """The UTF-8 size of ``text`` when it is over ``limit`` bytes, else None: a text of at
    most a quarter as many characters is under it unencoded (4 bytes a character at most),
    so nearly every note is never encoded."""
    if len(text) * 4 <= limit:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


def oversize_reason(content: str, metadata_json: str | None) -> tuple[str, str] | None:
    """``(column, reason)`` when a stored note is larger than any write of kenning stores
    (content over :data:`~kenning.protocol.MAX_CONTENT_BYTES`, its metadata as JSON text
    over :data:`~kenning.protocol.MAX_STORED_METADATA_BYTES`), else None: another writer of
    the store (another tool, a script, another client of a shared server) left it, and every
    read skips it as a damaged row, before any of it is parsed or redacted (F2: redacting a
    few megabytes dense with ``password=…`` on read took seconds, and the hooks gave up
    with nothing said). ``metadata_json``: the metadata as its store keeps it, or None."""
    if (size := _utf8_size_over(content, MAX_CONTENT_BYTES)) is not None:
        return "content", (
            f"is {size:,} bytes, over the {MAX_CONTENT_BYTES // 1024} KiB kenning stores "
            "(another writer's)"
        )
    if (
        metadata_json is not None
        and (size := _utf8_size_over(metadata_json, MAX_STORED_METADATA_BYTES)) is not None
    ):
        return "metadata", (
            f"is {size:,} bytes of JSON, over the {MAX_STORED_METADATA_BYTES // 1024} KiB "
            "kenning stores (another writer's)"
        )
    return None


def checked_fields(tags: object, metadata: object) -> tuple[tuple[str, ...], dict[str, Any]]:
    """A server row's tags and metadata as a :class:`Memory` holds them, or
    :class:`FieldDamage`: nothing is coerced (``tuple("deploy")`` is six one-letter tags,
    ``dict([1, 2])`` a TypeError), as SQLite's decoding refuses the same."""
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise FieldDamage("tags", "is not a JSON list of strings")
    if not isinstance(metadata, dict):
        raise FieldDamage("metadata", "is not a JSON object")
    return tuple(tags), metadata


@dataclass(frozen=True)
class TermStatistics:
    """How common a query's words are in the whole store, as the backend's lexical side
    counts them: ``rows`` memories in all, ``frequencies`` the number of memories holding
    each query term (its document frequency; 0 for a word no memory holds), the terms in
    the backend's own tokenisation. The hybrid score weights a lexical match with these
    (:func:`kenning.search.term_weights`)."""

    rows: int
    frequencies: dict[str, int]


@dataclass(frozen=True)
class ScoredMemory:
    """A backend hit: cosine similarity for vector search, a BM25-derived score for lexical."""

    memory: Memory
    score: float


#: A bulk load (no index maintenance while rows are copied, one index build at the end)
#: pays when at least this many rows arrive and they are at least as many as the store
#: holds: rebuilding the index of a big store for a few rows costs more than maintaining it
#: (PostgreSQL + pgvector on 2 cores: ~450 rows/s with HNSW maintained, COPY ~10k rows/s
#: plus an index build of ~100k rows in well under a minute; docs/benchmarks.md).
BULK_MIN_ROWS = 2000


@runtime_checkable
class BulkLoader(Protocol):
    """A backend that can defer index maintenance for a large write (PostgreSQL)."""

    def bulk_load(
        self, dimension: int | None = None, *, atomic: bool = True
    ) -> AbstractContextManager[None]: ...

    def restore_index(self) -> bool:
        """Build the search index a bulk load dropped, when it is missing (a load that was
        killed before its end): nothing when it is there. True when it built it."""
        ...

    def missing_index(self) -> str | None:
        """When the store is without the search index a bulk load drops (one that is
        running, or was killed before its end, maybe before its first row): what that
        means, and the fix (which :meth:`restore_index` is)."""
        ...

    def may_bulk_load(self) -> bool:
        """Whether this session may drop and build the indexes a bulk load needs (on
        PostgreSQL, only the table's owner may): else the write takes the ordinary path."""
        ...

    def table_owner(self) -> str | None:
        """Who may (the role that owns the store's table on PostgreSQL), as a message names
        it (quoted, made safe to show); None while there is no table."""
        ...


#: How many times this process is a fork's child, counted at each fork: what a connection,
#: a pool or a worker thread made before a fork compares to know it belongs to the parent
#: (cheaper than asking the kernel for the pid on every use).
_forks = [0]
#: Objects whose locks a forked child must replace before anything takes them: a lock
#: another thread of the parent held at the fork stays held for ever in the child.
_after_fork: weakref.WeakSet[Any] = weakref.WeakSet()


def _count_fork() -> None:
    _forks[0] += 1
    for obj in list(_after_fork):
        obj.after_fork()


def _before_fork() -> None:
    for obj in list(_after_fork):
        getattr(obj, "before_fork", lambda: None)()


def _after_fork_in_parent() -> None:
    for obj in list(_after_fork):
        getattr(obj, "after_fork_in_parent", lambda: None)()


def renew_after_fork(obj: Any) -> None:
    """Call ``obj.after_fork()`` in every child this process forks (``obj`` is held
    weakly), and its ``before_fork()`` / ``after_fork_in_parent()`` when it has them."""
    _after_fork.add(obj)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_count_fork
    )


def forks_so_far() -> int:
    """How many forks led to this process (0 in the process that started)."""
    return _forks[0]


def bulk_writes(
    backend: object, rows: int, existing: int, dimension: int | None, *, atomic: bool
) -> AbstractContextManager[None]:
    """The backend's bulk load when it has one and ``rows`` new rows into a store of
    ``existing`` make it pay (:data:`BULK_MIN_ROWS`; not ``atomic``: into an empty store
    only); else an ordinary write, after which
    an index an interrupted bulk load left dropped is built again (the run that resumes a
    killed migration is smaller than the store it now fills, so it is not a bulk load)."""
    # A load that commits as it goes (a migration) drops the index every project of the
    # store searches with, for as long as it runs, or for good if it is killed: only into
    # a store that holds nothing yet.
    if (
        isinstance(backend, BulkLoader)
        and rows >= max(BULK_MIN_ROWS, existing)
        and (atomic or existing == 0)
        and backend.may_bulk_load()
    ):
        return backend.bulk_load(dimension, atomic=atomic)
    if isinstance(backend, BulkLoader):
        return _then_restore_index(backend)
    return nullcontext()


@contextmanager
def _then_restore_index(backend: BulkLoader) -> Iterator[None]:
    yield
    # only the table's owner may build it: another role's write (a teammate's migration)
    # leaves it missing, as the store then says, rather than failing once its rows are in
    if backend.missing_index() is not None and backend.may_bulk_load():
        backend.restore_index()


#: A term found in more than this share of the memories adds almost nothing to BM25 (its idf
#: is near zero) but makes the full-text index score most of the table; it is left out of
#: the rows a lexical search looks for.
COMMON_TERM_SHARE = 0.1
#: ...unless the store is this small, where every matching term still counts.
COMMON_TERM_MIN_DOCS = 32
#: At most this many postings (rows matched, summed over terms) are scored per query.
POSTINGS_BUDGET = 2000


def oldest_first(rows: Iterable[tuple[K, object, object]]) -> list[K]:
    """The handles of ``rows`` (``(handle, stored_at, id)``: a row id, a point id) in the
    order every backend walks with ``oldest_first`` (:meth:`Backend.iterate`): by stored_at
    (a datetime, or ISO 8601 text as stored), then by id; a row whose time does not read
    comes last (the read of it skips it, or says what is wrong). A backend's own order
    differs (SQLite's and PostgreSQL's: the order the rows were written, an edit moving a
    row to the end; Qdrant's: its point ids, derived from the memory ids), so the same
    memories exported from two of them came out in two orders."""

    def place(row: tuple[K, object, object]) -> tuple[bool, datetime, str]:
        try:
            return False, parse_timestamp(row[1]), str(row[2])  # type: ignore[arg-type]
        except (InvalidTimestamp, TypeError):
            return True, _EARLIEST, str(row[2])

    return [row[0] for row in sorted(rows, key=place)]


def each_memory_once(records: Iterator[MemoryRecord]) -> Iterator[MemoryRecord]:
    """``records`` from a walk in row order, each memory once. An edit replaces a memory's
    row, which takes a place past the walk's position (a new rowid or sequence number): a
    memory edited after the walk met it would come again, its new text under the same id
    (an export could then not be imported). It is kept as the walk first met it."""
    seen: set[str] = set()
    for record in records:
        if record.memory.id not in seen:
            seen.add(record.memory.id)
            yield record


def terms_to_match(frequencies: Mapping[str, int], rows: int) -> list[str]:
    """The query terms a lexical search looks for, rarest first: not the common ones
    (:data:`COMMON_TERM_SHARE`), and only as many as keep the postings scored within
    :data:`POSTINGS_BUDGET`, so a query costs the same at any size. Every backend finds its
    lexical candidates with these terms and ranks them by these terms' BM25, so that the
    same notes give the same hybrid results on each."""
    cutoff = max(COMMON_TERM_SHARE * rows, COMMON_TERM_MIN_DOCS)
    usable = sorted(
        (t for t, df in frequencies.items() if 0 < df <= cutoff), key=lambda t: frequencies[t]
    )
    chosen: list[str] = []
    postings = 0
    for term in usable:
        if chosen and postings + frequencies[term] > POSTINGS_BUDGET:
            break
        chosen.append(term)
        postings += frequencies[term]
    return chosen


@runtime_checkable
class StatisticsSharingSearch(Protocol):
    """A backend whose lexical search reads the query's term statistics anyway and can hand
    them back with its hits, so that a hybrid query asks for them once (Qdrant: one exact
    count per term, each a round trip; PostgreSQL: one query; SQLite: one tokenisation of
    the query and one read transaction)."""

    def lexical_search_with_statistics(
        self, query: str, k: int, filters: Filters
    ) -> tuple[list[ScoredMemory], TermStatistics]: ...


def lexical_search_with_statistics(
    backend: Backend, query: str, k: int, filters: Filters
) -> tuple[list[ScoredMemory], TermStatistics]:
    """``(backend.lexical_search(query, k, filters), backend.term_statistics(query))``, from
    one reading of the statistics where the backend offers it (:class:`StatisticsSharingSearch`)."""
    if isinstance(backend, StatisticsSharingSearch):
        return backend.lexical_search_with_statistics(query, k, filters)
    return backend.lexical_search(query, k, filters), backend.term_statistics(query)


@runtime_checkable
class HitVectorsSearch(Protocol):
    """A backend whose lexical search reads its hits' rows, their stored vectors with them
    (SQLite: one read of each row by its rowid, in the search's read transaction), so that
    a hybrid query does not look its hits up again by id for their vectors."""

    def lexical_search_with_vectors(
        self, query: str, k: int, filters: Filters
    ) -> tuple[list[ScoredMemory], TermStatistics, dict[str, np.ndarray]]: ...


def lexical_search_with_vectors(
    backend: Backend, query: str, k: int, filters: Filters
) -> tuple[list[ScoredMemory], TermStatistics, dict[str, np.ndarray]]:
    """:func:`lexical_search_with_statistics` and ``backend.get_vectors`` of its hits (the
    usable vectors: a damaged one is left out), read with the hits where the backend can
    (:class:`HitVectorsSearch`)."""
    if isinstance(backend, HitVectorsSearch):
        return backend.lexical_search_with_vectors(query, k, filters)
    hits, statistics = lexical_search_with_statistics(backend, query, k, filters)
    vectors = backend.get_vectors([h.memory.id for h in hits]) if hits else {}
    return hits, statistics, vectors


@runtime_checkable
class PreparesSearch(Protocol):
    """A backend whose first search after many writes builds a derived file (SQLite: the
    vector file, ~1.5 s at 100k memories, 6.5 s at 1M): built by :meth:`prepare_search`
    at the end of a bulk write (an import, a reembed), so that the first search is not a
    hook's, whose budget it outlasted, run after run."""

    def prepare_search(self) -> None: ...


def prepare_search(backend: Backend) -> None:
    """:meth:`PreparesSearch.prepare_search` where the backend has it; a failure is left
    to the next search, which builds the same file (or says why it cannot)."""
    if isinstance(backend, PreparesSearch):
        try:
            backend.prepare_search()
        except Exception as exc:  # the write it follows succeeded: this must not fail it
            logging.getLogger("kenning").debug("the search file is left to a search: %s", exc)


@runtime_checkable
class ContentHashLister(Protocol):
    """A backend that lists its ``(id, content_hash)`` pairs without reading whole rows
    (PostgreSQL): a migration's verification reads 100k of them in one query instead of
    every row with its vector."""

    def content_hashes(self, filters: Filters) -> list[tuple[str, str]]: ...


@runtime_checkable
class IdentifiedStore(Protocol):
    """A backend that can tell its store from any other however its location is spelled
    (PostgreSQL: ``localhost`` or ``127.0.0.1``, an added ``?sslmode=``, a replica's URL):
    a migration onto the store it reads is refused by this, not by comparing URLs."""

    def identity(self) -> Hashable | None:
        """The same value for two connections to one store; None when it cannot be told."""
        ...


@runtime_checkable
class CountsDamagedRows(Protocol):
    """A backend whose rows can be damaged on disk (SQLite: a field or a vector that does
    not decode, which every read skips) and that can count them: ``kenning stats`` counts
    the memories search sees, and the damaged ones apart."""

    def count_damaged(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        """How many rows matching ``filters`` reads skip, by ``(group_id, collection,
        type)`` as stored (counted the way :meth:`Backend.count_by` counts them)."""
        ...

    def count_unreadable(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        """Of those, the rows whose fields do not decode, which listing and export skip too
        (a row whose vector alone is damaged is listed, and exported without it)."""
        ...

    def damaged_vector_ids(self, filters: Filters) -> frozenset[str]:
        """The ids of the rows matching ``filters`` whose vector search skips: those
        :meth:`count_damaged` counts beyond :meth:`count_unreadable` (listed, never found),
        and any whose fields do not decode as well."""
        ...


@runtime_checkable
class FindsIdsByPrefix(Protocol):
    """A backend that finds the ids starting with a prefix without reading every row
    (SQLite, PostgreSQL: a range of the id index; Qdrant reads the ids alone, as it cannot
    look a point up by part of its kenning id)."""

    def ids_with_prefix(self, prefix: str, filters: Filters, limit: int) -> list[str]:
        """The ids of memories matching ``filters`` that start with ``prefix`` (compared
        byte for byte, as stored), in id order, ``limit`` at most."""
        ...

    def ids_with_prefixes(
        self, prefixes: Sequence[str], filters: Filters, limit: int
    ) -> dict[str, list[str]]:
        """:meth:`ids_with_prefix` for each prefix (Qdrant: in one read of the ids)."""
        ...


@runtime_checkable
class CountsProjects(Protocol):
    """A backend that can tell cheaply whether a project has a memory, and count the others'
    (SQLite: a store of one checkout, where a project id with no memories beside others is
    a renamed repository or a changed ``origin``, not a new project)."""

    def projects_if_absent(self, group_id: str, limit: int) -> dict[str, int]:
        """{} when a memory of ``group_id`` is stored; else the project ids that differ from
        it only in letter case, then the ones with the most memories (``limit`` in all), and
        how many each has."""
        ...

    def projects_alike(self, group_id: str, limit: int) -> dict[str, int]:
        """The other project ids that end in ``group_id``'s repository name
        (:func:`kenning.project.same_repository_ids`), the most memories first (``limit``
        at most), and how many each has."""
        ...


@runtime_checkable
class NamesCaseVariants(Protocol):
    """A server backend (shared by many projects, so it names no other project when one
    has no memories) that can tell the project ids differing from one asked only in letter
    case: the likeliest ``--project`` typo on a team's store."""

    def case_variants_if_absent(self, group_id: str, limit: int) -> dict[str, int]:
        """{} when a memory of ``group_id`` is stored; else the project ids that differ from
        it only in letter case (:func:`kenning.project.case_variants`), the most memories
        first (``limit`` at most), and how many each has."""
        ...


@runtime_checkable
class UpgradesSchema(Protocol):
    """A server backend whose write upgrades the schema of a store an older kenning wrote
    (PostgreSQL): every kenning older than this one refuses the store from then on."""

    #: What the write that upgraded the store's schema said (once, as a warning); else None.
    schema_upgraded: str | None


@runtime_checkable
class ScoresDirections(Protocol):
    """A backend whose vector search scores a stored vector by its direction, whatever its
    length (pgvector's ``<=>``, Qdrant's cosine, which normalises on upload): another
    writer's vector of another length is readable there (qa-team F7), and the lexical hits'
    cosines are scored the same way. SQLite's scan takes stored vectors as unit length."""

    scores_directions: bool


def reads_directions(backend: object) -> bool:
    """Whether ``backend``'s search scores a stored vector by its direction
    (:class:`ScoresDirections`): a server's; not the embedded store's."""
    return isinstance(backend, ScoresDirections) and backend.scores_directions


@runtime_checkable
class KnowsItIsReadOnly(Protocol):
    """A backend that can tell before a write that the store refuses writes (SQLite opened
    read-only, its folder not writable; a PostgreSQL standby or read-only role): a write
    that must embed first is refused before the model is loaded and its texts embedded
    (seconds, for nothing)."""

    def check_writable(self) -> None:
        """Raise the error a write would meet when the store is read-only; else nothing."""
        ...


@runtime_checkable
class KnowsItsSchema(Protocol):
    """A backend whose store records a schema version (SQLite, PostgreSQL): it can tell
    whether a newer kenning upgraded the store so that this one may read but not write it
    (:mod:`kenning.backends.compat`)."""

    def newer_schema_refuses_writes(self) -> str | None:
        """Why a write of this kenning would be refused as the store's schema is newer than
        it writes (as the write says it); None when this kenning writes it."""
        ...


@runtime_checkable
class NeedsRoomToRewrite(Protocol):
    """A backend on a disk kenning can look at (SQLite), where a one-time update of many
    rows (the renewal of the error fingerprints an older kenning stored) needs room beside
    the store: every page it changes goes into the WAL before it commits. The room is looked
    at before it runs, and one that fails for lack of room leaves no grown WAL."""

    def room_to_update(self, ids: Sequence[str], *, failed: bool = False) -> Mapping[Path, int]:
        """The room (bytes, by the folder whose disk it is on) that changing a field of each
        memory of ``ids`` in one transaction needs. ``failed``: such an update just failed
        for lack of room (:class:`~kenning.errors.DiskFull`), so it needs more than each
        disk has now, whatever the reckoning said."""
        ...

    def short_of_room(self, needs: Mapping[Path, int]) -> str | None:
        """None when each disk of ``needs`` has its room now; else what it needs and has,
        as said (``it needs about 11 MiB free on the disk holding …, which has 8 MiB``)."""
        ...

    def checkpoint(self) -> None:
        """Empty the WAL of what is committed (without waiting for a reader), before such an
        update: one that fails then leaves a WAL of its own frames only, which the rollback's
        checkpoint drops without writing to the full disk."""
        ...

    def record_wait(self, what: str, count: int, needs: Mapping[Path, int] | None) -> None:
        """Record in the store that the update ``what`` (of ``count`` rows) waits for the
        room ``needs`` (None: it waits no more; the record goes), so that another process
        need not read every row to reckon it again: only when that small write fits on the
        disk, and never failing (no record is then kept)."""
        ...

    def recorded_wait(self, what: str) -> tuple[int, Mapping[Path, int]] | None:
        """The count and the room :meth:`record_wait` recorded for ``what``, while nothing
        that could lessen that room changed since (a row deleted or its vector, project,
        type or collection changed, fewer pages in use, another reckoning of the room); else None
        (reckon it again). Reads no memory's row."""
        ...


@runtime_checkable
class MarksAReembed(Protocol):
    """A server backend that marks a running ``kenning reembed`` where every client sees it
    (a store file is marked by a lock file beside it, :mod:`kenning.reembed`): the metadata
    key alone reads the same for a run at work and one that was killed, and "run it again"
    said of a running one started a second beside it."""

    def reembed_mark(self) -> AbstractContextManager[bool]:
        """Held for a reembed's length: True when it marks this one, False when another
        reembed holds the mark (this one must not run)."""
        ...

    def reembed_running(self) -> bool | None:
        """Whether a reembed holds the mark, in any client (False for a killed one); None
        when this client cannot tell (a PostgreSQL standby: its locks are its own, and the
        primary's reembed holds none of them)."""
        ...


@runtime_checkable
class Backend(Protocol):
    #: Human-readable location of the data (file path or URL without credentials).
    location: str

    def upsert(self, records: Sequence[MemoryRecord]) -> None:
        """Insert or replace a batch atomically: all rows are written or none."""
        ...

    def vector_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[ScoredMemory]:
        """Top-k by cosine similarity among rows matching ``filters``, best first."""
        ...

    def lexical_search(self, query: str, k: int, filters: Filters) -> list[ScoredMemory]:
        """Top-k by full-text relevance (higher is better), best first."""
        ...

    def term_statistics(self, query: str) -> TermStatistics:
        """Row count and document frequency of each of the query's terms (the statistics
        :meth:`lexical_search` weights BM25 with; over the whole store, not ``filters``)."""
        ...

    def get(self, ids: Sequence[str]) -> list[Memory]: ...

    def find_by_hash(self, group_id: str, content_hash: str) -> Memory | None: ...

    def find_by_hashes(self, group_id: str, content_hashes: Sequence[str]) -> dict[str, Memory]:
        """:meth:`find_by_hash` for many hashes at once (one round trip for a write batch):
        the memories found, by content hash."""
        ...

    def find_by_fingerprint(self, fingerprint: str, filters: Filters) -> list[Memory]:
        """Memories whose ``metadata["error_fingerprint"]`` equals ``fingerprint``."""
        ...

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these memories (missing ids are left out)."""
        ...

    def delete(self, ids: Sequence[str]) -> int: ...

    def count(self, filters: Filters) -> int: ...

    def count_by(self, group_id: str | None) -> dict[tuple[str, str], int]:
        """Counts per ``(collection, type)``."""
        ...

    def iterate(
        self, filters: Filters, batch_size: int = 500, *, oldest_first: bool = False
    ) -> Iterator[MemoryRecord]:
        """Every memory matching ``filters`` with its vector, in batches, each memory once
        even when it is edited during the walk (:func:`each_memory_once`): in the backend's
        own order (the fastest: a resumed walk relies on it), or with ``oldest_first`` in the
        one every backend gives (:func:`oldest_first`: what an export writes)."""
        ...

    def newest(self, filters: Filters, n: int, before: datetime | None = None) -> list[Memory]:
        """The ``n`` most recently stored memories matching ``filters``, newest first (by
        ``stored_at``, then by id, larger first), without reading the other rows. ``before``:
        only memories stored before it (the page's "older than" filter starts there rather
        than reading every newer row to skip it)."""
        ...

    def stored_since(self, filters: Filters, since: datetime) -> list[datetime]:
        """When each memory matching ``filters`` stored at or after ``since`` was stored (UTC,
        in no particular order), reading that one field of those rows only."""
        ...

    def metadata_entries(self, filters: Filters, key: str | None) -> list[MetadataEntry]:
        """The id, project, time and ``metadata[key]`` (``key`` None: no entry, None) of
        every memory matching ``filters`` that a read returns (a row whose fields do not
        decode is left out, as every read leaves it out), in no particular order, without
        reading its text or vector where the store can: the page's stale filter checks the
        files of every memory of a project (decoding each row of 100k took 2.6 s), and its
        pages past what :meth:`newest` reads at once are found by time, and then it reads
        the page's rows alone."""
        ...

    def update_vectors(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        """Replace the vectors of existing memories (re-embedding), keeping everything else."""
        ...

    def record_seen(self, sightings: Sequence[tuple[str, datetime]]) -> None:
        """A near-duplicate of a stored memory was remembered: for each ``(id, when)`` add
        one to its ``seen_count`` and move its ``last_seen_at`` to ``when`` if that is
        later, changing nothing else. Ids that do not exist are skipped. All or nothing
        inside :meth:`exclusive` (where the backend has transactions)."""
        ...

    def update_metadata(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Replace the metadata of existing memories, changing nothing else (content, id,
        timestamps and vector stay: a fingerprint computed under newer rules). Ids that do
        not exist are skipped. All or nothing inside :meth:`exclusive` (where the backend
        has transactions)."""
        ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...

    def read_provenance(self) -> Provenance | None: ...

    def write_provenance(self, provenance: Provenance) -> None: ...

    def exclusive(self) -> AbstractContextManager[None]:
        """Serialise a check-then-write (dedup) against every other writer of this store."""
        ...

    def damaged_rows(self) -> list[DamagedRow]:
        """The rows reads have skipped since this backend was opened, because a field (or
        the vector) does not decode. Each was also logged once as a warning."""
        ...

    def replaced(self) -> bool:
        """True when the data at :attr:`location` is no longer what this backend has open:
        the store file was deleted, moved aside or replaced since it was opened (a process
        that keeps a store open must then open it again, or it would read and write a file
        nobody else sees). Always False for a server."""
        ...

    def close(self) -> None: ...


@contextmanager
def skip_unsaid(backend: object, memory_id: str) -> Iterator[None]:
    """A read that skips the damaged row ``memory_id`` does not warn of it here (qa72 F6:
    `kenning forget` of such a row said it skipped it, naming forget as its fix); the
    backend's warnings of other rows are said as always."""

    def said(record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (str(record.msg).startswith("kenning: skipped") and memory_id in args)

    # (the embedded store's warnings go to "kenning", the servers' to their modules')
    loggers = [logging.getLogger(name) for name in {"kenning", type(backend).__module__}]
    for logger in loggers:
        logger.addFilter(said)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(said)
