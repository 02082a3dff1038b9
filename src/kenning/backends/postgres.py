"""The team / scale-out backend: PostgreSQL with pgvector, selected by a ``postgresql://`` URL.

Layout (in the connection's current schema, so ``?options=-csearch_path=team_a`` separates
stores inside one database):

* ``kenning_schema`` — the numbered migrations applied, guarded by an advisory lock so that
  several processes opening a new store at once migrate it exactly once;
* ``kenning_meta`` — key/value text (embedding provenance, re-embed progress, ...);
* ``kenning_memories`` — the rows, ``embedding vector(dim)``, an HNSW index with
  ``vector_cosine_ops``, a B-tree on ``(group_id, collection, type)``, unique
  ``(group_id, content_hash)``, an index on ``metadata->>'error_fingerprint'``, a partial
  one on the rows whose JSON is not kenning's (stats' damaged count), and the content's
  ``tsvector`` (with a GIN index) and length, which a row trigger computes. The table
  needs the vector dimension, so when it is not known at open it is created by the first
  write.

Lexical search scores with FTS5's BM25 (k1 = 1.2, b = 0.75, idf clamped at 1e-6, statistics
over the whole table), so the store's fused score means the same as on SQLite. Tokens are
the ``simple`` configuration's (no stemming, no stop words) over the text with every
non-alphanumeric run turned into a space — like FTS5's ``unicode61``, which also splits
``src/components`` and ``sqlite3.OperationalError`` (diacritics are kept, unlike FTS5's
``remove_diacritics``; a combining mark stays in its word, ``İ`` is ``i`` and ``Σ`` and
``ς`` are ``σ``, migration 7,
as :func:`kenning.lexical.tokens` makes a query's words). Letters are told from punctuation
and lowercased by Unicode whatever the database's ``LC_CTYPE`` (under ``C`` kenning_tsv
names a collation that does; migration 5). Row count, total length and per-term document
frequency live in ``kenning_fts_stats`` / ``kenning_fts_terms``, kept by statement-level
triggers (upserts are one ``COPY``, so a batch updates them once; an atomic bulk load
turns them off and counts the statistics again once at its end). A word in more than half
of all rows has idf 1e-6, as in FTS5. Candidates come from the query terms every backend
looks for (:func:`~kenning.backends.base.terms_to_match`: not the common ones, the rarest
first within a postings budget) and are ranked by those terms' BM25, as on SQLite, so that
the same notes give the same hybrid results.

Vector search returns cosine ``1 - (embedding <=> q)``. ``kenning_counts`` (rows per
project, collection and type, kept by the same triggers; it also answers ``count`` and
``count_by``) says how many rows a filter matches. Up to :data:`EXACT_SEARCH_MAX_ROWS` the
search is exact (the planner drives it with the filter B-tree or a sequential scan): recall
1.0 for every small store and every selective filter. Beyond that it uses HNSW with a wider
``hnsw.ef_search``, plus ``hnsw.iterative_scan = relaxed_order`` (pgvector >= 0.8) when
filtered; results are re-sorted, and when HNSW returns fewer than ``k`` rows while more
match, the query is repeated as an exact scan (``enable_indexscan = off``). Vectors of up
to 1024 dimensions are stored inline (``STORAGE PLAIN``), which keeps exact scans cheap.

Writes serialise on ``pg_advisory_xact_lock`` (per database and schema), like SQLite's
``BEGIN IMMEDIATE``, and like it wait at most :data:`STORE_LOCK_WAIT_S` for it;
:meth:`PostgresBackend.exclusive` holds that lock in one transaction on one connection,
and every call made inside it on the same thread uses that connection, so the store's
dedup check and insert are atomic against every other writer. A batch
upsert is one transaction (a savepoint inside ``exclusive``): it is written whole or not
at all.

A server that cannot be reached or refuses the credentials raises
:class:`~kenning.errors.StoreUnavailable` (exit code 3) with the password removed from
every URL in the message; credentials are never logged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import re
import struct
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import unquote

import numpy as np
import psycopg
import psycopg.sql
from psycopg import errors as pg_errors
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import (
    KenningError,
    NotAKenningStore,
    SchemaTooNew,
    StoreCorrupted,
    StoreNotFound,
    StoreUnavailable,
    StoreWriteFailed,
)
from ..lexical import (
    BM25_B,
    BM25_K1,
    FOLDED_CASES,
    MAX_QUERY_TERMS,
    combining_mark_ranges,
    idf,
    query_terms,
    spellings,
    usual_width,
)
from ..model import TYPE_TO_COLLECTION, Memory, Provenance, parse_timestamp
from ..protocol import MAX_CONTENT_BYTES, MAX_SEEN_COUNT, MAX_STORED_METADATA_BYTES
from ..redaction import (
    password_needs_encoding,
    query_secrets,
    redact_secrets,
    redact_url,
    redaction_marker,
    url_password,
)
from ..render import escaped_line
from ..vectors import checked_cosine
from . import compat
from .base import (
    BLANK_FIX,
    CONTENT_CHARS_SURELY_STORED,
    METADATA_CHARS_SURELY_STORED,
    OVERSIZE_FIX,
    PROVENANCE_KEY,
    DamagedRow,
    FieldDamage,
    Filters,
    MemoryRecord,
    MetadataEntry,
    ScoredMemory,
    TermStatistics,
    batch_dimension,
    blank_reason,
    check_dimension,
    checked_fields,
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

#: Migration 5's marker: run by :meth:`PostgresBackend._use_word_collation`, not as SQL.
_WORD_COLLATION_MIGRATION = "-- kenning_tsv: words by Unicode whatever the database's locale"
#: Migration 7's marker: run by :meth:`PostgresBackend._keep_marks_in_words`, not as SQL.
_WORD_MARKS_MIGRATION = "-- kenning_tsv: a combining mark does not split a word; İ is i"
#: The combining marks (:func:`kenning.lexical.combining_mark_ranges`) as the inside of a
#: regular expression's bracket, in an ``E''`` string literal (whatever
#: ``standard_conforming_strings`` says).
_MARKS = "".join(f"\\\\U{first:08x}-\\\\U{last:08x}" for first, last in combining_mark_ranges())
#: kenning_tsv's definition; ``{collate}``: a COLLATE clause for the text it splits (empty:
#: the database's own), see migrations 5 and 7. Words are runs of letters, digits and
#: combining marks (PostgreSQL's parser keeps a mark with the letter before it), and
#: :data:`kenning.lexical.FOLDED_CASES` are folded whatever the collation's ``lower()``
#: makes of them: the words
#: :func:`kenning.lexical.tokens` makes of a query.
_KENNING_TSV = """
    CREATE OR REPLACE FUNCTION kenning_tsv(text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT to_tsvector('simple'::regconfig,
                                 lower(translate(regexp_replace($1{collate},
                                                                E'[^[:alnum:]MARKS]+', ' ', 'g'),
                                                 'İΣς', 'iσσ'))) $$
""".replace("MARKS", _MARKS)
#: The rows whose words migration 7 changes: those holding a combining mark, ``İ``, ``Σ`` or
#: ``ς``.
_WORDS_CHANGED = f"content ~ E'[{FOLDED_CASES}{_MARKS}]'"
#: Collations, best first, that may classify and lowercase letters by Unicode where the
#: database's LC_CTYPE does not (PostgreSQL 17's builtin one, glibc's C.UTF-8, ICU's root
#: locale, glibc's en_US); each is checked (:func:`_word_collation`) before it is used.
WORD_COLLATIONS = ("pg_c_utf8", "C.utf8", "C.UTF-8", "und-x-icu", "en_US.utf8", "en_US.UTF-8")
#: A text whose words and lowercase show whether a collation classifies letters by Unicode.
_WORD_PROBE = ("Éé Жж 日本 x1-y_z", "Éé Жж 日本 x1 y z", "éé жж 日本 x1-y_z")

#: The rows whose tags or metadata are not the JSON kenning writes (cheap type checks):
#: the only ones :meth:`PostgresBackend.count_damaged` decodes. Migration 8 indexes them
#: with this very text as its predicate, which the count's query repeats so that the
#: planner may read the index: never change it without a migration that builds the index
#: again. (``strict``: an array inside the tags is an element that is not a string.)
_SUSPECT_ROW = (
    "jsonb_typeof(tags) <> 'array' "
    "OR jsonb_path_exists(tags, 'strict $[*] ? (@.type() <> \"string\")', '{}', true) "
    "OR jsonb_typeof(metadata) <> 'object' "
    "OR (metadata_text IS NOT NULL AND "
    "(metadata_text !~ '^\\s*[{]' OR metadata_text !~ '[}]\\s*$'))"
)
#: :data:`_SUSPECT_ROW` for a store older than migration 4 (no metadata_text).
_SUSPECT_ROW_BEFORE_4 = _SUSPECT_ROW.split(" OR (metadata_text")[0]

#: True for a row whose content is not the text kenning stored its hash with
#: (:func:`kenning.model.content_hash`): another writer set it, or inserted the row.
_EDITED = "content_hash <> encode(sha256(convert_to(content, 'UTF8')), 'hex')"

#: Numbered migrations; ``kenning_schema`` records those applied. ``{dim}`` marks one that
#: needs the vector dimension: it waits for the first write when the dimension is unknown.
MIGRATIONS: tuple[str, ...] = (
    # 1: key/value metadata (provenance, re-embed state).
    """
    CREATE TABLE kenning_meta (key text PRIMARY KEY, value text NOT NULL);
    """,
    # 2: rows, vectors, filter/uniqueness/fingerprint indexes, HNSW, full text with the
    # statistics BM25 needs (row count, total length, document frequency per term), kept
    # by statement-level triggers so that a COPY of a whole batch updates them once.
    """
    CREATE FUNCTION kenning_tsv(text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT to_tsvector('simple'::regconfig,
                                 regexp_replace($1, '[^[:alnum:]]+', ' ', 'g')) $$;
    CREATE FUNCTION kenning_doclen(tsvector) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer
              FROM unnest($1) $$;
    CREATE TABLE kenning_memories (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        content text NOT NULL,
        collection text NOT NULL,
        type text NOT NULL,
        group_id text NOT NULL,
        stored_at timestamptz NOT NULL,
        content_hash text NOT NULL,
        source text,
        tags jsonb NOT NULL DEFAULT '[]',
        metadata jsonb NOT NULL DEFAULT '{}',
        embedding vector({dim}) NOT NULL,
        content_tsv tsvector GENERATED ALWAYS AS (kenning_tsv(content)) STORED,
        doc_len integer GENERATED ALWAYS AS (kenning_doclen(kenning_tsv(content))) STORED,
        CONSTRAINT kenning_memories_group_hash UNIQUE (group_id, content_hash)
    );
    ALTER TABLE kenning_memories ALTER COLUMN embedding SET STORAGE {storage};
    CREATE INDEX kenning_memories_filter ON kenning_memories (group_id, collection, type);
    CREATE INDEX kenning_memories_fingerprint
        ON kenning_memories ((metadata ->> 'error_fingerprint'))
        WHERE (metadata ->> 'error_fingerprint') IS NOT NULL;
    CREATE INDEX kenning_memories_hnsw ON kenning_memories
        USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX kenning_memories_fts ON kenning_memories USING gin (content_tsv);
    CREATE TABLE kenning_fts_stats (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        n bigint NOT NULL,
        total_len bigint NOT NULL
    );
    INSERT INTO kenning_fts_stats (n, total_len) VALUES (0, 0);
    CREATE TABLE kenning_fts_terms (term text PRIMARY KEY, df bigint NOT NULL);
    CREATE TABLE kenning_counts (
        group_id text NOT NULL,
        collection text NOT NULL,
        type text NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (group_id, collection, type)
    );
    CREATE FUNCTION kenning_rows_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE kenning_fts_stats SET n = n + s.c, total_len = total_len + s.l
            FROM (SELECT count(*) AS c, coalesce(sum(doc_len), 0) AS l FROM kenning_new) s;
        INSERT INTO kenning_fts_terms AS t (term, df)
            SELECT lexeme, count(*) FROM kenning_new,
                unnest(tsvector_to_array(kenning_new.content_tsv)) AS lexeme
            GROUP BY lexeme
            ON CONFLICT (term) DO UPDATE SET df = t.df + EXCLUDED.df;
        INSERT INTO kenning_counts AS k (group_id, collection, type, n)
            SELECT group_id, collection, type, count(*) FROM kenning_new
            GROUP BY group_id, collection, type
            ON CONFLICT (group_id, collection, type) DO UPDATE SET n = k.n + EXCLUDED.n;
        RETURN NULL;
    END $$;
    CREATE FUNCTION kenning_rows_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE kenning_fts_stats SET n = n - s.c, total_len = total_len - s.l
            FROM (SELECT count(*) AS c, coalesce(sum(doc_len), 0) AS l FROM kenning_old) s;
        UPDATE kenning_fts_terms AS t SET df = t.df - d.c
            FROM (SELECT lexeme, count(*) AS c FROM kenning_old,
                      unnest(tsvector_to_array(kenning_old.content_tsv)) AS lexeme
                  GROUP BY lexeme) d
            WHERE t.term = d.lexeme;
        UPDATE kenning_counts AS k SET n = k.n - d.c
            FROM (SELECT group_id, collection, type, count(*) AS c FROM kenning_old
                  GROUP BY group_id, collection, type) d
            WHERE (k.group_id, k.collection, k.type) = (d.group_id, d.collection, d.type);
        RETURN NULL;
    END $$;
    CREATE FUNCTION kenning_rows_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE kenning_fts_stats SET n = 0, total_len = 0;
        DELETE FROM kenning_fts_terms;
        DELETE FROM kenning_counts;
        RETURN NULL;
    END $$;
    CREATE TRIGGER kenning_rows_added AFTER INSERT ON kenning_memories
        REFERENCING NEW TABLE AS kenning_new
        FOR EACH STATEMENT EXECUTE FUNCTION kenning_rows_added();
    CREATE TRIGGER kenning_rows_removed AFTER DELETE ON kenning_memories
        REFERENCING OLD TABLE AS kenning_old
        FOR EACH STATEMENT EXECUTE FUNCTION kenning_rows_removed();
    CREATE TRIGGER kenning_rows_truncated AFTER TRUNCATE ON kenning_memories
        FOR EACH STATEMENT EXECUTE FUNCTION kenning_rows_truncated();
    """,
    # 3: how often and when a memory was last remembered (a near-duplicate refreshes it);
    # NULL last_seen_at means "not since it was stored".
    """
    ALTER TABLE kenning_memories
        ADD COLUMN last_seen_at timestamptz,
        ADD COLUMN seen_count integer NOT NULL DEFAULT 1;
    """,
    # 4: metadata also as the JSON text kenning wrote, read in preference to the jsonb
    # column: jsonb keeps numbers as numeric, which turned 1e16 into an integer and -0.0
    # into 0.0 and reordered the keys, so a note came back from the team store other than it
    # went in (SQLite and Qdrant keep them). A new nullable column costs nothing to add
    # (changing the column's type rewrote the table and rebuilt the HNSW index: minutes,
    # under a lock every hook waited on); the jsonb column keeps the fingerprint index, and
    # rows a kenning before this one writes (naming its columns) are read from it.
    """
    ALTER TABLE kenning_memories ADD COLUMN metadata_text text;
    """,
    # 5: words split and lowercased by Unicode whatever the database's LC_CTYPE: under
    # LC_CTYPE 'C' (``createdb --locale=C``) the regex took every non-ASCII letter for
    # punctuation and lower() changed only ASCII, so a Russian or Japanese note had no
    # words for the lexical search ('café' was 'caf'). Where the database's own ctype does
    # not classify letters by Unicode, kenning_tsv names a collation that does
    # (:func:`_word_collation`) and the rows holding non-ASCII text are tokenised again
    # (:meth:`PostgresBackend._use_word_collation`); elsewhere nothing changes.
    _WORD_COLLATION_MIGRATION,
    # 6: a word no memory holds any more leaves the statistics with the row that held it:
    # df 0 rows kept every word of a forgotten or edited note in the database for good
    # (VACUUM or not), where "forget means gone". Rows a kenning before this one emptied are
    # dropped here; counts of no rows likewise.
    """
    CREATE OR REPLACE FUNCTION kenning_rows_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE kenning_fts_stats SET n = n - s.c, total_len = total_len - s.l
            FROM (SELECT count(*) AS c, coalesce(sum(doc_len), 0) AS l FROM kenning_old) s;
        WITH d AS (SELECT lexeme, count(*) AS c FROM kenning_old,
                       unnest(tsvector_to_array(kenning_old.content_tsv)) AS lexeme
                   GROUP BY lexeme),
             gone AS (DELETE FROM kenning_fts_terms AS t USING d
                      WHERE t.term = d.lexeme AND t.df <= d.c RETURNING t.term)
        UPDATE kenning_fts_terms AS t SET df = t.df - d.c FROM d
            WHERE t.term = d.lexeme AND t.df > d.c;
        UPDATE kenning_counts AS k SET n = k.n - d.c
            FROM (SELECT group_id, collection, type, count(*) AS c FROM kenning_old
                  GROUP BY group_id, collection, type) d
            WHERE (k.group_id, k.collection, k.type) = (d.group_id, d.collection, d.type);
        DELETE FROM kenning_counts WHERE n <= 0;
        RETURN NULL;
    END $$;
    DELETE FROM kenning_fts_terms WHERE df <= 0;
    DELETE FROM kenning_counts WHERE n <= 0;
    """,
    # 7: a combining mark does not split a word, and 'İ' is 'i': the regex took every mark
    # that is not a letter of its own (an accent typed as its own character, a Devanagari
    # virama, a Tamil pulli, a Khmer coeng) for punctuation, and the query's words were cut
    # there too, so 'हिन्दी' or 'தமிழ்' found no note holding it; 'İstanbul' was 'i' and
    # 'stanbul' to the query; 'ΟΔΟΣ' was 'οδοσ' to the index and 'οδος' to the query
    # (Python's lower() ends a word with 'ς'), so a note in capitals was not found by its
    # Greek words: 'Σ' and 'ς' are 'σ', as on SQLite. Only the rows holding a mark, 'İ', 'Σ'
    # or 'ς' are tokenised again
    # (:meth:`PostgresBackend._keep_marks_in_words`); elsewhere nothing changes.
    _WORD_MARKS_MIGRATION,
    # 8: the rows stats' damaged-row count decodes (:data:`_SUSPECT_ROW`: almost always
    # none) in a partial index of their own: the count scanned the whole table (0.1-0.3 s
    # at 50k rows) on every stats after any write to the server; it reads this index. A
    # row is checked as it is written (a few JSON type tests), and indexed only if suspect.
    # (IF NOT EXISTS: the name is kenning's own, and a store whose record was rolled back
    # by hand keeps it.)
    f"""
    CREATE INDEX IF NOT EXISTS kenning_memories_suspect
        ON kenning_memories (group_id, collection, type) WHERE {_SUSPECT_ROW};
    """,
    # 9: a row's words and length computed once, by a trigger, instead of as two generated
    # columns: a generated column cannot read another, so doc_len ran kenning_tsv (the
    # regular expression and to_tsvector) over the content a second time. That was ~0.04
    # ms of the server's ~0.15 ms per row written (20k bench rows inserted in 2.2 s instead
    # of 2.9-3.3 s, statistics triggers and HNSW off; the same values). The trigger
    # recomputes both on every insert and on every update naming content (as ``SET
    # content = content`` regenerated them) or either column (which a generated column
    # refused: they stay derived). Dropping the expression keeps the values and rewrites
    # nothing. (OR REPLACE / IF EXISTS: a store whose record was rolled back by hand runs
    # it again.)
    """
    ALTER TABLE kenning_memories ALTER COLUMN content_tsv DROP EXPRESSION IF EXISTS;
    ALTER TABLE kenning_memories ALTER COLUMN doc_len DROP EXPRESSION IF EXISTS;
    CREATE OR REPLACE FUNCTION kenning_words_of_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.content_tsv := kenning_tsv(NEW.content);
        NEW.doc_len := kenning_doclen(NEW.content_tsv);
        RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS kenning_words_of_row ON kenning_memories;
    CREATE TRIGGER kenning_words_of_row
        BEFORE INSERT OR UPDATE OF content, content_tsv, doc_len ON kenning_memories
        FOR EACH ROW EXECUTE FUNCTION kenning_words_of_row();
    """,
    # 10: ids in byte order, for the ids starting with a prefix (``kenning forget
    # 01a24969-93d9``, and the short ids recall and search show): the UNIQUE index is in
    # the database's collation, which a locale's rules may make skip an id's dashes, so a
    # range of it is no prefix; without this index each lookup read the table (6 ms at 20k
    # rows, three per recall), with it a fraction of a millisecond.
    """
    CREATE INDEX IF NOT EXISTS kenning_memories_id_bytes ON kenning_memories (id COLLATE "C");
    """,
)
#: The statement-level triggers that keep the BM25 statistics and the counts (off during
#: an atomic bulk load, which counts them once at its end); the row trigger of migration 9
#: that computes each row's words stays on.
_STATISTICS_TRIGGERS = ("kenning_rows_added", "kenning_rows_removed", "kenning_rows_truncated")
SCHEMA_VERSION = len(MIGRATIONS)
#: What each migration asks of a kenning that opens a store it brought up (see
#: :mod:`kenning.backends.compat`). 1 and 2 made the store; 3 and 4 added columns a writer
#: fills (a sighting, the metadata as written: an older writer's edit would leave it
#: stale); 5 and 7 changed how words are split, which a query's words must match; 6 and 9
#: replaced triggers, 8 and 10 added indexes: a kenning of the schema before reads and
#: writes such a store as before.
MIGRATION_RAISES: tuple[compat.Raises, ...] = (
    compat.BOTH,
    compat.BOTH,
    compat.WRITERS,
    compat.WRITERS,
    compat.BOTH,
    compat.NEITHER,
    compat.BOTH,
    compat.NEITHER,
    compat.NEITHER,
    compat.NEITHER,
)
assert len(MIGRATION_RAISES) == SCHEMA_VERSION
#: The first schema version that holds the memories table (created by the first write that
#: knows the vectors' dimension): a store recorded at an earlier one holds no memories yet,
#: and completing it is no upgrade of another kenning's store.
FIRST_STORE_VERSION = next(n for n, script in enumerate(MIGRATIONS, 1) if "{dim}" in script)

#: ``hnsw.ef_search`` (pgvector's default is 40) for unfiltered and filtered queries: a
#: filter discards candidates, so filtered queries scan wider (with iterative scan).
EF_SEARCH = 100
EF_SEARCH_FILTERED = 200
#: The largest ``hnsw.ef_search`` pgvector accepts (it refuses the query above it). A search
#: that asks for more rows (a search's pool widens up to ``SEARCH_MAX_CANDIDATES``) gets at
#: most this many from HNSW and falls back to the exact scan for the rest.
EF_SEARCH_MAX = 1000
#: At most this many matching rows (per ``kenning_counts``) are searched exactly, without
#: HNSW: recall 1.0, and faster than HNSW with a selective filter.
EXACT_SEARCH_MAX_ROWS = 2000
CONNECT_TIMEOUT_S = 10
#: How long a schema upgrade waits for the table's lock before it gives up (the next write
#: tries again).
MIGRATION_LOCK_WAIT_S = 5
#: How long a write waits for the store's write lock (another session's write) before it
#: gives up, having changed nothing, like SQLite's busy timeout: a session that holds the
#: lock and never ends (a suspended import, a client gone without the server noticing) must
#: not make every other write wait for ever.
STORE_LOCK_WAIT_S = 30.0
#: How long one try for the store lock (or this process's turn to write) waits before the
#: write asks :data:`~kenning.backends.base.WRITE_WAIT_CHECK` whether it is still wanted: a
#: write the server kept waiting in one statement was made once the lock came free, though
#: its MCP call had been cancelled meanwhile.
STORE_LOCK_TRY_S = 0.25
#: How long any statement of kenning's waits for a lock on the store's tables, unless the
#: server or role sets a lock_timeout of its own: a session that holds the table (``LOCK
#: TABLE``, a schema change, a transaction left open in a console) must not make every read
#: and write wait for ever.
TABLE_LOCK_WAIT_S = 30.0
#: How long one try of a bulk load for the table to itself (to drop the HNSW index) waits:
#: a session waiting for that lock makes every other session's read of the table queue
#: behind it, so a load kept waiting by a console's open transaction or pg_dump stalled
#: every recall of the team for as long as it waited. In short tries, a read waits at most
#: one of them; the load still gives up after TABLE_LOCK_WAIT_S.
TABLE_LOCK_TRY_S = 0.1
#: How long a concurrent build of the HNSW index (:meth:`PostgresBackend.restore_index`)
#: waits for other sessions before it says which (and again for each new one, checked as
#: often): its waits are not bounded (they block no other session), so without a word a
#: ``kenning reembed`` kept waiting by a console's open transaction or a long pg_dump looked
#: hung.
BUILD_WAIT_SAY_S = 5.0
#: How often a build of the HNSW index asks again for the lock another session's build of
#: it holds (:meth:`PostgresBackend._take_index_lock`).
INDEX_LOCK_TRY_S = 0.25
#: How long a call waits for a pooled connection before it connects on its own: the pool
#: is sized for this process's few threads, so a longer wait means its connections were
#: lost (the server restarted or died) and its reconnection is backing off. Connecting
#: directly then either works at once (the server is back) or fails with the server's own
#: reason, instead of "no connection after 30 s" on every call of a long-lived session.
POOL_WAIT_S = 1.0
#: When the pool is only busy (every connection in use), a call connecting on its own must
#: not grow the server's connection count without bound: at most this many such calls at
#: once; the others wait for the pool as before, up to POOL_BUSY_WAIT_S.
OWN_CONNECTIONS_MAX = 2
POOL_BUSY_WAIT_S = 30.0
#: How long data sent to the server may stay unacknowledged before the connection counts as
#: lost (libpq's ``tcp_user_timeout``), and TCP keepalives on idle connections: a server the
#: network stops reaching without a reset (a partition, a cloud NAT that forgot an idle
#: pooled connection) left a call waiting for the kernel's own retransmission limit, about
#: 15 minutes. A URL that sets any of them keeps its own.
TCP_USER_TIMEOUT_MS = 15000
#: How long one statement of an ordinary call may go without its answer before the
#: connection is given up: a server that stops answering with its TCP connection open (a
#: stopped or frozen process, a hung host whose kernel still acknowledges) is noticed by
#: neither tcp_user_timeout nor keepalives, and the server's statement_timeout cannot fire.
#: Past the waits kenning itself allows a statement (TABLE_LOCK_WAIT_S, STORE_LOCK_WAIT_S),
#: with room to spare; the long statements of bulk work (index builds, recounts) are not
#: bounded (:func:`_unbounded`).
STATEMENT_WAIT_S = 90.0
TCP_KEEPALIVES = {
    "keepalives": "1",
    "keepalives_idle": "15",
    "keepalives_interval": "5",
    "keepalives_count": "3",
}
log = logging.getLogger(__name__)

# psycopg_pool logs each failed reconnection (a warning per back-off step, for as long as
# the server is away) to stderr when the program set up no logging: an MCP client's log or
# a hook's one-line report would fill with them, while kenning reports the failure itself
# (StoreUnavailable, with the server's reason). psycopg's own warnings are of the same kind:
# a COPY whose connection was lost logs "error ignored terminating <psycopg.Copy [BAD] at
# 0x…>" as it is cleaned up, a line before kenning's one-line error. A program that sets
# the level keeps it (psycopg, imported, sets its logger to WARNING when nothing has).
if logging.getLogger("psycopg.pool").level == logging.NOTSET:
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
if logging.getLogger("psycopg").level in (logging.NOTSET, logging.WARNING):
    logging.getLogger("psycopg").setLevel(logging.ERROR)
#: The vector column has one dimension: another model's vectors need another store.
NEW_DIMENSION_REMEDY = (
    "Re-embedding to another dimension needs a new store: `kenning export`, then import into "
    "a fresh one"
)
#: The columns a write gives (``COPY``), ``metadata_text`` last.
_WRITE_COLUMNS = (
    "id, content, collection, type, group_id, stored_at, content_hash, source, tags, metadata, "
    "last_seen_at, seen_count, metadata_text"
)


def _read_columns(table: str = "", schema: int | None = None) -> str:
    """What a read selects, in :func:`_row_to_memory`'s order: the metadata as the text
    kenning wrote (migration 4), else as the jsonb column holds it (a row an older kenning
    wrote). ``schema``: the store's version when it is older (a read does not migrate it):
    what it lacks is read as its default."""
    t = f"{table}." if table else ""
    version = SCHEMA_VERSION if schema is None else schema
    names = [f"{t}{c}" for c in _WRITE_COLUMNS.split(", ")[:-1]]
    names[9] = (
        f"coalesce({t}metadata_text, {t}metadata::text)" if version >= 4 else f"{t}metadata::text"
    )
    if version < 3:
        names[10], names[11] = "NULL::timestamptz", "1"
    return ", ".join(names)


_COLUMNS = _read_columns()
#: How many leading values of a row are :data:`_COLUMNS` (what follows is extra).
_NCOLUMNS = len(_WRITE_COLUMNS.split(",")) - 1


#: The attribute of the warning a store without its HNSW index gives as it opens (a
#: command that says so itself, or builds the index, leaves the warning out).
INDEX_MISSING_LOG_MARK = "kenning_index_missing"
#: The stores (their locations) this process warned of a missing HNSW index: once each.
_INDEX_MISSING_SAID: set[str] = set()
#: Whether the memories table ``c`` (a ``pg_class`` row) has its HNSW index, whatever
#: schema it is in: a valid one (a concurrent build that failed, was cancelled or is still
#: running leaves one of that name that searches do not use).
_HAS_HNSW = (
    "EXISTS (SELECT 1 FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
    "WHERE i.indrelid = c.oid AND ic.relname = 'kenning_memories_hnsw' AND i.indisvalid)"
)


#: The store's tables, each with the schema version that creates it (the memories table
#: and those beside it wait for the first write, which knows the vector dimension).
_STORE_TABLES = (
    (1, "kenning_meta"),
    (2, "kenning_memories"),
    (2, "kenning_fts_stats"),
    (2, "kenning_fts_terms"),
    (2, "kenning_counts"),
)
#: What a write needs of each table it writes (those of :data:`_STORE_TABLES` a write
#: touches; the ones that exist are asked): the memories' rows, and the full-text
#: statistics and counts that the statement triggers of migrations 2 and 6 keep. Those
#: triggers are not SECURITY DEFINER: they run as the writer, who needs the rights there
#: too (``INSERT … ON CONFLICT DO UPDATE`` and ``SET n = n + …`` read the row: SELECT).
#: And kenning_meta, which writes keep their records in (``set_meta``: an upsert, or a
#: delete): a write's stamp of the model on a store not stamped yet (or stamped by an older
#: kenning), the error-fingerprint rules recorded with a first batch and renewed after a
#: write, each seeding's record of its folders, a reembed's progress and stamp. Left out, a
#: role with the four others was taken for one that may write, and those failed.
_WRITE_RIGHTS = (
    ("kenning_memories", "SELECT,INSERT,UPDATE,DELETE"),
    ("kenning_fts_stats", "SELECT,UPDATE"),
    ("kenning_fts_terms", "SELECT,INSERT,UPDATE,DELETE"),
    ("kenning_counts", "SELECT,INSERT,UPDATE,DELETE"),
    ("kenning_meta", "SELECT,INSERT,UPDATE,DELETE"),
)
#: The memories table's columns, each with the schema version that adds it.
_MEMORY_COLUMNS = (
    (2, "seq"),
    (2, "id"),
    (2, "content"),
    (2, "collection"),
    (2, "type"),
    (2, "group_id"),
    (2, "stored_at"),
    (2, "content_hash"),
    (2, "source"),
    (2, "tags"),
    (2, "metadata"),
    (2, "embedding"),
    (2, "content_tsv"),
    (2, "doc_len"),
    (3, "last_seen_at"),
    (3, "seen_count"),
    (4, "metadata_text"),
)


@dataclass(frozen=True)
class StoreHealth:
    """A PostgreSQL store's catalog as ``kenning doctor`` reads it
    (:meth:`PostgresBackend.health`)."""

    #: The schema version ``kenning_schema`` records (0: none).
    schema: int
    #: The tables (and ``kenning_memories.<column>``) that version has and the store lacks.
    missing: tuple[str, ...]
    #: The vector column's dimension; None while no memories table exists.
    dimension: int | None
    #: The HNSW index: valid (True), left invalid by a cancelled or failed concurrent build
    #: (False, searches do not use it), or absent (None).
    hnsw: bool | None
    #: The rows of the memories table.
    rows: int
    #: The server is a standby (a copy of a primary, which refuses every write): a fix that
    #: writes runs on the primary.
    standby: bool = False
    #: A store of a newer schema than this kenning's (that it reads): who may read and
    #: write it, as it records (:mod:`~kenning.backends.compat`); None for any other.
    compatible: compat.Compatible | None = None


@dataclass(frozen=True)
class RowsToCheck:
    """What ``kenning doctor``'s ``rows`` and ``project`` checks need of every row, the
    server reading them (:meth:`PostgresBackend.rows_to_check`): the rows read skip (their
    fields) are in :meth:`PostgresBackend.damaged_rows` after it."""

    #: The memories a read returns, by project id.
    projects: dict[str, int]
    #: Those memories stamped after the horizon, holding a redaction marker or of a type
    #: and collection kenning does not write (the only ones the ``rows`` check names for
    #: their time, their text or their kind), in the table's order.
    memories: list[Memory]
    #: ``(id, project id, dimensions, length)`` of those whose vector is not of the
    #: dimension or not a unit vector.
    vectors: list[tuple[str, str, int, float]]
    #: The memories whose content is not the text kenning hashed as it wrote it (another
    #: writer set it: an older kenning's rows keep theirs), in the table's order: the ones
    #: the ``rows`` check redacts to name a credential left in them in clear (qa-team F5).
    edited: list[Memory] = field(default_factory=list)


def schema_upgrade_note(location: str, before: int, after: int) -> str:
    """What the write that upgraded a shared store's schema says, once: every kenning older
    than this one refuses the store from now on (reads and hooks too), so the team
    upgrades together."""
    return (
        f"upgraded the schema of the shared store at {location} from version {before} to "
        f"{after}: a kenning older than this one that reads schema {before} at most can no "
        "longer read it (its commands and hooks refuse the store, saying to upgrade), so "
        "everyone who uses this store upgrades kenning too (docs/team-backends.md)"
    )


def _missing_index_note(location: str, owner: str | None, standby: bool = False) -> str:
    """What a store without its HNSW index is told, and the fix (:func:`_missing_index_parts`),
    in one message."""
    return "; ".join(_missing_index_parts(location, owner, standby))


def _missing_index_parts(
    location: str, owner: str | None, standby: bool = False
) -> tuple[str, str]:
    """What is wrong with a store without its HNSW index, and the fix apart (doctor says
    each in its place): who may run it named (``owner``, the table's owning role,
    :func:`shown_role`), so that a teammate knows whom to ask. On a ``standby`` the fix
    runs on the primary: the standby refuses the reembed, and gets the index from it."""
    who = "the table's owner" if owner is None else f"the table's owner (role {owner})"
    if standby:
        return (
            f"the store at {location} has no vector index (kenning_memories_hnsw), nor has "
            "its primary (this server is a standby, a copy of it): a `kenning migrate` or "
            "`kenning import` into it (or a `kenning reembed` building it) is running, or "
            "was stopped before its end; searches are exact, by a sequential scan, and slow "
            "down as the store grows",
            "unless that run is still going, `kenning reembed` with the primary's URL (a "
            f"standby refuses every write), run by {who} or a member of that role, builds "
            "it there, and the standby gets it from the primary (reads and writes go on "
            "meanwhile)",
        )
    return (
        f"the store at {location} has no vector index (kenning_memories_hnsw): a `kenning "
        "migrate` or `kenning import` into it (or a `kenning reembed` building it) is "
        "running, or was stopped before its end; searches are exact, by a sequential scan, "
        "and slow down as the store grows",
        "unless that run is still going, `kenning reembed` with this store (its "
        f"KENNING_STORE or --store), run by {who} or a member of that role, builds it "
        "(reads and writes go on meanwhile)",
    )


#: The sessions the session ``%s`` waits for (a lock it wants, a transaction it waits to end),
#: oldest transaction first: pid, application_name, state, seconds its transaction has been
#: open (state and times are NULL for another role's session without pg_read_all_stats).
_BLOCKERS = (
    "SELECT a.pid, a.application_name, a.state, "
    "extract(epoch FROM clock_timestamp() - a.xact_start)::float8 FROM pg_stat_activity a "
    "WHERE a.pid = ANY(pg_blocking_pids(%s)) ORDER BY a.xact_start NULLS LAST, a.pid"
)

#: The session that holds the advisory lock of key ``(%s << 32) | %s`` in this database
#: (other than the session ``%s``), as :data:`_BLOCKERS` names it.
_INDEX_LOCK_HOLDER = (
    "SELECT a.pid, a.application_name, a.state, "
    "extract(epoch FROM clock_timestamp() - a.xact_start)::float8 FROM pg_locks l "
    "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "AND l.classid = %s::bigint::oid AND l.objid = %s::bigint::oid AND l.objsubid = 1 "
    "AND l.pid <> %s"
)


def _blocker(pid: int, application: str | None, state: str | None, age: float | None) -> str:
    """A session an index build waits for, as its warning names it (no query text)."""
    if not application:
        named = "no application_name"
    elif _TOKEN_LIKE.search(application):
        # the server keeps 63 bytes of it: a token cut there is no token redaction knows
        # (a GitHub token's first 16 characters were shown: qa-s67b F9)
        named = "an application_name that looks like it holds a secret, not shown"
    else:
        named = f"application_name '{escaped_line(redact_secrets(application)[0])}'"
    if state is None:
        return f"pid {pid} ({named}; its state is hidden from this role)"
    opened = "" if age is None else f", its transaction open {_span(age)}"
    return f"pid {pid} ({named}, {escaped_line(state)}{opened})"


#: A run of a name that reads as a secret's, not a program's: 12 or more letters, digits and
#: token punctuation with a digit and a letter in it (``ghp_QAqa12345678``; not ``pg_dump``,
#: ``DBeaver 23.1.0``, ``PostgreSQL JDBC Driver``).
_TOKEN_LIKE = re.compile(r"(?=[\w+/=.-]*\d)(?=[\w+/=.-]*[A-Za-z])[\w+/=.-]{12,}")


def _span(seconds: float) -> str:
    """A duration as a person reads it: ``42 s``, ``3 min 5 s``, ``2 h 10 min``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def shown_role(name: str) -> str:
    """A role's name as a message shows it: as SQL reads it back (double-quoted when it
    must be), every character that could drive or spoof a terminal written as its escape
    (a role name is whatever its creator chose, and a warning is logged as it is)."""
    return escaped_line(_quoted_identifier(name))


# -- credentials ----------------------------------------------------------------------------


def _secrets_of(url: str) -> tuple[str, ...]:
    """Every credential of the URL as a message may quote it, longest first: its authority's
    password and each credential parameter's value (``password``, ``sslpassword``,
    ``oauth_client_secret``, the SCRAM keys), each as written (libpq's errors quote a value
    it cannot decode so: ``forbidden value %00 in percent-encoded value: "…"``) and as libpq
    decodes it (a ``+`` stays a ``+``); also when ``urlsplit`` refuses the URL (libpq then
    quotes it whole in its error)."""
    written = [url_password(url), *(value for _, value in query_secrets(url))]
    found = {each for value in written if value for each in (value, unquote(value))}
    return tuple(sorted((each for each in found if each.strip()), key=len, reverse=True))


def _unencoded_in_parameter(name: str, value: str, location: str) -> str:
    """The refusal of a credential parameter whose value runs on past an ``&`` or holds an
    ``=``. An ``&`` that starts no parameter libpq (or another client) takes may be the
    password's own (``Tr0ub&dor=3``) or end it before a parameter neither libpq nor kenning
    knows: the message says both, and shows neither (a name like ``dor`` may be a piece of
    the password). Its wording keeps clear of what the redaction of messages takes for a
    password (``password=`` and a word after it), which would hide its own advice."""
    fixes = "percent-encode each (& as %26, = as %3D, % as %25)"
    if "&" in value:
        said = (
            f"the {name} parameter in the PostgreSQL URL {location} runs on past an & that "
            "starts no parameter libpq takes: if the & and what follows are part of the "
            f"value, {fixes}; if they are another client's parameter, drop it from the URL "
            "(libpq takes only its own, listed at "
            "https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-PARAMKEYWORDS)"
        )
    else:
        said = f"the {name} parameter in the PostgreSQL URL {location} holds an = as it is: {fixes}"
    if name == "password":
        said += "; or leave the password out of the URL and set PGPASSWORD or ~/.pgpass"
    return said + "; nothing was sent to a server"


#: The length of a SCRAM-SHA-256 key: the only one libpq takes in ``scram_client_key`` and
#: ``scram_server_key``.
_SCRAM_KEY_BYTES = 32


def _is_scram_key(value: str) -> bool:
    """Whether ``value`` (a ``scram_*_key`` parameter, percent-decoded) is what libpq takes:
    base64 of :data:`_SCRAM_KEY_BYTES` bytes, with no whitespace (libpq refuses a space in
    it, and the refusal read as a server that could not be reached: qa-s67b F4)."""
    try:
        key = base64.b64decode(value, validate=True)
    except ValueError:  # (binascii.Error is one)
        return False
    return len(key) == _SCRAM_KEY_BYTES


#: What libpq refuses in a percent-encoded value, quoting the value whole in its error: a
#: NUL byte (``%00``) and a ``%`` that starts no escape of two hex digits.
_REFUSED_IN_ENCODED = re.compile(r"%00|%(?![0-9A-Fa-f]{2})")


# -- vector adaptation ----------------------------------------------------------------------


def _vector_adapters(oid: int) -> tuple[type[Dumper], type[Dumper], type[Loader], type[Loader]]:
    class VectorBinaryDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: Any) -> bytes:
            v = np.asarray(obj, dtype=">f4").reshape(-1)
            return struct.pack(">HH", v.shape[0], 0) + v.tobytes()

    class VectorTextDumper(Dumper):
        format = Format.TEXT

        def dump(self, obj: Any) -> bytes:
            v = np.asarray(obj, dtype=np.float32).reshape(-1)
            return ("[" + ",".join(map(repr, v.tolist())) + "]").encode()

    class VectorBinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> np.ndarray:
            raw = bytes(data)
            (dim,) = struct.unpack_from(">H", raw)
            return np.frombuffer(raw, dtype=">f4", count=dim, offset=4).astype(np.float32)

    class VectorTextLoader(Loader):
        format = Format.TEXT

        def load(self, data: Any) -> np.ndarray:
            text = bytes(data).decode()[1:-1]
            return np.array(text.split(",") if text else [], dtype=np.float32)

    for cls in (VectorBinaryDumper, VectorTextDumper):
        cls.oid = oid
    return VectorBinaryDumper, VectorTextDumper, VectorBinaryLoader, VectorTextLoader


def _register_vector(conn: psycopg.Connection[Any]) -> bool:
    # the type as psycopg's TypeInfo.fetch finds it (``to_regtype`` on the session's
    # search_path), in one statement: fetch wraps its query in a transaction or savepoint,
    # three round trips
    oid = _first(conn.execute("SELECT to_regtype('vector')::oid"))[0]
    if oid is None:
        return False
    _use_vector_type(conn, int(oid))
    return True


def _use_vector_type(conn: psycopg.Connection[Any], oid: int) -> None:
    """``conn`` sends numpy arrays as, and reads back, the vector type of ``oid``."""
    bdump, tdump, bload, tload = _vector_adapters(oid)
    conn.adapters.register_dumper(np.ndarray, tdump)
    conn.adapters.register_dumper(np.ndarray, bdump)  # the last registered is preferred
    conn.adapters.register_loader(oid, tload)
    conn.adapters.register_loader(oid, bload)
    conn._kenning_vector_oid = oid  # type: ignore[attr-defined]


def _row_to_memory(row: Sequence[Any]) -> Memory:
    """A row as a :class:`Memory`, or :class:`FieldDamage`: jsonb takes any JSON, so a row
    another tool wrote can hold tags that are a string or metadata that is a list. A row
    larger than kenning stores (:func:`~kenning.backends.base.oversize_reason`) is refused
    first, before its metadata is parsed."""
    metadata_text = row[9] if isinstance(row[9], str) else None
    if (
        len(row[1]) > CONTENT_CHARS_SURELY_STORED
        or len(metadata_text or "") > METADATA_CHARS_SURELY_STORED
    ) and (over := oversize_reason(str(row[1]), metadata_text)):
        raise FieldDamage(*over, OVERSIZE_FIX)
    try:
        metadata = json.loads(row[9]) if row[9] is not None else {}
    except ValueError:
        raise FieldDamage("metadata", "is not JSON") from None
    tags, metadata = checked_fields(row[8] if row[8] is not None else [], metadata)
    content = str(row[1])
    blank = blank_reason(content)
    if blank is not None:
        raise FieldDamage("content", blank)
    return Memory(
        id=str(row[0]),
        content=content,
        collection=str(row[2]),
        type=str(row[3]),
        group_id=str(row[4]),
        stored_at=parse_timestamp(row[5]),
        content_hash=str(row[6]),
        source=None if row[7] is None else str(row[7]),
        tags=tags,
        metadata=metadata,
        last_seen_at=None if row[10] is None else parse_timestamp(row[10]),
        seen_count=int(row[11]),
    )


def _storable_ids(ids: Sequence[str]) -> list[str]:
    """``ids`` without those holding NUL: no row has one (PostgreSQL text cannot hold it),
    and sent as a parameter it failed the whole call ('text fields cannot contain NUL')
    where SQLite and Qdrant find no such memory."""
    return [i for i in ids if "\x00" not in i]


def _tsquery(terms: Sequence[str]) -> str:
    """An OR of quoted lexemes, parsed by ``::tsquery`` without normalisation."""
    quoted = ("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms)
    return " | ".join(quoted)


def _as_vector(vector: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(-1))


def _where(filters: Filters, alias: str = "") -> tuple[str, list[Any]]:
    p = f"{alias}." if alias else ""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.group_id is not None:
        clauses.append(f"{p}group_id = %s")
        params.append(filters.group_id)
    if filters.collections:
        clauses.append(f"{p}collection = ANY(%s)")
        params.append(list(filters.collections))
    if filters.types:
        clauses.append(f"{p}type = ANY(%s)")
        params.append(list(filters.types))
    return (" AND ".join(clauses) or "true"), params


def _first(cursor: Any) -> Any:
    """The first row of a query that always returns one."""
    row = cursor.fetchone()
    if row is None:  # pragma: no cover - aggregates and settings always return a row
        raise StoreCorrupted("PostgreSQL returned no row where one was expected")
    return row


def _lock_key(label: str) -> int:
    return int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "big", signed=True)


def _recorded_schema_version(conn: psycopg.Connection[Any]) -> int:
    """The last migration ``kenning_schema`` records (0: none)."""
    found = conn.execute("SELECT coalesce(max(version), 0) FROM kenning_schema")
    return int(_first(found)[0])


def _recorded_compatible(conn: psycopg.Connection[Any], version: int) -> compat.Compatible:
    """What a store of schema ``version`` (newer than this kenning's) asks of the kenning
    that reads or writes it: its record in ``kenning_meta`` (:mod:`~kenning.backends.compat`)."""
    found = conn.execute(
        "SELECT value FROM kenning_meta WHERE key = %s", (compat.COMPATIBLE_KEY,)
    ).fetchone()
    return compat.decode(found and found[0], version)


class _BoundedConnection(psycopg.Connection[Any]):
    """A connection whose every wait for the server ends after :data:`STATEMENT_WAIT_S`
    (unless ``unbounded``): the connection is then closed (it is mid-protocol) and the call
    fails with OperationalError, which :meth:`PostgresBackend._translate` reports as
    "knowledge base NOT consulted" instead of waiting for ever."""

    unbounded = False

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        if timeout is not None or self.unbounded:  # psycopg's own bounded waits (a cancel)
            return super().wait(gen, interval, timeout)
        limit = STATEMENT_WAIT_S
        try:
            return super().wait(gen, interval, limit)
        except pg_errors._WaitTimeout:
            self.close()
            raise psycopg.OperationalError(
                f"the server sent no answer for {limit:g} s: stopped, frozen or overloaded"
            ) from None


@contextmanager
def _unbounded(conn: psycopg.Connection[Any]) -> Iterator[None]:
    """No end to ``conn``'s waits while inside (an index build, a recount: minutes)."""
    if not isinstance(conn, _BoundedConnection):
        yield
        return
    before, conn.unbounded = conn.unbounded, True
    try:
        yield
    finally:
        conn.unbounded = before


class PostgresBackend:
    """A store in a PostgreSQL database with pgvector. Thread-safe within a process."""

    #: Search scores a stored vector by its direction, whatever its length: pgvector's
    #: cosine distance normalises both sides (a zero vector, which has none, it scores
    #: NaN, and its HNSW index leaves out). See :func:`kenning.search.hybrid_candidates`.
    scores_directions = True

    def __init__(
        self,
        url: str,
        *,
        create: bool = True,
        dimension: int | None = None,
        pool_size: int = 4,
        connect_timeout: int = CONNECT_TIMEOUT_S,
        warn_missing_index: bool = True,
        max_connect_timeout: int | None = None,
        try_creation: bool = False,
        only_if_there: bool = False,
    ) -> None:
        """``only_if_there`` (``create=True``): a writer's open of a store that is there; where
        there is none, the StoreNotFound a reader's open raises, and nothing made (no schema,
        extension or table: :func:`~kenning.store.remember_in_project`).
        ``warn_missing_index``: warn as it opens when the table is without its HNSW
        index (False: a caller that builds it itself, a migration into the store).
        ``try_creation`` (``create=False``): when there is no store yet, the StoreNotFound
        raised says why this role could not create it (:attr:`StoreNotFound.cannot_create`,
        :meth:`_creation_refused`: ``kenning doctor``).
        ``connect_timeout``: the seconds a connection waits for the server when the URL sets
        none; ``max_connect_timeout``: at most this many, whatever the URL sets (a hook's
        budget, which must leave time to say that the server did not answer)."""
        self._secrets = _secrets_of(url)
        self._warn_missing_index = warn_missing_index
        self._try_creation = try_creation
        self._only_if_there = only_if_there
        self._url = url
        self.location = redact_url(url)
        # (a libpq ``password=`` parameter is redacted as a note's would be; the password's
        # word is not replaced here: postgres:postgres@…/postgres would lose its database)
        self._local = threading.local()
        self._ddl_lock = threading.Lock()
        #: Rows a read skipped (:meth:`_decode`), by id.
        self._damaged: dict[str, DamagedRow] = {}
        #: Of those, the ones a read has said (logged): a count decodes a row without
        #: saying it (qa-team F8: stats in every project of a shared store said another
        #: project's damaged row, which none of its reads returns).
        self._damaged_said: set[str] = set()
        self._damaged_lock = threading.Lock()
        #: The last damaged-row count, with the server's WAL position and the filters it
        #: was taken at (see :meth:`_wal_position`).
        self._damaged_count: tuple[str, Filters, dict[tuple[object, object, object], int]] = (
            "",
            Filters(),
            {},
        )
        self._dimension: int | None = None
        #: Why a write would be refused, as the open found it (:meth:`check_writable`).
        self._cannot_write: str | None = None
        #: That reason when it is a server or session that refuses every write (a standby,
        #: ``default_transaction_read_only``): what a write's ReadOnlySqlTransaction means.
        self._read_only_said: str | None = None
        #: Whether the server is a standby, as the open (or a later check) found it.
        self._standby = False
        #: Whether a word can be sent to the database (None until asked: see _holds).
        self._holds_word: Callable[[str], bool] | None = None
        #: The store's schema version, and what a read selects from it: an older store is
        #: read as it is; the first write migrates it (:meth:`_ensure_schema_current`).
        self._schema = SCHEMA_VERSION
        #: What a write said when it upgraded the schema of a store an older kenning wrote
        #: (:func:`schema_upgrade_note`, logged once by :meth:`_migrate`); else None.
        self.schema_upgraded: str | None = None
        #: The schema the URL's search_path names first (None: the default path's): the
        #: store's tables are that schema's own, never another schema's on the path.
        self._named_schema: str | None = None
        self._columns = _COLUMNS
        self._iterative_scan = False
        self._pool: ConnectionPool | None = None
        self._own_connections = threading.BoundedSemaphore(OWN_CONNECTIONS_MAX)
        #: Held by the thread whose write holds or waits for the store lock: this process's
        #: other writes wait for it without a connection (each waiting one held a pooled
        #: connection, and four of them left the reads none; the store lock lets one write
        #: at a time through anyway).
        self._write_turn = threading.Lock()
        renew_after_fork(self)
        if password_needs_encoding(url):
            # libpq ends the password at the first of them and reads the rest as the host,
            # port or query: its messages then print the password's tail
            raise KenningError(
                f"the password in the PostgreSQL URL {self.location} holds a character a URL "
                "reserves (@ / ? # %, or a space) as it is: percent-encode each (@ as %40, / "
                "as %2F, ? as %3F, # as %23, % as %25, a space as %20), or leave the "
                "password out of the URL and set PGPASSWORD or ~/.pgpass; nothing was sent "
                "to a server"
            )
        for name, value in query_secrets(url):
            if "&" in value or "=" in value:
                # libpq ends the value at an '&' and quotes what follows in its error (the
                # value runs past any '&' but one that starts a parameter: query_secrets)
                raise KenningError(_unencoded_in_parameter(name, value, self.location))
        refused = [name for name, value in query_secrets(url) if _REFUSED_IN_ENCODED.search(value)]
        if refused or "%00" in (url_password(url) or ""):
            # libpq would refuse it, quoting the value as written ("forbidden value %00 in
            # percent-encoded value: …"): nothing of it may reach a message
            where = f"the {refused[0]} parameter" if refused else "the password"
            password = refused[:1] in ([], ["password"])  # (not an sslpassword, a key)
            hint = " and set PGPASSWORD or ~/.pgpass" if password else ""
            raise KenningError(
                f"{where} in the PostgreSQL URL {self.location} holds %00 or a % followed "
                "by no two hex digits, which libpq refuses: write each % of it as %25 (a "
                f"NUL byte, %00, cannot be part of one), or leave it out of the URL{hint}"
                "; nothing was sent to a server"
            )
        for name, value in query_secrets(url):
            if name.startswith("scram_") and not _is_scram_key(unquote(value)):
                # libpq refuses it saying "invalid SCRAM client key length: 6": the length
                # of a secret, in every message and log that quotes the error
                raise KenningError(
                    f"the {name} parameter in the PostgreSQL URL {self.location} is not a "
                    "SCRAM-SHA-256 key, which libpq takes as the key's 32 bytes in base64 "
                    "(44 characters, = as %3D, + as %2B, / as %2F): copy the whole key from "
                    "where it was derived (a pooler's or the server's stored verifier), or "
                    "leave the parameter out of the URL and use the password; nothing was "
                    "sent to a server"
                )
        try:
            given = psycopg.conninfo.conninfo_to_dict(url)
            defaults = {
                # text goes both ways as UTF-8: a SQL_ASCII database (initdb under the C
                # locale) made psycopg send every parameter as bytea ('function
                # set_config(unknown, bytea, boolean) does not exist' on every write)
                "client_encoding": "UTF8",
                "connect_timeout": str(connect_timeout),
                "application_name": "kenning",
                "tcp_user_timeout": str(TCP_USER_TIMEOUT_MS),
                **TCP_KEEPALIVES,
            }
            given_timeout = given.get("connect_timeout")
            if given_timeout is None and os.environ.get("PGCONNECT_TIMEOUT"):
                # libpq's variable stands for a connect_timeout the URL leaves out, as for
                # psql (kenning's default, written into the conninfo, overrode it)
                given_timeout = os.environ["PGCONNECT_TIMEOUT"]
                defaults.pop("connect_timeout")
                if not _is_seconds(given_timeout):
                    # psycopg reads it as the URL's ("cannot parse the PostgreSQL URL")
                    raise KenningError(
                        f"PGCONNECT_TIMEOUT={given_timeout[:40]!r} is not a number of seconds "
                        f"(libpq's wait for a connection to {self.location}): set it to one, "
                        "such as 10, or unset it; nothing was sent to a server"
                    )
            # the URL's own settings win (a shorter connect_timeout, a team's
            # application_name for pg_stat_activity), but for a connect_timeout past the
            # caller's limit (0 is none): the URL's, the variable's or the default
            settings = {key: value for key, value in defaults.items() if key not in given}
            waits = given_timeout if given_timeout is not None else settings["connect_timeout"]
            if max_connect_timeout is not None and not _waits_at_most(waits, max_connect_timeout):
                settings["connect_timeout"] = str(max_connect_timeout)
            self._conninfo = psycopg.conninfo.make_conninfo(url, **settings)
            # read by psycopg itself before libpq sees the URL: a bad value raised from
            # psycopg.connect, past every check ("bad value for connect_timeout: 'abc'")
            psycopg.conninfo.timeout_from_conninfo(
                psycopg.conninfo.conninfo_to_dict(self._conninfo)
            )
        except psycopg.ProgrammingError as exc:
            said = self._scrub(str(exc))
            # a parameter of another client's URL (SQLAlchemy's pool_size, Prisma's schema)
            fix = (
                f"{_URL_IS_WRONG}: libpq takes only its own parameters (listed at https://"
                "www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-PARAMKEYWORDS), not "
                "another client's: drop that one from the URL"
                if "invalid URI query parameter" in said
                else f"{_URL_IS_WRONG}: correct it"
            )
            raise KenningError(
                f"cannot parse the PostgreSQL URL {self.location}: {said}; {fix}; nothing was "
                "sent to a server"
            ) from None
        except UnicodeDecodeError:
            # psycopg reads libpq's decoded values as UTF-8 (its error names a byte of the
            # value and where it stands: of a password, a piece of it)
            raise KenningError(
                f"cannot parse the PostgreSQL URL {self.location}: a percent-encoded value "
                "in it is not UTF-8 text: encode each character that is not ASCII as its "
                "UTF-8 bytes (é as %C3%A9); nothing was sent to a server"
            ) from None
        with self._translate("connect to"):
            conn = _BoundedConnection.connect(self._conninfo, autocommit=True)
        try:
            with self._translate("open the store in"):
                with _unbounded(conn):  # a migration's waits, as on a connection of its own
                    self._setup(conn, create=create, dimension=dimension)
                _configure_session(conn)  # as the pool's: after the setup, which has its own
        except BaseException:
            conn.close()
            raise
        self._pool_size = max(2, pool_size)
        # The setup's connection becomes the pool's first: one connection an open, not
        # three (this one closed, the pool's first opened in the background, and a second
        # the pool added because the first checkout came before that one was ready)
        self._pool = self._new_pool(first=conn)

    def after_fork(self) -> None:
        """In a forked child: locks of its own (a parent thread may hold its); the pool is
        replaced at its first use (:meth:`_checkout`)."""
        self._ddl_lock = threading.Lock()
        self._damaged_lock = threading.Lock()
        self._own_connections = threading.BoundedSemaphore(OWN_CONNECTIONS_MAX)
        self._write_turn = threading.Lock()
        self._local = threading.local()

    def _new_pool(self, first: _BoundedConnection | None = None) -> ConnectionPool:
        """The store's pool; ``first``: a connection already open and configured, which
        becomes the pool's first (ready when this returns, so the first checkout finds it
        and does not make the pool open another)."""
        self._forks = forks_so_far()
        handed = [first] if first is not None else []

        class _PoolConnection(_BoundedConnection):
            @classmethod
            def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
                if handed:  # the pool's first connection (psycopg_pool makes it in its worker)
                    return handed.pop()
                return _BoundedConnection.connect(conninfo, **kwargs)

        pool: ConnectionPool = ConnectionPool(
            self._conninfo,
            min_size=1,
            max_size=self._pool_size,
            kwargs={"autocommit": True},
            connection_class=_PoolConnection,
            configure=_configure_new_session,
            check=ConnectionPool.check_connection,
            timeout=POOL_WAIT_S,
            num_workers=1,
            open=True,
            name="kenning",
        )
        if first is not None:
            try:
                # the worker only takes it (no round trip): a moment's wait
                pool.wait(timeout=POOL_BUSY_WAIT_S)
            except PoolTimeout:  # (the pool closed itself) as before: one that fills later
                if handed:
                    handed.pop().close()
                return self._new_pool()
        return pool

    # -- errors -----------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        """An error message without credentials: the redaction stored text gets (URL
        passwords, ``password=`` in a libpq string, tokens), then this URL's own credentials
        wherever the server, the driver or libpq echoed them."""
        if self._url:  # as libpq quotes a URL it cannot parse
            text = text.replace(self._url, self.location)
        text = redact_secrets(text)[0]
        text = self._without_secret(text)
        return text

    def _without_secret(self, text: str) -> str:
        """``text`` with this URL's credentials (:func:`_secrets_of`) replaced where each
        stands as a word of its own (a one-letter password must not turn "port" into
        "[REDACTED…]ort")."""
        for secret in self._secrets:
            found = re.compile(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])")
            text = found.sub(lambda _: redaction_marker("connection_string"), text)
        return text

    def _role_in_sql(self) -> str:
        """The role the URL names as its user, as SQL names it (quoted when it must be), for
        a GRANT a message gives; ``<role>`` when it names none (libpq then logs in as its
        default, the OS user or ``PGUSER``)."""
        user = psycopg.conninfo.conninfo_to_dict(getattr(self, "_conninfo", "")).get("user")
        return _quoted_identifier(str(user)) if user else "<role>"

    @contextmanager
    def _translate(self, doing: str = "query") -> Iterator[None]:
        """Map "cannot reach / cannot log in / connection lost" to StoreUnavailable, and a
        refusal for want of a right (or a standby's refusal of any write) to one line that
        names it."""
        try:
            yield
        except pg_errors.LockNotAvailable:
            raise StoreUnavailable(
                f"knowledge base NOT consulted: cannot {doing} PostgreSQL at {self.location}: "
                "another session has held the store's table locked for longer than kenning "
                f"waits ({TABLE_LOCK_WAIT_S:g} s, or the role's lock_timeout: a kenning "
                "import into it, a LOCK TABLE or schema change in a transaction left open, "
                "pg_dump; see pg_stat_activity); nothing was changed — retry once it ends"
            ) from None
        except pg_errors.ReadOnlySqlTransaction:
            # the open knows which (a standby, or this role's read-only sessions); a store
            # it did not find (created by this write) or a server changed since: either
            said = self._read_only_said or _read_only_either(
                self.location, "write to" if doing == "query" else doing, self._role_in_sql()
            )
            raise KenningError(said) from None
        except pg_errors.InsufficientPrivilege as exc:
            said = self._scrub(str(exc.diag.message_primary or exc))
            role = self._role_in_sql()
            schema = _SCHEMA_DENIED.fullmatch(said)
            if schema is not None:
                # the first write creates the tables; PostgreSQL 15 and later no longer let
                # every role create in public, so a role the database's owner made cannot
                name = _quoted_identifier(schema["name"])
                raise KenningError(
                    f"cannot {doing} PostgreSQL at {self.location}: {said}: this role may "
                    "not use that schema or create kenning's tables in it (PostgreSQL 15 and "
                    "later let only the database's owner create in public); the owner (or a "
                    f"DBA) runs `GRANT USAGE, CREATE ON SCHEMA {name} TO {role};` once (USAGE "
                    "alone for a role that only reads), or runs the first write as the "
                    "owner; nothing was written"
                ) from None
            where = _quoted_identifier(self._named_schema or "public")
            raise KenningError(
                f"cannot {doing} PostgreSQL at {self.location}: "
                f"{said}; the store's owner (or "
                "a DBA) must grant this role the right (e.g. `GRANT SELECT, INSERT, UPDATE, "
                f"DELETE ON ALL TABLES IN SCHEMA {where} TO {role}`, and USAGE or CREATE on "
                "the schema), or run the command once as the owner: a schema upgrade and a "
                "bulk import need the owner"
            ) from None
        except (pg_errors.UntranslatableCharacter, pg_errors.CharacterNotInRepertoire) as exc:
            # a database in a single-byte encoding (LATIN1): a retry fails the same way
            said = self._scrub(str(exc.diag.message_primary or exc))
            raise KenningError(
                f"cannot store this text in PostgreSQL at {self.location}: the database's "
                f"encoding cannot hold a character of it ({said}); kenning's notes are "
                "Unicode (an ERROR-FIX entry's '—', any language's words), so the store "
                "needs a database in UTF-8: `CREATE DATABASE <name> ENCODING 'UTF8' "
                "TEMPLATE template0`, then `kenning migrate --to <its URL>`; nothing was "
                "changed"
            ) from None
        except pg_errors.QueryCanceled as exc:
            raise StoreUnavailable(
                f"knowledge base NOT consulted: cannot {doing} PostgreSQL at {self.location}: "
                f"the server cancelled the query "
                f"({self._scrub(str(exc.diag.message_primary or exc))}): "
                "its statement_timeout for this role or database is shorter than kenning "
                "needs, or an administrator cancelled it; give kenning a longer one (`ALTER "
                "ROLE <role> SET statement_timeout = '60s'`, or `options=-cstatement_timeout"
                "%3D60s` in the URL) and retry"
            ) from None
        except psycopg.OperationalError as exc:
            detail = self._scrub(str(exc).strip().splitlines()[0] if str(exc).strip() else "")
            remedy = _connection_remedy(detail, self._role_in_sql())
            if remedy.startswith(_URL_IS_WRONG):
                # nothing was tried against a server: a user's typo (exit 1), as a URL that
                # psycopg itself cannot parse is, not a store that is down (exit 3)
                raise KenningError(
                    f"cannot use the PostgreSQL URL {self.location} ({detail}); {remedy}"
                ) from None
            raise StoreUnavailable(
                f"knowledge base NOT consulted: cannot {doing} PostgreSQL at {self.location} "
                f"({detail or type(exc).__name__}); {remedy}"
            ) from None

    # -- schema -----------------------------------------------------------------------------

    def _setup(self, conn: psycopg.Connection[Any], *, create: bool, dimension: int | None) -> None:
        makes = create and not self._only_if_there
        if not self._schema_missing(conn, create=makes):
            self._set_up(conn, create=create, makes=makes, dimension=dimension)
            return
        # A first write creates the schema the search_path names first, and the store in it,
        # in one transaction: the schema's CREATE committed on its own, so a setup failing
        # after it (pgvector off that path, a role that may not enable it) left it, empty
        with conn.transaction():
            self._create_named_schema(conn)
            self._set_up(conn, create=True, makes=True, dimension=dimension)

    def _set_up(
        self, conn: psycopg.Connection[Any], *, create: bool, makes: bool, dimension: int | None
    ) -> None:
        """:meth:`_setup` in the schema the search_path finds (there, or just created);
        ``makes``: a store that is not there is made (``create``, not ``only_if_there``)."""
        database, schema = _first(conn.execute("SELECT current_database(), current_schema()"))
        if schema is None:
            raise KenningError(
                f"PostgreSQL at {self.location} has no current schema (check search_path)"
            )
        label = f"kenning:{database}:{schema}"
        self._store_key = _lock_key(label + ":store")
        self._migrate_key = _lock_key(label + ":migrate")
        self._reembed_key = _lock_key(label + ":reembed")
        self._index_key = _lock_key(label + ":index")
        exists = self._has_schema_table(conn)
        if not exists and not makes:
            missing = StoreNotFound(
                f"no kenning store in {self.location} yet; {StoreNotFound.CREATOR} creates it"
            )
            if self._try_creation:
                missing.cannot_create = self._creation_refused(conn)
            raise missing
        self._ensure_vector_extension(conn, create=makes)
        _register_vector_checked(conn)  # a type the path cannot see: said before any DDL
        if create:
            self._migrate(conn, dimension, has_table=exists)
        else:  # a read never creates or migrates schema: an older store is read as it is
            self._set_schema(self._schema_version(conn, has_table=exists))
        self._dimension, index_missing, owner = self._table_dimension_and_index(conn)
        self._check_table_present()
        self._cannot_write = self._why_read_only(conn)
        if index_missing and self._warn_missing_index and self.location not in _INDEX_MISSING_SAID:
            # a bulk load (migrate, import) dropped it and has not built it yet: running, or
            # killed. Nothing else builds it (a remember must not spend minutes on it), and
            # searches of a large store are sequential scans until it is back: said once a
            # process (a process may open the store more than once)
            _INDEX_MISSING_SAID.add(self.location)
            log.warning(
                "kenning: %s",
                _missing_index_note(self.location, owner and shown_role(owner), self._standby),
                extra={INDEX_MISSING_LOG_MARK: True},  # stats and reembed say it themselves
            )

    def _creation_refused(
        self, conn: psycopg.Connection[Any], schema: str | None = None
    ) -> str | None:
        """Why the first write could not create the store in this database, as it would
        say it (pgvector not enabled and this role may not enable it, no CREATE on the
        schema, a standby; ``schema``: the one the search_path names, which does not exist
        yet and the write creates first, qa-team F4), or None: tried in a transaction that
        is rolled back, so nothing is left (a managed service's admin role may create
        pgvector though it is no superuser, which no catalog tells)."""

        class _TriedOnly(Exception):
            pass

        class _Refused(Exception):
            pass

        try:
            with self._translate("create the store in"), conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_WAIT_S}s'")
                if schema is not None:
                    try:
                        with conn.transaction():
                            conn.execute(
                                psycopg.sql.SQL("CREATE SCHEMA {}").format(
                                    psycopg.sql.Identifier(schema)
                                )
                            )
                    except pg_errors.InsufficientPrivilege:
                        raise _Refused(self._schema_refused(schema)) from None
                    # (the URL's search_path now finds it first, as the write's does)
                self._ensure_vector_extension(conn, create=True)
                _register_vector_checked(conn)  # as the write does next: a type off the path
                conn.execute("CREATE TABLE kenning_schema (version integer PRIMARY KEY)")
                raise _TriedOnly
        except _TriedOnly:
            return None
        except _Refused as exc:
            return str(exc)
        except StoreUnavailable:
            return None  # (a lock held by another session: the write waits its turn)
        except KenningError as exc:
            return str(exc)

    def _schema_missing(self, conn: psycopg.Connection[Any], *, create: bool) -> bool:
        """Whether the schema the URL's search_path names first does not exist: PostgreSQL
        skips it and would give kenning the next one's store (``team_a,public``: public's,
        which another team's URL reaches the same way). A writer creates it (True:
        :meth:`_create_named_schema`); a reader finds no store there (StoreNotFound)."""
        path, schema, user = _first(
            conn.execute(
                "SELECT current_setting('search_path'), current_schema(), current_user::text"
            )
        )
        named = _first_schema_named(str(path))
        if (
            named in (None, "public")  # the default path's (a dropped public is an admin's)
            or (schema is not None and schema == user and _user_first(str(path)))
        ):
            return False  # or the role's own schema ("$user") comes first
        self._named_schema = named
        # quoted: to_regnamespace reads its text as SQL does a name ("Team-X" is team-x)
        exists = _first(
            conn.execute("SELECT to_regnamespace(quote_ident(%s)) IS NOT NULL", (named,))
        )[0]
        if exists:
            return False
        if not create:
            missing = StoreNotFound(
                f"no kenning store in {self.location} yet (the schema {named!r} its search_path "
                f"names does not exist; {StoreNotFound.CREATOR} creates it)"
            )
            if self._try_creation:  # the write creates the schema first: tried too
                missing.cannot_create = self._creation_refused(conn, schema=named)
            raise missing
        return True

    def _create_named_schema(self, conn: psycopg.Connection[Any]) -> None:
        """Create the schema :meth:`_schema_missing` found missing, in the caller's
        transaction (committed with the store made in it, or not at all), under the lock
        the store's migrations take: another first writer waits for it, then finds both."""
        named = self._named_schema
        assert named is not None
        (database,) = _first(conn.execute("SELECT current_database()"))
        try:
            with conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_WAIT_S}s'")
                key = _lock_key(f"kenning:{database}:{named}:migrate")
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
                conn.execute(
                    psycopg.sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                        psycopg.sql.Identifier(named)
                    )
                )
        except pg_errors.InsufficientPrivilege:
            raise KenningError(self._schema_refused(named)) from None

    def _schema_refused(self, named: str) -> str:
        """What a write says when the schema ``named`` the search_path names first does not
        exist and this role may not create it."""
        return (
            f"the schema {named!r} that the search_path of {self.location} names does not "
            "exist, and this role may not create it; ask a database owner to run "
            f'`CREATE SCHEMA "{named}";` (and grant this role USAGE and CREATE on it), or '
            "name an existing schema"
        )

    def _schema_version(
        self, conn: psycopg.Connection[Any], *, has_table: bool | None = None
    ) -> int:
        """The store's schema version (0: none yet), read without any DDL. ``has_table``:
        whether ``kenning_schema`` exists, as the caller just read it (None: asked here)."""
        if has_table is None:
            has_table = self._has_schema_table(conn)
        if not has_table:
            return 0
        version = _recorded_schema_version(conn)
        if version > SCHEMA_VERSION:
            compatible = _recorded_compatible(conn, version)
            refused = compat.too_new(
                f"the store in {self.location}", compatible, SCHEMA_VERSION, write=False
            )
            if refused:
                reader = compatible.reader if compatible.reader < version else None
                raise SchemaTooNew(f"{refused}; upgrade kenning", version, SCHEMA_VERSION, reader)
        return version

    def _has_schema_table(self, conn: psycopg.Connection[Any]) -> bool:
        """Whether the store's ``kenning_schema`` table exists: in the schema the URL names
        first when it names one (``team_a,public``: a store in public is another team's,
        which the search_path would otherwise find), else wherever the path finds it."""
        if self._named_schema is None:
            return bool(_first(conn.execute("SELECT to_regclass('kenning_schema') IS NOT NULL"))[0])
        found = conn.execute(
            "SELECT to_regclass(quote_ident(%s) || '.kenning_schema') IS NOT NULL",
            (self._named_schema,),
        )
        return bool(_first(found)[0])

    def _set_schema(self, version: int) -> None:
        self._schema = version
        self._columns = _read_columns(schema=version)

    def _ensure_schema_current(self) -> None:
        """Before a write to a store a read opened at an older schema version: migrate it
        first, on a connection of its own (a migration inside the write's transaction would
        wait for the locks that transaction holds)."""
        if self._schema >= SCHEMA_VERSION or self._dimension is None:
            return
        with (
            self._ddl_lock,
            self._translate("upgrade the store in"),
            psycopg.connect(self._conninfo, autocommit=True) as conn,
        ):
            self._migrate(conn, self._dimension)

    def _ensure_vector_extension(self, conn: psycopg.Connection[Any], *, create: bool) -> None:
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        if row is None:
            available = conn.execute(
                "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchone()
            if available is None:
                raise KenningError(
                    f"the PostgreSQL server at {self.location} does not have the pgvector "
                    "extension; install pgvector (https://github.com/pgvector/pgvector, "
                    "e.g. the postgresql-<version>-pgvector package) on the server, then retry"
                )
            if not create:
                raise StoreNotFound(
                    f"no kenning store in {self.location} yet (pgvector is not enabled there)"
                )
            try:
                with conn.transaction():
                    conn.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_WAIT_S}s'")
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._migrate_key,))
                    # in public when the path has it (team_a,public): where every other
                    # schema's path finds the type, not in the first store's schema
                    shared = _first(conn.execute("SELECT 'public' = ANY(current_schemas(false))"))
                    where = " SCHEMA public" if shared[0] else ""
                    conn.execute(f"CREATE EXTENSION IF NOT EXISTS vector{where}")
            except (pg_errors.InsufficientPrivilege, pg_errors.FeatureNotSupported) as exc:
                raise KenningError(
                    f"pgvector is installed on the server at {self.location} but not enabled "
                    f"in this database, and this user may not enable it ({exc.sqlstate}); ask "
                    "a superuser (a managed service's admin role: rds_superuser, "
                    "cloudsqlsuperuser, azure_pg_admin) to run `CREATE EXTENSION vector;` in "
                    "it once — owning the database is not enough: pgvector is not a trusted "
                    "extension"
                ) from None
            row = _first(
                conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            )
        version = tuple(int(x) for x in re.findall(r"\d+", str(row[0]))[:2])
        if version < (0, 5):
            raise KenningError(
                f"pgvector {row[0]} at {self.location} is too old (HNSW needs >= 0.5, "
                "filtered search works best with >= 0.8); upgrade it: `ALTER EXTENSION vector "
                "UPDATE` after installing the new version"
            )
        self._iterative_scan = version >= (0, 8)

    def _migrate(
        self,
        conn: psycopg.Connection[Any],
        dimension: int | None,
        *,
        has_table: bool | None = None,
    ) -> None:
        """Bring the store's schema up to this kenning's (``has_table``: see
        :meth:`_schema_version`; a store made meanwhile by another process is found under
        the migrations' lock)."""
        current = self._schema_version(conn, has_table=has_table)
        if current >= SCHEMA_VERSION:  # nothing to do: no DDL (a role may not have the right)
            # (a newer schema this kenning still reads; its writes check their own)
            self._set_schema(current)
            return
        before = self._run_migrations(conn, dimension)
        self._set_schema(self._schema_version(conn))
        if FIRST_STORE_VERSION <= before < self._schema:
            # this process upgraded a store an older kenning wrote (another process that
            # got the schema lock first did it: before is then the version it left)
            self.schema_upgraded = schema_upgrade_note(self.location, before, self._schema)
            log.warning("kenning: %s", self.schema_upgraded)

    def _run_migrations(self, conn: psycopg.Connection[Any], dimension: int | None) -> int:
        """Apply the migrations the store lacks; the version it had under the schema lock."""
        try:
            return self._apply_migrations(conn, dimension)
        except pg_errors.LockNotAvailable:
            raise KenningError(
                f"cannot upgrade the schema of the store at {self.location}: another session "
                "holds its table (a long transaction, pg_dump, an import) or its schema lock "
                "(another kenning's upgrade, stuck); nothing was written — try again when it "
                "ends"
            ) from None

    def _apply_migrations(self, conn: psycopg.Connection[Any], dimension: int | None) -> int:
        with conn.transaction():
            # An ALTER TABLE waiting for a long transaction's lock (pg_dump, an import) would
            # make every other session's read queue behind it, and a session stuck inside
            # an upgrade holds the schema lock: give up instead, in one line.
            conn.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_WAIT_S}s'")
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._migrate_key,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS kenning_schema ("
                "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            version = _recorded_schema_version(conn)
            if version >= SCHEMA_VERSION:  # another process migrated it meanwhile
                return version
            found = version
            for number in range(version, SCHEMA_VERSION):
                script = MIGRATIONS[number]
                if "{dim}" in script:
                    if dimension is None:
                        break  # created by the first write, which knows the dimension
                    # Vectors inline in the row (PLAIN: no TOAST) make exact scans and
                    # result fetches cheap; only very wide ones are left to TOAST.
                    storage = "PLAIN" if int(dimension) <= 1024 else "EXTERNAL"
                    script = script.replace("{dim}", str(int(dimension)))
                    script = script.replace("{storage}", storage)
                if script in (_WORD_COLLATION_MIGRATION, _WORD_MARKS_MIGRATION):
                    if script == _WORD_COLLATION_MIGRATION:
                        self._use_word_collation(conn)
                    else:
                        self._keep_marks_in_words(conn)
                    conn.execute("INSERT INTO kenning_schema (version) VALUES (%s)", (number + 1,))
                    continue
                try:
                    conn.execute(script)
                except (pg_errors.DuplicateTable, pg_errors.DuplicateFunction) as exc:
                    # a table or function of kenning's name that kenning's own schema
                    # record does not know: another application's, left as it is
                    raise NotAKenningStore(
                        f"the database of {self.location} already holds {exc.diag.message_primary}"
                        ", which kenning did not create; kenning leaves it as it is. Point "
                        "--store or KENNING_STORE at a database of its own (or a new one)"
                    ) from None
                conn.execute("INSERT INTO kenning_schema (version) VALUES (%s)", (number + 1,))
            reached = _recorded_schema_version(conn)
            if reached > version:
                # who may still read and write it, in the migration's own transaction
                conn.execute(
                    "INSERT INTO kenning_meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (
                        compat.COMPATIBLE_KEY,
                        compat.encode(compat.compatible_at(MIGRATION_RAISES, reached)),
                    ),
                )
        return found

    def _use_word_collation(self, conn: psycopg.Connection[Any]) -> None:
        """Migration 5 (in the migration's transaction): where the database's LC_CTYPE does
        not split and lowercase words by Unicode, kenning_tsv uses a collation that does,
        and the rows holding non-ASCII text (the only ones whose words change) are tokenised
        again, under the store lock, with the statistics counted again."""
        collation = _word_collation(conn)
        if collation is None:
            return  # the database's own ctype does (or the server has nothing better)
        conn.execute(_KENNING_TSV.replace("{collate}", f' COLLATE "{collation}"'))
        changed = _first(
            conn.execute(
                "SELECT EXISTS (SELECT 1 FROM kenning_memories "
                "WHERE octet_length(content) <> char_length(content))"
            )
        )[0]
        if changed:
            # a writer's statistics triggers must not run between the rewrite and the count
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._store_key,))
            # an UPDATE of content computes the tsvector and length again (generated
            # columns before migration 9, its row trigger after)
            conn.execute(
                "UPDATE kenning_memories SET content = content "
                "WHERE octet_length(content) <> char_length(content)"
            )
            self._recount(conn)

    def _keep_marks_in_words(self, conn: psycopg.Connection[Any]) -> None:
        """Migration 7 (in the migration's transaction): kenning_tsv keeps combining marks in
        their words and folds ``İ``, ``Σ`` and ``ς`` (with the collation migration 5
        chose, if any), and the rows holding a mark or one of those (the only ones whose
        words change) are
        tokenised again, under the store lock, with the statistics counted again. A
        database not in UTF-8 cannot hold those characters: its words stay as they are."""
        if _first(conn.execute("SELECT current_setting('server_encoding')"))[0] != "UTF8":
            return
        collation = _word_collation(conn)
        conn.execute(
            _KENNING_TSV.replace(
                "{collate}", "" if collation is None else f' COLLATE "{collation}"'
            )
        )
        changed = _first(
            conn.execute(f"SELECT EXISTS (SELECT 1 FROM kenning_memories WHERE {_WORDS_CHANGED})")
        )[0]
        if changed:
            # a writer's statistics triggers must not run between the rewrite and the count
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._store_key,))
            # an UPDATE of content computes the tsvector and length again (generated
            # columns before migration 9, its row trigger after)
            conn.execute(f"UPDATE kenning_memories SET content = content WHERE {_WORDS_CHANGED}")
            self._recount(conn)

    @staticmethod
    def _table_dimension(conn: psycopg.Connection[Any], schema: str | None = None) -> int | None:
        """The vector dimension of the memories table: ``schema``'s own when given (the
        schema the URL names first, as for :meth:`_has_schema_table`), else the path's."""
        row = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(CASE WHEN "
            "%(s)s::text IS NULL THEN 'kenning_memories' "
            "ELSE quote_ident(%(s)s::text) || '.kenning_memories' END) AND attname = 'embedding'",
            {"s": schema},
        ).fetchone()
        return None if row is None or row[0] is None or row[0] < 0 else int(row[0])

    def _table_dimension_and_index(
        self, conn: psycopg.Connection[Any]
    ) -> tuple[int | None, bool, str | None]:
        """:meth:`_table_dimension`, whether the table is without its HNSW index, and the
        role that owns it (who may build the index: what the missing index's note names), in
        the same round trip (the open's: ~0.1 ms more on a local server). The one rule for a
        missing index: the open's warning, ``kenning stats`` and ``kenning reembed`` go by
        it. Every table is created with the index, so only a bulk load leaves one without
        it, empty or not (killed right after its DROP INDEX: no row yet); a guess at
        "empty" from the planner's estimate (``reltuples``, -1 until a first vacuum, 0
        when one saw no rows yet the table may hold thousands since) was what the warning
        and stats disagreed on."""
        row = conn.execute(
            f"SELECT a.atttypmod, NOT {_HAS_HNSW}, pg_get_userbyid(c.relowner) FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid WHERE a.attrelid = to_regclass(CASE WHEN "
            "%(s)s::text IS NULL THEN 'kenning_memories' "
            "ELSE quote_ident(%(s)s::text) || '.kenning_memories' END) AND a.attname = 'embedding'",
            {"s": self._named_schema},
        ).fetchone()
        if row is None or row[0] is None or row[0] < 0:
            return None, False, None
        return int(row[0]), bool(row[1]), None if row[2] is None else str(row[2])

    def _why_read_only(self, conn: psycopg.Connection[Any]) -> str | None:
        """Why a write to the store would be refused on this server, as the write would say
        it; None when it may write (or the memories table is not there yet: the first write
        creating it says what it lacks). One round trip: a standby or a session that is
        read-only (``default_transaction_read_only`` set for the role, the database or in
        the URL's options), or a role without a right a write needs on a table it writes
        (:data:`_WRITE_RIGHTS`, of the tables there are), named with the GRANT."""
        read_only, standby, lacking = _first(
            conn.execute(
                "SELECT current_setting('transaction_read_only') = 'on', pg_is_in_recovery(), "
                "(SELECT array_agg(w.t ORDER BY w.o) FROM (SELECT t, p, o, to_regclass(CASE "
                "WHEN %(s)s::text IS NULL THEN t ELSE quote_ident(%(s)s::text) || '.' || t "
                "END) AS r FROM unnest(%(t)s::text[], %(p)s::text[]) WITH ORDINALITY AS u(t, "
                "p, o)) w WHERE w.r IS NOT NULL AND NOT (SELECT bool_and(has_table_privilege("
                "w.r, x)) FROM unnest(string_to_array(w.p, ',')) x))",
                {
                    "s": self._named_schema,
                    "t": [t for t, _ in _WRITE_RIGHTS],
                    "p": [p for _, p in _WRITE_RIGHTS],
                },
            )
        )
        self._read_only_said = None
        self._standby = bool(standby)
        if standby:
            self._read_only_said = _read_only_server(self.location)
        elif read_only:
            self._read_only_said = (
                f"cannot write to PostgreSQL at {self.location}: this role's sessions are "
                "read-only (default_transaction_read_only is on for the role, the database "
                "or in the URL's options); use a role (or URL) that may write, or have the "
                f"role's owner run `ALTER ROLE {self._role_in_sql()} SET "
                "default_transaction_read_only = off`"
            )
        if self._read_only_said is not None:
            return self._read_only_said
        if lacking:
            tables = [str(t) for t in lacking]
            named = ", ".join(tables)
            schema = self._named_schema
            grant = (  # (a role that may write none of them: the schema's, as a DBA grants)
                f"ALL TABLES IN SCHEMA {_quoted_identifier(schema or 'public')}"
                if len(tables) == len(_WRITE_RIGHTS)
                else ", ".join(f"{_quoted_identifier(schema)}.{t}" if schema else t for t in tables)
            )
            reasons = []
            if "kenning_memories" in tables:
                reasons.append("this role may read the store, not write it")
            elif set(tables) - {"kenning_meta"}:
                reasons.append(
                    "each write updates the full-text statistics and counts kept there too, "
                    "by triggers that run as the writer"
                )
            if "kenning_meta" in tables and "kenning_memories" not in tables:
                reasons.append(
                    "writes keep the store's records in kenning_meta: the model it is "
                    "embedded with, the error-fingerprint rules, what was seeded, a "
                    "reembed's progress"
                )
            why = "; ".join(reasons)
            return (
                f"cannot write to PostgreSQL at {self.location}: permission denied for "
                f"table{'s' if len(tables) > 1 else ''} {named} ({why}); the store's owner "
                "(or a DBA) must grant it the rights (`GRANT SELECT, INSERT, UPDATE, DELETE "
                f"ON {grant} TO {self._role_in_sql()}`)"
            )
        return None

    def newer_schema_refuses_writes(self) -> str | None:
        """See :class:`~kenning.backends.base.KnowsItsSchema`."""
        with self._connection() as conn:
            return self._writes_refused_at(conn, _recorded_schema_version(conn))

    def _writes_refused_at(self, conn: psycopg.Connection[Any], version: int) -> str | None:
        """Why this kenning may not write the store at schema ``version`` (None: it may)."""
        if version <= SCHEMA_VERSION:
            return None
        return compat.too_new(
            f"the store in {self.location}",
            _recorded_compatible(conn, version),
            SCHEMA_VERSION,
            write=True,
        )

    def check_writable(self) -> None:
        # the open's verdict; a read-only one is asked again (a GRANT since, a standby
        # promoted) before it refuses, so that a long-lived process is not held to it
        if self._cannot_write is None:
            return
        with self._connection() as conn:
            self._cannot_write = self._why_read_only(conn)
        if self._cannot_write is not None:
            raise KenningError(self._cannot_write)

    def _holds(self, conn: psycopg.Connection[Any]) -> Callable[[str], bool]:
        """Whether the database's encoding can hold a word: a LATIN1 database cannot hold
        ``ｎｐｍ`` or ``日本`` (no note has them), and a query sending one fails whole."""
        if self._holds_word is None:
            encoding = str(_first(conn.execute("SELECT current_setting('server_encoding')"))[0])
            self._holds_word = _encodable_in(encoding)
        return self._holds_word

    def _dim(self, conn: psycopg.Connection[Any]) -> int | None:
        """The table's vector dimension; None while no table exists (nothing written yet)."""
        if self._dimension is None:
            self._dimension = self._table_dimension(conn, self._named_schema)
        return self._dimension

    def _ensure_table(self, dimension: int) -> int:
        """Create the memories table on the first write, in its own committed transaction
        (on a connection of its own, not the pool's: the caller holds the store lock inside
        :meth:`exclusive`, and the other writers may hold every pooled one waiting for it)."""
        with self._ddl_lock:
            if self._dimension is not None:
                return self._dimension
            with (
                self._translate("create the store in"),
                psycopg.connect(self._conninfo, autocommit=True) as conn,
            ):
                self._migrate(conn, dimension)
                self._dimension = self._table_dimension(conn, self._named_schema)
            self._check_table_present()
            assert self._dimension is not None
            return self._dimension

    def _check_table_present(self) -> None:
        """A store whose schema record says its memories table was created (migration 2)
        but has none: dropped by hand. Read as empty it lost every note without a word, and
        a write failed with no reason ('the store refused the write: ')."""
        if self._dimension is None and self._schema >= 2:
            raise StoreCorrupted(
                f"the store in {self.location} records schema version {self._schema}, but its "
                "table kenning_memories is gone (dropped by hand?); restore the database from "
                "a backup, or, to start an empty store there, drop what is left of it: `DROP "
                "TABLE kenning_schema, kenning_meta, kenning_fts_stats, kenning_fts_terms, "
                "kenning_counts;`"
            )

    # -- connections and transactions -------------------------------------------------------

    @contextmanager
    def _checkout(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection from the pool, or, when none comes within :data:`POOL_WAIT_S`, one
        of its own for this call (closed after it). Call inside :meth:`_translate`."""
        pool = self._pool
        if pool is None:
            raise KenningError(f"the store at {self.location} is closed")
        if self._forks != forks_so_far():
            # a forked child: the pool's connections are the parent's sockets (closing one
            # here would end the parent's session) and its worker thread did not come along
            _INHERITED_POOLS.append(pool)
            pool = self._pool = self._new_pool()
        try:
            conn = pool.getconn()
        except PoolTimeout:
            conn = None
        if conn is None and not self._own_connections.acquire(blocking=False):
            conn = pool.getconn(timeout=POOL_BUSY_WAIT_S)  # enough own ones: wait our turn
        if conn is not None:
            try:
                with conn:  # as the pool's own connection(): commit or roll back, keep open
                    yield conn
            finally:
                pool.putconn(conn)
            return
        try:
            with _BoundedConnection.connect(self._conninfo, autocommit=True) as own:
                _configure_session(own)
                yield own
        finally:
            self._own_connections.release()

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The thread's exclusive() connection when inside one, else one from the pool."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with self._translate():
                yield conn
            return
        with self._translate(), self._checkout() as pooled:
            yield pooled

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        self._ensure_schema_current()  # before the transaction: its locks would block it
        deadline = time.monotonic() + STORE_LOCK_WAIT_S
        with (
            self._turn_to_write(deadline),
            self._translate(),
            self._checkout() as conn,
            conn.transaction(),
        ):
            self._take_store_lock(conn, deadline)
            self._refuse_newer_schema(conn)
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def _refuse_newer_schema(self, conn: psycopg.Connection[Any]) -> None:
        """Inside the write's transaction: a newer kenning (a teammate's, or one installed
        while this process ran) may have migrated the store since it was opened, and rows
        written by code that does not know that schema could be incomplete or damaged."""
        version = _recorded_schema_version(conn)
        refused = self._writes_refused_at(conn, version)
        if refused is None:  # this kenning's schema or older, or a newer one it still writes
            return
        raise StoreCorrupted(
            compat.write_refused(refused, migrated_since_opened=version != self._schema)
        )

    @contextmanager
    def _turn_to_write(self, deadline: float) -> Iterator[None]:
        """This process's turn to write (:attr:`_write_turn`), waited for until
        ``deadline`` (the store lock's own wait: one :data:`STORE_LOCK_WAIT_S` for both)."""
        waited = False
        while not self._write_turn.acquire(
            timeout=max(0.0, min(STORE_LOCK_TRY_S, deadline - time.monotonic()))
        ):
            if time.monotonic() >= deadline:
                raise self._lock_held_too_long()
            give_up_if_unwanted()
            waited = True
        try:
            if waited:
                give_up_if_unwanted()
            yield
        finally:
            self._write_turn.release()

    def _lock_held_too_long(self) -> StoreWriteFailed:
        return StoreWriteFailed(
            f"cannot write the store at {self.location}: another session has held its "
            f"write lock for over {STORE_LOCK_WAIT_S:g} s (a long import, reembed or "
            "migrate, or a stuck client: see pg_stat_activity); nothing was changed, retry "
            "once it is done"
        )

    def _take_store_lock(self, conn: psycopg.Connection[Any], deadline: float) -> None:
        """The store's write lock, in the caller's transaction, waiting until ``deadline``
        (then the server's own lock_timeout applies again)."""
        before = _first(conn.execute("SELECT current_setting('lock_timeout')"))[0]
        waited = False
        while True:
            wait = min(STORE_LOCK_TRY_S, deadline - time.monotonic())
            conn.execute(
                "SELECT set_config('lock_timeout', %s, true)", (f"{max(1, int(wait * 1000))}ms",)
            )
            try:
                with conn.transaction():  # a savepoint: a try that timed out is undone alone
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._store_key,))
                break
            except pg_errors.LockNotAvailable:
                if time.monotonic() >= deadline:
                    raise self._lock_held_too_long() from None
                give_up_if_unwanted()
                waited = True
        if waited:  # the caller's transaction, rolled back on the way out, lets the lock go
            give_up_if_unwanted()
        # the session's own wait again (TO DEFAULT would be the role's: 0, for ever)
        conn.execute("SELECT set_config('lock_timeout', %s, true)", (before,))

    @contextmanager
    def bulk_load(self, dimension: int | None = None, *, atomic: bool = True) -> Iterator[None]:
        """Defer HNSW maintenance for a large import or migration: drop the HNSW index, let
        the enclosed upserts COPY rows (several times faster than maintaining the graph row
        by row), and build the index once at the end. ``dimension`` creates the table first
        when the store is new (else the first upsert would create it with its index).

        ``atomic``: one transaction that holds the store lock: all or nothing, and other
        sessions' reads of the table wait until it commits (imports; at most
        :data:`TABLE_LOCK_WAIT_S`, then they say why they gave up); the statistics
        triggers are off for the load and the statistics counted again once at the end
        (:meth:`_recount`). Otherwise each upsert
        commits on its own, so an interrupted run keeps what it copied (migrations resume);
        the index is rebuilt at the end, or, if the process died, by the next import,
        migration or ``kenning reembed`` (:meth:`restore_index`; until then searches stay
        exact, through a sequential scan, only slower, each process that opens the store
        warns once, and ``kenning stats`` says so: :meth:`missing_index`).
        """
        if dimension is not None and self._dimension is None:
            self._ensure_table(int(dimension))
        if atomic:
            with self.exclusive(), self._connection() as conn:
                if self._dim(conn) is None:
                    yield  # no table yet: the first upsert creates it (with its index)
                    return
                self._take_table(conn)
                conn.execute("DROP INDEX IF EXISTS kenning_memories_hnsw")
                # The statistics triggers would fold every batch into kenning_fts_terms and
                # kenning_counts; in one transaction they are off for the load and the
                # statistics are counted again from the table once at the end (a rollback
                # restores the triggers with everything else).
                for trigger in _STATISTICS_TRIGGERS:
                    conn.execute(f"ALTER TABLE kenning_memories DISABLE TRIGGER {trigger}")
                yield
                self._recount(conn)
                for trigger in _STATISTICS_TRIGGERS:
                    conn.execute(f"ALTER TABLE kenning_memories ENABLE TRIGGER {trigger}")
                self._build_hnsw(conn)
            return
        with self._connection() as conn:
            if self._dim(conn) is None:
                yield
                return
            with conn.transaction():
                self._take_table(conn)
                conn.execute("DROP INDEX IF EXISTS kenning_memories_hnsw")
        try:
            yield
        except BaseException:
            with suppress(Exception), self._connection() as conn:
                self._build_hnsw(conn)
            raise
        with self._connection() as conn:
            self._build_hnsw(conn)

    @staticmethod
    def _take_table(conn: psycopg.Connection[Any]) -> None:
        """The memories table to this transaction alone (ACCESS EXCLUSIVE), waited for in
        tries of :data:`TABLE_LOCK_TRY_S` up to :data:`TABLE_LOCK_WAIT_S` (then
        LockNotAvailable, which :meth:`_translate` says), so that other sessions' reads do
        not queue behind a long wait."""
        before = _first(conn.execute("SELECT current_setting('lock_timeout')"))[0]
        deadline = time.monotonic() + TABLE_LOCK_WAIT_S
        while True:
            wait = min(TABLE_LOCK_TRY_S, deadline - time.monotonic())
            conn.execute(
                "SELECT set_config('lock_timeout', %s, true)", (f"{max(1, int(wait * 1000))}ms",)
            )
            try:
                with conn.transaction():  # a savepoint: a try that timed out is undone alone
                    conn.execute("LOCK TABLE kenning_memories IN ACCESS EXCLUSIVE MODE")
                break
            except pg_errors.LockNotAvailable:
                if time.monotonic() >= deadline:
                    raise
        conn.execute("SELECT set_config('lock_timeout', %s, true)", (before,))

    @staticmethod
    def _recount(conn: psycopg.Connection[Any]) -> None:
        """Set the statistics the triggers keep (row count and total length, document
        frequency per term, rows per project, collection and type) from the table."""
        with _unbounded(conn):  # a pass over every row: not bounded
            conn.execute(
                "UPDATE kenning_fts_stats SET n = s.c, total_len = s.l FROM (SELECT count(*) AS c, "
                "coalesce(sum(doc_len), 0) AS l FROM kenning_memories) s"
            )
            conn.execute("DELETE FROM kenning_fts_terms")
            conn.execute(
                "INSERT INTO kenning_fts_terms (term, df) SELECT lexeme, count(*) "
                "FROM kenning_memories, unnest(tsvector_to_array(content_tsv)) AS lexeme "
                "GROUP BY lexeme"
            )
            conn.execute("DELETE FROM kenning_counts")
            conn.execute(
                "INSERT INTO kenning_counts (group_id, collection, type, n) "
                "SELECT group_id, collection, type, count(*) FROM kenning_memories "
                "GROUP BY group_id, collection, type"
            )

    def may_bulk_load(self) -> bool:
        """A bulk load drops the HNSW index and turns the statistics triggers off: only a
        role that owns the table (or a member of the owning role) may. Another role's large
        import takes the ordinary path (slower, same result); a store not created yet is the
        creator's."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT pg_has_role(current_user, tableowner, 'USAGE') FROM pg_tables "
                "WHERE tablename = 'kenning_memories' AND schemaname = current_schema()"
            ).fetchone()
        return row is None or bool(row[0])

    def restore_index(self) -> bool:
        """Build the HNSW index a bulk load left missing with ``CREATE INDEX CONCURRENTLY``:
        minutes on a large store, during which teammates' reads and writes go on (a plain
        build held every write of the team for as long, each failing after its lock wait).
        A concurrent build cannot run in a transaction: not inside :meth:`exclusive`.

        One such build of the store at a time (a session advisory lock; a second waits for
        the first and finds the index there). An index of that name that is not valid is
        what a failed or cancelled concurrent build left (none other is running): dropped,
        then built again. Its waits (for the table's lock, for transactions older than the
        build, as a concurrent build must) block no other session, so they are not bounded:
        on its own connection, closed after, with its session settings."""
        with self._connection() as conn:
            dimension, missing, _ = self._table_dimension_and_index(conn)
        if dimension is None or not missing:
            return False
        with self._translate(), _BoundedConnection.connect(self._conninfo, autocommit=True) as own:
            _configure_session(own)
            own.execute("SELECT set_config('lock_timeout', '0', false)")
            with _unbounded(own), self._waits_said(own.info.backend_pid) as waiting:
                self._take_index_lock(own, waiting)
                state = self._hnsw_state(own)  # another session may have built it meanwhile
                if state is True:
                    return False
                try:
                    if state is False:  # a failed or cancelled concurrent build's leftover
                        own.execute("DROP INDEX CONCURRENTLY IF EXISTS kenning_memories_hnsw")
                    self._raise_maintenance_memory(own, local=False)
                    own.execute(
                        "CREATE INDEX CONCURRENTLY IF NOT EXISTS kenning_memories_hnsw ON "
                        "kenning_memories USING hnsw (embedding vector_cosine_ops)"
                    )
                except pg_errors.UniqueViolation as exc:  # a bulk load's end built it first
                    if exc.diag.constraint_name != "pg_class_relname_nsp_index":
                        raise
                except KeyboardInterrupt:
                    # psycopg cancelled the statement: the table is as it was but for an
                    # index marked not valid (searches do not use it), which nothing cheap
                    # can drop now (a DROP waits for the same transactions as the build)
                    log.warning(
                        "kenning: the build of the vector index of the store at %s was "
                        "stopped; searches go on without it, as before, and the next "
                        "`kenning reembed` drops what it left and builds the index again",
                        self.location,
                    )
                    raise
            return True

    def _take_index_lock(self, conn: psycopg.Connection[Any], waiting: threading.Event) -> None:
        """The store's index-build lock (a session advisory lock), waited for in tries
        :data:`INDEX_LOCK_TRY_S` apart, ``waiting`` set meanwhile. Not one waiting
        ``pg_advisory_lock``: its statement holds a snapshot as long as it waits, and the
        concurrent build that holds the lock waits, before it ends, for every snapshot older
        than its own: each waited for the other, until the server's deadlock check failed
        one of them (two `kenning reembed` at once, or one and a resumed migration)."""
        waiting.set()
        try:
            while not _first(conn.execute("SELECT pg_try_advisory_lock(%s)", (self._index_key,)))[
                0
            ]:
                time.sleep(INDEX_LOCK_TRY_S)
        finally:
            waiting.clear()

    @contextmanager
    def _waits_said(self, pid: int) -> Iterator[threading.Event]:
        """While the session ``pid`` (an index build's) runs the block: once it has waited
        :data:`BUILD_WAIT_SAY_S` for other sessions, a warning naming each (pid,
        application_name, state, how long its transaction has been open: never its query,
        which may hold a secret), and that Ctrl-C is safe; then again for each new one.
        Asked from another connection (``pg_blocking_pids`` names the holders of a lock
        and of the transaction ids a concurrent build waits for; while the event yielded is
        set, the session waits for the index-build lock: its holder is named)."""
        stop = threading.Event()
        waiting = threading.Event()
        key = self._index_key & 0xFFFFFFFFFFFFFFFF  # as pg_locks shows it: two oids

        def watch() -> None:
            said: set[int] = set()
            while not stop.wait(BUILD_WAIT_SAY_S):
                try:
                    with self._connection() as conn:
                        if waiting.is_set():
                            rows = conn.execute(
                                _INDEX_LOCK_HOLDER, (key >> 32, key & 0xFFFFFFFF, pid)
                            ).fetchall()
                        else:
                            rows = conn.execute(_BLOCKERS, (pid,)).fetchall()
                except Exception:  # a word about a wait must never end the build
                    return
                new = [row for row in rows if row[0] not in said]
                if new and waiting.is_set():  # (another build of it: it ends by itself)
                    said.update(int(row[0]) for row in new)
                    log.warning(
                        "kenning: building the vector index of the store at %s waits for "
                        "another build of it to end, by %s; wait for it (this one then "
                        "finds the index built), or Ctrl-C, which is safe",
                        self.location,
                        "; ".join(_blocker(*row) for row in new),
                    )
                elif new:
                    said.update(int(row[0]) for row in new)
                    log.warning(
                        "kenning: building the vector index of the store at %s waits for "
                        "%s to end (a concurrent build waits for every transaction that "
                        "could see the table without it, and for another build of it); "
                        "commit or end %s, or wait: Ctrl-C is safe (it leaves the store as "
                        "it was, and the next `kenning reembed` builds the index)",
                        self.location,
                        "; ".join(_blocker(*row) for row in new),
                        "that session" if len(new) == 1 else "those sessions",
                    )

        watcher = threading.Thread(target=watch, name="kenning-index-build-waits", daemon=True)
        watcher.start()
        try:
            yield waiting
        finally:
            stop.set()
            watcher.join(timeout=STATEMENT_WAIT_S)

    def _hnsw_state(self, conn: psycopg.Connection[Any]) -> bool | None:
        """Whether the table's HNSW index is valid (None: there is none)."""
        row = conn.execute(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid "
            "WHERE ic.relname = 'kenning_memories_hnsw' AND i.indrelid = to_regclass(CASE WHEN "
            "%(s)s::text IS NULL THEN 'kenning_memories' "
            "ELSE quote_ident(%(s)s::text) || '.kenning_memories' END)",
            {"s": self._named_schema},
        ).fetchone()
        return None if row is None else bool(row[0])

    def missing_index(self) -> str | None:
        parts = self.missing_index_parts()
        return None if parts is None else "; ".join(parts)

    def missing_index_parts(self) -> tuple[str, str] | None:
        """:meth:`missing_index`'s note as what is wrong and its fix, apart."""
        with self._connection() as conn:  # the open's own rule (what its warning says)
            dimension, missing, owner = self._table_dimension_and_index(conn)
        if dimension is None or not missing:
            return None
        return _missing_index_parts(self.location, owner and shown_role(owner), self._standby)

    def table_owner(self) -> str | None:
        with self._connection() as conn:
            owner = self._table_dimension_and_index(conn)[2]
        return owner and shown_role(owner)

    def health(self) -> StoreHealth:
        """What ``kenning doctor`` checks of the store's catalog, read in a transaction that
        is rolled back, without any DDL: its schema version, the tables and columns that
        version has and the store lacks, the vector column's dimension, the HNSW index's
        state (by :meth:`_hnsw_state`, the rule :meth:`missing_index` goes by) and the row
        count."""
        with self._connection() as conn, conn.transaction(force_rollback=True):
            version = self._schema_version(conn)
            dimension = self._table_dimension(conn, self._named_schema)
            wanted = [t for since, t in _STORE_TABLES if version >= since]
            present = {
                name
                for name, found in conn.execute(
                    "SELECT t, to_regclass(CASE WHEN %(s)s::text IS NULL THEN t "
                    "ELSE quote_ident(%(s)s::text) || '.' || t END) IS NOT NULL "
                    "FROM unnest(%(t)s::text[]) AS t",
                    {"s": self._named_schema, "t": wanted},
                )
                if found
            }
            missing = [t for t in wanted if t not in present]
            hnsw: bool | None = None
            rows = 0
            if dimension is not None:
                columns = {
                    str(r[0])
                    for r in conn.execute(
                        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(CASE "
                        "WHEN %(s)s::text IS NULL THEN 'kenning_memories' ELSE "
                        "quote_ident(%(s)s::text) || '.kenning_memories' END) "
                        "AND attnum > 0 AND NOT attisdropped",
                        {"s": self._named_schema},
                    )
                }
                missing += [
                    f"kenning_memories.{c}"
                    for since, c in _MEMORY_COLUMNS
                    if version >= since and c not in columns
                ]
                hnsw = self._hnsw_state(conn)
                rows = int(_first(conn.execute("SELECT count(*) FROM kenning_memories"))[0])
            standby = bool(_first(conn.execute("SELECT pg_is_in_recovery()"))[0])
            newer = _recorded_compatible(conn, version) if version > SCHEMA_VERSION else None
        return StoreHealth(version, tuple(missing), dimension, hnsw, rows, standby, newer)

    @staticmethod
    def _build_hnsw(conn: psycopg.Connection[Any]) -> None:
        """(Re)create the HNSW index, with enough maintenance memory to build it fast. Another
        session building it at the same time (a second migration's end) commits first: its
        index is the one wanted, not an error. Minutes on a large store: not bounded."""
        try:
            with _unbounded(conn):
                PostgresBackend._create_hnsw(conn)
        except pg_errors.UniqueViolation as exc:
            if exc.diag.constraint_name != "pg_class_relname_nsp_index":
                raise

    @staticmethod
    def _raise_maintenance_memory(conn: psycopg.Connection[Any], *, local: bool) -> None:
        """Enough maintenance_work_mem to build the HNSW index fast: pgvector builds fast
        only while the graph fits in it. ``local``: for the transaction, else the session."""
        total = int(_first(conn.execute("SELECT n FROM kenning_fts_stats"))[0])
        dim = PostgresBackend._table_dimension(conn) or 0
        need_mb = int(total * (dim * 4 + 256) * 1.5 / 2**20) + 64
        current = _first(
            conn.execute(
                "SELECT setting::bigint * 1024 / 1048576 FROM pg_settings "
                "WHERE name = 'maintenance_work_mem'"
            )
        )[0]
        if need_mb > int(current):
            conn.execute(
                "SELECT set_config('maintenance_work_mem', %s, %s)",
                (f"{min(need_mb, 2048)}MB", local),
            )

    @staticmethod
    def _create_hnsw(conn: psycopg.Connection[Any]) -> None:
        with conn.transaction():
            PostgresBackend._raise_maintenance_memory(conn, local=True)
            conn.execute(
                "CREATE INDEX IF NOT EXISTS kenning_memories_hnsw ON kenning_memories "
                "USING hnsw (embedding vector_cosine_ops)"
            )

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        """A write: under the store lock, in a transaction (a savepoint when nested)."""
        with self.exclusive(), self._connection() as conn, conn.transaction():
            yield conn

    # -- writes -----------------------------------------------------------------------------

    def _check_dimension(self, vectors: Sequence[np.ndarray], *, create: bool) -> None:
        dim = batch_dimension(vectors)
        with self._connection() as conn:
            have = self._dim(conn)
        if have is None and create:
            have = self._ensure_table(dim)
        check_dimension(dim, have, self.location, NEW_DIMENSION_REMEDY)

    def upsert(self, records: Sequence[MemoryRecord]) -> None:
        if not records:
            return
        vectors = [_as_vector(r.vector) for r in records]
        self._check_dimension(vectors, create=True)
        rows = []
        for record, vector in zip(records, vectors, strict=True):
            m = record.memory
            rows.append(
                (
                    m.id,
                    m.content,
                    m.collection,
                    m.type,
                    m.group_id,
                    m.stored_at,
                    m.content_hash,
                    m.source,
                    Jsonb(list(m.tags)),
                    Jsonb(dict(m.metadata)),
                    None if m.last_seen_at in (None, m.stored_at) else m.last_seen_at,
                    min(m.seen_count, MAX_SEEN_COUNT),  # int4: a larger one would wrap
                    encode_metadata(m.metadata),
                    vector,
                )
            )
        try:
            with self._write() as conn, conn.cursor() as cur:
                cur.execute(
                    "DELETE FROM kenning_memories WHERE id = ANY(%s)", ([r[0] for r in rows],)
                )
                # One COPY per batch: fast, and the BM25 statistics triggers run once.
                with cur.copy(
                    f"COPY kenning_memories ({_WRITE_COLUMNS}, embedding) "
                    "FROM STDIN (FORMAT BINARY)"
                ) as copy:
                    copy.set_types(self._copy_types(conn))
                    for row in rows:
                        copy.write_row(row)
        except pg_errors.UniqueViolation as exc:
            if exc.diag.constraint_name == "kenning_memories_group_hash":
                raise duplicate_content(self.location) from None
            raise

    @staticmethod
    def _copy_types(conn: psycopg.Connection[Any]) -> list[int | str]:
        oid = getattr(conn, "_kenning_vector_oid", None)
        if oid is None:
            info = TypeInfo.fetch(conn, "vector")
            if info is None:
                raise KenningError("the pgvector extension is missing from the database")
            oid = info.oid
        return ["text"] * 5 + [
            "timestamptz",
            "text",
            "text",
            "jsonb",
            "jsonb",
            "timestamptz",
            "int4",
            "text",
            oid,
        ]

    def delete(self, ids: Sequence[str]) -> int:
        ids = _storable_ids(ids)
        if not ids:
            return 0
        with self._write() as conn:
            if self._dim(conn) is None:
                return 0
            cur = conn.execute("DELETE FROM kenning_memories WHERE id = ANY(%s)", (list(ids),))
            return cur.rowcount

    def update_vectors(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        if not items:
            return
        vectors = [_as_vector(v) for _, v in items]
        self._check_dimension(vectors, create=False)
        with self._write() as conn:
            if self._dim(conn) is None:
                return
            with conn.cursor() as cur:
                cur.executemany(
                    "UPDATE kenning_memories SET embedding = %s WHERE id = %s",
                    [(v, i) for (i, _), v in zip(items, vectors, strict=True)],
                )

    def record_seen(self, sightings: Sequence[tuple[str, datetime]]) -> None:
        if not sightings:
            return
        with self._write() as conn:
            if self._dim(conn) is None:
                return
            with conn.cursor() as cur:
                # one statement per sighting: two sightings of one memory count twice
                cur.executemany(
                    # at the integer's top a sighting is not counted (the sum would overflow)
                    "UPDATE kenning_memories SET "
                    f"seen_count = least(seen_count, {MAX_SEEN_COUNT - 1}) + 1, "
                    "last_seen_at = greatest(coalesce(last_seen_at, stored_at), %s) "
                    "WHERE id = %s",
                    [(when, memory_id) for memory_id, when in sightings],
                )

    def update_metadata(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        if not items:
            return
        with self._write() as conn:
            if self._dim(conn) is None:
                return
            with conn.cursor() as cur:
                # both columns: the jsonb one holds the fingerprint index, the text one is
                # what reads return
                cur.executemany(
                    "UPDATE kenning_memories SET metadata = %s, metadata_text = %s WHERE id = %s",
                    [(Jsonb(dict(m)), encode_metadata(m), i) for i, m in items],
                )

    @contextmanager
    def reembed_mark(self) -> Iterator[bool]:
        """A session advisory lock on a connection of its own, held for the reembed's
        length (the server drops it with the session of a killed run)."""
        with self._translate("mark a reembed in"):
            conn = psycopg.connect(self._conninfo, autocommit=True)
        try:
            with self._translate("mark a reembed in"):
                row = conn.execute(
                    "SELECT pg_try_advisory_lock(%s)", (self._reembed_key,)
                ).fetchone()
            yield bool(row and row[0])
        finally:
            with suppress(psycopg.Error):
                conn.close()

    def reembed_running(self) -> bool | None:
        with self._connection() as conn:
            if conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,):
                return None  # a standby's advisory locks are its own, never the primary's
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (self._reembed_key,)).fetchone()
            if row and row[0]:
                conn.execute("SELECT pg_advisory_unlock(%s)", (self._reembed_key,))
                return False
        return True

    def get_meta(self, key: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT value FROM kenning_meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str | None) -> None:
        with self._write() as conn:
            if value is None:
                conn.execute("DELETE FROM kenning_meta WHERE key = %s", (key,))
            else:
                conn.execute(
                    "INSERT INTO kenning_meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (key, value),
                )

    def write_provenance(self, provenance: Provenance) -> None:
        self.set_meta(PROVENANCE_KEY, encode_provenance(provenance))

    # -- reads ------------------------------------------------------------------------------

    def read_provenance(self) -> Provenance | None:
        return decode_provenance(
            self.get_meta(PROVENANCE_KEY),
            self.location,
            "fix or delete the 'provenance' row of kenning_meta, or run `kenning reembed`",
        )

    def get(self, ids: Sequence[str]) -> list[Memory]:
        ids = _storable_ids(ids)
        if not ids:
            return []
        out: dict[str, Memory] = {}
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            for start in range(0, len(ids), 1000):
                chunk = list(ids[start : start + 1000])
                for row in conn.execute(
                    f"SELECT {self._columns} FROM kenning_memories WHERE id = ANY(%s)", (chunk,)
                ):
                    memory = self._decode(row)
                    if memory is not None:
                        out[memory.id] = memory
        return [out[i] for i in ids if i in out]

    def find_by_hash(self, group_id: str, content_hash: str) -> Memory | None:
        with self._connection() as conn:
            if self._dim(conn) is None:
                return None
            row = conn.execute(
                f"SELECT {self._columns} FROM kenning_memories "
                "WHERE group_id = %s AND content_hash = %s",
                (group_id, content_hash),
            ).fetchone()
        return None if row is None else self._decode(row)

    def ids_with_prefixes(
        self, prefixes: Sequence[str], filters: Filters, limit: int
    ) -> dict[str, list[str]]:
        return {p: self.ids_with_prefix(p, filters, limit) for p in dict.fromkeys(prefixes)}

    def ids_with_prefix(self, prefix: str, filters: Filters, limit: int) -> list[str]:
        # compared as bytes (COLLATE "C"), as SQLite compares them: a locale's collation may
        # skip the dashes of an id. An id is ASCII, every character below DEL.
        where, params = _where(filters)
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            rows = conn.execute(
                'SELECT id FROM kenning_memories WHERE id COLLATE "C" >= %s '
                f'AND id COLLATE "C" < %s AND {where} ORDER BY id COLLATE "C" LIMIT %s',
                [prefix, prefix + "\x7f", *params, max(limit, 0)],
            ).fetchall()
        return [str(r[0]) for r in rows]

    def find_by_hashes(self, group_id: str, content_hashes: Sequence[str]) -> dict[str, Memory]:
        out: dict[str, Memory] = {}
        if not content_hashes:
            return out
        with self._connection() as conn:
            if self._dim(conn) is None:
                return out
            for row in conn.execute(
                f"SELECT {self._columns} FROM kenning_memories "
                "WHERE group_id = %s AND content_hash = ANY(%s)",
                (group_id, list(dict.fromkeys(content_hashes))),
            ):
                memory = self._decode(row)
                if memory is not None:
                    out[memory.content_hash] = memory
        return out

    def count(self, filters: Filters) -> int:
        where, params = _where(filters)
        with self._connection() as conn:
            if self._dim(conn) is None:
                return 0
            return int(
                _first(
                    conn.execute(
                        f"SELECT coalesce(sum(n), 0) FROM kenning_counts WHERE {where}", params
                    )
                )[0]
            )

    def case_variants_if_absent(self, group_id: str, limit: int) -> dict[str, int]:
        from ..project import case_variants

        # one read of the counts table (a row per project, collection and type), none of
        # the memories: the ids are compared as kenning compares them, whatever the
        # database's ctype folds
        with self._connection() as conn:
            if self._dim(conn) is None:
                return {}
            rows = conn.execute(
                "SELECT group_id, sum(n) FROM kenning_counts WHERE n > 0 AND NOT EXISTS "
                "(SELECT 1 FROM kenning_counts WHERE group_id = %s AND n > 0) "
                "GROUP BY group_id",
                (group_id,),
            ).fetchall()
        counts = {str(r[0]): int(r[1]) for r in rows}
        found = sorted(case_variants(group_id, counts), key=lambda gid: (-counts[gid], gid))
        return {gid: counts[gid] for gid in found[:limit]}

    def count_by(self, group_id: str | None) -> dict[tuple[str, str], int]:
        where, params = _where(Filters(group_id=group_id))
        with self._connection() as conn:
            if self._dim(conn) is None:
                return {}
            rows = conn.execute(
                f"SELECT collection, type, sum(n) FROM kenning_counts WHERE n > 0 AND {where} "
                "GROUP BY collection, type",
                params,
            ).fetchall()
        return {(r[0], r[1]): int(r[2]) for r in rows if r[2]}

    def iterate(
        self, filters: Filters, batch_size: int = 500, *, oldest_first: bool = False
    ) -> Iterator[MemoryRecord]:
        # a generator, as the error translation around the public methods expects
        walk = self._walk_oldest_first if oldest_first else self._walk
        yield from each_memory_once(walk(filters, batch_size))

    def _walk_oldest_first(self, filters: Filters, batch_size: int) -> Iterator[MemoryRecord]:
        # Every row's time and id (one pass), sorted here as every backend sorts them, then
        # the rows by id a batch at a time: an edit meanwhile gives its row a new seq, never
        # a new id.
        where, params = _where(filters)
        with self._connection() as conn:
            if self._dim(conn) is None:
                return
            found = conn.execute(
                f"SELECT id, stored_at, id FROM kenning_memories WHERE {where}", params
            ).fetchall()
        order = oldest_first(found)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            with self._connection() as conn, conn.cursor(binary=True) as cur:
                rows = cur.execute(
                    f"SELECT id, {self._columns}, embedding FROM kenning_memories "
                    "WHERE id = ANY(%s)",
                    [chunk],
                ).fetchall()
            place = {row[0]: row for row in rows}
            for row in (place[i] for i in chunk if i in place):
                memory = self._decode(row[1 : 1 + _NCOLUMNS])
                if memory is not None:
                    yield MemoryRecord(memory=memory, vector=row[1 + _NCOLUMNS])

    def _walk(self, filters: Filters, batch_size: int) -> Iterator[MemoryRecord]:
        where, params = _where(filters)
        last = 0
        while True:
            with self._connection() as conn:
                if self._dim(conn) is None:
                    return
                with conn.cursor(binary=True) as cur:
                    rows = cur.execute(
                        f"SELECT seq, {self._columns}, embedding FROM kenning_memories "
                        f"WHERE seq > %s AND {where} ORDER BY seq LIMIT %s",
                        [last, *params, batch_size],
                    ).fetchall()
            if not rows:
                return
            for row in rows:
                memory = self._decode(row[1 : 1 + _NCOLUMNS])
                if memory is not None:
                    yield MemoryRecord(memory=memory, vector=row[1 + _NCOLUMNS])
            last = rows[-1][0]

    def count_damaged(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        """The rows reads skip (:meth:`_decode`), by ``(group_id, collection, type)``: stats
        counts them apart, so that its memories are the ones a search can find. The server
        picks the rows whose tags or metadata are not the JSON kenning writes (cheap type
        checks); each is then decoded as a read decodes it, without saying it: a count
        returns no row, and on a shared server most are other projects' (qa-team F8). (A
        vector is never one: the column holds vectors of the store's dimension, pgvector no
        NaN or infinity, and search reads any other as its direction, a zero vector as
        pointing nowhere: qa-team F7.)"""
        where, params = _where(filters)
        suspect = self._suspect_row()
        found: dict[tuple[object, object, object], int] = {}
        with self._connection() as conn:
            if self._dim(conn) is None:
                return found
            # read before the rows: a change committed in between is counted again next time
            position = self._wal_position(conn)
            with self._damaged_lock:
                if position is not None and self._damaged_count[:2] == (position, filters):
                    return dict(self._damaged_count[2])
            # the planner takes the check for true of most rows and would scan the table:
            # migration 8's index holds just the suspect ones (a store a read opened
            # before it is scanned, as the planner likes: no index of a whole pass)
            with conn.transaction(force_rollback=True):
                if self._schema >= 8:
                    conn.execute("SELECT set_config('enable_seqscan', 'off', true)")
                rows = conn.execute(
                    f"SELECT {self._columns} FROM kenning_memories WHERE {where} AND ({suspect})",
                    params,
                ).fetchall()
        for row in rows:
            if self._decode(row, say=False) is None:
                key = (row[4], row[2], row[3])
                found[key] = found.get(key, 0) + 1
        if position is not None:
            with self._damaged_lock:
                self._damaged_count = (position, filters, dict(found))
        return found

    def _suspect_row(self) -> str:
        """:data:`_SUSPECT_ROW` for this store's schema, as migration 8 indexes it (the JSON
        text kenning wrote, migration 4's, is read first: an object's ends)."""
        return _SUSPECT_ROW if self._schema >= 4 else _SUSPECT_ROW_BEFORE_4

    def _suspect(self) -> str:
        """SQL true for the rows :meth:`_decode` may refuse (:meth:`_suspect_row`, a text
        with no visible ASCII character: an empty or blank one is among them, and a row
        larger than kenning stores, :func:`~kenning.backends.base.oversize_reason`); false,
        never NULL, for the others."""
        text = "coalesce(metadata_text, metadata::text)" if self._schema >= 4 else "metadata::text"
        return (
            f"coalesce(({self._suspect_row()} OR content !~ '[!-~]' "
            f"OR octet_length(content) > {MAX_CONTENT_BYTES} "
            f"OR octet_length({text}) > {MAX_STORED_METADATA_BYTES}), false)"
        )

    def rows_to_check(self, horizon: datetime, dimension: int | None) -> RowsToCheck:
        """What ``kenning doctor`` reads of every row (:class:`RowsToCheck`), the server
        picking the rows it names: every project's count, the rows a read may skip
        (:meth:`_suspect`, decoded as a read decodes them), those stamped after ``horizon``,
        holding a redaction marker or of a type and collection kenning does not write
        (:data:`~kenning.model.TYPE_TO_COLLECTION`) or with an id that is not printable
        ASCII, and those whose vector's dimension is not
        ``dimension`` or whose length is not 1 (within
        :data:`~kenning.vectors.UNIT_NORM_TOLERANCE`; pgvector stores no NaN or infinity).
        Reading and decoding every row and its vector here cost doctor ~0.55 s at 10,000
        rows."""
        from ..vectors import UNIT_NORM_TOLERANCE

        with self._connection() as conn:
            if self._dim(conn) is None:
                return RowsToCheck({}, [], [])
            with conn.transaction(force_rollback=True):  # one snapshot for the four reads
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                counts = conn.execute(
                    "SELECT group_id, count(*) FROM kenning_memories GROUP BY group_id"
                ).fetchall()
                suspect = conn.execute(
                    f"SELECT {self._columns} FROM kenning_memories WHERE {self._suspect()}"
                ).fetchall()
                # (and those of a kind kenning does not know: another writer set their
                # type or collection, qa72 F4; and those whose id is not printable ASCII,
                # of which doctor names one holding a control character, qa77 F8)
                named = conn.execute(
                    f"SELECT {self._columns} FROM kenning_memories WHERE stored_at > %s "
                    "OR strpos(content, '[REDACTED:') > 0 "
                    "OR collection || ' ' || type <> ALL(%s) "
                    "OR id ~ '[^ -~]' ORDER BY seq",
                    (horizon, [f"{c} {t}" for t, c in TYPE_TO_COLLECTION.items()]),
                ).fetchall()
                # one pass: the vectors, and the texts another writer set (its content is
                # not the one kenning hashed as it wrote it: qa-team F5)
                odd = conn.execute(
                    "SELECT id, group_id, dims, norm, odd_vector, edited FROM (SELECT id, seq, "
                    "group_id, vector_dims(embedding) AS dims, vector_norm(embedding) AS norm, "
                    "(vector_dims(embedding) <> coalesce(%s, vector_dims(embedding)) "
                    "OR abs(vector_norm(embedding) - 1) > %s) AS odd_vector, "
                    f"{_EDITED} AS edited FROM kenning_memories) AS every_row "
                    "WHERE odd_vector OR edited ORDER BY seq",
                    (dimension, UNIT_NORM_TOLERANCE),
                ).fetchall()
                edited = [str(r[0]) for r in odd if r[5]]
                edited_rows = (
                    conn.execute(
                        f"SELECT {self._columns} FROM kenning_memories WHERE id = ANY(%s) "
                        "ORDER BY seq",
                        (edited,),
                    ).fetchall()
                    if edited
                    else []
                )
        bad = [r[:4] for r in odd if r[4]]  # (the server's verdict on each vector)
        projects = {str(group): int(n) for group, n in counts}
        skipped = set()
        for row in suspect:  # (doctor names them: not said as a read says them)
            if self._decode(row, say=False) is None:
                skipped.add(row[0])
                projects[row[4]] -= 1
        memories = [m for row in named if (m := self._decode(row, say=False)) is not None]
        vectors = [
            (str(i), str(group), int(dims), float(norm))
            for i, group, dims, norm in bad
            if i not in skipped
        ]
        others = [m for row in edited_rows if (m := self._decode(row, say=False)) is not None]
        return RowsToCheck({g: n for g, n in projects.items() if n > 0}, memories, vectors, others)

    def count_unreadable(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        # a vector column holds only vectors: every damaged row is one whose fields are
        return self.count_damaged(filters)

    def damaged_vector_ids(self, filters: Filters) -> frozenset[str]:
        # the vector column's type holds only vectors of the store's dimension
        return frozenset()

    def metadata_entries(self, filters: Filters, key: str | None) -> list[MetadataEntry]:
        # the rows that surely decode give their time and metadata alone; the others
        # (_suspect: metadata NULL here; or metadata text that does not parse) are decoded
        # whole, as every read decodes them
        where, params = _where(filters)
        suspect = self._suspect()
        # the metadata as a read takes it (the text kenning wrote)
        text = "coalesce(metadata_text, metadata::text)" if self._schema >= 4 else "metadata::text"
        found: list[MetadataEntry] = []
        doubtful: list[str] = []
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            rows = conn.execute(
                f"SELECT id, group_id, stored_at, CASE WHEN {suspect} THEN NULL ELSE {text} "
                f"END FROM kenning_memories WHERE {where}",
                params,
            ).fetchall()
            for memory_id, group_id, stored_at, metadata in rows:
                try:  # the text a read parses (another tool's text may not parse)
                    parsed = {} if metadata == "{}" else json.loads(metadata)
                except (TypeError, ValueError, RecursionError):
                    parsed = None
                if not isinstance(parsed, dict):
                    doubtful.append(str(memory_id))
                    continue
                value = None if key is None else parsed.get(key)
                found.append(
                    MetadataEntry(str(memory_id), str(group_id), parse_timestamp(stored_at), value)
                )
            for start in range(0, len(doubtful), 1000):
                chunk = doubtful[start : start + 1000]
                for memory in self._decoded(
                    conn.execute(
                        f"SELECT {self._columns} FROM kenning_memories WHERE id = ANY(%s)",
                        (chunk,),
                    ).fetchall()
                ):
                    value = None if key is None else memory.metadata.get(key)
                    found.append(MetadataEntry(memory.id, memory.group_id, memory.stored_at, value))
        return found

    def _wal_position(self, conn: psycopg.Connection[Any]) -> str | None:
        """Where the server's write-ahead log ends, which every committed change to a table
        moves (the insert position: an asynchronous commit is visible before it is written
        out), and a replica's replay position: unchanged, so are the rows. The damaged
        count's scan of the table (0.1-0.2 s at 50k rows) is kept while it holds; any write
        to the server moves it, so it is only ever kept too little. None inside a
        transaction (a failed call would end it) or where the server has no such function
        (a PostgreSQL-compatible one)."""
        if getattr(self._local, "conn", None) is not None:
            return None
        try:
            with conn.transaction():
                row = conn.execute(
                    "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
                    "ELSE pg_current_wal_insert_lsn() END)::text"
                ).fetchone()
        except psycopg.Error:
            return None
        return None if row is None or row[0] is None else str(row[0])

    def content_hashes(self, filters: Filters) -> list[tuple[str, str]]:
        """Every ``(id, content_hash)`` matching ``filters`` (a migration's checksum)."""
        where, params = _where(filters)
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            rows = conn.execute(
                f"SELECT id, content_hash FROM kenning_memories WHERE {where}", params
            ).fetchall()
        return [(str(memory_id), str(digest)) for memory_id, digest in rows]

    def newest(self, filters: Filters, n: int, before: datetime | None = None) -> list[Memory]:
        if n <= 0:
            return []
        where, params = _where(filters)
        if before is not None:
            where, params = f"{where} AND stored_at < %s", [*params, before]
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            # "C": ids compare by code point, as in Python and SQLite, whatever the
            # database's collation
            rows = conn.execute(
                f"SELECT {self._columns} FROM kenning_memories WHERE {where} "
                'ORDER BY stored_at DESC, id COLLATE "C" DESC LIMIT %s',
                [*params, n],
            ).fetchall()
        return self._decoded(rows)

    def stored_since(self, filters: Filters, since: datetime) -> list[datetime]:
        where, params = _where(filters)
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            rows = conn.execute(
                f"SELECT stored_at FROM kenning_memories WHERE {where} AND stored_at >= %s",
                [*params, since],
            ).fetchall()
        return [parse_timestamp(r[0]) for r in rows]

    @staticmethod
    def _term_rows(conn: psycopg.Connection[Any], words: list[str]) -> list[tuple[Any, ...]]:
        """``(term, document frequency, rows, total length)`` per distinct term of ``words``."""
        return conn.execute(
            "SELECT t.term, coalesce(f.df, 0), s.n, s.total_len "
            "FROM (SELECT DISTINCT lexeme AS term FROM unnest(kenning_tsv(%s))) t "
            "CROSS JOIN kenning_fts_stats s "
            "LEFT JOIN kenning_fts_terms f ON f.term = t.term",
            (" ".join(words),),
        ).fetchall()

    def term_statistics(self, query: str) -> TermStatistics:
        return self.lexical_search_with_statistics(query, 0, Filters())[1]

    def lexical_search(self, query: str, k: int, filters: Filters) -> list[ScoredMemory]:
        """Top-k by FTS5-compatible BM25 (see the module docstring); higher is better."""
        return self.lexical_search_with_statistics(query, k, filters)[0] if k > 0 else []

    def lexical_search_with_statistics(
        self, query: str, k: int, filters: Filters
    ) -> tuple[list[ScoredMemory], TermStatistics]:
        """:meth:`lexical_search` and :meth:`term_statistics` from one statistics query."""
        words = query_terms(query, MAX_QUERY_TERMS, fold_diacritics=False)
        if not words:
            return [], TermStatistics(0, {})
        with self._connection() as conn:
            if self._dim(conn) is None:
                return [], TermStatistics(0, {})
            holds = self._holds(conn)
            words = [t for t in words if holds(t)]
            stats = self._term_rows(conn, [w for t in words for w in spellings(t) if holds(w)])
            if not stats:
                return [], TermStatistics(0, {})
            # each term's spellings together (ｎｐｍ is npm), as every backend counts them
            frequencies: dict[str, int] = {}
            for lexeme, df, _, _ in stats:
                term = usual_width(str(lexeme))
                frequencies[term] = frequencies.get(term, 0) + int(df)
            statistics = TermStatistics(int(stats[0][2]), frequencies)
            if statistics.rows <= 0 or k <= 0:
                return [], statistics
            n, total_len = statistics.rows, int(stats[0][3])
            # the terms every backend looks for and ranks by (the same hits as SQLite's)
            chosen = terms_to_match(statistics.frequencies, n)
            if not chosen:
                return [], statistics
            # each spelling ranked with its own document frequency, as FTS5's bm25() ranks
            # the phrases of "E0382 OR Ｅ０３８２" (the summed one chose the terms above)
            df_of = {str(lexeme): int(df) for lexeme, df, _, _ in stats}
            idfs = {
                word: idf(n, df_of.get(word, statistics.frequencies[term]))
                for term in chosen
                for word in spellings(term)
                if holds(word)
            }
            avgdl = max(total_len / n, 1e-9)
            hits = self._bm25(conn, list(idfs), idfs, avgdl, filters, k)
        return hits, statistics

    def _bm25(
        self,
        conn: psycopg.Connection[Any],
        match: list[str],
        idf: dict[str, float],
        avgdl: float,
        filters: Filters,
        k: int,
    ) -> list[ScoredMemory]:
        """Score the rows matching any of ``match``."""
        where, params = _where(filters, "m")
        terms = list(idf)
        cand = f"m.content_tsv @@ %s::tsquery AND {where}"
        cand_params: list[Any] = [_tsquery(match), *params]
        sql = (
            f"WITH cand AS (SELECT m.seq, m.doc_len, m.content_tsv FROM kenning_memories m "
            f"WHERE {cand}), "
            "tf AS (SELECT c.seq, c.doc_len, u.lexeme, "
            "coalesce(array_length(u.positions, 1), 1) AS tf FROM cand c, "
            "unnest(ts_filter(setweight(setweight(c.content_tsv, 'D'), 'A', %s::text[]), "
            "'{a}')) u), "
            "scored AS (SELECT tf.seq, sum(i.idf * (tf.tf * (%s + 1)) / "
            "(tf.tf + %s * (1 - %s + %s * tf.doc_len / %s))) AS score FROM tf "
            "JOIN unnest(%s::text[], %s::float8[]) AS i(term, idf) ON i.term = tf.lexeme "
            "GROUP BY tf.seq) "
            f"SELECT {_read_columns('m', self._schema)}, s.score "
            "FROM scored s JOIN kenning_memories m ON m.seq = s.seq "
            "ORDER BY s.score DESC, m.seq LIMIT %s"
        )
        args = [
            *cand_params,
            terms,
            BM25_K1,
            BM25_K1,
            BM25_B,
            BM25_B,
            avgdl,
            terms,
            [idf[t] for t in terms],
            k,
        ]
        rows = conn.execute(sql, args).fetchall()
        return [
            ScoredMemory(memory=m, score=float(r[_NCOLUMNS]))
            for r in rows
            if (m := self._decode(r[:_NCOLUMNS])) is not None
        ]

    def find_by_fingerprint(self, fingerprint: str, filters: Filters) -> list[Memory]:
        where, params = _where(filters)
        with self._connection() as conn:
            if self._dim(conn) is None:
                return []
            rows = conn.execute(
                f"SELECT {self._columns} FROM kenning_memories "
                f"WHERE (metadata ->> 'error_fingerprint') = %s AND {where} "
                "ORDER BY seq DESC LIMIT 20",
                [fingerprint, *params],
            ).fetchall()
        return self._decoded(rows)

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        ids = _storable_ids(ids)
        if not ids:
            return out
        with self._connection() as conn:
            if self._dim(conn) is None:
                return out
            with conn.cursor(binary=True) as cur:
                for start in range(0, len(ids), 1000):
                    chunk = list(ids[start : start + 1000])
                    for memory_id, vector in cur.execute(
                        "SELECT id, embedding FROM kenning_memories WHERE id = ANY(%s)", (chunk,)
                    ):
                        out[str(memory_id)] = vector
        return out

    def vector_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[ScoredMemory]:
        """Top-k by cosine: exact when few rows match, else HNSW (see the module docstring)."""
        if k <= 0:
            return []
        query = _as_vector(vector)
        where, params = _where(filters)
        sql = (
            f"SELECT {self._columns}, embedding <=> %s AS distance FROM kenning_memories "
            f"WHERE {where} ORDER BY embedding <=> %s LIMIT %s"
        )
        args = [query, *params, query, k]
        filtered = bool(filters.group_id is not None or filters.collections or filters.types)
        with self._connection() as conn:
            dim = self._dim(conn)
            if dim is None:
                return []
            if query.shape[0] != dim:
                raise KenningError(
                    f"query vector has {query.shape[0]} dimensions, the store has {dim}; "
                    "run `kenning reembed`"
                )
            matching = int(
                _first(
                    conn.execute(
                        f"SELECT coalesce(sum(n), 0) FROM kenning_counts WHERE {where}", params
                    )
                )[0]
            )
            if matching <= 0:
                return []
            # Settings are transaction-local and rolled back at the end of the block, so
            # they never leak into an enclosing exclusive() transaction.
            with conn.transaction(force_rollback=True):
                rows: list[Any] = []
                if matching > EXACT_SEARCH_MAX_ROWS:
                    ef = min(
                        max(EF_SEARCH_FILTERED if filtered else EF_SEARCH, 2 * k), EF_SEARCH_MAX
                    )
                    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
                    if filtered and self._iterative_scan:
                        conn.execute(
                            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)"
                        )
                    rows = conn.execute(sql, args).fetchall()
                if len(rows) < min(k, matching):
                    # Few rows match (or HNSW lost some): an exact scan, which the
                    # planner drives with the filter B-tree (bitmap) or a sequential scan.
                    conn.execute("SELECT set_config('enable_indexscan', 'off', true)")
                    rows = conn.execute(sql, args).fetchall()
        hits = [
            (r, float(r[_NCOLUMNS]))
            for r in rows
            if r[_NCOLUMNS] is not None and np.isfinite(r[_NCOLUMNS])
        ]
        hits.sort(key=lambda h: h[1])  # relaxed_order: HNSW may return near-sorted rows
        return [
            ScoredMemory(memory=m, score=checked_cosine(1.0 - d))
            for r, d in hits[:k]
            if (m := self._decode(r[:_NCOLUMNS])) is not None
        ]

    def replaced(self) -> bool:
        return False

    def identity(self) -> tuple[str, str, int] | None:
        """The server cluster (its system identifier: a primary and its replicas share it),
        the database, and the store's own table (its schema's): one store, however its URL
        is spelled. None when the server does not tell this role its identifier."""
        with self._connection() as conn:
            try:
                cluster = _first(conn.execute("SELECT system_identifier FROM pg_control_system()"))
            except (pg_errors.InsufficientPrivilege, pg_errors.UndefinedFunction):
                return None  # kept from this role, or not PostgreSQL's own server
            database, table = _first(
                conn.execute(  # the store's table as the backend finds it (_has_schema_table)
                    "SELECT current_database(), to_regclass(CASE WHEN %(s)s::text IS NULL "
                    "THEN 'kenning_schema' ELSE quote_ident(%(s)s::text) || '.kenning_schema' "
                    "END)::oid",
                    {"s": self._named_schema},
                )
            )
        if cluster[0] is None or table is None:
            return None
        return str(cluster[0]), str(database), int(table)

    def _decode(self, row: Sequence[Any], *, say: bool = True) -> Memory | None:
        """The row's memory, or None (recorded, and said once unless ``say`` is False: a
        count, which returns no row) for a row whose tags or metadata kenning did not write:
        the typed columns guard the rest, jsonb takes any JSON."""
        try:
            return _row_to_memory(row)
        except FieldDamage as exc:
            key = str(row[0])
            with self._damaged_lock:
                self._damaged.setdefault(
                    key,
                    DamagedRow(
                        key,
                        str(row[4]),
                        exc.column,
                        exc.reason,
                        exc.fix
                        or (
                            BLANK_FIX
                            if exc.column == "content"
                            else "write a JSON list of texts to its tags and a JSON object to "
                            "its metadata (and metadata_text) in kenning_memories, or "
                            "`kenning forget` it"
                        ),
                    ),
                )
                if not say or key in self._damaged_said:
                    return None
                self._damaged_said.add(key)
            log.warning(
                "kenning: skipped the damaged memory %r in %s: its %s %s (not written by "
                "kenning?); fix the row in kenning_memories, or `kenning forget` it",
                key,
                self.location,
                exc.column,
                exc.reason,
            )
            return None

    def _decoded(self, rows: Sequence[Sequence[Any]]) -> list[Memory]:
        return [m for m in (self._decode(r) for r in rows) if m is not None]

    def damaged_rows(self) -> list[DamagedRow]:
        """The rows reads skipped so far: tags or metadata another tool wrote (the other
        columns are typed); see docs/reliability.md."""
        with self._damaged_lock:
            return list(self._damaged.values())

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


#: Pools a forked child inherited from its parent, kept from being closed there.
_INHERITED_POOLS: list[ConnectionPool] = []


def _configure_session(conn: psycopg.Connection[Any]) -> None:
    """A new connection of the pool's (or a call's own): the vector type, timestamps read in
    UTC (a server, database or role TimeZone west of UTC turned a note stored at year 1 into
    a date Python cannot hold, and a read of it into a traceback), and
    :data:`TABLE_LOCK_WAIT_S` as its lock_timeout unless the server or role set one.

    One statement (the type as :func:`_register_vector` finds it, by ``to_regtype`` on the
    session's search_path): psycopg's TypeInfo.fetch, a separate settings query and the
    lock_timeout's own were five round trips for every connection the tests and the
    product open."""
    # (the settings only once the type is found, as when its lookup came first and raised)
    vector_oid = _first(
        conn.execute(
            "SELECT t.oid, CASE WHEN t.oid IS NOT NULL "
            "THEN set_config('TimeZone', 'UTC', false) END, "
            "CASE WHEN t.oid IS NOT NULL AND current_setting('lock_timeout') = '0' "
            "THEN set_config('lock_timeout', %s, false) END "
            "FROM (SELECT to_regtype('vector')::oid AS oid) t",
            (f"{max(1, int(TABLE_LOCK_WAIT_S * 1000))}ms",),
        )
    )[0]
    if vector_oid is None:
        _register_vector_checked(conn)  # raises, saying why (a schema off the path, or none)
        _configure_session(conn)  # the type came meanwhile: its settings too
        return
    _use_vector_type(conn, int(vector_oid))
    conn._kenning_configured = True  # type: ignore[attr-defined]


def _configure_new_session(conn: psycopg.Connection[Any]) -> None:
    """:func:`_configure_session` for a connection the pool opened (the one the store's
    open handed it is configured already)."""
    if not getattr(conn, "_kenning_configured", False):
        _configure_session(conn)


def _search_path_names(search_path: str) -> list[str]:
    """The schema names of ``search_path`` as ``SHOW search_path`` gives it, in order."""
    found = re.findall(r'\s*(?:"((?:[^"]|"")*)"|([^,\s]+))\s*(?:,|$)', search_path)
    return [quoted.replace('""', '"') if quoted else bare.lower() for quoted, bare in found]


#: How each remedy for a URL that is itself wrong begins: no server was asked.
_URL_IS_WRONG = "the URL itself is wrong"
#: PostgreSQL's refusal to use or create in a schema (``permission denied for schema
#: public``).
_SCHEMA_DENIED = re.compile(r"permission denied for schema (?P<name>.+)")
#: A name that SQL reads as it is, unquoted (lower case: an unquoted name is folded to it).
_PLAIN_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_$]*")


def _quoted_identifier(name: str) -> str:
    """``name`` as SQL reads it back: as it is when plain, else in double quotes (``"Team"``)."""
    if _PLAIN_IDENTIFIER.fullmatch(name):
        return name
    return '"' + name.replace('"', '""') + '"'


#: What fixes a connection libpq refused, by its (English) message; anything else gets
#: :data:`_CONNECTION_REMEDY`.
_CONNECTION_REMEDIES = (
    (
        re.compile(r'database "(?P<name>[^"]*)" does not exist'),
        "the URL names a database the server does not have: correct its name in the URL, or "
        'create it (`CREATE DATABASE "{name}";` as a role that may); kenning creates its '
        "tables in it, not the database itself",
    ),
    (
        re.compile(r'role "(?P<name>[^"]*)" does not exist'),
        "the URL's user is not a role of that server: correct the user in the URL, or have "
        "an administrator create the role",
    ),
    (
        re.compile(r'permission denied for database "(?P<name>[^"]*)"'),
        "this role may not connect to that database: its owner (or a DBA) must run `GRANT "
        'CONNECT ON DATABASE "{name}" TO {role};`',
    ),
    (
        re.compile(r"too many (?:clients|connections)|remaining connection slots are reserved"),
        "the server has no connection left for this role or database (max_connections, or "
        "the role's or database's CONNECTION LIMIT): close idle clients, raise the limit, or "
        "put a connection pooler in front of it; then retry",
    ),
    (
        re.compile(
            r"invalid (?:integer |\w+ )?value|invalid port number|invalid connection option"
            r"|invalid URI"
        ),
        f"{_URL_IS_WRONG} (a bad port or option value, as said above): correct it; "
        "nothing was sent to a server",
    ),
    (
        # getaddrinfo's EAI_SERVICE: psycopg resolves a host name with the URL's port, and
        # one that is no number (db.internal:notaport) fails there, before libpq's check
        re.compile(r"servname not supported", re.IGNORECASE),  # glibc: "Servname", BSD: "servname"
        f"{_URL_IS_WRONG} (its port is not a number): correct it; nothing was sent to a server",
    ),
    (
        # a session that worked: its password is not what to check
        re.compile(
            r"terminating connection|server closed the connection unexpectedly|connection to "
            r"server .* was lost|the database system is (?:shutting down|starting up|in "
            r"recovery mode)",
            re.IGNORECASE,
        ),
        "the server ended the connection (a shutdown or restart, a failover, or an "
        "administrator's pg_terminate_backend): retry once it is back",
    ),
    (
        re.compile(r"server does not support SSL", re.IGNORECASE),
        "the server offers no SSL and the URL's sslmode requires it: drop sslmode=require "
        "(or verify-ca, verify-full) from the URL for a server on a trusted network, or "
        "enable SSL on the server",
    ),
    (
        # before the password is asked for: naming it sent people to the wrong fix
        re.compile(r"Connection refused|on socket .* No such file or directory", re.IGNORECASE),
        "nothing accepts connections there: check that the server is running and that the "
        "URL's host and port are its own",
    ),
    (
        re.compile(
            r"failed to resolve host|could not translate host name|Name or service not known"
            r"|nodename nor servname",
            re.IGNORECASE,
        ),
        "the URL's host name does not resolve: check its spelling and that this machine "
        "reaches the network (DNS, VPN) the server is on",
    ),
    (
        # psycopg's own, libpq's: a host that drops the packets (a firewall, a VPN that is
        # not up) or a server too busy to answer; no password was asked for
        re.compile(r"connection timeout expired|timeout expired", re.IGNORECASE),
        "the server did not answer in time (connect_timeout): check that it is running, "
        "that the URL's host and port are its own, and that this machine reaches it (a "
        "firewall dropping the packets, a VPN that is not connected)",
    ),
    (
        re.compile(r"password authentication failed|no password supplied|auth(?:entication)? fail"),
        "check the user and password (in the URL, PGPASSWORD or ~/.pgpass)",
    ),
)
_CONNECTION_REMEDY = (
    "check that the server is running and reachable and that the user and password are right"
)


def _read_only_server(location: str) -> str:
    """A server that refuses every write."""
    return (
        f"cannot write to PostgreSQL at {location}: the server is read-only (a standby); "
        "point writers at the primary's URL"
    )


def _read_only_either(location: str, doing: str, role: str) -> str:
    """A write refused as read-only where the open did not find why: a standby or
    read-only sessions for this role look alike to the write (ReadOnlySqlTransaction)."""
    return (
        f"cannot {doing} PostgreSQL at {location}: the server refused the write as "
        "read-only (a standby, or this role's sessions are read-only: "
        "default_transaction_read_only on for the role, the database or in the URL's "
        "options); point writers at the primary's URL, or use a role (or URL) that may "
        f"write, or have the role's owner run `ALTER ROLE {role} SET "
        "default_transaction_read_only = off`"
    )


def _is_seconds(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _waits_at_most(connect_timeout: object, seconds: int) -> bool:
    """Whether a URL's ``connect_timeout`` (None: unset) waits ``seconds`` at most: a
    value libpq cannot read is left for its own message."""
    if connect_timeout is None or not _is_seconds(str(connect_timeout)):
        return True
    return 0 < float(str(connect_timeout)) <= seconds


def _connection_remedy(detail: str, role: str = "<role>") -> str:
    """How to fix what libpq's message ``detail`` says stopped the connection; ``role``:
    the URL's role, as SQL names it, for a GRANT the remedy gives."""
    for pattern, remedy in _CONNECTION_REMEDIES:
        found = pattern.search(detail)
        if found:
            return remedy.format(**found.groupdict(), role=role)
    return _CONNECTION_REMEDY


def _first_schema_named(search_path: str) -> str | None:
    """The first schema ``search_path`` names, other than ``$user`` and the system's
    ``pg_*`` ones: where its tables are meant to be."""
    for name in _search_path_names(search_path):
        if name and name != "$user" and not name.startswith("pg_"):
            return name
    return None


def _user_first(search_path: str) -> bool:
    """Whether ``$user`` comes before the first schema ``search_path`` names."""
    named = _first_schema_named(search_path)
    names = _search_path_names(search_path)
    return "$user" in names and (named is None or names.index("$user") < names.index(named))


def _encodable_in(server_encoding: str) -> Callable[[str], bool]:
    """Whether a word can be sent to a database in ``server_encoding`` (kenning's
    connections speak UTF-8, and the server converts): any in UTF-8 and SQL_ASCII (which
    keeps the bytes it is sent), those Python's codec of the same name encodes in the
    others, any when Python has no such codec (the server says what it cannot convert)."""
    import codecs

    name = server_encoding.upper()
    if name in ("UTF8", "SQL_ASCII"):
        return lambda word: True
    try:
        codec = codecs.lookup(name.replace("WIN", "CP") if name.startswith("WIN") else name)
    except LookupError:
        return lambda word: True

    def holds(word: str) -> bool:
        try:
            codec.encode(word)
        except UnicodeEncodeError:
            return False
        return True

    return holds


def _word_collation(conn: psycopg.Connection[Any]) -> str | None:
    """The collation kenning_tsv must name to split and lowercase words by Unicode: None
    when the database's own (its LC_CTYPE) already does, or when none of
    :data:`WORD_COLLATIONS` does either (the words stay as the database makes them)."""
    probe, words, lowered = _WORD_PROBE
    if _first(conn.execute("SELECT current_setting('server_encoding')"))[0] != "UTF8":
        return None  # a LATIN1 or SQL_ASCII database: no Unicode collation applies
    for name in (None, *WORD_COLLATIONS):
        collate = "" if name is None else f' COLLATE "{name}"'
        try:
            with conn.transaction():  # a savepoint: a collation this server lacks is no error
                row = _first(
                    conn.execute(
                        f"SELECT regexp_replace(%s::text{collate}, '[^[:alnum:]]+', ' ', 'g'), "
                        f"lower(%s::text{collate})",
                        (probe, probe),
                    )
                )
        except psycopg.DatabaseError:
            continue
        if tuple(row) == (words, lowered):
            return name
    return None


def _register_vector_checked(conn: psycopg.Connection[Any]) -> None:
    if _register_vector(conn):
        return
    row = conn.execute(
        "SELECT n.nspname, coalesce(current_schema(), 'public') FROM pg_extension e "
        "JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
    ).fetchone()
    if row is not None:  # installed, but in a schema this session does not search
        # the example keeps the store's own schema first (an example's team_a would move
        # the user's notes into another store)
        raise KenningError(
            f"the vector type is not on this connection's search_path (pgvector is installed "
            f"in schema {row[0]!r}); add that schema to it, e.g. "
            f"?options=-csearch_path%3D{row[1]},{row[0]} in the URL"
        )
    raise KenningError("the pgvector extension disappeared from the database")
