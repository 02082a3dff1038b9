"""``kenning install claude-code``: register kenning with Claude Code for one project.

It writes two files in the project folder, merging with what is there:

* ``.mcp.json`` — the MCP server: ``{"mcpServers": {"kenning": {"command": "<abs path of
  kenning>", "args": ["mcp"]}}}`` (other servers are kept; an existing ``kenning`` entry is
  updated, its other keys such as ``env`` kept);
* ``.claude/settings.json`` — two hooks in Claude Code's settings format::

      {"hooks": {"SessionStart": [{"hooks": [{"type": "command",
                                              "command": "<kenning> hook session-start",
                                              "timeout": 10}]}],
                 "UserPromptSubmit": [{"hooks": [{..."<kenning> hook prompt-submit"...}]}]}}

  (other hooks and settings are kept).

kenning's entries are recognised by their command (the ``kenning`` executable followed by
``hook session-start`` / ``hook prompt-submit``) and by the server name ``kenning``, so a
second run changes nothing, a run from another install updates the path in place, and
``--uninstall`` removes exactly these entries (containers it emptied go too; a file left
as ``{}`` is deleted). Malformed JSON, or a ``hooks`` / ``mcpServers`` of the wrong shape,
is an error and nothing is written. Writes are atomic (temporary file + rename, through a
symlinked file to its target); ``--dry-run`` prints a unified diff per file instead.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserInputError

__all__ = [
    "HOOK_EVENTS",
    "HOOK_TIMEOUT_SECONDS",
    "MCP_FILE",
    "SERVER_KEY",
    "SETTINGS_FILE",
    "FileChange",
    "hook_command",
    "install_claude_code",
    "is_kenning_hook",
    "kenning_executable",
    "plan_claude_code",
]

MCP_FILE = ".mcp.json"
SETTINGS_FILE = ".claude/settings.json"
SERVER_KEY = "kenning"
#: Claude Code kills a hook command after this many seconds (the hook's own budget is 5 s).
HOOK_TIMEOUT_SECONDS = 10
#: Claude Code hook event → ``kenning hook`` argument.
HOOK_EVENTS: Mapping[str, str] = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt-submit",
}

_OURS = re.compile(
    r"""(?:^|[\s/\\'"])kenning(?:\.exe)?['"]?\s+hook\s+(?P<name>session-start|prompt-submit)\s*$"""
)


def is_kenning_hook(command: object, name: str | None = None) -> bool:
    """Is ``command`` a kenning hook command (for hook ``name``, when given)?"""
    if not isinstance(command, str):
        return False
    m = _OURS.search(command)
    return m is not None and (name is None or m.group("name") == name)


def hook_command(executable: str, name: str) -> str:
    """The shell command Claude Code runs for hook ``name``."""
    return f"{shlex.quote(executable)} hook {name}"


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


def default_project_dir(cwd: Path | None = None) -> Path:
    """The git work tree of ``cwd`` (the one you run Claude Code in), else ``cwd``."""
    from ..project import find_checkout

    here = Path(cwd or Path.cwd())
    checkout = find_checkout(here)
    return checkout.toplevel if checkout is not None else here.resolve()


# --------------------------------------------------------------------------------------------
# Planning (pure on documents)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileChange:
    """One file's planned change. ``None`` text means "the file does not exist"."""

    path: Path
    label: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def status(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.before is None:
            return "created"
        if self.after is None:
            return "removed"
        return "updated"

    def diff(self) -> str:
        """A unified diff (``a/<label>`` → ``b/<label>``; ``/dev/null`` for a missing side)."""
        if not self.changed:
            return ""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile="/dev/null" if self.before is None else f"a/{self.label}",
            tofile="/dev/null" if self.after is None else f"b/{self.label}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _shape_error(label: str, where: str, expected: str) -> UserInputError:
    return UserInputError(
        f"{label}: {where} is not {expected}, so kenning cannot merge its entries safely; fix "
        "the file (see Claude Code's settings documentation) — nothing was written"
    )


def _object(value: object, label: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _shape_error(label, where, "a JSON object")
    return value


def _list(value: object, label: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _shape_error(label, where, "a JSON array")
    return value


def plan_mcp(
    doc: Mapping[str, Any], executable: str, *, uninstall: bool, label: str = MCP_FILE
) -> dict[str, Any]:
    """The new ``.mcp.json`` document (``doc`` is not modified)."""
    new = copy.deepcopy(dict(doc))
    if uninstall:
        if "mcpServers" not in new:
            return new
        servers = _object(new["mcpServers"], label, '"mcpServers"')
        if SERVER_KEY in servers:
            del servers[SERVER_KEY]
            if not servers:
                del new["mcpServers"]
        return new
    servers = _object(new.setdefault("mcpServers", {}), label, '"mcpServers"')
    existing = servers.get(SERVER_KEY)
    entry = dict(existing) if isinstance(existing, dict) else {}
    entry.update({"command": executable, "args": ["mcp"]})
    servers[SERVER_KEY] = entry
    return new


def plan_settings(
    doc: Mapping[str, Any], executable: str, *, uninstall: bool, label: str = SETTINGS_FILE
) -> dict[str, Any]:
    """The new ``.claude/settings.json`` document (``doc`` is not modified)."""
    new = copy.deepcopy(dict(doc))
    if uninstall:
        if "hooks" not in new:
            return new
        hooks = _object(new["hooks"], label, '"hooks"')
        for event in list(hooks):
            groups = _list(hooks[event], label, f'"hooks.{event}"')
            removed_any = False
            kept_groups = []
            for i, group in enumerate(groups):
                group = _object(group, label, f'"hooks.{event}[{i}]"')
                entries = _list(group.get("hooks", []), label, f'"hooks.{event}[{i}].hooks"')
                kept = [
                    h
                    for h in entries
                    if not (isinstance(h, dict) and is_kenning_hook(h.get("command")))
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
                if isinstance(entry, dict) and is_kenning_hook(entry.get("command"), name):
                    if found:
                        continue  # a duplicate of ours: drop it
                    found = True
                    entry = {
                        **entry,
                        "type": "command",
                        "command": command,
                        "timeout": HOOK_TIMEOUT_SECONDS,
                    }
                kept.append(entry)
            if kept != entries:
                group["hooks"] = kept
                if not kept:
                    emptied.append(i)
        for i in reversed(emptied):  # groups that held only duplicates of ours
            del groups[i]
        if not found:
            groups.append(
                {
                    "hooks": [
                        {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
                    ]
                }
            )
    return new


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def _read(path: Path, label: str) -> tuple[str | None, dict[str, Any]]:
    if not path.exists():
        return None, {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserInputError(f"cannot read {label}: {exc} — nothing was written") from None
    if not text.strip():
        return text, {}
    try:
        doc = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise UserInputError(
            f"{label} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            "fix or remove it and run again — nothing was written"
        ) from None
    if not isinstance(doc, dict):
        raise _shape_error(label, "the top level", "a JSON object")
    return text, doc


def _indent_of(text: str | None) -> str | int:
    """Keep the file's indentation (tabs or N spaces) when rewriting it; default 2."""
    if text:
        m = re.search(r"\n([ \t]+)\S", text)
        if m:
            ws = m.group(1)
            return "\t" if ws.startswith("\t") else len(ws)
    return 2


def _render(doc: dict[str, Any], before: str | None) -> str:
    return json.dumps(doc, indent=_indent_of(before), ensure_ascii=False) + "\n"


def _change(
    path: Path, label: str, before: str | None, old: dict[str, Any], new: dict[str, Any]
) -> FileChange:
    if new == old:
        return FileChange(path, label, before, before)
    if not new and before is not None:
        return FileChange(path, label, before, None)  # only {} would be left: remove the file
    return FileChange(path, label, before, _render(new, before))


def plan_claude_code(
    project_dir: Path, executable: str, *, uninstall: bool = False
) -> list[FileChange]:
    """The changes to ``.mcp.json`` and ``.claude/settings.json`` (nothing is written).

    Both files are read and checked before anything is planned, so a malformed one stops
    the whole run."""
    mcp_path = project_dir / MCP_FILE
    settings_path = project_dir / SETTINGS_FILE
    mcp_before, mcp_doc = _read(mcp_path, MCP_FILE)
    settings_before, settings_doc = _read(settings_path, SETTINGS_FILE)
    return [
        _change(
            mcp_path,
            MCP_FILE,
            mcp_before,
            mcp_doc,
            plan_mcp(mcp_doc, executable, uninstall=uninstall),
        ),
        _change(
            settings_path,
            SETTINGS_FILE,
            settings_before,
            settings_doc,
            plan_settings(settings_doc, executable, uninstall=uninstall),
        ),
    ]


def _write_atomic(path: Path, text: str) -> None:
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        mode = target.stat().st_mode & 0o7777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def apply_changes(changes: list[FileChange]) -> None:
    for change in changes:
        if not change.changed:
            continue
        if change.after is None:
            change.path.unlink()
            parent = change.path.parent
            if parent.name == ".claude" and not any(parent.iterdir()):
                parent.rmdir()
        else:
            _write_atomic(change.path, change.after)


def install_claude_code(
    project_dir: Path | None = None,
    *,
    uninstall: bool = False,
    dry_run: bool = False,
    executable: str | None = None,
) -> list[FileChange]:
    """Plan and (unless ``dry_run``) apply the install or uninstall; return the changes."""
    root = Path(project_dir).resolve() if project_dir else default_project_dir()
    if not root.is_dir():
        raise UserInputError(f"the project folder {root} does not exist")
    if executable is None:
        exe = kenning_executable() if not uninstall else "kenning"
    else:
        exe = os.path.abspath(os.path.expanduser(executable))
    changes = plan_claude_code(root, exe, uninstall=uninstall)
    if not dry_run:
        apply_changes(changes)
    return changes
