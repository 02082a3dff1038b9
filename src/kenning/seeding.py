"""``seed-solutions``: turn a folder of solution documents into ERROR-FIX memories.

The parsing rules are pure (:func:`kenning.solution_docs.parse_solution_doc`); this module does
the file-system side — which files may be read (no symlinks out of the project, no binary
or oversized files), the per-file report, and the batched, idempotent write through
:meth:`MemoryStore.remember_many`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UserInputError
from .model import NEAR_DUPLICATE, STORED
from .solution_docs import discover_solution_docs, parse_solution_doc

if TYPE_CHECKING:
    from .store import MemoryStore

#: Solution docs are prose; anything bigger is not one (or is hostile).
MAX_DOC_BYTES = 1024 * 1024


@dataclass(frozen=True)
class FileReport:
    path: str
    status: str  # "seeded", "duplicate", "skipped", "failed"
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

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "scanned": self.scanned,
            "seeded": self.seeded,
            "duplicates": self.duplicates,
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
        }


def _read_doc(path: Path, directory: Path, project_root: Path) -> tuple[str | None, str | None]:
    """The document's text, or why it cannot be used (a failure, reported per file).

    A symlink below the solutions folder (the doc or a category folder) must stay inside the
    project or the solutions folder; how the solutions folder itself is reached is the
    caller's choice.
    """
    try:
        resolved = path.resolve(strict=True)
    except OSError as exc:
        return None, f"cannot resolve the path: {exc.strerror or exc}"
    below = [p for p in (path, *path.parents) if p != directory and p.is_relative_to(directory)]
    linked = any(p.is_symlink() for p in below)
    inside = resolved.is_relative_to(project_root) or resolved.is_relative_to(directory.resolve())
    if linked and not inside:
        return None, f"symlink leaves the project (points to {resolved})"
    try:
        size = resolved.stat().st_size
        if size > MAX_DOC_BYTES:
            return (
                None,
                f"file is {size} bytes, over the {MAX_DOC_BYTES // 1024} KiB limit "
                "for a solution doc",
            )
        data = resolved.read_bytes()
    except OSError as exc:
        return None, f"cannot read the file: {exc.strerror or exc}"
    if b"\x00" in data:
        return None, "binary file (contains NUL bytes)"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start})"


def seed_solutions(
    store: MemoryStore,
    directory: Path,
    *,
    source_prefix: str | None = None,
    progress: Callable[[int], None] | None = None,
    total: Callable[[int], None] | None = None,
) -> SeedReport:
    """Seed ERROR-FIX entries from ``directory/*/*.md`` (SPEC §6). Idempotent: a second run
    finds every entry already stored and writes nothing."""
    store.check_location()
    root = store.project.root
    directory = Path(directory)
    if not directory.exists():
        raise UserInputError(
            f"solutions folder {directory} does not exist; pass the folder that holds "
            "<category>/<doc>.md files (default: docs/solutions)"
        )
    if not directory.is_dir():
        raise UserInputError(f"{directory} is not a folder; pass the solutions folder")
    resolved_dir = directory.resolve()
    if source_prefix is None:
        source_prefix = (
            resolved_dir.relative_to(root).as_posix()
            if resolved_dir.is_relative_to(root)
            else directory.name
        )
    docs = discover_solution_docs(directory)
    if total:
        total(len(docs))
    reports: dict[Path, FileReport] = {}
    pending: list[tuple[Path, Any]] = []
    for path in docs:
        text, problem = _read_doc(path, directory, root)
        rel = os.path.relpath(path, directory)
        if problem is not None or text is None:
            reports[path] = FileReport(rel, "failed", problem)
            continue
        outcome = parse_solution_doc(path, text, directory, source_prefix=source_prefix)
        if outcome.skipped:
            failed = (outcome.skipped_reason or "").startswith("malformed")
            reports[path] = FileReport(
                rel, "failed" if failed else "skipped", outcome.skipped_reason
            )
            continue
        for entry in outcome.entries:
            pending.append((path, entry))
    from .store import NewMemory

    items = [NewMemory(entry.format(), "error_fix", source=entry.source) for _, entry in pending]
    results = store.remember_many(items) if items else []
    by_file: dict[Path, list[Any]] = {}
    for (path, _), result in zip(pending, results, strict=True):
        by_file.setdefault(path, []).append(result)
    seeded = duplicates = 0
    for path, outcomes in by_file.items():
        rel = os.path.relpath(path, directory)
        stored = [r for r in outcomes if r.status == STORED]
        dups = [r for r in outcomes if r.status == NEAR_DUPLICATE]
        bad = [r for r in outcomes if r.status not in (STORED, NEAR_DUPLICATE)]
        seeded += len(stored)
        duplicates += len(dups)
        if bad:
            reports[path] = FileReport(
                rel, "failed", "; ".join(r.reason or r.status for r in bad), len(outcomes)
            )
        else:
            reports[path] = FileReport(
                rel,
                "seeded" if stored else "duplicate",
                None if stored else "every entry is already stored",
                len(outcomes),
                tuple(r.id for r in outcomes if r.id),
            )
    if progress:
        progress(len(docs))
    files = tuple(reports[p] for p in docs)
    return SeedReport(
        directory=str(directory),
        scanned=len(docs),
        seeded=seeded,
        duplicates=duplicates,
        skipped=sum(f.status == "skipped" for f in files),
        failed=sum(f.status == "failed" for f in files),
        files=files,
    )
