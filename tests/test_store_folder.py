"""The project's ``.kenning`` folder in git: the store and the files beside it are ignored
(they are this machine's data, shared with `kenning export`), the settings file is not, a
``.gitignore`` the user wrote there is kept, and a store put elsewhere gets none. Real git."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kenning import MemoryStore, open_store
from kenning.embedders.base import Embedder

from .as_a_user import as_a_user
from .cli_runner import CliRun, run_cli
from .conftest import PROJECT_REMOTE, git, make_repo


def ignored(root: Path, path: str) -> bool:
    found = subprocess.run(["git", "check-ignore", "-q", path], cwd=root, check=False)
    return found.returncode == 0


def test_the_store_never_shows_up_in_git_status_but_its_settings_do(
    project: Path, minilm: Embedder
) -> None:
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("All timestamps are stored in UTC", "rule").status == "stored"
        store.recall("which timezone do we store timestamps in")
    assert git(project, "status", "--porcelain") == ""  # memory.db, its WAL, the vector file
    for name in ("memory.db", "memory.db-wal", "memory.db.vectors", "recall-log.jsonl"):
        assert ignored(project, f".kenning/{name}")
    (project / ".kenning" / "config.toml").write_text("similarity_threshold = 0.6\n")
    assert not ignored(project, ".kenning/config.toml")
    assert git(project, "status", "--porcelain", "-uall") == "?? .kenning/config.toml\n"


def test_a_store_made_before_its_gitignore_gets_one_on_its_first_read(
    project: Path, minilm: Embedder
) -> None:
    """A store an older kenning made had no .gitignore beside it: after the upgrade the
    store showed in `git status` (every file beside it too) until the first write, and a
    project that only read (hooks, recall) could commit it with `git add -A`."""
    with open_store(cwd=project, embedder=minilm) as store:
        store.remember("All timestamps are stored in UTC", "rule")
    (project / ".kenning" / ".gitignore").unlink()  # as the older kenning left the folder
    assert git(project, "status", "--porcelain") != ""
    with open_store(cwd=project, create=False, embedder=minilm) as store:
        store.recall("which timezone do we store timestamps in")
    assert git(project, "status", "--porcelain") == ""


def test_a_gitignore_of_the_users_own_is_kept(project: Path, minilm: Embedder) -> None:
    folder = project / ".kenning"
    folder.mkdir()
    (folder / ".gitignore").write_text("memory.db*\n")
    with open_store(cwd=project, embedder=minilm) as store:
        store.remember("Never run migrations on Fridays", "rule")
    assert (folder / ".gitignore").read_text() == "memory.db*\n"


def test_a_store_kept_elsewhere_gets_no_gitignore(project: Path, minilm: Embedder) -> None:
    elsewhere = project / "data"
    with open_store(elsewhere, cwd=project, embedder=minilm) as store:
        store.remember("Never run migrations on Fridays", "rule")
    assert (elsewhere / "memory.db").exists()
    assert not (elsewhere / ".gitignore").exists()
    assert not (project / ".kenning").exists()


def _kenning_as_a_user(cwd: Path, *args: str, env: dict[str, str] | None = None) -> CliRun:
    """``kenning *args`` in ``cwd`` as a user without root's file rights, in this process
    (:func:`tests.as_a_user.as_a_user`): what a command says of a folder or file it may not
    read or write, without a Python start and a model load for each."""
    with as_a_user():
        return run_cli(cwd, *args, env=env)


def test_a_read_only_store_is_read_and_refuses_writes_in_one_line(
    project: Path, minilm: Embedder
) -> None:
    """A WAL store in a folder nobody may write (a read-only mount, a shared checkout) could
    not even be read: SQLite must create its -shm beside it. Reads now work; a write says
    the store is read-only and how to fix it, and the file stays as it was."""
    import json
    import os

    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember("Deploys happen on Tuesdays only", "rule").id
    folder = project / ".kenning"
    db = folder / "memory.db"
    before = db.read_bytes()
    os.chmod(db, 0o444)
    os.chmod(folder, 0o555)
    try:

        def kenning(*args: str) -> CliRun:
            return _kenning_as_a_user(project, *args)

        recalled = kenning("recall", "--json", "which day do we deploy")
        assert recalled.returncode == 0, recalled.stderr
        assert [r["id"] for r in json.loads(recalled.stdout)["results"]] == [memory_id]
        for write in (("forget", str(memory_id)), ("remember", "Deploys happen on Fridays")):
            refused = kenning(*write)
            assert refused.returncode == 1
            (line,) = refused.stderr.splitlines()
            assert "read-only" in line and f"make {folder}" in line, line
        doctor = kenning("doctor")
        assert "can be read but not written" in doctor.stdout, doctor.stdout
        assert "no other kenning process is writing" not in doctor.stdout, doctor.stdout
        # a read-only store is one the README supports (reads work): a warning with its fix,
        # not a failed check that fails `kenning doctor` (exit 1) in a script or CI job
        assert doctor.returncode == 0, doctor.stdout
        assert doctor.stdout.splitlines()[1].startswith("warning store:"), doctor.stdout
        assert f"fix: make {folder}" in doctor.stdout
        assert db.read_bytes() == before
    finally:
        os.chmod(folder, 0o755)
        os.chmod(db, 0o644)


def test_a_write_to_a_read_only_store_is_refused_before_the_model_is_loaded(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """remember, edit and import of a read-only store loaded the model and embedded the
    text (a second or more) before the write was refused; an edit said the model was
    missing where it could not be loaded. Each is refused first now, by the read-only
    check every write starts with (MemoryStore.check_can_write): here a model that cannot
    be loaded would be named instead. Nothing is written. In this process, as a user
    without root's file rights, with no model loaded in it: a load would look for the model
    where there is none (a process of its own for each command was ~0.27 CPU-s each)."""
    import os

    from kenning import embedders

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Deploys happen on Tuesdays only", "rule").id
    exported = run_cli(project, "export", "-o", str(project / "backup.jsonl"))
    assert exported.returncode == 0, exported.stderr
    folder = project / ".kenning"
    db = folder / "memory.db"
    before = db.read_bytes()
    no_model = project.parent / "no-model"
    no_model.mkdir()
    monkeypatch.setattr(embedders, "_LOADED", {})  # the session's model is not this process's
    os.chmod(db, 0o444)
    os.chmod(folder, 0o555)
    try:
        for write in (
            ("remember", "Deploys happen on Fridays"),
            ("edit", memory_id, "--content", "Deploys happen on Wednesdays only"),
            ("forget", memory_id),
            ("import", str(project / "backup.jsonl")),
        ):
            refused = _kenning_as_a_user(project, *write, env={"KENNING_MODEL_DIR": str(no_model)})
            assert refused.returncode == 1, (write, refused.stderr)
            (line,) = refused.stderr.splitlines()
            assert "read-only" in line and f"make {folder}" in line, (write, line)
            assert "model" not in line, (write, line)
        assert db.read_bytes() == before
        assert not embedders._LOADED  # no command loaded a model
    finally:
        os.chmod(folder, 0o755)
        os.chmod(db, 0o644)


def test_a_read_only_shm_left_by_a_read_is_named_by_every_write(
    project: Path, minilm: Embedder
) -> None:
    """A read of a store made read-only leaves its -shm and -wal read-only beside it. With
    the store file writable again, remember said "dedup-check-failed: the store could not
    be checked for duplicates", and forget ended in a traceback. Each names the read-only
    file now, in one line, and the store is as it was."""
    import os

    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember("Deploys happen on Tuesdays only", "rule").id
    db = project / ".kenning" / "memory.db"

    def kenning(*args: str) -> CliRun:
        return _kenning_as_a_user(project, *args)

    os.chmod(db, 0o444)
    assert kenning("recall", "which day do we deploy").returncode == 0
    shm = db.with_name("memory.db-shm")
    assert shm.exists()
    os.chmod(shm, 0o444)  # (as SQLite made it, for a process whose umask is not root's)
    os.chmod(db, 0o644)
    try:
        for write in (("forget", str(memory_id)), ("remember", "Deploys happen on Fridays")):
            refused = kenning(*write)
            assert refused.returncode == 1, refused.stderr
            (line,) = refused.stderr.splitlines()
            assert f"{db}: memory.db-shm is read-only; make it writable" in line, line
        with open_store(cwd=project, embedder=minilm) as store:
            assert [m.id for m in store.browse(limit=None)] == [memory_id]
    finally:
        if shm.exists():  # (the last connection to close, root's, removes it)
            os.chmod(shm, 0o644)


@contextmanager
def _tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``mount`` for the test (skipped where it cannot be),
    unmounted afterwards."""
    mount.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a file system here: {mounted.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def _as_a_killed_writer_leaves_it(project: Path, write: Callable[[MemoryStore], object]) -> None:
    """The project's store as a writer killed after ``write`` leaves it: the write in the
    -wal, never checkpointed, the -shm beside it. Its files are copied while the store is
    open, then put back over what its close left (a close checkpoints the -wal and removes
    both): a process started to write and be killed was ~0.25 CPU-s."""
    folder = project / ".kenning"
    names = ("memory.db", "memory.db-wal", "memory.db-shm")
    kept = project.parent / "left-by-a-killed-writer"
    kept.mkdir()
    with open_store(cwd=project, embedder="hashing") as store:
        write(store)
        for name in names:
            shutil.copy2(folder / name, kept / name)
    for name in names:
        shutil.copy2(kept / name, folder / name)


@pytest.mark.parametrize("wal_left", [False, True])
def test_a_store_on_a_read_only_file_system_is_read(
    tmp_path: Path, minilm: Embedder, wal_left: bool
) -> None:
    """On a file system mounted read-only SQLite cannot create the -shm either, and says
    "unable to open database file" (SQLITE_CANTOPEN, not READONLY): that store is read too,
    and doctor says read-only instead of advising to move an intact store aside. The
    commands run in this process (tests/cli_runner.py): the file system is read-only for
    every process, root's too, so no process of its own is needed, unlike a folder that is
    read-only to another user (the test above). With a WAL and its -shm left beside the
    store (a writer killed), SQLite opens it read-only without an error: doctor called the
    store ok, then its index damaged ("attempt to write a readonly database"), exit 1, with
    the advice to rebuild a healthy store."""
    import json

    with _tmpfs(tmp_path / "mnt", "16m") as mount:
        project = make_repo(mount / "p")
        with open_store(cwd=project, embedder=minilm) as store:
            memory_id = store.remember("Deploys happen on Tuesdays only", "rule").id
        if wal_left:  # a writer killed after its write: no checkpoint, the WAL stays
            _as_a_killed_writer_leaves_it(project, lambda s: s.backend.set_meta("qa", "x"))
            assert (project / ".kenning" / "memory.db-wal").stat().st_size > 0
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)

        def kenning(*args: str) -> CliRun:
            return run_cli(project, *args)

        recalled = kenning("recall", "--json", "which day do we deploy")
        assert recalled.returncode == 0, recalled.stderr
        assert [r["id"] for r in json.loads(recalled.stdout)["results"]] == [memory_id]
        refused = kenning("remember", "Deploys happen on Fridays")
        assert refused.returncode == 1 and "read-only" in refused.stderr, refused.stderr
        doctor = kenning("doctor")
        assert "can be read but not written" in doctor.stdout, doctor.stdout
        assert doctor.returncode == 0, doctor.stdout
        assert "aside" not in doctor.stdout and "failed" not in doctor.stdout, doctor.stdout
        assert "no other kenning process is writing" not in doctor.stdout, doctor.stdout


def test_a_store_on_a_full_disk_is_not_called_damaged(tmp_path: Path) -> None:
    """On a full disk SQLite cannot create a WAL store's -shm to read it and says "disk I/O
    error": every command said only that, and doctor called the healthy store damaged and
    said to move it aside and restore a backup (losing what the backup lacks). Each says the
    disk is full and to free space; once there is room, everything works, nothing lost."""
    env = {"KENNING_EMBEDDER": "hashing"}
    with _tmpfs(tmp_path / "mnt", "4m") as mount:
        project = make_repo(mount / "p")
        assert run_cli(project, "remember", "Payments retry five times", env=env).returncode == 0
        filler = mount / "filler"
        with filler.open("wb") as f:  # every block taken
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        for args in (("stats",), ("recall", "payments retry")):
            r = run_cli(project, *args, env=env)
            assert r.returncode == 1, (args, r.stdout, r.stderr)
            (line,) = r.stderr.splitlines()
            assert "the disk holding it is full" in line and "free some space" in line, line
        doctor = run_cli(project, "doctor", env=env)
        assert doctor.returncode == 1, doctor.stdout
        assert "the disk holding it is full" in doctor.stdout, doctor.stdout
        assert "mv " not in doctor.stdout and "restore" not in doctor.stdout, doctor.stdout
        filler.unlink()
        again = run_cli(project, "doctor", env=env)
        assert again.returncode == 0, again.stdout
        assert "Payments" in run_cli(project, "recall", "payments retry", env=env).stdout


def test_doctor_checks_a_store_named_with_store_from_anywhere(
    project: Path, tmp_path: Path, minilm: Embedder
) -> None:
    """`kenning doctor --store /path/to/memory.db` (its help's own example: a backup, a store
    moved aside, another checkout's) failed, exit 1, for a healthy store whenever it was run
    outside that store's checkout: its location check said "refusing to write … outside the
    project root" (or "not inside a git repository"), though doctor writes nothing and every
    read of that store works. Named with --store, the store is checked where it is, and the
    write guard that applies from here is a warning; a project's own store (no --store)
    outside its root still fails."""
    from kenning.doctor import run_doctor

    with open_store(cwd=project, embedder=minilm) as store:
        assert store.remember("Deploys happen on Tuesdays only", "rule").ok
    db = project / ".kenning" / "memory.db"
    other = make_repo(tmp_path / "other", remote="git@github.com:acme/other.git")
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    for cwd in (other, nowhere):
        report = run_doctor(db, cwd=cwd)
        assert report.healthy, report.to_dict()
        location = report.check("location")
        assert location.status == "warning" and str(db) in location.message, location
        assert report.check("rows").status == "ok"
    # the project's own store: unchanged
    assert run_doctor(cwd=project).check("location").status == "ok"


def test_doctor_on_a_missing_store_named_with_store_from_elsewhere_fails(
    project: Path, tmp_path: Path
) -> None:
    """`kenning doctor --store ~/backups/memroy.db` (a path mistyped, a backup that was never
    made) run outside that path's checkout said "healthy", exit 0: "no store yet …
    `kenning remember` creates it", though there is nothing to check and remember refuses to
    write there from here (the location check's own warning). Before the location check
    became a warning it failed, exit 1. A store named with --store that does not exist is
    a failed check that names the path."""
    from kenning.doctor import run_doctor

    missing = tmp_path / "backups" / "memroy.db"
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    for cwd in (project, nowhere):
        report = run_doctor(missing, cwd=cwd)
        assert not report.healthy, report.to_dict()
        store = report.check("store")
        assert store.status == "failed" and str(missing) in store.message, store
        assert "creates it" not in store.message and store.fix and "--store" in store.fix
    # inside the project, a store named there is created by the first remember: as before
    inside = project / ".kenning" / "other.db"
    report = run_doctor(inside, cwd=project)
    assert report.healthy and "creates it" in report.check("store").message


def test_a_qdrant_local_store_in_the_kenning_folder_is_ignored_too(
    project: Path, minilm: Embedder
) -> None:
    """`qdrant-local:.kenning/qdrant` (the folder kenning's own error message suggests) put
    no .gitignore in .kenning, as only an SQLite store there did: Qdrant's storage.sqlite
    files, its meta.json and lock files all showed up in `git status`, one `git add -A` from
    being committed. The store's folder is ignored whichever backend keeps its files there."""
    with open_store("qdrant-local:.kenning/qdrant", cwd=project, embedder=minilm) as store:
        assert store.remember("Deploys happen on Tuesdays only", "rule").ok
    assert (project / ".kenning" / "qdrant" / "meta.json").is_file()
    assert git(project, "status", "--porcelain", "-uall") == ""
    (project / ".kenning" / "config.toml").write_text("similarity_threshold = 0.6\n")
    assert git(project, "status", "--porcelain", "-uall") == "?? .kenning/config.toml\n"


def test_a_relative_qdrant_local_store_in_dotenv_is_the_projects_from_any_subfolder(
    project: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: a relative KENNING_STORE in `.env` is relative to the project. A relative
    `qdrant-local:` folder was relative to the folder kenning ran in instead: run from `src/`,
    reads found no store, and the first remember made a second Qdrant store in
    `src/.kenning/qdrant`, splitting the project's notes between two stores."""
    (project / ".env").write_text("KENNING_STORE=qdrant-local:.kenning/qdrant\n")
    with open_store(cwd=project, embedder=minilm) as store:
        first = store.remember("Deploys happen on Tuesdays only", "rule").id
    sub = project / "src"
    sub.mkdir()
    monkeypatch.chdir(sub)
    with open_store(cwd=sub, embedder=minilm) as store:
        assert str(project / ".kenning" / "qdrant") in store.location
        assert [m.id for m in store.newest(5)] == [first]
        assert store.remember("Releases are cut on Mondays", "rule").ok
    assert not (sub / ".kenning").exists()


def test_a_relative_store_from_the_environment_is_the_projects_and_ignored_by_git(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`export KENNING_STORE=.kenning/team.db` (direnv's .envrc exports it as written) was
    taken from the folder kenning ran in: one store per subfolder, the notes split between
    them. And a store given by a relative path, even `--store .kenning/memory.db`, got no
    .gitignore: the database showed in `git status`, one `git add -A` from being
    committed. The environment's relative path is the project's, as .env's is; the option's
    is the shell's (from the folder it runs in), ignored by git when it is in .kenning."""
    monkeypatch.setenv("KENNING_STORE", ".kenning/team.db")
    sub = project / "pkg" / "sub"
    sub.mkdir(parents=True)
    for where, note in ((project, "Deploys happen on Tuesdays only."), (sub, "Cut on Mondays.")):
        r = run_cli(where, "remember", "--type", "rule", note)
        assert r.returncode == 0, r.stderr
    assert not (sub / ".kenning").exists()
    r = run_cli(sub, "stats", "--json")
    assert json.loads(r.stdout)["intel_path"] == str(project / ".kenning" / "team.db")
    assert json.loads(r.stdout)["memories"] == 2
    assert git(project, "status", "--porcelain", "-uall") == ""

    monkeypatch.delenv("KENNING_STORE")
    other = make_repo(project.parent / "other", "git@github.com:acme/other.git")
    r = run_cli(other, "remember", "--store", ".kenning/memory.db", "A note via --store.")
    assert r.returncode == 0, r.stderr
    assert git(other, "status", "--porcelain", "-uall") == ""
    # and one in a folder under .kenning
    third = make_repo(project.parent / "third", "git@github.com:acme/third.git")
    r = run_cli(third, "remember", "--store", ".kenning/team/alt.db", "A note of the team's.")
    assert r.returncode == 0, r.stderr
    assert git(third, "status", "--porcelain", "-uall") == ""


def test_a_file_named_kenning_is_said_to_be_in_the_way(project: Path, minilm: Embedder) -> None:
    """A file named `.kenning` where the store's folder goes: reads and doctor said "no store
    yet; `kenning remember` creates it" (doctor: ok), and remember then failed with "cannot
    create the store folder …: File exists; check that it is writable". Each now names the
    file in the way and the fix."""
    from kenning.doctor import run_doctor
    from kenning.errors import KenningError

    (project / ".kenning").write_text("not a folder\n")
    in_the_way = f"{project / '.kenning'} is a file, not a folder"
    with open_store(cwd=project, embedder=minilm, create=False, missing_ok=True) as store:
        assert in_the_way in (store.missing_reason or ""), store.missing_reason
        assert "`kenning remember` creates it" not in (store.missing_reason or "")
    with pytest.raises(KenningError, match="is a file, not a folder") as refused:
        open_store(cwd=project, embedder=minilm)
    assert "move" in str(refused.value) and "writable" not in str(refused.value)
    check = run_doctor(cwd=project).check("store")
    assert check.status == "failed" and in_the_way in check.message, check
    assert (project / ".kenning").read_text() == "not a folder\n"


def test_the_store_size_counts_the_stores_own_files_only(project: Path, minilm: Embedder) -> None:
    """`kenning stats --json` (store_bytes) and `kenning doctor` ("… bytes with its WAL and the vector and ANN files …")
    summed every file whose name begins with the store's: a copy kept beside it
    (memory.db.bak) or a sync tool's conflicted copy of the vector file made the store look
    twice its size; and a store whose name holds a glob character ([) was not counted."""
    import re

    from kenning.doctor import run_doctor

    def own(db: Path) -> int:
        sides = ("", "-wal", "-shm", ".vectors", ".ann")
        return sum(Path(f"{db}{s}").stat().st_size for s in sides if Path(f"{db}{s}").exists())

    for name in ("memory.db", "memory[1].db"):
        db = project / ".kenning" / name
        with open_store(db, cwd=project, embedder=minilm) as store:
            store.remember("All timestamps are stored in UTC", "rule")
            store.recall("which timezone do we store timestamps in")  # the vector file
        copy = db.with_name(f"{name}.bak")
        copy.write_bytes(db.read_bytes())
        db.with_name(f"{name} (Bob's conflicted copy 2026-12-02).vectors").write_bytes(b"x" * 99)
        with open_store(db, cwd=project, embedder=minilm) as store:
            assert store.stats()["store_bytes"] == own(db), name
        (check,) = [c for c in run_doctor(store_path=db, cwd=project).checks if c.name == "store"]
        shown = re.search(r"\((\d+) bytes with its WAL and the vector and ANN files", check.message)
        assert shown is not None, check.message
        # a -shm doctor's read opened may be gone since; the copy beside it is not counted
        assert db.stat().st_size <= int(shown.group(1)) < own(db) + copy.stat().st_size, name


def test_a_local_qdrant_folder_on_a_read_only_mount_says_why_it_cannot_be_read(
    tmp_path: Path,
) -> None:
    """Qdrant's local mode writes its lock file in the folder even to read, so on a
    read-only mount every read failed with "…: write qdrant-local:<folder> naming a folder
    (a new or a Qdrant one, not a file)", advice for a folder that was fine. It says why,
    and what works instead."""
    env = {"KENNING_EMBEDDER": "hashing"}
    with _tmpfs(tmp_path / "mnt", "16m") as mount:
        project = make_repo(mount / "p")
        env["KENNING_STORE"] = f"qdrant-local:{mount / 'p' / '.kenning' / 'qdrant'}"
        assert run_cli(project, "remember", "Payments retry five times", env=env).returncode == 0
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        r = run_cli(project, "recall", "payments retry", env=env)
        assert r.returncode == 1, (r.stdout, r.stderr)
        (line,) = r.stderr.splitlines()
        assert "must write in its folder even to read it" in line, line
        assert "naming a folder" not in line, line


def test_export_does_not_replace_a_read_only_backup(project: Path) -> None:
    """`kenning export -o backup.jsonl` over a backup made read-only (chmod 444) replaced
    it without a word (a rename needs only the folder's permission), where `>` and cp
    refuse. It refuses too, and the backup is as it was."""
    import os

    assert run_cli(project, "remember", "Deploys happen on Tuesdays only.").returncode == 0
    backup = project / "backup.jsonl"
    backup.write_text("the backup of last week\n")
    os.chmod(backup, 0o444)
    r = _kenning_as_a_user(project, "export", "-o", str(backup))
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert f"cannot write {backup}: it is read-only" in line, line
    assert backup.read_text() == "the backup of last week\n"
    assert sorted(p.name for p in project.iterdir() if p.name.startswith("backup")) == [
        "backup.jsonl"
    ]
    # root may write any file; a file no one may write is kept from root's export too
    r = run_cli(project, "export", "-o", str(backup))
    assert r.returncode == 1 and "it is read-only" in r.stderr, r.stderr
    assert backup.read_text() == "the backup of last week\n"


def test_doctor_reads_a_symlinked_store_where_its_file_is(project: Path) -> None:
    """qa-s68c S2: `.kenning/memory.db` a link to a store in a folder this user may write,
    `.kenning/` itself not: remember stored (SQLite writes the -wal and -shm beside the file
    the link names) while doctor said "can be read but not written", asking the link's
    folder."""
    import os

    data = project / "data"
    data.mkdir()
    with open_store(data / "memory.db", embedder="hashing") as store:
        store.remember("Deploys happen on Tuesdays only", "rule")
    folder = project / ".kenning"
    folder.mkdir(exist_ok=True)
    (folder / "memory.db").symlink_to(Path("..") / "data" / "memory.db")
    for path in (data, *data.iterdir()):
        os.chmod(path, 0o777)  # (the other user's to write)

    def kenning(*args: str) -> CliRun:
        env = {**os.environ, "KENNING_EMBEDDER": "hashing"}
        return _kenning_as_a_user(project, *args, env=env)

    os.chmod(folder, 0o555)
    try:
        stored = kenning("remember", "--type", "rule", "Releases are cut on Mondays")
        assert stored.returncode == 0, stored.stderr
        doctor = kenning("doctor")
        assert "can be read but not written" not in doctor.stdout, doctor.stdout
        # the link's folder is read-only, the store's is not: nothing is "written in place"
        assert "written in place" not in doctor.stdout, doctor.stdout
        assert "\nok      store:" in doctor.stdout, doctor.stdout
    finally:
        os.chmod(folder, 0o755)


def test_doctor_gives_the_guards_cause_for_a_symlinked_store_outside_the_project(
    tmp_path: Path,
) -> None:
    """qa-s68c S2 (S1.out): `.kenning/memory.db` a link, in a folder this user cannot
    write, to a writable store outside the project: the store-location guard refuses every
    write (the location check says so), and the store check said beside it "its folder or
    file is read-only", a second, wrong cause and fix. It names the guard now."""
    import os

    project = make_repo(tmp_path / "p")
    elsewhere = make_repo(tmp_path / "other") / ".kenning"  # another project's store
    with open_store(cwd=elsewhere.parent, embedder="hashing") as store:
        store.remember("Deploys happen on Tuesdays only", "rule")
    folder = project / ".kenning"
    folder.mkdir()
    (folder / "memory.db").symlink_to(elsewhere / "memory.db")
    for path in (elsewhere, *elsewhere.iterdir()):
        os.chmod(path, 0o777)  # (the other user's to write)

    def kenning(*args: str) -> CliRun:
        env = {**os.environ, "KENNING_EMBEDDER": "hashing"}
        return _kenning_as_a_user(project, *args, env=env)

    os.chmod(folder, 0o555)
    try:
        refused = kenning("remember", "--type", "rule", "Releases are cut on Mondays")
        assert refused.returncode == 1 and "outside the project root" in refused.stderr
        doctor = kenning("doctor")
        lines = doctor.stdout.splitlines()
        (location,) = [x for x in lines if " location:" in x]
        assert location.startswith("failed") and "outside the project root" in location
        (store,) = [x for x in lines if " store:" in x]
        assert store.startswith("ok") and "store-location guard" in store, doctor.stdout
        assert "read-only" not in doctor.stdout and "in place" not in doctor.stdout
    finally:
        os.chmod(folder, 0o755)


def test_doctor_says_what_a_write_does_in_a_read_only_folder_of_writable_files(
    project: Path,
) -> None:
    """qa-s67c F3: a store whose folder is read-only but whose memory.db, -wal and -shm can
    be written while another process holds it open: remember stores (SQLite writes the
    three in place), and the ui offered edits, but doctor said "can be read but not written
    … remember, forget and import fail". The write's truth wins: doctor says the store is
    written in place, and what the folder still costs. Once the -wal and -shm are gone, a
    write would have to create them: then both say read-only."""
    import os
    import sqlite3

    with open_store(cwd=project, embedder="hashing") as store:
        store.remember("Deploys happen on Tuesdays only", "rule")
    folder = project / ".kenning"
    db = folder / "memory.db"

    def kenning(*args: str) -> CliRun:
        env = {**os.environ, "KENNING_EMBEDDER": "hashing"}
        return _kenning_as_a_user(project, *args, env=env)

    holder = sqlite3.connect(db)  # another process's (an MCP server's, the ui's) open store
    holder.execute("SELECT count(*) FROM memories").fetchone()
    assert (folder / "memory.db-wal").exists() and (folder / "memory.db-shm").exists()
    os.chmod(folder, 0o555)
    try:
        stored = kenning("remember", "--type", "rule", "Releases are cut on Mondays")
        assert stored.returncode == 0, stored.stderr  # the write's truth
        doctor = kenning("doctor")
        assert doctor.returncode == 0, doctor.stdout
        assert "can be read but not written" not in doctor.stdout, doctor.stdout
        (line,) = [x for x in doctor.stdout.splitlines() if x.startswith("warning store:")]
        assert "is written in place" in line and "remember, edit, forget and import work" in line
        assert f"fix: make {folder} writable" in doctor.stdout
        holder.close()  # (with the rights to, SQLite removes the -wal and -shm)
        assert not (folder / "memory.db-wal").exists()
        refused = kenning("remember", "--type", "rule", "Hotfixes skip the release train")
        assert refused.returncode == 1 and "read-only" in refused.stderr, refused.stderr
        doctor = kenning("doctor")
        assert "can be read but not written" in doctor.stdout, doctor.stdout
    finally:
        holder.close()
        os.chmod(folder, 0o755)


@pytest.mark.parametrize("where", ["read-only folder", "read-only mount"])
def test_a_wal_without_its_shm_is_read_and_what_it_holds_is_said_missing(
    tmp_path: Path, where: str
) -> None:
    """qa-s68b F7: a store whose -wal is there without its -shm (a copy or backup that left
    the -shm out), where the -shm cannot be created. In a read-only folder every command,
    reads too, failed "unable to open database file", and doctor called the healthy store
    damaged ("move it aside … restore from a backup"); on a read-only mount it was read as
    an immutable file without the -wal: its notes silently missing. Both are read now as
    far as SQLite can (the store as of its last checkpoint), every command and doctor say
    which file holds the writes not read and how to get them back, and a write says what to
    make writable; opened once where the folder can be written, the notes are back."""
    import os

    with _tmpfs(tmp_path / "mnt", "16m") as mount:
        project = make_repo(mount / "p")
        env = {**os.environ, "KENNING_EMBEDDER": "hashing"}
        with open_store(cwd=project, embedder="hashing") as store:
            store.remember("Deploys happen on Tuesdays only", "rule")
        # a writer killed after its write: no checkpoint, the note in the -wal
        _as_a_killed_writer_leaves_it(
            project, lambda s: s.remember("Staging passwords rotate every quarter", "rule")
        )
        folder = project / ".kenning"
        wal = folder / "memory.db-wal"
        assert wal.stat().st_size > 32
        (folder / "memory.db-shm").unlink()  # as a backup tool leaves the copy
        if where == "read-only mount":
            subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        else:
            os.chmod(folder, 0o555)

        def kenning(*args: str) -> CliRun:
            return _kenning_as_a_user(project, *args, env=env)

        try:
            listed = kenning("export", "-o", "-")
            assert listed.returncode == 0, listed.stderr
            assert "Deploys happen on Tuesdays only" in listed.stdout
            assert "Staging passwords rotate every quarter" not in listed.stdout  # in the -wal
            said = [x for x in listed.stderr.splitlines() if str(wal) in x]
            assert len(said) == 1 and "not read here" in said[0], listed.stderr
            assert "not damaged" in said[0] and f"make {folder} writable" in said[0], said
            refused = kenning("remember", "--type", "rule", "Hotfixes skip the train")
            assert refused.returncode == 1, refused.stderr
            assert "unable to open" not in refused.stderr and "writable" in refused.stderr
            doctor = kenning("doctor")
            assert doctor.returncode == 0, doctor.stdout
            (line,) = [x for x in doctor.stdout.splitlines() if x.startswith("warning store:")]
            assert "not whole" in line and str(wal) in line, line
            assert "aside" not in doctor.stdout and "failed" not in doctor.stdout, doctor.stdout
        finally:
            if where == "read-only mount":
                subprocess.run(["mount", "-o", "remount,rw", str(mount)], check=True)
            os.chmod(folder, 0o755)
        listed = kenning("export", "-o", "-")  # opened once where it can be written
        assert "Staging passwords rotate every quarter" in listed.stdout, listed.stdout
        assert str(wal) not in listed.stderr, listed.stderr


@pytest.mark.parametrize("kind", ["sqlite", "qdrant-local"])
def test_the_guards_fix_for_a_store_linked_out_of_the_project_keeps_its_memories(
    tmp_path: Path, kind: str
) -> None:
    """qa-s69b F6, qa-s69c F5: the store-location guard's fix for a store linked out of the
    project was "remove the symlink" (or, of a Qdrant local-mode folder, "point … at a folder
    inside"): done, the project started a new, empty store and its memories stayed where the
    link led. The fix it gives now, followed as written, brings them in."""
    import shlex
    import shutil

    project = make_repo(tmp_path / "p")
    env = {"KENNING_EMBEDDER": "hashing"}
    if kind == "qdrant-local":
        env["KENNING_STORE"] = "qdrant-local:.kenning/qdrant"
    stored = run_cli(
        project, "remember", "--type", "rule", "Deploys happen on Tuesdays only", env=env
    )
    assert stored.returncode == 0, stored.stderr
    linked = project / ".kenning" / "qdrant" if kind == "qdrant-local" else project / ".kenning"
    elsewhere = tmp_path / "kept" / linked.name
    elsewhere.parent.mkdir()
    shutil.move(linked, elsewhere)  # (moved out, and linked)
    linked.symlink_to(elsewhere)
    refused = run_cli(project, "remember", "--type", "rule", "Releases on Mondays", env=env)
    assert refused.returncode == 1 and "outside the project root" in refused.stderr
    assert "kenning export --store" in refused.stderr, refused.stderr
    doctor = run_cli(project, "doctor", env=env).stdout
    assert "kenning export --store" in doctor and "remove the link" in doctor, doctor
    # the fix as it is written: export, remove the link, import, delete the export
    said = refused.stderr[refused.stderr.index("`kenning export") :]
    export, imported = said.split("`")[1::2][:2]
    assert run_cli(project, *shlex.split(export)[1:], env=env).returncode == 0
    linked.unlink()
    assert run_cli(project, *shlex.split(imported)[1:], env=env).returncode == 0
    recalled = run_cli(project, "search", "when do deploys happen", "--json", env=env)
    assert "Tuesdays" in recalled.stdout, recalled.stdout
    assert not linked.is_symlink() and "then delete memories.jsonl" in refused.stderr


@pytest.mark.parametrize("mode", [0, 0o644], ids=["000", "644"])
def test_a_repository_this_user_cannot_read_is_said_as_such(project: Path, mode: int) -> None:
    """A checkout whose .git/objects this user may not read (copied as another user, a
    chmod gone wrong) is no repository to git, and kenning said "… is not inside a git
    repository … (or `git init`)", whose advice makes a second repository. The hook and the
    CLI now say which repository cannot be read and how to fix it; the hook still ends well
    (exit 0, one line on stderr). So too for one that may be listed and not searched (mode
    644: git asks for both), which the check let through. Run as a user without root's
    file rights."""
    import os

    from .test_hooks import hook_here

    objects = project / ".git" / "objects"
    session = json.dumps({"cwd": str(project), "hook_event_name": "SessionStart"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    objects.chmod(mode)
    try:
        with as_a_user():
            hook = hook_here("session-start", session.encode("utf-8"), project)
        cli = _kenning_as_a_user(project, "recall", "why UTC", env=env)
    finally:
        objects.chmod(0o755)
    said = (
        f"{project} holds a git repository this user cannot read (Permission denied: {objects}),"
        " so git sees no repository there and kenning cannot tell which project this is; give "
        "this user read access to its .git folder (as its owner: chmod -R u+rwX "
        f"{project / '.git'}), or run kenning as the user who owns it"
    )
    assert hook.returncode == 0, hook.stderr
    (line,) = hook.stderr.splitlines()  # (its long temp paths shortened in the middle)
    assert line.startswith("kenning hook session-start: /"), line
    assert " holds a git repository this user cannot read (Permission denied: /" in line
    assert line.endswith("/.git), or run kenning as the user who owns it"), line
    assert "not inside a git repository" not in hook.stderr
    assert cli.returncode == 1, (cli.stdout, cli.stderr)
    assert said in " ".join(cli.stderr.split()), cli.stderr


def test_every_place_that_finds_no_checkout_says_an_unreadable_repository_as_such(
    project: Path, tmp_path: Path
) -> None:
    """Project detection said a repository this user cannot read as such (9bab379), but the
    places that asked git for the checkout themselves still said "not inside a git
    repository" (or served another folder): `kenning source PATH` without --project-dir,
    the installer's note, and the MCP server and the hooks given it as CLAUDE_PROJECT_DIR
    while their working folder is another checkout (they served that one's notes). Each now
    says project detection's words (project.repository_refused). Run as a user without
    root's file rights."""
    import os

    import anyio
    from mcp import Client

    from kenning.mcp_server import KenningTools, build_server

    from .test_hooks import hook_here

    other = make_repo(tmp_path / "other")
    objects = project / ".git" / "objects"
    said = f"{project} holds a git repository this user cannot read (Permission denied: {objects})"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    env.pop("CLAUDE_PROJECT_DIR", None)

    async def recall_over_mcp() -> str:
        # the server `kenning mcp` builds, started in another checkout with Claude Code's
        # variable naming this one, in this process (its stdio is tested in test_mcp.py; a
        # server process of its own was ~0.6 CPU-s)
        tools = KenningTools(None)
        try:
            async with Client(build_server(tools)) as client:
                answer = await client.call_tool("hooks_recall", {"query": "why UTC timestamps"})
                return " ".join(c.text for c in answer.content if c.type == "text")
        finally:
            tools.close()

    prompt = json.dumps({"cwd": str(other), "hook_event_name": "SessionStart", "session_id": "s1"})
    objects.chmod(0)
    try:
        source = _kenning_as_a_user(project, "source", "docs/deploy.md", env=env)
        install = _kenning_as_a_user(
            project, "install", "claude-code", "--scope", "project", "--dry-run", env=env
        )
        with pytest.MonkeyPatch.context() as mp, as_a_user():
            mp.chdir(other)
            mp.setenv("CLAUDE_PROJECT_DIR", str(project))
            mcp = anyio.run(recall_over_mcp)
        with as_a_user():
            hook = hook_here(
                "session-start", prompt.encode("utf-8"), other, {"CLAUDE_PROJECT_DIR": str(project)}
            )
    finally:
        objects.chmod(0o755)
    assert source.returncode == 1, (source.stdout, source.stderr)
    assert said in " ".join(source.stderr.split()), source.stderr
    assert install.returncode == 0, install.stderr
    assert said in " ".join(install.stdout.split() + install.stderr.split()), install.stdout
    assert said in " ".join(mcp.split()), mcp
    assert hook.returncode == 0, hook.stderr
    assert "holds a git repository this user cannot read" in hook.stderr, hook.stderr
    for text in (source.stderr, install.stdout, install.stderr, mcp, hook.stderr):
        assert "not inside a git repository" not in text, text


@pytest.mark.parametrize("name", ["data/team.db", "data/team [1].db"])
def test_a_store_elsewhere_in_the_checkout_is_said_not_ignored_by_git_with_the_line_to_add(
    project: Path, name: str
) -> None:
    """QA F9: kenning ignores its own `.kenning/` in git, but a store named elsewhere inside
    the checkout (`KENNING_STORE=data/team.db` in .env: allowed) was said nowhere: `git
    status` listed data/, and `git add -A` committed the team's notes with their -wal and
    -shm. kenning writes no .gitignore in a folder of the user's; the command that creates
    the store says so once, with the line that ignores it (a name with `[` escaped), and
    `kenning doctor` warns while it lasts (exit 0); once ignored, neither says it."""
    (project / ".gitignore").write_text(".env\n")
    (project / ".env").write_text(f"KENNING_STORE={name}\n")
    line = "/" + name.replace("[", "\\[") + "*"
    warning = (
        f"kenning: the store {name} is not ignored by git: `git status` lists it and `git add "
        "-A` would commit the notes (its -wal and -shm files with it); share memories with "
        f"`kenning export`; add the line {line} to {project / '.gitignore'} (or to "
        ".git/info/exclude, for this clone only)"
    )
    first = run_cli(project, "remember", "--type", "rule", "Deploys happen on Tuesdays only.")
    assert first.returncode == 0 and warning in first.stderr.splitlines(), first.stderr
    assert (project / name).is_file()
    again = run_cli(project, "remember", "--type", "rule", "Releases are cut on Mondays.")
    assert again.returncode == 0 and "not ignored" not in again.stderr, again.stderr  # once
    assert "?? data/" in git(project, "status", "--porcelain")  # what it said
    doctor = run_cli(project, "doctor", "--json")
    assert doctor.returncode == 0, doctor.stderr
    (location,) = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "location"]
    assert location["status"] == "warning", location
    assert location["message"].endswith(
        f"but the store {name} is not ignored by git: `git status` lists it and `git add -A` "
        "would commit the notes (its -wal and -shm files with it); share memories with "
        "`kenning export`"
    ), location
    assert location["fix"].startswith(f"add the line {line} to"), location
    with (project / ".gitignore").open("a") as out:
        out.write(line + "\n")  # the line as said
    assert git(project, "status", "--porcelain", "-uall") == "?? .gitignore\n"
    for suffix in ("", "-wal", "-shm", ".vectors", ".ann"):
        assert ignored(project, name + suffix)
    doctor = run_cli(project, "doctor", "--json")
    (location,) = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "location"]
    assert location["status"] == "ok", location


def test_a_store_whose_wal_git_does_not_ignore_is_said_and_a_tracked_one_too(
    project: Path, minilm: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """`*.db` in .gitignore ignores the store file but not its -wal and -shm, which hold
    the latest notes: still said. A store git tracks (committed once) is not fixed by an
    ignore line: the fix untracks it first. The default store, in .kenning/, is not said."""
    from kenning.project import unignored_store

    (project / ".gitignore").write_text("*.db\n")
    with caplog.at_level("WARNING"), open_store("data/team.db", cwd=project, embedder=minilm) as s:
        assert s.remember("Deploys happen on Tuesdays only", "rule").ok
        found = unignored_store(s.project)
    assert found is not None and not found.tracked and found.line == "/data/team.db*", found
    assert [r.getMessage() for r in caplog.records if "not ignored" in r.getMessage()] == [
        f"kenning: {found.message}; {found.fix}"
    ]
    git(project, "add", "-f", "data/team.db")
    with open_store("data/team.db", cwd=project, embedder=minilm) as s:
        found = unignored_store(s.project)
    assert found is not None and found.tracked, found
    assert found.fix.startswith("`git rm -r --cached data/team.db` (the files stay), then add")
    assert "is tracked by git" in found.message
    caplog.clear()
    with caplog.at_level("WARNING"), open_store(cwd=project, embedder=minilm) as s:
        assert s.remember("Deploys happen on Tuesdays only", "rule").ok
        assert unignored_store(s.project) is None
    assert not [r for r in caplog.records if "ignored" in r.getMessage()]


def test_a_qdrant_local_folder_elsewhere_in_the_checkout_is_said_not_ignored(
    project: Path, minilm: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """A `qdrant-local:` folder inside the checkout but not in .kenning/: Qdrant's
    storage.sqlite, meta.json and lock file showed in `git status`. Said once at its
    creation with the line that ignores the folder; doctor warns until it is ignored."""
    from kenning.doctor import run_doctor

    with caplog.at_level("WARNING"):
        with open_store("qdrant-local:data/qdrant", cwd=project, embedder=minilm) as s:
            assert s.remember("Deploys happen on Tuesdays only", "rule").ok
        with open_store("qdrant-local:data/qdrant", cwd=project, embedder=minilm) as s:
            assert s.remember("Releases are cut on Mondays", "rule").ok
    said = [r.getMessage() for r in caplog.records if "not ignored" in r.getMessage()]
    assert said == [
        "kenning: the Qdrant store folder data/qdrant is not ignored by git: `git status` "
        "lists it and `git add -A` would commit the notes (its files); share memories with "
        f"`kenning export`; add the line /data/qdrant/ to {project / '.gitignore'} (or to "
        ".git/info/exclude, for this clone only)"
    ], said
    location = run_doctor("qdrant-local:data/qdrant", cwd=project).check("location")
    assert location.status == "warning" and location.fix is not None, location
    assert location.fix.startswith("add the line /data/qdrant/ to"), location
    (project / ".gitignore").write_text("/data/qdrant/\n")
    assert git(project, "status", "--porcelain", "-uall") == "?? .gitignore\n"
    assert run_doctor("qdrant-local:data/qdrant", cwd=project).check("location").status == "ok"


def test_a_migration_into_a_store_elsewhere_in_the_checkout_says_it_is_not_ignored(
    project: Path,
) -> None:
    """`kenning migrate --to data/team.db` makes a store as a first remember does: said once
    that git does not ignore it, with the line; a second run into it does not say it."""
    r = run_cli(project, "remember", "--type", "rule", "Deploys happen on Tuesdays only.")
    assert r.returncode == 0 and "ignored" not in r.stderr, r.stderr  # .kenning/: its own
    first = run_cli(project, "migrate", "--to", "data/team.db")
    assert first.returncode == 0, first.stderr
    assert (
        "kenning: the store data/team.db is not ignored by git: `git status` lists it"
    ) in first.stderr and "add the line /data/team.db* to" in first.stderr, first.stderr
    again = run_cli(project, "migrate", "--to", "data/team.db")
    assert again.returncode == 0 and "not ignored" not in again.stderr, again.stderr


@pytest.mark.parametrize(
    "target", ["{project}/.kenning/memory.db", ".kenning/big.db", "qdrant-local:.kenning/q"]
)
def test_a_migration_into_a_new_store_in_kenning_s_folder_gets_its_gitignore(
    project: Path, tmp_path: Path, target: str
) -> None:
    """qa78 F3: `kenning migrate --to <checkout>/.kenning/memory.db` (a new store, the
    source another clone's) wrote no .kenning/.gitignore, which remember and import write
    as they make a store: `git status` listed .kenning/ (`git add -A` would commit the
    notes), migrate itself said the store was not ignored by git and to edit .gitignore,
    and the next read wrote the ignore file silently. The target gets it as it is made
    (project.keep_store_out_of_git, open_store's own), and nothing is said."""
    from kenning.project import STORE_GITIGNORE

    clone = make_repo(tmp_path / "clone", remote=PROJECT_REMOTE)
    stored = run_cli(clone, "remember", "--type", "rule", "Deploys happen on Tuesdays only.")
    assert stored.returncode == 0, stored.stderr
    source = str(clone / ".kenning" / "memory.db")
    to = target.format(project=project)
    moved = run_cli(project, "migrate", "--json", "--store", source, "--to", to)
    assert moved.returncode == 0, moved.stderr
    assert json.loads(moved.stdout)["copied"] == 1, moved.stdout
    assert "ignored" not in moved.stderr and ".gitignore" not in moved.stderr, moved.stderr
    assert (project / ".kenning" / ".gitignore").read_text() == STORE_GITIGNORE
    assert git(project, "status", "--porcelain", "-uall") == ""
