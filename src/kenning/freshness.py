"""Freshness: the project files a memory names, their versions, and whether they changed.

A note about ``src/auth.py``, or an ERROR-FIX entry seeded from ``docs/solutions/db.md``,
was true of those files as they were when it was written. So the write path records, in
the memory's metadata under :data:`FILES_KEY`, the git blob hash of every file of the
project the memory names (``{"src/auth.py": "<40 hex>"}``): its ``source``, the ``SOURCE:``
part of an ERROR-FIX entry, a ``file``/``files`` metadata entry, and paths in its text that
exist in the checkout (:func:`named_paths`, conservative and capped). The read path hashes
those few files again (:func:`check`, cached by path, mtime, size, inode and ctime) and a
memory whose file changed, disappeared or no longer passes the source-path checks is
``stale``. Staleness is computed on every read, never stored: checking out a branch where
the file is as recorded makes the memory fresh again.

The hash is git's blob id — ``sha1("blob <size>\\0" + bytes)``, what ``git hash-object
--no-filters`` prints, with a text file's CRLF line ends counted as LF (:func:`worktree_blob`:
what git stores for a file ``core.autocrlf`` or an ``eol`` attribute checks out with CRLF, so
a Windows checkout and a Linux one of a commit agree) — computed here rather than by running
git, so that a recall costs a ``stat`` per file, not a process. It equals ``git ls-files -s``
/ ``git rev-parse HEAD:path`` for a committed file unless the repository converts content
otherwise (a ``filter`` attribute such as git-lfs, or CRLF stored in git); either way the
same function writes and checks, so a file reads as changed exactly when its content
changed (its line ends aside). A record written before, of a CRLF file's bytes as they
are, still reads as fresh.
(A repository in git's SHA-256 object format has other ids; staleness works the same.)

Pure parts: :func:`blob_hash`, :func:`path_candidates`, :func:`named_paths`,
:func:`recorded_files`, :func:`apply_stale_penalty`. The file-system side: :func:`record`,
:func:`check`. Every git call kenning makes for freshness is in :func:`file_history`.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import socket
import stat
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from .errors import KenningError, UserInputError
from .lazyre import lazy
from .model import (
    CHANGED,
    FRESH,
    MISSING,
    REFUSED,
    UNCHECKED,
    Commit,
    FileHistory,
    FileState,
    Freshness,
    SearchResult,
)
from .project import shared_git_folder
from .protocol import STALE_PENALTY
from .sources import LINE_SUFFIX

__all__ = [
    "FILES_KEY",
    "MAX_COMMITS",
    "MAX_HASHED_BYTES",
    "MAX_PATH_CANDIDATES",
    "MAX_RECORDED_FILES",
    "STALE_PENALTY",
    "apply_stale_penalty",
    "blob_hash",
    "check",
    "check_commits",
    "file_blob",
    "file_history",
    "named_paths",
    "path_candidates",
    "paths_the_branch_has_had",
    "paths_the_default_branch_has",
    "record",
    "recorded_files",
    "worktree_blob",
]

#: The metadata key of the record: ``{path as the memory names it: git blob hash}``.
FILES_KEY = "file_blobs"
#: At most this many files are recorded per memory (the source document first).
MAX_RECORDED_FILES = 8
#: At most this many path-like tokens of a memory's text are looked up in the checkout.
MAX_PATH_CANDIDATES = 50
#: Files larger than this are not recorded (a memory names source files and documents,
#: not logs or data); a recorded file that grows past it reads as changed, unhashed.
MAX_HASHED_BYTES = 8 * 1024 * 1024


#: Files changed less than this long ago are hashed on every check, never cached: a write
#: within the same mtime tick and size as the cached version would otherwise go unseen
#: (git's "racily clean" entries).
_RACY_NS = 2_000_000_000
_CACHE_SIZE = 4096
_GIT_TIMEOUT_S = 5.0

#: Extensions that make a token without ``/`` a file name (``setup.py``, ``README.md``).
_EXTENSIONS = """py pyi pyx rs go js jsx mjs cjs ts tsx java kt kts scala rb php c h cc cpp cxx
hpp hh cs fs swift m mm dart lua pl sh bash zsh fish ps1 sql md mdx rst txt adoc toml yaml yml
json jsonc ini cfg conf env lock xml html htm css scss sass less vue svelte tf hcl proto graphql
gql ipynb r jl ex exs erl hs ml mli zig nim cmake gradle sbt"""
KNOWN_EXTENSIONS = frozenset(_EXTENSIONS.split())

# A token is a run of characters that are not whitespace, quotes, brackets or separators.
_TOKEN_CHARS = r"[^\s`'\"()\[\]{}<>,;|*]"
# Only the tokens holding a "/" or a "." (most tokens are words, which no path rule
# accepts), anchored at a token's start so that a word costs one pass.
_TOKEN_WITH_PATH_MARK = lazy(rf"(?<!{_TOKEN_CHARS}){_TOKEN_CHARS}*[/.]{_TOKEN_CHARS}*")
# What a relative path of the project may look like here: word characters, dots, dashes,
# plus and at signs, in components separated by "/" (no leading "/", no backslash).
_PATH = lazy(r"[\w.+@-]+(?:/[\w.+@-]+)*")
_HEX = lazy(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_NOT_PROJECT_FILES = (".git", ".kenning")


# --------------------------------------------------------------------------------------------
# Pure parts
# --------------------------------------------------------------------------------------------


def blob_hash(data: bytes) -> str:
    """git's blob id of ``data``: ``sha1(b"blob <size>\\0" + data)`` in hex."""
    digest = hashlib.sha1(b"blob %d\x00" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


#: Control bytes git's text detection counts against a file (``convert.c``): every one below
#: 32 but backspace, tab, line feed, form feed, carriage return and escape; and DEL.
_NONPRINTABLE = bytes([*range(0, 8), 11, *range(14, 27), *range(28, 32), 127])


def _crlf_text(data: bytes) -> bool:
    """Whether git would take ``data`` for a text file with CRLF line ends, which
    ``core.autocrlf`` (or an ``eol``/``text`` attribute) checks out as CRLF and adds back as
    LF: it has a CRLF, no NUL, no lone CR, and few control bytes (git's own test)."""
    if b"\r\n" not in data or b"\x00" in data or data.count(b"\r") != data.count(b"\r\n"):
        return False
    nonprintable = len(data) - len(data.translate(None, _NONPRINTABLE))
    printable = len(data) - nonprintable - data.count(b"\r") - data.count(b"\n")
    if data.endswith(b"\x1a"):  # an EOF mark ending the file does not count (git's rule)
        nonprintable -= 1
    return (printable >> 7) >= nonprintable


def worktree_blob(data: bytes) -> str:
    """The blob id git has for a work-tree file holding ``data``: :func:`blob_hash`, with a
    text file's CRLF line ends counted as LF. A checkout with ``core.autocrlf`` (Windows)
    has CRLF where git stores LF: both checkouts of a commit get the same id, git's."""
    return blob_hash(data.replace(b"\r\n", b"\n") if _crlf_text(data) else data)


def _normalise(path: str) -> str | None:
    """``path`` as a key: ``/``-separated, no ``.`` or empty components; None when it has
    a ``..`` component or nothing is left."""
    parts = [p for p in path.strip().split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def path_candidates(text: str, limit: int = MAX_PATH_CANDIDATES) -> list[str]:
    """Path-like tokens of ``text``, in order, without repeats, at most ``limit``.

    A candidate contains a ``/`` or ends in a known extension (:data:`KNOWN_EXTENSIONS`),
    is relative (no leading ``/``, ``~``, drive or scheme: URLs are not files of the
    project) and has no ``..``; a ``:line[:col]`` suffix, a leading ``./`` and trailing
    sentence punctuation are dropped. Whether it exists is for the caller to check.
    """
    found: dict[str, None] = {}
    for match in _TOKEN_WITH_PATH_MARK.finditer(text):
        token = match.group(0)
        if "://" in token or token.startswith(("/", "~")):
            continue
        token = token.rstrip(".:!?")
        token = LINE_SUFFIX.sub("", token).rstrip(".:")
        if not token or len(token) > 300 or not _PATH.fullmatch(token):
            continue
        if "/" not in token:
            stem, dot, ext = token.rpartition(".")
            if not dot or not stem or ext.lower() not in KNOWN_EXTENSIONS:
                continue
        key = _normalise(token)
        if key is None or key.split("/", 1)[0] in _NOT_PROJECT_FILES:
            continue
        found.setdefault(key)
        if len(found) >= limit:
            break
    return list(found)


def named_paths(
    content: str, source: str | None, metadata: Mapping[str, Any] | None = None
) -> list[str]:
    """Every path a memory names, in the order they are recorded: its source document
    (``source``, else the ERROR-FIX entry's ``SOURCE:``), a ``file`` / ``files`` entry of
    its metadata, then path-like tokens of its text (:func:`path_candidates`)."""
    from .errorfix import parse_error_fix

    named: list[str] = []
    if source is not None and source.strip():
        named.append(source.strip())
    else:
        entry = parse_error_fix(content)
        if entry is not None and entry.source.strip():
            named.append(entry.source.strip())
    meta = metadata or {}
    for key in ("file", "files"):
        value = meta.get(key)
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        named.extend(v.strip() for v in values[:MAX_RECORDED_FILES] if isinstance(v, str))
    named.extend(path_candidates(content))
    out: dict[str, None] = {}
    for path in named:
        if path and "://" not in path:
            out.setdefault(_normalise(path) or path)
    return list(out)


def recorded_files(metadata: Mapping[str, Any] | None) -> dict[str, str]:
    """The record in ``metadata`` (:data:`FILES_KEY`), keeping only well-formed entries
    (stored data: a path string and a hex blob id); ``{}`` when there is none."""
    raw = (metadata or {}).get(FILES_KEY)
    if not isinstance(raw, Mapping):
        return {}
    return {
        path: blob
        for path, blob in raw.items()
        if isinstance(path, str) and isinstance(blob, str) and _HEX.fullmatch(blob)
    }


def _ranking(result: SearchResult) -> tuple[float, float, str]:
    return (-result.score, -result.semantic, result.memory.id)


def _penalised(result: SearchResult, state: Freshness | None, penalty: float) -> SearchResult:
    if state is None:
        return result
    lowered = penalty if state.stale else 0.0
    return replace(result, score=result.score - lowered, freshness=state, stale_penalty=lowered)


def apply_stale_penalty(
    results: Iterable[SearchResult], freshness: Mapping[str, Freshness], penalty: float
) -> list[SearchResult]:
    """``results`` with their freshness attached and each stale one's ``score`` lowered by
    ``penalty``, sorted again (score, then semantic score, then id)."""
    out = [_penalised(r, freshness.get(r.memory.id), penalty) for r in results]
    return sorted(out, key=_ranking)


def best_fresh_first(
    results: Iterable[SearchResult],
    state_of: Callable[[SearchResult], Freshness | None],
    penalty: float,
    keep: int,
    ranking: Callable[[SearchResult], tuple[Any, ...]] | None = None,
) -> list[SearchResult]:
    """The first ``keep`` of :func:`apply_stale_penalty` — the same results in the same
    order — asking ``state_of`` only about the results that can still reach them.
    ``ranking``: another order, which a lower score never moves up (by default the score's,
    then the semantic score's, then the id's).

    A penalty only lowers a score (it is 0 to 1), so once ``keep`` checked results rank
    ahead of the next unchecked one as it stands, no result from there down can overtake
    them: recall keeps 3 of up to 20 results, and hashing (or looking up) the files of the
    other 17 was most of its freshness cost."""
    if penalty < 0:
        raise ValueError(f"stale penalty {penalty} is negative")
    rank = ranking or _ranking
    checked: list[SearchResult] = []
    for result in sorted(results, key=rank):
        if len(checked) >= keep:
            checked.sort(key=rank)
            if keep == 0 or rank(checked[keep - 1]) < rank(result):
                break
        checked.append(_penalised(result, state_of(result), penalty))
    return sorted(checked, key=rank)[:keep]


def exact_matches_first(
    asked: Mapping[str, int],
) -> Callable[[SearchResult], tuple[Any, ...]] | None:
    """The order of a recall that asked several errors that each found an exact fix
    (``asked``: each query's best exact match, with the query's place): those first, in the
    order asked, then the others as ranked (another exact match of one of them too). None
    (the default order) when one query or none found an exact match."""
    if len(set(asked.values())) < 2:
        return None
    last = max(asked.values()) + 1
    return lambda r: (asked.get(r.memory.id, last), *_ranking(r))


# --------------------------------------------------------------------------------------------
# The file system: hashing with a cache, recording, checking
# --------------------------------------------------------------------------------------------


class _UnreadableFile(OSError):
    """A file there whose read the OS failed (``EIO``: a failing disk or mount), raised by
    :meth:`_BlobCache.blobs`: nothing is known of what it holds."""


class _BlobCache:
    """Blob ids of files by path, valid while ``(mtime, size, inode, ctime)`` is unchanged.
    Shared by every store of the process (the MCP server and the page run several threads)."""

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self._items: OrderedDict[str, tuple[tuple[int, int, int, int], tuple[str, ...]]] = (
            OrderedDict()
        )
        self._size = size
        self._lock = threading.Lock()
        self.hashed = 0  # files read and hashed (for tests and benchmarks)

    def blob(self, path: str | Path) -> tuple[str | None, str | None]:
        """``(blob id, None)`` (:func:`worktree_blob`), or ``(None, why not)`` for a file
        that cannot be hashed. Raises ``FileNotFoundError`` when nothing is there."""
        ids, problem = self.blobs(path)
        return (ids[0] if ids else None), problem

    def blobs(self, path: str | Path) -> tuple[tuple[str, ...], str | None]:
        """The ids a record of the file may hold: :func:`worktree_blob`, then, for a text
        file with CRLF line ends, the hash of its bytes as they are (what a record written
        before held); ``((), why not)`` for a file that cannot be hashed. Raises
        ``FileNotFoundError`` when nothing is there, ``PermissionError`` or
        :class:`_UnreadableFile` when it cannot be read."""
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return (), "not a regular file"
        if st.st_size > MAX_HASHED_BYTES:
            return (), f"over {MAX_HASHED_BYTES // (1024 * 1024)} MiB"
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        name = os.fspath(path)
        with self._lock:
            cached = self._items.get(name)
            if cached is not None and cached[0] == key:
                self._items.move_to_end(name)
                return cached[1], None
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_HASHED_BYTES + 1)
        except PermissionError:
            raise  # (not this file's problem: this user's rights; see _observe)
        except OSError as exc:
            # (an I/O error: a failing disk or mount says nothing of what the file holds;
            # taken for "cannot be hashed", its notes were marked changed)
            raise _UnreadableFile(exc.errno, exc.strerror, exc.filename) from None
        ids: tuple[str, ...] = (worktree_blob(data),)
        if b"\r\n" in data:  # a record written before held the hash of the bytes as they are
            ids = tuple(dict.fromkeys((*ids, blob_hash(data))))
        with self._lock:
            self.hashed += 1
            if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= _RACY_NS:
                self._items[name] = (key, ids)
                self._items.move_to_end(name)
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        return ids, None

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_CACHE = _BlobCache()


def file_blob(path: Path) -> str | None:
    """The blob id of the file at ``path`` (cached), or None when there is no readable
    regular file of at most :data:`MAX_HASHED_BYTES` there."""
    try:
        return _CACHE.blob(path)[0]
    except OSError:
        return None


def record(paths: Sequence[str], files_root: Path, subfolder: str | None = None) -> dict[str, str]:
    """The record for a memory naming ``paths``: ``{path: blob id}`` for each one that
    passes :func:`kenning.sources.check_source` (the source-path checks, fail closed) and
    is a regular file of the checkout, at most :data:`MAX_RECORDED_FILES`. A path is looked
    for in ``subfolder`` first (the folder the note was written in, from the top), as it was
    written there (``handlers/user.py`` or a workspace package's own ``package.json`` in
    ``packages/api``), then from the top, and recorded from the top. Never raises."""
    from .sources import check_source

    out: dict[str, str] = {}
    for path in paths:
        if len(out) >= MAX_RECORDED_FILES:
            break
        key = _normalise(path)
        if key is None or key in out or key.split("/", 1)[0] in _NOT_PROJECT_FILES:
            continue
        for candidate in (f"{subfolder}/{key}" if subfolder else None, key):
            if candidate is None or candidate in out:
                continue
            verdict = check_source(candidate, files_root)
            if not verdict.ok or verdict.resolved is None:
                continue
            blob = file_blob(Path(verdict.resolved))
            if blob is not None:
                out[candidate] = blob
                break
    return out


@dataclass(frozen=True)
class Observed:
    """What :func:`check` found of one path of the checkout: the ids its file may have
    (:meth:`_BlobCache.blobs`), or why it has none: ``status`` :data:`REFUSED` (the
    source-path checks), :data:`MISSING`, or :data:`CHANGED` (a file that cannot be hashed),
    with ``reason``. ``unreadable``: this user may not look at it (a folder chmod 000 on its
    path, a file without read rights), the path is a symlink loop, or the OS failed its read
    (an I/O error): nothing is known of it (``reason`` says why, with what to do), and
    :func:`check` does not mark it: it was marked stale ("refused", "changed") though nothing
    said it had changed. It is :data:`UNCHECKED` in the memory's freshness instead."""

    ids: tuple[str, ...] = ()
    status: str | None = None
    reason: str | None = None
    unreadable: bool = False


class Observations(dict[str, Observed]):
    """What :func:`check` found of each path for one listing of one checkout, and the
    checkout's root as it resolved for them (:func:`~kenning.safety.resolved_root`: once,
    not again for each path; a recall names a few files, a listing a few hundred)."""

    #: (files_root, its resolved root or None), once the first path asked for it
    root: tuple[Path, str | None] | None = None


def _observe(path: str, files_root: Path, root: str | None = None) -> Observed:
    from .sources import check_source, unreadable_reason

    verdict = check_source(path, files_root, root)
    if verdict.missing:  # a symlink to nothing: gone, as a deleted file
        gone = _missing(path, files_root)
        if verdict.broken_link and gone.status == MISSING:
            # said as what `ls` shows: a broken symlink, where it points (qa77 F6)
            return Observed(status=MISSING, reason=verdict.reason)
        return gone
    if not verdict.ok or verdict.resolved is None:
        if verdict.unreadable:
            return Observed(reason=verdict.reason, unreadable=True)
        return Observed(status=REFUSED, reason=verdict.reason)
    try:
        ids, problem = _CACHE.blobs(verdict.resolved)
    except (PermissionError, _UnreadableFile) as exc:
        return Observed(reason=unreadable_reason(exc, verdict.resolved), unreadable=True)
    except FileNotFoundError:
        return _missing(path, files_root)
    except OSError as exc:
        return Observed(status=MISSING, reason=exc.strerror or str(exc))
    return Observed(ids) if ids else Observed(status=CHANGED, reason=problem)


def _missing(path: str, files_root: Path) -> Observed:
    """What a file not in the work tree is: its blob in git's index when a sparse checkout
    leaves it out, else :data:`MISSING`."""
    kept = _outside_the_sparse_checkout(path, files_root)
    if kept is not None:  # in git's index, only not in this work tree: its blob there
        return Observed((kept,))
    return Observed(status=MISSING, reason="no such file")


def _outside_the_sparse_checkout(path: str, files_root: Path) -> str | None:
    """The blob git's index holds for ``path`` when a sparse checkout leaves it out of the
    work tree (its skip-worktree bit): the file is the project's as it was, only not here.
    Taken for missing, every note about the rest of a sparse monorepo was stale ("gone …
    another branch is checked out"). None for any other missing file. One git call per
    work tree and process to ask whether it is sparse at all; in one that is, one per path
    and version of the index (a recall meets the same paths again)."""
    index = _sparse_index(str(files_root))
    if index is None:
        return None
    try:
        version = os.stat(index).st_mtime_ns
    except OSError:
        return None
    key = (str(files_root), path)
    known = _SKIPPED.get(key)
    if known is not None and known[0] == version:
        return known[1]
    out = _git(files_root, "ls-files", "-s", "-t", "-z", "--", path)
    blob = None
    for entry in (out or "").split("\0"):
        fields = entry.split("\t", 1)[0].split()
        if len(fields) == 4 and fields[0] == "S":  # S <mode> <blob> <stage>
            blob = fields[2]
    if len(_SKIPPED) > 4096:
        _SKIPPED.clear()
    _SKIPPED[key] = (version, blob)
    return blob


#: Per work tree: its index file when it is a sparse checkout, else None.
_SPARSE: dict[str, Path | None] = {}
#: (work tree, path) → (the index's mtime, the blob it held with the skip-worktree bit).
_SKIPPED: dict[tuple[str, str], tuple[int, str | None]] = {}


def _sparse_index(files_root: str) -> Path | None:
    """The index file of the work tree at ``files_root`` when it is a sparse checkout
    (asked once a process), else None."""
    if files_root not in _SPARSE:
        root = Path(files_root)
        said = _git(root, "config", "--bool", "core.sparseCheckout", pathspecs=False)
        index = None
        if said is not None and said.strip() == "true":
            where = _git(root, "rev-parse", "--path-format=absolute", "--git-path", "index")
            index = Path(where.strip()) if where else None
        _SPARSE[files_root] = index
    return _SPARSE[files_root]


def check(
    recorded: Mapping[str, str], files_root: Path, observed: dict[str, Observed] | None = None
) -> Freshness:
    """Compare each recorded file with the checkout at ``files_root``. Each path is checked
    again before it is read (it is stored data): a refused path is :data:`REFUSED`. One
    the file system will not give (no rights, a symlink loop, an I/O error) is
    :data:`UNCHECKED`, in :attr:`Freshness.unchecked`: not stale, as nothing says it changed.

    ``observed`` (kept by the caller for one listing of one checkout, filled in here): what
    was found of each path earlier in the listing. A list of 100k memories names a few
    hundred files, and the source-path checks and the ``stat`` of each file for every
    memory naming it were most of the page's "stale only" filter (1.3 to 7 s). As
    :class:`Observations`, it keeps the checkout's root as resolved for its first path too."""
    from .safety import resolved_root

    states: list[FileState] = []
    unchecked: list[FileState] = []
    root = observed.root if isinstance(observed, Observations) else None
    for path, blob in recorded.items():
        seen = observed.get(path) if observed is not None else None
        if seen is None:
            if root is None or root[0] != files_root:
                root = (files_root, resolved_root(files_root))
                if isinstance(observed, Observations):
                    observed.root = root
            seen = _observe(path, files_root, root[1])
            if observed is not None:
                observed[path] = seen
        if seen.unreadable:
            # not known to have changed: not stale, but said (see Observed)
            unchecked.append(FileState(path, blob, None, UNCHECKED, seen.reason))
            continue
        if seen.status is not None:
            states.append(FileState(path, blob, None, seen.status, seen.reason))
        elif blob in seen.ids:  # git's id, or (a record written before) the bytes' own hash
            states.append(FileState(path, blob, blob, FRESH))
        else:
            states.append(FileState(path, blob, seen.ids[0], CHANGED))
    return Freshness(tuple(states), tuple(unchecked))


# --------------------------------------------------------------------------------------------
# git: what changed since a memory was written (`kenning stale`)
# --------------------------------------------------------------------------------------------


#: The git commands whose answer rests on the repository's refs and commits alone, not on
#: the work tree or the index: asked again within one :func:`git_read_once`, the answer is
#: the one git gave first.
_OF_REFS_AND_COMMITS = frozenset({"log", "ls-tree", "for-each-ref", "merge-base"})

#: What git answered so far within :func:`git_read_once`, by folder and question.
_READ: ContextVar[dict[tuple[str, tuple[str, ...], bool], str] | None] = ContextVar(
    "kenning_freshness_git_read", default=None
)


@contextmanager
def git_read_once() -> Iterator[None]:
    """Within it, a question about the repository's refs and commits
    (:data:`_OF_REFS_AND_COMMITS`) is asked of git once per folder: a seeding run asked the
    same ones again (the default branch for each of its checks, the docs in HEAD's tree for
    the docs missing here, ~7 % of its gits), while nothing it does changes them. A failed
    answer is not kept. Nested, the outermost one keeps the answers."""
    if _READ.get() is not None:
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def _git(cwd: Path, *args: str, pathspecs: bool = True) -> str | None:
    read = _READ.get()
    if read is None or not args or args[0] not in _OF_REFS_AND_COMMITS:
        return _ask_git(cwd, *args, pathspecs=pathspecs)
    key = (os.path.abspath(cwd), args, pathspecs)
    answer = read.get(key)
    if answer is None:
        answer = _ask_git(cwd, *args, pathspecs=pathspecs)
        if answer is not None:
            read[key] = answer
    return answer


def _ask_git(cwd: Path, *args: str, pathspecs: bool = True) -> str | None:
    # --literal-pathspecs: a path from a memory is a path, never a pathspec pattern (a
    # command taking plain paths, check-ignore, refuses the option: pathspecs=False)
    try:
        out = subprocess.run(
            ["git", *(("--literal-pathspecs",) if pathspecs else ()), *args],
            cwd=cwd,
            capture_output=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.decode("utf-8", errors="replace")


def blob_text(folder: Path, blob: str) -> str | None:
    """The text of the git blob ``blob`` in ``folder``'s repository, or None when git does
    not have it (a file never added) or cannot be run. ``blob`` comes from the store: only
    an object id is passed to git, never an option."""
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", blob) is None:
        return None
    return _git(folder, "cat-file", "blob", blob, pathspecs=False)


def paths_the_branch_has_had(folder: Path, paths: Sequence[str]) -> set[str] | None:
    """Which of ``paths`` (relative to ``folder``, a folder of the work tree) the checked-out
    branch has had: in HEAD's tree, or deleted (or moved: no rename detection) by a commit
    of HEAD's history. One it lacks is a path a branch made before it was written never
    had. None when git cannot tell (no repository, no commit yet, no git). Two git calls
    however many paths: the session-start hook asks on every session."""
    if not paths:
        return set()
    tree = _tree_paths(folder, "HEAD", paths)
    deleted = _deleted_paths(folder, (), paths)
    if tree is None or deleted is None:
        return None
    return tree | deleted


def _tree_paths(folder: Path, ref: str, paths: Sequence[str]) -> set[str] | None:
    """Which of ``paths`` (relative to ``folder``) the tree of ``ref`` has; None where git
    cannot tell. One git call."""
    tree = _git(folder, "ls-tree", "-r", "-z", "--name-only", ref, "--", *paths)
    return None if tree is None else set(tree.split("\0")) & set(paths)


def _deleted_paths(folder: Path, refs: Sequence[str], paths: Sequence[str]) -> set[str] | None:
    """Which of ``paths`` (relative to ``folder``) a commit of ``refs``' history (HEAD's
    when none) deleted (or moved: no rename detection); None where git cannot tell. One
    git call."""
    out = _git(
        folder, "log", *refs, "--no-renames", "--diff-filter=D", "--relative", "--name-only",
        "-z", "--format=", "--", *paths,
    )  # fmt: skip
    return None if out is None else {n.strip("\n") for n in out.split("\0")} & set(paths)


def paths_the_branch_deleted(folder: Path, paths: Sequence[str]) -> set[str] | None:
    """Which of ``paths`` (relative to ``folder``) a commit of the checked-out branch's
    history deleted (or moved: no rename detection); None where git cannot tell. One git
    call."""
    if not paths:
        return set()
    return _deleted_paths(folder, (), paths)


def deletion_times(folder: Path, paths: Sequence[str]) -> dict[str, int] | None:
    """The commit time (s since the epoch) of the last commit of the checked-out branch's
    history that deleted each of ``paths`` (relative to ``folder``; a move is a deletion:
    no rename detection), for those one deleted; None when git cannot tell. One git call."""
    if not paths:
        return {}
    out = _git(
        folder, "log", "--no-renames", "--diff-filter=D", "--relative", "--name-only", "-z",
        "--format=%x1e%ct", "--", *paths,
    )  # fmt: skip
    if out is None:
        return None
    wanted = set(paths)
    when: int | None = None
    found: dict[str, int] = {}
    for field in out.split("\0"):
        name = field.strip("\n")
        if name.startswith("\x1e"):  # a commit's time, its deleted paths after it
            when = int(name[1:]) if name[1:].isdigit() else None
        elif when is not None and name in wanted:
            found.setdefault(name, when)  # newest first: the last deletion
    return found


def folder_moved_to(top: Path, folder: str) -> str | None:
    """Where the commit of the checked-out branch that deleted ``folder`` (relative to the
    work tree at ``top``) moved its files, when it moved them all to one folder (``git mv
    docs/solutions docs/fixes``, as git's rename detection finds it); None otherwise, or
    where git cannot tell. Two git calls."""
    commit = _git(top, "log", "-1", "--diff-filter=D", "--no-renames", "--format=%H", "--", folder)
    if not commit or not commit.strip():
        return None
    out = _git(
        top, "show", "-M", "--name-status", "-z", "--format=", commit.strip(), pathspecs=False
    )
    fields = (out or "").split("\0")
    targets: set[str] = set()
    index = 0
    while index < len(fields):
        status = fields[index]
        if status.startswith("R") and index + 2 < len(fields):
            old, new = fields[index + 1], fields[index + 2]
            if old.startswith(folder.rstrip("/") + "/"):
                inner = old[len(folder.rstrip("/")) + 1 :]
                if not new.endswith("/" + inner):
                    return None  # moved within, or renamed on the way: not the folder's move
                targets.add(new[: -len(inner) - 1])
            index += 3
        elif status.startswith("C") and index + 2 < len(fields):
            index += 3
        else:
            index += 2
    return targets.pop() if len(targets) == 1 else None


def paths_in_head(folder: Path, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` (relative to ``folder``) the checked-out commit has: one missing
    from the work tree is then deleted there and not committed. Empty where git cannot
    tell. One git call."""
    if not paths:
        return set()
    return _tree_paths(folder, "HEAD", paths) or set()


def paths_other_refs_have_had(folder: Path, paths: Sequence[str]) -> set[str] | None:
    """Which of ``paths`` (relative to ``folder``) a commit of any ref has had (added,
    changed or deleted): a doc another branch holds. One that no commit ever had was only
    ever in a work tree (written, seeded, deleted before it was committed). None when git
    cannot tell. One git call."""
    if not paths:
        return set()
    out = _git(
        folder, "log", "--all", "--no-renames", "--relative", "--name-only", "-z", "--format=",
        "--", *paths,
    )  # fmt: skip
    if out is None:
        return None
    seen = {name.strip("\n") for name in out.split("\0")}
    return {path for path in paths if path in seen}


#: The local branches taken as the project's default one when ``origin/HEAD`` names none.
DEFAULT_BRANCH_NAMES = ("main", "master")


def paths_the_default_branch_has(folder: Path, paths: Sequence[str]) -> set[str] | None:
    """Which of ``paths`` (relative to ``folder``) the project's default branch has in its
    tree (:func:`_default_branch`). None when that branch is the one checked out (and no
    ``origin/HEAD`` names it), or none can be found (no default branch to compare with).
    Two or three git calls."""
    if not paths:
        return set()
    ref = _default_branch(folder)
    return None if ref is None else _tree_paths(folder, ref, paths)


def blobs_on_the_default_branch(folder: Path, paths: Sequence[str]) -> dict[str, str] | None:
    """The blob the project's default branch (:func:`_default_branch`) holds for each of
    ``paths`` (relative to ``folder``) that it has; None while that branch is checked out
    (and no ``origin/HEAD`` names it), or where git cannot tell. Two or three git calls."""
    if not paths:
        return {}
    ref = _default_branch(folder)
    if ref is None:
        return None
    return _tree_blobs(folder, ref, paths)


def blobs_in_head(folder: Path, paths: Sequence[str]) -> dict[str, str] | None:
    """The blob the checked-out commit holds for each of ``paths`` (relative to ``folder``)
    that it has: a work-tree file holding another is changed and not committed. None where
    git cannot tell. One git call."""
    if not paths:
        return {}
    return _tree_blobs(folder, "HEAD", paths)


def repository_id(folder: Path) -> str | None:
    """An id of the git repository ``folder`` is in (of its object store, which its work
    trees share), the same for each of its work trees and another for every other clone:
    this machine's name and the repository's git folder, hashed (a store shared with others
    is told no path). A clone moved, or a machine renamed, is another clone: an id kept in
    the git folder would survive the move, but also a ``cp -r`` of the clone, and two clones
    under one id undo each other's versions (docs/freshness.md). None outside git. The git
    folder is the one project discovery found for the folder (kept while what it rests on
    is unchanged: a session's re-seed in a process that lives on asks git once); outside a
    work tree, or where git cannot run there, one git call of its own."""
    base = folder
    while not base.is_dir() and base.parent != base:
        base = base.parent  # git runs in the nearest folder there is (a folder gone)
    try:
        common = shared_git_folder(base)
    except KenningError:  # git cannot run there: asked below as before, which says None
        common = None
    if common is None:
        out = _git(base, "rev-parse", "--git-common-dir", pathspecs=False)
        if not out or not out.strip():
            return None
        common = (base / out.strip()).resolve()
    named = f"{socket.gethostname()}\0{common}".encode("utf-8", "surrogateescape")
    return hashlib.sha256(named).hexdigest()[:16]


def _tree_blobs(folder: Path, ref: str, paths: Sequence[str]) -> dict[str, str] | None:
    """The blob the tree of ``ref`` holds for each of ``paths`` (relative to ``folder``)
    that it has; None where git cannot tell. One git call."""
    out = _git(folder, "ls-tree", "-r", "-z", ref, "--", *paths)
    if out is None:
        return None
    found: dict[str, str] = {}
    for entry in out.split("\0"):
        meta, _, name = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 3 and name in paths:  # <mode> blob <id>\t<path>
            found[name] = fields[2]
    return found


def paths_the_default_branch_deleted(folder: Path, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` (relative to ``folder``) the project's default branch deleted, and
    has not now (:func:`_default_branch`; nothing while that branch is checked out and no
    ``origin/HEAD`` names it): a doc an
    older branch still holds, which that branch must not seed again for everyone. Empty
    where it cannot be told. Three git calls."""
    if not paths:
        return set()
    ref = _default_branch(folder)
    if ref is None:
        return set()
    deleted = _deleted_paths(folder, (ref,), paths)
    tree = _tree_paths(folder, ref, paths)
    if deleted is None or tree is None:
        return set()
    return deleted - tree


def _default_branch(folder: Path) -> str | None:
    """The ref of the project's default branch: the one ``origin/HEAD`` names (the remote's
    tree, also while that branch is checked out), else, while another branch is checked
    out, a local ``main`` or ``master``, else the main work tree's branch. None when that
    branch is the one checked out, or none can be found. One or two git calls."""
    listing = _git(
        folder,
        "for-each-ref",
        "--format=%(refname)%00%(symref)%00%(HEAD)",
        "refs/remotes/origin/HEAD",
        "refs/heads/",
        pathspecs=False,
    )
    if listing is None:
        return None
    symref: dict[str, str] = {}
    current: str | None = None
    for line in listing.splitlines():
        name, target, head = [*line.split("\0"), "", ""][:3]
        symref[name] = target
        if head == "*":
            current = name.removeprefix("refs/heads/")
    remote = symref.get("refs/remotes/origin/HEAD", "")
    if remote.startswith("refs/remotes/origin/"):
        # the remote's tree, what everyone sharing the project sees: on the default branch
        # itself too, so that a deletion counts for every work tree once it is pushed (the
        # main work tree retired a doc at its commit, the others, comparing with the
        # remote, seeded it back, until the push)
        return remote
    else:
        default = next((n for n in DEFAULT_BRANCH_NAMES if f"refs/heads/{n}" in symref), "")
        if not default:
            # no origin/HEAD, no main or master (a `trunk`, a remote added by hand): the
            # branch of the main work tree, which the linked ones are made from
            default = _main_work_tree_branch(folder) or ""
        ref = f"refs/heads/{default}"
    if not default or default == current:
        return None
    return ref


def _main_work_tree_branch(folder: Path) -> str | None:
    """The branch checked out in the repository's main work tree (the first ``git worktree
    list`` names), when it is not a bare repository's; None where git cannot tell."""
    listing = _git(folder, "worktree", "list", "--porcelain", pathspecs=False)
    first = (listing or "").split("\n\n", 1)[0].splitlines()
    if "bare" in first:
        return None
    branch = next((line[len("branch ") :] for line in first if line.startswith("branch ")), "")
    return branch.removeprefix("refs/heads/") or None


def other_work_trees(top: Path) -> list[Path]:
    """The other work trees of the repository whose work tree ``top`` is (linked ones, the
    main one), that are there: where a doc not committed yet may be. One git call."""
    listing = _git(top, "worktree", "list", "--porcelain", "-z", pathspecs=False)
    if listing is None:
        return []
    here = top.resolve()
    found: list[Path] = []
    for entry in listing.split("\0\0"):
        fields = entry.split("\0")
        path = next((f[len("worktree ") :] for f in fields if f.startswith("worktree ")), None)
        if path is None or "bare" in fields:
            continue
        tree = Path(path)
        if tree.is_dir() and tree.resolve() != here:
            found.append(tree)
    return found


#: ``git log``'s options for each commit's changes of some paths, one ``:<modes> <old blob>
#: <new blob> <status>`` record and its path apiece (a merge's against each parent).
_RAW_LOG = ("--raw", "--no-abbrev", "--no-renames", "-m", "--relative", "-z")


def _raw_changes(out: str) -> Iterator[tuple[tuple[int, str], str, str, str]]:
    """``(commit, path, old blob, new blob)`` for each change of a :data:`_RAW_LOG` output;
    the commit is ``(time, hash)`` where the log's format is ``%x1e%ct %H``, else ``(-1,
    "")``."""
    commit = (-1, "")
    fields = out.split("\0")
    i = 0
    while i < len(fields):
        field = fields[i].strip("\n")
        i += 1
        if field.startswith("\x1e"):  # a commit: "<time> <hash>", its changes after it
            when, _, sha = field[1:].partition(" ")
            commit = (int(when), sha) if when.isdigit() else (-1, "")
            continue
        words = field.split()
        if len(words) < 4 or i >= len(fields):  # ":100644 100644 <old blob> <new blob> M"
            continue
        path = fields[i]
        i += 1
        yield commit, path, words[2], words[3]


def _versions_in_history(folder: Path, paths: Sequence[str], *refs: str) -> set[str] | None:
    """``path\0blob`` for every version of ``paths`` (relative to ``folder``) a commit of
    ``refs``' history (HEAD's when none) gave or replaced; None when git cannot tell."""
    out = _git(folder, "log", *refs, *_RAW_LOG, "--format=", "--", *paths)
    if out is None:
        return None
    return {
        f"{path}\0{blob}"
        for _, path, old, new in _raw_changes(out)
        for blob in (old, new)
        if blob.strip("0")
    }


def versions_no_commit_has(folder: Path, versions: Mapping[str, str]) -> set[str] | None:
    """Which of ``versions`` (a path relative to ``folder`` → a blob) no commit of any ref
    has given the path: a version written in some work tree and not committed. None when
    git cannot tell. One git call however many paths."""
    if not versions:
        return set()
    anywhere = _versions_in_history(folder, sorted(versions), "--all")
    if anywhere is None:
        return None
    return {path for path, blob in versions.items() if f"{path}\0{blob}" not in anywhere}


def _introductions(folder: Path, paths: Sequence[str]) -> dict[str, tuple[int, str]] | None:
    """``path\0blob`` → (commit time, commit) of the first commit of any ref's history that
    gave ``path`` that version, for every version of ``paths`` (relative to ``folder``) one
    gave it; the versions only ever replaced (a shallow clone's first) get ``(-1, "")``. None
    when git cannot tell. One git call however many paths."""
    out = _git(folder, "log", "--all", *_RAW_LOG, "--format=%x1e%ct %H", "--", *paths)
    if out is None:
        return None
    made: dict[str, tuple[int, str]] = {}
    for commit, path, old, new in _raw_changes(out):
        if old.strip("0"):
            made.setdefault(f"{path}\0{old}", (-1, ""))
        if new.strip("0"):
            key = f"{path}\0{new}"
            # the earliest of the commits that gave it: a merge (-m: against each parent)
            # or a cherry-pick gives a version again, later
            if made.get(key, (-1, ""))[0] < 0 or commit < made[key]:
                made[key] = commit
    return made


def commit_times(folder: Path, versions: Mapping[str, str]) -> dict[str, int] | None:
    """The commit time (s since the epoch) of the first commit of any ref that gave each of
    ``versions`` (a path relative to ``folder`` → a blob), for those a commit has; None when
    git cannot tell. One git call however many paths."""
    if not versions:
        return {}
    made = _introductions(folder, sorted(versions))
    if made is None:
        return None
    # (a version only ever replaced, a shallow clone's first, is older than its history: 0)
    return {
        path: max(made[f"{path}\0{blob}"][0], 0)
        for path, blob in versions.items()
        if f"{path}\0{blob}" in made
    }


def _made_before(folder: Path, one: tuple[int, str], other: tuple[int, str]) -> bool:
    """Whether the commit ``one`` (time, hash) was made before ``other``: committed earlier,
    or in the same second and in its history; in the same second on two branches, the hash
    decides, so that every work tree reads the same order."""
    if one[0] != other[0]:
        return one[0] < other[0]
    if not one[1] or not other[1] or one[1] == other[1]:
        return False
    for first, then in ((one, other), (other, one)):
        base = _git(folder, "merge-base", first[1], then[1], pathspecs=False)
        if base is not None and base.strip() == first[1]:
            return first is one
    return one[1] < other[1]


def _replaced_by_another_branch(
    folder: Path,
    versions: Mapping[str, tuple[str, str]],
    made: Mapping[str, tuple[int, str]] | None,
) -> set[str] | None:
    """Which of ``versions`` (a path relative to ``folder`` → (the blob recorded for it,
    the blob in the work tree now)) the work tree holds an older version of than the one
    recorded: the version here is one git's history has (committed on some branch) and the
    recorded one was made on another branch — a commit of some ref's history, none of the
    checked-out branch's — after it. A worktree on an older branch, a checkout of last
    month's release: re-seeding their version would put old text back for everyone sharing
    the store. Of two branches' edits of one doc, the later commit's is the one kept, so that
    the sessions of each leave the store as it is. A version committed on this branch after
    the recorded one, or one no commit has (an edit not committed yet), is not in the set.
    None when git cannot tell. ``made`` is the :func:`_introductions` of every ref's history
    for the paths; one git call more however many paths (and one more for a pair of
    versions committed in the same second on two branches)."""
    here = _versions_in_history(folder, sorted(versions))
    if here is None or made is None:
        return None
    older: set[str] = set()
    for path, (recorded, current) in versions.items():
        then, now = made.get(f"{path}\0{recorded}"), made.get(f"{path}\0{current}")
        if then is None or now is None or f"{path}\0{recorded}" in here:
            continue
        if now[0] < 0 or then[0] < 0 or _made_before(folder, now, then):
            older.add(path)
    return older


def versions_replaced_or_not_committed(
    folder: Path, versions: Mapping[str, tuple[str, str]]
) -> tuple[set[str] | None, set[str] | None]:
    """Which of ``versions`` (a path → (the blob recorded for it, the blob in the work tree
    now)) another branch replaced (:func:`_replaced_by_another_branch`, None when git cannot
    tell), and which of the recorded versions of the other paths (all of them when git
    cannot tell the first) no commit has (:func:`versions_no_commit_has`). Both read the
    history of every ref for the same paths where no version is older, the usual case: that
    one ``git log --all`` is read once, not once for each (the second was the same command
    but for its format). Of fewer paths, git's history simplification could show other
    commits: it is read again for them."""
    if not versions:
        return set(), set()
    made = _introductions(folder, sorted(versions))
    older = _replaced_by_another_branch(folder, versions, made)
    unsettled = {path: recorded for path, (recorded, _) in versions.items()}
    for path in older or ():
        del unsettled[path]
    if made is None or len(unsettled) < len(versions):
        return older, versions_no_commit_has(folder, unsettled)
    # (the keys of made are every version a commit of any ref gave or replaced: the set
    # versions_no_commit_has reads from the same log)
    return older, {path for path, blob in unsettled.items() if f"{path}\0{blob}" not in made}


def _renames(output: str | None) -> dict[str, str]:
    """The renames (old path: new path) in one ``--name-status -z`` listing
    (``R<score>\\0old\\0new``): one commit's, or the index's."""
    renames: dict[str, str] = {}
    fields = (output or "").split("\x00")
    i = 0
    while i < len(fields):
        status = fields[i]
        if status.startswith(("R", "C")) and i + 2 < len(fields):
            if status.startswith("R"):
                renames[fields[i + 1]] = fields[i + 2]
            i += 3
        else:
            i += 2 if status else 1
    return renames


def _moved(log: str | None, staged: str | None, path: str) -> str:
    """Where ``path`` is after the renames of ``log`` (``--format=%x1e``, newest commit
    first) and then those ``staged``: each rename of the path it has at that point, so that
    a file renamed twice is where the second rename put it."""
    commits = (log or "").split("\x1e\x00")[1:]
    for listing in [*reversed(commits), staged]:
        # one listing at a time: a commit that renames a to b and b to c moved a to b
        path = _renames((listing or "").lstrip("\n")).get(path, path)
    return path


#: When the commits dated since a memory do not lead back to the version it saw (a pull or
#: a merge brought in commits made before it), ``kenning stale`` looks for the commit that
#: made that version among at most this many commits of the file...
HISTORY_WALK = 100
#: ...within this many commits of HEAD's first-parent history, so that the walk costs the
#: same on any length of history (tens of milliseconds at this size).
HISTORY_SPAN = 1000
_LOG_FORMAT = "--format=%x1e%H%x1f%cs%x1f%s"  # the subject last: it may hold any character
#: :data:`_LOG_FORMAT` with each commit's time (seconds) first, for a log shared by memories of
#: different times (:func:`_dated_since`).
_DATED_LOG_FORMAT = "--format=%x1e%ct%x1f%H%x1f%cs%x1f%s"


def _dated_since(log: str | None, since: datetime) -> str | None:
    """The part of a log in a format starting ``%x1e%ct%x1f`` (``git log --since`` of an
    older time) that ``git log --since=<since>`` gives, in that format without the time.

    git walks history newest first and stops at each commit dated before ``--since`` (to the
    second, the fraction dropped): the commits it gives for a later time are those of the
    older time's log up to the first dated before it, and ``-n`` of them, a prefix too."""
    if log is None:
        return None
    seconds = math.floor(since.timestamp())
    kept: list[str] = []
    for record_text in log.split("\x1e")[1:]:
        stamp, sep, rest = record_text.partition("\x1f")
        if not sep or not stamp.isdigit() or int(stamp) < seconds:
            break
        kept.append("\x1e" + rest)
    return "".join(kept)


def _commits(log: str | None, recorded: str | None) -> tuple[list[Commit], str | None]:
    """The commits of a ``git log --raw`` in :data:`_LOG_FORMAT`, newest first, up to the
    one that made the ``recorded`` version; and that commit's hash (None: not reached)."""
    commits: list[Commit] = []
    for record_text in (log or "").split("\x1e")[1:]:
        header, _, raw = record_text.partition("\n")
        parts = header.split("\x1f", 2)
        if len(parts) != 3:
            continue
        made = {line.split()[3] for line in raw.splitlines() if line.startswith(":")}
        if recorded is not None and recorded in made:
            return commits, parts[0]  # this commit wrote the version the memory saw
        commits.append(Commit(*parts))
    return commits, None


#: The most commits ``stale`` lists per changed file.
MAX_COMMITS = 100


def check_commits(commits: object) -> int:
    """``commits`` (how many commits ``stale`` lists per changed file) when it is a whole
    number from 0 to :data:`MAX_COMMITS`, else the error of that parameter: git was handed
    anything (a text or a float ended in a TypeError, -1 listed none)."""
    if isinstance(commits, bool) or not isinstance(commits, int) or not 0 <= commits <= MAX_COMMITS:
        raise UserInputError.of_parameter(
            "commits",
            "commits",
            f" is {commits!r:.40}; expected a whole number from 0 to {MAX_COMMITS}",
        )
    return commits


def check_stale_limit(limit: object) -> int | None:
    """``limit`` (how many stale memories ``stale`` lists) when it is None or a whole number
    from 0 (None and 0: every one), else the error of that parameter."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise UserInputError.of_parameter(
            "limit",
            "limit",
            f" is {limit!r:.40}; expected a whole number: how many to list, or 0 for every one",
        )
    return limit or None


def file_history(
    files_root: Path,
    path: str,
    since: datetime,
    limit: int = 5,
    *,
    recorded: str | None = None,
    missing: bool = False,
    answers: dict[tuple[Any, ...], str | None] | None = None,
    oldest: datetime | None = None,
) -> FileHistory:
    """git's account of ``path`` since ``since`` (the memory's ``stored_at``): the newest
    ``limit`` commits touching it on the checked-out branch, whether the work tree differs
    from HEAD, and for a ``missing`` file the path a rename moved it to (staged, or
    committed since). Outside git, or when git fails: an empty history.

    The commits are first those dated since the memory (``git log --since``, cheap at any
    history length), stopping at the one that made the ``recorded`` version (commit times
    have one-second steps, and that commit is no change since). When that walk does not
    reach it and HEAD's version is not the recorded one, commits made before the memory may
    have come with a pull or a merge: the commit that made the recorded version is looked
    for among the file's recent commits (:data:`HISTORY_WALK`, :data:`HISTORY_SPAN`), and
    when found the commits since are those of ``<that commit>..HEAD``, a merged branch's
    older ones included. Not found (never committed, or further back): the dated ones.

    ``answers`` (kept by the caller for one listing, filled in here): what git said to each
    question earlier in the listing. Apart from the log since each memory's own time, the
    questions are the same for every memory that saw a version of the file (its status,
    the log since the commit that made it, the shallow-clone check): asked once per memory,
    they were four git processes each, 50 s for 5,000 stale memories. ``oldest`` (with
    ``answers``): the earliest ``since`` the listing asks about this path; the logs dated
    since a time are then asked once, since ``oldest``, and each memory's is the part of it
    dated since its own time (:func:`_dated_since`): one git log per memory was 23 s for
    5,000 stale memories."""

    def git(cwd: Path, *args: str, pathspecs: bool = True) -> str | None:
        if answers is None:
            return _git(cwd, *args, pathspecs=pathspecs)
        key = (cwd, pathspecs, *args)
        if key not in answers:
            answers[key] = _git(cwd, *args, pathspecs=pathspecs)
        return answers[key]

    stamp = since.isoformat()
    shared = answers is not None and oldest is not None and oldest <= since
    shown = path
    repo, path, prefix = _repository_of(files_root, path)
    if shared:
        assert oldest is not None
        log = _dated_since(
            git(
                repo, "log", f"--since={oldest.isoformat()}", _DATED_LOG_FORMAT, "--raw",
                "--no-abbrev", f"-n{limit + 2}", "--", path,
            ),
            since,
        )  # fmt: skip
    else:
        log = git(
            repo, "log", f"--since={stamp}", _LOG_FORMAT, "--raw", "--no-abbrev",
            f"-n{limit + 2}", "--", path,
        )  # fmt: skip
    commits, base = _commits(log, recorded)
    walked: list[Commit] = []
    if base is None and recorded is not None and _head_blob(repo, path, git) != recorded:
        bound = git(repo, "rev-parse", "--verify", "-q", f"HEAD~{HISTORY_SPAN}")
        span = f"{bound.strip()}..HEAD" if bound else "HEAD"
        walk = git(
            repo, "log", span, _LOG_FORMAT, "--raw", "--no-abbrev", f"-n{HISTORY_WALK}",
            "--", path,
        )  # fmt: skip
        _, base = _commits(walk, recorded)
        walked, _ = _commits(walk, None)
    if base is not None:  # every commit since, a merged branch's older ones included
        since_base = git(repo, "log", f"{base}..HEAD", _LOG_FORMAT, f"-n{limit + 2}", "--", path)
        commits, _ = _commits(since_base, None)
    # A shallow clone's oldest commits show every file as added, whether they changed it or
    # not: they are not the change, and when the version the memory saw was not reached the
    # change may be further back than the clone has history.
    boundary = _shallow_boundary(repo, git)
    cut = base is None and any(c.hash in boundary for c in (*commits, *walked))
    commits = [c for c in commits if c.hash not in boundary]
    status = git(repo, "status", "--porcelain=v1", "-z", "--", path)
    moved = None
    if missing:
        renames = ("-M", "--diff-filter=R", "--name-status", "-z", "-n200")
        if base:
            history = git(repo, "log", f"{base}..HEAD", *renames, "--format=%x1e")
        elif shared:
            assert oldest is not None
            history = _dated_since(
                git(repo, "log", f"--since={oldest.isoformat()}", *renames, "--format=%x1e%ct%x1f"),
                since,
            )
        else:
            history = git(repo, "log", f"--since={stamp}", *renames, "--format=%x1e")
        staged = git(repo, "diff", "--cached", "-M", "--name-status", "-z", "HEAD")
        where = _moved(history, staged, path)
        # renamed and then deleted: it went nowhere a reader can follow
        if where != path and os.path.lexists(repo / where):
            moved = prefix + where
    # (tracked files are never reported as ignored: a pattern matching one does not count)
    unexplained = not commits and not status
    ignored = unexplained and git(repo, "check-ignore", "-q", "--", path, pathspecs=False) == ""
    # before the first commit there is no branch, nor an older version, to have checked out
    unborn = unexplained and git(repo, "rev-parse", "--verify", "-q", "HEAD") is None
    # nor is there for a file no commit of any branch ever held (written, then deleted)
    never = (
        unexplained
        and not ignored
        and not unborn
        and git(repo, "log", "--all", "-n1", "--format=%H", "--", path) == ""
    )
    return FileHistory(
        shown,
        tuple(commits[:limit]),
        len(commits) > limit,
        bool(status),
        moved,
        ignored,
        cut,
        unborn,
        never,
    )


def _shallow_boundary(repo: Path, git: Callable[..., str | None] | None = None) -> frozenset[str]:
    """The commits a shallow clone's history stops at (git's ``shallow`` file); none in a
    full clone. ``git``: how git is asked (file_history's answers), else :func:`_git`."""
    where = (git or _git)(repo, "rev-parse", "--git-path", "shallow")
    if not where:
        return frozenset()
    try:
        text = (repo / where.strip()).read_text(encoding="ascii", errors="replace")
    except OSError:  # no such file: not shallow
        return frozenset()
    return frozenset(text.split())


def _repository_of(files_root: Path, path: str) -> tuple[Path, str, str]:
    """The repository git is asked about ``path`` in, the path there, and the folder
    prefix that leads to it. The path is resolved first: git keeps a symlink as the link,
    and refuses a path through one, so the file a link leads to is the one with the
    history. Then the innermost submodule (or nested repository) holding it, whose history
    git run in the checkout refuses to tell ("is in submodule"); else the checkout."""
    from .safety import UnsafePathError, resolve_inside

    try:  # stored data: a path that leads out of the checkout is not followed
        resolved, root = resolve_inside(path, files_root)
    except UnsafePathError:
        return files_root, path, ""
    parts = os.path.relpath(resolved, root).split(os.sep)
    for depth in range(len(parts) - 1, 0, -1):
        folder = os.path.join(root, *parts[:depth])
        if os.path.lexists(os.path.join(folder, ".git")):
            return Path(folder), "/".join(parts[depth:]), "/".join(parts[:depth]) + "/"
    return files_root, "/".join(parts), ""


def _head_blob(
    files_root: Path, path: str, git: Callable[..., str | None] | None = None
) -> str | None:
    """The blob hash of ``path`` in HEAD; None when HEAD has no such file."""
    out = (git or _git)(files_root, "rev-parse", "--verify", "-q", f"HEAD:{path}")
    return out.strip() if out else None
