"""A store records which kennings may still read and write it (qaup F2): a newer kenning's
migration that only adds an index leaves the previous build reading and writing the store;
one that raises the writers' minimum leaves it reading; one that raises the readers' refuses
it, as every newer schema did before. Real SQLite files and a real PostgreSQL; "a newer
kenning migrated it" is simulated as the existing tests do (a newer version written into
the store), with the record such a kenning would write next to it."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import psycopg
import pytest

from kenning import open_store
from kenning.backends import compat
from kenning.backends import postgres as pg
from kenning.backends import sqlite as sq
from kenning.errors import StoreCorrupted
from tests.backends import (  # noqa: F401  (fixtures used by name)
    pg_databases,
    pg_server,
    pg_url,
)
from tests.cli_runner import run_cli

NOTE = "Deploys happen on Tuesdays only"


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, project: Path) -> str:
    if request.param == "sqlite":
        return str(project / ".kenning" / "memory.db")
    return str(request.getfixturevalue("pg_url"))


def _own_version(location: str) -> int:
    return pg.SCHEMA_VERSION if location.startswith("postgresql") else sq.SCHEMA_VERSION


def _record(location: str) -> str | None:
    if location.startswith("postgresql"):
        with psycopg.connect(location) as conn:
            row = conn.execute(
                "SELECT value FROM kenning_meta WHERE key = %s", (compat.COMPATIBLE_KEY,)
            ).fetchone()
    else:
        with contextlib.closing(sqlite3.connect(location)) as conn:
            row = conn.execute(
                "SELECT value FROM meta WHERE key = ?", (compat.COMPATIBLE_KEY,)
            ).fetchone()
    return None if row is None else str(row[0])


def _migrated_by_newer(location: str, version: int, record: str | None) -> None:
    """What a newer kenning's migration to ``version`` leaves: the version, and its record
    (None: none, as a kenning before the record wrote)."""
    if location.startswith("postgresql"):
        with psycopg.connect(location) as conn:
            conn.execute("INSERT INTO kenning_schema (version) VALUES (%s)", (version,))
            conn.execute("DELETE FROM kenning_meta WHERE key = %s", (compat.COMPATIBLE_KEY,))
            if record is not None:
                conn.execute(
                    "INSERT INTO kenning_meta (key, value) VALUES (%s, %s)",
                    (compat.COMPATIBLE_KEY, record),
                )
    else:
        with contextlib.closing(sqlite3.connect(location)) as conn:
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("DELETE FROM meta WHERE key = ?", (compat.COMPATIBLE_KEY,))
            if record is not None:
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", (compat.COMPATIBLE_KEY, record)
                )
            conn.commit()


def _newer(location: str, reader: int, writer: int) -> int:
    """The store migrated by a kenning two schema versions newer than this one, whose record
    says kennings of ``reader`` (``writer``) or later read (write) it; that version."""
    version = _own_version(location) + 2
    for v in range(_own_version(location) + 1, version + 1):
        record = json.dumps({"version": v, "read": reader, "write": writer})
        _migrated_by_newer(location, v, record)
    return version


def _count(location: str) -> int:
    if location.startswith("postgresql"):
        with psycopg.connect(location) as conn:
            found = conn.execute("SELECT count(*) FROM kenning_memories").fetchone()
    else:
        with contextlib.closing(sqlite3.connect(location)) as conn:
            found = conn.execute("SELECT count(*) FROM memories").fetchone()
    assert found is not None
    return int(found[0])


def _cli(project: Path, location: str, *args: str) -> tuple[int, str]:
    result = run_cli(project, *args, env={"KENNING_STORE": location})
    return result.returncode, result.stdout + result.stderr


def _remembered(project: Path, location: str) -> None:
    with open_store(location, cwd=project, embedder="hashing") as store:
        store.remember(NOTE, "decision")


def test_the_migration_records_who_may_read_and_write_the_store(
    project: Path, location: str
) -> None:
    """A store this kenning creates records, in the migration's transaction, the oldest
    schema versions whose kenning reads and writes it, by what each migration declared."""
    _remembered(project, location)
    own = _own_version(location)
    raises = pg.MIGRATION_RAISES if location.startswith("postgresql") else sq.MIGRATION_RAISES
    expected = compat.compatible_at(raises, own)
    assert compat.decode(_record(location), own) == expected
    # PostgreSQL 10 (an index) and 8, 9 (an index, a trigger) raised neither: 7 did both
    assert (expected.reader, expected.writer) == ((7, 7) if own == 10 else (1, 6))


def test_a_newer_schema_that_older_kennings_may_read_and_write(
    project: Path, location: str
) -> None:
    """Migrated by a newer kenning whose migrations asked nothing of older ones (an index):
    this kenning reads (recall, search, stats, export, doctor) and writes it."""
    _remembered(project, location)
    own = _own_version(location)
    version = _newer(location, own, own)
    for args in (
        ("recall", "Tuesdays deploys"),
        ("search", "--threshold", "0", "Tuesdays"),
        ("export", "-o", "-"),
    ):
        code, said = _cli(project, location, *args)
        assert code == 0, said
        assert "Tuesdays" in said, said
    code, said = _cli(project, location, "stats")
    assert code == 0, said
    code, said = _cli(project, location, "remember", "--type", "rule", "Ship on Fridays never")
    assert code == 0, said
    assert _count(location) == 2
    code, said = _cli(project, location, "doctor", "--json")
    schema = next(
        c for c in json.loads(said[: said.rindex("}") + 1])["checks"] if c["name"] == "schema"
    )
    assert schema["status"] == "ok", schema
    assert f"schema version {version}, newer than this kenning's ({own})" in schema["message"]
    # this kenning neither migrates it down nor rewrites its record
    assert compat.decode(_record(location), version) == compat.Compatible(version, own, own)


def test_a_newer_schema_that_older_kennings_may_read_but_not_write(
    project: Path, location: str
) -> None:
    """A newer migration raised the writers' minimum: reads go on, a write is refused in
    one line, saying which kenning writes it, and nothing is written."""
    _remembered(project, location)
    own = _own_version(location)
    version = _newer(location, own, own + 1)
    code, said = _cli(project, location, "recall", "Tuesdays deploys")
    assert code == 0 and "Tuesdays" in said, said
    code, said = _cli(project, location, "remember", "--type", "rule", "Ship on Fridays never")
    assert code == 1, said
    assert (
        f"has schema version {version}, newer than this kenning understands ({own}); a kenning "
        f"of schema {own + 1} or later writes it; nothing was written. Upgrade kenning"
    ) in said, said
    assert "Traceback" not in said
    assert _count(location) == 1
    # a process that had it open before the newer kenning's write (an MCP server)
    with open_store(location, cwd=project, embedder="hashing") as store:
        _newer_again = version + 1
        _migrated_by_newer(
            location,
            _newer_again,
            json.dumps({"version": _newer_again, "read": own, "write": _newer_again}),
        )
        assert [m.content for m in store.browse()] == [NOTE]
        with pytest.raises(StoreCorrupted, match="since this process opened it; nothing was"):
            store.remember("Ship on Fridays never", "rule")
    assert _count(location) == 1
    code, said = _cli(project, location, "doctor", "--json")
    schema = next(
        c for c in json.loads(said[: said.rindex("}") + 1])["checks"] if c["name"] == "schema"
    )
    assert schema["status"] == "warning", schema
    assert "this kenning's writes are refused" in schema["message"]
    assert "upgrade kenning" in schema["fix"]


@pytest.mark.parametrize("recorded", ["reader", "none", "garbage"])
def test_a_newer_schema_that_older_kennings_may_not_read(
    project: Path, location: str, recorded: str
) -> None:
    """A newer migration changed what the data means (or the store has no record, as one a
    kenning before the record wrote, or an unreadable one): refused for reads too, with the
    message and fix of before."""
    _remembered(project, location)
    own = _own_version(location)
    if recorded == "reader":
        version = _newer(location, own + 1, own + 1)
    else:
        version = own + 1
        _migrated_by_newer(location, version, None if recorded == "none" else '{"read": "x"}')
    code, said = _cli(project, location, "recall", "Tuesdays deploys")
    assert code == 1, said
    assert f"has schema version {version}, newer than this kenning understands ({own})" in said
    assert "upgrade kenning" in said
    assert ("a kenning of schema" in said) == (recorded == "reader"), said
    code, said = _cli(project, location, "remember", "--type", "rule", "Ship on Fridays never")
    assert code == 1 and "newer than this kenning understands" in said, said
    assert _count(location) == 1
    code, said = _cli(project, location, "doctor", "--json")
    schema = next(
        c for c in json.loads(said[: said.rindex("}") + 1])["checks"] if c["name"] == "schema"
    )
    assert schema["status"] == "failed", schema
    assert f"schema version {version} is newer than this kenning understands" in schema["message"]
    # (PostgreSQL's doctor said it without the schema that reads it, as the CLI says it)
    assert ("a kenning of schema" in schema["message"]) == (recorded == "reader"), schema


def test_a_record_of_another_version_is_not_believed() -> None:
    """Stored text is untrusted: a record written at another version than the store's (a
    schema record rolled back by hand), or that is not one, asks for the store's own
    version, as no record does."""
    good = compat.encode(compat.Compatible(12, 10, 11))
    assert compat.decode(good, 12) == compat.Compatible(12, 10, 11)
    strict = compat.Compatible(13, 13, 13)
    for text in (
        good,
        None,
        "",
        "[]",
        "{",
        '{"version": 13, "read": true, "write": 13}',
        '{"version": 13, "read": 14, "write": 13}',
        '{"version": 13, "read": 0}',
    ):
        assert compat.decode(text, 13) == strict, text
    # a writer minimum below the reader's is the reader's
    assert compat.decode('{"version": 13, "read": 12, "write": 11}', 13).writer == 12


def test_each_migration_declares_what_it_raises() -> None:
    """Declared per migration, in order: a new migration without a declaration fails."""
    assert len(sq.MIGRATION_RAISES) == len(sq.MIGRATIONS)
    assert len(pg.MIGRATION_RAISES) == len(pg.MIGRATIONS)
    raises = (compat.BOTH, compat.NEITHER, compat.WRITERS, compat.NEITHER)
    assert compat.compatible_at(raises, 2) == compat.Compatible(2, 1, 1)
    assert compat.compatible_at(raises, 3) == compat.Compatible(3, 1, 3)
    assert compat.compatible_at(raises, 4) == compat.Compatible(4, 1, 3)


def test_an_upgrade_writes_the_record_with_its_migrations(project: Path, pg_url: str) -> None:  # noqa: F811
    """A store an older kenning left (at schema 9, no record) gets the record from the write
    that upgrades it; a store at this kenning's version without one (a kenning before the
    record made it) is left as it is: only a newer one needs it."""
    _remembered(project, pg_url)
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM kenning_schema WHERE version = %s", (pg.SCHEMA_VERSION,))
        conn.execute("DELETE FROM kenning_meta WHERE key = %s", (compat.COMPATIBLE_KEY,))
    code, said = _cli(project, pg_url, "recall", "Tuesdays deploys")
    assert code == 0 and "Tuesdays" in said, said
    assert _record(pg_url) is None  # a read migrates nothing
    code, said = _cli(project, pg_url, "remember", "--type", "rule", "Ship on Fridays never")
    assert code == 0, said
    assert compat.decode(_record(pg_url), pg.SCHEMA_VERSION) == compat.compatible_at(
        pg.MIGRATION_RAISES, pg.SCHEMA_VERSION
    )


def test_the_prompt_hook_reads_a_newer_store_it_may_read(project: Path, location: str) -> None:
    """The hooks went silent on every newer store (the refusal on stderr, no context): a
    store whose record lets this kenning read it gives the hook its context."""
    from tests.test_hooks import context_of, run_hook

    _remembered(project, location)
    own = _own_version(location)
    _newer(location, own, own + 1)
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "When do deploys happen? Tuesdays?"}
    proc = run_hook(
        "prompt-submit",
        json.dumps({**prompt, "cwd": str(project)}).encode(),
        project,
        env={"KENNING_STORE": location},
    )
    assert NOTE in context_of(proc, "UserPromptSubmit"), proc.stderr


def test_a_failed_upgrade_leaves_neither_the_new_version_nor_the_record(project: Path) -> None:
    """The record is written in the migration's transaction: an upgrade that fails (here:
    migration 6 finds its columns there already) leaves the old version and no record."""
    location = str(project / ".kenning" / "memory.db")
    _remembered(project, location)
    with contextlib.closing(sqlite3.connect(location)) as conn:
        conn.execute("PRAGMA user_version = 5")
        conn.execute("DELETE FROM meta WHERE key = ?", (compat.COMPATIBLE_KEY,))
        conn.commit()
    code, said = _cli(project, location, "remember", "--type", "rule", "Ship on Fridays never")
    assert code != 0, said
    with contextlib.closing(sqlite3.connect(location)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
    assert _record(location) is None
    assert _count(location) == 1


def test_a_fix_on_a_store_this_kenning_may_not_write_says_to_upgrade_first(
    project: Path, location: str
) -> None:
    """On a store a newer kenning upgraded so that this one reads but does not write it,
    migrate's and doctor's fixes for a row of a kind kenning does not know said `kenning
    edit ID --type TYPE` (and doctor's `kenning forget`), which this kenning refuses there
    (qa74 F6): each now says to upgrade kenning first, then run it with the newer one."""
    from tests.test_unknown_kind import _set_kind

    with open_store(location, cwd=project, embedder="hashing") as store:
        ids = [store.remember(note, "decision").id for note in (NOTE, "Tags are signed")]
    assert ids[0] is not None
    _set_kind(location, "postgres" if location.startswith("postgresql") else "sqlite",
              ids[0], "bogus", "nowhere")  # fmt: skip
    own = _own_version(location)
    version = _newer(location, own, own + 1)
    code, said = _cli(project, location, "migrate", "--to", str(project / "copy.db"))
    assert code == 1, said
    upgrade = "upgrade kenning first (`pip install -U kenning`, or your team's way)"
    assert f"{ids[0]} (type 'bogus' in collection 'nowhere')" in said, said
    assert f"{upgrade}: " in said and said.index(upgrade) < said.index("`kenning edit ID"), said
    assert f"a kenning of schema {own + 1} or later writes it" in said, said
    code, said = _cli(project, location, "doctor", "--json")
    rows = next(
        c for c in json.loads(said[: said.rindex("}") + 1])["checks"] if c["name"] == "rows"
    )
    assert rows["status"] == "warning" and ids[0] in rows["message"], rows
    assert rows["fix"].startswith(f"{upgrade}: this kenning may read this store but not write")
    assert "then, with the newer kenning: " in rows["fix"] and "`kenning edit ID" in rows["fix"]
    # a store this kenning writes: the fix as before
    if location.startswith("postgresql"):
        with psycopg.connect(location) as conn:
            conn.execute("DELETE FROM kenning_schema WHERE version = %s", (version,))
    record = json.dumps({"version": version, "read": own, "write": own})
    _migrated_by_newer(location, version, record)
    code, said = _cli(project, location, "migrate", "--to", str(project / "copy2.db"))
    assert code == 1 and upgrade not in said and "`kenning edit ID" in said, said


def test_a_move_on_a_store_this_kenning_may_not_write_says_to_upgrade_first(
    project: Path, location: str
) -> None:
    """doctor's project check gives `kenning move --from-project ID` as its fix for notes
    under another id; on a store this kenning reads but may not write, `move` is refused,
    and the fix said to run it all the same (doctor's list of the commands that write had
    no `move`): it says to upgrade first, as the fixes that run the other writes do."""
    with open_store(location, cwd=project, embedder="hashing", group_id="acme/old") as store:
        store.remember(NOTE, "decision")
    own = _own_version(location)
    _newer(location, own, own + 1)
    code, said = _cli(project, location, "move", "--from-project", "acme/old")
    assert code == 1 and "nothing was written" in said, said  # what the fix runs is refused
    code, said = _cli(project, location, "doctor", "--json")
    check = next(
        c for c in json.loads(said[: said.rindex("}") + 1])["checks"] if c["name"] == "project"
    )
    assert check["status"] == "warning" and "`kenning move --from-project" in check["fix"], check
    assert check["fix"].startswith("upgrade kenning first (`pip install -U kenning`"), check
