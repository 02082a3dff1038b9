"""The documents memories point to: which one, whether it may be read, and reading it.

A memory names a document in its ``source`` field, or (an ERROR-FIX entry without one) in
the ``SOURCE:`` part of its text. Either way the path is stored data, not a trusted path:
before any surface shows it as readable or reads it, :func:`check_source` runs
:func:`kenning.safety.validate_source_path` against the project's files and fails closed.
Recall and search results carry the check (``source_ok``); ``kenning source ID`` and the
MCP tool ``read_source`` are built on :func:`check_source` and :func:`read_document`.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UserInputError
from .lazyre import lazy
from .model import BROKEN_LINK, BROKEN_LINK_FIX, Memory, SourceCheck
from .safety import (
    BrokenSymlinkError,
    UnsafePathError,
    names_nothing,
    quoted_path,
    resolve_inside,
)

__all__ = [
    "SOURCE_READ_LIMIT",
    "MissingSourceError",
    "NotADocumentError",
    "SourceDocument",
    "UnreadableSourceError",
    "check_document",
    "check_source",
    "read_document",
    "source_of",
    "unreadable_fix",
    "unreadable_reason",
]

#: At most this many bytes of a document are returned by ``read_source`` (64 KiB: a
#: solution document is a few KiB; more would crowd an agent's context).
SOURCE_READ_LIMIT = 64 * 1024
#: Read past the limit, so that a credential the cut goes through is redacted whole: a
#: private key's block (a 4096-bit RSA key's ~3.2 KiB) with its end line.
_REDACTION_READ_ON = 8 * 1024

# ``https://…``, ``file:…``, ``mailto:…``: a reference, not a file of the project.
_URL = lazy(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?://|[^\\/])")

#: Folders that hold no project document but git's data (remote URLs with their tokens),
#: kenning's own store, and the credentials of ssh, gpg, AWS, Kubernetes and Docker (a
#: home folder's, checked in or mounted into a project); and the files secrets are kept in:
#: dotfiles with passwords, private keys and key stores. A path through one is refused.
_PRIVATE_FOLDERS = frozenset(
    {".git", ".kenning", ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".azure", ".gem"}
)
#: And the folders of a home's ``.config`` that hold tokens: the GitHub CLI's and gcloud's.
_PRIVATE_CONFIG_FOLDERS = frozenset({"gh", "gcloud"})
_SECRET_FILE = lazy(
    r"^\.env(\..*)?$|^\.envrc$|^\.netrc$|^\.npmrc$|^\.pypirc$|^\.git-credentials$"
    r"|^\.pgpass$|^\.htpasswd$|^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$"
    r"|^.+\.(pem|key|p12|pfx|jks|keystore)$"
    # other tools' secrets: an env file by another name, terraform's state and variables, a
    # cloud service account's key, MySQL's, Vault's, s3cmd's and kubectl's, Rails' and
    # Helm/SOPS-style secrets files
    r"|^.+\.env$|^.+\.tfstate(\.backup)?$|^.+\.tfvars(\.json)?$"
    r"|^(credentials|service[-_]account|.+[-_]service[-_]account)\.json$"
    r"|^\.my\.cnf$|^\.vault-token$|^\.s3cfg$|^kubeconfig$|^secrets?\.ya?ml$"
    r"|^credentials\.yml\.enc$"
    # and PuTTY's private keys, .netrc as Windows names it, Docker's older config, gcloud's
    # application default credentials, cargo's, Terraform Cloud's, boto's, yarn's (its
    # npmAuthToken, as .npmrc's) and Composer's tokens
    r"|^.+\.ppk$|^_netrc$|^\.dockercfg$|^application_default_credentials\.json$"
    r"|^credentials(\.toml)?$|^credentials\.tfrc\.json$|^\.boto$|^\.yarnrc(\.yml)?$"
    r"|^auth\.json$"
    # and Streamlit's and many apps' secrets files, Firebase's admin SDK key, Azure
    # Functions' local settings, WordPress' and Rails' database passwords (qa-s65b B2)
    r"|^secrets?\.(?:toml|json)$|^.+-firebase-adminsdk-.+\.json$|^local\.settings\.json$"
    r"|^wp-config\.php$|^database\.ya?ml$",
    re.I,
)


def _private_reason(path: str) -> str | None:
    parts = [p for p in re.split(r"[\\/]", path.strip()) if p not in ("", ".")]
    for i, part in enumerate(parts):
        if part.lower() in _PRIVATE_FOLDERS:
            return f"inside {part}/, which holds no project document"
        if i and parts[i - 1].lower() == ".config" and part.lower() in _PRIVATE_CONFIG_FOLDERS:
            return f"inside .config/{part}/, which holds no project document"
    if parts and _SECRET_FILE.match(parts[-1]):
        # ("a file named": after the quoted path and its colon, "'.git-credentials':
        # .git-credentials is …" read as a credential assigned, and the message was redacted)
        return f"a file named {parts[-1]} is where secrets are kept, not a document"
    return None


#: A line in a file a path names: ``:42``, ``:42:7``, and a code host's line anchor:
#: ``#L42``, ``#L42-L50``, ``#L42C1-L50C3``.
LINE_SUFFIX = lazy(r"(?::\d+){1,2}$|#L\d+(?:C\d+)?(?:-L?\d+(?:C\d+)?)?$")


def source_of(memory: Memory) -> str | None:
    """The document ``memory`` points to: its ``source``, else the ``SOURCE:`` part of its
    ERROR-FIX entry, without a line it names in it (``src/db.py:42`` is the document
    ``src/db.py``, as the freshness check reads it); None when it names none."""
    if memory.source is not None and memory.source.strip():
        return _without_line(memory.source)
    from .errorfix import parse_error_fix

    entry = parse_error_fix(memory.content)
    if entry is not None and entry.source.strip():
        return _without_line(entry.source)
    return None


def _without_line(path: str) -> str:
    return LINE_SUFFIX.sub("", path.strip()) or path


def source_from_folder(path: str, folder: Path, files_root: Path) -> str:
    """A source path given in ``folder`` (the checkout at ``files_root``, or a subfolder of
    it) as the path from the top of the checkout, where sources are read from: a relative one
    as a shell completes it there (``database.py`` in ``src/`` is ``src/database.py``; in a
    workspace package, its own ``package.json``, not the top's), unless it names no file from
    there and one from the top (a path already from the top); an absolute one inside the
    checkout (an editor's or an agent's) made relative to its top. A URL, a path out of the
    checkout (the write path's checks say so) and one that cannot be resolved, as given."""
    given = path.strip()
    if not given or _URL.match(given):
        return path
    try:
        top = files_root.resolve()
        if Path(given).is_absolute():
            absolute = Path(given).resolve()
            return absolute.relative_to(top).as_posix() if absolute.is_relative_to(top) else path
        here = folder.resolve()
        if here == top:
            return path
        if not (here / given).exists() and (top / given).exists():
            return path
        moved = os.path.normpath(os.path.join(here, given))
        if not Path(moved).is_relative_to(top):
            return path  # out of the checkout: the write path's checks say so
        return Path(moved).relative_to(top).as_posix()
    except (OSError, ValueError):
        return path


def check_source(path: str, files_root: Path, root: str | None = None) -> SourceCheck:
    """Whether ``path`` may be read as a file of the project whose files are at
    ``files_root``: :func:`~kenning.safety.validate_source_path` (fail closed); a URL is
    not a project file, and nothing inside ``.git/`` or ``.kenning/`` nor a secrets file
    (``.env``, ``.netrc``, …) is a document. Never raises. ``root``:
    :func:`~kenning.safety.resolved_root` of ``files_root``, for the paths of one listing."""
    if _URL.match(path.strip()):
        return SourceCheck(path, False, reason="a URL, not a file of the project")
    private = _private_reason(path) if isinstance(path, str) else None
    if private is not None:
        return SourceCheck(path, False, reason=private)
    try:
        resolved, root = resolve_inside(path, files_root, root)
    except BrokenSymlinkError as exc:
        # nothing there to read, as a deleted file (seeding retires a broken symlink's
        # entries as a deleted doc's): missing, not refused; said as a broken symlink (`ls`
        # shows the name: "no such file … create it" was said of it, qa77 F6)
        return SourceCheck(
            path, False, reason=broken_link_reason(path, exc), missing=True, broken_link=True
        )
    except UnsafePathError as exc:
        cause = exc.__cause__
        if isinstance(cause, OSError) and cause.errno in _UNREADABLE:
            # the file system would not say what is there: nothing is known of the file
            at = os.fspath(cause.filename or os.path.join(files_root, path))
            return SourceCheck(
                path, False, reason=unreadable_reason(cause, at, resolving=True), unreadable=True
            )
        return SourceCheck(path, False, reason=exc.reason)
    # A symlink inside the project (``docs/history -> ../.git``) leads where the path as
    # written does not say: what it resolves to is held to the same rule.
    inside = resolved[len(root) :].lstrip(os.sep).replace(os.sep, "/")
    private = _private_reason(inside)
    if private is not None:
        return SourceCheck(path, False, reason=f"leads to {inside!r}: {private}")
    return SourceCheck(path, True, resolved=resolved)


#: What an OS error that leaves a file unknown is (the path's own fault, or this user's
#: rights; not unsafe, not missing): no rights, a symlink loop, an I/O error.
_UNREADABLE = frozenset({errno.EACCES, errno.EPERM, errno.ELOOP, errno.EIO})


def unreadable_fix(err: int | None, path: str, what: str = "file") -> str:
    """What lets ``path`` be read after an OS error ``err`` (:data:`errno` code) on it: the
    ``chmod`` its owner runs, the symlink loop to undo, or the disk to check. ``what``:
    the word for the file (seeding says "doc")."""
    quoted = shlex.quote(path)
    if err in (errno.EACCES, errno.EPERM):
        return f"let this user read it (as its owner: chmod u+r {quoted})"
    if err == errno.ELOOP:
        return f"point the symlink at the {what}, not back at itself (ls -l {quoted})"
    return "check the file and the disk or mount it is on"


def unreadable_reason(exc: OSError, at: str, *, resolving: bool = False) -> str:
    """``cannot be read (<the OS's reason>); <what to do>`` for ``exc`` met at ``at`` (an
    absolute path). ``resolving``: met while following the path, where a ``Permission
    denied`` is a folder's: the one ``at`` is in may not be searched by this user."""
    why = exc.strerror or str(exc)
    if resolving and exc.errno in (errno.EACCES, errno.EPERM):
        folder = shlex.quote(os.path.dirname(at) or at)
        return (
            f"cannot be read ({why} on the folder {folder}); let this user search it (as its "
            f"owner: chmod u+rx {folder})"
        )
    return f"cannot be read ({why}); {unreadable_fix(exc.errno, at)}"


class UnreadableSourceError(UserInputError):
    """The document a memory names cannot be read by this user or this file system (no read
    rights, a symlink loop, an I/O error): nothing unsafe, and nothing known of it."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        # the reason says "cannot be read (<the OS's reason>); <what to do>"
        super().__init__(f"{quoted_path(path)} {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.reason), self.__dict__)  # (as UnknownMemoryError)


@dataclass(frozen=True)
class SourceDocument:
    """A validated document's text, cut to ``limit`` bytes (``truncated`` says so)."""

    check: SourceCheck
    text: str
    size: int
    truncated: bool
    limit: int
    #: The credentials taken out of the text, kind by kind (``[REDACTED:<kind>]`` in it).
    redactions: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.check.path,
            "resolved": self.check.resolved,
            "text": self.text,
            "bytes": self.size,
            "truncated": self.truncated,
            "limit_bytes": self.limit,
            "redactions": dict(self.redactions),
        }


def check_document(check: SourceCheck) -> SourceCheck:
    """:func:`check_source`'s verdict, and what a tool told to read the path would meet: a
    missing file, a folder, a pipe or a device is refused too (the read would fail, or on a
    named pipe wait for a writer for ever), and a binary file (an image, an archive), which
    :func:`read_document` refuses: its first bytes are read for that."""
    found = _check_kind(check)
    if not found.ok or found.resolved is None:
        return found
    try:
        binary = _starts_binary(found.resolved)
    except OSError as exc:  # a file this user may not read, or whose read the OS fails
        reason = unreadable_reason(exc, found.resolved)
        return SourceCheck(check.path, False, reason=reason, unreadable=True)
    if binary:
        return SourceCheck(check.path, False, reason=_BINARY, not_a_document=True)
    return found


def _check_kind(check: SourceCheck) -> SourceCheck:
    """:func:`check_document` without reading the file: what its ``stat`` says (the read
    that follows tells a binary file by the bytes it reads)."""
    if not check.ok or check.resolved is None:
        return check
    try:
        st = os.stat(check.resolved)
    except OSError as exc:
        if names_nothing(exc):
            return SourceCheck(check.path, False, reason=_MISSING, missing=True)
        if exc.errno in _UNREADABLE:
            reason = unreadable_reason(exc, check.resolved, resolving=True)
            return SourceCheck(check.path, False, reason=reason, unreadable=True)
        return SourceCheck(check.path, False, reason=f"cannot be read ({exc.strerror or exc})")
    if stat.S_ISDIR(st.st_mode):
        return SourceCheck(check.path, False, reason=_FOLDER, not_a_document=True)
    if not stat.S_ISREG(st.st_mode):
        return SourceCheck(check.path, False, reason=_NOT_REGULAR, not_a_document=True)
    return check


#: How a checked path is opened: the check resolved every symlink, so one appearing since
#: is refused, not followed; non-blocking, as opening a named pipe otherwise waits for a
#: writer.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
#: A file is binary, as git decides it, when its first this many bytes hold a NUL.
_BINARY_SNIFF_BYTES = 8192


def _is_binary(head: bytes) -> bool:
    return b"\x00" in head[:_BINARY_SNIFF_BYTES]


def _starts_binary(resolved: str) -> bool:
    """Whether the regular file at ``resolved`` is binary (:func:`_is_binary`). Raises
    ``OSError`` when this user may not read it or the OS fails the read (no rights, an I/O
    error); a file that cannot be opened now for another reason (gone, or a symlink swapped
    in since the check) is left to the read to refuse."""
    try:
        with os.fdopen(os.open(resolved, _OPEN_FLAGS), "rb") as fh:
            regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
            return regular and _is_binary(fh.read(_BINARY_SNIFF_BYTES))
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EIO):
            raise
        return False


_QUOTES = ("'", '"')


def broken_link_reason(path: str, exc: BrokenSymlinkError) -> str:
    """How a missing document that is a broken symlink is said: ``broken symlink (->
    nothing.md)``, or ``broken symlink 'docs' on its path (-> old-docs)`` for a folder on
    it. The target is the link's text, written by anyone: quoted, cut (:func:`quoted_path`)."""
    target = ""
    if exc.target is not None:
        shown = quoted_path(exc.target)  # its repr: quotes off (unless it was cut)
        target = f" (-> {shown[1:-1] if shown.endswith(_QUOTES) else shown[1:]})"
    given = "/".join(p for p in path.strip().split("/") if p not in ("", "."))
    if exc.link is None or exc.link == given:
        return f"{BROKEN_LINK}{target}"
    return f"{BROKEN_LINK} {quoted_path(exc.link)} on its path{target}"


_FOLDER = "a folder, not a file"
# whether it was there once is not known here (a file recorded when the memory was written
# and gone since is what `kenning stale` reports): each surface says what to do
_MISSING = "no such file in the project"


class MissingSourceError(UserInputError):
    """The document a memory names is not there: not unsafe, nothing to read."""

    def __init__(self, path: str, reason: str | None = None) -> None:
        self.path = path
        self.reason = reason
        # a broken symlink's reason says where it points, and its fix (qa77 F6)
        said = _MISSING if reason is None else f"{reason}; {BROKEN_LINK_FIX}"
        super().__init__(f"missing source document {quoted_path(path)}: {said}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.reason), self.__dict__)  # (as UnknownMemoryError)

    @classmethod
    def of(cls, check: SourceCheck) -> MissingSourceError:
        """The error of a missing document ``check`` (a broken symlink said as one)."""
        return cls(check.path, check.reason if check.broken_link else None)


_NOT_REGULAR = "not a regular file (a pipe or a device)"
_BINARY = "a binary file, not a document"


class NotADocumentError(UserInputError):
    """The path a memory names is safe but holds no document to read (a folder, a pipe or a
    device, a binary file): not unsafe, nothing to read."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"not a document: {quoted_path(path)} is {reason}; nothing to read (a memory's "
            "SOURCE: names one text file)"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.reason), self.__dict__)  # (as UnknownMemoryError)


def read_document(check: SourceCheck, limit: int = SOURCE_READ_LIMIT) -> SourceDocument:
    """Read a document that :func:`check_source` accepted: at most ``limit`` bytes, as
    UTF-8 text (undecodable bytes replaced; a character cut by the limit is left out).
    Raises :class:`MissingSourceError` for a file that is not there,
    :class:`NotADocumentError` for a folder, a pipe, a device or a binary file, and
    :class:`UnsafePathError` for a refused check and for what the check cannot see (an
    unreadable file, a symlink swapped in since the check). Credentials in the text are
    redacted (``redactions`` counts them)."""
    from .redaction import redact_secrets

    readable = _check_kind(check)  # a folder, a pipe or a missing file: not opened
    if readable.no_checkout:  # nothing unsafe: not here to be read
        raise UserInputError(f"cannot read {quoted_path(check.path)}: {check.reason}")
    if readable.unreadable:  # nothing unsafe: this user or the file system would not give it
        raise UnreadableSourceError(check.path, readable.reason or "cannot be read")
    if readable.missing:
        raise MissingSourceError.of(readable)
    if readable.not_a_document:
        raise NotADocumentError(check.path, readable.reason or _NOT_REGULAR)
    if not readable.ok or readable.resolved is None:
        raise UnsafePathError(check.path, readable.reason or "not checked")
    path = Path(readable.resolved)
    try:
        fd = os.open(path, _OPEN_FLAGS)
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):  # swapped in since the check
                raise NotADocumentError(check.path, _NOT_REGULAR)
            size = st.st_size
            data = fh.read(limit + _REDACTION_READ_ON)
    except OSError as exc:
        if names_nothing(exc):  # deleted since the check
            raise MissingSourceError(check.path) from None
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EIO):
            raise UnreadableSourceError(check.path, unreadable_reason(exc, str(path))) from None
        raise UnsafePathError(check.path, f"cannot be read ({exc.strerror or exc})") from None
    if _is_binary(data):
        raise NotADocumentError(check.path, _BINARY)
    truncated = len(data) > limit
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    # final=False keeps back a multi-byte character a cut made in two
    text = decoder.decode(data, final=len(data) < limit + _REDACTION_READ_ON)
    # the path is stored data: a memory may point an agent at a file holding credentials,
    # which reach its context redacted as every memory does (qa-s65b B2); redacted before
    # the cut, so that a secret across it is found whole
    text, redactions = redact_secrets(text)
    if truncated:
        text = text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
    return SourceDocument(check, text, size, truncated, limit, redactions)
