"""``kenning install claude-code --scope local|project|user``: the right files per scope,
merges, idempotent, reversible, dry-run, atomic, never through a symlink.

The real Claude Code CLI writes the state an uninstall must give back, and checks the hook
settings, here; it connects to the servers in tests/test_agent_clis.py."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import config
from kenning.cli import main
from kenning.errors import UserInputError
from kenning.installers import claude_code as install
from kenning.installers.files import apply_changes
from kenning.project import Checkout, find_checkout, resolve_project

from .conftest import git, logging_git, make_repo
from .test_agent_clis import (
    CLAUDE_VERSION,
    _cli,
    approve_project_servers,
    described_unstarted,
    run,
)

EXE = "/opt/kenning tools/bin/kenning"  # a space, so quoting is exercised
QUOTED = "'/opt/kenning tools/bin/kenning'"

EXISTING_MCP = {
    "mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
    },
    "otherTopLevel": [1, 2, 3],
}
EXISTING_SETTINGS = {
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "/usr/local/bin/log-prompt"}]}
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./scripts/check.sh", "timeout": 5}],
            }
        ],
    },
    "model": "opus",
}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch home: the user-scope files live here."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return h


@pytest.fixture(scope="module")
def claude() -> Path:
    """The real Claude Code CLI (skipped when ./install.sh --test did not install it)."""
    return _cli("claude", CLAUDE_VERSION)


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["install", "claude-code", *args])
    return result.exit_code, result.stdout, result.stderr


def read(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def snapshot(*roots: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.is_file() and ".git" not in p.parts:
                out[str(p)] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def file_bytes(taken: dict[str, tuple[bytes, int]]) -> dict[str, bytes]:
    """A :func:`snapshot`'s contents without the modification times: what an uninstall gives
    back is the bytes, not the times of files it rewrote."""
    return {path: data for path, (data, _) in taken.items()}


def kenning_hooks(settings: dict, event: str) -> list[dict]:
    return [
        h
        for group in settings["hooks"].get(event, [])
        for h in group["hooks"]
        if install.is_kenning_hook(h.get("command"))
    ]


def files_of(scope: str, project: Path, home: Path) -> tuple[Path, tuple[str, ...], Path]:
    """(MCP file, path of the servers object in it, settings file) for ``scope``."""
    if scope == "local":
        return (
            home / ".claude.json",
            ("projects", str(project), "mcpServers"),
            (project / ".claude" / "settings.local.json"),
        )
    if scope == "project":
        return project / ".mcp.json", ("mcpServers",), project / ".claude" / "settings.json"
    return home / ".claude.json", ("mcpServers",), home / ".claude" / "settings.json"


def servers(doc: dict, keys: tuple[str, ...]) -> dict:
    for key in keys:
        doc = doc[key]
    return doc


def hook_entry(command: str, matcher: str | None = None) -> list[dict]:
    return [
        {
            **({"matcher": matcher} if matcher is not None else {}),
            "hooks": [
                {"type": "command", "command": command, "timeout": install.HOOK_TIMEOUT_SECONDS}
            ],
        }
    ]


def kenning_s_hooks(executable: str) -> dict[str, list[dict]]:
    """The hooks an install writes naming ``executable`` (as written in a command)."""
    return {
        "SessionStart": hook_entry(f"{executable} hook session-start"),
        "UserPromptSubmit": hook_entry(f"{executable} hook prompt-submit"),
        # only for the shell's failures: another tool's is no program's error
        "PostToolUseFailure": hook_entry(f"{executable} hook tool-failure", "Bash|PowerShell"),
    }


# -- what each scope writes ----------------------------------------------------------------


def test_default_scope_is_local_with_personal_paths(project: Path, home: Path) -> None:
    code, out, err = cli("--executable", EXE)
    assert code == 0, err
    # the MCP server goes where `claude mcp add --scope local` puts it
    assert read(home / ".claude.json") == {
        "projects": {
            str(project): {
                "mcpServers": {"kenning": {"type": "stdio", "command": EXE, "args": ["mcp"]}}
            }
        }
    }
    assert read(project / ".claude" / "settings.local.json") == {"hooks": kenning_s_hooks(QUOTED)}
    # nothing shareable was written
    assert not (project / ".mcp.json").exists()
    assert not (project / ".claude" / "settings.json").exists()
    assert "~/.claude.json: created" in out and ".claude/settings.local.json: created" in out
    assert (home / ".claude.json").stat().st_mode & 0o777 == 0o600  # as Claude Code makes it


def test_an_install_asks_git_about_its_folder_once(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the install asked git about the same folder six or seven times, ~2.5 ms of CPU each
    log = logging_git(tmp_path, monkeypatch)
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    assert log.read_text().split().count("rev-parse") == 1
    # what git said is not kept past the command but where it still holds: a process that
    # lives on sees the checkout moved, and another repository in its place
    moved = project.rename(tmp_path / "moved")
    make_repo(project, remote="git@github.com:acme/elsewhere.git")
    assert resolve_project(project).group_id == "acme/elsewhere"
    assert find_checkout(moved) == Checkout(moved, moved)


def test_project_scope_names_kenning_on_path(project: Path, home: Path) -> None:
    code, _, err = cli("--scope", "project")
    assert code == 0, err
    assert read(project / ".mcp.json") == {
        "mcpServers": {"kenning": {"type": "stdio", "command": "kenning", "args": ["mcp"]}}
    }
    assert read(project / ".claude" / "settings.json") == {"hooks": kenning_s_hooks("kenning")}
    assert "approve" in err  # Claude Code asks each user to approve .mcp.json servers
    assert not (home / ".claude.json").exists()
    shared = (project / ".mcp.json").read_text() + (project / ".claude/settings.json").read_text()
    assert str(Path(sys.executable).parent) not in shared and "/" not in json.dumps(
        read(project / ".mcp.json")
    )
    # once this user approved it, the install says nothing of asking again
    approve_project_servers(home, project.resolve())
    code, _, err = cli("--scope", "project")
    assert code == 0 and "approve" not in err, err


def test_project_scope_refuses_a_machine_path(project: Path) -> None:
    code, _, err = cli("--scope", "project", "--executable", EXE)
    assert code == 1
    assert "shared with the team" in err and "--scope local" in err
    assert not (project / ".mcp.json").exists()


def test_user_scope_writes_the_user_files(project: Path, home: Path) -> None:
    code, _, err = cli("--scope", "user", "--executable", EXE)
    assert code == 0, err
    assert read(home / ".claude.json") == {
        "mcpServers": {"kenning": {"type": "stdio", "command": EXE, "args": ["mcp"]}}
    }
    settings = read(home / ".claude" / "settings.json")
    assert [h["command"] for h in kenning_hooks(settings, "SessionStart")] == [
        f"{QUOTED} hook session-start"
    ]
    assert not (project / ".claude").exists() and not (project / ".mcp.json").exists()


def test_claude_config_dir_is_honoured(
    project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude-config"
    config.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert cli("--scope", "user", "--executable", EXE)[0] == 0
    assert "kenning" in read(config / ".claude.json")["mcpServers"]
    assert kenning_hooks(read(config / "settings.json"), "SessionStart")
    assert not (home / ".claude.json").exists()


def test_default_executable_is_an_absolute_kenning(project: Path, home: Path) -> None:
    code, _, err = cli()
    assert code == 0, err
    command = read(home / ".claude.json")["projects"][str(project)]["mcpServers"]["kenning"][
        "command"
    ]
    assert os.path.isabs(command) and Path(command).name == "kenning"
    assert os.access(command, os.X_OK)


def test_an_executable_named_without_a_folder_is_looked_up_on_path(
    project: Path, home: Path
) -> None:
    """`--executable kenning` registered "<current folder>/kenning", a file that does not
    exist, so every hook and the server failed to start."""
    code, _, err = cli("--executable", "kenning")
    assert code == 0, err
    server = read(home / ".claude.json")["projects"][str(project)]["mcpServers"]["kenning"]
    assert server["command"] == "kenning"
    settings = read(project / ".claude" / "settings.local.json")
    assert kenning_hooks(settings, "SessionStart")[0]["command"] == "kenning hook session-start"


def test_an_executable_that_is_not_there_is_pointed_out(project: Path, tmp_path: Path) -> None:
    missing = tmp_path / "venv" / "bin" / "kenning"
    code, _, err = cli("--executable", str(missing))
    flat = " ".join(err.split())
    assert code == 0, err
    assert f"{missing} is not an executable file here" in flat
    code, _, err = cli("--executable", str(Path(sys.executable).parent / "kenning"))
    assert code == 0 and "not an executable file" not in err, err


def test_local_key_is_the_main_checkout_for_worktrees_and_symlinks(
    project: Path, home: Path, tmp_path: Path
) -> None:
    """Claude Code files a linked worktree, and a path reached through a symlink, under the
    real path of the main checkout (measured with `claude mcp add --scope local`)."""
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(worktree))
    link = tmp_path / "link"
    link.symlink_to(project)
    for where in (worktree, link / "sub"):
        where.mkdir(exist_ok=True)
        assert cli("--executable", EXE, "--project-dir", str(where))[0] == 0
    assert list(read(home / ".claude.json")["projects"]) == [str(project)]
    # the hooks go into the worktree the user runs Claude Code in
    assert (worktree / ".claude" / "settings.local.json").exists()


# -- idempotent, merging, reversible, for every scope ---------------------------------------


@pytest.mark.parametrize("scope", install.SCOPES)
def test_second_run_changes_nothing(project: Path, home: Path, scope: str) -> None:
    exe = [] if scope == "project" else ["--executable", EXE]
    assert cli("--scope", scope, *exe)[0] == 0
    before = snapshot(project, home)
    code, out, _ = cli("--scope", scope, *exe)
    assert code == 0
    assert snapshot(project, home) == before  # same bytes, not even rewritten
    assert out.count("unchanged") == 2


@pytest.mark.parametrize("scope", install.SCOPES)
def test_merge_keeps_everything_and_uninstall_restores_it(
    project: Path, home: Path, scope: str
) -> None:
    mcp_file, keys, settings_file = files_of(scope, project, home)
    existing_mcp = json.loads(json.dumps(EXISTING_MCP))
    if scope == "local":  # Claude Code's own project entry, with keys of its own
        existing_mcp = {
            "numStartups": 3,
            "projects": {str(project): {"allowedTools": [], **existing_mcp}},
        }
    mcp_file.parent.mkdir(parents=True, exist_ok=True)
    mcp_file.write_text(json.dumps(existing_mcp, indent=4) + "\n")
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text(json.dumps(EXISTING_SETTINGS))
    exe = "kenning" if scope == "project" else EXE
    assert cli("--scope", scope, *([] if scope == "project" else ["--executable", EXE]))[0] == 0

    mcp = read(mcp_file)
    assert servers(mcp, keys)["github"] == EXISTING_MCP["mcpServers"]["github"]  # type: ignore[index]
    assert servers(mcp, keys)["kenning"] == {"type": "stdio", "command": exe, "args": ["mcp"]}
    assert mcp_file.read_text().startswith('{\n    "')  # indentation kept
    settings = read(settings_file)
    assert settings["permissions"] == EXISTING_SETTINGS["permissions"]
    assert settings["hooks"]["PreToolUse"] == EXISTING_SETTINGS["hooks"]["PreToolUse"]  # type: ignore[index]
    assert (
        settings["hooks"]["UserPromptSubmit"][0]
        == EXISTING_SETTINGS["hooks"]["UserPromptSubmit"][0]
    )  # type: ignore[index]
    for event in install.HOOK_EVENTS:
        assert len(kenning_hooks(settings, event)) == 1

    code, _, err = cli("--scope", scope, "--uninstall")
    assert code == 0, err
    assert read(mcp_file) == existing_mcp
    assert read(settings_file) == EXISTING_SETTINGS
    before = snapshot(project, home)
    assert cli("--scope", scope, "--uninstall")[0] == 0  # uninstalling again changes nothing
    assert snapshot(project, home) == before


@pytest.mark.parametrize("scope", install.SCOPES)
def test_uninstall_of_a_fresh_install_removes_what_it_created(
    project: Path, home: Path, scope: str
) -> None:
    before = snapshot(project, home)
    assert cli("--scope", scope, *([] if scope == "project" else ["--executable", EXE]))[0] == 0
    assert snapshot(project, home) != before
    code, out, _ = cli("--scope", scope, "--uninstall")
    assert code == 0
    assert "removed" in out
    assert snapshot(project, home) == before
    assert not (project / ".claude").exists()


@pytest.mark.parametrize("scope", install.SCOPES)
def test_an_install_of_two_hooks_gets_the_tool_failure_hook_and_uninstall_removes_all(
    project: Path, home: Path, scope: str
) -> None:
    """An install from before the tool-failure hook (SessionStart and UserPromptSubmit only):
    installing again adds the third, for the shell's tools, and changes nothing more; the
    uninstall removes the three."""
    exe = [] if scope == "project" else ["--executable", EXE]
    written = "kenning" if scope == "project" else QUOTED
    _, _, settings_file = files_of(scope, project, home)
    before = snapshot(project, home)
    assert cli("--scope", scope, *exe)[0] == 0
    older = read(settings_file)
    del older["hooks"]["PostToolUseFailure"]
    settings_file.write_text(json.dumps(older, indent=2) + "\n")
    code, _, err = cli("--scope", scope, *exe)
    assert code == 0, err
    assert read(settings_file)["hooks"] == kenning_s_hooks(written)
    again = snapshot(project, home)
    assert cli("--scope", scope, *exe)[0] == 0
    assert snapshot(project, home) == again
    assert cli("--scope", scope, "--uninstall")[0] == 0
    assert snapshot(project, home) == before


def test_a_matcher_the_user_set_on_the_tool_failure_hook_is_kept(project: Path) -> None:
    """A user who wants the hook for every tool's failure (no matcher), or for Bash alone:
    an install again leaves their group as it is."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {
        "PostToolUseFailure": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "kenning hook tool-failure"}],
            }
        ]
    }
    settings.write_text(json.dumps({"hooks": mine}))
    assert cli("--scope", "project")[0] == 0
    [group] = read(settings)["hooks"]["PostToolUseFailure"]
    assert group["matcher"] == "Bash"
    assert [h["command"] for h in group["hooks"]] == ["kenning hook tool-failure"]


def test_uninstall_keeps_the_empty_servers_objects_claude_code_keeps(
    project: Path, home: Path, claude: Path
) -> None:
    """`claude mcp remove` leaves "mcpServers": {} in the project's entry (and at the top
    level): an install and an uninstall at either scope give ~/.claude.json back as it was."""
    for scope in ("local", "user"):
        run([claude, "mcp", "add", "--scope", scope, "tmp", "--", "/bin/cat"], home, project)
        run([claude, "mcp", "remove", "tmp", "--scope", scope], home, project)
    before = read(home / ".claude.json")
    assert before["mcpServers"] == {} and before["projects"][str(project)]["mcpServers"] == {}
    written = (home / ".claude.json").read_bytes()  # as Claude Code lays it out
    for scope in ("local", "user"):
        assert cli("--scope", scope, "--executable", EXE)[0] == 0
        assert cli("--scope", scope, "--uninstall")[0] == 0
        assert (home / ".claude.json").read_bytes() == written


def test_uninstall_when_not_installed_writes_nothing(project: Path, home: Path) -> None:
    before = snapshot(project, home)
    for scope in install.SCOPES:
        code, out, _ = cli("--scope", scope, "--uninstall")
        assert code == 0
        assert out.count("unchanged") == 2
    assert snapshot(project, home) == before


def test_reinstall_from_another_path_updates_in_place(project: Path, home: Path) -> None:
    assert cli("--executable", EXE)[0] == 0
    assert cli("--executable", "/usr/local/bin/kenning")[0] == 0
    settings = read(project / ".claude" / "settings.local.json")
    [session] = kenning_hooks(settings, "SessionStart")
    [prompt] = kenning_hooks(settings, "UserPromptSubmit")
    assert session["command"] == "/usr/local/bin/kenning hook session-start"
    assert prompt["command"] == "/usr/local/bin/kenning hook prompt-submit"
    entry = read(home / ".claude.json")["projects"][str(project)]["mcpServers"]["kenning"]
    assert entry["command"] == "/usr/local/bin/kenning"


def test_reinstall_keeps_what_the_user_put_before_the_hook_command(project: Path) -> None:
    # a per-hook setting (Claude Code's hooks take no env) or a wrapper around kenning
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "SessionStart": hook_entry(
                        "KENNING_HOOK_TIMEOUT=20 '/old venv/bin/kenning' hook session-start"
                    ),
                    "UserPromptSubmit": hook_entry("nice -n 5 kenning hook prompt-submit"),
                }
            }
        )
    )
    for exe, quoted in ((EXE, QUOTED), ("/usr/local/bin/kenning", "/usr/local/bin/kenning")):
        code, _, err = cli("--executable", exe)
        assert code == 0, err
        doc = read(settings)
        [session] = kenning_hooks(doc, "SessionStart")
        [prompt] = kenning_hooks(doc, "UserPromptSubmit")
        assert session["command"] == f"KENNING_HOOK_TIMEOUT=20 {quoted} hook session-start"
        assert prompt["command"] == f"nice -n 5 {quoted} hook prompt-submit"
    assert cli("--uninstall")[0] == 0
    assert not settings.exists()


def test_a_hook_command_the_user_redirected_is_still_kenning_s(project: Path) -> None:
    """A redirection or an operator after kenning's hook command (its stderr to a log,
    `|| true`) made it unknown to kenning: a re-install added a second hook (recall twice a
    prompt) and --uninstall left this one running."""
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "SessionStart": hook_entry(
                        "/old/kenning hook session-start 2>>/tmp/kenning-hooks.log"
                    ),
                    "UserPromptSubmit": hook_entry("kenning hook prompt-submit || true"),
                }
            }
        )
    )
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    doc = read(settings)
    [session] = kenning_hooks(doc, "SessionStart")
    [prompt] = kenning_hooks(doc, "UserPromptSubmit")
    assert session["command"] == f"{QUOTED} hook session-start 2>>/tmp/kenning-hooks.log"
    assert prompt["command"] == f"{QUOTED} hook prompt-submit || true"
    code, _, err = cli("--uninstall")
    assert code == 0, err
    assert "'2>>/tmp/kenning-hooks.log' after its command" in " ".join(err.split())
    assert not settings.exists()


@pytest.mark.parametrize(
    ("scope", "exe", "written"),
    [
        ("local", "/opt/kenning tools/bin/kn", "'/opt/kenning tools/bin/kn'"),
        ("project", "kenning-dev", "kenning-dev"),
    ],
)
def test_an_executable_not_named_kenning_is_still_kenning_s(
    project: Path, home: Path, scope: str, exe: str, written: str
) -> None:
    """kenning knew its hooks only by an executable named `kenning`: installed with
    --executable naming another (a wrapper, `kenning-dev`), a second run added the hooks
    again (recall twice a prompt) and --uninstall left them running."""
    mcp_file, _, settings = files_of(scope, project, home)

    def commands(event: str) -> list[str]:
        return [h["command"] for group in read(settings)["hooks"][event] for h in group["hooks"]]

    for _ in range(2):
        code, out, err = cli("--scope", scope, "--executable", exe)
        assert code == 0, err
    assert out.count("unchanged") == 2
    for event, name in install.HOOK_EVENTS.items():
        assert commands(event) == [f"{written} hook {name}"]
    # installed again with another executable: updated in place
    other = EXE if scope == "local" else "kenning"
    assert cli("--scope", scope, "--executable", other)[0] == 0
    assert cli("--scope", scope, "--executable", exe)[0] == 0
    for event, name in install.HOOK_EVENTS.items():
        assert commands(event) == [f"{written} hook {name}"]
    code, _, err = cli("--scope", scope, "--uninstall")
    assert code == 0, err
    assert not settings.exists()
    assert not mcp_file.exists()


def test_reinstall_keeps_the_timeout_the_user_set_on_a_kenning_hook(project: Path) -> None:
    assert cli("--executable", EXE)[0] == 0
    settings = project / ".claude" / "settings.local.json"
    doc = read(settings)
    [session] = kenning_hooks(doc, "SessionStart")
    session["timeout"] = 30  # the user's: Claude Code should give up on the hook sooner
    settings.write_text(json.dumps(doc, indent=2) + "\n")
    for exe in (EXE, "/usr/local/bin/kenning"):  # unchanged, and updated from another path
        code, _, err = cli("--executable", exe)
        assert code == 0, err
        [session] = kenning_hooks(read(settings), "SessionStart")
        [prompt] = kenning_hooks(read(settings), "UserPromptSubmit")
        assert session["timeout"] == 30
        assert prompt["timeout"] == install.HOOK_TIMEOUT_SECONDS


def test_uninstall_says_what_the_user_had_added_to_kenning_s_entries(project: Path) -> None:
    """--uninstall removes kenning's entries whole (a server entry without kenning's command,
    a hook without kenning, would not work), with what the user added to them: it says so,
    naming what went (never a value: an env may hold a password). A variable set before the
    hook's command was named with its value, an API key printed (and in --json) as it was."""
    assert cli("--scope", "project")[0] == 0
    mcp, settings = project / ".mcp.json", project / ".claude" / "settings.json"
    doc = read(mcp)
    entry = doc["mcpServers"]["kenning"]
    entry["env"] = {"KENNING_STORE": "postgresql://kenning:s3cret@db/kenning"}
    entry["args"] = ["mcp", "--project-dir", "/srv/widgets"]
    mcp.write_text(json.dumps(doc, indent=2) + "\n")
    doc = read(settings)
    [session] = kenning_hooks(doc, "SessionStart")
    [prompt] = kenning_hooks(doc, "UserPromptSubmit")
    session["timeout"] = 30
    session["command"] = (
        "QDRANT_API_KEY='sq-9f8e7d6c5b4a' " + session["command"] + " 2>>/tmp/hook.log"
    )
    prompt["command"] = "nice -n 5 " + prompt["command"]
    settings.write_text(json.dumps(doc, indent=2) + "\n")
    code, out, err = cli("--scope", "project", "--uninstall", "--dry-run", "--json")
    assert code == 0 and "goes with what you had added" in out, err
    assert "sq-9f8e7d6c5b4a" not in out and "s3cret" not in out
    for dry_run in (("--dry-run",), ()):
        code, _, err = cli("--scope", "project", "--uninstall", *dry_run)
        assert code == 0, err
        flat = " ".join(err.split())
        assert (
            ".mcp.json: kenning's server entry goes with what you had added to it (env; "
            "args --project-dir /srv/widgets)"
        ) in flat
        assert (
            ".claude/settings.json: kenning's SessionStart hook goes with what you had added "
            "to it (timeout 30; 'QDRANT_API_KEY=…' before its command; '2>>/tmp/hook.log' after its "
            "command)"
        ) in flat
        assert (
            "UserPromptSubmit hook goes with what you had added to it ('nice -n 5' before" in flat
        )
        assert "s3cret" not in err and "sq-9f8e7d6c5b4a" not in err
    assert not mcp.exists() and not settings.exists()
    assert cli("--scope", "project")[0] == 0
    code, _, err = cli("--scope", "project", "--uninstall")
    assert code == 0 and "goes with" not in err


def test_install_says_what_a_dropped_second_kenning_hook_held(project: Path) -> None:
    """Two of kenning's hooks for one event would run kenning twice a prompt: an install
    keeps the first and drops the rest. A dropped one the user had wrapped (a variable set
    before it, its own timeout) went without a word; now it is named (never a value), and
    a plain duplicate still goes silently."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    plain = {"type": "command", "command": "kenning hook prompt-submit"}
    wrapped = {
        "type": "command",
        "command": "KENNING_HOOK_TIMEOUT=9 kenning hook prompt-submit",
        "timeout": 20,
    }
    groups = [{"hooks": [plain]}, {"hooks": [dict(plain)]}, {"hooks": [wrapped]}]
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": groups}}))
    code, _, err = cli("--scope", "project")
    assert code == 0, err
    flat = " ".join(err.split())
    assert (
        ".claude/settings.json: a second kenning UserPromptSubmit hook goes (kenning's hook runs "
        "once an event), with what you had added to it (timeout 20; 'KENNING_HOOK_TIMEOUT=…' "
        "before its command)"
    ) in flat, err
    assert flat.count("a second kenning") == 1, err
    [kept] = kenning_hooks(read(settings), "UserPromptSubmit")
    assert kept["command"] == "kenning hook prompt-submit"
    code, _, err = cli("--scope", "project")  # nothing left to drop
    assert code == 0 and "a second kenning" not in err, err


#: ``python -c`` this, then the executable to install and the projects: ``kenning install
#: claude-code`` in each project at once, each in a process of its own forked once kenning
#: is imported (one interpreter start and one import of kenning, not one each: ~0.12 CPU-s
#: a process); each prints nothing on stdout and its exit status as the interpreter's exit
#: would make it of the command's, one line each, in the projects' order.
_INSTALLS_AT_ONCE = r"""
import os, sys, traceback
from kenning.cli import main
import kenning.installers.claude_code  # what the command imports, once

executable, projects = sys.argv[1], sys.argv[2:]
pids = []
for project in projects:
    pid = os.fork()
    if pid == 0:
        os.chdir(project)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        try:
            main(["install", "claude-code", "--executable", executable], prog_name="kenning")
            code = 0
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (exit.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    pids.append(pid)
for pid in pids:
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


def test_concurrent_installs_keep_every_registration(tmp_path: Path, home: Path) -> None:
    # kenning install in several projects at once (a setup script per repository): each
    # reads ~/.claude.json, adds its project and writes it back — none may lose another's
    projects = [make_repo(tmp_path / f"p{i}") for i in range(6)]
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(Path(config.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", _INSTALLS_AT_ONCE, EXE, *map(str, projects)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"] * len(projects), (done.stdout, done.stderr)
    registered = read(home / ".claude.json")["projects"]
    assert sorted(registered) == sorted(str(p) for p in projects)


def test_other_registrations_are_pointed_out(project: Path, home: Path) -> None:
    assert cli("--scope", "project")[0] == 0
    code, _, err = cli("--executable", EXE)
    assert code == 0
    flat = " ".join(err.split())
    assert "also registered at project scope (.mcp.json, .claude/settings.json)" in flat
    assert "hooks would run twice" in flat
    assert "kenning install claude-code --scope project --uninstall" in flat


def test_the_other_registrations_uninstall_works_as_printed_from_another_folder(
    project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed with --project-dir from another folder, the note on the other scope's
    registration printed `kenning install claude-code --scope local --uninstall`: run as
    printed there, it said "unchanged" for files of that folder (exit 0) and the local
    registration stayed. The printed command names the project."""
    import re
    import shlex

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli("--project-dir", str(project), "--executable", EXE)[0] == 0
    code, _, err = cli("--scope", "project", "--project-dir", str(project))
    assert code == 0, err
    printed = re.search(r"`(kenning install claude-code --scope local --uninstall[^`]*)`", err)
    assert printed, err
    args = shlex.split(printed.group(1))[2:]
    result = CliRunner().invoke(main, ["install", *args])
    assert result.exit_code == 0, result.output
    user_file = home / ".claude.json"  # left as {} by the uninstall: deleted
    assert not user_file.exists() or str(project) not in read(user_file).get("projects", {})
    assert not (project / ".claude" / "settings.local.json").exists()
    assert (project / ".mcp.json").exists()  # the other registration stays


def test_a_server_the_user_turned_off_in_claude_code_is_pointed_out(
    project: Path, home: Path
) -> None:
    """kenning's server turned off in Claude Code (/mcp: disabledMcpServers in the project's
    entry; a rejected .mcp.json server: disabledMcpjsonServers in settings or in the project's
    entry) stays off after
    an install that said 'unchanged' or 'updated': the install says why it will not run."""
    (home / ".claude.json").write_text(
        json.dumps({"projects": {str(project): {"disabledMcpServers": ["kenning"]}}})
    )
    code, _, err = cli("--executable", EXE)
    flat = " ".join(err.split())
    assert code == 0, err
    assert "Claude Code has kenning's server turned off for this project" in flat
    assert "disabledMcpServers" in flat and "/mcp" in flat
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"disabledMcpjsonServers": ["kenning"]})
    )
    code, _, err = cli("--scope", "project")
    flat = " ".join(err.split())
    assert code == 0, err
    assert ".claude/settings.local.json lists kenning in disabledMcpjsonServers" in flat
    # the same "no" kept in the project's entry of ~/.claude.json (older Claude Code, a hand
    # edit), which Claude Code honours too: it went unsaid
    (project / ".claude" / "settings.local.json").unlink()
    (home / ".claude.json").write_text(
        json.dumps({"projects": {str(project): {"disabledMcpjsonServers": ["kenning"]}}})
    )
    code, _, err = cli("--scope", "project")
    flat = " ".join(err.split())
    assert code == 0, err
    assert (
        "Claude Code has the server of .mcp.json turned down for this project (~/.claude.json: "
        '"disabledMcpjsonServers"): turn it on with /mcp in Claude Code, or run `claude mcp '
        "reset-project-choices` here"
    ) in flat, err
    (home / ".claude.json").write_text("{}")
    code, _, err = cli("--executable", EXE, "--uninstall")
    assert code == 0 and "turned off" not in err


def test_settings_local_not_ignored_by_git_is_pointed_out(project: Path) -> None:
    code, _, err = cli("--executable", EXE)
    assert code == 0 and "git does not ignore it" in err
    (project / ".gitignore").write_text(".claude/settings.local.json\n")
    code, _, err = cli("--executable", EXE)
    assert code == 0 and "git does not ignore it" not in err


# -- bad files: an error, and nothing written ------------------------------------------------


#: Each JSON file an install reads, with the scope that reads it.
JSON_FILES = [
    ("project", ".mcp.json"),
    ("project", ".claude/settings.json"),
    ("local", ".claude/settings.local.json"),
    ("local", "~/.claude.json"),
    ("user", "~/.claude/settings.json"),
]


@pytest.mark.parametrize(("scope", "broken"), JSON_FILES)
def test_malformed_json_is_an_error_and_nothing_is_written(
    project: Path, home: Path, scope: str, broken: str
) -> None:
    path = home / broken[2:] if broken.startswith("~/") else project / broken
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"mcpServers": {"a": 1},,}\n')
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    code, _, err = cli("--scope", scope, *exe)
    assert code == 1
    assert broken in err and "not valid JSON" in err and "line 1" in err
    assert "nothing was written" in err
    assert snapshot(project, home) == before
    code, _, err = cli("--scope", scope, "--uninstall")
    assert code == 1
    assert snapshot(project, home) == before


@pytest.mark.parametrize(("scope", "broken"), JSON_FILES)
def test_a_key_written_twice_is_an_error_that_says_where_and_nothing_is_written(
    project: Path, home: Path, scope: str, broken: str
) -> None:
    # JSON readers keep the last of two equal keys: rewriting the file lost the first
    # server's entry without a word (the user may not know it is there twice)
    path = home / broken[2:] if broken.startswith("~/") else project / broken
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '{\n  "mcpServers": {\n    "docs": {"command": "docs-a"},\n'
        '    "docs": {"command": "docs-b"}\n  },\n  "model": "opus"\n}\n'
    )
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    for uninstall in ([], ["--uninstall"]):
        code, _, err = cli("--scope", scope, *exe, *uninstall)
        assert code == 1, err
        err = " ".join(err.split())
        assert f'{broken} has the key "mcpServers.docs" twice' in err, err
        assert "line 4 column 5" in err and "line 3" in err
        assert "keep one of them" in err and "nothing was written" in err
        assert snapshot(project, home) == before


def strict_json(text: str) -> object:
    """``text`` parsed as a JavaScript client parses it: Infinity and NaN are not JSON."""

    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_unusual_but_valid_json_stays_valid_and_uninstall_gives_it_back(
    project: Path, home: Path
) -> None:
    # Claude Code's JSON.stringify writes a lone surrogate (text cut mid-emoji) as an
    # escape; a number beyond a double's range is valid JSON that Python reads as inf
    user_json = home / ".claude.json"
    user_json.write_text('{\n  "history": ["cut \\ud83d", "\\udc00"],\n  "numStartups": 3\n}\n')
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "big": 1e400,\n  "small": -2E+999,\n  "model": "opus"\n}\n')
    before = {p: strict_json(p.read_text()) for p in (user_json, settings)}
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    for path, data in before.items():
        after = strict_json(path.read_text())  # no "Infinity": still JSON for Claude Code
        assert isinstance(after, dict) and isinstance(data, dict)
        assert {k: v for k, v in after.items() if k in data} == data
    assert "1e400" in settings.read_text() and "-2E+999" in settings.read_text()
    assert cli("--uninstall")[0] == 0
    assert {p: strict_json(p.read_text()) for p in (user_json, settings)} == before


#: How other programs write JSON: JavaScript's JSON.stringify (compact, or indented by 2 or 4
#: spaces or a tab, no final newline, text as it is), Python's json.dumps (", " and ": " on
#: one line, non-ASCII text escaped)
LAYOUTS = {
    "compact": lambda doc: json.dumps(doc, separators=(",", ":"), ensure_ascii=False),
    "python-compact": lambda doc: json.dumps(doc) + "\n",
    "2-spaces-no-final-newline": lambda doc: json.dumps(doc, indent=2, ensure_ascii=False),
    "4-spaces": lambda doc: json.dumps(doc, indent=4) + "\n",
    "tab": lambda doc: json.dumps(doc, indent="\t", ensure_ascii=False) + "\n",
}


def indented_by(text: str, unit: str) -> bool:
    """Is every inner line of ``text`` indented by ``unit`` repeated? (A blank line is the
    record of an empty container the install filled.)"""
    lines = [line for line in text.splitlines()[1:-1] if line]
    margins = [line[: len(line) - len(line.lstrip(" \t"))] for line in lines]
    return bool(lines) and all(m and m == unit * (len(m) // len(unit)) for m in margins)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("scope", install.SCOPES)
def test_a_file_keeps_its_layout_and_number_spellings_and_uninstall_gives_the_bytes_back(
    project: Path, home: Path, scope: str, layout: str
) -> None:
    # users diff these files: a one-line file came back indented by 2, and 1e3 and 2.50 as
    # 1000.0 and 2.5, so an install and an uninstall left a diff of the whole file
    mcp, _, settings = files_of(scope, project, home)
    mcp_doc: dict = {"mcpServers": {"x": {"command": "y", "args": ["café"]}}}
    if scope == "local":
        entry = {"allowedTools": ["café"], "mcpServers": {}}  # as Claude Code writes it
        mcp_doc = {"numStartups": 3, "projects": {str(project): entry}}
    spellings = ("1.0", "1e3", "2.50", "-0.0")
    for path, doc in ((mcp, mcp_doc), (settings, EXISTING_SETTINGS)):
        path.parent.mkdir(parents=True, exist_ok=True)
        text = LAYOUTS[layout]({**doc, "numbers": [f"<{n}>" for n in spellings]})
        for spelling in spellings:  # json.dumps would write 1e3 as 1000.0
            text = text.replace(f'"<{spelling}>"', spelling)
        path.write_text(text)
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    code, _, err = cli("--scope", scope, *exe)
    assert code == 0, err
    for path in (mcp, settings):
        text = path.read_text()
        assert "kenning" in text
        for spelling in spellings:
            assert re.search(rf"[\s\[,]{re.escape(spelling)}[\s\],]", text), (path, spelling)
        assert {
            "compact": lambda t: "\n" not in t and '":' in t and '": ' not in t,
            "python-compact": lambda t: t.count("\n") == 1 and t.endswith("}\n"),
            "2-spaces-no-final-newline": lambda t: indented_by(t, "  ") and t.endswith("}"),
            "4-spaces": lambda t: indented_by(t, "    ") and t.endswith("}\n"),
            "tab": lambda t: indented_by(t, "\t") and t.endswith("}\n"),
        }[layout](text), (path, text)
    assert cli("--scope", scope, "--uninstall")[0] == 0
    assert file_bytes(snapshot(project, home)) == file_bytes(before)


#: Files as Prettier formats them (a repository's .mcp.json and .claude/settings.json often
#: are): a short array or object stays on one line, an object keeps spaces inside its braces.
PRETTIER_MCP = """\
{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "${GITHUB_TOKEN}" }
    }
  },
  "otherTopLevel": [1, 2, 3]
}
"""
PRETTIER_SETTINGS = """\
{
  "permissions": { "allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"] },
  "model": "opus"
}
"""


@pytest.mark.parametrize("scope", install.SCOPES)
def test_what_the_install_does_not_change_keeps_its_text(
    project: Path, home: Path, scope: str
) -> None:
    # a Prettier-formatted file came back with every short array and object spread over
    # lines: a diff of the whole file for two entries, which an uninstall did not undo
    mcp, _, settings = files_of(scope, project, home)
    mcp_text = PRETTIER_MCP
    if scope == "local":
        mcp_text = PRETTIER_MCP.replace(
            '  "otherTopLevel"',
            f'  "projects": {{\n    "{project}": {{ "allowedTools": [], "mcpServers": {{}} }}\n'
            '  },\n  "otherTopLevel"',
        )
    for path, text in ((mcp, mcp_text), (settings, PRETTIER_SETTINGS)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    code, _, err = cli("--scope", scope, *exe)
    assert code == 0, err
    for path, text in ((mcp, mcp_text), (settings, PRETTIER_SETTINGS)):
        after = path.read_text()
        for line in text.splitlines():
            if "[" in line or "{ " in line:
                kept = (
                    line if scope != "local" or "allowedTools" not in line else '"allowedTools": []'
                )
                assert kept in after, (path, line, after)
    assert cli("--scope", scope, "--uninstall")[0] == 0
    assert file_bytes(snapshot(project, home)) == file_bytes(before)


#: What a user wrote in the objects kenning adds its entries to, spelled as JSON allows but
#: json.dumps would not write it: an escaped "/" (PHP's json_encode writes every one so), an
#: escaped "é" beside raw text, and the integer -0.
SPELLED_MCP = (
    '{\n  "mcpServers": {\n    "docs": {\n      "url": "https:\\/\\/docs.example\\/mcp",\n'
    '      "type": "http"\n    },\n    "caf\\u00e9\\/bar": {"command": "\\/usr\\/bin\\/cat"},\n'
    '    "offset": -0\n  },\n  "v\\/1": -0,\n  "n\\u00e9": "\\/"\n}\n'
)
SPELLED_SETTINGS = (
    '{\n  "hooks": {\n    "Stop\\/x": [],\n    "SessionStart": [\n'
    '      {"hooks": [{"type": "command", "command": "\\/usr\\/bin\\/true"}], "n": -0}\n    ]\n'
    '  },\n  "env": {"A\\/B": "-0"},\n  "p\\u00e9": -0\n}\n'
)


def spelled(scope: str, project: Path) -> str:
    """:data:`SPELLED_MCP`, at the place ``scope``'s servers are."""
    if scope != "local":
        return SPELLED_MCP
    entry = SPELLED_MCP.rstrip().replace('  "v', '  "allowedTools": [],\n  "v')
    entry = entry.replace("\n", "\n    ")  # one level deeper
    return f'{{\n  "projects": {{\n    "{project}": {entry}\n  }},\n  "x\\/": -0\n}}\n'


@pytest.mark.parametrize("scope", install.SCOPES)
def test_a_key_or_number_kenning_does_not_own_keeps_its_spelling(
    project: Path, home: Path, scope: str
) -> None:
    # an object the install changes was written anew: its keys through json.dumps, so a
    # key the user had escaped ("v\/1", "caf\u00e9") came back respelled after an uninstall
    mcp, keys, settings = files_of(scope, project, home)
    for path, text in ((mcp, spelled(scope, project)), (settings, SPELLED_SETTINGS)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    code, _, err = cli("--scope", scope, *exe)
    assert code == 0, err
    installed = {path: path.read_text() for path in (mcp, settings)}
    for path, text in ((mcp, spelled(scope, project)), (settings, SPELLED_SETTINGS)):
        for line in text.splitlines()[1:-1]:  # each of the user's lines, as written
            assert line.strip().rstrip(",") in installed[path], (path, line)
    doc = read(mcp)
    assert servers(doc, keys)["café/bar"] == {"command": "/usr/bin/cat"}
    assert servers(doc, keys)["offset"] == 0 and servers(doc, keys)["kenning"]["args"] == ["mcp"]
    assert len(kenning_hooks(read(settings), "SessionStart")) == 1
    assert cli("--scope", scope, "--uninstall")[0] == 0
    assert file_bytes(snapshot(project, home)) == file_bytes(before)


#: Hand-edited files: two members on one line, a space before a ":", a blank line between
#: members, a closing brace indented as its members are.
HAND_MCP = (
    '{\n  "mcpServers": {\n    "docs": {"command": "docs"},  "team" : {"command": "team"},\n'
    '\n    "more": {"command": "more"}\n    },\n  "a": 1, "b" :2\n}\n'
)
HAND_SETTINGS = (
    '{\n  "hooks": {\n    "Stop": [], "Notification" : [],\n\n    "PreToolUse": [],\n'
    '    "SessionStart": [ {"hooks": []} ,{"hooks": []}\n    ]\n  },\n'
    '  "model": "opus",   "env": {}\n}\n'
)


@pytest.mark.parametrize("scope", install.SCOPES)
def test_what_lies_between_the_user_s_members_stays(project: Path, home: Path, scope: str) -> None:
    # an object the install changed was laid out anew between its members: two on one line
    # were put on two, a space before ":" and a blank line went, and the uninstall did not
    # give them back
    mcp, _, settings = files_of(scope, project, home)
    mcp_text = HAND_MCP
    if scope == "local":
        entry = HAND_MCP.rstrip().replace("\n", "\n    ")
        mcp_text = f'{{\n  "projects": {{\n    "{project}": {entry}\n  }},  "x": 1\n}}\n'
    for path, text in ((mcp, mcp_text), (settings, HAND_SETTINGS)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    code, _, err = cli("--scope", scope, *exe)
    assert code == 0, err
    for path, text in ((mcp, mcp_text), (settings, HAND_SETTINGS)):
        installed = path.read_text()
        for line in text.splitlines():
            assert line.rstrip(",") in installed, (path, line, installed)
    assert read(mcp) and len(kenning_hooks(read(settings), "SessionStart")) == 1
    code, _, err = cli("--scope", scope, "--executable", EXE + "-2" if exe else "kenning-dev")
    assert code == 0, err  # kenning's entries updated in place
    assert cli("--scope", scope, "--uninstall")[0] == 0
    assert file_bytes(snapshot(project, home)) == file_bytes(before)


def test_an_entry_updated_in_place_keeps_what_is_around_it(project: Path) -> None:
    # kenning's hook group, updated for another executable, was laid out anew with what was
    # around it: the user's group after it on the same line went to a line of its own
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    ours = json.dumps(hook_entry("/old/kenning hook prompt-submit")[0])
    settings.write_text(
        f'{{\n  "hooks": {{\n    "UserPromptSubmit": [{ours},  {{"hooks": []}}]\n  }}\n}}\n'
    )
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    [hook] = kenning_hooks(read(settings), "UserPromptSubmit")
    assert hook["command"] == f"{QUOTED} hook prompt-submit"
    assert ',  {"hooks": []}],\n' in settings.read_text(), settings.read_text()


def test_claude_code_reads_what_the_install_wrote_beside_escaped_keys(
    project: Path, home: Path, claude: Path
) -> None:
    """Claude Code reads kenning's server and the user's, whose name it wrote escaped, from
    the file the install changed (``claude mcp get``, without starting either server)."""
    user_json = home / ".claude.json"
    user_json.write_text(
        SPELLED_MCP.replace('"v\\/1": -0', f'"projects": {{"{project}": {{"v\\/1": -0}}}}')
    )
    exe = str(Path(sys.executable).parent / "kenning")
    code, _, err = cli("--scope", "user", "--executable", exe)
    assert code == 0, err
    assert '"caf\\u00e9\\/bar"' in user_json.read_text()
    doc = read(user_json)
    doc["projects"][str(project)]["disabledMcpServers"] = ["kenning", "café/bar"]
    kept = user_json.read_bytes()
    user_json.write_text(json.dumps(doc))  # turned off: `claude mcp get` starts nothing
    described = run([claude, "mcp", "get", "kenning"], home, project)
    assert f"Command: {exe}" in described and "Scope: User config" in described, described
    described = run([claude, "mcp", "get", "café/bar"], home, project)
    assert "Command: /usr/bin/cat" in described, described
    user_json.write_bytes(kept)
    assert cli("--scope", "user", "--uninstall")[0] == 0
    assert user_json.read_text() == SPELLED_MCP.replace(
        '"v\\/1": -0', f'"projects": {{"{project}": {{"v\\/1": -0}}}}'
    )


@pytest.mark.parametrize("empty", ["{}", "{}\n", "{\n}\n", "\n\n"])
def test_an_empty_object_gets_kenning_s_layout(project: Path, empty: str) -> None:
    # `echo '{}' > .claude/settings.local.json` says nothing of a layout: kenning's entries
    # are indented by 2, not one long line
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(empty)
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    text = settings.read_text()
    assert text.startswith("{\n") and '\n  "hooks": {\n    "' in text


def test_claude_code_reads_the_files_that_held_an_empty_object(
    project: Path, home: Path, claude: Path
) -> None:
    """The blank line kept after the `{` of a file that held `{}` or `{ }` (the record that
    lets the uninstall give it back) is nothing to Claude Code: it reads the server and the
    hooks there. Its `claude doctor` also accepts the hooks' timeout, which outlasts every
    budget kenning accepts (test_hook_timeout_outlasts_every_budget_kenning_accepts)."""
    mcp, settings = project / ".mcp.json", project / ".claude" / "settings.json"
    settings.parent.mkdir()
    mcp.write_text("{}\n")
    settings.write_text("{ }")
    code, _, err = cli("--scope", "project")
    assert code == 0, err
    assert mcp.read_text().startswith("{\n\n") and settings.read_text().startswith("{ \n\n")
    for event in install.HOOK_EVENTS:
        [hook] = kenning_hooks(read(settings), event)
        assert hook["timeout"] > config.MAX_HOOK_TIMEOUT_S
    approve_project_servers(home, project)
    described = described_unstarted(claude, home, project)
    assert "Scope: Project config" in described and "Command: kenning" in described, described
    report = run([claude, "doctor"], home, project)
    assert "Invalid settings" not in report and "settings.json" not in report, report
    assert cli("--scope", "project", "--uninstall")[0] == 0
    assert (mcp.read_bytes(), settings.read_bytes()) == (b"{}\n", b"{ }")


def test_the_empty_containers_a_user_had_are_given_back(
    project: Path, home: Path, claude: Path
) -> None:
    """`claude mcp remove` leaves .mcp.json as {"mcpServers": {}}, and a settings file may
    hold an event with no hooks: the uninstall removed each container it emptied, as it
    could not tell it from one it had made, and so deleted .mcp.json. The install keeps a
    blank line in the user's empty containers it fills (Claude Code reads them), and the
    uninstall gives them back."""
    run([claude, "mcp", "add", "--scope", "project", "tmp", "--", "/bin/cat"], home, project)
    run([claude, "mcp", "remove", "tmp", "--scope", "project"], home, project)
    mcp, settings = project / ".mcp.json", project / ".claude" / "settings.json"
    assert json.loads(mcp.read_text()) == {"mcpServers": {}}
    settings.parent.mkdir()
    settings.write_text('{\n  "hooks": {\n    "SessionStart": [ ]\n  },\n  "model": "opus"\n}\n')
    before = (mcp.read_bytes(), settings.read_bytes())
    code, _, err = cli("--scope", "project")
    assert code == 0, err
    assert '"mcpServers": {\n\n' in mcp.read_text()
    assert '"SessionStart": [ \n\n' in settings.read_text()
    approve_project_servers(home, project)
    described = described_unstarted(claude, home, project)
    assert "Scope: Project config" in described and "Command: kenning" in described, described
    report = run([claude, "doctor"], home, project)
    assert "Invalid settings" not in report and "settings.json" not in report, report
    assert cli("--scope", "project", "--uninstall")[0] == 0
    assert (mcp.read_bytes(), settings.read_bytes()) == before


@pytest.mark.parametrize("scope", install.SCOPES)
def test_a_byte_order_mark_is_kept_and_uninstall_gives_the_bytes_back(
    project: Path, home: Path, scope: str
) -> None:
    # Windows editors (Notepad, PowerShell's Set-Content -Encoding utf8) start a file with
    # one; Claude Code reads such a file (tests/test_agent_clis.py)
    mcp, _, settings = files_of(scope, project, home)
    for path, doc in ((mcp, EXISTING_MCP), (settings, EXISTING_SETTINGS)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, indent=2).encode() + b"\n")
    before = snapshot(project, home)
    exe = [] if scope == "project" else ["--executable", EXE]
    code, _, err = cli("--scope", scope, *exe)
    assert code == 0, err
    for path in (mcp, settings):
        assert path.read_bytes().startswith(b'\xef\xbb\xbf{\n  "'), path
        assert json.loads(path.read_text(encoding="utf-8-sig"))
    assert cli("--scope", scope, "--uninstall")[0] == 0
    assert file_bytes(snapshot(project, home)) == file_bytes(before)


def test_a_file_holding_only_a_byte_order_mark_is_empty(project: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_bytes(b"\xef\xbb\xbf")  # Notepad's empty file, saved as UTF-8
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    assert kenning_hooks(json.loads(settings.read_text(encoding="utf-8-sig")), "SessionStart")


@pytest.mark.parametrize(
    "settings",
    [
        [],
        {"hooks": []},
        {"hooks": {"UserPromptSubmit": {"hooks": []}}},
        {"hooks": {"UserPromptSubmit": ["not an object"]}},
    ],
)
def test_wrong_shape_is_an_error_and_nothing_is_written(project: Path, settings: object) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    before = snapshot(project)
    code, _, err = cli("--executable", EXE)
    assert code == 1
    assert ".claude/settings.local.json" in err and "nothing was written" in err
    assert snapshot(project) == before


def test_an_uninstall_leaves_what_the_install_did_not_read(project: Path) -> None:
    # the install reads only kenning's two events, so it took a settings file whose other
    # events are not shaped as hooks; the uninstall read every event and refused the file
    # ('"hooks.Stop" is not a JSON array'), and kenning's hooks could not be taken out
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n  "hooks": {\n    "Stop": "./on-stop.sh",\n    "Notification": ["./notify.sh"],\n'
        '    "PreToolUse": [{"matcher": "Bash", "hooks": "./check.sh"}]\n  }\n}\n'
    )
    before = snapshot(project)
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    assert len(kenning_hooks(read(settings), "SessionStart")) == 1
    code, _, err = cli("--uninstall")
    assert code == 0, err
    assert file_bytes(snapshot(project)) == file_bytes(before)


def test_wrong_shape_of_the_project_entry_is_an_error(project: Path, home: Path) -> None:
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): []}}))
    before = snapshot(project, home)
    code, _, err = cli("--executable", EXE)
    assert code == 1 and "~/.claude.json" in err and "projects" in err
    assert snapshot(project, home) == before


@pytest.mark.parametrize(
    ("scope", "link"),
    [
        ("project", ".mcp.json"),
        ("project", ".claude/settings.json"),
        ("project", ".claude"),
        ("local", ".claude/settings.local.json"),
        ("local", ".claude"),
        ("local", "~/.claude.json"),
        ("user", "~/.claude"),
        ("user", "~/.claude/settings.json"),
    ],
)
def test_symlinks_are_refused_and_nothing_is_written(
    project: Path, home: Path, tmp_path: Path, scope: str, link: str
) -> None:
    """A symlinked file or folder would carry the write outside the project (or the user's
    config): refused with a message naming it, and nothing anywhere is written."""
    elsewhere = tmp_path / "dotfiles"
    elsewhere.mkdir()
    target = elsewhere / "target"
    path = home / link[2:] if link.startswith("~/") else project / link
    path.parent.mkdir(parents=True, exist_ok=True)
    if link.endswith((".json", ".claude.json")):
        target.write_text(json.dumps({"model": "opus"}))
    else:
        target.mkdir()
    path.symlink_to(target)
    before = snapshot(project, home, elsewhere)
    exe = [] if scope == "project" else ["--executable", EXE]
    for args in (("--scope", scope, *exe), ("--scope", scope, "--uninstall")):
        code, _, err = cli(*args)
        assert code == 1, err
        assert "is a symlink" in err and "nothing was written" in err
        assert link.removeprefix("~/").split("/")[0] in err
        assert snapshot(project, home, elsewhere) == before


@pytest.mark.parametrize("read_only", ["~/.claude.json", ".claude/settings.local.json"])
def test_a_read_only_file_is_refused_and_nothing_is_written(
    project: Path, home: Path, read_only: str
) -> None:
    """A file the user made read-only (chmod 444) is theirs to keep as it is, even where the
    folder would let kenning replace it (and even for root): refused, naming the file and
    the two ways out, before anything is written — install and uninstall alike."""
    path = home / read_only[2:] if read_only.startswith("~/") else project / read_only
    for action in ((), ("--uninstall",)):
        if action:  # an installed kenning the user then made read-only
            path.chmod(0o644)
            assert cli("--executable", EXE)[0] == 0
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text('{"model": "opus"}\n')
        path.chmod(0o444)
        before = snapshot(project, home)
        code, _, err = cli("--executable", EXE, *action)
        flat = " ".join(err.split())
        assert code == 1, err
        assert f"{read_only} ({path}) is read-only" in flat
        assert f"chmod u+w {path}" in flat and "by hand" in flat
        assert "nothing was written" in flat
        assert snapshot(project, home) == before
        assert path.stat().st_mode & 0o777 == 0o444
        # a dry run shows the change, and that the real run would refuse it
        code, out, err = cli("--executable", EXE, *action, "--dry-run")
        flat = " ".join(err.split())
        assert code == 0 and f"+++ b/{read_only}" in out
        assert f"{read_only} ({path}) is read-only (mode 0444): the run will refuse it" in flat
        assert snapshot(project, home) == before


def test_a_file_that_cannot_be_written_leaves_the_other_unwritten_too(
    project: Path, home: Path
) -> None:
    """The second file failing (here: larger than the process may write, as a full disk
    would fail it) used to leave the first written, and the message named neither."""
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    allow = [f"Bash(./scripts/task-{i}.sh)" for i in range(4000)]
    settings.write_text(json.dumps({"permissions": {"allow": allow}}, indent=2) + "\n")
    assert settings.stat().st_size > 100_000
    before = snapshot(project, home)

    def small_files_only() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))

    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(Path(config.__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-m", "kenning", "install", "claude-code", "--executable", EXE],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=small_files_only,
    )
    flat = " ".join(out.stderr.split())
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"cannot write .claude/settings.local.json ({settings})" in flat
    assert "File too large" in flat and "nothing was written" in flat
    assert snapshot(project, home) == before  # no ~/.claude.json, no temporary file


def test_a_file_another_program_wrote_meanwhile_is_not_overwritten(
    project: Path, home: Path
) -> None:
    """Claude Code rewrites ~/.claude.json while it runs: a write of its landing between
    kenning's read and kenning's rename was lost (and kenning's plan was made on the old
    text). The files are compared with what was read before anything is replaced."""
    user_json = home / ".claude.json"
    user_json.write_text('{"numStartups": 3}\n')
    changes = install.plan_claude_code(project, EXE, home=home)
    user_json.write_text('{"numStartups": 4, "tipsHistory": {"new": 1}}\n')  # Claude Code
    before = snapshot(project, home)
    with pytest.raises(UserInputError) as caught:
        apply_changes(changes)
    message = " ".join(str(caught.value).split())
    assert f"~/.claude.json ({user_json}) changed since kenning read it" in message
    assert "run the command again" in message and "nothing was written" in message
    assert snapshot(project, home) == before


def test_a_rename_that_fails_puts_the_first_file_back(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_json = home / ".claude.json"
    user_json.write_text('{"numStartups": 3}\n')
    before = snapshot(project, home)
    renames = 0
    real_replace = os.replace

    def second_rename_fails(src: str, dst: str) -> None:
        nonlocal renames
        renames += 1
        if renames == 2:
            raise OSError(28, "No space left on device", dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", second_rename_fails)
    with pytest.raises(UserInputError) as caught:
        install.install_claude_code(project, executable=EXE, home=home)
    message = str(caught.value)
    assert "cannot write .claude/settings.local.json" in message
    assert "No space left on device" in message
    assert "~/.claude.json was put back as it was — nothing was changed" in message
    monkeypatch.undo()
    assert file_bytes(snapshot(project, home)) == file_bytes(before)


def test_a_hard_linked_file_is_refused_and_nothing_is_written(
    project: Path, home: Path, tmp_path: Path
) -> None:
    """A dotfiles folder can hold the same file under a second name (a hard link). Renaming
    a new file over ~/.claude/settings.json cut that link: the dotfiles copy kept the old
    settings, and edits to either no longer reached the other."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}\n')
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    os.link(settings, dotfiles / "settings.json")
    before = snapshot(project, home, dotfiles)
    code, _, err = cli("--scope", "user", "--executable", EXE)
    flat = " ".join(err.split())
    assert code == 1, err
    assert f"~/.claude/settings.json ({settings}) has 2 hard links" in flat
    assert "nothing was written" in flat
    assert snapshot(project, home, dotfiles) == before
    code, _, err = cli("--scope", "user", "--executable", EXE, "--dry-run")
    assert code == 0 and "has 2 hard links" in err and "the run will refuse it" in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_run_as_root_the_files_stay_their_owner_s(project: Path, home: Path) -> None:
    """`sudo kenning install` (or a container running as root on a mounted checkout) turned
    the user's files into root's: ~/.claude.json, 0600, then unreadable to the user's own
    Claude Code. A rewritten file keeps its owner; a new file or folder gets the owner of
    the folder it is made in."""
    user = (4321, 4321)
    settings = project / ".claude" / "settings.local.json"
    user_json = home / ".claude.json"
    for path in (home, user_json, project, project / ".claude", settings):
        if path in (user_json, settings):
            path.write_text('{"model": "opus"}\n')
        elif not path.exists():
            path.mkdir()
        os.chown(path, *user)
    user_json.chmod(0o600)
    code, _, err = cli("--executable", EXE)
    assert code == 0, err
    for path in (user_json, settings):
        assert (path.stat().st_uid, path.stat().st_gid) == user, path
        assert path.stat().st_mode & 0o777 == (0o600 if path == user_json else 0o644)
    # at user scope, ~/.claude/ and the settings file in it are new
    code, _, err = cli("--scope", "user", "--executable", EXE)
    assert code == 0, err
    for path in (home / ".claude", home / ".claude" / "settings.json"):
        assert (path.stat().st_uid, path.stat().st_gid) == user, path


@pytest.mark.parametrize("link", ["~/.claude/settings.json", "~/.claude"])
def test_a_dry_run_reads_through_a_symlink_and_shows_the_change_to_make_by_hand(
    project: Path, home: Path, tmp_path: Path, link: str
) -> None:
    """A dotfiles manager's link is refused, and the refusal says to make the change in its
    target by hand: the dry run, which writes nothing, shows that change (it failed too)."""
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    (dotfiles / "settings.json").write_text('{"model": "opus"}\n')
    if link == "~/.claude":
        (home / ".claude").symlink_to(dotfiles)
    else:
        (home / ".claude").mkdir()
        (home / ".claude" / "settings.json").symlink_to(dotfiles / "settings.json")
    before = snapshot(project, home, dotfiles)
    for action in ((), ("--uninstall",)):
        code, out, err = cli("--scope", "user", "--executable", EXE, "--dry-run", *action)
        flat = " ".join(err.split())
        assert code == 0, err
        if not action:
            assert "+++ b/~/.claude/settings.json" in out and "hook prompt-submit" in out
            assert '"model": "opus"' in out
        assert f"{link.removeprefix('~/') if link == '~/.claude' else link}" in flat
        assert "is a symlink" in flat and "the run will refuse it" in flat
        assert snapshot(project, home, dotfiles) == before
    code, _, err = cli("--scope", "user", "--executable", EXE)
    assert code == 1 and "is a symlink" in err
    assert snapshot(project, home, dotfiles) == before


def test_project_reached_through_a_symlink_is_fine(project: Path, tmp_path: Path) -> None:
    """The folder the user names may be a symlink; only what lies below it may not."""
    link = tmp_path / "via-link"
    link.symlink_to(project)
    assert cli("--scope", "project", "--project-dir", str(link))[0] == 0
    assert (project / ".mcp.json").exists()


# -- dry run, output, the hook command --------------------------------------------------------


def test_dry_run_prints_a_diff_and_writes_nothing(project: Path, home: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps(EXISTING_MCP, indent=2) + "\n")
    before = snapshot(project, home)
    code, out, err = cli("--scope", "project", "--dry-run")
    assert code == 0
    assert snapshot(project, home) == before
    assert "--- a/.mcp.json\n+++ b/.mcp.json\n" in out
    assert '+    "kenning": {' in out
    assert "--- /dev/null\n+++ b/.claude/settings.json\n" in out
    assert "hook prompt-submit" in out
    assert "nothing was written" in err

    assert cli("--scope", "project")[0] == 0
    installed = snapshot(project, home)
    code, out, _ = cli("--scope", "project", "--uninstall", "--dry-run")
    assert code == 0
    assert snapshot(project, home) == installed
    assert '-    "kenning": {' in out
    assert "--- a/.claude/settings.json\n+++ /dev/null\n" in out


def test_project_dir_option_and_git_top_level(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert cli("--scope", "project")[0] == 0
    assert (project / ".mcp.json").exists()
    elsewhere = make_repo(tmp_path / "elsewhere")
    assert cli("--scope", "project", "--project-dir", str(elsewhere))[0] == 0
    assert (elsewhere / ".mcp.json").exists() and (elsewhere / ".claude/settings.json").exists()


def test_json_output(project: Path) -> None:
    result = CliRunner().invoke(
        main, ["install", "claude-code", "--executable", EXE, "--json", "--dry-run"]
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["action"] == "install" and data["dry_run"] is True
    assert data["agent"] == "claude-code" and data["scope"] == "local"
    assert [f["status"] for f in data["files"]] == ["created", "created"]
    assert not (project / ".claude").exists()


def test_unknown_scope_is_a_usage_error(project: Path) -> None:
    code, _, err = cli("--scope", "global")
    assert code == 2 and "global" in err


def test_is_kenning_hook() -> None:
    assert install.is_kenning_hook("/a/b/kenning hook prompt-submit")
    assert install.is_kenning_hook("'/a b/kenning' hook session-start", "session-start")
    assert install.is_kenning_hook("kenning hook session-start")
    assert not install.is_kenning_hook("/a/b/kenning hook session-start", "prompt-submit")
    assert not install.is_kenning_hook("/a/b/notkenning hook prompt-submit")
    assert not install.is_kenning_hook("/a/b/kenning recall x")
    assert not install.is_kenning_hook("kenning hook prompt-submit-extra")
    assert not install.is_kenning_hook("kenning hook prompt-submit --flag")
    assert not install.is_kenning_hook(None)


def test_hook_timeout_outlasts_every_budget_kenning_accepts(project: Path) -> None:
    """Claude Code kills a hook after its "timeout": kenning's own budget (the largest
    KENNING_HOOK_TIMEOUT it accepts) must end first, and Claude Code must accept the value
    (its `claude doctor` reads these hooks in
    test_claude_code_reads_the_files_that_held_an_empty_object: one run of it for both)."""
    largest = config.MAX_HOOK_TIMEOUT_S
    assert config.hook_timeout(5.0, {"KENNING_HOOK_TIMEOUT": str(largest)}) == (largest, None)
    assert cli("--scope", "project")[0] == 0
    settings = read(project / ".claude" / "settings.json")
    for event in install.HOOK_EVENTS:
        [hook] = kenning_hooks(settings, event)
        assert hook["timeout"] > largest


def test_installed_hook_command_runs(project: Path) -> None:
    """The command written to the settings is what Claude Code runs through a shell."""
    exe = str(Path(sys.executable).parent / "kenning")
    assert cli("--executable", exe)[0] == 0
    settings = read(project / ".claude" / "settings.local.json")
    [hook] = kenning_hooks(settings, "UserPromptSubmit")
    payload = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "short",
    }
    proc = subprocess.run(
        hook["command"],
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_dry_run_of_the_user_config_never_prints_a_credential(project: Path, home: Path) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 4
    (home / ".claude.json").write_text(
        json.dumps(
            {"primaryApiKey": key, "projects": {str(project): {"allowedTools": []}}}, indent=2
        )
    )
    code, out, _ = cli("--executable", EXE, "--dry-run")
    assert code == 0 and '"kenning": {' in out
    assert "primaryApiKey" in out and key not in out and "REDACTED" in out
