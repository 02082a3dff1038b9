"""ruvector users can switch: kenning answers ruvector's tool calls (names, argument names and
types, ``hooks_capabilities``) and imports a ruvector store. The stores here are made by the
real ruvector npm package (pinned; ``./install.sh --test`` installs it into the venv), driven
offline with its hash embedder, through its CLI and its MCP server; kenning's answers are
compared with the real server's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest
from click.testing import CliRunner
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from kenning import open_store
from kenning.cli import main
from kenning.embedders.base import Embedder

from .test_mcp_project import started

RUVECTOR_VERSION = "0.3.2"
RUVECTOR_CLI = Path(sys.prefix) / "npm" / "node_modules" / "ruvector" / "bin" / "cli.js"

FIX = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode and set "
    "busy_timeout=30000 | SOURCE: docs/solutions/db-locked.md — two writers at once"
)
NOTES = [
    ("context", FIX),
    ("decision", "We chose PostgreSQL over MySQL for its JSONB indexes and row-level security."),
    ("project", "The API service lives in services/api and is deployed with Helm on Tuesdays."),
    ("general", "Run the integration tests with `make itest`; they need Docker running."),
    ("pattern", "Retry HTTP 429 responses with exponential backoff capped at 30 seconds."),
]


@pytest.fixture(scope="module")
def ruvector() -> Path:
    """The real ruvector CLI; missing is a failure in CI (install.sh --test installs it)."""
    node = shutil.which("node")
    problem = None
    if node is None:
        problem = "node is not on PATH"
    elif not RUVECTOR_CLI.is_file():
        problem = f"ruvector is not installed in {RUVECTOR_CLI.parents[3]}"
    else:
        manifest = json.loads((RUVECTOR_CLI.parents[1] / "package.json").read_text())
        if manifest["version"] != RUVECTOR_VERSION:
            problem = (
                f"ruvector {manifest['version']} is installed, the tests pin {RUVECTOR_VERSION}"
            )
    if problem:
        message = f"{problem}; run ./install.sh --test"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return RUVECTOR_CLI


def ruvector_env(home: Path) -> dict[str, str]:
    # offline and deterministic: its hash embedder (the ONNX model would be downloaded)
    return {**os.environ, "HOME": str(home), "NO_COLOR": "1", "RUVECTOR_EMBEDDER": "hash"}


def run_ruvector(cli: Path, cwd: Path, home: Path, *args: str) -> str:
    out = subprocess.run(
        ["node", str(cli), *args],
        cwd=cwd,
        env=ruvector_env(home),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def kenning_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@asynccontextmanager
async def session_of(
    command: list[str], cwd: Path, env: dict[str, str], errlog: Path
) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd), env=env)
    with errlog.open("a", encoding="utf-8") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write) as session,
        ):
            with anyio.fail_after(180):
                await session.initialize()
            yield session


async def text_call(
    session: ClientSession | Client, tool: str, **arguments: Any
) -> tuple[bool, Any]:
    """What an agent written for ruvector reads: the JSON text of the first content block."""
    with anyio.fail_after(180):
        result = await session.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    try:
        return bool(result.is_error), json.loads(text)
    except ValueError:
        return bool(result.is_error), text


# -- import --------------------------------------------------------------------------------


def test_import_a_store_made_by_the_ruvector_cli(
    ruvector: Path, project: Path, tmp_path: Path, minilm: Embedder
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (project / ".ruvector").mkdir()
    for kind, text in NOTES:
        run_ruvector(ruvector, project, home, "hooks", "remember", "-t", kind, text)
    run_ruvector(ruvector, project, home, "hooks", "remember", "-t", "decision", NOTES[1][1])
    run_ruvector(
        ruvector, project, home, "hooks", "error-record",
        "-e", "ModuleNotFoundError: No module named 'yaml'", "-x", "pip install pyyaml",
        "-f", "src/app.py",
    )  # fmt: skip
    run_ruvector(ruvector, project, home, "hooks", "post-edit", "src/app.py", "--success")
    run_ruvector(ruvector, project, home, "hooks", "post-command", "--success", "pytest")
    intel = json.loads((project / ".ruvector" / "intelligence.json").read_text())
    theirs = intel["memories"]
    assert {m["memory_type"] for m in theirs} >= {"context", "decision", "edit", "command"}
    assert all(len(m["embedding"]) == 64 for m in theirs)  # ruvector's hash vectors

    code, out, err = kenning_cli("import", "--from", "ruvector", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["source"] == str(project / ".ruvector" / "intelligence.json")
    assert report["ruvector_embedder"] == "hash:64-d"
    assert report["imported"] == len(NOTES) + 1  # the notes and the recorded error fix
    assert report["duplicates"] == 1  # ruvector stored the decision twice
    assert report["rejected"] == 0
    assert report["skipped"] == {
        "ruvector's edit log (not notes)": 1,
        "ruvector's command log (not notes)": 1,
    }
    assert report["not_imported"].get("patterns", 0) >= 1

    with open_store(cwd=project, embedder=minilm) as store:
        mine = {m.content: m for m in store.newest(100)}
        assert len(mine) == len(NOTES) + 1
        for kind, text in NOTES:
            memory = mine[text]
            source = next(m for m in theirs if m["content"] == text)
            assert memory.metadata["imported_from"] == "ruvector"
            assert memory.metadata["ruvector_type"] == kind
            assert memory.metadata["ruvector_id"] == source["id"]
            assert memory.stored_at == datetime.fromtimestamp(source["timestamp"], UTC)
        assert mine[FIX].type == "error_fix"
        assert mine[NOTES[1][1]].type == "decision"
        assert mine[NOTES[2][1]].type == "context"  # ruvector's project
        assert mine[NOTES[4][1]].type == "context"  # a type kenning does not know
        recorded = mine[
            "ERROR-FIX: ModuleNotFoundError: No module named 'yaml' | FIX: pip install pyyaml"
        ]
        assert recorded.type == "error_fix" and recorded.metadata["ruvector_file"] == "src/app.py"
        # re-embedded with kenning's model: the hash vectors were not used
        assert store.stats()["provenance"]["embedder"] == "minilm"
        vectors = store.backend.get_vectors([m.id for m in mine.values()])
        for memory in mine.values():
            expected = minilm.embed([memory.content])[0]
            assert float(np.dot(vectors[memory.id], expected)) > 0.9999
        hit = store.recall("ModuleNotFoundError: No module named 'yaml'").hits[0]
        assert hit.memory.id == recorded.id

    code, out, _ = kenning_cli("import", "--from", "ruvector", str(project / ".ruvector"), "--json")
    again = json.loads(out)
    assert code == 0 and again["imported"] == 0 and again["duplicates"] == len(NOTES) + 2
    # importing again is not remembering again: no memory's seen_count or last_seen_at moves
    with open_store(cwd=project, embedder=minilm) as store:
        assert {m.content: m for m in store.newest(100)} == mine


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_import_a_store_made_by_the_ruvector_mcp_server(
    ruvector: Path, project: Path, tmp_path: Path, minilm: Embedder
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (project / ".ruvector").mkdir()
    server = ["node", str(ruvector), "mcp", "start"]
    async with session_of(server, project, ruvector_env(home), tmp_path / "rv.log") as s:
        for kind, text in NOTES[:3]:
            failed, data = await text_call(s, "hooks_remember", content=text, type=kind)
            assert not failed and data["stored"] is True, data
    theirs = json.loads((project / ".ruvector" / "intelligence.json").read_text())["memories"]
    assert all("created" in m and "type" in m for m in theirs)  # the MCP server's shape

    code, out, err = kenning_cli("import", "--from", "ruvector", ".ruvector/intelligence.json")
    assert code == 0, err
    assert "imported 3, duplicates 0, rejected 0" in out
    with open_store(cwd=project, embedder=minilm) as store:
        mine = {m.content: m for m in store.newest(10)}
    for source in theirs:
        created = datetime.fromisoformat(source["created"].replace("Z", "+00:00"))
        assert mine[source["content"]].stored_at == created
        assert mine[source["content"]].metadata["ruvector_type"] == source["type"]


def test_a_ruvector_vector_database_is_refused(
    ruvector: Path, project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (project / ".ruvector").mkdir()
    run_ruvector(ruvector, project, home, "create", ".ruvector/ruvector.db")
    assert (project / ".ruvector" / "ruvector.db").read_bytes()[:4] == b"redb"
    for target in (".ruvector/ruvector.db", ".ruvector"):
        code, _, err = kenning_cli("import", "--from", "ruvector", target)
        assert code == 1 and "redb vector database" in err and "intelligence.json" in err
    assert not (project / ".kenning").exists()
    run_ruvector(ruvector, project, home, "hooks", "remember", "-t", "decision", NOTES[1][1])
    code, out, _ = kenning_cli("import", "--from", "ruvector")  # both files: the notes only
    assert code == 0 and "imported 1" in out and "ruvector.db: a redb vector database" in out


def test_what_is_not_a_ruvector_store_is_refused_and_nothing_written(
    project: Path, tmp_path: Path
) -> None:
    folder = project / ".ruvector"
    folder.mkdir()
    code, _, err = kenning_cli("import", "--from", "ruvector")
    assert code == 1 and "has no intelligence.json" in err
    for text, message in [
        ('{"memories": [{"content": "cut', "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"memories": {"a": 1}}', '"memories" is not a list'),
    ]:
        (folder / "intelligence.json").write_text(text)
        code, _, err = kenning_cli("import", "--from", "ruvector")
        assert code == 1 and message in err, err
    assert not (project / ".kenning").exists()
    # entries that cannot be notes are named; the others are imported
    (folder / "intelligence.json").write_text(
        json.dumps(
            {
                "memories": [
                    {"content": 42, "type": "general"},
                    "not an object",
                    {"content": "   "},
                    {"content": "Cache keys include the tenant id.", "timestamp": 9e18},
                ],
                "errors": {
                    "": ["x"],
                    "TimeoutError": [{"file": "a.py"}],
                    "401 Bad credentials ghp_Zq9ruvErr2aB3dE5fG7hI9jK1lM3nO5pQ7rS": [{}],
                },
            }
        )
    )
    code, out, err = kenning_cli("import", "--from", "ruvector", "--json")
    report = json.loads(out)
    assert code == 1 and report["imported"] == 1 and report["rejected"] == 6
    assert {r["entry"] for r in report["rejections"]} == {
        "memories[0]",
        "memories[1]",
        "memories[2]",
        'errors[""]',
        'errors["TimeoutError"][0]',
        'errors["401 Bad credentials [REDACTED:github_token]"][0]',
    }
    assert "Zq9" not in out + err
    # its time (year 285 billion) is no date: stored as of the import, which is said
    assert report["notes"] == [
        "1 entry has a time that is no date kenning can read, or one in the future "
        "(memories[3]): stored with the time of this import"
    ], report


def test_import_from_ruvector_finds_the_checkouts_store_from_a_subfolder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kenning runs from any folder of a checkout, and ruvector keeps .ruvector at its top:
    `kenning import --from ruvector` in src/ said ".ruvector does not exist"."""
    (project / ".ruvector").mkdir()
    (project / ".ruvector" / "intelligence.json").write_text(
        json.dumps({"memories": [{"content": NOTES[1][1], "type": "decision"}]})
    )
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")
    code, out, err = kenning_cli("import", "--from", "ruvector", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["imported"] == 1
    assert report["source"] == str((project / ".ruvector" / "intelligence.json").resolve())


# -- ruvector's tools ------------------------------------------------------------------------


async def ruvector_agent(session: ClientSession | Client) -> dict[str, Any]:
    """What an agent written for ruvector does: warm up, recall (top_k=5, discard < 0.5,
    keep 3, reading score as a number from the JSON text), remember with ruvector's types."""
    failed, caps = await text_call(session, "hooks_capabilities")
    assert not failed and caps["success"] is True
    failed, stored = await text_call(
        session, "hooks_remember", content=NOTES[1][1], type="decision"
    )
    assert not failed and stored["success"] is True, stored
    failed, recalled = await text_call(
        session, "hooks_recall", query="why did we choose PostgreSQL over MySQL", top_k=5
    )
    assert not failed and recalled["success"] is True
    kept = [r for r in recalled["results"] if float(r["score"]) >= 0.5][:3]
    failed, stats = await text_call(session, "hooks_stats")
    assert not failed and stats["success"] is True
    return {"capabilities": caps, "recall": recalled, "kept": kept, "stats": stats}


def shape(value: Any) -> Any:
    """The keys of nested objects (what an agent's code can index)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    return None


def missing_keys(theirs: Any, ours: Any, at: str = "") -> list[str]:
    if not isinstance(theirs, dict):
        return []
    if not isinstance(ours, dict):
        return [at or "."]
    out = []
    for key, value in theirs.items():
        if key not in ours:
            out.append(f"{at}.{key}")
        else:
            out.extend(missing_keys(value, ours[key], f"{at}.{key}"))
    return out


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_kenning_answers_what_ruvector_answers(
    ruvector: Path, project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    theirs_root = tmp_path / "theirs"
    theirs_root.mkdir()
    (theirs_root / ".ruvector").mkdir()
    server = ["node", str(ruvector), "mcp", "start"]
    async with session_of(server, theirs_root, ruvector_env(home), tmp_path / "rv.log") as s:
        theirs = await ruvector_agent(s)
    # kenning's side is the server kenning mcp builds, in-process in the project: the
    # answers are compared, not the process (a stdio server costs ~2 CPU-s to start: the
    # SDK's imports, the model's warm-up; test_mcp.py tests the stdio server)
    async with started(project) as s:
        ours = await ruvector_agent(s)
        listed = {t.name for t in (await s.list_tools()).tools}
    assert {"hooks_recall", "hooks_remember", "hooks_stats", "hooks_capabilities"} <= listed
    # every field ruvector answers, kenning answers (kenning may add its own)
    assert not missing_keys(shape(theirs["capabilities"]), shape(ours["capabilities"]))
    assert not missing_keys(shape(theirs["stats"]), shape(ours["stats"]))
    their_result = theirs["recall"]["results"][0]
    our_result = ours["recall"]["results"][0]
    assert set(their_result) - {"engineResult"} <= set(our_result)
    # the documented differences: scores are numbers (ruvector: "0.123" text), at most 3
    assert isinstance(their_result["score"], str)
    assert isinstance(our_result["score"], float)
    assert len(ours["recall"]["results"]) <= 3 and ours["kept"]
    caps = ours["capabilities"]
    assert caps["capabilities"]["embeddingDim"] == 384 and caps["capabilities"]["sona"] is False
    assert caps["stats"]["totalMemories"] == 0  # asked before the first remember
    assert (
        caps["intel_path"] == ours["stats"]["intel_path"] == str(project / ".kenning" / "memory.db")
    )
    assert ours["stats"]["stats"]["total_memories"] == 1 == ours["stats"]["stats"]["totalMemories"]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_ruvector_argument_names_and_types(project: Path) -> None:
    """ruvector's schemas: top_k is a JSON number (clients send "5" too; null means 5), the
    CLI says -k / --semantic, remember takes a free-text type and a metadata object."""
    # the server kenning mcp builds, in-process (see test_kenning_answers_what_ruvector_answers):
    # the arguments, the values a JSON line decodes to, meet the same validation as over stdio
    async with started(project) as s:
        for kind, text in NOTES[:4]:
            failed, data = await text_call(s, "hooks_remember", content=text, type=kind)
            assert not failed and data["status"] == "stored", data
        assert data["total"] == 4
        # ruvector takes any type; kenning its own and ruvector's five (an unknown one is an
        # error that lists them, never a silent default)
        failed, text = await text_call(s, "hooks_remember", content=NOTES[4][1], type="pattern")
        assert failed and "unknown memory type 'pattern'" in text and "general" in text
        failed, data = await text_call(s, "hooks_remember", content=NOTES[4][1], type="code")
        assert not failed and data["type"] == "implementation"
        failed, data = await text_call(
            s,
            "hooks_remember",
            content="Feature flags are read once at startup from flags.yaml.",
            type="general",
            metadata={"file": "src/flags.py", "line": 12},
            semantic=True,
        )
        assert not failed and data["type"] == "context"
        failed, data = await text_call(
            s,
            "hooks_remember",
            content="Logs are shipped to Loki with a 14-day retention.",
            metadata='{"team": "ops"}',  # a JSON object sent as text
        )
        assert not failed and data["status"] == "stored"
        failed, text = await text_call(s, "hooks_remember", content="x y z", metadata="[1, 2]")
        assert failed and "metadata" in text

        failed, data = await text_call(
            s,
            "hooks_remember",
            content="Rate-limited HTTP responses (429) from the payment API are retried three "
            "times with backoff.",
        )
        assert not failed and data["status"] == "stored"
        query = "how do we retry rate-limited HTTP responses"
        failed, data = await text_call(s, "hooks_recall", query=query)
        assert not failed and len(data["results"]) >= 2  # so that k=1 below is seen
        for arguments, most in [
            ({"top_k": "2"}, 2),
            ({"top_k": 2.0}, 2),
            ({"k": 1}, 1),
            ({"k": "1", "semantic": "true"}, 1),
            ({"top_k": None}, 3),
            ({"semantic": False}, 3),
        ]:
            failed, data = await text_call(s, "hooks_recall", query=query, **arguments)
            assert not failed, (arguments, data)
            assert 1 <= len(data["results"]) <= most, (arguments, data)
            assert "Retry HTTP 429" in data["results"][0]["content"]
        failed, text = await text_call(s, "hooks_recall", query=query, top_k=2, k=4)
        assert failed and "pass one of them" in text
        failed, text = await text_call(s, "hooks_recall", query=query, top_k=2.5)
        assert failed and "top_k" in text
        failed, data = await text_call(s, "hooks_stats", verbose=True)  # extra arguments: ignored
        assert not failed and data["stats"]["total_memories"] == len(NOTES) + 3
    with open_store(cwd=project, create=False) as store:
        flags = next(m for m in store.newest(20) if "flags.yaml" in m.content)
        assert flags.metadata["file"] == "src/flags.py" and flags.metadata["line"] == 12
