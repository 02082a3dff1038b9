"""The documents memories point to (SPEC §7): which path, whether it may be read
(``source_ok`` in recall/search JSON), ``kenning source ID|PATH`` and the MCP ``read_source``
tool. The path rules themselves are tested in test_safety.py."""

from __future__ import annotations

import errno
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client

from kenning import MemoryStore
from kenning.cli import main
from kenning.mcp_server import ANSWER_CHAR_BUDGET
from kenning.model import Memory
from kenning.safety import UnsafePathError
from kenning.sources import (
    SOURCE_READ_LIMIT,
    NotADocumentError,
    check_source,
    read_document,
    source_of,
)

from .case_table import each_case
from .conftest import git
from .test_mcp_project import started

FIX = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode and "
    "busy_timeout=30000 | SOURCE: docs/solutions/db-locked.md — two writers at once"
)


def memory(content: str, source: str | None = None) -> Memory:
    return Memory("m1", content, "discussions", "context", "g", datetime.now(UTC), "h", source)


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def docs(project: Path, tmp_path: Path) -> Path:
    folder = project / "docs" / "solutions"
    folder.mkdir(parents=True)
    (folder / "db-locked.md").write_text("# Database is locked\n\n## Fix\n\nEnable WAL.\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("AKIA-not-for-agents\n")
    (folder / "leak.md").symlink_to(secret)
    return folder


# -- which document, and may it be read -------------------------------------------------


def test_source_of_prefers_the_field_then_the_error_fix_part() -> None:
    assert source_of(memory(FIX)) == "docs/solutions/db-locked.md"
    assert source_of(memory(FIX, source="docs/other.md")) == "docs/other.md"
    assert source_of(memory("Use UTC everywhere.")) is None
    assert source_of(memory("ERROR-FIX: x failed | FIX: retry")) is None  # no SOURCE: part
    assert source_of(memory("Use UTC.", source="   ")) is None


@pytest.mark.parametrize("line", [":42", ":42:7", "#L42", "#L42-L50"])
def test_a_source_naming_a_line_is_the_document_that_holds_it(
    store: MemoryStore, docs: Path, line: str
) -> None:
    """``SOURCE: src/auth.py:2`` is the document src/auth.py, as the freshness check reads
    it: `kenning source ID` called it "missing source document 'src/auth.py:2'" (exit 1)
    while search said source_ok true. A document that is not there is still missing."""
    fix = FIX.replace("db-locked.md", f"db-locked.md{line}")
    assert source_of(memory(fix)) == "docs/solutions/db-locked.md"
    assert source_of(memory("x", source=f"docs/solutions/db-locked.md{line}")) == (
        "docs/solutions/db-locked.md"
    )
    memory_id = store.remember(fix, "error_fix").id or ""
    code, out, err = cli("source", memory_id)
    assert code == 0 and out.strip() == str(docs / "db-locked.md"), (out, err)
    gone = store.remember(fix.replace("db-locked.md", "gone.md"), "error_fix").id or ""
    code, _, err = cli("source", gone)
    assert code == 1 and "missing source document 'docs/solutions/gone.md'" in err, err


def test_check_source(project: Path, docs: Path) -> None:
    ok = check_source("docs/solutions/db-locked.md", project)
    assert ok.ok and ok.resolved == str(docs / "db-locked.md") and ok.reason is None
    for path, reason in [
        ("https://example.com/fix.md", "URL"),
        ("file:///etc/passwd", "URL"),
        ("/etc/passwd", "absolute"),
        ("../../etc/passwd", ".."),
        ("~/notes/fix.md", "~"),
        ("~/.ssh/id_rsa", ".ssh"),
        ("docs/solutions/leak.md", "outside"),
        ("docs/a.md\nrm -rf /", "line break"),
    ]:
        refused = check_source(path, project)
        assert not refused.ok and refused.resolved is None, path
        assert reason in (refused.reason or ""), (path, refused.reason)


@each_case(
    "path",
    [".git/config", "./.git/HEAD", "vendor/lib/.git", ".kenning/memory.db", ".GIT/config",
     ".env", "deploy/.env.production", ".netrc", ".envrc", ".git-credentials",
     ".pgpass", "deploy/.htpasswd", "ops/.ssh/config", "keys/id_ed25519", "certs/server.key",
     "certs/tls.pem", "ops/.aws/credentials", "ops/.kube/config", "ops/.docker/config.json",
     "signing/release.p12",
     # where other tools keep their secrets: an env file by another name, terraform's state
     # and variables, a service account's key, MySQL's, Vault's, s3cmd's and kubectl's
     "deploy/prod.env", "infra/terraform.tfstate", "infra/terraform.tfstate.backup",
     "infra/prod.tfvars", "gcp/credentials.json", "gcp/service-account.json", ".my.cnf",
     ".vault-token", ".s3cfg", "ops/kubeconfig", "secrets.yaml", "config/secrets.yml",
     "config/master.key", "config/credentials.yml.enc",
     # PuTTY's private keys, Windows' _netrc, Docker's older config, the GitHub CLI's, gcloud's,
     # Azure's, cargo's, RubyGems', Terraform Cloud's, boto's, yarn's and Composer's tokens
     "keys/deploy.ppk", "_netrc", ".dockercfg", "home/.config/gh/hosts.yml",
     "home/.config/gcloud/credentials.db", "application_default_credentials.json",
     "home/.azure/accessTokens.json", ".cargo/credentials.toml", "home/.gem/credentials",
     "credentials.tfrc.json", ".boto", ".yarnrc.yml", "auth.json",
     # Streamlit's and other apps' secrets, Firebase's admin key, Azure Functions' local
     # settings, WordPress' and Rails' database passwords (qa-s65b B2)
     ".streamlit/secrets.toml", "config/secrets.json",
     "config/myapp-firebase-adminsdk-x1y2z-0123456789.json", "local.settings.json",
     "wp-config.php", "config/database.yml"],
)  # fmt: skip
def test_git_data_the_store_and_secrets_files_are_no_documents(project: Path, path: str) -> None:
    """.git/config can hold a remote URL with its token, .kenning/ is the store itself, and
    .env files hold secrets: none is a document a memory may send an agent to read."""
    target = project / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("url = https://user:ghp_0123456789abcdefghij@example.com/x.git\n")
    check = check_source(path, project)
    assert not check.ok and check.reason
    assert "no project document" in check.reason or "secrets" in check.reason


def test_the_refusal_of_a_secrets_file_names_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kenning source --path .git-credentials` said "…: [REDACTED:password_assignment] is
    where secrets are kept": the message's own redaction read "'.git-credentials':
    .git-credentials" as a credential assigned."""
    (project / ".git-credentials").write_text("https://u:p@example.com\n")
    monkeypatch.chdir(project)
    code, _, err = cli("source", "--path", ".git-credentials")
    assert code != 0 and "REDACTED" not in err, err
    assert "a file named .git-credentials is where secrets are kept" in err, err


@each_case(
    ("link", "target"),
    [("docs/history", "../.git"), ("docs/setup.md", "../.env"), ("notes", ".kenning")],
)
def test_a_symlink_inside_the_project_to_private_files_is_refused(
    project: Path, link: str, target: str
) -> None:
    """The path as written names no private folder, but it leads into one: what it resolves
    to is held to the same rule (``docs/history -> ../.git`` would hand out .git/config)."""
    (project / ".git" / "config").write_text("url = https://u:ghp_0123456789abcdefghij@h/x\n")
    (project / ".env").write_text("OPENAI_API_KEY=sk-live-123\n")
    (project / ".kenning").mkdir(exist_ok=True)
    (project / ".kenning" / "memory.db").write_text("store")
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(target)
    path = {"docs/history": "docs/history/config", "notes": "notes/memory.db"}.get(link, link)
    check = check_source(path, project)
    assert not check.ok and check.resolved is None
    assert "no project document" in (check.reason or "") or "secrets" in (check.reason or "")
    with pytest.raises(UnsafePathError):
        read_document(check)


def test_a_binary_file_is_not_read_as_a_document(project: Path) -> None:
    """Refused as no document, not as unsafe: the path is inside the project and allowed."""
    (project / "docs").mkdir()
    (project / "docs" / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(NotADocumentError, match="binary") as caught:
        read_document(check_source("docs/image.md", project))
    assert "unsafe" not in str(caught.value)


def test_a_folder_is_not_read_as_a_document(project: Path) -> None:
    """A SOURCE: naming a folder was refused as an "unsafe source path": it is only not a
    document to read."""
    (project / "docs" / "solutions").mkdir(parents=True)
    with pytest.raises(NotADocumentError, match="a folder") as caught:
        read_document(check_source("docs/solutions", project))
    assert "unsafe" not in str(caught.value)


def test_a_named_pipe_is_not_read_as_a_document(project: Path) -> None:
    """Opening a FIFO for reading waits for a writer: read_source on a memory naming one
    (a pipe in the work tree, a forged source) held an MCP server thread for ever."""
    import threading

    (project / "tmp").mkdir()
    fifo = project / "tmp" / "events.log"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_document(check_source("tmp/events.log", project))
            outcome.append(None)
        except BaseException as exc:  # what the read ended with, for the assert
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # let the blocked open go: a writer that closes at once
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
        pytest.fail("read_document waited for a writer on a named pipe")
    (error,) = outcome
    assert isinstance(error, NotADocumentError) and "not a regular file" in str(error)


def test_read_document_caps_and_fails_closed(project: Path, docs: Path) -> None:
    doc = read_document(check_source("docs/solutions/db-locked.md", project))
    assert doc.text.startswith("# Database is locked") and not doc.truncated
    assert doc.size == len(doc.text.encode())
    big = docs / "big.md"
    # a 3-byte character straddles the limit: it is left out, not split
    big.write_bytes(b"a" * (SOURCE_READ_LIMIT - 1) + "€".encode() + b"tail" * 100)
    cut = read_document(check_source("docs/solutions/big.md", project))
    assert cut.truncated and cut.size == big.stat().st_size
    assert cut.text == "a" * (SOURCE_READ_LIMIT - 1)
    assert len(cut.to_dict()["text"].encode()) <= SOURCE_READ_LIMIT
    with pytest.raises(Exception, match="outside"):
        read_document(check_source("docs/solutions/leak.md", project))
    with pytest.raises(Exception, match="no such file"):
        read_document(check_source("docs/solutions/missing.md", project))
    with pytest.raises(Exception, match="folder"):
        read_document(check_source("docs/solutions", project))
    # swapped for a symlink after the check: refused, not followed
    check = check_source("docs/solutions/db-locked.md", project)
    (docs / "db-locked.md").unlink()
    (docs / "db-locked.md").symlink_to(docs / "leak.md")
    with pytest.raises(Exception, match="cannot be read"):
        read_document(check)


def test_a_document_s_credentials_are_redacted_as_it_is_read(project: Path, docs: Path) -> None:
    """qa-s65b B2: read_source gave an agent a document's credentials as they were (a
    memory's path is stored data: a poisoned note can point at any document); they are
    redacted as every memory is, and counted, a private key across the read's limit too."""
    token = "ghp_" + "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    (docs / "creds.md").write_text(
        "# Staging\n\nConnect with postgresql://app:DocDsnPw31q@db:5432/shop and the CI "
        f"token {token}.\n"
    )
    doc = read_document(check_source("docs/solutions/creds.md", project))
    assert "DocDsnPw31q" not in doc.text and token not in doc.text
    assert "[REDACTED:" in doc.text and "# Staging" in doc.text
    assert sum(doc.redactions.values()) == 2 and doc.to_dict()["redactions"] == doc.redactions
    body = "\n".join(["MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2qfG7XwQ9Lk5Hn8Rp4VcJt6Ws1Yb"] * 40)
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    (docs / "long.md").write_text("a " * ((SOURCE_READ_LIMIT - 1000) // 2) + "\n" + key)
    cut = read_document(check_source("docs/solutions/long.md", project))
    assert cut.truncated and "MIIEpAIBAAKCAQEA" not in cut.text, cut.text[-300:]
    assert len(cut.text.encode()) <= SOURCE_READ_LIMIT
    # a token the limit cuts: its start alone is no token, so it is found before the cut
    (docs / "long.md").write_text("a" * (SOURCE_READ_LIMIT - 20) + f" {token} and more")
    cut = read_document(check_source("docs/solutions/long.md", project))
    assert cut.truncated and token[:15] not in cut.text, cut.text[-40:]


# -- source_ok in results -----------------------------------------------------------------


def test_recall_and_search_results_carry_the_check(
    store: MemoryStore, project: Path, docs: Path
) -> None:
    store.remember(FIX)
    store.remember(
        "The release checklist lives in the wiki; never tag a release from a dirty tree.",
        "rule",
        source="../../etc/passwd",
    )
    store.remember("Timestamps are stored in UTC, never as naive datetimes.", "rule")
    recalled = store.recall("sqlite3.OperationalError: database is locked").to_dict()
    top = recalled["results"][0]
    assert top["content"] == FIX
    assert top["source_path"] == "docs/solutions/db-locked.md" and top["source_ok"] is True
    found = store.search("never tag a release from a dirty tree", decay=False).to_dict()
    hit = next(r for r in found["results"] if "release" in r["memory"]["content"])
    assert hit["source_path"] == "../../etc/passwd" and hit["source_ok"] is False
    found = store.search("timestamps stored in UTC", decay=False).to_dict()
    utc = next(r for r in found["results"] if "UTC" in r["memory"]["content"])
    assert utc["source_path"] is None and utc["source_ok"] is None
    # a document moved away since: not ok, as `kenning source` and read_source say (it was
    # only the path's check, and an agent told it was ok read a file that is not there)
    os.rename(docs / "db-locked.md", docs / "sqlite-locked.md")
    recalled = store.recall("sqlite3.OperationalError: database is locked").to_dict()
    assert recalled["results"][0]["source_ok"] is False


def test_cli_json_has_source_ok(store: MemoryStore, project: Path, docs: Path) -> None:
    store.remember(FIX)
    store.close()
    code, out, _ = cli("recall", "--json", "sqlite3.OperationalError: database is locked")
    assert code == 0
    result = json.loads(out)["results"][0]
    assert result["source_ok"] is True and result["source_path"] == "docs/solutions/db-locked.md"
    code, out, _ = cli("search", "--json", "--threshold", "0.3", "database is locked sqlite")
    assert code == 0
    assert json.loads(out)["results"][0]["source_ok"] is True


# -- kenning source -----------------------------------------------------------------------


def test_source_command_by_memory_id(store: MemoryStore, project: Path, docs: Path) -> None:
    fix = store.remember(FIX).id
    unsafe = store.remember("Rotate the deploy key yearly.", "rule", source="/etc/passwd").id
    leak = store.remember("Secrets live in the vault.", "rule", source="docs/solutions/leak.md").id
    bare = store.remember("Timestamps are stored in UTC.", "rule").id
    store.close()
    assert fix and unsafe and leak and bare

    code, out, _ = cli("source", fix)
    assert code == 0 and out.strip() == str(docs / "db-locked.md")
    code, out, _ = cli("source", "--json", fix)
    assert code == 0
    assert json.loads(out) == {
        "id": fix,
        "path": "docs/solutions/db-locked.md",
        "ok": True,
        "resolved": str(docs / "db-locked.md"),
    }
    for memory_id, reason in [(unsafe, "absolute path"), (leak, "outside")]:
        code, out, err = cli("source", memory_id)
        assert code == 1 and out == "" and reason in err and "do not read it" in err
        code, out, _ = cli("source", "--json", memory_id)
        data = json.loads(out)
        assert code == 1 and data["ok"] is False and reason in data["reason"]
        assert data["id"] == memory_id and "resolved" not in data
    code, _, err = cli("source", bare)
    assert code == 1 and "names no source document" in err
    code, _, err = cli("source", "01234567-89ab-7cde-8f01-23456789abcd")
    assert code == 1 and "no memory with id" in err


def test_source_of_an_unknown_id_says_where_it_looked_and_what_to_do(
    store: MemoryStore, project: Path
) -> None:
    """`kenning source ID --project acme/other` (or --project all) said "no memory with id
    ID in this project", and nothing of what to do; it names where it looked, as forget and
    the MCP tool read_source do, and how to find ids or name another project."""
    store.close()
    unknown = "01234567-89ab-7cde-8f01-23456789abcd"
    for extra, where in (
        ((), "in this project"),
        (("--project", "acme/other"), "in project acme/other"),
        (("--project", "all"), "in any project"),
    ):
        code, _, err = cli("source", unknown, *extra)
        assert code == 1, err
        (line,) = err.splitlines()
        assert line.startswith(f"error: no memory with id {unknown} {where} ("), (extra, line)
        assert "`kenning search` and `kenning recall` show ids" in line, line
        # naming another project is a way forward unless every project was looked in
        assert ("--project" in line) is (extra[-1:] != ("all",)), line


def test_source_json_answers_json_when_there_is_no_document_to_check(
    store: MemoryStore, project: Path
) -> None:
    """`source --json ID` of a memory that names no document, or of an id this project does
    not hold, printed nothing on stdout (the error went to stderr, exit 1), where a refused
    path answers {"ok": false, "reason"}: a script reading --json got no answer (edit,
    forget and remember answer one)."""
    bare = store.remember("Timestamps are stored in UTC.", "rule").id
    store.close()
    assert bare
    code, out, _ = cli("source", "--json", bare)
    assert code == 1
    assert json.loads(out) == {
        "id": bare,
        "path": None,
        "ok": False,
        "reason": f"memory {bare} names no source document (no source, no SOURCE: part)",
    }
    unknown = "01234567-89ab-7cde-8f01-23456789abcd"
    code, out, _ = cli("source", "--json", unknown)
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["id"] == unknown
    assert data["path"] is None and "no memory with id" in data["reason"]
    code, out, err = cli("source", bare)  # without --json: the error line, as before
    assert code == 1 and out == "" and "names no source document" in err


def test_source_command_by_path(
    project: Path, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's use: check a SOURCE: path read in a recalled memory."""
    for args in (["docs/solutions/db-locked.md"], ["--path", "docs/solutions/db-locked.md"]):
        code, out, _ = cli("source", *args)
        assert code == 0 and out.strip() == str(docs / "db-locked.md")
    code, out, _ = cli("source", "--json", "docs/solutions/db-locked.md")
    assert json.loads(out) == {
        "path": "docs/solutions/db-locked.md",
        "ok": True,
        "resolved": str(docs / "db-locked.md"),
    }
    code, out, err = cli("source", "../outside.md")
    assert code == 1 and out == "" and "'..'" in err and "do not read it" in err
    code, _, err = cli("source")
    assert code == 2 and "memory ID" in err
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "a.md").write_text("x")
    monkeypatch.chdir(outside)
    code, _, err = cli("source", "a.md")
    assert code == 1 and "--project-dir" in err
    code, out, _ = cli("source", "--project-dir", str(outside), "a.md")
    assert code == 0 and out.strip() == str(outside.resolve() / "a.md")


def test_source_paths_are_read_from_the_work_tree(
    store: MemoryStore, project: Path, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A linked work tree shares the main checkout's store but has its own files."""
    fix = store.remember(FIX).id
    store.close()
    git(project, "add", "docs/solutions/db-locked.md")
    git(project, "commit", "-q", "-m", "doc")
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(worktree))
    monkeypatch.chdir(worktree)
    code, out, _ = cli("source", fix or "")
    assert code == 0
    assert out.strip() == str(worktree.resolve() / "docs" / "solutions" / "db-locked.md")


# -- MCP read_source ------------------------------------------------------------------------


async def call(session: Client, tool: str, **arguments: Any) -> tuple[bool, Any]:
    with anyio.fail_after(120):
        result = await session.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    return bool(result.is_error), (text if result.is_error else json.loads(text))


@pytest.mark.anyio
async def test_mcp_read_source(project: Path, docs: Path) -> None:
    (docs / "big.md").write_text("x" * (SOURCE_READ_LIMIT + 10))
    # the tools' answers are what is tested, not the process: the server kenning mcp builds,
    # in-process in the project (a stdio server costs ~2 CPU-s to start: the SDK's imports,
    # the model's warm-up; test_mcp.py tests the process)
    async with started(project) as s:
        failed, stored = await call(s, "hooks_remember", content=FIX)
        assert not failed
        failed, bad = await call(
            s, "hooks_remember", content="Keep deploy keys in the vault.", source="../../etc"
        )
        assert not failed
        failed, big = await call(
            s,
            "hooks_remember",
            content="The long guide to releases.",
            source="docs/solutions/big.md",
        )
        assert not failed

        failed, recalled = await call(s, "hooks_recall", query=FIX.split(" |")[0])
        assert not failed and recalled["results"][0]["source_ok"] is True

        failed, doc = await call(s, "read_source", id=stored["id"])
        assert not failed
        assert doc["text"].startswith("# Database is locked") and doc["truncated"] is False
        assert doc["path"] == "docs/solutions/db-locked.md" and doc["id"] == stored["id"]
        assert doc["resolved"] == str(docs / "db-locked.md")
        failed, same = await call(s, "read_source", path="docs/solutions/db-locked.md")
        assert not failed and same["text"] == doc["text"]

        failed, long = await call(s, "read_source", id=big["id"])
        assert not failed and long["truncated"] is True
        assert long["limit_bytes"] == SOURCE_READ_LIMIT and long["bytes"] == SOURCE_READ_LIMIT + 10
        # 64 KiB of text is past what Claude Code keeps in the conversation as a tool answer
        answer = json.dumps(long, ensure_ascii=False, indent=2)
        assert ANSWER_CHAR_BUDGET * 0.9 < len(answer) <= ANSWER_CHAR_BUDGET
        assert long["text"] == "x" * len(long["text"])
        assert "docs/solutions/big.md" in long["truncation_note"]
        # an argument the tool does not take is said in the answer, which still fits (qa80 F5)
        failed, noted = await call(s, "read_source", id=big["id"], limit=1, **{"x" * 40: 1})
        assert not failed and noted["ignored_arguments"].startswith("limit and ")
        answer = json.dumps(noted, ensure_ascii=False, indent=2)
        assert ANSWER_CHAR_BUDGET * 0.9 < len(answer) <= ANSWER_CHAR_BUDGET
        assert doc["truncation_note"] is None

        for arguments, reason in [
            ({"id": bad["id"]}, "'..'"),
            ({"path": "docs/solutions/leak.md"}, "outside"),
            ({"path": "/etc/passwd"}, "absolute"),
            ({"id": "0190-nope"}, "no memory with id"),
            ({}, "either id"),
            ({"id": stored["id"], "path": "docs/x.md"}, "either id"),
        ]:
            failed, text = await call(s, "read_source", **arguments)
            assert failed and reason in text, (arguments, text)
            assert "AKIA" not in text


@pytest.mark.anyio
async def test_mcp_read_source_says_a_looping_doc_cannot_be_read_and_how_to_fix_it(
    project: Path, docs: Path
) -> None:
    """A document that is a symlink loop (``ln -s db-locked.md db-locked.md``) was refused
    by read_source as unsafe ("broken or looping symlink"): nothing unsafe, and nothing to
    do said. It cannot be read, as an unreadable doc: the answer says so with what to do,
    and recall's ``source_ok`` is false for it (as `kenning source` says)."""
    looped = docs / "db-locked.md"
    looped.unlink()
    looped.symlink_to("db-locked.md")
    fix = (
        f"cannot be read ({os.strerror(errno.ELOOP)}); point the symlink at the file, not "
        f"back at itself (ls -l {looped})"
    )
    async with started(project) as s:
        failed, stored = await call(s, "hooks_remember", content=FIX)
        assert not failed
        failed, recalled = await call(s, "hooks_recall", query=FIX.split(" |")[0])
        assert not failed and recalled["results"][0]["source_ok"] is False
        failed, text = await call(s, "read_source", id=stored["id"])
        assert failed and f"'docs/solutions/db-locked.md' {fix}" in text, text
        assert "unsafe" not in text, text


@pytest.mark.anyio
async def test_mcp_read_source_says_a_doc_that_became_a_broken_symlink_is_missing(
    project: Path, docs: Path
) -> None:
    """A document that became a symlink to nothing was refused by read_source as unsafe
    ("broken symlink 'db-locked.md'") and its note marked stale as refused; seeding retires
    a broken symlink's entries as a deleted doc's. It is missing, as a deleted file is:
    read_source says so, and recall's ``source_ok`` is false and ``stale`` true for it."""
    async with started(project) as s:
        failed, stored = await call(s, "hooks_remember", content=FIX)
        assert not failed
        broken = docs / "db-locked.md"
        broken.unlink()
        broken.symlink_to("nowhere.md")
        failed, recalled = await call(s, "hooks_recall", query=FIX.split(" |")[0])
        assert not failed, recalled
        (result,) = [r for r in recalled["results"] if r["id"] == stored["id"]]
        assert (result["source_ok"], result["stale"]) == (False, True), result
        failed, text = await call(s, "read_source", id=stored["id"])
        missing = "missing source document 'docs/solutions/db-locked.md': broken symlink"
        assert failed and f"{missing} (-> nowhere.md); create its target or fix" in text, text
        assert "unsafe" not in text and "no such file" not in text, text  # (qa77 F6)


def test_a_folder_on_the_path_that_is_a_broken_symlink_is_said_so(tmp_path: Path) -> None:
    """A path under a folder that became a symlink to nothing is missing, said naming that
    folder and where it points (qa77 F6: "no such file … create it" of what `ls` shows)."""
    from kenning.sources import check_source

    (tmp_path / "docs").symlink_to("old-docs")
    check = check_source("docs/c.md", tmp_path)
    assert (check.ok, check.missing, check.broken_link) == (False, True, True), check
    assert check.reason == "broken symlink 'docs' on its path (-> old-docs)", check.reason
    (tmp_path / "c.md").symlink_to("nothing.md")
    assert check_source("./c.md", tmp_path).reason == "broken symlink (-> nothing.md)"
