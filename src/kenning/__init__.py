"""kenning — institutional memory for coding agents.

Remember error→fix notes, conventions and decisions for a project; recall the few that
matter before acting, scored, deduplicated, time-decayed and fenced for the prompt.

>>> from kenning import open_store, remember, recall, search_memories
"""

# Ctrl-C in the first moments of the `kenning` command is noted from this file's first
# lines and answered once the CLI's own handler is in place (startup_interrupt: one line,
# exit 130). Set first, then undone for a program that imports kenning: an interrupt while
# startup_interrupt itself was imported printed a traceback through kenning, and so did one
# while this file decided. The modules used here are loaded at every interpreter's start.
import _signal
import os
import sys

#: Python's SIGINT handler as the process had it, for startup_interrupt to put back.
_SIGINT_BEFORE = _signal.getsignal(_signal.SIGINT)
#: Whether a Ctrl-C came before startup_interrupt took over from :func:`_note_interrupt`.
_interrupted_early = False


def _note_interrupt(signum: int, frame: object) -> None:
    global _interrupted_early
    _interrupted_early = True


# a process that ignores Ctrl-C (started in the background) goes on ignoring it
if _SIGINT_BEFORE is _signal.default_int_handler:
    # (not contextlib.suppress: contextlib is not loaded yet)
    try:  # noqa: SIM105
        _signal.signal(_signal.SIGINT, _note_interrupt)
    except ValueError:  # imported from another thread: only the main one sets handlers
        pass


def _started_as_the_command(
    argv: list[str], orig_argv: list[str], importer_names: tuple[str, ...]
) -> bool:
    """Whether the process is the ``kenning`` command, which imports its CLI next: its
    console script (named kenning, importing ``kenning.cli``: ``importer_names`` are the
    names the code importing this package uses) or ``python -m kenning`` (while the package
    is found, ``argv[0]`` is ``-m``). A program that imports kenning, whatever its name,
    keeps Python's own Ctrl-C: nothing would answer one noted."""
    if not argv:
        return False
    if argv[0] == "-m":  # (not itertools.pairwise: itertools is not loaded yet)
        return "-mkenning" in orig_argv or any(
            orig_argv[i : i + 2] == ["-m", "kenning"] for i in range(len(orig_argv) - 1)
        )
    name = os.path.basename(argv[0])
    return (
        name.startswith("kenning")
        and name[len("kenning") :] in ("", ".exe", "-script.py")
        and "kenning.cli" in importer_names
    )


def _importer_names() -> tuple[str, ...]:
    """The names used by the code that imports this package (past the import machinery)."""
    try:
        frame = sys._getframe(2)  # (1: this file's own code, which asks)
    except ValueError:  # nothing imports it (this file run as a script)
        return ()
    while frame is not None and frame.f_code.co_filename.startswith("<frozen "):
        frame = frame.f_back  # type: ignore[assignment]
    return frame.f_code.co_names if frame is not None else ()


#: Whether this process is the ``kenning`` command (see :func:`_started_as_the_command`):
#: its Ctrl-C is answered by startup_interrupt, and ``kenning hook EVENT`` runs the hook
#: without loading the CLI (kenning.cli). (A Python embedded in a program may have no argv.)
_THE_COMMAND = _started_as_the_command(getattr(sys, "argv", []), sys.orig_argv, _importer_names())
if _signal.getsignal(_signal.SIGINT) is _note_interrupt and not _THE_COMMAND:
    _signal.signal(_signal.SIGINT, _SIGINT_BEFORE)  # a program importing kenning: its own
    if _interrupted_early:
        raise KeyboardInterrupt  # as Python's handler would have, meanwhile

# Threaded BLAS is far slower for single-query scoring on a busy 2-core box (SPEC §3).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# onnxruntime's own telemetry, off: nothing kenning runs sends anything anywhere. The PyPI
# build (1.32.0, pinned; users report it since 1.29) records a device id and queues telemetry
# events for upload to Microsoft in $XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime,
# from its import on (here: a SQLite file of 2,167 events, 4 MB, after a day of kenning's
# test runs). Read when onnxruntime is first imported, which kenning does only after this
# line; a value set before is kept (a program that imported onnxruntime first chose itself).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

TYPE_CHECKING = False  # typing itself is not imported for it (see _HOMES)
if TYPE_CHECKING:
    from .api import recall, remember, search_memories
    from .errors import (
        ContentError,
        DedupCheckFailed,
        DuplicateContent,
        EditConflict,
        InvalidTypeError,
        KenningError,
        NotAKenningStore,
        ProvenanceMismatch,
        StoreClosed,
        StoreCorrupted,
        StoreLocationError,
        StoreNotFound,
        StoreUnavailable,
        StoreWriteFailed,
        UnknownMemoryError,
        UserInputError,
    )
    from .model import (
        Memory,
        Provenance,
        RecallResult,
        RememberResult,
        SearchResult,
    )
    from .search import SearchResponse
    from .store import MemoryStore, NewMemory, open_store

#: Where each public name is defined: imported when first asked for (PEP 562), so that
#: ``import kenning.cli`` (the ``kenning`` command) does not load the store, numpy and the
#: backends before the command runs: a Ctrl-C while they load is the CLI's to answer
#: ("interrupted", exit 130), not a traceback of the import it cut.
_HOMES = {
    "recall": "api",
    "remember": "api",
    "search_memories": "api",
    **dict.fromkeys(
        (
            "ContentError",
            "DedupCheckFailed",
            "DuplicateContent",
            "EditConflict",
            "InvalidTypeError",
            "KenningError",
            "NotAKenningStore",
            "ProvenanceMismatch",
            "StoreClosed",
            "StoreCorrupted",
            "StoreLocationError",
            "StoreNotFound",
            "StoreUnavailable",
            "StoreWriteFailed",
            "UnknownMemoryError",
            "UserInputError",
        ),
        "errors",
    ),
    **dict.fromkeys(
        ("Memory", "Provenance", "RecallResult", "RememberResult", "SearchResult"), "model"
    ),
    "SearchResponse": "search",
    "MemoryStore": "store",
    "NewMemory": "store",
    "open_store": "store",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'kenning' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__version__ = "0.1.0"

__all__ = [
    "ContentError",
    "DedupCheckFailed",
    "DuplicateContent",
    "EditConflict",
    "InvalidTypeError",
    "KenningError",
    "Memory",
    "MemoryStore",
    "NewMemory",
    "NotAKenningStore",
    "Provenance",
    "ProvenanceMismatch",
    "RecallResult",
    "RememberResult",
    "SearchResponse",
    "SearchResult",
    "StoreClosed",
    "StoreCorrupted",
    "StoreLocationError",
    "StoreNotFound",
    "StoreUnavailable",
    "StoreWriteFailed",
    "UnknownMemoryError",
    "UserInputError",
    "__version__",
    "open_store",
    "recall",
    "remember",
    "search_memories",
]
