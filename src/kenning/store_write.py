"""The write path of :class:`~kenning.store.MemoryStore`: a note validated, normalised and
redacted (:meth:`~StoreWrites.prepare`), deduplicated against the project's notes and the
rest of its batch, written in batches under the write lock with its provenance stamped;
the stored error fingerprints brought up to this kenning's rules; and ``forget``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, cast

import numpy as np

from . import protocol
from .backends.base import Filters, MemoryRecord, skip_unsaid
from .errors import (
    ContentError,
    CredentialOnlyContent,
    EditConflict,
    KenningError,
    UserInputError,
)
from .fingerprint_renewal import (
    FINGERPRINT_RULES_KEY,
    FingerprintRenewal,
    error_fingerprint_of,
    fingerprint_now,
)
from .model import (
    DEDUP_CHECK_FAILED,
    DEFAULT_TYPE,
    EDITED_AT,
    NEAR_DUPLICATE,
    REJECTED,
    STORED,
    Memory,
    RememberResult,
    check_memory_id,
    check_seen_count,
    content_hash,
    duplicate_reason,
    edit_version,
    new_memory_id,
    parse_timestamp,
    resolve_type,
    same_memory,
    utc_now,
)
from .project import GROUP_ID_ARGUMENT, check_group_id, group_id_redactions
from .store_base import _check_text, check_list_of, check_not_only_credentials
from .store_read import StoreReads
from .vectors import vector_problem

log = logging.getLogger("kenning")
#: Raw input longer than this is refused before normalisation and redaction (which are
#: linear but not free on megabytes of text).
RAW_CONTENT_LIMIT = 16 * protocol.MAX_CONTENT_BYTES
#: The reason a note with the same ``content_hash`` in the project is a duplicate.
IDENTICAL_CONTENT = "identical content"
#: The reason a note whose id the store already holds (an import's) is not written.
SAME_ID = "a memory with this id is already stored"


#: How to fix a note over the size limit, in no surface's words: remember's option is
#: ``--source``, the MCP tool's argument ``source``, and an edit keeps the memory's own.
_SUMMARY_INSTEAD = "store a summary instead, with the full text's file or URL as its source"


def _check_content_size(text: str) -> None:
    size = len(text.encode("utf-8"))
    if size > protocol.MAX_CONTENT_BYTES:
        raise ContentError(
            f"content is {size} bytes, over the {protocol.MAX_CONTENT_BYTES // 1024} KiB "
            f"limit; {_SUMMARY_INSTEAD}"
        )


def _check_redacted_size(given: int, text: str, redactions: Mapping[str, int]) -> None:
    """The limit held to ``text`` after its ``redactions``: a marker can be longer than the
    secret it replaces, so a note under the limit as given can be over it redacted. The
    refusal says so, with both sizes: the one it gave alone was a size the user never
    sent."""
    from .render import redaction_counts

    size = len(text.encode("utf-8"))
    if size > protocol.MAX_CONTENT_BYTES:
        raise ContentError(
            f"content is {given} bytes, but {size} with its secrets redacted "
            f"({redaction_counts(redactions)}: each becomes a [REDACTED:<kind>] marker), over "
            f"the {protocol.MAX_CONTENT_BYTES // 1024} KiB limit; {_SUMMARY_INSTEAD}"
        )


@dataclass(frozen=True)
class NewMemory:
    """Input to :meth:`MemoryStore.remember_many`."""

    content: str
    type: str = DEFAULT_TYPE
    source: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    stored_at: datetime | None = None
    id: str | None = None
    #: Kept from an export (a new note is seen once, now).
    last_seen_at: datetime | None = None
    seen_count: int = 1


#: The refusal of metadata that is no mapping (a list, a text, a number).
_NOT_A_MAPPING = (
    'metadata must be a JSON object (a dict of names to values), like {{"file": '
    '"src/db.py"}}; got a {kind}'
)


def check_metadata_argument(metadata: object) -> Mapping[str, Any]:
    """``metadata`` as a caller gave it to a write (None: none), refused with
    :class:`~kenning.errors.UserInputError` unless it is a mapping."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise UserInputError(_NOT_A_MAPPING.format(kind=type(metadata).__name__))
    return metadata


@dataclass(frozen=True)
class PreparedMemory:
    """A note as the write path will store it, and the secrets it redacted (kind → count)."""

    memory: Memory
    #: Secrets replaced, by kind, over every stored field.
    redactions: Mapping[str, int]
    #: True when redaction changed the content: a vector given for the original text (an
    #: import) no longer describes what is stored, so the content is embedded again.
    content_redacted: bool = False
    #: True when the note came with its id (an import): a memory stored under that id
    #: meanwhile is the same memory, never replaced (a new id is unique by construction).
    id_given: bool = False


def _add_counts(total: dict[str, int], more: Mapping[str, int]) -> None:
    for kind, n in more.items():
        total[kind] = total.get(kind, 0) + n


def _refusal_reason(exc: UserInputError) -> str:
    """A refused note's reason: the error's message, which may quote what was given (a
    type, a source), with credentials redacted as in every error line."""
    from .redaction import redact_secrets

    return redact_secrets(str(exc))[0]


def _refusal_redactions(exc: UserInputError) -> dict[str, int]:
    """The credentials a refused note's reason names, by kind, for its result's
    ``redactions``: a note that is nothing but credentials is refused naming them ("1
    password_assignment"), and ``remember --json`` and the MCP tool said ``"redactions": {}``
    beside it (qa75 F7). Other refusals name none."""
    return dict(exc.redactions) if isinstance(exc, CredentialOnlyContent) else {}


#: Metadata the write path derives from the content and type (and the files it names):
#: recomputed on every edit.
_DERIVED_METADATA = ("given_type", "error_fingerprint", "file_blobs")
#: When a person checked a memory's text (:meth:`MemoryStore.mark_reviewed`): metadata key.
REVIEWED_AT = "reviewed_at"


#: How many times the source, tag and metadata limits a restored note may reach: what was
#: stored within them can grow past them (a redaction marker is longer than many secrets;
#: kenning adds metadata keys of its own), and a backup must restore.
RESTORE_ALLOWANCE = 2


def _checked_tags(tags: object, limit: int = protocol.MAX_TAG_CHARS) -> tuple[str, ...]:
    """``tags`` as a tuple of texts: one text is refused, not split into its letters."""
    if isinstance(tags, (str, bytes)):
        raise UserInputError("tags must be a list of texts, not one text; pass a one-item list")
    if not isinstance(tags, Iterable):
        raise UserInputError(f"tags must be a list of texts, got {type(tags).__name__}")
    given: tuple[object, ...] = tuple(tags)
    if len(given) > protocol.MAX_TAGS:
        raise UserInputError(f"{len(given)} tags, over the limit of {protocol.MAX_TAGS}")
    for tag in given:
        if not isinstance(tag, str):
            raise UserInputError(f"a tag must be text, got {type(tag).__name__}")
        if len(tag) > limit:
            raise UserInputError(
                f"a tag is {len(tag)} characters, over the {limit} limit; tags are short labels"
            )
    return cast(tuple[str, ...], given)


#: How far in the future a given timestamp may be (another machine's clock): beyond it a
#: note would stay "new" to decay ranking until that date, so it is refused.
FUTURE_TOLERANCE = timedelta(days=1)


def _not_in_the_future(value: datetime | None, what: str, now: datetime) -> datetime | None:
    if value is None:
        return None
    when = parse_timestamp(value)
    if when > now + FUTURE_TOLERANCE:
        raise UserInputError(
            f"{what} {when.isoformat()} is in the future (it is now "
            f"{now.isoformat(timespec='seconds')}); correct it, or the clock of the machine "
            "that wrote it"
        )
    return when


class StoreWrites(StoreReads):
    """The write part of :class:`~kenning.store.MemoryStore` (use that)."""

    # -- write path -------------------------------------------------------------------------

    def prepare(
        self,
        item: NewMemory,
        group_id: str,
        *,
        restoring: bool = False,
        editing: bool = False,
        seeding: bool = False,
        stored_text: bool = False,
        id_redactions: Iterable[tuple[str, int]] = (),
    ) -> PreparedMemory:
        """The write path's checks and changes for one note, without writing it: validate
        (encoding, size, type, metadata), normalise whitespace and redact secrets. Raises
        :class:`~kenning.errors.UserInputError` saying what is wrong.

        ``restoring`` (an import of an export): the note is as kenning stored it. Its source,
        tags and metadata may have grown past their limits since they were given (a secret
        redacted into a longer marker, kenning's own metadata keys), so up to
        :data:`RESTORE_ALLOWANCE` times the limits are accepted; and its files are not
        recorded anew (the record it carries, or none, is what it was checked against).

        ``editing`` (:meth:`update`): the source, tags and metadata are the stored note's,
        which may have grown past the limits in the same ways (and by ``reviewed_at``), so
        they are held to the restore's limits; its files are recorded anew.

        ``seeding`` (:mod:`kenning.seeding`): the note's mark of the document it was seeded
        from is kept. Any other new note's is dropped: a note that claimed it (an agent's
        metadata) was taken for the document's entry, replaced or forgotten by the next
        ``seed-solutions``.

        ``stored_text`` (an import's note whose id the store holds with this very text): the
        text was normalised and redacted when it was stored, and both leave such a text as
        it is (redaction's result is a fixed point: an export imports with the same text and
        content hash), so neither is done again: they were most of a re-import's work."""
        from .redaction import redact_secrets, redact_value  # write path only
        from .safety import (
            check_name,
            checked_metadata,
            has_visible_text,
            normalise_content,
            without_nul,
        )

        raw = _check_text(item.content, "content", ContentError)
        if len(raw) > RAW_CONTENT_LIMIT:
            # far over the limit whatever normalisation removes: refuse before the costly work
            raise ContentError(
                f"content is {len(raw)} characters, far over the "
                f"{protocol.MAX_CONTENT_BYTES // 1024} KiB limit; {_SUMMARY_INSTEAD}"
            )
        text = raw if stored_text else normalise_content(raw)
        if not text or not has_visible_text(text):
            raise ContentError(
                "content is empty (or only whitespace and invisible characters); pass the "
                "note's text"
            )
        # The limit holds for the normalised text (SPEC §2), checked before redaction, the
        # costly step (~2.6 CPU-s for 1 MB of log, 0.2 for its normalisation): a text past it
        # was redacted whole only to be refused. Redaction's markers can make a text longer
        # ("pw=x" → "pw=[REDACTED:…]"), so the redacted text is held to it again.
        _check_content_size(text)
        redactions: dict[str, int] = {}
        if not stored_text:
            given = len(text.encode("utf-8"))
            text, redactions = redact_secrets(text)
            _check_redacted_size(given, text, redactions)
        check_not_only_credentials(text)
        content_redacted = bool(redactions)
        memory_type, collection = resolve_type(item.type, text)
        given_metadata = check_metadata_argument(item.metadata)
        try:
            metadata = without_nul(dict(given_metadata))
            if not restoring and not editing:
                # derived below from the type, text and files: a new note's own are not
                # taken (a fingerprint handed in would make it the exact fix of an error
                # it does not fix; a type kenning does not know would fail every edit).
                # Another project's files are not in this checkout (nor any project's outside
                # one): its record is kept.
                for key in _DERIVED_METADATA:
                    if key != "file_blobs" or self.files_are_here(group_id):
                        metadata.pop(key, None)
                # a person's review or edit is recorded by kenning, never claimed
                metadata.pop(REVIEWED_AT, None)
                metadata.pop(EDITED_AT, None)
                if not seeding:
                    from .seeding import SEEDED_FROM, SEEDED_HASH

                    metadata.pop(SEEDED_FROM, None)
                    metadata.pop(SEEDED_HASH, None)
            if not editing:
                # given by the writer (an edit carries the memory's own, as stored)
                metadata = checked_metadata(metadata)
            # what SQLite will be given: no NaN, no lone surrogates, no runaway nesting
            encoded = json.dumps(metadata, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except RecursionError:
            raise UserInputError("metadata is nested too deeply; flatten it") from None
        except UnicodeEncodeError:  # a ValueError, but the object is fine: its text is not
            raise UserInputError(
                "metadata is not valid UTF-8 (it contains a lone surrogate such as \\ud800, or "
                "undecodable bytes); re-encode it as UTF-8"
            ) from None
        except (TypeError, ValueError) as exc:
            raise UserInputError(f"metadata must be a JSON object: {exc}") from None
        allowance = RESTORE_ALLOWANCE if restoring or editing else 1
        if len(encoded) > protocol.MAX_METADATA_BYTES * allowance:
            raise UserInputError(
                f"metadata is {len(encoded)} bytes as JSON, over the "
                f"{protocol.MAX_METADATA_BYTES * allowance // 1024} KiB limit; keep a few "
                "short facts and put the rest in the content or a file --source names"
            )
        if str(item.type).strip().lower() != memory_type:
            metadata.setdefault("given_type", str(item.type))
        fingerprint = error_fingerprint_of(text)
        if fingerprint:
            metadata["error_fingerprint"] = fingerprint
        if item.source is not None and not isinstance(item.source, str):
            raise UserInputError(f"source must be text, got {type(item.source).__name__}")
        if item.source is not None and len(item.source) > protocol.MAX_SOURCE_CHARS * allowance:
            raise UserInputError(
                f"source is {len(item.source)} characters, over the "
                f"{protocol.MAX_SOURCE_CHARS * allowance} limit; pass the path or URL of the "
                "document"
            )
        given_source = without_nul(item.source)
        tags = tuple(
            dict.fromkeys(
                t
                for t in (
                    without_nul(t).strip()
                    for t in _checked_tags(item.tags, protocol.MAX_TAG_CHARS * allowance)
                )
                if t
            )
        )
        for label, value in (("source", given_source or ""), *(("tag", t) for t in tags)):
            try:
                str(value).encode("utf-8")
            except UnicodeEncodeError:
                shown = redact_secrets(str(value))[0]  # an error message holds no secret
                raise UserInputError(f"{label} {shown!r} is not valid UTF-8 text") from None
            if not editing:  # (an edit carries the memory's own, as stored)
                check_name(label, str(value))
        # Every stored field is redacted, not only the content: a --source URL with a token,
        # a tag or a metadata value pasted from a config file reach memory.db as well.
        source, found = redact_value(given_source)
        _add_counts(redactions, found)
        redacted_tags, found = redact_value(tags)
        _add_counts(redactions, found)
        tags = tuple(dict.fromkeys(redacted_tags))
        metadata, found = redact_value(metadata)
        _add_counts(redactions, found)
        _add_counts(redactions, dict(id_redactions))  # the project id's, redacted before
        now = utc_now()
        stored_at = _not_in_the_future(item.stored_at, "stored_at", now) or now
        try:
            seen_count = check_seen_count(item.seen_count)
        except ValueError as exc:
            raise UserInputError(str(exc)) from None
        last_seen_at = _not_in_the_future(item.last_seen_at, "last_seen_at", now)
        if last_seen_at is not None and item.stored_at is not None and last_seen_at < stored_at:
            # (it was set to stored_at without a word: every other impossible value is said)
            raise UserInputError(
                f"last_seen_at {last_seen_at.isoformat()} is before stored_at "
                f"{stored_at.isoformat()}; a memory is last seen when it is stored or later: "
                "correct it, or leave last_seen_at out"
            )
        if last_seen_at is not None:
            last_seen_at = max(last_seen_at, stored_at)
        # after redaction: a recorded path is stored data too. A restored note keeps the
        # record it carries, or none: recording the files as they are now would make the
        # restore the moment it was last checked against them.
        files = None if restoring else self._files_named(text, source, metadata, group_id)
        if files:
            metadata["file_blobs"] = files
        return PreparedMemory(
            Memory(
                id=check_memory_id(item.id) if item.id is not None else new_memory_id(),
                content=text,
                collection=collection,
                type=memory_type,
                group_id=group_id,
                stored_at=stored_at,
                content_hash=content_hash(text),
                source=source,
                tags=tags,
                metadata=metadata,
                last_seen_at=last_seen_at,
                seen_count=seen_count,
            ),
            redactions,
            content_redacted,
            item.id is not None,
        )

    def remember(
        self,
        content: str,
        type: str = DEFAULT_TYPE,
        *,
        source: str | None = None,
        tags: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
        group_id: str | None = None,
        stored_at: datetime | None = None,
    ) -> RememberResult:
        """Store one note unless it is already known. Never raises for bad content: the
        result says ``rejected`` with the reason."""
        # tags as given: the write path (prepare) refuses one text rather than split it
        given = cast(tuple[str, ...], tags)
        # (a falsy metadata that is no mapping, "" or 0, is refused by the write path)
        item = NewMemory(
            content, type, source, given, {} if metadata is None else metadata, stored_at
        )
        return self.remember_many([item], group_id=group_id)[0]

    def refusal(self, item: NewMemory) -> RememberResult | None:
        """The ``rejected`` answer :meth:`remember` would give ``item`` (None: the write
        path takes it), found without writing or embedding anything. A surface asks it
        before creating a store that does not exist yet, so that a refused note creates no
        store (an agent's ``test -d .kenning`` then still says there is none)."""
        try:
            self.prepare(item, self.own_group_id())
        except UserInputError as exc:
            return RememberResult(
                status=REJECTED, reason=_refusal_reason(exc), redactions=_refusal_redactions(exc)
            )
        return None

    def remember_many(
        self,
        items: Sequence[NewMemory],
        *,
        group_id: str | None = None,
        near_duplicates: bool = True,
        vectors: Sequence[np.ndarray | None] | None = None,
        progress: Callable[[int], None] | None = None,
        batch_size: int = 64,
        refresh: bool = True,
        seeding: bool = False,
    ) -> list[RememberResult]:
        """Store many notes, embedding them in batches.

        Each batch's dedup checks and inserts run in one exclusive transaction, so
        concurrent writers can neither both store a note nor half-write a batch. A note
        already known is not stored; the memory it duplicates is refreshed instead
        (``seen_count`` + 1, ``last_seen_at``) unless ``refresh`` is False (an import:
        restoring a backup is not remembering again). ``vectors`` (from an export with the
        same provenance) skips re-embedding. ``seeding``: the notes are the seeding's
        (:meth:`prepare`).
        """
        items = check_list_of(
            items,
            NewMemory,
            "remember_many",
            "pass [NewMemory('We deploy on Tuesdays', 'rule'), ...] (for one note, remember)",
        )
        if group_id is not None and not isinstance(group_id, str):
            raise UserInputError(f"a project id must be text, got {type(group_id).__name__}")
        # a note belongs to one project: "all" (every project, to a read) is refused here,
        # not taken for this project
        gid = (
            self.own_group_id() if group_id is None else check_group_id(group_id, GROUP_ID_ARGUMENT)
        )
        id_redactions = (
            self.project.id_redactions if group_id is None else group_id_redactions(group_id)
        )
        self.check_can_write()
        results: list[RememberResult | None] = [None] * len(items)
        prepared: list[tuple[int, PreparedMemory]] = []
        if any(isinstance(i.source, str) and i.source for i in items):
            # a source as a shell completes it where kenning runs (`database.py` in src/),
            # an absolute one inside the checkout: the file it names, from the top
            from .sources import source_from_folder

            top = self.project.files_root
            here = top / self.project.subfolder if self.project.subfolder else top
            items = [
                replace(i, source=source_from_folder(i.source, here, top))
                if isinstance(i.source, str) and i.source
                else i  # (one that is no text: refused by prepare)
                for i in items
            ]
        for index, item in enumerate(items):
            try:
                prepared.append(
                    (index, self.prepare(item, gid, seeding=seeding, id_redactions=id_redactions))
                )
            except UserInputError as exc:  # content, type or metadata: said in the result
                results[index] = RememberResult(
                    status=REJECTED,
                    reason=_refusal_reason(exc),
                    redactions=_refusal_redactions(exc),
                )
        self._write_prepared(
            prepared, results, near_duplicates, vectors, progress, batch_size, refresh
        )
        return [r for r in results if r is not None]

    def renew_fingerprints(self) -> int:
        """Bring the stored error fingerprints up to this kenning's rules, once per version
        of the rules (recorded in the store): an entry written by an older kenning holds the
        fingerprint of the rules of then, and the exact lookup of an error query
        (:meth:`~kenning.backends.base.Backend.find_by_fingerprint`) missed it unless it
        also came up as one of the query's dense or lexical candidates. A store a newer
        kenning brought up to its rules is left as it is. Only ``metadata.error_fingerprint``
        changes (content, ids, timestamps and vectors stay), in one transaction: a failure
        leaves the store as it was. On a disk without the room it needs it waits (said once),
        and one that fails for lack of room leaves no grown WAL
        (:class:`~kenning.fingerprint_renewal.FingerprintRenewal`). The number of entries
        changed."""
        return self._renewal.renew(self.backend)

    @cached_property
    def _renewal(self) -> FingerprintRenewal:
        """This store's renewal of the fingerprints: done (no write of this process checks
        them again), or waiting for room."""
        return FingerprintRenewal()

    def _record_rules_if_empty(self) -> None:
        """Under the write lock of a write's first batch, until the store's rules are known
        current (:meth:`renew_fingerprints` after the write): a store that holds no memory yet
        has no fingerprint of older rules to renew, and what this kenning writes into it
        carries its own rules' fingerprints, so the rules are recorded with the batch.
        Otherwise :meth:`renew_fingerprints` after the write read every row just written: an
        import into a new store scanned all it had imported (~1 s a 20,000 rows on
        PostgreSQL) and changed nothing. Recorded in the batch's transaction: a batch that
        fails records nothing."""
        from .fingerprints import RULES_VERSION

        recorded = self.backend.get_meta(FINGERPRINT_RULES_KEY)
        if recorded is None and self.backend.count(Filters()) == 0:
            self.backend.set_meta(FINGERPRINT_RULES_KEY, str(RULES_VERSION))

    def remember_prepared(
        self,
        prepared: Sequence[PreparedMemory],
        *,
        near_duplicates: bool = True,
        vectors: Sequence[np.ndarray | None] | None = None,
        progress: Callable[[int], None] | None = None,
        batch_size: int = 64,
        refresh: bool = True,
        vectors_of_stored_text: bool = False,
    ) -> list[RememberResult]:
        """:meth:`remember_many` for notes that already went through :meth:`prepare` (an
        import validates every note first and writes what it validated, once).
        ``vectors_of_stored_text``: the given vectors were made from the prepared texts, so
        a note whose content redaction changed keeps its vector too (an import embeds those
        while it checks the file); otherwise a given vector describes the text before
        redaction, and such a note is embedded again."""
        self.check_can_write()
        results: list[RememberResult | None] = [None] * len(prepared)
        self._write_prepared(
            list(enumerate(prepared)),
            results,
            near_duplicates,
            vectors,
            progress,
            batch_size,
            refresh,
            vectors_of_stored_text,
        )
        return [r for r in results if r is not None]

    def _write_prepared(
        self,
        prepared: Sequence[tuple[int, PreparedMemory]],
        results: list[RememberResult | None],
        near_duplicates: bool,
        vectors: Sequence[np.ndarray | None] | None,
        progress: Callable[[int], None] | None,
        batch_size: int,
        refresh: bool,
        vectors_of_stored_text: bool = False,
    ) -> None:
        #: memories a redacted note was merged into, stored with its secret in their text
        holding_secrets: list[Memory] = []
        if prepared:
            # before the costly embedding; checked again, and stamped, inside each batch's
            # transaction (_write_batch), where no other writer or reembed can come between
            self._check_provenance(stamp=False)
        dimension = self.embedder.provenance.dimension if prepared else None
        for start in range(0, len(prepared), batch_size):
            chunk = prepared[start : start + batch_size]
            # A given vector (an import's) is used only if it is one this store can score
            # with (kenning.vectors) and describes the stored text (made from it, or its
            # content was not changed by redaction); any other is dropped and the content
            # embedded.
            given = [
                vectors[i]
                if vectors is not None and (vectors_of_stored_text or not prep.content_redacted)
                else None
                for i, prep in chunk
            ]
            given = [
                v if v is None or vector_problem(v, dimension) is None else None for v in given
            ]
            missing = [k for k, v in enumerate(given) if v is None]
            matrix = np.zeros((len(chunk), self.embedder.provenance.dimension), dtype=np.float32)
            if missing:
                embedded = self._embed([chunk[k][1].memory.content for k in missing])
                matrix[missing] = embedded
            for k, v in enumerate(given):
                if v is not None:
                    matrix[k] = np.asarray(v, dtype=np.float32)
            outcomes = self._write_batch(
                chunk, matrix, near_duplicates, refresh, start == 0, holding_secrets
            )
            for (index, _), outcome in zip(chunk, outcomes, strict=True):
                results[index] = outcome
            if progress:
                progress(len(chunk))
        if prepared:
            # a kenning's first write to a store brings its older entries' fingerprints up
            # to its rules (once: the rules are recorded in the store)
            self._renewal.after_write(self.backend)
        self._redact_merged_into(holding_secrets)

    def _redact_merged_into(self, memories: Sequence[Memory]) -> None:
        """Redact the stored memories a redacted note was merged into whose text still
        holds its secret: an edit, done by :class:`~kenning.store_curation.StoreCuration`."""

    def _write_batch(
        self,
        chunk: Sequence[tuple[int, PreparedMemory]],
        matrix: np.ndarray,
        near_duplicates: bool,
        refresh: bool,
        first: bool,
        holding_secrets: list[Memory] | None = None,
    ) -> list[RememberResult]:
        """One batch of a write, in one transaction; ``first``: the write's first batch.
        ``holding_secrets`` gets the stored memories a redacted note was merged into."""
        outcomes: list[RememberResult] = []
        to_store: list[MemoryRecord] = []
        #: merges into memories already stored: one (id, when) per sighting
        sightings: list[tuple[str, datetime]] = []
        step = "the store could not be checked for duplicates"
        try:
            with self.backend.exclusive():
                # Under the lock: a reembed that started, or another model's first write to
                # a new store, since this batch's vectors were made refuses them here (the
                # check before embedding could not see it; the store would mix two models)
                self._check_provenance(stamp=True)
                if first and not self._renewal.current:
                    self._record_rules_if_empty()
                # An import checked its ids before this transaction; one written since (by
                # another import of the same backup) is kept, not replaced by this one.
                given = [p.memory.id for _, p in chunk if p.id_given]
                taken = {m.id: m for m in self.backend.get(given)} if given else {}
                # One lookup per project for the whole batch's exact duplicates.
                by_group: dict[str, list[str]] = {}
                for _, prep in chunk:
                    by_group.setdefault(prep.memory.group_id, []).append(prep.memory.content_hash)
                stored = {
                    (gid, h): m
                    for gid, hashes in by_group.items()
                    for h, m in self.backend.find_by_hashes(gid, hashes).items()
                }
                batch_hashes: dict[str, Memory] = {}
                for k, (_, prep) in enumerate(chunk):
                    m = prep.memory
                    if m.id in taken:
                        held = taken[m.id]
                        if not same_memory(held, m):
                            # another memory under this id (two tools' short ids): the note
                            # cannot be stored under it, and is no duplicate of that memory
                            outcomes.append(
                                RememberResult(
                                    REJECTED,
                                    None,
                                    None,
                                    f"id {m.id} is another memory's in this store (project "
                                    f"{held.group_id}, stored {held.stored_at.isoformat()}); "
                                    "give the note an id of its own",
                                    m.collection,
                                    m.type,
                                )
                            )
                            continue
                        outcomes.append(
                            RememberResult(
                                NEAR_DUPLICATE,
                                held.id,
                                None,
                                SAME_ID,
                                held.collection,
                                held.type,
                                prep.redactions,
                            )
                        )
                        continue
                    dup = self._find_duplicate(
                        m, matrix[k], batch_hashes, to_store, near_duplicates, stored
                    )
                    if dup is not None:
                        existing, score, why = dup[0], dup[1], duplicate_reason(dup[0], dup[2])
                        if (
                            holding_secrets is not None
                            and prep.redactions
                            and all(r.memory.id != existing.id for r in to_store)
                        ):
                            holding_secrets.append(existing)
                        if refresh and not self._refresh_pending(
                            to_store, existing.id, m.stored_at
                        ):
                            sightings.append((existing.id, m.stored_at))
                        # the answer describes the memory its id names, not the incoming note
                        outcomes.append(
                            RememberResult(
                                NEAR_DUPLICATE,
                                existing.id,
                                score,
                                why,
                                existing.collection,
                                existing.type,
                                prep.redactions,
                            )
                        )
                        continue
                    to_store.append(MemoryRecord(m, matrix[k]))
                    batch_hashes[m.content_hash] = m
                    outcomes.append(
                        RememberResult(
                            STORED, m.id, None, None, m.collection, m.type, prep.redactions
                        )
                    )
                # Sightings first: on a backend without transactions (Qdrant) a failure
                # after them leaves a count one too high, never a note reported unwritten.
                step = "the store refused the write"
                self.backend.record_seen(sightings)
                self.backend.upsert(to_store)
        except KenningError:
            raise
        except Exception as exc:
            reason = f"{step}: {exc}"
            return [
                RememberResult(
                    DEDUP_CHECK_FAILED, None, None, reason, p.memory.collection, p.memory.type
                )
                for _, p in chunk
            ]
        return outcomes

    @staticmethod
    def _refresh_pending(pending: list[MemoryRecord], memory_id: str, when: datetime) -> bool:
        """Count a sighting of a memory of this batch that is not written yet; False when
        ``memory_id`` is not one of them."""
        for index, record in enumerate(pending):
            m = record.memory
            if m.id == memory_id:
                last = m.last_seen_at or m.stored_at
                pending[index] = MemoryRecord(
                    replace(
                        m,
                        seen_count=min(m.seen_count + 1, protocol.MAX_SEEN_COUNT),
                        last_seen_at=max(last, when),
                    ),
                    record.vector,
                )
                return True
        return False

    def _find_duplicate(
        self,
        memory: Memory,
        vector: np.ndarray,
        batch_hashes: Mapping[str, Memory],
        pending: Sequence[MemoryRecord],
        near_duplicates: bool,
        stored: Mapping[tuple[str, str], Memory] | None = None,
        *,
        besides: str | None = None,
    ) -> tuple[Memory, float, str] | None:
        """``(existing memory, score, reason)`` when ``memory`` is already known: the same
        content in the project (score 1.0), else a near-duplicate as :func:`kenning.dedup.decide`
        judges it among the nearest stored notes and the notes of this batch. ``stored``:
        the batch's exact duplicates already looked up, by (project, hash); ``besides``: the
        id of a memory not to compare with (the one an edit changes)."""
        from .dedup import CLOSE_NEIGHBOURS, NEIGHBOURS, decide
        from .redaction import redact_secrets, redaction_markers

        if memory.content_hash in batch_hashes:
            return batch_hashes[memory.content_hash], 1.0, IDENTICAL_CONTENT
        if stored is None:
            existing = self.backend.find_by_hash(memory.group_id, memory.content_hash)
        else:
            existing = stored.get((memory.group_id, memory.content_hash))
        if existing is not None and existing.id != besides:
            return existing, 1.0, IDENTICAL_CONTENT
        if not near_duplicates:
            return None
        filters = Filters(group_id=memory.group_id)
        read = NEIGHBOURS + (besides is not None)
        hits = self.backend.vector_search(vector, read, filters)
        if len(hits) == read and hits[-1].score > protocol.DEDUP_THRESHOLD:
            # the ten all close: a restatement may rank past them (read on, below)
            hits = self.backend.vector_search(
                vector, CLOSE_NEIGHBOURS + (besides is not None), filters
            )
        neighbours = [(hit.memory, hit.score) for hit in hits if hit.memory.id != besides]
        neighbours += [(r.memory, float(np.dot(r.vector, vector))) for r in pending]
        neighbours.sort(key=lambda n: -n[1])
        fingerprint = memory.metadata.get("error_fingerprint")
        # a note redacted now is compared with the stored notes as this kenning redacts them:
        # an older one (or another writer) left a secret its rules missed in the same text,
        # and the note was stored again beside it
        redacted = bool(redaction_markers(memory.content))
        for rank, (other, score) in enumerate(neighbours[:CLOSE_NEIGHBOURS]):
            if rank >= NEIGHBOURS and not score > protocol.DEDUP_THRESHOLD:
                break  # sorted: none further is close enough to be read past the tenth
            decision = decide(
                memory.content,
                redact_secrets(other.content)[0] if redacted else other.content,
                score,
                new_fingerprint=fingerprint,
                # under the rules now, as the new note's: the one stored with it is the
                # rules' it was written under
                existing_fingerprint=fingerprint_now(other),
            )
            if decision.duplicate:
                return other, float(min(score, 1.0)), decision.reason
        return None

    def forget(
        self, memory_id: str, *, group_id: str | None = None, expected_version: str | None = None
    ) -> bool:
        """Delete one memory by id; True when it existed. Only a memory of this project is
        deleted, unless ``group_id`` names another project (``"all"``: any project).
        ``expected_version`` (:func:`kenning.model.edit_version` of the memory as a person
        was shown it) is compared under the write lock, as for :meth:`update`: a memory
        changed since raises :class:`~kenning.errors.EditConflict`, and is kept."""
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise UserInputError(
                "pass the id of the memory to forget (see `kenning search --json`)"
            )
        memory_id = _check_text(memory_id, "the memory id").strip()
        self.check_can_write()
        gid = self.resolve_group(group_id)
        with self.backend.exclusive(), skip_unsaid(self.backend, memory_id):  # (qa72 F6)
            found = self.backend.get([memory_id])
            if not found:
                # a row whose fields do not decode can still be forgotten (the fix doctor
                # names for it), within its project like any other
                damaged = [d for d in self.backend.damaged_rows() if d.id == memory_id]
                if not damaged or (gid is not None and damaged[0].group_id != gid):
                    return False
            elif gid is not None and found[0].group_id != gid:
                return False
            elif expected_version is not None and edit_version(found[0]) != expected_version:
                raise EditConflict(
                    f"memory {memory_id} changed since it was shown (by another process, an "
                    "agent or a second tab); it was not forgotten: read it again first"
                )
            return self.backend.delete([memory_id]) > 0
