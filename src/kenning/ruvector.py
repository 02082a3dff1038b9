"""``kenning import --from ruvector``: bring a ruvector memory store into kenning.

What ruvector keeps, read from its npm package (0.2.34 and 0.3.2: ``bin/cli.js`` class
``Intelligence``, ``bin/mcp-server.js``) and from stores those packages made: the memory
protocol's notes live in ``.ruvector/intelligence.json`` (``~/.ruvector/`` when the project
has none), one JSON object with

* ``memories`` — a list, in two shapes: ``ruvector hooks remember`` writes ``{"id":
  "mem_<unix s>", "memory_type", "content", "embedding", "metadata", "timestamp": <unix
  s>}``; the MCP server's ``hooks_remember`` writes ``{"content", "type", "created": <ISO
  8601>, "embedding"}``. Types are free text (``general`` by default).
* ``errors`` — ``{"<error>": [{"fix", "file", "recorded": <unix ms>} | "<fix>"]}``, from
  ``hooks error-record`` and the engine: imported as ERROR-FIX entries.
* ``embeddingProvenance`` — the embedder of the vectors (``hash``, 64/256-d, or MiniLM).
* ``patterns``, ``trajectories``, ``file_sequences``, ``agents``, ``edges``, ``stats`` … —
  ruvector's routing and learning data, not notes: counted, not imported.

Every note goes through kenning's write path (:meth:`MemoryStore.remember_many`: checks,
redaction, dedup) and is embedded again by kenning's model; ruvector's vectors are never
used (a hash embedder's vectors mean nothing to MiniLM, and stored vectors are untrusted).
ruvector's timestamps, ids and types are kept (``stored_at``; ``metadata.ruvector_id``,
``ruvector_type``). Memories of type ``edit`` and ``command`` are ruvector's automatic log
of edits and shell commands (its post-edit / post-command hooks), not notes: skipped and
counted. The whole file is read and checked before anything is written; running the import
again adds nothing that is still there (dedup), but a note edited or forgotten in kenning
since comes back as ruvector holds it.

``ruvector.db`` is not the memory protocol's store: it is the default file of
``@ruvector/core``'s VectorDB (``npx ruvector create``; a redb database of vectors), which
the hooks never write. Such a file is recognised and refused with that explanation.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InvalidTypeError, UserInputError
from .model import NEAR_DUPLICATE, STORED, resolve_type, utc_now
from .redaction import redact_secrets

if TYPE_CHECKING:
    from .store import MemoryStore, NewMemory

__all__ = [
    "ACTIVITY_TYPES",
    "INTELLIGENCE_FILE",
    "RuvectorStore",
    "default_source",
    "import_ruvector",
    "read_store",
]

INTELLIGENCE_FILE = "intelligence.json"
#: The first bytes of a redb database (ruvector-core's VectorDB file, ``ruvector.db``).
REDB_MAGIC = b"redb\x1a\x0a\xa9\x0d\x0a"
#: Memory types ruvector's own hooks write on every edit and command: a log, not notes.
ACTIVITY_TYPES = frozenset({"edit", "command"})
#: ruvector's learning data, counted in the report (not notes, not imported).
OTHER_KEYS = ("patterns", "trajectories", "file_sequences", "agents", "edges")
#: Timestamps outside [2000-01-01, now + 1 day] are not believed (the import time is used).
_EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Rejection:
    entry: str  # where in the file: memories[3], errors["..."][0]
    reason: str


@dataclass
class RuvectorStore:
    """A ruvector store read and checked: the notes to import and what was left out."""

    path: Path
    items: list[NewMemory] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)  # where each item came from
    #: What was redacted from each item before the write path saw it (kind → count): an
    #: error record is redacted as ruvector holds it, and the write path finds no more.
    redacted: list[dict[str, int]] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    not_imported: dict[str, int] = field(default_factory=dict)
    embedder: str | None = None
    notes: list[str] = field(default_factory=list)


def _is_redb(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(REDB_MAGIC)) == REDB_MAGIC
    except OSError:
        return False


def _redb_refusal(path: Path) -> UserInputError:
    return UserInputError(
        f"{path} is a redb vector database (ruvector-core's VectorDB, e.g. made by `npx "
        "ruvector create`): it holds vectors, not the memory protocol's notes, and ruvector's "
        f"hooks never write it. Import the notes from .ruvector/{INTELLIGENCE_FILE} instead "
        f"(pass the .ruvector folder or that file)"
    )


def default_source(cwd: Path | None = None) -> Path:
    """Where ``import --from ruvector`` reads when given no path: ``.ruvector`` in ``cwd``,
    else at the top of its git work tree, where ruvector's hooks keep it (they run in the
    project folder; kenning runs from any folder of the checkout). ``.ruvector`` when
    neither exists (:func:`locate` then says so)."""
    from .project import find_checkout

    here = Path.cwd() if cwd is None else cwd
    if (here / ".ruvector").exists():
        return Path(".ruvector") if cwd is None else here / ".ruvector"
    checkout = find_checkout(here)
    if checkout is not None and (checkout.toplevel / ".ruvector").exists():
        return checkout.toplevel / ".ruvector"
    return Path(".ruvector")


def locate(path: Path) -> tuple[Path, list[str]]:
    """The ``intelligence.json`` to read for ``path`` (a ``.ruvector`` folder or the file
    itself), and notes about files beside it that are not imported."""
    notes: list[str] = []
    if path.is_dir():
        target = path / INTELLIGENCE_FILE
        for db in sorted(path.glob("*.db")):
            if _is_redb(db):
                notes.append(
                    f"{db.name}: a redb vector database of ruvector-core (no notes), not imported"
                )
        if not target.is_file():
            if notes:
                raise _redb_refusal(next(iter(sorted(path.glob("*.db")))))
            raise UserInputError(
                f"{path} has no {INTELLIGENCE_FILE}: ruvector keeps its memories in "
                f".ruvector/{INTELLIGENCE_FILE} (or ~/.ruvector/{INTELLIGENCE_FILE}); pass that "
                "folder or file"
            )
        return target, notes
    if not path.exists():
        raise UserInputError(
            f"{path} does not exist; pass the project's .ruvector folder or its {INTELLIGENCE_FILE}"
        )
    if _is_redb(path):
        raise _redb_refusal(path)
    return path, notes


def _timestamp(value: Any, *, milliseconds: bool = False) -> datetime | None:
    """A ruvector timestamp (unix seconds, unix ms, or ISO 8601 text) as UTC; None when it
    cannot be believed."""
    when: datetime | None = None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and math.isfinite(value):
        seconds = value / 1000 if milliseconds or value > 1e11 else value
        try:
            when = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str) and value.strip():
        try:
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
    if when is None or not _EARLIEST <= when <= utc_now() + timedelta(days=1):
        return None
    return when.astimezone(UTC)


def _kenning_type(given: str, content: str) -> str:
    try:
        resolve_type(given, content)
    except InvalidTypeError:
        return "context"  # ruvector's types are free text; the given one stays in metadata
    return given


def _embedder_of(data: Mapping[str, Any]) -> str | None:
    prov = data.get("embeddingProvenance")
    if not isinstance(prov, Mapping):
        return None
    kind, model, dim = prov.get("embedderKind"), prov.get("modelId"), prov.get("dimension")
    return ":".join(str(p) for p in (kind, model, f"{dim}-d") if p is not None)


def read_store(path: Path) -> RuvectorStore:
    """Read and check a ruvector store (see the module docstring); nothing is written.
    Raises :class:`UserInputError` when the file is not a ruvector store."""
    from .errorfix import ErrorFixEntry
    from .store import NewMemory

    target, notes = locate(path)
    try:
        raw = target.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise UserInputError(f"cannot read {target}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UserInputError(
            f"{target} is not a ruvector store: it is not valid JSON ({exc}); nothing was imported"
        ) from None
    if not isinstance(data, dict) or not ({"memories", "errors"} & data.keys()):
        raise UserInputError(
            f'{target} is not a ruvector store: expected a JSON object with "memories" (and '
            '"errors"), as ruvector\'s intelligence.json has; nothing was imported'
        )
    out = RuvectorStore(target, embedder=_embedder_of(data), notes=notes)
    memories = data.get("memories", [])
    if not isinstance(memories, list):
        raise UserInputError(f'{target}: "memories" is not a list; nothing was imported')
    embedder = out.embedder
    undated: list[str] = []  # a time given that is no date, or one still to come

    def add(item: NewMemory, origin: str, redacted: dict[str, int] | None = None) -> None:
        out.items.append(item)
        out.origins.append(origin)
        out.redacted.append(redacted or {})

    for index, entry in enumerate(memories):
        where = f"memories[{index}]"
        if not isinstance(entry, dict):
            out.rejected.append(Rejection(where, "not a JSON object"))
            continue
        content = entry.get("content")
        if not isinstance(content, str) or not content.strip():
            out.rejected.append(Rejection(where, 'no text in "content"'))
            continue
        given = entry.get("memory_type", entry.get("type"))
        given = given.strip() if isinstance(given, str) and given.strip() else "general"
        if given.lower() in ACTIVITY_TYPES:
            key = f"ruvector's {given.lower()} log (not notes)"
            out.skipped[key] = out.skipped.get(key, 0) + 1
            continue
        metadata: dict[str, Any] = {"imported_from": "ruvector", "ruvector_type": given}
        ruvector_id = entry.get("id")
        if isinstance(ruvector_id, str | int) and not isinstance(ruvector_id, bool):
            metadata["ruvector_id"] = str(ruvector_id)
        if embedder:
            metadata["ruvector_embedder"] = embedder
        extra = entry.get("metadata")
        if isinstance(extra, dict) and extra:
            metadata["ruvector_metadata"] = extra
        given_when = entry.get("timestamp", entry.get("created"))
        when = _timestamp(given_when)
        if when is None and given_when is not None:
            undated.append(where)
        add(
            NewMemory(content, _kenning_type(given, content), metadata=metadata, stored_at=when),
            where,
        )

    errors = data.get("errors", {})
    if not isinstance(errors, dict):
        out.rejected.append(Rejection("errors", "not a JSON object"))
        errors = {}
    for signature, fixes in errors.items():
        # the report names the entry by its error text, which can hold a token, as a note
        # would: redacted before it is cut (a cut could leave a token too short to match)
        shown = redact_secrets(signature)[0] if isinstance(signature, str) else signature
        where = f"errors[{json.dumps(shown, ensure_ascii=False)[:60]}]"
        if not isinstance(signature, str) or not signature.strip():
            out.rejected.append(Rejection(where, "an empty error"))
            continue
        if not isinstance(fixes, list):
            fixes = [fixes]
        for k, fix in enumerate(fixes):
            text = fix.get("fix") if isinstance(fix, dict) else fix
            if not isinstance(text, str) or not text.strip():
                out.rejected.append(Rejection(f"{where}[{k}]", "no fix text"))
                continue
            metadata = {"imported_from": "ruvector", "ruvector_type": "error-record"}
            when = None
            if isinstance(fix, dict):
                if isinstance(fix.get("file"), str) and fix["file"].strip():
                    metadata["ruvector_file"] = fix["file"]
                when = _timestamp(fix.get("recorded"), milliseconds=True)
                if when is None and fix.get("recorded") is not None:
                    undated.append(f"{where}[{k}]")
            # redacted as written: the entry is one line, and a secret only its lines give
            # away (a YAML block's password under its key) is not known once they are joined
            error_text, in_error = redact_secrets(signature)
            fix_text, in_fix = redact_secrets(text)
            entry_text = ErrorFixEntry(signature=error_text, fix=fix_text).format()
            add(
                NewMemory(entry_text, "error_fix", metadata=metadata, stored_at=when),
                f"{where}[{k}]",
                dict(Counter(in_error) + Counter(in_fix)),
            )
    if undated:
        shown = ", ".join(undated[:3]) + (
            f" and {len(undated) - 3} more" if len(undated) > 3 else ""
        )
        out.notes.append(
            f"{len(undated)} {'entry has' if len(undated) == 1 else 'entries have'} a time that "
            f"is no date kenning can read, or one in the future ({shown}): stored with the "
            "time of this import"
        )
    for key in OTHER_KEYS:
        value = data.get(key)
        if isinstance(value, list | dict) and value:
            out.not_imported[key] = len(value)
    return out


def import_ruvector(
    store: MemoryStore,
    source: Path | RuvectorStore,
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Import the ruvector store at ``source`` (a ``.ruvector`` folder or its
    ``intelligence.json``, or what :func:`read_store` read from one) into ``store``'s
    project through the write path. Returns the report: counts of ``read``, ``imported``,
    ``duplicates``, ``rejected`` (with where and why), ``skipped`` and ``not_imported``
    (ruvector's learning data)."""
    found = source if isinstance(source, RuvectorStore) else read_store(source)
    # refresh=False: importing the same store again is not remembering its notes again
    results = (
        store.remember_many(found.items, progress=progress, refresh=False) if found.items else []
    )
    rejections = [{"entry": r.entry, "reason": r.reason} for r in found.rejected]
    duplicates: list[dict[str, Any]] = []
    # as kenning import counts them: of what was stored, before the write path and in it
    redactions: Counter[str] = Counter()
    for earlier, result in zip(found.redacted, results, strict=True):
        if result.status == STORED:
            redactions.update(earlier)
            redactions.update(result.redactions)
    for origin, result in zip(found.origins, results, strict=True):
        if result.status not in (STORED, NEAR_DUPLICATE):  # rejected, dedup-check-failed
            rejections.append({"entry": origin, "reason": result.reason or result.status})
        elif result.status == NEAR_DUPLICATE:
            duplicates.append({"entry": origin, "existing_id": result.id, "score": result.score})
    return {
        "source": str(found.path.resolve()),
        "ruvector_embedder": found.embedder,
        "read": len(found.items) + len(found.rejected) + sum(found.skipped.values()),
        "imported": sum(r.status == STORED for r in results),
        "duplicates": len(duplicates),
        "rejected": len(rejections),
        "skipped": dict(found.skipped),
        "not_imported": dict(found.not_imported),
        "rejections": rejections,
        "duplicate_of": duplicates,
        "ids": [r.id for r in results if r.status == STORED],
        "redactions": dict(sorted(redactions.items())),
        "notes": list(found.notes),
    }
