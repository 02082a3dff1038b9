"""Writes to a disk that refuses them (full, failing, or over a file size limit): one clear
line and the store as it was, or the write done — never a traceback, never an error that
hides the real one ("no transaction is active", "no such savepoint").

The refusal is a real one: each command runs (in this process, with click's CliRunner)
while RLIMIT_FSIZE stops its files growing past a limit (Python ignores SIGXFSZ, so the
write fails with EFBIG, which SQLite reports as a disk I/O error, as it does a full disk);
the limit the process had is back after the command.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from kenning import open_store
from kenning.store import NewMemory

from ..cli_runner import CliRun, run_cli
from ..conftest import make_repo
from ..test_vectorfile import files_limited_to

HIDING = ("Traceback", "no transaction is active", "no such savepoint")


def kenning_limited(root: Path, limit: int, *args: str) -> CliRun:
    """``kenning *args`` in ``root``, no file of this process growing past ``limit`` bytes
    meanwhile (a process of its own for each command was ~0.27 CPU-s)."""
    with files_limited_to(limit):
        return run_cli(root, *args, env={"KENNING_EMBEDDER": "hashing"})


def count(root: Path) -> int:
    with open_store(cwd=root, embedder="hashing") as store:
        return store.count()


@pytest.fixture(scope="module")
def full_store_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = make_repo(tmp_path_factory.mktemp("disk_full") / "p")
    with open_store(cwd=root, embedder="hashing") as store:
        results = store.remember_many(
            [
                NewMemory(
                    f"note {i}: the cache worker {i * 7} retries after timeout {i}", "context"
                )
                for i in range(300)
            ]
        )
    return root, [r.id for r in results if r.id]


@pytest.fixture
def full_store(
    tmp_path: Path, full_store_template: tuple[Path, list[str]]
) -> tuple[Path, list[str]]:
    """A copy of the module's store (same folder name, so the same project): writing 300
    notes once instead of once a test; each test's refused writes land in a store of its own."""
    template, ids = full_store_template
    root = tmp_path / template.name
    shutil.copytree(template, root, symlinks=True)
    return root.resolve(), ids


@pytest.mark.parametrize("limit", [40_000, 100_000])
def test_forget_and_remember_on_a_refusing_disk(
    full_store: tuple[Path, list[str]], limit: int
) -> None:
    root, ids = full_store
    outcomes = []
    for args, change in (
        (("forget", ids[5]), -1),
        (("remember", "a brand new note about deploys on tuesdays"), +1),
    ):
        before = count(root)
        done = kenning_limited(root, limit, *args)
        assert not [h for h in HIDING if h in done.stderr], done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        if done.returncode == 1:
            assert len(errors) == 1 and "disk" in errors[0], done.stderr
            assert count(root) == before  # nothing changed
        else:
            assert done.returncode == 0 and not errors, done.stderr
            assert count(root) == before + change
        outcomes.append(done.returncode)
    if limit == 40_000:
        assert outcomes == [1, 1], outcomes  # too small for either write: refused cleanly


def test_an_import_the_disk_stops_says_so(
    full_store: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, _ = full_store
    export = tmp_path / "all.jsonl"
    with open_store(cwd=root, embedder="hashing") as store, export.open("w") as out:
        from kenning.transfer import export_memories

        export_memories(store, out, vectors=False)
    target = make_repo(tmp_path / "q")
    done = kenning_limited(target, 500_000, "import", "--json", str(export))
    assert done.returncode == 1 and not [h for h in HIDING if h in done.stderr], done.stderr
    stopped = json.loads(done.stdout)  # the report still comes, with what was not written
    assert stopped["not_written"] > 0 and "disk" in stopped["not_written_reason"]
    assert stopped["imported"] + stopped["not_written"] == 300
    assert stopped["imported"] == count(target)
    assert "run the same import again" in done.stderr
    rerun = kenning_limited(target, 1 << 40, "import", "--json", str(export))
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["imported"] + report["duplicates"] == 300 and report["not_written"] == 0


def test_an_import_a_store_refuses_is_not_called_unwritten(
    full_store: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """Only a disk's refusal makes "not written, run it again": a store that refuses the
    import itself (half re-embedded) says so, and running it again would not help."""
    from kenning.errors import ProvenanceMismatch
    from kenning.reembed import REEMBED_STATE_KEY
    from kenning.transfer import export_memories, import_memories

    root, _ = full_store
    with open_store(cwd=root, embedder="hashing") as store:
        lines = io.StringIO()
        export_memories(store, lines, vectors=False)
    target = make_repo(tmp_path / "q")
    with open_store(cwd=target, embedder="hashing") as store:
        store.remember("a note before the re-embedding began", "context")
        store.backend.set_meta(REEMBED_STATE_KEY, "{}")
        with pytest.raises(ProvenanceMismatch, match="half re-embedded"):
            import_memories(store, lines.getvalue().splitlines())


def test_an_import_of_one_note_the_disk_stops_counts_it_in_the_singular(
    full_store: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """A one-note import the disk refused said '1 memories were not written'."""
    root, _ = full_store
    one = tmp_path / "one.jsonl"
    with open_store(cwd=make_repo(tmp_path / "q"), embedder="hashing") as other:
        other.remember("a brand new note about deploys on tuesdays", "context")
        with one.open("w") as out:
            from kenning.transfer import export_memories

            export_memories(other, out, vectors=False)
    done = kenning_limited(root, 40_000, "import", str(one))
    assert done.returncode == 1 and not [h for h in HIDING if h in done.stderr], done.stderr
    assert "error: 1 memory was not written: " in done.stderr
    assert "run the same import again to add it (" in done.stderr, done.stderr
