"""``kenning export`` / ``kenning import``: a project's memories as JSONL, and back.

An export is a header line (``{"kenning_export": 1, "provenance": …, "exported_at": …}``)
then one memory per line with every field, its id and (unless left out) its vector as
base64 float32. An import keeps ids, timestamps and projects; it reuses the vectors when the
export's provenance is the store's, else it re-embeds; every memory must pass the write
path's checks (:meth:`~kenning.store.MemoryStore.prepare`) before anything is written.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING

import numpy as np

from .backends.base import Filters, bulk_writes
from .errors import UserInputError
from .model import NEAR_DUPLICATE, STORED, Memory, Provenance, utc_now

if TYPE_CHECKING:
    from .store import MemoryStore, PreparedMemory

#: The export format's version, written in the header line.
EXPORT_FORMAT = 1
#: Memories per write batch when the export's vectors are reused (nothing to embed, so a
#: batch is only a transaction: fewer, bigger ones).
IMPORT_BATCH = 500


def export_memories(
    store: MemoryStore, out: IO[str], *, group_id: str | None = None, vectors: bool = True
) -> int:
    """Write a JSONL export: a header line, then one memory per line (every field, its
    id, and its vector as base64 float32 unless ``vectors`` is False)."""
    provenance = store.backend.read_provenance()
    header = {
        "kenning_export": EXPORT_FORMAT,
        "provenance": provenance.to_dict() if provenance else None,
        "exported_at": utc_now().isoformat(),
    }
    out.write(json.dumps(header, ensure_ascii=False) + "\n")
    n = 0
    for record in store.backend.iterate(Filters(group_id=store.resolve_group(group_id))):
        line = record.memory.to_dict()
        if vectors and provenance is not None:
            line["embedding"] = base64.b64encode(
                np.ascontiguousarray(record.vector, dtype=np.float32).tobytes()
            ).decode("ascii")
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
        n += 1
    return n


def import_memories(
    store: MemoryStore, lines: Iterable[str], *, progress: Callable[[int], None] | None = None
) -> dict[str, int]:
    """Import a JSONL export. Ids, timestamps (``last_seen_at`` and ``seen_count`` too) and
    projects are kept; a memory whose id or content already exists is skipped (and not
    refreshed: restoring is not remembering again); vectors are reused when the export's
    provenance matches this store's, else the content is re-embedded. The whole file is
    validated before anything is written."""
    header_provenance: Provenance | None = None
    from .store import NewMemory

    items: list[NewMemory] = []
    groups: list[str] = []
    vectors: list[np.ndarray | None] = []
    line_numbers: list[int] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserInputError(
                f"line {number} is not JSON ({exc.msg}); nothing was imported"
            ) from None
        except RecursionError:
            raise UserInputError(
                f"line {number} is nested too deeply to be a kenning memory; nothing was imported"
            ) from None
        if not isinstance(data, dict):
            raise UserInputError(f"line {number} is not a JSON object; nothing was imported")
        if "kenning_export" in data:
            if data.get("provenance"):
                try:
                    header_provenance = Provenance.from_dict(data["provenance"])
                except (KeyError, ValueError, TypeError, AttributeError) as exc:
                    raise UserInputError(
                        f"line {number}: the export header's provenance is unreadable "
                        f"({exc!r}); nothing was imported"
                    ) from None
            continue
        try:
            memory = Memory.from_dict({**data, "content_hash": data.get("content_hash", "")})
        except (KeyError, ValueError, TypeError) as exc:
            raise UserInputError(
                f"line {number} is not a kenning memory (missing or bad field: {exc}); "
                "nothing was imported"
            ) from None
        items.append(
            NewMemory(
                memory.content,
                memory.type,
                memory.source,
                memory.tags,
                memory.metadata,
                memory.stored_at,
                memory.id,
                memory.last_seen_at,
                memory.seen_count,
            )
        )
        groups.append(memory.group_id)
        line_numbers.append(number)
        vector = None
        if data.get("embedding"):
            try:
                vector = np.frombuffer(
                    base64.b64decode(data["embedding"], validate=True), dtype=np.float32
                )
            except (ValueError, TypeError) as exc:
                raise UserInputError(
                    f"line {number} has an unreadable embedding ({exc}); nothing was imported"
                ) from None
        vectors.append(vector)
    reuse = header_provenance is not None and header_provenance == store.embedder.provenance
    dimension = store.embedder.provenance.dimension
    if reuse and any(v is not None and v.shape != (dimension,) for v in vectors):
        raise UserInputError(
            f"an embedding does not have the {dimension} dimensions the export's header "
            "says; nothing was imported (remove the embeddings to re-embed)"
        )
    # Every memory must pass the write path's checks before anything is written; what they
    # give is what is written.
    problems = []
    prepared: list[PreparedMemory] = []
    for number, item, gid in zip(line_numbers, items, groups, strict=True):
        try:
            prepared.append(store.prepare(item, gid))
        except UserInputError as exc:
            problems.append(f"line {number}: {exc}")
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise UserInputError(
            f"{len(problems)} memories cannot be imported — {'; '.join(problems[:3])}{more}; "
            "nothing was imported"
        )
    existing = {m.id for m in store.backend.get([i.id for i in items if i.id])}
    counts = {"read": len(items), "imported": 0, "duplicates": 0, "rejected": 0}
    by_group: dict[str, list[int]] = {}
    for index, gid in enumerate(groups):
        if items[index].id in existing:
            counts["duplicates"] += 1
            if progress:
                progress(1)
            continue
        by_group.setdefault(gid, []).append(index)
    # With the export's own vectors nothing is embedded: into PostgreSQL a large import is
    # then one transaction without HNSW maintenance (one index build at the end), in big
    # batches. Re-embedding imports are paced by the model and keep the usual path.
    new_rows = sum(len(indexes) for indexes in by_group.values()) if reuse else 0
    existing_rows = store.backend.count(Filters()) if new_rows else 0
    with bulk_writes(store.backend, new_rows, existing_rows, dimension, atomic=True):
        for indexes in by_group.values():
            outcomes = store.remember_prepared(
                [prepared[i] for i in indexes],
                near_duplicates=False,
                vectors=[vectors[i] if reuse else None for i in indexes],
                progress=progress,
                batch_size=IMPORT_BATCH if reuse else 64,
                refresh=False,  # restoring a backup is not remembering again
            )
            for outcome in outcomes:
                key = {STORED: "imported", NEAR_DUPLICATE: "duplicates"}.get(
                    outcome.status, "rejected"
                )
                counts[key] += 1
    return counts


__all__ = ["EXPORT_FORMAT", "export_memories", "import_memories"]
