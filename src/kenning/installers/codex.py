"""``kenning install codex --scope project|user``: register kenning's MCP server with Codex.

Codex reads MCP servers from ``[mcp_servers.<name>]`` tables of its ``config.toml``: the
user's ``$CODEX_HOME/config.toml`` (``~/.codex``), and a project's ``.codex/config.toml`` when
the user has trusted that project. kenning writes::

    [mcp_servers.kenning]
    command = "kenning"
    args = ["mcp"]
    env_vars = ["KENNING_STORE", …, "QDRANT_API_KEY", "PGPASSWORD", …]

Codex starts a stdio server with a small whitelist of environment variables (``HOME``,
``PATH``, ``USER``, …); every other variable reaches the server only when its name is listed
in ``env_vars`` (Codex's documented key: a list of names, each forwarded from Codex's own
environment when it is set). Without it ``KENNING_STORE`` and the backend credentials would
silently not arrive, and the server would open the wrong store. :data:`FORWARDED_ENV_VARS`
lists every ``KENNING_*`` setting and the credentials of the server backends (Qdrant's API
key, libpq's ``PG*`` variables); a test checks that every ``KENNING_*`` name the code reads
is in it.

The project scope (default) is shared with the team, so it names ``kenning`` on ``PATH``;
the user scope names the absolute path of the ``kenning`` that runs the install. Both also
merge the protocol section into ``AGENTS.md`` (the project's, or ``$CODEX_HOME/AGENTS.md``,
Codex's global instructions), unless ``agents_md=False``.

The TOML is edited with tomlkit, so comments, ordering and formatting of the rest of the
file are kept; an existing ``kenning`` table keeps its other keys (``env``,
``startup_timeout_sec``, …). ``--uninstall`` removes the table (and an ``mcp_servers``
table it left empty) and the ``AGENTS.md`` section — unless Cursor is still registered in
the same project and needs that section.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Table

from ..errors import UserInputError
from . import agents_md
from .claude_code import SERVER_KEY, SHARED_COMMAND, default_project_dir, kenning_executable
from .files import FileChange, InstallResult, apply_changes, locate, read_text, text_change

__all__ = [
    "CODEX_PROJECT_FILE",
    "FORWARDED_ENV_VARS",
    "SCOPES",
    "codex_home",
    "install_codex",
    "plan_codex_toml",
]

SCOPES = ("project", "user")
CODEX_PROJECT_FILE = ".codex/config.toml"

#: Environment variables Codex must pass to ``kenning mcp``. Every ``KENNING_*`` setting,
#: then the server backends' credentials: Qdrant's API key and libpq's connection variables
#: (https://www.postgresql.org/docs/current/libpq-envars.html) — a ``postgresql://`` URL
#: without a password takes it from ``PGPASSWORD`` or ``PGPASSFILE``.
FORWARDED_ENV_VARS: tuple[str, ...] = (
    "KENNING_STORE",
    "KENNING_PROJECT",
    "KENNING_SIMILARITY_THRESHOLD",
    "KENNING_RECALL_FLOOR",
    "KENNING_ERROR_RECALL_FLOOR",
    "KENNING_DECAY_HALF_LIFE",
    "KENNING_RECALL_LOG",
    "KENNING_STALE_PENALTY",
    "KENNING_MODEL_DIR",
    "KENNING_CACHE_DIR",
    "KENNING_EMBEDDER",
    "KENNING_SECRETS_FILE",
    "KENNING_LOG_LEVEL",
    "KENNING_HOOK_TIMEOUT",
    "KENNING_ANN_MIN_ROWS",
    "QDRANT_API_KEY",
    "PGHOST",
    "PGHOSTADDR",
    "PGPORT",
    "PGDATABASE",
    "PGUSER",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGSERVICE",
    "PGSERVICEFILE",
    "PGOPTIONS",
    "PGAPPNAME",
    "PGSSLMODE",
    "PGSSLROOTCERT",
    "PGSSLCERT",
    "PGSSLKEY",
    "PGCONNECT_TIMEOUT",
    "PGTARGETSESSIONATTRS",
)


def codex_home(home: Path | None = None) -> tuple[Path, str, str]:
    """``(root, relative prefix, label prefix)`` of Codex's user folder: ``$CODEX_HOME`` when
    set (the folder itself is the root), else ``~`` with ``.codex/`` below it."""
    configured = os.environ.get("CODEX_HOME")
    if configured:
        return Path(configured).expanduser(), "", "$CODEX_HOME/"
    return (home or Path.home()), ".codex/", "~/.codex/"


def _parse(text: str | None, label: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text or "")
    except tomlkit.exceptions.ParseError as exc:
        raise UserInputError(
            f"{label} is not valid TOML ({exc}); fix or remove it and run again — nothing "
            "was written"
        ) from None


def _table(value: Any, label: str, where: str) -> Any:
    if not isinstance(value, dict):  # tomlkit's Table and InlineTable are dicts
        raise UserInputError(
            f"{label}: {where} is not a table, so kenning cannot merge its entry safely; fix "
            "the file — nothing was written"
        )
    return value


def plan_codex_toml(
    text: str | None, command: str, *, uninstall: bool, label: str = CODEX_PROJECT_FILE
) -> str | None:
    """The new text of a Codex ``config.toml`` (``None``: the file would be empty)."""
    doc = _parse(text, label)
    if uninstall:
        if "mcp_servers" not in doc:
            return text
        servers = _table(doc["mcp_servers"], label, "mcp_servers")
        if SERVER_KEY not in servers:
            return text
        del servers[SERVER_KEY]
        if not servers:
            del doc["mcp_servers"]
        rendered = tomlkit.dumps(doc)
        return rendered if rendered.strip() else None
    if "mcp_servers" not in doc:
        doc["mcp_servers"] = tomlkit.table(is_super_table=True)
    servers = _table(doc["mcp_servers"], label, "mcp_servers")
    existing = servers.get(SERVER_KEY)
    env_vars = tomlkit.array()
    env_vars.extend(FORWARDED_ENV_VARS)
    env_vars.multiline(True)
    wanted: dict[str, Any] = {"command": command, "args": ["mcp"], "env_vars": env_vars}
    if existing is None:
        entry = tomlkit.table()
        for key, value in wanted.items():
            entry[key] = value
        if list(doc)[-1] != "mcp_servers":  # a blank line before the tables that follow
            entry.add(tomlkit.nl())
        servers[SERVER_KEY] = entry
    else:
        entry = _table(existing, label, f"mcp_servers.{SERVER_KEY}")
        for key, value in wanted.items():
            if key == "env_vars":
                current = entry.get(key)
                if isinstance(current, list) and list(current) == list(FORWARDED_ENV_VARS):
                    continue  # same names: keep the user's layout of the array
            elif entry.get(key) == value:
                continue
            entry[key] = value
    rendered = tomlkit.dumps(doc)
    if text is not None and tomlkit.parse(rendered) == tomlkit.parse(text):
        return text  # nothing changed: keep the bytes
    return rendered


def _other_agents_use_section(project_dir: Path) -> bool:
    """Is Cursor still registered in this project (so AGENTS.md must keep the section)?"""
    from .cursor import registered_in_project

    return registered_in_project(project_dir)


def registered_in_project(project_dir: Path) -> bool:
    """Does the project's ``.codex/config.toml`` register kenning? (read-only, lenient)"""
    try:
        path = locate(project_dir, CODEX_PROJECT_FILE, CODEX_PROJECT_FILE)
        doc = tomlkit.parse(read_text(path, CODEX_PROJECT_FILE) or "")
    except (UserInputError, tomlkit.exceptions.ParseError):
        return False
    servers = doc.get("mcp_servers")
    return isinstance(servers, (dict, Table)) and SERVER_KEY in servers


def install_codex(
    project_dir: Path | None = None,
    *,
    scope: str = "project",
    uninstall: bool = False,
    dry_run: bool = False,
    executable: str | None = None,
    agents_md_section: bool = True,
    home: Path | None = None,
) -> InstallResult:
    """Plan and (unless ``dry_run``) apply the install or uninstall for ``scope``."""
    if scope not in SCOPES:
        raise UserInputError(f"unknown scope {scope!r} for codex; use one of {', '.join(SCOPES)}")
    root = Path(project_dir).resolve() if project_dir else default_project_dir()
    if not root.is_dir():
        raise UserInputError(f"the project folder {root} does not exist")
    if scope == "project":
        if executable is not None and "/" in executable:
            raise UserInputError(
                "--scope project writes files shared with the team, so they name `kenning` "
                "on PATH, not a path of this machine; use --scope user for --executable"
            )
        command = executable or SHARED_COMMAND
        config_root, config_rel, config_label = root, CODEX_PROJECT_FILE, CODEX_PROJECT_FILE
        agents_root, agents_rel, agents_label = root, agents_md.AGENTS_FILE, agents_md.AGENTS_FILE
    else:
        if executable is not None:
            command = os.path.abspath(os.path.expanduser(executable))
        else:
            command = kenning_executable() if not uninstall else SHARED_COMMAND
        user_root, prefix, shown = codex_home(home)
        config_root, config_rel, config_label = (
            user_root,
            prefix + "config.toml",
            shown + "config.toml",
        )
        agents_root = user_root
        agents_rel, agents_label = prefix + agents_md.AGENTS_FILE, shown + agents_md.AGENTS_FILE

    config_path = locate(config_root, config_rel, config_label)
    config_before = read_text(config_path, config_label)
    changes: list[FileChange] = [
        text_change(
            config_path,
            config_label,
            config_before,
            plan_codex_toml(config_before, command, uninstall=uninstall, label=config_label),
            prune_parent=scope == "project",
        )
    ]
    notes: list[str] = []
    if agents_md_section:
        agents_path = locate(agents_root, agents_rel, agents_label)
        agents_before = read_text(agents_path, agents_label)
        if uninstall and scope == "project" and _other_agents_use_section(root):
            agents_after = agents_before
            notes.append(f"{agents_label} keeps the kenning section: Cursor still uses it")
        elif uninstall:
            agents_after = agents_md.remove_section(agents_before, agents_label)
        else:
            agents_after = agents_md.merge_section(agents_before, agents_label)
        changes.append(text_change(agents_path, agents_label, agents_before, agents_after))
    if not uninstall and scope == "project":
        notes.append(
            f"Codex reads {CODEX_PROJECT_FILE} only in a project you trust: accept the trust "
            "prompt when Codex asks, or use --scope user"
        )
    if not dry_run:
        apply_changes(changes)
    return InstallResult("codex", scope, uninstall, changes, notes)
