"""The ``kenning`` command line: a thin click layer over :class:`~kenning.store.MemoryStore`.

Exit codes: 0 success · 1 user error (bad input, refused write, broken store) · 2 usage
error (unknown option, missing argument) · 3 knowledge base NOT consulted (server backend
down or refusing credentials).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from . import protocol
from .errors import KenningError, StoreNotFound
from .model import COLLECTIONS, NEAR_DUPLICATE, RUVECTOR_TYPE_MAP, STORED, TYPE_TO_COLLECTION

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_USER, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3
ALL_TYPES = sorted(set(TYPE_TO_COLLECTION) | set(RUVECTOR_TYPE_MAP))


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False))


def _fail(message: str, code: int = EXIT_USER) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def handle_errors(func: F) -> F:
    """Turn kenning's exceptions into a one-line message and the documented exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except KenningError as exc:
            _fail(str(exc), exc.exit_code)
        except KeyboardInterrupt:
            _fail("interrupted", 130)

    return wrapper  # type: ignore[return-value]


def _store_options(func: F) -> F:
    func = click.option(
        "--store",
        "store_path",
        type=click.Path(path_type=Path),
        default=None,
        help="Store file or folder (default: <git top level>/.kenning/memory.db; env KENNING_STORE).",
    )(func)
    return func


@contextmanager
def _progress(label: str, total: int | None, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr when it is a terminal and output is not JSON."""
    if not enabled or not sys.stderr.isatty():
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _open(
    store_path: Path | None,
    *,
    create: bool,
    group_id: str | None = None,
    threshold: float | None = None,
):  # type: ignore[no-untyped-def]
    from .store import open_store

    return open_store(store_path, create=create, group_id=group_id, threshold=threshold)


EPILOG_MAIN = """
\b
Examples:
  kenning remember --type error_fix "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and retry with busy_timeout | SOURCE: docs/solutions/db.md — concurrent writers"
  kenning recall "database is locked when two agents write"
  kenning search "how do we handle sqlite locking" --limit 5
  kenning stats --json

Exit codes: 0 ok, 1 user error, 2 usage error, 3 knowledge base NOT consulted.
"""


@click.group(epilog=EPILOG_MAIN, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kenning")
def main() -> None:
    """Institutional memory for coding agents: remember notes, recall the few that matter."""


# -- remember ------------------------------------------------------------------------------


def _read_content(content: str) -> str:
    if content != "-":
        return content
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KenningError(
            f"standard input is not valid UTF-8 (byte {exc.start}); re-encode it as UTF-8"
        ) from None


@main.command(
    epilog="""
\b
Examples:
  kenning remember --type rule "All timestamps are stored in UTC"
  kenning remember --type error_fix --source docs/solutions/db.md "ERROR-FIX: ... | FIX: ..."
  git log -1 --format=%B | kenning remember --type session -
"""
)
@click.argument("content")
@click.option(
    "--type",
    "memory_type",
    default="context",
    show_default=True,
    help=f"Memory type: {', '.join(ALL_TYPES)}.",
)
@click.option("--source", default=None, help="Path or URL the note comes from.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option(
    "--project", "group_id", default=None, help="Project id (default: detected from git)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_store_options
@handle_errors
def remember(
    content: str,
    memory_type: str,
    source: str | None,
    tags: tuple[str, ...],
    group_id: str | None,
    as_json: bool,
    store_path: Path | None,
) -> None:
    """Store a note (CONTENT, or - for standard input) unless it is already known.

    Secrets are redacted first; a note identical to one in this project, or whose closest
    match scores above the dedup threshold, is not stored again.
    """
    text = _read_content(content)
    with _open(store_path, create=True, group_id=group_id) as store:
        result = store.remember(text, memory_type, source=source, tags=tags)
    if as_json:
        _echo_json(result.to_dict())
    elif result.status == STORED:
        click.echo(f"stored {result.id} ({result.collection}/{result.type})")
    elif result.status == NEAR_DUPLICATE:
        click.echo(f"near-duplicate of {result.id} (score {result.score:.2f}); not stored")
    if result.redactions and not as_json:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(result.redactions.items()))
        click.echo(f"redacted: {kinds}", err=True)
    if result.status not in (STORED, NEAR_DUPLICATE):
        if not as_json:
            click.echo(f"error: {result.status}: {result.reason}", err=True)
        sys.exit(EXIT_USER)


# -- recall --------------------------------------------------------------------------------


@main.command(
    epilog=f"""
\b
The protocol: ask for top {protocol.RECALL_TOP_K}, discard scores below {protocol.RECALL_FLOOR}
({protocol.ERROR_RECALL_FLOOR} for error queries), keep the best {protocol.RECALL_KEEP}, cut their
combined text to {protocol.RECALL_CHAR_BUDGET} characters at a word boundary.

\b
Examples:
  kenning recall "database is locked when two agents write"
  kenning recall --errors "sqlite3.OperationalError: database is locked"
  kenning recall --format xml "refactor the auth middleware"
"""
)
@click.argument("query")
@click.option(
    "--top-k",
    default=protocol.RECALL_TOP_K,
    show_default=True,
    type=int,
    help="Candidates to consider.",
)
@click.option(
    "--errors/--no-errors",
    default=None,
    help=f"Treat the query as an error (floor {protocol.ERROR_RECALL_FLOOR}); default: detect.",
)
@click.option(
    "--project",
    "group_id",
    default=None,
    help="Project id (default: detected; 'all' for every project).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "xml"]),
    default="text",
    show_default=True,
    help="Output: text, json, or the fenced xml block for a prompt.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--quiet", "-q", is_flag=True, help="Print nothing when there is no store (hooks, scripts)."
)
@_store_options
@handle_errors
def recall(
    query: str,
    top_k: int,
    errors: bool | None,
    group_id: str | None,
    fmt: str,
    as_json: bool,
    quiet: bool,
    store_path: Path | None,
) -> None:
    """Recall the few memories that matter for QUERY (the ruvector recall protocol)."""
    from .render import render_json, render_xml

    if as_json:
        fmt = "json"
    try:
        store = _open(store_path, create=False)
    except StoreNotFound as exc:
        if fmt == "json":
            _echo_json({"query": query, "results": [], "store": None})
        elif not quiet:
            click.echo(f"nothing to recall: {exc}", err=True)
        return
    with store:
        result = store.recall(query, top_k, errors=errors, group_id=group_id)
    if fmt == "json":
        click.echo(render_json(result.to_dict()))
    elif fmt == "xml":
        findings = [(text, hit.score) for hit, text in zip(result.hits, result.texts, strict=True)]
        block = render_xml(
            findings,
            context="debugging" if result.floor < protocol.RECALL_FLOOR else "general",
            truncated=result.truncated,
        )
        if block:
            click.echo(block)
    else:
        if not result.hits and not quiet:
            click.echo(f"no memory scored at least {result.floor:.2f}", err=True)
        for n, (hit, text) in enumerate(zip(result.hits, result.texts, strict=True), start=1):
            click.echo(f"{n}. [{hit.score:.2f}] {_plain(text)}")
        if result.truncated:
            click.echo(f"(truncated to {protocol.RECALL_CHAR_BUDGET} characters)", err=True)


def _plain(text: str) -> str:
    """Stored text on a terminal: no control sequences, one line per result."""
    from .render import sanitise_for_terminal

    return sanitise_for_terminal(text).replace("\n", " ")


# -- search --------------------------------------------------------------------------------


@main.command(
    epilog="""
\b
Examples:
  kenning search "how do I implement authentication"
  kenning search "naming conventions" --collection conventions
  kenning search "recent bugs" --type error_fix,refactor --limit 10
  kenning search "why did we choose postgres" --intent why --json
"""
)
@click.argument("query")
@click.option("--collection", default=None, help=f"One of {', '.join(COLLECTIONS)}.")
@click.option("--type", "memory_type", default=None, help="Type or comma list of types.")
@click.option("--intent", default=None, help="how | what | why (default: detected from the query).")
@click.option("--limit", default=protocol.SEARCH_DEFAULT_LIMIT, show_default=True, type=int)
@click.option(
    "--group-id", default=None, help="Project id (default: detected; 'all' for every project)."
)
@click.option(
    "--threshold", default=None, type=float, help="Minimum semantic score (default 0.7 or config)."
)
@click.option("--decay/--no-decay", default=True, show_default=True, help="Rank with time decay.")
@click.option(
    "--cascade/--no-cascade",
    default=True,
    show_default=True,
    help="Expand to other collections when the primary has too few results.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "xml"]), default="text", show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@_store_options
@handle_errors
def search(
    query: str,
    collection: str | None,
    memory_type: str | None,
    intent: str | None,
    limit: int,
    group_id: str | None,
    threshold: float | None,
    decay: bool,
    cascade: bool,
    fmt: str,
    as_json: bool,
    store_path: Path | None,
) -> None:
    """Search memories by meaning, with collections, intent routing, cascading and decay."""
    from .render import render_human, render_json, render_xml

    if as_json:
        fmt = "json"
    try:
        store = _open(store_path, create=False, threshold=threshold)
    except StoreNotFound as exc:
        if fmt == "json":
            _echo_json({"query": query, "results": [], "store": None})
        else:
            click.echo(f"nothing to search: {exc}", err=True)
        return
    with store:
        response = store.search(
            query, collection, memory_type, cascade, intent, limit, group_id, threshold, decay
        )
    if fmt == "json":
        click.echo(render_json(response.to_dict()))
    elif fmt == "xml":
        block = render_xml(
            [(r.memory.content, r.score) for r in response.results], context="general"
        )
        if block:
            click.echo(block)
    else:
        if not response.results:
            click.echo(f"no memory passed the threshold {response.threshold:.2f}", err=True)
            return
        click.echo(render_human(response.results, decay))


# -- stats / forget ------------------------------------------------------------------------


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@_store_options
@handle_errors
def stats(as_json: bool, store_path: Path | None) -> None:
    """Counts, the resolved store path (intel_path) and the embedder provenance."""
    try:
        store = _open(store_path, create=False)
    except StoreNotFound as exc:
        if as_json:
            _echo_json({"intel_path": None, "memories": 0, "error": str(exc)})
        else:
            click.echo(str(exc))
        return
    with store:
        data = store.stats()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"store:      {data['intel_path']}")
    click.echo(f"project:    {data['group_id']} ({data['project_root']})")
    click.echo(
        f"memories:   {data['memories']} in this project, {data['memories_all_projects']} in the store"
    )
    for name, n in data["by_collection"].items():
        click.echo(f"  {name}: {n}")
    prov = data["provenance"]
    click.echo(
        f"embedder:   {prov['embedder']}:{prov['model_id']} ({prov['dimension']}-d)"
        if prov
        else "embedder:   (not stamped yet)"
    )


@main.command()
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True)
@_store_options
@handle_errors
def forget(memory_id: str, as_json: bool, store_path: Path | None) -> None:
    """Delete the memory with id MEMORY_ID."""
    with _open(store_path, create=False) as store:
        found = store.forget(memory_id)
    if as_json:
        _echo_json({"id": memory_id, "deleted": found})
    elif found:
        click.echo(f"forgot {memory_id}")
    if not found:
        if not as_json:
            click.echo(f"error: no memory with id {memory_id}", err=True)
        sys.exit(EXIT_USER)


# -- export / import / reembed -------------------------------------------------------------


@main.command()
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="File to write (default: stdout).",
)
@click.option(
    "--group-id",
    default=None,
    help="Project to export (default: this one; 'all' for every project).",
)
@click.option("--no-vectors", is_flag=True, help="Leave vectors out (import re-embeds).")
@_store_options
@handle_errors
def export(
    output: Path | None, group_id: str | None, no_vectors: bool, store_path: Path | None
) -> None:
    """Write memories as JSONL (every field, ids kept, vectors included)."""
    with _open(store_path, create=False) as store:
        if output is None:
            n = store.export(sys.stdout, group_id=group_id, vectors=not no_vectors)
        else:
            tmp = output.with_name(output.name + ".tmp")
            with tmp.open("w", encoding="utf-8") as fh:
                n = store.export(fh, group_id=group_id, vectors=not no_vectors)
            tmp.replace(output)
    click.echo(f"exported {n} memories", err=True)


@main.command(name="import")
@click.argument("source", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True)
@_store_options
@handle_errors
def import_cmd(source: Any, as_json: bool, store_path: Path | None) -> None:
    """Import a JSONL export (ids, timestamps and projects kept; duplicates skipped)."""
    lines = source.readlines()
    with (
        _open(store_path, create=True) as store,
        _progress("importing", len(lines), not as_json) as tick,
    ):
        counts = store.import_(lines, progress=tick)
    if as_json:
        _echo_json(counts)
    else:
        click.echo(
            f"read {counts['read']}: imported {counts['imported']}, "
            f"duplicates {counts['duplicates']}, rejected {counts['rejected']}"
        )
    if counts["rejected"]:
        sys.exit(EXIT_USER)


@main.command()
@click.option("--json", "as_json", is_flag=True)
@_store_options
@handle_errors
def reembed(as_json: bool, store_path: Path | None) -> None:
    """Re-embed every memory with the current model and restamp the store (resumable)."""
    with _open(store_path, create=False) as store:
        from .backends.base import Filters

        total = store.backend.count(Filters())
        with _progress("re-embedding", total, not as_json) as tick:
            last = [0]

            def advance(done: int, _total: int) -> None:
                tick(done - last[0])
                last[0] = done

            outcome = store.reembed(progress=advance)
    if as_json:
        _echo_json(outcome)
    else:
        click.echo(
            f"re-embedded {outcome['reembedded']} memories with {outcome['provenance']['model_id']}"
        )


if __name__ == "__main__":  # pragma: no cover
    main()
