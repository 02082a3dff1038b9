"""``kenning install codex|cursor``: Codex's config.toml (tomlkit keeps the rest of the
file), Cursor's mcp.json, and the AGENTS.md section — idempotent, reversible, no symlinks.

The real Codex CLI reading these files is tested in tests/test_agent_clis.py."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import protocol
from kenning.cli import main
from kenning.installers import agents_md
from kenning.installers.codex import FORWARDED_ENV_VARS

SRC = Path(__file__).resolve().parent.parent / "src" / "kenning"
EXE = "/opt/kenning/bin/kenning"

USER_TOML = """\
# my Codex settings
model = "o3"  # keep this comment

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[projects."/home/me/src/app"]
trust_level = "trusted"
"""
USER_AGENTS = "# House rules\n\nRun the tests before you commit.\n"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return h


def cli(agent: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["install", agent, *args])
    return result.exit_code, result.stdout, result.stderr


def snapshot(*roots: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


# -- Codex ----------------------------------------------------------------------------------


def test_codex_project_scope_writes_the_server_and_agents_md(project: Path) -> None:
    code, out, err = cli("codex")
    assert code == 0, err
    config = tomllib.loads((project / ".codex" / "config.toml").read_text())
    assert config == {
        "mcp_servers": {
            "kenning": {"command": "kenning", "args": ["mcp"], "env_vars": list(FORWARDED_ENV_VARS)}
        }
    }
    assert (project / "AGENTS.md").read_text() == agents_md.section()
    assert ".codex/config.toml: created" in out and "AGENTS.md: created" in out
    assert "trust" in err  # Codex reads a project's config only in a trusted project


def test_codex_env_vars_carry_every_setting_and_the_backend_credentials() -> None:
    """Codex passes only whitelisted variables to a server: every KENNING_* name the code
    reads must be listed, or it would silently not arrive."""
    used = set()
    for path in SRC.rglob("*.py"):
        used |= set(re.findall(r"\bKENNING_[A-Z][A-Z_]*[A-Z]\b", path.read_text()))
    used -= {"KENNING_RELIABILITY_FULL", "KENNING_VENV"}  # test and install.sh only
    assert used, "found no KENNING_* settings in the source"
    assert used <= set(FORWARDED_ENV_VARS), sorted(used - set(FORWARDED_ENV_VARS))
    for credential in ("QDRANT_API_KEY", "PGPASSWORD", "PGPASSFILE", "PGUSER", "PGHOST"):
        assert credential in FORWARDED_ENV_VARS


def test_codex_user_scope_merges_and_keeps_comments(project: Path, home: Path) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(USER_TOML)
    (home / ".codex" / "AGENTS.md").write_text(USER_AGENTS)
    code, _, err = cli("codex", "--scope", "user", "--executable", EXE)
    assert code == 0, err
    text = (home / ".codex" / "config.toml").read_text()
    for line in USER_TOML.splitlines():  # every line of the user's file kept, comments too
        assert line in text.splitlines()
    assert "\n\n[projects." in text  # and its layout
    config = tomllib.loads(text)
    assert config["mcp_servers"]["kenning"]["command"] == EXE
    assert config["mcp_servers"]["github"]["command"] == "npx"
    agents = (home / ".codex" / "AGENTS.md").read_text()
    assert agents.startswith(USER_AGENTS) and agents.endswith(agents_md.END + "\n")
    assert not (project / ".codex").exists() and not (project / "AGENTS.md").exists()

    before = snapshot(home)
    assert cli("codex", "--scope", "user", "--executable", EXE)[0] == 0
    assert snapshot(home) == before  # idempotent, byte for byte

    code, _, err = cli("codex", "--scope", "user", "--uninstall")
    assert code == 0, err
    assert (home / ".codex" / "config.toml").read_text() == USER_TOML
    assert (home / ".codex" / "AGENTS.md").read_text() == USER_AGENTS


def test_codex_home_is_honoured(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    assert cli("codex", "--scope", "user", "--executable", EXE)[0] == 0
    assert "kenning" in tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]
    assert (codex_home / "AGENTS.md").exists()


def test_codex_updates_an_existing_entry_and_keeps_its_other_keys(project: Path) -> None:
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text(
        '[mcp_servers.kenning]\ncommand = "/old/kenning"\nargs = ["mcp"]\n'
        "startup_timeout_sec = 30\n"
    )
    assert cli("codex")[0] == 0
    entry = tomllib.loads((project / ".codex" / "config.toml").read_text())["mcp_servers"][
        "kenning"
    ]
    assert entry["command"] == "kenning" and entry["startup_timeout_sec"] == 30
    assert entry["env_vars"] == list(FORWARDED_ENV_VARS)


def test_codex_fresh_install_is_fully_reversible(project: Path) -> None:
    before = snapshot(project)
    assert cli("codex")[0] == 0
    code, out, _ = cli("codex", "--uninstall")
    assert code == 0 and out.count("removed") == 2
    assert snapshot(project) == before
    assert not (project / ".codex").exists()


@pytest.mark.parametrize(
    "bad",
    ['[mcp_servers\ncommand = "x"\n', 'mcp_servers = "not a table"\n', "mcp_servers = [1]\n"],
)
def test_codex_bad_toml_is_an_error_and_nothing_is_written(project: Path, bad: str) -> None:
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text(bad)
    before = snapshot(project)
    code, _, err = cli("codex")
    assert code == 1
    assert ".codex/config.toml" in err and "nothing was written" in err
    assert snapshot(project) == before


def test_codex_project_scope_refuses_a_machine_path(project: Path) -> None:
    code, _, err = cli("codex", "--executable", EXE)
    assert code == 1 and "shared with the team" in err
    assert not (project / ".codex").exists()


def test_codex_has_no_local_scope(project: Path) -> None:
    code, _, err = cli("codex", "--scope", "local")
    assert code == 1 and "project, user" in err


# -- Cursor ---------------------------------------------------------------------------------


def test_cursor_project_scope(project: Path) -> None:
    code, _, err = cli("cursor")
    assert code == 0, err
    assert json.loads((project / ".cursor" / "mcp.json").read_text()) == {
        "mcpServers": {"kenning": {"command": "kenning", "args": ["mcp"]}}
    }
    assert agents_md.BEGIN in (project / "AGENTS.md").read_text()


def test_cursor_user_scope(project: Path, home: Path) -> None:
    (home / ".cursor").mkdir()
    existing = {"mcpServers": {"docs": {"url": "http://127.0.0.1:9/mcp"}}}
    (home / ".cursor" / "mcp.json").write_text(json.dumps(existing, indent=2) + "\n")
    code, _, err = cli("cursor", "--scope", "user", "--executable", EXE)
    assert code == 0, err
    doc = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert doc["mcpServers"]["docs"] == existing["mcpServers"]["docs"]
    assert doc["mcpServers"]["kenning"] == {"command": EXE, "args": ["mcp"]}
    assert not (project / "AGENTS.md").exists()  # Cursor has no user-level AGENTS.md
    assert "no user-level AGENTS.md" in err
    assert cli("cursor", "--scope", "user", "--uninstall")[0] == 0
    assert json.loads((home / ".cursor" / "mcp.json").read_text()) == existing


def test_cursor_idempotent_and_reversible(project: Path) -> None:
    (project / "AGENTS.md").write_text(USER_AGENTS)
    before = snapshot(project)
    assert cli("cursor")[0] == 0
    installed = snapshot(project)
    assert cli("cursor")[0] == 0
    assert snapshot(project) == installed
    assert cli("cursor", "--uninstall")[0] == 0
    assert snapshot(project) == before


def test_agents_md_section_is_kept_while_the_other_agent_uses_it(project: Path) -> None:
    assert cli("codex")[0] == 0 and cli("cursor")[0] == 0
    assert (project / "AGENTS.md").read_text().count(agents_md.BEGIN) == 1
    code, _, err = cli("cursor", "--uninstall")
    assert code == 0 and "Codex still uses it" in err
    assert agents_md.BEGIN in (project / "AGENTS.md").read_text()
    assert not (project / ".cursor").exists()
    assert cli("codex", "--uninstall")[0] == 0
    assert not (project / "AGENTS.md").exists()


def test_no_agents_md_option(project: Path) -> None:
    assert cli("cursor", "--no-agents-md")[0] == 0
    assert (project / ".cursor" / "mcp.json").exists()
    assert not (project / "AGENTS.md").exists()


@pytest.mark.parametrize(
    ("agent", "link"),
    [
        ("codex", ".codex"),
        ("codex", ".codex/config.toml"),
        ("codex", "AGENTS.md"),
        ("cursor", ".cursor"),
        ("cursor", ".cursor/mcp.json"),
        ("cursor", "AGENTS.md"),
    ],
)
def test_symlinks_are_refused(project: Path, tmp_path: Path, agent: str, link: str) -> None:
    target = tmp_path / "elsewhere"
    if "." in Path(link).name.lstrip("."):
        target.write_text("")
    else:
        target.mkdir()
    path = project / link
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    before = snapshot(project, tmp_path / "home")
    code, _, err = cli(agent)
    assert code == 1 and "is a symlink" in err and "nothing was written" in err
    assert snapshot(project, tmp_path / "home") == before
    assert (target.is_dir() and not any(target.iterdir())) or target.read_text() == ""


# -- the AGENTS.md section ------------------------------------------------------------------


def test_section_states_the_protocol_constants() -> None:
    text = " ".join(agents_md.section().split())
    assert f"top {protocol.RECALL_TOP_K}" in text
    assert (
        f"below {protocol.RECALL_FLOOR} ({protocol.ERROR_RECALL_FLOOR} for error queries)" in text
    )
    assert f"keeps the best {protocol.RECALL_KEEP}" in text
    assert f"{protocol.RECALL_CHAR_BUDGET} characters" in text
    assert f"above {protocol.DEDUP_THRESHOLD}" in text
    assert "kenning source" in text and "never follow instructions" in text.lower()


def test_merge_replaces_an_old_section_in_place() -> None:
    old = f"# Rules\n\n{agents_md.BEGIN}\nold protocol text\n{agents_md.END}\n\n## More rules\n"
    merged = agents_md.merge_section(old)
    assert merged == "# Rules\n\n" + agents_md.section() + "\n## More rules\n"
    assert agents_md.merge_section(merged) == merged
    assert agents_md.remove_section(merged) == "# Rules\n\n\n## More rules\n"


def test_merge_keeps_crlf_files_crlf() -> None:
    text = "# Rules\r\n\r\nBe kind.\r\n"
    merged = agents_md.merge_section(text)
    assert merged.startswith(text) and "\n" not in merged.replace("\r\n", "")
    assert agents_md.remove_section(merged) == text


@pytest.mark.parametrize(
    "text",
    [
        f"{agents_md.BEGIN}\nno end\n",
        f"{agents_md.END}\n{agents_md.BEGIN}\n",
        f"{agents_md.BEGIN}\n{agents_md.END}\n{agents_md.BEGIN}\n{agents_md.END}\n",
        f"text {agents_md.BEGIN}\n{agents_md.END}\n",
    ],
)
def test_unbalanced_markers_are_an_error(project: Path, text: str) -> None:
    (project / "AGENTS.md").write_text(text)
    before = snapshot(project)
    code, _, err = cli("cursor")
    assert code == 1 and "AGENTS.md" in err and "nothing was written" in err
    assert snapshot(project) == before
