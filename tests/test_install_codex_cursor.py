"""``kenning install codex|cursor``: Codex's config.toml (tomlkit keeps the rest of the
file), Cursor's mcp.json, and the AGENTS.md section — idempotent, reversible, no symlinks.

The real Codex CLI reads the user's servers in every TOML layout here (``codex mcp list
--json``); the server it starts is tested in tests/test_agent_clis.py."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import protocol
from kenning.cli import main
from kenning.installers import AGENTS, agents_md
from kenning.installers.codex import FORWARDED_ENV_VARS

from .case_table import each_case
from .test_agent_clis import CODEX_VERSION, _cli, _codex, _json_of, run
from .test_install import LAYOUTS as JSON_LAYOUTS

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


@pytest.fixture(scope="module")
def codex() -> Path:
    """The real Codex CLI (skipped when ./install.sh --test did not install it)."""
    return _codex(_cli("codex", CODEX_VERSION))


def codex_servers(codex: Path, home: Path, project: Path) -> dict[str, dict]:
    """The MCP servers the real Codex reads from ``home``'s config: name → transport."""
    listed = _json_of(run([codex, "mcp", "list", "--json"], home, project, stdout=True))
    return {server["name"]: server["transport"] for server in listed}


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
    # the model cache's folder (config.cache_dir): without it the server built a second one
    assert "XDG_CACHE_HOME" in FORWARDED_ENV_VARS


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


@pytest.mark.parametrize(
    "entry", ['command = "kenning"\nargs = ["mcp"]\n', 'command = "kenning"\n']
)
def test_codex_update_keeps_the_comment_heading_the_next_table(project: Path, entry: str) -> None:
    """An entry written by hand or by `codex mcp add` (no env_vars), followed by a comment
    heading the user's next table: the install put the keys it added below that comment,
    inside kenning's table, and --uninstall then removed the comment with the table."""
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    rest = '# one profile per model\n[profiles.fast]\nmodel = "o4-mini"\n'
    config.write_text(f"[mcp_servers.kenning]\n{entry}\n{rest}")
    assert cli("codex", "--no-agents-md")[0] == 0
    text = config.read_text()
    assert text.endswith(f"]\n\n{rest}"), text  # the comment still heads its table
    table = tomllib.loads(text)["mcp_servers"]["kenning"]
    assert table["args"] == ["mcp"] and table["env_vars"] == list(FORWARDED_ENV_VARS)
    assert cli("codex", "--uninstall", "--no-agents-md")[0] == 0
    assert config.read_text() == rest


def test_codex_keeps_the_names_a_user_added_to_env_vars(project: Path) -> None:
    # a proxy or a CA bundle the server needs: Codex forwards only what env_vars names
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        '[mcp_servers.kenning]\ncommand = "kenning"\nargs = ["mcp"]\n'
        'env_vars = ["HTTPS_PROXY", "KENNING_STORE", "SSL_CERT_FILE"]\n'
    )
    assert cli("codex", "--no-agents-md")[0] == 0
    names = tomllib.loads(config.read_text())["mcp_servers"]["kenning"]["env_vars"]
    assert names[:3] == ["HTTPS_PROXY", "KENNING_STORE", "SSL_CERT_FILE"]
    assert set(FORWARDED_ENV_VARS) <= set(names) and len(names) == len(set(names))
    installed = config.read_bytes()
    code, out, _ = cli("codex", "--no-agents-md")  # a second run changes nothing
    assert code == 0 and "unchanged" in out and config.read_bytes() == installed


def test_codex_keeps_the_comments_in_env_vars_when_it_adds_names(project: Path) -> None:
    """A kenning upgrade forwarding a new variable rebuilt the whole array, and the user's
    comments in it (why a proxy variable is there) were gone."""
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    head = (
        '[mcp_servers.kenning]\ncommand = "kenning"\nargs = ["mcp"]\nenv_vars = [\n'
        '  "HTTPS_PROXY",  # the office proxy\n'
        "  # the proxy's CA bundle\n"
        '  "SSL_CERT_FILE",\n'
        '  "KENNING_STORE",\n'
    )
    config.write_text(head + "]\n")
    assert cli("codex", "--no-agents-md")[0] == 0
    text = config.read_text()
    assert text.startswith(head), text
    names = tomllib.loads(text)["mcp_servers"]["kenning"]["env_vars"]
    assert names[:3] == ["HTTPS_PROXY", "SSL_CERT_FILE", "KENNING_STORE"]
    assert set(FORWARDED_ENV_VARS) <= set(names) and len(names) == len(set(names))


def test_codex_fresh_install_is_fully_reversible(project: Path) -> None:
    before = snapshot(project)
    assert cli("codex")[0] == 0
    code, out, _ = cli("codex", "--uninstall")
    assert code == 0 and out.count("removed") == 2
    assert snapshot(project) == before
    assert not (project / ".codex").exists()


# The user's other servers, in each form TOML allows (Codex reads them all).
LAYOUTS = {
    "dotted keys": 'model = "o3"\nmcp_servers.other.command = "npx"\n'
    'mcp_servers.other.args = ["-y", "@foo/bar"]\n',
    "dotted keys, then a table": 'model = "o3"\nmcp_servers.other.command = "npx"\n'
    'mcp_servers.other.args = ["-y", "@foo/bar"]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
    "one inline table": 'mcp_servers = { other = { command = "npx", args = ["-y", "@foo/bar"] } }\n',
    "tables out of order": '[mcp_servers.other]\ncommand = "npx"\nargs = ["-y", "@foo/bar"]\n\n'
    '[profiles.fast]\nmodel = "o4-mini"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n',
    "dotted keys in [mcp_servers]": '[mcp_servers]\nother.command = "npx"\n'
    'other.args = ["-y", "@foo/bar"]  # pinned\n',
    "an empty [mcp_servers] of the user's": '[mcp_servers]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
    "CRLF line endings": USER_TOML.replace("\n", "\r\n"),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_codex_merge_keeps_the_other_servers_in_every_layout(
    project: Path, home: Path, codex: Path, layout: str
) -> None:
    """After the install the file reads as the user's data plus kenning's server — for
    tomllib and for the real Codex — and the uninstall gives it back byte for byte."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = LAYOUTS[layout].encode()
    config.write_bytes(original)
    before = codex_servers(codex, home, project)
    assert set(before) == set(tomllib.loads(original.decode()).get("mcp_servers", {}))

    code, _, err = cli("codex", "--scope", "user", "--executable", EXE, "--no-agents-md")
    assert code == 0, err
    installed = config.read_bytes()
    expected = tomllib.loads(original.decode())
    expected.setdefault("mcp_servers", {})["kenning"] = {
        "command": EXE,
        "args": ["mcp"],
        "env_vars": list(FORWARDED_ENV_VARS),
    }
    assert tomllib.loads(installed.decode()) == expected
    after = codex_servers(codex, home, project)
    assert after.pop("kenning")["command"] == EXE
    assert after == before
    if b"\r\n" in original:  # every line kenning wrote ends like the user's
        assert installed.count(b"\n") == installed.count(b"\r\n")

    code, _, err = cli("codex", "--scope", "user", "--uninstall", "--no-agents-md")
    assert code == 0, err
    # the user's file byte for byte: what Codex reads from it is `before` (a third `codex mcp
    # list` of the same bytes, ~0.12 CPU-s a layout, would read nothing new)
    assert config.read_bytes() == original


def test_codex_config_starting_with_a_byte_order_mark(
    project: Path, home: Path, codex: Path
) -> None:
    """Codex reads a config.toml that a Windows editor started with a byte order mark;
    kenning refused it as 'not valid TOML' (line 1, column 1)."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = b"\xef\xbb\xbf" + USER_TOML.encode()
    config.write_bytes(original)
    assert set(codex_servers(codex, home, project)) == {"github"}
    code, _, err = cli("codex", "--scope", "user", "--executable", EXE, "--no-agents-md")
    assert code == 0, err
    assert config.read_bytes().startswith(original)
    assert set(codex_servers(codex, home, project)) == {"github", "kenning"}
    code, _, err = cli("codex", "--scope", "user", "--uninstall", "--no-agents-md")
    assert code == 0, err
    assert config.read_bytes() == original


def test_codex_says_when_kenning_s_server_is_turned_off(
    project: Path, home: Path, codex: Path
) -> None:
    """`enabled = false` on kenning's table is the user's and stays; Codex then does not
    start the server, so an install that says 'updated' must say that too."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        '[mcp_servers.kenning]\ncommand = "kenning"\nargs = ["mcp"]\nenabled = false\n'
    )
    code, _, err = cli("codex", "--scope", "user", "--executable", EXE, "--no-agents-md")
    assert code == 0, err
    listed = _json_of(run([codex, "mcp", "list", "--json"], home, project, stdout=True))
    assert [s["enabled"] for s in listed if s["name"] == "kenning"] == [False]
    flat = " ".join(err.split())
    assert "~/.codex/config.toml: kenning's server is turned off (enabled = false)" in flat
    config.write_text(config.read_text().replace("enabled = false", "enabled = true"))
    code, _, err = cli("codex", "--scope", "user", "--executable", EXE, "--no-agents-md")
    assert code == 0 and "turned off" not in err


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_codex_uninstall_keeps_the_comments_the_user_wrote_after_kenning_s_table(
    project: Path, newline: str
) -> None:
    """kenning's table goes at the end of the file; what a user adds after it later starts
    with its own comment, which TOML parsers count in kenning's table: it must stay."""
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(USER_TOML, newline="")
    assert cli("codex", "--no-agents-md")[0] == 0
    added = "\n# my fast profile: keep it\n[profiles.fast]\nmodel = 'o4-mini'  # cheap\n"
    with config.open("a", encoding="utf-8", newline="") as fh:
        fh.write(added)
    if newline == "\r\n":
        config.write_bytes(config.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    assert cli("codex", "--uninstall", "--no-agents-md")[0] == 0
    expected = (USER_TOML + added).replace("\n", newline)
    assert config.read_bytes().decode() == expected


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


@pytest.mark.parametrize(
    ("cut", "where"),
    [
        ('args = ["-y",\n', "(at end of document)"),
        ('env = { A = "1"\n', "Unclosed inline table (at line 5, column 16)"),
    ],
)
def test_codex_config_cut_short_is_an_error_that_says_where(
    project: Path, cut: str, where: str
) -> None:
    """A config.toml cut short (an editor or a disk that stopped mid-write) was refused with
    "Unexpected character: '\\x00' at line 5 col 0": a character the file does not hold, at
    a place where nothing is wrong."""
    (project / ".codex").mkdir()
    config = project / ".codex" / "config.toml"
    config.write_text(f'model = "o3"\n\n[mcp_servers.github]\ncommand = "npx"\n{cut}')
    before = snapshot(project)
    code, _, err = cli("codex")
    assert code == 1
    assert ".codex/config.toml is not valid TOML" in err and "nothing was written" in err
    assert where in err
    assert "\\x00" not in err
    assert snapshot(project) == before


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (".cursor/mcp.json", '{"mcpServers": {}}\n'.encode("utf-16")),  # Windows PowerShell's >
        ("AGENTS.md", "# Règles\n".encode("cp1252")),
    ],
)
def test_a_file_that_is_not_utf8_is_an_error_that_says_how_to_fix_it(
    project: Path, name: str, data: bytes
) -> None:
    """A file in another encoding was refused with Python's "'utf-8' codec can't decode byte
    0xff in position 0: invalid start byte", which says neither what is wrong with the file
    nor what to do."""
    (project / name).parent.mkdir(exist_ok=True)
    (project / name).write_bytes(data)
    before = snapshot(project)
    code, _, err = cli("cursor")
    assert code == 1
    assert f"{name} is not UTF-8 text" in err and "save it as UTF-8" in err
    assert "nothing was written" in err and "codec" not in err
    assert snapshot(project) == before


@pytest.mark.parametrize("scope", ["project", "user"])
def test_cursor_config_with_a_server_written_twice_is_an_error_that_says_where(
    project: Path, home: Path, scope: str
) -> None:
    """Two "docs" servers: JSON readers keep the last, and the rewrite lost the first."""
    root, label = (
        (project, ".cursor/mcp.json") if scope == "project" else (home, "~/.cursor/mcp.json")
    )
    (root / ".cursor").mkdir()
    (root / ".cursor" / "mcp.json").write_text(
        '{"mcpServers": {"docs": {"url": "http://a"}, "docs": {"url": "http://b"}}}'
    )
    before = snapshot(project, home)
    code, _, err = cli(
        "cursor", "--scope", scope, *(["--executable", EXE] if scope == "user" else [])
    )
    assert code == 1
    assert f'{label} has the key "mcpServers.docs" twice (line 1 column 46' in err
    assert "nothing was written" in err
    assert snapshot(project, home) == before


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


def test_cursor_uninstall_keeps_an_emptied_servers_object_beside_other_keys(
    project: Path, home: Path
) -> None:
    """An empty "mcpServers" may be the user's own: it stays unless it was all the file
    held (the rule of Claude Code's files)."""
    (home / ".cursor").mkdir()
    original = json.dumps({"mcpServers": {}, "inputs": []}, indent=2) + "\n"
    (home / ".cursor" / "mcp.json").write_text(original)
    assert cli("cursor", "--scope", "user", "--executable", EXE)[0] == 0
    assert cli("cursor", "--scope", "user", "--uninstall")[0] == 0
    assert (home / ".cursor" / "mcp.json").read_text() == original


@pytest.mark.parametrize(
    ("agent", "file", "entry", "said"),
    [
        (
            "codex",
            ".codex/config.toml",
            '[mcp_servers.kenning]\ncommand = "kenning"\nargs = ["mcp", "--project-dir", "/w"]\n'
            'env_vars = ["HTTPS_PROXY", "KENNING_STORE"]\nstartup_timeout_sec = 30\n',
            "(startup_timeout_sec; args --project-dir /w; env_vars HTTPS_PROXY)",
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            json.dumps(
                {
                    "mcpServers": {
                        "kenning": {
                            "command": "kenning",
                            "args": ["mcp"],
                            "env": {"KENNING_STORE": "/srv/memory.db"},
                            "envFile": "",  # empty: nothing of the user's, not named
                        }
                    }
                }
            ),
            "(env)",
        ),
    ],
)
def test_uninstall_says_what_the_user_had_added_to_kenning_s_entry(
    project: Path, agent: str, file: str, entry: str, said: str
) -> None:
    (project / file).parent.mkdir()
    (project / file).write_text(entry)
    code, _, err = cli(agent, "--uninstall", "--no-agents-md")
    assert code == 0, err
    assert f"{file}: kenning's " in err
    assert f"goes with what you had added to it {said}" in " ".join(err.split())
    assert not (project / file).exists()


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


def test_crlf_files_keep_their_line_endings(project: Path) -> None:
    agents = b"# Team rules\r\n\r\nUse tabs.\r\n"
    mcp = (
        json.dumps({"mcpServers": {"docs": {"url": "http://127.0.0.1:9/mcp"}}}, indent=2) + "\n"
    ).replace("\n", "\r\n")
    (project / "AGENTS.md").write_bytes(agents)
    (project / ".cursor").mkdir()
    (project / ".cursor" / "mcp.json").write_bytes(mcp.encode())
    before = snapshot(project)
    assert cli("cursor")[0] == 0
    for path in (project / "AGENTS.md", project / ".cursor" / "mcp.json"):
        data = path.read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n"), path.name
    assert agents_md.BEGIN.encode() in (project / "AGENTS.md").read_bytes()
    assert "kenning" in json.loads((project / ".cursor" / "mcp.json").read_bytes())["mcpServers"]
    assert cli("cursor", "--uninstall")[0] == 0
    assert snapshot(project) == before


TOKEN = "ghp_" + "a1B2" * 9
BRAVE = "BSAq7Xk2Lm9Pz4Wv8Rt1Yu6Io3"


@pytest.mark.parametrize("agent", ["codex", "cursor"])
@pytest.mark.parametrize("as_json", [False, True], ids=["diff", "json"])
def test_dry_run_never_prints_a_credential_of_the_user_config(
    project: Path, home: Path, agent: str, as_json: bool
) -> None:
    """Another server's token sits next to the lines kenning changes; the dry run's diff (and
    --json) show its line redacted, as they do for ~/.claude.json."""
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'[mcp_servers.brave]\ncommand = "npx"\nargs = [\n  "--brave-api-key",\n  "{BRAVE}",\n]\n'
        f'[mcp_servers.github]\ncommand = "npx"\nenv = {{ GITHUB_PERSONAL_ACCESS_TOKEN = "{TOKEN}" }}\n'
    )
    (home / ".cursor").mkdir()
    github = {"command": "npx", "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": TOKEN}}
    brave = {"command": "npx", "args": ["-y", "@brave/mcp", "--brave-api-key", BRAVE]}
    (home / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"github": github, "brave": brave}})
    )
    before = snapshot(home)
    options = ["--dry-run", "--no-agents-md", *(["--json"] if as_json else [])]
    code, out, err = cli(agent, "--scope", "user", "--executable", EXE, *options)
    assert code == 0, err
    assert "GITHUB_PERSONAL_ACCESS_TOKEN" in out and "REDACTED" in out
    assert TOKEN not in out and TOKEN not in err
    assert BRAVE not in out and BRAVE not in err  # an argument list, one item a line
    assert snapshot(home) == before


@pytest.mark.parametrize("agent", ["codex", "cursor"])
def test_dry_run_shows_the_repository_text_it_diffs_inert(project: Path, agent: str) -> None:
    """The dry run's diff quotes the lines around kenning's section of AGENTS.md — text of
    the repository, which anyone who can commit wrote: an OSC sequence there set the
    terminal's title (a way to a spoofed prompt), and a bidi override reordered the line.
    Such characters are shown as their escapes; the file is left as it is."""
    hostile = "Build with make.\x1b]0;owned\x07 Then \u202etest\n"
    (project / "AGENTS.md").write_text(f"# Agents\n\n{hostile}", encoding="utf-8")
    code, out, err = cli(agent, "--dry-run")
    assert code == 0, err
    assert "\\u001b]0;owned\\u0007" in out and "\\u202e" in out, out
    assert not {"\x1b", "\x07", "\u202e"} & set(out + err)
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == f"# Agents\n\n{hostile}"


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


@pytest.mark.parametrize("agent", ["codex", "cursor"])
def test_agents_md_linked_to_claude_md_points_to_no_agents_md(project: Path, agent: str) -> None:
    """AGENTS.md as a symlink to CLAUDE.md (one set of instructions for every agent) is
    common: the refusal must say that --no-agents-md registers the server all the same."""
    (project / "CLAUDE.md").write_text("# House rules\n")
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    before = snapshot(project)
    code, _, err = cli(agent)
    flat = " ".join(err.split())
    assert code == 1 and "AGENTS.md is a symlink (to CLAUDE.md)" in flat
    assert "would land in CLAUDE.md" in flat and "outside the folder" not in flat, flat
    assert "--no-agents-md registers the server without touching AGENTS.md" in flat
    assert snapshot(project) == before
    code, _, err = cli(agent, "--no-agents-md")
    assert code == 0, err
    assert (project / "CLAUDE.md").read_text() == "# House rules\n"


@pytest.mark.parametrize("agent", ["codex", "cursor"])
def test_an_executable_that_is_not_there_is_pointed_out(
    project: Path, tmp_path: Path, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "venv" / "bin" / "kenning"
    code, _, err = cli(agent, "--scope", "user", "--executable", str(missing), "--no-agents-md")
    assert code == 0, err
    assert f"{missing} is not an executable file here" in " ".join(err.split())
    code, _, err = cli(agent, "--scope", "user", "--executable", "kenning", "--no-agents-md")
    assert code == 0 and "is not an executable file" not in err, err
    path = os.environ.get("PATH", "").split(os.pathsep)
    monkeypatch.setenv(  # git stays on it, kenning does not
        "PATH", os.pathsep.join(d for d in path if not (Path(d) / "kenning").exists())
    )
    code, _, err = cli(agent, "--no-agents-md")  # project scope: names `kenning`, no path
    flat = " ".join(err.split())
    assert code == 0 and "`kenning` is not on PATH here" in flat
    assert "use --scope user for this machine's path" in flat and "--executable" not in flat


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


@each_case("text", ["hello", "hello\n", "# Rules\r\n\r\nBe kind.", "# Rules\r\n\r\nBe kind.\r\n"])
def test_remove_gives_back_the_file_merge_was_given(text: str) -> None:
    """An AGENTS.md whose last line had no newline came back from install and uninstall
    with one: the blank line put before the section was taken for the file's own."""
    merged = agents_md.merge_section(text)
    assert merged.startswith(text) and merged.endswith(
        agents_md.section().splitlines()[-1] + ("\r\n" if "\r\n" in text else "\n")
    )
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


def test_a_second_install_keeps_the_project_dir_pin_in_args() -> None:
    """README suggests pinning a project with `args = ["mcp", "--project-dir", …]`; running
    an install again (a new venv path, an upgrade) must not drop it — nor keep arguments
    that are not kenning's server's."""
    import tomllib

    from kenning.installers.claude_code import plan_mcp
    from kenning.installers.codex import plan_codex_toml
    from kenning.installers.cursor import plan_cursor_mcp

    pinned = ["mcp", "--project-dir", "/home/you/src/widgets"]
    toml = 'model = "o3"\n\n[mcp_servers.kenning]\ncommand = "/old/kenning"\n'
    toml += 'args = ["mcp", "--project-dir", "/home/you/src/widgets"]\n'
    after = plan_codex_toml(toml, "/new/kenning", uninstall=False)
    assert after is not None
    entry = tomllib.loads(after)["mcp_servers"]["kenning"]
    assert entry["command"] == "/new/kenning" and entry["args"] == pinned
    doc = {"mcpServers": {"kenning": {"command": "/old/kenning", "args": pinned}}}
    assert (
        plan_cursor_mcp(doc, "/new/kenning", uninstall=False)["mcpServers"]["kenning"]["args"]
        == pinned
    )
    assert plan_mcp(doc, "/new/kenning", uninstall=False)["mcpServers"]["kenning"]["args"] == (
        pinned
    )
    odd = {"mcpServers": {"kenning": {"command": "x", "args": ["serve", "--port", "1"]}}}
    assert plan_cursor_mcp(odd, "/new/kenning", uninstall=False)["mcpServers"]["kenning"][
        "args"
    ] == ["mcp"]


@pytest.mark.parametrize("agent", ["cursor", "codex"])
def test_installing_outside_git_says_the_agent_will_find_no_project(
    agent: str, project: Path, tmp_path: Path
) -> None:
    """Every other command refuses outside git; an install there succeeded silently, and
    the agent's tools then answered "found no project" to everything."""
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    code, _, err = cli(agent, "--project-dir", str(plain))
    assert code == 0
    assert "not inside a git repository" in err and "KENNING_PROJECT" in err, err
    code, _, err = cli(agent)  # inside the project's checkout: no such note
    assert code == 0 and "not inside a git repository" not in err, err
    code, _, err = cli(agent, "--project-dir", str(project / ".git"))  # no work tree there
    assert code == 0 and "no work tree here" in err and "git init" not in err, err


# -- every agent and scope: idempotent and reversible ------------------------------------------

#: What a user already has in each kind of file an install writes.
USER_TEXT = {
    ".json": json.dumps(
        {"mcpServers": {"docs": {"command": "docs-server", "args": ["--port", "9"]}}, "x": 1.5},
        indent=2,
    )
    + "\n",
    ".toml": USER_TOML,
    ".md": USER_AGENTS,
}


@pytest.mark.parametrize("existing", [False, True], ids=["fresh", "existing-files"])
@pytest.mark.parametrize(
    ("agent", "scope"), [(agent, scope) for agent, scopes in AGENTS.items() for scope in scopes]
)
def test_install_twice_then_uninstall_leaves_no_trace(
    project: Path, home: Path, agent: str, scope: str, existing: bool
) -> None:
    """An install run again (also from another kenning, as after an upgrade) changes nothing
    or updates kenning's entries in place, never adding a second one, and an uninstall then
    gives back every file's bytes."""
    personal = scope != "project"
    first, second = (EXE, EXE + "-2") if personal else ("kenning", "kenning-dev")
    if existing:  # the files a fresh install writes, holding the user's own settings first
        assert cli(agent, "--scope", scope, "--executable", first)[0] == 0
        written = set(snapshot(project, home))
        assert cli(agent, "--scope", scope, "--uninstall")[0] == 0
        for name in map(Path, written):
            name.parent.mkdir(parents=True, exist_ok=True)
            name.write_text(USER_TEXT[name.suffix])
    before = snapshot(project, home)
    code, _, err = cli(agent, "--scope", scope, "--executable", first)
    assert code == 0, err
    installed = snapshot(project, home)
    code, out, err = cli(agent, "--scope", scope, "--executable", first)
    assert code == 0, err
    assert snapshot(project, home) == installed and "updated" not in out
    code, _, err = cli(agent, "--scope", scope, "--executable", second)
    assert code == 0, err
    updated = snapshot(project, home)
    for name, text in updated.items():
        assert text.count(b"kenning") == installed[name].count(b"kenning"), name
    assert cli(agent, "--scope", scope, "--uninstall")[0] == 0
    assert snapshot(project, home) == before
    assert cli(agent, "--scope", scope, "--uninstall")[0] == 0
    assert snapshot(project, home) == before


#: A configuration file holding nothing but an empty object, as users and tools write one.
EMPTY_OBJECTS = {
    "bare": "{}",
    "echo": "{}\n",
    "spaced": "{ }",
    "two-lines": "{\n}\n",
    "crlf": "{}\r\n",
    "bom": "\ufeff{}\n",
    "padded": "  {  }\n\n",
}


@pytest.mark.parametrize("empty", EMPTY_OBJECTS)
@pytest.mark.parametrize(
    ("agent", "scope"),
    [(agent, scope) for agent, scopes in AGENTS.items() for scope in scopes if agent != "codex"],
)
def test_a_file_that_held_an_empty_object_is_given_back_not_deleted(
    project: Path, home: Path, agent: str, scope: str, empty: str
) -> None:
    """The uninstall deleted every JSON file it left as {}, so a user's own `{}` (`echo '{}'
    > .mcp.json`) was gone after an install and an uninstall: kenning could not tell it from
    a file it had created, whose text it was given. It keeps a blank line after that file's
    `{` (what was between its braces before it), and gives the file back as it was."""
    personal = scope != "project"
    first, second = (EXE, EXE + "-2") if personal else ("kenning", "kenning-dev")
    options = ("--scope", scope) + (("--no-agents-md",) if agent == "cursor" else ())
    untouched = snapshot(project, home)
    assert cli(agent, *options, "--executable", first)[0] == 0
    json_files = [Path(name) for name in snapshot(project, home) if name.endswith(".json")]
    assert cli(agent, *options, "--uninstall")[0] == 0
    assert json_files and snapshot(project, home) == untouched  # what it created, it removed
    for path in json_files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(EMPTY_OBJECTS[empty].encode())
    before = snapshot(project, home)
    for executable in (first, first, second):  # a second run, then one from another kenning
        code, _, err = cli(agent, *options, "--executable", executable)
        assert code == 0, err
        for path in json_files:
            doc = json.loads(path.read_bytes().decode("utf-8-sig"))
            assert "kenning" in json.dumps(doc), (path, doc)
    code, out, err = cli(agent, *options, "--uninstall")
    assert code == 0, err
    assert "removed" not in out
    assert snapshot(project, home) == before


@pytest.mark.parametrize(
    "text",
    ['{\n  "mcpServers": {}\n}', '{\n  "mcpServers": { },\n  "theme": "dark"\n}\n'],
    ids=["as-cursor-writes-it", "spaced-beside-a-key"],
)
@pytest.mark.parametrize("scope", ["project", "user"])
def test_cursor_gives_back_the_empty_servers_object_it_filled(
    project: Path, home: Path, scope: str, text: str
) -> None:
    # the uninstall removed the "mcpServers" it emptied when it was all the file held (it
    # could not tell it from its own), so it deleted the file Cursor had made
    path = (project if scope == "project" else home) / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(text)
    before = snapshot(project, home)
    for executable in ("kenning", "kenning-dev"):  # then one from another kenning
        code, _, err = cli("cursor", "--scope", scope, "--no-agents-md", "--executable", executable)
        assert code == 0, err
        servers = json.loads(path.read_text())["mcpServers"]
        assert servers["kenning"]["command"] == executable
    assert cli("cursor", "--scope", scope, "--uninstall")[0] == 0
    assert snapshot(project, home) == before


@pytest.mark.parametrize("layout", JSON_LAYOUTS)
@pytest.mark.parametrize("scope", ["project", "user"])
def test_cursor_keeps_the_layout_of_mcp_json_and_uninstall_gives_its_bytes_back(
    project: Path, home: Path, scope: str, layout: str
) -> None:
    path = (project if scope == "project" else home) / ".cursor" / "mcp.json"
    path.parent.mkdir()
    text = JSON_LAYOUTS[layout]({"mcpServers": {"docs": {"url": "http://a", "n": "<1e3>"}}})
    path.write_text(text.replace('"<1e3>"', "1e3"))
    before = snapshot(project, home)
    code, _, err = cli("cursor", "--scope", scope, "--no-agents-md", "--executable", "kenning")
    assert code == 0, err
    installed = path.read_text()
    assert "kenning" in installed and "1e3" in installed
    assert ("\n" in installed.rstrip()) == ("\n" in text.rstrip())  # one line stays one line
    assert cli("cursor", "--scope", scope, "--uninstall")[0] == 0
    assert snapshot(project, home) == before
