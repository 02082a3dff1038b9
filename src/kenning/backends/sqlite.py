"""The embedded default backend: one SQLite file (WAL) holding rows, vectors and FTS5.

Vectors are float32 BLOBs beside their rows: the source of truth. Vector search scans
``memory.db.vectors``, a memory-mapped int8 copy kept in step with them
(:mod:`kenning.backends.vectorfile`: exact top-k, re-scored from the BLOBs), brought up to
date when ``PRAGMA data_version`` (other writers) or our own write counter says the table
changed. Lexical search is FTS5 BM25 over the full content (the embedding sees only the
first 256 word pieces; FTS sees everything), ranked in the FTS index before any row is
read; document frequencies and row counts are cached per store version.

Several processes may write at once: every connection waits on a busy timeout, and a
check-then-write (dedup) runs inside ``BEGIN IMMEDIATE`` so two writers cannot both decide
that a note is new. ``synchronous=FULL`` makes an acknowledged write durable.
"""

from __future__ import annotations

import functools
import inspect
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import KenningError, StoreCorrupted, StoreNotFound
from ..lexical import MAX_QUERY_TERMS
from ..lexical import terms as lexical_terms
from ..model import Memory, Provenance, parse_timestamp
from .base import (
    PROVENANCE_KEY,
    Filters,
    MemoryRecord,
    ScoredMemory,
    batch_dimension,
    check_dimension,
    decode_provenance,
    duplicate_content,
    encode_provenance,
)
from .vectorfile import BUILD_BATCH, Row, StoreState, VectorFile, VectorIndex

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
    # when the content changes, not when a sighting or a vector is recorded.
    """
    ALTER TABLE memories ADD COLUMN last_seen_at TEXT;
    ALTER TABLE memories ADD COLUMN seen_count INTEGER NOT NULL DEFAULT 1;
    DROP TRIGGER memories_au;
    CREATE TRIGGER memories_au AFTER UPDATE OF content ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content)
        VALUES ('delete', old.rowid, old.content);
        INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
    END;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

BUSY_TIMEOUT_S = 30.0
_COLUMNS = (
    "id, content, collection, type, group_id, stored_at, content_hash, source, tags, metadata, "
    "last_seen_at, seen_count"
)
#: What a store of this schema version holds (``kenning doctor`` checks against these).
REQUIRED_TABLES = ("meta", "memories", "memories_fts", "memories_terms", "vector_state")
REQUIRED_COLUMNS = (*(c.strip() for c in _COLUMNS.split(",")), "embedding")
#: How many leading values of a row are :data:`_COLUMNS` (what follows is extra).
_NCOLUMNS = len(_COLUMNS.split(","))
#: Added by migration 6 (a store migrated from an older version gets them when opened).
SEEN_COLUMNS = ("last_seen_at", "seen_count")


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


def _recovery_hint(path: Path) -> str:
    return (
        f"move {path} aside, then restore from a backup with `kenning import <backup.jsonl>` "
        "(or run `kenning doctor` for details)"
    )


def _row_to_memory(row: Sequence[object]) -> Memory:
    return Memory(
        id=str(row[0]),
        content=str(row[1]),
        collection=str(row[2]),
        type=str(row[3]),
        group_id=str(row[4]),
        stored_at=parse_timestamp(str(row[5])),
        content_hash=str(row[6]),
        source=None if row[7] is None else str(row[7]),
        # most notes have neither: skip the JSON parser for the empty forms
        tags=() if row[8] == "[]" else tuple(json.loads(str(row[8]))),
        metadata={} if row[9] == "{}" else json.loads(str(row[9])),
        last_seen_at=None if row[10] is None else parse_timestamp(str(row[10])),
        seen_count=int(str(row[11])),
    )


#: A term found in more than this share of the memories adds almost nothing to BM25 (its idf
#: is near zero) but makes FTS5 score most of the table; it is left out of the query.
COMMON_TERM_SHARE = 0.1
#: ...unless the store is this small, where every matching term still counts.
COMMON_TERM_MIN_DOCS = 32
#: At most this many postings (rows matched, summed over terms) are scored per query.
POSTINGS_BUDGET = 2000


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 query that ORs the quoted terms; FTS syntax in the input is inert."""
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms)


class _LexicalStats:
    """What lexical search reads about the whole store, valid for one store version."""

    def __init__(self, version: tuple[int, int], total: int) -> None:
        self.version = version
        self.total = total
        self.frequency: dict[str, int] = {}
        self.shares: dict[Filters, float] = {}


class SQLiteBackend:
    """Embedded store in one SQLite file. Thread-safe within a process."""

    def __init__(self, path: Path, *, create: bool = True, dimension: int | None = None) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        if not self.path.exists():
            if not create:
                raise StoreNotFound(
                    f"no kenning store at {self.path} yet; `kenning remember` creates it"
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
        elif not create and self.path.stat().st_size == 0:
            # created by a process that died before initialising it: nothing to read, and a
            # read must not be the one that writes the schema
            raise StoreNotFound(
                f"the store at {self.path} is empty; `kenning remember` initialises it"
            )
        self._lock = threading.RLock()
        self._in_tx = False
        self._writes = 0
        try:
            self._conn = sqlite3.connect(
                str(self.path),
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self._migrate()
            self._conn.execute("PRAGMA synchronous = FULL")
        except sqlite3.OperationalError as exc:  # locked, unopenable: not a damaged file
            raise KenningError(f"cannot open the store {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreCorrupted(
                f"{self.path} is not a readable kenning store ({exc}); {_recovery_hint(self.path)}"
            ) from None
        self._dimension = dimension
        self._vector_file = VectorFile(self.path.with_name(self.path.name + ".vectors"))
        self._vectors: VectorIndex | None = None
        self._lexical: _LexicalStats | None = None

    # -- schema -----------------------------------------------------------------------------

    def _migrate(self) -> None:
        conn = self._conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreCorrupted(
                f"{self.path} has schema version {version}, newer than this kenning understands "
                f"({SCHEMA_VERSION}); upgrade kenning, or export it with the newer version"
            )
        if version == SCHEMA_VERSION:
            self._check_tables()
            return
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise KenningError(f"cannot switch {self.path} to WAL mode (got {mode})")
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for number in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[number]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _check_tables(self) -> None:
        names = {
            r[0]
            for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")
        }
        missing = set(REQUIRED_TABLES) - names
        if missing:
            raise StoreCorrupted(
                f"{self.path} is missing table(s) {', '.join(sorted(missing))}; "
                f"{_recovery_hint(self.path)}"
            )
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(memories)")}
        gone = set(REQUIRED_COLUMNS) - columns
        if gone:
            raise StoreCorrupted(
                f"{self.path} is missing column(s) {', '.join(sorted(gone))} of table "
                f"memories; {_recovery_hint(self.path)}"
            )

    # -- transactions -----------------------------------------------------------------------

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx:
                yield
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._in_tx = True
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                self._writes += 1  # our cache may hold rows that were rolled back
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._in_tx = False

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        dimension = batch_dimension([r.vector for r in records])
        rows = []
        for record in records:
            m = record.memory
            vector = np.ascontiguousarray(record.vector, dtype=np.float32)
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
                    json.dumps(dict(m.metadata), ensure_ascii=False, sort_keys=True),
                    None if m.last_seen_at in (None, m.stored_at) else m.last_seen_at.isoformat(),
                    m.seen_count,
                    vector.tobytes(),
                )
            )
        with self.exclusive():
            self._check_dimension(dimension)
            # A savepoint makes the batch all-or-nothing even inside a caller's transaction.
            self._conn.execute("SAVEPOINT upsert")
            try:
                self._conn.executemany("DELETE FROM memories WHERE id = ?", [(r[0],) for r in rows])
                self._conn.executemany(
                    f"INSERT INTO memories ({_COLUMNS}, embedding) "
                    f"VALUES ({','.join('?' * (_NCOLUMNS + 1))})",
                    rows,
                )
            except sqlite3.IntegrityError as exc:
                self._conn.execute("ROLLBACK TO upsert")
                if "content_hash" in str(exc):  # UNIQUE (group_id, content_hash)
                    raise duplicate_content(self.location) from None
                raise
            except BaseException:
                self._conn.execute("ROLLBACK TO upsert")
                raise
            finally:
                self._conn.execute("RELEASE upsert")
            self._writes += 1

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
        if not ids:
            return 0
        with self.exclusive():
            cur = self._conn.executemany("DELETE FROM memories WHERE id = ?", [(i,) for i in ids])
            self._writes += 1
            return cur.rowcount

    def update_vectors(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        if not items:
            return
        with self.exclusive():
            self._conn.executemany(
                "UPDATE memories SET embedding = ? WHERE id = ?",
                [(np.ascontiguousarray(v, dtype=np.float32).tobytes(), i) for i, v in items],
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
                    "UPDATE memories SET seen_count = seen_count + 1, last_seen_at = ? "
                    "WHERE id = ?",
                    (max(last, parse_timestamp(when)).isoformat(), memory_id),
                )

    def get_meta(self, key: str) -> str | None:
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
                    f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks})", chunk
                ):
                    memory = _row_to_memory(row)
                    out[memory.id] = memory
        return [out[i] for i in ids if i in out]

    def find_by_hash(self, group_id: str, content_hash: str) -> Memory | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE group_id = ? AND content_hash = ?",
                (group_id, content_hash),
            ).fetchone()
        return None if row is None else _row_to_memory(row)

    def find_by_hashes(self, group_id: str, content_hashes: Sequence[str]) -> dict[str, Memory]:
        out: dict[str, Memory] = {}
        unique = list(dict.fromkeys(content_hashes))
        with self._lock:
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(
                    f"SELECT {_COLUMNS} FROM memories "
                    f"WHERE group_id = ? AND content_hash IN ({marks})",
                    [group_id, *chunk],
                ):
                    memory = _row_to_memory(row)
                    out[memory.content_hash] = memory
        return out

    def find_by_fingerprint(self, fingerprint: str, filters: Filters) -> list[Memory]:
        where, params = self._where(filters)
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM memories "
                f"WHERE json_extract(metadata, '$.error_fingerprint') = ? AND {where} "
                "ORDER BY rowid DESC LIMIT 20",
                [fingerprint, *params],
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                for memory_id, blob in self._conn.execute(
                    f"SELECT id, embedding FROM memories WHERE id IN ({marks})", chunk
                ):
                    out[str(memory_id)] = np.frombuffer(blob, dtype=np.float32)
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
            rows = self._conn.execute(
                f"SELECT collection, type, count(*) FROM memories WHERE {where} "
                "GROUP BY collection, type",
                params,
            ).fetchall()
        return {(r[0], r[1]): int(r[2]) for r in rows}

    def iterate(self, filters: Filters, batch_size: int = 500) -> Iterator[MemoryRecord]:
        # Walk the rowids (one pass over the table in all), never a filter index, which
        # would sort a whole project again for every batch.
        where, params = self._where(filters, indexed=False)
        last = 0
        while True:
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT rowid, {_COLUMNS}, embedding FROM memories "
                    f"WHERE rowid > ? AND {where} ORDER BY rowid LIMIT ?",
                    [last, *params, batch_size],
                ).fetchall()
            if not rows:
                return
            for row in rows:
                yield MemoryRecord(
                    memory=_row_to_memory(row[1 : 1 + _NCOLUMNS]),
                    vector=np.frombuffer(row[1 + _NCOLUMNS], dtype=np.float32).copy(),
                )
            last = rows[-1][0]

    def newest(self, filters: Filters, n: int) -> list[Memory]:
        if n <= 0:
            return []
        where, params = self._where(filters)
        with self._lock:
            # stored_at is UTC ISO 8601 text (see upsert), which sorts as the time does
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE {where} "
                "ORDER BY stored_at DESC, id DESC LIMIT ?",
                [*params, n],
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def _version(self) -> tuple[int, int]:
        """Changes when anyone (another connection, or this one) wrote to the store."""
        data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        return (int(data_version), self._writes)

    def _lexical_stats(self) -> _LexicalStats:
        """Row count, per-filter shares and FTS document frequencies, kept until the store
        changes (one ``PRAGMA data_version`` per query instead of three lookups)."""
        version = self._version()
        stats = self._lexical
        if stats is None or stats.version != version:
            total = self._conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            stats = self._lexical = _LexicalStats(version, int(total))
        return stats

    def _document_frequencies(self, stats: _LexicalStats, terms: Sequence[str]) -> dict[str, int]:
        missing = [t for t in terms if t not in stats.frequency]
        if missing:
            marks = ",".join("?" * len(missing))
            found = dict(
                self._conn.execute(
                    f"SELECT term, doc FROM memories_terms WHERE term IN ({marks})", missing
                ).fetchall()
            )
            for term in missing:
                stats.frequency[term] = int(found.get(term, 0))
        return {t: stats.frequency[t] for t in terms}

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

    def lexical_search(self, query: str, k: int, filters: Filters) -> list[ScoredMemory]:
        if k <= 0:
            return []
        terms = lexical_terms(query, MAX_QUERY_TERMS)
        if not terms:
            return []
        with self._lock, self._snapshot():
            stats = self._lexical_stats()
            frequency = self._document_frequencies(stats, terms)
            total = stats.total
            cutoff = max(COMMON_TERM_SHARE * total, COMMON_TERM_MIN_DOCS)
            usable = sorted(
                (t for t in terms if 0 < frequency.get(t, 0) <= cutoff),
                key=lambda t: frequency[t],
            )
            # FTS5 scores every row a term matches: take the rarest terms (the ones that carry
            # BM25) until their postings reach the budget, so a query costs the same at any
            # size.
            chosen: list[str] = []
            postings = 0
            for term in usable:
                if chosen and postings + frequency[term] > POSTINGS_BUDGET:
                    break
                chosen.append(term)
                postings += frequency[term]
            match = fts_query(chosen)
            share = self._share(stats, filters)
            if match is None or share <= 0.0:
                return []
            return self._ranked_matches(match, k, filters, share)

    def _ranked_matches(
        self, match: str, k: int, filters: Filters, share: float
    ) -> list[ScoredMemory]:
        """The best ``k`` FTS matches that pass ``filters``: ranked in the FTS index alone,
        then only the best few rows are read and checked against the filter (joining every
        match to its row first cost more than the ranking itself)."""
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
                    f"SELECT rowid, {_COLUMNS} FROM memories WHERE rowid IN ({marks}) AND {where}",
                    [*chunk, *params],
                ):
                    rows[int(row[0])] = _row_to_memory(row[1:])
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
            self._check_blobs(batch)
            yield batch
            return
        last = after_rowid
        while True:
            batch = self._conn.execute(
                f"SELECT {columns} FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (last, BUILD_BATCH),
            ).fetchall()
            if not batch:
                return
            self._check_blobs(batch)
            yield batch
            last = batch[-1][0]

    def rowids(self) -> np.ndarray:
        found = self._conn.execute("SELECT rowid FROM memories ORDER BY rowid").fetchall()
        return np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))

    def _check_blobs(self, rows: Sequence[Row]) -> None:
        dimension = self._store_dimension()
        bad = sum(1 for r in rows if len(r[4]) != dimension * 4)
        if bad:
            raise StoreCorrupted(
                f"{self.path} has {bad} vector(s) that are not {dimension}-dimensional "
                "float32; run `kenning reembed` to recompute them (`kenning doctor` for details)"
            )

    def _store_dimension(self) -> int:
        first = self._conn.execute("SELECT length(embedding) FROM memories LIMIT 1").fetchone()
        if first is not None:
            return int(first[0]) // 4
        return self._dimension or 0

    def _vector_index(self) -> VectorIndex | None:
        """The vectors of the store as it is now (inside the caller's snapshot)."""
        version = self._version()
        index = self._vectors
        if (
            index is not None
            and index.version == version
            and (index.persisted or self._in_tx or not self._vector_file.lock_free())
        ):
            return index
        conn = self._conn
        token, deletes, updates = conn.execute(
            "SELECT token, deletes, updates FROM vector_state"
        ).fetchone()
        count, max_rowid = conn.execute(
            "SELECT count(*), coalesce(max(rowid), 0) FROM memories"
        ).fetchone()
        dimension = self._store_dimension()
        if count == 0 or dimension == 0:
            self._vectors = None
            return None
        state = StoreState(str(token), int(deletes), int(updates), int(count), int(max_rowid))
        # Rows written inside our own transaction may yet roll back: never in the file.
        index = self._vector_file.sync(state, dimension, self, persist=not self._in_tx)
        index.version = version
        self._vectors = index
        return index

    def _exact_cosines(
        self, query: np.ndarray, filters: Filters
    ) -> Callable[[Sequence[int]], dict[int, float]]:
        where, params = self._where(filters, indexed=False)

        def exact(rowids: Sequence[int]) -> dict[int, float]:
            out: dict[int, float] = {}
            for start in range(0, len(rowids), 500):
                chunk = list(rowids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT rowid, embedding FROM memories WHERE rowid IN ({marks}) AND {where}",
                    [*chunk, *params],
                ).fetchall()
                if rows:
                    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
                    scores = matrix.reshape(len(rows), -1) @ query
                    out.update(zip((int(r[0]) for r in rows), scores.tolist(), strict=True))
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
            hits = index.search(query, k, filters, self._exact_cosines(query, filters))
            found: dict[int, Memory] = {}
            if hits:
                marks = ",".join("?" * len(hits))
                for row in self._conn.execute(
                    f"SELECT rowid, {_COLUMNS} FROM memories WHERE rowid IN ({marks})",
                    [rowid for rowid, _ in hits],
                ):
                    found[int(row[0])] = _row_to_memory(row[1:])
        return [
            ScoredMemory(memory=found[rowid], score=min(1.0, max(-1.0, float(score))))
            for rowid, score in hits
            if rowid in found
        ]

    def integrity_check(self) -> list[str]:
        with self._lock:
            return [str(r[0]) for r in self._conn.execute("PRAGMA integrity_check").fetchall()]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._vector_file.close()
            self._vectors = None


#: SQLITE_CORRUPT and SQLITE_NOTADB (the low byte of their extended codes).
_DAMAGED_CODES = (11, 26)


def _damaged(backend: SQLiteBackend, exc: sqlite3.DatabaseError) -> StoreCorrupted | None:
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in _DAMAGED_CODES:
        return None
    return StoreCorrupted(f"{backend.path} is damaged ({exc}); {_recovery_hint(backend.path)}")


def _guard(method: Callable[..., Any]) -> Callable[..., Any]:
    """Report a damaged file (a corrupt page met mid-query) as :class:`StoreCorrupted` with the
    recovery hint, instead of letting ``sqlite3.DatabaseError`` escape as a traceback."""
    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def generator(self: SQLiteBackend, *args: Any, **kwargs: Any) -> Iterator[Any]:
            try:
                yield from method(self, *args, **kwargs)
            except sqlite3.DatabaseError as exc:
                damaged = _damaged(self, exc)
                if damaged is None:
                    raise
                raise damaged from None

        return generator

    @functools.wraps(method)
    def wrapper(self: SQLiteBackend, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            damaged = _damaged(self, exc)
            if damaged is None:
                raise
            raise damaged from None

    return wrapper


for _name in (
    "upsert",
    "delete",
    "update_vectors",
    "record_seen",
    "get_meta",
    "set_meta",
    "write_provenance",
    "read_provenance",
    "get",
    "find_by_hash",
    "find_by_hashes",
    "find_by_fingerprint",
    "get_vectors",
    "count",
    "count_by",
    "iterate",
    "newest",
    "lexical_search",
    "vector_search",
    "integrity_check",
):
    setattr(SQLiteBackend, _name, _guard(getattr(SQLiteBackend, _name)))
