"""``kenning install claude-code --scope local|project|user``: register kenning with Claude Code.

It registers the MCP server (``kenning mcp``) and three hooks (``kenning hook session-start``
on SessionStart, ``kenning hook prompt-submit`` on UserPromptSubmit, ``kenning hook
tool-failure`` on PostToolUseFailure of the shell tools, :data:`HOOK_MATCHERS`), in the
files Claude Code itself uses for each scope — the scopes mean what they mean for
``claude mcp add``:

========  ====================================================  ==============================
scope     MCP server                                            hooks
========  ====================================================  ==============================
local     ``~/.claude.json`` → ``projects[<main checkout>]``    ``.claude/settings.local.json``
          ``.mcpServers`` (personal, this project only)         (personal, not shared)
project   ``.mcp.json`` (shared with the team)                  ``.claude/settings.json``
user      ``~/.claude.json`` → ``mcpServers`` (every project)   ``~/.claude/settings.json``
========  ====================================================  ==============================

``local`` is the default. ``~`` is ``$CLAUDE_CONFIG_DIR`` when that is set (Claude Code then
keeps ``.claude.json`` and ``settings.json`` there). The local scope's key is the real path
of the main checkout, as Claude Code records it (a linked worktree and a symlinked path
share the main checkout's entry — measured with Claude Code 2.1.328's ``claude mcp add``).

Personal scopes (local, user) name the absolute path of the ``kenning`` that runs the
install; the project scope writes shareable files, so they name ``kenning`` as found on
each teammate's ``PATH`` — never a personal venv path.

Entries are recognised by the server name ``kenning`` and by the hook command (the
``kenning`` executable — or the one ``--executable`` or kenning's server entry names —
followed by ``hook session-start`` / ``hook prompt-submit`` / ``hook tool-failure``), so a
second run changes nothing, a run from another install updates the path in place (what
the user put before it in a hook command — ``KENNING_HOOK_TIMEOUT=20 ``, a wrapper — stays, as
do a redirection or an operator after it — ``2>>hooks.log``, ``|| true`` — and a ``timeout``
the user set on kenning's hook entry), and
``--uninstall`` removes exactly these entries, each whole (with what the user added to it,
which a note names: :func:`entry_additions`; containers it emptied go too, except an
``mcpServers`` object beside other keys, which Claude Code keeps itself; a file left as
``{}`` is deleted; but an empty container of the user's that the install filled, the
file's ``{}`` too, is given back: :func:`~kenning.installers.files.json_change`). The
file mechanics — symlink refusal, atomic writes, dry-run diffs — are
:mod:`kenning.installers.files`.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import MAX_HOOK_TIMEOUT_S, expand_home
from ..errors import UserInputError
from ..redaction import redact_secrets
from .files import (
    FileChange,
    InstallResult,
    apply_changes,
    dry_run_notes,
    json_change,
    locate,
    locked,
    read_json_object,
    shape_error,
)

__all__ = [
    "DEFAULT_SCOPE",
    "HOOK_EVENTS",
    "HOOK_MATCHERS",
    "HOOK_TIMEOUT_SECONDS",
    "MCP_FILE",
    "PLUGIN_ID",
    "SCOPES",
    "SERVER_KEY",
    "SETTINGS_FILE",
    "SETTINGS_LOCAL_FILE",
    "FileChange",
    "claude_project_key",
    "default_project_dir",
    "hook_command",
    "install_claude_code",
    "is_kenning_hook",
    "kenning_executable",
    "plan_claude_code",
    "server_args",
]

MCP_FILE = ".mcp.json"
SETTINGS_FILE = ".claude/settings.json"
SETTINGS_LOCAL_FILE = ".claude/settings.local.json"
SERVER_KEY = "kenning"
#: The plugin in this repository's marketplace, as ``enabledPlugins`` names it.
PLUGIN_ID = "kenning@kenning"
SCOPES = ("local", "project", "user")
DEFAULT_SCOPE = "local"
#: The command the shareable (project-scope) files name: found on each user's PATH.
SHARED_COMMAND = "kenning"
#: Claude Code kills a hook command after this many seconds. kenning's own budget ends the
#: hook first (``KENNING_HOOK_TIMEOUT``: 5 s by default, read when the hook runs, at most
#: :data:`~kenning.config.MAX_HOOK_TIMEOUT_S`), so this is above the largest budget kenning
#: accepts, with time to start Python and exit: Claude Code never cuts a hook short while
#: kenning would still let it work.
HOOK_TIMEOUT_SECONDS = int(MAX_HOOK_TIMEOUT_S) + 10
#: Claude Code hook event → ``kenning hook`` argument.
HOOK_EVENTS: Mapping[str, str] = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt-submit",
    "PostToolUseFailure": "tool-failure",
}
#: The ``matcher`` (Claude Code's tool names, ``|`` between them) of the group an install
#: adds for an event of a tool: the tool-failure hook reads only a shell command's error
#: (:data:`kenning.hooks.claude_code.SHELL_TOOLS`), so Claude Code does not start it for the
#: failures of the other tools (a Python start each). A group of the user's that holds
#: kenning's hook keeps its own matcher.
HOOK_MATCHERS: Mapping[str, str] = {
    "PostToolUseFailure": "Bash|PowerShell",
}

#: kenning's hook command: the executable, ``hook`` and the hook's name, with anything
#: before it (``KENNING_HOOK_TIMEOUT=20 ``, a wrapper) and, after it, only what the shell
#: reads as a redirection or an operator (``2>>hooks.log``, ``|| true``).
_HOOK_AND_REST = (
    r"""\s+hook\s+(?P<name>session-start|prompt-submit|tool-failure)"""
    r"""(?P<rest>(?:\s+[0-9]*[<>]|\s*[<>|&;]).*)?\s*$"""
)
_OURS = re.compile(r"""(?:^|[\s/\\'"])kenning(?:\.exe)?['"]?""" + _HOOK_AND_REST, re.DOTALL)


def _match(command: str, executables: Collection[str] = ()) -> re.Match[str] | None:
    """Where kenning's hook is in ``command``: an executable named ``kenning``, or one of
    ``executables`` as :func:`hook_command` writes it (``--executable`` may name a wrapper,
    ``kenning-dev``: without this a second install added its hooks again and an uninstall
    left them)."""
    m = _OURS.search(command)
    for executable in executables:
        if m is not None:
            break
        quoted = re.escape(shlex.quote(executable))
        m = re.search(r"(?:^|(?<=\s))" + quoted + _HOOK_AND_REST, command, re.DOTALL)
    return m


def is_kenning_hook(
    command: object, name: str | None = None, executables: Collection[str] = ()
) -> bool:
    """Is ``command`` a kenning hook command (for hook ``name``, when given)? ``executables``:
    other names of kenning's executable to know it by (the install's ``--executable``)."""
    if not isinstance(command, str):
        return False
    m = _match(command, executables)
    return m is not None and (name is None or m.group("name") == name)


def hook_command(executable: str, name: str) -> str:
    """The shell command Claude Code runs for hook ``name``."""
    return f"{shlex.quote(executable)} hook {name}"


def _with_executable(
    command: str, executable: str, name: str, executables: Collection[str] = ()
) -> str:
    """Our hook ``command`` (from an earlier install) naming ``executable`` instead: what the
    user put before kenning's executable (``KENNING_HOOK_TIMEOUT=20 ``, ``nice -n 5 ``; Claude
    Code's hooks take no environment of their own) stays. ``executables``: as for
    :func:`is_kenning_hook`."""
    new = hook_command(executable, name)
    m = _match(command, executables)
    if m is None:
        return new
    # what follows the hook's name (a redirection, `|| true`) stays as it is
    rest = command[m.start("rest") :] if m.group("rest") is not None else ""
    command = command[: len(command) - len(rest)]
    try:
        whole = shlex.split(command)
    except ValueError:
        return new + rest
    # the executable is the last word but two: find where it starts in the text (at the
    # latest just after the character before the match's "kenning")
    for start in range(m.start() + 1, -1, -1):
        if start and not command[start - 1].isspace():
            continue
        try:
            before, words = shlex.split(command[:start]), shlex.split(command[start:])
        except ValueError:
            continue
        if len(words) == 3 and before + words == whole:
            return command[:start] + new + rest
    return new + rest


def kenning_executable() -> str:
    """The absolute path of the ``kenning`` executable running now, else the one beside
    this Python, else the one on ``PATH``."""
    candidates: list[Path] = []
    if sys.argv and sys.argv[0] and Path(sys.argv[0]).name in ("kenning", "kenning.exe"):
        candidates.append(Path(sys.argv[0]))
    candidates.append(Path(sys.executable).parent / "kenning")
    found = shutil.which("kenning")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    raise UserInputError(
        "cannot find the kenning executable (not beside this Python, not on PATH); put "
        "kenning's .venv/bin on PATH or pass --executable /path/to/kenning"
    )


def personal_command(executable: str) -> str:
    """The command ``--executable`` names in a personal scope: a path made absolute, or a
    bare name as it is (the agent finds it on ``PATH``; made absolute it named a file in the
    folder the install ran in)."""
    if os.sep not in executable and "/" not in executable:
        return executable
    return os.path.abspath(os.path.expanduser(executable))


def command_note(command: str, *, shared: bool = False) -> str | None:
    """A note when ``command`` names no executable here: the agent could not start it.
    ``shared``: a project scope's file, which names ``kenning`` on each user's PATH."""
    if os.sep in command or "/" in command:
        if os.path.isfile(command) and os.access(command, os.X_OK):
            return None
        return (
            f"{command} is not an executable file here: the agent cannot start kenning until "
            "it is (check --executable)"
        )
    if shutil.which(command) is None:
        way_out = (
            "put kenning's .venv/bin on PATH, or use --scope user for this machine's path"
            if shared
            else "or pass --executable /path/to/kenning"
        )
        return (
            f"`{command}` is not on PATH here: the agent can start it only where it is on "
            f"PATH ({way_out})"
        )
    return None


def default_project_dir(cwd: Path | None = None) -> Path:
    """The git work tree of ``cwd`` (the one you run Claude Code in), else ``cwd``."""
    from ..project import find_checkout

    here = Path(cwd or Path.cwd())
    checkout = find_checkout(here)
    return checkout.toplevel if checkout is not None else here.resolve()


def project_and_command(
    agent: str,
    scopes: tuple[str, ...],
    project_dir: Path | None,
    scope: str,
    executable: str | None,
    *,
    uninstall: bool,
) -> tuple[Path, str]:
    """The project folder and the command an MCP client's config names, for the Codex and
    Cursor installers: project scope writes files shared with the team, so they name
    ``kenning`` on PATH; user scope names this machine's executable (``--executable``, else
    the one running now; an uninstall needs none)."""
    if scope not in scopes:
        raise UserInputError(f"unknown scope {scope!r} for {agent}; use one of {', '.join(scopes)}")
    root = Path(project_dir).resolve() if project_dir else default_project_dir()
    if not root.is_dir():
        raise UserInputError(f"the project folder {root} does not exist")
    if scope == "project":
        if executable is not None and "/" in executable:
            raise UserInputError(
                "--scope project writes files shared with the team, so they name `kenning` "
                "on PATH, not a path of this machine; use --scope user for --executable"
            )
        return root, executable or SHARED_COMMAND
    if executable is not None:
        return root, personal_command(executable)
    return root, kenning_executable() if not uninstall else SHARED_COMMAND


def claude_project_key(project_dir: Path) -> str:
    """The key Claude Code files a project under in ``~/.claude.json``: the real path of the
    folder every work tree of the repository shares (the main checkout: linked worktrees
    share its entry), or of the folder itself outside git."""
    from ..project import find_checkout

    checkout = find_checkout(project_dir)
    return os.path.realpath(checkout.root if checkout is not None else project_dir)


# --------------------------------------------------------------------------------------------
# Planning (pure on documents)
# --------------------------------------------------------------------------------------------


def _object(value: object, label: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise shape_error(label, where, "a JSON object")
    return value


def _list(value: object, label: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise shape_error(label, where, "a JSON array")
    return value


def _where(keys: tuple[str, ...]) -> str:
    return '"' + ".".join(keys) + '"'


def plan_mcp(
    doc: Mapping[str, Any],
    executable: str,
    *,
    uninstall: bool,
    label: str = MCP_FILE,
    keys: tuple[str, ...] = ("mcpServers",),
) -> dict[str, Any]:
    """The new document with kenning's server under ``keys`` (``doc`` is not modified).

    ``keys`` is the path of the servers object: ``("mcpServers",)`` in ``.mcp.json`` and at
    user scope, ``("projects", <key>, "mcpServers")`` at local scope. Uninstalling removes
    the entry, and the containers on that path it left empty — except a servers object that
    has anything beside it: that stays, empty, as ``claude mcp remove`` leaves it."""
    new = copy.deepcopy(dict(doc))
    if uninstall:
        chain: list[dict[str, Any]] = [new]
        for depth, key in enumerate(keys):
            if key not in chain[-1]:
                return new
            chain.append(_object(chain[-1][key], label, _where(keys[: depth + 1])))
        if SERVER_KEY not in chain[-1]:
            return new
        del chain[-1][SERVER_KEY]
        for depth in range(len(keys) - 1, -1, -1):
            if chain[depth + 1]:
                break
            # Claude Code gives every project entry an empty "mcpServers" of its own, and
            # `claude mcp remove` leaves one behind: an emptied servers object beside other
            # keys may have been there before the install, so it stays. One that was all its
            # holder had goes, and so do the containers above it that it leaves empty (a
            # fresh install's file or project entry goes away whole).
            if depth == len(keys) - 1 and len(chain[depth]) > 1:
                break
            del chain[depth][keys[depth]]
        return new
    container = new
    for depth, key in enumerate(keys):
        container = _object(container.setdefault(key, {}), label, _where(keys[: depth + 1]))
    existing = container.get(SERVER_KEY)
    entry = dict(existing) if isinstance(existing, dict) else {}
    entry.update({"type": "stdio", "command": executable, "args": server_args(entry.get("args"))})
    container[SERVER_KEY] = entry
    return new


def server_args(existing: object) -> list[str]:
    """The arguments of kenning's server entry: ``["mcp"]``, or the entry's own when they
    already start with it (``["mcp", "--project-dir", "…"]``, the pin docs/agents.md suggests): a
    second install must not drop them."""
    if (
        isinstance(existing, list)
        and existing[:1] == ["mcp"]
        and all(isinstance(a, str) for a in existing)
    ):
        return list(existing)
    return ["mcp"]


def entry_additions(entry: object, ours: tuple[str, ...]) -> list[str]:
    """What a user added to kenning's server ``entry``: the keys kenning does not write
    (``ours`` are the ones it does) and the arguments after ``mcp``. An uninstall removes
    them with the entry, and says so (their values may be credentials: only names)."""
    if not isinstance(entry, dict):
        return []
    # an empty value holds nothing of the user's (`claude mcp add` writes "env": {})
    found = [str(key) for key, value in entry.items() if key not in ours and value]
    args = entry.get("args")
    if isinstance(args, list) and args != ["mcp"]:
        found.append(
            "args "
            + named_only(shlex.join(str(a) for a in (args[1:] if args[:1] == ["mcp"] else args)))
        )
    return found


#: A shell word that sets a variable (``QDRANT_API_KEY=…`` before a command), its value
#: quoted or not.
_ASSIGNMENT = re.compile(
    r"""(?<!\S)(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"';|&<>()])*"""
)


def named_only(words: str) -> str:
    """``words`` of the user's (a wrapper around kenning's hook command, its server's
    arguments) as a note names them: a variable a wrapper sets by its name alone, and any
    secret left redacted. The note is printed, and in ``--json``: a wrapper is where a user
    puts an API key for the hook's process."""
    return redact_secrets(_ASSIGNMENT.sub(lambda m: f"{m.group('name')}=…", words))[0]


def going_with(label: str, what: str, additions: list[str]) -> str:
    """The uninstall note for kenning's ``what`` in ``label`` that held ``additions``."""
    return (
        f"{label}: kenning's {what} goes with what you had added to it ({'; '.join(additions)}); "
        "keep a copy first if you want it back (--dry-run shows the change)"
    )


def plan_settings(
    doc: Mapping[str, Any],
    executable: str,
    *,
    uninstall: bool,
    label: str = SETTINGS_FILE,
    known: Collection[str] = (),
) -> dict[str, Any]:
    """The new settings document with kenning's hooks (``doc`` is not modified).

    A hook is kenning's when its executable is named ``kenning``, is ``executable`` or is
    one of ``known`` (the command of the server entry an earlier install wrote)."""
    new = copy.deepcopy(dict(doc))
    executables = (executable, *known)
    if uninstall:
        if "hooks" not in new:
            return new
        hooks = _object(new["hooks"], label, '"hooks"')
        for event in list(hooks):
            # what is not shaped as Claude Code's hooks holds none of kenning's, and the install
            # (which reads only its own events) took it as it was: left as it is
            groups = hooks[event] if isinstance(hooks[event], list) else []
            removed_any = False
            kept_groups = []
            for group in groups:
                entries = group.get("hooks", []) if isinstance(group, dict) else None
                if not isinstance(entries, list):
                    kept_groups.append(group)
                    continue
                kept = [
                    h
                    for h in entries
                    if not (
                        isinstance(h, dict) and is_kenning_hook(h.get("command"), None, executables)
                    )
                ]
                if len(kept) != len(entries):
                    removed_any = True
                    if not kept:
                        continue
                    group["hooks"] = kept
                kept_groups.append(group)
            if removed_any:
                if kept_groups:
                    hooks[event] = kept_groups
                else:
                    del hooks[event]
                    if not hooks:
                        del new["hooks"]
        return new
    hooks = _object(new.setdefault("hooks", {}), label, '"hooks"')
    for event, name in HOOK_EVENTS.items():
        command = hook_command(executable, name)
        groups = _list(hooks.setdefault(event, []), label, f'"hooks.{event}"')
        found = False
        emptied: list[int] = []
        for i, group in enumerate(groups):
            group = _object(group, label, f'"hooks.{event}[{i}]"')
            entries = _list(group.get("hooks", []), label, f'"hooks.{event}[{i}].hooks"')
            kept = []
            for entry in entries:
                if isinstance(entry, dict) and is_kenning_hook(
                    entry.get("command"), name, executables
                ):
                    if found:
                        continue  # a duplicate of ours: drop it
                    found = True
                    entry = {
                        **entry,
                        "type": "command",
                        "command": _with_executable(
                            entry["command"], executable, name, executables
                        ),
                        "timeout": _timeout(entry.get("timeout")),
                    }
                kept.append(entry)
            if kept != entries:
                group["hooks"] = kept
                if not kept:
                    emptied.append(i)
        for i in reversed(emptied):  # groups that held only duplicates of ours
            del groups[i]
        if not found:
            matcher = {"matcher": HOOK_MATCHERS[event]} if event in HOOK_MATCHERS else {}
            groups.append(
                {
                    **matcher,
                    "hooks": [
                        {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
                    ],
                }
            )
    return new


def _timeout(existing: object) -> int | float:
    """The ``timeout`` of kenning's hook entry: the entry's own when it is one Claude Code
    accepts (a user who wants Claude Code to give up on the hook sooner set it), else
    :data:`HOOK_TIMEOUT_SECONDS`."""
    if isinstance(existing, (int, float)) and not isinstance(existing, bool) and existing > 0:
        return existing
    return HOOK_TIMEOUT_SECONDS


# --------------------------------------------------------------------------------------------
# Where each scope's files are
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _File:
    root: Path
    relative: str
    label: str
    project_file: bool  # inside the project: prune its emptied sub-folder on uninstall


@dataclass(frozen=True)
class _Layout:
    mcp: _File
    mcp_keys: tuple[str, ...]
    settings: _File


def _user_dir(home: Path) -> tuple[Path, str]:
    """The folder holding ``.claude.json`` and the prefix of ``settings.json`` in it."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return expand_home(configured, "CLAUDE_CONFIG_DIR"), ""
    return home, ".claude/"


def _layout(scope: str, project_dir: Path, home: Path) -> _Layout:
    user_root, settings_prefix = _user_dir(home)
    shown = "$CLAUDE_CONFIG_DIR" if settings_prefix == "" else "~"
    user_json = _File(user_root, ".claude.json", f"{shown}/.claude.json", False)
    if scope == "project":
        return _Layout(
            _File(project_dir, MCP_FILE, MCP_FILE, True),
            ("mcpServers",),
            _File(project_dir, SETTINGS_FILE, SETTINGS_FILE, True),
        )
    if scope == "local":
        key = claude_project_key(project_dir)
        return _Layout(
            user_json,
            ("projects", key, "mcpServers"),
            _File(project_dir, SETTINGS_LOCAL_FILE, SETTINGS_LOCAL_FILE, True),
        )
    if scope == "user":
        return _Layout(
            user_json,
            ("mcpServers",),
            _File(
                user_root,
                f"{settings_prefix}settings.json",
                f"{shown}/{settings_prefix}settings.json",
                False,
            ),
        )
    raise UserInputError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")


def _read(file: _File, dry_run: list[str] | None = None) -> tuple[Path, str | None, dict[str, Any]]:
    path = locate(file.root, file.relative, file.label, dry_run)
    before, doc = read_json_object(path, file.label)
    return path, before, doc


def plan_claude_code(
    project_dir: Path,
    executable: str,
    *,
    scope: str = DEFAULT_SCOPE,
    uninstall: bool = False,
    home: Path | None = None,
    dry_run: list[str] | None = None,
) -> list[FileChange]:
    """The changes to the MCP file and the settings file of ``scope`` (nothing is written).

    Both files are located (symlinks refused, but for a dry run: ``dry_run`` gets its notes,
    :func:`~kenning.installers.files.locate`) and parsed before anything is planned, so a
    malformed or symlinked one stops the whole run."""
    layout = _layout(scope, project_dir, home or Path.home())
    mcp_path, mcp_before, mcp_doc = _read(layout.mcp, dry_run)
    settings_path, settings_before, settings_doc = _read(layout.settings, dry_run)
    return [
        json_change(
            mcp_path,
            layout.mcp.label,
            mcp_before,
            mcp_doc,
            plan_mcp(
                mcp_doc,
                executable,
                uninstall=uninstall,
                label=layout.mcp.label,
                keys=layout.mcp_keys,
            ),
            prune_parent=layout.mcp.project_file,
            private=not layout.mcp.project_file,  # ~/.claude.json is 0600, as Claude makes it
        ),
        json_change(
            settings_path,
            layout.settings.label,
            settings_before,
            settings_doc,
            plan_settings(
                settings_doc,
                executable,
                uninstall=uninstall,
                label=layout.settings.label,
                known=_server_commands(mcp_doc, layout.mcp_keys),
            ),
            prune_parent=layout.settings.project_file,
        ),
    ]


# --------------------------------------------------------------------------------------------
# Notes: what else the user should know
# --------------------------------------------------------------------------------------------


def _registered_in(scope: str, project_dir: Path, home: Path) -> list[str]:
    """Labels of ``scope``'s files that hold a kenning server or hook (read-only; a file
    that cannot be read counts as not holding one)."""
    try:
        layout = _layout(scope, project_dir, home)
    except UserInputError:
        return []
    found = []
    for file, check in (
        (layout.mcp, lambda doc: _has_server(doc, layout.mcp_keys)),
        (layout.settings, _has_hook),
    ):
        try:
            _, _, doc = _read(file)
        except UserInputError:
            continue
        if check(doc):
            found.append(file.label)
    return found


def _server_commands(doc: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str, ...]:
    """The command of kenning's server entry under ``keys`` (its executable), if any."""
    node: Any = doc
    for key in (*keys, SERVER_KEY):
        node = node.get(key) if isinstance(node, dict) else None
    command = node.get("command") if isinstance(node, dict) else None
    return (command,) if isinstance(command, str) and command else ()


def _has_server(doc: Mapping[str, Any], keys: tuple[str, ...]) -> bool:
    node: Any = doc
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return isinstance(node, dict) and SERVER_KEY in node


def _has_hook(doc: Mapping[str, Any]) -> bool:
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return False
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, dict) and is_kenning_hook(entry.get("command")):
                    return True
    return False


def _plugin_enabled(project_dir: Path, home: Path) -> bool:
    user_root, prefix = _user_dir(home)
    for file in (
        _File(user_root, f"{prefix}settings.json", "user settings", False),
        _File(project_dir, SETTINGS_FILE, SETTINGS_FILE, True),
        _File(project_dir, SETTINGS_LOCAL_FILE, SETTINGS_LOCAL_FILE, True),
    ):
        try:
            _, _, doc = _read(file)
        except UserInputError:
            continue
        enabled = doc.get("enabledPlugins")
        if isinstance(enabled, dict) and enabled.get(PLUGIN_ID):
            return True
    return False


def _turned_off(scope: str, project_dir: Path, home: Path) -> list[str]:
    """Where the user turned kenning's server off in Claude Code: an install that says
    'unchanged' would leave it off without a word (read-only; an unreadable file counts as
    not turning it off)."""
    notes = []
    user_json = _layout("local", project_dir, home).mcp
    try:
        _, _, doc = _read(user_json, [])
    except UserInputError:
        doc = {}
    projects = doc.get("projects")
    entry = projects.get(claude_project_key(project_dir)) if isinstance(projects, dict) else None
    disabled = entry.get("disabledMcpServers") if isinstance(entry, dict) else None
    if isinstance(disabled, list) and SERVER_KEY in disabled:
        notes.append(
            f"Claude Code has kenning's server turned off for this project ({user_json.label}: "
            f'"disabledMcpServers"): turn it on with /mcp in Claude Code'
        )
    if scope != "project":
        return notes
    rejected = entry.get("disabledMcpjsonServers") if isinstance(entry, dict) else None
    if isinstance(rejected, list) and SERVER_KEY in rejected:
        # a "no" kept in the project's entry (by an older Claude Code, or a hand edit):
        # Claude Code 2.1.328 honours it there too (`claude mcp list` shows no server at
        # all) and moves it into settings.local.json as it starts; `claude mcp
        # reset-project-choices` clears it
        notes.append(
            f"Claude Code has the server of {MCP_FILE} turned down for this project "
            f'({user_json.label}: "disabledMcpjsonServers"): turn it on with /mcp in Claude '
            "Code, or run `claude mcp reset-project-choices` here (it asks again about every "
            f"server of {MCP_FILE})"
        )
    user_root, prefix = _user_dir(home)
    for file in (
        _File(project_dir, SETTINGS_LOCAL_FILE, SETTINGS_LOCAL_FILE, True),
        _File(project_dir, SETTINGS_FILE, SETTINGS_FILE, True),
        _File(
            user_root,
            f"{prefix}settings.json",
            _layout("user", project_dir, home).settings.label,
            False,
        ),
    ):
        try:
            _, _, settings = _read(file, [])
        except UserInputError:
            continue
        rejected = settings.get("disabledMcpjsonServers")
        if isinstance(rejected, list) and SERVER_KEY in rejected:
            notes.append(
                f"{file.label} lists kenning in disabledMcpjsonServers: Claude Code will not "
                f"start the server of {MCP_FILE}; take it out of that list"
            )
    return notes


def _git_ignored(project_dir: Path, relative: str) -> bool | None:
    """Is ``relative`` ignored by git in ``project_dir``? ``None`` outside git."""
    try:
        out = subprocess.run(
            ["git", "check-ignore", "-q", relative],
            cwd=project_dir,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(out.returncode)


def _hook_additions(entry: dict[str, Any], name: str, executables: Collection[str]) -> list[str]:
    """What a user added to kenning's hook ``entry`` (the :func:`entry_additions` of a hook):
    its other keys, its own timeout, what stands before kenning's executable."""
    found = [str(key) for key in entry if key not in ("type", "command", "timeout")]
    timeout = entry.get("timeout", HOOK_TIMEOUT_SECONDS)
    if timeout != HOOK_TIMEOUT_SECONDS:
        found.append(f"timeout {timeout}")
    command = str(entry.get("command"))
    m = _match(command, executables)
    rest = (m.group("rest") or "") if m else ""
    ours = hook_command(SHARED_COMMAND, name) + rest
    prefix = _with_executable(command, SHARED_COMMAND, name, executables)[: -len(ours)]
    if prefix.strip():
        found.append(f"{named_only(prefix.strip())!r} before its command")
    if rest.strip():
        found.append(f"{named_only(rest.strip())!r} after its command")
    return found


def _uninstall_notes(scope: str, project_dir: Path, home: Path, executable: str) -> list[str]:
    """Notes on kenning's entries that held something of the user's (an ``env`` on the
    server, a timeout or a wrapper on a hook): an uninstall removes the entry whole — a
    server entry without kenning's command, a hook without kenning, would not work — and
    the user should know what went with it."""
    layout = _layout(scope, project_dir, home)
    notes = []
    doc, settings, executables = _registration(layout, executable)
    node: Any = doc
    for key in layout.mcp_keys:
        node = node.get(key) if isinstance(node, dict) else None
    entry = node.get(SERVER_KEY) if isinstance(node, dict) else None
    added = entry_additions(entry, ("type", "command", "args"))
    if added:
        notes.append(going_with(layout.mcp.label, "server entry", added))
    for event, hook, name in _kenning_hooks(settings, executables):
        added = _hook_additions(hook, name, executables)
        if added:
            notes.append(going_with(layout.settings.label, f"{event} hook", added))
    return notes


def _registration(
    layout: _Layout, executable: str
) -> tuple[dict[str, Any], dict[str, Any], tuple[str, ...]]:
    """The MCP file's and the settings file's documents of ``layout`` (the plan refused
    what a run must, a symlink), and the names kenning's executable goes by in them."""
    _, _, doc = _read(layout.mcp, [])
    _, _, settings = _read(layout.settings, [])
    return doc, settings, (executable, *_server_commands(doc, layout.mcp_keys))


def _kenning_hooks(
    settings: Mapping[str, Any], executables: Collection[str]
) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``(event, hook entry, hook name)`` of each of kenning's hooks in ``settings``, in the
    file's order."""
    hooks = settings.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for hook in entries if isinstance(entries, list) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                m = _match(command, executables) if isinstance(command, str) else None
                if m:
                    yield str(event), hook, m.group("name")


def _duplicate_notes(scope: str, project_dir: Path, home: Path, executable: str) -> list[str]:
    """Notes on the second and later of kenning's hooks for one event that an install
    drops (:func:`plan_settings`: kenning would run twice a prompt) and that held something
    of the user's: a wrapper, a variable, a timeout would go without a word."""
    layout = _layout(scope, project_dir, home)
    _, settings, executables = _registration(layout, executable)
    notes, seen = [], set()
    for event, hook, name in _kenning_hooks(settings, executables):
        if HOOK_EVENTS.get(event) != name:
            continue  # another event's hook: the install leaves it as it is
        if event not in seen:
            seen.add(event)  # the one kept (and updated)
            continue
        added = _hook_additions(hook, name, executables)
        if added:
            notes.append(
                f"{layout.settings.label}: a second kenning {event} hook goes (kenning's "
                f"hook runs once an event), with what you had added to it "
                f"({'; '.join(added)}); put it on the first one if you want it kept "
                "(--dry-run shows the change)"
            )
    return notes


def _notes(scope: str, project_dir: Path, home: Path, uninstall: bool, exe: str) -> list[str]:
    if uninstall:
        return _uninstall_notes(scope, project_dir, home, exe)
    notes = _duplicate_notes(scope, project_dir, home, exe)
    for other in SCOPES:
        if other == scope:
            continue
        labels = _registered_in(other, project_dir, home)
        if labels:
            # a project's scopes name the project: run from another folder (an install given
            # --project-dir), the command would look for that folder's files, find none and
            # say "unchanged"
            where = "" if other == "user" else f" --project-dir {shlex.quote(str(project_dir))}"
            notes.append(
                f"kenning is also registered at {other} scope ({', '.join(labels)}): its "
                "hooks would run twice (and one server entry hides the other); remove it "
                f"with `kenning install claude-code --scope {other} --uninstall{where}`"
            )
    notes += _turned_off(scope, project_dir, home)
    if _plugin_enabled(project_dir, home):
        notes.append(
            f"the kenning plugin ({PLUGIN_ID}) is enabled too and brings the same server and "
            "hooks; keep one of the two (`claude plugin disable kenning@kenning`, or "
            "uninstall this registration)"
        )
    if scope == "local" and _git_ignored(project_dir, SETTINGS_LOCAL_FILE) is False:
        notes.append(
            f"{SETTINGS_LOCAL_FILE} holds a path of this machine and git does not ignore it: "
            "add it to .gitignore (or .git/info/exclude)"
        )
    if scope == "project":
        if shutil.which(SHARED_COMMAND) is None:
            notes.append(
                "`kenning` is not on PATH here: the shared files name `kenning`, so Claude "
                "Code can start it only for users who have it on PATH (put kenning's "
                ".venv/bin on PATH), or use --scope local for this machine's path"
            )
        if not _approved(project_dir, home):
            notes.append(
                "Claude Code asks each user once to approve the project's .mcp.json server"
            )
    return notes


def _approved(project_dir: Path, home: Path) -> bool:
    """Whether this user approved the server of the project's ``.mcp.json`` already: the
    project's entry of ``~/.claude.json`` or a settings file lists kenning under
    ``enabledMcpjsonServers``, or sets ``enableAllProjectMcpServers`` (read-only; an
    unreadable file approves nothing)."""

    def approves(data: object) -> bool:
        if not isinstance(data, dict):
            return False
        enabled = data.get("enabledMcpjsonServers")
        listed = isinstance(enabled, list) and SERVER_KEY in enabled
        return listed or data.get("enableAllProjectMcpServers") is True

    try:
        _, _, doc = _read(_layout("local", project_dir, home).mcp, [])
    except UserInputError:
        doc = {}
    projects = doc.get("projects")
    if isinstance(projects, dict) and approves(projects.get(claude_project_key(project_dir))):
        return True
    user_root, prefix = _user_dir(home)
    for file in (
        _File(project_dir, SETTINGS_LOCAL_FILE, SETTINGS_LOCAL_FILE, True),
        _File(project_dir, SETTINGS_FILE, SETTINGS_FILE, True),
        _File(user_root, f"{prefix}settings.json", "user settings", False),
    ):
        try:
            _, _, settings = _read(file, [])
        except UserInputError:
            continue
        if approves(settings):
            return True
    return False


def install_claude_code(
    project_dir: Path | None = None,
    *,
    scope: str = DEFAULT_SCOPE,
    uninstall: bool = False,
    dry_run: bool = False,
    executable: str | None = None,
    home: Path | None = None,
) -> InstallResult:
    """Plan and (unless ``dry_run``) apply the install or uninstall for ``scope``."""
    if scope not in SCOPES:
        raise UserInputError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    root = Path(project_dir).resolve() if project_dir else default_project_dir()
    if not root.is_dir():
        raise UserInputError(f"the project folder {root} does not exist")
    home = home or Path.home()
    if scope == "project":
        if executable is not None and (os.sep in executable or "/" in executable):
            raise UserInputError(
                "--scope project writes files shared with the team, so they name `kenning` "
                "on PATH, not a path of this machine; use --scope local (or user) for "
                "--executable"
            )
        exe = executable or SHARED_COMMAND
    elif executable is not None:
        exe = personal_command(executable)
    else:
        exe = kenning_executable() if not uninstall else SHARED_COMMAND
    with locked(_user_dir(home)[0], root):
        links: list[str] | None = [] if dry_run else None
        changes = plan_claude_code(
            root, exe, scope=scope, uninstall=uninstall, home=home, dry_run=links
        )
        notes = _notes(scope, root, home, uninstall, exe)
        unfound = None if uninstall or scope == "project" else command_note(exe)
        notes += [unfound] if unfound else []
        if not dry_run:
            apply_changes(changes)
        else:
            notes += (links or []) + dry_run_notes(changes)
    return InstallResult("claude-code", scope, uninstall, changes, notes)
