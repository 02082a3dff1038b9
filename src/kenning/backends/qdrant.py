"""The Qdrant backend (the AI Memory Module's engine), selected by an ``http(s)://`` URL.

``qdrant-local:<folder>`` and ``:memory:`` select ``qdrant-client``'s local mode (tests, CI):
the same client API without a server, one process at a time.

Layout: **one** collection for every memory (default ``kenning_memories``; ``?collection=``
in the URL picks another name), cosine distance, with keyword payload indexes on
``group_id``, ``collection``, ``type``, ``content_hash`` and ``kenning_id`` and a full-text
index on ``content``. One collection rather than one per kenning collection because kenning
queries cut across collections all the time (cascading search, recall over everything,
dedup over a whole project, ``count_by``, export, re-embed), and Qdrant's filterable HNSW
with indexed payload handles the ``group_id``/``collection``/``type`` filters inside one
graph; three collections would triple every cross-collection query, split the dimension
check and provenance, and make re-embedding a multi-collection job. Meta and provenance
live in a small vector-less collection ``<name>_meta`` (one point per key).

Ids: Qdrant point ids must be unsigned integers or UUIDs. kenning ids are UUIDv7 strings,
but imports may carry arbitrary ids, so the point id is ``uuid5(namespace, kenning_id)`` and
the kenning id is kept in the payload (``kenning_id``).

Vectors: the collection uses cosine distance, so Qdrant stores vectors normalised and its
score is the cosine in [-1, 1]; :meth:`QdrantBackend.iterate` and
:meth:`~QdrantBackend.get_vectors` return the stored (unit) vectors, equal to what was
written for kenning's normalised embeddings, and another writer's vector of another length
as its direction, what search scores, in local mode too (which persists it as given:
:func:`_as_searched`).

Lexical search: BM25 with FTS5's formula (k1 = 1.2, b = 0.75, idf clamped at 1e-6), so the
store's fused score means the same as on SQLite. Words are whole tokens (runs of letters and
digits with their combining marks, lowercased — :func:`kenning.lexical.tokens`, Qdrant's word
tokenizer and about FTS5's ``unicode61``), so full-text syntax in the query is inert. A word
Qdrant's tokenizer cuts at a combining mark is found by its pieces and scored whole; a note
holding ``İ`` (which Qdrant lowercases to ``i`` and a combining dot, so ``istanbul`` never
matches it), ``Σ`` or ``ς`` (kenning's words make both ``σ``, as SQLite and PostgreSQL do)
also carries kenning's own words in its ``words`` payload, matched exactly.
Document frequencies are exact ``count`` calls with a ``MatchText`` filter (or ``words``;
one per query word, at most 64); the row count and total token count
are kept in a ``kenning:fts_stats`` entry of the meta collection, updated by every write (against a
server with several writing processes they can drift slightly: they only weight scores;
missing — the meta collection deleted outside kenning — they are summed from the points).
Candidates are every point matching any of the words :func:`~.base.terms_to_match` chooses
(``should`` of ``MatchText`` and ``words``), read :data:`LEXICAL_CANDIDATES` at a time and
scored in Python — the rows SQLite scores. In local mode, which checks a filter point by
point in Python, the frequencies and candidates come from the words of every point kept
in memory instead (:class:`_LocalWords`, read again after a write): the same counts, the
same points.

Atomicity and concurrency: Qdrant has no transactions. A batch is validated completely
(dimensions, duplicate ids and ``(group_id, content_hash)`` in the batch and in the store)
before one ``upsert`` request writes it, so a bad batch writes nothing; Qdrant applies one
request as one operation. :meth:`QdrantBackend.exclusive` serialises writers within this
process, and additionally across processes through a file lock in local mode. **Against a
server, two processes writing the same note at the same moment can both store it** (there
is no server-side lock); run writers through one process (the MCP server) or use PostgreSQL
when several machines write one store.

API key: ``QDRANT_API_KEY``, overridden by ``QDRANT_API_KEY`` in a secrets file
(``$KENNING_SECRETS_FILE``, else ``.env.secrets`` in the project root) so that a stale
exported value cannot win. The key is never logged or put into messages. A server that
cannot be reached, or that answers 401/403, raises :class:`~kenning.errors.StoreUnavailable`.
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import re
import ssl
import threading
import uuid
import warnings
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import numpy as np

from ..config import QDRANT_LOCAL_PREFIX
from ..errors import (
    KenningError,
    StoreCorrupted,
    StoreInUse,
    StoreNotFound,
    StoreUnavailable,
    UserInputError,
)
from ..lexical import (
    FOLDED_CASES,
    MAX_QUERY_TERMS,
    bm25,
    holds_mark_or_folded_case,
    idf,
    query_terms,
    spellings,
    terms,
    tokens,
    usual_width,
)
from ..model import Memory, Provenance, parse_timestamp
from ..protocol import MAX_SEEN_COUNT
from ..redaction import password_needs_encoding, redact_url
from ..vectors import UNIT_NORM_TOLERANCE, checked_cosine, direction_of
from .base import (
    BLANK_FIX,
    OVERSIZE_FIX,
    PROVENANCE_KEY,
    DamagedRow,
    FieldDamage,
    Filters,
    MemoryRecord,
    MetadataEntry,
    ScoredMemory,
    TermStatistics,
    batch_dimension,
    blank_reason,
    check_dimension,
    checked_fields,
    decode_provenance,
    duplicate_content,
    encode_metadata,
    encode_provenance,
    oldest_first,
    oversize_reason,
    terms_to_match,
)

log = logging.getLogger(__name__)

DEFAULT_COLLECTION = "kenning_memories"
LOCAL_PREFIX = QDRANT_LOCAL_PREFIX
#: Namespace of the point ids derived from kenning ids (uuid5).
ID_NAMESPACE = uuid.UUID("6f1c4a52-3a1e-5b7c-9d0e-6b656e6e696e")
#: Lexical search reads its MatchText candidates this many at a time.
LEXICAL_CANDIDATES = 1000
STATS_KEY = "kenning:fts_stats"
#: The store's words version in the meta collection: 1 since a combining mark stopped
#: splitting a word and notes holding ``İ``, ``Σ`` or ``ς`` carry their :data:`WORDS_FIELD`
#: (a store without it is brought there by a writer's open,
#: :meth:`QdrantBackend._upgrade_words`).
WORDS_VERSION_KEY = "kenning:words_version"
WORDS_VERSION = 1
#: Payload field of kenning's own words of a note Qdrant's tokenizer cannot make them of.
WORDS_FIELD = "words"
#: Points kenning did not write named one by one in a process's warnings; more in one line.
WARNED_POINTS = 3
SECRETS_FILENAME = ".env.secrets"
TIMEOUT_S = 30
_INDEXED_KEYWORDS = (
    "group_id",
    "collection",
    "type",
    "content_hash",
    "kenning_id",
    "metadata.error_fingerprint",
    WORDS_FIELD,
)


#: The payload fields every point kenning writes has (:meth:`QdrantBackend._memory` needs
#: them): a point without one is skipped by reads, so counts leave it out too.
_REQUIRED_FIELDS = (
    "kenning_id",
    "content",
    "collection",
    "type",
    "group_id",
    "stored_at",
    "content_hash",
)


def _has_kenning_fields(payload: dict[str, Any]) -> bool:
    """Whether a point's payload holds every one of :data:`_REQUIRED_FIELDS`, as
    :meth:`QdrantBackend._counted`'s ``is_empty`` conditions judge it (a field missing, null
    or an empty list is empty): in local mode a filter of them costs ~50 µs a point, this
    a few."""
    for key in _REQUIRED_FIELDS:
        value = payload.get(key)
        if value is None or (isinstance(value, list) and not value):
            return False
    return True


def point_id(kenning_id: str) -> str:
    return str(uuid.uuid5(ID_NAMESPACE, kenning_id))


def _holding(term: str) -> list[Any]:
    """Conditions of which a note holding ``term`` (in any of its
    :func:`~kenning.lexical.spellings`) meets one: its text has it to Qdrant's tokenizer,
    or its :data:`WORDS_FIELD` lists it."""
    from qdrant_client import models

    return [
        condition
        for word in spellings(term)
        for condition in (
            models.FieldCondition(key="content", match=models.MatchText(text=word)),
            models.FieldCondition(key=WORDS_FIELD, match=models.MatchValue(value=word)),
        )
    ]


def _meta_point_id(key: str) -> str:
    return str(uuid.uuid5(ID_NAMESPACE, "meta:" + key))


def resolve_api_key(
    project_root: Path | None = None, environ: Mapping[str, str] | None = None
) -> str | None:
    """The Qdrant API key: a secrets file's ``QDRANT_API_KEY`` wins over the environment's.

    The secrets file is ``$KENNING_SECRETS_FILE`` or ``<project root>/.env.secrets``.
    """
    from dotenv import dotenv_values

    from .. import config

    env = os.environ if environ is None else environ
    secrets = config.secrets_file(env)
    if secrets is not None:
        if not secrets.is_file():
            raise KenningError(
                f"KENNING_SECRETS_FILE is set to {secrets}, which is not a readable file; "
                "fix the path or unset it"
            )
    elif project_root is not None:
        secrets = project_root / SECRETS_FILENAME
    if secrets is not None and secrets.is_file():
        try:
            pinned = dotenv_values(secrets).get("QDRANT_API_KEY")
        except OSError as exc:
            raise KenningError(f"cannot read the secrets file {secrets}: {exc.strerror}") from None
        if pinned and pinned.strip():
            return pinned.strip()
    value = env.get("QDRANT_API_KEY", "").strip()
    return value or None


def _is_json(content: bytes) -> bool:
    try:
        json.loads(content)
    except ValueError:
        return False
    return True


def _raised_by_client(exc: BaseException) -> bool:
    """Whether qdrant-client raised ``exc`` (parsing a server's answer), not kenning's code."""
    tb = exc.__traceback__
    while tb is not None:
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith("qdrant_client"):
            return True
        tb = tb.tb_next
    return False


def _same_content(group_id: str, digests: list[str]) -> Any:
    """The filter for a project's points holding any of these content hashes."""
    from qdrant_client import models

    return models.Filter(
        must=[
            models.FieldCondition(key="group_id", match=models.MatchValue(value=group_id)),
            models.FieldCondition(key="content_hash", match=models.MatchAny(any=digests)),
        ]
    )


def _no_tls_context() -> ssl.SSLContext:
    """The TLS settings of a client of a plain ``http://`` server, which makes no TLS
    connection: without them httpx builds its default context, loading certifi's CA bundle
    (~20 ms of CPU, most of a client's making, paid by every command and hook). Checking
    certificates and host names, with no CA to trust: a TLS connection would fail, never
    go unchecked."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


#: The one schema inspector every client kenning makes is given (see :func:`_new_client`).
_inspector: Any = None
_INSPECTOR_LOCK = threading.Lock()


def _new_client(**kwargs: Any) -> Any:
    """A ``QdrantClient(**kwargs)`` given the process's one schema inspector. qdrant-client
    makes each client an inspector of its own, which deep-copies the JSON schemas of its
    models (~6 ms of CPU) to find the inference objects (texts for a server to embed)
    kenning never sends; what it learns is the same for every client, so one inspector made
    for the process serves them all: a test run makes hundreds. A qdrant-client that makes
    no such inspector is called as it is."""
    global _inspector
    from qdrant_client import qdrant_client

    client_module: Any = qdrant_client  # (its Inspector is replaced below, for a moment)
    make_inspector = getattr(client_module, "Inspector", None)
    if make_inspector is None:
        return client_module.QdrantClient(**kwargs)
    with _INSPECTOR_LOCK:  # (the module's name is swapped for the client's making only)
        if _inspector is None:
            _inspector = make_inspector()
        shared = _inspector
        client_module.Inspector = lambda: shared
        try:
            return client_module.QdrantClient(**kwargs)
        finally:
            client_module.Inspector = make_inspector


def _redact(url: str) -> str:
    """The URL for messages: no user information, no ``api_key`` parameter, and whatever
    else :func:`~kenning.redaction.redact_url` finds (the one redaction for URLs)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # no URL to take apart ("http://[::1"): what redact_url finds
        return redact_url(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = "&".join(
        f"{k}={v}" for k, v in parse_qsl(parts.query) if k.lower() not in ("api_key", "apikey")
    )
    return redact_url(urlunsplit((parts.scheme, netloc, parts.path, query, "")))


#: Past this many points written since the last damaged count, the next reads every point.
_RECOUNT_PAST = 10_000


class _LocalWords:
    """Which points hold which words, as qdrant-client's local mode matches ``_holding``'s
    conditions: a ``MatchText`` on ``content`` with its own word tokenizer (every word of
    the text matched in one of the field's values), a ``MatchValue`` on an element of
    :data:`WORDS_FIELD`. Local mode checks a filter point by point in Python, tokenising
    each note again for each ``MatchText``: a count per query word tokenised every note
    twice a word (its two :func:`~kenning.lexical.spellings`): ~2.5 s of CPU for a hybrid
    search of 1,000 notes with an error message's words, ~50 ms this way. Built from one
    read of every point and kept until the store is written (in local mode no other
    process can open it), it gives the same counts and the same candidates."""

    def __init__(self, writes: int) -> None:
        #: :attr:`QdrantBackend._writes` when it was read: stale once that moves on.
        self.writes = writes
        self.ids: list[Any] = []
        #: Point numbers (into ``ids``) by word of their content, and by their listed words.
        self.text: dict[str, list[int]] = {}
        self.listed: dict[str, list[int]] = {}
        #: The words of each value of a point whose content is a list of several texts (not
        #: kenning's: a match needs every word of the query in one of them).
        self.values: dict[int, list[set[str]]] = {}
        #: Points with kenning's fields, the ones counts are of (``_counted``).
        self.counted: set[int] = set()
        #: Each point's project id (None: not text), for :meth:`group_count`.
        self.groups: list[str | None] = []

    def add(self, point_id: Any, payload: dict[str, Any]) -> None:
        from qdrant_client.local.payload_filters import unindexed_text_tokens
        from qdrant_client.local.payload_value_extractor import value_by_key

        number = len(self.ids)
        self.ids.append(point_id)
        group = payload.get("group_id")
        self.groups.append(group if isinstance(group, str) else None)
        texts = [v for v in value_by_key(payload, "content") or () if isinstance(v, str)]
        words = [set(unindexed_text_tokens(t)) for t in texts]
        if len(words) > 1:
            self.values[number] = words
        for word in set().union(*words):
            self.text.setdefault(word, []).append(number)
        for value in set(v for v in value_by_key(payload, WORDS_FIELD) or () if isinstance(v, str)):
            self.listed.setdefault(value, []).append(number)

    def group_count(self, group_id: str) -> int:
        """What ``count(Filters(group_id=group_id))`` counts: the points of that project
        with kenning's fields (a count local mode makes by reading every point)."""
        return sum(1 for n in self.counted if self.groups[n] == group_id)

    def holding(self, term: str) -> set[int]:
        """The points meeting one of ``_holding(term)``'s conditions."""
        from qdrant_client.local.payload_filters import unindexed_text_tokens

        found: set[int] = set()
        for word in spellings(term):
            found.update(self.listed.get(word, ()))
            pieces = unindexed_text_tokens(word)  # a MatchText without words matches none
            postings = [self.text.get(piece, ()) for piece in dict.fromkeys(pieces)]
            if not pieces or not all(postings):
                continue
            matched = set(min(postings, key=len)).intersection(*postings)
            found.update(
                n
                for n in matched
                if n not in self.values or any(all(p in v for p in pieces) for v in self.values[n])
            )
        return found


#: A local-mode scroll computes its filter over every point and sorts every id, whatever its
#: limit: a read of every payload asks for them in pages this large, not a thousand at a
#: time (10 pages were 10 passes over a store of 10,000 points, ~0.5 s each).
_LOCAL_PAGE = 100_000


#: ``stored_at`` as kenning writes it (``datetime.isoformat()`` in UTC): read here by
#: :meth:`datetime.fromisoformat` (~0.3 µs), to the instant Qdrant's own parse gives
#: (~40 µs in local mode, which tries its formats one by one); any other text is read by
#: Qdrant's parse itself.
_KENNING_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{6})?\+00:00"
)


#: Below this length Qdrant's cosine leaves a vector as it is (f32::EPSILON, in the server
#: and in qdrant-client's local mode): a zero vector stays zero and scores 0.
_QDRANT_EPSILON = 1.1920929e-7


def _as_searched(values: Any) -> np.ndarray:
    """A stored vector as the collection's cosine searches it, and as a server returns it
    (it normalises on upload, :class:`~.base.ScoresDirections`): its direction. qdrant-client
    1.20's local mode normalises a point only in the memory of the process that wrote it and
    persists it as given, so a folder opened again returned another writer's vector of
    length 5 from ``retrieve`` and ``scroll`` (iterate and get_vectors) while its
    ``query_points`` scored the direction, and doctor warned of a length search never sees.
    A unit vector (within :data:`~kenning.vectors.UNIT_NORM_TOLERANCE`: kenning's own) is
    returned as read, and so is one of no direction (zero, or below Qdrant's epsilon) or not
    finite, as Qdrant keeps it."""
    vector = np.asarray(values, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        squared = float(np.dot(vector, vector))  # (~1 µs; kenning's own vectors end here)
        if abs(squared - 1.0) <= UNIT_NORM_TOLERANCE:
            return vector
        length = float(np.linalg.norm(vector.astype(np.float64)))
    if not math.isfinite(length) or length <= _QDRANT_EPSILON:
        return vector
    if abs(length - 1.0) <= UNIT_NORM_TOLERANCE:
        return vector
    direction, _ = direction_of(vector, None)
    return vector if direction is None else direction


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _order_value(value: object) -> int | None:
    """What local mode orders a ``stored_at`` text by (microseconds since the epoch; None: not
    a time, left out of the order and of time ranges), as its ``order_by`` reads it."""
    if isinstance(value, str) and _KENNING_TIME.fullmatch(value):
        return (datetime.fromisoformat(value) - _EPOCH) // _MICROSECOND
    from qdrant_client.local.order_by import to_order_value

    found = to_order_value(value)  # type: ignore[arg-type]
    return found if isinstance(found, int) else None


def _scroll_order(point: Any) -> tuple[str, int]:
    """Where a scroll puts a point id in local mode (numbers first, then UUIDs as text)."""
    return (point, 0) if isinstance(point, str) else ("", point)


def _text_kind(payload: dict[str, Any]) -> tuple[str, str, str] | None:
    """A point's project, collection and type, when all three are text; else None."""
    group, coll, typ = payload.get("group_id"), payload.get("collection"), payload.get("type")
    if isinstance(group, str) and isinstance(coll, str) and isinstance(typ, str):
        return group, coll, typ
    return None


class _LocalTally:
    """The points :meth:`QdrantBackend.count` counts (with kenning's fields), by project,
    collection and type, and every point's time for :meth:`QdrantBackend.newest`, from one
    read of their fields (local mode): a filtered count or facet there checks the filter
    point by point in Python (~0.5 s a 10,000 points each), and an ordered scroll reads
    and parses every point's time besides (~1 s; newest asked two such scrolls, session
    start two newest); stats asked ~6 counts, session start 1. Kept until the store is
    written (in local mode no other process can open it)."""

    def __init__(self, writes: int) -> None:
        #: :attr:`QdrantBackend._writes` when it was read: stale once that moves on.
        self.writes = writes
        self.counts: Counter[tuple[str, str, str]] = Counter()
        #: A point whose three fields are not all text (another tool's): its counts are
        #: left to Qdrant's own matching of lists and other values.
        self.exact = True
        #: Every point with a time (``stored_at`` text Qdrant reads as one): its order
        #: value, id, project, collection and type, the latest first once read (None: a
        #: point holds a list in one of those fields, or a time that is not text, which
        #: Qdrant's filters and order read value by value: newest asks Qdrant).
        self.times: list[tuple[int, Any, object, object, object]] | None = []
        #: The (project, collection, type) of every point, kenning's or not (None: a point
        #: whose three fields are not all text), for :meth:`all_meet`.
        self.kinds: set[tuple[str, str, str]] | None = set()

    def add_kind(self, kind: tuple[str, str, str] | None) -> None:
        """The :func:`_text_kind` of a point of any kind (a filtered search or scroll finds
        any point whose fields meet its filter, and :meth:`all_meet` speaks of every
        point)."""
        if self.kinds is None:
            return
        if kind is not None:
            self.kinds.add(kind)
        else:
            self.kinds = None

    def all_meet(self, filters: Filters) -> bool:
        """Whether every point meets ``filters`` as :meth:`QdrantBackend._filter`'s
        conditions match a text field (its value, or one of the values listed)."""
        return self.kinds is not None and all(
            (filters.group_id is None or group == filters.group_id)
            and (not filters.collections or coll in filters.collections)
            and (not filters.types or typ in filters.types)
            for group, coll, typ in self.kinds
        )

    def add(self, kind: tuple[str, str, str] | None) -> None:
        """The :func:`_text_kind` of a point with kenning's fields, counted."""
        if kind is not None:
            self.counts[kind] += 1
        else:
            self.exact = False

    def add_time(self, point_id: Any, payload: dict[str, Any]) -> None:
        """A point of any kind (newest reads points without kenning's fields too, and
        names them)."""
        if self.times is None:
            return
        group, coll, typ = payload.get("group_id"), payload.get("collection"), payload.get("type")
        at = payload.get("stored_at")
        if (
            isinstance(group, list | dict)
            or isinstance(coll, list | dict)
            or isinstance(typ, list | dict)
            or not (at is None or isinstance(at, str))
        ):
            self.times = None
            return
        value = _order_value(at)
        if value is not None:
            self.times.append((value, point_id, group, coll, typ))

    def sort(self) -> None:
        if self.times is not None:
            self.times.sort(key=lambda t: t[0], reverse=True)

    def newest(self, filters: Filters, n: int, before: int | None) -> list[Any]:
        """The ids newest's two scrolls find: the points matching ``filters`` (and before
        ``before``) at or after the ``n``-th latest one's time; all of them when fewer."""
        assert self.times is not None
        found: list[Any] = []
        boundary: int | None = None
        for value, point, group, coll, typ in self.times:
            if boundary is not None and value < boundary:
                break
            if (
                (before is not None and value >= before)
                or (filters.group_id is not None and group != filters.group_id)
                or (filters.collections and coll not in filters.collections)
                or (filters.types and typ not in filters.types)
            ):
                continue
            found.append(point)
            if len(found) == n:
                boundary = value
        return found

    def count(self, filters: Filters) -> int:
        return sum(
            n
            for (group, coll, typ), n in self.counts.items()
            if (filters.group_id is None or group == filters.group_id)
            and (not filters.collections or coll in filters.collections)
            and (not filters.types or typ in filters.types)
        )

    def by_project(self) -> dict[str, int]:
        found: Counter[str] = Counter()
        for (group, _, _), n in self.counts.items():
            found[group] += n
        return dict(found)

    def by_kind(self, group_id: str | None) -> dict[tuple[str, str], int]:
        found: Counter[tuple[str, str]] = Counter()
        for (group, coll, typ), n in self.counts.items():
            if group_id is None or group == group_id:
                found[coll, typ] += n
        return dict(found)


class QdrantBackend:
    """A store in Qdrant (server or local mode). Thread-safe within a process."""

    #: Search scores a stored vector by its direction: a cosine collection normalises
    #: vectors (a zero vector scores 0). See :func:`kenning.search.hybrid_candidates`.
    scores_directions = True

    def __init__(
        self,
        location: str,
        *,
        create: bool = True,
        dimension: int | None = None,
        api_key: str | None = None,
        project_root: Path | None = None,
        timeout: int = TIMEOUT_S,
        only_if_there: bool = False,
    ) -> None:
        self._lock = threading.RLock()
        #: ``create`` for a store that is there only: where none is, StoreNotFound, as a
        #: reader's open says it, and nothing made (:func:`~kenning.store.remember_in_project`)
        self._only_if_there = only_if_there
        self._depth = 0
        self._lock_file: Path | None = None
        self._lock_fd: Any = None
        self._dimension: int | None = None
        self._client: Any = None
        self._stored_at_indexed = False
        self._damaged: dict[str, DamagedRow] = {}
        #: Of those, the ones a read has said (a count says none: it returns no point).
        self._damaged_said: set[str] = set()
        self._default_port = ""
        self._summed_stats: tuple[int, int] | None = None
        #: Writes through this backend so far: in local mode no other process can open the
        #: store (Qdrant locks its folder), so nothing else changes it meanwhile.
        self._writes = 0
        #: The last damaged-point count (local mode), with the writes and filters it was
        #: taken at: it reads every payload (2 s at 5k points), and stats asks on each call.
        self._damaged_count: tuple[
            int, Filters, dict[tuple[object, object, object], int], frozenset[Any]
        ] = (-1, Filters(), {}, frozenset())
        #: Point ids written since that count (None: too many to read one by one).
        self._written: set[Any] | None = set()
        #: The words of every point (local mode), read for lexical search.
        self._local_words: _LocalWords | None = None
        #: The counted points by project, collection and type (local mode), read once for
        #: every count a command asks until the store is written (:meth:`_local_tally`).
        self._tally: _LocalTally | None = None
        #: :meth:`_fingerprinted`'s points by error fingerprint (local mode), and
        #: :attr:`_writes` when they were read.
        self._fingerprints: tuple[int, dict[str, list[Any]] | None] | None = None
        name = DEFAULT_COLLECTION
        # the prefix in any case, as the registry routes it here (QDRANT-LOCAL:/srv/q)
        self.local = location == ":memory:" or location.lower().startswith(LOCAL_PREFIX)
        if self.local:
            self.location = location
            if location == ":memory:":
                kwargs: dict[str, Any] = {"location": ":memory:"}
            else:
                from ..config import expand_home

                named = location[len(LOCAL_PREFIX) :].strip()
                if not named:
                    # Path("") is the current folder: Qdrant's files landed in the checkout
                    raise UserInputError(
                        f"{LOCAL_PREFIX} names no folder; write {LOCAL_PREFIX}<folder> (for "
                        f"example {LOCAL_PREFIX}.kenning/qdrant), or a file path or server URL"
                    )
                folder = expand_home(named, "the Qdrant store folder")
                if folder.exists() and not folder.is_dir():
                    # what the write's mkdir raises, raised for a read too: "remember
                    # creates it" sent the user to that refusal
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(folder))
                if not create and not (folder / "meta.json").is_file():
                    # a read creates nothing: Qdrant would write its files into any folder
                    raise StoreNotFound(
                        f"no kenning store at {location} yet; {StoreNotFound.CREATOR} creates it"
                    )
                folder.mkdir(parents=True, exist_ok=True)
                # intel_path: the folder resolved, as a store file's path is (as typed,
                # ".kenning/qdrant" said nothing of which checkout's)
                self.location = f"{LOCAL_PREFIX}{folder.resolve()}"
                self._lock_file = folder / "kenning-write.lock"
                kwargs = {"path": str(folder)}
            self._secret: str | None = None
        else:
            if password_needs_encoding(location):
                # urllib would end it there and take the rest for the host: a message
                # naming the host would show a piece of it
                raise UserInputError(
                    f"the Qdrant URL {redact_url(location)} holds a user and password, the "
                    "password with a character a URL reserves (@ / ? # %, or a space) as it "
                    "is; kenning sends no credentials from a Qdrant URL: leave them out, and "
                    "give the API key in QDRANT_API_KEY or the project's .env.secrets"
                )
            try:
                parts = urlsplit(location)
                port = parts.port  # raises for a port that is no number, or past 65535
            except ValueError as exc:
                why = f"{exc} (a port is a number from 1 to 65535)" if "ort" in str(exc) else exc
                raise UserInputError(
                    f"kenning cannot use the Qdrant URL {_redact(location)!r}: {why}; write "
                    "http(s)://HOST[:PORT], for example https://qdrant.internal:6333"
                ) from None
            if "@" in parts.netloc:
                # a proxy's basic auth: qdrant-client sends an API key, not a user and
                # password, and dropping them made every call an unexplained auth failure
                raise UserInputError(
                    f"kenning cannot use the Qdrant URL {_redact(location)!r} as written: it "
                    "holds a user (and password), which kenning does not send to Qdrant; "
                    "leave them out, and give the API key in QDRANT_API_KEY or the "
                    "project's .env.secrets"
                )
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise UserInputError(
                    f"kenning cannot use the Qdrant URL {_redact(location)!r}: it names no "
                    "host; write http(s)://HOST[:PORT], for example https://qdrant.internal:6333"
                )
            query = dict(parse_qsl(parts.query))
            name = query.get("collection", name) or name
            self.location = _redact(location)
            self._secret = api_key if api_key is not None else resolve_api_key(project_root)
            base = urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], "", "", ""))
            kwargs = {
                "url": base,
                "api_key": self._secret,
                "timeout": timeout,
                "check_compatibility": False,
            }
            if parts.path.strip("/"):
                kwargs["prefix"] = parts.path.strip("/")
            if parts.scheme == "http":
                kwargs["verify"] = _no_tls_context()
            if port is None:
                # qdrant-client takes Qdrant's port, not the scheme's: a failure names it
                host = parts.hostname
                self._default_port = f"[{host}]:6333" if ":" in host else f"{host}:6333"
            local_host = parts.hostname in ("localhost", "127.0.0.1", "::1")
            if self._secret and parts.scheme == "http" and not local_host:
                # said before the first request, which sends the key answered or not
                log.warning(
                    "kenning: the Qdrant API key goes to %s over plain http; use https",
                    parts.hostname,
                )
        self.collection = name
        self.meta_collection = f"{name}_meta"
        with self._translate("connect to"):
            try:
                with warnings.catch_warnings(record=True) as said:
                    # qdrant-client warns in two lines of its own (a hook's stderr gets one
                    # line); said once above, and not for this machine's own server
                    warnings.simplefilter("always", UserWarning)
                    warnings.filterwarnings("ignore", message="Api key is used with an insecure")
                    self._client = _new_client(**kwargs)
                for warning in said:
                    # local mode past 20,000 points: two raw lines, a kenning source path in
                    # them, on every command (hooks too); one line of kenning's instead
                    log.warning("kenning: Qdrant at %s: %s", self.location, warning.message)
            except RuntimeError as exc:
                if "already accessed" in str(exc):
                    raise StoreInUse(
                        f"knowledge base NOT consulted: the local Qdrant folder {self.location} "
                        "is open in another process (local mode serves one process at a time; "
                        "use a Qdrant server for several)"
                    ) from None
                raise
            try:
                self._open(create=create, dimension=dimension)
            except BaseException:
                # a refused open keeps no connection, nor (local mode) the folder's lock,
                # which this process's next open of the folder would take for another's
                self.close()
                raise

    # -- errors -----------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, "***")
        return text

    @contextmanager
    def _translate(self, doing: str = "query") -> Iterator[None]:
        import httpx
        from qdrant_client.common.client_exceptions import (
            QdrantException,
            ResourceExhaustedResponse,
        )
        from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

        try:
            yield
        except ResourceExhaustedResponse as exc:
            raise self._rate_limited(f"try again in {exc.retry_after_s} s") from None
        except QdrantException as exc:  # a Retry-After that is not a number of seconds
            raise self._rate_limited(f"try again later; {self._scrub(str(exc))}") from None
        except (json.JSONDecodeError, AssertionError) as exc:
            # qdrant-client parsing an answer that is not JSON, or JSON without a result
            if not _raised_by_client(exc):
                raise
            raise self._not_qdrant(getattr(exc, "doc", None) or str(exc)) from None
        except UnexpectedResponse as exc:
            if exc.status_code == 429:
                raise self._rate_limited("try again shortly") from None
            if exc.status_code == 403 and self._secret:
                # Qdrant's answer to a read-only key asked to write, as to a key it does not
                # know: setting the same key again would change nothing
                raise StoreUnavailable(
                    f"knowledge base NOT consulted: Qdrant at {self.location} refused the "
                    "request with this API key (403: a read-only key asked to write, or a key "
                    "it does not accept); set QDRANT_API_KEY to a key with write access, or "
                    "pin one in .env.secrets (or the file named by KENNING_SECRETS_FILE)"
                ) from None
            if exc.status_code in (401, 403):
                raise StoreUnavailable(
                    f"knowledge base NOT consulted: Qdrant at {self.location} refused the API "
                    f"key ({exc.status_code}); set QDRANT_API_KEY, or pin it in .env.secrets "
                    "(or the file named by KENNING_SECRETS_FILE)"
                ) from None
            if exc.status_code is not None and exc.status_code >= 500:
                raise StoreUnavailable(
                    f"knowledge base NOT consulted: Qdrant at {self.location} failed "
                    f"({exc.status_code} {exc.reason_phrase})"
                ) from None
            if exc.status_code in (404, 405) and not _is_json(exc.content):
                # Qdrant answers its errors in JSON: another server does not know its paths
                raise self._not_qdrant(
                    f"{exc.status_code} {exc.content[:80].decode('utf-8', 'replace')}"
                ) from None
            raise KenningError(
                f"Qdrant at {self.location} rejected a request: "
                f"{self._scrub(str(exc).splitlines()[0])} "
                f"{self._scrub(exc.content[:300].decode('utf-8', 'replace'))}"
            ) from None
        except (ResponseHandlingException, httpx.HTTPError, ConnectionError, TimeoutError) as exc:
            source = getattr(exc, "source", exc)
            if isinstance(source, ValueError):  # JSON, but not the shape of Qdrant's answers
                raise self._not_qdrant(str(source).splitlines()[0]) from None
            tried = (
                f" (the URL names no port, so {self._default_port}, Qdrant's port, was tried; "
                "if the server listens on another, e.g. 443 behind a proxy, name it in the URL)"
                if self._default_port
                else ""
            )
            raise StoreUnavailable(
                f"knowledge base NOT consulted: cannot {doing} Qdrant at {self.location} "
                f"({type(source).__name__}: {self._scrub(str(source)) or 'no answer'}); check "
                f"that the server is running and reachable{tried}"
            ) from None

    def _rate_limited(self, wait: str) -> StoreUnavailable:
        return StoreUnavailable(
            f"knowledge base NOT consulted: Qdrant at {self.location} is limiting the request "
            f"rate (429); {wait}"
        )

    def _own_store(self) -> str:
        """How to give kenning a collection of its own, away from one it did not make."""
        if self.local:  # local mode reads no ?collection=: the folder is the store
            return "give kenning a store of its own: qdrant-local:<another folder>"
        return (
            "give kenning a collection of its own: add ?collection=<name> to the store URL "
            "(KENNING_STORE or --store)"
        )

    def _not_qdrant(self, answer: str) -> KenningError:
        shown = " ".join(self._scrub(answer).split())[:80]
        if self.local:
            # no server: the folder's own files do not read (meta.json cut short by a crash,
            # edited by hand)
            return StoreCorrupted(
                f"the local Qdrant store {self.location} is damaged: its files do not read "
                f"({shown or 'an empty file'}); restore the folder from a backup, or move it "
                "aside and `kenning import` an export into a new one"
            )
        return StoreUnavailable(
            f"knowledge base NOT consulted: {self.location} answered, but not Qdrant "
            f"({shown or 'an empty answer'}); point the URL at the Qdrant server's REST "
            "address (https://host:6333 unless it is set up otherwise)"
        )

    # -- collections ------------------------------------------------------------------------

    def _open(self, *, create: bool, dimension: int | None) -> None:
        client = self._client
        has_meta = client.collection_exists(self.meta_collection)
        has_memories = client.collection_exists(self.collection)
        if not has_meta and not has_memories and (not create or self._only_if_there):
            raise StoreNotFound(
                f"no kenning store in {self.location} yet; {StoreNotFound.CREATOR} creates it"
            )
        if has_memories:
            # first: a collection kenning did not make is refused before anything of
            # kenning's is made beside it
            self._dimension = self._collection_dimension()
        if not has_meta and create:
            client.create_collection(self.meta_collection, vectors_config={})
        if not has_memories and create and dimension is not None:
            self._create_memories(int(dimension))
        if create:
            self._upgrade_words(has_memories)

    def _upgrade_words(self, had_memories: bool) -> None:
        """Bring a store written before :data:`WORDS_VERSION` to it: its notes holding a
        combining mark, ``İ``, ``Σ`` or ``ς`` (the only ones whose words changed) get their
        ``doc_len`` and :data:`WORDS_FIELD` again, and the total length follows. One read of
        the notes' text, once per store; a note is rewritten only when its words changed
        (Qdrant has no transactions: an upgrade stopped midway is done again by the next
        writer's open)."""
        if self.get_meta(WORDS_VERSION_KEY) == str(WORDS_VERSION):
            return
        with self.exclusive():
            if had_memories and self._dimension is not None:
                offset: Any = None
                while True:
                    with self._call() as client:
                        points, offset = client.scroll(
                            self.collection,
                            scroll_filter=self._counted(Filters()),  # kenning's points only
                            limit=LEXICAL_CANDIDATES,
                            offset=offset,
                            with_payload=["content", "doc_len", WORDS_FIELD],
                        )
                        change = 0
                        for point in points:
                            payload = point.payload or {}
                            content = payload.get("content")
                            if not isinstance(content, str):
                                continue
                            if not holds_mark_or_folded_case(content):
                                continue
                            words = self._words(content)
                            length = len(tokens(content, fold_diacritics=False))
                            old = payload.get("doc_len")
                            if old == length and payload.get(WORDS_FIELD) == words.get(WORDS_FIELD):
                                continue
                            client.set_payload(
                                self.collection,
                                payload={"doc_len": length, **words},
                                points=[point.id],
                                wait=True,
                            )
                            change += length - int(old or 0)
                    if change:
                        self._add_stats(0, change)
                    if offset is None:
                        break
            self.set_meta(WORDS_VERSION_KEY, str(WORDS_VERSION))

    def _collection_dimension(self) -> int | None:
        if not self._client.collection_exists(self.collection):
            return None
        info = self._client.get_collection(self.collection)
        # an index the collection has is not created again: that is a write, which a
        # read-only API key may not make
        self._stored_at_indexed = "stored_at" in (info.payload_schema or {})
        vectors = info.config.params.vectors
        size = getattr(vectors, "size", None)
        if size is None:
            raise StoreCorrupted(
                f"the Qdrant collection {self.collection} at {self.location} was not made by "
                f"kenning (it has no single unnamed vector); {self._own_store()}"
            )
        distance = getattr(vectors, "distance", None)
        name = str(getattr(distance, "value", distance))
        if name != "Cosine":
            raise StoreCorrupted(
                f"the Qdrant collection {self.collection} at {self.location} was not made by "
                f"kenning (its distance is {name}, kenning's scores are cosines); "
                f"{self._own_store()}"
            )
        return int(size)

    def _create_memories(self, dimension: int) -> None:
        from qdrant_client import models

        client = self._client
        if not client.collection_exists(self.collection):
            client.create_collection(
                self.collection,
                vectors_config=models.VectorParams(size=dimension, distance=models.Distance.COSINE),
            )
            if not self.local:  # local mode ignores payload indexes (and warns)
                for field in _INDEXED_KEYWORDS:
                    client.create_payload_index(
                        self.collection, field, models.PayloadSchemaType.KEYWORD, wait=True
                    )
                self._index_stored_at(client)
                client.create_payload_index(
                    self.collection,
                    "content",
                    models.TextIndexParams(
                        type=models.TextIndexType.TEXT,
                        tokenizer=models.TokenizerType.WORD,
                        lowercase=True,
                    ),
                    wait=True,
                )
        self._dimension = self._collection_dimension()

    def _index_stored_at(self, client: Any) -> None:
        """A datetime index on ``stored_at``: a server orders by a payload field only through
        one (local mode orders without). Created with the collection, or by the first
        :meth:`newest` on a collection made before it existed (the collection's payload
        schema, read when it is opened, says which)."""
        from qdrant_client import models

        if not self.local and not self._stored_at_indexed:
            client.create_payload_index(
                self.collection, "stored_at", models.PayloadSchemaType.DATETIME, wait=True
            )
        self._stored_at_indexed = True

    def _dim(self) -> int | None:
        if self._dimension is None:
            self._dimension = self._collection_dimension()
            if self._dimension is None and self._stats()[0] > 0:
                # the meta collection counts notes its memories collection no longer holds
                raise self._gone()
        return self._dimension

    def dimension(self) -> int | None:
        """The memories collection's vector size; None while there is none (nothing written
        yet): what ``kenning doctor`` compares with the store's provenance stamp."""
        with self._call():
            return self._dim()

    def _gone(self) -> StoreCorrupted:
        return StoreCorrupted(
            f"the Qdrant collection {self.collection} at {self.location} is gone (deleted "
            "outside kenning?) while kenning's meta collection beside it remains; restore it "
            f"from a Qdrant snapshot, or delete {self.meta_collection} too to start an empty "
            "store (and `kenning import` an export into it)"
        )

    # -- conversions ------------------------------------------------------------------------

    @staticmethod
    def _payload(m: Memory) -> dict[str, Any]:
        return {
            "kenning_id": m.id,
            "content": m.content,
            "collection": m.collection,
            "type": m.type,
            "group_id": m.group_id,
            "stored_at": m.stored_at.isoformat(),
            "content_hash": m.content_hash,
            "source": m.source,
            "tags": list(m.tags),
            "metadata": dict(m.metadata),
            "last_seen_at": (m.last_seen_at or m.stored_at).isoformat(),
            "seen_count": m.seen_count,
            "doc_len": len(tokens(m.content, fold_diacritics=False)),
            **QdrantBackend._words(m.content),
        }

    @staticmethod
    def _words(content: str) -> dict[str, list[str]]:
        """:data:`WORDS_FIELD` of a note holding one of :data:`~kenning.lexical.FOLDED_CASES`
        (Qdrant's tokenizer makes ``i`` and a combining dot of ``İ``, which no query word
        has, and ``ς`` of a final ``Σ`` and of ``ς``, where kenning's words have ``σ``), else
        nothing."""
        if not any(c in content for c in FOLDED_CASES):
            return {}
        return {WORDS_FIELD: terms(content, fold_diacritics=False)}

    @staticmethod
    def _memory(payload: Mapping[str, Any]) -> Memory:
        # the payload holds Memory.to_dict()'s fields, with the kenning id under kenning_id;
        # from_dict coerces (tags "deploy" became six one-letter tags, a source of 5 stayed
        # a number and ended a search in a traceback): checked first
        for key in ("kenning_id", "content", "collection", "type", "group_id", "content_hash"):
            if not isinstance(payload[key], str):
                raise FieldDamage(key, "is not text")
        if payload.get("source") is not None and not isinstance(payload["source"], str):
            raise FieldDamage("source", "is not text")
        checked_fields(
            payload.get("tags") if payload.get("tags") is not None else [],
            payload.get("metadata") if payload.get("metadata") is not None else {},
        )
        blank = blank_reason(payload["content"])
        if blank is not None:
            raise FieldDamage("content", blank, BLANK_FIX)
        metadata = payload.get("metadata")
        # (the client parsed the payload: its metadata is measured as a store keeps it)
        if over := oversize_reason(
            payload["content"], encode_metadata(metadata) if metadata else None
        ):
            raise FieldDamage(*over, OVERSIZE_FIX)
        return Memory.from_dict({**payload, "id": payload["kenning_id"]})

    def _decode(self, point: Any, *, say: bool = True) -> Memory | None:
        """The point's memory, or None (recorded, and said once unless ``say`` is False: a
        count, which returns no point, qa-team F8) for a payload kenning did not write:
        another application's point in the collection, or one edited by hand."""
        return self._decode_payload(point.id, point.payload or {}, say=say)

    def _decode_payload(
        self, point_id: Any, payload: dict[str, Any], *, say: bool = True
    ) -> Memory | None:
        """:meth:`_decode` of a point's id and payload."""
        try:
            return self._memory(payload)
        except (KeyError, TypeError, ValueError) as exc:
            key = str(payload.get("kenning_id") or point_id)
            if key not in self._damaged:
                group = payload.get("group_id")
                if isinstance(exc, FieldDamage) and exc.fix is not None:
                    # kenning's note (every other field checks) whose text another writer
                    # emptied, or made larger than kenning stores: `kenning forget` finds it
                    # by its kenning id
                    self._damaged[key] = DamagedRow(key, group, exc.column, exc.reason, exc.fix)
                else:
                    reason = (
                        f"has no {exc.args[0]!r}"
                        if isinstance(exc, KeyError)
                        else f"is invalid: {exc}"
                    )
                    if key != str(point_id):  # deleting it in Qdrant takes the point's own id
                        reason += f" (Qdrant point {point_id})"
                    # `kenning forget` finds a point by the id kenning derives, which another
                    # application's point does not have
                    fix = (
                        "they are not kenning's notes (another application's points, or edited "
                        f"by hand): delete them from the Qdrant collection {self.collection} "
                        f"at {self.location}, or {self._own_store()} (`kenning export`, then "
                        "`kenning import` there)"
                    )
                    self._damaged[key] = DamagedRow(
                        key, group if isinstance(group, str) else None, "payload", reason, fix
                    )
            if say and key not in self._damaged_said:
                self._damaged_said.add(key)
                self._say_damaged(point_id, self._damaged[key], len(self._damaged_said))
            return None

    def _say_damaged(self, point_id: Any, row: DamagedRow, said: int) -> None:
        """The warning of a read that skipped ``row`` (the ``said``-th it says)."""
        if row.column in ("content", "metadata"):  # (a payload's damage is "payload")
            log.warning(
                "kenning: skipped the damaged memory %r in %s: its %s %s; %s",
                row.id,
                self.location,
                row.column,
                row.reason,
                row.fix,
            )
        # another application's points can be many: a few named, then one line
        elif said <= WARNED_POINTS:
            log.warning(
                "kenning: skipped the Qdrant point %s in %s: its payload %s (not "
                "written by kenning?); delete it, or %s",
                point_id,
                self.location,
                row.reason,
                self._own_store(),
            )
        elif said == WARNED_POINTS + 1:
            log.warning(
                "kenning: skipped more Qdrant points kenning did not write in %s; "
                "`kenning export --group-id all` counts them and names the fix",
                self.location,
            )

    def _decoded(self, points: Sequence[Any]) -> list[Memory]:
        return [m for m in (self._decode(p) for p in points) if m is not None]

    @staticmethod
    def _filter(filters: Filters, extra: Sequence[Any] = ()) -> Any:
        from qdrant_client import models

        must: list[Any] = list(extra)
        if filters.group_id is not None:
            must.append(
                models.FieldCondition(
                    key="group_id", match=models.MatchValue(value=filters.group_id)
                )
            )
        if filters.collections:
            must.append(
                models.FieldCondition(
                    key="collection", match=models.MatchAny(any=list(filters.collections))
                )
            )
        if filters.types:
            must.append(
                models.FieldCondition(key="type", match=models.MatchAny(any=list(filters.types)))
            )
        return models.Filter(must=must) if must else None

    @classmethod
    def _counted(cls, filters: Filters, extra: Sequence[Any] = ()) -> Any:
        """:meth:`_filter` for counts: only points with kenning's fields, the ones reads
        return (another application's points are skipped there, and named)."""
        from qdrant_client import models

        base = cls._filter(filters, extra)
        return models.Filter(
            must=base.must if base is not None else None,
            must_not=[
                models.IsEmptyCondition(is_empty=models.PayloadField(key=key))
                for key in _REQUIRED_FIELDS
            ],
        )

    # -- transactions -----------------------------------------------------------------------

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        import fcntl

        with self._lock:
            self._depth += 1
            self._writes += 1  # before and after: a count taken in between is not kept
            try:
                if self._depth == 1 and self._lock_file is not None:
                    self._lock_fd = open(self._lock_file, "a+")  # noqa: SIM115
                    fcntl.flock(self._lock_fd.fileno(), fcntl.LOCK_EX)
                yield
            finally:
                if self._depth == 1 and self._lock_fd is not None:
                    fcntl.flock(self._lock_fd.fileno(), fcntl.LOCK_UN)
                    self._lock_fd.close()
                    self._lock_fd = None
                self._depth -= 1
                self._writes += 1

    @contextmanager
    def _call(self) -> Iterator[Any]:
        """The client, with errors translated (and serialised in local mode)."""
        if self._client is None:
            raise KenningError(f"the store at {self.location} is closed")
        from qdrant_client.http.exceptions import UnexpectedResponse

        with self._lock if self.local else nullcontext(), self._translate():
            try:
                yield self._client
            except (ValueError, UnexpectedResponse) as exc:
                missing = (
                    exc.status_code == 404
                    if isinstance(exc, UnexpectedResponse)
                    else "not found" in str(exc)
                )
                if (
                    missing
                    and self._dimension is not None
                    and not self._client.collection_exists(self.collection)
                ):
                    # deleted by someone else since this process opened it
                    self._dimension = None
                    raise self._gone() from None
                raise

    # -- writes -----------------------------------------------------------------------------

    def _check_vectors(self, vectors: Sequence[np.ndarray], *, create: bool) -> None:
        dim = batch_dimension(vectors)
        with self._call():
            have = self._dim()
            if have is None and create:
                self._create_memories(dim)
                have = self._dimension
        check_dimension(
            dim,
            have,
            self.location,
            # reached re-embedding to another model, or migrating or writing into a
            # collection another application made
            "A Qdrant collection keeps the vector size it was made with; "
            f"{self._own_store()} (notes move into it with `kenning export`, then "
            "`kenning import`)",
        )

    def upsert(self, records: Sequence[MemoryRecord]) -> None:
        from qdrant_client import models

        if not records:
            return
        vectors = [np.asarray(r.vector, dtype=np.float32).reshape(-1) for r in records]
        ids = [r.memory.id for r in records]
        if len(set(ids)) != len(ids):
            raise ValueError("a batch holds the same memory id twice; nothing was written")
        pairs = [(r.memory.group_id, r.memory.content_hash) for r in records]
        if len(set(pairs)) != len(pairs):
            raise duplicate_content(self.location)
        with self.exclusive():
            self._check_vectors(vectors, create=True)
            batch_ids = set(ids)
            by_group: dict[str, list[str]] = {}
            for group, digest in pairs:
                by_group.setdefault(group, []).append(digest)
            with self._call() as client:
                for group, digests in by_group.items():
                    points = self._with_content(
                        client, group, digests, len(digests) + len(batch_ids) + 1, ["kenning_id"]
                    )
                    clash = [p for p in points if p.payload.get("kenning_id") not in batch_ids]
                    if clash:
                        raise duplicate_content(self.location)
                replaced = self._doc_lens(client, ids)
                payloads = [self._payload(r.memory) for r in records]
                self._note_written([point_id(i) for i in ids])
                client.upsert(
                    self.collection,
                    points=[
                        models.PointStruct(id=point_id(r.memory.id), vector=v.tolist(), payload=p)
                        for r, v, p in zip(records, vectors, payloads, strict=True)
                    ],
                    wait=True,
                )
                self._add_stats(
                    len(records) - len(replaced),
                    sum(p["doc_len"] for p in payloads) - sum(replaced.values()),
                    written=payloads,
                )

    def _with_content(
        self, client: Any, group_id: str, digests: list[str], limit: int, payload: Any
    ) -> list[Any]:
        """Up to ``limit`` of a project's points holding any of these content hashes, with
        ``payload``. Local mode checks a filter point by point in Python, each point's hash
        against every hash of a ``MatchAny`` (an import's batch of 512 took ~0.9 s at 3,000
        notes, growing with the store: 10k notes imported in 100-190 s): there the project's
        hashes are read where the client keeps the payloads (a filter of the project there
        checked every point, ~0.5 s at 10,000 notes, twice a remember) and matched in a set,
        and only the points found are read whole."""
        if not self.local:
            points, _ = client.scroll(
                self.collection,
                scroll_filter=_same_content(group_id, digests),
                limit=limit,
                with_payload=payload,
            )
            return list(points)
        from qdrant_client import models
        from qdrant_client.local.payload_filters import check_match
        from qdrant_client.local.payload_value_extractor import value_by_key

        wanted = set(digests)
        project = models.MatchValue(value=group_id)

        def in_project(held: dict[str, Any]) -> bool:
            value = held.get("group_id")
            if isinstance(value, str):
                return value == group_id
            # (a list, or another kind: as the project filter's condition matches it)
            values = value_by_key(held, "group_id")
            return values is not None and any(check_match(project, v) for v in values)

        def holds_one(held: dict[str, Any]) -> bool:
            value = held.get("content_hash")
            if isinstance(value, list):  # (another application's: as MatchAny matches one)
                return any(isinstance(v, str) and v in wanted for v in value)
            return isinstance(value, str) and value in wanted

        found = sorted(
            (
                point
                for point, held in self._local_payloads()
                if in_project(held) and holds_one(held)
            ),
            key=_scroll_order,
        )
        if not found:
            return []
        return list(
            client.retrieve(
                self.collection, ids=found[:limit], with_payload=payload, with_vectors=False
            )
        )

    def _doc_lens(self, client: Any, ids: Sequence[str]) -> dict[str, int]:
        """``doc_len`` of the existing points among these kenning ids, by point id."""
        if self._dim() is None:
            return {}
        out: dict[str, int] = {}
        for start in range(0, len(ids), 1000):
            chunk = [point_id(i) for i in ids[start : start + 1000]]
            for p in client.retrieve(
                self.collection, ids=chunk, with_payload=["doc_len"], with_vectors=False
            ):
                out[str(p.id)] = int((p.payload or {}).get("doc_len") or 0)
        return out

    def _stats(self) -> tuple[int, int]:
        raw = self.get_meta(STATS_KEY)
        if raw is None:
            # every write keeps them: missing beside notes only when the meta collection was
            # deleted outside kenning, and lexical search would find nothing
            if self._summed_stats is None:
                self._summed_stats = self._stats_from_points()
            return self._summed_stats
        data = json.loads(raw)
        return int(data["n"]), int(data["total_len"])

    def _stats_from_points(self) -> tuple[int, int]:
        """The row count and total length summed over kenning's points."""
        n = total = 0
        offset: Any = None
        while True:
            with self._call() as client:
                if offset is None and not client.collection_exists(self.collection):
                    return 0, 0
                points, offset = client.scroll(
                    self.collection,
                    scroll_filter=self._counted(Filters()),
                    limit=1000,
                    offset=offset,
                    with_payload=["doc_len"],
                )
            n += len(points)
            total += sum(int((p.payload or {}).get("doc_len") or 0) for p in points)
            if offset is None:
                return n, total

    def _add_stats(
        self, rows: int, length: int, written: Sequence[dict[str, Any]] | None = None
    ) -> None:
        """Add ``rows`` and ``length`` to the kept stats, or, where none are kept yet, keep
        the stats of the points the store holds now; ``written``: the payloads of the
        points just written, each its own point."""
        raw = self.get_meta(STATS_KEY)
        if raw is None and written is not None and self._holds_only(len(written)):
            # a new store's first write: the points it holds are the ones just written, whose
            # sums are in hand. Summed from the points, local mode checked the counted
            # filter point by point (~50 µs each) for every page of 1,000: a first write of
            # 1,261 notes took ~0.1 CPU-s more
            counted = [payload for payload in written if _has_kenning_fields(payload)]
            n = len(counted)
            total = sum(int(payload.get("doc_len") or 0) for payload in counted)
        elif raw is None:  # summed afresh: the points just written or deleted are counted
            n, total = self._stats_from_points()
        else:
            data = json.loads(raw)
            n, total = int(data["n"]) + rows, int(data["total_len"]) + length
        self._summed_stats = None
        self.set_meta(STATS_KEY, json.dumps({"n": max(0, n), "total_len": max(0, total)}))

    def _holds_only(self, written: int) -> bool:
        """Whether the memories collection holds no points but the ``written`` ones just
        written (an unfiltered count: no point is checked, in local mode either)."""
        with self._call() as client:
            return int(client.count(self.collection, exact=True).count) == written

    def _existing(self, client: Any, ids: Sequence[str]) -> list[str]:
        """Point ids of the given kenning ids that exist."""
        if self._dim() is None:
            return []
        found: list[str] = []
        for start in range(0, len(ids), 1000):
            chunk = [point_id(i) for i in ids[start : start + 1000]]
            found.extend(
                str(p.id)
                for p in client.retrieve(
                    self.collection, ids=chunk, with_payload=False, with_vectors=False
                )
            )
        return found

    def delete(self, ids: Sequence[str]) -> int:
        from qdrant_client import models

        if not ids:
            return 0
        with self.exclusive(), self._call() as client:
            existing = self._doc_lens(client, list(dict.fromkeys(ids)))
            if existing:
                client.delete(
                    self.collection,
                    points_selector=models.PointIdsList(points=list(existing)),
                    wait=True,
                )
                self._add_stats(-len(existing), -sum(existing.values()))
            return len(existing)

    def update_vectors(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        from qdrant_client import models

        if not items:
            return
        vectors = [np.asarray(v, dtype=np.float32).reshape(-1) for _, v in items]
        with self.exclusive():
            self._check_vectors(vectors, create=False)
            with self._call() as client:
                existing = set(self._existing(client, [i for i, _ in items]))
                points = [
                    models.PointVectors(id=point_id(i), vector=v.tolist())
                    for (i, _), v in zip(items, vectors, strict=True)
                    if point_id(i) in existing
                ]
                if points:
                    client.update_vectors(self.collection, points=points, wait=True)

    def record_seen(self, sightings: Sequence[tuple[str, datetime]]) -> None:
        if not sightings:
            return
        seen: dict[str, tuple[int, datetime]] = {}
        for memory_id, when in sightings:
            times, latest = seen.get(memory_id, (0, parse_timestamp(when)))
            seen[memory_id] = (times + 1, max(latest, parse_timestamp(when)))
        with self.exclusive(), self._call() as client:
            if self._dim() is None:
                return
            points = client.retrieve(
                self.collection,
                ids=[point_id(i) for i in seen],
                with_payload=["kenning_id", "stored_at", "last_seen_at", "seen_count"],
            )
            for p in points:
                payload = p.payload or {}
                times, when = seen[str(payload["kenning_id"])]
                last = parse_timestamp(payload.get("last_seen_at") or payload["stored_at"])
                client.set_payload(
                    self.collection,
                    payload={
                        "seen_count": min(
                            int(payload.get("seen_count") or 1) + times, MAX_SEEN_COUNT
                        ),
                        "last_seen_at": max(last, when).isoformat(),
                    },
                    points=[p.id],
                    wait=True,
                )

    def update_metadata(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        if not items:
            return
        with self.exclusive(), self._call() as client:
            if self._dim() is None:
                return
            wanted = {point_id(i): dict(m) for i, m in items}
            before = {
                str(p.id): (p.payload or {}).get("metadata")
                for start in range(0, len(items), 1000)
                for p in client.retrieve(
                    self.collection,
                    ids=list(wanted)[start : start + 1000],
                    with_payload=["metadata"],
                    with_vectors=False,
                )
            }
            done: list[Any] = []
            try:
                for point, metadata in wanted.items():
                    if point in before:  # an id that does not exist is skipped
                        client.set_payload(
                            self.collection,
                            payload={"metadata": metadata},
                            points=[point],
                            wait=True,
                        )
                        done.append(point)
            except BaseException:
                # no transactions here: what was changed is put back (all or nothing)
                for point in done:
                    with suppress(Exception):
                        client.set_payload(
                            self.collection,
                            payload={"metadata": before[point]},
                            points=[point],
                            wait=True,
                        )
                raise

    def get_meta(self, key: str) -> str | None:
        from qdrant_client.http.exceptions import UnexpectedResponse

        with self._call() as client:
            try:
                points = client.retrieve(self.meta_collection, ids=[_meta_point_id(key)])
            except (ValueError, UnexpectedResponse):
                # no meta collection (a collection kenning did not make, opened for reading):
                # no meta, as in a store not written yet; it is made with the first write
                if client.collection_exists(self.meta_collection):
                    raise
                return None
        if not points:
            return None
        return str(points[0].payload["value"])

    def set_meta(self, key: str, value: str | None) -> None:
        from qdrant_client import models

        with self.exclusive(), self._call() as client:
            if not client.collection_exists(self.meta_collection):
                client.create_collection(self.meta_collection, vectors_config={})
            if value is None:
                client.delete(
                    self.meta_collection,
                    points_selector=models.PointIdsList(points=[_meta_point_id(key)]),
                    wait=True,
                )
            else:
                client.upsert(
                    self.meta_collection,
                    points=[
                        models.PointStruct(
                            id=_meta_point_id(key), vector={}, payload={"key": key, "value": value}
                        )
                    ],
                    wait=True,
                )

    def write_provenance(self, provenance: Provenance) -> None:
        self.set_meta(PROVENANCE_KEY, encode_provenance(provenance))

    # -- reads ------------------------------------------------------------------------------

    def read_provenance(self) -> Provenance | None:
        return decode_provenance(
            self.get_meta(PROVENANCE_KEY), self.location, "run `kenning reembed`"
        )

    def get(self, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        out: dict[str, Memory] = {}
        with self._call() as client:
            if self._dim() is None:
                return []
            unique = list(dict.fromkeys(ids))
            for start in range(0, len(unique), 1000):
                for p in client.retrieve(
                    self.collection,
                    ids=[point_id(i) for i in unique[start : start + 1000]],
                    with_payload=True,
                ):
                    memory = self._decode(p)
                    if memory is not None:
                        out[memory.id] = memory
        return [out[i] for i in ids if i in out]

    def find_by_hash(self, group_id: str, content_hash: str) -> Memory | None:
        from qdrant_client import models

        with self._call() as client:
            if self._dim() is None:
                return None
            points, _ = client.scroll(
                self.collection,
                scroll_filter=models.Filter(
                    must=[
                        models.FieldCondition(
                            key="group_id", match=models.MatchValue(value=group_id)
                        ),
                        models.FieldCondition(
                            key="content_hash", match=models.MatchValue(value=content_hash)
                        ),
                    ]
                ),
                limit=1,
                with_payload=True,
            )
        return self._decode(points[0]) if points else None

    def find_by_hashes(self, group_id: str, content_hashes: Sequence[str]) -> dict[str, Memory]:

        out: dict[str, Memory] = {}
        unique = list(dict.fromkeys(content_hashes))
        if not unique:
            return out
        with self._call() as client:
            if self._dim() is None:
                return out
            for start in range(0, len(unique), 1000):
                chunk = unique[start : start + 1000]
                points = self._with_content(client, group_id, chunk, len(chunk), True)
                for memory in self._decoded(points):
                    out[memory.content_hash] = memory
        return out

    def count(self, filters: Filters) -> int:
        index = self._local_words
        if (
            index is not None
            and index.writes == self._writes
            and filters.group_id is not None
            and filters == Filters(group_id=filters.group_id)
        ):
            # local mode counts by reading every point (~0.1 s a 1,000): a project's count
            # asked after a lexical search read them all (recall's note of the notes under
            # the folder's id) is the index's
            return index.group_count(filters.group_id)
        # (local mode: a filter checks every point, ~0.5 s at 10,000 notes; the one read
        # of every point, kept until the next write, ~0.07 s)
        tally = self._local_tally()
        if tally is not None:
            return tally.count(filters)
        with self._call() as client:
            if self._dim() is None:
                return 0
            return int(
                client.count(self.collection, count_filter=self._counted(filters), exact=True).count
            )

    def projects_if_absent(self, group_id: str, limit: int) -> dict[str, int]:
        from ..project import others_to_name

        tally = self._local_tally()
        if tally is not None:
            return others_to_name(group_id, self._project_counts(), limit)
        with self._call() as client:
            if self._dim() is None:
                return {}
            # one point of the project, if any: the usual case ends here
            points, _ = client.scroll(
                self.collection,
                scroll_filter=self._counted(Filters(group_id=group_id)),
                limit=1,
                with_payload=False,
                with_vectors=False,
            )
        return {} if points else others_to_name(group_id, self._project_counts(), limit)

    def case_variants_if_absent(self, group_id: str, limit: int) -> dict[str, int]:
        from ..project import case_variants

        counts = self._project_counts()  # (one facet of the group_id index)
        if counts.get(group_id):
            return {}
        found = case_variants(group_id, counts)  # (the most memories first)
        return {gid: counts[gid] for gid in found[:limit]}

    def projects_alike(self, group_id: str, limit: int) -> dict[str, int]:
        from ..project import alike_to_name

        return alike_to_name(group_id, self._project_counts(), limit)

    def _project_counts(self) -> dict[str, int]:
        """Every project id of the store and its points, the most first (one facet)."""
        tally = self._local_tally()
        if tally is not None:
            counts = list(tally.by_project().items())
            return dict(sorted(counts, key=lambda kv: (-kv[1], kv[0])))
        with self._call() as client:
            if self._dim() is None:
                return {}
            hits = client.facet(
                self.collection,
                "group_id",
                facet_filter=self._counted(Filters()),
                limit=100_000,
                exact=True,
            ).hits
        # (a project id that is not text, another writer's, names no project to point to)
        counts = [(h.value, int(h.count)) for h in hits if isinstance(h.value, str)]
        return dict(sorted(counts, key=lambda kv: (-kv[1], kv[0])))

    def count_by(self, group_id: str | None) -> dict[tuple[str, str], int]:
        tally = self._local_tally()
        if tally is not None:
            return tally.by_kind(group_id)
        out: dict[tuple[str, str], int] = {}
        with self._call() as client:
            if self._dim() is None:
                return {}
            base = Filters(group_id=group_id)
            for hit in client.facet(
                self.collection,
                "collection",
                facet_filter=self._counted(base),
                limit=10_000,
                exact=True,
            ).hits:
                coll = str(hit.value)
                for sub in client.facet(
                    self.collection,
                    "type",
                    facet_filter=self._counted(Filters(group_id, (coll,))),
                    limit=10_000,
                    exact=True,
                ).hits:
                    out[(coll, str(sub.value))] = int(sub.count)
        return out

    def count_damaged(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        # The points count() counts (with kenning's fields) whose payload a read skips: a
        # field another tool wrote as another type. Qdrant cannot filter on a value's type,
        # so their payloads are read and decoded as every read does (and named once). In
        # local mode no one else writes: the count is kept until this backend writes, and
        # then only the points damaged before (a write may have replaced them) and those
        # it wrote since are read again (hooks_remember's total costs that).
        from qdrant_client import models

        with self._lock:
            writes = self._writes
            counted, counted_filters, counts, damaged = self._damaged_count
            if self.local and (counted, counted_filters) == (writes, filters):
                return dict(counts)
            again = None
            written = self._written
            if self.local and counted >= 0 and counted_filters == filters and written is not None:
                again = sorted(damaged | written)
            self._written = set()
        found: Counter[tuple[object, object, object]] = Counter()
        now_damaged: set[Any] = set()
        # (local mode: kenning's fields are looked for here, not by a filter's conditions)
        condition = self._filter if self.local else self._counted
        scroll_filter = condition(filters)
        if again is not None:
            scroll_filter = condition(filters, [models.HasIdCondition(has_id=again)])
        if self.local and scroll_filter is None:
            # every point: read where the client keeps them (a scroll deep-copies each
            # payload; a memory decoded here is only looked at), in a scroll's order (the
            # points a warning names first are the same)
            points: Iterator[tuple[Any, dict[str, Any]]] = iter(
                sorted(self._local_payloads(), key=lambda held: _scroll_order(held[0]))
            )
        else:
            pages = self._pages(scroll_filter, _LOCAL_PAGE if self.local else 1000)
            points = (
                (point.id, point.payload or {})
                for page in (pages if again != [] else ())
                for point in page
            )
        for point, payload in points:
            if self.local and not _has_kenning_fields(payload):
                continue
            if self._decode_payload(point, payload, say=False) is None:  # (counted: not said)
                # as stored; another type than text by its repr (a list cannot be a key)
                group, coll, typ = (
                    v if isinstance(v, str) else repr(v)
                    for v in (
                        payload.get("group_id"),
                        payload.get("collection"),
                        payload.get("type"),
                    )
                )
                found[group, coll, typ] += 1
                now_damaged.add(point)
        with self._lock:
            self._damaged_count = (writes, filters, dict(found), frozenset(now_damaged))
        return dict(found)

    def _local_tally(self) -> _LocalTally | None:
        """:meth:`_local_read`, for counts: None also when a point holds a field that is
        not text."""
        tally = self._local_read()
        return tally if tally is not None and tally.exact else None

    def _searched_filter(self, filters: Filters) -> Any:
        """:meth:`_filter` of ``filters`` for a vector search, or None in local mode when
        every point of the store meets it (a store of one project, most often): local mode
        checks a filter on every point in Python, ~20 µs a point (a search of 2,000 points
        took ~45 ms with it, ~8 without), for each search. Without it the same points are
        scored and ordered, and none is left out that it kept."""
        tally = self._local_read()
        if tally is not None and tally.all_meet(filters):
            return None
        return self._filter(filters)

    def _local_read(self) -> _LocalTally | None:
        """:class:`_LocalTally` of the store as it is, read once after each write (None
        against a server, whose counts, facets and ordered scrolls use its payload
        indexes, or before the store has its collection)."""
        if not self.local:
            return None
        with self._lock:
            tally = self._tally
        if tally is None or tally.writes != self._writes:
            tally = _LocalTally(self._writes)
            # every point, unfiltered (kenning's fields are looked for here, not by a filter)
            for point, payload in self._local_payloads():
                tally.add_time(point, payload)
                kind = _text_kind(payload)
                tally.add_kind(kind)
                if _has_kenning_fields(payload):
                    tally.add(kind)
            tally.sort()
            with self._call():
                if self._dim() is None:
                    return None
            with self._lock:
                self._tally = tally
        return tally

    def _local_payloads(self) -> list[tuple[Any, dict[str, Any]]]:
        """Every point's id and payload (local mode), read where qdrant-client keeps them in
        memory, and never changed: ~15 ms at 10,000 points, where a scroll deep-copies each
        payload into a record (~0.9 s, of metadata and file records mostly). Read by a
        scroll when qdrant-client keeps them otherwise than 1.20 (the version pinned) does."""
        with self._call() as client:
            if self._dim() is None:
                return []
            held = getattr(getattr(client, "_client", None), "collections", {})
            collection = held.get(self.collection) if isinstance(held, dict) else None
            ids = getattr(collection, "ids", None)
            payloads = getattr(collection, "payload", None)
            deleted = getattr(collection, "deleted", None)
            if isinstance(ids, dict) and isinstance(payloads, list) and deleted is not None:
                # (a deleted point keeps its place until the collection is compacted)
                return [(point, payloads[n] or {}) for point, n in ids.items() if not deleted[n]]
        return [
            (point.id, point.payload or {})
            for points in self._pages(None, _LOCAL_PAGE)
            for point in points
        ]

    def _note_written(self, point_ids: Sequence[Any]) -> None:
        """Points this backend writes: the next damaged count reads them (and, past a
        bound, every point again)."""
        with self._lock:
            if self._written is not None:
                self._written.update(point_ids)
                if len(self._written) > _RECOUNT_PAST:
                    self._written = None

    def count_unreadable(self, filters: Filters) -> dict[tuple[object, object, object], int]:
        # Qdrant holds vectors of the collection's size: every damaged point is its payload
        return self.count_damaged(filters)

    def damaged_vector_ids(self, filters: Filters) -> frozenset[str]:
        # Qdrant holds vectors of the collection's size: no point's vector alone is damaged
        return frozenset()

    def _pages(
        self, scroll_filter: Any, limit: int, *, with_payload: Any = True, vectors: bool = False
    ) -> Iterator[list[Any]]:
        """Every point matching ``scroll_filter``, ``limit`` at a time (a scroll pages by
        point id: whatever order a caller needs, it reads every page); none while the store
        has no memories collection yet. In local mode, where a scroll checks its filter on
        every point and sorts every id whatever its limit, the ids are found by one scroll
        and the points fetched by id ``limit`` at a time (as many as a scroll gives); a read
        without vectors is one scroll's page, cut."""
        if self.local and limit < _LOCAL_PAGE and not vectors:
            for points in self._pages(scroll_filter, _LOCAL_PAGE, with_payload=with_payload):
                for start in range(0, len(points), limit):
                    yield points[start : start + limit]
            return
        if self.local and limit < _LOCAL_PAGE:
            found = (
                # every point: the ids where the client keeps them, in a scroll's order
                sorted((point for point, _ in self._local_payloads()), key=_scroll_order)
                if scroll_filter is None
                else [
                    point.id
                    for points in self._pages(scroll_filter, _LOCAL_PAGE, with_payload=False)
                    for point in points
                ]
            )
            for start in range(0, len(found), limit):
                with self._call() as client:
                    yield client.retrieve(
                        self.collection,
                        ids=found[start : start + limit],
                        with_payload=with_payload,
                        with_vectors=vectors,
                    )
            return
        offset: Any = None
        while True:
            with self._call() as client:
                if self._dim() is None:
                    return
                points, offset = client.scroll(
                    self.collection,
                    scroll_filter=scroll_filter,
                    limit=limit,
                    offset=offset,
                    with_payload=with_payload,
                    with_vectors=vectors,
                )
            yield points
            if offset is None:
                return

    def iterate(
        self, filters: Filters, batch_size: int = 500, *, oldest_first: bool = False
    ) -> Iterator[MemoryRecord]:
        pages = (
            self._pages_oldest_first(filters, batch_size)
            if oldest_first
            else self._pages(self._filter(filters), batch_size, vectors=True)
        )
        for points in pages:
            for p in points:
                memory = self._decode(p)
                if memory is not None:
                    yield MemoryRecord(memory=memory, vector=_as_searched(p.vector))

    def _pages_oldest_first(self, filters: Filters, batch_size: int) -> Iterator[list[Any]]:
        """The points of :meth:`iterate` in :func:`~kenning.backends.base.oldest_first`'s
        order, ``batch_size`` at a time: a scroll pages by point id and orders by one
        payload field alone (and not across pages in local mode), so every point's time and
        id are read first (no vector, two fields), sorted here, then the points fetched by
        id a batch at a time."""
        found = [
            (p.id, (p.payload or {}).get("stored_at"), (p.payload or {}).get("kenning_id"))
            for points in self._pages(
                self._filter(filters), 1000, with_payload=["kenning_id", "stored_at"]
            )
            for p in points
        ]
        order = oldest_first(found)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            with self._call() as client:
                points = client.retrieve(
                    self.collection, ids=chunk, with_payload=True, with_vectors=True
                )
            place = {str(p.id): p for p in points}
            yield [place[str(i)] for i in chunk if str(i) in place]

    def newest(self, filters: Filters, n: int, before: datetime | None = None) -> list[Memory]:
        from qdrant_client import models
        from qdrant_client.local.order_by import datetime_to_microseconds

        if n <= 0:
            return []
        earlier = (
            []
            if before is None
            else [
                models.FieldCondition(
                    key="stored_at", range=models.DatetimeRange(lt=before.astimezone(UTC))
                )
            ]
        )
        tally = self._local_read()
        if tally is not None and tally.times is not None:
            # local mode: from the times read once (each ordered scroll there read and
            # parsed every point's time, and each filter checked every point); the points
            # found are those the scrolls below find
            instant = None if before is None else datetime_to_microseconds(before.astimezone(UTC))
            with self._call() as client:
                points = client.retrieve(
                    self.collection, ids=tally.newest(filters, n, instant), with_payload=True
                )
            found = self._decoded(points)
            found.sort(key=lambda m: (m.stored_at, m.id), reverse=True)
            return found[:n]
        with self._call() as client:
            if self._dim() is None:
                return []
            self._index_stored_at(client)
            points, _ = client.scroll(
                self.collection,
                scroll_filter=self._filter(filters, earlier),
                limit=n,
                order_by=models.OrderBy(key="stored_at", direction=models.Direction.DESC),
                with_payload=True,
            )
            if len(points) == n:
                # Qdrant orders by stored_at alone: take every point at or after the n-th
                # one's time, so that equal times are broken by id as in the other backends.
                boundary = models.FieldCondition(
                    key="stored_at",
                    range=models.DatetimeRange(gte=points[-1].payload["stored_at"]),
                )
                points = []
                offset: Any = None
                while True:
                    page, offset = client.scroll(
                        self.collection,
                        scroll_filter=self._filter(filters, [boundary, *earlier]),
                        limit=max(n, 100),
                        offset=offset,
                        with_payload=True,
                    )
                    points.extend(page)
                    if offset is None:
                        break
        found = self._decoded(points)
        found.sort(key=lambda m: (m.stored_at, m.id), reverse=True)
        return found[:n]

    def ids_with_prefix(self, prefix: str, filters: Filters, limit: int) -> list[str]:
        return self.ids_with_prefixes([prefix], filters, limit)[prefix]

    def ids_with_prefixes(
        self, prefixes: Sequence[str], filters: Filters, limit: int
    ) -> dict[str, list[str]]:
        # a point id is a uuid5 of the kenning id, and a keyword index matches whole values
        # only: the kenning ids matching the filters are read once (that field alone), linear
        # in the number of points matching them
        found: dict[str, list[str]] = {p: [] for p in prefixes}
        for points in self._pages(self._filter(filters), 5000, with_payload=["kenning_id"]):
            for point in points:
                kid = (point.payload or {}).get("kenning_id")
                if isinstance(kid, str):
                    for p in found:
                        if kid.startswith(p):
                            found[p].append(kid)
        return {p: sorted(ids)[: max(limit, 0)] for p, ids in found.items()}

    def metadata_entries(self, filters: Filters, key: str | None) -> list[MetadataEntry]:
        # a payload is decoded whole, as every read decodes it (what decodes is a matter of
        # every field of it), but no vector is read: most of what a scroll of iterate sends
        found: list[MetadataEntry] = []
        for points in self._pages(self._filter(filters), 1000):
            for p in points:
                memory = self._decode(p)
                if memory is not None:
                    found.append(
                        MetadataEntry(
                            memory.id,
                            memory.group_id,
                            memory.stored_at,
                            (None if key is None else memory.metadata.get(key)),
                        )
                    )
        return found

    def stored_since(self, filters: Filters, since: datetime) -> list[datetime]:
        from qdrant_client import models

        after = models.FieldCondition(
            key="stored_at", range=models.DatetimeRange(gte=since.astimezone(UTC))
        )
        with self._call() as client:
            if self._dim() is None:
                return []
            self._index_stored_at(client)
        return [
            parse_timestamp(p.payload["stored_at"])
            for points in self._pages(
                self._filter(filters, [after]), 1000, with_payload=["stored_at"]
            )
            for p in points
        ]

    def _frequencies(
        self, client: Any, words: Sequence[str]
    ) -> tuple[dict[str, int], tuple[_LocalWords, dict[str, set[int]]] | None]:
        """Document frequency of each word, of the notes holding any of its spellings
        (SQLite's and PostgreSQL's word tables count a note holding both ``npm`` and
        ``ｎｐｍ`` twice: a difference in idf no note written one way shows): against a server
        an exact ``count`` per word; in local mode from :class:`_LocalWords`, with the points
        holding each word (by their number there), which the candidates are read from."""
        from qdrant_client import models

        index = self._words_index(client)
        if index is not None:
            holding = {word: index.holding(word) for word in words}
            frequencies = {w: len(index.counted.intersection(p)) for w, p in holding.items()}
            return frequencies, (index, holding)
        return {
            word: client.count(
                self.collection,
                count_filter=self._counted(Filters(), [models.Filter(should=_holding(word))]),
                exact=True,
            ).count
            for word in words
        }, None

    def _words_index(self, client: Any) -> _LocalWords | None:
        """:class:`_LocalWords` of the store as it is (None against a server), read again
        after a write: every write enters :meth:`exclusive`, which counts it as it starts
        and as it ends (a read in a transaction of several writes is read again after the
        next one)."""
        if not self.local:
            return None
        index = self._local_words
        if index is not None and index.writes == self._writes:
            return index
        index = _LocalWords(self._writes)
        # every point where the client keeps it (a scroll deep-copies each payload), in a
        # scroll's order; the counted ones those with kenning's fields, as count() judges
        # them (a filter of them checks every point, ~50 µs each)
        for point, payload in sorted(self._local_payloads(), key=lambda p: _scroll_order(p[0])):
            if _has_kenning_fields(payload):
                index.counted.add(len(index.ids))
            index.add(point, payload)
        self._local_words = index
        return index

    def term_statistics(self, query: str) -> TermStatistics:
        return self.lexical_search_with_statistics(query, 0, Filters())[1]

    def lexical_search(self, query: str, k: int, filters: Filters) -> list[ScoredMemory]:
        """Top-k by FTS5-compatible BM25 (see the module docstring); higher is better."""
        return self.lexical_search_with_statistics(query, k, filters)[0] if k > 0 else []

    def lexical_search_with_statistics(
        self, query: str, k: int, filters: Filters
    ) -> tuple[list[ScoredMemory], TermStatistics]:
        """:meth:`lexical_search` and :meth:`term_statistics` from one count per term."""
        # Qdrant's word tokenizer keeps diacritics
        words = query_terms(query, MAX_QUERY_TERMS, fold_diacritics=False)
        if not words:
            return [], TermStatistics(0, {})
        with self._call() as client:
            if self._dim() is None:
                return [], TermStatistics(0, {})
            n, total_len = self._stats()
            if n <= 0:
                return [], TermStatistics(n, {})
            frequencies, holding = self._frequencies(client, words)
            # the kept row count may lag behind the notes (several writers to one server),
            # never below an exact count made now; FTS5's idf takes no more rows holding a
            # word than rows
            n = max(n, *frequencies.values())
            # the terms every backend looks for and ranks by (the same hits as SQLite's)
            chosen = terms_to_match(frequencies, n)
            idfs = {w: idf(n, frequencies[w]) for w in chosen}
            candidates = self._lexical_candidates(client, chosen, filters, holding) if k > 0 else {}
        avgdl = max(total_len / n, 1e-9)
        scored: list[tuple[float, str, Memory]] = []
        for memory in candidates.values():
            found = tokens(memory.content, fold_diacritics=False)
            tf: dict[str, int] = {}
            for token in map(usual_width, found):  # ｎｐｍ is npm, as the query's terms are
                if token in idfs:
                    tf[token] = tf.get(token, 0) + 1
            if not tf:
                continue
            scored.append((bm25(tf, idfs, len(found), avgdl), memory.id, memory))
        scored.sort(key=lambda s: (-s[0], s[1]))
        hits = [ScoredMemory(memory=m, score=s) for s, _, m in scored[:k]]
        return hits, TermStatistics(n, frequencies)

    def _lexical_candidates(
        self,
        client: Any,
        words: Sequence[str],
        filters: Filters,
        holding: tuple[_LocalWords, Mapping[str, set[int]]] | None = None,
    ) -> dict[str, Memory]:
        """Every row holding any of ``words`` (as many as SQLite scores: the chosen terms'
        postings, :func:`~kenning.backends.base.terms_to_match`), read
        :data:`LEXICAL_CANDIDATES` at a time; in local mode, the points ``holding`` them
        (:meth:`_frequencies`), read by id."""
        from qdrant_client import models

        if not words:
            return {}
        if holding is not None:
            index, points_holding = holding
            numbers = sorted(set().union(*(points_holding[w] for w in words)))
            return self._local_candidates(client, [index.ids[n] for n in numbers], filters)
        condition = models.Filter(should=[c for w in words for c in _holding(w)])
        found: dict[str, Memory] = {}
        offset: Any = None
        while True:
            points, offset = client.scroll(
                self.collection,
                scroll_filter=self._filter(filters, [condition]),
                limit=LEXICAL_CANDIDATES,
                offset=offset,
                with_payload=True,
            )
            found.update((m.id, m) for m in self._decoded(points))
            if offset is None:
                return found

    def _local_candidates(
        self, client: Any, point_ids: Sequence[Any], filters: Filters
    ) -> dict[str, Memory]:
        """The points of ``point_ids`` (in a scroll's order) that meet ``filters``, as a
        local-mode scroll with a ``HasIdCondition`` of them finds them: read by id and the
        filters checked on those alone (that scroll checked every point of the store against
        the whole list of ids, for each page: ~N x M; 1,201 candidates of 1,261 notes took
        ~0.05 CPU-s more)."""
        from qdrant_client.local.payload_filters import check_filter

        if not point_ids:
            return {}
        points = client.retrieve(
            self.collection, ids=list(point_ids), with_payload=True, with_vectors=False
        )
        wanted = self._filter(filters)
        if wanted is not None:
            points = [p for p in points if check_filter(wanted, p.payload or {}, p.id, {})]
        return {m.id: m for m in self._decoded(points)}

    def find_by_fingerprint(self, fingerprint: str, filters: Filters) -> list[Memory]:
        from qdrant_client import models

        with self._call() as client:
            # (under the lock the read takes: no point is written between)
            held = self._fingerprinted()
            if held is not None:
                found = list(
                    self._local_candidates(client, held.get(fingerprint, []), filters).values()
                )
        if held is None:
            condition = models.FieldCondition(
                key="metadata.error_fingerprint", match=models.MatchValue(value=fingerprint)
            )
            # every match: the newest may be on any page
            found = [
                memory
                for points in self._pages(self._filter(filters, [condition]), LEXICAL_CANDIDATES)
                for memory in self._decoded(points)
            ]
        found.sort(key=lambda m: (m.stored_at, m.id), reverse=True)
        return found[:20]

    def _fingerprinted(self) -> dict[str, list[Any]] | None:
        """The points of each error fingerprint, in a scroll's order, as a ``MatchValue`` of
        ``metadata.error_fingerprint`` finds them (a text value, or a text listed there),
        read where the client keeps them once after each write (local mode; None against a
        server, or when a point's metadata is neither an object nor absent, which Qdrant's
        path reads otherwise): local mode checks that condition on every point in Python
        for each error a recall asks, ~13 µs a point (~27 ms a search of 2,000 notes)."""
        if not self.local:
            return None
        known = self._fingerprints
        if known is not None and known[0] == self._writes:
            return known[1]
        held: dict[str, list[Any]] = {}
        for point, payload in sorted(self._local_payloads(), key=lambda p: _scroll_order(p[0])):
            metadata = payload.get("metadata")
            if metadata is None:
                continue
            if not isinstance(metadata, dict):
                self._fingerprints = (self._writes, None)
                return None
            value = metadata.get("error_fingerprint")
            # (a value that is not text never equals a fingerprint, which is)
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str):
                    held.setdefault(text, []).append(point)
        self._fingerprints = (self._writes, held)
        return held

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        if not ids:
            return out
        with self._call() as client:
            if self._dim() is None:
                return out
            unique = list(dict.fromkeys(ids))
            for start in range(0, len(unique), 1000):
                for p in client.retrieve(
                    self.collection,
                    ids=[point_id(i) for i in unique[start : start + 1000]],
                    with_payload=["kenning_id"],
                    with_vectors=True,
                ):
                    if (p.payload or {}).get("kenning_id") is not None:
                        out[str(p.payload["kenning_id"])] = _as_searched(p.vector)
        return out

    def vector_search(self, vector: np.ndarray, k: int, filters: Filters) -> list[ScoredMemory]:
        from qdrant_client import models

        if k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self._call() as client:
            # (under the lock the search takes: no point is written between)
            searched = self._searched_filter(filters)
            dim = self._dim()
            if dim is None:
                return []
            if query.shape[0] != dim:
                # the store's provenance (checked before) names this embedder, or none: the
                # collection's size is not one kenning gave it, and a re-embedding (which
                # keeps the collection) cannot change it
                raise KenningError(
                    f"the Qdrant collection {self.collection} at {self.location} holds "
                    f"{dim}-dimensional vectors, kenning's embedder makes {query.shape[0]}: it "
                    f"was not made by kenning for this embedder; {self._own_store()} "
                    "(if it holds kenning's notes: `kenning export`, then `kenning import` "
                    "there)"
                )
            response = client.query_points(
                self.collection,
                query=query.tolist(),
                query_filter=searched,
                limit=k,
                with_payload=True,
                # local mode is exact and warns about search parameters
                search_params=None if self.local else models.SearchParams(hnsw_ef=max(128, 2 * k)),
            )
        return [
            ScoredMemory(memory=memory, score=checked_cosine(p.score))
            for p in response.points
            if p.score is not None
            and math.isfinite(p.score)
            and (memory := self._decode(p)) is not None
        ]

    def replaced(self) -> bool:
        return False

    def damaged_rows(self) -> list[DamagedRow]:
        """The points whose payload a read could not decode (see :meth:`_decode`)."""
        return list(self._damaged.values())

    def close(self) -> None:
        client, self._client = self._client, None
        self._local_words = None
        self._tally = None
        self._fingerprints = None
        if client is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                client.close()
