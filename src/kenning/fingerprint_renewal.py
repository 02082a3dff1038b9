"""The one-time renewal of the error fingerprints an older kenning stored, which a write of
:class:`~kenning.store.MemoryStore` runs (:meth:`~kenning.store.MemoryStore.renew_fingerprints`):
each entry's ``metadata.error_fingerprint`` brought up to this kenning's rules, once per
version of the rules (recorded in the store). On a store on a disk (SQLite) it runs only
when the disk has the room it needs, and one that fails for lack of room leaves no grown
WAL (qaup F1). And an entry's fingerprint under this kenning's rules
(:func:`fingerprint_now`), by which a recall finds an entry whose stored one is older
(:func:`matching_fingerprint`) before any renewal has run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .backends.base import Backend, Filters, NeedsRoomToRewrite
from .errors import DiskFull
from .model import Memory, known_kind, served

log = logging.getLogger("kenning")

#: The version of the fingerprint rules (:data:`kenning.fingerprints.RULES_VERSION`) the
#: stored error fingerprints were last brought up to: meta key (none: written before any).
FINGERPRINT_RULES_KEY = "kenning:fingerprint_rules"


def error_fingerprint_of(content: str) -> str | None:
    """The normalised fingerprint of an ERROR-FIX entry's signature, for exact matching."""
    from .errorfix import error_fix_signature
    from .fingerprints import error_fingerprint, identifies

    # Only an ERROR-FIX entry names its signature; guessing one from free text would make
    # unrelated notes "exact" matches.
    signature = error_fix_signature(content)
    if signature is not None:
        found = error_fingerprint(signature)
        # all masks ("<q>" for a quoted message) is every such error's: no exact match
        return found if identifies(found) else None
    return None


#: Each ERROR-FIX entry's fingerprint under this kenning's rules, by content hash (bounded).
_FINGERPRINTS_NOW: dict[str, str | None] = {}
_FINGERPRINTS_KEPT = 4096


def fingerprint_now(memory: Memory) -> str | None:
    """``memory``'s error fingerprint under this kenning's rules. The one stored with it was
    computed when it was written: rules that changed since (a missing module's name kept, a
    tool's banner no longer the signature) leave it stale, and the exact match would miss
    (or, where the old rules masked more, name a different error)."""
    key = memory.content_hash
    # one lookup, not a test then a read: another thread may clear the cache between them
    known = _FINGERPRINTS_NOW.get(key, "")
    if known != "":
        return known
    found = error_fingerprint_of(memory.content)
    if len(_FINGERPRINTS_NOW) >= _FINGERPRINTS_KEPT:
        _FINGERPRINTS_NOW.clear()
    _FINGERPRINTS_NOW[key] = found
    return found


def matching_fingerprint(
    memories: Iterable[Memory], fingerprints: Sequence[str], known: Iterable[Memory] = ()
) -> list[Memory]:
    """The error-fix entries among ``memories`` (not already in ``known``) whose fingerprint
    under this kenning's rules is one of ``fingerprints``, though the one stored with them
    is not: entries written under older rules, found among a query's candidates."""
    seen = {m.id for m in known}
    found = []
    for memory in memories:
        stored = memory.metadata.get("error_fingerprint")
        stale = stored and stored not in fingerprints and memory.id not in seen
        if stale and fingerprint_now(memory) in fingerprints:
            found.append(memory)
            seen.add(memory.id)
    return found


def rules_version(recorded: str | None) -> int:
    """The rules version a store records; 0 for none, or for a value that is no version
    (written by hand: the fingerprints are checked again)."""
    try:
        return int(recorded) if recorded is not None else 0
    except ValueError:
        return 0


def renewed_fingerprint(memory: Memory) -> dict[str, Any] | None:
    """``memory``'s metadata with its error fingerprint under this kenning's rules, or None
    when the stored one already is (only that key changes)."""
    now = fingerprint_now(memory)
    if memory.metadata.get("error_fingerprint") == now:
        return None
    if now is None and "error_fingerprint" not in memory.metadata:
        return None
    metadata = dict(memory.metadata)
    if now is None:
        # no longer one (its signature is all masks now): a stale one would claim a match
        del metadata["error_fingerprint"]
    else:
        metadata["error_fingerprint"] = now
    return metadata


def stale_as_stored(
    memory_type: object, collection: object, content: object, metadata: object
) -> bool:
    """Whether a row read as stored (``metadata`` its JSON text) holds a fingerprint that
    is not this kenning's rules' (:func:`renewed_fingerprint` would change it); a field
    that does not decode is no such row (doctor's rows check names it), nor is a row of a
    kind kenning does not know (:func:`stale_fingerprints` leaves it)."""
    if not (
        isinstance(memory_type, str)
        and isinstance(collection, str)
        and known_kind(memory_type, collection)
    ):
        return False
    try:
        found = json.loads(metadata) if isinstance(metadata, str) else None
    except ValueError:
        return False
    if not isinstance(found, dict) or not isinstance(content, str):
        return False
    now = error_fingerprint_of(content)
    return found.get("error_fingerprint") != now and (
        now is not None or "error_fingerprint" in found
    )


def stale_fingerprints(backend: Backend) -> list[str]:
    """The ids of the entries whose stored fingerprint is not this kenning's rules' (read
    without the write lock). A row of a kind kenning does not know (another writer's,
    :func:`~kenning.model.known_kind`) is none of them: it is held, not served, and never
    written, so neither counted nor reckoned room for (qa74 F3)."""
    return [
        r.memory.id
        for r in backend.iterate(Filters())
        if served(r.memory) and renewed_fingerprint(r.memory) is not None
    ]


@dataclass
class FingerprintRenewal:
    """One MemoryStore's renewal: done (``current``: the store's fingerprints are under this
    kenning's rules or newer ones; the recorded version only rises), or waiting for room.
    Waiting is for this process: its later writes look at the room again (a statvfs), and
    run the renewal once the disk has it; another process reckons the room again."""

    current: bool = False
    #: The room the renewal needs (by folder), while the disk lacks it; else None.
    waiting: Mapping[Path, int] | None = None
    #: Said once that it waits for room.
    warned: bool = False
    #: The ids the last scan found stale.
    _stale: list[str] = field(default_factory=list)
    #: What the last renewal tried, as recorded with the room it waits for.
    _what: str = ""

    def renew(self, backend: Backend) -> int:
        """Bring the stored error fingerprints up to this kenning's rules (see
        :meth:`kenning.store.MemoryStore.renew_fingerprints`). The number of entries
        changed: 0 too while it waits for room (said once)."""
        from .fingerprints import RULES_VERSION

        if self.current:
            return 0
        if (
            self.waiting is not None
            and isinstance(backend, NeedsRoomToRewrite)
            and backend.short_of_room(self.waiting) is not None
        ):
            return 0  # the disk has not the room yet: said when it was found short
        recorded_rules = backend.get_meta(FINGERPRINT_RULES_KEY)
        if rules_version(recorded_rules) >= RULES_VERSION:
            self.current = True
            return 0
        what = f"error fingerprints {rules_version(recorded_rules)} to {RULES_VERSION}"
        if self.waiting is None and isinstance(backend, NeedsRoomToRewrite):
            # another process found the disk short: its count and room, while nothing that
            # lessens the room changed (one statvfs, no row read; qaup F1's ~2 s per process)
            recorded = backend.recorded_wait(what)
            if recorded is not None:
                count, needs = recorded
                short = backend.short_of_room(needs)
                if short is not None:
                    self._wait(backend, needs, short, count)
                    return 0
        self._what = what
        # the scan reads without the write lock (other processes' writes go on); what it
        # found is read again under the lock, where no edit can come between
        stale = self._stale = stale_fingerprints(backend)
        if stale and isinstance(backend, NeedsRoomToRewrite):
            needs = backend.room_to_update(stale)
            short = backend.short_of_room(needs)
            if short is not None:
                self._wait(backend, needs, short, len(stale))
                backend.record_wait(what, len(stale), needs)
                return 0
            self.waiting = None
            # what is committed out of the WAL first: an update that fails for lack of
            # room then leaves a WAL of its own frames only, which the rollback's
            # checkpoint drops without writing to the full disk
            backend.checkpoint()
        with backend.exclusive():
            if rules_version(backend.get_meta(FINGERPRINT_RULES_KEY)) >= RULES_VERSION:
                changes = []  # another process did it meanwhile
            else:
                changes = [
                    (m.id, metadata)
                    for m in backend.get(stale)
                    # (a row another writer gave an unknown kind since the scan: left too)
                    if served(m) and (metadata := renewed_fingerprint(m)) is not None
                ]
                backend.update_metadata(changes)
                backend.set_meta(FINGERPRINT_RULES_KEY, str(RULES_VERSION))
            if isinstance(backend, NeedsRoomToRewrite):
                backend.record_wait(what, 0, None)
        self.current = True
        return len(changes)

    def _wait(self, backend: Backend, needs: Mapping[Path, int], short: str, count: int) -> None:
        self.waiting = needs
        if self.warned:
            return
        self.warned = True
        log.warning(
            "kenning: the error fingerprints of %d entries in %s, stored by an older kenning, "
            "wait to be brought up to this kenning's rules (a one-time update, so that an "
            "error's exact match finds them): %s, so nothing was changed, and the next write "
            "that finds the room does it (recall still finds them as before meanwhile)",
            count,
            backend.location,
            short,
        )

    def after_write(self, backend: Backend) -> None:
        """:meth:`renew` after a write: a failure is said, and never fails the write (the
        read path still finds an older entry among its candidates). One that failed for
        lack of room (the disk filled since it looked) waits, in this process, for more room
        than the disk has after it."""
        try:
            self.renew(backend)
        except Exception as exc:
            short = None
            if isinstance(exc, DiskFull) and isinstance(backend, NeedsRoomToRewrite):
                try:
                    self.waiting = backend.room_to_update(self._stale, failed=True)
                    short = backend.short_of_room(self.waiting)
                    if short and self._what:
                        backend.record_wait(self._what, len(self._stale), self.waiting)
                except Exception:  # (the write is not failed by the reckoning either)
                    self.waiting = None
                self.warned = True
            log.warning(
                "kenning: the error fingerprints in %s could not be brought up to this "
                "kenning's rules (%s)%s; nothing was changed, and the next write %s",
                backend.location,
                exc,
                f": {short}" if short else "",
                "that finds more room tries again" if short else "tries again",
            )
