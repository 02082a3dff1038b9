"""Shared fixtures: real git projects in temp folders, real SQLite stores, the real model."""

from __future__ import annotations

import atexit
import compileall
import contextlib
import fcntl
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

from kenning import MemoryStore, open_store
from kenning.embedders import load_embedder
from kenning.embedders.base import Embedder

REPO_ROOT = Path(__file__).resolve().parent.parent
EVAL_DIR = REPO_ROOT.parent / "shared" / "eval"
#: ``KENNING_EVAL_ABSENT=1`` declares a checkout without ../shared/eval: the tests that read
#: it are then skipped. Without it a missing folder fails them (CI has the data; a test
#: that silently skips there proves nothing). Read at collection, before ``_clean_env``.
EVAL_ABSENT = os.environ.get("KENNING_EVAL_ABSENT", "") not in ("", "0")

# No per-example deadline: the property tests assert what comes out, not how fast (speed is
# measured by bench/ and the linear-time tests). On a shared 2-core machine one example of a
# redaction property once took 476 ms against hypothesis' default 200 ms and failed the run.
settings.register_profile("kenning", deadline=None)
settings.load_profile("kenning")

#: The characters ``st.text()`` draws by default (``st.characters(codec="utf-8")``: every code
#: point but the surrogates, U+D800-U+DFFF, the same intervals), as ``st.text(TEXT_CHARACTERS,
#: ...)``. Hypothesis finds which characters a codec encodes by encoding each of the 1.1
#: million (~1.3 CPU-s) in each process that lacks its table in ``.hypothesis``, as a fresh
#: checkout does: in CI two of the three workers each paid it; a category is looked up in
#: the table Unicode gives (~0.01 CPU-s).
TEXT_CHARACTERS = st.characters(exclude_categories=("Cs",))


# Also loaded first by pyproject's addopts; named here so that a run without them (``-o
# addopts=``) still keeps the rewritten test modules.
pytest_plugins = ["tests.rewrite_cache"]


def pytest_configure(config: pytest.Config) -> None:
    # Started in the background from a script (`pytest … &`), the run gets SIGINT ignored
    # from its shell, and so does every process it starts: the tests of what Ctrl-C does
    # (tests/test_cli_errors.py, tests/test_embedder.py) then see no Ctrl-C at all and fail.
    # Each process of the suite (workers too) takes Python's own handler back.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _one_model_thread()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # once, in the process that starts the workers
    _temporary_folders_in_ram()
    _git_config_of_its_own()
    # Byte-compile the project's own modules before any process imports them. Where
    # PYTHONDONTWRITEBYTECODE is set (as on the shared machines) no import writes a .pyc, so
    # each of the suite's few hundred `python -m kenning` / `python -m bench` processes
    # compiled every module it imports again (~0.1 s CPU each; all of src/ and bench/
    # compile once in ~0.2 s). Up-to-date .pyc files are left as they are.
    for package in ("src/kenning", "bench"):
        compileall.compile_dir(REPO_ROOT / package, quiet=1)


def _one_model_thread() -> None:
    """MiniLM loaded in the suite's own processes runs on one onnxruntime thread, not the
    product's two. The suite runs a worker per core and one more, so a second thread finds
    no free core: it only adds its hand-offs (measured on 2 busy cores: 300 lone texts
    2.5-2.8 -> 2.2-2.4 CPU-s, a batch of 600 4.1 -> 3.6). The vectors are the same bits
    (500 lone texts and a batch of 1,500 eval texts, compared with both). The processes
    the tests start (CLI, hooks, the MCP server) keep the product's setting."""
    from kenning.embedders import minilm

    minilm.INTRA_OP_THREADS = 1


#: Room the RAM folder must have free for the suite's temporary folders to go there: they
#: held up to 1.4 GB in a whole run before passed tests' folders were removed as they end
#: (pyproject's tmp_path_retention_policy), and the tests' PostgreSQL servers keep their
#: files there too (bench/postgres_server.py).
SUITE_RAM_ROOM = 4 << 30


def _temporary_folders_in_ram() -> None:
    """The suite's temporary folders (``tmp_path``, and ``TMPDIR`` for every process it starts,
    the xdist workers too) in a RAM-backed tmpfs when one has room and ``TMPDIR`` does not name
    another folder. Thousands of tests each make a git repository and a SQLite store: on this
    machine's ext4 a store's open, first write and close took ~70 ms of wall time (its
    syncs, its files' creation), ~25 ms in /dev/shm, for the same CPU. The files, their locks
    and SQLite's writes are as real there; the tests of a full disk or a read-only one mount
    small tmpfs folders of their own."""
    if os.environ.get("TMPDIR"):
        return
    from bench.postgres_server import _ram_folder

    ram = _ram_folder(SUITE_RAM_ROOM)
    if ram is None:
        return
    os.environ["TMPDIR"] = ram
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def _git_config_of_its_own() -> None:
    """Every git the suite runs (its own, kenning's, the agents') reads a global config of the
    suite's, an author and nothing else, instead of the user's ``~/.gitconfig``: a
    ``safe.directory = *`` there let git trust a checkout another user owns, which the tests
    of git's refusal need it to refuse (hooks, aliases and the like would change what the
    tests see too). Readable by the other user some tests run kenning as; removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="kenning-test-git-"))
    atexit.register(shutil.rmtree, folder, True)
    folder.chmod(0o755)
    config = folder / "gitconfig"
    config.write_text("[user]\n\tname = t\n\temail = t@example.com\n")
    config.chmod(0o644)
    os.environ["GIT_CONFIG_GLOBAL"] = str(config)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's addopts): one worker more than there are cores. Many tests
    spend seconds waiting (for a subprocess to start, a server, a kill's pause), and a
    spare worker keeps the cores busy meanwhile: on 2 cores the suite took 241–247 s with
    2 workers and 212–219 s with 3, back to back. ``--maxprocesses`` still caps it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.option.numprocesses != "auto":
        return None  # xdist's own hook: the variable, or ``-n logical``
    return usable_cpus() + 1


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The longest tests (marked slow) first. Under pytest-xdist's ``--dist worksteal``
    # (pyproject's addopts) each worker starts with a contiguous block of tests, so modules
    # stay together and their module fixtures are mostly built once; a worker that runs out
    # takes the tail of another's queue, so a slow test is never the last one left.
    # (``--dist loadgroup`` would pin modules to a worker, but xdist 3.8 renames the node ids
    # it groups by in a way pytest 9.2 ignores: the groups are silently not kept.)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    # What the imports and the collection made (modules, test items, fixtures' definitions)
    # lives to the end of the run: it is put out of the cyclic collector's reach
    # (gc.freeze), and collections are made ten times rarer than Python's default: the
    # youngest generation's after 7,000 new container objects, not 700 (a few MB at most), and
    # full ones after 100 of the middle's, not 10. A worker spent ~5 % of its CPU collecting:
    # a gc.callbacks hook's thread time over test_cli, test_store, test_damaged_rows and
    # test_render (-n0) was 1.34-1.41 s of 24-26 CPU-s, 1.21 s with the freeze alone, 0.70 s
    # with the freeze and rarer full collections, 0.42-0.44 s (against 0.57-0.76, alternated)
    # with the youngest's rarer too.
    gc.collect()
    gc.freeze()
    gc.set_threshold(7_000, 10, 100)  # Python's default: 700, 10, 10


def pytest_unconfigure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker (not a pytest a test starts)
        atexit.register(_end_the_worker_after_its_exit_handlers)


#: Set once :func:`_end_the_worker_after_its_exit_handlers` has begun.
_WORKER_ENDING: list[bool] = []


def _end_the_worker_after_its_exit_handlers() -> None:
    """A worker, its session ended and reported, runs every exit handler (the servers it
    started stopped, its folders removed, its forker ended) and then ends, without the
    interpreter's teardown: freeing each module and object a whole run made, with a full
    collection or more of a heap the size of every test module's. That took ~0.3-0.8 CPU-s
    a worker and the same wall at the run's end, where the controller waits for every
    worker to end. Registered last, so called first: it runs the others itself, in their
    order. pytest-xdist reads a worker's exit status from the worker's last report, not
    from its process."""
    if _WORKER_ENDING:
        return  # called again by the run below (registered through a wrapper of its own)
    _WORKER_ENDING.append(True)
    atexit.unregister(_end_the_worker_after_its_exit_handlers)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a stream closed or gone: nothing to flush
            stream.flush()
    os._exit(0)


def needs_eval(path: Path) -> pytest.MarkDecorator:
    """Mark a test that reads ``path`` (a file or folder of the evaluation data)."""
    return pytest.mark.eval_data(path)


@pytest.fixture(autouse=True)
def _eval_data_present(request: pytest.FixtureRequest) -> None:
    for marker in request.node.iter_markers("eval_data"):
        path = Path(marker.args[0])
        if path.exists():
            continue
        if EVAL_ABSENT:
            pytest.skip(f"{path} is absent and KENNING_EVAL_ABSENT says so")
        pytest.fail(
            f"evaluation data not found at {path}: link the shared eval folder as "
            "../shared/eval next to the repository (see docs/development.md), or set KENNING_EVAL_ABSENT=1 "
            "to skip the tests that need it",
            pytrace=False,
        )


@contextlib.contextmanager
def calls_of(function: Callable[..., Any], argument: str) -> Iterator[list[Any]]:
    """The ``argument`` of each call of ``function`` meanwhile, in this thread and in the
    threads started meanwhile, seen by a profile hook (nothing of kenning's is replaced;
    a profile hook already set, an outer ``calls_of``, still sees every call)."""
    code = function.__code__
    seen: list[Any] = []
    previous = sys.getprofile()

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            seen.append(frame.f_locals[argument])
        if previous is not None:
            previous(frame, event, arg)

    threading.setprofile(hook)
    sys.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
        threading.setprofile(previous)  # type: ignore[arg-type]


@contextlib.contextmanager
def texts_redacted() -> Iterator[list[str]]:
    """The texts given to kenning's redaction (``redact_secrets``) meanwhile
    (:func:`calls_of`): what a test checks to show a costly redaction is not made."""
    from kenning.redaction import redact_secrets

    with calls_of(redact_secrets, "text") as seen:
        yield seen


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    out = subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env
    )
    return out.stdout


def logging_git(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file each git kenning runs from now on logs its command to (``rev-parse``,
    ``remote``: one a line), through a ``git`` first on PATH that then runs the real one."""
    real = shutil.which("git")
    assert real is not None
    (folder / "bin").mkdir()
    log = folder / "git-runs.log"
    shim = folder / "bin" / "git"
    shim.write_text(f'#!/bin/sh\necho "$1" >> {str(log)!r}\nexec {real!r} "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    log.touch()
    return log


_MADE_ONCE: dict[tuple[str, object], Path] = {}


def made_once(name: str, key: object, make: Callable[[Path], object]) -> Path:
    """A folder this process fills once, by ``make(folder)``, for tests to copy what costs
    more to make (git commands) than to copy; one for each ``key`` under ``name``, removed
    at exit. A ``make`` that fails is tried again by the next call, in a folder of its own."""
    folder = _MADE_ONCE.get((name, key))
    if folder is None:
        made = Path(tempfile.mkdtemp(prefix=f"kenning-test-{name}-"))
        atexit.register(shutil.rmtree, made, True)
        make(made)
        folder = _MADE_ONCE[(name, key)] = made
    return folder


def make_repo(path: Path, remote: str | None = None) -> Path:
    """A git repository at ``path`` with one commit (README.md) and ``remote`` as origin."""
    # One repository per remote, built with git once per process and copied for each test:
    # the four git commands cost ~90 ms of wall time (~17 ms CPU) a repository, a copy ~5 ms
    # (~2 ms), and hundreds of tests need a fresh project. The copy is a whole repository
    # (what git needs of one: OPTIONAL_GIT_PARTS are left out).
    template = made_once("repo", remote, lambda base: _init_repo(base / "repo", remote)) / "repo"
    path.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template, path, symlinks=True, dirs_exist_ok=True)
    return path.resolve()


def _init_repo(path: Path, remote: str | None) -> Path:
    if remote:
        # The repository without a remote, copied, and the remote added: one git command,
        # not four, for each of the suite's many remotes (test_project's tests of how each
        # host's URLs name a project make a repository a URL). The same files and config;
        # its commit is the plain one's (each remote's had been made in a second of its own).
        plain = made_once("repo", None, lambda base: _init_repo(base / "repo", None)) / "repo"
        shutil.copytree(plain, path, symlinks=True)
        git(path, "remote", "add", "origin", remote)
        return path.resolve()
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("x\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "init")
    for optional in OPTIONAL_GIT_PARTS:
        part = path / ".git" / optional
        if part.is_dir():
            shutil.rmtree(part)
        else:
            part.unlink(missing_ok=True)
    return path.resolve()


#: What ``git init`` and the first commit leave in ``.git`` that git reads only for a
#: feature none of the suite's repositories uses before it writes it again itself (hooks'
#: samples, gitweb's description, the info/exclude of comments only, the reflog of that
#: commit, the commit's message, empty folders for tags, alternates and old remotes): left
#: out of the template every test's project is a copy of, since copying and then removing
#: a repository cost in proportion to its files and folders: 13 files and 17 folders each
#: copy ~2.7 ms CPU and each removal ~0.7, 8 files and 9 folders ~1.7 and ~0.4 (300 copies
#: of each in /dev/shm, alternated 4x). What is left is what git needs to see a repository
#: and its commit (HEAD, config, index, objects, refs); git makes each part again as
#: needed (a commit writes the reflog, a tag its folder).
OPTIONAL_GIT_PARTS = (
    "hooks", "description", "info", "logs", "COMMIT_EDITMSG", "branches", "objects/info",
    "refs/tags",
)  # fmt: skip


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("KENNING_") and key not in ("KENNING_CACHE_DIR", "KENNING_MODEL_DIR"):
            monkeypatch.delenv(key, raising=False)
    # set when the suite runs inside Claude Code; a test that wants it sets it
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temp folder of the whole session, the same for every pytest-xdist worker (each
    worker's own temp folder is inside it)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the workers' temp folders are siblings in the session's
    return root


def written_once_per_session(root: Path, name: str, write: Callable[[Path], None]) -> Path:
    """The file ``root / name``, written by ``write(path)`` for the first pytest-xdist worker
    that asks (under a lock; to a temporary name, then renamed, so a worker killed meanwhile
    leaves nothing a later one would read) and only read by the others."""
    path = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            partial = root / f".partial-{name}"  # the same suffix: np.save adds .npy else
            write(partial)
            partial.replace(path)
    return path


def shared_between_workers(
    tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[], np.ndarray]
) -> np.ndarray:
    """``compute()``'s array, computed by the first pytest-xdist worker that asks and read
    from the session's shared temp folder by the others (each worker would otherwise
    compute the same thing again: a module fixture is built once per worker)."""
    root = session_folder(tmp_path_factory)
    return np.load(written_once_per_session(root, f"{name}.npy", lambda p: np.save(p, compute())))


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    return load_embedder("minilm")


#: The origin of the ``project`` fixture's repository (its memories' project id).
PROJECT_REMOTE = "git@github.com:Acme/Widgets.git"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "proj", remote=PROJECT_REMOTE)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def store(project: Path, minilm: Embedder) -> Iterator[MemoryStore]:
    s = open_store(cwd=project, embedder=minilm)
    yield s
    s.close()
