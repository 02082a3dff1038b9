"""``seed-solutions``: turn a folder of solution documents into ERROR-FIX memories, and keep
them in step with the documents.

The parsing rules are pure (:func:`kenning.solution_docs.parse_solution_doc`); this module does
the file-system side — which files may be read (no symlinks out of the project, no binary
or oversized files), the per-file report — and the write through the store's public API.

A run reconciles each document with the entries already seeded from it (the project's
``error_fix`` memories the seeding wrote, marked :data:`SEEDED_FROM` with the document's
path; for a folder an older kenning seeded, also the unmarked ones with the document's path
as ``source`` written before the first run that marks them), matched by the error
fingerprint of their signatures. A note an agent or a person remembered with the document
as its ``--source`` is not the document's: it is never updated or retired. The rules:

* an entry whose text is unchanged stays as it is (``duplicate``);
* an entry with the same signature and new text (the fix was rewritten) is replaced in
  place by :meth:`MemoryStore.update` — same id, one entry per signature (``updated``);
* a signature the document no longer has is retired, and so are all the entries of a
  document that was deleted, moved under ``/archived/`` or whose ``track`` is no longer
  ``bug`` (``retired``). **Retired means forgotten** (:meth:`MemoryStore.forget`): a
  retired entry can never be recalled, by any backend or surface, and nothing has to filter
  it out on every read; the document (and git's history of it) still holds the text;
* a new signature is stored through :meth:`MemoryStore.remember_many`, so the dedup rule
  still applies (``seeded``, or ``duplicate`` of what is already there);
* an entry edited since the seeding wrote it (its text is not the one :data:`SEEDED_HASH`
  records) is neither replaced nor retired: the edit is someone's knowledge, and the
  report names it (``skipped`` when the run did nothing else for the document). An entry
  an older kenning re-seeded (no record, an edit stamped) counts as edited unless it holds
  a text its document gave at the last run (that blob, read from git).

Retirements run first, then replacements, then new entries, so that a new entry is never
taken for a near-duplicate of the entry it replaces; a store that would refuse the new
entries' vectors (embedded with another model) stops the run before the retirements, with
nothing changed. A document that now fails to parse or has lost its ``## Fix`` section
keeps its entries (a half-edited document must not wipe knowledge); it is reported.

The git blob hash of every document read is kept in the store's metadata
(:data:`SEED_STATE_KEY` + project, with each file's mtime and size as a hint), so that
``changed_only`` runs — what the session-start hook does, :func:`reseed_changed` — read
only the documents whose hash changed since the last run and touch nothing else; a document
whose version here is older than the one seeded (which another branch committed after it:
see :func:`kenning.freshness.versions_replaced_or_not_committed`) is left as it is. Such a
run writes new hints only along with a change of contents: a document with a new mtime and
the same bytes (a checkout, another machine's clone) is hashed again by the next run, and
the store is not written for it.

A server store (PostgreSQL, a Qdrant server) is shared by separate clones of the
repository, which do not see each other's git objects: there the state also records which
clone (:func:`kenning.freshness.repository_id`) seeded each document's version and retired
each document gone, and a clone leaves as it is what another clone seeded or retired that
its own git cannot place (a commit not fetched, an edit not committed there): git cannot
tell older from newer, so the later edit is kept (this clone's version replaces it only if
it was committed, or run by hand, after that one was seeded or retired). The session's
re-seed there shares only what is committed (``committed_only``); a run by hand seeds the
documents as the checkout holds them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shlex
import stat
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errorfix import parse_error_fix
from .errors import EditConflict, KenningError, UserInputError, not_utf8
from .freshness import blob_hash, blob_text, git_read_once, recorded_files
from .model import (
    NEAR_DUPLICATE,
    SEEDED_FROM,
    STORED,
    Memory,
    RememberResult,
    content_hash,
    edit_version,
    utc_now,
)
from .solution_docs import (
    misplaced_solution_docs,
    parse_solution_doc,
    scan_solution_docs,
    source_path,
    unreadable_folder,
)
from .sources import unreadable_fix

if TYPE_CHECKING:
    from .store import MemoryStore

__all__ = [
    "DEFAULT_SOLUTIONS_DIR",
    "MAX_DOC_BYTES",
    "SEEDED_FROM",
    "SEEDED_HASH",
    "SEED_STATE_KEY",
    "FileReport",
    "SeedReport",
    "check_solutions_folder",
    "held_back",
    "reseed_changed",
    "seed_solutions",
    "shown_path",
    "unread_docs",
]

#: Solution docs are prose; anything bigger is not one (or is hostile).
MAX_DOC_BYTES = 1024 * 1024
#: Where the solution documents are, relative to the checkout, unless a folder is named.
DEFAULT_SOLUTIONS_DIR = "docs/solutions"
#: The store metadata key (``seed_state:<project>``) of the per-document blob hashes.
SEED_STATE_KEY = "seed_state"
#: The metadata key of the content hash of the text the seeding wrote to an entry: an entry
#: holding another text was edited since (``kenning edit``, the page, an agent).
SEEDED_HASH = "seeded_hash"
_STATE_VERSION = 1
#: How long a record of a doc a clone's run retired (the state's ``gone``) is kept: it
#: matters only to a clone that has not pulled that deletion, which would seed the doc
#: again. One older is neither read nor written back (:func:`_recent_tombs`): a clone that
#: has not pulled for longer seeds the doc again once, and the next session of a clone
#: that has the deletion retires it again and records it anew. Without it the records
#: (~90 bytes each, read at every session) grew with every doc ever deleted.
GONE_KEPT_DAYS = 90
#: Why a run on a branch other than the default one leaves a document as it is: one the
#: default branch deleted, one missing here that another branch holds, one older here.
_DELETED_ON_DEFAULT = (
    "the default branch has deleted it since this branch was made: not seeded from here"
)
_ELSEWHERE = (
    "not on this branch, but on another (or still on the default branch): its entries are "
    "left as they are"
)
_NOT_A_BUG_HERE_ONLY = (
    "no longer track: bug on this branch, but the default branch has another version: its "
    "entries are left until the change is merged"
)
_OLDER_VERSION = (
    "an older version than the one seeded (another branch or work tree changed it since): "
    "its entries are left as they are"
)
#: Why a clone leaves a doc as it is on a server store, which other clones share.
_ANOTHER_CLONES_VERSION = (
    "the version seeded comes from another clone of the repository, and this clone does not "
    "have it (not fetched yet, or not committed there), so it cannot tell which is newer: its "
    "entries are left as they are; git pull, and the next session compares them"
)
_ANOTHER_CLONES_DOC = (
    "not in this clone: another clone of the repository seeded it (not fetched here yet, or "
    "not committed there): its entries are left as they are"
)
_NOT_COMMITTED = (
    "changed here and not committed: a session does not put an edit not committed yet into "
    "the store shared with other clones; commit it, or run `kenning seed-solutions` to "
    "share it as it is"
)
_ANOTHER_CLONES_LATER_VERSION = (
    "another clone of the repository seeded a version of it after it was deleted here, one "
    "this clone does not have (not fetched yet, or not committed there): its entries are "
    "left as they are; git pull, and the next session compares them"
)
_DELETED_IN_ANOTHER_CLONE = (
    "another clone of the repository deleted it, and this branch has no commit deleting it "
    "(not pulled yet): not seeded again from here; git pull"
)
_DELETION_NOT_COMMITTED = (
    "deleted here and not committed: a session does not retire its entries from the store "
    "shared with other clones; commit the deletion, or run `kenning seed-solutions`"
)
_DELETION_NOT_ON_DEFAULT = (
    "deleted here and not committed, and the default branch still has it: a session does "
    "not retire its entries from the store shared with other clones until the deletion is "
    "committed and on the default branch (pushed, or merged)"
)

#: What a run left as the store has it of this clone's docs, said short (the session-start
#: hook's line): why the other clones sharing the store do not see this clone's version.
_HELD_BACK = {
    _NOT_COMMITTED: "not shared until committed",
    _DELETION_NOT_COMMITTED: "its deletion is not shared until committed",
    _DELETION_NOT_ON_DEFAULT: (
        "its deletion is not shared until committed and on the default branch (pushed or merged)"
    ),
    _ANOTHER_CLONES_VERSION: (
        "not shared: the store holds another clone's version, which this clone does not "
        "have (git pull)"
    ),
    _ANOTHER_CLONES_LATER_VERSION: (
        "its deletion is not shared: another clone seeded a later version (git pull)"
    ),
    _DELETED_IN_ANOTHER_CLONE: "not shared: another clone deleted it (git pull)",
}


@dataclass(frozen=True)
class FileReport:
    path: str
    #: "seeded", "updated", "retired", "duplicate", "unchanged" (not read: its hash is the
    #: one of the last run), "pending" (changed, left for a later run), "skipped", "failed",
    #: "kept" (not in the folder here, its entries left for another branch: not scanned)
    status: str
    reason: str | None = None
    entries: int = 0
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeedReport:
    directory: str
    scanned: int
    seeded: int
    duplicates: int
    skipped: int
    failed: int
    files: tuple[FileReport, ...] = field(default_factory=tuple)
    #: Entries replaced in place (same signature, new text), and entries forgotten.
    updated: int = 0
    retired: int = 0
    #: Documents not read because their hash is unchanged; changed ones left for later.
    unchanged: int = 0
    pending: int = 0
    #: Documents read and parsed (what ``max_docs`` caps).
    read: int = 0
    #: Scanned documents that gave entries (the entry counts above are theirs).
    with_entries: int = 0
    #: The secrets redacted from the entries written (kind → count), as remember says them.
    redactions: dict[str, int] = field(default_factory=dict)
    #: Markdown files under the folder that are not ``<category>/<doc>.md``: never read.
    ignored: tuple[str, ...] = ()
    #: Why the folder's run failed whole (:func:`reseed_changed`, which goes on with the
    #: other folders): nothing of it was read or written. None when it ran.
    error: str | None = None
    #: ``(category, error)`` of each category folder this user may not list (chmod 000 on
    #: ``docs/solutions/db``): its docs were not read and its entries are kept as they are,
    #: neither re-seeded nor retired; the other categories ran.
    unreadable: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.error is None and not self.unreadable

    def documents(self) -> dict[str, int]:
        """The scanned documents by what came of them, adding up to ``scanned``: ``skipped``
        is every one that gave no entry (not ``track: bug``, no fix, or no longer a bug and
        its entries retired), where the field of that name also counts a deleted document
        whose entries were kept as edited. The other counts are of entries, not documents:
        one document gives one entry per error signature."""
        gave_none = self.scanned - self.with_entries - self.failed - self.unchanged - self.pending
        return {
            "scanned": self.scanned,
            "with_entries": self.with_entries,
            "skipped": gave_none,
            "failed": self.failed,
            "unchanged": self.unchanged,
            "pending": self.pending,
        }

    def entries(self) -> dict[str, int]:
        """The entries written, found in place, replaced and retired (of every document)."""
        return {
            "seeded": self.seeded,
            "duplicates": self.duplicates,
            "updated": self.updated,
            "retired": self.retired,
        }

    @property
    def changed(self) -> bool:
        """Whether the run wrote anything."""
        return bool(self.seeded or self.updated or self.retired)

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "scanned": self.scanned,
            "seeded": self.seeded,
            "updated": self.updated,
            "retired": self.retired,
            "duplicates": self.duplicates,
            "unchanged": self.unchanged,
            "pending": self.pending,
            "skipped": self.skipped,
            "failed": self.failed,
            "files": [
                {
                    "path": f.path,
                    "status": f.status,
                    "reason": f.reason,
                    "entries": f.entries,
                    "ids": list(f.ids),
                }
                for f in self.files
            ],
            "ignored": list(self.ignored),
            # the counts above mix documents and entries: each group said apart
            "documents": self.documents(),
            "entries": self.entries(),
            "redactions": dict(self.redactions),
            **({"error": self.error} if self.error is not None else {}),
            **(
                {"unreadable": [{"category": c, "error": e} for c, e in self.unreadable]}
                if self.unreadable
                else {}
            ),
        }


def held_back(reports: Sequence[SeedReport], root: Path) -> list[tuple[str, str]]:
    """``(path, why)`` of each doc whose version here the runs of ``reports`` left out of a
    store other clones share (an edit or a deletion not committed, in a session; a version
    where another clone's is held, or one another clone deleted), ``path`` relative to
    ``root`` (the checkout) where it is inside, ``why`` short."""
    held: list[tuple[str, str]] = []
    for report in reports:
        folder = Path(report.directory)
        for f in report.files:
            why = _HELD_BACK.get(f.reason or "")
            if why is None:
                continue
            held.append((shown_path(folder / f.path, root), why))
    return held


#: How a doc the file system would not give is reported (its ``failed`` reason's start).
_CANNOT_READ = "cannot read the file: "
_CANNOT_RESOLVE = "cannot resolve the path: "


def unread_docs(reports: Sequence[SeedReport], root: Path) -> list[tuple[str, str]]:
    """``(path, why)`` of each doc of ``reports`` the file system would not give (an I/O
    error, no read rights), ``path`` as :func:`shown_path` names it, ``why`` the OS's
    reason and what to do: what a session says (it said nothing, and every change to the
    doc waited, unsaid). Its entries are kept as they are, and its record: the next run
    reads it again."""
    said: list[tuple[str, str]] = []
    for report in reports:
        for f in report.files:
            reason = f.reason or ""
            if f.status != "failed" or not reason.startswith((_CANNOT_READ, _CANNOT_RESOLVE)):
                continue
            path = Path(report.directory) / f.path
            err = (
                errno.EACCES
                if reason.endswith(os.strerror(errno.EACCES))
                else errno.ELOOP
                if reason.endswith(os.strerror(errno.ELOOP))
                else None
            )
            # (what `kenning stale` and `kenning source` say of such a file: one rule)
            fix = unreadable_fix(err, str(path), "doc")
            said.append((shown_path(path, root), f"{reason}; {fix} (its entries are kept)"))
    return said


def shown_path(path: Path | str, root: Path) -> str:
    """A doc's or a solutions folder's path as a session names it: relative to ``root`` (the
    checkout) where it is inside, else as it is."""
    path = Path(path)
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


def _read_doc(
    path: Path, directory: Path, project_root: Path
) -> tuple[bytes | None, str | None, str | None]:
    """The document's bytes and text, or why it cannot be used (a failure, reported per
    file).

    A symlink below the solutions folder (the doc or a category folder) must stay inside the
    project or the solutions folder; how the solutions folder itself is reached is the
    caller's choice.
    """
    try:
        resolved = path.resolve(strict=True)
    except OSError as exc:
        return None, None, f"{_CANNOT_RESOLVE}{exc.strerror or exc}"
    below = [p for p in (path, *path.parents) if p != directory and p.is_relative_to(directory)]
    linked = any(p.is_symlink() for p in below)
    inside = resolved.is_relative_to(project_root) or resolved.is_relative_to(directory.resolve())
    if linked and not inside:
        return None, None, f"symlink leaves the project (points to {resolved})"
    try:
        size = resolved.stat().st_size
        if size > MAX_DOC_BYTES:
            return (
                None,
                None,
                f"file is {size} bytes, over the {MAX_DOC_BYTES // 1024} KiB limit "
                "for a solution doc",
            )
        data = resolved.read_bytes()
    except OSError as exc:
        return None, None, f"{_CANNOT_READ}{exc.strerror or exc}"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # NUL in every other byte: not binary
        return None, None, "UTF-16 text, not UTF-8: save it as UTF-8"
    if b"\x00" in data:
        return None, None, "binary file (contains NUL bytes)"
    try:
        return data, data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, None, f"not UTF-8 text{not_utf8(data, exc.start)[0]}: save it as UTF-8"


# --------------------------------------------------------------------------------------------
# The per-document state: blob hashes of the last run
# --------------------------------------------------------------------------------------------


def _doc_path(rel: object) -> bool:
    """Whether ``rel`` (stored data) is a path :func:`scan_solution_docs` can give: one
    folder below the solutions folder, one ``.md`` file in it. Another (a NUL byte, which
    ``os.stat`` raises on, or ``..`` out of the folder) is no doc's: it is never looked at on
    the file system nor handed to git."""
    if not isinstance(rel, str) or "\0" in rel or not rel.endswith(".md"):
        return False
    parts = rel.split("/")
    return len(parts) == 2 and all(part not in ("", ".", "..") for part in parts)


def _state_key(store: MemoryStore) -> str:
    return f"{SEED_STATE_KEY}:{store.group_id}"


def _load_state(store: MemoryStore) -> dict[str, Any]:
    """The seed state of this project: ``{"version": 1, "folders": {prefix: {"dir": path
    relative to the checkout or None, "docs": {rel: [blob, mtime_ns, size]}, "by": {rel:
    [clone, ms]}, "gone": {rel: [blob, clone, ms]}}}}``, where ``by`` (a server store's
    only) names the repository each document's version was seeded from
    (:func:`kenning.freshness.repository_id`) and when (ms since the epoch), and ``gone``
    the one whose run retired a document gone, the version it had, and when. Stored data:
    anything malformed reads as no state (every document is read again), and a record of a
    path no document can have (:func:`_doc_path`) is left out."""
    raw = store.backend.get_meta(_state_key(store))
    empty: dict[str, Any] = {"version": _STATE_VERSION, "folders": {}}
    if raw is None:
        return empty
    try:
        state = json.loads(raw)
    except (ValueError, RecursionError):  # (nested past what the parser takes)
        return empty
    if not isinstance(state, dict) or state.get("version") != _STATE_VERSION:
        return empty
    folders = state.get("folders")
    if not isinstance(folders, dict):
        return empty
    clean: dict[str, Any] = {}
    for prefix, folder in folders.items():
        if not isinstance(folder, dict) or not isinstance(folder.get("docs"), dict):
            continue
        docs = {
            rel: hint
            for rel, hint in folder["docs"].items()
            if _doc_path(rel)
            and isinstance(hint, list)
            and len(hint) == 3
            and isinstance(hint[0], str)
            and all(isinstance(n, int) for n in hint[1:])
        }
        where = folder.get("dir")
        clean[str(prefix)] = {"dir": where if isinstance(where, str) else None, "docs": docs}
        if "unmarked_before" in folder:
            before = folder["unmarked_before"]
            clean[str(prefix)]["unmarked_before"] = before if isinstance(before, str) else None
        gone = folder.get("gone")
        if isinstance(gone, dict):
            clean[str(prefix)]["gone"] = {
                rel: tomb
                for rel, tomb in gone.items()
                if _doc_path(rel)
                and isinstance(tomb, list)
                and len(tomb) == 3
                and isinstance(tomb[0], str)
                and isinstance(tomb[1], str)
                and isinstance(tomb[2], int)
            }
        by = folder.get("by")
        if isinstance(by, dict):
            clean[str(prefix)]["by"] = {
                rel: who
                for rel, who in by.items()
                if isinstance(rel, str)
                and rel in docs
                and isinstance(who, list)
                and len(who) == 2
                and isinstance(who[0], str)
                and isinstance(who[1], int)
            }
    return {"version": _STATE_VERSION, "folders": clean}


def _contents(folder: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """One folder's state without the mtime and size hints: what its documents hold."""
    return folder.get("dir"), {rel: hint[0] for rel, hint in folder["docs"].items()}


def _save_folder(
    store: MemoryStore, prefix: str, folder: dict[str, Any], base: Mapping[str, Any] | None
) -> None:
    """Write one folder's entry of the state: read again under the store's write lock and
    merged with what this run changed since it read ``base`` (the folder's entry then), so
    that two runs at once, seeding different folders or different docs of one folder (two
    sessions, two clones of a shared store), keep each other's records (:func:`_merged`)."""
    with store.backend.exclusive():
        state = _load_state(store)
        now = state["folders"].get(prefix)
        merged = folder if now is None else _merged(base or {}, folder, now)
        if now == merged:
            return
        state["folders"][prefix] = merged
        store.backend.set_meta(_state_key(store), json.dumps(state, sort_keys=True))


def _merged(
    base: Mapping[str, Any], mine: Mapping[str, Any], now: Mapping[str, Any]
) -> dict[str, Any]:
    """A folder's state as another run left it (``now``), with what this run changed from the
    one it read (``base``) to the one it made (``mine``), record by record: a doc's hint, the
    clone that seeded its version, the record of its retirement. What this run did not change
    stays as the other run wrote it (written back from ``base``, another run's record was lost
    until the next session read its doc again and wrote it anew, or, for a deletion another
    clone recorded, seeded the doc back). A doc's new mtime and size alone do not replace
    another run's new version of it. Both changed: this run's, the later write."""
    out: dict[str, Any] = {}
    for key in {*mine, *now} - {"docs", "by", "gone"}:  # the folder's path, unmarked_before
        source = mine if mine.get(key) != base.get(key) else now
        if key in source:
            out[key] = source[key]
    for key in ("docs", "by", "gone"):
        old, ours = base.get(key, {}), mine.get(key, {})
        records = dict(now.get(key, {}))
        for rel in {*old, *ours}:
            b, m = old.get(rel), ours.get(rel)
            if m == b:
                continue
            theirs = records.get(rel)
            if key == "docs" and m and b and m[0] == b[0] and theirs and theirs[0] != b[0]:
                continue  # only the hints of the version this run read: the other's stands
            if m is None:
                records.pop(rel, None)
            else:
                records[rel] = m
        if key == "by":
            records = {rel: v for rel, v in records.items() if rel in out["docs"]}
        elif key == "gone":
            records = {rel: v for rel, v in records.items() if rel not in out["docs"]}
        if records or key == "docs":
            out[key] = dict(sorted(records.items()))
    return out


# --------------------------------------------------------------------------------------------
# Reconciling a document with its entries
# --------------------------------------------------------------------------------------------


def _fingerprint(content: str) -> str:
    entry = parse_error_fix(content)
    return entry.fingerprint if entry is not None else ""


@dataclass
class _Plan:
    """What one document's run does to the store."""

    retire: list[str] = field(default_factory=list)
    update: list[tuple[str, str]] = field(default_factory=list)  # (old id, new content)
    add: list[str] = field(default_factory=list)  # prepared content of new entries
    keep: list[Memory] = field(default_factory=list)
    #: entries edited since the seeding wrote them: neither replaced nor retired (ids)
    edited: list[str] = field(default_factory=list)


def _edited(memory: Memory, seeded_before: Collection[str] = ()) -> bool:
    """Whether someone edited ``memory`` since the seeding wrote it: its text is not the
    one the seeding recorded. An entry seeded before the record was kept counts as edited
    when an edit was stamped, unless its text is one its document gave at the last run
    (``seeded_before``): the seeding's own replacements stamped an edit too."""
    mark = memory.metadata.get(SEEDED_HASH)
    if isinstance(mark, str):
        return mark != memory.content_hash
    return "edited_at" in memory.metadata and memory.content not in seeded_before


def _texts_seeded_before(
    store: MemoryStore, directory: Path, prefix: str, rel: str, blob: str
) -> frozenset[str]:
    """The entries' texts the document ``rel`` gave at the last run (its blob then, read
    from git; none when git does not have it): what an older kenning's re-seed wrote, with
    the ``edited_at`` of an edit and no :data:`SEEDED_HASH`."""
    from .store import NewMemory

    text = blob_text(directory, blob)
    if text is None:
        return frozenset()
    outcome = parse_solution_doc(directory / rel, text, directory, source_prefix=prefix)
    texts = set()
    for entry in outcome.entries:
        item = NewMemory(
            entry.format(), "error_fix", source=entry.source, metadata={SEEDED_FROM: entry.source}
        )
        with contextlib.suppress(UserInputError):
            texts.add(store.prepare(item, store.group_id, seeding=True).memory.content)
    return frozenset(texts)


def _edited_note(edited: Sequence[str]) -> str:
    """What the report says of the entries (ids) kept because they were edited."""
    ids = ", ".join(edited)
    one = len(edited) == 1
    return (
        f"{'entry' if one else 'entries'} {ids} {'was' if one else 'were'} edited since "
        f"seeded: kept as edited, not replaced or retired by the document; forget "
        f"{'it' if one else 'them'} (kenning forget ID) to take the document's text"
    )


def _reconcile(
    old: Sequence[Memory], new_contents: Sequence[str], seeded_before: Collection[str] = ()
) -> _Plan:
    """Match a document's stored entries with its entries now (prepared contents), by the
    fingerprint of the signature: same text → keep, new text → update in place, gone →
    retire, new → add. A second stored entry with one fingerprint is retired (one entry per
    signature)."""
    plan = _Plan()
    by_fp: dict[str, list[Memory]] = {}
    for memory in old:
        by_fp.setdefault(_fingerprint(memory.content), []).append(memory)
    for content in new_contents:
        matches = by_fp.get(_fingerprint(content))
        if not matches:
            plan.add.append(content)
            continue
        same = next((m for m in matches if m.content == content), None)
        match = same or next((m for m in matches if not _edited(m, seeded_before)), None)
        if match is None:  # every entry of this signature was edited: the edits stand
            plan.edited.extend(m.id for m in matches)
            matches.clear()
            continue
        matches.remove(match)
        if same is not None:
            plan.keep.append(match)
        else:
            plan.update.append((match.id, content))
    left = [m for ms in by_fp.values() for m in ms]
    plan.retire = [m.id for m in left if not _edited(m, seeded_before)]
    plan.edited.extend(m.id for m in left if _edited(m, seeded_before))
    return plan


def _seeded_entries(
    store: MemoryStore, prefix: str, unmarked_before: str | None
) -> dict[str, list[Memory]]:
    """This project's ERROR-FIX entries seeded from documents under ``prefix``, by source:
    those marked :data:`SEEDED_FROM` with their source, and (``unmarked_before``: a folder
    an older kenning seeded, which marked none) the unmarked ones stored before that time.
    Any other note naming a document as its source is someone's own, not the document's."""
    from .model import parse_timestamp

    legacy = parse_timestamp(unmarked_before) if unmarked_before else None
    out: dict[str, list[Memory]] = {}
    for memory in store.browse(memory_type="error_fix"):
        source = memory.source or ""
        if not source.startswith(prefix + "/") or parse_error_fix(memory.content) is None:
            continue
        mark = memory.metadata.get(SEEDED_FROM)
        if mark == source or (mark is None and legacy is not None and memory.stored_at < legacy):
            out.setdefault(source, []).append(memory)
    for memories in out.values():
        memories.sort(key=lambda m: (m.stored_at, m.id))  # the oldest entry is the one kept
    return out


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


@dataclass
class _Doc:
    path: Path
    rel: str
    hint: list[Any] | None = None  # [blob, mtime_ns, size] to record after a good run
    plan: _Plan | None = None
    status: str = ""
    reason: str | None = None
    ids: list[str] = field(default_factory=list)
    entries: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    retry: bool = False  # a write failed: not recorded as seen, read again next run
    #: What parsing redacted from each entry (by its prepared content), and what the
    #: entries written had redacted, here and by the write path.
    redacted_in: dict[str, dict[str, int]] = field(default_factory=dict)
    redactions: Counter[str] = field(default_factory=Counter)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def written(self, content: str, result: RememberResult) -> None:
        self.redactions.update(self.redacted_in.get(content, {}))
        self.redactions.update(result.redactions)


def _is_gone(directory: Path, rel: str) -> bool:
    """Whether the document ``rel`` that discovery did not find is really gone: deleted, or
    moved (under ``/archived/`` is a move too). A path that cannot be looked at (a folder
    without read permission, an I/O error) is not taken as gone: retiring knowledge needs
    certainty."""
    if "/archived/" in f"/{rel}":
        return True
    try:
        st = os.stat(directory / rel)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode)


def check_one_project(group_id: str | None) -> None:
    """Refuse ``all`` (every project) as the project to seed: the entries are written into
    one project, and taken for this checkout's they would go where the user did not say.
    Said as what to run instead, before the folder and the store are looked at."""
    from .project import means_every_project

    if means_every_project(group_id):
        raise UserInputError(
            "kenning seed-solutions works on one project at a time (it writes a checkout's "
            "solution documents into one project), and 'all' names every project; run it "
            "without --project for this checkout's project, or name one: --project owner/repo"
        )


def check_solutions_folder(directory: Path) -> None:
    """Refuse a solutions folder that is not there, not a folder, or one this user may not
    list or search, naming it."""
    if not directory.exists():
        raise UserInputError(
            f"solutions folder {directory} does not exist; pass the folder that holds "
            "<category>/<doc>.md files (default: docs/solutions)"
        )
    if not directory.is_dir():
        raise UserInputError(f"{directory} is not a folder; pass the solutions folder")
    first: os.DirEntry[str] | None = None
    try:
        with os.scandir(directory) as listing:
            first = next(listing, None)
        if first is not None:
            # a folder that may be listed and not searched (chmod 644: r without x) lists its
            # categories, and none of them opens: each was said unreadable, with a chmod of
            # its own that its owner could not run either
            os.lstat(first.path)
    except OSError as exc:
        if first is None or not isinstance(exc, FileNotFoundError):
            # (its docs were read as none: a session's re-seed said nothing, every change
            # waited)
            raise unreadable_folder(f"solutions folder {directory}", directory, exc) from None
        # (its first name gone since it was listed: the scan says what is there)


def _seeded_folder(store: MemoryStore, directory: Path, source_prefix: str | None) -> bool:
    """Whether this project was seeded from ``directory`` (inside its checkout) under
    ``source_prefix`` (None: the folder's own path), by the seed state the store keeps."""
    if not store.exists:
        return False
    files_root = store.project.files_root
    resolved = Path(os.path.normpath(directory.absolute()))
    if not resolved.is_relative_to(files_root):
        return False
    where = resolved.relative_to(files_root).as_posix()
    folder = _load_state(store)["folders"].get((source_prefix or where).strip("/"))
    return folder is not None and folder.get("dir") == where


def check_source_prefix(source_prefix: str) -> None:
    """Refuse a ``source_prefix`` that no SOURCE: line may start with: the entries' SOURCE
    paths are read later inside the project only (``kenning source``, freshness), so one
    that leaves it (``../docs``, ``/srv/docs``, ``~/docs``) or holds a control or invisible
    character would be written into every entry and refused at every read. Empty is the
    documents' own paths, relative to the folder."""
    from .safety import lexical_reason

    if not isinstance(source_prefix, str):
        raise UserInputError.of_parameter(
            "source_prefix", "source_prefix", f" is {source_prefix!r:.40}; expected a path"
        )
    reason = lexical_reason(source_prefix.rstrip("/")) if source_prefix.strip("/") else None
    if reason:
        raise UserInputError.of_parameter(
            "source_prefix",
            "source_prefix",
            f" {source_prefix!r:.80} cannot start a SOURCE: path ({reason}); give a path "
            "relative to the project, such as docs/solutions",
        )


def _elsewhere(directory: Path, missing: Sequence[str], copies: Sequence[Path] = ()) -> set[str]:
    """Of the docs ``missing`` from ``directory``, those that are not gone from the project:
    ones this branch never had and another ref has (a worktree on an older branch, a
    checkout of last month's release: retiring their entries forgot them for everyone
    sharing the store, and the next session on the other branch seeded them again under new
    ids, their seen count, edits and review lost), and ones the default branch still has (a
    feature branch that deletes a doc does not take its entries from everyone before it is
    merged), and ones no commit has that another work tree holds (``copies``: the folder
    as each holds it; a doc written there and not committed yet was retired here, and
    seeded there again under a new id, every session). A doc no commit ever had and no
    work tree holds (written, seeded and deleted before it was committed) is gone. Where
    git cannot tell, only another work tree's copy keeps a doc."""
    from .freshness import (
        paths_in_head,
        paths_other_refs_have_had,
        paths_the_branch_has_had,
        paths_the_default_branch_has,
    )

    if not missing:
        return set()
    # git runs in the nearest folder there is: the folder itself may be gone (git drops a
    # folder with its last doc), and git cannot run in it
    base = directory
    while not base.is_dir() and base.parent != base:
        base = base.parent
    lead = directory.relative_to(base).as_posix() if base != directory else ""
    paths = {f"{lead}/{rel}" if lead else rel: rel for rel in missing}
    had = paths_the_branch_has_had(base, list(paths))
    others = paths_other_refs_have_had(base, list(paths)) or set()
    kept = paths_the_default_branch_has(base, list(paths)) or set()
    held = {rel for rel in missing if any((copy / rel).is_file() for copy in copies)}
    # deleted here and not committed yet, where another work tree has it: kept until the
    # deletion is committed (the other work tree's sessions seeded it back meanwhile)
    uncommitted = paths_in_head(base, [p for p, rel in paths.items() if rel in held])
    return {
        rel
        for path, rel in paths.items()
        if (had is not None and path not in had and path in others)
        or path in kept
        # (a doc some commit has is the branches' matter, above: a work tree on an older
        # branch holds one the default branch deleted)
        or (rel in held and (path not in others or path in uncommitted))
    }


def _deleted_not_committed_and_on_default(directory: Path, absent: Collection[str]) -> set[str]:
    """Of the docs ``absent`` from ``directory`` whose entries :func:`_elsewhere` keeps,
    those deleted here and not committed that the default branch has: held back from a
    shared store as a deletion not committed is where the checkout is the default branch
    (:data:`_DELETION_NOT_COMMITTED`), and said as such (qa72 F5: a clone with an
    ``origin/HEAD`` kept them as another branch's, and its user was never told). Two git
    calls, only for docs deleted here."""
    from .freshness import paths_in_head, paths_the_default_branch_has

    if not absent:
        return set()
    base = directory
    while not base.is_dir() and base.parent != base:
        base = base.parent  # git runs in the nearest folder there is
    lead = directory.relative_to(base).as_posix() if base != directory else ""
    paths = {f"{lead}/{rel}" if lead else rel: rel for rel in absent}
    here = paths_in_head(base, list(paths))
    default = paths_the_default_branch_has(base, sorted(here)) or set()
    return {paths[path] for path in here if path in default}


def _still_a_bug_on_the_default_branch(directory: Path, doc: _Doc) -> bool:
    """Whether the default branch holds another version of ``doc`` than this branch's, one
    that may still be ``track: bug`` (while another branch is checked out)."""
    from .freshness import blobs_on_the_default_branch

    if doc.hint is None:
        return False
    there = blobs_on_the_default_branch(directory, [doc.rel]) or {}
    return there.get(doc.rel) not in (None, doc.hint[0])


def _later_here(
    directory: Path, versions: Mapping[str, str], since: Mapping[str, int], now_ms: int
) -> set[str]:
    """Which of ``versions`` (rel → the blob this clone holds) were made here after the time
    ``since`` gives each (ms): committed later (the commit's time), or not committed (now,
    a run asked for). One git call."""
    from .freshness import commit_times

    made = commit_times(directory, versions) or {}
    return {
        rel
        for rel in versions
        if (made[rel] * 1000 if rel in made else now_ms) > since.get(rel, now_ms)
    }


def _left_for_other_clones(
    directory: Path,
    changed: Sequence[tuple[str, Path, list[Any], str, list[Any] | None]],
    clones: Mapping[str, Sequence[Any]],
    me: str | None,
    committed_only: bool,
    now_ms: int,
) -> dict[str, str]:
    """Of the ``changed`` documents (rel, path, [blob, mtime, size] now, text, hint of the
    last run), those a run in this clone (``me``: :func:`kenning.freshness.repository_id`;
    None off a server store, where nothing is left) leaves as they are, with why: ones whose
    version recorded another clone seeded (``clones``: rel → [clone, ms]) and no commit of
    this clone has — not fetched yet, or not committed there: older or newer, git cannot
    tell — unless this clone's version was made after it was seeded (the later edit is
    kept, as of two branches'); and (``committed_only``, a session's re-seed) ones changed
    here and not committed, which only a run asked for shares with the other clones. Three
    git calls at most."""
    from .freshness import blobs_in_head, versions_no_commit_has, worktree_blob

    if me is None or not changed:
        return {}
    left: dict[str, str] = {}
    if committed_only:
        head = blobs_in_head(directory, [rel for rel, *_ in changed]) or {}
        for rel, _, seen, text, _ in changed:
            # (a checkout with CRLF line ends holds the blob git has with LF)
            if head.get(rel) not in (seen[0], worktree_blob(text.encode("utf-8"))):
                left[rel] = _NOT_COMMITTED
    foreign = {
        rel: hint[0]
        for rel, _, seen, _, hint in changed
        if hint is not None
        and hint[0] != seen[0]
        and rel in clones
        and clones[rel][0] != me
        and rel not in left
    }
    unknown = versions_no_commit_has(directory, foreign) if foreign else set()
    unknown = set(foreign) if unknown is None else unknown
    here = {rel: seen[0] for rel, _, seen, _, _ in changed if rel in unknown}
    later = _later_here(directory, here, {rel: clones[rel][1] for rel in here}, now_ms)
    for rel in unknown - later:
        left[rel] = _ANOTHER_CLONES_VERSION
    return left


#: What a run by hand adds to why it left something for another clone: a version, a doc
#: or a deletion that clone will never share (the clone deleted or moved, an edit seeded by
#: hand and dropped) was left for ever, and `git pull` cannot bring it.
_OVER_OTHER_CLONES = (
    "; if that clone's is not to be kept (the clone gone, its edit dropped), run kenning "
    "seed-solutions --over-other-clones"
)


def _said(why: str, committed_only: bool) -> str:
    """``why`` a run left a doc, with, for a run by hand that left it for another clone,
    how to put this clone's version over it."""
    other_clones = (
        _ANOTHER_CLONES_VERSION,
        _ANOTHER_CLONES_DOC,
        _ANOTHER_CLONES_LATER_VERSION,
        _DELETED_IN_ANOTHER_CLONE,
    )
    return why + _OVER_OTHER_CLONES if not committed_only and why in other_clones else why


def _recent_tombs(tombs: Mapping[str, list[Any]], now_ms: int) -> dict[str, list[Any]]:
    """The records of retired docs (rel → [blob, clone, ms]) made less than
    :data:`GONE_KEPT_DAYS` before ``now_ms`` (one stamped ahead, another clock's, is kept)."""
    oldest = now_ms - GONE_KEPT_DAYS * 86_400_000
    return {rel: tomb for rel, tomb in tombs.items() if tomb[2] > oldest}


def _deleted_in_other_clones(
    directory: Path,
    unseeded: Mapping[str, str],
    tombs: Mapping[str, Sequence[Any]],
    me: str | None,
    now_ms: int,
) -> set[str]:
    """Of the documents ``unseeded`` (rel → the blob here; none of their entries recorded),
    those another clone's run retired (``tombs``: rel → [blob, clone, ms]) that the
    checked-out branch of this clone (``me``, as :func:`_left_for_other_clones` has it) has
    no commit deleting: a deletion pushed there and not pulled here (or a branch made before
    it), which this clone must not undo for everyone, unless its version was made after the
    retirement. A doc written again after this branch's own deletion is a new one. Two git
    calls at most."""
    from .freshness import paths_the_branch_deleted

    foreign = [rel for rel in unseeded if rel in tombs and tombs[rel][1] != me]
    if me is None or not foreign:
        return set()
    deleted = paths_the_branch_deleted(directory, foreign)
    undone = set(foreign) if deleted is None else set(foreign) - deleted
    here = {rel: unseeded[rel] for rel in undone}
    return undone - _later_here(directory, here, {rel: tombs[rel][2] for rel in here}, now_ms)


def _gone_for_other_clones(
    directory: Path,
    gone: Sequence[str],
    clones: Mapping[str, Sequence[Any]],
    me: str | None,
    committed_only: bool,
    seeded: Mapping[str, str],
    now_ms: int,
) -> dict[str, str]:
    """Of the documents ``gone`` from ``directory``, those a run in this clone (``me``, as
    :func:`_left_for_other_clones` has it) keeps the entries of, with why: ones another
    clone seeded that no ref of this clone has had (written there, not fetched here yet);
    ones whose version another clone seeded (``seeded``: rel → its blob) after this clone
    deleted them, a version no commit here has (an edit made there after the deletion was
    pushed, not pulled: the later edit is kept, as :func:`_left_for_other_clones` keeps
    it); and (``committed_only``) ones the checked-out commit still has (deleted here, the
    deletion not committed). Four git calls at most."""
    from .freshness import (
        deletion_times,
        paths_in_head,
        paths_other_refs_have_had,
        versions_no_commit_has,
    )

    if me is None or not gone:
        return {}
    base = directory
    while not base.is_dir() and base.parent != base:
        base = base.parent  # git runs in the nearest folder there is (git drops a folder)
    lead = directory.relative_to(base).as_posix() if base != directory else ""
    paths = {f"{lead}/{rel}" if lead else rel: rel for rel in gone}
    kept: dict[str, str] = {}
    if committed_only:
        for path in paths_in_head(base, list(paths)):
            kept[paths[path]] = _DELETION_NOT_COMMITTED
    foreign = [
        p for p, rel in paths.items() if rel in clones and clones[rel][0] != me and rel not in kept
    ]
    if foreign:
        had = paths_other_refs_have_had(base, foreign)
        for path in foreign:
            if had is None or path not in had:
                kept[paths[path]] = _ANOTHER_CLONES_DOC
    # a path this clone has had, deleted here before another clone's version was seeded
    placed = {p: seeded[paths[p]] for p in foreign if paths[p] not in kept and paths[p] in seeded}
    unknown = versions_no_commit_has(base, placed) if placed else set()
    unknown = set(placed) if unknown is None else unknown
    if unknown:
        deleted = deletion_times(base, sorted(unknown))
        for path in unknown:
            if deleted is None:  # git cannot tell: retiring knowledge needs certainty
                kept[paths[path]] = _ANOTHER_CLONES_LATER_VERSION
                continue
            # (no commit deleting it: deleted here and not committed, a run by hand's now)
            made = deleted[path] * 1000 if path in deleted else now_ms
            if made <= clones[paths[path]][1]:
                kept[paths[path]] = _ANOTHER_CLONES_LATER_VERSION
    return kept


def _other_copies(directory: Path, top: Path) -> list[Path]:
    """The folder ``directory`` (of the work tree at ``top``) as each other work tree of
    the repository holds it; none for a folder outside the work tree."""
    from .freshness import other_work_trees

    try:
        inner = directory.resolve().relative_to(top.resolve())
    except ValueError:
        return []
    return [tree / inner for tree in other_work_trees(top)]


def _held_by_another_work_tree(copies: Sequence[Path], rel: str, blob: str) -> bool:
    """Whether another work tree's copy of doc ``rel`` is the version ``blob`` (one written
    there, committed or not)."""
    for copy in copies:
        try:
            if blob_hash((copy / rel).read_bytes()) == blob:
                return True
        except OSError:
            continue
    return False


def _refuse_another_work_tree(directory: Path, resolved_dir: Path, root: Path) -> None:
    """Refuse a folder of another work tree of this repository. It shares this one's store
    and project, so seeded from here its docs got a second entry each, under a source
    prefix of the folder's name, which no work tree holds: recalled twice, never stale."""
    from .project import find_checkout

    checkout = find_checkout(resolved_dir)
    if checkout is None or checkout.root.resolve() != root.resolve():
        return  # a folder outside the repository: the user's choice
    inner = resolved_dir.relative_to(checkout.toplevel.resolve()).as_posix()
    raise UserInputError(
        f"solutions folder {directory} is in another work tree of this repository "
        f"({checkout.toplevel}), which shares this store: seeded from here, each doc would get "
        f"a second entry with a source no work tree has. Seed it there: cd "
        f"{shlex.quote(str(checkout.toplevel))} && kenning seed-solutions {shlex.quote(inner)}"
    )


# A run of the seeding changes none of the refs and commits it asks git about, and asked the
# same questions again (the default branch for each check, HEAD's tree for the docs missing
# here): each run asks each once (git_read_once, a context manager used as a decorator).
@git_read_once()
def seed_solutions(
    store: MemoryStore,
    directory: Path,
    *,
    source_prefix: str | None = None,
    progress: Callable[[int], None] | None = None,
    total: Callable[[int], None] | None = None,
    changed_only: bool = False,
    max_docs: int | None = None,
    committed_only: bool = False,
    over_other_clones: bool = False,
) -> SeedReport:
    """Seed ERROR-FIX entries from ``directory/*/*.md`` (SPEC §6) and reconcile the entries
    of documents that changed, moved or went away (see the module docstring). Idempotent: a
    second run finds every entry in place and writes nothing.

    ``changed_only`` reads only the documents whose blob hash differs from the last run's
    (mtime and size unchanged: not even hashed); ``max_docs`` caps how many changed
    documents one run processes (the rest are ``pending``, for a later run).

    On a server store, which other clones of the repository share, a document whose version
    was seeded from another clone that this one does not have in git (not fetched, or not
    committed there) is left as it is, and so are the entries of one missing here that
    another clone seeded and no ref here has had: this clone cannot tell older from newer.
    ``committed_only`` (the session's re-seed on a server store) also leaves the documents
    changed or deleted here and not committed: only a run asked for shares them.
    ``over_other_clones`` (a run asked for) leaves nothing for another clone: this clone's
    docs go over a version, a doc or a deletion another clone seeded that will never be
    pulled here (that clone deleted or moved, an edit seeded by hand there and dropped).
    """
    store.check_location()
    store.own_group_id()  # the entries are this project's: a store opened for all has none
    files_root = store.project.files_root
    directory = Path(directory)
    if directory.is_dir() or not _seeded_folder(store, directory, source_prefix):
        check_solutions_folder(directory)
    # else a folder seeded before that is gone (git drops a folder with its last doc, or it
    # was renamed), or has a file in its place: its documents are all gone, and their
    # entries are retired below, where "does not exist" left them recalled for ever (and
    # "is not a folder" said again at every session, its entries never retired)
    resolved_dir = directory.resolve()
    inside = next(
        (base for base in (files_root, store.project.root) if resolved_dir.is_relative_to(base)),
        None,
    )
    if inside is None and any(
        Path(os.path.normpath(directory.absolute())).is_relative_to(base)
        for base in (files_root, store.project.root)
    ):
        # a folder named outside is the user's choice; one a checkout's symlink leads out of
        # it (a cloned repository's committed docs/solutions -> ../../elsewhere) is not
        raise UserInputError(
            f"solutions folder {directory} is in the project, but a symlink leads it out, to "
            f"{resolved_dir}; kenning does not follow a link out of the project. To seed that "
            f"folder, name it: kenning seed-solutions {resolved_dir}"
        )
    if inside is None:
        _refuse_another_work_tree(directory, resolved_dir, store.project.root)
    if source_prefix is None:
        source_prefix = (
            resolved_dir.relative_to(inside).as_posix() if inside is not None else directory.name
        )
    else:
        check_source_prefix(source_prefix)
    prefix = source_prefix.strip("/")
    state = _load_state(store)
    # the folder as the state records it (None: outside the checkout, never re-seeded)
    folder_dir = (
        resolved_dir.relative_to(files_root).as_posix()
        if resolved_dir.is_relative_to(files_root)
        else None
    )
    earlier = next(
        (
            p
            for p, f in state["folders"].items()
            if p != prefix and folder_dir and f.get("dir") == folder_dir
        ),
        None,
    )
    # (a session's re-seed goes on with each prefix an older kenning recorded for a folder)
    if earlier is not None and not changed_only:
        # its docs' entries are matched under the prefix they were seeded with: under another
        # one each doc got a second entry, and the first was never updated nor retired again
        raise UserInputError(
            f"solutions folder {directory} was seeded with the source prefix {earlier!r}; "
            f"seeding it with {prefix!r} would leave those entries beside the new ones, never "
            f"updated or retired again. Run it with --source-prefix {shlex.quote(earlier)} "
            "(or without it, if that is the folder's path)"
        )
    # (a category this user may not list is said, its entries kept; the others run)
    unreadable: list[tuple[str, UserInputError]] = []
    # (and a doc the file system will not stat, a symlink loop: failed, its record kept)
    unstatted: list[tuple[str, str, OSError]] = []
    docs = scan_solution_docs(directory, unreadable, unstatted)
    blocked = {category for category, _ in unreadable}
    if total:
        total(len(docs))

    folder = state["folders"].get(prefix)
    known: dict[str, list[Any]] = folder["docs"] if folder else {}
    incremental = changed_only and folder is not None
    reports: dict[str, FileReport] = {}
    next_known: dict[str, list[Any]] = {}
    work: list[_Doc] = []
    texts: dict[Path, str] = {}
    changed: list[tuple[str, Path, list[Any], str, list[Any] | None]] = []
    pending = 0
    pending_blobs: set[str] = set()  # of the changed docs the cap leaves for a later run
    for rel, _, exc in unstatted:
        reports[rel] = FileReport(rel, "failed", f"{_CANNOT_RESOLVE}{exc.strerror or exc}")
        if rel in known:
            next_known[rel] = known[rel]  # what was seeded from it is still in the store
    for rel, where, st in docs:
        hint = known.get(rel)
        if incremental and hint is not None and hint[1] == st.st_mtime_ns and hint[2] == st.st_size:
            reports[rel] = FileReport(rel, "unchanged")
            next_known[rel] = hint
            continue
        path = Path(where)
        # the checkout's own files: a linked work tree is outside the main checkout
        data, text, problem = _read_doc(path, directory, files_root)
        if problem is not None or data is None or text is None:
            reports[rel] = FileReport(rel, "failed", problem)
            if hint is not None:
                next_known[rel] = hint  # what was seeded from it is still in the store
            continue
        blob = blob_hash(data)
        seen = [blob, st.st_mtime_ns, st.st_size]
        if incremental and hint is not None and hint[0] == blob:
            reports[rel] = FileReport(rel, "unchanged")
            next_known[rel] = seen
            continue
        changed.append((rel, path, seen, text, hint))
    # On a server store, other clones share the entries: which clone seeded each version
    clones: dict[str, list[Any]] = dict(folder.get("by", {})) if folder else {}
    now_ms = int(utc_now().timestamp() * 1000)
    me: str | None = None
    if store.project.on_a_server and (changed or set(known) - {rel for rel, _, _ in docs}):
        from .freshness import repository_id

        me = repository_id(directory)
    # (asked to, a run by hand puts this clone's docs over what other clones seeded or
    # retired: the records are not read, and this run's are written)
    theirs: Mapping[str, list[Any]] = {} if over_other_clones else clones
    left = _left_for_other_clones(directory, changed, theirs, me, committed_only, now_ms)
    older: set[str] = set()
    # A worktree on an older branch must not put a doc's old text back for everyone, in a
    # session's re-seed or a `kenning seed-solutions` run there
    recorded = {
        rel: (hint[0], seen[0])
        for rel, _, seen, _, hint in changed
        if hint and hint[0] != seen[0] and rel not in left
    }
    copies: list[Path] | None = None  # the folder in the other work trees, once asked

    def other_copies() -> list[Path]:
        nonlocal copies
        if copies is None:
            copies = _other_copies(directory, files_root)
        return copies

    if recorded:
        from .freshness import versions_replaced_or_not_committed

        # nor the text another work tree gave it and holds, not committed yet: each work
        # tree's sessions put its own version back, in turn
        replaced, uncommitted = versions_replaced_or_not_committed(directory, recorded)
        older = replaced or set()
        for rel in uncommitted or set():
            if _held_by_another_work_tree(other_copies(), rel, recorded[rel][0]):
                older.add(rel)
    # Nor may it seed again, for everyone, a doc the default branch has deleted since: its
    # entries, retired there, came back under a new id each session, and went again
    unseeded = [rel for rel, _, _, _, hint in changed if hint is None]
    if unseeded:
        from .freshness import paths_the_default_branch_deleted

        dropped = paths_the_default_branch_deleted(directory, unseeded)
    else:
        dropped = set()
    # Nor (a server store's) one another clone deleted, which this one has not fetched yet
    tombs = _recent_tombs(folder.get("gone", {}) if folder else {}, now_ms)
    fresh = {
        rel: str(seen[0])
        for rel, _, seen, _, hint in changed
        if hint is None and rel not in dropped and rel not in left
    }
    their_tombs: Mapping[str, list[Any]] = {} if over_other_clones else tombs
    for rel in _deleted_in_other_clones(directory, fresh, their_tombs, me, now_ms):
        left[rel] = _DELETED_IN_ANOTHER_CLONE
    for rel, path, seen, text, hint in changed:
        if rel in left:
            reports[rel] = FileReport(rel, "unchanged", _said(left[rel], committed_only))
            if hint is not None:
                next_known[rel] = hint
            continue
        if rel in older and hint is not None:
            reports[rel] = FileReport(rel, "unchanged", _OLDER_VERSION)
            next_known[rel] = hint
            continue
        if rel in dropped:
            reports[rel] = FileReport(rel, "unchanged", _DELETED_ON_DEFAULT)
            continue
        if max_docs is not None and len(work) >= max_docs:
            reports[rel] = FileReport(rel, "pending", "changed; left for the next run")
            pending += 1
            pending_blobs.add(str(seen[0]))
            if hint is not None:
                next_known[rel] = hint
            continue
        texts[path] = text
        work.append(_Doc(path, rel, seen))
    discovered = {rel for rel, _, _ in docs} | {rel for rel, _, _ in unstatted}
    # the docs of a category that could not be listed are not gone: their record is kept,
    # so the next run that can read them re-seeds only what changed
    unlisted = {rel for rel in known if rel.split("/", 1)[0] in blocked}
    next_known.update((rel, known[rel]) for rel in unlisted)
    gone = [
        rel
        for rel in known
        if rel not in discovered and rel not in unlisted and _is_gone(directory, rel)
    ]
    if gone:
        # A session's re-seed and a run by hand alike go on whatever branch is checked out:
        # see _elsewhere. Retired once this branch has had the doc (deleted from its files
        # or by a commit) and the default branch has it no more.
        absent = _elsewhere(directory, gone, other_copies())
        next_known.update((rel, known[rel]) for rel in absent)
        for rel in absent:
            reports[rel] = FileReport(rel, "kept", _ELSEWHERE)
        if committed_only and me is not None:
            # (a session on a server store: the user is told what of theirs it held back)
            for rel in _deleted_not_committed_and_on_default(directory, absent):
                reports[rel] = FileReport(rel, "kept", _DELETION_NOT_ON_DEFAULT)
        gone = [rel for rel in gone if rel not in absent]
        # On a server store: nor one another clone seeded that this one never had, nor
        # (a session's) one deleted here and not committed
        seeded = {rel: str(known[rel][0]) for rel in gone}
        for rel, reason in _gone_for_other_clones(
            directory, gone, theirs, me, committed_only, seeded, now_ms
        ).items():
            next_known[rel] = known[rel]
            reports[rel] = FileReport(rel, "kept", _said(reason, committed_only))
        gone = [rel for rel in gone if rel not in reports]

    # A doc moved to a path the cap leaves for a later run (a folder renamed, more docs than
    # a session re-seeds): its entries stay until the run that seeds it at its new path,
    # where they are retired before it is added. Retired now, its fix was recalled by
    # nothing for as many sessions as the cap took.
    moving = {rel for rel in gone if rel in known and known[rel][0] in pending_blobs}
    next_known.update((rel, known[rel]) for rel in moving)
    gone = [rel for rel in gone if rel not in moving]

    # A folder an older kenning seeded marked none of its entries: those stored before now
    # are taken as its documents' (as that kenning took them); from now on, only the marked.
    unmarked_before = (
        folder.get("unmarked_before", utc_now().isoformat()) if folder is not None else None
    )
    gone_reports: list[FileReport] = []
    if work or gone or not incremental:
        gone_reports = _run(
            store,
            directory,
            prefix,
            work,
            texts,
            gone,
            discovered,
            reports,
            incremental,
            moving,
            unmarked_before,
            {rel: str(hint[0]) for rel, hint in known.items()},
        )

    # A doc whose write failed is read again next time; one that cannot be parsed is not
    # (until it changes), so broken docs never hold up a capped run.
    written = {d.rel: d.hint for d in work if not d.retry and d.hint is not None}
    # A doc whose entry was kept as edited is not recorded as seeded at its new version:
    # forgotten as the listing advises, the entry is seeded from the doc by the next
    # session (recorded, the doc read as unchanged, and no entry came back until a full run)
    # Nor is one left as it is for the default branch's sake: read again, it is retired
    # once the default branch has its change (recorded, it read as unchanged there)
    for d in work:
        kept = (d.status == "skipped" and d.entries) or d.reason == _NOT_A_BUG_HERE_ONLY
        if kept and d.rel in written:
            if d.rel in known:
                written[d.rel] = known[d.rel]
            else:
                del written[d.rel]
    folder_state: dict[str, Any] = {
        "dir": folder_dir,
        "docs": dict(sorted({**next_known, **written}.items())),
        "unmarked_before": unmarked_before,
    }
    # Which clone each version recorded came from (a server store's): this one for the
    # versions this run recorded
    by = {rel: who for rel, who in clones.items() if rel in folder_state["docs"]}
    if me is not None:
        by.update((rel, [me, now_ms]) for rel, hint in written.items() if hint != known.get(rel))
    if by:
        folder_state["by"] = dict(sorted(by.items()))
    # and which clone retired the docs gone (a server store's): another clone that still
    # holds one, and has no commit deleting it, does not seed it again
    gone_by = {rel: tomb for rel, tomb in tombs.items() if rel not in folder_state["docs"]}
    if me is not None:
        gone_by.update((rel, [str(known[rel][0]), me, now_ms]) for rel in gone if rel in known)
    if gone_by:
        folder_state["gone"] = dict(sorted(gone_by.items()))
    # A changed_only run writes the state when a document's contents changed (or one came
    # or went), not for new mtimes alone (a checkout, a teammate's clone of a shared store):
    # such a doc is hashed again next time, and no session start writes to the store for it
    hints_only = changed_only and _contents(folder_state) == _contents(folder or folder_state)
    if folder is None or (folder_state != folder and not hints_only):
        _save_folder(store, prefix, folder_state, folder)
    elif "unmarked_before" not in folder:
        # An older kenning's folder: the time before which its unmarked entries count is
        # written the first time it is set (taken anew at each run, it would adopt notes
        # remembered since). A store that refuses the write (a read-only replica) gets it
        # from the first run that can write, and this run says nothing of it.
        with contextlib.suppress(KenningError):
            _save_folder(store, prefix, folder_state, folder)
    if progress:
        progress(len(docs))

    # and the docs missing here whose entries were left for another branch (_elsewhere)
    elsewhere = tuple(r for rel, r in reports.items() if rel not in discovered)
    listed = sorted(discovered, key=lambda rel: tuple(rel.split("/", 1)))  # as the scan's
    files = tuple(reports[rel] for rel in listed) + tuple(gone_reports) + elsewhere
    counts: dict[str, int] = {}
    redactions: Counter[str] = Counter()
    for doc in work:
        for what, n in doc.counts.items():
            counts[what] = counts.get(what, 0) + n
        redactions.update(doc.redactions)
    retired_gone = sum(r.entries for r in gone_reports)
    return SeedReport(
        directory=str(directory),
        scanned=len(docs) + len(unstatted),
        seeded=counts.get("seeded", 0),
        duplicates=counts.get("duplicate", 0),
        skipped=sum(f.status == "skipped" for f in files),
        failed=sum(f.status == "failed" for f in files),
        files=files,
        updated=counts.get("updated", 0),
        retired=counts.get("retired", 0) + retired_gone,
        unchanged=sum(f.status == "unchanged" for f in files),
        pending=pending,
        read=len(work),
        with_entries=sum(
            reports[rel].entries > 0 and reports[rel].status != "failed" for rel, _, _ in docs
        ),
        redactions=dict(sorted(redactions.items())),
        # a full run says which Markdown files its pattern leaves out (not every session's)
        ignored=() if changed_only else tuple(misplaced_solution_docs(directory)),
        unreadable=tuple((category, str(error)) for category, error in unreadable),
    )


def _run(
    store: MemoryStore,
    directory: Path,
    prefix: str,
    work: list[_Doc],
    texts: dict[Path, str],
    gone: list[str],
    discovered: set[str],
    reports: dict[str, FileReport],
    incremental: bool,
    moving: set[str],
    unmarked_before: str | None,
    blobs_before: Mapping[str, str],
) -> list[FileReport]:
    """Parse the documents in ``work``, plan each against its stored entries, and apply the
    plans: retirements, then replacements, then new entries. Fills ``reports``; returns the
    reports of the documents that are gone. ``blobs_before``: each document's blob at the
    last run."""
    from .safety import hidden_character, hidden_character_said
    from .store import NewMemory

    existing = _seeded_entries(store, prefix, unmarked_before)
    # Entries of documents that are gone: deleted, or moved under /archived/. Without a
    # state (a first run, or an older kenning's seeding) every source under the prefix
    # whose document is not there counts, but those the run has kept already (for another
    # branch, or another clone: a doc it seeded that this one never had)
    gone_sources = {source_path(prefix, rel): rel for rel in gone}
    if not incremental:
        unrecorded: dict[str, str] = {}
        for source in existing:
            rel = source[len(prefix) + 1 :]
            if (
                rel not in discovered
                and rel not in moving
                and rel not in reports
                and _is_gone(directory, rel)
            ):
                unrecorded.setdefault(source, rel)
        unrecorded = {s: r for s, r in unrecorded.items() if s not in gone_sources}
        elsewhere = _elsewhere(
            directory,
            sorted(set(unrecorded.values())),
            _other_copies(directory, store.project.files_root) if unrecorded else (),
        )
        for source, rel in unrecorded.items():
            if rel in elsewhere:
                reports[rel] = FileReport(rel, "kept", _ELSEWHERE)
            else:
                gone_sources[source] = rel
    # A folder outside the project is named by its own name ("docs"): the entries of the
    # project's own docs/solutions/… are under that prefix too, and not gone because this
    # folder lacks them. A document still at an entry's source path is never retired.
    project_root = store.project.files_root
    gone_sources = {
        source: rel for source, rel in gone_sources.items() if _is_gone(project_root, source)
    }
    if gone_sources and not directory.resolve().is_relative_to(project_root.resolve()):
        # nor one another branch of the project holds there (_elsewhere, read from the
        # project: the folder outside it says nothing of its branches): the project's own
        # doc, whose source the outside folder's name happens to begin (docs/…)
        for source in _elsewhere(project_root, list(gone_sources)):
            del gone_sources[source]
    # An older kenning's re-seed stamped edited_at and recorded no seeded_hash: an entry
    # holding a text its document gave at the last run was not edited since
    seeded_before: dict[str, frozenset[str]] = {}
    for source, memories in existing.items():
        rel = source[len(prefix) + 1 :]
        unmarked = any(_edited(m) and SEEDED_HASH not in m.metadata for m in memories)
        if unmarked and rel in blobs_before:
            seeded_before[source] = _texts_seeded_before(
                store, directory, prefix, rel, blobs_before[rel]
            )

    def edited_since(memory: Memory) -> bool:
        return _edited(memory, seeded_before.get(memory.source or "", frozenset()))

    retire_gone: dict[str, list[str]] = {
        source: [m.id for m in existing.get(source, []) if not edited_since(m)]
        for source in gone_sources
    }
    kept_gone: dict[str, list[str]] = {
        source: [m.id for m in existing.get(source, []) if edited_since(m)]
        for source in gone_sources
    }
    # Each write below is made from the entry as it was read here, before the new entries
    # were embedded: one edited since (another process, the page, an agent) is kept.
    versions = {m.id: edit_version(m) for ms in existing.values() for m in ms}

    def retire(memory_id: str, kept: list[str]) -> bool:
        try:
            return store.forget(memory_id, expected_version=versions.get(memory_id))
        except EditConflict:
            kept.append(memory_id)
            return False

    for doc in work:
        outcome = parse_solution_doc(doc.path, texts[doc.path], directory, source_prefix=prefix)
        source = source_path(prefix, doc.rel)
        old = existing.get(source, [])
        if outcome.skipped:
            if outcome.not_a_bug and old and _still_a_bug_on_the_default_branch(directory, doc):
                # a branch that makes the doc another track does not take its fix from
                # everyone before it is merged, as one that deletes it does not
                doc.status, doc.reason = "unchanged", _NOT_A_BUG_HERE_ONLY
                continue
            if outcome.not_a_bug:
                doc.plan = _Plan(
                    retire=[m.id for m in old if not edited_since(m)],
                    edited=[m.id for m in old if edited_since(m)],
                )
                retired = "retired" if doc.plan.retire else "skipped"
                doc.status, doc.reason = retired, outcome.skipped_reason
            elif (outcome.skipped_reason or "").startswith("malformed"):
                doc.status, doc.reason = "failed", outcome.skipped_reason
            else:
                doc.status, doc.reason = "skipped", outcome.skipped_reason
            continue
        hidden = hidden_character(doc.rel)
        if hidden is not None:
            # its entries' source would be refused (safety.check_name): said as the
            # file's to rename (a doc that gives no entry is skipped as any other)
            doc.status, doc.reason = (
                "failed",
                (
                    f"its path holds {hidden_character_said(hidden)}, which no document's path "
                    "holds (a terminal obeys it, or shows another name than the file's); rename "
                    "the file without control or invisible characters"
                ),
            )
            continue
        prepared = []
        for entry, redacted in zip(outcome.entries, outcome.redactions, strict=True):
            item = NewMemory(
                entry.format(),
                "error_fix",
                source=entry.source,
                metadata={SEEDED_FROM: entry.source},
            )
            try:
                prepared.append(store.prepare(item, store.group_id, seeding=True).memory.content)
                doc.redacted_in[prepared[-1]] = redacted
            except UserInputError as exc:
                doc.status, doc.reason = "failed", str(exc)
                break
        if doc.status == "failed":
            continue
        doc.entries = len(prepared)
        doc.plan = _reconcile(old, prepared, seeded_before.get(source, frozenset()))

    # A store that refuses this model's vectors refuses the replacements and new entries:
    # said before the retirements, or the entries they replace would be gone with nothing
    # in their place
    if any(doc.plan is not None and (doc.plan.update or doc.plan.add) for doc in work):
        store.check_embedding_writes()

    # The new entries are embedded before the write lock is taken (the costly part, seconds
    # for many docs): other writers wait for the writes only.
    new_texts = list(
        dict.fromkeys(
            content
            for doc in work
            if doc.plan is not None and doc.status != "failed"
            for content in doc.plan.add
        )
    )
    vectors = (
        dict(zip(new_texts, store.embedder.embed(new_texts), strict=True)) if new_texts else {}
    )

    # One transaction: a run cut off midway (the session-start hook exits the moment its
    # budget ends, whatever it is doing) changes nothing, where it left an entry retired
    # and its replacement not yet written: the doc's fix recalled by nothing until the
    # next run. (Qdrant has no transactions: its writes only serialise.)
    with store.backend.exclusive():
        # 1. retirements (so a new entry is never a near-duplicate of the one it replaces)
        gone_reports = []
        for source, candidates in retire_gone.items():
            kept = kept_gone[source]
            ids = [memory_id for memory_id in candidates if retire(memory_id, kept)]
            if kept and not ids:
                gone_reports.append(
                    FileReport(
                        gone_sources[source],
                        "skipped",
                        "the document was deleted or moved under /archived/; " + _edited_note(kept),
                        0,
                        tuple(kept),
                    )
                )
            if not ids:  # a doc that gave no entries (skipped, not a bug): nothing to retire
                continue
            gone_reports.append(
                FileReport(
                    gone_sources[source],
                    "retired",
                    "the document was deleted or moved under /archived/"
                    + (f"; {_edited_note(kept)}" if kept else ""),
                    len(ids),
                    tuple(ids),
                )
            )
        for doc in work:
            if doc.plan is not None:
                for memory_id in doc.plan.retire:
                    if retire(memory_id, doc.plan.edited):
                        doc.count("retired")

        # 2. replacements in place: same signature, new text (same id)
        for doc in work:
            if doc.plan is None:
                continue
            for memory_id, content in doc.plan.update:
                try:
                    result = store.update(
                        memory_id,
                        content=content,
                        expected_version=versions.get(memory_id),
                        metadata={SEEDED_HASH: content_hash(content)},
                    )
                except EditConflict:
                    doc.plan.edited.append(memory_id)
                    continue
                if result.status == STORED:
                    doc.count("updated")
                    doc.written(content, result)
                    doc.ids.append(memory_id)
                elif result.status == NEAR_DUPLICATE:
                    # The new text is already held by another memory: the outdated one goes.
                    store.forget(memory_id)
                    doc.count("retired")
                    doc.count("duplicate")
                    doc.reason = (
                        f"the new text is a near-duplicate of memory {result.duplicate_of}; "
                        "the outdated entry was retired"
                    )
                    if result.duplicate_of:
                        doc.ids.append(result.duplicate_of)
                else:
                    doc.status, doc.reason = "failed", result.reason or result.status
                    doc.retry = True
            for memory in doc.plan.keep:
                doc.count("duplicate")
                doc.ids.append(memory.id)
                if recorded_files(memory.metadata) != _current_record(store, memory):
                    # the document changed elsewhere than in this entry: it is fresh again
                    store.refresh_files(memory.id)

        # 3. new entries, in one batched write (the dedup rule applies)
        additions = [
            (doc, content)
            for doc in work
            if doc.plan is not None and doc.status != "failed"
            for content in doc.plan.add
        ]
        items = [
            NewMemory(
                content,
                "error_fix",
                source=source_path(prefix, doc.rel),
                metadata={
                    SEEDED_FROM: source_path(prefix, doc.rel),
                    SEEDED_HASH: content_hash(content),
                },
            )
            for doc, content in additions
        ]
        results = (
            store.remember_many(
                items, vectors=[vectors.get(item.content) for item in items], seeding=True
            )
            if items
            else []
        )
        for (doc, content), result in zip(additions, results, strict=True):
            if result.status == STORED:
                doc.count("seeded")
                doc.written(content, result)
            elif result.status == NEAR_DUPLICATE:
                doc.count("duplicate")
            else:
                doc.status, doc.reason = "failed", result.reason or result.status
                doc.retry = True
                continue
            if result.id:
                doc.ids.append(result.id)

    for doc in work:
        edited = doc.plan.edited if doc.plan is not None else []
        if not doc.status:
            if doc.counts.get("seeded"):
                doc.status = "seeded"
            elif doc.counts.get("updated"):
                doc.status = "updated"
            elif doc.counts.get("retired"):
                doc.status = "retired"
            elif edited:
                doc.status = "skipped"
            else:
                doc.status, doc.reason = "duplicate", "every entry is already stored"
        if edited and doc.status != "failed":
            note = _edited_note(edited)
            doc.reason = f"{doc.reason}; {note}" if doc.reason else note
            doc.ids.extend(edited)
        reports[doc.rel] = FileReport(
            doc.rel, doc.status, doc.reason, doc.entries, tuple(dict.fromkeys(doc.ids))
        )
    return gone_reports


def _current_record(store: MemoryStore, memory: Memory) -> dict[str, str]:
    from .freshness import named_paths, record

    return record(named_paths(memory.content, memory.source), store.project.files_root)


def _folder_deleted_here(store: MemoryStore, where: str, folder: Mapping[str, Any]) -> bool:
    """Whether the checked-out branch has had the docs of the seeded folder ``where`` (not
    there now): its history deleted them, so the folder is gone, not on another branch.
    False where git cannot tell."""
    from .freshness import paths_the_branch_has_had

    docs = [f"{where}/{rel}" for rel in folder.get("docs", {})]
    return bool(docs) and bool(paths_the_branch_has_had(store.project.files_root, docs))


@git_read_once()  # (as seed_solutions)
def reseed_changed(store: MemoryStore, *, max_docs: int | None = None) -> list[SeedReport]:
    """Re-seed, ``changed_only``, every solutions folder this project was seeded from
    inside its checkout (the folders the seed state names). A folder that is not there is
    left alone (it may be on another branch), unless this branch's history deleted its
    docs (git drops a folder with its last doc; a file may stand in its place now): they
    are retired as a deleted doc is, but those another branch or the default one holds.
    ``max_docs`` caps the documents read over all the folders. What the session-start hook
    runs; it costs a ``stat`` per document when nothing changed.

    Each folder is re-seeded on its own: one whose run fails (refused, or a file system
    error) gets a report of that ``error`` alone, and the other
    folders are re-seeded all the same (the failure of one stopped every folder after it,
    so a changed doc elsewhere waited as long as the failure lasted). A failure of the
    store itself (unreachable, refusing the write, another model's) is every folder's: it
    is raised, as before."""
    reports: list[SeedReport] = []
    folders = _load_state(store)["folders"]
    for prefix, folder in folders.items():
        try:
            _reseed_folder(store, prefix, folder, folders, max_docs, reports)
        except UserInputError as exc:
            reports.append(_failed_folder(store, folder, str(exc)))
        except KenningError:
            raise  # the store's: the next folder would fail the same way
        except Exception as exc:  # the folder's own (an OSError, a bug met in its docs)
            reports.append(_failed_folder(store, folder, _unexpected(exc, _by_hand(folder))))
    return reports


def _by_hand(folder: Mapping[str, Any]) -> str:
    """The run by hand that re-seeds the seeded ``folder`` and says its whole error."""
    import shlex

    return f"`kenning seed-solutions {shlex.quote(str(folder.get('dir')))}` at the checkout's top"


def _failed_folder(store: MemoryStore, folder: Mapping[str, Any], error: str) -> SeedReport:
    """The report of a seeded folder whose re-seed failed with ``error``."""
    where = Path(store.project.files_root) / str(folder.get("dir"))
    return SeedReport(str(where), 0, 0, 0, 0, 0, error=error)


def _unexpected(exc: BaseException, by_hand: str) -> str:
    """An error no rule of kenning's raised, said in one line (an OSError names its file),
    with its fix: the folder to check, and ``by_hand``, the run that says the whole error."""
    if isinstance(exc, OSError) and exc.strerror:
        return (
            f"{exc.strerror}{f': {exc.filename}' if exc.filename else ''} (check that this "
            f"user may read the folder and its docs; {by_hand} re-seeds it and says the "
            "whole error)"
        )
    return f"an unexpected {type(exc).__name__}: {exc} ({by_hand} says the whole error)"


def _reseed_folder(
    store: MemoryStore,
    prefix: str,
    folder: Mapping[str, Any],
    folders: Mapping[str, Mapping[str, Any]],
    max_docs: int | None,
    reports: list[SeedReport],
) -> None:
    """:func:`reseed_changed`'s run of the seeded folder ``prefix``, its reports added to
    ``reports`` (the folders' run already, whose reads count against ``max_docs``)."""
    from .safety import UnsafePathError, validate_source_path

    where = folder.get("dir")
    if not where:
        return
    try:
        check_source_prefix(prefix)
    except UserInputError:
        return  # seeded by an older kenning under a prefix no SOURCE: may start with
    try:
        directory = validate_source_path(where, store.project.files_root)
    except UnsafePathError:
        return  # stored data naming a path outside the checkout: never followed
    # a server store is shared with other clones: a session shares only what is committed
    shared = store.project.on_a_server
    moved: Path | None = None
    if not directory.is_dir():
        if not _folder_deleted_here(store, where, folder):
            return
        moved = _moved_folder(store, where, known=folders)
    # the cap is the run's, not each folder's: what earlier folders read counts
    left = None if max_docs is None else max(0, max_docs - sum(r.read for r in reports))
    reports.append(
        seed_solutions(
            store,
            directory,
            source_prefix=prefix,
            changed_only=True,
            max_docs=left,
            committed_only=shared,
        )
    )
    if moved is not None:
        # the folder was moved (`git mv docs/solutions docs/fixes`): its entries were
        # retired above, and the folder it went to is seeded, as a run by hand would
        # (left alone, every fix was lost to recall until someone did)
        left = None if max_docs is None else max(0, max_docs - sum(r.read for r in reports))
        reports.append(
            seed_solutions(store, moved, changed_only=True, max_docs=left, committed_only=shared)
        )


def _moved_folder(
    store: MemoryStore, where: str, known: Mapping[str, Mapping[str, Any]]
) -> Path | None:
    """The folder this branch moved the seeded folder ``where`` to, when it is there and
    not seeded already (:func:`kenning.freshness.folder_moved_to`)."""
    from .freshness import folder_moved_to
    from .safety import UnsafePathError, validate_source_path

    target = folder_moved_to(store.project.files_root, where)
    if target is None or any(f.get("dir") == target for f in known.values()):
        return None
    try:
        found = validate_source_path(target, store.project.files_root)
    except UnsafePathError:
        return None
    return found if found.is_dir() else None
