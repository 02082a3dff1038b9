"""The fix an error message or ``kenning doctor`` names works when a user follows it as
written: each case provokes the problem through the CLI on real files, runs the command
the message prints, and checks that the problem is gone and no memory was lost."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from pathlib import Path

import pytest

from .cli_runner import run_cli
from .reliability.conftest import run_kenning_process

HASHING = {"KENNING_EMBEDDER": "hashing"}
NOTES = (
    "All timestamps are stored in UTC",
    "ERROR-FIX: KeyError: 'tenant_id' | FIX: pass the tenant in every job payload",
    "We chose SQLite over Postgres for the embedded store",
)


def _kenning(project: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli(project, *args, env=HASHING)
    return result.returncode, result.stdout, result.stderr


def _seed(project: Path) -> dict[str, str]:
    for note in NOTES:
        assert _kenning(project, "remember", note)[0] == 0
    assert _kenning(project, "remember", "--project", "other", "Other uses tabs")[0] == 0
    return _contents(project)


def _contents(project: Path) -> dict[str, str]:
    code, out, err = _kenning(project, "export", "--group-id", "all", "--no-vectors")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()[1:]]
    return {r["id"]: r["content"] for r in rows}


def _doctor(project: Path) -> dict[str, dict[str, str]]:
    _, out, _ = _kenning(project, "doctor", "--json")
    return {c["name"]: c for c in json.loads(out)["checks"]}


@pytest.mark.parametrize("table", ["meta", "vector_state"])
def test_a_store_that_lost_a_table_beside_its_rows_rebuilds_as_doctor_says(
    project: Path, table: str
) -> None:
    """doctor names the rebuild (`kenning export …`, move aside, `kenning import …`) for a
    store whose memories table is intact; its export refused the store as damaged."""
    before = _seed(project)
    db = project / ".kenning" / "memory.db"
    with sqlite3.connect(db) as conn:
        conn.execute(f"DROP TABLE {table}")
    conn.close()
    schema = _doctor(project)["schema"]
    assert schema["status"] == "failed" and table in schema["message"]
    assert "kenning export --group-id all -o backup.jsonl" in schema["fix"]

    # a write is refused, and says the same rebuild
    code, _, err = _kenning(project, "remember", "A new note about lighthouses")
    assert code == 1 and "kenning export" in err and table in err

    code, _, err = _kenning(project, "export", "--group-id", "all", "-o", "backup.jsonl")
    assert code == 0, err
    db.rename(project / "memory.db.aside")
    code, _, err = _kenning(project, "import", "backup.jsonl")
    assert code == 0, err
    assert _contents(project) == before
    assert all(c["status"] == "ok" for c in _doctor(project).values())


def test_doctor_names_a_config_value_every_command_refuses(project: Path) -> None:
    """A value out of range in config.toml fails every command that reads it (search's
    threshold: a search); doctor's settings check said the file was fine."""
    _seed(project)
    config = project / ".kenning" / "config.toml"
    config.write_text("similarity_threshold = 2\n", encoding="utf-8")
    code, _, err = _kenning(project, "search", "timestamps")
    assert code == 1 and "similarity threshold" in err

    code, out, _ = _kenning(project, "doctor", "--json")
    settings = {c["name"]: c for c in json.loads(out)["checks"]}["settings"]
    assert code == 1 and settings["status"] == "failed", settings
    assert "similarity threshold" in settings["message"] and str(config) in settings["fix"]

    config.write_text("similarity_threshold = 0.6\n", encoding="utf-8")  # the fix
    assert _kenning(project, "search", "timestamps")[0] == 0
    assert _doctor(project)["settings"]["status"] == "ok"


def test_doctor_names_a_variable_every_command_refuses(project: Path) -> None:
    """A value out of range in the project's .env (or the environment) fails every command
    that reads settings, as one in config.toml does; doctor checked config.toml alone and
    said "every setting has its default"."""
    _seed(project)
    dotenv = project / ".env"
    dotenv.write_text("KENNING_SIMILARITY_THRESHOLD=abc\n", encoding="utf-8")
    code, _, err = _kenning(project, "search", "timestamps")
    assert code == 1 and "KENNING_SIMILARITY_THRESHOLD" in err

    code, out, _ = _kenning(project, "doctor", "--json")
    settings = {c["name"]: c for c in json.loads(out)["checks"]}["settings"]
    assert code == 1 and settings["status"] == "failed", settings
    assert "KENNING_SIMILARITY_THRESHOLD" in settings["message"], settings

    dotenv.write_text("KENNING_SIMILARITY_THRESHOLD=0.6\n", encoding="utf-8")  # the fix
    assert _kenning(project, "search", "timestamps")[0] == 0
    assert _doctor(project)["settings"]["status"] == "ok"


def test_a_dotenv_line_that_does_not_parse_is_said_once_and_only_if_it_is_kennings(
    project: Path,
) -> None:
    """The project's .env belongs to other tools too: a line python-dotenv cannot parse made
    every command print "python-dotenv could not parse statement starting at line 2" three
    times (on every MCP call and in hooks too), naming neither the file nor kenning, and a
    KENNING_* line that did not parse was ignored without a word of its own. Another tool's
    line is not kenning's business; kenning's own says once which file, line and variable."""
    _seed(project)
    (project / ".env").write_text(
        "NODE_OPTIONS=--max-old-space-size=4096\nthis line is not a setting\n"
        "KENNING_SIMILARITY_THRESHOLD='0.6\n",
        encoding="utf-8",
    )
    ran = run_kenning_process(project, "recall", "timestamps", env=HASHING)
    err = ran.stderr.decode()
    assert ran.returncode == 0, err
    assert "python-dotenv" not in err and "could not parse" not in err, err
    said = [line for line in err.splitlines() if "KENNING_SIMILARITY_THRESHOLD" in line]
    assert len(said) == 1 and ".env line 3" in said[0], err


def test_a_model_dir_without_the_model_says_to_fix_the_variable(project: Path) -> None:
    """KENNING_MODEL_DIR naming a folder without the model files: the message said to
    `pip install` the bundled model, which leaves the variable (and the error) as it was."""
    empty = project.parent / "no-model"
    empty.mkdir()
    # a process of its own: in this one the model may be loaded (and kept) already
    broken = run_kenning_process(
        project, "remember", "a good note", env={"KENNING_MODEL_DIR": str(empty)}
    )
    err = broken.stderr.decode()
    assert broken.returncode == 1 and "model files missing" in err
    assert "pip install" not in err
    assert "point KENNING_MODEL_DIR at a folder holding them, or unset it" in err


def _rot_the_full_text_index(project: Path) -> Path:
    """Bit rot in the store's full-text index, the notes' pages intact; the store's path."""
    db = project / ".kenning" / "memory.db"
    with sqlite3.connect(db) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'memories_fts_idx'"
        ).fetchone()
    conn.close()
    _kenning(project, "stats")  # the last connection closes: the WAL is checkpointed
    with db.open("r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(bytes([0xFF]) * 64)
    return db


def test_doctor_quotes_a_wrong_setting_without_the_secret_in_it(project: Path) -> None:
    """A token pasted into the wrong line of .env (or config.toml) is quoted by the
    message that refuses it: every command's error line redacted it, but doctor's report —
    the output a user pastes into a bug report — printed it, in text and in --json."""
    _seed(project)
    token = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
    (project / ".env").write_text(f"KENNING_SIMILARITY_THRESHOLD={token}\n", encoding="utf-8")
    code, _, err = _kenning(project, "search", "timestamps")
    assert code == 1 and token not in err and "[REDACTED:" in err
    code, out, _ = _kenning(project, "doctor")
    assert code == 1 and "KENNING_SIMILARITY_THRESHOLD" in out and token not in out, out
    assert "[REDACTED:" in out
    code, out, _ = _kenning(project, "doctor", "--json")
    settings = {c["name"]: c for c in json.loads(out)["checks"]}["settings"]
    assert code == 1 and settings["status"] == "failed" and token not in out, settings
    (project / ".env").unlink()
    config = project / ".kenning" / "config.toml"
    config.write_text(f'similarity_threshold = "{token}"\n', encoding="utf-8")
    code, out, _ = _kenning(project, "doctor")
    assert code == 1 and "similarity" in out and token not in out, out


def test_a_damaged_store_without_a_backup_is_read_out_as_doctor_says(project: Path) -> None:
    """doctor's fix for a damaged file when there is no backup, followed as printed. It was
    `sqlite3 … .recover | sqlite3 recovered.db`, which Debian 12's sqlite3 (3.40) fails on
    every kenning store, leaving an empty file; and `--store` took a moved file whose name
    does not end in .db for a folder ("nothing to export")."""
    before = _seed(project)
    _rot_the_full_text_index(project)
    fix = _doctor(project)["integrity"]["fix"]
    assert "damaged.db" in fix and ".recover" not in fix, fix
    export = re.search(r"`(kenning export --store \S*damaged\.db[^`]*)`", fix)
    restore = re.search(r"`(kenning import backup\.jsonl)`", fix)
    move = re.search(r"`mv (\S+) (\S+)`", fix)
    assert export and restore and move, fix
    for side in ("", "-wal", "-shm"):  # moved aside as the fix says
        if Path(move.group(1) + side).exists():
            Path(move.group(1) + side).rename(move.group(2) + side)
    code, _, err = _kenning(project, *export.group(1).split()[1:])
    assert code == 0, err
    code, _, err = _kenning(project, *restore.group(1).split()[1:])
    assert code == 0, err
    assert _contents(project) == before


def test_a_store_file_moved_aside_under_any_name_is_read_by_store(project: Path) -> None:
    """``--store`` naming an existing file is that database, whatever its name ends with (a
    store moved aside as ``memory.db.damaged``); it was taken for a folder holding a
    ``memory.db``, and the export said there was nothing to export."""
    before = _seed(project)
    db = project / ".kenning" / "memory.db"
    _kenning(project, "stats")  # the last connection closes: the WAL is checkpointed
    aside = project.parent / "memory.db.damaged"
    db.rename(aside)
    for side in ("-wal", "-shm"):
        if db.with_name(db.name + side).exists():
            db.with_name(db.name + side).rename(aside.with_name(aside.name + side))
    code, out, err = _kenning(
        project, "export", "--store", str(aside), "--group-id", "all", "--no-vectors"
    )
    assert code == 0, err
    assert {json.loads(line)["id"] for line in out.splitlines()[1:]} == set(before)


def test_doctor_on_a_store_named_with_store_names_it_in_every_fix(project: Path) -> None:
    """`kenning doctor --store data` (a store the project keeps elsewhere: a team's, one
    restored beside the default) said `kenning reembed` for its damaged vector: run as
    printed, that re-embedded the project's default store, and the store checked stayed
    damaged. Every command a fix prints for a store named with --store names it too."""
    data = project / "data"
    for note in NOTES:
        assert _kenning(project, "remember", "--store", "data", note)[0] == 0
    db = data / "memory.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE memories SET embedding = ? WHERE rowid = (SELECT min(rowid) FROM memories)",
            (b"\x00" * 8,),
        )
    conn.close()

    def rows() -> dict[str, str]:
        _, out, _ = _kenning(project, "doctor", "--store", "data", "--json")
        return next(c for c in json.loads(out)["checks"] if c["name"] == "rows")

    damaged = rows()
    assert damaged["status"] == "failed", damaged
    commands = re.findall(r"`(kenning [^`]*)`", damaged["fix"])
    assert commands, damaged["fix"]
    for command in commands:  # as printed
        code, _, err = _kenning(project, *shlex.split(command)[1:])
        assert code == 0, (command, err)
    assert rows()["status"] == "ok", rows()


def test_doctors_command_to_read_a_damaged_memory_works_in_a_folder_with_a_space(
    tmp_path: Path,
) -> None:
    """doctor's fix for a memory whose field does not decode prints a `sqlite3 PATH
    "SELECT content …"` to read its text before forgetting it; with the project in a folder
    whose name holds a space (~/My Projects/app, as macOS users keep them) the path was
    printed as it is, and run as printed sqlite3 opened '…/My' and took the rest for SQL.
    The path is quoted for the shell now."""
    import subprocess

    from .conftest import make_repo

    project = make_repo(tmp_path / "My Projects" / "app")
    for note in NOTES:
        assert _kenning(project, "remember", note)[0] == 0
    with sqlite3.connect(project / ".kenning" / "memory.db") as conn:
        (victim,) = conn.execute(
            "SELECT id FROM memories WHERE content = ?", (NOTES[0],)
        ).fetchone()
        conn.execute("UPDATE memories SET tags = '{not json' WHERE id = ?", (victim,))
    conn.close()
    rows = _doctor(project)["rows"]
    assert rows["status"] == "failed" and victim in rows["message"], rows
    read = re.search(r"`(sqlite3 [^`]*)`", rows["fix"])
    assert read, rows["fix"]
    shown = subprocess.run(
        read.group(1).replace("<id>", victim),
        shell=True,
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0 and shown.stdout.strip() == NOTES[0], shown


def test_a_damaged_store_moved_aside_where_it_is_is_read_out_as_doctor_says(
    project: Path,
) -> None:
    """doctor's fix for a damaged file said to move it aside ("e.g. damaged.db") and then
    `kenning export --store damaged.db …`: a user renaming it where it is
    (.kenning/damaged.db) ran an export of ./damaged.db, which said "nothing to export"
    (exit 0) and wrote no backup to import. The fix names both paths in full now."""
    before = _seed(project)
    db = _rot_the_full_text_index(project)
    fix = _doctor(project)["integrity"]["fix"]
    export = re.search(r"`(kenning export [^`]*)`", fix)
    restore = re.search(r"`(kenning import backup\.jsonl)`", fix)
    assert export and restore, fix
    for side in ("", "-wal", "-shm"):  # renamed where it is, as a user reads "aside"
        if db.with_name(db.name + side).exists():
            db.with_name(db.name + side).rename(db.with_name(f"damaged.db{side}"))
    code, _, err = _kenning(project, *shlex.split(export.group(1))[1:])
    assert code == 0 and (project / "backup.jsonl").exists(), err
    code, _, err = _kenning(project, *shlex.split(restore.group(1))[1:])
    assert code == 0, err
    assert _contents(project) == before
