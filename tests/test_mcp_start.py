"""``kenning mcp``'s start (issue 15: Claude Code, Codex and Cursor start it at every
session): the SDK and the tools' descriptions before the first answer, the store's code and
the model after it, the model only where a tool will need it. Each test runs a fresh
interpreter (two tests read one): this one has imported everything already."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kenning import open_store
from kenning.backends.base import Filters

from .conftest import make_repo


def run_python(code: str, *args: str) -> object:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def served(folder: Path, env: dict[str, str], sent: str) -> subprocess.CompletedProcess[str]:
    """``kenning mcp`` started in ``folder``, ``sent`` on its stdin, run to its end (it
    answers what it read before stdin closed, then exits)."""
    return subprocess.run(
        [sys.executable, "-m", "kenning", "mcp"],
        cwd=folder,
        env=env,
        input=sent,
        capture_output=True,
        text=True,
        timeout=120,
    )


#: One fresh interpreter for the two tests below (a Python start and the SDK's import, ~0.7
#: CPU-s each): first the server built, then the warm-up in each kind of project, those that
#: load no model first (once loaded, onnxruntime stays in ``sys.modules``; whether a later
#: warm-up asks for the model is read from the calls of ``load_embedder``, which it calls
#: through). Python's cyclic collector is off, as ``kenning mcp`` imports the server's code:
#: what is read is which modules were imported, which the collector changes nothing of.
FRESH_INTERPRETER = """
import gc; gc.disable()
import json, os, sys
from pathlib import Path
import kenning.mcp_server as s
s.build_server(s.KenningTools(None))
heavy = ("kenning.store", "kenning.backends.base", "numpy", "onnxruntime")
built = [m for m in heavy if m in sys.modules]
s.import_late_modules()  # what each warm-up does first
import kenning.embedders as embedders
asked = []
load_embedder = embedders.load_embedder
def asking(*args, **kwargs):
    asked.append(args)
    return load_embedder(*args, **kwargs)
embedders.load_embedder = asking
bare, no_checkout, kept = map(Path, sys.argv[1:])
def warmed(folder, started_in=None):
    if started_in is not None:  # no project named: the working directory, the roots later
        os.chdir(started_in)
    del asked[:]
    s.KenningTools(folder).warm_up()
    return ["onnxruntime" in sys.modules, bool(asked)]
warm = {
    "named bare": warmed(bare),
    "named no-checkout": warmed(no_checkout),
    "started in bare": warmed(None, bare),
    "started in no-checkout": warmed(None, no_checkout),
    "named kept": warmed(kept),
}
print(json.dumps({"built": built, "warm": warm}))
"""


@pytest.fixture(scope="module")
def fresh_interpreter(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What :data:`FRESH_INTERPRETER` found in three folders: a checkout without a store,
    a folder that is no checkout, a checkout with a store's file (no note)."""
    tmp_path = tmp_path_factory.mktemp("start")
    bare = make_repo(tmp_path / "bare")
    kept = make_repo(tmp_path / "kept")
    (tmp_path / "no-checkout").mkdir()
    open_store(cwd=kept).close()
    found = run_python(FRESH_INTERPRETER, str(bare), str(tmp_path / "no-checkout"), str(kept))
    assert isinstance(found, dict)
    return found


def test_the_server_is_built_without_the_store_s_code(fresh_interpreter: dict[str, Any]) -> None:
    """The store's code (numpy with it, ~0.1 CPU-s) is the first tool call's or the
    warm-up's, not the first answer's."""
    assert fresh_interpreter["built"] == []


def test_the_warm_up_loads_the_model_only_for_a_project_with_a_store(
    fresh_interpreter: dict[str, Any],
) -> None:
    """Without a store a read answers empty results without the model: a session that stores
    nothing never loads it (the first hooks_remember does). Started outside any checkout
    with nothing named, the client's roots will name the project (Codex's and Cursor's
    user-scope servers): warmed up, as before 23066603 (qa80 F2); with a project named
    that is no checkout, not. (Each entry: onnxruntime imported by then, the model asked
    for by this warm-up.)"""
    assert fresh_interpreter["warm"] == {
        "named bare": [False, False],
        "named no-checkout": [False, False],
        "started in bare": [False, False],
        "started in no-checkout": [True, True],
        "named kept": [True, True],
    }


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/<pid>/maps")
def test_a_server_in_a_project_with_a_store_warms_the_model_after_its_first_answer(
    tmp_path: Path,
) -> None:
    """The warm-up still runs, in the background, once ``initialize`` is answered: the
    first recall does not wait for the model to load.

    Started with a CLAUDE_PROJECT_DIR that is no folder and KENNING_LOG_LEVEL=ERROR, it
    serves the folder it starts in and says nothing: the warning that the variable is
    ignored goes through the server's log level
    (test_first_calls_sent_together_each_get_their_answer's second server is the other
    half, at WARNING; a server of its own cost ~0.8 CPU-s).

    Then Ctrl-C, stdin still open: `kenning mcp` run in a terminal (or stopped by a client
    with SIGINT) went on after the first Ctrl-C until a line came in on stdin or stdin
    closed (serving waited for the read in progress). It exits 130 at once, as every
    command does (a server of its own in test_mcp_robustness cost ~0.7 CPU-s)."""
    project = make_repo(tmp_path / "proj")
    open_store(cwd=project).close()
    env = {
        **os.environ,
        "CLAUDE_PROJECT_DIR": str(tmp_path / "nope"),
        "KENNING_LOG_LEVEL": "ERROR",
    }
    errlog = tmp_path / "err.log"
    with errlog.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kenning", "mcp"],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    assert proc.stdin is not None and proc.stdout is not None
    maps = Path(f"/proc/{proc.pid}/maps")
    try:
        proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        deadline = time.monotonic() + 60
        while "onnxruntime" not in maps.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "onnxruntime" in maps.read_text(), "no model warm-up after the first answer"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130
    finally:
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    assert errlog.read_text() == "", errlog.read_text()


#: A client's first calls sent together, right after ``initialize`` (as a session's start
#: asks several tools at once): each of them on a worker thread, beside the warm-up's.
FIRST_CALLS = [
    ("hooks_recall", {"query": "database is locked"}),
    ("search_memories", {"query": "database locked"}),
    ("hooks_stats", {}),
    ("hooks_capabilities", {}),
    ("read_source", {"path": "README.md"}),
    ("hooks_remember", {"content": "ERROR-FIX: database is locked | FIX: enable WAL"}),
    ("forget", {"id": "01a24db0-e527-0000-0000-000000000000"}),
]


def test_first_calls_sent_together_each_get_their_answer(tmp_path: Path) -> None:
    """The store's code is imported by the first calls and the warm-up on several threads
    at once: imported without one lock, Python's per-module import locks deadlocked, and a
    first call failed (``_DeadlockError … _ModuleLock('kenning.embedders')``, ``cannot
    import name 'NewMemory'`` from a half-imported ``kenning.store``) or the warm-up died
    with a traceback on stderr, in 4 of 50 starts (qa80 F1). A race, which this guard of
    the first calls' answers sees only rarely: :func:`test_the_tools_import_late_only_what_the_lock_imports`
    holds what rules it out.

    Every request is written before stdin closes (a script piping them in): a client that
    did so got nothing but the initialize answer, the notes stored and the answers never
    written. Three notes and a ping after the first calls are answered too (they had a
    server of their own in test_mcp_robustness, ~1 CPU-s).

    The second server is started with a CLAUDE_PROJECT_DIR that is no folder, at
    KENNING_LOG_LEVEL=WARNING: it serves the folder it starts in, and the one line it logs
    is the warning that the variable is ignored, in the server's log format (qa80 F3: it was
    logged before the server's logging was set up, bare, and even at ERROR; a server of its
    own cost ~0.7 CPU-s; at ERROR it says nothing:
    test_a_server_in_a_project_with_a_store_warms_the_model_after_its_first_answer).

    The first server is started as Claude Code starts a user-scope server: in any folder
    (here /), with CLAUDE_PROJECT_DIR naming the project. It serves that project (its
    hooks_stats names the project's store) and writes its notes there, none in the folder
    it runs in (a server of its own, in test_mcp_project, cost ~1 CPU-s)."""
    project = make_repo(tmp_path / "proj")
    open_store(cwd=project).close()
    missing = str(tmp_path / "nope")
    clean = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    named = {**clean, "CLAUDE_PROJECT_DIR": str(project)}
    ignored = {**clean, "CLAUDE_PROJECT_DIR": missing, "KENNING_LOG_LEVEL": "WARNING"}
    first_calls = [
        {
            "jsonrpc": "2.0",
            "id": 10 + i,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        for i, (name, arguments) in enumerate(FIRST_CALLS)
    ]
    for run in range(2):
        notes = [
            f"Service {n} restarts nightly at 0{n}:00 UTC." for n in range(3 * run, 3 * run + 3)
        ]
        then = [
            {
                "jsonrpc": "2.0",
                "id": 20 + k,
                "method": "tools/call",
                "params": {"name": "hooks_remember", "arguments": {"content": note}},
            }
            for k, note in enumerate(notes)
        ]
        requests = [
            INITIALIZE,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            *first_calls,
            *then,
            {"jsonrpc": "2.0", "id": 30, "method": "ping"},
        ]
        sent = "".join(json.dumps(r) + "\n" for r in requests)
        proc = served(project, ignored, sent) if run else served(Path("/"), named, sent)
        assert proc.returncode == 0, proc.stderr[-3000:]
        if run:
            (line,) = proc.stderr.splitlines()
            assert line.endswith(
                f" WARNING kenning.mcp: CLAUDE_PROJECT_DIR={missing} is not a folder; ignoring it"
            ), line
            assert line[:4].isdigit() and line[4] == "-", line  # the record's time first
        else:
            assert proc.stderr == "", proc.stderr[-3000:]
        answers = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines()) if "id" in a}
        assert sorted(answers) == [1, *range(10, 10 + len(FIRST_CALLS)), 20, 21, 22, 30]
        for i, (name, _) in enumerate(FIRST_CALLS):
            result = answers[10 + i]["result"]
            text = result["content"][0]["text"]
            # forget of an id not stored is a tool error by design; every other call answers
            assert result.get("isError", False) == (name == "forget"), (name, text)
            assert "unexpectedly" not in text, (name, text)
        for k in range(len(notes)):
            assert answers[20 + k]["result"]["structuredContent"]["status"] == "stored"
        if not run:  # started in /: the project CLAUDE_PROJECT_DIR names is served
            stats = answers[10 + [name for name, _ in FIRST_CALLS].index("hooks_stats")]
            served_store = stats["result"]["structuredContent"]["intel_path"]
            assert served_store == str(project / ".kenning" / "memory.db"), stats
            with open_store(cwd=project, create=False) as store:
                kept = {r.memory.content for r in store.backend.iterate(Filters())}
            assert set(notes) <= kept, kept
            assert not Path("/.kenning").exists()


def test_the_tools_import_late_only_what_the_lock_imports() -> None:
    """What makes the race above impossible: every module the server's code imports inside a
    function (after the first answer, on whichever thread runs it) is imported at the top of
    the module, or is one of ``LATE_MODULES``, which the first tool call and the warm-up
    import under one lock before anything else (``import_late_modules``)."""
    import ast

    import kenning.mcp_server as server

    tree = ast.parse(Path(server.__file__).read_text(encoding="utf-8"))
    top = {
        f"kenning.{node.module}" if node.module else "kenning"
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1
    }
    late = {
        f"kenning.{node.module}" if node.module else "kenning"
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.ImportFrom) and node.level == 1
    }
    assert late - top - {"kenning"} <= set(server.LATE_MODULES), sorted(
        late - top - {"kenning"} - set(server.LATE_MODULES)
    )


# A CLAUDE_PROJECT_DIR that is no folder is logged in the server's format and level:
# test_first_calls_sent_together_each_get_their_answer's second server (at WARNING) and
# test_a_server_in_a_project_with_a_store_warms_the_model_after_its_first_answer's (at ERROR).
