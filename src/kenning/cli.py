"""The ``kenning`` command line: a thin click layer over :class:`~kenning.store.MemoryStore`.

Exit codes: 0 success · 1 user error (bad input, refused write, broken store) · 2 usage
error (unknown option, missing argument) · 3 a server store down or refusing credentials
(knowledge base NOT consulted; a command that writes says what it did not do) · 130
interrupted · 141 the reader of standard output closed it (``kenning export | head``),
quietly.
"""

from __future__ import annotations

from . import startup_interrupt  # first: Ctrl-C while the imports below run
from .lazyre import lazy

# isort: split

from .hooks import before_the_cli  # noqa: F401  (`kenning hook EVENT` runs there, and ends)

# isort: split

import codecs
import json
import logging
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from . import protocol
from .errors import (
    NOT_DONE,
    UTF16_BOMS,
    UTF32_BOMS,
    KenningError,
    StoreUnavailable,
    UnknownMemoryError,
    UserInputError,
    iconv_said,
    not_utf8,
)
from .model import (
    COLLECTIONS,
    NEAR_DUPLICATE,
    REJECTED,
    RUVECTOR_TYPE_MAP,
    SEEDED_FROM,
    STALE_LISTED,
    STORED,
    TYPE_TO_COLLECTION,
    RememberResult,
    id_prefix,
    valid_types_message,
)

if TYPE_CHECKING:
    from .log_window import LogWindow
    from .store import MemoryStore

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_USER, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3
#: 128 + SIGPIPE: what a shell reports for a program whose reader closed the pipe
EXIT_BROKEN_PIPE = 141
#: About the most characters of a message an ``error:`` or ``warning:`` line (or a --json
#: refusal's ``reason``) shows: a screenful (50 lines of 80 columns), more than any message
#: kenning writes, so only one quoting a huge input (a 1 MB id, a log passed as a type) is
#: cut, its start and end kept; a person reads it in a terminal, and an agent running the
#: command keeps it in its context (its shell tool keeps ~30,000 characters of output).
ERROR_LINE_CHARS = 4_000
ALL_TYPES = sorted(set(TYPE_TO_COLLECTION) | set(RUVECTOR_TYPE_MAP))


def _echo_json(data: Any) -> None:
    from .render import escape_unsafe_json

    _echo_json_text(
        escape_unsafe_json(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False))
    )


def _stdout_is_utf8() -> bool:
    try:
        return codecs.lookup(getattr(sys.stdout, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        return False


def _echo_json_text(text: str) -> None:
    """JSON text on stdout. Where stdout is not UTF-8 (a Latin-1 locale, a pipe on Windows),
    a character it cannot encode would come out as Python's backslash escape, which JSON does
    not have: every character past ASCII is then written as its JSON escape instead."""
    from .render import ascii_json

    _echo_whole(text if _stdout_is_utf8() else ascii_json(text))


def _echo_whole(text: str) -> None:
    """``click.echo(text)`` for an answer that may outgrow a pipe's buffer (a 2 MB ``stale``,
    a 150 KB ``search --json``): written to the file descriptor until all of it is taken,
    so that a reader that stops midway (``| head``) is a BrokenPipeError (exit 141, README).
    Python's buffered stdout takes the first 64 KiB a pipe takes as the whole write and
    drops the rest, and the command said exit 0 for a cut-off answer."""
    try:
        fd = sys.stdout.fileno()
        terminal = os.isatty(fd)
    except (AttributeError, OSError, ValueError):  # not a file (click's test runner)
        fd, terminal = -1, False
    if fd < 0 or terminal:  # (a terminal: no pipe to close, and click knows consoles)
        click.echo(text)
        return
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    data = memoryview(f"{text}\n".encode(encoding, errors="backslashreplace"))
    sys.stdout.flush()
    while data:
        data = data[os.write(fd, data) :]


def _shown_error(message: str) -> str:
    """An error or warning as the CLI shows it (it may quote input): made safe and, when it
    quotes a huge input, cut to about :data:`ERROR_LINE_CHARS` characters, its start and its
    end kept (:func:`~kenning.render.safe_bounded_message`)."""
    from .render import safe_bounded_message

    return safe_bounded_message(message, ERROR_LINE_CHARS)


def _asked_id(value: str) -> str:
    """The id a command was asked about, as its --json answer names it: as given when it can
    be a memory id (:data:`~kenning.model.MEMORY_ID_PATTERN`); anything else (a log pasted
    where the id goes) as an error line quotes it: made safe, its secrets redacted, cut to
    about :data:`ERROR_LINE_CHARS` characters."""
    from .model import MEMORY_ID_PATTERN

    value = value.strip()
    return value if MEMORY_ID_PATTERN.fullmatch(value) else _shown_error(value)


def _say_error(message: str) -> None:
    """``error: <message>`` on stderr, the message made safe to show (it may quote input)."""
    click.echo(f"error: {_shown_error(message)}", err=True)


def _say_warning(message: str) -> None:
    """``warning: <message>`` on stderr, made safe to show like an error."""
    click.echo(f"warning: {_shown_error(message)}", err=True)


def _fail(message: str, code: int = EXIT_USER) -> None:
    _say_error(message)
    sys.exit(code)


class _BadInputNotUsage(click.ParamType):
    """A file or folder argument that cannot be used is bad input: one line naming the
    argument, exit 1 (click's own check makes it a usage error, exit 2, with the usage)."""

    def fail(
        self, message: str, param: click.Parameter | None = None, ctx: click.Context | None = None
    ) -> NoReturn:
        _fail(f"{param.get_error_hint(ctx) if param and ctx else self.name}: {message}")
        raise AssertionError  # _fail exits


class _InputFile(_BadInputNotUsage, click.File):
    """A file to read (``-``: stdin)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str | os.PathLike) and str(value) != "-":
            # click says "'QUERIES': 'x.jsonl': No such file…"; import's words for the same
            try:
                with open(value, "rb"):
                    pass
            except OSError as exc:
                _fail(f"cannot read {value}: {exc.strerror or exc}")
        return super().convert(value, param, ctx)


class _OutputFile(_BadInputNotUsage, click.Path):
    """A file to write (not a folder); ``-`` is standard output, as ``-`` is standard input
    for the commands that read one."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, allow_dash=True, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str | os.PathLike) and str(value) != "-" and os.path.isdir(value):
            # click says only "File '…' is a directory."
            example = shlex.quote(os.path.join(value, "backup.jsonl"))
            self.fail(
                f"{shlex.quote(str(value))} is a folder; name a file inside it, such as {example}",
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


class _ExistingFolder(_BadInputNotUsage, click.Path):
    """A folder that must exist."""

    def __init__(self) -> None:
        super().__init__(exists=True, file_okay=False, path_type=Path)


def _end_on_closed_pipe() -> NoReturn:
    """The reader stopped reading (`kenning export | head`): stop quietly with the status a
    program the pipe stopped has, as git does; stdout is pointed at /dev/null so that
    flushing it at exit does not raise again."""
    with suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(EXIT_BROKEN_PIPE)


def _text_not_option(name: str) -> bool:
    """Whether an argument click took for an unknown option is text: it has a space in it
    (``--- FAIL: TestParse``, ``-bash: pnpm: command not found``), or three dashes first."""
    return any(c.isspace() for c in name) or name.startswith("---")


#: The options whose value is the text itself, also read from stdin (``recall --error -``).
_TEXT_OPTIONS = frozenset({"--error"})


def _option_that_took_dashes(
    ctx: click.Context | None, given: list[Any], text: str
) -> tuple[str, bool] | None:
    """The option given just before ``-- TEXT`` when it takes a value, and whether TEXT is
    no value of it (``--type``, against ``--error``'s, :data:`_TEXT_OPTIONS`): click took the
    ``--`` as that value, and TEXT was read as an option."""
    at = next((i for i, a in enumerate(given) if a is text), -1)
    if ctx is None or at < 2 or given[at - 1] != "--":
        return None
    name = given[at - 2]
    for param in ctx.command.params:
        if isinstance(param, click.Option) and not param.is_flag and name in param.opts:
            return str(name), name not in _TEXT_OPTIONS
    return None


class _ClosedPipeQuiet:
    """``--help`` and ``--version`` print while the arguments are parsed (``make_context``),
    before :func:`handle_errors` runs, and click ends a closed pipe met there with exit 1 (a
    failure, to the shell): ``kenning --help | head -1`` ends like ``kenning export | head``."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        # (a copy: parsing takes the arguments out of the list it is given)
        given = list(args[1] if len(args) > 1 else kwargs.get("args") or [])
        try:
            return super().make_context(*args, **kwargs)  # type: ignore[misc]
        except click.NoSuchOption as exc:
            # ("-bash: …" is read as the short options -b, -a…: the argument it came from)
            text = next(
                (
                    a
                    for a in given
                    if isinstance(a, str) and a.startswith(exc.option_name) and _text_not_option(a)
                ),
                None,
            )
            if text is not None:
                shown = text if len(text) <= 24 else text[:21] + "..."
                command = exc.ctx.command_path if exc.ctx else "kenning"
                option = _option_that_took_dashes(exc.ctx, given, text)
                taken = option[0] if option else None
                if option is not None and option[1]:
                    # `remember --type -- "--- a note"`: the text is no value of --type (qa83 F7)
                    how = (
                        f"{taken} took the -- as its value, and the text after it was read as "
                        f"an option: give {taken} its value before the -- ({command} {taken} "
                        f"VALUE -- {shlex.quote(shown)})"
                    )
                elif taken is not None:
                    # `--error -- "--- FAIL…"`: the option took the -- as its value (qa81 F5);
                    # "put -- before it" was done, and its example dropped the option
                    how = (
                        f"{taken} took the -- as its value, and the text after it was read as "
                        f"an option: join them with = ({command} "
                        f"{shlex.quote(f'{taken}={shown}')}), or pass {taken} - and give the "
                        "text on standard input"
                    )
                else:
                    how = (
                        "Text that starts with '-' is read as an option: put -- before it "
                        f"({command} -- {shlex.quote(shown)}), or pass - and give it on "
                        "standard input"
                    )
                raise click.NoSuchOption(
                    exc.option_name,
                    f"{exc.message} {how}",
                    exc.possibilities,
                    exc.ctx,
                ) from None
            raise
        except BrokenPipeError:
            _end_on_closed_pipe()
        except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
            _fail("interrupted", 130)
            raise AssertionError from None  # _fail exits


class _Command(_ClosedPipeQuiet, click.Command):
    pass


#: Commands users (and agents) guess that kenning does not have, and the commands that do
#: it: `kenning list` was click's "No such command 'list'." alone (qa81 F5).
_GUESSED_COMMANDS = {
    **dict.fromkeys(
        ("list", "ls", "show", "all", "dump", "notes", "memories"),
        "To list notes: kenning export (every note), kenning ui or kenning search QUERY",
    ),
    **dict.fromkeys(
        ("add", "save", "store", "note", "new", "learn", "write"),
        "To store a note: kenning remember",
    ),
    **dict.fromkeys(
        ("find", "get", "lookup", "ask"), "To find notes: kenning recall or kenning search"
    ),
    **dict.fromkeys(("delete", "rm", "remove", "del"), "To delete a note: kenning forget ID"),
    **dict.fromkeys(("update", "change", "modify"), "To change a note: kenning edit ID"),
    **dict.fromkeys(("init", "setup"), "To set kenning up: kenning install"),
    **dict.fromkeys(("status", "info", "count"), "For counts and the store: kenning stats"),
}


class _Group(_ClosedPipeQuiet, click.Group):
    command_class = _Command
    group_class = type  # a subgroup is a _Group too

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.NoSuchCommand as exc:
            top = ctx.parent is None  # (a subgroup's commands are its own)
            hint = _GUESSED_COMMANDS.get(exc.command_name.lower()) if top else None
            if hint is None:
                raise
            raise click.NoSuchCommand(
                exc.command_name, f"{exc.message} {hint}.", ctx=exc.ctx
            ) from None

    def invoke(self, ctx: click.Context) -> Any:
        # between the arguments read and the command's own handle_errors (the group's
        # callback, the command's arguments): click would say "Aborted!" and exit 1
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _fail("interrupted", 130)


def _as_the_command_says(exc: KenningError) -> str:
    """``exc``'s message, a parameter it names by the Python API's name (``top_k``) called
    by the running command's option for it (``--top-k``): the user typed the option. A
    store a command that writes could not reach is said in its words
    (:meth:`~kenning.errors.StoreUnavailable.as_the_write_says`); recall, search, stats,
    stale, export, doctor and ui read it, and keep "knowledge base NOT consulted"."""
    parameter = getattr(exc, "parameter", None)
    ctx = click.get_current_context(silent=True)
    if isinstance(exc, UserInputError) and parameter is not None and ctx is not None:
        for option in ctx.command.params:
            if isinstance(option, click.Option) and option.name == parameter:
                return exc.named("/".join(option.opts))
    command = ctx.command.name if ctx is not None else None
    if isinstance(exc, StoreUnavailable) and command is not None and command in NOT_DONE:
        return exc.as_the_write_says(command)
    return str(exc)


class _DamagedRowsCounted(logging.Filter):
    """Lets the first :attr:`SHOWN` warnings of a damaged row a command's reads skip through,
    and counts the others, said in one line at its end: a store with 2,000 damaged vectors
    (another tool's bulk write) put 2,000 lines before every recall's answer."""

    SHOWN = 3
    PREFIXES = ("kenning: skipped the damaged memory", "kenning: skipped memory")

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(self.PREFIXES):
            # a record held back and let out later (migrate's, _VectorSkipsHeld) comes by
            # again: counted once, as it was decided the first time (qa75 F3: counted twice,
            # it was dropped as past the three shown, and "and 3 more" stood alone)
            shown = getattr(record, "kenning_shown", None)
            if shown is None:
                self.seen += 1
                shown = record.kenning_shown = self.seen <= self.SHOWN
            return bool(shown)
        return True


#: The loggers a backend's damaged-row warning comes from.
_DAMAGE_LOGGERS = ("kenning", "kenning.backends.postgres", "kenning.backends.qdrant")


@contextmanager
def _damaged_rows_counted() -> Iterator[None]:
    counted = _DamagedRowsCounted()
    loggers = [logging.getLogger(name) for name in _DAMAGE_LOGGERS]
    for logger in loggers:
        logger.addFilter(counted)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(counted)
        more = counted.seen - counted.SHOWN
        if more > 0:
            with suppress(OSError):
                click.echo(
                    f"kenning: and {more} more damaged memor{'y' if more == 1 else 'ies'} "
                    "skipped; `kenning doctor` names each",
                    err=True,
                )


class _VectorSkipsHeld(logging.Filter):
    """Holds back the warnings that a SQLite store's read skipped a row whose vector alone
    is damaged (its count of them, before a migration), for ``kenning migrate``, which
    copies such a vector's direction and says so: "skipped" then read as not copied
    (qa74 F2). At the end those said of a row not in ``copied_as_directions`` are said (all
    of them when the migration failed)."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[logging.LogRecord] = []
        self.copied_as_directions: Mapping[str, str] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        if (
            isinstance(record.msg, str)
            and record.msg.startswith("kenning: skipped the damaged memory")
            and len(args) >= 3
            and args[2] == "vector"
        ):
            self.held.append(record)
            return False
        return True

    def release(self) -> None:
        for record in self.held:
            args = record.args if isinstance(record.args, tuple) else ()
            if not args or str(args[0]) not in self.copied_as_directions:
                logging.getLogger(record.name).handle(record)


@contextmanager
def _vector_skips_held() -> Iterator[_VectorSkipsHeld]:
    held = _VectorSkipsHeld()
    loggers = [logging.getLogger(name) for name in _DAMAGE_LOGGERS]
    for logger in loggers:
        logger.addFilter(held)
    try:
        yield held
    finally:
        for logger in loggers:
            logger.removeFilter(held)
        held.release()


class _MarkedRecordsHeld(logging.Filter):
    """Leaves out the log records that carry the attribute ``mark`` (given by the logging
    call's ``extra``): a warning that a command says itself, in its own words."""

    def __init__(self, mark: str) -> None:
        super().__init__()
        self.mark = mark

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, self.mark, False)


@contextmanager
def _marked_records_held(logger_name: str, mark: str) -> Iterator[None]:
    held = _MarkedRecordsHeld(mark)
    logger = logging.getLogger(logger_name)
    logger.addFilter(held)
    try:
        yield
    finally:
        logger.removeFilter(held)


def _index_warning_held() -> AbstractContextManager[None]:
    """The warning a server store without its vector index gives as it opens
    (:data:`kenning.backends.postgres.INDEX_MISSING_LOG_MARK`) held, for a command that says
    so itself (stats) or builds the index (reembed)."""
    return _marked_records_held("kenning.backends.postgres", "kenning_index_missing")


def _setting_warnings_held() -> AbstractContextManager[None]:
    """The warnings of settings keys that set nothing, which reading settings logs
    (:func:`kenning.config.log_key_warnings`), held for a command that says them itself:
    stats (its warning lines) and doctor (its settings check)."""
    from .config import SETTING_WARNING_MARK

    return _marked_records_held("kenning.config", SETTING_WARNING_MARK)


def _serves(func: F) -> F:
    """Mark a command that serves until stopped (the page): its warnings are not held for
    an end that a person waits for."""
    func.serves = True  # type: ignore[attr-defined]
    return func


def handle_errors(func: F) -> F:
    """Turn kenning's exceptions into a one-line message and the documented exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # (a server, the page, logs its warnings as they come for as long as it runs)
        counted = nullcontext() if getattr(func, "serves", False) else _damaged_rows_counted()
        try:
            with counted:
                return func(*args, **kwargs)
        except KenningError as exc:
            _fail(_as_the_command_says(exc), exc.exit_code)
        except BrokenPipeError:
            _end_on_closed_pipe()
        except OSError as exc:
            # a file argument the OS refuses (missing folder, too long, not writable, disk
            # full): said in one line, whichever command met it
            name = str(exc.filename) if exc.filename else ""
            name = name if len(name) <= 80 else name[:77] + "..."
            _fail(f"{_plain(name) + ': ' if name else ''}{exc.strerror or exc}")
        except KeyboardInterrupt as exc:
            # (a long write says what state it left: kenning.errors.Interrupted)
            said = str(exc)
            _fail(f"interrupted: {said}" if said else "interrupted", 130)

    return wrapper  # type: ignore[return-value]


def _store_options(func: F) -> F:
    func = click.option(
        "--store",
        "store_path",
        type=str,
        default=None,
        help="Store: a file or folder (default <git top>/.kenning/memory.db), "
        "postgresql://…, http(s)://… (Qdrant) or qdrant-local:<folder> (Qdrant's local "
        "mode, one process at a time); env KENNING_STORE.",
    )(func)
    return func


#: Which project's memory a command that names one by id may change (forget, edit): by
#: default only this project's, as on a shared server every project's ids are visible.
_memory_project_option = click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="The memory's project (default: this one; 'all' for any project).",
)


#: Which project a command works for (stats, stale, seed-solutions): SPEC §2's explicit
#: argument, before KENNING_PROJECT and the git remote.
_this_project_option = click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="The project (default: from KENNING_PROJECT, else the git remote or folder).",
)


@contextmanager
def _progress(label: str, total: int | None, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr when it is a terminal and output is not JSON (drawn at
    once)."""
    with _phases(total, enabled) as phase:
        tick = phase(label)
        tick(0)
        yield tick


@contextmanager
def _phases(total: int | None, enabled: bool) -> Iterator[Callable[[str], Callable[[int], None]]]:
    """Progress bars on stderr (a terminal, output not JSON) for the phases of one job:
    ``phase(label)`` is a callback whose bar is drawn when it is first told of progress,
    in place of the phase before (a phase that never runs draws none)."""
    if not enabled or not sys.stderr.isatty():
        yield lambda label: lambda n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:

        def phase(label: str) -> Callable[[int], None]:
            task: list[TaskID] = []

            def advance(n: int) -> None:
                if not task:
                    for earlier in bar.task_ids:
                        bar.update(earlier, visible=False)
                    task.append(bar.add_task(label, total=total))
                bar.advance(task[0], n)

            return advance

        yield phase


def _open(
    store_path: str | None,
    *,
    create: bool,
    missing_ok: bool = False,
    group_id: str | None = None,
    threshold: float | None = None,
    every_project: bool = True,
) -> MemoryStore:
    """The store, opened for the project ``--project``/``--group-id`` names (outside a
    checkout, it and ``--store`` are all there is to go by; 'all' is every project, so the
    store is opened for the one detected, or for none outside a checkout). A command that
    works for one project (``every_project`` False) is refused 'all', as remember is."""
    from .project import means_every_project
    from .store import open_store

    every = every_project and means_every_project(group_id)
    return open_store(
        store_path,
        create=create,
        missing_ok=missing_ok,
        group_id=None if every else group_id,
        threshold=threshold,
        every_project=every,
    )


EPILOG_MAIN = """
\b
Examples:
  kenning remember --type error_fix \\
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL"
  kenning recall "database is locked when two agents write"
  kenning search "how do we handle sqlite locking" --limit 5
  kenning stats --json

Exit codes: 0 ok, 1 user error, 2 usage error, 3 a server store could not be reached,
130 interrupted (Ctrl-C), 141 the program reading the output closed it.
"""


@click.group(
    cls=_Group, epilog=EPILOG_MAIN, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(package_name="kenning")
def main() -> None:
    """Institutional memory for coding agents: remember notes, recall the few that matter."""
    # A path or id given as undecodable bytes reaches Python as lone surrogates; echoing it
    # back (in a message, a listing) must not end in a UnicodeEncodeError traceback.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


# -- remember ------------------------------------------------------------------------------


def _let_go_as_read(lines: list[str]) -> Iterator[str]:
    """``lines``, each let go of once read: the file's text (a 100k export: 260 MB) is not
    held beside what is parsed from it (the import reads its lines once)."""
    for index, line in enumerate(lines):
        lines[index] = ""
        yield line


def _not_utf8_in(source: str, exc: UnicodeDecodeError) -> tuple[str, str]:
    """:func:`~kenning.errors.not_utf8` of a file click read as UTF-8 text (``-``: standard
    input): the decoder's error counts from the start of the chunk it read (8 KiB), so a
    file is read again, a line at a time, for the place of the byte in it and its line."""
    if source == "-":  # read once: its place is known at the start alone (a byte order mark)
        marked = exc.object[:2] in UTF16_BOMS or exc.object[:4] in UTF32_BOMS
        first = exc.start <= 2 and marked
        return not_utf8(exc.object, exc.start, exc.start if first else -1)
    place = 0
    with suppress(OSError), open(source, "rb") as raw:
        for number, line in enumerate(raw, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as found:
                return not_utf8(line, found.start, place + found.start, number)
            place += len(line)
    return not_utf8(exc.object, exc.start, -1)


def _read_file(handle: Any) -> str:
    """The whole text of a file argument opened by click as UTF-8."""
    try:
        return str(handle.read())
    except UnicodeDecodeError as exc:
        name = str(getattr(handle, "name", "-"))
        name = "-" if name == "<stdin>" else name
        said, iconv = _not_utf8_in(name, exc)
        shown = "standard input" if name == "-" else _plain(name)
        target = "" if name == "-" else f"{shlex.quote(name)} > NEW"
        raise UserInputError(
            f"{shown} is not UTF-8 text{said}; re-encode it as UTF-8 ({iconv_said(iconv, target)})"
        ) from None


def _read_content(content: str) -> str:
    if content != "-":
        return content
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        said, iconv = not_utf8(data, exc.start)
        raise UserInputError(
            f"standard input is not valid UTF-8{said}; re-encode it as UTF-8 ({iconv_said(iconv)})"
        ) from None


def _read_output(raw: str) -> str:
    """A tool's output to build a query from (RAW, or standard input for -): read with any
    byte that is not UTF-8 replaced. A test run's log or a diff holds another encoding's
    bytes (a Latin-1 file, a stray byte of a binary's output); refusing the whole of it
    left `kenning recall --errors "$(npm test 2>&1 | kenning query error -)"` with no
    query. A query is looked up, never stored: a replaced byte costs nothing."""
    if raw != "-":
        return raw
    return sys.stdin.buffer.read().decode("utf-8", errors="replace")


def _read_log(
    raw: str, quiet: bool = False, command: str = "kenning recall --error -"
) -> LogWindow:
    """What is read of a log given as RAW (or - for stdin, :func:`_read_output`): of a huge
    one, a bounded part (:func:`kenning.log_window.log_window`: its start, its errors,
    its end), said in one line on stderr (unless ``quiet``); never refused for its size."""
    from .log_window import log_window

    window = log_window(_read_output(raw))
    notice = window.notice(command)  # (and how to have ``command`` read another part)
    if notice and not quiet:
        click.echo(notice, err=True)
    return window


def _read_note(content: str, as_json: bool) -> str:
    """The note's text (CONTENT, or standard input for -); with --json, input that cannot
    be read is answered as a rejected note, as every other refused note is."""
    try:
        return _read_content(content)
    except UserInputError as exc:
        if not as_json:
            raise
        _echo_json(RememberResult(status=REJECTED, reason=_shown_error(str(exc))).to_dict())
        _say_error(str(exc))  # as without --json: exit 1 alone tells a script's user nothing
        sys.exit(EXIT_USER)


@main.command(
    epilog="""
\b
Examples:
  kenning remember --type rule "All timestamps are stored in UTC"
  kenning remember --type error_fix --source docs/solutions/db.md "ERROR-FIX: ... | FIX: ..."
  git log -1 --format=%B | kenning remember --type session -
"""
)
@click.argument("content")
@click.option(
    "--type",
    "memory_type",
    default="context",
    show_default=True,
    help=f"Memory type: {', '.join(ALL_TYPES)}.",
)
@click.option(
    "--source",
    default=None,
    help="Path (from the top of the checkout, or from here) or URL the note comes from.",
)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option(
    "--project",
    "--group-id",
    "group_id",
    default=None,
    help="Project id (default: detected from git).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_store_options
@handle_errors
def remember(
    content: str,
    memory_type: str,
    source: str | None,
    tags: tuple[str, ...],
    group_id: str | None,
    as_json: bool,
    store_path: str | None,
) -> None:
    """Store a note (CONTENT, or - for standard input) unless it is already known.

    Secrets are redacted first. A note is not stored again when this project holds the
    same text (up to whitespace, punctuation and the case of the whole text: "USE RUFF" is
    "use ruff", and a note in one case throughout is any casing of it; between two notes in
    mixed case, one word in another case, "Python"/"python", makes a new note) or a
    near-duplicate: a memory above
    the protocol's dedup cosine (`kenning stats --json` shows it) that says the same words,
    differing at most in articles and the like. A note that differs in a number, a
    negation, a name or an error signature is new knowledge and is stored. A near-duplicate
    refreshes the memory it repeats (seen_count, last_seen_at: in recall and search --json).
    """
    from .store import NewMemory, remember_in_project

    text = _read_note(content, as_json)
    note = NewMemory(text, memory_type, source, tags)
    try:
        result = remember_in_project(note, store_path, group_id=group_id)
    except KenningError as exc:
        if not as_json:
            raise
        # refused by the project or the store (its location, a store read-only or locked by
        # another writer, a server down): a script reading --json still gets its answer, as
        # for a refused note, with the exit code the error has without --json
        said = _as_the_command_says(exc)
        _echo_json(RememberResult(status=REJECTED, reason=_shown_error(said)).to_dict())
        _say_error(said)
        sys.exit(exc.exit_code)
    if as_json:
        _echo_json(result.to_dict())
    elif result.status == STORED:
        click.echo(f"stored {_plain(result.id or '')} ({result.collection}/{result.type})")
    elif result.status == NEAR_DUPLICATE:
        click.echo(
            # (the note's id: another writer's may hold ESC sequences, OSC 52; inj7 F1)
            f"near-duplicate of {_plain(result.id or '')} (score {result.score:.2f}; "
            f"{result.reason}); not stored"
        )
    # a refusal stays one line (its reason names what it redacted; --json's "redactions"
    # counts it)
    if result.redactions and result.ok and not as_json:
        _say_redacted(result.redactions)
    if result.status not in (STORED, NEAR_DUPLICATE):
        # said with --json too (README: exit 1 is one line on stderr saying why)
        _say_error(f"{result.status}: {result.reason}")
        sys.exit(EXIT_USER)


# -- recall --------------------------------------------------------------------------------


@main.command(
    epilog=f"""
\b
The protocol: ask for top {protocol.RECALL_TOP_K}, discard scores below {protocol.RECALL_FLOOR}
({protocol.ERROR_RECALL_FLOOR} for error queries), keep the best {protocol.RECALL_KEEP}, cut their
combined text to {protocol.RECALL_CHAR_BUDGET} characters at a word boundary. A memory whose files
changed since it was written is marked stale (stale="true" in xml, "stale" in json) and its
score lowered by the stale penalty (default {protocol.STALE_PENALTY}); see `kenning stale`.
A project's own floors (`kenning calibrate --write`, recall_floor / error_recall_floor in
.kenning/config.toml) replace the protocol's.

\b
Examples:
  kenning recall "database is locked when two agents write"
  kenning recall --errors "sqlite3.OperationalError: database is locked"
  pytest 2>&1 | tail -30 | kenning recall --error -
  kenning recall --format xml "which timezone do we store timestamps in"
  kenning query plan docs/plans/cache.md | kenning recall -
"""
)
@click.argument("query", required=False)
@click.option(
    "--error",
    "raw_error",
    default=None,
    help=(
        "Raw error text or log (- for stdin): its signature (and each error a line of it "
        "tells in a sentence) is the query, floor 0.40."
    ),
)
@click.option(
    "--top-k",
    default=protocol.RECALL_TOP_K,
    show_default=True,
    type=int,
    help="Candidates to consider (1 to 100).",
)
@click.option(
    "--errors/--no-errors",
    default=None,
    help=f"Treat the query as an error (floor {protocol.ERROR_RECALL_FLOOR}); default: detect.",
)
@click.option(
    "--project",
    "--group-id",
    "group_id",
    default=None,
    help="Project id (default: detected; 'all' for every project).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "xml"]),
    default="text",
    show_default=True,
    help="Output: text, json, or the fenced xml block for a prompt.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Print nothing on stderr when there is no store or nothing passed (hooks, scripts).",
)
@_store_options
@handle_errors
def recall(
    query: str | None,
    raw_error: str | None,
    top_k: int,
    errors: bool | None,
    group_id: str | None,
    fmt: str,
    as_json: bool,
    quiet: bool,
    store_path: str | None,
) -> None:
    """Recall the few memories that matter for QUERY (the ruvector recall protocol)."""
    from .render import render_json, render_recall_result, stale_line

    if as_json and fmt == "xml":
        raise click.UsageError("--json and --format xml ask for two outputs; give one of them")
    if as_json:
        fmt = "json"
    queries: list[tuple[str, bool | None]]
    fallbacks: list[tuple[str, bool | None]] = []
    window: LogWindow | None = None  # (what was read of the log --error gave)
    if raw_error is not None:
        from .querybuild import error_recall_queries

        if query is not None:
            raise click.UsageError("pass either QUERY or --error, not both")
        _refuse_a_log_name(raw_error, "--error", "kenning recall --error -")
        window = _read_log(raw_error, quiet)
        queries, fallbacks = error_recall_queries(window.text)
    elif query is None:
        raise click.UsageError("missing QUERY (or --error RAW)")
    elif query == "-":  # the query from standard input, as remember takes a note
        queries = [(_read_content(query).strip(), errors)]
    else:
        queries = [(query, errors)]
    from .querybuild import check_query

    for text, _ in queries:
        check_query(text)  # before looking for a store: bad input is an error either way
    with _open(store_path, create=False, missing_ok=True, group_id=group_id) as store:
        # its output goes into prompts (AGENTS.md pastes it): another writer's credential
        # is redacted, as the hooks and MCP redact it
        result = store.recall_many(
            queries, top_k, group_id=group_id, redact_on_read=True, fallbacks=fallbacks
        )
        missing = store.missing_reason
        where = _where(store)
        # a person reading the listing forgets or edits a note by the id it shows
        shown_ids = store.short_ids([h.memory.id for h in result.hits]) if fmt == "text" else {}
        # notes written before `git remote add origin`: said while they are there, not only
        # when nothing was found (the first note under the new id silenced it, qa-s69a F2)
        earlier = (
            store.earlier_project_notes()
            if fmt == "text" and not quiet and group_id is None and missing is None
            else {}
        )
    if fmt == "json":
        # (null: no log, or one read whole; else the parts read, as the notice says them)
        log_read = window.to_dict() if window is not None else None
        _echo_json_text(render_json(result.to_dict() | where | {"log_read": log_read}))
    elif fmt == "xml":
        block = render_recall_result(result, store.group_id)
        if block:
            click.echo(block)
        elif missing is not None and not quiet:
            click.echo(f"nothing to recall: {_plain(missing)}", err=True)
        elif result.other_projects and not quiet:
            # an empty block says nothing of why: the notes are under another id
            asked = store.resolve_group(group_id) or store.group_id
            click.echo(
                _other_projects(asked, result.other_projects, named=group_id is not None), err=True
            )
    else:
        if missing is not None and not quiet:
            click.echo(f"nothing to recall: {_plain(missing)}", err=True)
        elif not result.hits and not quiet:
            click.echo(f"no memory scored at least {result.floor:.2f}", err=True)
            if result.other_projects:
                asked = store.resolve_group(group_id) or store.group_id
                click.echo(
                    _other_projects(asked, result.other_projects, named=group_id is not None),
                    err=True,
                )
        for n, (hit, text) in enumerate(zip(result.hits, result.texts, strict=True), start=1):
            mark = "(stale) " if hit.stale else ""
            if hit.memory.group_id != store.group_id:  # (--project all) whose note it is
                mark = f"(project {_plain(hit.memory.group_id)}) {mark}"
            shown = _plain(shown_ids.get(hit.memory.id, hit.memory.id))
            click.echo(f"{n}. [{hit.score:.2f}] {shown} {mark}{_plain(text)}")
            if hit.stale and hit.freshness is not None:  # as search's listing says it
                click.echo(f"   {stale_line(hit.freshness)} (score -{hit.stale_penalty:.2f})")
        if result.truncated:
            click.echo(f"(truncated to {protocol.RECALL_CHAR_BUDGET} characters)", err=True)
        if earlier and not result.other_projects:  # (that line names them already)
            from .render import earlier_notes_line

            old_id, n = next(iter(earlier.items()))
            line = earlier_notes_line(store.group_id, old_id, n, one_checkout=store.one_checkout)
            click.echo(_plain(f"note: {line}"), err=True)


def _where(store: MemoryStore) -> dict[str, Any]:
    """Which store a reading command's --json answered from, and whether it exists yet (as
    stats and the MCP tools say it): without a store, no results are no news."""
    return {"intel_path": store.location, "store_exists": store.exists}


def _other_projects(project: str, others: Mapping[str, int], *, named: bool) -> str:
    """``named``: the project was given (--project), so no rename moved it: a typo may have."""
    from .render import other_projects_line

    return _plain(other_projects_line(project, others, named=named))


def _say_redacted(redactions: Mapping[str, int]) -> None:
    """Name on stderr the secrets redacted from what was stored (kind → count): the stored
    text is not what was given."""
    from .render import redaction_counts

    click.echo(f"redacted: {redaction_counts(redactions)}", err=True)


def _plain(text: str) -> str:
    """Stored text on a terminal: no control sequences, one line per result (U+2028 and
    U+2029 break a line too, to ``str.splitlines`` and many viewers: qa73 F2)."""
    from .render import sanitise_for_terminal

    return sanitise_for_terminal(text).translate(_LINE_BREAKS)


#: What :func:`_plain` writes as a space: the line breaks a stored text may hold.
_LINE_BREAKS = str.maketrans({"\n": " ", "\u2028": " ", "\u2029": " "})


# -- search --------------------------------------------------------------------------------


@main.command(
    epilog=f"""
\b
A memory whose files changed since it was written is marked stale and its final score
lowered by the stale penalty (default {protocol.STALE_PENALTY}); see `kenning stale`.

\b
Examples:
  kenning search "how do we handle sqlite locking"
  kenning search "what case do we use for function names" --collection conventions
  kenning search "how to fix a locked sqlite database" --type error_fix,refactor --limit 10
  kenning search "why do we store timestamps in UTC" --intent why --json
"""
)
@click.argument("query")
@click.option("--collection", default=None, help=f"One of {', '.join(COLLECTIONS)}.")
@click.option("--type", "memory_type", default=None, help="Type or comma list of types.")
@click.option("--intent", default=None, help="how | what | why (default: detected from the query).")
@click.option(
    "--limit",
    default=protocol.SEARCH_DEFAULT_LIMIT,
    show_default=True,
    type=int,
    help=f"Results to show (1 to {protocol.SEARCH_MAX_LIMIT}).",
)
@click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="Project id (default: detected; 'all' for every project).",
)
@click.option(
    "--threshold",
    default=None,
    type=float,
    help=f"Minimum semantic score (default: the project's configured value, else the one "
    f"measured for the store's embedder: {protocol.SEARCH_DEFAULT_THRESHOLD} for MiniLM).",
)
@click.option("--decay/--no-decay", default=True, show_default=True, help="Rank with time decay.")
@click.option(
    "--cascade/--no-cascade",
    default=True,
    show_default=True,
    help="Expand to other collections when the primary has too few results.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "xml"]), default="text", show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@_store_options
@handle_errors
def search(
    query: str,
    collection: str | None,
    memory_type: str | None,
    intent: str | None,
    limit: int,
    group_id: str | None,
    threshold: float | None,
    decay: bool,
    cascade: bool,
    fmt: str,
    as_json: bool,
    store_path: str | None,
) -> None:
    """Search memories by meaning, with collections, intent routing, cascading and decay."""
    from .render import render_human, render_json, render_search_result
    from .search import check_limit, plan_search

    if as_json and fmt == "xml":
        raise click.UsageError("--json and --format xml ask for two outputs; give one of them")
    if as_json:
        fmt = "json"
    if query == "-":  # the query from standard input
        query = _read_content(query).strip()
    # validate everything before looking for a store: bad input is an error either way
    _refuse_blank_filters(collection, memory_type)
    plan_search(query, collection, memory_type, intent, cascade)
    check_limit(limit)
    with _open(
        store_path, create=False, missing_ok=True, group_id=group_id, threshold=threshold
    ) as store:
        missing = store.missing_reason
        response = store.search(
            query,
            collection=collection,
            memory_type=memory_type,
            use_cascading=cascade,
            intent=intent,
            limit=limit,
            group_id=group_id,
            threshold=threshold,
            decay=decay,
            redact_on_read=True,  # as recall's: an agent runs it too
        )
        where = _where(store)
        # a person reading the listing forgets or edits a note by the id it shows
        shown_ids = (
            store.short_ids([r.memory.id for r in response.results]) if fmt == "text" else {}
        )
    if fmt == "json":
        _echo_json_text(render_json(response.to_dict() | where))
    elif fmt == "xml":
        block = render_search_result(response.results, store.group_id)
        if block:
            click.echo(block)
        elif missing is not None:
            click.echo(f"nothing to search: {_plain(missing)}", err=True)
        elif response.other_projects:
            # an empty block says nothing of why: the notes are under another id
            click.echo(
                _other_projects(
                    response.group_id or store.group_id,
                    response.other_projects,
                    named=group_id is not None,
                ),
                err=True,
            )
    else:
        if missing is not None:
            click.echo(f"nothing to search: {_plain(missing)}", err=True)
            return
        if not response.results:
            hint = ""
            if response.best_semantic is not None:
                hint = (
                    f" (best semantic score {response.best_semantic:.2f}; lower the bar with "
                    "--threshold or KENNING_SIMILARITY_THRESHOLD)"
                )
            click.echo(f"no memory passed the threshold {response.threshold:.2f}{hint}", err=True)
            if response.other_projects:
                asked = response.group_id or store.group_id
                click.echo(
                    _other_projects(asked, response.other_projects, named=group_id is not None),
                    err=True,
                )
            return
        _echo_whole(render_human(response.results, decay, store.group_id, shown_ids))


def _refuse_blank_filters(collection: str | None, memory_type: str | None) -> None:
    """A blank --type or --collection on the command line (``--type "$TYPE"`` with TYPE
    unset) is a mistake to name by its option. The core reads a blank type as no filter,
    as MCP clients that send every optional argument mean it, so here it searched every
    type, exit 0."""
    if collection is not None and not collection.strip():
        raise UserInputError(
            f"--collection is blank; give one of {', '.join(COLLECTIONS)}, or leave "
            "--collection out to search them all"
        )
    if memory_type is not None and not memory_type.replace(",", "").strip():
        raise UserInputError(
            f"--type is blank; give a type or a comma list of types ({valid_types_message()}), "
            "or leave --type out to search every type"
        )


# -- error→fix knowledge ---------------------------------------------------------------


@main.command(
    name="seed-solutions",
    epilog="""
\b
Rules: every <DIR>/*/*.md except paths with /archived/ (other Markdown files under DIR are
named as ignored, a README aside); frontmatter `track: bug` only; the
signature is a literal error from the body (else `problem:`); the fix is the first paragraph
under `## Fix` or `## Solution`, cut to 400 characters. Idempotent: a second run stores
nothing new. Exit 1 when a file failed (malformed YAML, binary, too big, symlink out).

\b
Keeps the entries in step with the documents: an entry whose fix text changed is replaced
(same id, one entry per signature); the entries of a document deleted, moved under
/archived/ or no longer `track: bug` are retired (forgotten); an entry edited since it was
seeded is kept as edited (reported). --changed-only reads only the documents whose git blob
hash changed since the last run (what the session-start hook runs). On a server store a
version another clone seeded that this clone's git does not have is kept (pull first); a run
by hand seeds an edit not committed yet, the session-start hook does not.
--over-other-clones puts this clone's docs over what another clone seeded or deleted that
will never be pulled here (that clone gone, an edit seeded by hand there and dropped).

\b
Examples:
  kenning seed-solutions
  kenning seed-solutions docs/solutions --json
  kenning seed-solutions --changed-only
""",
)
@click.argument("directory", type=click.Path(path_type=Path), required=False, default=None)
@click.option(
    "--source-prefix",
    default=None,
    help="Path written in SOURCE: (default: DIR relative to the project); a folder keeps "
    "the one it was first seeded with (another is refused).",
)
@click.option(
    "--changed-only",
    is_flag=True,
    help="Read only the documents whose blob hash changed since the last run.",
)
@click.option(
    "--over-other-clones",
    is_flag=True,
    help="On a server store, seed this clone's docs over the versions, docs and deletions "
    "another clone of the repository seeded that this clone's git cannot place.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_this_project_option
@_store_options
@handle_errors
def seed_solutions_cmd(
    directory: Path | None,
    source_prefix: str | None,
    changed_only: bool,
    over_other_clones: bool,
    as_json: bool,
    group_id: str | None,
    store_path: str | None,
) -> None:
    """Seed ERROR-FIX memories from solution documents in DIRECTORY (default: the
    checkout's docs/solutions, from any folder of it)."""
    from .project import find_checkout, git_asked_once
    from .seeding import (
        DEFAULT_SOLUTIONS_DIR,
        check_one_project,
        check_source_prefix,
        seed_solutions,
    )

    check_one_project(group_id)
    with git_asked_once():  # the checkout is found for the docs' folder and for the store
        if directory is None:
            checkout = find_checkout(Path.cwd())
            top = checkout.toplevel if checkout is not None else Path.cwd()
            directory = top / DEFAULT_SOLUTIONS_DIR
        # before the store: a mistyped folder creates none (one that is gone since it was
        # seeded, or has a file in its place, its entries to retire, is the core's to tell:
        # the store has its record)
        gone = not os.path.isdir(directory)
        if source_prefix is not None:
            check_source_prefix(source_prefix)  # and a prefix no SOURCE: may start with
        # the entries are written for one project: 'all' is refused, not taken for this one
        opened = _open(
            store_path, create=not gone, missing_ok=gone, group_id=group_id, every_project=False
        )
    with opened as store, _progress("seeding", None, not as_json) as tick:
        # a project with no memories where the store holds others' (its id changed: an
        # origin added or renamed) gets every doc seeded again under its new id: said
        others = store.other_projects(group_id) if store.exists else {}
        report = seed_solutions(
            store,
            directory,
            source_prefix=source_prefix,
            progress=tick,
            changed_only=changed_only,
            over_other_clones=over_other_clones,
        )
        if others and report.seeded:
            click.echo(
                _other_projects(store.group_id, others, named=group_id is not None)
                + " (the docs were seeded under this project's id)",
                err=True,
            )
    from .render import safe_message

    if as_json:
        _echo_json(report.to_dict())
    # a file's name and its front matter (quoted in a reason) are the repository's text
    for f in report.files:
        path, reason = safe_message(f.path), safe_message(f.reason or "")
        if f.status == "failed" or (f.status == "skipped" and not as_json):
            # a failure is said with --json too: it is why the exit is 1; a doc whose entry
            # was kept as edited has entries (the summary counts it so): kept, not skipped
            said = "kept" if f.status == "skipped" and f.entries else f.status
            click.echo(f"{said}: {path}: {reason}", err=True)
        elif f.status in ("seeded", "updated", "retired") and not as_json:
            # each change said, a doc seeded anew too (a renamed doc's entry: where it went)
            click.echo(f"{f.status}: {path}" + (f" ({reason})" if reason else ""))
        elif f.status in ("unchanged", "kept") and reason and not as_json:
            # left as they are for another branch's sake (not on this one, or older here)
            click.echo(f"kept: {path}: {reason}", err=True)
    if report.ignored and not as_json:
        for rel in report.ignored:
            click.echo(f"ignored: {safe_message(rel)}", err=True)
        click.echo(
            "ignored: not read, as solution docs are <category>/<doc>.md one folder below "
            f"{safe_message(str(directory))}; move them there to seed them",
            err=True,
        )
    if not as_json:
        # documents and entries apart: one document gives one entry per error signature
        documents = report.documents()
        click.echo(
            f"scanned {report.scanned} {'document' if report.scanned == 1 else 'documents'}: "
            f"{documents['with_entries']} with entries, "
            f"{documents['skipped']} skipped, {documents['failed']} failed"
            + (f", {documents['unchanged']} unchanged" if changed_only else "")
            + (f", {documents['pending']} pending" if documents["pending"] else "")
            + "; entries: "
            + ", ".join(f"{what} {n}" for what, n in report.entries().items())
        )
        if report.redactions:  # as remember says it: the stored text is not the doc's
            _say_redacted(report.redactions)
    if not report.ok:
        # the exit code's own line, as every command's exit 1 has; the documents are named
        # on the lines above it
        for _category, error in report.unreadable:  # (its entries kept; the others seeded)
            _say_error(error)
        failed = report.failed
        if failed:
            _say_error(
                f"{failed} {'document' if failed == 1 else 'documents'} could not be read (the "
                "'failed:' lines say why); the others were seeded — fix "
                f"{'it' if failed == 1 else 'them'} and run `kenning seed-solutions` again"
            )
        sys.exit(EXIT_USER)


@main.command(
    epilog="""
\b
QUERIES is JSONL: {"query": "...", "gold": ["<memory id>", ...]}; an empty gold list marks a
query that nothing in the store should answer.

\b
--write saves what was measured to .kenning/config.toml (other keys kept, written
atomically), where search and recall then read it: similarity_threshold from every query,
recall_floor from the generic queries, error_recall_floor from the error queries (a floor
with fewer than 5 correct hits and 5 unrelated queries of its kind is left as it was). It
writes nothing, exits 1 and says why when correct hits and unrelated queries overlap or
there are fewer than 5 of either. A flag or KENNING_* variable still overrides the file.

\b
Examples:
  kenning calibrate labelled.jsonl
  kenning calibrate labelled.jsonl --json
  kenning calibrate labelled.jsonl --write
""",
)
@click.argument("queries", type=_InputFile("r", encoding="utf-8"))
@click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="Project (default: this one; 'all' for every project).",
)
@click.option(
    "--write",
    is_flag=True,
    help="Save the measured threshold and floors to .kenning/config.toml (beside the store).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
@_store_options
@handle_errors
def calibrate(
    queries: Any, group_id: str | None, write: bool, as_json: bool, store_path: str | None
) -> None:
    """Measure top-1 accuracy and the score floor that separates hits from noise."""
    from .calibration import calibrate as run_calibration
    from .calibration import read_queries, write_calibration

    parsed = read_queries(_read_file(queries).splitlines())
    written = refusal = None
    # the project given is the one the store is opened for (as stats opens it): outside a
    # checkout, --project and --store are all there is to go by
    with _open(store_path, create=False, group_id=group_id) as store:
        report = run_calibration(store, parsed, group_id)
        floors = (store.settings.recall_floor, store.settings.error_recall_floor)
        if write:
            try:
                written = write_calibration(store, report)
            except UserInputError as exc:  # the report is still shown, then the refusal
                refusal = exc
    if as_json:
        extra = {"written": written.to_dict() if written else None} if write else {}
        _echo_json(report.to_dict() | extra)
    else:
        _print_calibration(report, floors, "before this write" if written else "now")
        if written is not None:
            for key, number in written.values.items():
                click.echo(f"wrote {key} = {number} to {_plain(str(written.path))}")
            for key, reason in written.kept.items():
                click.echo(f"{key}: {reason}")
            for key, reason in written.overridden.items():
                click.echo(f"{key}: {reason}")
    if refusal is not None:
        raise refusal


def _print_calibration(report: Any, floors: tuple[float, float], when: str) -> None:
    s = report.summary()

    def fmt(v: Any) -> str:
        return "n/a" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))

    floor = s["suggested_floor"] if s["separable"] is not False else "none: scores overlap"
    rows = [
        ("labelled queries", s["labelled_queries"]),
        ("unrelated queries", s["unrelated_queries"]),
        ("top-1 accuracy", s["top1_accuracy"]),
        ("correct hits: lowest score", s["correct_score_min"]),
        ("correct hits: highest score", s["correct_score_max"]),
        ("unrelated: highest score", s["highest_unrelated_score"]),
        ("suggested floor (gap midpoint)", floor),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        click.echo(f"{name.ljust(width)}  {fmt(value)}")
    click.echo(
        f"recall floors {when}: {floors[0]} (generic), {floors[1]} (errors); the protocol's: "
        f"{protocol.RECALL_FLOOR}, {protocol.ERROR_RECALL_FLOOR}"
    )


@main.group(
    epilog="""
\b
Examples:
  kenning query pr --title "Retry uploads" --file src/upload.py --file tests/test_upload.py
  kenning recall "$(kenning query plan docs/plans/cache.md)"
  pytest 2>&1 | kenning query error -
"""
)
def query() -> None:
    """Build a recall query from a PR, a plan or an error (the protocol's query rules)."""


@query.command(
    name="pr",
    epilog="""
\b
Examples:
  kenning query pr --title "Retry uploads" --body "Uploads fail on flaky networks; retry them."
  gh pr view 42 --json body -q .body | kenning query pr --title "Retry uploads" --body-file -
  kenning query pr --title "Retry uploads" --file src/upload.py --file tests/test_upload.py
""",
)
@click.option("--title", default="", help="PR title.")
@click.option("--body", default=None, help="PR body text (or --body-file).")
@click.option(
    "--body-file",
    type=_InputFile("r", encoding="utf-8", errors="replace"),  # as _read_output reads
    default=None,
    help="File with the PR body, - for stdin.",
)
@click.option("--file", "files", multiple=True, help="A changed file path (repeatable).")
@handle_errors
def query_pr(title: str, body: str | None, body_file: Any, files: tuple[str, ...]) -> None:
    """First 300 chars of the body; else title + file categories + top 3 basenames."""
    from .querybuild import query_from_pr

    text = body if body is not None else (_read_file(body_file) if body_file else "")
    click.echo(query_from_pr(title, text, files))


@query.command(
    name="plan",
    epilog="""
\b
Examples:
  kenning query plan docs/plans/cache.md
  kenning recall "$(kenning query plan docs/plans/cache.md)"
""",
)
@click.argument("plan", type=_InputFile("r", encoding="utf-8", errors="replace"), default="-")
@handle_errors
def query_plan(plan: Any) -> None:
    """The text under `## Overview`; else the first 500 chars (PLAN file or stdin)."""
    from .querybuild import query_from_plan

    click.echo(query_from_plan(_read_file(plan)))


@query.command(
    name="error",
    epilog="""
\b
Examples:
  kenning query error "sqlite3.OperationalError: database is locked"
  pytest 2>&1 | kenning query error -
  kenning recall --errors -- "$(go test ./... 2>&1 | kenning query error -)"
""",
)
@click.argument("raw", default="-")
@handle_errors
def query_error(raw: str) -> None:
    """The parsed error signature (≤ 300 chars) from RAW text or - for stdin.

    Each error `recall --error` asks of it is a line: the signature, then the other failed
    tests of a test run that printed several and the errors its lines tell in a sentence.
    A log's bytes that are not UTF-8 are read as U+FFFD (a tool's output is taken as it
    comes), where the commands that store or search text refuse them.
    """
    from .querybuild import queries_from_error

    _refuse_a_log_name(raw, "RAW", "kenning query error -")
    for error in queries_from_error(_read_log(raw, command="kenning query error -").text):
        click.echo(error)


def _refuse_a_log_name(raw: str, what: str, reads_stdin: str) -> None:
    """A log's name where its text goes (as `query plan FILE` takes one) is refused with
    the command that reads the file: the name came back as the "signature", and recall
    searched for it ("no memory scored at least 0.40")."""
    # (a name with spaces too, "ci build.log": qa-s68c E1; not an error's text of lines)
    if raw != "-" and "\n" not in raw and len(raw) <= 4096 and os.path.isfile(raw):
        raise UserInputError(
            f"{raw!r} is a file, and {what} is the error's text: `{reads_stdin} < "
            f"{shlex.quote(raw)}` reads the file"
        )


# -- source documents ------------------------------------------------------------------

_MEMORY_ID = lazy(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
#: The start of one written with its dashes: a UUID's first group and more, cut short (too
#: short to be taken, ``01a24a1c-ff``, it is still an id asked for, not a file's name).
_ID_START = lazy(r"^[0-9a-f]{8}-[0-9a-f-]{1,27}$", re.I)


def _names_an_id(text: str) -> bool:
    """Whether ``text`` is written as a memory's id or its start is: dashed
    (:data:`_ID_START`), or as every command takes one, dashes optional, in either case
    (:func:`kenning.model.id_prefix`: ``01a24a1cffff`` names an id, not a file, qa-s70a F2)."""
    from .model import id_prefix

    return bool(_ID_START.match(text)) or id_prefix(text) is not None


@main.command(
    name="source",
    epilog="""
\b
A memory's document (its source, or the SOURCE: part of an ERROR-FIX entry) is stored
data, not a trusted path: check it before a tool reads it. Rejected: empty, absolute or ~
paths, any '..', control characters, URLs, symlinks that leave the project; and a missing
file, a folder or a named pipe, and a file this user cannot read (no read rights, a symlink
loop: said with what lets it be read). On success the resolved path is printed (read that
one); a refusal exits 1 with the reason.

\b
Examples:
  kenning source 0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a7b      # the document memory ID names
  cat "$(kenning source 0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a7b)"
  kenning source docs/solutions/db-locked.md               # a SOURCE: path read in a memory
  kenning source --json --path "../../etc/passwd"          # exit 1, {"ok": false, "reason": ...}
""",
)
@click.argument("target", required=False)
@click.option("--path", "raw_path", default=None, help="Check this path instead of a memory's.")
@click.option(
    "--project-dir",
    type=_ExistingFolder(),
    default=None,
    help="The project (default: the current folder's git checkout).",
)
@click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="The memory's project id (default: this one; 'all' for any project).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@_store_options
@handle_errors
def source_cmd(
    target: str | None,
    raw_path: str | None,
    project_dir: Path | None,
    group_id: str | None,
    as_json: bool,
    store_path: str | None,
) -> None:
    """Check the document memory ID names (or a PATH) before reading it; print where it is.

    TARGET is a memory id (looked up first) or a path as a memory gives it.
    """
    from .model import SourceCheck
    from .safety import UnsafePathError, quoted_path

    if (target is None) == (raw_path is None):
        raise click.UsageError("pass a memory ID, or a path (as TARGET or --path)")
    memory_id: str | None = None
    in_text = True  # the memory names its document in its SOURCE: part, which edit changes
    seeded = False  # the memory is an entry kenning seed-solutions wrote (and updates)
    check: SourceCheck | None = None
    holder: str | None = None  # the project another id of the store is under
    if target is not None:
        from .store import open_store

        cwd = project_dir or Path.cwd()
        try:
            try:
                store = open_store(store_path, cwd=cwd, create=False, missing_ok=True)
            except UserInputError:
                if _MEMORY_ID.match(target.strip()):
                    raise
                store = None  # no project to look ids up in: TARGET can only be a path
            if store is not None:
                with store:
                    memory = (
                        store.get(store.resolve_id(target, group_id=group_id), group_id=group_id)
                        if store.exists
                        else None
                    )
                    if memory is not None:
                        memory_id = memory.id
                        in_text = not (memory.source and memory.source.strip())
                        seeded = SEEDED_FROM in memory.metadata
                        check = store.source(memory.id, group_id="all")
                    elif _MEMORY_ID.match(target.strip()) or id_prefix(target):
                        holder = _holder(store, target, group_id)
            if memory_id is None and (_MEMORY_ID.match(target.strip()) or holder is not None):
                raise UserInputError(_no_memory_with_id(target.strip(), group_id, holder))
        except KenningError as exc:
            if not as_json:
                raise
            # no document to check (no such memory, no project, a store that cannot be read):
            # a script reading --json still gets an answer, with the error's own exit code
            _echo_json(
                {"id": memory_id or _asked_id(target), "path": None, "ok": False}
                | {"reason": _shown_error(_as_the_command_says(exc))}
            )
            _say_error(_as_the_command_says(exc))  # as without --json
            sys.exit(exc.exit_code)
    root: Path | None = None  # the checkout a path is read in (a path given, not an id)
    if check is None:
        from .project import find_checkout, repository_refused
        from .sources import check_source

        path = raw_path if raw_path is not None else target
        assert path is not None
        checkout = find_checkout(project_dir or Path.cwd())
        root = project_dir or (checkout.toplevel if checkout is not None else None)
        if root is None:
            refused = repository_refused(Path.cwd())
            if refused is not None:
                raise refused
            raise UserInputError(
                f"{Path.cwd()} is not inside a git repository; pass --project-dir to say which "
                "project the path belongs to"
            )
        check = check_source(path, root)
    from .sources import check_document

    check = check_document(check)  # the path printed is one a tool can read
    if as_json:
        data: dict[str, Any] = {"id": memory_id} if memory_id is not None else {}
        # a refused path may be a huge input (a log where the id goes): shown as errors are
        shown_path = check.path if check.ok else _shown_error(check.path)
        data |= {"path": shown_path, "ok": check.ok}
        data |= {"resolved": check.resolved} if check.ok else {"reason": check.reason}
        _echo_json(data)
    if check.missing or check.not_a_document:  # --json too
        from .sources import MissingSourceError, NotADocumentError

        if memory_id is None:
            # a path: which memory names it, and how, is not known here (qa79 F6)
            fix = (
                "the memory that names it: its SOURCE: part with `kenning edit ID --content "
                "…`, or, when its source field names it, `kenning forget ID` and remember it "
                "again with the right --source (`kenning source ID` says which)"
            )
        elif in_text:
            fix = f"memory {memory_id}'s SOURCE: part with `kenning edit {memory_id} --content …`"
        else:
            # no command changes a memory's source field (edit takes its text and type)
            fix = (
                f"memory {memory_id}, whose source field names it: `kenning forget "
                f"{memory_id}`, then remember the note again with the right --source"
            )
        if check.missing and _on_another_branch(check.path, root, project_dir):
            # a branch switch or another work tree: the memory is right there, and "forget
            # it" would take it from every branch
            raise UserInputError(
                f"{MissingSourceError.of(check)} in this work tree, but git has it on "
                f"another branch (`git log --all -- {shlex.quote(check.path)}` shows which): "
                "the memory is about that branch's file; keep it, and read the file there"
            )
        if check.missing and seeded:
            # not "forget it and remember it again" (the next seed-solutions wrote the entry
            # again beside it, qa-s64a S2), nor "seed again under another --source-prefix" (a
            # second entry beside it) or "seeding retires it" (not an edited one): qa-s64c U1, U2
            raise UserInputError(
                f"{MissingSourceError.of(check)}; memory {memory_id} was written by `kenning "
                "seed-solutions` from it. If its solutions folder is outside the project, its "
                "documents are named under the folder's own name, and `kenning source` reads "
                "only the project's files: read the document in that folder (forgetting the "
                "memory would not keep the next seeding from writing it again). If the "
                f"document was removed: `kenning forget {memory_id}`"
            )
        if check.missing:
            hint = ""
            if memory_id is None and _names_an_id(check.path):
                from .project import where_searched

                # a memory's id cut short (forget and edit say "no memory with id …")
                hint = (
                    f"; nor does a memory's id in {where_searched(group_id)} start with "
                    f"{_asked_id(check.path)}{_short_prefix(check.path)} (`kenning search` "
                    "shows ids)"
                )
            elif (
                root is not None
                and memory_id is None
                and not Path(check.path).is_absolute()
                and Path.cwd().resolve() != root.resolve()
            ):
                hint = f"; a path is from the top of the checkout, {root}"
            # (a broken symlink's own fix is said: its target, or the link, qa77 F6)
            create = "," if check.broken_link else "; create it,"
            raise UserInputError(f"{MissingSourceError.of(check)}{create} or correct {fix}{hint}")
        # a folder, a pipe, a binary file: safe, and nothing a tool reading it could use
        raise UserInputError(f"{NotADocumentError(check.path, check.reason or '')}; correct {fix}")
    if check.no_checkout:  # --json too
        raise UserInputError(f"cannot read {quoted_path(check.path)}: {check.reason}")
    if check.unreadable:  # --json too; nothing unsafe: the file system would not give it
        from .sources import UnreadableSourceError

        raise UnreadableSourceError(check.path, check.reason or "cannot be read")
    if not check.ok:
        raise UnsafePathError(check.path, f"{check.reason}; do not read it")  # --json too
    if not as_json:
        click.echo(check.resolved)


@main.command(
    epilog="""
\b
Examples:
  kenning migrate --to postgresql://kenning@db.internal/memory
  kenning migrate --to postgresql://… --group-id all --json
""",
)
@click.option(
    "--to",
    "target",
    required=True,
    help="Target store: a path, postgresql://…, http(s)://… or qdrant-local:<folder>.",
)
@click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="Project to copy (default: this one; 'all' for every project).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@_store_options
@handle_errors
def migrate(target: str, group_id: str | None, as_json: bool, store_path: str | None) -> None:
    """Copy memories (ids, timestamps, vectors) to another store; resumable, verified."""
    from .config import is_store_url
    from .migrate import migrate_store

    with _open(store_path, create=False, group_id=group_id) as store, _vector_skips_held() as held:
        total = store.count(group_id=group_id, readable=True)  # damaged rows are not copied
        with _progress("migrating", total, not as_json) as tick:
            report = migrate_store(store, target, group_id=group_id, progress=tick)
        # a vector with none, whose text was embedded again, was copied too (and one an
        # earlier run copied is there: not skipped)
        held.copied_as_directions = {
            **report.directions,
            **dict.fromkeys(report.zero_vectors, ""),
            **report.damaged_vectors,
            **dict.fromkeys(report.vectors_present, ""),
        }
    if as_json:
        _echo_json(report.to_dict())
    else:
        click.echo(
            f"copied {report.copied}, already present {report.already_present}"
            + (
                f", {report.duplicates} already there under another id (kept)"
                if report.duplicates
                else ""
            )
            + "; "
            f"source {report.source_count}, target {report.target_count}, "
            f"{'verified' if report.verified else 'NOT verified'} (sha256 {report.checksum[:12]})"
        )
    _say_directions(
        report.directions,
        report.zero_vectors,
        "copied",
        server=report.source_reads_directions,
        damaged=report.damaged_vectors,
    )
    if report.redacted:
        one = report.redacted == 1
        click.echo(
            f"{report.redacted} {'memory' if one else 'memories'} held a credential another "
            f"writer left in {'it' if one else 'them'} (an older kenning, another tool): "
            "copied redacted, as an import writes it (a redacted text embedded again); the "
            "source keeps its own",
            err=True,
        )
    if report.id_taken:
        one = len(report.id_taken) == 1
        _say_error(
            f"{len(report.id_taken)} {'memory was' if one else 'memories were'} not copied: "
            f"the target holds another memory under {'its id' if one else 'their ids'} — "
            f"{_listing({json.dumps(k): v for k, v in report.id_taken.items()})}; in an "
            "export of the source (`kenning export`) give "
            f"{'its line an id' if one else 'their lines ids'} no memory has, then import the "
            "export into the target"
        )
    if report.changed:
        one = len(report.changed) == 1
        # a server URL may carry a password: not printed (the user has it in --to)
        where = shlex.quote(target) if not is_store_url(target) else "<the --to URL>"
        # the forget runs where this command ran: a project other than the one detected
        # there is named (also one --project gave, which the store was opened for)
        projects = set(report.changed.values())
        project = ""
        if len(projects) > 1:
            project = " --project <its project>"
        elif group_id is not None or projects != {store.group_id}:
            project = f" --project {shlex.quote(next(iter(projects)))}"
        _say_error(
            f"{len(report.changed)} {'memory was' if one else 'memories were'} not copied: "
            f"the target holds {'it' if one else 'each'} under {'its' if one else 'their'} id "
            "with another text or type (edited in one of the stores since it was copied), and "
            f"kept it — {_listing({k: f'project {v}' for k, v in report.changed.items()})}; "
            "to copy this store's instead, run `kenning forget ID"
            f"{project} --store {where}` for {'it' if one else 'each'}, then migrate again"
        )
    # on a source this kenning may read but not write (a newer schema), the fix on it is
    # run with the newer kenning (qa74 F6): this one's edit or reembed would be refused
    first = (
        f"upgrade kenning first (`pip install -U kenning`, or your team's way): "
        f"{report.source_writes_refused}, so this kenning's writes to it are refused; then, "
        "with the newer kenning, "
        if report.source_writes_refused
        else ""
    )
    if report.damaged:
        _say_error(
            f"{_damaged(len(report.damaged))} could not be read and "
            f"{'was' if len(report.damaged) == 1 else 'were'} not copied: "
            f"{_listing(report.damaged)}; {first}"
            f"{report.damaged_fix or 'run `kenning doctor` for the fix'}, then migrate again"
        )
    if report.unknown_kind:
        one = len(report.unknown_kind) == 1
        _say_error(
            f"{len(report.unknown_kind)} {'memory was' if one else 'memories were'} not "
            f"copied: another writer gave {'it' if one else 'them'} a type and collection "
            "kenning does not write (recall and search do not return such a note) — "
            f"{_listing(report.unknown_kind)}; {first}run `kenning edit ID --type TYPE` on "
            "this store "
            f"for {'it' if one else 'each'} (TYPE one of {', '.join(TYPE_TO_COLLECTION)}), "
            "or `kenning forget ID --group-id all`, then migrate again"
        )
    if not (report.verified or report.id_taken or report.changed or report.damaged):
        # nothing above says why: memories the source gained (or the target lost) while it
        # ran, which the walk had passed
        _say_error(
            "the target does not hold every memory of the source: memories were written to "
            "the source (or removed from the target) while it ran; run the same `kenning "
            "migrate` again — it copies what is missing and skips what is there"
        )
    if not report.verified or report.damaged or report.unknown_kind:
        sys.exit(EXIT_USER)


# -- freshness -----------------------------------------------------------------------------


@main.command(
    name="stale",
    epilog="""
\b
A memory that names a file of the project (its --source, the SOURCE: of an ERROR-FIX
entry, or a path in its text that existed) records the file's git blob hash when it is
written. It is stale when that file has changed, was deleted or moved, or no longer
passes the source-path checks. Recall, search, the hooks, MCP and the web page mark such
memories (stale="true" in XML, "stale" in JSON) and rank them a little lower.

\b
For each stale memory this lists the changed files and, from git, the commits that touched
them since the memory was stored (at most --commits per file), uncommitted changes, and
where a moved file went. `kenning edit`, or "Mark reviewed" on `kenning ui`, records the
files again; `kenning forget ID` drops the memory.

\b
Examples:
  kenning stale
  kenning stale --limit 0 --json --commits 10     # every stale memory

A file the memories recorded that cannot be read now (no read rights, a symlink loop, an
I/O error) is not compared: nothing says it changed, so its memories are not marked stale.
It is listed ("could not check", `unchecked` in --json) with what lets it be read, and
the exit is 1.

Exit codes: 0 (stale memories or not, every file checked), 1 user error or a file that
could not be checked, 3 knowledge base NOT consulted.
""",
)
@click.option(
    "--commits",
    default=5,
    show_default=True,
    type=int,
    help="Commits shown per changed file (0 to 100).",
)
@click.option(
    "--limit",
    default=STALE_LISTED,
    show_default=True,
    type=int,
    help="Stale memories listed, the newest first (0 lists every one); the count is of all.",
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_this_project_option
@_store_options
@handle_errors
def stale_cmd(
    commits: int, limit: int, as_json: bool, group_id: str | None, store_path: str | None
) -> None:
    """List the memories whose files changed since they were written, and what changed."""
    from .freshness import check_commits, check_stale_limit
    from .render import render_json, render_stale

    # before looking for a store: bad input (exit 1), as search's --limit
    check_commits(commits)
    check_stale_limit(limit)
    with _stale_store(store_path, group_id) as store:
        # the project given: 'all' is refused (other projects' files are not here), not
        # taken for this checkout's
        report = store.stale(group_id=group_id, commits=commits, limit=limit)
        missing = store.missing_reason
        where = _where(store)
        # "all unchanged" over no memory at all: the notes may be under the id the project
        # had before its remote was renamed, as recall and search say
        others = store.other_projects(group_id) if not report.checked and store.exists else {}
    if as_json:
        _echo_json_text(render_json(report.to_dict() | where))
    elif missing is not None:
        click.echo(f"nothing to check: {_plain(missing)}", err=True)
    else:
        _echo_whole(render_stale(report))
        if others:
            asked = report.group_id
            click.echo(_other_projects(asked, others, named=group_id is not None), err=True)
    if report.unchecked:
        # the report is not whole: a file not compared makes no memory stale (nothing says
        # it changed), and a script must not take "0 stale" for "all unchanged" (as
        # seed-solutions exits 1 for a doc it could not read)
        n = len(report.unchecked)
        said = "its `unchecked` entry says" if as_json else "the 'could not check' line says"
        if n > 1:
            said = "their `unchecked` entries say" if as_json else "the 'could not check' lines say"
        _fail(
            f"{n} {'file' if n == 1 else 'files'} could not be checked ({said} why); the "
            f"memories naming {'it' if n == 1 else 'them'} are not marked stale — fix "
            f"{'it' if n == 1 else 'them'} and run `kenning stale` again"
        )


def _stale_store(store_path: str | None, group_id: str | None) -> MemoryStore:
    """The store `kenning stale` reads. Outside a checkout, the project resolution's fix
    (set KENNING_PROJECT, give --project, or a store) led to a second refusal: stale compares
    the checkout's files, so only running it in the checkout works (qa77 F7, qa79 F5)."""
    from .project import NoProjectHere

    try:
        return _open(store_path, create=False, missing_ok=True, group_id=group_id)
    except NoProjectHere:
        raise UserInputError(
            "kenning stale checks memories against the files of their project's checkout, "
            f"and {_plain(str(Path.cwd()))} is not inside one (KENNING_PROJECT and --project "
            "do not stand in for it); run kenning stale in the project's checkout"
        ) from None


# -- stats / forget ------------------------------------------------------------------------


@main.command(
    epilog="""
\b
Examples:
  kenning stats
  kenning stats --json       # intel_path, memories, by_collection, provenance, protocol
  kenning stats --project all        # counted over every project in the store
"""
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="The project (default: from KENNING_PROJECT, else the git remote or folder; "
    "'all' for every project).",
)
@_store_options
@handle_errors
def stats(as_json: bool, group_id: str | None, store_path: str | None) -> None:
    """Counts, the resolved store path (intel_path) and the embedder provenance."""
    from .project import means_every_project

    every = means_every_project(group_id)
    with (
        _index_warning_held(),  # said below, with the fix
        _setting_warnings_held(),  # said below, each as a warning
        _open(store_path, create=False, missing_ok=True, group_id=group_id) as store,
    ):
        data = store.stats("all" if every else None)
        missing = store.missing_reason
    for warning in data["settings"]["warnings"]:
        _say_warning(warning)
    if as_json:
        _echo_json(data)
        return
    if missing is not None:
        click.echo(_plain(missing))  # it names the store, in a folder named by anyone
        return
    # a folder's name is nobody's checked text: shown without what could drive a terminal
    click.echo(f"store:      {_plain(str(data['intel_path']))}")
    root = data["project_root"]
    where = _plain(str(root)) if root is not None else "no project root: run outside a checkout"
    click.echo(f"project:    {_plain(str(data['group_id']))} ({where})")
    click.echo(
        f"memories:   {data['memories']} in every project of the store"
        if every
        else f"memories:   {data['memories']} in this project, "
        f"{data['memories_all_projects']} in the store"
    )
    for name, n in data["by_collection"].items():
        click.echo(f"  {_plain(str(name))}: {n}")  # a row's collection, as the store file says
    if data["other_projects"]:
        note = _other_projects(data["group_id"], data["other_projects"], named=group_id is not None)
        click.echo(f"note:       {note}")
    if data["alike_projects"]:
        from .render import alike_projects_line

        line = alike_projects_line(
            data["group_id"], data["alike_projects"], one_checkout=store.one_checkout
        )
        click.echo(f"note:       {_plain(line)}")
    if data["damaged_unreadable"] is not None:  # names the file and the recovery
        click.echo(f"damaged:    not counted: {_plain(str(data['damaged_unreadable']))}")
    elif data["damaged_all_projects"]:
        where = (
            "in every project of the store"
            if every
            else f"in this project, {data['damaged_all_projects']} in the store"
        )
        click.echo(
            f"damaged:    {data['damaged']} {where}, not counted above: search skips them; "
            "`kenning doctor` names them and the fix"
        )
    if unknown := data["unknown_kind"]:  # another writer's type and collection, as stored
        n = sum(unknown.values())
        kinds = ", ".join(f"{_plain(k)}: {v}" for k, v in unknown.items())
        click.echo(
            f"unknown:    {n} of a kind kenning does not know ({kinds}), not counted above: "
            "recall and search do not return them; `kenning doctor` names them and the fix"
        )
    if data["index_missing"] is not None:  # names the store and the fix
        click.echo(f"index:      missing: {_plain(str(data['index_missing']))}")
    prov = data["provenance"]
    click.echo(  # the stamp is the store file's text, written by whoever wrote the file
        f"embedder:   {_plain(str(prov['embedder']))}:{_plain(str(prov['model_id']))} "
        f"({prov['dimension']}-d)"
        if prov
        else "embedder:   (not stamped yet)"
    )


def _on_another_branch(path: str, root: Path | None, project_dir: Path | None) -> bool:
    """Whether ``path``, missing from this work tree, is a file this branch never had and
    another ref has (:mod:`kenning.freshness`): one deleted on this branch is gone."""
    from .freshness import paths_other_refs_have_had, paths_the_branch_has_had
    from .project import find_checkout

    if root is None:
        checkout = find_checkout(project_dir or Path.cwd())
        root = project_dir or (checkout.toplevel if checkout is not None else None)
    if root is None or Path(path).is_absolute():
        return False
    had = paths_the_branch_has_had(root, [path])
    return (
        had is not None
        and path not in had
        and path in (paths_other_refs_have_had(root, [path]) or set())
    )


def _no_memory_with_id(
    memory_id: str,
    group_id: str | None,
    holder: str | None = None,
    shown_as: Sequence[str] = (),
    command: str = "forget",
) -> str:
    """What `forget`, `edit` and `source` say of an id they did not find: where they looked,
    and how to find ids or name another project; ``holder``: the project the store holds
    it under (:func:`_holder`), named with the option that reaches it; ``shown_as``: the
    stored ids a listing shows as ``memory_id`` (:func:`_ids_shown_as`), named with the
    ``command`` that takes them as stored."""
    from .model import ID_PREFIX_MIN_HEX, too_short_for_prefix
    from .project import means_every_project, where_searched
    from .safety import shell_word, shown_name

    if shown_as:
        # another writer's id holding ESC or an invisible character: a listing shows it
        # without them, and that shown id names nothing (qa77 F8)
        project = f" --project {shlex.quote(group_id)}" if group_id is not None else ""
        named = " and ".join(shown_name(i) for i in shown_as[:3])
        first = shell_word(shown_as[0])
        # (edit refuses such an id as it is given: no usable memory id; forget takes it)
        edit = "`kenning edit` cannot take such an id: " if command == "edit" else ""
        return (
            f"no memory with id {memory_id} in {where_searched(group_id)}, but its id is "
            f"stored as {named}, with control or invisible characters that listings leave out "
            "(another writer made it: kenning's ids hold none; `kenning doctor` names such "
            f"rows); {edit}`kenning forget {first}{project}` (bash, zsh) removes it, and its "
            "text remembered again gets a kenning id"
        )

    if holder is not None:
        # "it may have been forgotten" said of a memory the store holds under the id the
        # project had before its remote was renamed (or a teammate's project)
        return (
            f"memory {memory_id} is project {_plain(holder)}'s, not {where_searched(group_id)}'s "
            "(a renamed repository or a changed origin remote gives a project a new id); pass "
            f"--project {shlex.quote(holder)}"
        )
    if too_short_for_prefix(memory_id):
        # git's habit of 7 digits: "no memory … it may have been forgotten" said of a start
        # several memories may share (qa76 F5)
        return (
            f"{memory_id} is too short to name a memory: an id is taken by its start from "
            f"{ID_PREFIX_MIN_HEX} hex digits on, as `kenning search` and `kenning recall` show "
            "it; copy the id they show, or the whole one"
        )
    # every project was looked in already: naming another one is no way forward
    other = "" if means_every_project(group_id) else ", and --project names another project's"
    return (
        f"no memory with id {memory_id} in {where_searched(group_id)} "
        "(it may have been forgotten already; `kenning search` and `kenning recall` show ids, "
        f"`kenning export` lists them all{other})"
    )


def _short_prefix(text: str) -> str:
    """What to say of an id given too short to be taken as a prefix (git's habit of typing
    7 digits): how many it takes."""
    from .model import ID_PREFIX_MIN_HEX, too_short_for_prefix

    if too_short_for_prefix(text):
        return (
            f" (an id is taken by its start from {ID_PREFIX_MIN_HEX} hex digits on, as "
            "`kenning search` shows it)"
        )
    return ""


def _ids_shown_as(store: MemoryStore, memory_id: str, group_id: str | None) -> list[str]:
    """The stored ids a listing shows as ``memory_id`` (:meth:`MemoryStore.ids_shown_as`),
    for the "no memory" error; none when the store cannot say."""
    try:
        return store.ids_shown_as(memory_id, group_id=group_id)
    except KenningError:
        return []


def _holder(store: MemoryStore, memory_id: str, group_id: str | None) -> str | None:
    """The project the store holds ``memory_id`` under, when not the one looked in."""
    from .project import means_every_project

    if (group_id is not None and means_every_project(group_id)) or not store.exists:
        return None
    try:
        held = store.get(store.resolve_id(memory_id, group_id="all"), group_id="all")
    except KenningError:
        return None
    return held.group_id if held is not None else None


@main.command(
    epilog="""
\b
Examples:
  kenning forget 0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a7b
  kenning forget 0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a7b --project acme/other --json
"""
)
@click.argument("memory_id")
@_memory_project_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_store_options
@handle_errors
def forget(memory_id: str, group_id: str | None, as_json: bool, store_path: str | None) -> None:
    """Delete the memory with id MEMORY_ID (of this project, unless --group-id says)."""
    refusal: str | None = None
    code = EXIT_USER
    try:
        with _open(store_path, create=False, group_id=group_id) as store:
            memory_id = store.resolve_id(memory_id, group_id=group_id)  # a prefix: its id
            found = store.forget(memory_id, group_id=group_id)
            holder = None if found else _holder(store, memory_id, group_id)
            shown_as = [] if found or holder else _ids_shown_as(store, memory_id, group_id)
    except KenningError as exc:
        if not as_json:
            raise
        # a script reading --json gets its answer: no store, a project or store refused, a
        # store read-only or locked by another writer, a server down (its own exit code)
        found, holder, shown_as = False, None, []
        refusal, code = _as_the_command_says(exc), exc.exit_code
    if not found and refusal is None:
        refusal = _no_memory_with_id(memory_id, group_id, holder, shown_as)
    if as_json:
        # a refusal's reason in the answer, as remember, edit and source give theirs: a
        # script told "no such id" from "server down" by the exit code alone (qa76 F7)
        why = {} if found else {"reason": _shown_error(refusal or "")}
        _echo_json({"id": _asked_id(memory_id), "deleted": found} | why)
    elif found:
        # (the whole id the store holds: another writer's may hold ESC, OSC 52; inj7 F1)
        click.echo(f"forgot {_plain(memory_id)}")
    if not found:
        # said with --json too: exit 1 alone tells a script's user nothing of why
        _say_error(refusal or "")
        sys.exit(code)


@main.command(
    name="move",
    epilog="""
\b
A project's id is worked out on every run: a remote added after the first notes (git init,
notes, then `git remote add origin …`) or a renamed repository gives the checkout a new id,
and the earlier notes stay under the old one, which recall no longer reads. `kenning
stats` and `kenning doctor` name such ids. This moves them: every memory keeps its id,
text, dates and vector; one whose text the project already holds, or that `remember`
would merge into one of its notes as a near-duplicate, is dropped (the project's note is
counted as seen again). All or nothing (SQLite, PostgreSQL; on Qdrant,
which has no transactions, the moved notes are one request and the dropped duplicates a
second: run the same move again if it stops between them).

\b
Examples:
  kenning move --from-project r-remote --dry-run     # what would move, nothing written
  kenning move --from-project r-remote               # into this checkout's project
  kenning move --from-project old/name --project acme/webapp --json
""",
)
@click.option(
    "--from-project",
    "--from-group-id",
    "from_group",
    required=True,
    help="The project id that holds the notes (as `kenning stats` names it).",
)
@_this_project_option
@click.option("--dry-run", is_flag=True, help="Say what would move; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@_store_options
@handle_errors
def move_cmd(
    from_group: str, group_id: str | None, dry_run: bool, as_json: bool, store_path: str | None
) -> None:
    """Move every memory of project FROM into this project (or --project's)."""
    with _open(store_path, create=False, missing_ok=True, group_id=group_id) as store:
        report = store.move_project(from_group, to_group=group_id, dry_run=dry_run)
        missing = store.missing_reason
    if missing is not None:
        raise UserInputError(f"nothing to move: {missing}")
    if not report.moved and not report.duplicates and not report.merged:  # (an error, no report)
        _fail(
            f"project {_plain(report.from_group)} has no memories in this store; nothing moved "
            "(`kenning stats` names the ids that hold notes; ids are case-sensitive)"
        )
    if as_json:
        _echo_json(report.to_dict())
        return
    n = len(report.moved)
    said = (
        f"{'would move' if dry_run else 'moved'} {n} {'memory' if n == 1 else 'memories'} "
        f"from {_plain(report.from_group)} into {_plain(report.to_group)}"
    )
    if report.duplicates:
        d = len(report.duplicates)
        listed = _listing({old: f"same text as {kept}" for old, kept in report.duplicates.items()})
        said += (
            f"; {d} already there {'would be' if dry_run else 'were' if d > 1 else 'was'} "
            f"dropped from {_plain(report.from_group)} (the project's copy kept): {listed}"
        )
    if report.merged:
        m = len(report.merged)
        listed = _listing(
            {old: f"into {kept}, score {score:.2f}" for old, (kept, score) in report.merged.items()}
        )
        said += (
            f"; {m} {'near-duplicate' if m == 1 else 'near-duplicates'} of the project's notes "
            f"{'would be' if dry_run else 'were' if m > 1 else 'was'} merged as remember "
            f"merges them (dropped from {_plain(report.from_group)}, the project's note "
            f"counted as seen again): {listed}"
        )
    click.echo(said)


# -- export / import / reembed -------------------------------------------------------------


@main.command(
    epilog="""
\b
Examples:
  kenning export -o backup.jsonl
  kenning export --project all --no-vectors | gzip > all-projects.jsonl.gz
  kenning export | head -1          # the header line: format and provenance
"""
)
@click.option(
    "--output",
    "-o",
    type=_OutputFile(),
    default=None,
    help="File to write (default, or -: stdout).",
)
@click.option(
    "--group-id",
    "--project",
    "group_id",
    default=None,
    help="Project to export (default: this one; 'all' for every project).",
)
@click.option("--no-vectors", is_flag=True, help="Leave vectors out (import re-embeds).")
@_store_options
@handle_errors
def export(
    output: Path | None, group_id: str | None, no_vectors: bool, store_path: str | None
) -> None:
    """Write memories as JSONL (every field, ids kept, vectors included).

    A memory whose row is damaged is left out and named (exit 1); one whose vector is
    damaged is written without it (`kenning import` re-embeds it). On a server store a
    vector another writer left at another length than 1 is written as its direction, of
    length 1 (the server searches by it), and a zero vector is left out; each is named.
    A memory `kenning import` refuses (a type another writer set that kenning does not know,
    a time more than a day ahead) is written as stored and named with its fix (exit 1)."""
    from .project import store_named_by
    from .transfer import export_memories

    with _open(store_path, create=False, missing_ok=True, group_id=group_id) as store:
        named_by = None if store.exists else store_named_by(store_path, store.project)
        if named_by is not None:
            # a store the user names (--store, KENNING_STORE) is one they expect to hold
            # notes: a typo in it exported nothing and exited 0, and a backup script went on
            # without a backup
            leave = "--store" if named_by == "--store" else "KENNING_STORE"
            if "://" in (store.project.store_url or ""):
                # a server's reason (a schema its search_path names that does not exist,
                # pgvector not enabled) says more than "moved aside", and there is no path
                _fail(
                    f"{_plain(store.missing_reason or '')}; an export names a store that "
                    f"holds notes: check the URL given with {_plain(named_by)} (a typo in "
                    f"its database or schema, another server), or leave {leave} out to "
                    "export this project's store"
                )
            _fail(
                f"no kenning store at {_plain(store.location)}: the store named with "
                f"{_plain(named_by)} does not exist; check the path given with "
                f"{_plain(named_by)} (a typo, a store moved aside), or leave {leave} out to "
                "export this project's store"
            )
        if not store.exists:  # nothing to export: exit 0, as every read of no store
            click.echo(f"nothing to export: {_plain(store.missing_reason or '')}", err=True)
            return
        if output is None or str(output) == "-":
            reconfigure = getattr(sys.stdout, "reconfigure", None)
            if reconfigure is not None and not _stdout_is_utf8():
                # an export is UTF-8 (what import reads, what -o writes), whatever the locale
                reconfigure(encoding="utf-8")
            report = export_memories(store, sys.stdout, group_id=group_id, vectors=not no_vectors)
        else:
            report = _export_to_file(store, output, group_id, not no_vectors)
        scope = store.resolve_group(group_id)
        # a backup of this project alone: notes under another id (a renamed remote) are
        # not in it, and "exported 0 memories" said nothing of them (counted as an export
        # writes them: a row whose fields do not decode is in no export)
        left_out = (
            0
            if scope is None
            else store.count(group_id="all", readable=True)
            - store.count(group_id=scope, readable=True)
        )
    if report.without_vectors:
        click.echo(
            f"{len(report.without_vectors)} memories were exported without their damaged "
            f"vectors (`kenning import` re-embeds them): {_listing(report.without_vectors)}"
            if len(report.without_vectors) > 1
            else "1 memory was exported without its damaged vector (`kenning import` "
            f"re-embeds it): {_listing(report.without_vectors)}",
            err=True,
        )
    _say_directions(report.directions, report.zero_vectors, "exported")
    if report.redacted:
        one = report.redacted == 1
        click.echo(
            f"{report.redacted} {'memory' if one else 'memories'} held a credential another "
            f"writer left in {'it' if one else 'them'} (an older kenning, another tool): "
            f"exported redacted, as every reader shows {'it' if one else 'them'}; "
            f"`kenning edit ID` of {'it' if one else 'each'} stores it redacted: "
            f"{_listing(report.redacted_ids)}",
            err=True,
        )
    click.echo(
        f"exported {report.exported} {'memory' if report.exported == 1 else 'memories'}",
        err=True,
    )
    if left_out > 0:
        click.echo(
            f"note: {left_out} {'memory' if left_out == 1 else 'memories'} of other projects "
            f"in the store {'is' if left_out == 1 else 'are'} not in this export (it holds "
            f"project {_plain(scope or '')}'s); `kenning export --project all` exports every "
            "project",
            err=True,
        )
    refused = _refused_by_import(report.refused)
    if refused and not report.damaged:
        _fail(refused)
    if refused:
        click.echo(refused, err=True)
    if report.damaged:
        _fail(
            f"{_damaged(len(report.damaged))} could not be read and "
            f"{'was' if len(report.damaged) == 1 else 'were'} left out: "
            f"{_listing(report.damaged)}; {report.fix or 'run `kenning doctor` for the fix'}"
        )


def _refused_by_import(refused: Mapping[str, str]) -> str | None:
    """What an export says of the notes it wrote that ``kenning import`` refuses (id → why:
    another writer's type or times, :func:`kenning.transfer.import_refusal`), with their
    fixes; None when there are none. The file holds them (a backup loses no note), and an
    import of it refuses it whole until they are fixed (qa72 F4)."""
    if not refused:
        return None
    one = len(refused) == 1
    return (
        f"{len(refused)} {'memory holds' if one else 'memories hold'} what `kenning import` "
        f"refuses (another writer set {'it' if one else 'them'}; kenning stores no such note), "
        f"so an import of this export refuses the whole file: {_listing(refused)}; written "
        f"as stored all the same. `kenning edit ID --type TYPE` gives a note a kenning type "
        f"(TYPE one of {', '.join(TYPE_TO_COLLECTION)}); a time ahead is another clock's: "
        "correct it in the store, or `kenning forget ID --group-id all` the note; then "
        "export again"
    )


def _say_directions(
    scaled: Mapping[str, str],
    zero: Sequence[str],
    done: str,
    *,
    server: bool = True,
    damaged: Mapping[str, str] | None = None,
) -> None:
    """What an export or a migration of a server store did with the vectors another writer
    left at another length than 1 (``scaled``: id → its length) or all zeros (``zero``),
    as ``kenning doctor`` says them; ``server=False``: a migration of a SQLite store, whose
    search skips such a vector as damaged (and copies its direction all the same).
    ``damaged``: a migration's memories whose vector had no direction (NaN, another
    dimension: id → what was wrong), copied with their text embedded again."""
    if scaled:
        one = len(scaled) == 1
        read = (
            f"the server's cosine reads as {'its direction' if one else 'their directions'}: "
            f"{done} as {'that direction' if one else 'those directions'}"
            if server
            else f"this store's search skips as damaged: {done} as "
            f"{'its direction' if one else 'their directions'}"
        )
        click.echo(
            f"{len(scaled)} {'memory holds a vector' if one else 'memories hold vectors'} of "
            "another length than 1 (another writer's: kenning writes unit vectors), which "
            f"{read}, of length 1 "
            f"(`kenning reembed` recomputes {'it' if one else 'them'} from "
            f"{'its' if one else 'their'} text): {_listing(scaled)}",
            err=True,
        )
    if zero:
        one = len(zero) == 1
        what = (
            f"without {'it' if one else 'them'} (`kenning import` embeds "
            f"{'its' if one else 'their'} text)"
            if done == "exported"
            else f"with {'its' if one else 'their'} text embedded again"
        )
        click.echo(
            f"{len(zero)} {'memory holds a zero vector' if one else 'memories hold zero vectors'}"
            f" (another writer's), which {'points' if one else 'point'} nowhere: {done} "
            f"{what}: {_listing(zero)}",
            err=True,
        )
    if damaged:
        one = len(damaged) == 1
        click.echo(
            f"{len(damaged)} {'memory holds a damaged vector' if one else 'memories hold'}"
            f"{'' if one else ' damaged vectors'} (another writer's, or damage on disk), "
            "which no search can score: "
            f"{done} with {'its' if one else 'their'} text embedded again: {_listing(damaged)}",
            err=True,
        )


def _damaged(n: int) -> str:
    """``1 damaged memory``, ``2 damaged memories``."""
    return f"{n} damaged {'memory' if n == 1 else 'memories'}"


def _listing(items: Any, shown: int = 3) -> str:
    """``id (why), …`` for a mapping of ids to reasons (``id; …`` for ids alone), on one
    terminal-safe line."""
    parts = (
        [f"{_plain(str(k))} ({_plain(str(v))})" for k, v in list(items.items())[:shown]]
        if isinstance(items, Mapping)
        else [_plain(str(k)) for k in list(items)[:shown]]
    )
    more = len(items) - shown
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _export_to_file(store: MemoryStore, output: Path, group_id: str | None, vectors: bool) -> Any:
    """Write the export through a temporary file beside ``output`` and rename it, so an
    interrupted export never leaves a half file under the name; a file that cannot be
    written is one clear error, and leaves nothing behind."""
    from .transfer import export_memories

    # a link (backup.jsonl → the backup disk's file): the file it names is written, not
    # replaced by a new file in the link's place while the linked one keeps an old export
    target = Path(os.path.realpath(output)) if output.is_symlink() else output
    if target.resolve() in store.own_files():
        raise UserInputError(
            f"{output} is one of the store's own files; write the export to another file"
        )
    if target.exists() and not target.is_file():
        # a device or a pipe (e.g. /dev/stdout): written in place, never replaced
        try:
            with target.open("w", encoding="utf-8") as fh:
                return export_memories(store, fh, group_id=group_id, vectors=vectors)
        except OSError as exc:
            raise UserInputError(f"cannot write {output}: {exc.strerror or exc}") from None
    if not target.parent.is_dir():
        raise UserInputError(
            f"cannot write {output}: the folder {target.parent} does not exist; create it "
            "first or choose another path"
        )
    if target.is_file() and (
        not os.access(target, os.W_OK) or not target.stat().st_mode & 0o222
    ):  # (root may write any file: a file no one may write is one kept, for root too)
        # a backup kept from being overwritten (chmod 444): a rename over it needs only the
        # folder's permission, and replaced it without a word where `>` and cp refuse
        raise UserInputError(
            f"cannot write {output}: it is read-only; write the export to another file, or "
            "make it writable to replace it"
        )
    # the process's own temporary name: two exports to one file at once each rename their
    # own whole file (one name for both had the first to finish rename the other's half
    # file, and the second fail)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    _remove_dead_exports_files(target)
    # a backup made private (chmod 600) stays private: the new file takes its mode before
    # a note is written to it
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    try:
        # a new file: a symlink in its place (a checkout can carry one) goes, and is never
        # written through — every note would land in the file it names
        tmp.unlink(missing_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(tmp, flags, 0o666), "w", encoding="utf-8") as fh:
            if mode is not None:
                if hasattr(os, "fchmod"):
                    os.fchmod(fh.fileno(), mode)
                else:  # pragma: no cover - Windows
                    os.chmod(tmp, mode)
            report = export_memories(store, fh, group_id=group_id, vectors=vectors)
            # on disk before it takes the last backup's name: renamed unwritten, a power
            # cut could leave that name on an empty file (as the settings file is fsynced)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(target)
    except OSError as exc:
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise UserInputError(f"cannot write {output}: {exc.strerror or exc}") from None
    except BaseException:
        # the store stopped it (a server gone, Ctrl-C): no partial copy of the notes is left
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    return report


def _remove_dead_exports_files(target: Path) -> None:
    """Remove the temporary files of exports to ``target`` that were killed before their
    rename (``<name>.<pid>.tmp`` of a process no longer running, and an older kenning's
    ``<name>.tmp``): each holds a copy of the notes, forgotten ones included, that no
    command would remove. A running export's file is left alone."""
    prefix = target.name + "."
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix) : -len(".tmp")]
        if pid and not (pid.isascii() and pid.isdigit()):
            continue
        if pid and _process_is_running(int(pid)):
            continue  # a running export's (this one's own is replaced as it is made)
        with suppress(OSError):
            (target.parent / name).unlink()


def _process_is_running(pid: int) -> bool:
    if os.name == "nt":  # pragma: no cover - signal 0 there is CTRL_C_EVENT, not a probe
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        pass  # another user's process (or a number no process can have): kept
    return True


@main.command(
    name="import",
    epilog="""
\b
Examples:
  kenning import memories.jsonl             # a kenning export (kenning export -o ...)
  kenning import --from ruvector            # this project's .ruvector/ (ruvector's store)
  kenning import --from ruvector ~/.ruvector/intelligence.json --json

\b
From ruvector: its notes (memories) and recorded error fixes (as ERROR-FIX entries) go
through the write path and are embedded again with kenning's model (ruvector's vectors are
never used); its edit/command log and learning data are left out and counted. Running it
again adds nothing still there (a note edited or forgotten since comes back as ruvector
holds it).
""",
)
@click.argument("source", required=False, type=click.Path(allow_dash=True))
@click.option(
    "--from",
    "source_format",
    type=click.Choice(["kenning", "ruvector"]),
    default="kenning",
    show_default=True,
    help="kenning: a JSONL export (- for stdin); ruvector: a .ruvector folder or its "
    "intelligence.json (default: .ruvector here, else at the top of the checkout).",
)
@click.option(
    "--reembed",
    is_flag=True,
    help="Embed every memory from its text, using none of the file's vectors: for a file "
    "you did not make (a well-formed vector of another note's text passes every check).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@_store_options
@handle_errors
def import_cmd(
    source: str | None, source_format: str, reembed: bool, as_json: bool, store_path: str | None
) -> None:
    """Import memories: a kenning JSONL export, or a ruvector store (--from ruvector)."""
    if source_format == "ruvector":
        from .ruvector import default_source

        _import_ruvector(Path(source) if source else default_source(), as_json, store_path)
        return
    from .export_format import memory_line_count
    from .transfer import import_memories, import_validated, validate_import

    if source is None:
        raise click.UsageError("missing SOURCE: the JSONL file to import (- for stdin)")
    try:
        with click.open_file(source, "r", encoding="utf-8") as fh:
            lines = fh.readlines()
    except OSError as exc:
        raise UserInputError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        from .export_format import not_an_export

        what = None
        if source != "-":
            with suppress(OSError), open(source, "rb") as raw:
                what = not_an_export(raw.read(16))
        if what is not None:
            raise UserInputError(f"{source} is {what}; nothing was imported") from None
        said, iconv = _not_utf8_in(source, exc)
        named = "standard input" if source == "-" else _plain(source)
        target = "" if source == "-" else f"{shlex.quote(source)} | kenning import -"
        raise UserInputError(
            f"{named} is not UTF-8 text{said}; nothing was imported. Re-encode it as UTF-8 "
            f"({iconv_said(iconv, target)})"
        ) from None
    if not any(line.strip() for line in lines):
        # not even an export's header: a backup whose writing failed, or an empty pipe, is
        # no "imported 0" (an export of a project without memories still holds its header)
        named = "standard input" if source == "-" else _plain(source)
        raise UserInputError(
            f"{named} is empty: it holds no export header and no memory; nothing was "
            "imported. `kenning export -o FILE` writes one (its first line is the header)"
        )
    # the whole file is checked before the store is created: a refused file creates none
    # (into a store that exists, import_memories checks it as it writes, in the transaction
    # that a refused file rolls back)
    memories = memory_line_count(lines)
    # the checks (~30 s at 100k memories) and the writes, each shown: not a silent terminal
    with _phases(memories, not as_json) as phase:
        with _open(store_path, create=False, missing_ok=True) as probe:
            checked = None
            if not probe.exists:
                checked = validate_import(
                    probe, _let_go_as_read(lines), phase("checking"), vectors=not reembed
                )
        # nor does a file with nothing to import (an empty export): the store stays to be
        # made by the first note (an empty one had no model stamped: doctor then had
        # nothing to say)
        nothing = checked is not None and not checked.items
        with _open(store_path, create=not nothing, missing_ok=nothing) as store:
            if checked is None:
                counts = import_memories(
                    store,
                    _let_go_as_read(lines),
                    progress=phase("importing"),
                    checking=phase("checking"),
                    vectors=not reembed,
                )
            else:
                counts = import_validated(store, checked, progress=phase("importing"))
            here = store.group_id
    if as_json:
        _echo_json(counts)
    else:
        reembedded = (
            f", re-embedded {counts['reembedded']} (their vectors were not usable)"
            if counts.get("reembedded")
            else ""
        )
        click.echo(
            f"read {counts['read']}: imported {counts['imported']}, "
            f"duplicates {counts['duplicates']}, rejected {counts['rejected']}{reembedded}"
        )
        if counts["redactions"]:  # as remember says it: the stored text is not the file's
            _say_redacted(counts["redactions"])
    others: dict[str, int] = counts["other_projects"]
    if others:
        # an export keeps each memory's project: notes from another checkout are not this
        # project's, and recall would silently not see them
        named = ", ".join(f"{_plain(g)} ({n})" for g, n in list(others.items())[:3])
        first = _plain(shlex.quote(next(iter(others))))  # a line to paste into a shell
        total = sum(others.values())
        belong = "memory belongs" if total == 1 else "memories belong"
        click.echo(
            f"note: {total} imported {belong} to other projects than "
            f"this one ({_plain(here)}): {named}; recall and search read them with "
            f"--project {first} (or --project all)",
            err=True,
        )
    changed: dict[str, str] = counts["changed"]
    if changed:
        one = len(changed) == 1
        projects = {p for p in changed.values() if p != here}
        project = f" --project {shlex.quote(next(iter(projects)))}" if len(projects) == 1 else ""
        if len(projects) > 1:
            project = " --project <its project>"
        click.echo(
            f"note: {len(changed)} {'memory' if one else 'memories'} of the file "
            f"{'is' if one else 'are'} in the store under {'its' if one else 'their'} id with "
            "another text or type (edited since the export, here or where it was made); the "
            f"store's is kept — {_listing({k: f'project {v}' for k, v in changed.items()})}; to "
            f"take the file's instead, run `kenning forget ID{project}` for "
            f"{'it' if one else 'each'}, then import again",
            err=True,
        )
    if counts["not_written"]:
        one = counts["not_written"] == 1
        _say_error(
            f"{counts['not_written']} {'memory was' if one else 'memories were'} not written: "
            f"{counts['not_written_reason']}; run the same import again to add "
            f"{'it' if one else 'them'} (what was imported is kept)"
        )
    if counts["rejected"] or counts["not_written"]:
        sys.exit(EXIT_USER)


def _import_ruvector(path: Path, as_json: bool, store_path: str | None) -> None:
    from .ruvector import import_ruvector, read_store

    found = read_store(path)  # refuses a file that is not a store before opening ours
    with (
        _open(store_path, create=True) as store,
        _progress("importing from ruvector", len(found.items), not as_json) as tick,
    ):
        report = import_ruvector(store, found, progress=tick)
    from .render import safe_message as shown  # entries and keys are the file's text

    if as_json:
        _echo_json(report)
    else:
        click.echo(
            f"read {report['read']} from {shown(str(report['source']))}: imported "
            f"{report['imported']}, duplicates {report['duplicates']}, "
            f"rejected {report['rejected']}"
        )
        for reason, n in report["skipped"].items():
            click.echo(f"  skipped {n}: {shown(str(reason))}")
        if report["not_imported"]:
            kept = ", ".join(f"{k} {n}" for k, n in report["not_imported"].items())
            click.echo(f"  not imported (ruvector's learning data, not notes): {shown(kept)}")
        for note in report["notes"]:
            click.echo(f"  {shown(str(note))}")
        if report["redactions"]:  # as remember says it: the stored text is not the file's
            _say_redacted(report["redactions"])
    for item in report["rejections"]:  # with --json too: they are why the exit is 1
        click.echo(
            f"  rejected {shown(str(item['entry']))}: {shown(str(item['reason']))}", err=True
        )
    if report["rejected"]:
        sys.exit(EXIT_USER)


@main.command(
    epilog="""
\b
Examples:
  kenning reembed            # after KENNING_MODEL_DIR or KENNING_EMBEDDER changed
  kenning reembed --json     # {"reembedded", "already_done", "unchanged", "provenance",
                             #  "damaged", "index_built"}

\b
On a store already on the current model only the damaged vectors are recomputed (the
others would come out the same); --force re-embeds every memory all the same,
while reads and writes go on. On a PostgreSQL store it also builds the vector index
a bulk migrate or import left missing (`kenning stats` says when).
"""
)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@click.option(
    "--force", is_flag=True, help="Re-embed every memory, also on a store already on this model."
)
@_store_options
@handle_errors
def reembed(as_json: bool, force: bool, store_path: str | None) -> None:
    """Re-embed every memory with the current model and restamp the store (resumable)."""
    from .reembed import reembed as run_reembed

    # (a missing vector index is what it builds: not warned of)
    with _index_warning_held(), _open(store_path, create=False, missing_ok=True) as store:
        if not store.exists:  # nothing to re-embed: exit 0, as every read of no store
            click.echo(f"nothing to re-embed: {_plain(store.missing_reason or '')}", err=True)
            if as_json:  # a script still gets its answer, nothing done
                _echo_json(
                    {
                        "reembedded": 0,
                        "already_done": 0,
                        "unchanged": 0,
                        "provenance": None,
                        "damaged": {},
                        "index_built": False,
                    }
                )
            return
        total = store.count(group_id="all", readable=True)  # a damaged row is not read
        with _progress("re-embedding", total, not as_json) as tick:
            last = [0]

            def advance(done: int, _total: int) -> None:
                tick(done - last[0])
                last[0] = done

            outcome = run_reembed(store, progress=advance, every=force)
    if as_json:
        _echo_json(outcome)
    elif outcome["unchanged"]:
        model = outcome["provenance"]["model_id"]
        done, kept = outcome["reembedded"], outcome["unchanged"]
        if done:
            click.echo(
                f"re-embedded {done} "
                + ("memory whose vector was" if done == 1 else "memories whose vectors were")
                + f" damaged or out of date; {kept} already "
                + ("has its vector" if kept == 1 else "have theirs")
                + f" from {model}"
            )
        else:
            click.echo(
                f"nothing to re-embed: the store is already on {model} (its "
                + (
                    "1 memory has its vector; --force re-embeds it"
                    if kept == 1
                    else f"{kept} memories have their vectors; --force re-embeds them"
                )
                + " all the same)"
            )
    else:
        resumed = (
            f" ({outcome['already_done']} more were done by the run this one resumed)"
            if outcome["already_done"]
            else ""
        )
        done = outcome["reembedded"]
        click.echo(
            f"re-embedded {done} {'memory' if done == 1 else 'memories'} with "
            f"{outcome['provenance']['model_id']}{resumed}"
        )
    if outcome["index_built"] and not as_json:
        click.echo("built the store's missing vector index (kenning_memories_hnsw)")
    if outcome["damaged"]:
        _fail(
            f"{_damaged(len(outcome['damaged']))} could not be re-embedded: "
            f"{_listing(outcome['damaged'], shown=2)}"
        )


# -- agents: mcp / install / hook ----------------------------------------------------------


@main.command(
    epilog="""
\b
Examples:
  kenning mcp                                  # serves the project of the folder it starts in
  kenning mcp --project-dir ~/src/widgets      # one project, whatever the client names
\b
Register it with an MCP client, e.g. Claude Code's .mcp.json (see `kenning install`):
  {"mcpServers": {"kenning": {"command": "/abs/path/to/kenning", "args": ["mcp"]}}}

\b
The project: --project-dir, else CLAUDE_PROJECT_DIR (set by Claude Code), else the
client's first MCP root that is a git checkout, else the current folder's checkout.

\b
Tools: hooks_recall, hooks_remember, hooks_stats, hooks_capabilities, search_memories,
read_source, forget.
Logs go to stderr (KENNING_LOG_LEVEL, default WARNING); stdout carries only the protocol.
"""
)
@click.option(
    "--project-dir",
    # not checked here: a folder moved or renamed since the client's config named it is
    # every tool's error, which the agent reads (a usage error ended the server before the
    # handshake, and the client showed only "Failed to connect", qa-s64b T1)
    type=click.Path(path_type=str),
    default=None,
    help="The project to serve (default: CLAUDE_PROJECT_DIR, the client's MCP roots, "
    "then the current folder's git checkout).",
)
def mcp(project_dir: str | None) -> None:
    """Run the MCP server on stdin/stdout (Claude Code, Codex, Cursor, any MCP client)."""
    import gc

    # The MCP SDK's import makes ~85k objects (among them pydantic's models of both protocol
    # versions) and frees almost none: Python's cyclic collector went over them again and
    # again as they were made (~0.08 of a start's ~0.9 CPU-s), and each full collection of
    # the server's life went over them once more. Off while the server's code is imported,
    # then what it made is moved out of the collector's reach (it lives as long as the
    # process; reference counting still frees what is let go).
    gc.disable()
    try:
        from .mcp_server import run
    finally:
        gc.freeze()
        gc.enable()

    if project_dir is not None and not project_dir.strip():
        # (an unset variable in a client's config): as if not given
        click.echo("kenning: --project-dir is empty; serving as without it", err=True)
        project_dir = None
    run(Path(project_dir) if project_dir is not None else None)


@main.command(
    epilog="""
\b
Scopes (claude-code: the meanings `claude mcp add` gives them):
  local    personal, this project: ~/.claude.json (the project's entry) and
           .claude/settings.local.json, with this machine's path of kenning (default)
  project  shared with the team: .mcp.json and .claude/settings.json, naming
           `kenning` on PATH; codex: .codex/config.toml; cursor: .cursor/mcp.json
           (codex and cursor: the default; both also merge a section into AGENTS.md)
  user     personal, every project: ~/.claude.json and ~/.claude/settings.json;
           ~/.codex/config.toml (+ ~/.codex/AGENTS.md); ~/.cursor/mcp.json

\b
Examples:
  kenning install claude-code --dry-run            # show the diff, write nothing
  kenning install claude-code                      # local scope
  kenning install claude-code --scope project      # shared files for the team
  kenning install codex --scope user
  kenning install cursor
  kenning install cursor --uninstall               # remove kenning's entries only
"""
)
@click.argument("agent", type=click.Choice(["claude-code", "codex", "cursor"]), metavar="AGENT")
@click.option(
    "--scope",
    type=click.Choice(["local", "project", "user"]),
    default=None,
    help="Where to register (default: local for claude-code, project for codex and cursor).",
)
@click.option("--uninstall", is_flag=True, help="Remove kenning's entries (and nothing else).")
@click.option("--dry-run", is_flag=True, help="Print a unified diff of each file; write nothing.")
@click.option(
    "--project-dir",
    type=_ExistingFolder(),
    default=None,
    help="Project folder (default: the git top level of the current folder).",
)
@click.option(
    "--executable",
    default=None,
    help="Path of the kenning executable to register in personal scopes "
    "(default: the one running now; a bare name is found on PATH when the agent runs it).",
)
@click.option(
    "--no-agents-md",
    "agents_md",
    flag_value=False,
    default=True,
    help="codex, cursor: do not write the memory-protocol section into AGENTS.md.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@handle_errors
def install(
    agent: str,
    scope: str | None,
    uninstall: bool,
    dry_run: bool,
    project_dir: Path | None,
    executable: str | None,
    agents_md: bool,
    as_json: bool,
) -> None:
    """Register kenning's MCP server (and Claude Code's hooks) with AGENT (claude-code,
    codex or cursor).

    Merges with the files that are there; running it again changes nothing; --uninstall
    removes only kenning's entries. Never writes through a symlink.
    """
    from .installers import install as run_install

    result = run_install(
        agent,
        scope=scope,
        project_dir=project_dir,
        uninstall=uninstall,
        dry_run=dry_run,
        executable=executable,
        agents_md=agents_md,
    )
    if as_json:
        _echo_json(
            {
                "agent": result.agent,
                "scope": result.scope,
                "action": "uninstall" if uninstall else "install",
                "dry_run": dry_run,
                "files": [
                    {"path": str(c.path), "status": c.status, "diff": c.diff()}
                    for c in result.changes
                ],
                "notes": result.notes,
            }
        )
        return
    for change in result.changes:
        if dry_run:
            if change.changed:  # the file's own lines too: the repository's text, inert
                from .render import shown_escaped

                click.echo(shown_escaped(change.diff()), nl=False)
            else:
                click.echo(f"{change.label}: no change", err=True)
        else:
            click.echo(f"{change.label}: {change.status} ({_plain(str(change.path))})")
    for note in result.notes:
        click.echo(f"note: {_plain(note)}", err=True)
    if dry_run:
        click.echo("dry run: nothing was written", err=True)


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    epilog="""
\b
Examples: (Claude Code runs these; see `kenning install claude-code`)
  kenning hook session-start     # SessionStart: the newest error fixes and conventions
  kenning hook prompt-submit     # UserPromptSubmit: recall for the prompt
  kenning hook tool-failure      # PostToolUseFailure: the fixes for a failed command's error

The hook input JSON is read from stdin; the output is Claude Code's hookSpecificOutput
JSON with the fenced <reflexion_context> block. Always exits 0: no store, a broken or
slow store (KENNING_HOOK_TIMEOUT, default 5 s) or bad input means no output and one line
on stderr.
""",
)
@click.argument("event", required=False, default="")
def hook(event: str) -> None:
    """Claude Code hook EVENT (session-start | prompt-submit | tool-failure); never fails the
    session."""
    from .hooks.claude_code import main as run_hook

    run_hook(event)


@main.command(
    "build-cache",
    hidden=True,
    epilog="""
\b
Examples: (a hook starts it in the background when it finds the model cache cold)
  kenning build-cache      # build the model's ONNX graph into the cache (KENNING_CACHE_DIR)

Does nothing when the graph is cached already, or waits for another process building it;
runs at a lower priority (nice 10); exit 1 when it cannot be built or cached (recorded:
hooks then load the model themselves for an hour).
""",
)
@handle_errors
def build_cache() -> None:
    """Build the MiniLM model's cached ONNX graph if it is not there (for the hooks)."""
    import contextlib
    import os

    from . import config

    if config.embedder_name() != "minilm":
        return
    # started in the background while the agent works: its seconds of building yield to it
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
    from .embedders.minilm import build_cache as build

    build()


# -- doctor --------------------------------------------------------------------------------


@main.command(
    epilog="""
\b
Checks: location (the store lies inside the project), store (SQLite can read the file;
kenning reaches a server's store), schema (version and tables), integrity (PRAGMA
integrity_check), provenance (stamped, and the current model's), index (a full-text row per
memory, FTS5 integrity-check; on PostgreSQL the HNSW index is there and valid), rows (every
row decodes; every vector has the store's dimension, is finite and unit length), settings
(config.toml beside the store reads, and holds no key kenning ignores), project (this
project has memories here, when the store holds other projects': a renamed repository or a
changed origin gives it a new id). A check with no meaning for the store (integrity on a
server) is skipped, saying why.
The store is opened read-only and never changed (a server's: no schema upgrade, no index
built).

\b
Examples:
  kenning doctor
  kenning doctor --json
  kenning doctor --store /path/to/memory.db
  KENNING_STORE=postgresql://kenning@db.internal/memory kenning doctor

Exit codes: 0 no check failed (there may be warnings, as for a read-only store; or there
is no store yet), 1 a check failed, 3 the server could not be reached (knowledge base NOT
consulted).
"""
)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.option(
    "--store",
    "store_path",
    type=str,
    default=None,
    help="The store to check: a file or folder (default <git top>/.kenning/memory.db), a "
    "postgresql:// URL or a qdrant-local:<folder>; env KENNING_STORE.",
)
@handle_errors
def doctor(as_json: bool, store_path: str | None) -> None:
    """Check the store's health and say how to fix what is wrong."""
    from .config import is_store_url
    from .doctor import run_doctor

    named = store_path if store_path and is_store_url(store_path) else None
    with _setting_warnings_held():  # its settings check says them, with the fix
        report = run_doctor(named or (Path(store_path) if store_path else None))
    if as_json:
        _echo_json(report.to_dict())
    else:
        for check in report.checks:
            click.echo(f"{check.status:<7} {check.name}: {_plain(check.message)}")
            if check.fix and check.status != "ok":
                click.echo(f"        fix: {_plain(check.fix)}")
    if not report.healthy:
        # the report is stdout's; exit 1 says why on stderr too (README's exit codes), for
        # a script that keeps stderr and the exit code alone
        from .doctor import FAILED

        failed = [c for c in report.checks if c.status == FAILED]
        if report.unreached:
            # a server that is down or refused the credentials: the knowledge base was not
            # consulted, said and exited with as every command does (README's exit codes)
            unreached = failed[-1]
            _say_error(f"{unreached.message}; {unreached.fix}")
            sys.exit(EXIT_UNAVAILABLE)
        one = len(failed) == 1
        _say_error(
            f"{len(failed)} {'check' if one else 'checks'} failed: "
            + "; ".join(f"{c.name} ({c.fix or c.message})" for c in failed[:3])
            + (f"; and {len(failed) - 3} more" if len(failed) > 3 else "")
        )
        sys.exit(EXIT_USER)


# -- curation: edit, and the web page ------------------------------------------------------


@main.command(
    epilog="""
\b
Examples:
  kenning edit 0190c3a2-... --content "Use WAL mode and busy_timeout=5000 for SQLite"
  kenning edit 0190c3a2-... --type rule
  git log -1 --format=%B | kenning edit 0190c3a2-... --content -
"""
)
@click.argument("memory_id")
@click.option("--content", default=None, help="The new text (- for standard input).")
@click.option("--type", "memory_type", default=None, help=f"The new type: {', '.join(ALL_TYPES)}.")
@_memory_project_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_store_options
@handle_errors
def edit(
    memory_id: str,
    content: str | None,
    memory_type: str | None,
    group_id: str | None,
    as_json: bool,
    store_path: str | None,
) -> None:
    """Change a memory's content or type, keeping its id.

    The new text goes through the rules of `remember`: it is normalised, secrets are
    redacted, it is re-embedded, and it is not saved when it duplicates another memory of
    the project (exit 1, nothing changed). The memory's own text and type change nothing
    ("unchanged", exit 0): no edit is recorded, and a stale memory stays stale. With
    --json, "changed" says whether anything was written.
    """
    if content is None and memory_type is None:
        raise click.UsageError("pass --content, --type, or both")
    text = _read_note(content, as_json) if content is not None else None
    refusal: str | None = None
    code = EXIT_USER
    try:
        with _open(store_path, create=False, group_id=group_id) as store:
            try:
                memory_id = store.resolve_id(memory_id, group_id=group_id)  # a prefix: its id
                result = store.update(memory_id, content=text, type=memory_type, group_id=group_id)
            except UnknownMemoryError as exc:  # how to find ids and name a project: forget's
                holder = _holder(store, exc.memory_id, group_id)
                shown_as = [] if holder else _ids_shown_as(store, exc.memory_id, group_id)
                raise UserInputError(
                    _no_memory_with_id(exc.memory_id, group_id, holder, shown_as, "edit")
                ) from None
    except KenningError as exc:
        if not as_json:
            raise
        # a script reading --json gets an answer, as from remember and forget: no store or no
        # such memory, a project or store refused, a store read-only or locked by another
        # writer, a server down (its own exit code)
        refusal, code = _as_the_command_says(exc), exc.exit_code
        result = RememberResult(status=REJECTED, reason=_shown_error(refusal))
    if as_json:
        # an edit that changed nothing is "stored" too (the memory is as asked): a script
        # tells the two apart without matching the reason's words
        _echo_json(result.to_dict() | {"changed": result.status == STORED and not result.unchanged})
    elif result.unchanged:
        click.echo(f"unchanged {_plain(result.id or '')}: the text and type are those stored")
    elif result.status == STORED:
        click.echo(f"updated {_plain(result.id or '')} ({result.collection}/{result.type})")
    # the refusal is said with --json too (README: exit 1 is one line on stderr saying why)
    if result.status == NEAR_DUPLICATE:
        why = f"; {_plain(result.reason)}" if result.reason else ""  # may quote its words
        if result.redactions:  # why a text with a secret in it matched one without
            from .render import redaction_counts

            why += "; with its secrets redacted: " + redaction_counts(result.redactions)
        other, this = _plain(result.duplicate_of or ""), _plain(result.id or "")
        click.echo(
            f"error: near-duplicate of {other} (score {result.score:.2f}{why}); "
            f"nothing changed: that memory says this already — `kenning forget {this}` "
            "if this one is no longer needed, or edit it with a text of its own",
            err=True,
        )
    elif result.status != STORED:
        _say_error(refusal if refusal is not None else f"{result.status}: {result.reason}")
    # a refusal stays one line; its secrets are in --json's "redactions"
    if result.redactions and result.status == STORED and not as_json:
        _say_redacted(result.redactions)
    if result.status != STORED:
        sys.exit(code)


@main.command(
    epilog="""
\b
Examples:
  kenning ui                 # a free port; open the printed address
  kenning ui --port 8765
  kenning ui --store postgresql://kenning@db.internal/kenning

The first line printed is the address with its access token. The page is served on
127.0.0.1 only. Exit codes: 1 the port is out of range or taken, 3 knowledge base NOT
consulted (server store down).
"""
)
@click.option(
    "--port",
    default=0,
    type=int,  # its range is checked by serve: out of it is bad input (exit 1), not usage
    help="Port on 127.0.0.1, 0 to 65535 (default, or 0: a free one).",
)
@_store_options
@handle_errors
@_serves
def ui(port: int, store_path: str | None) -> None:
    """Serve a local web page to browse, search and curate the memory, with plots."""
    from .ui import serve

    serve(store_path, port=port)


startup_interrupt.restore()  # from here on handle_errors says "interrupted"


if __name__ == "__main__":  # pragma: no cover
    main()
