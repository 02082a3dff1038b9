"""``kenning source PATH``: the check the memory-query skill runs before reading a SOURCE:
path from a recalled memory (the rules themselves are tested in test_safety.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning.cli import main

from .conftest import git


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["source", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_project_file_resolves(project: Path) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "db.md").write_text("fix\n")
    code, out, _ = run("docs/db.md")
    assert code == 0 and out.strip() == str(project / "docs" / "db.md")
    code, out, _ = run("--json", "docs/db.md")
    assert json.loads(out) == {
        "path": "docs/db.md",
        "ok": True,
        "resolved": str(project / "docs/db.md"),
    }


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute path"),
        ("../outside.md", "'..'"),
        ("~/notes.md", "~"),
        ("docs/a.md\nrm -rf /", "line break"),
        ("docs/leak.md", "resolves outside"),
    ],
)
def test_unsafe_paths_fail_closed(project: Path, tmp_path: Path, path: str, reason: str) -> None:
    (project / "docs").mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("key\n")
    (project / "docs" / "leak.md").symlink_to(secret)
    code, out, err = run(path)
    assert code == 1 and out == ""
    assert reason in err and "do not read it" in err
    code, out, _ = run("--json", path)
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and reason in data["reason"]


#: The start of a PNG file: NUL bytes in its header.
PNG_START = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "a folder"),
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: p.write_bytes(PNG_START), "a binary file"),
    ],
    ids=["missing", "folder", "named-pipe", "binary"],
)
def test_a_path_no_tool_can_read_as_a_document_is_refused(
    project: Path, make: Any, reason: str
) -> None:
    """The command prints the path to read: it printed one for a file that is not there, a
    folder, and a named pipe (exit 0), so the agent's read failed — or, on the pipe, waited
    for a writer for ever; and a binary file, which read_source refuses. Each is refused
    with the reason (exit 1), and none is called an unsafe path: each is safe, with nothing
    to read."""
    (project / "docs").mkdir()
    make(project / "docs" / "db.md")
    code, out, err = run("docs/db.md")
    assert code == 1 and out == "" and reason in err, (code, out, err)
    assert "unsafe" not in err, err
    code, out, _ = run("--json", "docs/db.md")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and reason in data["reason"]


def test_paths_are_relative_to_the_worktree(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(worktree))
    monkeypatch.chdir(worktree)
    code, out, _ = run("README.md")
    assert code == 0 and out.strip() == str(worktree.resolve() / "README.md")


def test_outside_git_needs_a_project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("a.md")
    assert code == 1 and "--project-dir" in err
    (tmp_path / "a.md").write_text("x")
    code, out, _ = run("--project-dir", str(tmp_path), "a.md")
    assert code == 0 and out.strip() == str(tmp_path.resolve() / "a.md")


@pytest.mark.parametrize(
    "name",
    ["x\x1b]0;PWNED\x07\x1b[31mred.md", "a\nerror: fake.md", "doc\u202emd.exe"],
    ids=["escape-sequences", "line-break", "bidi-override"],
)
def test_a_symlink_to_a_name_a_terminal_obeys_is_refused(project: Path, name: str) -> None:
    """The path as written is clean, but a symlink leads to a file whose name holds an
    escape sequence (a window title, colours, a clipboard write), a line break or a bidi
    override: the printed path drove the reader's terminal, or was another path than the
    one read. What a symlink resolves to is held to the path rules' character checks."""
    (project / "docs").mkdir()
    (project / "docs" / name).write_text("fix\n")
    (project / "docs" / "guide.md").symlink_to(name)
    code, out, err = run("docs/guide.md")
    assert code == 1 and out == "", (code, out)
    assert "\x1b" not in err and "\u202e" not in err and "do not read it" in err
    code, out, _ = run("--json", "docs/guide.md")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and "leads to" in data["reason"], data


NEVER_THERE = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode | "
    "SOURCE: docs/solutions/never-written.md"
)


def test_a_document_that_is_not_there_is_called_missing_not_unsafe(
    project: Path, minilm: Any
) -> None:
    """A memory whose SOURCE: names a file that never existed was "unsafe source path …:
    no such file (moved or deleted since? `kenning stale` lists such memories)": nothing
    about it is unsafe, and `kenning stale` lists no memory whose file never existed (only
    files there when it was written are recorded). It is called missing, with what to do."""
    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember(NEVER_THERE, "error_fix").id or ""
    code, out, err = run(memory_id)
    assert code == 1 and out == "", (code, out, err)
    (line,) = err.splitlines()
    assert "unsafe" not in line and "kenning stale" not in line, line
    assert "missing source document 'docs/solutions/never-written.md'" in line, line
    assert f"kenning edit {memory_id} --content" in line and "create" in line, line
    code, out, err = run("docs/solutions/never-written.md")
    assert code == 1 and "unsafe" not in err and "missing source document" in err, err
    assert "create" in err and "kenning edit" in err, err
    code, out, _ = run("--json", memory_id)
    data = json.loads(out)
    assert data["ok"] is False and "no such file" in data["reason"], data
    assert "kenning stale" not in data["reason"], data
    code, _, err = run("../outside.md")  # a real refusal is still called unsafe
    assert code == 1 and "unsafe source path" in err, err
    # a --source no command changes (edit takes the text and the type): the fix named is
    # one that works, where "correct memory ID, whose source field names it" was not
    with open_store(cwd=project, embedder=minilm) as store:
        sourced = store.remember(
            "The retry helper wraps every upload", "context", source="src/old.py"
        )
    code, _, err = run(sourced.id or "")
    assert code == 1 and f"kenning forget {sourced.id}" in err and "--source" in err, err
    # a name longer than a file's can be names no file either: it was "cannot be checked
    # (OSError)" at the top, and "cannot be read (File name too long)" below a folder
    for path in ("a" * 300 + ".md", "docs/" + "a" * 300 + ".md", "docs/" + "b/" * 3000 + "c.md"):
        code, _, err = run(path)
        assert code == 1 and "unsafe" not in err and "missing source document" in err, err


def test_a_seeded_entry_whose_document_is_not_in_the_project_is_not_to_be_forgotten(
    project: Path, tmp_path: Path, minilm: Any
) -> None:
    """qa-s64a S2: an entry seeded from a solutions folder outside the project names its
    document under the folder's own name, no file of the project; `kenning source` advised
    forgetting it and remembering it again with --source, which takes it out of the seeding's
    updates (the next seed-solutions wrote the document's entry again beside it). It says
    where the entry came from and what to do instead."""
    from kenning import open_store
    from kenning.seeding import seed_solutions

    outside = tmp_path / "shared_docs" / "net"
    outside.mkdir(parents=True)
    (outside / "refused.md").write_text(
        "---\ntitle: Conn refused\ntrack: bug\n---\n\n## Error\n\n```\n"
        "ConnectionRefusedError: [Errno 111] Connection refused\n```\n\n## Fix\n\n"
        "Start the local redis with docker compose up redis.\n"
    )
    with open_store(cwd=project, embedder=minilm) as store:
        assert seed_solutions(store, outside.parent).seeded == 1
        (memory,) = store.newest(1)
    assert memory.source == "shared_docs/net/refused.md"
    code, out, err = run(memory.id)
    assert code == 1 and out == "", (code, out, err)
    assert "missing source document 'shared_docs/net/refused.md'" in err, err
    assert "seed-solutions" in err and "outside the project" in err, err
    # (seeding again under another --source-prefix wrote a second entry beside it: qa-s64c
    # U2); forgetting it is the fix of a document removed, which no seeding writes again
    assert "--source-prefix" not in err and f"kenning forget {memory.id}`" in err, err
    assert "would not keep the next seeding from writing it again" in err, err


@pytest.mark.parametrize(
    ("make", "found"),
    [
        (lambda p: p.mkdir(), "is a folder, not a file"),
        (lambda p: p.write_bytes(PNG_START), "is a binary file"),
    ],
    ids=["folder", "binary"],
)
def test_a_memory_naming_a_folder_or_a_binary_file_says_what_it_found_and_what_to_do(
    project: Path, minilm: Any, make: Any, found: str
) -> None:
    """A memory whose SOURCE: names a folder or a binary file is not unsafe: it names no
    document. The refusal says which it found and how to correct the memory (exit 1);
    read_source refuses the same file as it does (a binary file was printed, exit 0)."""
    from kenning import open_store

    (project / "docs").mkdir()
    make(project / "docs" / "guide")
    text = "ERROR-FIX: build fails on docs | FIX: see the guide | SOURCE: docs/guide"
    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember(text, "error_fix").id or ""
    code, out, err = run(memory_id)
    assert code == 1 and out == "", (code, out, err)
    (line,) = err.splitlines()
    assert f"not a document: 'docs/guide' {found}" in line and "unsafe" not in line, line
    assert f"correct memory {memory_id}'s SOURCE: part with `kenning edit {memory_id}" in line
    code, out, err = run("--json", memory_id)
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and found.removeprefix("is ") in data["reason"]
    assert "unsafe" not in err and "kenning edit" in err, err
    # the path alone: which memory names it, in its text or its source field, is not known,
    # so both fixes are said (only the SOURCE: part's was, qa79 F6)
    code, out, err = run("docs/guide")
    (line,) = err.splitlines()
    assert code == 1 and "its SOURCE: part with `kenning edit ID --content" in line, line
    assert "`kenning forget ID` and remember it again with the right --source" in line, line


def test_a_shortened_id_or_a_path_from_a_subfolder_says_what_it_is_not(
    project: Path, minilm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kenning source 01a242d0-a92e` (an id cut short) and `kenning source
    solutions/db.md` run in docs/ said only "missing source document": an id is looked up
    whole, and a path is from the top of the checkout. Each says so."""
    from kenning import open_store

    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember("Use WAL mode for the shared store", "rule").id or ""
    code, _, err = run(memory_id[:11])  # too short to be taken as the start of an id
    assert code == 1 and "nor does a memory's id in this project start with" in err, err
    assert "from 12 hex digits on" in err and "`kenning search` shows ids" in err, err
    # an id no memory has, written as every command takes one: without its dashes, whole or
    # its start, in capitals (a script pasting a forgotten id was told to create a file of
    # that name, qa-s70a F2)
    unknown = "f" * 32
    for asked in (unknown, unknown[:12], memory_id.replace("-", "")[:8] + "ffff".upper()):
        code, _, err = run(asked)
        assert code == 1 and "nor does a memory's id in this project start with" in err, err
    (project / "docs" / "solutions").mkdir(parents=True)
    (project / "docs" / "solutions" / "db.md").write_text("fix\n")
    monkeypatch.chdir(project / "docs")
    code, _, err = run("solutions/db.md")
    assert code == 1 and f"from the top of the checkout, {project}" in err, err
    code, out, _ = run("docs/solutions/db.md")
    assert code == 0 and out.strip() == str(project / "docs" / "solutions" / "db.md")


def test_a_document_on_another_branch_is_not_to_be_forgotten(project: Path) -> None:
    """`kenning source ID` in a work tree whose branch lacks the memory's document (it is on
    a feature branch) said to forget the memory, which would take it from every branch. It
    says where the file is; one deleted on this branch is still said to be missing."""
    git(project, "checkout", "-q", "-b", "feature")
    (project / "docs").mkdir()
    (project / "docs" / "runbook.md").write_text("# Runbook\n")
    git(project, "add", "docs/runbook.md")
    git(project, "commit", "-q", "-m", "a runbook")
    git(project, "checkout", "-q", "-")
    assert not (project / "docs" / "runbook.md").exists()
    code, _, err = run("docs/runbook.md")
    assert code == 1 and "git has it on another branch" in err, err
    assert "kenning forget" not in err and "create it" not in err, err
    git(project, "merge", "-q", "feature")
    git(project, "rm", "-q", "docs/runbook.md")
    git(project, "commit", "-q", "-m", "the runbook goes")
    code, _, err = run("docs/runbook.md")
    assert code == 1 and "another branch" not in err and "missing source document" in err, err
