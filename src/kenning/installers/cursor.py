"""``kenning install cursor --scope project|user``: register kenning's MCP server with Cursor.

Cursor reads MCP servers from ``.cursor/mcp.json`` in the project and from
``~/.cursor/mcp.json`` for every project, in the same shape as Claude Code's ``.mcp.json``::

    {"mcpServers": {"kenning": {"command": "kenning", "args": ["mcp"]}}}

The project scope (default) is shared with the team, so it names ``kenning`` on ``PATH``;
the user scope names the absolute path of the ``kenning`` that runs the install. Cursor
starts servers with the user's environment, so ``KENNING_STORE`` and the backend
credentials arrive as they are (no forwarding list, unlike Codex).

The project scope also merges the protocol section into the project's ``AGENTS.md``
(Cursor reads it as standing instructions); Cursor has no user-level instructions file, so
the user scope writes only ``~/.cursor/mcp.json``. ``--uninstall`` removes the server (and
the ``AGENTS.md`` section, unless Codex is still registered in the project and needs it);
an ``mcpServers`` it leaves empty goes only when it was all the file held, the rule of
:func:`kenning.installers.claude_code.plan_mcp`, and not when it was there empty before the
install (as Cursor writes the file): :func:`kenning.installers.files.json_change`.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from ..errors import UserInputError
from . import agents_md
from .claude_code import (
    SERVER_KEY,
    command_note,
    entry_additions,
    going_with,
    project_and_command,
    server_args,
)
from .files import (
    FileChange,
    InstallResult,
    apply_changes,
    dry_run_notes,
    json_change,
    locate,
    locked,
    read_json_object,
    read_text,
    shape_error,
    text_change,
)

__all__ = ["CURSOR_FILE", "SCOPES", "install_cursor", "plan_cursor_mcp", "registered_in_project"]

SCOPES = ("project", "user")
CURSOR_FILE = ".cursor/mcp.json"


def plan_cursor_mcp(
    doc: dict[str, Any], command: str, *, uninstall: bool, label: str = CURSOR_FILE
) -> dict[str, Any]:
    """The new ``mcp.json`` document (``doc`` is not modified)."""
    new = copy.deepcopy(doc)
    if uninstall:
        if "mcpServers" not in new:
            return new
        servers = new["mcpServers"]
        if not isinstance(servers, dict):
            raise shape_error(label, '"mcpServers"', "a JSON object")
        if SERVER_KEY in servers:
            del servers[SERVER_KEY]
            if not servers and len(new) == 1:  # beside other keys it may be the user's
                del new["mcpServers"]
        return new
    servers = new.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise shape_error(label, '"mcpServers"', "a JSON object")
    existing = servers.get(SERVER_KEY)
    entry = dict(existing) if isinstance(existing, dict) else {}
    entry.update({"command": command, "args": server_args(entry.get("args"))})
    servers[SERVER_KEY] = entry
    return new


def registered_in_project(project_dir: Path) -> bool:
    """Does the project's ``.cursor/mcp.json`` register kenning? (read-only, lenient)"""
    try:
        _, doc = read_json_object(locate(project_dir, CURSOR_FILE, CURSOR_FILE), CURSOR_FILE)
    except UserInputError:
        return False
    servers = doc.get("mcpServers")
    return isinstance(servers, dict) and SERVER_KEY in servers


def install_cursor(
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
    from .codex import registered_in_project as codex_registered

    root, command = project_and_command(
        "cursor", SCOPES, project_dir, scope, executable, uninstall=uninstall
    )
    if scope == "project":
        mcp_root, mcp_label = root, CURSOR_FILE
    else:
        mcp_root, mcp_label = (home or Path.home()), "~/.cursor/mcp.json"
    with locked(mcp_root, root):
        links: list[str] | None = [] if dry_run else None
        mcp_path = locate(mcp_root, CURSOR_FILE, mcp_label, links)
        before, doc = read_json_object(mcp_path, mcp_label)
        changes: list[FileChange] = [
            json_change(
                mcp_path,
                mcp_label,
                before,
                doc,
                plan_cursor_mcp(doc, command, uninstall=uninstall, label=mcp_label),
                prune_parent=scope == "project",
            )
        ]
        notes: list[str] = []
        servers = doc.get("mcpServers")
        added = entry_additions(
            servers.get(SERVER_KEY) if uninstall and isinstance(servers, dict) else None,
            ("command", "args"),
        )
        if added:
            notes.append(going_with(mcp_label, "server entry", added))
        unfound = None if uninstall else command_note(command, shared=scope == "project")
        notes += [unfound] if unfound else []
        if agents_md_section and scope == "project":
            label = agents_md.AGENTS_FILE
            agents_path = agents_md.locate_file(root, label, label, links)
            agents_before = read_text(agents_path, label)
            shared = uninstall and codex_registered(root)
            agents_after, note = agents_md.section_after(
                agents_before, label, uninstall=uninstall, kept_for="Codex" if shared else None
            )
            notes += [note] if note else []
            changes.append(text_change(agents_path, label, agents_before, agents_after))
        if not uninstall and scope == "user" and agents_md_section:
            notes.append(
                "Cursor has no user-level AGENTS.md: run `kenning install cursor` in a project "
                "to add the memory protocol to its AGENTS.md"
            )
        if not dry_run:
            apply_changes(changes)
        else:
            notes += (links or []) + dry_run_notes(changes)
    return InstallResult("cursor", scope, uninstall, changes, notes)
