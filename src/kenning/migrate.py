"""``kenning migrate``: copy memories from one store to another (e.g. the embedded file to
a team PostgreSQL), keeping ids, timestamps, projects and vectors, and each project's record
of its seeded solution-doc folders (where the target has none of its own).

Resumable: memories already present in the target (same id) are skipped, so an interrupted
run is simply run again (one the target holds with another text, edited in one of the stores
since it was copied, is not overwritten either: it is named, and the migration is not
verified); so is a memory whose project already holds the same content under
another id (a teammate's copy of the same note: the target keeps its own, counted as
``duplicates``), and a second copy the source holds of a note (a Qdrant server two writers
filled at once). Verified: at the end every memory of the source must be in the target, by
its id with the same content hash, or as that project's same content (the target may hold
more: other people's memories).

Into PostgreSQL, a large copy (:func:`~kenning.backends.base.bulk_writes`) COPYs its
batches without maintaining the HNSW index and builds the index once at the end; each batch
still commits on its own.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .backends.base import (
    Backend,
    BulkLoader,
    ContentHashLister,
    Filters,
    IdentifiedStore,
    KnowsItIsReadOnly,
    KnowsItsSchema,
    MemoryRecord,
    bulk_writes,
    reads_directions,
)
from .config import expand_home, is_store_url
from .errors import (
    Interrupted,
    KenningError,
    ProvenanceMismatch,
    StoreUnavailable,
    UserInputError,
)
from .model import Provenance, edit_version, known_kind, same_memory
from .safety import without_nul
from .store_read import redacted_copy
from .vectors import direction_of, vector_problem

if TYPE_CHECKING:
    from pathlib import Path

    from .store import MemoryStore

log = logging.getLogger("kenning")

BATCH = 500
#: Redacted memories are embedded again this many at a time (:func:`migrate`), on a thread
#: beside the copy.
EMBED_BATCH = 32


def _portable(record: MemoryRecord) -> MemoryRecord:
    """``record`` as every backend can hold it: a NUL character in its source, tags or
    metadata (which a store written before kenning took them out may hold) is dropped, as
    the write path drops it, instead of failing the whole batch on PostgreSQL."""
    m = record.memory
    clean = replace(
        m,
        source=without_nul(m.source),
        tags=without_nul(m.tags),
        metadata=without_nul(m.metadata),
    )
    return record if clean == m else MemoryRecord(clean, record.vector)


@dataclass(frozen=True)
class MigrationReport:
    copied: int
    already_present: int
    #: Source memories whose project in the target holds the same content under another id.
    duplicates: int
    source_count: int
    target_count: int
    checksum: str
    verified: bool
    #: Source memories not copied because the target holds another memory under their id
    #: (id → that memory's project and stored_at).
    id_taken: dict[str, str] = field(default_factory=dict)
    #: Source memories the target holds under their id with another text or type (edited
    #: in one of the stores since a migration copied it): not copied, the target's kept
    #: (id → its project).
    changed: dict[str, str] = field(default_factory=dict)
    #: Source memories whose row could not be read (id → what is wrong), so not copied;
    #: left out of the counts and the verification, which cover what could be read.
    damaged: dict[str, str] = field(default_factory=dict)
    #: How to repair them, when the source names it (a server store), else None.
    damaged_fix: str | None = None
    #: Source memories holding a credential another writer left in them, copied redacted
    #: by this run (those an earlier run copied are counted as already present).
    redacted: int = 0
    #: From a server store (whose search reads a vector's direction): memories whose vector
    #: another writer left at another length than 1, copied as its direction, of length 1
    #: (id → ``length 5``); and those whose vector is all zeros, their text embedded again.
    #: Those this run wrote, as ``damaged_vectors``: a memory an earlier (interrupted) run
    #: copied is already present, and is not said again.
    directions: dict[str, str] = field(default_factory=dict)
    zero_vectors: list[str] = field(default_factory=list)
    #: Whether the source's search read ``directions`` by their direction (a server's), or
    #: skipped them as damaged (SQLite's, which copies their direction all the same).
    source_reads_directions: bool = True
    #: From a server store, migrated without ``embed`` into a store that takes unit vectors
    #: only (SQLite): memories whose vector is all zeros, not copied (nothing to embed their
    #: text with, and the target refuses the vector), so the migration is not verified;
    #: migrate again with ``embed`` (the store's embedder, as ``kenning migrate`` passes
    #: it), or run ``kenning reembed`` on the source first.
    zero_not_copied: list[str] = field(default_factory=list)
    #: From any store: memories whose vector has no direction to copy — NaN or infinity,
    #: or another dimension than the store's (another writer's, or damage on disk) — their
    #: text embedded again with ``embed`` (id → what was wrong with it, as
    #: :func:`kenning.vectors.vector_problem` says it); a zero vector's are ``zero_vectors``.
    damaged_vectors: dict[str, str] = field(default_factory=dict)
    #: The same without ``embed``: not copied (no store takes such a vector), so the
    #: migration is not verified; migrate again with ``embed``, or run ``kenning reembed``
    #: on the source first.
    damaged_vectors_not_copied: dict[str, str] = field(default_factory=dict)
    #: The memories of ``directions``, ``zero_vectors`` and ``damaged_vectors`` this run
    #: found in the target already (an earlier run's copy, or the same text under another
    #: id): not written by this run, nor skipped.
    vectors_present: list[str] = field(default_factory=list)
    #: Source memories another writer gave a type and collection kenning does not write
    #: (id → ``type 'bogus' in collection 'nowhere'``): held, not served
    #: (:func:`kenning.model.known_kind`), so not copied (kenning writes no such row), and
    #: left out of the verification; ``kenning edit ID --type TYPE`` on the source, then
    #: migrate again, copies them.
    unknown_kind: dict[str, str] = field(default_factory=dict)
    #: When memories were left out (``damaged``, ``unknown_kind``) and the source's schema
    #: is newer than this kenning writes (it may read it only): why its writes are refused
    #: there, so the edit or reembed that copies them is run with the newer kenning
    #: (qa74 F6); else None.
    source_writes_refused: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def _copied(n: int) -> str:
    return f"{n} {'memory was' if n == 1 else 'memories were'} copied"


def _pairs(backend: Backend, filters: Filters) -> list[tuple[str, str]]:
    if isinstance(backend, ContentHashLister):  # without reading every row and vector
        return sorted(backend.content_hashes(filters))
    return sorted((r.memory.id, r.memory.content_hash) for r in backend.iterate(filters))


def _checksum(pairs: list[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for memory_id, content_hash in pairs:
        digest.update(f"{memory_id}\t{content_hash}\n".encode())
    return digest.hexdigest()


def checked_source(source: Backend) -> Provenance:
    """The provenance of a store that can be migrated; refused when it is empty or half
    re-embedded (checked before a target is opened: a refusal creates nothing)."""
    from .reembed import REEMBED_STATE_KEY

    provenance = source.read_provenance()
    if provenance is None:
        raise KenningError(f"the source store {source.location} is empty (never written)")
    if source.get_meta(REEMBED_STATE_KEY) is not None:
        # its stamp names the old model until the re-embedding ends: its vectors come from
        # two models, and the target would be stamped with one of them
        raise KenningError(
            f"the source store {source.location} is half re-embedded: its vectors come from "
            "two models; run `kenning reembed` to finish it, then migrate"
        )
    return provenance


def migrate(
    source: Backend,
    target: Backend,
    *,
    group_id: str | None,
    progress: Callable[[int], None] | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> MigrationReport:
    """Copy the memories of ``group_id`` (None: every project) from ``source`` to ``target``.

    A credential another writer (an older kenning, another tool) left in a memory is copied
    redacted, as an import writes it: the target is often a server a whole team reads. A
    text so changed is embedded again with ``embed`` (texts in, one vector a row out; its
    vector is the secret's), :data:`EMBED_BATCH` of them at a time on a thread while the
    copy goes on, and written with a later batch; without ``embed``, such a memory is copied
    with its vector.

    From a server store, whose search reads a vector's direction, a vector another writer
    left at another length than 1 is copied as its direction, of length 1 (what the target,
    SQLite above all, takes, and scores as the source did), and the text of a note whose
    vector is all zeros is embedded again with ``embed``, as export and import do. Without
    ``embed``, such a note is copied with its zero vector into a store that scores
    directions too (a server: it scores it 0 there, as here), and is not copied into one
    that takes unit vectors only (SQLite, which refused the whole batch for it): named in
    the report's ``zero_not_copied``, and the migration is not verified. A zero vector of
    an embedded store (whose search skips it as damaged) is handled alike.

    From any store, a vector with no direction to copy — NaN or infinity, another
    dimension (another writer's, or damage on disk), which every target refused, failing
    the whole batch — is replaced by its text embedded again with ``embed``
    (``damaged_vectors``); without ``embed`` the memory is not copied
    (``damaged_vectors_not_copied``), and the migration is not verified."""
    from .reembed import REEMBED_STATE_KEY

    provenance = checked_source(source)
    directions = reads_directions(source)
    #: the vectors this run wrote as their direction or embedded again (a batch moves each
    #: from ``read_as``, as it writes it): a resumed run, which writes none of those an
    #: earlier run copied, said each again as "copied …"
    scaled: dict[str, str] = {}
    zero: list[str] = []
    read_as: dict[str, tuple[str, str]] = {}  # id → (what, why) as read, not yet written
    present_vectors: list[str] = []
    #: a zero vector's note without ``embed``: copied as it is where the target scores
    #: directions, else not copied (left_out)
    zero_kept = reads_directions(target)
    left_out: list[str] = []
    #: vectors with no direction (not finite, another dimension): embedded again, or left out
    broken: dict[str, str] = {}
    broken_left_out: dict[str, str] = {}
    unknown: dict[str, str] = {}
    existing = target.read_provenance()
    if existing is not None and existing != provenance:
        raise ProvenanceMismatch(
            f"the target {target.location} holds vectors of {existing.describe()}, the source "
            f"{provenance.describe()}; migrate into an empty store, or `kenning reembed` one side"
        )
    if existing is None:
        target.write_provenance(provenance)
    filters = Filters(group_id=group_id)
    copied = present = redacted = 0
    #: source ids whose content the target's project already held under another id
    merged: set[str] = set()
    taken: dict[str, str] = {}
    #: the projects the source holds memories of (their seeding records go along)
    projects: set[str] = set()
    changed: dict[str, str] = {}
    batch: list[MemoryRecord] = []
    #: redacted memories whose text changed, waiting to be embedded again together, and
    #: those being embedded: one at a time in the copy's own thread (~10-30 ms each), 0.6%
    #: of the notes cost migrate a quarter of its time
    to_embed: list[MemoryRecord] = []
    embedding: list[Future[list[MemoryRecord]]] = []
    embedder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kenning-migrate-embed")
    #: the content hash each redacted memory is copied with (the verification's pair)
    rehashed: dict[str, str] = {}
    #: the source's memories copied redacted (counted as the report's ``redacted`` when a
    #: batch writes them: a resumed run reads those an earlier one copied too)
    redacted_ids: set[str] = set()
    #: redacted memories the target held by their id when they were to be embedded again:
    #: not embedded (a batch finds them present and writes nothing of them), their vector
    #: still the secret's until then
    unembedded: set[str] = set()
    # Into PostgreSQL, a large copy runs without HNSW maintenance and builds the index once
    # at the end; every batch still commits on its own, so an interrupted run resumes.
    bulk = bulk_writes(
        target,
        source.count(filters),
        target.count(Filters()),
        provenance.dimension,
        atomic=False,
    )

    def flush() -> None:
        nonlocal copied, present, redacted
        if not batch:
            return
        if source.get_meta(REEMBED_STATE_KEY) is not None or source.read_provenance() != provenance:
            # rows read since then may hold the new model's vectors: none goes under the
            # target's stamp of the old one
            raise KenningError(
                f"a `kenning reembed` of the source store {source.location} began while it "
                f"was migrated: {_copied(copied)}, nothing more; migrate again "
                "once it is done"
            )
        # the check and the write under the store's lock: a note a teammate (or another
        # migration) writes between them would otherwise fail the batch as a duplicate
        with target.exclusive():
            have = {m.id: m for m in target.get([r.memory.id for r in batch])}
            missing = [r for r in batch if r.memory.id not in have]
            for record in batch:
                other = have.get(record.memory.id)
                if other is not None and not same_memory(other, record.memory):
                    # another memory under this id (two tools' short ids): it cannot be
                    # copied, and it is no "already present"
                    taken[record.memory.id] = (
                        f"project {other.group_id}, stored {other.stored_at.isoformat()}"
                    )
                elif other is not None and edit_version(other) != edit_version(record.memory):
                    # the same memory, edited on one side since it was copied (its text, or
                    # its type alone: another collection, another half-life): which is right
                    # is not the migration's to decide, and it overwrites nothing
                    changed[record.memory.id] = other.group_id
            by_group: dict[str, list[MemoryRecord]] = {}
            for record in missing:
                by_group.setdefault(record.memory.group_id, []).append(record)
            fresh: list[MemoryRecord] = []
            for group, records in by_group.items():
                # a project may hold one content once (every backend keeps it unique): a
                # note a teammate already put there under another id is theirs to keep
                known = set(target.find_by_hashes(group, [r.memory.content_hash for r in records]))
                for record in records:
                    if record.memory.content_hash in known:
                        merged.add(record.memory.id)
                    else:
                        fresh.append(record)
                        # a second copy in the source (two writers of a Qdrant server stored
                        # one note at once) is this one's duplicate, not a second note
                        known.add(record.memory.content_hash)
            late = [i for i, r in enumerate(fresh) if r.memory.id in unembedded]
            if late and embed is not None:
                # present when checked before embedding, gone since (a teammate's forget):
                # its vector is the secret's, made again now (rare: under the lock)
                vectors = embed([fresh[i].memory.content for i in late])
                for n, i in enumerate(late):
                    fresh[i] = MemoryRecord(fresh[i].memory, vectors[n])
            target.upsert(fresh)  # one transaction per batch: a failure writes nothing
        copied += len(fresh)
        redacted += sum(r.memory.id in redacted_ids for r in fresh)
        written = {r.memory.id for r in fresh}
        for record in batch:
            what, why = read_as.pop(record.memory.id, ("", ""))
            if what and record.memory.id not in written:
                held = record.memory.id in have and record.memory.id not in taken
                if (held and record.memory.id not in changed) or record.memory.id in merged:
                    # an earlier run's copy (or the same text under another id): not
                    # copied now, nor skipped
                    present_vectors.append(record.memory.id)
                continue
            if what == "scaled":
                scaled[record.memory.id] = why
            elif what == "zero":
                zero.append(record.memory.id)
            elif what == "broken":
                broken[record.memory.id] = why
        present += (
            len(batch)
            - len(missing)
            - sum(r.memory.id in taken or r.memory.id in changed for r in batch)
        )
        if progress:
            progress(len(batch))
        batch.clear()

    def embed_pending() -> None:
        """Hand the waiting redacted texts to the embedding thread, in one call; those the
        target holds already (a resumed or second run) go to the write as they are, whose
        check finds them present: embedding each cost ~30 ms on every run."""
        if not to_embed or embed is None:
            return
        held = {m.id for m in target.get([r.memory.id for r in to_embed])}
        records, make = [r for r in to_embed if r.memory.id not in held], embed
        for record in to_embed:
            if record.memory.id in held:
                unembedded.add(record.memory.id)
                batch.append(record)
        to_embed.clear()
        if not records:
            return

        def embedded() -> list[MemoryRecord]:
            vectors = make([r.memory.content for r in records])
            return [MemoryRecord(r.memory, vectors[i]) for i, r in enumerate(records)]

        embedding.append(embedder.submit(embedded))

    def take_embedded(wait: bool = False) -> None:
        """Queue for the write what the embedding thread has done (``wait``: all of it)."""
        while embedding and (wait or embedding[0].done()):
            batch.extend(embedding.pop(0).result())

    try:
        with bulk:
            for record in source.iterate(filters, batch_size=BATCH):
                m = record.memory
                if not known_kind(m.type, m.collection):
                    unknown[m.id] = f"type {m.type!r} in collection {m.collection!r}"
                    continue
                portable = _portable(record)
                # (~0.1 ms a memory; tried on a thread beside the writes, it was no faster
                # into PostgreSQL: 13.3 against 13.8 s for 30k rows)
                copy = _redacted(portable)
                if copy is not portable:
                    redacted_ids.add(record.memory.id)
                    if copy.memory.content_hash != record.memory.content_hash:
                        rehashed[record.memory.id] = copy.memory.content_hash
                projects.add(record.memory.group_id)
                pointless = False  # a vector with no direction: its text embedded again
                problem = vector_problem(copy.vector, provenance.dimension)
                if problem is not None:
                    direction, length = direction_of(copy.vector, provenance.dimension)
                    if direction is not None:
                        # from SQLite too, whose search skips it as damaged: its raw copy
                        # was refused by a SQLite target and kept at its length by a
                        # server (qa74 F2)
                        copy = MemoryRecord(copy.memory, direction)
                        read_as[record.memory.id] = ("scaled", f"length {length:.6g}")
                    elif length == 0.0 and embed is not None:
                        read_as[record.memory.id] = ("zero", "")
                        pointless = True
                    elif length == 0.0 and not zero_kept:
                        left_out.append(record.memory.id)
                        continue
                    elif length != 0.0 and embed is not None:
                        # NaN, infinity, another dimension: every target refused it, and
                        # the whole batch with it; the text is fine
                        read_as[record.memory.id] = ("broken", problem)
                        pointless = True
                    elif length != 0.0:
                        broken_left_out[record.memory.id] = problem
                        continue
                    # (else a zero vector into a server, which scores it 0: copied as it is)
                if embed is not None and (
                    pointless or copy.memory.content != record.memory.content
                ):
                    # its vector is the secret's: embedded again with the next ones
                    to_embed.append(copy)
                    if len(to_embed) >= EMBED_BATCH:
                        embed_pending()
                else:
                    batch.append(copy)
                take_embedded()
                if len(batch) >= BATCH:
                    flush()
            embed_pending()
            take_embedded(wait=True)
            flush()
    except StoreUnavailable as exc:
        # a server (the target's or the source's) went away midway: a bare "NOT consulted"
        # read as if nothing had been copied
        raise StoreUnavailable(
            f"{exc.reason} — the migration stopped there: {_copied(copied)} (each batch "
            "is written whole or not at all); run the same `kenning migrate` again once the "
            "server is back, and it resumes (what is already there is skipped)"
        ) from None
    except KeyboardInterrupt:
        # Ctrl-C: "interrupted" alone left the user to guess what a half-done copy means
        raise Interrupted(
            f"the migration stopped there: {_copied(copied)} (each batch is written whole "
            "or not at all); run the same `kenning migrate` again, and it resumes (what is "
            "already there is skipped)"
        ) from None
    finally:
        embedder.shutdown(wait=False, cancel_futures=True)  # nothing left on a failure
    _copy_seed_records(source, target, projects)
    if copied:
        _carry_fingerprint_rules(source, target)
    # rows the walk skipped (their warning line said so): named, and out of the check, as
    # export names them; a server counts them in its hashes, SQLite and Qdrant did not
    unreadable = [
        d
        for d in source.damaged_rows()
        if not d.vector_only and (group_id is None or d.group_id in (group_id, None))
    ]
    skipped = {d.id for d in unreadable}
    source_pairs = [
        (memory_id, rehashed.get(memory_id, content))
        for memory_id, content in _pairs(source, filters)
        if memory_id not in skipped and memory_id not in unknown
    ]
    target_pairs = _pairs(target, filters)
    in_target = set(target_pairs)
    return MigrationReport(
        copied=copied,
        already_present=present,
        duplicates=len(merged),
        source_count=len(source_pairs),
        target_count=len(target_pairs),
        checksum=_checksum(source_pairs),
        # (a type edited on one side leaves the pairs of id and text alike: not verified)
        verified=not changed
        and all(pair in in_target or pair[0] in merged for pair in source_pairs),
        id_taken=taken,
        changed=changed,
        damaged={d.id: d.describe() for d in unreadable},
        damaged_fix="; ".join(dict.fromkeys(d.fix for d in unreadable if d.fix)) or None,
        redacted=redacted,
        directions=scaled,
        zero_vectors=zero,
        source_reads_directions=directions,
        zero_not_copied=left_out,
        damaged_vectors=broken,
        damaged_vectors_not_copied=broken_left_out,
        vectors_present=present_vectors,
        unknown_kind=unknown,
        source_writes_refused=(
            source.newer_schema_refuses_writes()
            if (unknown or unreadable) and isinstance(source, KnowsItsSchema)
            else None
        ),
    )


def _redacted(record: MemoryRecord) -> MemoryRecord:
    """``record`` with what another writer left unredacted in it redacted, as every reader
    shows it; its text so changed has a new content hash (its vector, still the old text's,
    is the caller's to make again)."""
    memory = redacted_copy(record.memory)
    if memory is record.memory:
        return record
    return MemoryRecord(memory, record.vector)


def _copy_seed_records(source: Backend, target: Backend, projects: set[str]) -> None:
    """Each project's record of its seeded solution-doc folders (:mod:`kenning.seeding`),
    where the target has none of its own: without it, the entries an older kenning seeded
    (which carry no mark) are not taken for the documents' own there, and the next re-seed
    adds a rewritten fix beside the outdated entry instead of replacing it."""
    from .seeding import SEED_STATE_KEY

    for group_id in sorted(projects):
        key = f"{SEED_STATE_KEY}:{group_id}"
        record = source.get_meta(key)
        if record is None:
            continue
        with target.exclusive():
            if target.get_meta(key) is None:
                target.set_meta(key, record)


def _carry_fingerprint_rules(source: Backend, target: Backend) -> None:
    """The rows copied keep the error fingerprints of the rules their store records (none:
    an older kenning's): the target records the older version of the two, so that the next
    write of a kenning of newer rules brings the copied entries up to them
    (:meth:`~kenning.store.MemoryStore.renew_fingerprints`), where the target's own record
    would have said they already were."""
    from .fingerprint_renewal import FINGERPRINT_RULES_KEY, rules_version

    copied = rules_version(source.get_meta(FINGERPRINT_RULES_KEY))
    with target.exclusive():
        if copied < rules_version(target.get_meta(FINGERPRINT_RULES_KEY)):
            target.set_meta(FINGERPRINT_RULES_KEY, str(copied))


def _same_store(source: Backend, target: Backend) -> bool:
    """Whether both backends reach one store (:class:`IdentifiedStore`); False when either
    cannot tell."""
    if not (isinstance(source, IdentifiedStore) and isinstance(target, IdentifiedStore)):
        return False
    if type(source) is not type(target):
        return False
    mine = source.identity()
    return mine is not None and mine == target.identity()


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (False when either is missing)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def migrate_store(
    store: MemoryStore,
    target: str,
    *,
    group_id: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> MigrationReport:
    """Copy ``store``'s memories of ``group_id`` (None: this project; ``"all"``: every
    project) into the store at ``target`` (a path, ``postgresql://…`` or ``http(s)://…``).

    A target file must lie inside this project, like every store kenning writes (the
    store-location guard): migrating into another project's store is refused.
    """
    from .backends.registry import local_qdrant_folder, open_backend
    from .project import (
        STORE_FILENAME,
        Project,
        check_store_location,
        keep_store_out_of_git,
        names_a_file,
        store_is_there,
    )

    if not target.strip():
        # an unset variable (--to "$TEAM_STORE"): taken as a path it was the current folder,
        # and every memory went into a new memory.db there
        raise UserInputError(
            "the migration target --to is empty (an unset variable?); name the store to copy "
            "into: postgresql://…, http(s)://… (Qdrant), qdrant-local:<folder>, or a .db file "
            "or folder inside the project"
        )
    location: str | Path = target
    shown = target
    if not is_store_url(target):
        path = expand_home(target, "the migration target")
        # what --store names: a .db path or an existing file is the store, else its folder
        location = path if names_a_file(path) else path / STORE_FILENAME
        check_store_location(
            Project(store.project.root, store.group_id, location.absolute(), store.project.remote)
        )
        # one file however it is named: a symlink (resolved) or a hard link (its inode)
        itself = store.project.store_url is None and (
            location.resolve() == Path(store.location).resolve()
            or _same_file(location, Path(store.location))
        )
    else:
        from .redaction import redact_url

        shown = redact_url(target)  # as the store's own location reads: no password
        if local_qdrant_folder(target) is not None:  # a folder written as a file is: guarded
            check_store_location(
                Project(
                    store.project.root,
                    store.group_id,
                    store.project.store_path,
                    store.project.remote,
                    store_url=target,
                )
            )
        itself = target == store.project.store_url
        source_folder = local_qdrant_folder(store.project.store_url or "")
        # a local Qdrant folder serves one client: opened again here it would be refused
        # as "open in another process"
        itself = itself or (
            source_folder is not None and local_qdrant_folder(target) == source_folder
        )
    if itself:  # copying every note onto itself would "verify" and move nothing
        raise UserInputError(
            f"the migration target {shown} is the store being migrated ({store.location}); "
            "name another store with --to"
        )
    checked_source(store.backend)  # a source it would refuse: no empty target left behind
    # the target as a store of this project: said once if it is made where git does not
    # ignore it (as open_store says of a store it makes)
    made = (
        replace(store.project, store_path=Path(location).absolute(), store_url=None)
        if isinstance(location, Path)
        else replace(store.project, store_url=target)
    )
    new = not store_is_there(made)
    try:
        destination = open_backend(
            location,
            create=True,
            dimension=None,
            project_root=store.project.root,
            # a vector index a killed migration left missing is what this one builds at its
            # end (bulk_writes): "run `kenning reembed`" is not its user's to do
            warn_missing_index=False,
        )
    except StoreUnavailable as exc:
        # the target is no knowledge base consulted (recall's "NOT consulted" read oddly):
        # which store, and that nothing was copied (hookline F2)
        said = exc.reason
        connect = "cannot connect to "
        said = (
            f"{connect}the migration target, {said.removeprefix(connect)}"
            if said.startswith(connect)
            else f"the migration target: {said}"
        )
        raise StoreUnavailable(f"{said}; nothing was copied") from None
    # its .kenning/.gitignore as it is made, as open_store gives remember's and import's
    # (qa78 F3: `git status` listed it, and the warning said to edit .gitignore)
    keep_store_out_of_git(made, new=new)
    try:
        if _same_store(store.backend, destination):
            # the same store under another spelling (localhost for 127.0.0.1, an added
            # ?sslmode=, a replica's URL): copying would "verify" and move nothing
            raise UserInputError(
                f"the migration target {destination.location} is the store being migrated "
                f"({store.location}), reached by another address; name another store with --to"
            )
        if isinstance(destination, KnowsItIsReadOnly):
            # a target this role cannot write (a standby, read-only sessions, a table without
            # the rights, a read-only file): refused with the cause its open found, before a
            # memory of the source is read or embedded; its first write failed with a vaguer
            # cause, after the copy had read the source and embedded what it redacts
            destination.check_writable()
        report = migrate(
            store.backend,
            destination,
            group_id=store.resolve_group(group_id),
            progress=progress,
            embed=store.embedder.embed,
        )
        if isinstance(destination, BulkLoader) and (note := destination.missing_index()):
            # not warned of as it opened, and still missing: this role may not build it
            log.warning("kenning: %s", note)
        return report
    finally:
        destination.close()
