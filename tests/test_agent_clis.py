"""The real agent CLIs read what kenning ships and writes, offline.

``./install.sh --test`` installs the pinned CLIs from npm into ``<venv>/npm`` (Claude Code
2.1.328, Codex 0.171.0). Each test runs them with a scratch ``HOME`` and no network use:

* Claude Code: ``claude plugin validate`` accepts the marketplace and the plugin, with no
  warning from its plugin directory checks; ``claude plugin marketplace add <this
  repository>`` and ``claude plugin install kenning@kenning`` succeed; ``claude plugin
  details kenning`` lists the skills and commands; ``claude mcp get`` reads the server
  each scope's registration written by ``kenning install claude-code`` starts, ``claude
  mcp list`` starts the project scope's and shows ``✔ Connected`` (and, after
  ``--uninstall``, no kenning); the plugin's and the other scopes' name the same process.
* Codex: ``codex mcp list --json`` parses the ``config.toml`` written by ``kenning install
  codex`` at both scopes (Codex rejects a malformed server table), and the server it
  describes answers ``initialize`` and ``tools/list`` when started the way Codex starts it
  (the listed command and args, only Codex's default variables plus ``env_vars``).
  ``codex mcp list`` does not start servers, so that last step uses the MCP SDK's client;
  the project scope's ``kenning`` is the executable on the PATH Codex passes, the one the
  user scope names and starts.

When a CLI is missing the test fails under CI (``CI`` set) and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from kenning.installers.claude_code import HOOK_EVENTS, HOOK_MATCHERS
from kenning.installers.codex import FORWARDED_ENV_VARS

from .cli_runner import run_cli
from .conftest import REPO_ROOT

VENV_BIN = Path(sys.executable).parent
NPM_BIN = VENV_BIN.parent / "npm" / "node_modules" / ".bin"
CLAUDE_VERSION = "2.1.328"
CODEX_VERSION = "0.171.0"
CONNECTED = "✔ Connected"


def _cli(name: str, version: str) -> Path:
    path = NPM_BIN / name
    if not path.exists():
        message = (
            f"{path} is missing: `./install.sh --test` installs the pinned agent CLIs "
            "(npm must be available)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    assert version in out.stdout, out.stdout + out.stderr
    return path


#: Codex's npm package by (OS, machine): the package holding the native program its launcher
#: runs, and the program's target folder in it (bin/codex.js's PLATFORM_PACKAGE_BY_TARGET).
_CODEX_NATIVE = {
    ("Linux", "x86_64"): ("codex-linux-x64", "x86_64-unknown-linux-musl"),
    ("Linux", "aarch64"): ("codex-linux-arm64", "aarch64-unknown-linux-musl"),
}
#: What a command of :func:`run` adds to :func:`agent_env` (by the program it runs).
_LAUNCHER_ENV: dict[str, dict[str, str]] = {}


def _codex(launcher: Path) -> Path:
    """The native Codex that ``launcher`` (the npm package's ``bin/codex.js``, a Node script)
    runs: the launcher finds it, then replaces itself with it (``execve``), adding the package's
    two variables, which :func:`run` adds too. The same program, read the same files; without
    Node's start (~0.08 CPU-s of a ~0.1 CPU-s ``codex mcp list``). The launcher itself ran once,
    for ``--version`` (:func:`_cli`). Where the package has no native program for this machine,
    the launcher."""
    import platform

    package_root = launcher.resolve().parent.parent  # node_modules/@openai/codex
    target = _CODEX_NATIVE.get((platform.system(), platform.machine()))
    if target is None:
        return launcher
    package, triple = target
    native = package_root.parent / package / "vendor" / triple / "bin" / "codex"
    if not native.exists():
        return launcher
    _LAUNCHER_ENV[str(native)] = {
        "CODEX_MANAGED_PACKAGE_ROOT": str(package_root),
        "CODEX_MANAGED_BY_NPM": "1",
    }
    return native


@pytest.fixture(scope="module")
def claude() -> Path:
    return _cli("claude", CLAUDE_VERSION)


@pytest.fixture(scope="module")
def codex() -> Path:
    return _codex(_cli("codex", CODEX_VERSION))


@pytest.fixture
def scratch_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def agent_env(home: Path) -> dict[str, str]:
    """The variables CLIENTS.md lists, a scratch HOME, and this venv's kenning on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE", "ANTHROPIC", "CODEX", "OPENAI", "KENNING_"))
        or k in ("KENNING_CACHE_DIR", "KENNING_MODEL_DIR")
    }
    env.update(
        HOME=str(home),
        PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        DISABLE_TELEMETRY="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        CODEX_HOME=str(home / ".codex"),
    )
    return env


def run(
    cmd: list[str | Path], home: Path, cwd: Path, timeout: float = 120, stdout: bool = False
) -> str:
    """Run an agent CLI; it must succeed. Its output (stdout only with ``stdout``)."""
    out = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env={**agent_env(home), **_LAUNCHER_ENV.get(str(cmd[0]), {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, f"{cmd}: exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out.stdout if stdout else out.stdout + out.stderr


def kenning(*args: str, home: Path, cwd: Path) -> str:
    """``kenning *args`` in-process, in the environment an agent CLI gets: what the agent
    reads is its files, not its process (which costs a Python start per command). It names
    the same executable as ``VENV_BIN/kenning`` would, the one beside this Python."""
    env = agent_env(home)
    out = run_cli(cwd, *args, env={**dict.fromkeys(os.environ), **env})
    assert out.returncode == 0, f"kenning {args}: exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out.stdout + out.stderr


def mcp_list_line(output: str, name: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith(f"{name}: ")]
    assert len(lines) == 1, output
    return lines[0]


# -- the plugin -------------------------------------------------------------------------------


def test_plugin_validates(claude: Path, scratch_home: Path) -> None:
    for target in (REPO_ROOT, REPO_ROOT / "plugins" / "kenning"):
        out = run([claude, "plugin", "validate", target], scratch_home, REPO_ROOT)
        assert "Validation passed" in out, out
        assert "✘" not in out and "error" not in out.lower(), out
        # the plugin directory's checks too (an icon missing was one): a warning is a fix
        assert "⚠" not in out, out
    # every hook is one Claude Code knows, for the tools it is meant for
    for event, name in HOOK_EVENTS.items():
        matcher = f" {HOOK_MATCHERS[event]}" if event in HOOK_MATCHERS else ""
        assert f"hooks: {event}{matcher} command " in out and f"kenning hook {name}" in out, out


def test_plugin_installs_from_the_clone_and_connects(
    claude: Path, scratch_home: Path, project: Path
) -> None:
    """The marketplace and the plugin install from this clone, Claude Code lists the
    plugin's skills, hooks and server, and its server is the one that connects."""
    out = run([claude, "plugin", "marketplace", "add", REPO_ROOT], scratch_home, project)
    assert "Successfully added marketplace: kenning" in out, out
    out = run([claude, "plugin", "install", "kenning@kenning"], scratch_home, project)
    assert "Successfully installed plugin: kenning@kenning" in out, out

    details = run([claude, "plugin", "details", "kenning"], scratch_home, project)
    [skills] = [line for line in details.splitlines() if line.strip().startswith("Skills (")]
    for name in (
        "memory-query",
        "memory-remember",
        "search",
        "remember",
        "seed-solutions",
        "stats",
    ):
        assert name in skills, details
    assert f"Hooks ({len(HOOK_EVENTS)})  {', '.join(HOOK_EVENTS)}" in details, details
    assert "MCP servers (1)  kenning" in details, details

    # The server Claude Code reads from the plugin, turned off for the project so that the
    # list names it without starting it: `kenning mcp` from PATH, what the project scope's
    # registration starts and sees connect (test_the_project_scope_connects_in_claude_code;
    # kenning reads none of the CLAUDE_PLUGIN_* variables a plugin's server gets besides). A
    # start here, a Python process importing the MCP SDK (~0.7 CPU-s), would check nothing
    # more.
    path = scratch_home / ".claude.json"
    doc = json.loads(path.read_text()) if path.exists() else {}
    entry = doc.setdefault("projects", {}).setdefault(str(project), {})
    entry["disabledMcpServers"] = ["plugin:kenning:kenning"]
    path.write_text(json.dumps(doc, indent=2))
    listed = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    line = mcp_list_line(listed, "plugin:kenning:kenning")
    assert line.startswith("plugin:kenning:kenning: kenning mcp - "), listed  # STARTED's project
    assert "Disabled for this project" in line, listed


# -- kenning install claude-code, every scope --------------------------------------------------


def approve_project_servers(home: Path, project: Path) -> None:
    """What the user's approval of .mcp.json servers records (CLIENTS.md)."""
    path = home / ".claude.json"
    doc = json.loads(path.read_text()) if path.exists() else {}
    entry = doc.setdefault("projects", {}).setdefault(str(project), {})
    entry.update(enabledMcpjsonServers=["kenning"], hasTrustDialogAccepted=True)
    path.write_text(json.dumps(doc, indent=2))


def described_unstarted(claude: Path, home: Path, project: Path) -> str:
    """``claude mcp get kenning`` without the health check it would run: kenning turned
    off for the project meanwhile (what /mcp records), the file then put back byte for
    byte. The ``claude mcp list`` before it has just started the server and seen it
    connect; a second start (a Python process importing the MCP SDK, ~2.5 CPU-s) would
    check nothing more, and the scope is read from the registration alone."""
    path = home / ".claude.json"
    kept = path.read_bytes() if path.exists() else None
    doc = json.loads(kept) if kept is not None else {}
    doc.setdefault("projects", {}).setdefault(str(project), {})["disabledMcpServers"] = ["kenning"]
    path.write_text(json.dumps(doc, indent=2))
    try:
        described = run([claude, "mcp", "get", "kenning"], home, project, timeout=180)
    finally:
        if kept is None:
            path.unlink()
        else:
            path.write_bytes(kept)
    assert "Disabled for this project" in described, described  # so nothing was started
    return described


def server_started(described: str) -> list[str]:
    """What ``claude mcp get`` says Claude Code starts for the server: its type, command,
    arguments and environment, without the scope and the status."""
    lines = [line.strip() for line in described.splitlines()[1:]]
    return [
        line
        for line in lines
        if line and not line.startswith(("Scope:", "Status:", "To remove this server"))
    ]


#: The server each scope's registration starts: the user and the local scope the
#: executable beside this Python, the project scope (a file shared with the team) the
#: ``kenning`` on PATH.
STARTED = {
    "local": ["Type: stdio", f"Command: {VENV_BIN / 'kenning'}", "Args: mcp"],
    "user": ["Type: stdio", f"Command: {VENV_BIN / 'kenning'}", "Args: mcp"],
    "project": ["Type: stdio", "Command: kenning", "Args: mcp"],
}


def read_as_registered(claude: Path, home: Path, project: Path, scope: str) -> None:
    """Claude Code reads ``scope``'s registration, which ``kenning install`` has just
    written, as that scope's, and as the server :data:`STARTED` names for it."""
    described = described_unstarted(claude, home, project)
    claude_scope = f"{scope.capitalize()} config"
    assert f"Scope: {claude_scope}" in described, described  # Claude Code agrees on the scope
    assert server_started(described) == STARTED[scope], described


@pytest.mark.slow
def test_the_project_scope_connects_in_claude_code(
    claude: Path, scratch_home: Path, project: Path
) -> None:
    """Claude Code reads the project scope's registration (a file shared with the team) as
    the server it must start (:data:`STARTED`): pending until approved, then it connects;
    the ``kenning`` it starts is the executable beside this Python, on Claude Code's PATH.
    After the uninstall Claude Code lists no kenning.

    First a "no" to the project's .mcp.json servers kept in the project's entry of
    ~/.claude.json (an older Claude Code's place for it, or a hand edit): the install said
    nothing of it, yet Claude Code honours it (no server listed, none started; it moves the
    list into .claude/settings.local.json as it starts). The remedy the install names,
    `claude mcp reset-project-choices`, asks again: the server is pending from there on (a
    test of its own, with a `claude mcp list` more, ~0.3 CPU-s, read nothing more)."""
    kenning("install", "claude-code", "--scope", "project", home=scratch_home, cwd=project)
    path = scratch_home / ".claude.json"
    doc = json.loads(path.read_text()) if path.exists() else {}
    entry = doc.setdefault("projects", {}).setdefault(str(project), {})
    entry.update(disabledMcpjsonServers=["kenning"], hasTrustDialogAccepted=True)
    path.write_text(json.dumps(doc, indent=2))
    said = " ".join(
        kenning(
            "install", "claude-code", "--scope", "project", home=scratch_home, cwd=project
        ).split()
    )
    assert "turned down for this project" in said and "reset-project-choices" in said, said
    listed = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    assert "kenning" not in listed, listed
    run([claude, "mcp", "reset-project-choices"], scratch_home, project, timeout=180)
    pending = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    assert "Pending approval" in mcp_list_line(pending, "kenning"), pending
    approve_project_servers(scratch_home, project)
    listed = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    assert CONNECTED in mcp_list_line(listed, "kenning"), listed
    path = agent_env(scratch_home)["PATH"]
    assert shutil.which("kenning", path=path) == str(VENV_BIN / "kenning")
    read_as_registered(claude, scratch_home, project, "project")

    kenning(
        "install", "claude-code", "--scope", "project", "--uninstall", home=scratch_home,
        cwd=project,
    )  # fmt: skip
    listed = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    assert "kenning" not in listed, listed


@pytest.mark.slow
def test_the_local_and_user_scopes_are_read_by_claude_code(
    claude: Path, scratch_home: Path, project: Path
) -> None:
    """Claude Code reads the local scope's registration, then (the local one uninstalled)
    the user scope's, each as its scope's and as the server :data:`STARTED` names: the
    executable that the project scope's ``kenning`` is on Claude Code's PATH, with the same
    args, the same process, which connects in test_the_project_scope_connects_in_claude_code
    (and starts with Codex's variables in
    test_codex_reads_the_config_and_the_server_answers[user]). A start in each scope's run
    (a Python process importing the MCP SDK, ~0.7 CPU-s) would check nothing more of the
    files Claude Code read.

    The user scope's registration is read as the user scope's only once the local one is
    gone (Claude Code prefers a local server to a user one of the same name), so the local
    uninstall is checked there; after the user scope's uninstall Claude Code lists no
    kenning (a test and a `claude mcp list` for each scope, ~0.3 CPU-s, read nothing more)."""
    for scope in ("local", "user"):
        kenning("install", "claude-code", "--scope", scope, home=scratch_home, cwd=project)
        read_as_registered(claude, scratch_home, project, scope)
        kenning(
            "install", "claude-code", "--scope", scope, "--uninstall", home=scratch_home,
            cwd=project,
        )  # fmt: skip
    listed = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    assert "kenning" not in listed, listed


def test_files_starting_with_a_byte_order_mark_are_still_read(
    claude: Path, scratch_home: Path, project: Path
) -> None:
    """kenning keeps a byte order mark (a Windows editor's) at the start of a JSON file it
    rewrites: Claude Code must still read both files. Each file's own setting shows it read
    it: with the settings file's ``enableAllProjectMcpServers`` the project's server is not
    left pending approval, and Claude Code starts it (``/bin/false``: what is checked is
    that Claude Code tried it); in ``~/.claude.json``, beside the registration kenning
    wrote, the user turned kenning off for the project, and Claude Code lists it so. (That
    kenning's user-scope server connects is test_the_project_scope_connects_in_claude_code's: a
    start here, a Python process importing the MCP SDK of ~1.2 CPU-s, would read nothing
    more of the file.)

    What /mcp records when the user turns kenning off for the project is that entry: Claude
    Code keeps it off, and a second install, which changes nothing, says so (its check reads
    the same entry whatever the scope but the project's; a test and a `claude mcp list` of
    its own, ~0.3 CPU-s, read nothing more)."""
    bom = b"\xef\xbb\xbf"
    settings = scratch_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(bom + b'{\n  "enableAllProjectMcpServers": true\n}\n')
    off = {"numStartups": 1, "projects": {str(project): {"disabledMcpServers": ["kenning"]}}}
    (scratch_home / ".claude.json").write_bytes(bom + json.dumps(off, indent=2).encode())
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"team": {"command": "/bin/false"}}})
    )
    kenning("install", "claude-code", "--scope", "user", home=scratch_home, cwd=project)
    assert settings.read_bytes().startswith(bom)
    assert (scratch_home / ".claude.json").read_bytes().startswith(bom)
    listed = run([claude, "mcp", "list"], scratch_home, project, timeout=180)
    assert "Disabled for this project" in mcp_list_line(listed, "kenning"), listed
    team = mcp_list_line(listed, "team")  # approved (not pending), so started: it exits at once
    assert "Failed to connect" in team and "Pending approval" not in team, listed
    said = " ".join(
        kenning("install", "claude-code", "--scope", "user", home=scratch_home, cwd=project).split()
    )
    assert "unchanged" in said and "kenning's server turned off for this project" in said, said


# -- Codex ------------------------------------------------------------------------------------


async def _tools_of(command: str, args: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    params = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {tool.name for tool in (await session.list_tools()).tools}


# The variables Codex always passes to a stdio server on Unix (codex-rs/rmcp-client
# utils.rs, DEFAULT_ENV_VARS); anything else arrives only when env_vars names it.
CODEX_DEFAULT_ENV = (
    *("HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING"),
    *("LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"),
)


@pytest.mark.parametrize("scope", ["project", "user"])
def test_codex_reads_the_config_and_the_server_answers(
    codex: Path, scratch_home: Path, project: Path, scope: str
) -> None:
    kenning("install", "codex", "--scope", scope, home=scratch_home, cwd=project)
    if scope == "project":  # Codex reads a project's .codex/config.toml only when trusted
        codex_home = scratch_home / ".codex"
        codex_home.mkdir(exist_ok=True)
        (codex_home / "config.toml").write_text(
            f'[projects."{project}"]\ntrust_level = "trusted"\n'
        )
    listed = _json_of(run([codex, "mcp", "list", "--json"], scratch_home, project, stdout=True))
    [server] = [s for s in listed if s["name"] == "kenning"]
    transport = server["transport"]
    assert server["enabled"] and transport["type"] == "stdio"
    assert transport["args"] == ["mcp"]
    assert transport["env_vars"] == list(FORWARDED_ENV_VARS)
    env = agent_env(scratch_home)
    passed = {k: env[k] for k in (*CODEX_DEFAULT_ENV, *transport["env_vars"]) if k in env}
    if scope == "project":
        assert transport["command"] == "kenning"
        # the same server as the user scope's, which that run starts with the same args and
        # variables: a start here (a Python process importing the MCP SDK, ~0.8 CPU-s)
        # would check nothing more of what Codex read
        assert shutil.which("kenning", path=passed["PATH"]) == str(VENV_BIN / "kenning")
    else:
        assert transport["command"] == str(VENV_BIN / "kenning")
        tools = anyio.run(_tools_of, transport["command"], transport["args"], passed, project)
        assert {"hooks_recall", "hooks_remember", "hooks_stats", "search_memories"} <= tools

    kenning("install", "codex", "--scope", scope, "--uninstall", home=scratch_home, cwd=project)
    remaining = _json_of(run([codex, "mcp", "list", "--json"], scratch_home, project, stdout=True))
    assert all(s["name"] != "kenning" for s in remaining)


def _json_of(output: str) -> list[dict]:
    """The JSON array in Codex's output (it may print warnings around it)."""
    start, end = output.index("["), output.rindex("]") + 1
    data = json.loads(output[start:end])
    assert isinstance(data, list)
    return data
