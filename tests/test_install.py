"""``kenning install claude-code``: merges, idempotent, reversible, dry-run, atomic."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning.cli import main
from kenning.installers import claude_code as install

EXE = "/opt/kenning tools/bin/kenning"  # a space, so quoting is exercised

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


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["install", "claude-code", *args])
    return result.exit_code, result.stdout, result.stderr


def read(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".git" not in p.parts:
            out[str(p.relative_to(root))] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def kenning_hooks(settings: dict, event: str) -> list[dict]:
    return [
        h
        for group in settings["hooks"].get(event, [])
        for h in group["hooks"]
        if install.is_kenning_hook(h.get("command"))
    ]


def test_fresh_install_writes_both_files(project: Path) -> None:
    code, out, err = cli("--executable", EXE)
    assert code == 0, err
    assert read(project / ".mcp.json") == {
        "mcpServers": {"kenning": {"command": EXE, "args": ["mcp"]}}
    }
    quoted = "'/opt/kenning tools/bin/kenning'"
    assert read(project / ".claude" / "settings.json") == {
        "hooks": {
            "SessionStart": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"{quoted} hook session-start",
                            "timeout": install.HOOK_TIMEOUT_SECONDS,
                        }
                    ]
                }
            ],
            "UserPromptSubmit": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"{quoted} hook prompt-submit",
                            "timeout": install.HOOK_TIMEOUT_SECONDS,
                        }
                    ]
                }
            ],
        }
    }
    assert ".mcp.json: created" in out and ".claude/settings.json: created" in out


def test_default_executable_is_an_absolute_kenning(project: Path) -> None:
    code, _, err = cli()
    assert code == 0, err
    command = read(project / ".mcp.json")["mcpServers"]["kenning"]["command"]  # type: ignore[index]
    assert os.path.isabs(command) and Path(command).name == "kenning"
    assert os.access(command, os.X_OK)


def test_second_run_changes_nothing(project: Path) -> None:
    assert cli("--executable", EXE)[0] == 0
    before = snapshot(project)
    code, out, _ = cli("--executable", EXE)
    assert code == 0
    assert snapshot(project) == before  # same bytes, not even rewritten
    assert out.count("unchanged") == 2


def test_merge_keeps_everything_and_uninstall_restores_it(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps(EXISTING_MCP, indent=4) + "\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(EXISTING_SETTINGS))
    assert cli("--executable", EXE)[0] == 0

    mcp = read(project / ".mcp.json")
    assert mcp["mcpServers"]["github"] == EXISTING_MCP["mcpServers"]["github"]  # type: ignore[index]
    assert mcp["mcpServers"]["kenning"] == {"command": EXE, "args": ["mcp"]}  # type: ignore[index]
    assert mcp["otherTopLevel"] == [1, 2, 3]  # type: ignore[index]
    assert (project / ".mcp.json").read_text().startswith('{\n    "mcpServers"')  # indent kept
    settings = read(project / ".claude" / "settings.json")
    assert isinstance(settings, dict)
    assert settings["permissions"] == EXISTING_SETTINGS["permissions"]
    assert settings["hooks"]["PreToolUse"] == EXISTING_SETTINGS["hooks"]["PreToolUse"]  # type: ignore[index]
    prompt_groups = settings["hooks"]["UserPromptSubmit"]
    assert prompt_groups[0] == EXISTING_SETTINGS["hooks"]["UserPromptSubmit"][0]  # type: ignore[index]
    assert len(kenning_hooks(settings, "UserPromptSubmit")) == 1
    assert len(kenning_hooks(settings, "SessionStart")) == 1

    code, _, err = cli("--uninstall")
    assert code == 0, err
    assert read(project / ".mcp.json") == EXISTING_MCP
    assert read(project / ".claude" / "settings.json") == EXISTING_SETTINGS
    # and uninstalling again changes nothing
    before = snapshot(project)
    assert cli("--uninstall")[0] == 0
    assert snapshot(project) == before


def test_uninstall_of_a_fresh_install_removes_the_files(project: Path) -> None:
    before = snapshot(project)
    assert cli("--executable", EXE)[0] == 0
    code, out, _ = cli("--uninstall")
    assert code == 0
    assert "removed" in out
    assert not (project / ".mcp.json").exists()
    assert not (project / ".claude").exists()
    assert snapshot(project) == before


def test_uninstall_when_not_installed_writes_nothing(project: Path) -> None:
    before = snapshot(project)
    code, out, _ = cli("--uninstall")
    assert code == 0
    assert out.count("unchanged") == 2
    assert snapshot(project) == before
    assert not (project / ".claude").exists()


@pytest.mark.parametrize("broken", [".mcp.json", ".claude/settings.json"])
def test_malformed_json_is_an_error_and_nothing_is_written(project: Path, broken: str) -> None:
    (project / ".claude").mkdir()
    (project / broken).write_text('{"mcpServers": {"a": 1},,}\n')
    before = snapshot(project)
    code, _, err = cli("--executable", EXE)
    assert code == 1
    assert broken in err and "not valid JSON" in err and "line 1" in err
    assert "nothing was written" in err
    assert snapshot(project) == before
    code, _, err = cli("--uninstall")
    assert code == 1
    assert snapshot(project) == before


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
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    before = snapshot(project)
    code, _, err = cli("--executable", EXE)
    assert code == 1
    assert ".claude/settings.json" in err and "nothing was written" in err
    assert snapshot(project) == before


def test_dry_run_prints_a_diff_and_writes_nothing(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps(EXISTING_MCP, indent=2) + "\n")
    before = snapshot(project)
    code, out, err = cli("--dry-run", "--executable", EXE)
    assert code == 0
    assert snapshot(project) == before
    assert "--- a/.mcp.json\n+++ b/.mcp.json\n" in out
    assert '+    "kenning": {' in out
    assert "--- /dev/null\n+++ b/.claude/settings.json\n" in out
    assert "hook prompt-submit" in out
    assert "nothing was written" in err

    assert cli("--executable", EXE)[0] == 0
    installed = snapshot(project)
    code, out, _ = cli("--uninstall", "--dry-run")
    assert code == 0
    assert snapshot(project) == installed
    assert '-    "kenning": {' in out
    assert "--- a/.claude/settings.json\n+++ /dev/null\n" in out


def test_reinstall_from_another_path_updates_in_place(project: Path) -> None:
    assert cli("--executable", EXE)[0] == 0
    assert cli("--executable", "/usr/local/bin/kenning")[0] == 0
    settings = read(project / ".claude" / "settings.json")
    assert isinstance(settings, dict)
    [session] = kenning_hooks(settings, "SessionStart")
    [prompt] = kenning_hooks(settings, "UserPromptSubmit")
    assert session["command"] == "/usr/local/bin/kenning hook session-start"
    assert prompt["command"] == "/usr/local/bin/kenning hook prompt-submit"
    assert read(project / ".mcp.json")["mcpServers"]["kenning"]["command"] == (  # type: ignore[index]
        "/usr/local/bin/kenning"
    )


def test_is_kenning_hook() -> None:
    assert install.is_kenning_hook("/a/b/kenning hook prompt-submit")
    assert install.is_kenning_hook("'/a b/kenning' hook session-start", "session-start")
    assert install.is_kenning_hook("kenning hook session-start")
    assert not install.is_kenning_hook("/a/b/kenning hook session-start", "prompt-submit")
    assert not install.is_kenning_hook("/a/b/notkenning hook prompt-submit")
    assert not install.is_kenning_hook("/a/b/kenning recall x")
    assert not install.is_kenning_hook(None)


def test_writes_keep_mode_and_follow_symlinks(project: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "settings.json"
    target.write_text(json.dumps({"model": "opus"}))
    target.chmod(0o640)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").symlink_to(target)
    assert cli("--executable", EXE)[0] == 0
    assert (project / ".claude" / "settings.json").is_symlink()
    data = read(target)
    assert isinstance(data, dict) and data["model"] == "opus" and "hooks" in data
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert not [p for p in dotfiles.iterdir() if p.name != "settings.json"]  # no temp files left


def test_project_dir_option_and_git_top_level(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert cli("--executable", EXE)[0] == 0
    assert (project / ".mcp.json").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert cli("--executable", EXE, "--project-dir", str(elsewhere))[0] == 0
    assert (elsewhere / ".mcp.json").exists() and (elsewhere / ".claude/settings.json").exists()


def test_json_output(project: Path) -> None:
    code, out, _ = cli("--executable", EXE, "--json", "--dry-run")
    assert code == 0
    data = json.loads(out)
    assert data["action"] == "install" and data["dry_run"] is True
    assert [f["status"] for f in data["files"]] == ["created", "created"]
    assert not (project / ".mcp.json").exists()


def test_installed_hook_command_runs(project: Path) -> None:
    """The command written to settings.json is what Claude Code runs through a shell."""
    exe = str(Path(sys.executable).parent / "kenning")
    assert cli("--executable", exe)[0] == 0
    settings = read(project / ".claude" / "settings.json")
    assert isinstance(settings, dict)
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
