"""``kenning doctor``: check a store without changing it, and say how to fix what is wrong.

Checks, in order (a check whose precondition failed is ``skipped``):

* ``location`` — the project resolves, and the store path (through symlinks) lies inside
  the project root (:func:`kenning.project.check_store_location`). A store named with
  ``--store`` (a backup, a store moved aside, another checkout's) is checked where it is:
  that it lies outside this project, or that no project is here, is a ``warning`` (writes
  to it are refused from here; reads work); such a store that does not exist fails the
  ``store`` check (a mistyped path: no remember from here would create it). A store inside
  the project that git does not ignore (one named elsewhere than ``.kenning/``:
  :func:`kenning.project.unignored_store`) is a ``warning``, with the ``.gitignore`` line.
* ``store`` — the file exists and SQLite can read it (opened read-only: doctor never
  migrates, repairs or rewrites the file; a damaged file is left exactly as it was).
* ``schema`` — ``PRAGMA user_version`` is one this kenning understands, and the tables and
  columns of the embedded store are all there; a ``warning`` when the one-time rewrite
  (VACUUM) an upgrade from an older kenning owes has not run yet (a write runs it once the
  disk has room for it), with the room it needs; a ``warning`` too when the one-time update
  of the error fingerprints an older kenning stored waits for room (a write does it once
  the disk has the room), with the room it needs.
* ``integrity`` — ``PRAGMA integrity_check``.
* ``provenance`` — the store is stamped (when it holds memories), the stamp is readable, no
  ``kenning reembed`` is half done, and the stamp matches the current embedder's provenance
  when that can be told without loading the model (MiniLM from its package, or the hashing
  test embedder); and this kenning can embed at all (``KENNING_EMBEDDER`` names an embedder,
  the model's files are there), else every recall, search and write fails.
* ``index`` — every memory has a full-text row and a vector of the stamped dimension, and
  FTS5's own ``integrity-check`` (index against content) passes. The FTS check needs a write
  transaction, which is rolled back; it runs only on a store that passed every check above.
  Then the derived files beside the store, read whole: every record of
  ``memory.db.vectors`` is what its memory's vector quantises to (a damaged record hides
  its memory from search: failed), and ``memory.db.ann`` passes its checksum (kenning does
  not use a damaged one: a warning); the fix for either is to delete the file, which
  kenning rebuilds.
* ``rows`` — every row reads back the way every other command reads it: its fields decode
  (text where text belongs, ``tags`` a JSON list of texts, ``metadata`` a JSON object,
  ``stored_at`` an ISO 8601 time) and its vector has the stamped dimension, is finite and
  has unit length (:mod:`kenning.vectors`). Reads skip such a row with a warning; this
  check names each one and the fix (``kenning reembed`` for a vector, ``kenning forget``
  for a field).
* ``project`` — when the store holds memories but none of this project's: a ``warning``
  naming the ids it holds them under (a renamed repository or a changed ``origin`` remote
  gives the project a new id, and every recall and search then finds nothing), with the
  fix (``KENNING_PROJECT`` in the project's ``.env``). Skipped on an empty store.

A missing store is healthy ("no store yet"): exit code 0, like every read command; so is a
read-only one (every read works), whose ``store`` check is a ``warning`` with the fix.
"""

from __future__ import annotations

import os
import re
import shlex
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import config
from .errors import KenningError
from .model import (
    TYPE_TO_COLLECTION,
    Memory,
    Provenance,
    fields_changed,
    known_kind,
    utc_now,
)

if TYPE_CHECKING:
    from .backends import compat
    from .project import Project

__all__ = ["Check", "DoctorReport", "expected_provenance", "held_credentials", "run_doctor"]

#: ``warning``: the store works as it is, with a limit worth fixing (a read-only store is
#: read; writes fail): said with its fix, and the store is still healthy.
OK, WARNING, FAILED, SKIPPED = "ok", "warning", "failed", "skipped"
#: How long doctor waits for another process's write lock (FTS check only).
BUSY_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warning | failed | skipped
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "message": self.message, "fix": self.fix}


@dataclass(frozen=True)
class DoctorReport:
    store: str | None
    checks: tuple[Check, ...]
    #: The store is a server's that could not be reached (down, or it refused the
    #: credentials): the knowledge base was not consulted (``kenning doctor`` exits 3).
    unreached: bool = False

    @property
    def healthy(self) -> bool:
        return all(c.status != FAILED for c in self.checks)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            # the name stats, recall, search and stale give the same path (qa-s70a F3)
            "intel_path": self.store,
            "healthy": self.healthy,
            "checks": [c.to_dict() for c in self.checks],
        }


def _recovery(path: Path) -> str:
    # Not `sqlite3 … .recover`: Debian 12's sqlite3 (3.40) fails it on every kenning store
    # (the FTS5 tables: "SQL logic error") and writes an empty file; nor `.dump`, which ends
    # in ROLLBACK at the first unreadable page. kenning's own export reads every row it can.
    # Where it goes is named in full: told "damaged.db", a user renaming it where it is
    # (.kenning/damaged.db) then ran an export of ./damaged.db: "nothing to export".
    free = _free_aside(path)
    aside = shlex.quote(str(free))
    return (
        f"move {path} aside: `mv {shlex.quote(str(path))} {aside}`, and `{path.name}-wal`, "
        f"`-shm` beside it (when there) likewise to {free.name}-wal, {free.name}-shm; then "
        "restore from a backup with `kenning import <backup.jsonl>`; with no backup, "
        f"`kenning export --store {aside} --group-id all -o backup.jsonl` reads out the notes "
        "(unless the damage is in their own table's pages) and `kenning import backup.jsonl` "
        "puts them in a new store"
    )


def _free_aside(path: Path) -> Path:
    """Where to move a damaged store: ``damaged.db`` beside it, or ``damaged-2.db``, … when
    that name, or its ``-wal`` or ``-shm``, is taken (by a store moved aside before, whose
    notes may not all be read out yet): `mv` would replace it without a word."""
    n = 1
    while True:  # ends: the folder holds finitely many files
        aside = path.with_name("damaged.db" if n == 1 else f"damaged-{n}.db")
        if not any(os.path.lexists(f"{aside}{side}") for side in ("", "-wal", "-shm")):
            return aside
        n += 1


def _rebuild(path: Path) -> str:
    return (
        f"rebuild the store from its rows: `kenning export --group-id all -o backup.jsonl`, move "
        f"{path} aside, then `kenning import backup.jsonl`"
    )


def embedder_problem() -> tuple[str, str] | None:
    """Why the current embedder cannot embed at all, and the fix, told without loading the
    model: an unknown ``KENNING_EMBEDDER``, or MiniLM's model files missing or unreadable
    (``KENNING_MODEL_DIR`` or the weights package). None when nothing says so."""
    from .embedders import EMBEDDERS, unknown_embedder_variable

    name = config.embedder_name()
    if name not in EMBEDDERS:
        return unknown_embedder_variable(name)
    if name != "minilm":
        return None
    from .embedders.minilm import locate_model

    try:
        locate_model()
    except KenningError as exc:
        return str(exc), "install or point kenning at the model as the message says"
    return None


def expected_provenance() -> Provenance | None:
    """The current embedder's provenance when it is cheap to know (no model load), else None."""
    name = config.embedder_name()
    if name == "hashing":
        from .embedders.hashing import HashingEmbedder

        return HashingEmbedder().provenance
    if name != "minilm" or config.model_dir():
        return None  # another model folder: its id needs the weights' hash
    try:
        from .embedders.minilm import MINILM_MODEL_ID, locate_model

        files = locate_model()  # reads config.json; never the weights
        return Provenance(
            embedder="minilm",
            model_id=MINILM_MODEL_ID,
            dimension=int(files.config["hidden_size"]),
            normalised=True,
            prefix_policy="none",
        )
    except (KenningError, KeyError, TypeError, ValueError):
        return None


@dataclass(frozen=True)
class _Located:
    """Where the store to check is, and the ``location`` check."""

    path: Path | None  # the embedded store's file (None: none, or a store named by URL)
    check: Check
    url: str | None = None  # a server's store, or a Qdrant local-mode folder's
    project: Project | None = None  # the project of the store named by URL, when one is here
    #: Writes to the store are refused from here by the store-location guard (the
    #: ``location`` check says why, qa-s68c S2): the store check names no other cause.
    guarded: bool = False


def _locate(store_path: Path | None, cwd: Path | None, store_url: str | None = None) -> _Located:
    """The embedded store's path, or the URL of a server store (or a Qdrant local-mode
    folder, checked by :mod:`kenning.doctor_server`), and the ``location`` check."""
    from .errors import StoreLocationError, UserInputError
    from .project import (
        STORE_FILENAME,
        check_store_location,
        configured_store,
        find_checkout,
        names_a_file,
        resolve_project,
        store_location_fix,
    )

    configured: str | None = None
    if store_path is None and store_url is None:
        # a malformed value (a URL without its //, libpq's key=value form), in the
        # environment or the project's .env, is what to correct: not "run inside the
        # checkout"
        checkout = find_checkout(Path(cwd or Path.cwd()))
        configured = configured_store(checkout.settings_root if checkout is not None else None)[0]
    try:
        project = resolve_project(cwd, None, store_path, store_url)
    except UserInputError as exc:
        path = None
        if store_path is None and store_url is None and configured:
            # KENNING_STORE's server store, from outside any project: checked as one named
            # with --store is (every check was skipped, and the fix named a --project
            # doctor does not take: qa-s67b F5)
            store_url = configured if config.is_store_url(configured) else None
        if store_url is not None:
            from .redaction import redact_url

            # a server store named to be checked: checked; only writing needs a project
            return _Located(
                None,
                Check(
                    "location",
                    WARNING,
                    f"{redact_url(store_url)} is checked as named; writing to it needs a "
                    f"project, and none is here ({str(exc).split(';')[0]})",
                    "run kenning inside a project checkout (or set KENNING_PROJECT) to write to it",
                ),
                store_url,
            )
        if store_path is not None:
            # as every command takes it: a store moved aside as memory.db.damaged is a
            # file, not a folder holding a memory.db
            path = store_path if names_a_file(store_path) else store_path / STORE_FILENAME
            # a store named to be checked (a backup, a store moved aside): checked where it
            # is; only writing to it needs its project
            return _Located(
                path,
                Check(
                    "location",
                    WARNING,
                    f"{path} is checked where it is; writing to it needs its project, and "
                    f"none is here ({str(exc).split(';')[0]})",
                    "run kenning inside the store's project checkout to write to it",
                ),
            )
        return _Located(
            path,
            Check(
                "location",
                FAILED,
                str(exc),
                "run kenning inside the project's git checkout, or set KENNING_PROJECT and "
                "KENNING_STORE",
            ),
        )
    if project.store_url is not None:
        # the embedded file beside the project is not the store in use: the server's (or
        # the Qdrant folder's) store is checked instead
        location = _server_location(project, named=store_url is not None)
        return _Located(None, location, project.store_url, project)
    try:
        resolved = check_store_location(project)
    except StoreLocationError as exc:
        if store_path is not None:  # named to be checked: not this project's store
            return _Located(
                project.store_path,
                Check(
                    "location",
                    WARNING,
                    f"{project.store_path.resolve()} lies outside the project root "
                    f"{project.root}: it is checked (and read) from here, and writes to it are "
                    "refused from here (the store-location guard)",
                    "run kenning inside the store's project checkout to write to it",
                ),
                guarded=True,
            )
        return _Located(
            project.store_path,
            Check(
                "location",
                FAILED,
                str(exc),
                store_location_fix(project),
            ),
            guarded=True,
        )
    return _Located(
        project.store_path,
        _inside(project, resolved),
    )


def _inside(project: Project, resolved: Path) -> Check:
    """The ``location`` check of a store the guard lets be written: ok, or a warning while
    git does not ignore its files (kenning ignores only its own ``.kenning/``)."""
    from .project import store_is_there, unignored_store

    said = f"{resolved} lies inside the project root {project.root} (project {project.group_id})"
    found = unignored_store(project) if store_is_there(project) else None
    if found is None:
        return Check("location", OK, said)
    return Check("location", WARNING, f"{said}, but {found.message}", found.fix)


def _server_location(project: Project, *, named: bool) -> Check:
    """The ``location`` check of a store named by URL: a server's has no path in the
    project; a Qdrant local-mode folder is held to the project root as a store file is."""
    from .backends.registry import backend_kind
    from .errors import StoreLocationError
    from .project import check_store_location, store_location_fix
    from .redaction import redact_url

    url = project.store_url
    assert url is not None
    if backend_kind(url) != "qdrant-local":  # (a URL kenning does not speak is said here)
        return Check(
            "location",
            OK,
            f"the store is on the server {redact_url(url)}, shared by its projects (project "
            f"{project.group_id})",
        )
    try:
        resolved = check_store_location(project)
    except StoreLocationError as exc:
        if named:
            return Check(
                "location",
                WARNING,
                f"{url} lies outside the project root {project.root}: it is checked (and "
                "read) from here, and writes to it are refused from here (the "
                "store-location guard)",
                "run kenning inside the store's project checkout to write to it",
            )
        return Check(
            "location",
            FAILED,
            str(exc),
            store_location_fix(project),
        )
    return _inside(project, resolved)


def _open_readonly(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A read-only connection, and whether a write to the store is refused as read-only
    (:func:`~kenning.backends.sqlite.refuses_writes`, the backend's own rule): a WAL store
    whose folder cannot be written is then read as an immutable file, as kenning's reads do
    (SQLite cannot create the ``-shm`` it reads through)."""
    from .backends.sqlite import decode_text, is_read_only_error, refuses_writes, unread_wal

    uri = path.resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    conn.text_factory = decode_text  # a row whose text is not UTF-8 is named, as kenning reads it
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header
        # (a WAL and its -shm left beside the store open read-only without an error, on a
        # read-only mount too: whether it can be written is asked of the file system)
        return conn, refuses_writes(path)
    except sqlite3.OperationalError as exc:
        conn.close()
        # a -wal without its -shm in a folder that cannot be written: SQLite says "unable to
        # open", of a store that is not damaged (qa-s68b F7); read as every command reads it
        if not is_read_only_error(exc, path) and unread_wal(path) is None:
            raise
    conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=BUSY_TIMEOUT_S)
    conn.text_factory = decode_text
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn, True


def _empty_schema(path: Path) -> Check:
    """The schema check of a store file with nothing in it: created but never initialised
    (a process died while opening it), unless the vector file beside it indexes rows. Then
    the file was emptied or replaced (a truncating copy, a sync tool, a full disk) and its
    notes are gone, where every command read it as a new, empty store."""
    from .backends.vectorfile import indexed_rows

    vectors = path.with_name(path.name + ".vectors")
    held = indexed_rows(vectors)
    if not held:
        return Check("schema", OK, "empty store file; the next write creates the schema")
    return Check(
        "schema",
        FAILED,
        f"{path} is empty, but {vectors.name} beside it indexes "
        f"{held} {'memory' if held == 1 else 'memories'}: the store file was emptied or "
        "replaced, and its notes are not in it (recall finds nothing)",
        f"restore {path.name} from a backup (a copy of the file, or `kenning import` of a "
        f"`kenning export`); to start afresh instead, delete {vectors} (it holds no text)",
    )


def _schema(conn: sqlite3.Connection, path: Path) -> Check:
    from .backends.sqlite import (
        REQUIRED_COLUMNS,
        SCHEMA_VERSION,
        SEEN_COLUMNS,
        STORE_TABLES,
        required_tables,
    )

    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and not tables & set(STORE_TABLES):
        # another application's database (as every command refuses it): nothing to move
        # aside or restore, only the wrong file named
        shown = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
        return Check(
            "schema",
            FAILED,
            f"{path} is a SQLite database but not a kenning store (its tables: {shown}); "
            "kenning leaves it as it is",
            "point --store or KENNING_STORE at a kenning store (by default <git top "
            "level>/.kenning/memory.db); leave this file where it is",
        )
    newer = _newer_schema(conn, version, tables)
    if newer is not None and newer.status == FAILED:
        return newer
    if version == 0:
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            return _empty_schema(path)
        return Check(
            "schema",
            FAILED,
            "the file is a SQLite database but not a kenning store (schema version 0)",
            _recovery(path),
        )
    # tables added by later migrations: an older store gets them on its next write
    missing = [t for t in required_tables(version) if t not in tables]
    if missing:
        return Check(
            "schema",
            FAILED,
            f"table(s) missing: {', '.join(missing)}",
            _rebuild(path) if "memories" in tables else _recovery(path),
        )
    columns = {r[1] for r in conn.execute("PRAGMA table_info(memories)")}
    # the seen columns arrived with migration 6; an older store gets them when next opened
    gone = [
        c for c in REQUIRED_COLUMNS if c not in columns and (version >= 6 or c not in SEEN_COLUMNS)
    ]
    if gone:
        return Check(
            "schema", FAILED, f"column(s) missing from memories: {', '.join(gone)}", _recovery(path)
        )
    if version < SCHEMA_VERSION:
        return Check(
            "schema",
            OK,
            f"schema version {version}; the next write migrates it to {SCHEMA_VERSION}",
        )
    if newer is not None:
        return newer
    owed = _vacuum_owed(conn, path, tables) or _fingerprints_owed(conn, path, tables)
    if owed is not None:
        return owed
    return Check("schema", OK, f"schema version {version}, every table present")


def _newer_schema(conn: sqlite3.Connection, version: int, tables: set[str]) -> Check | None:
    """For a store of a newer schema than this kenning's: failed when this kenning may not
    read it, a warning when it reads but may not write it, ok when it does both (the
    store's record says which: :mod:`kenning.backends.compat`); None for any other store."""
    from .backends import compat
    from .backends.sqlite import SCHEMA_VERSION

    if version <= SCHEMA_VERSION:
        return None
    text = None
    if "meta" in tables:
        row = conn.execute(
            "SELECT value FROM meta WHERE key = ?", (compat.COMPATIBLE_KEY,)
        ).fetchone()
        text = row and row[0]
    return newer_schema_check(compat.decode(text, version), SCHEMA_VERSION)


#: How the schema check ends when this kenning may read the store but not write it.
WRITES_REFUSED = "this kenning's writes are refused"
#: The kenning commands that write the store, which a fix may print: each is refused on a
#: store this kenning may only read (the project check's `kenning move` too).
_WRITING_COMMANDS = re.compile(r"`kenning (edit|reembed|forget|remember|import|seed|move)\b")


def upgrade_first(checks: Sequence[Check]) -> tuple[Check, ...]:
    """``checks`` with "upgrade kenning first" before each fix that runs a kenning command
    that writes, when the schema check says this kenning may read the store but not write it
    (a newer kenning upgraded it): that command of this kenning would be refused (qa74 F6)."""
    if not any(c.name == "schema" and c.message.endswith(WRITES_REFUSED) for c in checks):
        return tuple(checks)
    return tuple(
        replace(
            c,
            fix="upgrade kenning first (`pip install -U kenning`, or your team's way): this "
            "kenning may read this store but not write it (see the schema check); then, with "
            f"the newer kenning: {c.fix}",
        )
        if c.name != "schema" and c.fix and _WRITING_COMMANDS.search(c.fix)
        else c
        for c in checks
    )


def newer_schema_check(record: compat.Compatible, own: int) -> Check:
    """The schema check of a store ``record`` describes, newer than this kenning's ``own``."""
    from .backends import compat

    upgrade = "upgrade kenning (`pip install -U kenning`, or your team's way)"
    refused = compat.too_new("the store", record, own, write=False)
    if refused is not None:
        return Check(
            "schema",
            FAILED,
            f"schema version {record.version} is newer than this kenning understands "
            f"({own}): a newer kenning (a teammate's) upgraded the store"
            + (
                f"; a kenning of schema {record.reader} or later reads it"
                if record.reader < record.version
                else ""
            ),
            f"{upgrade}; nothing is wrong with the store",
        )
    said = (
        f"schema version {record.version}, newer than this kenning's ({own}): a newer kenning "
        f"upgraded the store, and says a kenning of schema {record.reader} or later reads it"
    )
    if compat.too_new("the store", record, own, write=True) is not None:
        return Check(
            "schema",
            WARNING,
            f"{said}, but only one of schema {record.writer} or later writes it: {WRITES_REFUSED}",
            upgrade,
        )
    return Check("schema", OK, f"{said} and one of schema {record.writer} or later writes it")


def _fingerprints_owed(conn: sqlite3.Connection, path: Path, tables: set[str]) -> Check | None:
    """A warning when the error fingerprints an older kenning stored wait for room to be
    brought up to this kenning's rules: a write does it only once the disk has the room
    (it says so once), and an error's exact match misses those entries meanwhile. Read only
    while the store records older rules (until the first write of this kenning)."""
    from .backends.sqlite import room_said, update_needs
    from .fingerprint_renewal import FINGERPRINT_RULES_KEY, rules_version, stale_as_stored
    from .fingerprints import RULES_VERSION

    if "meta" not in tables:
        return None
    recorded = conn.execute("SELECT value FROM meta WHERE key = ?", (FINGERPRINT_RULES_KEY,))
    row = recorded.fetchone()
    if rules_version(None if row is None else str(row[0])) >= RULES_VERSION:
        return None
    # The room to update every row bounds the room to update the stale ones: a disk that
    # has it warns of nothing, whichever rows are stale, and no row's fingerprint is worked
    # out (~0.15 ms each: seconds for a large store after an upgrade).
    every = [str(i) for (i,) in conn.execute("SELECT id FROM memories")]
    if not every or room_said(update_needs(conn, path, every)) is None:
        return None
    stale = [
        str(i)
        for i, type_, collection, content, metadata in conn.execute(
            "SELECT id, type, collection, content, metadata FROM memories"
        )
        if stale_as_stored(type_, collection, content, metadata)
    ]
    short = room_said(update_needs(conn, path, stale)) if stale else None
    if short is None:
        return None  # none to change, or the next write has the room to
    return Check(
        "schema",
        WARNING,
        f"the error fingerprints of {len(stale)} entries in {path}, stored by an older "
        "kenning, are owed a one-time update to this kenning's rules, which waits for room "
        f"({short}): an error's exact match misses those entries until then",
        "free some space on that disk; the next kenning command that writes (a remember) "
        "then does it",
    )


def _vacuum_owed(conn: sqlite3.Connection, path: Path, tables: set[str]) -> Check | None:
    """A warning when the one-time rewrite (VACUUM) an upgrade from an older kenning owes
    has not run: a write runs it only once the disk has room for it (it says so once), so
    the text of notes deleted before the upgrade may still be in the file's free pages."""
    from .backends.sqlite import VACUUM_OWED_KEY, short_of_room, vacuum_needs, vacuum_room

    if "meta" not in tables:
        return None
    if conn.execute("SELECT 1 FROM meta WHERE key = ?", (VACUUM_OWED_KEY,)).fetchone() is None:
        return None
    needs = vacuum_needs(conn, path)
    short = short_of_room(needs)
    room = vacuum_room(needs)
    if short is None:
        fix = "run any kenning command that writes (a remember): the disk has the room now"
    else:
        folder, free = short
        fix = (
            f"free some space: it needs about {room}, and {folder}'s disk has "
            f"{free // 2**20} MiB; the next write then runs it"
        )
    return Check(
        "schema",
        WARNING,
        f"the one-time rewrite (VACUUM) that the upgrade from an older kenning owes {path} "
        "has not run yet: the text of notes deleted before the upgrade may still be in the "
        "file's free pages (a write runs it once the disk has the room it needs)",
        fix,
    )


def _integrity(conn: sqlite3.Connection, path: Path) -> Check:
    rows = [
        " ".join(str(r[0]).split()) for r in conn.execute("PRAGMA integrity_check(20)").fetchall()
    ]
    if rows == ["ok"]:
        return Check("integrity", OK, "PRAGMA integrity_check: ok")
    shown = "; ".join(rows[:3]) + (f" (and {len(rows) - 3} more)" if len(rows) > 3 else "")
    return Check("integrity", FAILED, f"PRAGMA integrity_check: {shown}", _recovery(path))


def _provenance(conn: sqlite3.Connection, path: Path, rows: int) -> tuple[Check, int | None]:
    from .reembed import reembed_running

    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    return provenance_check(meta, rows, lambda: reembed_running(path))


def provenance_check(
    meta: Mapping[str, str | None], rows: int, running: Callable[[], bool | None]
) -> tuple[Check, int | None]:
    """The ``provenance`` check of a store whose ``meta`` holds ``rows`` memories (every
    kind of store: the stamp and the reembed state are the same keys), and the stamped
    dimension. ``running``: whether a `kenning reembed` holds the store's mark (None: this
    client cannot tell, a PostgreSQL standby), asked only of a half re-embedded store."""
    import json

    from .backends.base import PROVENANCE_KEY
    from .reembed import REEMBED_STATE_KEY

    if meta.get(REEMBED_STATE_KEY) is not None:
        now_running = running()
        if now_running:
            return Check(
                "provenance",
                WARNING,
                "a `kenning reembed` is running: the store is half re-embedded until it ends, "
                "and reads are refused meanwhile",
                "wait for it to finish, then run `kenning doctor` again",
            ), None
        if now_running is None:
            return Check(
                "provenance",
                WARNING,
                "the store is half re-embedded, and this server is a standby, which cannot "
                "tell whether a `kenning reembed` still runs on the primary (reads are "
                "refused meanwhile)",
                "wait for it to finish; if it was stopped, run `kenning reembed` against the "
                "primary's URL to finish it",
            ), None
        return Check(
            "provenance",
            FAILED,
            "a `kenning reembed` was interrupted: the store is half re-embedded",
            "run `kenning reembed` to finish it",
        ), None
    raw = meta.get(PROVENANCE_KEY)
    if raw is None:
        if rows:
            return Check(
                "provenance",
                FAILED,
                f"{rows} memories but no provenance stamp: nothing says which model made the "
                "vectors",
                "run `kenning reembed` to re-embed with the current model and stamp the store",
            ), None
        return _usable_embedder("not stamped yet (the store is empty)"), None
    try:
        stored = Provenance.from_dict(json.loads(raw))
    except (ValueError, KeyError, TypeError) as exc:
        return Check(
            "provenance",
            FAILED,
            f"the provenance stamp is unreadable ({exc})",
            "run `kenning reembed` to re-embed with the current model and restamp the store",
        ), None
    unusable = _usable_embedder(f"stamped {stored.describe()}")
    if unusable.status == FAILED:
        return unusable, stored.dimension
    expected = expected_provenance()
    if expected is None:
        return Check(
            "provenance",
            OK,
            f"stamped {stored.describe()} (the current embedder's provenance needs the model; "
            "not compared)",
        ), stored.dimension
    if stored != expected:
        from .embedders import variables_said

        chosen, back = variables_said(expected, stored)
        return Check(
            "provenance",
            FAILED,
            f"the store was embedded with {stored.describe()}, but this kenning uses "
            f"{expected.describe()}{chosen}",
            f"{back}run `kenning reembed` to re-embed the store with the current model",
        ), stored.dimension
    return Check(
        "provenance", OK, f"stamped {stored.describe()}, matching the current embedder"
    ), stored.dimension


def _usable_embedder(said: str) -> Check:
    """``said`` as an ok provenance check, or a failed one when the current embedder cannot
    embed (then recall, search and remember all fail, whatever the store holds)."""
    problem = embedder_problem()
    if problem is None:
        return Check("provenance", OK, said)
    return Check(
        "provenance",
        FAILED,
        f"{said}, but this kenning cannot embed a query or a note: {problem[0]}",
        problem[1],
    )


def _index(conn: sqlite3.Connection, path: Path, rows: int) -> Check:
    problems: list[str] = []
    fixes: list[str] = []
    fts_rows = int(conn.execute("SELECT count(*) FROM memories_fts_docsize").fetchone()[0])
    if fts_rows != rows:
        problems.append(f"{rows} memories but {fts_rows} full-text rows")
    if problems:
        fixes.append(_rebuild(path))
        return Check("index", FAILED, "; ".join(problems), "; or ".join(fixes))
    if rows == 1:  # and so fts_rows, checked above
        return Check("index", OK, "1 memory, 1 full-text row")
    return Check("index", OK, f"{rows} memories, {fts_rows} full-text rows")


#: Rows decoded per batch by the ``rows`` check (its vectors are checked as one matrix).
ROWS_BATCH = 2000
#: Damaged rows named in the message (the count says the rest).
ROWS_SHOWN = 5


def _rows(
    conn: sqlite3.Connection,
    path: Path,
    dimension: int | None,
    now: datetime,
    wide: list[tuple[str, str, bytes]] | None = None,
) -> Check:
    """Decode every row as the backend does; name each that a read would skip, and each
    stamped further ahead of ``now`` than kenning stores a time (another writer's clock).
    ``wide`` gathers ``(id, text, vector)`` of the sound rows written in full-width or
    half-width characters (:func:`_width_vectors` checks them)."""
    from .backends.sqlite import (
        MEMORY_COLUMN_COUNT,
        RowDamage,
        decode_memory,
        decode_vector,
        memory_columns,
    )
    from .store_write import FUTURE_TOLERANCE
    from .vectors import bad_rows, vector_problem
    from .widths import has_width_forms

    if dimension is None:
        row = conn.execute(
            "SELECT length(embedding) FROM memories GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()
        dimension = int(row[0]) // 4 if row and row[0] else None
    fields: list[str] = []
    vectors: list[str] = []
    future: list[str] = []
    empty: list[str] = []
    kinds: list[str] = []
    hidden_ids: list[str] = []
    horizon = now + FUTURE_TOLERANCE
    total = 0
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    n = MEMORY_COLUMN_COUNT
    cursor = conn.execute(
        f"SELECT {memory_columns(version)}, embedding FROM memories ORDER BY rowid"
    )
    while batch := cursor.fetchmany(ROWS_BATCH):
        total += len(batch)
        sized = []
        for row in batch:
            try:
                memory = decode_memory(row[:n])
            except RowDamage as exc:
                fields.append(f"{row[0]!r}: {exc.column} {exc.reason}")
                continue
            if memory.stored_at > horizon:
                future.append(f"{row[0]!r}: {memory.stored_at.isoformat(timespec='seconds')}")
            if (named := credentials_only(memory)) is not None:
                empty.append(named)
            if (kind := unknown_kind(memory)) is not None:
                kinds.append(kind)
            if (hidden := hidden_in_id(memory)) is not None:
                hidden_ids.append(hidden)
            blob = row[n]
            if dimension is None or not isinstance(blob, bytes) or len(blob) != dimension * 4:
                problem = vector_problem(decode_vector(blob), dimension) or "is not a vector"
                vectors.append(f"{row[0]!r}: vector {problem}")
            else:
                sized.append(row)
                if wide is not None and has_width_forms(memory.content):
                    wide.append((memory.id, memory.content, blob))
        if sized and dimension is not None:
            matrix = np.frombuffer(b"".join(r[n] for r in sized), dtype=np.float32).reshape(
                len(sized), dimension
            )
            for row, bad in zip(sized, bad_rows(matrix), strict=True):
                if bad:
                    found = vector_problem(decode_vector(row[n]), dimension)
                    vectors.append(f"{row[0]!r}: vector {found or 'is not a unit vector'}")
    field_fix = (
        "reads skip these memories; `kenning export --group-id all -o backup.jsonl` keeps "
        f"every other one; {_forget_each(path)}"
    )
    return rows_check(
        total,
        dimension,
        fields,
        vectors,
        future,
        now,
        [field_fix],
        _forget_each(path),
        empty,
        kinds=kinds,
        hidden_ids=hidden_ids,
    )


def hidden_in_id(memory: Memory) -> str | None:
    """How the ``rows`` check names ``memory`` when its id holds a control or invisible
    character (:func:`kenning.safety.hidden_character`; another writer's: kenning makes ids
    of hex digits and dashes), which every listing shows without it, so that the id shown
    names no memory to `kenning forget` or `kenning edit` (qa77 F8): the id escaped, and the
    one shell word that gives it back (:func:`kenning.safety.shell_word`); else None."""
    from .safety import hidden_character, shell_word, shown_name

    if hidden_character(memory.id) is None:
        return None
    return f"{shown_name(memory.id)} (given as {shell_word(memory.id)})"


def unknown_kind(memory: Memory) -> str | None:
    """How the ``rows`` check names ``memory`` when its type is no kenning type or its
    collection is not its type's (another writer set them: kenning stores the pair
    :data:`~kenning.model.TYPE_TO_COLLECTION` gives): ``'ID': type 'bogus' in collection
    'nowhere'``; else None. kenning holds such a note but does not serve it
    (:func:`kenning.model.known_kind`, the one rule), and an import refuses an export
    holding an unknown type (qa72 F4)."""
    if known_kind(memory.type, memory.collection):
        return None
    return f"{memory.id!r}: type {memory.type!r} in collection {memory.collection!r}"


def credentials_only(memory: Memory) -> str | None:
    """How the ``rows`` check names ``memory`` when its text (as stored: redacted) is nothing
    but credentials (:func:`kenning.redaction.only_credentials`), which the write path now
    refuses (:func:`kenning.store_base.check_not_only_credentials`) and a kenning before it
    stored: its id and the kinds of what was redacted, never the text; else None. (A note an
    outside writer left unredacted is not looked for: redacting every row would cost doctor
    ~65 µs a row; the reads show it redacted.)"""
    from .redaction import only_credentials, redaction_markers
    from .render import redaction_counts

    if not only_credentials(memory.content):
        return None
    return f"{memory.id!r}: {redaction_counts(redaction_markers(memory.content))}"


def held_credentials(memory: Memory) -> str | None:
    """The fields of ``memory`` (as stored) that hold a credential in clear, which every read
    shows redacted (:func:`kenning.store_read.redacted_on_read`): ``"content, metadata"``;
    None when it holds none. Another writer left it (an older kenning, another tool):
    kenning redacts what it writes."""
    from .store_read import redacted_on_read

    shown = redacted_on_read(memory)
    if shown is memory:
        return None
    return ", ".join(fields_changed(memory, shown)) or None


def rows_check(
    total: int,
    dimension: int | None,
    fields: list[str],
    vectors: list[str],
    future: list[str],
    now: datetime,
    field_fixes: list[str],
    remove_each: str,
    empty: Sequence[str] = (),
    *,
    scaled: Sequence[str] = (),
    zero: Sequence[str] = (),
    credentials: Sequence[str] = (),
    kinds: Sequence[str] = (),
    hidden_ids: Sequence[str] = (),
    scope: str | None = None,
) -> Check:
    """The ``rows`` check's verdict on ``total`` rows read (every kind of store): the rows
    whose ``fields`` do not decode (with ``field_fixes``), whose ``vectors`` are not finite
    unit vectors of ``dimension``, those stamped ahead of ``now`` (``future``), and those
    that are nothing but credentials (``empty``, as :func:`credentials_only` names them);
    ``remove_each``: how to remove a row doctor names, as this kind of store allows.
    ``scaled``: on a server store, the rows whose finite vector is not of length 1, which
    the server's cosine reads as its direction (a warning: search finds them); ``zero``,
    those whose vector is all zeros, which search scores 0 (a warning); ``credentials``,
    those holding a credential in clear, named with the fields (:func:`held_credentials`:
    a warning, every read shows them redacted); ``kinds``, those of a type or collection
    kenning does not know (as :func:`unknown_kind` names them: a warning); ``hidden_ids``,
    those whose id holds a control or invisible character (as :func:`hidden_in_id` names
    them: a warning, the note is read, but the id a listing shows names nothing). ``scope``:
    whose rows ``total`` counts, when not the whole store's (``project acme/widgets``)."""
    ahead_fix = (
        # kenning refuses such a time on every write: another writer's clock (or damage) left
        # it, and until that date search ranks the note as new and the session-start hook
        # leaves it out
        "for the rows stamped ahead: kenning stores no time more than a day ahead; until "
        "that date search's decay ranks "
        "such a memory as new and the session-start hook leaves it out: if the clock that "
        f"wrote it was wrong, {remove_each}"
    )
    # what is said beside the rows that can be read (a warning) or cannot (a failure)
    notes, note_fixes = [], []
    if future:
        notes.append(_ahead(future, now))
        note_fixes.append(ahead_fix)
    if empty:
        notes.append(
            f"{len(empty)} {'is' if len(empty) == 1 else 'are'} nothing but credentials, "
            f"redacted (stored before kenning refused such notes): {listed(list(empty))}"
        )
        note_fixes.append(
            # (qa-s67a F3) and its own text would only say "[REDACTED:…]": nothing to keep
            "for the notes of nothing but credentials: "
            'such a note says nothing, comes first in a search naming its kind ("github '
            'token") and makes the next one an "identical content" duplicate: remove each '
            "with `kenning forget <id> --group-id all`, and remember instead what the "
            "credential is for, where it is kept and how to rotate it"
        )
    if kinds:
        one = len(kinds) == 1
        notes.append(
            f"{len(kinds)} {'is' if one else 'are'} of a kind kenning does not know "
            f"(another writer set {'its' if one else 'their'} type or collection): "
            f"{listed(list(kinds))}"
        )
        # named for its rows: joined after another fix ("run `kenning reembed`: …"), "such a
        # note" read as that fix's (qa74 F8)
        note_fixes.append(
            f"for the {'row' if one else 'rows'} of a kind kenning does not know: recall and "
            f"search never return {'it' if one else 'them'}, stats counts "
            f"{'it' if one else 'them'} apart, migrate does not copy "
            f"{'it' if one else 'them'} and `kenning import` refuses an export holding an "
            f"unknown type; `kenning edit ID --type TYPE` of {'it' if one else 'each'}"
            f" (TYPE one of {', '.join(TYPE_TO_COLLECTION)}) stores a kenning type and its "
            "collection, or `kenning forget ID --group-id all`"
        )
    if hidden_ids:
        one = len(hidden_ids) == 1
        notes.append(
            f"{len(hidden_ids)} {'has an id' if one else 'have ids'} holding control or "
            f"invisible characters (another writer's: kenning's ids hold none), which "
            f"listings leave out, so the id they show names no memory: {listed(list(hidden_ids))}"
        )
        note_fixes.append(
            f"for the {'row' if one else 'rows'} whose id holds control or invisible "
            "characters (which `kenning edit` refuses): remove each with `kenning forget "
            "<id> --group-id all`, the id given as the shell word named after it (bash, zsh), "
            "after reading its text (recall and search show it) if you want to remember it "
            "again: remembered, it gets a kenning id"
        )
    if scaled:
        notes.append(
            f"{len(scaled)} {'holds a vector' if len(scaled) == 1 else 'hold vectors'} of "
            "another length than 1 (another writer's: kenning writes unit vectors), which the "
            "server's cosine reads as its direction, so search finds and scores "
            f"{'it' if len(scaled) == 1 else 'them'} rightly: {listed(list(scaled))}"
        )
    if zero:
        one = len(zero) == 1
        notes.append(
            f"{len(zero)} {'holds a zero vector' if one else 'hold zero vectors'} (another "
            f"writer's), which {'points' if one else 'point'} nowhere: search scores "
            f"{'its' if one else 'their'} meaning 0 and finds {'it' if one else 'them'} by "
            f"{'its' if one else 'their'} words alone (at most 0.40): {listed(list(zero))}"
        )
    if credentials:
        one = len(credentials) == 1
        notes.append(
            f"{len(credentials)} {'holds' if one else 'hold'} a credential another writer "
            f"left in {'it' if one else 'them'} in clear (an older kenning, another tool): "
            f"every read shows {'it' if one else 'them'} redacted, but the table holds "
            f"{'it' if one else 'them'} as written, in {listed(list(credentials))}"
        )
        note_fixes.append(
            f"`kenning edit ID --content '…'` of {'it' if one else 'each'}, with its text as "
            "recall shows it, stores every field redacted (or `kenning forget ID "
            "--group-id all`); then rotate the credential: it was stored in clear"
        )
    if (scaled or zero) and not vectors:  # (else the failure's fix says it)
        note_fixes.append(
            "`kenning reembed` recomputes such a vector from its note's text, as kenning "
            "writes it (an export writes its direction, of length 1, and leaves a zero "
            "vector out for the import to embed the text)"
        )
    of = f" of {scope}" if scope else ""
    if not fields and not vectors:
        if total == 0:  # an empty store has no model stamped yet: no dimension to name
            return Check("rows", OK, f"no rows{of} yet" if scope else "no rows yet")
        if total == 1:
            decoded = f"1 row{of} decodes; its vector is a finite {dimension}-dimensional " + (
                "vector" if scaled or zero else "unit vector"
            )
        else:
            decoded = (
                f"all {total} rows{of} decode; every vector is a finite "
                f"{dimension}-dimensional " + ("vector" if scaled or zero else "unit vector")
            )
        if not notes:
            return Check("rows", OK, decoded)
        return Check("rows", WARNING, "; ".join([decoded, *notes]), "; ".join(note_fixes))
    problems = fields + vectors
    fixes = []
    if vectors:
        fixes.append(
            "run `kenning reembed`: it recomputes the vectors from the memories' text, which "
            "is intact"
        )
    if fields:
        fixes += field_fixes
    unread = f"{len(problems)} of {total} rows{of} cannot be read as they are: {listed(problems)}"
    return Check("rows", FAILED, "; ".join([unread, *notes]), "; ".join(fixes + note_fixes))


def listed(problems: list[str]) -> str:
    """The first :data:`ROWS_SHOWN` of ``problems``, and how many more."""
    more = len(problems) - ROWS_SHOWN
    return "; ".join(problems[:ROWS_SHOWN]) + (f"; and {more} more" if more > 0 else "")


def _ahead(future: list[str], now: datetime) -> str:
    return (
        f"{len(future)} stamped more than a day ahead of this clock "
        f"({now.isoformat(timespec='seconds')}): {listed(future)}"
    )


def _forget_each(path: Path) -> str:
    """How to remove a row doctor names, keeping its text first (the store's path quoted for
    the shell: a project kept in "~/My Projects" holds a space)."""
    return (
        "remove each with `kenning forget <id> --group-id all`, after reading its text with "
        f'`sqlite3 {shlex.quote(str(path))} "SELECT content FROM memories WHERE id = '
        "'<id>'\"` if you want to remember it again"
    )


def _fts_integrity(path: Path) -> Check | None:
    """FTS5's 'integrity-check' (index against the content table) in a rolled-back write
    transaction; None when it passes."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)"
            )
        except sqlite3.DatabaseError as exc:
            from .backends.sqlite import is_read_only_error

            if "locked" in str(exc) or "busy" in str(exc) or is_read_only_error(exc, path):
                raise  # (not the index's fault: said below)
            return Check(
                "index",
                FAILED,
                f"the full-text index does not match the memories ({exc})",
                _rebuild(path),
            )
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        from .backends.sqlite import is_read_only_error

        if is_read_only_error(exc, path):  # it needs a write transaction (rolled back)
            return Check(
                "index",
                SKIPPED,
                "FTS integrity-check not run: the store is read-only here",
                "run `kenning doctor` where the store can be written to check its index",
            )
        return Check(
            "index",
            SKIPPED,
            f"FTS integrity-check not run: {exc}",
            "run `kenning doctor` again when no other kenning process is writing",
        )
    finally:
        conn.close()
    return None


def _keys_fix(warnings: list[str] | tuple[str, ...], where: Path) -> str:
    """The fix of config.toml's keys that set nothing: each warning says what to do with its
    key (a misspelling's right name, a setting to move above `[decay]`), which "rename or
    remove" alone contradicted (qa77 F10)."""
    moved = any("above [decay]" in w for w in warnings)
    what = "move, rename or remove" if moved else "rename or remove"
    return f"{what} those keys in {where}, as each warning says"


def _settings(folder: Path, project_root: Path | None) -> Check:
    """The settings file beside the store: readable, every value one kenning accepts (else
    every command that reads settings fails), and every key one kenning reads (a misspelt
    key does nothing, silently); then the values the project's ``.env`` and the environment
    set over it, which fail every command as well; and a ``.env`` that cannot be read, or
    ``KENNING_*`` lines of it that are not (every command says so once on stderr, and goes
    on without them)."""
    where = folder / config.CONFIG_FILENAME
    try:
        warnings = config.config_warnings(folder)
    except KenningError as exc:
        return Check("settings", FAILED, str(exc), f"fix or remove {where}")
    try:  # its values alone (not the environment's or .env's): every command reads them
        config.load_settings(None, folder, environ={}).check()
    except KenningError as exc:
        return Check("settings", FAILED, str(exc), f"correct what it names in {where}")
    try:
        settings = config.load_settings(project_root, folder)
        settings.check()  # (each said by what reads it: all of them here)
    except KenningError as exc:  # the message names the variable and where it was set
        if warnings:  # the file's own keys first: they are what every command reads
            return Check("settings", FAILED, "; ".join(warnings), _keys_fix(warnings, where))
        return Check("settings", FAILED, str(exc), "correct or unset that variable")
    unread = config.unread_project_settings(project_root, folder)
    dotenv_warnings = [w for w in settings.warnings if w != unread and w not in warnings]
    if warnings:
        # the .env's keys that set nothing named with them: two mistakes, one run
        dotenv_file = project_root / ".env" if project_root else ".env"
        also = f", and those variables of {dotenv_file}" if dotenv_warnings else ""
        return Check(
            "settings",
            FAILED,
            "; ".join([*warnings, *dotenv_warnings]),
            f"{_keys_fix(warnings, where)}{also}",
        )
    if dotenv_warnings:  # config.toml has none (above): the .env's keys that set nothing
        return Check(
            "settings",
            FAILED,
            "; ".join(dotenv_warnings),
            f"rename, remove or export those variables of {project_root / '.env'}"
            if project_root
            else "rename or remove those variables",
        )
    dotenv_path = project_root / ".env" if project_root else None
    dotenv = config.read_dotenv(dotenv_path) if dotenv_path else None
    if dotenv is not None and dotenv.unread_lines:  # KENNING_* lines written that do nothing
        return Check(
            "settings",
            FAILED,
            "; ".join(dotenv.unread_lines),
            f"correct those lines of {dotenv_path}",
        )
    from .backends.annindex import DEFAULT_MIN_ROWS

    problems = config.process_problems(DEFAULT_MIN_ROWS)
    if problems:
        return Check("settings", FAILED, "; ".join(problems), "correct or unset those variables")
    if dotenv is not None and dotenv.unreadable is not None:
        # every command works (a .env is other tools' too); the settings it may hold do not
        return Check(
            "settings",
            WARNING,
            dotenv.unreadable,
            f"make {dotenv_path} a readable UTF-8 file, or remove it",
        )
    if unread is not None and project_root is not None:
        # every command works; the project's settings do not apply
        return Check(
            "settings",
            WARNING,
            unread,
            f"copy the settings of {project_root / '.kenning' / config.CONFIG_FILENAME} into "
            f"{where}",
        )
    if not where.is_file():
        return Check("settings", OK, f"no {where}: every setting has its default")
    return Check("settings", OK, f"{where}: every key is a setting")


def run_doctor(
    store_path: str | Path | None = None,
    cwd: Path | None = None,
    *,
    now: datetime | None = None,
) -> DoctorReport:
    """Check the store of the project containing ``cwd`` (or ``store_path``: a store file
    or folder, or a server's URL), and the settings file beside it (``now``: the time rows
    are judged against, this clock's)."""
    from .project import git_asked_once

    # the project is found for the store's location, the store, its settings and the
    # checks that read them: git was asked the same two questions three or four times (7
    # gits, ~2 ms of CPU each, where 2 answer them all); a doctor moves no checkout and
    # changes no remote, so each question has one answer while it runs
    with git_asked_once():
        return _doctor_report(store_path, cwd, now)


def _doctor_report(
    store_path: str | Path | None, cwd: Path | None, now: datetime | None
) -> DoctorReport:
    url = None
    if isinstance(store_path, str) and config.is_store_url(store_path):
        url, store_path = store_path.strip(), None
    path = Path(store_path) if store_path is not None else None
    located = _locate(path, cwd, url)
    if located.url is not None:
        from .doctor_server import check_server_store

        report = check_server_store(located.url, located.check, located.project, now or utc_now())
        project = located.project
        settings = (
            _settings(project.store_path.parent, project.dotenv_root or project.root)
            if project is not None
            else Check("settings", SKIPPED, "no project here, so no settings file to read")
        )
        checks: tuple[Check, ...] = (*report.checks, settings)
        if url is not None and report.store is not None:
            # the store as the report names it: a password in the URL is left out (libpq
            # reads it from PGPASSWORD or ~/.pgpass)
            checks = tuple(_naming_store(c, report.store) for c in checks)
        checks = upgrade_first(checks)
        return replace(report, checks=tuple(_without_secrets(c) for c in checks))
    report = _check_store(located, path, cwd, now)
    if report.store is not None:
        root = _project_root(path, cwd)
        settings = _settings(Path(report.store).parent, root)
        report = DoctorReport(report.store, (*report.checks, settings))
    checks = report.checks
    if path is not None and report.store is not None:
        named = report.store
        checks = tuple(_naming_store(c, named) for c in checks)
    checks = upgrade_first(checks)
    return DoctorReport(report.store, tuple(_without_secrets(c) for c in checks))


#: A kenning command a fix prints, up to its closing backquote, unless it names a store.
_FIX_COMMAND = re.compile(r"`kenning ([a-z][a-z-]*)(?![^`]*--store)")


def _naming_store(check: Check, store: str) -> Check:
    """``check`` with ``--store STORE`` in every kenning command its fix prints: run as
    printed without it (`kenning reembed`), the command works on the project's default store
    (or KENNING_STORE's), not on the store named with ``--store`` that doctor checked."""
    if not check.fix:
        return check
    fix = _FIX_COMMAND.sub(lambda m: f"`kenning {m[1]} --store {shlex.quote(store)}", check.fix)
    return check if fix == check.fix else Check(check.name, check.status, check.message, fix)


def _without_secrets(check: Check) -> Check:
    """``check`` with credentials in its message and fix redacted: they quote values read
    from files (a token pasted into the wrong line of .env), and a report is pasted into
    bug reports — as every command's error line, it holds no secret."""
    from .redaction import redact_secrets

    message = redact_secrets(check.message)[0]
    fix = redact_secrets(check.fix)[0] if check.fix else check.fix
    if message == check.message and fix == check.fix:
        return check
    return Check(check.name, check.status, message, fix)


def _project_root(store_path: Path | None, cwd: Path | None) -> Path | None:
    """The checkout whose ``.env`` the commands read (None outside one)."""
    from .project import resolve_project

    try:
        project = resolve_project(cwd, None, store_path)
    except KenningError:
        return None
    return project.dotenv_root or project.root


def _check_store(
    located: _Located, store_path: Path | None, cwd: Path | None, now: datetime | None
) -> DoctorReport:
    checks: list[Check] = []
    path, location = located.path, located.check
    checks.append(location)
    names = ("store", "schema", "integrity", "provenance", "index", "rows", "project")

    def skip(after: str, why: str) -> DoctorReport:
        for name in names[names.index(after) + 1 :] if after in names else names:
            checks.append(Check(name, SKIPPED, why))
        return DoctorReport(str(path) if path else None, tuple(checks))

    if path is None:
        return skip("", "no store to check")
    if not path.exists():
        from .project import file_in_the_way

        blocking = file_in_the_way(path)
        if blocking is not None:  # every write would fail to create the store
            checks.append(
                Check(
                    "store",
                    FAILED,
                    f"no store at {path}, and none can be created: {blocking} is a file, not "
                    "a folder",
                    f"move {blocking} aside (or set KENNING_STORE to another path)",
                )
            )
            return skip("store", "no store, and none can be created")
        if location.status == WARNING:
            # named with --store outside this project (or with none here): nothing to check,
            # and no remember from here creates it (the write guard refuses it)
            checks.append(
                Check(
                    "store",
                    FAILED,
                    f"no store at {path}: the store named with --store does not exist",
                    "check the path given with --store (a backup's name, a store moved aside)",
                )
            )
            return skip("store", "no store at the path named with --store")
        checks.append(Check("store", OK, f"no store yet at {path}; `kenning remember` creates it"))
        return skip("store", "no store yet")
    if path.is_dir():
        checks.append(
            Check("store", FAILED, f"{path} is a folder, not a store file", f"move {path} aside")
        )
        return skip("store", "the store could not be opened")
    try:
        conn, read_only = _open_readonly(path)
    except sqlite3.DatabaseError as exc:
        from .backends.sqlite import has_sqlite_header, is_disk_full_error
        from .project import STORE_FILENAME

        if path.name != STORE_FILENAME and not has_sqlite_header(path):
            # never a database, and not kenning's file name: the wrong file named (as every
            # command says), not a store to move aside and restore
            checks.append(
                Check(
                    "store",
                    FAILED,
                    f"{path} is not a kenning store (not an SQLite database at all); kenning "
                    "leaves it as it is",
                    "point --store or KENNING_STORE at a kenning store (by default <git top "
                    f"level>/.kenning/memory.db); only if it was one: {_recovery(path)}",
                )
            )
        elif is_disk_full_error(exc, path):
            # a healthy store on a full disk: moving it aside would lose what a backup lacks
            checks.append(
                Check(
                    "store",
                    FAILED,
                    f"SQLite cannot open {path}: the disk holding it is full ({exc}); the "
                    "store is not damaged",
                    f"free some space on the disk of {path.parent}, then run `kenning doctor` "
                    "again; do not move the store aside",
                )
            )
        else:
            checks.append(
                Check("store", FAILED, f"SQLite cannot read {path}: {exc}", _recovery(path))
            )
        return skip("store", "the store could not be opened")
    try:
        from .backends.sqlite import store_bytes, unread_wal, unread_wal_note

        size = store_bytes(path)
        # a store file that is a link is written where the file it names is: its -wal and
        # -shm go beside that one (qa-s68c S2)
        folder = path.resolve().parent
        if located.guarded:
            # refused by the guard whatever its files allow: naming a read-only folder beside
            # the location check's cause sent the user to the wrong fix (qa-s68c S2)
            checks.append(
                Check(
                    "store",
                    OK,
                    f"{path} opens ({size} bytes with its WAL and the vector and ANN files "
                    "kenning keeps beside it); writes to it from here are refused by the "
                    "store-location guard (the location check), not by its files",
                )
            )
        elif read_only and (wal := unread_wal(path)) is not None:
            checks.append(
                Check(
                    "store",
                    WARNING,
                    f"{path} can be read but not written, and not whole: "
                    f"{unread_wal_note(wal)} (recall and search work without those writes, "
                    "and so do these checks; remember, edit, forget and import fail)",
                    f"make {folder} writable by you and run any kenning command (on a "
                    f"read-only mount: copy {path.name} and {wal.name} together into a "
                    "writable folder and open that copy)",
                )
            )
        elif read_only:
            checks.append(
                Check(
                    "store",
                    WARNING,
                    f"{path} can be read but not written: its folder or file is read-only "
                    "(recall and search work; remember, edit, forget and import fail)",
                    f"make {folder} and the files in it writable by you",
                )
            )
        elif not os.access(folder, os.W_OK):
            # what a write does, not what the folder's mode suggests: the store, its -wal and
            # its -shm are written in place (qa-s67c F3: doctor said "remember fails" of a
            # store remember wrote, and the ui offered edits)
            checks.append(
                Check(
                    "store",
                    WARNING,
                    f"{path} is written in place: its folder is read-only, but the store and "
                    f"its {path.name}-wal and -shm can be written (remember, edit, forget and "
                    "import work); a file kenning creates or replaces beside it cannot be (the "
                    "vector file that speeds search up is then kept in memory), and once the "
                    "-wal and -shm are removed the store turns read-only",
                    f"make {folder} writable by you",
                )
            )
        else:
            checks.append(
                Check(
                    "store",
                    OK,
                    f"{path} opens ({size} bytes with its WAL and the vector and ANN files "
                    "kenning keeps beside it)",
                )
            )
        try:
            schema = _schema(conn, path)
        except sqlite3.DatabaseError as exc:
            schema = Check("schema", FAILED, f"cannot read the schema: {exc}", _recovery(path))
        checks.append(schema)
        if schema.status == FAILED:
            return skip("schema", "the schema is not usable")
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            return skip("schema", "the store file is empty")
        try:
            integrity = _integrity(conn, path)
        except sqlite3.DatabaseError as exc:
            integrity = Check(
                "integrity", FAILED, f"PRAGMA integrity_check failed: {exc}", _recovery(path)
            )
        checks.append(integrity)
        rows, dimension = 0, None
        try:
            rows = int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
            provenance, dimension = _provenance(conn, path, rows)
        except sqlite3.DatabaseError as exc:
            provenance = Check(
                "provenance", FAILED, f"cannot read the store: {exc}", _recovery(path)
            )
        checks.append(provenance)
        try:
            index = _index(conn, path, rows)
        except sqlite3.DatabaseError as exc:
            index = Check("index", FAILED, f"cannot read the index: {exc}", _recovery(path))
        if index.status == OK and integrity.status == OK:
            index = _fts_integrity(path) or index
        if index.status == OK:
            index = _derived_in_the_way(path) or index
        if index.status == OK:
            try:
                index = _derived_damaged(conn, path, dimension) or index
            except sqlite3.DatabaseError as exc:
                index = Check("index", FAILED, f"cannot read the vectors: {exc}", _recovery(path))
        checks.append(index)
        wide: list[tuple[str, str, bytes]] = []
        try:
            rows_check = _rows(conn, path, dimension, now or utc_now(), wide)
        except sqlite3.DatabaseError as exc:
            rows_check = Check("rows", FAILED, f"cannot read the rows: {exc}", _recovery(path))
        if wide and rows_check.status == OK and provenance.status == OK:
            rows_check = _width_vectors(rows_check, wide) or rows_check
        checks.append(rows_check)
        checks.append(
            _project_check(conn, store_path, cwd)
            if rows
            else Check("project", SKIPPED, "no memories yet")
        )
    finally:
        conn.close()
    return DoctorReport(str(path), tuple(checks))


def _derived_in_the_way(path: Path) -> Check | None:
    """A warning when a folder, a pipe or a device is where the store's vector file or
    graph goes (a checkout's .kenning can carry one): kenning cannot write it there, and
    every search scans the database instead (slower, with the same results)."""
    import shlex

    from .backends.vectorfile import not_a_file

    for suffix in (".vectors", ".ann"):
        derived = path.with_name(path.name + suffix)
        if not_a_file(derived):
            return Check(
                "index",
                WARNING,
                f"{derived} is not a file (a folder, a pipe or a device) but where kenning "
                "keeps the store's search index: every search scans the database instead, "
                "slower, with the same results",
                f"remove it (`rm -r {shlex.quote(str(derived))}`); the next write makes "
                "the file again",
            )
    return None


def _derived_damaged(conn: sqlite3.Connection, path: Path, dimension: int | None) -> Check | None:
    """The derived files beside the store, checked whole (searches check less, to stay
    fast): every record of ``memory.db.vectors`` against its memory's vector (a damaged one
    hid that memory from every search: failed), and ``memory.db.ann`` against its checksum
    (kenning does not use a damaged one: a warning). None when both are sound, missing, or
    out of step in a way the next search mends by itself."""
    import shlex

    from .backends.annindex import DAMAGED, examine
    from .backends.vectorfile import Row, StoreState, damaged_records, damaged_vector_positions

    dim = dimension or 0
    if not dim:  # not stamped: the first row's, as the vector file's writer takes it
        first = conn.execute("SELECT length(embedding) FROM memories LIMIT 1").fetchone()
        dim = int(first[0]) // 4 if first and first[0] else 0

    def fetch(rowids: Sequence[int]) -> list[Row]:
        """The rows as the vector file's writer reads them: a damaged vector as zeros."""
        rows: list[Row] = []
        for start in range(0, len(rowids), 900):  # (SQLite before 3.32 binds at most 999)
            chunk = list(rowids[start : start + 900])
            marks = ",".join("?" * len(chunk))
            rows += conn.execute(
                "SELECT rowid, group_id, collection, type, embedding FROM memories "
                f"WHERE rowid IN ({marks})",
                chunk,
            ).fetchall()
        rows.sort(key=lambda r: r[0])
        for i in damaged_vector_positions(rows, dim):
            rows[i] = (*rows[i][:4], bytes(dim * 4))
        return rows

    found: list[tuple[str, str, str]] = []  # status, message, fix
    vectors = path.with_name(path.name + ".vectors")
    has_state = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vector_state'"
    ).fetchone()
    if has_state and dim:  # else (before schema 5) the vectors stay in memory only
        conn.execute("BEGIN")  # one snapshot: a writer meanwhile cannot look like damage
        try:
            token, deletes, updates = conn.execute(
                "SELECT token, deletes, updates FROM vector_state"
            ).fetchone()
            count, max_rowid = conn.execute(
                "SELECT count(*), coalesce(max(rowid), 0) FROM memories"
            ).fetchone()
            state = StoreState(str(token), int(deletes), int(updates), int(count), int(max_rowid))
            compared = damaged_records(vectors, state, dim, fetch)
            damaged = compared[1] if compared else []
            named: list[str] = []
            for start in range(0, len(damaged), 900):
                chunk = damaged[start : start + 900]
                marks = ",".join("?" * len(chunk))
                named += [
                    repr(r[0])
                    for r in conn.execute(
                        f"SELECT id FROM memories WHERE rowid IN ({marks}) ORDER BY rowid", chunk
                    )
                ]
        finally:
            conn.rollback()
        if damaged:
            n = len(damaged)
            unnamed = n - len(named)
            which = listed(named) if named else ""
            if unnamed:
                which += f"{' and ' if named else ''}{unnamed} whose rowid is damaged"
            found.append(
                (
                    FAILED,
                    f"{vectors} does not match the database: {n} of its records "
                    f"{'is' if n == 1 else 'are'} not what the memory's vector quantises to "
                    "(damaged bytes), so search and recall can miss those memories: "
                    f"{which}",
                    f"delete it (`rm {shlex.quote(str(vectors))}`): it holds no text, and the "
                    "next search rebuilds it from the database",
                )
            )
    ann = path.with_name(path.name + ".ann")
    if os.path.lexists(ann) and examine(ann) == DAMAGED:
        found.append(
            (
                WARNING,
                f"{ann} is damaged (it fails its checksum, or is cut short): kenning does not "
                "use it, so the searches that would ask it scan every row instead, slower, "
                "with the same results",
                f"delete it (`rm {shlex.quote(str(ann))}`): it holds no text, and the next "
                "search past KENNING_ANN_MIN_ROWS rebuilds it in the background",
            )
        )
    if not found:
        return None
    status = FAILED if any(f[0] == FAILED for f in found) else WARNING
    return Check("index", status, "; ".join(f[1] for f in found), "; ".join(f[2] for f in found))


#: Notes written in full-width or half-width characters whose vectors the ``rows`` check
#: embeds again, at most (an upgraded store holds a few; the count says the rest).
WIDE_CHECKED = 256


def _width_vectors(rows: Check, wide: list[tuple[str, str, bytes]]) -> Check | None:
    """``rows`` with a warning when notes written in full-width or half-width characters
    hold vectors the model no longer makes of them: an older kenning embedded such text as
    written (unknown word pieces), and recall misses those notes until `kenning reembed`
    recomputes them; None when they hold the model's. Loads the model, only for a store
    that holds such notes."""
    from .embedders import load_embedder
    from .reembed import vector_changed

    try:
        embedder = load_embedder(config.embedder_name())
        checked = wide[:WIDE_CHECKED]
        matrix = embedder.embed([text for _, text, _ in checked])
    except Exception:  # the provenance check says what is wrong with the embedder
        return None
    stale = [
        memory_id
        for (memory_id, _, blob), vector in zip(checked, matrix, strict=True)
        if vector_changed(np.frombuffer(blob, dtype=np.float32), vector)
    ]
    if not stale:
        return None
    more = f" (of the first {WIDE_CHECKED} checked)" if len(wide) > WIDE_CHECKED else ""
    n = len(stale)
    return Check(
        "rows",
        WARNING,
        f"{rows.message}; {n} {'memory' if n == 1 else 'memories'}{more} written in full-width "
        f"or half-width characters {'holds a vector' if n == 1 else 'hold vectors'} an older "
        f"kenning made of the text as written, which recall misses: "
        f"{listed([repr(i) for i in stale])}",
        "run `kenning reembed`: it recomputes those vectors from the text (and leaves the others)",
    )


def _project_check(conn: sqlite3.Connection, store_path: Path | None, cwd: Path | None) -> Check:
    """Whether this project has memories in the store, when it holds others'. A renamed
    repository or a changed ``origin`` gives the project a new id; every recall and search
    then finds nothing, and every other check passes."""
    from .backends.sqlite import projects_alike, projects_if_absent
    from .project import resolve_project

    try:
        project = resolve_project(cwd, None, store_path)
    except KenningError:  # said by the location check
        return Check("project", SKIPPED, "no project here")
    try:
        others = projects_if_absent(conn, project.group_id, 3)
        alike = {} if others else projects_alike(conn, project.group_id, 3)
        # the id the folder's name gave the checkout before its origin remote was added
        from .project import earlier_group_id

        earlier = None if others else earlier_group_id(project)
        if earlier is not None:
            row = conn.execute(
                "SELECT count(*) FROM memories WHERE group_id = ?", (earlier,)
            ).fetchone()
            if row[0]:
                alike = {earlier: int(row[0])} | alike
    except sqlite3.DatabaseError as exc:  # a damaged page: said by the integrity check
        return Check("project", SKIPPED, f"cannot read the rows: {exc}")
    return project_check(project, others, alike)


def project_check(project: Project, others: Mapping[str, int], alike: Mapping[str, int]) -> Check:
    """The ``project`` check of a store that holds memories: a warning naming ``others``
    (the ids it holds them under, when none is this project's) or ``alike`` (ids of this
    repository's beside this project's own), each with its fix."""
    from .project import guards_a_path
    from .render import alike_projects_line, other_projects_line, them_words

    if alike:
        first = shlex.quote(next(iter(alike)))
        them, are = them_words(next(iter(alike.values())))
        notes = "note" if them == "it" else "notes"
        return Check(
            "project",
            WARNING,
            alike_projects_line(
                project.group_id, alike, one_checkout=guards_a_path(project.store_url)
            ),
            f"if {are} this project's {notes}, `kenning move --from-project {first}` moves "
            f"{them} into it (`--dry-run` first shows what), or pass --project {first} to a "
            f"command to read {them} (recall, search, export); if {are} another project's, "
            "nothing is wrong",
        )
    if not others:
        return Check("project", OK, f"memories of project {project.group_id} are stored here")
    first = shlex.quote(next(iter(others)))
    them, _ = them_words(next(iter(others.values())))
    notes = "that is this project's note" if them == "it" else "those are this project's notes"
    return Check(
        "project",
        WARNING,
        other_projects_line(project.group_id, others, fix=False),
        f"if {notes}, `kenning move --from-project {first}` moves "
        f"{them} into project {project.group_id} (`--dry-run` first shows what); to keep "
        f"{them} under {first} instead, put KENNING_PROJECT={first} in "
        f"{(project.dotenv_root or project.root) / '.env'} (or in the environment of every "
        "client)",
    )
