"""Ctrl-C while the ``kenning`` command is still loading: one line and exit 130, as later on.

Importing this module first (:mod:`kenning.cli` does) installs a SIGINT handler for the
command's first tenth of a second (its imports and the definitions of its commands), where an
interrupt would otherwise print a traceback of whatever import it cut. Until then the package,
started as the command, notes a Ctrl-C from its first line (``kenning._note_interrupt``); one
noted is answered here. :func:`restore` puts the previous handler back, after which the CLI's
own ``handle_errors`` says "interrupted". A process that ignores Ctrl-C (started in the
background) goes on ignoring it; a handler can be set only from the main thread, so an import
from another thread changes nothing.
"""

# the C module under `signal`, built in: `import signal` builds its enums first, which on a
# busy machine is a window of its own
import _signal
import os
import sys


def _interrupted_while_loading(signum: int, frame: object) -> None:
    if "kenning.cli" not in sys.modules:
        # the CLI's import failed (Python drops a module whose import raised) and never
        # restored the handler: the program that imported it has its own Ctrl-C back
        restore()
        raise KeyboardInterrupt
    # an exception raised here could surface wrapped by what it cut (a class being made
    # says RuntimeError); nothing is started yet that an exit at once would leave undone
    try:
        sys.stderr.write("error: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


_package = sys.modules[__package__]
_HANDLER_BEFORE = _signal.getsignal(_signal.SIGINT)
#: The `kenning` command, noting Ctrl-C since the package's first lines (see kenning).
_NOTED = _HANDLER_BEFORE is _package._note_interrupt
if _NOTED:
    _HANDLER_BEFORE = _package._SIGINT_BEFORE
_INSTALLED = False
if _HANDLER_BEFORE is _signal.default_int_handler:
    try:
        _signal.signal(_signal.SIGINT, _interrupted_while_loading)
        _INSTALLED = True
    except ValueError:  # imported from another thread
        pass
if _INSTALLED and _NOTED and _package._interrupted_early:
    # read once this handler is set, so that no Ctrl-C falls between the two
    _interrupted_while_loading(_signal.SIGINT, None)


def restore() -> None:
    """The command is loaded: Ctrl-C is the CLI's to answer again (Python's own handler)."""
    global _INSTALLED
    if _INSTALLED and _signal.getsignal(_signal.SIGINT) is _interrupted_while_loading:
        _signal.signal(_signal.SIGINT, _HANDLER_BEFORE)
    _INSTALLED = False
