"""The embedded default backend: one SQLite file (WAL) holding rows, vectors and FTS5.

Vectors are float32 BLOBs beside their rows: the source of truth. Vector search scans
``memory.db.vectors``, a memory-mapped int8 copy kept in step with them
(:mod:`kenning.backends.vectorfile`: exact top-k, re-scored from the BLOBs), brought up to
date when ``PRAGMA data_version`` (other writers) or our own write counter says the table
changed. A search whose scan would read more rows than ``KENNING_ANN_MIN_ROWS`` (1M by
default) asks ``memory.db.ann`` instead, an HNSW graph built in the background and kept in step the
same way (:mod:`kenning.backends.annindex`: its candidates re-scored exactly). Lexical search
is FTS5 BM25 over the full content (the embedding sees only the first 256 word pieces; FTS
sees everything), ranked in the FTS index before any row is
read; document frequencies and row counts are cached per store version.

Several processes may write at once: every connection waits on a busy timeout, and a
check-then-write (dedup) runs inside ``BEGIN IMMEDIATE`` so two writers cannot both decide
that a note is new. ``synchronous=FULL`` makes an acknowledged write durable.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import logging
import os
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .. import config
from ..errors import (
    DiskFull,
    KenningError,
    NotAKenningStore,
    StoreClosed,
    StoreCorrupted,
    StoreNotFound,
    StoreWriteFailed,
)
from ..lexical import FULL_WIDTH_FIRST, FULL_WIDTH_LAST, MAX_QUERY_TERMS, spellings
from ..lexical import query_terms as lexical_terms
from ..model import Memory, Provenance, parse_timestamp
from ..project import STORE_FILENAME, file_in_the_way
from ..protocol import MAX_CONTENT_BYTES, MAX_SEEN_COUNT
from ..vectors import bad_rows, checked_cosine, vector_problem
from . import annindex, compat
from .annindex import AnnFile, AnnView
from .base import (
    CONTENT_CHARS_SURELY_STORED,
    METADATA_CHARS_SURELY_STORED,
    PROVENANCE_KEY,
    DamagedRow,
    Filters,
    MemoryRecord,
    MetadataEntry,
    ScoredMemory,
    TermStatistics,
    batch_dimension,
    blank_reason,
    check_dimension,
    decode_provenance,
    duplicate_content,
    each_memory_once,
    encode_metadata,
    encode_provenance,
    forks_so_far,
    give_up_if_unwanted,
    oldest_first,
    oversize_reason,
    renew_after_fork,
    terms_to_match,
)
from .vectorfile import (
    BUILD_BATCH,
    Row,
    StoreState,
    VectorFile,
    VectorIndex,
    damaged_vector_positions,
)

#: Numbered migrations; ``PRAGMA user_version`` records the last one applied.
MIGRATIONS: tuple[str, ...] = (
    # 1: rows, vectors, filter index, FTS5 kept in sync by triggers, key/value metadata.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE memories (
        rowid INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        content TEXT NOT NULL,
        collection TEXT NOT NULL,
        type TEXT NOT NULL,
        group_id TEXT NOT NULL,
        stored_at TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        source TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        metadata TEXT NOT NULL DEFAULT '{}',
        embedding BLOB NOT NULL
    );
    CREATE UNIQUE INDEX memories_group_hash ON memories (group_id, content_hash);
    CREATE INDEX memories_filter ON memories (group_id, collection, type);
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        content, content='memories', content_rowid='rowid',
        tokenize='unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content)
        VALUES ('delete', old.rowid, old.content);
    END;
    CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content)
        VALUES ('delete', old.rowid, old.content);
        INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    """,
    # 2: exact error-fingerprint lookup (hybrid retrieval matches it first).
    """
    CREATE INDEX memories_fingerprint
        ON memories (json_extract(metadata, '$.error_fingerprint'))
        WHERE json_extract(metadata, '$.error_fingerprint') IS NOT NULL;
    """,
    # 3: document frequencies of FTS terms, to leave near-ubiquitous words out of queries.
    """
    CREATE VIRTUAL TABLE memories_terms USING fts5vocab (memories_fts, 'row');
    """,
    # 4: the newest memories of a project and type (the session-start hook) from the index
    # alone, without reading every row.
    """
    CREATE INDEX IF NOT EXISTS memories_recent ON memories (group_id, type, stored_at, id);
    """,
    # 5: what the vector file (vectorfile.py) checks itself against: this database's random
    # token and counters of deleted rows and of rows whose vector or filter columns changed.
    """
    CREATE TABLE IF NOT EXISTS vector_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        token TEXT NOT NULL,
        deletes INTEGER NOT NULL,
        updates INTEGER NOT NULL
    );
    INSERT OR IGNORE INTO vector_state (id, token, deletes, updates)
        VALUES (1, lower(hex(randomblob(16))), 0, 0);
    CREATE TRIGGER IF NOT EXISTS memories_vector_delete AFTER DELETE ON memories BEGIN
        UPDATE vector_state SET deletes = deletes + 1;
    END;
    CREATE TRIGGER IF NOT EXISTS memories_vector_update
        AFTER UPDATE OF rowid, embedding, group_id, collection, type ON memories BEGIN
        UPDATE vector_state SET updates = updates + 1;
    END;
    """,
    # 6: how often and when a memory was last remembered (a near-duplicate refreshes it);
    # NULL last_seen_at means "not since it was stored". The full-text row is rewritten only
    # when the content changes, not when a sighting or a vector is recorded (re-embedding
    # used to re-index every row). The index is optimised, which drops the terms of rows
    # deleted before (an FTS5 delete only adds a tombstone), and a store migrated to 6 is
    # VACUUMed once: it was written without secure_delete, so its free pages may still hold
    # text of deleted rows (see SQLiteBackend.delete).
    """
    ALTER TABLE memories ADD COLUMN last_seen_at TEXT;
    ALTER TABLE memories ADD COLUMN seen_count INTEGER NOT NULL DEFAULT 1;
    DROP TRIGGER memories_au;
    CREATE TRIGGER memories_au AFTER UPDATE OF content ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content)
        VALUES ('delete', old.rowid, old.content);
        INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    INSERT INTO memories_fts (memories_fts) VALUES ('optimize');
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
#: What each migration asks of a kenning that opens a store it brought up (see
#: :mod:`kenning.backends.compat`): 1 made the store; 2–5 added indexes, a derived table
#: and triggers; 6 added columns with defaults, but a writer must delete with
#: secure_delete on (and record sightings), so only a kenning of 6 or later writes it.
MIGRATION_RAISES: tuple[compat.Raises, ...] = (
    compat.BOTH,
    compat.NEITHER,
    compat.NEITHER,
    compat.NEITHER,
    compat.NEITHER,
    compat.WRITERS,
)
assert len(MIGRATION_RAISES) == SCHEMA_VERSION
#: The first schema version written with secure_delete on: a store older than this is
#: VACUUMed when it is migrated, so no text of a deleted row survives in its free pages.
SECURE_DELETE_SINCE = 6
#: The meta key of a VACUUM a migration to :data:`SECURE_DELETE_SINCE` still owes: set in the
#: migration's transaction, removed once the VACUUM ran. Owed until a write finds the room
#: the VACUUM needs (see :func:`vacuum_needs`).
VACUUM_OWED_KEY = "vacuum_owed"

BUSY_TIMEOUT_S = 30.0
#: The page size of a new store. A row holds a 1,536-byte vector besides its text, so most
#: rows are 2–3 KB: with SQLite's default 4 KB pages one row fitted a page and the rest of
#: it was empty. Measured on bench/recall.py's notes (~340 characters, each naming a
#: file): 4,533 bytes per memory on disk with 4 KB pages, 3,179 with 8 KB, 2,834 with 16 KB,
#: 2,781 with 32 KB; warm recall the same with 4 and 16 KB (1.47–1.48× the embedding).
PAGE_SIZE = 16384
_COLUMNS = (
    "id, content, collection, type, group_id, stored_at, content_hash, source, tags, metadata, "
    "last_seen_at, seen_count"
)
#: What a store of this schema version holds (``kenning doctor`` checks against these).
REQUIRED_TABLES = ("meta", "memories", "memories_fts", "memories_terms", "vector_state")
#: The shadow tables SQLite keeps the FTS5 index in (its content is the memories table).
#: Without one of them a full-text query or a write fails with SQLite's generic error ("SQL
#: logic error", "no such fts5 table"); an open does not check them, so that `kenning
#: export` can still read the rows out of such a store.
FTS_SHADOW_TABLES = (
    "memories_fts_data",
    "memories_fts_idx",
    "memories_fts_docsize",
    "memories_fts_config",
)
#: The full-text index: the FTS5 table, its vocabulary view and their shadow tables. A
#: store that lost any of them still opens (its rows are intact: `kenning export` reads them
#: out for the rebuild); its full-text queries and writes raise :class:`StoreCorrupted`.
FULL_TEXT_TABLES = ("memories_fts", "memories_terms", *FTS_SHADOW_TABLES)
#: Tables beside the memories that a read can do without: the store's stamps (``meta``: a
#: lost provenance reads as "not stamped", and an export re-embeds) and the vector file's
#: counters (``vector_state``: vectors are then indexed in memory, as in a store older than
#: schema 5). A store that lost one still opens, so that `kenning export` reads its intact
#: rows out for the rebuild; its writes raise :class:`StoreCorrupted`.
STATE_TABLES = ("meta", "vector_state")
REQUIRED_COLUMNS = (*(c.strip() for c in _COLUMNS.split(",")), "embedding")
#: How many leading values of a row are :data:`_COLUMNS` (what follows is extra).
_NCOLUMNS = len(_COLUMNS.split(","))
#: Added by migration 6. A reader does not migrate (a read never writes the schema), so on
#: an older store they are read as their defaults: not seen again since stored.
SEEN_COLUMNS = ("last_seen_at", "seen_count")
SEEN_SINCE = 6
_COLUMNS_BEFORE_SEEN = _COLUMNS.replace("last_seen_at, seen_count", "NULL, 1")
#: How many values :func:`decode_memory` reads from the front of a row.
MEMORY_COLUMN_COUNT = _NCOLUMNS


def memory_columns(version: int) -> str:
    """What a SELECT names for the columns :func:`decode_memory` reads, on a store of schema
    ``version`` (before migration 6 the seen columns are read as their defaults)."""
    return _COLUMNS if version >= SEEN_SINCE else _COLUMNS_BEFORE_SEEN


#: The schema version that added each table after the first (older stores lack them).
TABLE_SINCE = {"memories_terms": 3, "vector_state": 5}
#: Tables only kenning creates: a SQLite file with tables but none of these is another
#: application's database, which kenning refuses to read or change.
STORE_TABLES = ("meta", "memories")

log = logging.getLogger("kenning")
#: Rows by ``(group_id, collection, type)`` as stored.
_Counts = dict[tuple[object, object, object], int]


def required_tables(version: int) -> tuple[str, ...]:
    """The tables a store of schema ``version`` must hold."""
    return tuple(t for t in REQUIRED_TABLES if TABLE_SINCE.get(t, 1) <= version)


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements (trigger bodies included), so that it runs inside
    our transaction; ``executescript`` would commit first."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()


def has_sqlite_header(path: Path) -> bool:
    """Does the file start as every SQLite database does?"""
    try:
        with path.open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return True  # unreadable: say what SQLite said


#: The files of a store: its database, the WAL and its index, the vector file and the
#: HNSW graph (named by appending these to the database's name).
STORE_FILE_SUFFIXES = ("", "-wal", "-shm", ".vectors", ".ann")
#: The other files kenning keeps beside them: SQLite's rollback journal, the graph
#: builder's lock and log, and a running re-embedding's lock.
STORE_SIDE_FILE_SUFFIXES = ("-journal", ".ann.lock", ".ann.log", ".reembed.lock")


def store_files(path: Path) -> list[Path]:
    """Every file of the store whose database is ``path``, there or not: what no other
    file may be written over (an export over ``memory.db.vectors`` is overwritten in turn
    when the store next rebuilds it, and the backup is gone)."""
    return [path.with_name(path.name + s) for s in STORE_FILE_SUFFIXES + STORE_SIDE_FILE_SUFFIXES]


def store_bytes(path: Path) -> int:
    """The bytes the store at ``path`` takes: its own files only — not a copy kept beside
    it (``memory.db.bak``) or a sync tool's conflicted copy, which a glob of ``memory.db*``
    counted too (and a name with a glob character in it matched nothing)."""
    total = 0
    for suffix in STORE_FILE_SUFFIXES:
        with contextlib.suppress(OSError):  # not there (no WAL now), or gone meanwhile
            total += os.stat(f"{path}{suffix}").st_size
    return total


def _recovery_hint(path: Path) -> str:
    return (
        f"move {path} aside, then restore from a backup with `kenning import <backup.jsonl>` "
        "(or run `kenning doctor` for details)"
    )


class RowDamage(ValueError):
    """A stored field that does not decode. ``column`` names it; the message says how."""

    def __init__(self, column: str, reason: str) -> None:
        super().__init__(f"{column} {reason}")
        self.column = column
        self.reason = reason


class NotUtf8(bytes):
    """A stored text value that is not UTF-8 (another writer's), as its bytes: SQLite's
    default decoding raised for it, and the whole query with it (every note lost for one
    row), where a row damaged otherwise is skipped alone."""


def decode_text(data: bytes) -> str | bytes:
    """How the connection reads a TEXT value once the store is known to hold one that is not
    UTF-8: as ``str``, or, not UTF-8, as :class:`NotUtf8` (which :func:`decode_memory`
    reports as the row's damage). Until then SQLite's own decoding runs: this one costs
    about 0.3 µs a value, some 400 values a recall."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return NotUtf8(data)


def _not_utf8(exc: sqlite3.Error) -> bool:
    """Whether SQLite's decoding met a TEXT value that is not UTF-8 (and failed the query)."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(
        "Could not decode to UTF-8"
    )


#: The SQL function :func:`fields_decode_sql` asks whether text columns are UTF-8: SQLite
#: keeps another writer's bytes as TEXT unchecked, and no built-in function tells them.
UTF8_CHECK = "kenning_utf8"
#: The columns read as free text (the times are checked to be ASCII digits by their shape).
_FREE_TEXT_COLUMNS = (
    "id", "content", "collection", "type", "group_id", "content_hash", "source", "tags",
    "metadata",
)  # fmt: skip


def _all_utf8(*values: bytes | None) -> int:
    try:
        for value in values:
            if value is not None:
                value.decode("utf-8")
    except UnicodeDecodeError:
        return 0
    return 1


def add_utf8_check(conn: sqlite3.Connection) -> None:
    """Give ``conn`` the function :func:`fields_decode_sql` calls."""
    conn.create_function(UTF8_CHECK, -1, _all_utf8, deterministic=True)


def _kind(value: object) -> str:
    return "empty" if value is None else f"a {type(value).__name__}"


def _text_column(value: object, column: str) -> str:
    if isinstance(value, NotUtf8):
        raise RowDamage(column, "is not UTF-8 text")
    if not isinstance(value, str):
        raise RowDamage(column, f"is {_kind(value)}, not text")
    return value


def _json_column(value: object, column: str) -> object:
    text = _text_column(value, column)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise RowDamage(column, f"{text[:40]!r} is not JSON") from None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def decode_memory(row: Sequence[object]) -> Memory:
    """A stored row (the columns of ``_COLUMNS``, in order) as a :class:`Memory`. Nothing is
    coerced: a field that does not decode raises :class:`RowDamage` naming it. A row larger
    than kenning stores (:func:`~kenning.backends.base.oversize_reason`) is refused first,
    before its metadata is parsed."""
    content, metadata = row[1], row[9]
    if (isinstance(content, str) and len(content) > CONTENT_CHARS_SURELY_STORED) or (
        isinstance(metadata, str) and len(metadata) > METADATA_CHARS_SURELY_STORED
    ):
        over = oversize_reason(content if isinstance(content, str) else "", _str_or_none(metadata))
        if over is not None:
            raise RowDamage(*over)
    stored_at = _text_column(row[5], "stored_at")
    try:
        when = parse_timestamp(stored_at)
    except (ValueError, OverflowError):
        raise RowDamage("stored_at", f"{stored_at[:40]!r} is not an ISO 8601 time") from None
    source = None if row[7] is None else _text_column(row[7], "source")
    # most notes have neither tags nor metadata: skip the JSON parser for the empty forms
    tags = [] if row[8] == "[]" else _json_column(row[8], "tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise RowDamage("tags", "is not a JSON list of strings")
    metadata = {} if row[9] == "{}" else _json_column(row[9], "metadata")
    if not isinstance(metadata, dict):
        raise RowDamage("metadata", "is not a JSON object")
    last_seen = None
    if row[10] is not None:
        seen_text = _text_column(row[10], "last_seen_at")
        try:
            last_seen = parse_timestamp(seen_text)
        except (ValueError, OverflowError):
            raise RowDamage("last_seen_at", f"{seen_text[:40]!r} is not an ISO 8601 time") from None
    seen_count = row[11]
    if isinstance(seen_count, bool) or not isinstance(seen_count, int) or seen_count < 1:
        raise RowDamage("seen_count", f"{seen_count!r} is not a whole number of at least 1")
    seen_count = min(seen_count, MAX_SEEN_COUNT)  # a kenning before the limit stored more
    content = _text_column(row[1], "content")
    blank = blank_reason(content)
    if blank is not None:
        raise RowDamage("content", blank)
    return Memory.of_checked_fields(
        id=_text_column(row[0], "id"),
        content=content,
        collection=_text_column(row[2], "collection"),
        type=_text_column(row[3], "type"),
        group_id=_text_column(row[4], "group_id"),
        stored_at=when,
        content_hash=_text_column(row[6], "content_hash"),
        source=source,
        tags=tuple(tags),
        metadata=metadata,
        last_seen_at=last_seen,
        seen_count=seen_count,
    )


def decode_vector(blob: object) -> np.ndarray:
    """A stored embedding as float32 (an empty vector when the column does not even hold
    whole float32 values: :func:`kenning.vectors.vector_problem` then names it)."""
    if not isinstance(blob, bytes) or len(blob) % 4:
        return np.zeros(0, dtype=np.float32)
    return np.frombuffer(blob, dtype=np.float32)


#: The times kenning writes (``isoformat()`` in UTC, with or without microseconds), with
#: each field's first digit narrowed: only these are checked in SQL; any other shape is
#: left to the decoder.
_TIME_SHAPE = "[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]"
_SIX_DIGITS = "[0-9]" * 6
#: Where the year, month and day are in such a time (1-based, as SQL's substr counts).
_DATE_PARTS = ((1, 4), (6, 2), (9, 2))
#: The characters a tag must not hold for the shape check of :func:`_tags_decode`: a
#: backslash (an escape) and the control characters Python's JSON parser refuses in a string.
_NOT_IN_TAGS = "'*[\\' || char(1) || '-' || char(31) || ']*'"
#: The code points :meth:`str.isspace` takes for whitespace (Unicode's White_Space and the
#: information separators U+001C-U+001F): a text holding any other character is a note's
#: text (:func:`kenning.backends.base.blank_reason`).
WHITESPACE_CODES = (
    *range(0x09, 0x0E),
    *range(0x1C, 0x21),
    0x85,
    0xA0,
    0x1680,
    *range(0x2000, 0x200B),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
)
#: Below these, a JSON object that SQLite finds valid is one Python parses too: Python
#: refuses an integer of over 4,300 digits, and nesting deeper than its recursion limit
#: (a text of under 200 characters cannot nest 100 deep).
_JSON_MAX_BYTES = 4000
_JSON_MAX_OPENINGS = 100
#: SQLite 3.42 to 3.44 took JSON5 (comments, single quotes, trailing commas: all refused by
#: Python) as valid; before and after, ``json_valid`` with one argument is RFC 8259 only.
_STRICT_JSON_VALID = not ((3, 42, 0) <= sqlite3.sqlite_version_info < (3, 45, 0))


def _no_nul(column: str) -> str:
    # SQLite's text functions stop at a NUL (3.40's json_valid reads '[]', a NUL and more
    # as '[]'), and Python's parsers refuse one
    return f"instr(CAST({column} AS BLOB), x'00') = 0"


def _timestamp_decodes(column: str) -> str:
    """SQL: ``column`` is a time in kenning's shape that :func:`parse_timestamp` accepts: a
    real date from year 1 and a real time of day. Days past the 28th are checked against
    their month's length (and February's against leap years)."""
    year, month, day = (f"CAST(substr({column}, {a}, {n}) AS INTEGER)" for a, n in _DATE_PARTS)
    leap = f"({year} % 4 = 0 AND ({year} % 100 <> 0 OR {year} % 400 = 0))"
    days = (
        f"CASE WHEN {month} IN (4, 6, 9, 11) THEN 30 WHEN {month} = 2 THEN 28 + {leap} ELSE 31 END"
    )
    return (
        f"(typeof({column}) = 'text' AND length(CAST({column} AS BLOB)) IN (25, 32) "
        f"AND ({column} GLOB '{_TIME_SHAPE}+00:00' "
        f"OR {column} GLOB '{_TIME_SHAPE}.{_SIX_DIGITS}+00:00') "
        f"AND {column} >= '0001' AND substr({column}, 6, 2) BETWEEN '01' AND '12' "
        f"AND substr({column}, 12, 2) <= '23' "
        f"AND (substr({column}, 9, 2) BETWEEN '01' AND '28' OR {day} BETWEEN 1 AND {days}))"
    )


def _tags_decode(column: str) -> str:
    """SQL: ``column`` is ``[]`` or a JSON list of strings as kenning writes it
    (``["a", "b"]``): ``["`` and ``"]`` around a text whose only quotes are in ``", "``
    separators, with no backslash nor control character, is such a list by construction (no
    JSON function needed, whose strictness varies between SQLite versions). Another
    writer's spacing or an escape is left to the decoder."""
    inner = f"replace(substr({column}, 3, length({column}) - 4), '\", \"', '')"
    return (
        f"(typeof({column}) = 'text' AND ({column} = '[]' OR ({column} GLOB '[[]\"*\"]' "
        f"AND NOT {column} GLOB {_NOT_IN_TAGS} AND {_no_nul(column)} "
        f"AND instr({inner}, '\"') = 0)))"
    )


def _metadata_decodes(column: str) -> str:
    """SQL: ``column`` is ``{}`` or a JSON object Python's parser reads: valid JSON that
    starts with ``{`` is an object. Where ``json_valid`` is not strict, only ``{}``."""
    if not _STRICT_JSON_VALID:
        return f"(typeof({column}) = 'text' AND {column} = '{{}}')"
    size = f"length(CAST({column} AS BLOB))"
    openings = f"length({column}) - length(replace(replace({column}, '[', ''), '{{', ''))"
    return (
        f"(typeof({column}) = 'text' AND ({column} = '{{}}' OR CASE WHEN {column} GLOB '{{*' "
        f"AND {_no_nul(column)} AND {size} < {_JSON_MAX_BYTES} "
        f"AND ({size} < {2 * _JSON_MAX_OPENINGS} OR {openings} < {_JSON_MAX_OPENINGS}) "
        f"THEN json_valid({column}) ELSE 0 END))"
    )


def fields_decode_sql(version: int) -> str:
    """SQL true for a row of a store of schema ``version`` whose fields
    :func:`decode_memory` surely decodes; false (never NULL) for every row it may refuse,
    and for some it would accept (those are decoded to be sure). The damaged-row count
    decodes only the rows this leaves: decoding them all took 0.5 s at 50k rows. It calls
    the function :func:`add_utf8_check` gives a connection."""
    checks = [
        *(f"typeof({c}) = 'text'" for c in ("id", "content", "collection", "type")),
        # a character other than whitespace (GLOB stops at a NUL: that text is decoded)
        f"content GLOB '*[^' || char({', '.join(map(str, WHITESPACE_CODES))}) || ']*'",
        # no larger than kenning stores (oversize_reason): the metadata's size is checked
        # by _metadata_decodes, which passes only a short one
        f"length(CAST(content AS BLOB)) <= {MAX_CONTENT_BYTES}",
        *(f"typeof({c}) = 'text'" for c in ("group_id", "content_hash")),
        "(source IS NULL OR typeof(source) = 'text')",
        _timestamp_decodes("stored_at"),
        _tags_decode("tags"),
        _metadata_decodes("metadata"),
    ]
    if version >= SEEN_SINCE:  # before, both are read as their defaults
        checks.append(f"(last_seen_at IS NULL OR {_timestamp_decodes('last_seen_at')})")
        checks.append("(typeof(seen_count) = 'integer' AND seen_count >= 1)")
    # last, as it costs most (a Python call a row: 0.15 s at 50k rows), and only for the
    # rows every other check passed: text that is not UTF-8 is refused by every read, and a
    # count that took such a row for a memory promised one no listing shows
    blobs = ", ".join(f"CAST({c} AS BLOB)" for c in _FREE_TEXT_COLUMNS)
    checks.append(f"{UTF8_CHECK}({blobs})")
    return f"coalesce(({' AND '.join(checks)}), 0)"


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 query that ORs the quoted terms; FTS syntax in the input is inert."""
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms)


def projects_if_absent(conn: sqlite3.Connection, group_id: str, limit: int) -> dict[str, int]:
    """:meth:`SQLiteBackend.projects_if_absent` on an open store (``kenning doctor``'s, too):
    {} when a memory of ``group_id`` is stored, else the project ids that differ from it only
    in letter case (the id most likely meant, however few its memories), then the ones with
    the most memories, ``limit`` in all (or the case variants alone, should they be more),
    with their counts."""
    from ..project import others_to_name

    # one index lookup when the project has memories (the usual case)
    if conn.execute("SELECT 1 FROM memories WHERE group_id = ? LIMIT 1", (group_id,)).fetchone():
        return {}
    return others_to_name(group_id, _project_counts(conn), limit)


def projects_alike(conn: sqlite3.Connection, group_id: str, limit: int) -> dict[str, int]:
    """:meth:`SQLiteBackend.projects_alike` on an open store (``kenning doctor``'s, too)."""
    from ..project import alike_to_name

    return alike_to_name(group_id, _project_counts(conn), limit)


def _project_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Every project id of the store and its memories, the most first."""
    rows = conn.execute(
        "SELECT group_id, count(*) AS n FROM memories WHERE typeof(group_id) = 'text' "
        "GROUP BY group_id ORDER BY n DESC, group_id"
    ).fetchall()
    # (a project id that is not UTF-8 text, another writer's, names no project to point to)
    return {r[0]: int(r[1]) for r in rows if isinstance(r[0], str)}


class _LexicalStats:
    """What lexical search reads about the whole store, valid for one store version."""

    def __init__(self, version: tuple[int, int], total: int) -> None:
        self.version = version
        self.total = total
        self.frequency: dict[str, int] = {}
        #: the spellings no document holds: left out of the MATCH, where each costs a seek
        #: in every segment of the index for nothing
        self.absent: set[str] = set()
        self.shares: dict[Filters, float] = {}
        #: whether the index holds a word written in full width (None: not asked yet)
        self.full_width: bool | None = None


class SQLiteBackend:
    """Embedded store in one SQLite file. Thread-safe within a process."""

    def __init__(self, path: Path, *, create: bool = True, dimension: int | None = None) -> None:
        """Open the store at ``path``. ``create=True`` (a writer) creates the file and its
        schema when missing and migrates an older schema; ``create=False`` (a reader) changes
        nothing: an older schema is read as it is and migrated by the first write made
        through this backend. A SQLite file of another application is refused either way."""
        self.path = Path(path)
        self.location = str(self.path)
        if not self.path.exists():
            blocking = file_in_the_way(self.path)
            if blocking is not None:
                # `.kenning` a file: "File exists; check that it is writable" said nothing
                # of what was wrong, and reads promised that remember would create the store
                what = (
                    f"{blocking} is a file, not a folder, so the store cannot be created in "
                    f"it; move {blocking} aside (or set KENNING_STORE to another path)"
                )
                if not create:
                    raise StoreNotFound(f"no kenning store at {self.path}: {what}")
                raise KenningError(f"cannot create the store {self.path}: {what}")
            if not create:
                raise StoreNotFound(
                    f"no kenning store at {self.path} yet; {StoreNotFound.CREATOR} creates it"
                )
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise KenningError(
                    f"cannot create the store folder {self.path.parent}: {exc.strerror}; "
                    "check that it is writable or set KENNING_STORE to a writable path"
                ) from None
        elif self.path.is_dir():
            raise KenningError(f"{self.path} is a folder, not a kenning store file; move it aside")
        elif not self.path.is_file():
            raise KenningError(
                f"{self.path} is not a regular file (a device or a pipe), so it cannot be a "
                "kenning store; point --store or KENNING_STORE at a .db file"
            )
        elif not create and self.path.stat().st_size == 0:
            # created by a process that died before initialising it: nothing to read, and a
            # read must not be the one that writes the schema
            raise StoreNotFound(
                f"the store at {self.path} is empty; {StoreNotFound.CREATOR} initialises it"
            )
        self._lock = threading.RLock()
        renew_after_fork(self)
        self._closed = False
        self._in_tx = False
        self._writes = 0
        self._vacuum_checked = False  # see _vacuum_if_owed
        self._vacuum_warned = False  # said once that it waits for room
        self._purge = False  # rows were deleted: erase them from every file (delete())
        self._erase_wal = False  # a text was replaced: erase the old one from the WAL
        self._damaged: dict[str, DamagedRow] = {}
        #: Opened read-only as an immutable file: its folder cannot be written, so a WAL
        #: store cannot be read the usual way (SQLite must create its ``-shm`` beside it), and
        #: no writer can change it meanwhile either.
        self.read_only = False
        try:
            try:
                self._open_connection(create)
            except sqlite3.OperationalError as exc:
                wal = unread_wal(self.path)
                if create or not (is_read_only_error(exc, self.path) or wal is not None):
                    raise
                self.read_only = True
                self._open_connection(create)
                if wal is not None:  # never a store silently short of its latest notes
                    log.warning("kenning: %s", unread_wal_note(wal))
        except sqlite3.OperationalError as exc:  # locked, unopenable: not a damaged file
            raise KenningError(_cannot_open(self.path, exc)) from None
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if self.path.name != STORE_FILENAME and not has_sqlite_header(self.path):
                # never a database, and not kenning's file name (--store README): the wrong
                # file named, not a store to restore
                raise NotAKenningStore(
                    f"{self.path} is not a kenning store (not an SQLite database at all); "
                    "kenning leaves it as it is. Point --store or KENNING_STORE at a kenning "
                    "store (by default <git top level>/.kenning/memory.db); if it was one, it "
                    f"is damaged: {_recovery_hint(self.path)}"
                ) from None
            raise StoreCorrupted(
                f"{self.path} is not a readable kenning store ({exc}); {_recovery_hint(self.path)}"
            ) from None
        self._dimension = dimension
        self._vector_file = VectorFile(self.path.with_name(self.path.name + ".vectors"))
        self._vectors: VectorIndex | None = None
        #: None: never approximate (``KENNING_ANN_MIN_ROWS=off``).
        self._ann_min_rows = config.ann_min_rows(annindex.DEFAULT_MIN_ROWS)
        self._ann = AnnFile(self.path)
        #: The rows the graph lacks, for one vector index and one graph.
        self._ann_rest: tuple[VectorIndex, AnnView, VectorIndex] | None = None
        #: Searches past the threshold so far: the first is exact (see _ann_for).
        self._ann_searches = 0
        self._lexical: _LexicalStats | None = None
        #: the last damaged-row counts (fields, vectors alone), with the store version and
        #: filters they were taken at
        self._damaged_count: tuple[tuple[int, int], Filters, _Counts, _Counts] = (
            (-1, -1),
            Filters(),
            {},
            {},
        )
        #: What the last count saw, for the next one after this connection's own writes
        #: (see :meth:`_damaged_counts`): the rowids of the rows whose fields do not decode,
        #: the largest rowid, and the schema; None when unknown.
        self._damaged_seen: tuple[frozenset[int], int, int] | None = None
        #: Rowids whose vector is damaged (left out of vector search; see rows()).
        self._bad_vectors: set[int] = set()

    def before_fork(self) -> None:
        """Before a fork: wait (a while) for other threads' work on the store to end, so
        that no thread is inside SQLite when the process is copied — SQLite's own locks,
        held by a thread the child does not have, would stay held there for ever."""
        self._held_at_fork = self._lock.acquire(timeout=FORK_WAIT_S)

    def after_fork_in_parent(self) -> None:
        if getattr(self, "_held_at_fork", False):
            self._held_at_fork = False
            self._lock.release()

    def after_fork(self) -> None:
        """In a forked child: locks of its own (the parent's may be held by a thread the
        child does not have); the connection is replaced at its first use (:attr:`_conn`)."""
        self._held_at_fork = False
        self._lock = threading.RLock()
        self._in_tx = False

    @property
    def _conn(self) -> sqlite3.Connection:
        """This process's connection: a process forked from the one that opened the store
        opens its own (SQLite forbids using a connection across fork)."""
        if self._closed:  # by another thread (MemoryStore.close) while this call ran
            raise StoreClosed.at(self.path)
        if self._forks != forks_so_far():
            _INHERITED_CONNECTIONS.append(self._connection)  # never closed in the child: its
            # close could checkpoint and remove the WAL the parent still writes through
            self._open_connection(False)
        return self._connection

    def _open_connection(self, create: bool) -> None:
        """Connect and check the file (see :attr:`read_only` for how a read-only one is
        opened); raises the ``OperationalError`` of a file that cannot be read this way."""
        target = str(self.path)
        if self.read_only:
            target = f"{self.path.resolve().as_uri()}?immutable=1"
        try:
            self._forks = forks_so_far()
            self._connection = sqlite3.connect(
                target,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
                uri=self.read_only,
            )
        except sqlite3.Error as exc:
            raise KenningError(_cannot_open(self.path, exc)) from None
        add_utf8_check(self._connection)
        self._identity = _file_identity(self.path)
        self._damaged_seen = None  # data_version counts this connection's view only
        #: The full-text index's tables this store lost (its rows are intact: it opens, to
        #: be read out — `kenning export` — and refuses full-text queries and writes).
        self._lost_index: list[str] = []
        #: Of :data:`STATE_TABLES`, those this store lost (reads go on; writes refuse).
        self._lost_state: list[str] = []
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self._schema = self._inspect(create)
            if create:
                self._upgrade()
            if not self.read_only:
                self._conn.execute("PRAGMA synchronous = FULL")
                # Deleted rows (and the index pages they free) are overwritten with zeros,
                # so a forgotten memory leaves no text behind in the file or its WAL.
                self._conn.execute("PRAGMA secure_delete = ON")
        except KenningError:
            self._conn.close()
            raise
        except sqlite3.OperationalError:  # locked, unopenable: not a damaged file
            self._conn.close()
            raise

    # -- schema -----------------------------------------------------------------------------

    def _inspect(self, create: bool) -> int:
        """The schema version of the file, read without changing anything; refuses another
        application's database, a newer schema and missing tables."""
        conn = self._conn
        # One read transaction for both: another process may be creating the schema, and a
        # version read before its commit with tables read after it would look like damage.
        conn.execute("BEGIN")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {
                str(r[0])
                for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            newer = self._compatible(version) if version > SCHEMA_VERSION else None
        finally:
            _end_if_open(conn, "COMMIT")
        if tables and not tables & set(STORE_TABLES):
            shown = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
            raise NotAKenningStore(
                f"{self.path} is a SQLite database but not a kenning store (its tables: "
                f"{shown}); kenning leaves it as it is. Point --store or KENNING_STORE at a "
                "kenning store (by default <git top level>/.kenning/memory.db)"
            )
        refused = newer and compat.too_new(str(self.path), newer, SCHEMA_VERSION, write=False)
        if refused:
            raise StoreCorrupted(f"{refused}; upgrade kenning, or export it with the newer version")
        if version == 0:
            if tables:
                raise StoreCorrupted(
                    f"{self.path} holds kenning tables but no schema version; "
                    f"{_recovery_hint(self.path)}"
                )
            if not create:  # a file SQLite created but nobody initialised: nothing to read
                raise StoreNotFound(
                    f"the store at {self.path} is empty; {StoreNotFound.CREATOR} initialises it"
                )
            return 0
        self._check_tables(version, tables)
        return version

    def _upgrade(self) -> None:
        """Create or migrate the schema (a write: only for a writer, or before the first
        write of a reader)."""
        if self._schema >= SCHEMA_VERSION:
            self._vacuum_if_owed()
            return
        conn = self._conn
        if self._schema == 0:
            # only before the first table (and WAL) exists; an older store keeps its pages
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        mode = _switch_to_wal(conn)
        if str(mode).lower() != "wal":
            raise KenningError(f"cannot switch {self.path} to WAL mode (got {mode})")
        self._begin_write()
        try:
            # Another process may have migrated while we waited for the write lock.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for number in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[number]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            if version < SCHEMA_VERSION:
                # who may still read and write it, in the migration's own transaction
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (
                        compat.COMPATIBLE_KEY,
                        compat.encode(compat.compatible_at(MIGRATION_RAISES, SCHEMA_VERSION)),
                    ),
                )
            if 0 < version < SECURE_DELETE_SINCE:
                # Rewrite the file once: pages freed before secure_delete was on may still
                # hold text of deleted rows. Owed from this commit on: a process killed
                # before the VACUUM leaves it to the next writer.
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (VACUUM_OWED_KEY,)
                )
            conn.execute("COMMIT")
        except BaseException as exc:
            # (after a full disk SQLite has rolled it back itself: a ROLLBACK then failed
            # with "no transaction is active", which hid the error)
            _end_if_open(conn, "ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and (
                _result_code(exc) == _FULL or is_disk_full_error(exc, self.path)
            ):
                # the WAL it grew, emptied so that it does not keep the disk full
                with contextlib.suppress(sqlite3.Error):
                    self._try_checkpoint()
                raise StoreWriteFailed(
                    f"cannot upgrade the store {self.path} to this kenning's schema: the disk "
                    f"holding it is full ({exc}); free some space on it and retry (the upgrade "
                    "rewrites its full-text index). Nothing was changed, and it can still be "
                    "read"
                ) from None
            raise
        finally:
            self._lock.release()  # taken by _begin_write
        self._schema = max(int(version), SCHEMA_VERSION)
        self._vacuum_if_owed()

    def _vacuum_if_owed(self) -> None:
        """The VACUUM a migration to :data:`SECURE_DELETE_SINCE` owes, when the disk has
        room for it (run at most once per backend). It needs about the store's size free (a
        copy of it goes into the WAL before it commits): a disk without that much room gets one
        warning and the user's write goes on, the VACUUM left owed to a later write (of this
        backend too: the room is looked at again, which costs a statvfs). A VACUUM that
        fails all the same for lack of room (another process filled the disk since) leaves
        the store as it was, its WAL emptied, and is not tried again by this backend."""
        if self._vacuum_checked or "meta" in self._lost_state:
            return
        conn = self._conn
        owed = conn.execute("SELECT 1 FROM meta WHERE key = ?", (VACUUM_OWED_KEY,)).fetchone()
        if owed is None:
            self._vacuum_checked = True
            return
        needs = vacuum_needs(conn, self.path)
        short = short_of_room(needs)
        if short is not None:
            if not self._vacuum_warned:
                self._vacuum_warned = True
                folder, free = short
                log.warning(
                    "kenning: %s, upgraded from an older kenning, still owes a one-time "
                    "rewrite (VACUUM) that wipes the text of notes deleted before the upgrade "
                    "from its free pages; it needs about %d MiB free on the disk holding %s, "
                    "which has %d MiB, so it waits: the next write that finds the room runs it",
                    self.path,
                    _mib(needs[folder]),
                    folder,
                    free // 2**20,
                )
            return
        self._vacuum_checked = True
        # The migration's own pages out of the WAL first (without waiting on a reader): a
        # VACUUM that fails for lack of room then leaves a WAL of its own frames only, which
        # a checkpoint drops without writing to the full disk (pages of the file's to copy
        # into it first, the checkpoint could neither finish nor truncate the WAL).
        with contextlib.suppress(sqlite3.Error):
            self._try_checkpoint()
        # VACUUM keeps rowids (memories declares its own)
        conn.execute("PRAGMA secure_delete = ON")
        try:
            conn.execute("VACUUM")
        except sqlite3.OperationalError as exc:
            if not (_result_code(exc) == _FULL or is_disk_full_error(exc, self.path)):
                raise
            # SQLite rolled it back; the WAL it grew (a copy of the store) is emptied, so
            # that it does not keep the disk full: at once, or (another process reading) by
            # the next checkpoint once that reader is done — the user's write does not wait
            # for it
            busy = True
            with contextlib.suppress(sqlite3.Error):
                busy = self._try_checkpoint()
            log.warning(
                "kenning: the one-time rewrite (VACUUM) of %s after its upgrade, which wipes "
                "the text of notes deleted before the upgrade from its free pages, failed: the "
                "disk is full (%s); it needs about %s. It changed nothing, and the next "
                "kenning command that writes runs it once there is room%s",
                self.path,
                exc,
                vacuum_room(needs),
                f". Another process is reading the store, so {self.path.name}-wal, which the "
                "rewrite grew, is emptied by the next kenning command once that reader is done"
                if busy
                else "",
            )
            return
        conn.execute("DELETE FROM meta WHERE key = ?", (VACUUM_OWED_KEY,))
        # The rewritten pages into the file: without waiting on another process's read (a
        # backup, a sqlite3 shell), which would hold the user's write for the whole busy
        # timeout; the next checkpoint then does it (the VACUUM is done: not owed again)
        if self._try_checkpoint():
            log.warning(
                "kenning: another process kept reading %s, so the one-time rewrite after its "
                "upgrade is done but not yet copied into it: the text of notes deleted before "
                "the upgrade stays in %s until the next checkpoint, which the next kenning "
                "command runs once that reader is done",
                self.path,
                self.path.name,
            )

    def _empty_wal_if_full(self) -> None:
        """After a write rolled back: when the disk holding the store is full (the write
        failed for lack of room, or left none), the WAL it grew is emptied, so that it does
        not keep the disk full after it (a failed renewal of the fingerprints left its 8.5 MB
        WAL on a 20 MB disk, 0 bytes free). A checkpoint that does not wait: while another
        process reads, the next checkpoint does it."""
        free = _free_bytes(self.path.parent)
        if free is not None and free < FULL_DISK_BYTES and not self._closed:
            with contextlib.suppress(sqlite3.Error, KenningError):
                self._try_checkpoint()

    def room_to_update(self, ids: Sequence[str], *, failed: bool = False) -> Mapping[Path, int]:
        """See :class:`~kenning.backends.base.NeedsRoomToRewrite` (:func:`update_needs`)."""
        with self._lock:
            needs = update_needs(self._conn, self.path, ids)
        if failed:
            for folder, needed in needs.items():
                free = _free_bytes(folder)
                if free is not None:
                    needs[folder] = max(needed, free + VACUUM_MARGIN_BYTES)
        return needs

    def short_of_room(self, needs: Mapping[Path, int]) -> str | None:
        return room_said(needs)

    def checkpoint(self) -> None:
        """The WAL's committed pages into the file, and the WAL truncated, without waiting
        for another process's read (nothing done then)."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._try_checkpoint()

    def record_wait(self, what: str, count: int, needs: Mapping[Path, int] | None) -> None:
        """See :class:`~kenning.backends.base.NeedsRoomToRewrite`: a meta row
        (:data:`REWRITE_WAIT_KEY`), written only while the disk has
        :data:`FULL_DISK_BYTES` free (a few pages of WAL, checkpointed after it)."""
        if needs is not None:
            free = _free_bytes(self.path.parent)
            state = self._rewrite_state()
            if free is None or free < FULL_DISK_BYTES or state is None:
                return
            record: str | None = json.dumps(
                {
                    "what": what,
                    "state": state,
                    "count": count,
                    "needs": {str(folder): int(room) for folder, room in needs.items()},
                }
            )
        else:
            record = None
        with contextlib.suppress(sqlite3.Error, KenningError):
            if record is not None or self.get_meta(REWRITE_WAIT_KEY) is not None:
                self.set_meta(REWRITE_WAIT_KEY, record)
        if record is not None and not self._in_tx:
            self.checkpoint()  # its few pages not left in a WAL on the disk short of room

    def recorded_wait(self, what: str) -> tuple[int, Mapping[Path, int]] | None:
        """See :class:`~kenning.backends.base.NeedsRoomToRewrite`."""
        try:
            found = json.loads(self.get_meta(REWRITE_WAIT_KEY) or "null")
            state = self._rewrite_state()
        except (ValueError, sqlite3.Error, KenningError):
            return None
        if not isinstance(found, dict) or state is None or found.get("what") != what:
            return None
        recorded, count, needs = found.get("state"), found.get("count"), found.get("needs")
        if (
            not isinstance(recorded, list)
            or len(recorded) != len(state)
            or recorded[:-1] != state[:-1]
            or not isinstance(recorded[-1], int)
            or state[-1] < recorded[-1]  # fewer pages in use (a VACUUM): less room needed
            or not isinstance(count, int)
            or not isinstance(needs, dict)
            or not all(isinstance(room, int) for room in needs.values())
        ):
            return None
        return count, {Path(folder): room for folder, room in needs.items()}

    def _rewrite_state(self) -> list[Any] | None:
        """What a reckoning of :func:`update_needs` stays good for: the reckoning's own
        version, the store's file, its vector counters (a row deleted, or its vector,
        project, type or collection changed; ``vector_state``) and, last, its pages in use
        (fewer: less room needed). None where the store keeps no counters (reckon every time)."""
        if self._schema < 5 or "vector_state" in self._lost_state:
            return None
        with self._lock:
            counters = self._conn.execute(
                "SELECT token, deletes, updates FROM vector_state"
            ).fetchone()
            if counters is None:
                return None
            token, deletes, updates = counters
            pages, free_pages = (
                int(self._conn.execute(f"PRAGMA {name}").fetchone()[0])
                for name in ("page_count", "freelist_count")
            )
        return [
            UPDATE_NEEDS_VERSION,
            str(self.path),
            str(token),
            deletes,
            updates,
            pages - free_pages,
        ]

    def _refuse_without_full_text(self) -> None:
        if self._lost_index:
            raise _lost_index_error(self.path, self._lost_index, "")

    def _refuse_damaged_write(self) -> None:
        if self._lost_index or self._lost_state:
            raise _lost_index_error(self.path, [*self._lost_index, *self._lost_state], "")

    def _refuse_newer_schema(self) -> None:
        """Inside the write transaction: a newer kenning may have migrated the store since
        it was opened (one installed while an MCP server or the web page ran), and rows
        written by code that does not know that schema could be incomplete or damaged."""
        version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        refused = self._writes_refused_at(version)
        if refused is None:  # this kenning's schema or older, or a newer one it still writes
            return
        raise StoreCorrupted(
            compat.write_refused(refused, migrated_since_opened=version != self._schema)
        )

    def newer_schema_refuses_writes(self) -> str | None:
        """See :class:`~kenning.backends.base.KnowsItsSchema`."""
        with self._lock:
            version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
            return self._writes_refused_at(version)

    def _writes_refused_at(self, version: int) -> str | None:
        """Why this kenning may not write the store at schema ``version`` (None: it may)."""
        if version <= SCHEMA_VERSION:
            return None
        return compat.too_new(str(self.path), self._compatible(version), SCHEMA_VERSION, write=True)

    def _compatible(self, version: int) -> compat.Compatible:
        """What the store (of schema ``version``, newer than this kenning's) asks of the
        kenning that reads or writes it: its record (:mod:`~kenning.backends.compat`)."""
        try:
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = ?", (compat.COMPATIBLE_KEY,)
            ).fetchone()
        except sqlite3.OperationalError:  # no meta table: no record
            row = None
        return compat.decode(row and row[0], version)

    def _refuse_replaced(self) -> None:
        """Inside the write transaction: the file this connection has open is still the one
        at :attr:`path`. Deleted (``rm -r .kenning``) or replaced (a file moved into its
        place) since — while the write waited for the lock, say — a write would go into a
        file nobody reads again, acknowledged and lost."""
        if self.replaced():
            raise StoreWriteFailed(
                f"cannot write the store {self.path}: the file was deleted or replaced since "
                "this process opened it; nothing was written. Retry: a new call (an MCP "
                "tool, the web page) opens the store at that path anew, or restart this "
                "process"
            )

    def _begin_write(self) -> None:
        """``BEGIN IMMEDIATE``: take SQLite's write lock, waiting up to the busy timeout, and
        return holding :attr:`_lock` once more (the caller releases it after its ``COMMIT``
        or ``ROLLBACK``; on an error it is released here). While another process holds the
        write lock this waits *without* that lock, whenever the caller does not hold it
        itself: every read of this process takes it, and a WAL reader never needs the write
        lock (SQLite's own busy wait, inside the statement, kept every read of an MCP server
        waiting behind one forget for up to the whole busy timeout)."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        delay = 0.001
        waited = False
        self._lock.acquire()
        try:
            while not self._try_begin_write():
                if time.monotonic() > deadline:
                    # another process held the write lock past the busy timeout
                    raise StoreWriteFailed(
                        f"cannot write the store {self.path}: another process has held its "
                        f"write lock for over {BUSY_TIMEOUT_S:g} s (a long import, reembed or "
                        "migrate?); nothing was changed, retry once it is done"
                    )
                give_up_if_unwanted()
                waited = True
                self._lock.release()
                try:
                    time.sleep(delay)  # SQLite's busy handler sleeps in steps like these
                finally:
                    self._lock.acquire()
                delay = min(delay * 2, 0.05)
            if waited:
                try:
                    give_up_if_unwanted()
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
        except BaseException:
            self._lock.release()
            raise

    def _try_begin_write(self) -> bool:
        """One ``BEGIN IMMEDIATE`` that does not wait (False: another connection holds the
        write lock); under :attr:`_lock`, so no other thread meets the timeout of 0."""
        conn = self._conn
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if is_read_only_error(exc, self.path):
                # a -shm or -wal left read-only: every write (forget, import) refused with a
                # traceback, remember's said "the store could not be checked for duplicates"
                raise KenningError(_read_only(self.path)) from None
            if _result_code(exc) != _BUSY:
                raise
            return False
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return True

    @property
    def _read_columns(self) -> str:
        """What a SELECT names for :data:`_COLUMNS` on this store's schema."""
        return memory_columns(self._schema)

    def _check_tables(self, version: int, tables: set[str]) -> None:
        missing = set(required_tables(version)) - tables
        self._lost_index = sorted(missing & set(FULL_TEXT_TABLES))
        self._lost_state = sorted(missing & set(STATE_TABLES))
        missing -= {*FULL_TEXT_TABLES, *STATE_TABLES}
        if missing:
            raise StoreCorrupted(
                f"{self.path} is missing table(s) {', '.join(sorted(missing))}; "
                f"{_recovery_hint(self.path)}"
            )
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(memories)")}
        gone = set(REQUIRED_COLUMNS) - columns
        if version < SEEN_SINCE:
            gone -= set(SEEN_COLUMNS)
        if gone:
            raise StoreCorrupted(
                f"{self.path} is missing column(s) {', '.join(sorted(gone))} of table "
                f"memories; {_recovery_hint(self.path)}"
            )

    # -- damaged rows -----------------------------------------------------------------------

    def _skip(self, memory_id: object, group_id: object, column: str, reason: str) -> None:
        """Record a row a read cannot use, and say so once (one line: a logged warning)."""
        key = str(memory_id)
        if key in self._damaged:
            return
        self._damaged[key] = DamagedRow(
            key, group_id if isinstance(group_id, str) else None, column, reason
        )
        log.warning(
            "kenning: skipped the damaged memory %r in %s: its %s %s; run `kenning doctor`",
            key,
            self.path,
            "vector" if column == "embedding" else column,
            reason,
        )

    def _decode(self, row: Sequence[object]) -> Memory | None:
        try:
            return decode_memory(row)
        except RowDamage as exc:
            self._skip(row[0], row[4], exc.column, exc.reason)
            return None

    def _check_text(self) -> bool:
        """After SQLite failed a query on a TEXT value that is not UTF-8: this connection reads
        text through :func:`decode_text` from now on, so such a row is skipped alone, as
        damaged (the query is then made again). False when it already did: the failure is
        another one."""
        with self._lock:
            if self._conn.text_factory is decode_text:
                return False
            self._conn.text_factory = decode_text
            return True

    def damaged_rows(self) -> list[DamagedRow]:
        with self._lock:
            return list(self._damaged.values())

    def check_writable(self) -> None:
        # opened read-only (its folder cannot be written), or a file made read-only in a
        # folder that can be: SQLite reads that one too, and refuses only the write
        if self.read_only or _read_only_files(self.path):
            raise KenningError(_read_only(self.path))

    def _stamped_dimension(self) -> int | None:
        provenance = self.read_provenance()
        return provenance.dimension if provenance is not None else self._dimension

    # -- transactions -----------------------------------------------------------------------

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx:  # this thread's own (another's holds the lock until it ends)
                yield
                return
            self._refuse_damaged_write()
            self._upgrade()  # a reader's first write migrates an older schema first
        self._begin_write()  # waits for another process's write without blocking reads
        # a write's reads are not made again (see _guard): text not UTF-8 is damage at once
        text_factory, self._conn.text_factory = self._conn.text_factory, decode_text
        try:
            self._in_tx = True
            try:
                self._refuse_newer_schema()
                self._refuse_replaced()
                yield
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.DatabaseError as exc:  # a full disk, an I/O error
                    raise _failed_write(self, exc) from None
            except BaseException:
                _end_if_open(self._conn, "ROLLBACK")
                self._empty_wal_if_full()
                self._writes += 1  # our cache may hold rows that were rolled back
                self._damaged_seen = None  # and rows deleted in it are back
                self._purge = self._erase_wal = False
                raise
            finally:
                self._in_tx = False
            if self._purge or self._erase_wal:
                purge, self._purge, self._erase_wal = self._purge, False, False
                self._checkpoint_after_delete()
                if purge and not self._closed:  # closed meanwhile (see the checkpoint)
                    self._drop_deleted_vectors()
        finally:
            if not self._closed:
                self._conn.text_factory = text_factory
            self._lock.release()  # taken by _begin_write

    def _try_checkpoint(self) -> bool:
        """One ``wal_checkpoint(TRUNCATE)`` that does not wait: True when another
        connection's read (or write) kept it from finishing."""
        conn = self._conn
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return bool(busy)

    def _drop_deleted_vectors(self) -> None:
        """The derived files hold the deleted rows' vectors (int8 codes, no text): forgetting
        means gone from them too. The vector file is rewritten without them now (when no
        other process holds its lock: else by the next search); the graph is removed, and
        rebuilt in the background at the next search past the threshold."""
        self._ann.discard()
        self._ann_rest = None
        with self._snapshot():
            self._vector_index()

    def prepare_search(self) -> None:
        """Build (or bring up to date) the vector file now, as the next search would."""
        with self._lock, self._snapshot():
            self._vector_index()

    def _checkpoint_after_delete(self) -> None:
        """Copy the WAL into the file and truncate it, so the pages that still held the
        deleted rows (the WAL keeps every earlier version until a checkpoint) are gone.
        Called holding :attr:`_lock`; while another process's read keeps the checkpoint
        from finishing, it waits (up to the busy timeout) with that lock released, as
        :meth:`_begin_write` does: this process's reads need nothing of it."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        delay = 0.001
        try:
            while (busy := self._try_checkpoint()) and time.monotonic() <= deadline:
                self._lock.release()
                try:
                    time.sleep(delay)
                finally:
                    self._lock.acquire()
                delay = min(delay * 2, 0.05)
        except StoreClosed:  # by another thread meanwhile: the delete is committed
            return
        except sqlite3.DatabaseError as exc:  # the delete is committed; only the erasing waits
            log.warning(
                "kenning: %s could not be emptied (%s); the deleted text stays in %s and its "
                "-wal until the next checkpoint, which the next kenning command runs",
                self.path,
                exc,
                self.path.name,
            )
            return
        if busy:
            log.warning(
                "kenning: another process kept reading %s, so its WAL could not be emptied; "
                "the deleted text stays in %s and its -wal until the next checkpoint, which "
                "the next kenning command runs once that reader is done",
                self.path,
                self.path.name,
            )

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord]) -> None:
        """Write ``records``, replacing rows of the same id. A replaced row whose text
        changed (an edit) leaves none of its old text in the files, as :meth:`delete`
        does: the full-text index is optimised and the WAL truncated."""
        if not records:
            return
        dimension = batch_dimension([r.vector for r in records])
        rows = []
        blobs: list[bytes] = []
        for record in records:
            m = record.memory
            blobs.append(np.ascontiguousarray(record.vector, dtype=np.float32).tobytes())
            rows.append(
                (
                    m.id,
                    m.content,
                    m.collection,
                    m.type,
                    m.group_id,
                    # always UTC, so that the text sorts as the time does (newest())
                    m.stored_at.astimezone(UTC).isoformat(),
                    m.content_hash,
                    m.source,
                    json.dumps(list(m.tags), ensure_ascii=False),
                    encode_metadata(m.metadata),
                    None
                    if m.last_seen_at in (None, m.stored_at)
                    else m.last_seen_at.astimezone(UTC).isoformat(),
                    m.seen_count,
                    blobs[-1],
                )
            )
        self._check_unit(blobs, dimension)
        with self.exclusive():
            self._check_dimension(dimension)
            # A savepoint makes the batch all-or-nothing even inside a caller's transaction.
            self._conn.execute("SAVEPOINT upsert")
            try:
                rewritten = self._rewritten_texts(rows)
                self._conn.executemany("DELETE FROM memories WHERE id = ?", [(r[0],) for r in rows])
                self._conn.executemany(
                    f"INSERT INTO memories ({_COLUMNS}, embedding) "
                    f"VALUES ({','.join('?' * (_NCOLUMNS + 1))})",
                    rows,
                )
                if rewritten:
                    # The old text is gone from the files as a forgotten row's is (delete());
                    # the old vector is not text: the derived files drop it as they drop any
                    # replaced row's, and the graph goes on serving.
                    self._conn.execute(
                        "INSERT INTO memories_fts (memories_fts) VALUES ('optimize')"
                    )
                    self._erase_wal = True
            except sqlite3.IntegrityError as exc:
                self._conn.execute("ROLLBACK TO upsert")
                self._conn.execute("RELEASE upsert")
                if "content_hash" in str(exc):  # UNIQUE (group_id, content_hash)
                    raise duplicate_content(self.location) from None
                raise
            except BaseException:
                _end_if_open(self._conn, "ROLLBACK TO upsert", "RELEASE upsert")
                raise
            self._conn.execute("RELEASE upsert")
            self._writes += 1

    def _rewritten_texts(self, rows: Sequence[tuple[Any, ...]]) -> bool:
        """Whether writing ``rows`` replaces the text of a stored row (an edit): its words
        then stay in the full-text index's segments until they merge, unless optimised."""
        for start in range(0, len(rows), 500):
            chunk = rows[start : start + 500]
            texts = {r[0]: r[1] for r in chunk}
            marks = ",".join("?" * len(chunk))
            for memory_id, stored in self._conn.execute(
                f"SELECT id, content FROM memories WHERE id IN ({marks})", list(texts)
            ):
                if stored != texts[memory_id]:
                    return True
        return False

    def _check_dimension(self, dimension: int) -> None:
        """Every vector in a store has one length: the stamped provenance's, else the
        existing rows'."""
        expected = self._dimension
        if expected is None:
            provenance = self.read_provenance()
            row = self._conn.execute("SELECT length(embedding) FROM memories LIMIT 1").fetchone()
            expected = provenance.dimension if provenance else (row[0] // 4 if row else None)
        check_dimension(
            dimension, expected, self.location, "Run `kenning reembed` after changing the model."
        )

    def delete(self, ids: Sequence[str]) -> int:
        """Delete rows so that no byte of them remains: the rows and their full-text entries
        go with ``secure_delete`` on (freed pages are zeroed), FTS5 is optimised (its index
        is append-only: a delete adds a tombstone beside the old terms until the segments
        merge), and the WAL is checkpointed and truncated when the transaction ends. The
        optimise rewrites the full-text index (bench/hardening.py: ~60 ms at 10k memories,
        ~1 s at 100k on a busy 2-core machine)."""
        if not ids:
            return 0
        with self.exclusive():
            cur = self._conn.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in ids])
            if cur.rowcount:
                # the graph holds the rows' vectors: gone before the delete commits, so that
                # a process killed after the commit cannot leave it (no builder renames one
                # into place while this transaction holds the write lock)
                self._ann.discard()
                self._conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
                self._purge = True
            self._writes += 1
            return cur.rowcount

    def update_vectors(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        if not items:
            return
        blobs = [np.ascontiguousarray(v, dtype=np.float32).tobytes() for _, v in items]
        self._check_unit(blobs, batch_dimension([v for _, v in items]))
        with self.exclusive():
            self._conn.executemany(
                "UPDATE memories SET embedding = ? WHERE id = ?",
                [(blob, i) for blob, (i, _) in zip(blobs, items, strict=True)],
            )
            self._writes += 1

    def record_seen(self, sightings: Sequence[tuple[str, datetime]]) -> None:
        if not sightings:
            return
        with self.exclusive():
            for memory_id, when in sightings:
                row = self._conn.execute(
                    "SELECT stored_at, last_seen_at FROM memories WHERE id = ?", (memory_id,)
                ).fetchone()
                if row is None:
                    continue
                last = parse_timestamp(str(row[1] if row[1] is not None else row[0]))
                self._conn.execute(
                    f"UPDATE memories SET seen_count = min(seen_count + 1, {MAX_SEEN_COUNT}), "
                    "last_seen_at = ? "
                    "WHERE id = ?",
                    (max(last, parse_timestamp(when)).isoformat(), memory_id),
                )

    @staticmethod
    def _check_unit(blobs: Sequence[bytes], dimension: int) -> None:
        """The store scores by dot product, a cosine only between unit vectors: refuse any
        other vector (the batch is not written)."""
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dimension)
        bad = bad_rows(matrix)
        if bad.any():
            problem = vector_problem(matrix[int(np.argmax(bad))], dimension)
            raise KenningError(
                f"a vector {problem}: the store holds unit vectors only (it scores by dot "
                "product); nothing was written"
            )

    def update_metadata(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        if not items:
            return
        with self.exclusive():
            self._conn.executemany(
                "UPDATE memories SET metadata = ? WHERE id = ?",
                [(encode_metadata(metadata), i) for i, metadata in items],
            )
            self._writes += 1  # cached reads hold the old metadata

    def get_meta(self, key: str) -> str | None:
        if "meta" in self._lost_state:
            return None  # lost with its table: the store reads as not stamped
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str | None) -> None:
        with self.exclusive():
            if value is None:
                self._conn.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value)
                )

    def write_provenance(self, provenance: Provenance) -> None:
        with self.exclusive():
            self._conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (PROVENANCE_KEY, encode_provenance(provenance)),
            )

    # -- reads ------------------------------------------------------------------------------

    def read_provenance(self) -> Provenance | None:
        return decode_provenance(
            self.get_meta(PROVENANCE_KEY), str(self.path), _recovery_hint(self.path)
        )

    def get(self, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        out: dict[str, Memory] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(
                    f"SELECT {self._read_columns} FROM memories WHERE id IN ({marks})", chunk
                ):
                    memory = self._decode(row)
                    if memory is not None:
                        out[memory.id] = memory
        return [out[i] for i in ids if i in out]

    def find_by_hash(self, group_id: str, content_hash: str) -> Memory | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {self._read_columns} FROM memories "
                "WHERE group_id = ? AND content_hash = ?",
                (group_id, content_hash),
            ).fetchone()
        return None if row is None else self._decode(row)

    def ids_with_prefixes(
        self, prefixes: Sequence[str], filters: Filters, limit: int
    ) -> dict[str, list[str]]:
        return {p: self.ids_with_prefix(p, filters, limit) for p in dict.fromkeys(prefixes)}

    def ids_with_prefix(self, prefix: str, filters: Filters, limit: int) -> list[str]:
        # a range of the id index: an id is ASCII (MEMORY_ID_PATTERN), every one of its
        # characters below DEL, so the ids starting with the prefix lie in [prefix, prefix DEL)
        where, params = self._where(filters, indexed=False)
        with self._lock:
            rows = self._conn.execute(
                f"SELECT id FROM memories WHERE id >= ? AND id < ? AND {where} ORDER BY id LIMIT ?",
                [prefix, prefix + "\x7f", *params, max(limit, 0)],
            ).fetchall()
        return [str(r[0]) for r in rows]

    def find_by_hashes(self, group_id: str, content_hashes: Sequence[str]) -> dict[str, Memory]:
        out: dict[str, Memory] = {}
        unique = list(dict.fromkeys(content_hashes))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(
                    f"SELECT {self._read_columns} FROM memories "
                    f"WHERE group_id = ? AND content_hash IN ({marks})",
                    [group_id, *chunk],
                ):
                    memory = self._decode(row)
                    if memory is not None:
                        out[memory.content_hash] = memory
        return out

    def find_by_fingerprint(self, fingerprint: str, filters: Filters) -> list[Memory]:
        where, params = self._where(filters)
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {self._read_columns} FROM memories "
                f"WHERE json_extract(metadata, '$.error_fingerprint') = ? AND {where} "
                "ORDER BY rowid DESC LIMIT 20",
                [fingerprint, *params],
            ).fetchall()
        return [m for m in map(self._decode, rows) if m is not None]

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The usable vectors of these memories: a damaged one is left out (and reported)."""
        out: dict[str, np.ndarray] = {}
        with self._lock:
            dimension = self._stamped_dimension() if ids else None
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                found = self._conn.execute(
                    f"SELECT id, group_id, embedding FROM memories WHERE id IN ({marks})", chunk
                ).fetchall()
                out.update(self._checked_vectors(found, dimension))
        return out

    def _checked_vectors(
        self, found: Sequence[tuple[Any, Any, Any]], dimension: int | None
    ) -> dict[str, np.ndarray]:
        """The usable vectors of ``found`` rows (id, group_id, embedding), by id; a damaged
        one is left out and reported, in the order of ``found``."""
        out: dict[str, np.ndarray] = {}
        # one matrix check for the usual case (every vector of the store's size); the
        # slower per-vector check only names what is wrong with the others
        size = (dimension or 0) * 4
        sized = [r for r in found if size and isinstance(r[2], bytes) and len(r[2]) == size]
        flags = (
            bad_rows(
                np.frombuffer(b"".join(r[2] for r in sized), dtype=np.float32).reshape(
                    len(sized), -1
                )
            )
            if sized
            else np.zeros(0, dtype=bool)
        )
        checked = {id(r): bool(bad) for r, bad in zip(sized, flags, strict=True)}
        for row in found:
            memory_id, group_id, blob = row
            vector = decode_vector(blob)
            if checked.get(id(row)) is False:
                out[str(memory_id)] = vector
                continue
            problem = vector_problem(vector, dimension)
            if problem is None:  # no stamped dimension to check the size against
                out[str(memory_id)] = vector
            else:
                self._skip(memory_id, group_id, "embedding", problem)
        return out

    @staticmethod
    def _where(filters: Filters, alias: str = "", *, indexed: bool = True) -> tuple[str, list[str]]:
        """SQL for ``filters``. ``indexed=False`` keeps SQLite from answering them through an
        index (``+column``), for rows already found by rowid: scanning a project's index
        entries to check a few rows costs more than reading them."""
        p = f"{alias}." if alias else ""
        if not indexed:
            p = "+" + p
        clauses: list[str] = []
        params: list[str] = []
        if filters.group_id is not None:
            clauses.append(f"{p}group_id = ?")
            params.append(filters.group_id)
        if filters.collections:
            clauses.append(f"{p}collection IN ({','.join('?' * len(filters.collections))})")
            params.extend(filters.collections)
        if filters.types:
            clauses.append(f"{p}type IN ({','.join('?' * len(filters.types))})")
            params.extend(filters.types)
        return (" AND ".join(clauses) or "1"), params

    def count(self, filters: Filters) -> int:
        where, params = self._where(filters)
        with self._lock:
            return int(
                self._conn.execute(
                    f"SELECT count(*) FROM memories WHERE {where}", params
                ).fetchone()[0]
            )

    def count_by(self, group_id: str | None) -> dict[tuple[str, str], int]:
        where, params = self._where(Filters(group_id=group_id))
        with self._lock:
            # grouped by project too, in the (group_id, collection, type) index's order:
            # every project's kinds without a sort (100k rows: 18 ms, 60 ms sorted)
            rows = self._conn.execute(
                f"SELECT collection, type, count(*) FROM memories WHERE {where} "
                "GROUP BY group_id, collection, type",
                params,
            ).fetchall()
        # (a collection or type that is not UTF-8 text, another writer's, is no kind of note:
        # its rows are damaged, skipped by every read and named by `kenning doctor`)
        counts: Counter[tuple[str, str]] = Counter()
        for coll, typ, n in rows:
            if isinstance(coll, str) and isinstance(typ, str):
                counts[(coll, typ)] += int(n)
        return dict(counts)

    def projects_if_absent(self, group_id: str, limit: int) -> dict[str, int]:
        with self._lock, self._snapshot():
            return projects_if_absent(self._conn, group_id, limit)

    def projects_alike(self, group_id: str, limit: int) -> dict[str, int]:
        with self._lock, self._snapshot():
            return projects_alike(self._conn, group_id, limit)

    def count_damaged(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        # What search skips: a row whose fields do not decode or whose vector is damaged.
        fields, vectors = self._damaged_counts(filters)
        return dict(Counter(fields) + Counter(vectors))

    def count_unreadable(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        # What every read skips: a row whose fields do not decode (one whose vector alone is
        # damaged is listed and exported, without its vector).
        return dict(self._damaged_counts(filters)[0])

    def damaged_vector_ids(self, filters: Filters) -> frozenset[str]:
        # the rows the search index holds as damaged, as _damaged_counts counts them
        where, params = self._where(filters, indexed=False)
        found: set[str] = set()
        with self._lock, self._snapshot():
            self._vector_index()  # notes the damaged vectors (search builds the same index)
            rowids = sorted(self._bad_vectors)
            for start in range(0, len(rowids), 500):
                chunk = rowids[start : start + 500]
                found.update(
                    memory_id
                    for (memory_id,) in self._conn.execute(
                        f"SELECT id FROM memories "
                        f"WHERE rowid IN ({','.join('?' * len(chunk))}) AND {where}",
                        [*chunk, *params],
                    )
                )
        return frozenset(found)

    def _damaged_counts(self, filters: Filters) -> tuple[_Counts, _Counts]:
        """The rows whose fields do not decode (decoded as every read does, and reported
        once as they are), and apart those whose vector alone the index holds as damaged.
        SQL passes the rows whose fields surely decode (fields_decode_sql) and only the rest
        are decoded: decoding every row took 0.6 s at 50k rows, after each write. Kept until
        the store changes, as the page asks for them on every load.

        When only this connection wrote since the last count (``data_version`` moves for
        another connection's commits alone), only the rows that can have changed are looked
        at: the damaged ones then (a sighting or an edit may have repaired them) and the
        rows written since, which AUTOINCREMENT gives larger rowids (an upsert replaces a
        row by a new one; the other writes here set vectors, which the index checks, and
        sightings, to valid values): hooks_remember's total after each write costs that."""
        where, params = self._where(filters, indexed=False)
        with self._lock, self._snapshot():
            version = self._version()
            counted, counted_filters = self._damaged_count[:2]
            if (counted, counted_filters) == (version, filters):
                return self._damaged_count[2], self._damaged_count[3]
            self._vector_index()  # notes the damaged vectors (search builds the same index)
            bad_vectors = set(self._bad_vectors)
            seen = self._damaged_seen
            fields_ok = fields_decode_sql(self._schema)
            if (
                seen is not None
                and counted[0] == version[0]
                and counted_filters == filters
                and seen[2] == self._schema
            ):
                known = sorted(seen[0])
                cursor = self._conn.execute(
                    f"SELECT rowid, {self._read_columns} FROM memories WHERE "
                    f"(rowid IN (SELECT value FROM json_each(?)) OR (rowid > ? AND NOT "
                    f"{fields_ok})) AND {where}",
                    [json.dumps(known), seen[1], *params],
                )
            else:
                cursor = self._conn.execute(
                    f"SELECT rowid, {self._read_columns} FROM memories "
                    f"WHERE {where} AND NOT {fields_ok}",
                    params,
                )
            fields: Counter[tuple[object, object, object]] = Counter()
            damaged: set[int] = set()
            while batch := cursor.fetchmany(1000):
                for row in batch:
                    if self._decode(row[1:]) is None:
                        fields[row[5], row[3], row[4]] += 1
                        damaged.add(int(row[0]))
                        bad_vectors.discard(int(row[0]))  # counted once
            vectors: Counter[tuple[object, object, object]] = Counter()
            chunks = sorted(bad_vectors)
            for start in range(0, len(chunks), 500):
                chunk = chunks[start : start + 500]
                for group_id, collection, type_ in self._conn.execute(
                    f"SELECT group_id, collection, type FROM memories "
                    f"WHERE rowid IN ({','.join('?' * len(chunk))}) AND {where}",
                    [*chunk, *params],
                ):
                    vectors[group_id, collection, type_] += 1
            self._damaged_count = (version, filters, dict(fields), dict(vectors))
            # a count inside our own transaction may see rows it then rolls back
            last = self._conn.execute("SELECT coalesce(max(rowid), 0) FROM memories")
            self._damaged_seen = (
                None if self._in_tx else (frozenset(damaged), int(last.fetchone()[0]), self._schema)
            )
        return dict(fields), dict(vectors)

    def iterate(
        self, filters: Filters, batch_size: int = 500, *, oldest_first: bool = False
    ) -> Iterator[MemoryRecord]:
        # a generator, as the error translation around the public methods expects
        walk = self._walk_oldest_first if oldest_first else self._walk
        yield from each_memory_once(walk(filters, batch_size))

    def _walk(self, filters: Filters, batch_size: int) -> Iterator[MemoryRecord]:
        # Walk the rowids (one pass over the table in all), never a filter index, which
        # would sort a whole project again for every batch.
        where, params = self._where(filters, indexed=False)
        sql = (
            f"SELECT rowid, {self._read_columns}, embedding FROM memories "
            f"WHERE rowid > ? AND {where} ORDER BY rowid LIMIT ?"
        )
        last = 0
        while True:
            rows = self._read_rows(sql, [last, *params, batch_size])
            if not rows:
                return
            yield from self._records(rows)
            last = rows[-1][0]

    def _walk_oldest_first(self, filters: Filters, batch_size: int) -> Iterator[MemoryRecord]:
        # Every row's time and id (one pass), sorted here, then the rows by id a batch at
        # a time: an edit meanwhile gives its row a new rowid, never a new id.
        where, params = self._where(filters, indexed=False)
        found = self._read_rows(f"SELECT id, stored_at, id FROM memories WHERE {where}", params)
        order = oldest_first(found)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            rows = self._read_rows(
                f"SELECT id, {self._read_columns}, embedding FROM memories "
                f"WHERE id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            place = {row[0]: row for row in rows}
            yield from self._records([place[i] for i in chunk if i in place])

    def _read_rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:  # (a generator is not made again)
                if not (_not_utf8(exc) and self._check_text()):
                    raise
                return self._conn.execute(sql, params).fetchall()

    def _records(self, rows: Sequence[Any]) -> Iterator[MemoryRecord]:
        """The memories of rows ``(key, *read columns, embedding)`` with their vectors."""
        for row in rows:
            # A damaged field skips the row; a damaged vector does not (the memory is
            # whole: export writes it without the vector, reembed recomputes it).
            memory = self._decode(row[1 : 1 + _NCOLUMNS])
            if memory is not None:
                yield MemoryRecord(memory=memory, vector=decode_vector(row[1 + _NCOLUMNS]).copy())

    def newest(self, filters: Filters, n: int, before: datetime | None = None) -> list[Memory]:
        if n <= 0:
            return []
        where, params = self._where(filters)
        if before is not None:  # UTC ISO 8601 text (see upsert): compared as text, as it sorts
            where, params = (
                f"{where} AND stored_at < ?",
                [*params, before.astimezone(UTC).isoformat()],
            )
        with self._lock:
            # stored_at is UTC ISO 8601 text (see upsert), which sorts as the time does
            rows = self._conn.execute(
                f"SELECT {self._read_columns} FROM memories WHERE {where} "
                "ORDER BY stored_at DESC, id DESC LIMIT ?",
                [*params, n],
            ).fetchall()
        return [m for m in map(self._decode, rows) if m is not None]

    def metadata_entries(self, filters: Filters, key: str | None) -> list[MetadataEntry]:
        # SQL passes the rows whose fields surely decode (fields_decode_sql): of those only
        # the time and the metadata are read; the others are decoded whole, as every read
        # decodes them, and left out when they do not decode
        where, params = self._where(filters)
        fields_ok = fields_decode_sql(self._schema)
        found: list[MetadataEntry] = []
        suspects: list[int] = []
        with self._lock, self._snapshot():
            cursor = self._conn.execute(
                f"SELECT rowid, {fields_ok}, id, group_id, stored_at, metadata FROM memories "
                f"WHERE {where}",
                params,
            )
            while batch := cursor.fetchmany(1000):
                for rowid, ok, memory_id, group_id, stored_at, metadata in batch:
                    if not ok:
                        suspects.append(rowid)
                        continue
                    value = None
                    # without a backslash (an escape), a key the text does not hold is not
                    # one of the object's: most rows skip the JSON parser
                    if key is not None and (key in metadata or "\\" in metadata):
                        value = json.loads(metadata).get(key)
                    found.append(
                        MetadataEntry(memory_id, group_id, parse_timestamp(stored_at), value)
                    )
            for start in range(0, len(suspects), 500):
                chunk = suspects[start : start + 500]
                rows = self._conn.execute(
                    f"SELECT {self._read_columns} FROM memories "
                    f"WHERE rowid IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                for memory in map(self._decode, rows):
                    if memory is not None:
                        found.append(
                            MetadataEntry(
                                memory.id, memory.group_id, memory.stored_at,
                                (None if key is None else memory.metadata.get(key)),
                            )
                        )  # fmt: skip
        return found

    def stored_since(self, filters: Filters, since: datetime) -> list[datetime]:
        where, params = self._where(filters)
        with self._lock:
            # stored_at is UTC ISO 8601 text (see upsert): compared as text, as it sorts
            rows = self._conn.execute(
                f"SELECT stored_at FROM memories WHERE {where} AND stored_at >= ?",
                [*params, since.astimezone(UTC).isoformat()],
            ).fetchall()
        found = []
        for (value,) in rows:
            with contextlib.suppress(TypeError, ValueError):  # a damaged row is not counted
                found.append(parse_timestamp(value))
        return found

    def _version(self) -> tuple[int, int]:
        """Changes when anyone (another connection, or this one) wrote to the store."""
        data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        return (int(data_version), self._writes)

    def _lexical_stats(self) -> _LexicalStats:
        """Row count, per-filter shares and FTS document frequencies, kept until the store
        changes (one ``PRAGMA data_version`` per query instead of three lookups)."""
        self._refuse_without_full_text()
        version = self._version()
        stats = self._lexical
        if stats is None or stats.version != version:
            total = self._conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            stats = self._lexical = _LexicalStats(version, int(total))
        return stats

    def _document_frequencies(self, stats: _LexicalStats, terms: Sequence[str]) -> dict[str, int]:
        """Each term's document frequency, its :func:`~kenning.lexical.spellings` together
        (a note holding ``ｎｐｍ`` holds ``npm``; one holding both is counted twice, as two
        words of one term)."""
        missing = [t for t in terms if t not in stats.frequency]
        if missing and self._schema < 3:
            # a store older than schema 3 (read, not migrated) has no fts5vocab table:
            # count each term's matches instead
            for term in missing:
                stats.frequency[term] = int(
                    self._conn.execute(
                        "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                        (fts_query(spellings(term)),),
                    ).fetchone()[0]
                )
            missing = []
        if missing:
            words = [w for t in missing for w in spellings(t)]
            # a term's full-width spelling is looked up only in an index that holds words of
            # that width (each costs a seek in every segment, ~17 µs, even when absent)
            asked = words if self._holds_full_width(stats) else missing
            marks = ",".join("?" * len(asked))
            found = dict(
                self._conn.execute(
                    f"SELECT term, doc FROM memories_terms WHERE term IN ({marks})", asked
                ).fetchall()
            )
            for term in missing:
                stats.frequency[term] = sum(int(found.get(w, 0)) for w in spellings(term))
            stats.absent.update(w for w in words if not found.get(w))
        return {t: stats.frequency[t] for t in terms}

    def _holds_full_width(self, stats: _LexicalStats) -> bool:
        """Whether the full-text index holds a word that starts with a full-width letter or
        digit: every full-width spelling (:func:`~kenning.lexical.spellings`) is made of
        them, so none is there when no word starts with one (asked once per store version:
        the first word from U+FF10 on, in the index's order)."""
        if stats.full_width is None:
            first = self._conn.execute(
                "SELECT term FROM memories_terms WHERE term >= ? LIMIT 1", (FULL_WIDTH_FIRST,)
            ).fetchone()
            stats.full_width = (
                first is not None
                and isinstance(first[0], str)
                and FULL_WIDTH_FIRST <= first[0][:1] <= FULL_WIDTH_LAST
            )
        return stats.full_width

    def _share(self, stats: _LexicalStats, filters: Filters) -> float:
        """The share of rows ``filters`` lets through (1.0: every row, e.g. the only project)."""
        share = stats.shares.get(filters)
        if share is None:
            where, params = self._where(filters)
            matching = self._conn.execute(
                f"SELECT count(*) FROM memories WHERE {where}", params
            ).fetchone()[0]
            share = stats.shares[filters] = matching / stats.total if stats.total else 0.0
        return share

    def term_statistics(self, query: str) -> TermStatistics:
        terms = lexical_terms(query, MAX_QUERY_TERMS)
        with self._lock, self._snapshot():
            stats = self._lexical_stats()
            return TermStatistics(stats.total, self._document_frequencies(stats, terms))

    def lexical_search(self, query: str, k: int, filters: Filters) -> list[ScoredMemory]:
        if k <= 0:
            return []
        terms = lexical_terms(query, MAX_QUERY_TERMS)
        if not terms:
            return []
        with self._lock, self._snapshot():
            stats = self._lexical_stats()
            frequency = self._document_frequencies(stats, terms)
            return self._lexical_hits(stats, frequency, k, filters)

    def lexical_search_with_statistics(
        self, query: str, k: int, filters: Filters
    ) -> tuple[list[ScoredMemory], TermStatistics]:
        """:meth:`lexical_search` and :meth:`term_statistics` from one tokenisation of the
        query, in one read transaction (a hybrid query asks for both)."""
        terms = lexical_terms(query, MAX_QUERY_TERMS)
        with self._lock, self._snapshot():
            return self._hits_and_statistics(terms, k, filters)

    def _hits_and_statistics(
        self,
        terms: list[str],
        k: int,
        filters: Filters,
        blobs: dict[str, tuple[str, object]] | None = None,
    ) -> tuple[list[ScoredMemory], TermStatistics]:
        """The best ``k`` lexical hits of the query's ``terms`` and their term statistics,
        in the caller's read transaction (``blobs``: see :meth:`_ranked_matches`)."""
        stats = self._lexical_stats()
        frequency = self._document_frequencies(stats, terms)
        statistics = TermStatistics(stats.total, frequency)
        if k <= 0 or not terms:
            return [], statistics
        return self._lexical_hits(stats, frequency, k, filters, blobs), statistics

    def lexical_search_with_vectors(
        self, query: str, k: int, filters: Filters
    ) -> tuple[list[ScoredMemory], TermStatistics, dict[str, np.ndarray]]:
        """:meth:`lexical_search_with_statistics` and :meth:`get_vectors` of its hits, in one
        read transaction: each hit's vector is read with its row (by rowid), not looked up
        again by id (~0.15 ms a hybrid query at 10k memories)."""
        terms = lexical_terms(query, MAX_QUERY_TERMS)
        blobs: dict[str, tuple[str, object]] = {}
        with self._lock, self._snapshot():
            hits, statistics = self._hits_and_statistics(terms, k, filters, blobs)
            if not hits:
                return hits, statistics, {}
            # in id order, as get_vectors reads them (its IN seeks the id index in order):
            # a damaged vector is reported where it was
            found = sorted((h.memory.id, *blobs[h.memory.id]) for h in hits)
            return hits, statistics, self._checked_vectors(found, self._stamped_dimension())

    def _lexical_hits(
        self,
        stats: _LexicalStats,
        frequency: Mapping[str, int],
        k: int,
        filters: Filters,
        blobs: dict[str, tuple[str, object]] | None = None,
    ) -> list[ScoredMemory]:
        """The best ``k`` matches of the query whose terms' document ``frequency`` is given
        (``blobs``: see :meth:`_ranked_matches`)."""
        chosen = terms_to_match(frequency, stats.total)
        match = fts_query([w for t in chosen for w in spellings(t) if w not in stats.absent])
        share = self._share(stats, filters)
        if match is None or share <= 0.0:
            return []
        return self._ranked_matches(match, k, filters, share, blobs)

    def _ranked_matches(
        self,
        match: str,
        k: int,
        filters: Filters,
        share: float,
        blobs: dict[str, tuple[str, object]] | None = None,
    ) -> list[ScoredMemory]:
        """The best ``k`` FTS matches that pass ``filters``: ranked in the FTS index alone,
        then only the best few rows are read and checked against the filter (joining every
        match to its row first cost more than the ranking itself). ``blobs``, when given,
        gets each read memory's group id and stored embedding, by id."""
        where, params = self._where(filters, indexed=False)
        limit = k if share >= 1.0 else k + int(2 * k / max(share, 1e-9))
        while True:
            # FTS5's bm25() is negative, lower is better; exposed as "higher is better".
            ranked = self._conn.execute(
                "SELECT rowid, bm25(memories_fts) AS rank FROM memories_fts "
                "WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?",
                [match, limit],
            ).fetchall()
            rows: dict[int, Memory] = {}
            for start in range(0, len(ranked), 500):
                chunk = [r[0] for r in ranked[start : start + 500]]
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(
                    f"SELECT rowid, {self._read_columns}, "
                    f"{'embedding' if blobs is not None else 'NULL'} FROM memories "
                    f"WHERE rowid IN ({marks}) AND {where}",
                    [*chunk, *params],
                ):
                    memory = self._decode(row[1:])
                    if memory is not None:
                        rows[int(row[0])] = memory
                        if blobs is not None:
                            blobs[memory.id] = (memory.group_id, row[-1])
            hits = [
                ScoredMemory(memory=rows[rowid], score=-float(rank))
                for rowid, rank in ranked
                if rowid in rows
            ]
            if len(hits) >= k or len(ranked) < limit:
                return hits[:k]
            limit *= 4

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the store (a read transaction, unless the
        caller is already inside a transaction)."""
        if self._conn.in_transaction:
            yield
            return
        with self._lock:  # a close() on another thread waits for these reads to end
            self._conn.execute("BEGIN")
            try:
                yield
            finally:
                self._conn.execute("COMMIT")

    # -- vectors ------------------------------------------------------------------------------

    def rows(self, after_rowid: int, rowids: Sequence[int] | None = None) -> Iterator[list[Row]]:
        """Rows for the vector file, in rowid order, in batches (``rowids``: just those)."""
        columns = "rowid, group_id, collection, type, embedding"
        if rowids is not None:
            marks = ",".join("?" * len(rowids))
            batch = self._conn.execute(
                f"SELECT {columns} FROM memories WHERE rowid IN ({marks}) ORDER BY rowid",
                list(rowids),
            ).fetchall()
            yield self._usable_vectors(batch)
            return
        last = after_rowid
        while True:
            batch = self._conn.execute(
                f"SELECT {columns} FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (last, BUILD_BATCH),
            ).fetchall()
            if not batch:
                return
            yield self._usable_vectors(batch)
            last = batch[-1][0]

    def rowids(self) -> np.ndarray:
        found = self._conn.execute("SELECT rowid FROM memories ORDER BY rowid").fetchall()
        return np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))

    def _usable_vectors(self, rows: list[Row]) -> list[Row]:
        """``rows`` with every damaged vector (wrong size, not finite, not unit length)
        replaced by zeros, and reported: such a vector would score as anything. The row keeps
        its place, so the vector file still counts the table's rows; its zero record can
        never be a hit (:meth:`_exact_cosines` and :meth:`vector_search` leave it out), and
        the memory itself stays readable (``kenning reembed`` recomputes the vector)."""
        dimension = self._store_dimension()
        bad = damaged_vector_positions(rows, dimension)
        if not bad:
            self._bad_vectors.difference_update(int(r[0]) for r in rows)
            return rows
        out = list(rows)
        zeros = bytes(dimension * 4)
        for i in bad:
            rowid, group_id, collection, type_, blob = rows[i]
            problem = vector_problem(decode_vector(blob), dimension) or "is not a vector"
            found = self._conn.execute("SELECT id FROM memories WHERE rowid = ?", (rowid,))
            memory_id = (found.fetchone() or (rowid,))[0]
            self._skip(memory_id, group_id, "embedding", problem)
            self._bad_vectors.add(int(rowid))
            out[i] = (rowid, group_id, collection, type_, zeros)
        good = {int(rows[i][0]) for i in range(len(rows))} - {int(rows[i][0]) for i in bad}
        self._bad_vectors.difference_update(good)
        return out

    def _store_dimension(self) -> int:
        # The stamped dimension, not the first row's: that row may be the damaged one.
        stamped = self._stamped_dimension()
        if stamped:
            return stamped
        first = self._conn.execute("SELECT length(embedding) FROM memories LIMIT 1").fetchone()
        if first is not None and first[0]:
            return int(first[0]) // 4
        return 0

    def _vector_index(self) -> VectorIndex | None:
        """The vectors of the store as it is now (inside the caller's snapshot)."""
        version = self._version()
        index = self._vectors
        if (
            index is not None
            and index.version == version
            and (index.persisted or self._in_tx or not self._vector_file.lock_free())
            and self._vector_file.unchanged()
        ):
            return index
        conn = self._conn
        persist = not self._in_tx  # rows of our own transaction may yet roll back
        counted = self._schema >= 5 and "vector_state" not in self._lost_state
        if counted:
            token, deletes, updates = conn.execute(
                "SELECT token, deletes, updates FROM vector_state"
            ).fetchone()
        else:
            # a store older than schema 5, read without migrating (or one that lost its
            # vector_state): nothing to check a file against, so the index is built in
            # memory and never written
            token, deletes, updates, persist = "00" * 16, -1, -1, False
        # one scan of the smallest index for the three (the sum: VectorFile.sync)
        count, max_rowid, rowid_sum = conn.execute(
            "SELECT count(*), coalesce(max(rowid), 0), coalesce(sum(rowid), 0) FROM memories"
        ).fetchone()
        dimension = self._store_dimension()
        if count == 0 or dimension == 0:
            self._vectors = None
            return None
        state = StoreState(
            str(token), int(deletes), int(updates), int(count), int(max_rowid), int(rowid_sum)
        )
        # Rows written inside our own transaction may yet roll back: never in the file.
        index = self._vector_file.sync(state, dimension, self, persist=persist)
        index.version = version
        if not counted:
            index.persisted = True  # nothing to retry: an old store's index stays in memory
        self._note_damaged_records(index)
        self._vectors = index
        return index

    def _note_damaged_records(self, index: VectorIndex) -> None:
        """A damaged vector sits in the file as an all-zero record (norm 0, which no unit
        vector has; see :meth:`_usable_vectors`): a process that maps a file another one
        built learns of those rows here, leaves them out and says so once."""
        zeros = {
            int(r)
            for part in (index.records, index.extra)
            for r in part["rowid"][part["norm"] == 0]
        }
        # A row left out before whose record is no longer zero was repaired meanwhile (a
        # `kenning reembed` in another process, whose file this process maps without reading
        # the row again): it is searched again.
        self._bad_vectors &= zeros
        zero = sorted(zeros - self._bad_vectors)
        for start in range(0, len(zero), 500):
            chunk = zero[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for rowid, memory_id, group_id, blob in self._conn.execute(
                f"SELECT rowid, id, group_id, embedding FROM memories WHERE rowid IN ({marks})",
                chunk,
            ):
                problem = vector_problem(decode_vector(blob), index.dimension)
                if problem is not None:
                    self._bad_vectors.add(int(rowid))
                    self._skip(memory_id, group_id, "embedding", problem)

    def _exact_cosines(
        self, query: np.ndarray, filters: Filters
    ) -> Callable[[Sequence[int]], dict[int, float]]:
        where, params = self._where(filters, indexed=False)
        dim = int(query.shape[0])

        def exact(rowids: Sequence[int]) -> dict[int, float]:
            out: dict[int, float] = {}
            for start in range(0, len(rowids), 500):
                chunk = list(rowids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                found = self._conn.execute(
                    f"SELECT rowid, embedding FROM memories WHERE rowid IN ({marks}) AND {where}",
                    [*chunk, *params],
                ).fetchall()
                # a damaged vector is left out, like a row that no longer matches (one
                # matrix check for the chunk: this runs on every query)
                size = dim * 4
                rows = [r for r in found if isinstance(r[1], bytes) and len(r[1]) == size]
                if rows:
                    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
                    matrix = matrix.reshape(len(rows), dim)
                    good = ~bad_rows(matrix)
                    scores = matrix[good] @ query
                    ids = (int(r[0]) for r, ok in zip(rows, good, strict=True) if ok)
                    out.update(zip(ids, scores.tolist(), strict=True))
            return out

        return exact

    def vector_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[ScoredMemory]:
        if k <= 0:
            return []
        with self._lock, self._snapshot():
            index = self._vector_index()
            if index is None:
                return []
            query = np.asarray(vector, dtype=np.float32).reshape(-1)
            if query.shape[0] != index.dimension:
                raise KenningError(
                    f"query vector has {query.shape[0]} dimensions, the store has "
                    f"{index.dimension}; run `kenning reembed`"
                )
            problem = vector_problem(query, index.dimension)
            if problem is not None:
                raise KenningError(
                    f"the query vector {problem}: the embedder must return unit vectors "
                    "(a bug to report; nothing was searched)"
                )
            exact = self._exact_cosines(query, filters)
            hits = None
            ann = self._ann_for(index, filters)
            if ann is not None:
                hits = annindex.search(ann[0], index, ann[1], query, k, filters, exact)
            if hits is None:  # below the threshold, no usable graph, or a selective filter
                hits = index.search(query, k, filters, exact)
            # rows kept in memory are scored without re-reading them: drop damaged ones here
            hits = [(rowid, score) for rowid, score in hits if rowid not in self._bad_vectors]
            found: dict[int, Memory] = {}
            if hits:
                marks = ",".join("?" * len(hits))
                for row in self._conn.execute(
                    f"SELECT rowid, {self._read_columns} FROM memories WHERE rowid IN ({marks})",
                    [rowid for rowid, _ in hits],
                ):
                    memory = self._decode(row[1:])
                    if memory is not None:
                        found[int(row[0])] = memory
        return [
            ScoredMemory(memory=found[rowid], score=checked_cosine(score))
            for rowid, score in hits
            if rowid in found
        ]

    def _ann_for(self, index: VectorIndex, filters: Filters) -> tuple[AnnView, VectorIndex] | None:
        """The graph and the rows it lacks, when this search should use them (from the
        backend's second search past the threshold on, once the file passed its check:
        annindex.examine); starts a (re)build in the background
        when the store is past the threshold and the graph is missing, unusable or stale
        (this search and those until it is done are exact)."""
        if self._ann_min_rows is None or index.count < self._ann_min_rows:
            return None
        self._ann_searches += 1
        if self._ann_searches == 1:
            # A process that searches once (`kenning recall`, a hook) scans: at 1M rows one
            # scan (~0.3 s) costs less than importing usearch and mapping the graph (~0.4 s,
            # and ~320 MB more resident). Only a missing graph is looked for here.
            if not self._ann.path.exists():
                self._ann.start_build()
            return None
        view, rebuild = self._ann.usable(index)
        if rebuild:
            self._ann.start_build()
        if view is None or annindex.rows_scanned(index, filters) < self._ann_min_rows:
            return None
        cached = self._ann_rest
        if cached is None or cached[0] is not index or cached[1] is not view:
            cached = self._ann_rest = (index, view, annindex.tail(index, view))
        return view, cached[2]

    def build_ann_index(self) -> bool:
        """Build ``memory.db.ann`` from the store as it is now (minutes at 1M rows; the
        background builder calls this). False when another builder holds the lock or the
        store has no vectors or is older than schema 5."""
        with self._ann.build_lock() as locked:
            if not locked:
                return False
            with self._lock, self._snapshot():
                index = self._vector_index()
            if index is None or index.state is None or self._schema < 5 or self._lost_state:
                return False
            return self._ann.write(index, still_current=self._no_delete_since) is not None

    @contextmanager
    def _no_delete_since(self, built: annindex.AnnHeader) -> Iterator[bool]:
        """Whether no delete committed since the state ``built`` covers, holding the write
        lock meanwhile: the graph is renamed into place inside, so that no forget commits
        between this look and the rename. A forget removes the graph inside its own
        transaction, so a graph holding a forgotten row never outlives the forget, whoever
        is killed when."""
        try:
            self._begin_write()
        except StoreWriteFailed:  # a long write holds the lock: the next build places one
            yield False
            return
        try:
            (deletes,) = self._conn.execute("SELECT deletes FROM vector_state").fetchone()
            yield int(deletes) == built.deletes
        finally:
            _end_if_open(self._conn, "ROLLBACK")  # nothing was written
            self._lock.release()  # taken by _begin_write

    def integrity_check(self) -> list[str]:
        with self._lock:
            return [str(r[0]) for r in self._conn.execute("PRAGMA integrity_check").fetchall()]

    def replaced(self) -> bool:
        return _file_identity(self.path) != self._identity

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._connection.close()
            self._closed = True
            self._vector_file.close()
            self._vectors = None
            self._ann.close()
            self._ann_rest = None


def _result_code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code of ``exc`` (the low byte of its extended code)."""
    return int(getattr(exc, "sqlite_errorcode", 0)) & 0xFF


def _switch_to_wal(conn: sqlite3.Connection) -> str:
    """``PRAGMA journal_mode = WAL``, waiting out other first writers: SQLite answers "database
    is locked" at once, without its busy handler, while another connection creating the same
    new file holds a lock (about 1 in 250 of six processes opening a new store together)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if _result_code(exc) != 5 or time.monotonic() > deadline:  # 5: SQLITE_BUSY
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def is_read_only_error(exc: sqlite3.Error, path: Path | None = None) -> bool:
    """Whether SQLite refused a write because the file or its folder is read-only: its
    SQLITE_READONLY, or (``path`` given) the SQLITE_CANTOPEN a WAL store gives on a
    read-only file system, where it cannot create its ``-shm`` beside the file."""
    code = _result_code(exc)
    if code == 8:  # SQLITE_READONLY
        return True
    if code != 14 or path is None:  # SQLITE_CANTOPEN
        return False
    return path.is_file() and on_read_only_mount(path)


def on_read_only_mount(path: Path) -> bool:
    """Whether the file system holding ``path`` is mounted read-only (False where it cannot
    be told)."""
    try:
        return bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # (no statvfs on Windows)
        return False


#: The size of a WAL file's header: a -wal no larger holds no write.
_WAL_HEADER_BYTES = 32


def unread_wal(path: Path) -> Path | None:
    """The store's ``-wal`` when it may hold writes SQLite cannot read here, else None: it
    is there, with frames, without its ``-shm`` (a copy or backup that left it out, a
    cleanup that removed it), and the ``-shm`` cannot be created — a read-only mount, or a
    folder this process may not write (qa-s68b F7). SQLite then refuses to open the store
    ("unable to open database file"), and the immutable read kenning falls back to leaves
    the -wal out: the store reads as of its last checkpoint, which is to be said."""
    path = path.resolve()
    wal = path.with_name(path.name + "-wal")
    try:
        if wal.stat().st_size <= _WAL_HEADER_BYTES or path.with_name(path.name + "-shm").exists():
            return None
    except OSError:
        return None
    if on_read_only_mount(path) or not os.access(path.parent, os.W_OK):
        return wal
    return None


def unread_wal_note(wal: Path) -> str:
    """What a read of a store whose ``wal`` it cannot read (:func:`unread_wal`) says, and
    how to get the writes in it back."""
    store = wal.with_name(wal.name.removesuffix("-wal"))
    try:
        size = f"{wal.stat().st_size:,} bytes"
    except OSError:
        size = "its size unknown"
    return (
        f"{wal} ({size}) holds the writes made since the store's last checkpoint, which "
        f"are not read here: its {store.name}-shm is missing and SQLite cannot create it in "
        f"{wal.parent} (read-only), so the store is read without them (it is not damaged); "
        f"to get them back, open the store once where its folder can be written (make "
        f"{wal.parent} writable, or copy {store.name} and {wal.name} together into a "
        "writable folder) and run any kenning command on it there"
    )


def refuses_writes(path: Path) -> bool:
    """Whether a write to the store file at ``path`` is refused as read-only, told without
    opening it (``kenning doctor``), by what the backend meets: its open falls back to
    read-only where SQLite cannot create the -wal and -shm it writes through (a read-only
    mount, or a folder this process may not write while they are not there), and
    :meth:`SQLiteBackend.check_writable` refuses a file of the store that is read-only. A
    folder that cannot be written does not refuse a write by itself: while the -wal and
    -shm are there (a process has the store open, or one that could not remove them left
    them), SQLite writes all three in place (qa-s67c F3). A store file that is a symbolic
    link is the file it names: SQLite writes its -wal and -shm beside that one (qa-s68c S2)."""
    path = path.resolve()
    if on_read_only_mount(path) or _read_only_files(path):
        return True
    if os.access(path.parent, os.W_OK):
        return False
    return not all(path.with_name(path.name + end).is_file() for end in ("-wal", "-shm"))


def _cannot_open(path: Path, exc: sqlite3.Error) -> str:
    if is_read_only_error(exc, path):
        return _read_only(path)
    wal = unread_wal(path)
    if wal is not None:  # (a write: a read falls back to the immutable file)
        return (
            f"cannot write the store {path}: its folder is read-only and SQLite would have to "
            f"create its {path.name}-shm there; make {wal.parent} writable (reads work "
            f"without that, short of the writes in {wal.name} until it is)"
        )
    if is_disk_full_error(exc, path):
        return (
            f"cannot open the store {path}: the disk holding it is full ({exc}: SQLite needs "
            "room beside the store for its -shm file, to read it too); free some space on it "
            "and retry. The store is not damaged: do not move it aside"
        )
    if _result_code(exc) in (5, 6):  # SQLITE_BUSY, SQLITE_LOCKED (qa-s65c C6)
        return (
            f"cannot open the store {path}: another process has held it locked for over "
            f"{BUSY_TIMEOUT_S:g} s ({exc}: a sqlite3 shell or a backup tool in exclusive "
            "locking mode, a long transaction left open?); nothing was changed, retry once it "
            "is done"
        )
    return f"cannot open the store {path}: {exc}"


#: Below this much room on its disk a store's I/O error is taken for a full disk: SQLite
#: creates a 32 KiB -shm file beside a WAL store to read it, and grows the WAL to write.
FULL_DISK_BYTES = 1024 * 1024


def is_disk_full_error(exc: sqlite3.Error, path: Path) -> bool:
    """Whether SQLite's I/O error (or SQLITE_FULL) on ``path`` came from a disk with no room
    left: opening a WAL store on a full disk fails with "disk I/O error", not with "full"."""
    if _result_code(exc) not in (_IOERR, _FULL):
        return False
    free = _free_bytes(path.parent)
    return free is not None and free < FULL_DISK_BYTES


def _free_bytes(folder: Path) -> int | None:
    """The room left on the disk holding ``folder`` (None where it cannot be told)."""
    try:
        found = os.statvfs(folder)
    except (OSError, AttributeError):  # (no statvfs on Windows)
        return None
    # root may fill the blocks a file system keeps for it: what is free for root then counts
    blocks = found.f_bfree if getattr(os, "geteuid", lambda: -1)() == 0 else found.f_bavail
    return int(blocks * found.f_frsize)


#: Room kept beyond what the VACUUM owed after an upgrade is reckoned to need: the user's
#: write comes after it, and the reckoning is of pages, not of every byte.
VACUUM_MARGIN_BYTES = 1024 * 1024


def vacuum_needs(conn: sqlite3.Connection, path: Path) -> dict[Path, int]:
    """The room (bytes) a VACUUM of the store at ``path`` needs on each disk it writes to:
    the store's folder, and SQLite's temporary folder when that is on another disk.
    Measured (SQLite 3.40, WAL): it first builds the rewritten store in a temporary file,
    then writes every page of it into the WAL before it commits (a 7.0 MB store of 1,752
    pages in use: a WAL of 1,743 frames, 7.2 MB, and a 32 KiB -shm); the checkpoint after it
    then shrinks the file."""
    page_size, pages, free_pages = (
        int(conn.execute(f"PRAGMA {name}").fetchone()[0])
        for name in ("page_size", "page_count", "freelist_count")
    )
    used = pages - free_pages
    needs = {path.parent: _wal_bytes(used, page_size) + VACUUM_MARGIN_BYTES}
    temp = _sqlite_temp_folder()
    if temp is not None:
        try:
            same_disk = os.stat(temp).st_dev == os.stat(path.parent).st_dev
        except OSError:
            same_disk = False
        if same_disk:
            needs[path.parent] += used * page_size
        else:
            needs[temp] = used * page_size + VACUUM_MARGIN_BYTES
    return needs


def _wal_bytes(frames: int, page_size: int) -> int:
    """The room a WAL of ``frames`` pages takes, its -shm with it: a WAL frame is a page and
    its 24-byte header, after the WAL's 32-byte header; the -shm indexes 4,096 frames in
    each 32 KiB."""
    return 32 + frames * (page_size + 24) + 32768 * (frames // 4096 + 1)


#: The version of :func:`update_needs`'s reckoning: a room recorded by another (an older
#: kenning's, :meth:`SQLiteBackend.record_wait`) is reckoned again.
UPDATE_NEEDS_VERSION = 1

#: Meta key: the count of rows and the room a one-time update waits for, and what that
#: reckoning stays good for (:meth:`SQLiteBackend.record_wait`); none while nothing waits.
REWRITE_WAIT_KEY = "kenning:rewrite_wait"


def update_needs(conn: sqlite3.Connection, path: Path, ids: Sequence[str]) -> dict[Path, int]:
    """The room (bytes) on the disk holding the store at ``path`` that updating a field of
    each memory of ``ids`` in one transaction needs (the renewal of the error fingerprints
    an older kenning stored): every page it changes goes into the WAL before it commits.
    Reckoned per row: its leaf page, and where the row is longer than a page its overflow
    pages twice (the new chain written, the old one zeroed by secure_delete), at most every
    page in use once; then the fingerprint index's pages, each entry written and deleted
    (the metadata's length bounds its entry), and :data:`VACUUM_MARGIN_BYTES`. Measured
    (SQLite 3.40, 4 KB pages): 2,500 of 5,000 entries of 1.7 KB, a WAL of 2,544 frames
    (10.5 MB); reckoned 2,664 frames (11.0 MB) and 1 MiB."""
    page_size, pages, free_pages = (
        int(conn.execute(f"PRAGMA {name}").fetchone()[0])
        for name in ("page_size", "page_count", "freelist_count")
    )
    local = page_size - 35  # the most of a row a table's leaf page holds (SQLite's maxLocal)
    rows = overflow = entries = 0
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for size, metadata in conn.execute(
            "SELECT length(CAST(content AS BLOB)) + length(embedding) + length(CAST(metadata "
            "AS BLOB)) + length(CAST(tags AS BLOB)) + coalesce(length(CAST(source AS BLOB)), 0)"
            f" + 200, length(CAST(metadata AS BLOB)) FROM memories WHERE id IN ({marks})",
            chunk,
        ):
            rows += 1
            overflow += 2 * max(0, -(-(int(size) - local) // (page_size - 4)))
            entries += 2 * int(metadata)
    used = pages - free_pages
    index = 2 * -(-entries // page_size) + 4  # half-full pages after splits; the tree's top
    frames = min(rows + overflow, used) + index
    return {path.parent: _wal_bytes(frames, page_size) + VACUUM_MARGIN_BYTES}


def _sqlite_temp_folder() -> Path | None:
    """The folder SQLite puts its temporary files in, chosen as its unix VFS does: the first
    of $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp, /tmp that is a folder this process can
    write (None: none is, or not on a unix)."""
    if os.name != "posix":
        return None
    for name in (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"), *_TEMP_FOLDERS):
        if name and os.path.isdir(name) and os.access(name, os.W_OK | os.X_OK):
            return Path(name)
    return None


_TEMP_FOLDERS = ("/var/tmp", "/usr/tmp", "/tmp")


def room_said(needs: Mapping[Path, int]) -> str | None:
    """What a disk of ``needs`` lacks, as said (``it needs about 11 MiB free on the disk
    holding /x/.kenning, which has 8 MiB``); None when every one has the room."""
    short = short_of_room(needs)
    if short is None:
        return None
    folder, free = short
    return (
        f"it needs about {_mib(needs[folder])} MiB free on the disk holding {folder}, which "
        f"has {free // 2**20} MiB"
    )


def short_of_room(needs: Mapping[Path, int]) -> tuple[Path, int] | None:
    """The first folder of ``needs`` whose disk has less room free than it needs there, and
    the bytes free (None: every one has it, or it cannot be told)."""
    for folder, needed in needs.items():
        free = _free_bytes(folder)
        if free is not None and free < needed:
            return folder, free
    return None


def _mib(size: int) -> int:
    """``size`` bytes in MiB, rounded up."""
    return -(-size // 2**20)


def vacuum_room(needs: Mapping[Path, int]) -> str:
    """:func:`vacuum_needs` as said: ``8 MiB free on the disk holding /x/.kenning and …``."""
    return " and ".join(
        f"{_mib(needed)} MiB free on the disk holding {folder}" for folder, needed in needs.items()
    )


def _read_only(path: Path) -> str:
    refused = _read_only_files(path)
    if refused and os.access(path.parent, os.W_OK):  # (else the folder is to make writable)
        # (a read of a read-only store leaves its -wal and -shm read-only too: the store
        # file made writable again, they still refused every write)
        one = len(refused) == 1
        named = ", ".join(f.name for f in refused)  # beside each other, in the store's folder
        return (
            f"cannot write the store {path}: {named} {'is' if one else 'are'} read-only; make "
            f"{'it' if one else 'them'} writable (reads work without that)"
        )
    return (
        f"cannot write the store {path}: its folder or file is read-only; make "
        f"{path.parent} and the files in it writable (reads work without that)"
    )


def _read_only_files(path: Path) -> list[Path]:
    """The store file and the SQLite files beside it that exist and this process may not
    write."""
    found = []
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if candidate.is_file() and not os.access(candidate, os.W_OK):
                found.append(candidate)
        except OSError:
            continue
    return found


def _end_if_open(conn: sqlite3.Connection, *statements: str) -> None:
    """End a transaction (or savepoint) that may be over already: after a full disk or an
    I/O error SQLite has rolled it back itself, and the error that did it is the one to
    report, not "no transaction is active" or "no such savepoint"."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            for statement in statements:
                conn.execute(statement)


#: How long a fork waits for another thread's work on a store to end (see before_fork).
FORK_WAIT_S = 10.0

#: Connections a forked child inherited from its parent, kept from being closed (and from
#: the garbage collector, which would close them).
_INHERITED_CONNECTIONS: list[sqlite3.Connection] = []


def _file_identity(path: Path) -> tuple[int, int] | None:
    """Which file is at ``path`` (device and inode; None: no file there)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


#: SQLITE_CORRUPT and SQLITE_NOTADB (the low byte of their extended codes).
_DAMAGED_CODES = (11, 26)


#: SQLITE_IOERR and SQLITE_FULL: the disk failed the write, or has no room for it.
_IOERR, _FULL = 10, 13
#: SQLITE_BUSY: another connection holds the lock (after the busy timeout).
_BUSY = 5
#: SQLITE_ERROR: SQLite's generic error (also what a query meets when the full-text
#: index lost one of its tables).
_ERROR = 1


def _failed_write(backend: SQLiteBackend, exc: sqlite3.DatabaseError) -> KenningError:
    """A write SQLite could not finish (it rolled back): what stopped it, and that nothing
    changed."""
    known = _known_failure(backend, exc)
    if known is not None:
        return known
    return StoreWriteFailed(
        f"cannot write the store {backend.path} ({exc}); the write that failed changed nothing"
    )


def _known_failure(backend: SQLiteBackend, exc: sqlite3.DatabaseError) -> KenningError | None:
    """A damaged file, a write to a read-only one, a full disk or a failing one, as
    kenning's error (None: none of these)."""
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in str(exc):
        # closed by another thread while this call ran (MemoryStore.close)
        return StoreClosed.at(backend.path)
    if is_read_only_error(exc, backend.path):
        return KenningError(_cannot_open(backend.path, exc))
    if _result_code(exc) == _FULL:
        return DiskFull(
            f"cannot write the store {backend.path}: the disk is full; free some space on "
            f"it and retry (the write that failed changed nothing)"
        )
    if _result_code(exc) == _IOERR:
        return StoreWriteFailed(
            f"the disk failed reading or writing the store {backend.path} ({exc}); check the "
            f"disk and retry (a write that failed changed nothing)"
        )
    if _result_code(exc) not in (_ERROR, *_DAMAGED_CODES):
        return None
    # "SQL logic error", "no such fts5 table", "vtable constructor failed", "malformed"
    missing = _missing_fts_tables(backend)
    if missing:
        return _lost_index_error(backend.path, missing, f" ({exc})")
    if _result_code(exc) == _ERROR:  # any other mistake of a query: not damage
        return None
    return StoreCorrupted(f"{backend.path} is damaged ({exc}); {_recovery_hint(backend.path)}")


def _lost_index_error(path: Path, missing: Sequence[str], detail: str) -> StoreCorrupted:
    what = "its full-text index" if set(missing) <= set(FULL_TEXT_TABLES) else "it"
    return StoreCorrupted(
        f"{path} is damaged: {what} lost table(s) {', '.join(missing)}{detail}; "
        f"its memories are intact: rebuild the store from them with `kenning export "
        f"--group-id all -o backup.jsonl`, move {path} aside, then `kenning import backup.jsonl`"
    )


def _missing_fts_tables(backend: SQLiteBackend) -> list[str]:
    """The tables of the full-text index missing from the store (of those its schema has);
    asked only after SQLite's generic error."""
    try:
        with backend._lock:
            present = {
                str(r[0])
                for r in backend._conn.execute(
                    "SELECT name FROM sqlite_master WHERE name LIKE 'memories_%'"
                )
            }
    except sqlite3.Error:
        return []
    expected = set(required_tables(backend._schema)) | set(FTS_SHADOW_TABLES)
    return [t for t in FULL_TEXT_TABLES if t in expected and t not in present]


def _guard(method: Callable[..., Any]) -> Callable[..., Any]:
    """Report a damaged file (a corrupt page met mid-query) as :class:`StoreCorrupted` with the
    recovery hint, and a write to a read-only store as the error that says so, instead of
    letting ``sqlite3.DatabaseError`` escape as a traceback. A read that met text not UTF-8
    is made again, reading text as :meth:`SQLiteBackend._check_text` says (reads are
    idempotent; writes read that way from the start, see ``exclusive``)."""
    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def generator(self: SQLiteBackend, *args: Any, **kwargs: Any) -> Iterator[Any]:
            try:
                yield from method(self, *args, **kwargs)
            except sqlite3.DatabaseError as exc:
                damaged = _known_failure(self, exc)
                if damaged is None:
                    raise
                raise damaged from None

        return generator

    @functools.wraps(method)
    def wrapper(self: SQLiteBackend, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if _not_utf8(exc) and not self._in_tx and self._check_text():
                return wrapper(self, *args, **kwargs)  # once: the text is now checked
            damaged = _known_failure(self, exc)
            if damaged is None:
                raise
            raise damaged from None

    return wrapper


for _name in (
    "prepare_search",
    "upsert",
    "delete",
    "update_vectors",
    "record_seen",
    "update_metadata",
    "get_meta",
    "set_meta",
    "write_provenance",
    "read_provenance",
    "get",
    "find_by_hash",
    "find_by_hashes",
    "find_by_fingerprint",
    "ids_with_prefix",
    "ids_with_prefixes",
    "get_vectors",
    "count",
    "count_by",
    "count_damaged",
    "count_unreadable",
    "damaged_vector_ids",
    "iterate",
    "newest",
    "metadata_entries",
    "stored_since",
    "projects_if_absent",
    "projects_alike",
    "build_ann_index",
    "term_statistics",
    "lexical_search",
    "lexical_search_with_statistics",
    "lexical_search_with_vectors",
    "vector_search",
    "integrity_check",
    "room_to_update",
    "short_of_room",
    "checkpoint",
    "newer_schema_refuses_writes",
    "record_wait",
    "recorded_wait",
):
    setattr(SQLiteBackend, _name, _guard(getattr(SQLiteBackend, _name)))
