"""The ``kenning ui`` web page: browse, search, curate and plot a project's memory.

A thin Starlette surface over :class:`~kenning.store.MemoryStore`: every read and every
change is one call of the core's public API, exactly as the CLI makes it (search is
``MemoryStore.search`` with its ranking and threshold; edits go through
``MemoryStore.update``, the write path of ``remember``). Pages are rendered on the server
with Jinja2 (autoescape on; stored text goes through :func:`kenning.render.escape_html_text`);
there is no JavaScript at all. Safety checks live in :mod:`kenning.ui.guard`.
"""

from __future__ import annotations

import functools
import logging
import shlex
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import protocol
from ..errors import EditConflict, KenningError, StoreLocationError, UserInputError
from ..model import (
    COLLECTIONS,
    NEAR_DUPLICATE,
    STORED,
    TYPE_TO_COLLECTION,
    Freshness,
    Memory,
    RememberResult,
    SearchResult,
    edit_version,
    parse_timestamp,
    utc_now,
)
from ..render import (
    escape_html_text,
    hidden_characters,
    other_projects_line,
    redacted_traceback,
    redaction_counts,
    safe_message,
    sanitise_for_terminal,
)
from ..safety import has_visible_text
from ..store import NEWEST_MAX, MemoryStore
from ..store_read import held_secrets, redacted_on_read
from . import charts
from .guard import CSRF_FIELD, Guard, Session

HERE = Path(__file__).resolve().parent
T = TypeVar("T")

#: Rows on one page; "show more" adds as many, up to MAX_ROWS on one page; past that the
#: list goes on a page further (``from``).
PAGE_SIZE = 20
MAX_ROWS = 500
#: Age filter choices: value → (label, stored within N days | stored more than N days ago).
AGES: Mapping[str, tuple[str, int | None, int | None]] = {
    "": ("any age", None, None),
    "1": ("last day", 1, None),
    "7": ("last 7 days", 7, None),
    "30": ("last 30 days", 30, None),
    "90": ("last 90 days", 90, None),
    ">90": ("older than 90 days", None, 90),
    ">365": ("older than a year", None, 365),
}
#: The "stale" filter: memories whose files changed since they were written
#: (:meth:`MemoryStore.freshness`).
STALE_FILTER = True
STALE_CHOICES = {"": "fresh or stale", "stale": "stale only", "fresh": "fresh only"}


def memory_facts(memory: Memory, freshness: Freshness | None = None) -> dict[str, Any]:
    """What the page shows beside a memory's own fields, in one place.

    ``seen_count`` / ``last_seen_at`` (a near-duplicate remembered again refreshes them)
    are shown once the memory was seen again. ``stale`` and ``changed`` (the files that
    changed) come from ``freshness``, the store's check of the files the memory names (None:
    it names none, or it was not checked). ``reviewed_at`` and ``edited_at`` are metadata
    written by ``MemoryStore``.
    """
    metadata = memory.metadata or {}
    seen_again = memory.seen_count > 1
    return {
        "seen_count": memory.seen_count if seen_again else None,
        "last_seen_at": memory.last_seen_at if seen_again else None,
        "stale": None if freshness is None else freshness.stale,
        "changed": () if freshness is None else freshness.changed,
        "reviewed_at": _as_time(metadata.get("reviewed_at")),
        "edited_at": _as_time(metadata.get("edited_at")),
    }


def _day(when: datetime) -> str:
    """A time as the page shows it: to the minute."""
    return f"{when:%Y-%m-%d %H:%M}"


def _as_time(value: Any) -> Any:
    """A time kenning wrote into metadata (ISO 8601 text) as a time, shown as the page shows
    ``stored_at``; anything else as it is (another writer's value: shown as its text)."""
    if not isinstance(value, str):
        return value
    try:
        return parse_timestamp(value)
    except ValueError:
        return value


@dataclass(frozen=True)
class PageFilters:
    """The list's query and filters, as read from the address (all optional)."""

    query: str = ""
    collection: str = ""
    type: str = ""
    #: "" → this project; "all" → every project; else a project id.
    project: str = ""
    age: str = ""
    stale: str = ""
    limit: int = PAGE_SIZE
    #: How many rows of the list come before this page's first (a page further).
    offset: int = 0

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> PageFilters:
        age = params.get("age", "")
        stale = params.get("stale", "") if STALE_FILTER else ""
        try:
            limit = int(params.get("limit", PAGE_SIZE))
        except ValueError:
            limit = PAGE_SIZE
        try:
            offset = max(0, int(params.get("from", 0)))
        except ValueError:
            offset = 0
        if age not in AGES:
            raise UserInputError(f"unknown age filter {age!r}; choose one of the list")
        if stale not in STALE_CHOICES:
            raise UserInputError(f"unknown stale filter {stale!r}; choose one of the list")
        query = params.get("q", "").strip()
        return cls(
            # a query that shows nothing (zero-width spaces, a pasted byte-order mark) is no
            # query, as a blank one is: the list, not a page saying the query is empty
            query=query if has_visible_text(query) else "",
            collection=params.get("collection", "").strip(),
            type=params.get("type", "").strip(),
            project=params.get("project", "").strip(),
            age=age,
            stale=stale,
            limit=min(max(limit, 1), MAX_ROWS),
            offset=offset,
        )

    def params(self, **changes: Any) -> str:
        """This filter set (with ``changes``) as a query string, defaults left out."""
        f = replace(self, **changes)
        pairs = {
            "q": f.query,
            "collection": f.collection,
            "type": f.type,
            "project": f.project,
            "age": f.age,
            "stale": f.stale,
            "limit": "" if f.limit == PAGE_SIZE else str(f.limit),
            "from": str(f.offset) if f.offset else "",
        }
        return urlencode({k: v for k, v in pairs.items() if v})

    def stored_window(self, now: datetime) -> tuple[datetime | None, datetime | None]:
        _, within, older = AGES[self.age]
        after = now - timedelta(days=within) if within is not None else None
        before = now - timedelta(days=older) if older is not None else None
        return after, before

    def more(self, shown: int, total: int) -> str | None:
        """The address of the list's next rows (None: every row is shown): this page grown
        by a page, or, once it holds MAX_ROWS, the next page."""
        if self.offset + shown >= total:
            return None
        if self.limit + PAGE_SIZE <= MAX_ROWS:
            return self.params(limit=self.limit + PAGE_SIZE)
        return self.params(offset=self.offset + shown, limit=MAX_ROWS)

    @property
    def narrows_after_search(self) -> bool:
        """Filters the search API has no argument for; the page applies them to its hits."""
        return bool(self.age or self.stale)


@dataclass(frozen=True)
class Row:
    memory: Memory
    result: SearchResult | None = None
    freshness: Freshness | None = None


class StoreSource:
    """The store behind the page.

    The embedded file store is opened once and kept (its vector cache stays warm), until
    its file is deleted or replaced (``rm -r .kenning``, a restored backup): then it is
    opened again through ``opener``. A server store is opened per request: a fresh
    connection reports a server that went down at once (knowledge base NOT consulted) and
    picks it up again when it is back, where a kept pool would wait for its timeout. So is
    a store that does not exist yet, until it does. Calls are serialised: the page has one
    user.
    """

    def __init__(
        self, *, kept: MemoryStore | None = None, opener: Callable[[], MemoryStore] | None = None
    ) -> None:
        if kept is None and opener is None:
            raise ValueError("give a kept store, an opener, or both")
        self._kept = kept
        self._opener = opener
        self._lock = threading.Lock()

    @contextmanager
    def store(self) -> Iterator[MemoryStore]:
        with self._lock:
            if self._kept is not None and self._kept.replaced and self._opener is not None:
                self._kept.close()
                self._kept = None
            if self._kept is not None:
                yield self._kept
                return
            assert self._opener is not None
            opened = self._opener()
            if opened.exists and opened.project.store_url is None:
                self._kept = opened  # the embedded store, (re)created: kept from now on
                yield opened
                return
            try:
                yield opened
            finally:
                opened.close()

    def close(self) -> None:
        if self._kept is not None:
            self._kept.close()


@functools.cache
def _templates() -> Environment:
    """The page's templates, compiled once a process (~30 ms of CPU for them all): every
    app :func:`create_app` builds renders the same files with the same filters and globals.
    Jinja still reloads a template whose file changed."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["untrusted"] = lambda text, element="span": Markup(
        escape_html_text(str(text), element)
    )
    env.filters["q"] = lambda text: quote(str(text), safe="")
    env.filters["score"] = lambda v: "n/a" if v is None else f"{v:.2f}"
    env.filters["day"] = lambda v: _day(v) if isinstance(v, datetime) else str(v)
    # a time as "day" shows it; metadata that is no time, as the untrusted text it is
    env.filters["when"] = lambda v: (
        _day(v) if isinstance(v, datetime) else Markup(escape_html_text(str(v)))
    )
    env.globals.update(
        COLLECTIONS=COLLECTIONS,
        TYPE_TO_COLLECTION=TYPE_TO_COLLECTION,
        AGES=AGES,
        STALE_FILTER=STALE_FILTER,
        STALE_CHOICES=STALE_CHOICES,
        CSRF_FIELD=CSRF_FIELD,
        SEARCH_MAX_LIMIT=protocol.SEARCH_MAX_LIMIT,
        facts=memory_facts,
        version=edit_version,
        hidden_characters=hidden_characters,
    )
    return env


def create_app(source: StoreSource, *, port: int, token: str, store_option: bool = False) -> Guard:
    """The page as an ASGI app, behind :class:`~kenning.ui.guard.Guard`. ``store_option``:
    the page was started with ``--store``, so the command that creates a missing store
    names it too (a plain ``kenning remember`` would write the project's default store)."""
    env = _templates()

    def creating_command(store: MemoryStore) -> str | None:
        """The command that creates the store this page reads; None when none from here
        does (a store named outside the project: the store-location guard refuses it)."""
        try:
            store.check_location()
        except StoreLocationError:
            return None
        if not store_option:
            return "kenning remember"
        return f"kenning remember --store {shlex.quote(store.location)}"

    #: Why the store cannot be written here (read-only file, folder or mount), as the core
    #: says it (:meth:`MemoryStore.read_only_reason`), read with each request's store; None:
    #: writable. Every page says it in its header, and the change buttons are turned off:
    #: a person learnt it only after typing an edit and saving it (qa-s67a F4).
    read_only: list[str | None] = [None]

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        session: Session = request.scope["state"]["session"]
        context.setdefault("read_only", read_only[0])
        # every note is shown redacted on read, as every other reader of the store shows it:
        # another writer (another tool, an older kenning) may have left a credential in one
        # (qa-s64b T2: the page showed it, the one surface made to be looked at)
        if isinstance(context.get("memory"), Memory):
            context["memory"] = redacted_on_read(context["memory"])
        if "rows" in context:
            context["rows"] = [
                replace(r, memory=redacted_on_read(r.memory)) for r in context["rows"]
            ]
        html = env.get_template(name).render(
            csrf=session.csrf, flashes=session.take_flashes(), **context
        )
        return HTMLResponse(html, status_code=status)

    async def call(work: Callable[[MemoryStore], T]) -> T:
        def run() -> T:
            with source.store() as store:
                # before the work: a write it refuses for this is then said on its page too
                reason = store.read_only_reason()
                read_only[0] = None if reason is None else safe_message(reason)
                return work(store)

        return await run_in_threadpool(run)

    async def index(request: Request) -> Response:
        filters = PageFilters.from_params(request.query_params)
        now = utc_now()

        def work(store: MemoryStore) -> dict[str, Any]:
            after, before = filters.stored_window(now)
            group = filters.project or None
            collection, memory_type = filters.collection or None, filters.type or None
            response = None
            if filters.query:
                # every hit search gives (at most its limit), so that the count is true
                response = store.search(
                    filters.query,
                    collection=collection,
                    memory_type=memory_type,
                    group_id=group,
                    limit=protocol.SEARCH_MAX_LIMIT,
                )
                rows = [
                    Row(r.memory, r, r.freshness)
                    for r in response.results
                    if (after is None or r.memory.stored_at >= after)
                    and (before is None or r.memory.stored_at < before)
                    and _stale_matches(r.freshness, filters.stale)
                ]
                total = len(rows)
                page_rows = rows[filters.offset : filters.offset + filters.limit]
            elif not filters.stale and (
                window := _age_page(store, filters, after, before, group, collection, memory_type)
            ):
                shown, total = window
                states = store.freshness(shown)
                page_rows = [Row(m, None, states.get(m.id)) for m in shown]
            elif filters.stale or after or before:
                # every memory in the window, or every memory's files, is looked at: the
                # window's rows alone when newest reads them at once; else the time (and for
                # the stale filter the file record) of each memory, and then the page's rows
                # alone (decoding every row of 100k took 2.6 s)
                listed = _age_window(store, after, before, group, collection, memory_type)
                if listed is None:
                    shown, states, total = store.browse_by_freshness(
                        (filters.stale == "stale") if filters.stale else None,
                        group_id=group,
                        collection=collection,
                        memory_type=memory_type,
                        stored_after=after,
                        stored_before=before,
                        offset=filters.offset,
                        limit=filters.limit,
                    )
                    page_rows = [Row(m, None, states.get(m.id)) for m in shown]
                else:
                    end = filters.offset + filters.limit
                    states = store.freshness(
                        listed if filters.stale else listed[filters.offset : end]
                    )
                    rows = [
                        Row(m, None, states.get(m.id))
                        for m in listed
                        if not filters.stale or _stale_matches(states.get(m.id), filters.stale)
                    ]
                    total = len(rows)
                    page_rows = rows[filters.offset : end]
            elif filters.offset:  # a page further, and a count
                end = filters.offset + filters.limit
                if end <= NEWEST_MAX:
                    # only the rows up to this page's last are read (an index on SQLite), as
                    # for the newest page: browse decoded every row of the project (1.8 s a
                    # page at 100k memories) to show 500 of them
                    shown = store.newest(
                        end, collection=collection, memory_type=memory_type, group_id=group
                    )[filters.offset :]
                    total = store.count(
                        collection=collection,
                        memory_type=memory_type,
                        group_id=group,
                        readable=True,
                    )
                else:  # deeper than newest reads at once: every row's time, then the page's
                    shown, _, total = store.browse_by_freshness(
                        None,
                        group_id=group,
                        collection=collection,
                        memory_type=memory_type,
                        offset=filters.offset,
                        limit=filters.limit,
                    )
                states = store.freshness(shown)
                page_rows = [Row(m, None, states.get(m.id)) for m in shown]
            else:  # the newest page and a count: only the rows shown are read
                listed = store.newest(
                    filters.limit, collection=collection, memory_type=memory_type, group_id=group
                )
                states = store.freshness(listed)
                page_rows = [Row(m, None, states.get(m.id)) for m in listed]
                total = store.count(
                    collection=collection, memory_type=memory_type, group_id=group, readable=True
                )
            recalls = store.recent_recalls() if store.settings.recall_log else []
            # The plots show the whole project, from counts and the recent weeks' times:
            # no row is decoded for them. They count the memories the header counts (what
            # search sees, as kenning stats does): from the counts of all rows, a damaged
            # one made them add up to one more than "N memories · 1 damaged".
            header = store.stats()
            plotted = header if group is None else store.stats(group)
            recent = store.stored_since(
                charts.first_week_shown(now), group_id=group, searchable=True
            )
            older = max(0, plotted["memories"] - len(recent))
            return {
                "rows": page_rows,
                "total": total,
                "response": response,
                # the age or freshness filter keeps some of search's results (at most its
                # limit, the best first): the count says of how many, not "lower the bar"
                "post_filtered": bool(response and (after or before or filters.stale)),
                "plots": _plots(plotted, recent, older, recalls, now, store.settings.recall_log),
                "store": header,
                "this_project": store.group_id,
                "creates_store": None if store.exists else creating_command(store),
                "missing_reason": store.missing_reason,
                # the project's notes all under another id (a renamed repository): said
                "other_projects": other_projects_line(group or store.group_id, others)
                if (others := plotted["other_projects"])
                else None,
            }

        data = await call(work)
        return page(request, "index.html", filters=filters, **data)

    def memory_id(request: Request, form: Mapping[str, Any] | None = None) -> str:
        value = (form or request.query_params).get("id", "")
        if not isinstance(value, str) or not value.strip():
            raise UserInputError("no memory id given: pick a memory from the list")
        return value

    def named_memory(store: MemoryStore, wanted: str) -> Memory | None:
        # the memory an address names in any project (the page lists every project's): by
        # its whole id, or as the CLI takes it, by a start of 12 hex digits or more (what
        # `kenning recall` shows); a start several ids share is refused, naming them
        return store.get(store.resolve_id(wanted, group_id="all"))

    def with_freshness(store: MemoryStore, wanted: str) -> tuple[Memory | None, Freshness | None]:
        found = named_memory(store, wanted)
        return found, (store.freshness([found]).get(found.id) if found is not None else None)

    async def show(request: Request) -> Response:
        wanted = memory_id(request)
        found, freshness = await call(lambda store: with_freshness(store, wanted))
        if found is None:
            return page(request, "gone.html", 404, memory_id=wanted)
        return page(request, "memory.html", memory=found, freshness=freshness, problem=None)

    async def edit_form(request: Request) -> Response:
        wanted = memory_id(request)
        found = await call(lambda store: named_memory(store, wanted))
        if found is None:
            return page(request, "gone.html", 404, memory_id=wanted)
        return page(
            request,
            "edit.html",
            memory=found,
            content=redacted_on_read(found).content,  # (saved so, its secrets are gone)
            type=found.type,
            problem=None,
        )

    async def edit(request: Request) -> Response:
        form = await request.form()
        wanted = memory_id(request, form)
        # a browser sends a textarea's line breaks as CRLF
        content = str(form.get("content", "")).replace("\r\n", "\n")
        new_type = str(form.get("type", ""))
        base = str(form.get("base", ""))

        shown: list[Memory] = []  # the memory the form was for, once read
        remembering: list[str | None] = []  # the command that stores a new note, if gone

        def work(store: MemoryStore) -> tuple[Memory | None, RememberResult | None]:
            found = named_memory(store, wanted)
            if found is None:
                remembering.append(creating_command(store))
            if found is None or base != edit_version(found):
                return found, None
            shown.append(found)
            if content == found.content and new_type == found.type:
                return found, None
            try:
                changed = store.update(
                    found.id,
                    content=None if content == found.content else content,
                    type=None if new_type == found.type else new_type,
                    # the page lists any project's memories (project=all) and edits the one
                    # shown, as it forgets it
                    group_id=found.group_id,
                    # compared again under the store's write lock: another process (or tab)
                    # may change it between the read above and the write
                    expected_version=base,
                )
            except EditConflict:
                return store.get(found.id), None
            return found, changed

        try:
            before, result = await call(work)
        except KenningError as exc:
            if not shown:
                raise  # (the memory could not even be read: the error page says why)
            # refused by the store (read-only, locked by another process, a server gone):
            # the form again with the text typed into it, which the error page lost (its one
            # link went to the list: qa-s67a F4)
            return page(
                request,
                "edit.html",
                503 if exc.exit_code == 3 else 400,
                memory=shown[0],
                content=content,
                type=new_type,
                problem=f"Not saved: {safe_message(str(exc))}. Your text is kept below.",
                duplicate_of=None,
            )
        # secrets another writer left in the note: the form showed them redacted, so a save
        # of its text (untouched or not) stores them redacted, which the user is told
        held = (
            held_secrets(before)
            if before is not None and result is not None and content != before.content
            else {}
        )
        if before is None:
            # forgotten since the form was shown (another process or tab): the text typed
            # is kept on the page, which said only "No such memory" (qa80 F6), with the
            # command that stores it as a new note (the type as an option when it is one
            # kenning lists: the form's field is the browser's to send)
            command = remembering[0] if remembering else None
            if command is not None:
                typed = f" --type {new_type}" if new_type in TYPE_TO_COLLECTION else ""
                command = f"{command}{typed} -"
            return page(request, "gone.html", 404, memory_id=wanted, kept=content, command=command)
        if base != edit_version(before):
            # changed since this form was shown (another process, an agent, a second tab):
            # saving the form's text would silently undo that change
            return page(
                request,
                "edit.html",
                409,
                memory=before,
                content=redacted_on_read(before).content,
                type=before.type,
                problem="Not saved: this memory was changed since you opened the form (by "
                "another process or tab). Its text and type now are below; make your change "
                "again.",
                duplicate_of=None,
            )
        session: Session = request.scope["state"]["session"]
        if result is not None and result.unchanged and new_type not in ("", before.type):
            # the type asked is this one for this text (context holding an ERROR-FIX entry
            # is error_fix): "Nothing changed." alone read as a save that was lost
            session.flash(
                "info",
                f"Nothing changed: for this text the type {new_type} is {result.type}, as "
                "it is stored (a note that starts with ERROR-FIX: is an error fix).",
            )
        elif result is None or result.unchanged:
            session.flash("info", "Nothing changed.")
        elif result.status == STORED:
            note = "Saved: re-embedded, and checked for duplicates like a new note."
            if held:
                note += (
                    f" The secrets it held ({redaction_counts(held)}), shown redacted in the "
                    "form, are redacted in it now."
                )
            if result.redactions:
                note += f" Secrets redacted: {redaction_counts(result.redactions)}."
            session.flash("ok", note)
        else:
            # why a text with a secret in it matched one without
            redacted = (
                f"; with its secrets redacted: {redaction_counts(result.redactions)}"
                if result.redactions
                else ""
            )
            problem = (
                f"Not saved: this text is a near-duplicate of memory {result.duplicate_of} "
                f"(score {result.score:.2f}{redacted}). Nothing was changed."
                if result.status == NEAR_DUPLICATE
                else f"Not saved ({result.status}): {result.reason}"
            )
            return page(
                request,
                "edit.html",
                409 if result.status == NEAR_DUPLICATE else 400,
                memory=before,
                content=content,
                type=new_type,
                problem=problem,
                duplicate_of=result.duplicate_of,
            )
        return RedirectResponse(f"/memory?id={quote(before.id, safe='')}", status_code=303)

    async def forget_form(request: Request) -> Response:
        wanted = memory_id(request)
        found, freshness = await call(lambda store: with_freshness(store, wanted))
        if found is None:
            return page(request, "gone.html", 404, memory_id=wanted)
        return page(request, "forget.html", memory=found, freshness=freshness, problem=None)

    async def forget(request: Request) -> Response:
        form = await request.form()
        wanted = memory_id(request, form)
        base = str(form.get("base", ""))

        named: list[str] = []  # the whole id of the memory named, once read

        def work(store: MemoryStore) -> tuple[bool, Memory | None, Freshness | None]:
            found = named_memory(store, wanted)
            if found is None:
                return False, None, None
            named.append(found.id)
            try:
                # the memory the person picked on the page, whichever project it belongs
                # to, as the question showed it: a text changed since is not what they
                # confirmed deleting
                return (
                    store.forget(found.id, group_id=found.group_id, expected_version=base),
                    None,
                    None,
                )
            except EditConflict:
                return (False, *with_freshness(store, found.id))

        gone, changed, freshness = await call(work)
        if changed is not None:
            return page(
                request,
                "forget.html",
                409,
                memory=changed,
                freshness=freshness,
                problem="Not forgotten: this memory was changed since you opened this page "
                "(by another process or tab). Here it is now; forget it only if you still "
                "want to.",
            )
        session: Session = request.scope["state"]["session"]
        if gone:
            session.flash("ok", f"Forgot memory {named[0]}.")
        else:
            session.flash("warn", f"Memory {wanted} was already gone.")
        return RedirectResponse("/", status_code=303)

    async def review(request: Request) -> Response:
        form = await request.form()
        wanted = memory_id(request, form)
        base = str(form.get("base", ""))
        elsewhere: list[str] = []  # its project, when its files are not here to record
        recorded: list[int] = []  # how many files the review recorded (none: it names none)

        named: list[str] = []  # the whole id of the memory named, once read

        def work(store: MemoryStore) -> tuple[Memory | None, Freshness | None] | None:
            found = named_memory(store, wanted)
            if found is None:  # forgotten meanwhile: as edit and forget say it
                return None
            named.append(found.id)
            if not store.files_are_here(found.group_id):
                elsewhere.append(found.group_id)
            try:
                # the text the person checked, as the page showed it: not a newer one
                reviewed = store.mark_reviewed(found.id, group_id="all", expected_version=base)
            except EditConflict:
                return with_freshness(store, found.id)
            recorded.append(len(reviewed.metadata.get("file_blobs") or ()))
            return None, None

        outcome = await call(work)
        if outcome is None:
            return page(request, "gone.html", 404, memory_id=wanted)
        changed, freshness = outcome
        if changed is not None:
            return page(
                request,
                "memory.html",
                409,
                memory=changed,
                freshness=freshness,
                problem="Not marked reviewed: this memory was changed since it was shown (by "
                "another process or tab). Here it is now; mark it only once you have checked "
                "this text.",
            )
        session: Session = request.scope["state"]["session"]
        if elsewhere:
            session.flash(
                "warn",
                "Marked as reviewed. The files it names were not recorded again: this page "
                # (the project id is stored text: shown without what could reorder the line)
                f"does not run in a checkout of its project ({sanitise_for_terminal(elsewhere[0])})"
                "; mark it there "
                "to record them as they are now.",
            )
        elif recorded and recorded[0]:
            session.flash(
                "ok", "Marked as reviewed (the files it names are recorded as they are now)."
            )
        else:
            # a note that names no file (most conventions and decisions): nothing recorded,
            # and the flash said files were (qa-s67a F2)
            session.flash("ok", "Marked as reviewed.")
        return RedirectResponse(f"/memory?id={quote(named[0], safe='')}", status_code=303)

    async def review_address(request: Request) -> Response:
        # the address a refused "Mark reviewed" leaves in the bar: opened again (Enter, a
        # bookmark), it answered Starlette's bare "405 Method Not Allowed"; the memory's id
        # was in the form, not the address, so it goes to the list
        return RedirectResponse("/", status_code=303)

    async def kenning_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, KenningError)
        # exit code 3 is a server store that is down: say so, never "no results"
        status = 503 if exc.exit_code == 3 else 400
        # as every command's error line says it: a value it quotes holds no secret
        message = safe_message(str(exc))
        return page(request, "error.html", status, message=message, unavailable=status == 503)

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/memory", show, methods=["GET"]),
            Route("/edit", edit_form, methods=["GET"]),
            Route("/edit", edit, methods=["POST"]),
            Route("/forget", forget_form, methods=["GET"]),
            Route("/forget", forget, methods=["POST"]),
            Route("/review", review, methods=["POST"]),
            Route("/review", review_address, methods=["GET"]),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={KenningError: kenning_error},
        middleware=[Middleware(_FailureLog)],
    )
    return Guard(app, port=port, token=token)


log = logging.getLogger("kenning.ui")


class _FailureLog:
    """An unexpected exception in a route is logged here, its traceback redacted as the MCP
    server's is, and answered 500. Raised on, uvicorn printed it on the terminal as it was:
    a library's message can quote what it was handed (a DSN's password, a header)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def watched(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception:
            where = safe_message(f"{scope.get('method', '')} {scope.get('path', '')}".strip())
            log.error("kenning ui: %s failed unexpectedly\n%s", where, redacted_traceback())
            if not started:
                await PlainTextResponse("Internal Server Error", status_code=500)(
                    scope, receive, send
                )


def _age_count(
    store: MemoryStore,
    after: datetime | None,
    before: datetime | None,
    group: str | None,
    collection: str | None,
    memory_type: str | None,
) -> int:
    """How many memories an age filter holds (one bound of the two), from the stored times
    of the newer ones: no row is decoded (but where a damaged one is, which no listing
    shows)."""
    if after is not None:
        return len(
            store.stored_since(
                after, group_id=group, collection=collection, memory_type=memory_type,
                readable=True,
            )
        )  # fmt: skip
    assert before is not None
    newer = len(
        store.stored_since(
            before, group_id=group, collection=collection, memory_type=memory_type, readable=True
        )
    )
    readable = store.count(
        collection=collection, memory_type=memory_type, group_id=group, readable=True
    )
    return max(0, readable - newer)


def _age_window(
    store: MemoryStore,
    after: datetime | None,
    before: datetime | None,
    group: str | None,
    collection: str | None,
    memory_type: str | None,
) -> list[Memory] | None:
    """Every memory of an age filter, newest first, reading those rows only: the stale
    filter within "last 7 days" decoded every memory of the project to check the week's
    (1.3 s at 100k). None: no age filter, or more than newest reads at once."""
    if after is None and before is None:
        return None
    total = _age_count(store, after, before, group, collection, memory_type)
    if total > NEWEST_MAX:
        return None
    if total == 0:
        return []
    return _newest_of_age(store, total, after, before, group, collection, memory_type)


def _newest_of_age(
    store: MemoryStore,
    count: int,
    after: datetime | None,
    before: datetime | None,
    group: str | None,
    collection: str | None,
    memory_type: str | None,
) -> list[Memory]:
    """The newest ``count`` memories stored before ``before`` (from the first one the
    backend finds there), those older than ``after`` left out."""
    return [
        m
        for m in store.newest(
            count,
            collection=collection,
            memory_type=memory_type,
            group_id=group,
            stored_before=before,
        )
        if after is None or m.stored_at >= after
    ]


def _age_page(
    store: MemoryStore,
    filters: PageFilters,
    after: datetime | None,
    before: datetime | None,
    group: str | None,
    collection: str | None,
    memory_type: str | None,
) -> tuple[list[Memory], int] | None:
    """An age filter's page and how many memories it holds, reading only the rows up to
    the page's last, newest first (an index on SQLite), and the stored times of the newer
    ones: browse decoded every memory of the project (1 to 1.8 s a page at 100k). The
    window's memories are a run of the newest-first order: a prefix for "last N days", and
    for "older than" what newest gives from the filter's time on (it read every newer row
    to skip it, and every row of the project past 10,000 newer ones: 1.4 s at 100k). None:
    deeper than newest reads at once."""
    if after is None and before is None:
        return None
    total = _age_count(store, after, before, group, collection, memory_type)
    end = min(filters.offset + filters.limit, total)
    if end > NEWEST_MAX:
        return None
    if end <= filters.offset:
        return [], total
    inside = _newest_of_age(store, end, after, before, group, collection, memory_type)
    return inside[filters.offset : filters.offset + filters.limit], total


def _stale_matches(freshness: Freshness | None, wanted: str) -> bool:
    if not wanted:
        return True
    stale = freshness is not None and freshness.stale
    return stale == (wanted == "stale")


def type_counts_in_order(by_type: Mapping[str, int]) -> dict[str, int]:
    """``by_type`` in the order of kenning's collections and their types, then the types
    kenning does not list (another tool's writes to the store), by name: every memory the
    header counts has its bar."""
    known = [t for ts in COLLECTIONS.values() for t in ts]
    ordered = {t: by_type[t] for t in known if t in by_type}
    return ordered | {t: by_type[t] for t in sorted(by_type) if t not in ordered}


def _plots(
    stats: Mapping[str, Any],
    recent: Sequence[datetime],
    older: int,
    recalls: list[Any],
    now: datetime,
    logging_on: bool,
) -> dict[str, Any]:
    by_collection = {name: 0 for name in COLLECTIONS} | stats["by_collection"]
    types_in_order = type_counts_in_order(stats["by_type"])
    scores = [s for entry in recalls for s in entry.scores]
    return {
        "collections": charts.horizontal_bars("Memories per collection", by_collection),
        "types": charts.horizontal_bars("Memories per type", types_in_order),
        "weeks": charts.added_per_week(recent, now, older=older),
        "recalls": charts.recall_histogram(scores, sorted({e.floor for e in recalls}), len(recalls))
        if recalls
        else None,
        "recall_log": logging_on,
    }


__all__ = ["PageFilters", "StoreSource", "create_app", "memory_facts"]
