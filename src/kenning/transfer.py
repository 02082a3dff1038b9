"""``kenning export`` / ``kenning import``: a project's memories as JSONL, and back.

An export is a header line (``{"kenning_export": 1, "provenance": …, "exported_at": …}``)
then one memory per line, oldest first (by ``stored_at``, then id: the same order on every
backend, :func:`~kenning.backends.base.oldest_first`), with every field, its id and
(unless left out) its vector as base64 float32; :mod:`kenning.export_format` says what
each field must be. An import keeps ids, timestamps and projects. It trusts nothing in
the file: the whole file is checked against the format, and every memory against the write
path (:meth:`~kenning.store.MemoryStore.prepare`), before anything is written; what must be
embedded is embedded next, and then everything is written in one transaction, so that an
import interrupted midway leaves the store as it was. A vector is
reused only when the export's provenance is the store's and the vector has the store's
dimension, is finite and has unit length; any other vector is dropped and the content
re-embedded (the vector is derived data; the text is the memory).

An export writes every memory whose row reads back; a row whose fields do not decode is
left out and named (:class:`ExportReport`), and a memory whose vector is damaged is
written without it, so that the import re-embeds it. On a server store, whose search reads
a vector's direction (:class:`~kenning.backends.base.ScoresDirections`), another writer's
finite vector of another length than 1 is not damaged: it is written as its direction, of
length 1, which an import (into SQLite too) keeps and scores as the server did; a zero
vector, which points nowhere, is written without it
(:func:`~kenning.vectors.direction_of`).
"""

from __future__ import annotations

import base64
import contextlib
import gc
import json
import logging
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .backends.base import (
    BulkLoader,
    Filters,
    bulk_writes,
    prepare_search,
    reads_directions,
)
from .errors import Interrupted, KenningError, StoreUnavailable, StoreWriteFailed
from .export_format import EXPORT_FORMAT, ExportFile, ExportLine, read_export
from .model import (
    DEDUP_CHECK_FAILED,
    NEAR_DUPLICATE,
    STORED,
    Memory,
    edit_version,
    fields_changed,
    same_memory,
    utc_now,
)
from .render import escape_unsafe_json
from .store_read import redacted_copy
from .vectors import direction_of, vector_problem

if TYPE_CHECKING:
    from datetime import datetime

    from .store import MemoryStore, NewMemory
    from .store_write import PreparedMemory

log = logging.getLogger("kenning")
#: Memories per write batch when the export's vectors are reused (nothing to embed, so a
#: batch is only a transaction: fewer, bigger ones).
IMPORT_BATCH = 500
#: Memories embedded at a time before an import writes (the store's write batch).
EMBED_BATCH = 64


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: ``exported`` memories; ``damaged`` rows left out (id → what
    does not decode); ``without_vectors``: memories written without their damaged vector
    (id → what is wrong with it; the import re-embeds them); ``fix``: how to repair the
    damaged rows when the backend says (None: ``kenning doctor`` does). A server store's
    vector of another length than 1, or all zeros, is not damaged (its search reads a
    vector's direction): ``directions`` and ``zero_vectors`` name them."""

    exported: int
    damaged: Mapping[str, str] = field(default_factory=dict)
    without_vectors: Mapping[str, str] = field(default_factory=dict)
    fix: str | None = None
    #: Memories holding a credential another writer left in them, exported redacted.
    redacted: int = 0
    #: Those memories (id → the fields that held it: content, source, tags, metadata).
    redacted_ids: Mapping[str, str] = field(default_factory=dict)
    #: On a server store: memories whose vector another writer left at another length than
    #: 1, exported as its direction, of length 1 (id → ``length 5``).
    directions: Mapping[str, str] = field(default_factory=dict)
    #: On a server store: memories whose vector is all zeros, exported without it.
    zero_vectors: Sequence[str] = ()
    #: Memories written as stored that ``kenning import`` refuses (id → why): another
    #: writer's type kenning does not know, or a time ahead (:func:`import_refusal`).
    refused: Mapping[str, str] = field(default_factory=dict)


def export_memories(
    store: MemoryStore, out: IO[str], *, group_id: str | None = None, vectors: bool = True
) -> ExportReport:
    """Write a JSONL export: a header line, then one memory per line (every field, its
    id, and its vector as base64 float32 unless ``vectors`` is False)."""
    from .reembed import REEMBED_STATE_KEY

    def reembedding() -> bool:
        return store.backend.get_meta(REEMBED_STATE_KEY) is not None

    provenance = store.backend.read_provenance()
    if vectors and reembedding():
        # the stamp names the old model until the re-embedding ends: the vectors under it
        # come from two models, and an import would reuse the new model's as the old one's
        raise KenningError(
            f"the store at {store.location} is half re-embedded: its vectors come from two "
            "models; run `kenning reembed` to finish it, or export with --no-vectors (the "
            "import embeds the text again)"
        )
    header = {
        "kenning_export": EXPORT_FORMAT,
        "provenance": provenance.to_dict() if provenance else None,
        "exported_at": utc_now().isoformat(),
    }
    # unsafe characters (bidi and other format controls, C1, U+2028) as \u escapes, as in
    # every JSON kenning writes: the same data, inert on a terminal or in an editor
    out.write(escape_unsafe_json(json.dumps(header, ensure_ascii=False)) + "\n")
    scope = store.resolve_group(group_id)
    dimension = provenance.dimension if provenance else None
    n = 0
    without: dict[str, str] = {}
    redacted: dict[str, str] = {}
    # a server reads a vector's direction: one of another length is exported as it
    directions = reads_directions(store.backend)
    scaled: dict[str, str] = {}
    zero: list[str] = []
    refused: dict[str, str] = {}
    now = utc_now()
    for record in store.backend.iterate(Filters(group_id=scope), oldest_first=True):
        # a credential another writer (an older kenning, another tool) left in a memory:
        # an export is shared, and every reader of the store redacts it (qa-s65b B3)
        memory = redacted_copy(record.memory)
        line = memory.to_dict()
        text_redacted = memory.content != record.memory.content
        if memory is not record.memory:
            redacted[memory.id] = ", ".join(fields_changed(record.memory, memory))
        if vectors and provenance is not None and not text_redacted:
            # (a redacted text's vector is its secret's: the import embeds the text)
            problem = vector_problem(record.vector, dimension)
            if problem is None:
                line["embedding"] = _encoded(record.vector)
            elif not directions:
                without[record.memory.id] = problem
            else:
                direction, length = direction_of(record.vector, dimension)
                if direction is not None:
                    line["embedding"] = _encoded(direction)
                    scaled[record.memory.id] = f"length {length:.6g}"
                elif length == 0.0:
                    zero.append(record.memory.id)
                else:
                    without[record.memory.id] = problem
        if (why := import_refusal(memory, now)) is not None:
            refused[memory.id] = why
        out.write(escape_unsafe_json(json.dumps(line, ensure_ascii=False)) + "\n")
        n += 1
    if vectors and (reembedding() or store.backend.read_provenance() != provenance):
        raise KenningError(
            f"a `kenning reembed` of {store.location} ran while it was exported: the vectors "
            "written may come from two models; export again once it is done, or with "
            "--no-vectors (the import embeds the text again)"
        )
    rows = [
        d
        for d in store.backend.damaged_rows()
        if not d.vector_only and (scope is None or d.group_id in (scope, None))
    ]
    fixes = dict.fromkeys(d.fix for d in rows if d.fix)
    return ExportReport(
        n,
        {d.id: d.describe() for d in rows},
        without,
        "; ".join(fixes) or None,
        len(redacted),
        redacted,
        scaled,
        zero,
        refused,
    )


def import_refusal(memory: Memory, now: datetime) -> str | None:
    """Why ``kenning import`` refuses ``memory`` as an export writes it (the write path's
    checks of a row another writer set: its type, and its times against ``now``), or None.
    kenning never stores such a note; an import refuses a file holding one whole (qa72 F4).
    """
    from .model import resolve_type
    from .store_write import FUTURE_TOLERANCE

    why = []
    try:
        resolve_type(memory.type, memory.content)
    except KenningError:
        why.append(f"type {memory.type!r} is no kenning type")
    last_seen = memory.last_seen_at or memory.stored_at
    ahead = [
        f"{name} {when.isoformat(timespec='seconds')}"
        for name, when in (("stored_at", memory.stored_at), ("last_seen_at", last_seen))
        if when > now + FUTURE_TOLERANCE
    ]
    if ahead:
        are = "is" if len(ahead) == 1 else "are"
        why.append(f"{' and '.join(ahead)} {are} more than a day ahead")
    if last_seen < memory.stored_at:
        why.append("last_seen_at before stored_at")
    return ", ".join(why) or None


def _encoded(vector: object) -> str:
    """A vector as an export writes it: base64 of its float32 bytes."""
    return base64.b64encode(np.ascontiguousarray(vector, dtype=np.float32).tobytes()).decode(
        "ascii"
    )


@dataclass(frozen=True)
class ValidatedImport:
    """An export file that passed every check, as the write path will store it."""

    export: ExportFile
    items: list[NewMemory]
    prepared: list[PreparedMemory]
    vectors: list[np.ndarray | None]
    reuse: bool
    reembedded: int
    left_out: int = 0


def import_memories(
    store: MemoryStore,
    lines: Iterable[str],
    *,
    progress: Callable[[int], None] | None = None,
    checking: Callable[[int], None] | None = None,
    vectors: bool = True,
) -> dict[str, Any]:
    """Import a JSONL export. Ids, timestamps (``last_seen_at`` and ``seen_count`` too) and
    projects are kept (``other_projects``: how many were imported into each project other
    than the store's own, which its recall and search do not read); a memory whose id or
    content already exists is skipped (and not refreshed: restoring is not remembering
    again); a vector is reused when the export's
    provenance matches this store's and the vector is usable (``reembedded`` counts the
    others, whose content is embedded again). A memory the store holds under its id with
    another text (edited since the export) keeps the store's text too, and is also named in
    ``changed`` (id → project): the file's text was not taken. The whole file is validated
    before anything is written (:func:`validate_import`, which a caller may run first on a
    store that does not exist yet, so that a refused file creates none).

    Into a server that bulk-loads (PostgreSQL) the checks and the writes overlap
    (:func:`_import_pipelined`), in the one transaction that a refused file rolls back:
    nothing is imported either.

    ``progress`` is told of the memories written as they are; ``checking`` of those checked
    while the checks run before any write (never where they overlap the writes).
    ``vectors=False`` uses none of the file's vectors: every memory is embedded from its
    text (a file from someone else: a well-formed vector of another note's text passes
    every check, and would have the memory recalled for that note's queries)."""
    store.check_can_write()  # a read-only store: said before the file is read and embedded
    with _collector_paused():
        if isinstance(store.backend, BulkLoader):
            return _import_pipelined(store, lines, progress, vectors)
        return _import_validated(store, _validate_import(store, lines, checking, vectors), progress)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while an import runs. An import makes millions
    of objects it keeps to its end (the file's lines, the checked notes), and the collector
    went over them again and again: 4.2 s of an import of 100k notes (7.4 CPU-s with the
    threads it held up), for nothing (they hold no cycles; memory is freed as usual by
    reference counting). Turned on again at the end if it was on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def validate_import(
    store: MemoryStore,
    lines: Iterable[str],
    progress: Callable[[int], None] | None = None,
    *,
    vectors: bool = True,
) -> ValidatedImport:
    """Every check :func:`import_memories` makes before writing; raises
    :class:`~kenning.errors.UserInputError` naming the lines that fail. Reads nothing of the
    store's rows but the texts of those whose ids the file holds (it may not exist yet).
    ``progress`` is told of the memories checked as they are (at 100k, ~30 s); ``vectors``
    as :func:`import_memories` takes it."""
    with _collector_paused():
        return _validate_import(store, lines, progress, vectors)


def _validate_import(
    store: MemoryStore,
    lines: Iterable[str],
    progress: Callable[[int], None] | None,
    use_vectors: bool = True,
) -> ValidatedImport:
    from .errors import UserInputError

    read = _read_file(store, lines, use_vectors)
    prepared: list[PreparedMemory] = []
    vectors = list(read.vectors)
    checking = _Checking(store, read)
    try:
        for chunk in checking.chunks():
            prepared += chunk.take(vectors)
            if progress is not None:
                progress(len(chunk.notes))
    finally:
        checking.close()
    if checking.problems:
        raise UserInputError(_refusal(checking.problems))
    export, items, left_out = read.export, read.items, read.left_out
    if checking.left_out:
        gone = set(checking.left_out)
        kept = [i for i in range(len(items)) if i not in gone]
        export = replace(export, lines=tuple(export.lines[i] for i in kept))
        items = [items[i] for i in kept]
        vectors = [vectors[i] for i in kept]
        left_out += len(gone)
    return ValidatedImport(export, items, prepared, vectors, read.reuse, read.reembedded, left_out)


def _refusal(problems: Sequence[str]) -> str:
    """The error of a file some of whose lines fail the checks (``problems``, in order)."""
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    counted = "1 memory" if len(problems) == 1 else f"{len(problems)} memories"
    # all or nothing (docs/team-backends.md): the fix is in the file, the store is as it was
    return (
        f"{counted} cannot be imported — {'; '.join(problems[:3])}{more}; nothing was "
        "imported: correct each line named in the file (or remove it), then import it again"
    )


@dataclass(frozen=True)
class _FileRead:
    """An export file read and its vectors checked, before its notes go through the write
    path's checks: the memories, the vectors to reuse (None: embedded), and the memories the
    store holds under the file's ids."""

    export: ExportFile
    items: list[NewMemory]
    vectors: list[np.ndarray | None]
    reuse: bool
    reembedded: int
    held: dict[str, Memory]
    #: Lines left out for holding no visible text (:func:`_without_empty_notes`).
    left_out: int = 0


def _without_empty_notes(export: ExportFile) -> tuple[ExportFile, int]:
    """``export`` without the memories whose text shows nothing (only whitespace and
    invisible characters), each named on stderr, and how many. An older kenning, or another
    writer, stored such notes, which every read shows as nothing and the write path refuses:
    a backup holding one was refused whole, its other memories never restored; they hold no
    knowledge to lose."""
    from .safety import has_visible_text

    empty = [line for line in export.lines if not has_visible_text(line.content)]
    if not empty:
        return export, 0
    for line in empty:
        log.warning(
            "kenning: line %d (memory %s) holds no visible text (only whitespace and "
            "invisible characters); left out, counted as rejected",
            line.number,
            line.id,
        )
    left = set(map(id, empty))
    return replace(export, lines=tuple(x for x in export.lines if id(x) not in left)), len(empty)


def _read_file(store: MemoryStore, lines: Iterable[str], use_vectors: bool = True) -> _FileRead:
    from .store import NewMemory
    from .widths import has_width_forms

    export, left_out = _without_empty_notes(read_export(lines))
    target = store.embedder.provenance
    same_model = export.provenance is not None and export.provenance == target
    reuse = use_vectors and same_model
    items: list[NewMemory] = []
    vectors: list[np.ndarray | None] = []
    reembedded = 0
    # Every memory must pass the write path's checks before anything is written; what they
    # give is what is written. A note the store holds under its id with the file's very text
    # (an export imported again) is not normalised and redacted again (MemoryStore.prepare).
    held = {m.id: m for m in store.backend.get([r.id for r in export.lines])}
    for record in export.lines:
        items.append(
            NewMemory(
                record.content,
                record.type,
                record.source,
                record.tags,
                record.metadata,
                record.stored_at,
                record.id,
                record.last_seen_at,
                record.seen_count,
            )
        )
        vector = record.vector if reuse else None
        if vector is not None and has_width_forms(record.content):
            # an older kenning embedded full-width text as unknown word pieces: embedded
            # again, as it is read now (docs/how-it-works.md, "Full-width text")
            vector = None
        if vector is not None and record.id not in held:  # (held: its vector goes unused)
            problem = vector_problem(vector, target.dimension)
            if problem is not None:
                log.warning(
                    "kenning: line %d: the embedding %s; its content is embedded again",
                    record.number,
                    problem,
                )
                vector = None
                reembedded += 1
        vectors.append(vector)
    if not reuse:
        # every vector of the file goes: said once, before the long part (the model's pace,
        # ~80 notes/s, where the file's vectors load at thousands), and counted
        dropped = sum(1 for r in export.lines if r.vector is not None and r.id not in held)
        if dropped and same_model:
            log.warning(
                "kenning: the file's vectors are not used (asked for): its %d memories with "
                "vectors are embedded from their text",
                dropped,
            )
            reembedded += dropped
        elif dropped:
            made_by = export.provenance.describe() if export.provenance else "no embedder named"
            log.warning(
                "kenning: the file's vectors were made by %s, not by this store's %s: its %d "
                "memories with vectors are embedded again",
                made_by,
                target.describe(),
                dropped,
            )
            reembedded += dropped
    return _FileRead(export, items, vectors, reuse, reembedded, held, left_out)


def import_validated(
    store: MemoryStore,
    checked: ValidatedImport,
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Write what :func:`validate_import` accepted (see :func:`import_memories`)."""
    store.check_can_write()  # before the notes the check left to embed are embedded
    with _collector_paused():
        return _import_validated(store, checked, progress)


def _import_validated(
    store: MemoryStore, checked: ValidatedImport, progress: Callable[[int], None] | None
) -> dict[str, Any]:
    export, items, prepared, vectors = (
        checked.export,
        checked.items,
        checked.prepared,
        checked.vectors,
    )
    held = {m.id: m for m in store.backend.get([i.id for i in items if i.id])}
    _raise_clashes(_taken_id_clashes(export.lines, prepared, held))
    read = _FileRead(
        export, items, vectors, checked.reuse, checked.reembedded, held, checked.left_out
    )
    writing = _Writing(store, read, progress)
    by_group = writing.sort(range(len(items)), prepared)
    # The memories to write are embedded first, outside the write lock (the long part);
    # then every batch is written in one transaction: an import interrupted (Ctrl-C, a
    # killed process, a full disk, a server gone) leaves the store as it was, where it
    # left the batches written before.
    vectors, writing.progress = _embed_missing(store, by_group, prepared, vectors, progress)
    try:
        with writing.transaction():
            _write_groups(
                store, by_group, prepared, vectors, writing.counts, checked.reuse, writing.progress
            )
    except StoreWriteFailed as exc:  # refused before a row was written: none was
        writing.not_written(exc)
    if writing.counts["imported"]:
        # the search file now, not in the first search after a restore: a hook's
        # (docs/agents.md, "The hooks": 5 s), which a 1M store's build outlasted run after run
        prepare_search(store.backend)
    return writing.counts


#: Lines of an export checked at a time by :func:`_import_pipelined`'s checking thread.
PIPELINE_CHUNK = 1000


def _import_pipelined(
    store: MemoryStore,
    lines: Iterable[str],
    progress: Callable[[int], None] | None,
    use_vectors: bool = True,
) -> dict[str, Any]:
    """:func:`import_memories` into a server (PostgreSQL), which ingests what it is sent in
    a process of its own: the write path's checks of the next lines run on a thread while
    the server takes the lines checked before, where one waited for the other (at 100k notes
    ~35 s of checks, then ~20 s of the server's work). Everything is written in the one
    transaction, which a line that fails the checks (or an id of another memory) rolls
    back: nothing is imported, and the error is the one :func:`validate_import` gives."""
    from .errors import UserInputError

    read = _read_file(store, lines, use_vectors)
    export, items, held = read.export, read.items, read.held
    writing = _Writing(store, read, progress)
    prepared: list[PreparedMemory | None] = [None] * len(items)
    vectors = list(read.vectors)
    clashes: list[str] = []
    checking = _Checking(store, read)
    counted = 0
    try:
        with writing.transaction():
            for chunk in checking.chunks():
                # the lines left out so far, counted before a write that may fail (a store
                # that refuses the rest counts those as not written, and these not)
                counted = _count_left_out(writing, checking, counted)
                chosen = chunk.take(vectors)
                indexes = [index for index, _ in chunk.notes]
                for index, prep in zip(indexes, chosen, strict=True):
                    prepared[index] = prep
                clashes += _taken_id_clashes([export.lines[i] for i in indexes], chosen, held)
                if clashes:
                    continue  # refused at the end, with every clash named
                by_group = writing.sort(indexes, prepared)
                filled, _ = _embed_missing(store, by_group, prepared, vectors, None)
                _write_groups(
                    store, by_group, prepared, filled, writing.counts, read.reuse, progress
                )
            if checking.problems:
                raise UserInputError(_refusal(checking.problems))
            _raise_clashes(clashes)
            _count_left_out(writing, checking, counted)
    except StoreWriteFailed as exc:  # refused before a row was written: none was
        writing.not_written(exc)
    finally:
        checking.close()
    return writing.counts


def _count_left_out(writing: _Writing, checking: _Checking, counted: int) -> int:
    """Count the lines ``checking`` left out since ``counted`` of them were as rejected;
    how many are counted now."""
    now = len(checking.left_out)
    writing.counts["rejected"] += now - counted
    return now


@dataclass(frozen=True)
class _CheckedChunk:
    """Memories that passed the checks (index in the file, prepared note), and the vectors
    of those whose content redaction changed, being made from their redacted text."""

    notes: list[tuple[int, PreparedMemory]]
    redacted: list[int]
    embedding: Future[Any] | None

    def take(self, vectors: list[np.ndarray | None]) -> list[PreparedMemory]:
        """The chunk's prepared notes, in order, with ``vectors`` (the file's, by index)
        brought to what is stored: a redacted note's is its redacted text's (waited for),
        or None if embedding it failed (then it is embedded when written, where a broken
        model says so); the file's vector of such a note encodes the secret."""
        try:
            embedded = self.embedding.result() if self.embedding is not None else []
        except Exception:  # embedded again when written, where the error is reported
            embedded = [None] * len(self.redacted)
        for index, vector in zip(self.redacted, embedded, strict=True):
            vectors[index] = vector
        return [prep for _, prep in self.notes]


class _Checking:
    """The write path's checks (:meth:`~kenning.store.MemoryStore.prepare`) of an export's
    memories on a thread of their own, handed over in chunks of :data:`PIPELINE_CHUNK` in
    the file's order, with the notes redaction changed being embedded (on one more thread:
    the file's vector of such a note encodes the secret). A line that fails the checks ends
    the handing over (the rest is still checked, for the error to name every line that
    fails: :attr:`problems`). The checks read nothing of the store: the thread never uses
    its connection, which the writes hold in their transaction."""

    def __init__(self, store: MemoryStore, read: _FileRead) -> None:
        self._store, self._read = store, read
        self.problems: list[str] = []
        #: The lines (index in the file) left out for being nothing but a credential.
        self.left_out: list[int] = []
        self._queue: queue.Queue[_CheckedChunk | BaseException | None] = queue.Queue()
        self._embedding = ThreadPoolExecutor(1, thread_name_prefix="kenning-import-embed")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kenning-import-checks", daemon=True)

    def _run(self) -> None:
        from .errors import CredentialOnlyContent, UserInputError

        try:
            part: list[tuple[int, PreparedMemory]] = []
            lines = zip(self._read.export.lines, self._read.items, strict=True)
            for index, (record, item) in enumerate(lines):
                if self._stop.is_set():
                    return
                held = self._read.held.get(record.id)
                stored_text = held is not None and held.content == record.content
                try:
                    prep = self._store.prepare(
                        item, record.group_id, restoring=True, stored_text=stored_text
                    )
                except CredentialOnlyContent as exc:
                    # as a line holding no visible text (_without_empty_notes): an older
                    # kenning stored such notes, which hold no knowledge to lose, and a
                    # backup holding one would be refused whole
                    log.warning(
                        "kenning: line %d (memory %s): %s; left out, counted as rejected",
                        record.number,
                        record.id,
                        exc,
                    )
                    self.left_out.append(index)
                    continue
                except UserInputError as exc:
                    self.problems.append(f"line {record.number}: {exc}")
                    continue
                if not self.problems:
                    part.append((index, prep))
                    if len(part) >= PIPELINE_CHUNK:
                        self._queue.put(self._hand_over(part))
                        part = []
            if part and not self.problems:
                self._queue.put(self._hand_over(part))
        except BaseException as exc:  # a fault of the checks: raised in the writing thread
            self._queue.put(exc)
        finally:
            self._queue.put(None)

    def _hand_over(self, part: list[tuple[int, PreparedMemory]]) -> _CheckedChunk:
        redacted = [(index, prep) for index, prep in part if prep.content_redacted]
        if not redacted:
            return _CheckedChunk(part, [], None)
        texts = [prep.memory.content for _, prep in redacted]
        future = self._embedding.submit(self._store.embedder.embed, texts)
        return _CheckedChunk(part, [index for index, _ in redacted], future)

    def chunks(self) -> Iterator[_CheckedChunk]:
        """The checked chunks as they come, while no line has failed."""
        self._thread.start()
        while (chunk := self._queue.get()) is not None:
            if isinstance(chunk, BaseException):
                raise chunk
            if not self.problems:
                yield chunk

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self._embedding.shutdown(wait=True, cancel_futures=True)


class _Writing:
    """What an import writes and counts: its ``counts``, the memories it sorts out as
    already held (under their id) and the rest by project, and the one transaction of its
    writes, whose failures it reports as :func:`import_memories` says."""

    def __init__(
        self, store: MemoryStore, read: _FileRead, progress: Callable[[int], None] | None
    ) -> None:
        export, held = read.export, read.held
        self.store, self.export, self.held, self.progress = store, export, held, progress
        self.counts: dict[str, Any] = {
            "read": len(read.items) + read.left_out,
            "imported": 0,
            "duplicates": 0,
            "rejected": read.left_out,
            # written to a store that failed (a full disk): kept out of "rejected", which
            # says the note was refused; the same import run again adds them
            "not_written": 0,
            "not_written_reason": None,
            "reembedded": read.reembedded,
            "other_projects": {},
            # in the store under their id with another text (edited since the export, here
            # or in the store it came from): the store's text is kept; id → project
            "changed": {},
            # secrets the write path redacted from the memories written (kind → count):
            # their stored text is not the file's, as remember and edit say for theirs
            "redactions": {},
        }
        self.groups = {r.group_id for r in export.lines if r.id not in held}
        self.to_write = sum(1 for r in export.lines if r.id not in held)
        # With the export's own vectors nothing is embedded: into PostgreSQL a large
        # import is then one transaction without HNSW maintenance (one index build at the
        # end), in big batches. Re-embedding imports are paced by the model and keep the
        # usual path.
        self.new_rows = self.to_write if read.reuse else 0
        self._held_counted = 0

    def sort(
        self, indexes: Iterable[int], prepared: Sequence[PreparedMemory | None]
    ) -> dict[str, list[int]]:
        """Count the memories of ``indexes`` held under their id (skipped; ``changed`` when
        their text is another) and return the others by project."""
        by_group: dict[str, list[int]] = {}
        for index in indexes:
            record = self.export.lines[index]
            held = self.held.get(record.id)
            if held is not None:
                self.counts["duplicates"] += 1
                self._held_counted += 1
                prep = prepared[index]
                if prep is not None and edit_version(held) != edit_version(prep.memory):
                    self.counts["changed"][record.id] = record.group_id
                if self.progress:
                    self.progress(1)
                continue
            by_group.setdefault(record.group_id, []).append(index)
        return by_group

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        store = self.store
        target = store.embedder.provenance
        before = store.backend.count(Filters())
        in_groups = {g: store.backend.count(Filters(group_id=g)) for g in self.groups}
        began = False
        try:
            with (
                bulk_writes(store.backend, self.new_rows, before, target.dimension, atomic=True),
                store.backend.exclusive() if self.groups else contextlib.nullcontext(),
            ):
                began = True
                yield
        except StoreUnavailable as exc:
            # The server went away midway: what it committed cannot be counted now, and a
            # bare "NOT consulted" read as if nothing had been imported.
            raise StoreUnavailable(
                f"{exc.reason} — the import stopped there, and what it wrote was rolled back (on "
                "Qdrant, which has no transactions, the batches written before stay); run the "
                "same import again once the server is back (what is already there is skipped)"
            ) from None
        except KeyboardInterrupt:
            # Ctrl-C: "interrupted" alone left the user to guess what was written
            raise Interrupted(
                "the import stopped there, and what it wrote was rolled back (on Qdrant, "
                "which has no transactions, the batches written before stay); run the same "
                "import again (what is already there is skipped)"
            ) from None
        except StoreWriteFailed as exc:
            if not began:
                # refused before anything was written (the write lock held past the wait, the
                # file replaced meanwhile): no body to skip here, the caller counts it
                raise
            # The disk stopped the import midway: what landed is counted from the store
            # itself (nothing on a backend with transactions, where the one transaction was
            # rolled back; the batches written before on Qdrant), and the rest is reported
            # as not written, with the reason.
            try:
                landed = store.backend.count(Filters()) - before
                grown = {
                    g: store.backend.count(Filters(group_id=g)) - n for g, n in in_groups.items()
                }
            except KenningError:  # the store cannot even be read now: the first error says it
                raise exc from None
            self.not_written(exc, landed, grown)

    def not_written(
        self, exc: StoreWriteFailed, landed: int = 0, grown: Mapping[str, int] | None = None
    ) -> None:
        """Count a write the store refused: ``landed`` memories written before it (in the
        projects ``grown`` says), the rest not written, with the reason."""
        counts = self.counts
        counts["other_projects"] = {
            g: n for g, n in (grown or {}).items() if n > 0 and g != self.store.group_id
        }
        counts["imported"] = landed
        found_by_writes = counts["duplicates"] - self._held_counted
        counts["not_written"] = max(
            0, self.to_write - landed - found_by_writes - counts["rejected"]
        )
        counts["not_written_reason"] = str(exc)


def _embed_missing(
    store: MemoryStore,
    by_group: Mapping[str, list[int]],
    prepared: Sequence[Any],
    vectors: Sequence[np.ndarray | None],
    progress: Callable[[int], None] | None,
) -> tuple[list[np.ndarray | None], Callable[[int], None] | None]:
    """The vectors of the memories to write, the missing ones embedded now (counted on
    ``progress`` as they are), and the ``progress`` the writes then report to: the
    memories embedded here are not counted twice. Every vector describes the text as it
    will be stored (:func:`validate_import` embedded the redacted ones)."""
    filled = list(vectors)
    missing = [i for indexes in by_group.values() for i in indexes if filled[i] is None]
    for start in range(0, len(missing), EMBED_BATCH):
        part = missing[start : start + EMBED_BATCH]
        embedded = store.embedder.embed([prepared[i].memory.content for i in part])
        for i, vector in zip(part, embedded, strict=True):
            filled[i] = vector
        if progress:
            progress(len(part))
    if progress is None or not missing:
        return filled, progress
    left = [len(missing)]
    report = progress

    def writes(n: int) -> None:
        skip = min(n, left[0])
        left[0] -= skip
        if n > skip:
            report(n - skip)

    return filled, writes


def _taken_id_clashes(
    lines: Sequence[ExportLine], prepared: Sequence[PreparedMemory], held: Mapping[str, Memory]
) -> list[str]:
    """The lines whose id is another memory's in the store (two files converted from another
    tool that both number their notes): skipped as a duplicate, the line's note would be
    lost while the import said it was already there."""
    clashes = []
    for record, prep in zip(lines, prepared, strict=True):
        other = held.get(record.id)
        if other is not None and not same_memory(other, prep.memory):
            clashes.append(
                f"line {record.number}: id {json.dumps(record.id)} is another memory's in "
                f"the store (project {json.dumps(other.group_id)}, stored "
                f"{other.stored_at.isoformat()})"
            )
    return clashes


def _raise_clashes(clashes: Sequence[str]) -> None:
    """Refuse the file when one of its ids is another memory's (:func:`_taken_id_clashes`)."""
    from .errors import UserInputError

    if clashes:
        more = f"; and {len(clashes) - 3} more" if len(clashes) > 3 else ""
        one = len(clashes) == 1
        raise UserInputError(
            f"{len(clashes)} {'memory' if one else 'memories'} of the file "
            f"{'has' if one else 'have'} the id of another memory of the store — "
            f"{'; '.join(clashes[:3])}{more}; give {'the line' if one else 'each of these lines'} "
            "an id of its own; nothing was imported"
        )


def _write_groups(
    store: MemoryStore,
    by_group: Mapping[str, list[int]],
    prepared: Sequence[Any],
    vectors: Sequence[Any],
    counts: dict[str, Any],
    reuse: bool,
    progress: Callable[[int], None] | None,
) -> None:
    """Remember each project's share of an import, counting the outcomes into ``counts``."""
    for group, indexes in by_group.items():
        outcomes = store.remember_prepared(
            [prepared[i] for i in indexes],
            near_duplicates=False,
            vectors=[vectors[i] for i in indexes],
            progress=progress,
            batch_size=IMPORT_BATCH if reuse else 64,
            vectors_of_stored_text=True,
            refresh=False,  # restoring a backup is not remembering again
        )
        for outcome in outcomes:
            key = {
                STORED: "imported",
                NEAR_DUPLICATE: "duplicates",
                DEDUP_CHECK_FAILED: "not_written",
            }.get(outcome.status, "rejected")
            counts[key] += 1
            if key == "not_written" and counts["not_written_reason"] is None:
                counts["not_written_reason"] = outcome.reason
            if outcome.status == STORED:
                redacted = counts["redactions"]
                for kind, n in outcome.redactions.items():
                    redacted[kind] = redacted.get(kind, 0) + n
            if outcome.status == STORED and group != store.group_id:
                others = counts["other_projects"]
                others[group] = others.get(group, 0) + 1


__all__ = [
    "EXPORT_FORMAT",
    "IMPORT_BATCH",
    "ExportReport",
    "ValidatedImport",
    "export_memories",
    "import_memories",
    "import_validated",
    "validate_import",
]
