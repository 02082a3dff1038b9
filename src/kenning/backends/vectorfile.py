"""The SQLite store's vectors, quantised to one memory-mapped file beside ``memory.db``.

SQLite stays the source of truth: every vector is a float32 BLOB in ``memories``. This file,
``memory.db.vectors``, is a derived index that makes search cheap to start and to run:

* **Start**: a new process maps the file instead of reading every BLOB (1.15 s at 100k
  memories before this file existed; mapping is instant and the first scan reads 43 MB).
* **Scan**: each vector is stored as int8 codes with its scale, and one onnxruntime
  ``MatMulInteger`` (a library already used for the model; int8 dot products with VNNI)
  scores every row — a quarter of float32's memory traffic. The query is two levels of
  codes (:func:`quantise_query`), both scored in the same pass; its codes are 7-bit where
  the machine's product would saturate on 8 (x86 without VNNI: :func:`query_code_limit`).
* **Exact**: the int8 score of row *i* is within ``error_i·|q| + |x̃_i|·error_q`` (+ float32
  rounding) of the float32 cosine, with ``error_i = |x_i - x̃_i|`` stored per row and
  ``error_q`` measured per query (:func:`int8_scores`). Every row whose upper bound reaches
  the k-th best lower bound is re-scored from its float32 BLOB in SQLite, so the top-k and
  its scores are the exact float32 answer, not an approximation (k = 10 on 4,032 eval
  documents: 13.6 rows re-read on average, 19 at the 95th percentile).

Layout: a 4 KiB header, then one fixed-size record per row in rowid order::

    codes (dim, padded to 8) u8 = int8 code + 128 | rowid i8 | group, collection, type u8
    (64-bit hashes of the strings, for filters) | scale, error, norm, unused f4

The query is zero against everything after the codes, so one matrix product over whole
records gives the dot products (the trailer costs ~12 % more bytes than the codes alone).
A filter compares hashes; every re-scored row's strings are checked against the filter
again in SQLite, so a hash collision cannot let a wrong row through.

Staying in step with SQLite, which triggers keep in ``vector_state`` (migration 5): a
counter of deleted rows, a counter of rows whose vector or filter columns were updated, and
a random token of the database. The header records the state it was built from, plus the
row count and the largest rowid. On every change of the store (``PRAGMA data_version``):

* same token and counters: the rows with a larger rowid (AUTOINCREMENT: never reused) are
  appended, if the counts then agree;
* deletions only: the surviving records are copied to a new file (no BLOB is re-read);
* anything else — another token (a restored or replaced database), updated vectors, counts
  that disagree, a header whose checksum fails, a short file, a last record that does not
  match its row in SQLite (checked once per process) — rebuilds the file from SQLite.

A damaged record in between (a zeroed disk block over its codes) is not noticed by a
search: its int8 bound is ~0, so its memory is never re-scored nor found. Checking every
record's codes when a process maps the file (a code of ±127 in each row) cost 5 ms at 10k
rows and 19 ms at 100k, in every ``kenning recall`` and hook, and catches only part of
such damage; ``kenning doctor`` compares every record with its row instead
(:func:`damaged_records`, ~75 ms at 10k rows) and says to delete the file.

Crash safety: appends write the records, ``fsync``, then rewrite the header (a torn header
fails its checksum; records past the header's count are ignored). Rebuilds write a temp
file, ``fsync`` and rename it over the old one. Only one process writes the file at a time
(``flock`` on the file, never waited for: a process that cannot take it, or that is inside
a write transaction whose rows may yet roll back, keeps its extra rows in memory and writes
nothing). Records already in the file are never modified, so a reader's mapping never
changes under it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import logging
import mmap
import os
import stat
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..vectors import bad_rows
from .base import Filters

log = logging.getLogger(__name__)

#: ``os.open`` flag: never through a symlink (0 where the platform has none).
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: ... and never waiting for a pipe's other end (no effect on a regular file).
_NO_WAIT = getattr(os, "O_NONBLOCK", 0)


def open_regular(path: Path, flags: int, mode: int = 0o644) -> int | None:
    """A descriptor of ``path`` opened with ``flags`` when it is a regular file, never
    through a symlink nor waiting on a named pipe; None for anything else there (a pipe, a
    folder, a device: a checkout's .kenning can carry one, and a read of a pipe waited for
    a writer forever, with the store's write lock held) and when it cannot be opened."""
    try:
        fd = os.open(path, flags | NO_FOLLOW | _NO_WAIT, mode)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            if _NO_WAIT:
                os.set_blocking(fd, True)
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def not_a_file(path: Path) -> bool:
    """Whether something other than a regular file, a symlink or nothing is at ``path``."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISLNK(mode))


def open_new(path: Path) -> io.BufferedWriter:
    """``path`` opened for writing as a new file of the store's folder: what was there is
    removed first (a symlink goes, never what it names; a checkout's .kenning can carry
    one), and the file is created without following a link swapped in meanwhile."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW, 0o666)
    return os.fdopen(fd, "wb")


#: After the file could not be written, a process tries again this many seconds later.
WRITE_RETRY_S = 60.0

try:  # POSIX; elsewhere the index lives in memory only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

MAGIC = b"KNVEC\x00\x00\x01"
FORMAT_VERSION = 1
HEADER_BYTES = 4096
_HEADER = struct.Struct("<8sIIIIqqqq16s")
_CRC = struct.Struct("<I")
#: Float32 rounding of the reference (BLAS) cosine, relative to |x|·|q|: a 384-term dot
#: product is within 384·2⁻²⁴ ≈ 2.3e-5 of the real value in the worst case.
ROUNDING_SLACK = 3e-5
#: Float32 rounding of the int8 score and its bound themselves (scores are at most 1).
ABSOLUTE_SLACK = 1e-6
#: A filter letting through at most this share of the rows copies them out and scans only
#: them; a broader one scans every row (copying 27 % of 100k records cost more than
#: scanning all of them: 18 ms against 13 ms; 9 % cost 6.5 ms; bench/scale.py).
GATHER_SHARE = 0.15
#: Rows from SQLite per batch while building the file.
BUILD_BATCH = 4096


@functools.lru_cache(maxsize=4096)
def label_hash(value: str) -> int:
    """A 64-bit hash of a group, collection or type name."""
    return int.from_bytes(hashlib.blake2b(value.encode("utf-8"), digest_size=8).digest(), "little")


def code_width(dimension: int) -> int:
    return (dimension + 7) // 8 * 8


def record_dtype(dimension: int) -> np.dtype[Any]:
    return np.dtype(
        [
            ("codes", "u1", (code_width(dimension),)),
            ("rowid", "<i8"),
            ("group", "<u8"),
            ("collection", "<u8"),
            ("type", "<u8"),
            ("scale", "<f4"),
            ("error", "<f4"),
            ("norm", "<f4"),
            ("unused", "<f4"),
        ]
    )


@dataclass(frozen=True)
class StoreState:
    """What SQLite says the vectors are: compared with the file's header."""

    token: str
    deletes: int
    updates: int
    count: int
    max_rowid: int
    #: The sum of the rows' rowids (-1: not known). Counters alone cannot tell a database
    #: restored from a backup and then changed as the file was (two different forgets leave
    #: every counter equal) from the one the file was kept in step with; the set of rows
    #: they hold differs, and so does this sum.
    rowid_sum: int = -1


Row = tuple[int, str, str, str, bytes]  # rowid, group_id, collection, type, embedding


def damaged_vector_positions(rows: Sequence[Row], dimension: int) -> list[int]:
    """The positions in ``rows`` of the vectors the file records as zeros: of another size
    than ``dimension``, not finite, or not of unit length (:func:`kenning.vectors.bad_rows`),
    in order. Such a vector would score as anything; its zero record is never a hit."""
    size = dimension * 4
    sized = [i for i, r in enumerate(rows) if isinstance(r[4], bytes) and len(r[4]) == size]
    bad = set(range(len(rows))) - set(sized) if len(sized) < len(rows) else set()
    if sized and dimension:
        matrix = np.frombuffer(b"".join(rows[i][4] for i in sized), dtype=np.float32)
        flags = bad_rows(matrix.reshape(len(sized), dimension))
        if flags.any():
            bad.update(i for i, flag in zip(sized, flags, strict=True) if flag)
    return sorted(bad)


def quantise(rows: Sequence[Row], dimension: int) -> np.ndarray:
    """Records for ``rows`` (float32 BLOBs of ``dimension`` values).

    Computed in float32; ``error`` and ``norm`` are then rounded up by more than float32's
    rounding can have cost them (relative 1e-5, plus 2e-7 of the vector's length for the
    rounding of ``code × scale`` itself), so they stay upper bounds."""
    out = np.zeros(len(rows), dtype=record_dtype(dimension))
    if not rows:
        return out
    vectors = np.frombuffer(b"".join(r[4] for r in rows), dtype=np.float32).reshape(
        len(rows), dimension
    )
    peak = np.abs(vectors).max(axis=1)
    scale = np.where(peak > 0, peak / np.float32(127.0), np.float32(1.0)).astype(np.float32)
    codes = np.rint(vectors / scale[:, None])
    np.clip(codes, -127, 127, out=codes)
    restored = codes * scale[:, None]
    error = np.linalg.norm(vectors - restored, axis=1)
    norm = np.linalg.norm(restored, axis=1)
    out["codes"][:, :dimension] = codes.astype(np.int16) + 128
    out["codes"][:, dimension:] = 128
    out["rowid"] = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    for field, column in (("group", 1), ("collection", 2), ("type", 3)):
        # str(): a damaged row's label may be a BLOB (its bytes ended every search in an
        # AttributeError); reads skip that row, its record only has to be built
        out[field] = np.fromiter(
            (label_hash(str(r[column])) for r in rows), dtype=np.uint64, count=len(rows)
        )
    out["scale"] = scale
    out["error"] = error * np.float32(1 + 1e-5) + np.float32(2e-7) * (norm + error)
    out["norm"] = norm * np.float32(1 + 1e-5) + np.float32(2e-7) * (norm + error)
    return out


#: The query's codes are 7-bit (±63) unless the machine's int8 product is exact for int8's
#: full ±127 (:func:`query_code_limit`). Without VNNI (AVX2 or AVX-512 alone: AMD before
#: Zen 4, older Intel) onnxruntime's u8 × s8 product adds each pair of byte products in
#: int16 with saturation (``vpmaddubsw``): a row code + 128 of up to 255 times a query code
#: of 127, twice, is 64,770 and was cut to 32,767, so whole scores came out wrong and the
#: exact re-scoring re-read the wrong rows (a wrong top-1 seen on an AMD EPYC).
#: 2 × 255 × 63 = 32,130 fits. Coarser codes widen only the query's share of each row's
#: bound, which the second level of codes makes small either way: k = 10 on 4,032 eval
#: documents re-reads 13.6 rows on average with ±63 and 13.5 with ±127 (one level: 25.1
#: and 18.3).
SAFE_QUERY_CODE_LIMIT = 63
FULL_QUERY_CODE_LIMIT = 127


@functools.cache
def query_code_limit() -> int:
    """:data:`FULL_QUERY_CODE_LIMIT` where this machine's int8 product is exact for it,
    else :data:`SAFE_QUERY_CODE_LIMIT`; tried once per process on the products' extremes
    (every pair of byte products at ±2 × 255 × 127) and on mixed full-range codes."""
    width = record_dtype(384).itemsize  # MiniLM's records: the shape searches run
    # mixed rows and a mixed query (not numpy.random: importing it costs a cold recall ~8 ms)
    mixed = (np.arange(62 * width, dtype=np.int64).reshape(62, width) * 37 + 11) % 256
    matrix = np.vstack([np.full((1, width), 255), np.full((1, width), 1), mixed]).astype(np.uint8)
    limit = FULL_QUERY_CODE_LIMIT
    for query in (
        np.full((2, width), limit, dtype=np.int8),
        np.full((2, width), -limit, dtype=np.int8),
        ((np.arange(2 * width).reshape(2, width) * 53) % (2 * limit + 1) - limit).astype(np.int8),
    ):
        expected = (matrix.astype(np.int64) - 128) @ query.T.astype(np.int64)
        if not np.array_equal(_matrix_dots(matrix, query, len(matrix)), expected):
            return SAFE_QUERY_CODE_LIMIT
    return FULL_QUERY_CODE_LIMIT


@dataclass(frozen=True)
class QueryCodes:
    """A query in two levels of int8 codes: ``codes[0] × scales[0]`` is the query rounded to
    codes within ±limit, ``codes[1] × scales[1]`` the same of what that rounding left out.
    Their sum is within ``error`` of the query (an upper bound); ``norm`` is its length."""

    codes: np.ndarray  # int8, shape (2, dimension)
    scales: np.ndarray  # float32, shape (2,)
    error: float
    norm: float


def quantise_query(query: np.ndarray, limit: int) -> QueryCodes:
    """``query`` as two levels of int8 codes within ±``limit``.

    Why two: a row's bound is ``error_i·|q| + |x̃_i|·error_q``, and with one level of 7-bit
    codes (:data:`SAFE_QUERY_CODE_LIMIT`) the query's term was twice the row's. The second
    level makes it ~1/60 of that, and the scan computes both levels in the same pass over
    the records (a second column of the product costs nothing measurable: 10k rows 0.81 ms
    against 0.82 for one, 100k 14.0 against 13.9). At 10k rows, k = 40: 151 rows re-read
    from SQLite on average with one 7-bit level, 94 with one 8-bit level, 61 with two of
    either."""
    q64 = np.asarray(query, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(q64))
    codes = np.zeros((2, len(q64)), dtype=np.int8)
    scales = np.ones(2, dtype=np.float32)  # float32, as the scan multiplies by them
    left = q64
    for level in range(2):
        peak = float(np.abs(left).max()) if len(left) else 0.0
        scale = np.float64(np.float32(peak / limit))
        if not scale > 0:  # nothing left, or less than float32 can scale (kept in the error)
            break
        scales[level] = scale
        rounded = np.clip(np.rint(left / scale), -limit, limit)
        codes[level] = rounded
        left = left - rounded * scale
    return QueryCodes(codes, scales, float(np.linalg.norm(left)) * (1 + 1e-6), norm)


def row_terms(records: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per record, what its bound is made of: ``scale``, the error term ``error_i`` (with
    the float32 reference's rounding, :data:`ROUNDING_SLACK`) and ``norm``, as float32."""
    norm = records["norm"].astype(np.float32)
    error = records["error"].astype(np.float32)
    error_term = error + np.float32(ROUNDING_SLACK) * (norm + error)
    return records["scale"].astype(np.float32), error_term, norm


def int8_scores(
    records: np.ndarray,
    terms: tuple[np.ndarray, np.ndarray, np.ndarray],
    coded: QueryCodes,
) -> tuple[np.ndarray, np.ndarray]:
    """``(approx, bound)`` per record: its int8 score, and how far its float32 cosine with
    the query can be from it. ``terms`` is :func:`row_terms` of the records."""
    scale, error_term, norm = terms
    approx = int8_dots(records, coded.codes).astype(np.float32) @ coded.scales
    approx *= scale
    bound = error_term * np.float32(coded.norm)
    bound += norm * np.float32(coded.error)
    bound += np.float32(ABSOLUTE_SLACK)
    return approx, bound


#: :func:`nth_largest` looks at every this many-th value first.
SAMPLE_STRIDE = 16


def nth_largest(values: np.ndarray, n: int) -> Any:
    """The ``n``-th largest of ``values`` (1 ≤ ``n`` ≤ their count) as ``np.partition``
    orders them (NaN above every number): the k-th best lower bound of a search.

    Partitioning every row's bound was ~55 us of a search at 10k rows. Here a sample of
    every :data:`SAMPLE_STRIDE`-th value gives a cut about ``2n`` values from the top (its
    partition: ~3 us), and only the values not below it are partitioned. When at least
    ``n`` are not below it, every value left out is below each one kept, so the ``n``-th
    largest is the same value; else (a sample unlike the rest) all are partitioned.
    ~17 us at 10k rows."""
    size = len(values)
    if size >= 4096 and size >= 64 * n:
        sample = values[::SAMPLE_STRIDE]
        m = min(len(sample), 2 * (n // SAMPLE_STRIDE) + 4)
        cut = np.partition(sample, len(sample) - m)[len(sample) - m]
        kept = values[~(values < cut)]  # (NaN is kept: it is never below the cut)
        if len(kept) >= n:
            values, size = kept, len(kept)
    return np.partition(values, size - n)[size - n]


def _empty(dimension: int) -> np.ndarray:
    return np.zeros(0, dtype=record_dtype(dimension))


# -- the int8 matrix product ------------------------------------------------------------------

#: The ONNX model of ``dots = MatMulInteger(codes: u8[rows, width], query: i8[width, 2],
#: zero point 128)`` (the query's two levels, :func:`quantise_query`), serialised (187 bytes)
#: so that a search does not import ``onnx`` (0.3 s); tests/test_vectorfile.py rebuilds it
#: with ``onnx.helper`` and compares.
INT8_SCAN_MODEL = bytes.fromhex(
    "080812076b656e6e696e673aa7010a290a05636f6465730a0571756572790a047a65726f1204646f7473"
    "220d4d61744d756c496e746567657212116b656e6e696e675f696e74385f7363616e2a0b100242047a65"
    "726f4a01805a200a05636f64657312170a15080212110a061204726f77730a07120577696474685a1c0a"
    "05717565727912130a110803120d0a07120577696474680a020802621a0a04646f747312120a10080612"
    "0c0a061204726f77730a02080242040a00100d"
)
_session_lock = threading.Lock()
_session: Any = None


def _matmul_integer() -> Any:
    """One onnxruntime session computing ``(codes - 128) @ query`` in int32, exactly."""
    global _session
    with _session_lock:
        if _session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            # Two threads where the process may use two CPUs: a search runs after its
            # query is embedded and its lexical side is done, so the model's cores are free
            # (on an AMD EPYC without VNNI, where the product is compute-bound: 10k rows
            # 0.83 -> 0.52 ms, 100k 11.4 -> 6.2 ms). No spinning: an idle thread sleeps.
            options.intra_op_num_threads = _scan_threads()
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            _session = ort.InferenceSession(
                INT8_SCAN_MODEL, options, providers=["CPUExecutionProvider"]
            )
        return _session


def _scan_threads() -> int:
    """Two, or one where this process may use only one CPU."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cpus = os.cpu_count() or 1
    return 2 if cpus >= 2 else 1


def int8_dots(records: np.ndarray, query_codes: np.ndarray, rows: int | None = None) -> np.ndarray:
    """``(codes - 128) · query_codes[level]`` for every record and both levels of a query's
    codes (shape ``(2, dimension)``; the trailer meets zeros), as the ``(rows, 2)`` int32
    the product gives: exact for query codes within ±:func:`query_code_limit` (wider ones
    saturate on x86 without VNNI; see :data:`SAFE_QUERY_CODE_LIMIT`). ``rows``: records per
    run of the product (default: :data:`SCAN_CHUNK_ROWS` where it is compute-bound, else
    all in one run)."""
    if len(records) == 0:
        return np.empty((0, 2), dtype=np.int32)
    width = records.dtype.itemsize
    return _matrix_dots(records.view(np.uint8).reshape(len(records), width), query_codes, rows)


#: Rows per run of the product where it is compute-bound (x86 without VNNI, where
#: :func:`query_code_limit` is :data:`SAFE_QUERY_CODE_LIMIT`): onnxruntime's u8 × s8 kernel
#: slows down there once a run's rows outgrow the caches (100k rows in one run 15.7 ms, in
#: runs of 8,192 rows 11.8 ms, on an AMD EPYC without VNNI; 10k rows take the same either
#: way). With VNNI each run costs a start of its own, and one run is the fastest (Intel
#: Xeon, 2026-12-05: 10k rows 0.147 ms against 0.182 ms in runs of 8,192; 100k 1.02 against
#: 1.83 ms).
SCAN_CHUNK_ROWS = 8192


def _matrix_dots(
    matrix: np.ndarray, query_codes: np.ndarray, rows: int | None = None
) -> np.ndarray:
    query = np.zeros((matrix.shape[1], 2), dtype=np.int8)
    query[: query_codes.shape[1]] = query_codes.T
    session = _matmul_integer()
    if rows is None:
        rows = SCAN_CHUNK_ROWS if query_code_limit() == SAFE_QUERY_CODE_LIMIT else len(matrix)
    runs: list[np.ndarray] = [
        session.run(None, {"codes": matrix[start : start + rows], "query": query})[0]
        for start in range(0, len(matrix), max(rows, 1))
    ]
    return runs[0] if len(runs) == 1 else np.concatenate(runs)


def _size_and_time(fd: int) -> tuple[int, int]:
    stat = os.fstat(fd)
    return stat.st_size, stat.st_mtime_ns


# -- the file ---------------------------------------------------------------------------------


def seal(body: bytes) -> bytes:
    """``body`` followed by its CRC-32: a header a torn or foreign write cannot pass for."""
    return body + _CRC.pack(zlib.crc32(body))


def unseal(raw: bytes, layout: struct.Struct) -> tuple[Any, ...] | None:
    r"""The fields of a :func:`seal`\ ed header laid out as ``layout``; None when ``raw`` is
    too short or its checksum fails."""
    size = layout.size
    if len(raw) < size + _CRC.size:
        return None
    body = raw[:size]
    if _CRC.unpack(raw[size : size + _CRC.size])[0] != zlib.crc32(body):
        return None
    return layout.unpack(body)


@dataclass(frozen=True)
class Header:
    dimension: int
    record_size: int
    token: str
    deletes: int
    updates: int
    count: int
    max_rowid: int

    def pack(self) -> bytes:
        body = _HEADER.pack(
            MAGIC,
            FORMAT_VERSION,
            self.dimension,
            self.record_size,
            0,
            self.deletes,
            self.updates,
            self.count,
            self.max_rowid,
            bytes.fromhex(self.token),
        )
        return seal(body)

    @classmethod
    def unpack(cls, raw: bytes) -> Header | None:
        fields = unseal(raw, _HEADER)
        if fields is None:
            return None
        magic, version, dim, record, _, deletes, updates, count, max_rowid, token = fields
        if magic != MAGIC or version != FORMAT_VERSION:
            return None
        return cls(dim, record, token.hex(), deletes, updates, count, max_rowid)


def indexed_rows(path: Path) -> int | None:
    """How many rows the vector file at ``path`` says it indexes (its checked header), or
    None when there is no such file or it does not read as one. ``kenning doctor`` asks it
    of an empty store file: a vector file that indexes rows says the store held them."""
    fd = open_regular(path, os.O_RDONLY)
    if fd is None:
        return None
    try:
        header = Header.unpack(os.pread(fd, HEADER_BYTES, 0))
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if header is None else header.count


#: Records compared at a time by :func:`damaged_records`: bounded memory on any store
#: (~20 MB), and few enough calls that 10k rows take ~75 ms (500 at a time: ~230 ms).
COMPARE_BATCH = 4096


def damaged_records(
    path: Path,
    state: StoreState,
    dimension: int,
    fetch: Callable[[Sequence[int]], list[Row]],
) -> tuple[int, list[int]] | None:
    """Every record of the vector file at ``path`` compared with what its writer makes of
    its row: ``(records compared, rowids of those that differ)``, or None when the file is
    not one in step with ``state`` (missing, its header fails, another token, vectors
    updated since: the next search rebuilds it anyway). ``fetch(rowids)`` returns those
    rows as :class:`RowSource` does (damaged vectors zeroed), in rowid order, from the
    snapshot ``state`` was read in; a record whose row was deleted since is skipped.

    Searches check only the header and, once per process, the last record: a damaged
    record in between (a zeroed disk block) hid its note from every search, its int8
    bound being ~0 (QA C2). ``kenning doctor`` asks this; it reads the whole file and every
    vector (:data:`COMPARE_BATCH` records at a time)."""
    fd = open_regular(path, os.O_RDONLY)
    if fd is None:
        return None
    try:
        header = Header.unpack(os.pread(fd, HEADER_BYTES, 0))
        dtype = record_dtype(dimension)
        width = dtype.itemsize
        if (
            header is None
            or (header.dimension, header.record_size) != (dimension, width)
            or (header.token, header.updates) != (state.token, state.updates)
            or os.fstat(fd).st_size < HEADER_BYTES + header.count * width
        ):
            return None
        damaged: list[int] = []
        compared = previous = 0
        for start in range(0, header.count, COMPARE_BATCH):
            n = min(COMPARE_BATCH, header.count - start)
            raw = os.pread(fd, n * width, HEADER_BYTES + start * width)
            if len(raw) != n * width:
                return None  # cut short meanwhile: the next search rebuilds it
            part = np.frombuffer(raw, dtype=dtype)
            rowids = part["rowid"].tolist()
            rows = {int(r[0]): r for r in fetch(rowids)}
            kept = [i for i, rowid in enumerate(rowids) if rowid in rows]
            expected = quantise([rows[rowids[i]] for i in kept], dimension)
            got = part[kept].view(np.uint8).reshape(len(kept), width)
            differs = ~np.all(got == expected.view(np.uint8).reshape(len(kept), width), axis=1)
            damaged.extend(rowids[i] for i, bad in zip(kept, differs, strict=True) if bad)
            compared += len(kept)
            # a rowid out of order (searches look rows up by bisection), or one that is no
            # row while no row was deleted since the file was written — not one past the
            # snapshot's largest: another process's search appended it after the snapshot
            # was taken (qa-s66a D1)
            for rowid in rowids:
                if rowid <= previous or (
                    rowid not in rows
                    and rowid <= state.max_rowid
                    and header.deletes == state.deletes
                ):
                    damaged.append(rowid)
                previous = max(previous, rowid)
    except OSError:
        return None
    finally:
        os.close(fd)
    return compared, sorted(set(damaged))


class RowSource(Protocol):
    """How the vector file reads SQLite (the SQLite backend, inside one read snapshot)."""

    def rows(
        self, after_rowid: int, rowids: Sequence[int] | None = None
    ) -> Iterator[list[Row]]: ...

    def rowids(self) -> np.ndarray: ...


@dataclass
class VectorIndex:
    """The searchable vectors of one store version: records from the file (mapped) or
    built in memory, plus rows not in the file yet (kept exactly, as float32)."""

    dimension: int
    records: np.ndarray
    extra: np.ndarray  # records of rows not persisted
    extra_vectors: np.ndarray  # their float32 vectors, exact
    version: Any = None
    state: StoreState | None = None
    #: False when rows are kept in memory only (the file lock was busy): retried later.
    persisted: bool = True

    def __post_init__(self) -> None:
        self._selections: dict[Filters, tuple[np.ndarray | None, np.ndarray | None]] = {}
        self._columns_cache: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def count(self) -> int:
        return len(self.records) + len(self.extra)

    def _select(self, records: np.ndarray, filters: Filters) -> np.ndarray | None:
        """Positions of the records ``filters`` lets through (None: all of them)."""
        mask: np.ndarray | None = None
        for field, values in (
            ("group", (filters.group_id,) if filters.group_id is not None else ()),
            ("collection", filters.collections),
            ("type", filters.types),
        ):
            if not values:
                continue
            wanted = np.array([label_hash(v) for v in values], dtype=np.uint64)
            column = records[field]
            hit = column == wanted[0] if len(wanted) == 1 else np.isin(column, wanted)
            mask = hit if mask is None else mask & hit
        if mask is None or bool(mask.all()):
            return None
        return np.flatnonzero(mask)

    def selection(self, filters: Filters) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Positions of matching rows in the file part and in the extra part (cached for
        this store version)."""
        found = self._selections.get(filters)
        if found is None:
            found = (self._select(self.records, filters), self._select(self.extra, filters))
            self._selections[filters] = found
        return found

    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per-row ``rowid``, ``scale``, error term and ``norm`` as contiguous arrays (read
        out of the records once per store version)."""
        if self._columns_cache is None:
            self._columns_cache = (self.records["rowid"].copy(), *row_terms(self.records))
        return self._columns_cache

    def search(
        self,
        query: np.ndarray,
        k: int,
        filters: Filters,
        exact: Callable[[Sequence[int]], dict[int, float]],
    ) -> list[tuple[int, float]]:
        """Top-k ``(rowid, cosine)`` among rows matching ``filters``, best first (equal
        scores: smaller rowid first). ``exact(rowids)`` returns the float32 cosine of those
        rows from SQLite, leaving out any that no longer match ``filters``."""
        in_file, in_extra = self.selection(filters)
        rowids, scale, error_term, norm = self._columns()
        part = self.records
        outside: np.ndarray | None = None
        if in_file is not None and len(in_file) <= GATHER_SHARE * len(part):
            # a selective filter: only the rows it lets through are copied out and scanned
            part = part[in_file]
            rowids, scale, error_term, norm = (
                rowids[in_file],
                scale[in_file],
                error_term[in_file],
                norm[in_file],
            )
        elif in_file is not None:  # a broad one: scan everything, then drop the others
            outside = np.ones(len(part), dtype=bool)
            outside[in_file] = False
        extra_part = self.extra if in_extra is None else self.extra[in_extra]
        extra_vectors = self.extra_vectors if in_extra is None else self.extra_vectors[in_extra]
        if len(part) + len(extra_part) == 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        coded = quantise_query(q, query_code_limit())
        approx, bound = int8_scores(part, (scale, error_term, norm), coded)
        if outside is not None:
            keep = ~outside
            approx, bound, rowids = approx[keep], bound[keep], rowids[keep]
        extra_scores = extra_vectors @ q
        # no rows kept in memory only (the usual case): no copy of the bounds into a new array
        lower = approx - bound
        if len(extra_scores):
            lower = np.concatenate([lower, extra_scores])
        upper = approx + bound
        while True:
            n = min(k, len(lower))
            if n == 0:
                return []
            threshold = nth_largest(lower, n)
            wanted = rowids[upper >= threshold]
            scored = exact(wanted.tolist())
            if len(scored) == len(wanted):
                break
            # Gone since, or a hash collision with the filter: drop them and choose again.
            keep = ~np.isin(rowids, np.setdiff1d(wanted, np.fromiter(scored, np.int64)))
            approx, bound, upper, rowids = approx[keep], bound[keep], upper[keep], rowids[keep]
            lower = np.concatenate([approx - bound, extra_scores])
        chosen = extra_scores >= threshold
        for rowid, score in zip(extra_part["rowid"][chosen], extra_scores[chosen], strict=True):
            scored[int(rowid)] = float(score)
        return sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:k]


class VectorFile:
    """``memory.db.vectors``: opening, validating, appending, rebuilding (see the module
    docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_fd: int | None = None
        self._fd: int | None = None
        self._inode: int | None = None
        self._map: mmap.mmap | None = None
        #: (size, mtime) of the file when it was last mapped (:meth:`unchanged`)
        self._mapped: tuple[int, int] | None = None
        self._header: Header | None = None
        self._checked: set[int] = set()  # inodes whose last record was checked against SQLite
        self._write_warned = False
        self._write_again_at = 0.0  # after a failed write: not before (time.monotonic())

    # -- reading --------------------------------------------------------------------------

    def unchanged(self) -> bool:
        """Is the file as it was when last mapped? False when it was written since, by an
        append of this process or anything else (a backup copied over it in place, a
        truncation): the caller syncs again instead of reading a stale or short mapping."""
        if self._fd is None or self._mapped is None:
            return True
        try:
            return _size_and_time(self._fd) == self._mapped
        except OSError:
            return False

    def _close_map(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._fd = self._inode = self._header = self._mapped = None
        self._map = None  # a view may still use it: the mapping closes with its last view

    def _open_current(self) -> Header | None:
        """(Re)open the file at ``path`` if it was replaced; its valid header or None."""
        try:
            inode = os.stat(self.path).st_ino
        except FileNotFoundError:
            self._close_map()
            return None
        if inode != self._inode:
            self._close_map()
            # a symlink, a pipe or a folder in its place is not read (the next write
            # replaces a symlink or a pipe): the search scans the database instead
            fd = open_regular(self.path, os.O_RDONLY)
            if fd is None:
                return None
            self._fd = fd
            self._inode = os.fstat(self._fd).st_ino
        assert self._fd is not None
        header = Header.unpack(os.pread(self._fd, HEADER_BYTES, 0))
        if header is None:
            return None
        size = os.fstat(self._fd).st_size
        if size < HEADER_BYTES + header.count * header.record_size:
            return None  # the header promises more records than the file holds
        return header

    def _records(self, header: Header) -> np.ndarray:
        """The file's first ``header.count`` records (a read-only mapping)."""
        assert self._fd is not None
        length = HEADER_BYTES + header.count * header.record_size
        if header.count == 0:
            return np.zeros(0, dtype=record_dtype(header.dimension))
        seen = _size_and_time(self._fd)
        if self._map is None or len(self._map) < length or seen != self._mapped:
            # mapped again when the file changed other than by this process's appends (a
            # backup copied over it in place): a mapping past a truncated end is SIGBUS
            self._map = mmap.mmap(self._fd, length, access=mmap.ACCESS_READ)
            self._mapped = seen
        return np.frombuffer(
            self._map, dtype=record_dtype(header.dimension), count=header.count, offset=HEADER_BYTES
        )

    # -- syncing --------------------------------------------------------------------------

    def sync(
        self,
        state: StoreState,
        dimension: int,
        source: RowSource,
        *,
        persist: bool,
    ) -> VectorIndex:
        """An index of exactly the rows ``state`` describes, bringing the file up to date
        when ``persist`` (and the file lock is free)."""
        # after a failed write (a full disk), each search would fill the disk again first
        persist = persist and time.monotonic() >= self._write_again_at
        with self._lock() if persist else contextlib.nullcontext(False) as locked:
            header = self._open_current()
            records: np.ndarray | None = None
            new_rows: list[Row] = []
            if (
                header is not None
                and (header.dimension, header.record_size)
                == (dimension, record_dtype(dimension).itemsize)
                and (header.token, header.updates) == (state.token, state.updates)
                and (header.deletes != state.deletes or header.max_rowid <= state.max_rowid)
            ):
                records = self._records(header)
                if header.deletes != state.deletes:
                    records = records[np.isin(records["rowid"], source.rowids())]
                if len(records) and not self._last_record_agrees(records[-1], source):
                    records = None
            if records is not None:
                assert header is not None
                new_rows = [r for batch in source.rows(header.max_rowid) for r in batch]
                if len(records) + len(new_rows) != state.count or (
                    state.rowid_sum >= 0
                    and int(records["rowid"].sum(dtype=np.int64)) + sum(r[0] for r in new_rows)
                    != state.rowid_sum
                ):
                    records = None
            written: VectorIndex | None = None
            if records is None:  # rebuild from SQLite
                if locked:
                    batches = (quantise(batch, dimension) for batch in source.rows(0))
                    try:
                        written = self._rewrite(state, dimension, batches)
                    except OSError as exc:
                        self._cannot_write(exc)
                if written is not None:
                    return written
                rows = [r for batch in source.rows(0) for r in batch]
                return self._index(_empty(dimension), rows, dimension, state)
            assert header is not None
            fresh = quantise(new_rows, dimension)
            if locked:
                try:
                    if header.deletes != state.deletes:
                        written = self._rewrite(state, dimension, [records, fresh])
                    else:
                        written = self._append(header, state, fresh, dimension)
                except OSError as exc:
                    self._cannot_write(exc)
                if written is not None:
                    return written
                if self._fd is None or self._open_current() != header:
                    # the file changed under us: what was read from it may be gone
                    rows = [r for batch in source.rows(0) for r in batch]
                    return self._index(_empty(dimension), rows, dimension, state)
            return self._index(records, new_rows, dimension, state, fresh)

    def _cannot_write(self, exc: OSError) -> None:
        """The file is derived data: a disk that is full or refuses it costs the search its
        speed-up, never its answer (the index is built in memory from SQLite instead)."""
        self._write_again_at = time.monotonic() + WRITE_RETRY_S
        if not self._write_warned:
            self._write_warned = True
            log.warning(
                "kenning: cannot write %s (%s); searching from memory until it can be",
                self.path,
                exc.strerror or exc,
            )

    def _index(
        self,
        records: np.ndarray,
        extra_rows: Sequence[Row],
        dimension: int,
        state: StoreState,
        extra: np.ndarray | None = None,
    ) -> VectorIndex:
        vectors = (
            np.frombuffer(b"".join(r[4] for r in extra_rows), dtype=np.float32).reshape(
                len(extra_rows), dimension
            )
            if extra_rows
            else np.zeros((0, dimension), dtype=np.float32)
        )
        if extra is None:
            extra = quantise(extra_rows, dimension)
        return VectorIndex(dimension, records, extra, vectors, state=state, persisted=False)

    def _last_record_agrees(self, last: np.void, source: RowSource) -> bool:
        """Once per file: its last record is what SQLite's row quantises to (catches a
        database restored from a backup over rowids the file already holds)."""
        assert self._inode is not None
        if self._inode in self._checked:
            return True
        rows = [r for batch in source.rows(0, [int(last["rowid"])]) for r in batch]
        dimension = len(rows[0][4]) // 4 if rows else 0
        agrees = (
            bool(rows)
            and last.dtype == record_dtype(dimension)
            and quantise(rows, dimension).tobytes() == last.tobytes()
        )
        if agrees:
            self._checked.add(self._inode)
        return agrees

    @contextlib.contextmanager
    def _lock(self) -> Iterator[bool]:
        """The writer's lock on the file, taken without waiting: False when another process
        holds it, the folder is read-only, or the platform has no ``flock``."""
        fd = self._take_lock()
        if fd is None:
            yield False
            return
        self._lock_fd = fd
        try:
            yield True
        finally:
            self._lock_fd = None
            os.close(fd)  # releases the lock

    def lock_free(self) -> bool:
        """Whether :meth:`sync` could write the file now (a quick, non-waiting probe)."""
        fd = self._take_lock()
        if fd is None:
            return False
        os.close(fd)
        return True

    def _take_lock(self) -> int | None:
        if fcntl is None:
            return None
        for _ in range(3):
            fd = open_regular(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            if fd is None:
                if not (os.path.islink(self.path) or not_a_file(self.path)):
                    return None
                # a symlink in the file's place (a checkout's .kenning can carry one):
                # writes would land in the file it names; the link goes, not what it names;
                # so does a pipe or a device (a folder stays: the search scans instead)
                try:
                    os.unlink(self.path)
                except OSError:
                    return None
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                    return fd
            except BlockingIOError:
                os.close(fd)
                return None
            except OSError:  # replaced or removed meanwhile: lock the file now there
                pass
            os.close(fd)
        return None

    def _append(
        self, header: Header, state: StoreState, fresh: np.ndarray, dimension: int
    ) -> VectorIndex | None:
        fd = self._lock_fd
        assert fd is not None
        if len(fresh):
            os.pwrite(fd, fresh.tobytes(), HEADER_BYTES + header.count * header.record_size)
            os.fsync(fd)  # the records are durable before the header counts them
        updated = Header(
            dimension,
            header.record_size,
            state.token,
            state.deletes,
            state.updates,
            header.count + len(fresh),
            state.max_rowid,
        )
        if updated != header:
            os.pwrite(fd, updated.pack(), 0)
        reopened = self._open_current()
        if reopened != updated:  # replaced by another process meanwhile: sync reads SQLite
            return None
        return VectorIndex(
            dimension,
            self._records(updated),
            _empty(dimension),
            np.zeros((0, dimension), np.float32),
            state=state,
        )

    @staticmethod
    def _write_temp(
        temp: Path, state: StoreState, dimension: int, parts: Iterable[np.ndarray]
    ) -> Header:
        dtype = record_dtype(dimension)
        count = 0
        with open_new(temp) as out:
            out.write(b"\0" * HEADER_BYTES)
            for part in parts:
                out.write(part.tobytes())
                count += len(part)
            header = Header(
                dimension,
                dtype.itemsize,
                state.token,
                state.deletes,
                state.updates,
                count,
                state.max_rowid,
            )
            out.seek(0)
            out.write(header.pack())
            out.flush()
            os.fsync(out.fileno())
        return header

    def _rewrite(
        self, state: StoreState, dimension: int, parts: Iterable[np.ndarray]
    ) -> VectorIndex | None:
        temp = self.path.with_name(self.path.name + ".tmp")  # only the lock holder writes it
        try:
            header = self._write_temp(temp, state, dimension, parts)
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):  # a half-written copy only takes space
                temp.unlink()
            raise
        opened = self._open_current()
        if opened != header:
            # Another process locked the file just put in place (the lock held was on the
            # one it replaced) and wrote to it at once: sync reads SQLite instead.
            return None
        assert self._inode is not None
        self._checked.add(self._inode)
        return VectorIndex(
            dimension,
            self._records(opened),
            _empty(dimension),
            np.zeros((0, dimension), np.float32),
            state=state,
        )

    def close(self) -> None:
        self._close_map()
