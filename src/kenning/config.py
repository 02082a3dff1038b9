"""Settings: every ``KENNING_*`` variable is read here, and nowhere else.

Project settings, highest first:

1. an explicit argument (CLI flag or Python keyword),
2. the process environment (``KENNING_*``),
3. the project's ``.env`` file (``<project root>/.env``, a work tree's own for a bare
   repository: :attr:`kenning.project.Checkout.settings_root`; only ``KENNING_*`` keys),
4. the project's ``.kenning/config.toml``,
5. built-in defaults (:mod:`kenning.protocol`).

=====================  =================================  =====================================
setting                environment / ``.env``             ``config.toml``
=====================  =================================  =====================================
similarity threshold   ``KENNING_SIMILARITY_THRESHOLD``   ``similarity_threshold = 0.45``
                       (default: the embedder's measured value, :mod:`kenning.thresholds`)
recall floors          ``KENNING_RECALL_FLOOR``            ``recall_floor = 0.5``
                       ``KENNING_ERROR_RECALL_FLOOR``      ``error_recall_floor = 0.4``
decay half-lives       ``KENNING_DECAY_HALF_LIFE``         ``[decay] half_life = {error_fix = 7}``
                       (``"error_fix:7,decision:90"``)     (or the same string form; each
                                                          layer sets the types it names)
store                  ``KENNING_STORE``
project id             ``KENNING_PROJECT``
recall log (off)       ``KENNING_RECALL_LOG=1``            ``recall_log = true``
stale penalty          ``KENNING_STALE_PENALTY``           ``stale_penalty = 0.05``
=====================  =================================  =====================================

Process settings come from the environment only, because they are needed before a project
is known: ``KENNING_EMBEDDER`` (``minilm``; ``hashing`` for tests), ``KENNING_MODEL_DIR``,
``KENNING_CACHE_DIR``, ``KENNING_LOG_LEVEL`` (the MCP server's), ``KENNING_HOOK_TIMEOUT``,
``KENNING_SECRETS_FILE`` (the Qdrant API key file) and ``KENNING_ANN_MIN_ROWS`` (how many rows
an embedded search must reach before it uses the approximate index; ``off`` never uses it:
:mod:`kenning.backends.annindex`).

One variable that is not kenning's is read here too, so that the environment is read in one
place: ``CLAUDE_PROJECT_DIR``, the project folder Claude Code gives the servers and hooks it
starts (:func:`claude_project_dir`).

``kenning calibrate --write`` writes the threshold and floors it measured into
``.kenning/config.toml`` (:func:`update_config_toml`), where this module reads them.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UserInputError
from .lazyre import lazy
from .protocol import ERROR_RECALL_FLOOR, RECALL_FLOOR, STALE_PENALTY

CONFIG_FILENAME = "config.toml"
#: Every variable kenning reads starts with this.
PREFIX = "KENNING_"
log = logging.getLogger("kenning")
DEFAULT_EMBEDDER = "minilm"
#: A hook that waits longer than this would hold the agent's session up.
MAX_HOOK_TIMEOUT_S = 600.0
#: A hook's time budget when ``KENNING_HOOK_TIMEOUT`` does not set one.
DEFAULT_HOOK_TIMEOUT_S = 5.0
#: libpq (and psycopg, which times the connection itself) takes no shorter connect_timeout:
#: 1 s is read as 2.
MIN_STORE_CONNECT_TIMEOUT_S = 2
#: What ``KENNING_LOG_LEVEL`` may name (the MCP server logs at WARNING otherwise).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@dataclass(frozen=True)
class Settings:
    """A project's settings as read: each value, or why it could not be read. A value that
    cannot be read is said by the reads that use it (its property, :meth:`threshold`,
    :meth:`half_lives`), each naming every value refused at once, so a typo in a committed
    ``config.toml`` stops what reads that value, not a write, an export, or a search that
    reads only the others (a recall floor is no search's)."""

    #: Each value read, or its default where it could not be (``problems`` says why): the
    #: keys of :data:`SETTING_DEFAULTS`.
    read: Mapping[str, Any] = field(default_factory=dict)
    #: Why a value could not be read, by its key.
    problems: Mapping[str, UserInputError] = field(default_factory=dict)
    #: Where each value came from, for ``kenning stats`` and error messages.
    sources: Mapping[str, str] = field(default_factory=dict)
    #: Keys of ``config.toml``, and ``KENNING_*`` keys of ``.env``, that no setting reads (a
    #: misspelt one does nothing), each said with the key it may have meant (``kenning
    #: stats`` and ``kenning doctor``).
    warnings: tuple[str, ...] = ()
    #: The one of ``warnings`` saying that the project's ``config.toml`` is not read (a store
    #: elsewhere reads its own folder's: :func:`unread_project_settings`), or None.
    unread: str | None = None

    @property
    def key_warnings(self) -> tuple[str, ...]:
        """The ``warnings`` of keys that set nothing (``config.toml``'s, ``.env``'s), which
        every command reading settings says (:attr:`SETTING_WARNING_MARK`): the command then
        runs with the default of a value its user thinks set (qa77 F10)."""
        return tuple(w for w in self.warnings if w != self.unread)

    def _value(self, key: str) -> Any:
        if key in self.problems:
            self.check()
        return self.read.get(key, SETTING_DEFAULTS[key])

    def check(self) -> None:
        """Raise the :class:`UserInputError` of every value that could not be read (one
        refused value: its own error, as it was raised, which may name an option; several:
        all of them and the unknown keys, where a misspelt key is often the cause)."""
        problems = list(self.problems.values())
        if len(problems) == 1:
            raise problems[0]
        if problems:
            raise UserInputError("; ".join([*map(str, problems), *self.warnings]))

    @property
    def recall_log(self) -> bool:
        """Append each recall's scores (never its query) to ``.kenning/recall-log.jsonl``."""
        return bool(self._value("recall_log"))

    @property
    def stale_penalty(self) -> float:
        """How much lower a stale memory ranks (:data:`kenning.freshness.STALE_PENALTY`)."""
        return float(self._value("stale_penalty"))

    @property
    def recall_floor(self) -> float:
        """The recall protocol's floor (a project may measure its own: ``calibrate
        --write``)."""
        return float(self._value("recall_floor"))

    @property
    def error_recall_floor(self) -> float:
        """The recall protocol's floor for error queries and error fixes."""
        return float(self._value("error_recall_floor"))

    def threshold(self) -> float | None:
        """Search's similarity threshold; None: the default measured for the store's
        embedder (:mod:`kenning.thresholds`)."""
        value: float | None = self._value("similarity_threshold")
        return value

    def half_lives(self) -> Mapping[str, float]:
        """The decay half-lives set, by type or collection (the others: the defaults)."""
        value: Mapping[str, float] = self._value("half_life_overrides")
        return value


#: What :class:`Settings` holds where nothing sets a value, or it could not be read.
SETTING_DEFAULTS: Mapping[str, Any] = {
    "similarity_threshold": None,
    "half_life_overrides": {},
    "recall_log": False,
    "stale_penalty": STALE_PENALTY,
    "recall_floor": RECALL_FLOOR,
    "error_recall_floor": ERROR_RECALL_FLOOR,
}


@dataclass(frozen=True)
class SettingsFiles:
    """Where a store's settings are read from, so that a store kept open (the MCP server,
    the web page) reads them again once ``config.toml`` or ``.env`` changed — after a
    ``kenning calibrate --write``, say — as the next command would."""

    project_root: Path | None
    store_dir: Path | None
    threshold: float | None = None

    @property
    def config_toml(self) -> Path | None:
        """The ``config.toml`` these settings are read from (there or not)."""
        toml_dir = self.store_dir or (self.project_root / ".kenning" if self.project_root else None)
        return toml_dir / CONFIG_FILENAME if toml_dir else None

    def signature(self) -> tuple[tuple[int, ...] | None, ...]:
        """What changes when either file is written, replaced or removed (a ``stat`` each)."""
        paths = (
            self.config_toml,
            self.project_root / ".env" if self.project_root else None,
        )
        found: list[tuple[int, ...] | None] = []
        for path in paths:
            try:
                st = os.stat(path) if path is not None else None
            except OSError:
                st = None
            found.append(
                None if st is None else (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
            )
        return tuple(found)

    def load(self) -> Settings:
        return load_settings(self.project_root, self.store_dir, self.threshold)


#: What ``config.toml`` may hold: its settings, and the ``[decay]`` table's.
CONFIG_KEYS = (
    "similarity_threshold",
    "recall_floor",
    "error_recall_floor",
    "recall_log",
    "stale_penalty",
    "decay",
)
DECAY_KEYS = ("half_life",)
#: What a project's ``.env`` may set: the project settings (the table above).
DOTENV_KEYS = (
    "KENNING_STORE",
    "KENNING_PROJECT",
    "KENNING_SIMILARITY_THRESHOLD",
    "KENNING_RECALL_FLOOR",
    "KENNING_ERROR_RECALL_FLOOR",
    "KENNING_DECAY_HALF_LIFE",
    "KENNING_RECALL_LOG",
    "KENNING_STALE_PENALTY",
)
#: Read from the process environment only (needed before a project, and its .env, is known).
PROCESS_KEYS = (
    "KENNING_MODEL_DIR",
    "KENNING_CACHE_DIR",
    "KENNING_EMBEDDER",
    "KENNING_SECRETS_FILE",
    "KENNING_LOG_LEVEL",
    "KENNING_HOOK_TIMEOUT",
    "KENNING_ANN_MIN_ROWS",
)
#: Every ``KENNING_*`` variable a setting reads (what an agent's MCP entry must pass on).
SETTING_VARIABLES = (*DOTENV_KEYS, *PROCESS_KEYS)


def config_warnings(folder: Path) -> tuple[str, ...]:
    """:func:`unknown_keys` of ``folder``'s ``config.toml`` (none when there is no file);
    :class:`UserInputError` when the file cannot be read as TOML."""
    path = folder / CONFIG_FILENAME
    return unknown_keys(_read_toml(path), path)


def unknown_keys(toml: Mapping[str, Any], path: Path) -> tuple[str, ...]:
    """One sentence per key of ``toml`` (read from ``path``) that no setting reads."""
    import difflib

    found = []
    tables: list[tuple[str, Mapping[str, Any], tuple[str, ...]]] = [("", toml, CONFIG_KEYS)]
    decay = toml.get("decay")
    if isinstance(decay, Mapping):
        tables.append(("decay.", decay, DECAY_KEYS))
    for prefix, table, known in tables:
        for key in table:
            if key in known:
                continue
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            # TOML puts every key written after `[decay]` inside that table: a top-level
            # setting appended to the file lands there (qa76 F1)
            settings = [k for k in CONFIG_KEYS if k != "decay"]
            top = difflib.get_close_matches(key, settings, n=1, cutoff=0.8)
            if prefix == "decay." and top:
                meant = "" if top[0] == key else f"did you mean {top[0]}? "
                hint = (
                    f"{meant}{top[0]} is a top-level setting, and a key written below the "
                    f"[decay] line belongs to that table: move `{top[0]} = …` above [decay]"
                )
            elif close:
                hint = f"did you mean {prefix}{close[0]}?"
            elif not prefix and key in DECAY_KEYS:
                hint = f"it goes in a [decay] table: a line `[decay]` above `{key} = …`"
            elif prefix == "decay.":
                hint = f"half-lives go in half_life = {{ {key} = … }}"
            else:
                hint = f"the keys are {', '.join(known)}"
            found.append(f"{path}: {prefix}{key} is no setting and is ignored; {hint}")
    return tuple(found)


def dotenv_warnings(keys: Iterable[str], path: Path) -> tuple[str, ...]:
    """One sentence per ``KENNING_*`` key of the ``.env`` at ``path`` that sets nothing: a
    misspelt one, or one read from the process environment only."""
    import difflib

    found = []
    for key in keys:
        if key in DOTENV_KEYS:
            continue
        if key in PROCESS_KEYS:
            found.append(
                f"{path}: {key} is read from the process environment only and .env does not "
                "set it; export it where kenning runs (the shell, the agent's settings)"
            )
            continue
        close = difflib.get_close_matches(key, DOTENV_KEYS + PROCESS_KEYS, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else f"the keys are {', '.join(DOTENV_KEYS)}"
        found.append(f"{path}: {key} is no setting and is ignored; {hint}")
    return tuple(found)


def unread_project_settings(project_root: Path | None, store_dir: Path | None) -> str | None:
    """The sentence saying that the project's ``.kenning/config.toml`` is not read, when a
    store elsewhere (``KENNING_STORE``, ``--store``) reads the ``config.toml`` of its own
    folder: the project's settings (committed, shared with the team) would otherwise be
    left aside without a word. None when it is read, or there is none."""
    if project_root is None or store_dir is None:
        return None
    beside = project_root / ".kenning" / CONFIG_FILENAME
    try:
        if not beside.is_file() or store_dir.resolve() == beside.parent.resolve():
            return None
    except OSError:
        return None
    return (
        f"{beside} is not read: the store in use is in {store_dir}, whose {CONFIG_FILENAME} "
        "holds its settings; copy the settings there (or use the project's own store)"
    )


def _read_toml(path: Path) -> dict[str, Any]:
    if path.is_file():
        pass
    elif path.is_symlink():  # to nothing (or to a folder): the settings meant are not read
        raise UserInputError(
            f"{path} is a symlink to {os.readlink(path)}, which is no file; point it at the "
            "settings file or remove it"
        )
    elif path.exists():  # a folder (`docker run -v` makes one for a file missing on the host)
        raise UserInputError(
            f"{path} is a folder, not a settings file; remove it (settings go in a TOML file "
            "of that name)"
        )
    else:
        return {}
    try:
        return tomllib.loads(_without_bom(path.read_bytes().decode("utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserInputError(f"cannot read {path}: {exc}; fix or remove the file") from exc


def _without_bom(text: str) -> str:
    """``text`` without the byte order mark Windows editors (Notepad, PowerShell's
    ``Out-File``) put before UTF-8: TOML has no place for it, so a file saved that way failed
    every command at "line 1, column 1" with nothing visible there."""
    return text.removeprefix("\ufeff")


@dataclass(frozen=True)
class DotenvRead:
    """What a project's ``.env`` gave kenning: its ``KENNING_*`` values, and why settings it
    holds (or may hold) are not read, one sentence each (every command says them once on
    stderr, :func:`_read_dotenv`; ``kenning doctor`` in its settings check)."""

    values: Mapping[str, str]
    #: Why the file is not read at all (a folder, a broken symlink, no permission, not
    #: text); None when it is read.
    unreadable: str | None = None
    #: One sentence per ``KENNING_*`` line that is not read (unbalanced quotes, bytes that
    #: are not UTF-8).
    unread_lines: tuple[str, ...] = ()

    @property
    def problems(self) -> tuple[str, ...]:
        return ((self.unreadable,) if self.unreadable else ()) + self.unread_lines


def read_dotenv(path: Path) -> DotenvRead:
    """The ``KENNING_*`` values of the ``.env`` at ``path`` (none when there is no file), and
    why any are not read.

    The file belongs to other tools too, so a problem is never an error: a folder, a broken
    symlink or a file that cannot be read gives no values (``unreadable`` says why). A file
    with a UTF-16 byte order mark (what Windows PowerShell's ``>`` writes) is read as UTF-16;
    any other is read as UTF-8 line by line: bytes that do not decode cost only the line
    they are on, so another tool's line in another encoding does not stop kenning, but a
    ``KENNING_*`` line holding such bytes is not read and is named (taken with the bytes
    replaced, its value would be another store path or project id than the one meant)."""
    if not path.is_file():
        if path.is_symlink():
            return DotenvRead(
                {}, _not_read(path, f"is a symlink to {os.readlink(path)}, which is no file")
            )
        if path.exists():  # a folder (`docker run -v` makes one for a file missing on the host)
            return DotenvRead({}, _not_read(path, "is a folder, not a settings file"))
        return DotenvRead({})
    import io

    from dotenv import dotenv_values

    try:
        raw = path.read_bytes()
    except OSError as exc:
        return DotenvRead({}, _not_read(path, f"cannot be read ({exc.strerror or exc})"))
    undecodable: set[int] = set()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = raw.decode("utf-16", "replace")
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            for number, raw_line in enumerate(_DOTENV_LINE_END_BYTES.split(raw), 1):
                try:
                    raw_line.decode("utf-8")
                except UnicodeDecodeError:
                    undecodable.add(number)
    if "\x00" in text:
        # UTF-16 without its byte order mark reads as a NUL beside every ASCII character; a
        # stray NUL in UTF-8 text is named by its line (qa80 F4: "save it as UTF-8" fixed
        # nothing for a file that was UTF-8)
        if text.count("\x00") * 4 >= len(text):
            why, fix = "is not UTF-8 text (UTF-16 without a byte order mark?)", "save it as UTF-8"
        else:
            nul_line = len(_DOTENV_LINE_END.split(text[: text.index("\x00")]))
            why, fix = f"holds a NUL character on line {nul_line}", "remove it"
        return DotenvRead({}, _not_read(path, why, fix))
    _quiet_dotenv()
    values = dotenv_values(stream=io.StringIO(text))
    found = {k: v for k, v in values.items() if k.startswith(PREFIX) and v is not None}
    unread: list[str] = []
    for number, line in enumerate(_DOTENV_LINE_END.split(text), 1):
        match = _KENNING_LINE.match(line)
        if match is None:
            continue
        variable = match.group(1)
        if number in undecodable:
            found.pop(variable, None)
            unread.append(
                f"{path} line {number} sets {variable} with bytes that are not UTF-8; it is "
                "ignored until the file is saved as UTF-8"
            )
        elif variable not in found:
            unread.append(
                f"{path} line {number} sets {variable} in a form .env files cannot hold "
                "(unbalanced quotes?); it is ignored until fixed"
            )
    return DotenvRead(found, None, tuple(unread))


def _not_read(path: Path, why: str, fix: str = "fix it (or remove it)") -> str:
    return (
        f"{path} {why}, so the KENNING_* settings it may hold are not read; {fix} for them to apply"
    )


def _read_dotenv(path: Path) -> dict[str, str]:
    """:func:`read_dotenv`'s values, each of its problems said once a process on stderr:
    the ``KENNING_*`` settings the file holds (the store, the project, the floors) would not
    apply without a word. Never an error: every command and hook goes on without them."""
    read = read_dotenv(path)
    for problem in read.problems:
        if problem not in _SAID:
            _SAID.add(problem)
            log.warning("kenning: %s", problem)
    return dict(read.values)


#: Where a .env line ends, as python-dotenv reads it: a file saved with \r alone (classic
#: Mac) or \r\n is as many lines as with \n, so its problems name the line an editor shows.
_DOTENV_LINE_END = lazy(r"\r\n|\n|\r")
_DOTENV_LINE_END_BYTES = re.compile(rb"\r\n|\n|\r")

#: A line of a .env that sets one of kenning's variables.
_KENNING_LINE = lazy(rf"\s*(?:export\s+)?({PREFIX}[A-Za-z0-9_]+)\s*=")
#: The problems of .env files already said: every command reads .env twice
_SAID: set[str] = set()


class _NoParseWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "could not parse" not in record.getMessage()


def _quiet_dotenv() -> None:
    """python-dotenv warns of every line it cannot parse, unnamed and once per read (three
    times a command, on every MCP call and in every hook) — lines of the other tools that
    share the project's .env, which kenning does not read; kenning names its own instead."""
    dotenv_log = logging.getLogger("dotenv.main")
    if not any(isinstance(f, _NoParseWarnings) for f in dotenv_log.filters):
        dotenv_log.addFilter(_NoParseWarnings())


def project_variable(
    name: str, project_root: Path | None, environ: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """A project-level ``KENNING_*`` value and where it came from: the environment, else the
    project's ``.env``; ``(None, "default")`` when neither sets it (or sets it blank)."""
    env = os.environ if environ is None else environ
    value = env.get(name, "").strip()
    if value:
        return value, "environment"
    if project_root is not None:
        value = _read_dotenv(project_root / ".env").get(name, "").strip()
        if value:
            return value, ".env"
    return None, "default"


def embedder_name(environ: Mapping[str, str] | None = None) -> str:
    """``KENNING_EMBEDDER``: the embedder a store is opened with (default ``minilm``)."""
    env = os.environ if environ is None else environ
    return env.get("KENNING_EMBEDDER", "").strip() or DEFAULT_EMBEDDER


def model_dir(environ: Mapping[str, str] | None = None) -> str | None:
    """``KENNING_MODEL_DIR``: a local folder with another model of MiniLM's architecture."""
    env = os.environ if environ is None else environ
    return env.get("KENNING_MODEL_DIR", "").strip() or None


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the built ONNX graph is cached: ``KENNING_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/kenning``, else ``~/.cache/kenning``, else (no home folder: ``HOME``
    unset, empty, relative or the root) ``kenning-cache-<uid>`` in the temporary folder
    (not created here)."""
    env = os.environ if environ is None else environ
    explicit = _absolute(env.get("KENNING_CACHE_DIR", ""))
    if explicit is not None:
        return explicit
    if env.get("KENNING_CACHE_DIR", "").strip():
        logging.getLogger("kenning").warning(
            "kenning: KENNING_CACHE_DIR=%r is not an absolute path%s; using the default cache "
            "(a relative one would put the model in whatever folder kenning runs in)",
            env["KENNING_CACHE_DIR"][:200],
            " (its ~ names no user of this machine)"
            if env["KENNING_CACHE_DIR"].strip().startswith("~")
            else "",
        )
    xdg = _absolute(env.get("XDG_CACHE_HOME", ""))  # the XDG spec: ignore a relative one
    if xdg is not None:
        return xdg / "kenning"
    home = _absolute(env["HOME"] if environ is not None and "HOME" in env else "~")
    # "~" with HOME empty expands to the filesystem root, and a container gives a user it
    # has no entry for HOME=/: the model went to /.cache/kenning, at the root
    if home is not None and home != Path(home.anchor):
        return home / ".cache" / "kenning"
    # no usable home (HOME unset, empty, relative or the root): never the current folder
    import tempfile

    return Path(tempfile.gettempdir()) / f"kenning-cache-{getattr(os, 'getuid', lambda: 0)()}"


#: A server URL that lost its ``//`` (``qdrant:host``, ``postgresql:app@db/x``): taken as a
#: path it became a folder of that name in the checkout, the store's notes in it.
_URL_WITHOUT_SLASHES = lazy(r"(?:postgres(?:ql)?|https?|qdrant)(?:\+\w+)?:(?!//)", re.I)
#: The forms a store location takes, for the errors that refuse one.
STORE_FORMS = (
    "http(s)://HOST[:PORT] for a Qdrant server (for example https://qdrant.internal:6333), "
    "postgresql://USER@HOST[:PORT]/DATABASE for PostgreSQL, qdrant-local:<folder> for "
    "Qdrant's local mode, or a file path"
)


#: How a store location names Qdrant's local mode: ``qdrant-local:<folder>``.
QDRANT_LOCAL_PREFIX = "qdrant-local:"


def is_store_url(location: str | os.PathLike[str]) -> bool:
    """Whether a store location names no file path: a server URL (``scheme://…``) or Qdrant's
    local mode (``qdrant-local:<folder>``), which :mod:`kenning.backends.registry` opens as
    given. A server URL without its ``//`` is neither: a :class:`UserInputError` (write
    ``./name`` for a folder of such a name)."""
    text = os.fspath(location).strip()
    if text.lower().startswith(QDRANT_LOCAL_PREFIX):
        return True
    if text == ":memory:":
        # SQLite's and Qdrant's name for a store in memory: taken as a path it became a
        # folder of that name in the checkout, and one in memory is gone when kenning exits
        raise UserInputError(
            "kenning cannot use the store ':memory:': a store in memory is gone when kenning "
            "exits, so nothing it keeps would be recalled; write qdrant-local:<folder> for "
            "Qdrant's local mode, a file path such as .kenning/memory.db, or a server URL "
            "(./:memory: for a folder of that name)"
        )
    missing = _URL_WITHOUT_SLASHES.match(text) if "://" not in text else None
    if missing is not None:
        from .redaction import redact_url

        # shown as the URL it was meant to be, so that its password is found and dropped
        meant = redact_url(f"{text[: missing.end()]}//{text[missing.end() :]}")
        shown = meant.replace("://", ":", 1)
        raise UserInputError(
            f"kenning cannot use the store {shown!r}: it looks like a server URL without its "
            f"// (did you mean {meant!r}?); write {STORE_FORMS} (./{shown} for a folder of "
            "that name)"
        )
    conninfo = _libpq_conninfo(text)
    if conninfo is not None:
        raise UserInputError(
            "kenning cannot use the store: it is a libpq connection string (key=value pairs "
            "such as host=… dbname=…), which kenning does not read; write it as a URL: "
            f"{_conninfo_as_url(conninfo)!r} (its password in the URL, PGPASSWORD or "
            "~/.pgpass), or ./<name> for a folder of such a name"
        )
    return "://" in text


def _libpq_conninfo(text: str) -> dict[str, str] | None:
    """``text`` as libpq's keyword/value connection string (``host=db dbname=memory user=app
    password=…``, which psql and psycopg take), parsed by libpq itself; None when it is not
    one (taken as a path it became a folder of that name in the checkout, the password in
    its name and in every message naming the store)."""
    if "=" not in text or "://" in text:  # (libpq reads a URL too; psycopg loaded only here)
        return None
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        parsed = conninfo_to_dict(text)
    except psycopg.ProgrammingError:  # no key=value pairs, or a key libpq does not know
        return None
    return {key: str(value) for key, value in parsed.items()} if parsed else None


def _conninfo_as_url(pairs: dict[str, str]) -> str:
    """The ``postgresql://`` URL libpq's keyword/value ``pairs`` mean, without the password
    (a message shows it)."""
    from urllib.parse import quote, urlencode

    pairs = dict(pairs)
    pairs.pop("password", None)
    pairs.pop("sslpassword", None)
    user = pairs.pop("user", "")
    host = pairs.pop("host", "") or pairs.pop("hostaddr", "")
    if ":" in host and not host.startswith("["):  # an IPv6 address
        host = f"[{host}]"
    port = pairs.pop("port", "")
    database = quote(pairs.pop("dbname", ""), safe="")
    netloc = (quote(user, safe="") + "@" if user else "") + host + (f":{port}" if port else "")
    query = f"?{urlencode(pairs)}" if pairs else ""
    return f"postgresql://{netloc}/{database}{query}"


def expand_home(value: str | os.PathLike[str], what: str) -> Path:
    """``value`` as a path with a leading ``~`` or ``~user`` expanded; a
    :class:`UserInputError` naming ``what`` (the variable or option it came from) when there
    is no such user or no home folder to put in its place (pathlib raises a bare
    RuntimeError then)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        text = str(value)
        user = text[1:].split("/", 1)[0]
        why = f"there is no user {user!r} on this machine" if user else "HOME is not set"
        raise UserInputError(
            f"{what} is {text[:120]!r}: its leading ~{user} stands for no home folder "
            f"({why}); write the path out in full"
        ) from None


def _absolute(value: str) -> Path | None:
    """``value`` with ``~`` expanded, when that is an absolute path; else None."""
    value = value.strip()
    if not value:
        return None
    try:
        path = Path(value).expanduser()
    except RuntimeError:  # "~someone" with no such user
        return None
    return path if path.is_absolute() else None


def log_level(environ: Mapping[str, str] | None = None) -> str:
    """``KENNING_LOG_LEVEL`` for the MCP server's stderr log (default ``WARNING``)."""
    env = os.environ if environ is None else environ
    return (env.get("KENNING_LOG_LEVEL", "").strip() or "WARNING").upper()


def claude_project_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """``CLAUDE_PROJECT_DIR``: the project Claude Code started this process for (it sets the
    variable for the MCP servers and hooks it spawns); None when unset or blank."""
    env = os.environ if environ is None else environ
    value = env.get("CLAUDE_PROJECT_DIR", "").strip()
    return expand_home(value, "CLAUDE_PROJECT_DIR") if value else None


def secrets_file(environ: Mapping[str, str] | None = None) -> Path | None:
    """``KENNING_SECRETS_FILE``: the file that pins the Qdrant API key, when set."""
    env = os.environ if environ is None else environ
    explicit = env.get("KENNING_SECRETS_FILE", "").strip()
    return expand_home(explicit, "KENNING_SECRETS_FILE") if explicit else None


def hook_timeout(
    default: float, environ: Mapping[str, str] | None = None
) -> tuple[float, str | None]:
    """``KENNING_HOOK_TIMEOUT`` in seconds, and why it was ignored when it was (a hook then
    uses ``default`` and says so on stderr): it must be a number above 0 and at most
    :data:`MAX_HOOK_TIMEOUT_S`."""
    env = os.environ if environ is None else environ
    raw = env.get("KENNING_HOOK_TIMEOUT", "").strip()
    if not raw:
        return default, None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_HOOK_TIMEOUT_S):
        return default, (
            f"KENNING_HOOK_TIMEOUT={raw!r} is not a number of seconds between 0 and "
            f"{MAX_HOOK_TIMEOUT_S:g}; using {default:g}"
        )
    return value, None


def connect_timeout_within(budget: float) -> int:
    """The most seconds a server store's connection may wait in a process that must be done
    in ``budget`` seconds (a hook): half of them, so that a server that never answers (a
    firewall dropping the packets) is said as a server that is down is ("knowledge base NOT
    consulted: …"), not cut off by the budget's end with nothing said to the user. A backend
    waits less when its own default is shorter. Never below libpq's least
    (:data:`MIN_STORE_CONNECT_TIMEOUT_S`): a budget under about 3 s may still run out first."""
    return max(MIN_STORE_CONNECT_TIMEOUT_S, int(budget / 2))


def ann_min_rows(default: int, environ: Mapping[str, str] | None = None) -> int | None:
    """``KENNING_ANN_MIN_ROWS``: the rows an embedded (SQLite) search may return from which
    it asks the approximate index (:mod:`kenning.backends.annindex`) instead of scanning;
    ``default`` when unset, None for ``off``. Anything else is refused, naming the value."""
    env = os.environ if environ is None else environ
    raw = env.get("KENNING_ANN_MIN_ROWS", "").strip()
    if not raw:
        return default
    if raw.lower() == "off":
        return None
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = -1
    if value < 1:
        raise UserInputError(
            f"KENNING_ANN_MIN_ROWS={raw!r} is not a number of rows (1 or more) or 'off'; "
            f"unset it for the default ({default:,})"
        )
    return value


def process_problems(ann_default: int, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What is wrong with the process settings (environment only), one sentence each: a
    value every search refuses (``KENNING_ANN_MIN_ROWS``, whose default is ``ann_default``),
    or one that is set aside for the default (``KENNING_HOOK_TIMEOUT``,
    ``KENNING_LOG_LEVEL``, a relative ``KENNING_CACHE_DIR``). ``kenning doctor`` names them."""
    env = os.environ if environ is None else environ
    found = []
    try:
        ann_min_rows(ann_default, env)
    except UserInputError as exc:
        found.append(f"{exc} (every search of an embedded store fails until then)")
    _, why = hook_timeout(DEFAULT_HOOK_TIMEOUT_S, env)
    if why is not None:
        found.append(f"{why} (every hook says so)")
    raw_level = env.get("KENNING_LOG_LEVEL", "").strip()
    if raw_level and log_level(env) not in LOG_LEVELS:
        found.append(
            f"KENNING_LOG_LEVEL={raw_level[:40]!r} is no log level ({', '.join(LOG_LEVELS)}); "
            "the MCP server logs at WARNING"
        )
    raw_cache = env.get("KENNING_CACHE_DIR", "").strip()
    if raw_cache and _absolute(raw_cache) is None:
        found.append(
            f"KENNING_CACHE_DIR={raw_cache[:120]!r} is not an absolute path; the default cache "
            f"({cache_dir({k: v for k, v in env.items() if k != 'KENNING_CACHE_DIR'})}) is used"
        )
    return tuple(found)


def parse_threshold(value: Any, origin: str) -> float:
    """The similarity threshold: a number between 0 and 1 (a TOML boolean is none). From the
    ``threshold`` argument (``origin`` "argument"), the error is that parameter's."""
    number = _unit_interval(value)
    if number is None:
        after = f" is {value!r}; expected a number between 0 and 1"
        if origin == "argument":
            raise UserInputError.of_parameter(
                "threshold", f"similarity threshold from {origin}", after
            )
        raise UserInputError(f"similarity threshold from {origin}{after}")
    return number


def load_settings(
    project_root: Path | None,
    store_dir: Path | None = None,
    threshold: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge the layers above into one :class:`Settings`."""
    from .scoring import layered_half_lives, parse_half_life_overrides

    env = os.environ if environ is None else environ
    toml: dict[str, Any] = {}
    dotenv: dict[str, str] = {}
    toml_path = store_dir or ((project_root / ".kenning") if project_root else None)
    if toml_path is not None:
        toml = _read_toml(toml_path / CONFIG_FILENAME)
    if project_root is not None:
        dotenv = _read_dotenv(project_root / ".env")

    toml_origin = f"{toml_path}/{CONFIG_FILENAME}"
    warnings = unknown_keys(toml, Path(toml_origin)) if toml else ()
    if project_root is not None and dotenv:
        warnings += dotenv_warnings(dotenv, project_root / ".env")
    unread = unread_project_settings(project_root, store_dir)
    if unread is not None:
        warnings += (unread,)

    def layered(
        variable: str, default: Any, section: Any = toml, key: str | None = None
    ) -> tuple[Any, str]:
        """One setting's value and where it came from: environment > ``.env`` >
        ``config.toml`` (``key`` of ``section``) > ``default``."""
        value, origin = default, "default"
        name = key or variable.removeprefix(PREFIX).lower()
        if isinstance(section, Mapping) and name in section:
            value, origin = section[name], toml_origin
        # a blank variable is an unset one, as KENNING_STORE's and KENNING_PROJECT's are
        # (project_variable): `KENNING_RECALL_LOG=` must not turn off config.toml's setting
        if dotenv.get(variable, "").strip():
            value, origin = dotenv[variable], ".env"
        if env.get(variable, "").strip():
            value, origin = env[variable], "environment"
        return value, origin

    def said(origin: str, variable: str) -> str:
        """Where a refused value came from, as its error names it: the variable to correct,
        and which .env holds it (``sources`` keeps the plain layer names)."""
        if origin == "environment":
            return f"the environment ({variable})"
        if origin == ".env":
            return f"{project_root / '.env' if project_root else '.env'} ({variable})"
        return origin

    # every value refused is kept by its key, said by the reads that use it (each naming
    # every value refused: doctor named one a run, three mistakes, three runs)
    problems: dict[str, UserInputError] = {}
    read: dict[str, Any] = {}

    def checked(key: str, parse: Callable[..., Any], *args: Any) -> None:
        try:
            read[key] = parse(*args)
        except UserInputError as exc:
            problems[key] = exc

    sources: dict[str, str] = {}
    value, origin = layered("KENNING_SIMILARITY_THRESHOLD", None)
    if threshold is not None:
        value, origin = threshold, "argument"
    if value is not None:
        checked(
            "similarity_threshold",
            parse_threshold,
            value,
            said(origin, "KENNING_SIMILARITY_THRESHOLD"),
        )
    sources["similarity_threshold"] = origin

    for key, default in (
        ("recall_floor", RECALL_FLOOR),
        ("error_recall_floor", ERROR_RECALL_FLOOR),
    ):
        floor_value, origin = layered(PREFIX + key.upper(), default)
        checked(
            key,
            parse_floor,
            floor_value,
            key.replace("_", " "),
            said(origin, PREFIX + key.upper()),
        )
        sources[key] = origin

    decay_problems: list[UserInputError] = []
    decay = toml.get("decay", {})
    if not isinstance(decay, Mapping):
        # `decay = "error_fix:7"` or `decay = 7` set no half-life: said, never skipped
        decay_problems.append(
            UserInputError(
                f"decay in {toml_origin} is {decay!r:.80}; expected a table: write [decay] "
                'and under it half_life = { error_fix = 7 } (or half_life = "error_fix:7")'
            )
        )
        decay = {}
    # a layer sets the half-lives of the types it names: KENNING_DECAY_HALF_LIFE="error_fix:3"
    # keeps config.toml's other types, as every other setting keeps the layers it does not set
    # (and a collection it names, the types of that collection: scoring.layered_half_lives)
    overrides: dict[str, float] = {}
    origin = "default"
    variable = "KENNING_DECAY_HALF_LIFE"
    for half, layer in (
        (decay.get("half_life"), toml_origin),
        (dotenv.get(variable, "").strip() or None, ".env"),
        (env.get(variable, "").strip() or None, "environment"),
    ):
        if half is None:
            continue
        try:
            overrides = layered_half_lives(overrides, parse_half_life_overrides(half))
        except UserInputError as exc:
            decay_problems.append(
                UserInputError(f"decay half-life from {said(layer, variable)}: {exc}")
            )
            continue
        origin = layer
    read["half_life_overrides"] = overrides
    if decay_problems:
        problems["half_life_overrides"] = (
            decay_problems[0]
            if len(decay_problems) == 1
            else UserInputError("; ".join(map(str, decay_problems)))
        )
    sources["half_life_overrides"] = origin

    log_value, origin = layered("KENNING_RECALL_LOG", False)
    checked("recall_log", parse_switch, log_value, "recall log", said(origin, "KENNING_RECALL_LOG"))
    sources["recall_log"] = origin

    penalty_value, origin = layered("KENNING_STALE_PENALTY", STALE_PENALTY)
    checked(
        "stale_penalty", parse_stale_penalty, penalty_value, said(origin, "KENNING_STALE_PENALTY")
    )
    sources["stale_penalty"] = origin
    return Settings(read=read, problems=problems, sources=sources, warnings=warnings, unread=unread)


#: The attribute set on the log record of a key that sets nothing (:func:`log_key_warnings`),
#: which a command that says those keys itself (stats, doctor) leaves out.
SETTING_WARNING_MARK = "kenning_setting_warning"


def log_key_warnings(settings: Settings) -> None:
    """Log (as warnings, on ``kenning.config``) each key of the settings files that sets
    nothing (:attr:`Settings.key_warnings`) as settings are read: a command, a hook or the
    MCP server reading them says it on stderr, in stats' words, never in its answer; a
    recall run with the default floor the user thinks moved said nothing (qa77 F10)."""
    import logging

    logger = logging.getLogger("kenning.config")
    for warning in settings.key_warnings:
        logger.warning("kenning: %s", warning, extra={SETTING_WARNING_MARK: True})


def _unit_interval(value: Any) -> float | None:
    """``value`` as a number from 0 to 1, or None (not a number, a boolean, not finite, or
    outside)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if isinstance(value, bool) or not math.isfinite(number) or not 0.0 <= number <= 1.0:
        return None
    return number


def parse_floor(value: Any, what: str, origin: str) -> float:
    """A recall floor: a number between 0 and 1."""
    number = _unit_interval(value)
    if number is None:
        raise UserInputError(
            f"{what} from {origin} is {value!r}; expected a number between 0 and 1"
        )
    return number


def update_config_toml(folder: Path, values: Mapping[str, float]) -> Path:
    """Set ``values`` in ``folder/config.toml`` and keep everything else it holds (other
    keys, tables, comments); written atomically (a temporary file beside it, fsynced, then
    renamed into place), never through a symlink. Returns the file's path."""
    import tempfile

    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = folder / CONFIG_FILENAME
    if path.is_symlink() or folder.is_symlink():
        link = path if path.is_symlink() else folder
        raise UserInputError(
            f"refusing to write {path}: {link} is a symlink (the write would land outside "
            "this project); replace the link by a real file or folder"
        )
    if path.exists() and not path.stat().st_mode & 0o222:
        # the rename below needs only the folder's permission (and root writes anything):
        # a file the user made read-only is how they say "leave it as it is"
        raise UserInputError(
            f"{path} is read-only (mode {path.stat().st_mode & 0o777:04o}); make it writable "
            # the path quoted for the shell: a project kept in "~/My Projects" holds a space
            f"(chmod u+w {shlex.quote(str(path))}) to save the values there; nothing was written"
        )
    document = tomlkit.document()
    if path.exists():
        try:
            document = tomlkit.parse(_without_bom(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, TOMLKitError) as exc:
            raise UserInputError(
                f"cannot read {path}: {exc}; fix or remove the file, nothing was written"
            ) from None
    for key, number in values.items():
        document[key] = number
    # the file keeps its mode (a new one gets the umask's): mkstemp makes 0600, and the
    # settings of a store others read too (a shared folder, a CI user) would then fail
    # every command of theirs with "Permission denied"
    if path.exists():
        mode = path.stat().st_mode & 0o7777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{CONFIG_FILENAME}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        # the temporary file's name, as the OS says it, is no file the user knows of
        raise UserInputError(
            f"cannot write {path}: {exc.strerror or exc} (a read-only folder or mount?); make "
            f"{folder} writable (chmod u+w {shlex.quote(str(folder))}) to save the values "
            "there; nothing was written"
        ) from None
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(tomlkit.dumps(document))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def parse_stale_penalty(value: Any, origin: str) -> float:
    """The stale penalty: a number from 0 (stale memories rank as fresh ones) to 1."""
    number = _unit_interval(value)
    if number is None:
        raise UserInputError(
            f"stale penalty from {origin} is {value!r}; expected a number between 0 and 1 "
            "(0 ranks stale memories like fresh ones)"
        )
    return number


def parse_switch(value: Any, what: str, origin: str) -> bool:
    """An on/off setting: a TOML boolean, or ``1/0 true/false yes/no on/off`` as text."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    # (a blank variable never gets here: it is an unset one; a blank value in config.toml
    # is refused, as every other key's is)
    if text in ("0", "false", "no", "off"):
        return False
    raise UserInputError(f"{what} from {origin} is {value!r}; expected 1 or 0 (true or false)")
