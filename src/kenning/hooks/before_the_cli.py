"""``kenning hook EVENT`` without the CLI's code: imported by :mod:`kenning.cli` right after
:mod:`kenning.startup_interrupt`, before click and the definitions of the commands.

Claude Code starts a process per hook event (each prompt the agent is sent, each failed
command), and loading the CLI was ~40 ms of the CPU of one (0.2-0.45 CPU-s). When this
process is the ``kenning`` command (its console script, or ``python -m kenning``) and its
arguments are ``hook EVENT`` and nothing else, the hook runs here, as the ``hook`` command
runs it, and ends the process (:func:`kenning.hooks.claude_code.main` exits it). Any other
arguments (``--help``, no event, an option) are the CLI's, as before.

What the CLI does before any command changes nothing a hook writes: standard error already
escapes what it cannot encode (Python's ``backslashreplace``, which the CLI sets for standard
output too), and a hook writes ASCII JSON alone on standard output. A Ctrl-C while the hook's
code loads is answered as while the CLI's loads (``startup_interrupt``: one line, exit 130);
from its start on, the hook's own (exit 0).
"""

from __future__ import annotations

import os
import sys

import kenning

from .. import startup_interrupt


def event_to_run(argv: list[str], the_command: bool) -> str | None:
    """The EVENT of ``kenning hook EVENT`` (``argv``: the process's), when the process is the
    ``kenning`` command and those are all its arguments; else None."""
    args = argv[1:]
    if the_command and len(args) == 2 and args[0] == "hook" and not args[1].startswith("-"):
        return args[1]
    return None


_EVENT = event_to_run(getattr(sys, "argv", []), kenning._THE_COMMAND)
if _EVENT is not None:
    from .claude_code import main

    try:
        startup_interrupt.restore()  # from here on, the hook's own handling of Ctrl-C
        main(_EVENT)  # (exits the process)
    finally:  # a Ctrl-C before main's own handling began ends it as main would: exit 0
        os._exit(0)
