"""``kenning doctor`` of a store named by URL: PostgreSQL + pgvector, and Qdrant (a local-mode
folder, or a server).

The store is opened as every read opens it (``create=False``): nothing is created, no
schema is upgraded, no index is built, and nothing is written; the checks only read. The
report has the embedded store's checks, each meaning what it means there:

* ``store`` — kenning reaches the store and can read it. No store yet (no database
  tables, no Qdrant collections) is healthy, as for an embedded store; a server that is
  down or refuses the credentials fails it (and ``kenning doctor`` exits 3: the knowledge
  base was not consulted), with the backend's own message, its password removed. A
  PostgreSQL store this role cannot write here (a standby, read-only sessions, a table a
  write needs without the rights) is a warning, as a read-only SQLite file is, with the
  reason and fix every write and ``kenning ui`` give
  (:func:`kenning.store_base.read_only_reason_of`).
* ``schema`` — PostgreSQL: the store's schema version is one this kenning reads (newer:
  failed, "upgrade kenning"; older: a warning, as the first write upgrades it, which needs
  the table's owner), and every table and column of that version is there. Qdrant keeps no
  schema version (its collection's vector size and distance are checked as it opens).
* ``integrity`` — skipped: the server keeps its own pages (PostgreSQL's ``pg_amcheck``
  checks them), and Qdrant its own files.
* ``provenance`` — as for an embedded store (:func:`kenning.doctor.provenance_check`): the
  stamp, the current embedder's, and no half-done ``kenning reembed`` (PostgreSQL marks a
  running one with a session advisory lock, which doctor asks for and lets go at once).
* ``index`` — the vectors have the stamped dimension (PostgreSQL's column type, Qdrant's
  collection), and PostgreSQL's HNSW index is there and valid: one a cancelled or failed
  ``CREATE INDEX CONCURRENTLY`` left INVALID counts as missing (searches do not use it; a
  warning: searches are exact, and slower, until ``kenning reembed`` builds it).
* ``rows`` — every row's fields decode, its vector is finite and of the stored dimension
  (one of another length than 1, or all zeros, another writer's, is a warning: the server's
  search reads a vector's direction, :meth:`_Seen.vector`), and no time lies more than a
  day ahead of this clock, and no note whose text another writer set (its content is
  not the text kenning hashed) holds a credential in clear (a warning naming its fields:
  every read shows it redacted). This project's rows are judged; another project's on the same
  server are counted in a warning, by project (:func:`_with_others`). PostgreSQL reads
  every row for it on the server and sends only the rows doctor may name (its counts by
  project, the rows a read may skip, those stamped ahead or holding a redaction marker,
  the vectors of another dimension or length), which are decoded as every read decodes them;
  Qdrant's points are read the way every read reads them (the backend's ``iterate``, a
  batch at a time: a million rows are never in memory at once).
* ``project`` — this project has memories in the store, when it holds others'
  (:func:`kenning.doctor.project_check`); beside them, the notes under ids that end in its
  repository's name and under the id its folder's name gave the checkout before its
  ``origin`` remote was added, as the embedded store's check names them.
"""

from __future__ import annotations

import logging
import math
import shlex
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from .doctor import (
    FAILED,
    OK,
    ROWS_BATCH,
    SKIPPED,
    WARNING,
    Check,
    DoctorReport,
    credentials_only,
    expected_provenance,
    held_credentials,
    hidden_in_id,
    newer_schema_check,
    project_check,
    provenance_check,
    rows_check,
    unknown_kind,
)
from .errors import KenningError, SchemaTooNew, StoreCorrupted, StoreNotFound, StoreUnavailable

if TYPE_CHECKING:
    from .backends.postgres import PostgresBackend, StoreHealth
    from .backends.qdrant import QdrantBackend
    from .model import Memory
    from .project import Project

__all__ = ["check_server_store"]

#: The checks of a store, after ``location``, in the embedded store's order.
NAMES = ("store", "schema", "integrity", "provenance", "index", "rows", "project")
#: The loggers whose reads say each row they skip: doctor names them in its report instead.
_READ_LOGGERS = ("kenning.backends.postgres", "kenning.backends.qdrant")


def check_server_store(
    url: str, location: Check, project: Project | None, now: datetime
) -> DoctorReport:
    """The report of the store at ``url`` (``location``: its ``location`` check;
    ``project``: the project it is checked for, None when none is here)."""
    from .backends.registry import open_backend
    from .redaction import redact_url

    checks = [location]
    shown = redact_url(url)

    def rest(why: str, where: str | None = None, *, unreached: bool = False) -> DoctorReport:
        checks.extend(Check(name, SKIPPED, why) for name in NAMES[len(checks) - 1 :])
        return DoctorReport(where or shown, tuple(checks), unreached)

    try:
        backend: Any = open_backend(
            url,
            create=False,
            dimension=None,
            project_root=project.root if project is not None else None,
            warn_missing_index=False,  # said by the index check, with its fix
            try_creation=True,
        )
    except StoreNotFound as exc:
        checks.append(_no_store_yet(exc))
        return rest("no store yet")
    except StoreUnavailable as exc:
        checks.append(Check("store", FAILED, *_said_and_fix(str(exc))))
        return rest("the store could not be reached", unreached=True)
    except StoreCorrupted as exc:  # reached, and its tables are not what kenning reads
        checks.append(Check("store", OK, f"kenning reaches {shown}"))
        checks.append(_schema_refused(exc))
        return rest("the schema is not one this kenning reads")
    except (KenningError, OSError) as exc:  # no pgvector, a URL libpq refuses, a file
        checks.append(Check("store", FAILED, *_said_and_fix(str(exc))))
        return rest("the store could not be opened")
    try:
        from .backends.postgres import PostgresBackend

        found = (
            _postgres(backend, project, now)
            if isinstance(backend, PostgresBackend)
            else _qdrant(backend, project, now)
        )
        with _skipped_rows_unsaid():
            for check in found:
                checks.append(check)
                if check.status == FAILED and check.name in ("store", "schema"):
                    return rest(f"the {check.name} check failed", backend.location)
    except StoreUnavailable as exc:  # the server went away midway
        checks.append(Check(NAMES[len(checks) - 1], FAILED, *_said_and_fix(str(exc))))
        return rest("the store could not be reached", backend.location, unreached=True)
    except SchemaTooNew as exc:  # a newer kenning migrated it meanwhile
        checks.append(_schema_refused(exc))
        return rest("the schema is not one this kenning reads", backend.location)
    except KenningError as exc:  # a right this role lacks, a lock held too long
        checks.append(Check(NAMES[len(checks) - 1], FAILED, *_said_and_fix(str(exc))))
        return rest("an earlier check could not read the store", backend.location)
    finally:
        backend.close()
    return DoctorReport(backend.location, tuple(checks))


def _no_store_yet(exc: StoreNotFound) -> Check:
    """No store there yet: ok when the first write can create it; a warning with that
    write's error and fix when this role cannot (pgvector not enabled and the role may not
    enable it, no CREATE on the schema), as for a store it can read but not write."""
    if exc.cannot_create is None:
        return Check("store", OK, str(exc))
    said, fix = _said_and_fix(exc.cannot_create)
    where = str(exc).split(";", 1)[0]
    return Check("store", WARNING, f"{where}, and this role cannot create it: {said}", fix)


def _said_and_fix(message: str) -> tuple[str, str]:
    """A backend's one-line error as a check's message and fix: what is wrong, then (after
    the first ``; `` outside parentheses, which quote the server's own words) how to fix
    it."""
    depth = 0
    for i, char in enumerate(message):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and message.startswith("; ", i):
            return message[:i], message[i + 2 :]
    return message, "correct what the message names, then run `kenning doctor` again"


def _schema_refused(exc: StoreCorrupted) -> Check:
    if isinstance(exc, SchemaTooNew):
        return Check(
            "schema",
            FAILED,
            f"schema version {exc.version} is newer than this kenning understands "
            f"({exc.understood}): a newer kenning (a teammate's) upgraded the store"
            # (as doctor.newer_schema_check and the CLI say it)
            + (f"; a kenning of schema {exc.reader} or later reads it" if exc.reader else ""),
            "upgrade kenning (`pip install -U kenning`, or your team's way); nothing is "
            "wrong with the store",
        )
    return Check("schema", FAILED, *_said_and_fix(str(exc)))


@contextmanager
def _skipped_rows_unsaid() -> Iterator[None]:
    """The backends' warning of each row a read skips left unsaid: the ``rows`` check names
    every one of them, with its fix."""

    def unsaid(record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("kenning: skipped")

    loggers = [logging.getLogger(name) for name in _READ_LOGGERS]
    for logger in loggers:
        logger.addFilter(unsaid)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(unsaid)


# -- PostgreSQL -----------------------------------------------------------------------------


def _postgres(backend: PostgresBackend, project: Project | None, now: datetime) -> Iterator[Check]:
    from .backends.base import PROVENANCE_KEY
    from .reembed import REEMBED_STATE_KEY
    from .store_base import read_only_reason_of

    refused = read_only_reason_of(backend)
    if refused is None:
        yield Check("store", OK, f"kenning reaches {backend.location} and reads the store")
    else:
        said, fix = _said_and_fix(refused)
        why = said.removeprefix(f"cannot write to PostgreSQL at {backend.location}: ")
        yield Check(
            "store",
            WARNING,
            f"{backend.location} can be read but not written: {why} (recall and search "
            "work; remember, edit, forget and import fail)",
            fix,
        )
    health = backend.health()
    yield _pg_schema(health)
    yield Check(
        "integrity",
        SKIPPED,
        "PostgreSQL keeps its own pages; its own tools check them (pg_amcheck)",
    )
    meta = {key: backend.get_meta(key) for key in (PROVENANCE_KEY, REEMBED_STATE_KEY)}
    provenance, stamped = provenance_check(meta, health.rows, backend.reembed_running)
    yield provenance
    yield _pg_index(backend, health, stamped)
    yield from _pg_rows_and_project(backend, health.dimension, project, now)


def _pg_schema(health: StoreHealth) -> Check:
    from .backends.postgres import SCHEMA_VERSION

    if health.missing:
        return Check(
            "schema",
            FAILED,
            f"schema version {health.schema}, but the store lacks what that version has: "
            f"{', '.join(health.missing)} (dropped by hand?)",
            "restore the database from a backup; or, if only those are gone, `kenning export "
            "--group-id all -o backup.jsonl` reads out what it can for a new store",
        )
    if health.compatible is not None:  # a newer schema this kenning reads
        return newer_schema_check(health.compatible, SCHEMA_VERSION)
    if health.dimension is None:
        return Check(
            "schema",
            OK,
            f"schema version {health.schema}; no memories yet (the first write creates their "
            f"table, at schema version {SCHEMA_VERSION})",
        )
    if health.schema < SCHEMA_VERSION and health.standby:
        # a standby refuses every write, the owner's too: the upgrade is the primary's, and
        # the standby gets it from there
        return Check(
            "schema",
            WARNING,
            f"schema version {health.schema}, older than this kenning's ({SCHEMA_VERSION}): "
            "reads work as it is; this server is a standby (a copy of its primary, which "
            "refuses every write): the first write on the primary upgrades it, which needs "
            "the table's owner, and the standby gets the upgrade from there",
            "run one write (a `kenning remember`) with the primary's URL, as the role that "
            "owns kenning_memories",
        )
    if health.schema < SCHEMA_VERSION:
        return Check(
            "schema",
            WARNING,
            f"schema version {health.schema}, older than this kenning's ({SCHEMA_VERSION}): "
            "reads work as it is; the first write upgrades it, which needs the table's "
            "owner (another role's write is refused until then)",
            "run one write (a `kenning remember`) as the role that owns kenning_memories",
        )
    return Check("schema", OK, f"schema version {health.schema}, every table and column present")


def _dimension_fix(stored: int, new_store: str) -> str:
    """The fix of a stamp whose dimension is not the stored vectors': ``kenning reembed``
    when the current model's is theirs (it re-embeds with it and stamps it: the stamp was
    what was wrong), else ``new_store`` (the provenance check says reembed, which then
    cannot write the vectors: two fixes, opposite, for one state, qa-s67b F6)."""
    current = expected_provenance()
    if current is not None and current.dimension == stored:
        return (
            f"run `kenning reembed`: the current model's vectors are {stored}-dimensional, as "
            "the store's, and it re-embeds every memory with it and stamps the store so"
        )
    return new_store


def _pg_index(backend: PostgresBackend, health: StoreHealth, stamped: int | None) -> Check:
    from .backends.postgres import NEW_DIMENSION_REMEDY

    if health.dimension is None:
        return Check("index", OK, "no memories yet (the first write creates their index)")
    if stamped is not None and stamped != health.dimension:
        return Check(
            "index",
            FAILED,
            f"the store's vectors are {health.dimension}-dimensional (its column's type), but "
            f"it is stamped with a {stamped}-dimensional model: writes and searches with "
            "that model fail",
            _dimension_fix(health.dimension, NEW_DIMENSION_REMEDY),
        )
    missing = backend.missing_index_parts() if health.hnsw is not True else None
    if missing is not None:
        invalid = (
            "its vector index kenning_memories_hnsw is INVALID (what a cancelled or failed "
            "`CREATE INDEX CONCURRENTLY` leaves), which searches do not use: "
            if health.hnsw is False
            else ""
        )
        what, fix = missing  # the fix said once, in its place (the note's own said it twice)
        return Check("index", WARNING, invalid + what, fix)
    n = health.rows
    return Check(
        "index",
        OK,
        f"{n} {'memory' if n == 1 else 'memories'}, each with a {health.dimension}-dimensional "
        "vector (the column's type); the HNSW index kenning_memories_hnsw is valid",
    )


def _pg_rows_and_project(
    backend: PostgresBackend, dimension: int | None, project: Project | None, now: datetime
) -> Iterator[Check]:
    """:func:`_rows_and_project`'s checks, the server reading every row for them
    (:meth:`~kenning.backends.postgres.PostgresBackend.rows_to_check`): doctor decodes only
    the rows it may name."""
    from .store_write import FUTURE_TOLERANCE

    horizon = now + FUTURE_TOLERANCE
    found = backend.rows_to_check(horizon, dimension)
    seen = _Seen()
    for m in found.memories:
        seen.memory(m, horizon)
    for memory_id, group, dims, norm in found.vectors:
        seen.vector(memory_id, group, dims, norm, dimension)
    for m in found.edited:
        if (fields := held_credentials(m)) is not None:
            seen.credentials.append((m.id, m.group_id, f"{m.id!r} ({fields})"))
    yield from _verdict(backend, dimension, project, now, Counter(found.projects), seen)


# -- Qdrant ---------------------------------------------------------------------------------


def _qdrant(backend: QdrantBackend, project: Project | None, now: datetime) -> Iterator[Check]:
    from .backends.base import PROVENANCE_KEY, Filters
    from .reembed import REEMBED_STATE_KEY

    dimension = backend.dimension()
    held = (
        f"its collection {backend.collection} holds {dimension}-dimensional vectors"
        if dimension is not None
        else "no memories yet (the first write creates its collection)"
    )
    yield Check("store", OK, f"{backend.location} opens; {held}")
    yield Check(
        "schema",
        SKIPPED,
        "Qdrant keeps no schema version (the collection's vector size and distance were "
        "checked as it opened)",
    )
    yield Check("integrity", SKIPPED, "Qdrant keeps its own files and checks them itself")
    rows = backend.count(Filters()) if dimension is not None else 0
    meta = {key: backend.get_meta(key) for key in (PROVENANCE_KEY, REEMBED_STATE_KEY)}
    # a running reembed holds a local folder (one process at a time), and marks no server
    provenance, stamped = provenance_check(meta, rows, lambda: False)
    yield provenance
    if dimension is None:
        yield Check("index", OK, "no memories yet")
    elif stamped is not None and stamped != dimension:
        yield Check(
            "index",
            FAILED,
            f"the collection's vectors are {dimension}-dimensional, but the store is stamped "
            f"with a {stamped}-dimensional model: writes and searches with that model fail",
            _dimension_fix(
                dimension,
                "re-embedding to another dimension needs a new store: `kenning export`, then "
                "import into a fresh one",
            ),
        )
    else:
        yield Check(
            "index",
            OK,
            f"every point's vector is {dimension}-dimensional, as the collection holds them "
            "(Qdrant keeps its own search index)",
        )
    yield from _rows_and_project(backend, dimension, project, now)


# -- both -----------------------------------------------------------------------------------


def _rows_and_project(
    backend: Any, dimension: int | None, project: Project | None, now: datetime
) -> Iterator[Check]:
    """The ``rows`` check, from one read of every row, and the ``project`` check from the
    projects the rows it read are of."""
    from .backends.base import Filters
    from .model import content_hash
    from .store_write import FUTURE_TOLERANCE

    seen = _Seen()
    counts: Counter[str] = Counter()
    horizon = now + FUTURE_TOLERANCE
    batch: list[tuple[str, str, np.ndarray]] = []

    def check_batch() -> None:
        if not batch:
            return
        matrix = np.stack([v for _, _, v in batch]).astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
        for (memory_id, group, vector), norm in zip(batch, norms.tolist(), strict=True):
            seen.vector(memory_id, group, vector.shape[0], norm, dimension)
        batch.clear()

    for record in backend.iterate(Filters(), batch_size=ROWS_BATCH):
        memory = record.memory
        counts[memory.group_id] += 1
        seen.memory(memory, horizon)
        # a text another writer set (not the one kenning hashed), as the server store's
        # check picks them: only those are redacted (~65 µs a note)
        if content_hash(memory.content) != memory.content_hash and (
            fields := held_credentials(memory)
        ):
            seen.credentials.append((memory.id, memory.group_id, f"{memory.id!r} ({fields})"))
        vector = np.asarray(record.vector, dtype=np.float32).reshape(-1)
        if dimension is not None and vector.shape[0] != dimension:
            seen.vector(memory.id, memory.group_id, vector.shape[0], 1.0, dimension)
            continue
        batch.append((memory.id, memory.group_id, vector))
        if len(batch) >= ROWS_BATCH:
            check_batch()
    check_batch()
    yield from _verdict(backend, dimension, project, now, counts, seen)


#: A row the ``rows`` check names: its id, its project's id, and how it is named.
_Named = tuple[str, str | None, str]


@dataclass
class _Seen:
    """What the ``rows`` check of a server store found, row by row, with each row's project
    (another project's is said apart: qa-team F8)."""

    #: Vectors no search can score: of another dimension, not finite, or of length 0.
    vectors: list[_Named] = field(default_factory=list)
    #: Finite vectors of another length than 1, which the server reads as their direction.
    scaled: list[_Named] = field(default_factory=list)
    #: Zero vectors, which point nowhere: search scores them 0.
    zero: list[_Named] = field(default_factory=list)
    #: Notes holding a credential another writer left in clear (the fields that hold it).
    credentials: list[_Named] = field(default_factory=list)
    future: list[_Named] = field(default_factory=list)
    empty: list[_Named] = field(default_factory=list)
    #: Notes of a type or collection kenning does not know (:func:`unknown_kind`).
    kinds: list[_Named] = field(default_factory=list)
    #: Notes whose id holds a control or invisible character (:func:`hidden_in_id`).
    hidden_ids: list[_Named] = field(default_factory=list)

    def memory(self, memory: Memory, horizon: datetime) -> None:
        """Note ``memory`` when it is stamped after ``horizon``, nothing but credentials
        (:func:`credentials_only`) or of a kind kenning does not know (:func:`unknown_kind`)."""
        if memory.stored_at > horizon:
            when = memory.stored_at.isoformat(timespec="seconds")
            self.future.append((memory.id, memory.group_id, f"{memory.id!r}: {when}"))
        if (named := credentials_only(memory)) is not None:
            self.empty.append((memory.id, memory.group_id, named))
        if (kind := unknown_kind(memory)) is not None:
            self.kinds.append((memory.id, memory.group_id, kind))
        if (hidden := hidden_in_id(memory)) is not None:
            self.hidden_ids.append((memory.id, memory.group_id, hidden))

    def vector(
        self, memory_id: str, group: str | None, dims: int, norm: float, dimension: int | None
    ) -> None:
        """Note the vector of ``dims`` dimensions and length ``norm``, when it is not a unit
        vector of ``dimension``. A server's cosine reads a vector's direction (pgvector's
        ``<=>`` normalises both sides; Qdrant's cosine collections normalise on upload): any
        finite length but 0 scores as the vector it points along, and search finds it, so it
        is said (another writer's), not failed (qa-team F7); of length 0 it points nowhere,
        and search scores it 0 (:func:`kenning.search.hybrid_candidates`), which stats
        counts as a memory too: said, not failed."""
        from .vectors import UNIT_NORM_TOLERANCE

        if dimension is not None and dims != dimension:
            problem = f"has {dims} dimensions, not {dimension}"
        elif not math.isfinite(norm):
            problem = "holds NaN or infinity"
        elif norm == 0.0:
            self.zero.append((memory_id, group, repr(memory_id)))
            return
        elif abs(norm - 1.0) > UNIT_NORM_TOLERANCE:
            self.scaled.append((memory_id, group, f"{memory_id!r}: length {norm:.6g}"))
            return
        else:
            return
        self.vectors.append((memory_id, group, f"{memory_id!r}: vector {problem}"))


def _verdict(
    backend: Any,
    dimension: int | None,
    project: Project | None,
    now: datetime,
    counts: Counter[str],
    seen: _Seen,
) -> Iterator[Check]:
    """The ``rows`` and ``project`` checks of what was read: the memories by project, what
    ``seen`` found (and the rows the reads skipped, which the backend recorded). This
    project's rows are judged as an embedded store's are; another project's (a server is
    shared by many) are counted in a warning, never a failure: this project's reads never
    meet them, and their fix is that project's (qa-team F8). Outside any project every row
    is judged."""
    from .project import alike_to_name, earlier_group_id, others_to_name

    here = project.group_id if project is not None else None
    damaged = backend.damaged_rows()
    fields: list[_Named] = [
        (d.id, d.group_id, f"{d.id!r}: {d.column} {d.reason}") for d in damaged if not d.vector_only
    ]
    found = {
        "fields": fields,
        "vectors": seen.vectors,
        "scaled": seen.scaled,
        "zero": seen.zero,
        "credentials": seen.credentials,
        "future": seen.future,
        "empty": seen.empty,
        "kinds": seen.kinds,
        "hidden_ids": seen.hidden_ids,
    }
    elsewhere: dict[str, set[str]] = {}
    mine: dict[str, list[str]] = {}
    for kind, named in found.items():
        mine[kind] = []
        for memory_id, group, text in named:
            # (a row of no project, another application's point in a Qdrant collection,
            # is every project's: each one's reads skip it)
            if here is None or group is None or group == here:
                mine[kind].append(text)
            else:
                elsewhere.setdefault(str(group), set()).add(memory_id)
    unread = len(mine["fields"])
    several = here is not None and (bool(elsewhere) or any(g != here for g in counts))
    total = counts.get(here, 0) + unread if several and here is not None else None
    rows = rows_check(
        sum(counts.values()) + len(fields) if total is None else total,
        dimension,
        mine["fields"],
        mine["vectors"],
        mine["future"],
        now,
        list(dict.fromkeys(d.fix for d in damaged if d.fix and not d.vector_only)),
        "remove each with `kenning forget <id> --group-id all` (after `kenning export "
        "--group-id all` keeps its text)",
        mine["empty"],
        scaled=mine["scaled"],
        zero=mine["zero"],
        credentials=mine["credentials"],
        kinds=mine["kinds"],
        hidden_ids=mine["hidden_ids"],
        scope=f"project {here}" if total is not None else None,
    )
    yield _with_others(rows, elsewhere)
    if not counts:
        yield Check("project", SKIPPED, "no memories yet")
    elif project is None:
        yield Check("project", SKIPPED, "no project here")
    else:
        ranked = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        others = others_to_name(project.group_id, ranked, 3)
        alike = {} if others else alike_to_name(project.group_id, ranked, 3)
        # the id the folder's name gave the checkout before its origin remote was added,
        # as the embedded store's check names it (its count is among those read)
        earlier = None if others else earlier_group_id(project)
        if earlier is not None and counts.get(earlier):
            alike = {earlier: counts[earlier]} | alike
        yield project_check(project, others, alike)


def _with_others(rows: Check, others: Mapping[str, set[str]]) -> Check:
    """``rows`` with the rows of other projects that have something to say counted, by
    project: a warning (the store works for this project), with where their fix is run."""
    if not others:
        return rows
    ranked = sorted(others.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    n = sum(len(ids) for ids in others.values())
    shown = ", ".join(f"{len(ids)} of {group}" for group, ids in ranked[:3])
    if len(ranked) > 3:
        shown += f", and {sum(len(ids) for _, ids in ranked[3:])} of {len(ranked) - 3} more"
    first = shlex.quote(ranked[0][0])
    theirs = "that project's" if len(ranked) == 1 else "those projects'"
    said = (
        f"{n} {'row' if n == 1 else 'rows'} of other projects on this server "
        f"{'has' if n == 1 else 'have'} problems ({shown}): not this project's, whose reads "
        f"never return {'it' if n == 1 else 'them'}"
    )
    fix = (
        f"nothing to fix in this project; {theirs} own `kenning doctor` names each row and "
        f"its fix: run it in a checkout of {first}, or here as `KENNING_PROJECT={first} "
        "kenning doctor`"
    )
    status = FAILED if rows.status == FAILED else WARNING
    message = said if rows.status == OK and not rows.message else f"{rows.message}; {said}"
    fixes = "; ".join(f for f in (rows.fix if rows.status != OK else None, fix) if f)
    return Check("rows", status, message, fixes)
