"""Which project ``kenning mcp`` serves when it is not started inside it: ``--project-dir``,
then ``CLAUDE_PROJECT_DIR``, then the client's MCP roots, then the working directory — the
real server over stdio, driven by the official SDK's client (which answers ``roots/list``),
and for the order among them and the errors, the server ``kenning mcp`` builds, started
in-process with the working directory, environment and option given (:func:`started`)."""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import CallToolResult, InitializeResult, ListRootsResult, Root

from kenning.mcp_server import KenningTools, build_server

from .cli_runner import run_cli
from .conftest import make_repo

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")  # module-wide: the shared server's event loop lives as long
def anyio_backend() -> str:
    return "asyncio"


class Roots:
    """What the test client answers to ``roots/list`` (a folder, or a root as it is);
    counts the requests."""

    def __init__(self, *folders: Path | Root) -> None:
        self.folders = list(folders)
        self.asked = 0

    async def __call__(self, _context: Any) -> ListRootsResult:
        self.asked += 1
        return ListRootsResult(
            roots=[
                f if isinstance(f, Root) else Root(uri=f.as_uri(), name=f.name)
                for f in self.folders
            ]
        )


@asynccontextmanager
async def connect(
    cwd: Path,
    errlog: Path,
    *args: str,
    env: dict[str, str] | None = None,
    roots: Roots | None = None,
) -> AsyncIterator[ClientSession]:
    base = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kenning", "mcp", *args],
        cwd=str(cwd),
        env={**base, **(env or {})},
    )
    with errlog.open("a", encoding="utf-8") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, list_roots_callback=roots) as session,
        ):
            with anyio.fail_after(120):
                await session.initialize()
            yield session


@asynccontextmanager
async def started(
    cwd: Path,
    project_dir: Path | None = None,
    *,
    env: dict[str, str] | None = None,
    roots: Roots | None = None,
) -> AsyncIterator[Client]:
    """The server ``kenning mcp`` builds (:func:`kenning.mcp_server.serve`'s tools and server),
    started in-process as the process would be: in ``cwd``, with ``env`` added to the
    environment and ``--project-dir`` as ``project_dir``, driven by the SDK's client over its
    in-memory transport. Which project it serves is worked out from those at start and from
    the client's roots, not from anything of the process: each ``kenning mcp`` cost ~2 CPU-s
    to start (the SDK's imports, the model's warm-up). The process's own option, variable,
    working directory and roots are each tested over stdio too (test_mcp.py's
    ``--project-dir``, test_mcp_start.py's first calls, the shared server)."""
    with pytest.MonkeyPatch.context() as mp:
        for key, value in (env or {}).items():
            mp.setenv(key, value)
        mp.chdir(cwd)
        tools = KenningTools(project_dir)
        try:
            # "legacy": the initialize handshake, as the stdio client does; the newer
            # in-process path has no channel for the server's roots/list request
            client = Client(build_server(tools), mode="legacy", list_roots_callback=roots)
            async with client:
                yield client
        finally:
            tools.close()


async def call(session: ClientSession | Client, tool: str, **arguments: Any) -> CallToolResult:
    with anyio.fail_after(120):
        return await session.call_tool(tool, arguments)


@dataclass
class Shared:
    session: ClientSession
    init: InitializeResult
    roots: Roots
    errlog: Path


def installed_entry(folder: Path) -> tuple[str, list[str]]:
    """The command and arguments ``kenning install claude-code`` registers for ``folder``
    (local scope, this venv's ``kenning`` named): what Claude Code starts."""
    home = folder / "home"
    home.mkdir()
    exe = str(Path(sys.executable).parent / "kenning")
    installed = run_cli(
        folder,
        *("install", "claude-code", "--executable", exe),
        env={"HOME": str(home), "CLAUDE_CONFIG_DIR": None},
    )
    assert installed.returncode == 0, installed.stderr
    config = json.loads((home / ".claude.json").read_text())
    entry = config["projects"][str(folder.resolve())]["mcpServers"]["kenning"]
    return entry["command"], entry["args"]


@pytest.fixture(scope="module")
async def shared(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> AsyncIterator[Shared]:
    """One server for a module's tests that only call tools and read answers: each
    ``kenning mcp`` costs ~2 s of CPU to start (the SDK's imports; the model ~0.5 s more).
    It runs in a folder that is no checkout and serves the client's MCP roots, which each
    test points at its own fresh project (:func:`served`), so no test sees another's notes.
    Tests about the process itself (its options, its pipes, its environment) start their own.
    A module that sets ``SHARED_SERVER_AS_INSTALLED`` has it started as the install
    registers it (:func:`installed_entry`), else as ``python -m kenning mcp``."""
    folder = tmp_path_factory.mktemp("mcp-shared")
    # built before the tests' own fixtures clean the environment: clean it here
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "CLAUDE_PROJECT_DIR"
        and (not k.startswith("KENNING_") or k in ("KENNING_CACHE_DIR", "KENNING_MODEL_DIR"))
    }
    command, args = sys.executable, ["-m", "kenning", "mcp"]
    if getattr(request.module, "SHARED_SERVER_AS_INSTALLED", False):
        command, args = installed_entry(folder)
    params = StdioServerParameters(command=command, args=args, cwd=str(folder), env=env)
    roots = Roots()
    errlog = folder / "err.log"
    with errlog.open("a", encoding="utf-8") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, list_roots_callback=roots) as session,
        ):
            with anyio.fail_after(120):
                init = await session.initialize()
            yield Shared(session, init, roots, errlog)


async def follow(shared: Shared, project: Path, *roots: Path | Root) -> None:
    """Make ``roots`` (else ``project`` alone) the shared server's roots and wait until it
    serves ``project``."""
    shared.roots.folders = list(roots or [project])
    if shared.roots.asked:  # else its first call asks them
        with warnings.catch_warnings():  # roots are deprecated in a protocol version to come
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await shared.session.send_roots_list_changed()
    # until the server reads the notification it answers with the last test's project
    for _ in range(300):  # 30 s
        stats = await call(shared.session, "hooks_stats")
        if not stats.is_error and (stats.structured_content or {})["intel_path"] == store_of(
            project
        ):
            return
        await anyio.sleep(0.1)
    pytest.fail(f"the shared server never served {project}: {stats.content}")


@asynccontextmanager
async def served(shared: Shared, project: Path) -> AsyncIterator[ClientSession]:
    """The shared server, serving ``project`` (its only root) from now on."""
    await follow(shared, project)
    yield shared.session


def log_since(errlog: Path, start: int) -> str:
    """What the server logged from byte ``start`` on (a shared server's log is its module's)."""
    with errlog.open("rb") as log:
        log.seek(start)
        return log.read().decode("utf-8", "replace")


async def intel_path(session: ClientSession | Client) -> str:
    result = await call(session, "hooks_stats")
    assert not result.is_error, result.content
    data = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return str(data["intel_path"])


def store_of(project: Path) -> str:
    return str(project / ".kenning" / "memory.db")


# The tests of the client's roots on a running server (the first checkout among them is
# served, a change is followed, a root the SDK cannot read or too long for the OS is passed
# over) are in test_mcp.py, on its module's server: this module would start one for them alone.


@pytest.fixture
def other(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "other", remote="git@github.com:Acme/Other.git")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "not-a-repo"
    folder.mkdir()
    return folder.resolve()


async def test_precedence(project: Path, other: Path, outside: Path, tmp_path: Path) -> None:
    third = make_repo(tmp_path / "third")
    roots = Roots(third)
    env = {"CLAUDE_PROJECT_DIR": str(other)}
    async with started(outside, project, env=env, roots=roots) as s:
        assert await intel_path(s) == store_of(project)
    async with started(outside, env=env, roots=roots) as s:
        assert await intel_path(s) == store_of(other)
    assert roots.asked == 0  # never asked when the project is already named
    async with started(outside, roots=roots) as s:
        assert await intel_path(s) == store_of(third)
    assert roots.asked == 1
    async with started(project, roots=Roots(outside)) as s:  # no root is a checkout
        assert await intel_path(s) == store_of(project)


async def test_no_project_is_a_readable_tool_error(
    outside: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # what the server would log to stderr, and more
    for roots in (None, Roots(outside)):
        async with started(outside, roots=roots) as s:
            for tool, arguments in [
                ("hooks_stats", {}),
                ("hooks_capabilities", {}),
                ("hooks_recall", {"query": "database is locked"}),
                ("hooks_remember", {"content": "a note"}),
            ]:
                result = await call(s, tool, **arguments)
                assert result.is_error, (tool, result)
                text = result.content[0].text  # type: ignore[union-attr]
                assert "no project to serve" in text, text
                assert "--project-dir" in text and "CLAUDE_PROJECT_DIR" in text, text
                assert str(outside) in text
    assert "Traceback" not in caplog.text
    assert not (outside / ".kenning").exists()


async def test_claude_project_dir_outside_git_says_where_it_came_from(outside: Path) -> None:
    env = {"CLAUDE_PROJECT_DIR": str(outside)}
    async with started(Path("/"), env=env) as s:
        result = await call(s, "hooks_recall", query="database is locked")
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert f"{outside} (CLAUDE_PROJECT_DIR)" in text and "--project-dir" in text


async def test_a_project_dir_moved_away_is_every_tool_s_error(outside: Path) -> None:
    """qa-s64b T1: a ``--project-dir`` that does not exist (the checkout moved or renamed
    since the client's config named it, a typo) or names a file was a usage error before the
    handshake: the client showed "Failed to connect", the agent no tools and no reason. The
    option takes it, and every tool says what is wrong and how to fix it."""
    from kenning.cli import mcp

    moved, file = outside / "moved-away", outside / "notes.txt"
    file.write_text("x")
    for folder, what in ((moved, "does not exist"), (file, "is a file, not a folder")):
        with mcp.make_context("mcp", ["--project-dir", str(folder)]) as ctx:
            assert ctx.params["project_dir"] == str(folder)
        async with started(outside, folder) as s:
            result = await call(s, "hooks_recall", query="database is locked")
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert f"{folder} (--project-dir) {what}" in text and "--project-dir" in text, text
    assert not moved.exists()


async def test_a_project_dir_with_a_tilde_is_the_user_s_home(project: Path, outside: Path) -> None:
    """A client starts the server without a shell: ``--project-dir ~/src/widgets`` came as
    written, a folder "~" under the working directory that does not exist (qa-s64c U5)."""
    env = {"HOME": str(project.parent)}
    async with started(outside, Path("~") / project.name, env=env) as s:
        result = await call(s, "hooks_stats")
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["proj%41", "with space", "ünïcode", "a#b?c"])
def test_a_root_uri_names_exactly_its_folder(tmp_path: Path, name: str) -> None:
    """A root is a file:// URI with its folder's name percent-encoded once; decoding it twice
    turned "proj%41" into "projA", an unrelated repository beside it."""
    from kenning.mcp_server import _folder_of_root

    folder = tmp_path / name
    assert _folder_of_root(folder.as_uri()) == folder
    assert _folder_of_root("https://example.com/x") is None


@pytest.mark.parametrize(
    ("uri", "windows", "posix"),
    [
        # VS Code's spelling: the drive's colon escaped (and a lower-case drive letter)
        ("file:///c%3A/Users/me/proj", "C:\\Users\\me\\proj", "/c:/Users/me/proj"),
        ("file:///C%3a/work/a%20b", "C:\\work\\a b", "/C:/work/a b"),
        ("file:///d%3A/", "D:\\", "/d:/"),
        ("file:///C:/Users/me/proj", "C:\\Users\\me\\proj", "/C:/Users/me/proj"),
        # not a drive: only a letter and the colon, at the path's start, are one
        ("file:///cd%3A/x", "\\cd:\\x", "/cd:/x"),
        ("file:///home/me/c%3A/x", "\\home\\me\\c:\\x", "/home/me/c:/x"),
    ],
)
def test_a_windows_root_with_its_drive_escaped_names_that_drive(
    uri: str, windows: str, posix: str
) -> None:
    """VS Code sends a Windows root as file:///c%3A/Users/me/proj. Python's nturl2path read
    that as \\c:\\Users\\me\\proj, a folder named "c:" at the current drive's root: on
    Windows the server looked for the project in a folder that does not exist. Read with
    each OS's own url2pathname."""
    import nturl2path
    import urllib.request

    from kenning.mcp_server import local_path_of_root

    assert local_path_of_root(uri, nturl2path.url2pathname) == windows
    if os.name != "nt":
        assert local_path_of_root(uri, urllib.request.url2pathname) == posix


async def test_a_checkout_git_refuses_is_named_as_such(tmp_path: Path) -> None:
    """A checkout owned by another user, which git refuses (``safe.directory``): the tool
    error gives git's reason and its fix, not "not inside a git repository" around it."""
    root = make_repo(tmp_path / "mounted", remote="https://github.com/acme/widgets")
    env = {"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}  # git's own switch for another owner
    async with started(root, env=env) as s:
        result = await call(s, "hooks_recall", query="database is locked")
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "safe.directory" in text and "not inside a git repository" not in text, text


async def test_a_claude_project_dir_outside_git_gives_way_to_a_checkout(
    project: Path, other: Path, outside: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Claude Code started in a folder that holds checkouts but is none (a workspace) sets
    CLAUDE_PROJECT_DIR to it: the hooks then serve the cwd's checkout, but the server took
    the variable as the project and every tool said "not inside a git repository", though it
    ran in a checkout or the client's roots named one. It gives way to both now; a variable
    too long for the OS (the server did not even start: File name too long) is ignored."""
    caplog.set_level(logging.DEBUG)  # what the server would log to stderr, and more
    env = {"CLAUDE_PROJECT_DIR": str(outside)}
    async with started(project, env=env) as s:
        assert await intel_path(s) == store_of(project)
    async with started(outside, env=env, roots=Roots(outside, other)) as s:
        assert await intel_path(s) == store_of(other)
    async with started(project, env={"CLAUDE_PROJECT_DIR": "/tmp/" + "a" * 5_000}) as s:
        assert await intel_path(s) == store_of(project)
    assert "Traceback" not in caplog.text
    assert not (outside / ".kenning").exists()


async def test_a_project_dir_is_named_as_written(outside: Path) -> None:
    """qa-s64c U5: a link to a moved checkout was named by its old target, a path the
    client's config never mentions, and a space at the path's end did not show."""
    old = outside / "old-location"
    link = outside / "link-to-proj"
    link.symlink_to(old, target_is_directory=True)
    async with started(outside, link) as s:
        result = await call(s, "hooks_stats")
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error
    assert f"{link}, that is {old} (--project-dir) does not exist" in text, text

    (outside / "proj").mkdir()
    spaced = f"{outside / 'proj'} "
    async with started(outside, Path(spaced)) as s:
        result = await call(s, "hooks_stats")
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error
    assert f"{spaced!r} (--project-dir) does not exist" in text, text
    assert f"without the spaces at its ends, {outside / 'proj'} is a folder" in text, text
