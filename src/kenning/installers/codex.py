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
file are kept: a new ``[mcp_servers.kenning]`` table goes at the end of the file (inside
``mcp_servers = { … }`` when the servers are one inline table), and an existing ``kenning``
entry is updated in place and keeps its other keys (``env``, ``startup_timeout_sec``, …)
and the names a user added to its ``env_vars``.
Every plan is checked with tomllib: the new text must read as the old data with only
kenning's server changed, or nothing is written. ``--uninstall`` removes the entry (an
``[mcp_servers]`` table the user wrote stays, even empty, and so do comments written after
kenning's table) and gives back the bytes the install started from (a byte order mark
included; a file that did not end with a newline gets one), and the
``AGENTS.md`` section — unless Cursor is still registered in the same project and needs
that section.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Array, InlineTable, Table

from ..config import SETTING_VARIABLES, expand_home
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
    BOM,
    FileChange,
    InstallResult,
    apply_changes,
    dry_run_notes,
    line_ending,
    locate,
    locked,
    read_text,
    text_change,
)

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
#: ``XDG_CACHE_HOME`` (where the model's built graph is cached, unless KENNING_CACHE_DIR
#: says: without it the server built a second cache under ~/.cache), then the server
#: backends' credentials: Qdrant's API key and libpq's connection variables
#: (https://www.postgresql.org/docs/current/libpq-envars.html) — a ``postgresql://`` URL
#: without a password takes it from ``PGPASSWORD`` or ``PGPASSFILE``.
FORWARDED_ENV_VARS: tuple[str, ...] = (
    *SETTING_VARIABLES,
    "XDG_CACHE_HOME",
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
        return expand_home(configured, "CODEX_HOME"), "", "$CODEX_HOME/"
    return (home or Path.home()), ".codex/", "~/.codex/"


def _parse(text: str, label: str) -> tuple[tomlkit.TOMLDocument, dict[str, Any]]:
    """The document to edit (tomlkit) and its data as tomllib reads it (the stricter of the
    two, and the one the plan is checked with). tomllib reads it first: its error names the
    place that is wrong, where tomlkit's named a character the file does not hold (``'\\x00'``,
    its end of input) at the start of the line."""
    try:
        data = tomllib.loads(text)
        return tomlkit.parse(text), data
    except (tomlkit.exceptions.ParseError, tomllib.TOMLDecodeError) as exc:
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


def _entry(command: str, *, inline: bool) -> Table | InlineTable:
    """kenning's server, as a table of its own or (inside an inline table) inline."""
    entry = tomlkit.inline_table() if inline else tomlkit.table()
    entry["command"] = command
    entry["args"] = ["mcp"]
    entry["env_vars"] = _env_vars(multiline=not inline)
    return entry


def _env_vars(*, multiline: bool, existing: object = None) -> Array:
    names = tomlkit.array()
    names.extend(_env_var_names(existing))
    return names.multiline(multiline)


def _env_var_names(existing: object) -> list[Any]:
    """The ``env_vars`` of kenning's entry: the entry's own names (a proxy, a CA bundle the
    user added for the server), then each of :data:`FORWARDED_ENV_VARS` they lack."""
    own = list(existing) if isinstance(existing, list) else []
    return own + [name for name in FORWARDED_ENV_VARS if name not in own]


def _with_server(text: str, doc: tomlkit.TOMLDocument, command: str, label: str) -> str:
    """``text`` with kenning's server registered (``text`` itself when it already is)."""
    servers = doc.get("mcp_servers")
    existing = None if servers is None else servers.get(SERVER_KEY)
    if existing is not None:  # update it in place, keeping its other keys and its form
        entry = _table(existing, label, f"mcp_servers.{SERVER_KEY}")
        current = entry.get("env_vars")
        same_names = isinstance(current, list) and list(current) == _env_var_names(current)
        args = server_args(entry.get("args"))
        if entry.get("command") == command and entry.get("args") == args and same_names:
            return text  # nothing to change: keep the bytes
        if entry.get("command") != command:
            _set(entry, "command", command)
        if entry.get("args") != args:
            _set(entry, "args", args)
        if isinstance(current, Array) and not same_names:
            # appended to, not rebuilt: the user's comments and layout in it stay
            one_line = "\n" not in current.as_string()
            current.extend(_env_var_names(current)[len(current) :])
            if one_line and not isinstance(entry, InlineTable):
                current.multiline(True)  # a line holds no comment to lose
        elif not same_names:
            _set(
                entry,
                "env_vars",
                _env_vars(multiline=not isinstance(entry, InlineTable), existing=current),
            )
        return tomlkit.dumps(doc)
    if isinstance(servers, InlineTable):
        # `mcp_servers = { … }` is closed: TOML allows no [mcp_servers.kenning] beside it,
        # so the server goes inside it, inline like the others
        servers[SERVER_KEY] = _entry(command, inline=True)
        return tomlkit.dumps(doc)
    # Anywhere else the server is a table of its own at the end of the file. tomlkit would
    # insert it into the container the other servers are in, and when they are dotted keys
    # (`mcp_servers.other.command = …`) that is between two of them, so that the next one
    # ends up inside kenning's table. After everything else it is valid whatever form the
    # other servers take (tables, dotted keys, tables out of order, an `[mcp_servers]` of
    # their own), and --uninstall can take it out again byte for byte.
    block = tomlkit.document()
    block["mcp_servers"] = tomlkit.table(is_super_table=True)
    block["mcp_servers"][SERVER_KEY] = _entry(command, inline=False)
    if not text:
        return tomlkit.dumps(block)
    return (text if text.endswith("\n") else text + "\n") + "\n" + tomlkit.dumps(block)


def _set(entry: Any, key: str, value: Any) -> None:
    """``entry[key] = value``; a key the table lacks goes after its last key, before the
    blank lines and comments that end it: those head what follows the table (a comment
    over the user's next table), and a key added below them took them into kenning's table,
    where --uninstall removed them with it."""
    body = entry.value.body if isinstance(entry, Table) else None
    if key in entry or not body or all(k is None for k, _ in body):
        entry[key] = value
        return
    trailing: list[Any] = []
    while body[-1][0] is None:  # a blank line or a comment: no key
        trailing.insert(0, body.pop())
    entry[key] = value
    body.extend(trailing)


def _without_server(text: str, doc: tomlkit.TOMLDocument) -> str:
    """``text`` without kenning's server (``doc`` is its parse, holding the server)."""
    del doc["mcp_servers"][SERVER_KEY]
    # An `[mcp_servers]` table the user wrote stays, even empty; one that existed only
    # through kenning's `[mcp_servers.kenning]` header has no text of its own and goes.
    rendered = tomlkit.dumps(doc)
    span = _removed_span(text, rendered)
    if span is None:  # tomlkit wrote the rest anew (kenning's entry in an inline table)
        return rendered
    start, end = span
    # A table's text runs to the next header, so what the user wrote after kenning's table
    # (which the install puts last) — a comment heading their next table — was removed with
    # it: the comment lines after kenning's last line are put back
    lines = text[start:end].splitlines(keepends=True)
    last = max(
        (i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")),
        default=-1,
    )
    kept = lines[last + 1 :]
    while kept and not kept[0].strip():
        kept.pop(0)
    rendered = text[:start] + "".join(kept) + text[end:]
    last_table = not kept and end == len(text) and text[start:end].startswith("[")
    if last_table and rendered.endswith("\n\n"):
        # kenning's table was the last one, as the install puts it: take back the blank line
        # the install put before it (tomlkit keeps it with the table above)
        rendered = rendered[:-1]
    return rendered


def _removed_span(text: str, rendered: str) -> tuple[int, int] | None:
    """``(start, end)`` with ``rendered == text[:start] + text[end:]``, ``start`` at the
    beginning of a line where that can be; ``None`` when ``rendered`` is not ``text`` with
    one piece cut out."""
    start = 0
    limit = min(len(text), len(rendered))
    while start < limit and text[start] == rendered[start]:
        start += 1
    end = len(text) - (len(rendered) - start)
    if end < start or text[end:] != rendered[start:]:
        return None
    # the common prefix may run into the removed text where it starts as what follows it
    # does ("[mcp_servers.kenning]" before "[profiles…]"): move the cut back to a line start
    while start > 0 and text[start - 1] != "\n" and text[start - 1] == text[end - 1]:
        start -= 1
        end -= 1
    return start, end


def _others(data: dict[str, Any]) -> dict[str, Any]:
    """Parsed config data without kenning's server (and without an ``mcp_servers`` left
    empty): what an install or uninstall must not change."""
    servers = {k: v for k, v in data.get("mcp_servers", {}).items() if k != SERVER_KEY}
    rest = {k: v for k, v in data.items() if k != "mcp_servers"}
    return {**rest, "mcp_servers": servers} if servers else rest


def _check(old: dict[str, Any], after: str, wanted: dict[str, Any] | None, label: str) -> None:
    """Refuse a plan whose text does not parse (with tomllib, a parser apart from the tomlkit
    that wrote it) to the old data ``old`` with only kenning's server changed: set to
    ``wanted``, or gone when that is ``None``."""
    try:
        new = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        new = {"": "not valid TOML"}
    if _others(new) != _others(old) or new.get("mcp_servers", {}).get(SERVER_KEY) != wanted:
        edit = "remove" if wanted is None else "add"
        raise UserInputError(
            f"{label}: kenning cannot {edit} its [mcp_servers.{SERVER_KEY}] table in this file "
            f"without changing its other settings; {edit} it by hand — nothing was written"
        )


def plan_codex_toml(
    text: str | None, command: str, *, uninstall: bool, label: str = CODEX_PROJECT_FILE
) -> str | None:
    """The new text of a Codex ``config.toml`` (``None``: the file would be empty).

    The plan is checked: the new text must parse to the old data with only kenning's server
    added, updated or removed, or nothing is written. A file whose lines all end with CRLF is
    planned with LF and given back with CRLF."""
    # Codex reads a file that starts with a byte order mark (a Windows editor's); TOML
    # parsers here do not: it is set aside while planning and given back
    bom = BOM if text and text.startswith(BOM) else ""
    crlf = line_ending(text) == "\r\n"
    source = (text or "")[len(bom) :]
    source = source.replace("\r\n", "\n") if crlf else source
    doc, data = _parse(source, label)
    servers = doc.get("mcp_servers")
    if servers is not None:
        _table(servers, label, "mcp_servers")
    registered = servers is not None and SERVER_KEY in servers
    if uninstall:
        if not registered:
            return text
        after = _without_server(source, doc)
        wanted = None
    else:
        after = _with_server(source, doc, command, label)
        if after == source:
            return text
        old_entry = data.get("mcp_servers", {}).get(SERVER_KEY, {})
        wanted = {**old_entry, "command": command, "args": server_args(old_entry.get("args"))}
        wanted["env_vars"] = _env_var_names(old_entry.get("env_vars"))
    _check(data, after, wanted, label)
    if crlf:
        after = after.replace("\n", "\r\n")
    return bom + after if after.strip() else None


def _turned_off(text: str | None) -> bool:
    """Does kenning's server table in ``text`` say ``enabled = false`` (the user's, kept)?"""
    try:
        data = tomllib.loads((text or "").removeprefix(BOM).replace("\r\n", "\n"))
    except tomllib.TOMLDecodeError:
        return False
    servers = data.get("mcp_servers")
    entry = servers.get(SERVER_KEY) if isinstance(servers, dict) else None
    return isinstance(entry, dict) and entry.get("enabled") is False


def _entry_additions(text: str | None) -> list[str]:
    """What a user added to kenning's server table in ``text`` (already checked to parse):
    :func:`~kenning.installers.claude_code.entry_additions`, and the names they added to
    its ``env_vars``."""
    try:
        data = tomllib.loads((text or "").removeprefix(BOM).replace("\r\n", "\n"))
    except tomllib.TOMLDecodeError:
        return []
    servers = data.get("mcp_servers")
    entry = servers.get(SERVER_KEY) if isinstance(servers, dict) else None
    found = entry_additions(entry, ("command", "args", "env_vars"))
    names = entry.get("env_vars") if isinstance(entry, dict) else None
    extra = (
        [str(n) for n in names if n not in FORWARDED_ENV_VARS] if isinstance(names, list) else []
    )
    if extra:
        found.append("env_vars " + " ".join(extra))
    return found


def _other_agents_use_section(project_dir: Path) -> bool:
    """Is Cursor still registered in this project (so AGENTS.md must keep the section)?"""
    from .cursor import registered_in_project

    return registered_in_project(project_dir)


def registered_in_project(project_dir: Path) -> bool:
    """Does the project's ``.codex/config.toml`` register kenning? (read-only, lenient)"""
    try:
        path = locate(project_dir, CODEX_PROJECT_FILE, CODEX_PROJECT_FILE)
        doc = tomlkit.parse((read_text(path, CODEX_PROJECT_FILE) or "").removeprefix(BOM))
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
    root, command = project_and_command(
        "codex", SCOPES, project_dir, scope, executable, uninstall=uninstall
    )
    if scope == "project":
        config_root, config_rel, config_label = root, CODEX_PROJECT_FILE, CODEX_PROJECT_FILE
        agents_root, agents_rel, agents_label = root, agents_md.AGENTS_FILE, agents_md.AGENTS_FILE
    else:
        user_root, prefix, shown = codex_home(home)
        config_root, config_rel, config_label = (
            user_root,
            prefix + "config.toml",
            shown + "config.toml",
        )
        agents_root = user_root
        agents_rel, agents_label = prefix + agents_md.AGENTS_FILE, shown + agents_md.AGENTS_FILE

    with locked(config_root, agents_root, root):
        links: list[str] | None = [] if dry_run else None
        config_path = locate(config_root, config_rel, config_label, links)
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
        if uninstall:
            added = _entry_additions(config_before)
            notes += (
                [going_with(config_label, f"[mcp_servers.{SERVER_KEY}]", added)] if added else []
            )
        if agents_md_section:
            agents_path = agents_md.locate_file(agents_root, agents_rel, agents_label, links)
            agents_before = read_text(agents_path, agents_label)
            shared = uninstall and scope == "project" and _other_agents_use_section(root)
            agents_after, note = agents_md.section_after(
                agents_before,
                agents_label,
                uninstall=uninstall,
                kept_for="Cursor" if shared else None,
            )
            notes += [note] if note else []
            changes.append(text_change(agents_path, agents_label, agents_before, agents_after))
        unfound = None if uninstall else command_note(command, shared=scope == "project")
        notes += [unfound] if unfound else []
        if not uninstall and _turned_off(config_before):
            notes.append(
                f"{config_label}: kenning's server is turned off (enabled = false), and Codex "
                "does not start it: delete that line (or set it to true) to turn it on"
            )
        if not uninstall and scope == "project":
            notes.append(
                f"Codex reads {CODEX_PROJECT_FILE} only in a project you trust: accept the trust "
                "prompt when Codex asks, or use --scope user"
            )
        if not dry_run:
            apply_changes(changes)
        else:
            notes += (links or []) + dry_run_notes(changes)
    return InstallResult("codex", scope, uninstall, changes, notes)
