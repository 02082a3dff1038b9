"""``kenning reembed``: re-embed every memory of a store with the current embedder.

Needed after changing the model: a store's vectors all come from one embedder (its stamped
provenance), and mixing two would make scores meaningless. The job runs in batches with a
progress callback and is resumable: the id of the last re-embedded memory is kept in the
store's metadata under :data:`REEMBED_STATE_KEY`, and while that key exists the store is
"half re-embedded" — :class:`~kenning.store.MemoryStore` refuses to read or write it until
``reembed`` finishes and restamps the provenance.

It is also the repair for damaged vectors (a wrong size, NaN, not unit length): every
memory whose text reads back gets a new vector. A row whose other fields do not decode is
skipped by every read, so it cannot be re-embedded: it is reported (``damaged``, with the
fix) and the job still finishes and restamps, so one bad row never leaves the store half
re-embedded.

On a server store it also builds the vector index a bulk load dropped and never built
again (a ``kenning migrate`` killed before its end; ``kenning stats`` says so).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .backends.base import BulkLoader, Filters, prepare_search
from .errors import KenningError, StoreUnavailable, StoreWriteFailed
from .model import Memory, Provenance

if TYPE_CHECKING:
    from .store import MemoryStore

#: The store metadata key that records an unfinished re-embedding.
REEMBED_STATE_KEY = "reembed_state"
#: The largest difference, in any coordinate, between a stored vector and the one the model
#: makes of the same text again for the two to count as the same (the model's own rounding
#: across batch sizes is ~1e-6).
_SAME_VECTOR = 1e-4
#: Failures after which a batch may have been written (a server that stopped answering).
_UNSURE = (StoreUnavailable, StoreWriteFailed)


def vector_changed(old: np.ndarray, new: np.ndarray) -> bool:
    """Whether the model's vector ``new`` of a text differs from the stored ``old`` by more
    than the model's own rounding (:data:`_SAME_VECTOR`)."""
    return float(np.max(np.abs(new - old))) > _SAME_VECTOR


try:  # POSIX; elsewhere a running reembed cannot be told from an interrupted one
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def _lock_path(database: Path) -> Path:
    database = Path(os.path.realpath(database))  # one lock, by whichever name it is opened
    return database.with_name(database.name + ".reembed.lock")


def reembed_running(database: Path) -> bool:
    """True while a reembed of the store file ``database`` runs, in any process of this
    machine: the metadata key alone reads the same for a run at work and for one that was
    killed, and "run it again" said of a running one starts a second beside it. The lock is
    ``flock``'s, so a killed run holds none; False where it cannot be told."""
    from .backends.vectorfile import NO_FOLLOW

    if fcntl is None:
        return False
    try:  # read-only: doctor opens nothing for writing
        fd = os.open(_lock_path(database), os.O_RDONLY | NO_FOLLOW)
    except OSError:  # no lock file: no reembed since this version has run on it
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


@contextlib.contextmanager
def _running(store: MemoryStore) -> Iterator[None]:
    """Marks a reembed of a store file as running while it runs (:func:`reembed_running`);
    a second one is refused, as it would re-embed the same rows beside it. A server store
    is marked by its backend (:class:`~kenning.backends.base.MarksAReembed`)."""
    from .backends.base import MarksAReembed
    from .backends.vectorfile import NO_FOLLOW

    if isinstance(store.backend, MarksAReembed):
        with store.backend.reembed_mark() as marked:
            if not marked:
                raise KenningError(
                    f"a `kenning reembed` of the store in {store.backend.location} is already "
                    "running; wait for it to finish (a `kenning search` of the store says "
                    "whether one still runs)"
                )
            yield
        return
    database = getattr(store.backend, "path", None)
    if fcntl is None or not isinstance(database, Path):
        yield
        return
    try:
        fd = os.open(_lock_path(database), os.O_RDWR | os.O_CREAT | NO_FOLLOW, 0o644)
    except OSError:  # a read-only folder: the reembed's first write says so
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise KenningError(
                f"a `kenning reembed` of {database} is already running; wait for it to "
                "finish (`kenning doctor` says whether one still runs)"
            ) from None
        yield
    finally:
        os.close(fd)


def reembed(
    store: MemoryStore,
    *,
    batch_size: int = 64,
    progress: Callable[[int, int], None] | None = None,
    every: bool = False,
) -> dict[str, Any]:
    """Re-embed every memory with ``store``'s embedder, in batches, resumably; then
    restamp the provenance. An interrupted run continues where it stopped: ``reembedded``
    counts what this run embedded, ``already_done`` what the interrupted one had.

    A store already stamped with this embedder (and no re-embedding under way) holds its
    vectors already: only the damaged ones are recomputed (and those of notes written in
    full-width or half-width characters, which an older kenning embedded as written, if
    they come out otherwise), and ``unchanged`` counts the others (re-embedding them all
    would give the same vectors, at the model's speed: half an hour at 100k memories).
    ``every`` re-embeds every memory all the same."""
    store.check_can_write()
    with _running(store):
        done = _reembed(store, batch_size, progress, every)
    prepare_search(store.backend)  # every vector new: the search file now, not in a hook
    done["index_built"] = _build_missing_index(store)
    return done


def _build_missing_index(store: MemoryStore) -> bool:
    """Build the vector index a bulk load dropped and never built again (a `kenning
    migrate` killed before its end): what `kenning stats` tells a server store's users to
    run. True when it was missing and is built now."""
    backend = store.backend
    if not isinstance(backend, BulkLoader) or backend.missing_index() is None:
        return False
    if not backend.may_bulk_load():
        owner = backend.table_owner()
        role = "the role" if owner is None else f"the role {owner} (or a member of it)"
        raise KenningError(
            f"the store at {backend.location} has no vector index, and only {role}, which "
            "owns its table (kenning_memories), may build it: run `kenning reembed` as that "
            "role, or ask its holder to (the vectors are re-embedded already: it builds "
            "only the index)"
        )
    return backend.restore_index()


def _reembed(
    store: MemoryStore,
    batch_size: int,
    progress: Callable[[int, int], None] | None,
    every: bool,
) -> dict[str, Any]:
    backend = store.backend
    target = store.embedder.provenance
    state_raw = backend.get_meta(REEMBED_STATE_KEY)
    same_model = state_raw is None and backend.read_provenance() == target
    if same_model and not every:
        return _repair_vectors(store, batch_size, progress)
    done_through: str | None = None
    #: How many rows the interrupted run had gone through (None: not recorded).
    done_before: int | None = None
    if state_raw is not None:
        state = json.loads(state_raw)
        if Provenance.from_dict(state["target"]) == target:
            done_through = state.get("last_id")
            done_before = state.get("done")
    total = store.count(group_id="all", readable=True)  # the rows iterate reads
    # A store already on this model (--force) is never marked half re-embedded: every
    # vector is the model's before and after, so reads and writes go on while it runs (a
    # mark refuses them: half an hour at 100k memories), and an interrupted run leaves
    # nothing to finish.
    marked = not same_model
    if state_raw is None and marked:
        backend.set_meta(
            REEMBED_STATE_KEY, json.dumps({"target": target.to_dict(), "last_id": None})
        )
    done = 0  # rows through, as the progress bar counts them
    already = 0  # of them, embedded by the run this one resumes
    batch: list[Memory] = []

    def flush() -> None:
        nonlocal done
        if not batch:
            return
        matrix = store.embedder.embed([m.content for m in batch])
        with backend.exclusive():
            pairs = [(m.id, matrix[i]) for i, m in enumerate(batch)]
            if not marked:
                # writes went on meanwhile: a note edited (or forgotten) since it was read
                # keeps the vector its new text was given
                now = {m.id: m.content_hash for m in backend.get([m.id for m in batch])}
                pairs = [
                    pair
                    for pair, m in zip(pairs, batch, strict=True)
                    if now.get(m.id) == m.content_hash
                ]
            backend.update_vectors(pairs)
            if marked:
                backend.set_meta(
                    REEMBED_STATE_KEY,
                    json.dumps(
                        {
                            "target": target.to_dict(),
                            "last_id": batch[-1].id,
                            "done": done + len(batch),
                        }
                    ),
                )
        done += len(batch)
        if progress:
            progress(done, total)
        batch.clear()

    def embed_rows(after: str | None) -> bool:
        """Re-embed every row after the one of id ``after`` (None: every row); False when
        no row has that id, or it comes later than the interrupted run had gone."""
        nonlocal done, already
        skipping = after is not None
        for record in backend.iterate(Filters(), batch_size=500):
            if skipping:
                done += 1
                already += 1
                skipping = record.memory.id != after
                if done_before is not None and done > done_before:
                    # its row was rewritten further on (marked reviewed, its files
                    # refreshed): the rows skipped up to it were never re-embedded
                    return False
                continue
            batch.append(record.memory)
            if len(batch) >= batch_size:
                flush()
        flush()
        return not skipping

    try:
        if not embed_rows(done_through):
            # The memory the interrupted run stopped at was forgotten or moved since:
            # which rows it re-embedded is unknown, and the run must not stamp the store as
            # done (rows were skipped that kept the old model's vector). Every row is
            # re-embedded.
            done = already = 0
            embed_rows(None)
    except KenningError as exc:
        if state_raw is None and done == 0 and not isinstance(exc, _UNSURE):
            # the first batch was refused whole (a server store keeps one vector size): the
            # store is as it was, and marked half re-embedded it would refuse every read
            # with a fix that fails the same way
            backend.set_meta(REEMBED_STATE_KEY, None)
        raise
    with backend.exclusive():
        backend.write_provenance(target)
        backend.set_meta(REEMBED_STATE_KEY, None)
    damaged = _damaged_fields(store)
    return {
        "reembedded": done - already,
        "already_done": already,
        "unchanged": 0,
        "provenance": target.to_dict(),
        "damaged": damaged,
    }


def _damaged_fields(store: MemoryStore) -> dict[str, str]:
    """The rows no read can use (a field that does not decode), with the fix."""
    return {
        d.id: f"its {d.describe()}, so it was not re-embedded; "
        + (
            d.fix
            or f"remove it with `kenning forget {d.id} --group-id all` (and remember its text "
            "again)"
        )
        for d in store.backend.damaged_rows()
        if not d.vector_only
    }


def _repair_vectors(
    store: MemoryStore, batch_size: int, progress: Callable[[int, int], None] | None
) -> dict[str, Any]:
    """A store already on this embedder: recompute only the vectors that are damaged (the
    wrong size, not finite, not unit length) or that the embedder now makes otherwise (a
    note with full-width or half-width characters, embedded before the model read them as
    the usual ones: :func:`kenning.widths.fold_widths`); the stamp stays as it is."""
    from .vectors import vector_problem
    from .widths import has_width_forms

    backend = store.backend
    target = store.embedder.provenance
    total = store.count(group_id="all", readable=True)  # the rows iterate reads
    repaired = unchanged = 0
    batch: list[tuple[Memory, np.ndarray | None]] = []

    def flush() -> None:
        nonlocal repaired, unchanged
        if not batch:
            return
        matrix = store.embedder.embed([m.content for m, _ in batch])
        changed = [
            (m.id, matrix[i])
            for i, (m, old) in enumerate(batch)
            # a sound vector the model makes again (to float rounding) stays as it is
            if old is None or vector_changed(old, matrix[i])
        ]
        if changed:
            with backend.exclusive():
                backend.update_vectors(changed)
        repaired += len(changed)
        unchanged += len(batch) - len(changed)
        batch.clear()

    for seen, record in enumerate(backend.iterate(Filters(), batch_size=500), 1):
        if vector_problem(record.vector, target.dimension) is not None:
            batch.append((record.memory, None))
        elif has_width_forms(record.memory.content):
            batch.append((record.memory, np.asarray(record.vector, dtype=np.float32)))
        else:
            unchanged += 1
        if len(batch) >= batch_size:
            flush()
        if progress and (seen % 500 == 0 or seen == total):
            progress(seen, total)
    flush()
    return {
        "reembedded": repaired,
        "already_done": 0,
        "unchanged": unchanged,
        "provenance": target.to_dict(),
        "damaged": _damaged_fields(store),
    }


__all__ = ["REEMBED_STATE_KEY", "reembed"]
