"""Installers: register kenning with an agent's configuration files (``kenning install``).

One module per agent (Claude Code, Codex, Cursor). They write configuration, never
memories; the core never imports them. Each writes the agent's own files for one scope,
merging with what is there, and can undo exactly what it wrote. :func:`install` is what
``kenning install`` calls; the file rules every installer follows are in
:mod:`kenning.installers.files`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UserInputError
from .files import FileChange, InstallResult

__all__ = ["AGENTS", "DEFAULT_SCOPES", "FileChange", "InstallResult", "install"]

#: agent → the scopes it accepts (the first is the default).
AGENTS: dict[str, tuple[str, ...]] = {
    "claude-code": ("local", "project", "user"),
    "codex": ("project", "user"),
    "cursor": ("project", "user"),
}
DEFAULT_SCOPES = {agent: scopes[0] for agent, scopes in AGENTS.items()}


def install(
    agent: str,
    *,
    scope: str | None = None,
    project_dir: Path | None = None,
    uninstall: bool = False,
    dry_run: bool = False,
    executable: str | None = None,
    agents_md: bool = True,
) -> InstallResult:
    """Register (or with ``uninstall``, unregister) kenning with ``agent`` at ``scope``."""
    if agent not in AGENTS:
        raise UserInputError(f"unknown agent {agent!r}; use one of {', '.join(AGENTS)}")
    chosen = scope or DEFAULT_SCOPES[agent]
    if chosen not in AGENTS[agent]:
        raise UserInputError(
            f"{agent} has no {chosen!r} scope; use one of {', '.join(AGENTS[agent])}"
        )
    from ..project import git_asked_once

    with git_asked_once():
        result = _install(agent, chosen, project_dir, uninstall, dry_run, executable, agents_md)
        if not uninstall and chosen != "user":
            from ..project import (
                find_checkout,
                in_repository_without_work_tree,
                repository_refused,
            )

            folder = Path(project_dir) if project_dir else Path.cwd()
            outside = find_checkout(folder) is None
            refused = repository_refused(folder) if outside else None
            if refused is not None:
                # a checkout git will not work in: its fix, not `git init`
                result.notes.append(str(refused))
            elif outside and in_repository_without_work_tree(folder):
                result.notes.append(
                    f"{folder.resolve()} is a git repository with no work tree here (a bare "
                    "repository or a .git folder): an agent started here finds no project; "
                    "install from one of its work trees (`git worktree list` shows them)"
                )
            elif outside:
                # kenning finds a project from git: an agent started here gets "no project"
                # from every tool and hook unless both variables name one
                result.notes.append(
                    f"{folder.resolve()} is not inside a git repository: kenning finds the project "
                    "and its store from git, so its tools and hooks will find no project here "
                    "unless KENNING_PROJECT and KENNING_STORE are set; run `git init` (or install "
                    "from your project's checkout)"
                )
    return result


def _install(
    agent: str,
    chosen: str,
    project_dir: Path | None,
    uninstall: bool,
    dry_run: bool,
    executable: str | None,
    agents_md: bool,
) -> InstallResult:
    if agent == "claude-code":
        from .claude_code import install_claude_code

        return install_claude_code(
            project_dir, scope=chosen, uninstall=uninstall, dry_run=dry_run, executable=executable
        )
    if agent == "codex":
        from .codex import install_codex

        return install_codex(
            project_dir,
            scope=chosen,
            uninstall=uninstall,
            dry_run=dry_run,
            executable=executable,
            agents_md_section=agents_md,
        )
    from .cursor import install_cursor

    return install_cursor(
        project_dir,
        scope=chosen,
        uninstall=uninstall,
        dry_run=dry_run,
        executable=executable,
        agents_md_section=agents_md,
    )
