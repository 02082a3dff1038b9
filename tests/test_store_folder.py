"""The project's ``.kenning`` folder in git: the store and the files beside it are ignored
(they are this machine's data, shared with `kenning export`), the settings file is not, a
``.gitignore`` the user wrote there is kept, and a store put elsewhere gets none. Real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kenning import open_store
from kenning.embedders.base import Embedder

from .conftest import git


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
