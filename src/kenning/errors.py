"""The one exception tree of kenning.

Every error a user can cause or meet derives from :class:`KenningError`, carries a message
that says what was wrong and how to fix it, and an ``exit_code`` the CLI returns:

* 1 — user error (bad input, wrong store, refused write)
* 2 — usage error (unknown option; raised by click, not here)
* 3 — the knowledge base could not be consulted (server down, auth refused)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ContentError",
    "DedupCheckFailed",
    "DuplicateContent",
    "EditConflict",
    "InvalidTypeError",
    "KenningError",
    "NotAKenningStore",
    "ProvenanceMismatch",
    "SchemaTooNew",
    "StoreClosed",
    "StoreCorrupted",
    "StoreInUse",
    "StoreLocationError",
    "StoreNotFound",
    "StoreUnavailable",
    "StoreWriteFailed",
    "UnknownMemoryError",
    "UserInputError",
    "iconv_said",
    "json_error_said",
    "not_utf8",
]


class KenningError(Exception):
    """Base class: a clear, one-line, user-facing error."""

    exit_code = 1


class UserInputError(KenningError):
    """Input that kenning cannot accept (bad value, bad option combination)."""

    #: The parameter whose value was refused, by the Python API's name for it (``top_k``),
    #: when the error is about one; a surface that calls it otherwise (the CLI's
    #: ``--top-k``) says the message with its own name (:meth:`named`).
    parameter: str | None = None
    #: The message around the parameter's name (kept in ``__dict__``: pickled with it).
    _around: tuple[str, str] = ("", "")

    @classmethod
    def of_parameter(
        cls, parameter: str, said: str, after: str, *, before: str = ""
    ) -> UserInputError:
        """The error of ``parameter``'s value: ``before + said + after``, where ``said`` is
        how the Python API names it (``top_k``, ``the group_id argument``)."""
        error = cls(f"{before}{said}{after}")
        error.parameter, error._around = parameter, (before, after)
        return error

    def named(self, name: str) -> str:
        """The message with the parameter called ``name`` (the option a surface has for it);
        the message as it is when it is about no parameter."""
        if self.parameter is None:
            return str(self)
        before, after = self._around
        return f"{before}{name}{after}"


class UnknownMemoryError(UserInputError):
    """An id the store holds in none of the projects it looked in (``group_id`` as given:
    None, this project). The message says the fact; a surface adds how, with its own
    options, to find ids or look in another project."""

    def __init__(self, message: str, memory_id: str, group_id: str | None) -> None:
        super().__init__(message)
        self.memory_id, self.group_id = memory_id, group_id

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled with what __init__ takes (Exception's own reduce passes only the message:
        # raised in a process pool's worker, the error broke the pool)
        return (type(self), (self.args[0], self.memory_id, self.group_id), self.__dict__)


class AmbiguousIdError(UserInputError):
    """An id prefix that starts the ids of more than one memory of the projects looked in:
    ``candidates`` holds them (a few), so that a surface can list them."""

    def __init__(self, message: str, prefix: str, candidates: tuple[str, ...]) -> None:
        super().__init__(message)
        self.prefix, self.candidates = prefix, candidates

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.args[0], self.prefix, self.candidates), self.__dict__)


class ContentError(UserInputError):
    """Memory content that is empty, too long or not valid text."""


class CredentialOnlyContent(ContentError):
    """Content that, its credentials redacted, is nothing but their ``[REDACTED:<kind>]``
    markers, the names they were assigned to and punctuation: it holds no knowledge (an
    import leaves such a note out, as it does an empty one). ``redactions`` counts the
    markers by kind, as the message names them (a refused note's ``redactions``)."""

    def __init__(self, message: str, redactions: Mapping[str, int] | None = None) -> None:
        super().__init__(message)
        self.redactions: dict[str, int] = dict(redactions or {})


class InvalidTypeError(UserInputError):
    """An unknown memory type or collection, or a type outside its collection."""


class EditConflict(UserInputError):
    """An edit made from a memory as it was read, which has changed since (another process,
    an agent, a second tab): nothing was changed; read the memory again and redo the edit."""


class StoreLocationError(KenningError):
    """The resolved store path is outside the project it claims to serve."""


class StoreNotFound(KenningError):
    """There is no store yet for this project (nothing was ever remembered)."""

    #: What creates a store, as the CLI names it in these messages (:meth:`creator_named`).
    CREATOR = "`kenning remember`"
    #: Why this role could not create it, as the first write would say (a server's store,
    #: when its opener asked: ``kenning doctor``); None when it could, or was not asked.
    cannot_create: str | None = None

    def creator_named(self, creator: str) -> str:
        """The message naming ``creator`` as what creates the store: an agent using the MCP
        server has its ``hooks_remember`` tool, and may have no shell to run the CLI."""
        return str(self).replace(self.CREATOR, creator)


class StoreClosed(KenningError):
    """The :class:`~kenning.store.MemoryStore` was closed; open the store again to use it."""

    @classmethod
    def at(cls, location: object) -> StoreClosed:
        """The error for the closed store at ``location``."""
        return cls(f"the store at {location} was closed; open it again with open_store()")


class StoreCorrupted(KenningError):
    """The store file exists but cannot be read as a kenning store."""


class SchemaTooNew(StoreCorrupted):
    """The store was migrated by a newer kenning than this one: nothing is wrong with it,
    this kenning is too old to read it (``kenning doctor`` tells it from damage)."""

    def __init__(
        self, message: str, version: int, understood: int, reader: int | None = None
    ) -> None:
        super().__init__(message)
        self.version, self.understood = version, understood
        #: The oldest schema whose kenning reads the store, when its record says one older
        #: than its version (:mod:`kenning.backends.compat`).
        self.reader = reader

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled with what __init__ takes (Exception's own reduce passes only the message)
        return (type(self), (str(self), self.version, self.understood, self.reader))


class NotAKenningStore(KenningError):
    """The file is a database of some other application: kenning neither reads nor
    changes it."""


class StoreWriteFailed(KenningError):
    """The disk refused a write (full, failing, over a size limit), or another process held
    the store's write lock past the busy timeout; the write that failed changed nothing, and
    the same write can be tried again once the disk or that process allows it."""


class DiskFull(StoreWriteFailed):
    """The disk holding the store had no room for the write (SQLite's SQLITE_FULL)."""


class ProvenanceMismatch(KenningError):
    """The store was embedded with another model; mixing vectors is refused."""


class DuplicateContent(KenningError):
    """A write would store the same content twice in one project (every backend keeps
    ``(group_id, content_hash)`` unique); nothing was written."""


class DedupCheckFailed(KenningError):
    """The duplicate check could not run, so nothing was written."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a long write (a migration, an import): the message says what state it
    left and what to do (exit 130, as for any interrupt)."""


#: How a backend's :class:`StoreUnavailable` begins: what a reader of recall (an agent) must
#: be told, its answer holds no memory. A command that writes (remember, import, migrate
#: into another store) says the :attr:`StoreUnavailable.reason` alone, and what it did not do.
NOT_CONSULTED = "knowledge base NOT consulted: "


#: What a write did not do when its store could not be reached at all (its connection
#: refused, a local folder another process holds): said after the reason, by the CLI's
#: commands and the MCP tools alike (:meth:`StoreUnavailable.as_the_write_says`).
NOT_DONE = {
    "remember": "the note was not stored",
    "edit": "nothing was edited",
    "forget": "nothing was forgotten",
    "move": "nothing was moved",
    "import": "nothing was imported",
    "migrate": "nothing was copied",
    "reembed": "nothing was re-embedded",
    "seed-solutions": "nothing was seeded",
}


class StoreUnavailable(KenningError):
    """A server backend is down or refused the credentials: knowledge base NOT consulted."""

    exit_code = 3

    @property
    def reason(self) -> str:
        """The message without :data:`NOT_CONSULTED`: what was wrong and the fix."""
        return str(self).removeprefix(NOT_CONSULTED)

    @property
    def nothing_sent(self) -> bool:
        """Whether the store was never reached (its connection refused), so nothing of a
        write was sent; a server lost later may have taken one (its reason says what to
        check)."""
        return self.reason.startswith("cannot connect to ")

    def as_the_write_says(self, write: str) -> str:
        """How the write ``write`` (a key of :data:`NOT_DONE`) says this: the reason without
        recall's "knowledge base NOT consulted" (an agent's answer without memory; it read
        oddly for a note not stored), then, when nothing was sent, what it did not do."""
        said, not_done = self.reason, NOT_DONE[write]
        if self.nothing_sent and not said.endswith(not_done):
            return f"{said}; {not_done}"
        return said


class StoreInUse(StoreUnavailable):
    """A local store folder (``qdrant-local:``) another process holds: it was not opened,
    so nothing of a write was sent."""

    @property
    def nothing_sent(self) -> bool:
        return True


#: The byte order marks UTF-16 text starts with (little- and big-endian), as Windows tools
#: (PowerShell's ``>``, Notepad's "Unicode") write it.
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF16_ICONV = "iconv -f UTF-16 -t UTF-8"
#: UTF-32's (little-endian's starts as UTF-16's does; big-endian's NULs read as UTF-8).
UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
UTF32_ICONV = "iconv -f UTF-32 -t UTF-8"
LATIN1_ICONV = "iconv -f LATIN1 -t UTF-8"


def not_utf8(
    data: bytes, start: int, place: int | None = None, line: int | None = None
) -> tuple[str, str]:
    """What is wrong with ``data``, which is not UTF-8 from ``data[start]`` on, and the
    command that re-encodes it: ``(" at byte 5 (0xE9)", "iconv -f LATIN1 -t UTF-8")``, the
    place said being ``place`` (``start`` by default; ``-1``: unknown, as of a stream read
    in chunks) and ``line`` its line when known; of UTF-16 text with its byte order mark
    ``(": it is UTF-16 (it starts with the byte order mark FF FE)", "iconv -f UTF-16 -t
    UTF-8")``. "(byte 1)" read as the byte's value (qa81 F5), and a UTF-16 file was only
    "not valid UTF-8 (byte 0)"."""
    at = start if place is None else place
    if at in (0, 2) and start <= 2 and data[:4] in UTF32_BOMS:  # (qa83 F10)
        mark = " ".join(f"{b:02X}" for b in data[:4])
        return f": it is UTF-32 (it starts with the byte order mark {mark})", UTF32_ICONV
    if at == 0 and data[:2] in UTF16_BOMS:
        mark = f"{data[0]:02X} {data[1]:02X}"
        return f": it is UTF-16 (it starts with the byte order mark {mark})", UTF16_ICONV
    byte = f"0x{data[start]:02X}"
    if at < 0:
        return f" (a byte {byte} in it)", LATIN1_ICONV
    return f" at byte {at} ({byte}{'' if line is None else f', on line {line}'})", LATIN1_ICONV


def iconv_said(command: str, target: str = "") -> str:
    """``command`` (of :func:`not_utf8`) as advice: run on ``target`` (``FILE | kenning
    import -``) or, without one, to pipe the input through; a guess of Latin-1 said as one."""
    run = f"{command} {target}" if target else f"pipe it through {command}"
    return run if command in (UTF16_ICONV, UTF32_ICONV) else f"{run}, if it is Latin-1"


def json_error_said(exc: json.JSONDecodeError, *, with_line: bool = False) -> str:
    """What is wrong with a line ``json`` refused, and where in it (``with_line``: and the
    line, of a text of many): its message ends with "at" for some errors (``Unterminated
    string starting at``, ``Invalid control character at``), the place being apart."""
    at = "" if exc.msg.endswith(" at") else " at"
    line = f" line {exc.lineno}" if with_line else ""
    return f"{exc.msg}{at}{line} column {exc.colno}"
