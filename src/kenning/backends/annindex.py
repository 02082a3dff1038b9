"""An approximate nearest-neighbour index over the SQLite store's vectors, for large stores.

Exact search (:mod:`kenning.backends.vectorfile`) costs a scan of every row a search may
return: 13 ms at 100k rows, 205 ms at 1M on this project's 2-core machine (bench/scale.py),
over the 100 ms a recall may take. Above :data:`DEFAULT_MIN_ROWS` rows, search asks an HNSW
graph (usearch, a single-file library with manylinux wheels, int8 vectors, saving to and
viewing from a buffer) for :data:`CANDIDATES` candidates and re-scores them exactly from
their float32 BLOBs in SQLite, so every returned score is the exact cosine, as from every
backend; only which rows make the top-k is approximate (recall@10 vs exact in
docs/benchmarks.md).

**When it is used**: a search whose exact scan would read at least ``min_rows`` rows
(``KENNING_ANN_MIN_ROWS``, default :data:`DEFAULT_MIN_ROWS`; ``off`` disables it): every row
of the store, or only the rows of a filter selective enough to be scanned on its own
(``vectorfile.GATHER_SHARE``). Below that, search stays exact. A filter's candidates are
asked for in proportion to its share of the rows (a 27 % filter asks for ~4× as many) and
checked against the filter's hash columns; one that would need more than
:data:`MAX_CANDIDATES` falls back to exact.

**The file**: ``memory.db.ann``, derived like ``memory.db.vectors``: a 4 KiB header (with a
checksum) recording the store state it was built from — the database's token and its
counters of deletes and updates (``vector_state``), the rows covered, the largest rowid and
the CRC-32 of the body — then usearch's serialised index, mapped read-only
(``Index.view``). Its vectors are the vector file's int8 codes (a row's scale does not
change a cosine), keyed by rowid.

**Never a damaged body to usearch**: ``Index.view`` trusts the bytes it maps, and a few
damaged ones (a bad disk block, a copy cut short and patched) made usearch follow a wild
offset: SIGSEGV, or ``RuntimeError: Out of memory!``, in the long-lived process that
searched it, at every restart (QA C1). So a process checks a file's body against the
header's CRC-32 once, before its first use (:func:`examine`: ``memory.db.ann`` as it is, by
inode, size and mtime; ``kenning doctor`` runs the same check). That reads the whole file:
~530 MB at 1M rows. Measured on this project's 2 shared cores, 8 MiB reads of a 315 MB file
in the page cache (2026-12-05): CRC-32 0.10-0.12 s, BLAKE2b 0.37-0.40 s, the reads alone
0.03-0.07 s; with a build running beside them, CRC-32 0.27-0.6 s, BLAKE2b 1.2-1.5 s. So
CRC-32 (random damage passes it once in 4 billion), checked in a background thread
(``zlib.crc32`` releases the GIL; ~0.2 s at 1M rows on a quiet machine, seconds from a cold
disk, next to 0.25 s for mapping): the search that finds a file not yet checked starts the
thread and is answered exactly, as are those until the verdict; none waits for it. A file up
to :data:`INLINE_CHECK_BYTES` (16 MiB, ~30k rows: 5-12 ms) is checked in that search itself.
A file whose check fails is never mapped, is named in a warning, and is rebuilt, as is one
usearch raises an error on. A checksum is not a signature: a file crafted to pass it can
still crash usearch; the file is derived and local, written only by kenning's builder (a
checkout's ``.kenning`` carrying a hostile one is not defended against here).

**In step with SQLite**, checked on every search against the vector file's current state:

* another token (a replaced or restored database), an update of any vector or filter
  column, a larger largest rowid than the store's, a dimension that differs, a header or a
  body whose checksum fails, a file shorter or longer than its header says (or of an older
  format version), a blob usearch refuses or fails to search, a
  row up to its largest rowid that is not one of its keys (a database restored from a copy
  that forgot other notes than the graph's store did), or a last key whose vector is not
  the vector file's (read again only when the store's counters, or the count or rowid sum
  of the rows the graph covers, changed: never for an append): the index is not used
  (search is exact) and a rebuild starts;
* rows added since (rowid above the index's largest): searched exactly beside the graph,
  and merged;
* rows deleted since: dropped from the candidates before anything is read (they are no
  longer in the vector file), and again by the exact re-score, which reads SQLite;
* once the rows added or deleted since the build pass :data:`STALE_SHARE` of the index, a
  rebuild starts; the old index serves (correctly) until the new one replaces it.

**Forgetting** removes the file at once, inside the delete's transaction (it holds the
deleted rows' int8 vectors; the next search past the threshold starts a rebuild). A
builder renames its file into place holding the store's write lock, and only if no delete
committed since the state it read: no graph of a forgotten row outlives the ``forget``,
whichever process is killed when.

**A process's first search** past the threshold scans exactly and does not map the graph:
importing usearch and viewing a 1M-row graph costs ~0.4 s and ~320 MB of resident page
cache, more than one scan (~0.3 s), and a one-shot ``kenning recall`` or hook searches once.
A long-lived process (the MCP server) checks it from its second search on, and maps it at
the first search after the check passed (the second search itself for a small file).

**Building** takes minutes at 1M rows (docs/benchmarks.md; on one thread, so that a
store's graph does not depend on the machine's load: :meth:`AnnFile.write`), so a search never
waits for it: the search that finds the index missing or stale starts one builder process
(``python -m kenning.backends.annindex <memory.db>``, at lower priority, detached, so a short
``kenning recall`` does not kill it) and is answered exactly, as is every search until the
new file is in place. One builder runs at a time (``flock`` on ``memory.db.ann.lock``, never
waited for); a failed build is retried after :data:`RETRY_AFTER_S`, and its traceback is
in ``memory.db.ann.log``. The builder writes a
temp file, ``fsync``\\s it and renames it over the old one: a crash leaves the old index or
none, never a torn one (a torn file fails the size or checksum test and is rebuilt); the
temp file of a builder killed before its rename is removed by the next build, or a forget.
"""

from __future__ import annotations

import contextlib
import logging
import math
import mmap
import os
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .base import Filters
from .vectorfile import (
    GATHER_SHARE,
    NO_FOLLOW,
    StoreState,
    VectorIndex,
    label_hash,
    open_new,
    open_regular,
    seal,
    unseal,
)

try:  # POSIX; elsewhere no builder runs and search stays exact
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

MAGIC = b"KNANN\x00\x00\x01"
#: 2: the header holds the body's CRC-32 (a file of version 1 is rebuilt).
FORMAT_VERSION = 2
HEADER_BYTES = 4096
# magic, version, dimension, connectivity, expansion_add, deletes, updates, rows, keys,
# max_rowid, blob bytes, token, CRC-32 of the blob
_HEADER = struct.Struct("<8sIIIIqqqqqq16sI")

#: Rows an exact search must read before the graph is used. SPEC §3: exact search is the
#: default (recall 1.0), an ANN index an option only past ~1M rows. Measured with
#: bench/scale.py (docs/benchmarks.md) on 2 shared cores: the exact scan grows linearly,
#: 13 ms at 100k rows on a quiet machine, 65 ms p50 at 200k and 170-280 ms at 1M on a busy
#: one, where the graph answers in ~7 ms with recall@10 0.965 after re-scoring (at 200k:
#: 2 ms, 1.000). Below 1M a store keeps exact answers and needs no background build (~6 min
#: and ~530 bytes a row at 1M); ``KENNING_ANN_MIN_ROWS=200000`` trades them for speed earlier.
DEFAULT_MIN_ROWS = 1_000_000
#: HNSW graph degree and build-time beam (usearch's defaults are 16 and 128). A beam of 40
#: builds 2.5× faster than 128 (2,900 against 1,130 rows/s at 200k rows, 2 threads) with
#: recall@10 after re-scoring 0.9985 against 1.0 (bench vectors, 200 queries).
CONNECTIVITY = 16
EXPANSION_ADD = 40
#: Search-time beam: at least this, and at least the candidates asked for.
EXPANSION_SEARCH = 512
#: Candidates re-scored exactly for a search of k ≤ 10 (16·k for a larger k). Measured on
#: bench/scale.py's vectors (5,000 MiniLM notes, each repeated with noise: clusters of
#: near-duplicates, the hard case) and its 200 queries, recall@10 after re-scoring: at 200k
#: rows, 40 candidates with a beam of 64 give 0.9985; at 1M rows that gives 0.906 (the
#: clusters hold 200 rows, and int8 codes blur their order), 160 with a beam of 160 give
#: 0.956, with a beam of 512 0.975 (1.6 ms in the graph), 256 with 1024 0.979 (3.1 ms).
CANDIDATES = 160
#: A filter that would need more candidates than this (a share of the rows under 8 %:
#: CANDIDATES / share) is searched exactly (at 1M rows its scan reads at most 80k rows).
MAX_CANDIDATES = 2000
#: Rebuild once the rows added or deleted since the build pass this share of the index.
STALE_SHARE = 0.10
#: After a build that failed, wait this long before starting another.
RETRY_AFTER_S = 600.0
#: A graph file up to this size has its checksum checked in the search that maps it
#: (5-12 ms); a larger one in a background thread, while searches stay exact (module docstring).
INLINE_CHECK_BYTES = 16 << 20
#: Bytes read at a time by the check.
CHECK_CHUNK = 8 << 20

#: What :func:`examine` finds of a graph file.
INTACT, DAMAGED, OUTDATED, UNREADABLE = "intact", "damaged", "outdated", "unreadable"

Signature = tuple[int, int, int]  # (inode, size, mtime in ns) of a file


@dataclass(frozen=True)
class AnnHeader:
    dimension: int
    connectivity: int
    expansion_add: int
    token: str
    deletes: int
    updates: int
    rows: int  # rows of the store the index covers (rowid <= max_rowid)
    keys: int  # of which indexed (a damaged, all-zero vector is not)
    max_rowid: int
    blob_bytes: int
    blob_crc: int  # zlib.crc32 of the blob (usearch's serialised index)

    def pack(self) -> bytes:
        body = _HEADER.pack(
            MAGIC,
            FORMAT_VERSION,
            self.dimension,
            self.connectivity,
            self.expansion_add,
            self.deletes,
            self.updates,
            self.rows,
            self.keys,
            self.max_rowid,
            self.blob_bytes,
            bytes.fromhex(self.token),
            self.blob_crc,
        )
        return seal(body).ljust(HEADER_BYTES, b"\0")

    @classmethod
    def unpack(cls, raw: bytes) -> AnnHeader | None:
        fields = unseal(raw, _HEADER)
        if fields is None:
            return None
        magic, version, dim, conn, add, deletes, updates, rows, keys, max_rowid, blob = fields[:11]
        token, crc = fields[11:]
        if magic != MAGIC or version != FORMAT_VERSION:
            return None
        return cls(dim, conn, add, token.hex(), deletes, updates, rows, keys, max_rowid, blob, crc)

    def usable_for(self, state: StoreState, dimension: int) -> bool:
        """The index's keys still name the vectors it holds: same database, no vector or
        filter column updated since, nothing past the store's largest rowid."""
        return (
            (self.token, self.updates, self.dimension) == (state.token, state.updates, dimension)
            and 0 <= self.deletes <= state.deletes
            and self.max_rowid <= state.max_rowid
        )


def codes_of(records: np.ndarray, dimension: int) -> np.ndarray:
    """The vector file's int8 codes (stored as code + 128) as a contiguous int8 matrix."""
    return np.bitwise_xor(records["codes"][:, :dimension], np.uint8(0x80)).view(np.int8)


def quantised_query(query: np.ndarray) -> np.ndarray:
    """The query as int8 codes on its own scale (a cosine ignores the scale)."""
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    peak = float(np.abs(q).max()) or 1.0
    return np.clip(np.rint(q * (127.0 / peak)), -127, 127).astype(np.int8)


@dataclass
class AnnView:
    """A built index, mapped read-only from ``memory.db.ann``."""

    header: AnnHeader
    index: Any  # usearch.index.Index, viewing ``buffer``
    #: ``(inode, size, mtime)`` of the file mapped: another, or the same file written over
    #: in place (a backup copied onto it), is mapped again; reading a mapping past a
    #: truncated file's end kills the process (SIGBUS).
    signature: tuple[int, int, int]
    buffer: memoryview
    #: The vector index :meth:`agrees` last answered for, and its answer.
    judged: VectorIndex | None = None
    agreed: bool = False
    #: What the rows the graph covers looked like when they were last found to agree.
    agreed_key: tuple[str, int, int, int, int] | None = None
    #: Why usearch failed to search the graph (None: it has not).
    failed: str | None = None

    def keys(self, query_codes: np.ndarray, count: int) -> np.ndarray | None:
        """Rowids of about ``count`` nearest neighbours, nearest first; None when usearch
        fails on the graph (:attr:`failed` says why: the file is not used again)."""
        self.index.expansion_search = max(EXPANSION_SEARCH, count)
        try:
            found = self.index.search(query_codes, count, threads=1)
        except RuntimeError as exc:  # usearch gave up on this graph ("Out of memory!")
            self.failed = str(exc) or type(exc).__name__
            return None
        return np.asarray(found.keys, dtype=np.int64)

    def agrees(self, index: VectorIndex) -> bool:
        """Every row of ``index`` up to the graph's largest rowid is one of its keys, and the
        last one holds the vector file's codes for that row. Catches a database restored
        from a copy whose rowids the graph already holds, or one that forgot other notes
        than the graph's store did (same counters): a row the graph lacks would never be
        found. The rows are read again only when the store's counters, how many rows the
        graph covers or their rowid sum changed (an append changes none of them)."""
        if index is self.judged:
            return self.agreed
        key = _covered_key(index, self.header.max_rowid)
        agreed = key is not None and key == self.agreed_key
        if not agreed:
            agreed = self._holds(index, _covered_rows(index, self.header.max_rowid))
            self.agreed_key = key if agreed else None
        self.judged, self.agreed = index, agreed
        return agreed

    def _holds(self, index: VectorIndex, covered: np.ndarray) -> bool:
        if len(covered) == 0:
            return True
        if not bool(np.all(self.index.contains(covered.astype(np.uint64)))):
            return False
        last = int(covered[-1])
        for part in (index.records, index.extra):
            spot = int(np.searchsorted(part["rowid"], last))
            if spot < len(part) and int(part["rowid"][spot]) == last:
                stored = self.index.get(last, dtype="i8")
                return stored is not None and np.array_equal(
                    np.asarray(stored).reshape(-1),
                    codes_of(part[spot : spot + 1], index.dimension)[0],
                )
        return False  # pragma: no cover - covered rows come from these parts


def _heads(index: VectorIndex, max_rowid: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each part of ``index`` (the file's records, then the rows kept in memory) cut at
    ``max_rowid``: the records up to it, and those past it."""
    cuts = []
    for part in (index.records, index.extra):
        end = int(np.searchsorted(part["rowid"], max_rowid, side="right"))
        cuts.append((part[:end], part[end:]))
    return cuts


def _covered_key(index: VectorIndex, max_rowid: int) -> tuple[str, int, int, int, int] | None:
    """The store's token and counters, and the count and rowid sum of its rows up to
    ``max_rowid`` (from the sum of all rows, less those above: no full scan); None when the
    store does not say its rowid sum."""
    state = index.state
    if state is None or state.rowid_sum < 0:
        return None
    count, above = 0, 0
    for head, past in _heads(index, max_rowid):
        count += len(head)
        above += int(past["rowid"].sum(dtype=np.int64))
    return (state.token, state.deletes, state.updates, count, state.rowid_sum - above)


def _covered_rows(index: VectorIndex, max_rowid: int) -> np.ndarray:
    """Rowids of ``index`` up to ``max_rowid`` with a usable vector (a damaged one is an
    all-zero record, which no graph holds), sorted."""
    kept = [head["rowid"][head["norm"] != 0] for head, _ in _heads(index, max_rowid)]
    return np.sort(np.concatenate(kept)) if len(kept[1]) else kept[0]


def _passes(part: np.ndarray, positions: np.ndarray, filters: Filters) -> np.ndarray:
    """Which of these records ``filters`` lets through (by hash; SQLite checks the strings
    again when re-scoring)."""
    keep = np.ones(len(positions), dtype=bool)
    for field, values in (
        ("group", (filters.group_id,) if filters.group_id is not None else ()),
        ("collection", filters.collections),
        ("type", filters.types),
    ):
        if values:
            wanted = np.array([label_hash(v) for v in values], dtype=np.uint64)
            keep &= np.isin(part[field][positions], wanted)
    return keep


def matching_rows(index: VectorIndex, filters: Filters) -> int:
    """How many rows of ``index`` a search with ``filters`` may return."""
    in_file, in_extra = index.selection(filters)
    return (len(index.records) if in_file is None else len(in_file)) + (
        len(index.extra) if in_extra is None else len(in_extra)
    )


def rows_scanned(index: VectorIndex, filters: Filters) -> int:
    """How many rows an exact search with ``filters`` reads: the rows a selective filter
    lets through, else every row (vectorfile.GATHER_SHARE)."""
    matching = matching_rows(index, filters)
    return matching if matching <= GATHER_SHARE * index.count else index.count


def tail(index: VectorIndex, view: AnnView) -> VectorIndex:
    """The rows of ``index`` the graph does not hold (added since it was built), searched
    exactly beside it."""
    start = int(np.searchsorted(index.records["rowid"], view.header.max_rowid, side="right"))
    return VectorIndex(index.dimension, index.records[start:], index.extra, index.extra_vectors)


def search(
    view: AnnView,
    index: VectorIndex,
    rest: VectorIndex,
    query: np.ndarray,
    k: int,
    filters: Filters,
    exact: Callable[[Sequence[int]], dict[int, float]],
) -> list[tuple[int, float]] | None:
    """Top-k ``(rowid, exact cosine)``: the graph's candidates that still exist and match
    ``filters``, re-scored by ``exact``, merged with the exact top-k of ``rest`` (rows added
    since the build). None when the filter is too selective for the graph, or usearch failed
    on it (search exactly)."""
    want = max(CANDIDATES, 16 * k)
    share = matching_rows(index, filters) / max(1, index.count)
    if share <= 0:
        return []
    count = math.ceil(want / share)
    if count > MAX_CANDIDATES:
        return None
    codes = quantised_query(query)
    records = index.records
    rowids = records["rowid"]
    extra_rowids = index.extra["rowid"]
    while True:
        keys = view.keys(codes, min(count, view.header.keys))
        if keys is None:  # usearch failed on the graph: exact (AnnFile.current drops it)
            return None
        positions = np.minimum(np.searchsorted(rowids, keys), max(0, len(rowids) - 1))
        present = (rowids[positions] == keys) if len(rowids) else np.zeros(len(keys), bool)
        keep = present & _passes(records, positions, filters)
        if len(extra_rowids) and not present.all():  # rows kept in memory, not in the file
            spot = np.flatnonzero(~present)
            where = np.searchsorted(extra_rowids, keys[spot])
            where = np.minimum(where, len(extra_rowids) - 1)
            found = extra_rowids[where] == keys[spot]
            keep[spot] = found & _passes(index.extra, where, filters)
        chosen = keys[keep][:want]
        if len(chosen) >= want or count >= view.header.keys:
            break
        count *= 2
        if count > MAX_CANDIDATES:
            return None
    scored = exact([int(r) for r in chosen])  # gone since, or not matching: left out
    for rowid, score in rest.search(query, k, filters, exact):
        scored[rowid] = score
    return sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:k]


def examine(path: Path, signature: Signature | None = None) -> str:
    """Whether the graph file at ``path`` can be handed to usearch: :data:`INTACT` when its
    header passes its checksum and its body its CRC-32 (a read of the whole file);
    :data:`DAMAGED` when either fails or the size is not the header's (usearch given a
    damaged body crashed the process, SIGSEGV); :data:`OUTDATED` for another format
    version's file (rebuilt, as is a damaged one); :data:`UNREADABLE` when there is no
    regular file to read, or (``signature`` given) the file there is not that one any more."""
    fd = open_regular(path, os.O_RDONLY)  # (not a pipe: it waited for a writer)
    if fd is None:
        return UNREADABLE
    try:
        stat = os.fstat(fd)
        if signature is not None and (stat.st_ino, stat.st_size, stat.st_mtime_ns) != signature:
            return UNREADABLE
        raw = os.pread(fd, HEADER_BYTES, 0)
        header = AnnHeader.unpack(raw)
        if header is None:
            version = raw[len(MAGIC) : len(MAGIC) + 4]
            if raw[: len(MAGIC)] == MAGIC and version != struct.pack("<I", FORMAT_VERSION):
                return OUTDATED
            return DAMAGED
        if stat.st_size != HEADER_BYTES + header.blob_bytes:
            return DAMAGED  # torn, or cut short
        crc, offset = 0, HEADER_BYTES
        while offset < stat.st_size:
            chunk = os.pread(fd, min(CHECK_CHUNK, stat.st_size - offset), offset)
            if not chunk:
                return DAMAGED  # cut short meanwhile
            crc = zlib.crc32(chunk, crc)  # (releases the GIL: a search runs meanwhile)
            offset += len(chunk)
        return INTACT if crc == header.blob_crc else DAMAGED
    except OSError:
        return UNREADABLE
    finally:
        os.close(fd)


class _Examination:
    """:func:`examine` of one file, in a thread of its own (a daemon: a process may end
    before it does)."""

    def __init__(self, path: Path, signature: Signature) -> None:
        self.signature = signature
        self.verdict: str | None = None
        self._thread = threading.Thread(
            target=self._run, args=(path,), name="kenning-ann-check", daemon=True
        )
        self._thread.start()

    def _run(self, path: Path) -> None:
        self.verdict = examine(path, self.signature)

    def done(self) -> str | None:
        """The verdict once the thread has ended, else None."""
        return None if self._thread.is_alive() else self.verdict or UNREADABLE


class AnnFile:
    """``memory.db.ann``: opening, checking, and starting the builder (module docstring)."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".ann")
        self.lock_path = database.with_name(database.name + ".ann.lock")
        #: The last builder's output (empty unless it failed).
        self.log_path = database.with_name(database.name + ".ann.log")
        self._view: AnnView | None = None
        #: The file last found unusable, by (inode, size, mtime): not opened (nor warned
        #: about) again on every search until the builder replaces it.
        self._refused: Signature | None = None
        #: The file last found intact (:func:`examine`), and the examination under way.
        self._intact: Signature | None = None
        self._examination: _Examination | None = None
        self._builder: subprocess.Popen[bytes] | None = None
        self._failed_at: float | None = None

    # -- reading --------------------------------------------------------------------------

    def current(self) -> AnnView | None:
        """The index now at ``path`` (mapped again when the file was replaced); None when
        missing, not readable as a whole, damaged, or still being examined
        (:attr:`examining`)."""
        try:
            stat = os.stat(self.path)
        except OSError:
            # (an examination of a file removed meanwhile has nothing left to say: were it
            # kept, :meth:`usable` would wait for it, and never ask for the build)
            self._view = self._examination = None
            return None
        signature = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        view = self._view
        if view is not None and view.signature == signature and view.failed is None:
            return view
        self._view = None
        if view is not None and view.signature == signature:  # usearch failed on it
            log.warning("%s is damaged (%s); it will be rebuilt", self.path, view.failed)
            self._refused = signature
        if signature == self._refused:
            return None
        verdict = self._examined(signature)
        if verdict is None:
            return None  # searches stay exact until the verdict
        if verdict == INTACT:
            view = self._open()
            if view is not None and view.signature != signature:
                return None  # replaced since it was examined: the new one is examined next
        else:
            if verdict == DAMAGED:
                log.warning(
                    "%s is damaged (its size or a checksum is not what its header says); it "
                    "will be rebuilt",
                    self.path,
                )
            view = None
        self._view = view
        self._refused = None if view is not None else signature
        return view

    @property
    def examining(self) -> bool:
        """Whether the file is being examined in the background (searches are exact)."""
        return self._examination is not None

    def _examined(self, signature: Signature) -> str | None:
        """:func:`examine`'s verdict on the file ``signature`` names, once per file: at once
        for a file up to :data:`INLINE_CHECK_BYTES`, else from a background thread (None
        until it is done)."""
        if signature == self._intact:
            return INTACT
        job = self._examination
        verdict: str | None
        if job is None or job.signature != signature:
            if signature[1] > INLINE_CHECK_BYTES:
                self._examination = _Examination(self.path, signature)
                return None
            self._examination = None
            verdict = examine(self.path, signature)
        else:
            verdict = job.done()
            if verdict is None:
                return None
            self._examination = None
        if verdict == INTACT:
            self._intact = signature
        return verdict

    def _open(self) -> AnnView | None:
        fd = open_regular(self.path, os.O_RDONLY)  # (not a pipe: it waited for a writer)
        if fd is None:
            return None
        try:
            stat = os.fstat(fd)
            header = AnnHeader.unpack(os.pread(fd, HEADER_BYTES, 0))
            if header is None or stat.st_size != HEADER_BYTES + header.blob_bytes:
                return None  # torn, truncated or foreign: rebuilt
            mapped = mmap.mmap(fd, stat.st_size, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)
        from usearch.index import Index

        buffer = memoryview(mapped)[HEADER_BYTES:]
        index = Index(ndim=header.dimension, metric="cos", dtype="i8")
        try:
            index.view(buffer)
        except Exception:  # a damaged blob: usearch refuses it; rebuilt
            log.warning("%s is damaged; it will be rebuilt", self.path)
            return None
        if index.size != header.keys or index.ndim != header.dimension:
            return None
        return AnnView(header, index, (stat.st_ino, stat.st_size, stat.st_mtime_ns), buffer)

    def usable(self, index: VectorIndex) -> tuple[AnnView | None, bool]:
        """The index if it can answer for ``index``'s store state, and whether a (re)build
        should start."""
        state = index.state
        if state is None or state.deletes < 0:  # an old schema, read as it is: exact only
            return None, False
        self.reap()
        view = self.current()
        if view is None:
            return None, not self.examining
        if not view.header.usable_for(state, index.dimension):
            return None, True
        if not view.agrees(index):
            return None, True
        covered = int(np.searchsorted(index.records["rowid"], view.header.max_rowid, "right"))
        added = index.count - covered
        deleted = view.header.rows - covered
        stale = max(added, deleted) > STALE_SHARE * max(1, view.header.rows)
        return view, stale

    # -- building -------------------------------------------------------------------------

    def builder_running(self) -> bool:
        if self._builder is not None and self._builder.poll() is None:
            return True
        fd = self._take_lock()
        if fd is None:
            return fcntl is not None and self.lock_path.exists()
        os.close(fd)
        return False

    def reap(self) -> bool:
        """Collect the builder this process started once it has exited (so it does not
        linger as a zombie in a long-lived process), noting a failure. False while it runs."""
        if self._builder is None:
            return True
        code = self._builder.poll()
        if code is None:
            return False
        if code != 0:
            self._failed_at = time.monotonic()
            log.warning(
                "kenning: building the ANN index of %s failed (exit %s; see %s); search "
                "stays exact, and the build is retried in %d minutes",
                self.database,
                code,
                self.log_path,
                RETRY_AFTER_S // 60,
            )
        self._builder = None
        return True

    def start_build(self) -> bool:
        """Start the builder process unless one runs or the last one failed recently."""
        if fcntl is None:
            return False
        if not self.reap():
            return False
        if self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER_S:
            return False
        if self.builder_running():
            return False
        try:
            # the child keeps its own descriptor; a symlink in the log's place is replaced
            with open_new(self.log_path) as output:
                self._builder = subprocess.Popen(
                    [sys.executable, "-m", "kenning.backends.annindex", str(self.database)],
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=output,
                    start_new_session=True,  # outlives a short `kenning recall`
                    close_fds=True,
                )
        except OSError as exc:
            log.warning("cannot start the ANN index builder: %s", exc)
            self._failed_at = time.monotonic()
            return False
        log.info("building the ANN index of %s in the background", self.database)
        return True

    def _take_lock(self) -> int | None:
        if fcntl is None:
            return None
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | NO_FOLLOW, 0o644)
        except OSError:
            if not os.path.islink(self.lock_path):
                return None
            try:  # a symlink in its place: the link goes, never what it names
                os.unlink(self.lock_path)
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | NO_FOLLOW, 0o644)
            except OSError:
                return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        return fd

    @contextlib.contextmanager
    def build_lock(self) -> Iterator[bool]:
        """The builder's lock, taken without waiting (False: another builder has it)."""
        fd = self._take_lock()
        try:
            yield fd is not None
        finally:
            if fd is not None:
                os.close(fd)

    def write(
        self,
        index: VectorIndex,
        *,
        still_current: Callable[[AnnHeader], contextlib.AbstractContextManager[bool]] | None = None,
    ) -> AnnHeader | None:
        """Build the graph of ``index``'s rows in the file (``index.state`` is the state it
        covers) and put it in place: temp file, ``fsync``, rename — inside
        ``still_current(header)``, and only if it says True (None: the graph was not put in
        place).

        On one thread: usearch's threaded build links each row from what the other threads
        had inserted when it ran, so the graph depends on how the threads were scheduled,
        and on a busy machine (the builder runs niced) rows with identical vectors (one note
        in several projects) lost their links: recall@10 of queries near them fell from 1.0
        to 0.97 with two busy processes beside the builder, 0.90 in a loaded test run (4,000
        rows, ten identical vectors a query: tests/test_annindex.py). One thread builds the
        same graph for a store under any load, for ~20 % less CPU, taking longer only on
        an idle machine."""
        from usearch.index import Index

        state = index.state
        assert state is not None
        records = index.records
        indexed = records[records["norm"] > 0]  # a damaged (zero) vector is never a hit
        graph = Index(
            ndim=index.dimension,
            metric="cos",
            dtype="i8",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
        )
        if len(indexed):
            graph.add(
                indexed["rowid"].astype(np.uint64),
                codes_of(indexed, index.dimension),
                threads=1,
            )
        blob = graph.save()  # into a buffer: no path given
        assert blob is not None
        self._remove_temp_files()
        header = AnnHeader(
            index.dimension,
            CONNECTIVITY,
            EXPANSION_ADD,
            state.token,
            state.deletes,
            state.updates,
            len(records),
            len(indexed),
            int(records["rowid"][-1]) if len(records) else 0,
            len(blob),
            zlib.crc32(blob),
        )
        temp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            with open_new(temp) as out:
                out.write(header.pack())
                out.write(blob)
                out.flush()
                os.fsync(out.fileno())
            with still_current(header) if still_current else contextlib.nullcontext(True) as ok:
                if not ok:
                    return None
                os.replace(temp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        return header

    def _temp_files(self) -> list[str]:
        """The builders' temp files in the folder (``<name>.ann.<pid>.tmp``)."""
        prefix, suffix = self.path.name + ".", ".tmp"
        try:
            names = os.listdir(self.path.parent)
        except OSError:
            return []
        return [
            str(self.path.parent / name)
            for name in names
            if name.startswith(prefix)
            and name.endswith(suffix)
            and name[len(prefix) : -len(suffix)].isdigit()
        ]

    def _remove_temp_files(self) -> None:
        """Remove the temp files of builders killed before their rename (one a graph's size
        each, holding the vectors of rows that may have been forgotten since). Only with the
        builder's lock held: no running builder's file is among them."""
        for temp in self._temp_files():
            with contextlib.suppress(OSError):
                os.unlink(temp)

    def discard(self) -> None:
        """Remove the graph (it holds deleted rows' vectors): searches are exact until the
        background build puts a new one in place."""
        self._view = self._examination = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        if self._temp_files():
            with self.build_lock() as locked:
                if locked:  # else a builder runs: the next one removes them
                    self._remove_temp_files()

    def close(self) -> None:
        self._view = None
        self._examination = None


def main(argv: Sequence[str] | None = None) -> int:
    """The builder: ``python -m kenning.backends.annindex <memory.db>``."""
    from .sqlite import SQLiteBackend

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m kenning.backends.annindex <memory.db>", file=sys.stderr)
        return 2
    with contextlib.suppress(OSError):
        os.nice(10)  # a background job: recalls and the agent come first
    backend = SQLiteBackend(Path(args[0]), create=False)
    try:
        backend.build_ann_index()
    finally:
        backend.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
