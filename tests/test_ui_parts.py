"""The pure parts of ``kenning ui``: plot geometry, the page's filters, what a memory shows,
and the HTML escaping of stored text (no server, no browser)."""

from __future__ import annotations

import atexit
import contextlib
import re
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kenning import MemoryStore
from kenning.embedders.base import Embedder
from kenning.errors import UserInputError
from kenning.model import Memory
from kenning.render import escape_html_text, hidden_characters
from kenning.ui import charts
from kenning.ui.app import PAGE_SIZE, PageFilters, memory_facts

from .cli_runner import run_cli
from .conftest import PROJECT_REMOTE, make_repo

NOW = datetime(2026, 6, 3, 15, 0, tzinfo=UTC)  # a Wednesday


def memory(**changes: object) -> Memory:
    base = Memory(
        id="m1",
        content="Use snake_case for Python function names.",
        collection="conventions",
        type="naming",
        group_id="acme/widgets",
        stored_at=NOW,
        content_hash="h",
    )
    return Memory(**{**base.__dict__, **changes})  # type: ignore[arg-type]


def test_weeks_are_monday_to_sunday_and_older_ones_are_counted_apart() -> None:
    assert charts.week_start(NOW) == datetime(2026, 6, 1, tzinfo=UTC)
    stored = [
        NOW,  # this week
        datetime(2026, 6, 1, 0, 0, tzinfo=UTC),  # Monday 00:00: this week
        datetime(2026, 5, 31, 23, 59, tzinfo=UTC),  # Sunday: the week before
        NOW - timedelta(weeks=11),  # the first week shown
        NOW - timedelta(weeks=12),  # older
        NOW - timedelta(days=400),  # older
    ]
    chart = charts.added_per_week(stored, NOW, weeks=12)
    values = [b.value for b in chart.bars]
    assert values == [1] + [0] * 9 + [1, 2]
    assert chart.note == "2 older" and chart.bars[-1].label == "week of Jun 1"
    assert chart.bars[-1].height == pytest.approx(96) and chart.bars[0].height == pytest.approx(48)


def test_recall_histogram_bins_and_floors() -> None:
    chart = charts.recall_histogram([0.0, 0.049, 0.05, 0.52, 0.99, 1.0, -0.2, 1.3], [0.5, 0.4], 3)
    values = [b.value for b in chart.bars]
    assert len(values) == 20 and sum(values) == 8
    assert values[0] == 3 and values[1] == 1 and values[10] == 1 and values[19] == 3
    assert [b.kind for b in chart.bars][7:9] == ["", "hit"]  # 0.40 is the lowest floor
    assert [m.label for m in chart.marks] == ["floor 0.40", "floor 0.50"]
    assert chart.marks[1].x == pytest.approx(chart.width * 0.5)
    assert "3 recent recalls, 8 candidates" in chart.title


def test_horizontal_bars_scale_to_the_largest_and_skip_zeros() -> None:
    chart = charts.horizontal_bars("t", {"code-patterns": 4, "conventions": 0, "discussions": 2})
    assert [(b.label, b.value) for b in chart.bars] == [("code-patterns", 4), ("discussions", 2)]
    assert chart.bars[0].width == pytest.approx(2 * chart.bars[1].width)
    assert charts.horizontal_bars("t", {"a": 0}).empty


def test_the_type_plot_counts_a_type_kenning_does_not_list() -> None:
    """A type another tool wrote into the store had no bar: the header said 3 memories and
    the type plot 2 (README: the plots count the same memories)."""
    from kenning.ui.app import type_counts_in_order

    counts = type_counts_in_order({"zz_tool": 1, "rule": 2, "error_fix": 4, "custom": 3})
    assert sum(counts.values()) == 10 and list(counts)[-2:] == ["custom", "zz_tool"], counts
    assert list(counts)[:2] == ["error_fix", "rule"], counts  # kenning's order first


def test_page_filters_from_the_address() -> None:
    f = PageFilters.from_params(
        {"q": "  locked  ", "age": ">90", "limit": "9999", "stale": "stale"}
    )
    assert (f.query, f.age, f.limit, f.stale) == ("locked", ">90", 500, "stale")
    after, before = f.stored_window(NOW)
    assert after is None and before == NOW - timedelta(days=90)
    assert f.narrows_after_search
    assert PageFilters.from_params({"limit": "x"}).limit == 20
    assert PageFilters(query="a b", type="rule").params(limit=40) == "q=a+b&type=rule&limit=40"
    with pytest.raises(UserInputError, match="unknown age filter"):
        PageFilters.from_params({"age": "42"})
    with pytest.raises(UserInputError, match="unknown stale filter"):
        PageFilters.from_params({"stale": "mouldy"})


def test_memory_facts_show_a_memory_seen_again() -> None:
    """``seen_count`` / ``last_seen_at`` show once a near-duplicate refreshed the memory,
    None (left out of the page) otherwise; ``stale`` comes from the store's freshness check."""
    assert memory_facts(memory()) == {
        "seen_count": None,
        "last_seen_at": None,
        "stale": None,
        "changed": (),
        "reviewed_at": None,
        "edited_at": None,
    }
    later = NOW + timedelta(days=1)
    seen = memory(seen_count=3, last_seen_at=later)
    assert memory_facts(seen)["seen_count"] == 3
    assert memory_facts(seen)["last_seen_at"] == later
    assert memory_facts(memory(metadata={"stale": True}))["stale"] is None  # not a metadata key

    from kenning.ui.app import _templates

    macro = _templates().get_template("_macros.html").module.memory_meta  # type: ignore[attr-defined]
    assert 'seen</dt><dd class="seen-count">3×' in str(macro(seen))
    assert "seen-count" not in str(macro(memory()))
    # edited and reviewed as stored is shown: they were the raw text kenning wrote
    # ("2026-12-04T16:45:26.808824+00:00"); a value of another writer stays its text
    stamped = memory(
        metadata={"edited_at": "2026-12-04T16:45:26.808824+00:00", "reviewed_at": "<b>soon"}
    )
    shown = str(macro(stamped))
    assert "<dt>edited</dt><dd>2026-12-04 16:45</dd>" in shown, shown
    assert "&lt;b&gt;soon" in shown and "<b>" not in shown, shown


def test_stale_mark_names_the_changed_files_as_text() -> None:
    from kenning.model import FileState, Freshness
    from kenning.ui.app import _templates

    blob = "a" * 40
    stale = Freshness(
        (
            FileState("src/ok.py", blob, blob, "fresh"),
            FileState('src/<b id="x">.py', blob, "b" * 40, "changed"),
            FileState("docs/gone.md", blob, None, "missing", "no such file"),
        )
    )
    facts = memory_facts(memory(), stale)
    assert facts["stale"] is True
    assert [f.path for f in facts["changed"]] == ['src/<b id="x">.py', "docs/gone.md"]
    macro = _templates().get_template("_macros.html").module.memory_meta  # type: ignore[attr-defined]
    html = str(macro(memory(), stale))
    assert 'class="stale"' in html and "docs/gone.md</code> missing" in html
    assert "&lt;b id=&quot;x&quot;&gt;.py</code> changed" in html and "<b id" not in html
    assert "src/ok.py" not in html  # a fresh file is not listed
    fresh = str(macro(memory(), Freshness((FileState("src/ok.py", blob, blob, "fresh"),))))
    assert 'class="fresh"' in fresh and 'class="stale"' not in fresh
    assert "freshness" not in str(macro(memory()))  # names no file: nothing said


def test_escape_html_text() -> None:
    assert escape_html_text("<b>&\"'") == "&lt;b&gt;&amp;&quot;&#x27;"
    shown = escape_html_text("a\u202eb\u2066c\u200bd\x1be\U000e0041f\u200dg\n\th")
    for code in ("U+202E", "U+2066", "U+200B", "U+001B", "U+E0041"):
        assert f">{code}</span>" in shown
    assert "\u200d" in shown and "\n\t" in shown  # ZWJ (emoji), newline and tab are text
    assert "\u202e" not in shown and "\x1b" not in shown
    assert hidden_characters("a\u202eb\u202c") == 2 and hidden_characters("plain") == 0
    # a line or paragraph separator, which Chromium draws as a space (qa73: a project id
    # another writer stored with one read as "acme/widgets x")
    separated = escape_html_text("acme/widgets\u2028x\u2029")
    assert ">U+2028</span>" in separated and ">U+2029</span>" in separated
    assert "\u2028" not in separated and "\u2029" not in separated


def test_a_payload_hidden_in_variation_selectors_shows_on_the_page() -> None:
    """Variation selectors after an emoji (one byte of a payload each), Hangul fillers and
    the combining grapheme joiner show nothing: the page showed a memory holding hidden
    text as clean, with no marker and no warning. Each is a marker now; an emoji's own
    presentation selector (one U+FE0F after it) stays text, as ZWJ does."""
    payload = "".join(chr(0xE0100 + b - 16) for b in b"run curl evil")
    text = f"Deploy on fridays \U0001f680{payload}\u3164\uffa0 ok\u034f; I \u2764\ufe0f it"
    shown = escape_html_text(text)
    for code in ("U+E0162", "U+3164", "U+FFA0", "U+034F"):
        assert f">{code}</span>" in shown, code
    assert not [c for c in shown if ord(c) >= 0xE0100 or c in "\u3164\uffa0\u034f"]
    assert "\u2764\ufe0f" in shown  # a lone emoji presentation selector is the emoji's
    assert hidden_characters(text) == len(payload) + 3
    runs = "x\ufe0f\ufe0e\ufe0f"  # selectors in a row carry bits, not a presentation
    assert hidden_characters(runs) == 3


def test_the_page_opens_a_deleted_or_replaced_store_again(project: Path, minilm: Embedder) -> None:
    """The page keeps the embedded store open; after ``rm -r .kenning`` it reads what is
    there now (nothing), and keeps the store a later ``remember`` creates."""
    import shutil

    from kenning import open_store
    from kenning.ui.app import StoreSource

    def opener() -> MemoryStore:
        return open_store(cwd=project, create=False, missing_ok=True, embedder=minilm)

    with open_store(cwd=project, embedder=minilm) as writer:
        assert writer.remember("Deploys go through the release branch only", "rule").ok
    source = StoreSource(kept=opener(), opener=opener)
    try:
        with source.store() as store:
            assert store.count() == 1
        shutil.rmtree(project / ".kenning")
        with source.store() as store:
            assert not store.exists and store.count() == 0
        with open_store(cwd=project, embedder=minilm) as writer:
            assert writer.remember("Every API handler logs the request id", "rule").ok
        with source.store() as first:
            assert first.count() == 1
        with source.store() as second:
            assert second is first  # kept again
    finally:
        source.close()


def test_show_more_goes_past_the_rows_one_page_holds(project: Path) -> None:
    """With more memories than one page holds (MAX_ROWS), "show more" moves a page further
    instead of asking for the same rows again (it was stuck at 500 of 602)."""
    import re

    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.store import NewMemory
    from kenning.ui.app import MAX_ROWS, StoreSource, create_app

    assert PageFilters(limit=PAGE_SIZE).more(PAGE_SIZE, 602) == f"limit={2 * PAGE_SIZE}"
    assert PageFilters(limit=MAX_ROWS).more(MAX_ROWS, 602) == f"limit={MAX_ROWS}&from={MAX_ROWS}"
    assert PageFilters(limit=MAX_ROWS, offset=MAX_ROWS).more(102, 602) is None
    notes = [
        NewMemory(f"Widget {i} ships with gadget {i * 7} and part {i * 13}", "rule")
        for i in range(602)
    ]
    with open_store(cwd=project, embedder="hashing") as store:
        assert all(r.ok for r in store.remember_many(notes, near_duplicates=False))
    source = StoreSource(
        opener=lambda: open_store(cwd=project, create=False, missing_ok=True, embedder="hashing")
    )
    app = create_app(source, port=8123, token="t")
    seen: list[str] = []
    with TestClient(app, base_url="http://127.0.0.1:8123") as client:
        client.get("/?token=t")
        address = f"/?limit={MAX_ROWS}"
        for _ in range(5):  # two pages are enough; the old link asked for the same page
            if not address:
                break
            html = client.get(address).text
            seen += _ids_shown(html)
            more = re.search(r'<a class="more" href="([^"]+)"', html)
            address = more.group(1).replace("&amp;", "&") if more else ""
    source.close()
    assert len(seen) == len(set(seen)) == 602


def test_the_page_shows_another_writer_s_credentials_redacted(project: Path) -> None:
    """qa-s64b T2: every reader of the store redacts what another writer (an older kenning,
    another tool) left in a note, but the page showed it, in the list, a search, the note's
    page and the edit form, in its text, source and tags."""
    import json
    import sqlite3

    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.ui.app import StoreSource, create_app

    github = "ghp_" + "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    with open_store(cwd=project, embedder="hashing") as store:
        store.remember("All timestamps are stored in UTC", "rule")
    with contextlib.closing(sqlite3.connect(project / ".kenning" / "memory.db")) as conn:
        conn.execute(
            "UPDATE memories SET content = content || ?, source = ?, tags = ?",
            (f"; the CI token is {github}", f"docs/{github}.md", json.dumps([f"tok:{github}"])),
        )
        conn.commit()
        (memory_id,) = conn.execute("SELECT id FROM memories").fetchone()
    source = StoreSource(
        opener=lambda: open_store(cwd=project, create=False, missing_ok=True, embedder="hashing")
    )
    app = create_app(source, port=8123, token="t")
    with TestClient(app, base_url="http://127.0.0.1:8123") as client:
        client.get("/?token=t")
        for address in (
            "/",
            "/?q=timestamps+UTC",
            f"/memory?id={memory_id}",
            f"/edit?id={memory_id}",
        ):
            html = client.get(address).text
            assert "stored in UTC" in html and "[REDACTED:" in html, address
            assert github not in html, address
    source.close()


def test_another_writer_s_type_and_collection_show_their_hidden_characters(
    project: Path,
) -> None:
    """The page lists a row of a kind kenning does not know (another tool's), and printed its
    type and collection with autoescape alone: ESC, BEL and a bidi override went into the
    visible text raw (inj7 F4). Each is a visible marker there, as in every other stored
    field; the edit form's option keeps the raw type in its value (what is sent back)."""
    import sqlite3

    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.ui.app import StoreSource, create_app

    with open_store(cwd=project, embedder="hashing") as store:
        store.remember("All timestamps are stored in UTC", "rule")
    kind = ("context\x1b[31m\u202e", "discussions\x1b]0;t\x07")
    with contextlib.closing(sqlite3.connect(project / ".kenning" / "memory.db")) as conn:
        conn.execute("UPDATE memories SET type = ?, collection = ?", kind)
        conn.commit()
        (memory_id,) = conn.execute("SELECT id FROM memories").fetchone()
    source = StoreSource(
        opener=lambda: open_store(cwd=project, create=False, missing_ok=True, embedder="hashing")
    )
    app = create_app(source, port=8123, token="t")
    with TestClient(app, base_url="http://127.0.0.1:8123") as client:
        client.get("/?token=t")
        for address in ("/", f"/memory?id={memory_id}", f"/edit?id={memory_id}"):
            html = client.get(address).text
            assert "stored in UTC" in html, address
            shown = re.sub(r'(value|data-[a-z]+)="[^"]*"', "", html)  # what the page shows
            assert "\x1b" not in shown and "\x07" not in shown, address
            assert "\u202e" not in shown and "U+202E" in html, address
    source.close()


def test_a_change_while_another_process_holds_the_write_lock_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding the store's write lock past SQLite's wait (a long import or
    reembed, a sqlite3 shell): Forget and Mark reviewed answered a bare "Internal Server
    Error" (``sqlite3.OperationalError: database is locked`` escaped the core; the CLI
    printed its traceback), the edit form blamed a duplicate check. Now each says the store
    is locked by another process and that nothing changed; the memory is as it was."""
    import re
    import sqlite3

    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.backends import sqlite as sqlite_backend
    from kenning.ui.app import StoreSource, create_app

    # SQLite's wait, shortened: the other connection holds the lock throughout, so every
    # write here waits its whole timeout and fails whatever its length
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_S", 0.1)
    with open_store(cwd=project, embedder="hashing") as store:
        stored = store.remember("Deploys go through the release branch only", "rule")
        before = store.get(stored.id or "")
    assert before is not None
    source = StoreSource(
        opener=lambda: open_store(cwd=project, create=False, missing_ok=True, embedder="hashing")
    )
    app = create_app(source, port=8123, token="t")
    holder = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    try:
        with TestClient(app, base_url="http://127.0.0.1:8123") as client:
            client.get("/?token=t")
            csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text)
            assert csrf is not None
            holder.execute("BEGIN IMMEDIATE")
            base = f"{before.content_hash}:{before.type}"
            for path, extra in (
                ("/review", {}),
                ("/forget", {}),
                ("/edit", {"content": "Deploys go through main", "type": "rule", "base": base}),
            ):
                response = client.post(
                    path,
                    data={"csrf": csrf[1], "id": before.id, **extra},
                    headers={"Origin": "http://127.0.0.1:8123"},
                    follow_redirects=False,
                )
                assert response.status_code == 400, (path, response.status_code, response.text)
                assert response.headers["content-type"].startswith("text/html"), path
                assert "another process" in response.text and "nothing was changed" in (
                    response.text
                ), path
            holder.execute("ROLLBACK")
    finally:
        holder.close()
        source.close()
    with open_store(cwd=project, embedder="hashing") as store:
        after = store.get(before.id)
    assert after is not None and after.content == before.content
    assert after.metadata == before.metadata


def test_a_refused_edit_shows_the_form_again_with_the_typed_text(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """qa-s67a F4: an edit the store refused (read-only, locked by another process) gave the
    error page, whose one link went to the list: the typed text was lost unless the browser
    kept it. The form comes back with the text typed and the reason, as for a duplicate."""
    import html
    import sqlite3

    from kenning import open_store
    from kenning.backends import sqlite as sqlite_backend

    # SQLite's wait, shortened: the other connection holds the lock throughout, so every
    # write here waits its whole timeout and fails whatever its length
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_S", 0.1)
    with open_store(cwd=project, embedder="hashing") as store:
        before = store.get(store.remember("Deploys go through the release branch", "rule").id)
    assert before is not None
    typed = "Deploys go through the release branch, after two approvals (typed with care)"
    holder = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        response = _send_edit(project, before, typed)
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    assert response.status_code == 400, response.text
    shown = html.unescape(response.text)
    assert "Not saved:" in shown and "another process" in shown, shown
    assert f">{typed}</textarea>" in shown, shown  # the text typed, in the form again
    assert 'action="/edit"' in shown and "← back to the memory" in shown
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.get(before.id) == before


def test_the_page_says_a_read_only_store_is_read_only_and_keeps_a_refused_edit(
    tmp_path: Path,
) -> None:
    """qa-s67a F4: on a store it cannot write (a read-only mount: root's writes are refused
    too) the page offered Edit, Mark reviewed and Forget with no word; the save failed after
    the text was typed. Every page says so now, with the core's reason (what ``kenning
    doctor`` says), and the changes are turned off; an edit sent anyway (a form opened
    before) comes back with its text."""
    import html
    import subprocess

    from kenning import open_store
    from kenning.model import edit_version

    from .test_store_folder import _tmpfs

    with _tmpfs(tmp_path / "mnt", "16m") as mount:
        project = make_repo(mount / "p", remote=PROJECT_REMOTE)
        with open_store(cwd=project, embedder="hashing") as store:
            before = store.get(store.remember("Deploys go through the release branch", "rule").id)
        assert before is not None
        client, source = _page_client(project)
        try:  # writable: nothing said, the changes offered
            listed = client.get("/").text
            assert "read-only" not in listed and f'href="/edit?id={before.id}"' in listed
        finally:
            client.close()
            source.close()
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        client, source = _page_client(project)
        try:
            for address in ("/", f"/memory?id={before.id}", f"/edit?id={before.id}"):
                shown = html.unescape(client.get(address).text)
                assert "This store is read-only here" in shown, (address, shown)
                assert f"make {project / '.kenning'}" in shown, shown  # the core's fix
                assert 'class="read-only-badge"' in shown
                assert f'href="/edit?id={before.id}"' not in shown, address
                assert f'href="/forget?id={before.id}"' not in shown, address
            assert '<button type="submit" disabled' in shown  # Save, turned off
            memory_page = client.get(f"/memory?id={before.id}").text
            assert '<button type="submit" disabled' in memory_page  # Mark reviewed
            typed = "Deploys go through main now (a long careful rewrite)"
            fields = _form_fields(client.get(f"/edit?id={before.id}").text, "/edit")
            fields.update(content=typed, type=before.type, base=edit_version(before))
            response = client.post("/edit", data=fields)
            assert response.status_code == 400, response.text
            shown = html.unescape(response.text)
            assert "Not saved: cannot write the store" in shown and "read-only" in shown
            assert f">{typed}</textarea>" in shown, shown
        finally:
            client.close()
            source.close()
        with open_store(cwd=project, embedder="hashing", create=False) as store:
            assert store.get(before.id) == before


def test_a_damaged_recall_log_line_is_skipped_not_a_broken_page(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line of ``.kenning/recall-log.jsonl`` with a number too large for its place (a
    damaged or hand-edited log: ``"kept": 1e400``, a score of ``1e308``) made every load
    of the page a bare "Internal Server Error" (OverflowError) until the log rotated. The
    log's promise is that unreadable lines are skipped, and the histogram counts a score
    above 1 in its last bin: the page now draws the readable recalls."""
    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.recall_log import read_recent
    from kenning.ui.app import StoreSource, create_app

    monkeypatch.setenv("KENNING_RECALL_LOG", "1")
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember("Deploys go through the release branch only", "rule").ok
        log_path = store.recall_log_path
    at = "2026-06-03T15:00:00+00:00"
    log_path.write_text(
        f'{{"at":"{at}","floor":0.5,"scores":[0.71,0.52],"kept":2}}\n'
        f'{{"at":"{at}","floor":0.5,"scores":[0.6],"kept":1e400}}\n'
        f'{{"at":"{at}","floor":0.5,"scores":[1e308,0.3],"kept":1}}\n'
    )
    entries = read_recent(log_path)
    assert [e.kept for e in entries] == [2, 1]
    chart = charts.recall_histogram([s for e in entries for s in e.scores], [0.5], 2)
    assert chart.bars[-1].value == 1 and sum(b.value for b in chart.bars) == 4
    source = StoreSource(
        opener=lambda: open_store(cwd=project, create=False, missing_ok=True, embedder="hashing")
    )
    try:
        with TestClient(
            create_app(source, port=8123, token="t"),
            base_url="http://127.0.0.1:8123",
            raise_server_exceptions=False,
        ) as client:
            client.get("/?token=t")
            response = client.get("/")
    finally:
        source.close()
    assert response.status_code == 200, response.text
    assert "Recall scores (2 recent recalls, 4 candidates)" in response.text


def test_a_wrong_setting_is_said_on_the_page_without_the_secret_in_it(project: Path) -> None:
    """A token pasted into the wrong line of .env is quoted by the error that refuses the
    setting: every command's error line redacts it, the page showed it as it was."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember("Deploys go through the release branch only", "rule").ok
    client, source = _page_client(project)
    token = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
    try:
        (project / ".env").write_text(f"KENNING_SIMILARITY_THRESHOLD={token}\n")
        response = client.get("/")
    finally:
        source.close()
    assert "KENNING_SIMILARITY_THRESHOLD" in response.text, response.text
    assert token not in response.text and "[REDACTED:" in response.text


def _ids_shown(html: str) -> list[str]:
    """The ids of the memories a page lists, in its order."""
    import re

    return re.findall(r'<li class="memory[^"]*" data-id="([^"]+)"', html)


def _page_client(project: Path) -> tuple[Any, Any]:
    """The page over ``project``'s store (hashing embedder), logged in, and its source."""
    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.ui.app import StoreSource, create_app

    source = StoreSource(
        opener=lambda: open_store(cwd=project, create=False, missing_ok=True, embedder="hashing")
    )
    client = TestClient(create_app(source, port=8123, token="t"), base_url="http://127.0.0.1:8123")
    client.headers["Origin"] = "http://127.0.0.1:8123"
    assert client.get("/?token=t").status_code == 200
    return client, source


def _form_fields(html: str, action: str) -> dict[str, str]:
    """The hidden fields of the page's form posting to ``action``, as a browser sends them."""
    import html as html_lib
    import re

    form = re.search(rf'<form[^>]*action="{action}"[^>]*>(.*?)</form>', html, re.S)
    assert form is not None, html
    return {
        html_lib.unescape(name): html_lib.unescape(value)
        for name, value in re.findall(
            r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form[1]
        )
    }


def _send_edit(project: Path, before: Memory, content: str, **post: Any) -> Any:
    """The page's edit form for ``before`` sent with ``content`` (its type kept), as a
    browser sends it: the page's response."""
    from kenning.model import edit_version

    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/edit?id={before.id}").text, "/edit")
        fields.update(content=content, type=before.type, base=edit_version(before))
        return client.post("/edit", data=fields, **post)
    finally:
        client.close()
        source.close()


def test_forget_never_deletes_a_text_changed_since_the_question(project: Path) -> None:
    """The question "Forget this memory?" shows the memory's text; an agent (``kenning
    edit``, another tab) changing it before the person clicks "Forget it" made the click
    delete the new text, which the person never saw (an edit form refuses exactly this).
    Now the confirmation carries the version it showed: a memory changed since is kept, and
    the question is asked again with the text as it is now."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/forget?id={memory_id}").text, "/forget")
        with open_store(cwd=project, embedder="hashing") as store:
            assert store.update(memory_id, content="Backups run nightly at 03:00 UTC.").ok
        response = client.post("/forget", data=fields, follow_redirects=False)
        assert response.status_code == 409, response.text
        assert "changed since you opened this page" in response.text
        assert "Backups run nightly at 03:00 UTC." in response.text
        with open_store(cwd=project, embedder="hashing") as store:
            kept = store.get(memory_id)
        assert kept is not None and kept.content == "Backups run nightly at 03:00 UTC."
        # the question asked again, about the text as it is now: confirmed, it is forgotten
        again = _form_fields(response.text, "/forget")
        response = client.post("/forget", data=again, follow_redirects=False)
        assert response.status_code == 303
        with open_store(cwd=project, embedder="hashing") as store:
            assert store.get(memory_id) is None
    finally:
        client.close()
        source.close()


def test_mark_reviewed_vouches_only_for_the_text_shown(project: Path) -> None:
    """The button "Mark reviewed" records that a person checked the memory (``reviewed_at``, its files
    recorded as fresh). Clicked on a page showing an older text (an agent edited it
    meanwhile), it vouched for the new text, which the person never read. Now the button
    carries the version it was shown with: a memory changed since is not marked, and its
    page shows it as it is now."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/memory?id={memory_id}").text, "/review")
        with open_store(cwd=project, embedder="hashing") as store:
            assert store.update(memory_id, content="Backups run weekly on Sundays.").ok
        response = client.post("/review", data=fields, follow_redirects=False)
        assert response.status_code == 409, response.text
        assert "changed since" in response.text and "Backups run weekly on Sundays." in (
            response.text
        )
        with open_store(cwd=project, embedder="hashing") as store:
            memory = store.get(memory_id)
        assert memory is not None and "reviewed_at" not in memory.metadata
        # marked from the page as it is now
        response = client.post(
            "/review", data=_form_fields(response.text, "/review"), follow_redirects=False
        )
        assert response.status_code == 303
        with open_store(cwd=project, embedder="hashing") as store:
            memory = store.get(memory_id)
        assert memory is not None and "reviewed_at" in memory.metadata
    finally:
        client.close()
        source.close()


def test_mark_reviewed_says_files_were_recorded_only_when_the_note_names_files(
    project: Path,
) -> None:
    """qa-s67a F2: "Mark reviewed" on a note that names no file (most conventions and
    decisions) said "the files it names are recorded as they are now". It says "Marked as
    reviewed." now, and the files part only for a note whose files were recorded."""
    import html

    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        no_file = store.remember("All timestamps are stored in UTC.", "rule").id or ""
        names_one = store.remember("README.md must list every setting.", "rule").id or ""
    client, source = _page_client(project)
    try:
        for memory_id, files_said in ((no_file, False), (names_one, True)):
            fields = _form_fields(client.get(f"/memory?id={memory_id}").text, "/review")
            shown = html.unescape(client.post("/review", data=fields).text)
            assert "Marked as reviewed" in shown, shown
            assert ("recorded as they are now" in shown) is files_said, shown
            if not files_said:
                assert "Marked as reviewed.</p>" in shown, shown
        with open_store(cwd=project, embedder="hashing") as store:
            plain, named = store.get(no_file), store.get(names_one)
        assert plain is not None and "file_blobs" not in plain.metadata
        assert named is not None and "README.md" in named.metadata["file_blobs"]
    finally:
        client.close()
        source.close()


def test_marking_a_forgotten_memory_reviewed_says_it_is_gone(project: Path) -> None:
    """A "Mark reviewed" on a memory forgotten since its page was shown answered 400 "That
    did not work: no memory with id …"; edit and forget answer 404 "No such memory"."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/memory?id={memory_id}").text, "/review")
        with open_store(cwd=project, embedder="hashing") as store:
            assert store.forget(memory_id)
        response = client.post("/review", data=fields, follow_redirects=False)
        assert response.status_code == 404, response.text
        assert "No such memory" in response.text
    finally:
        client.close()
        source.close()


def test_the_address_a_refused_review_leaves_opens_the_list(project: Path) -> None:
    """A refused "Mark reviewed" (409) leaves /review in the address bar; opening that
    address again answered Starlette's bare "405 Method Not Allowed" instead of a page."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
    client, source = _page_client(project)
    try:
        response = client.get("/review", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == "/"
        response = client.get("/review")
        assert response.status_code == 200 and memory_id in _ids_shown(response.text)
        with open_store(cwd=project, embedder="hashing") as store:
            memory = store.get(memory_id)
        assert memory is not None and "reviewed_at" not in memory.metadata  # a GET marks nothing
    finally:
        client.close()
        source.close()


def test_an_edit_too_large_to_read_says_the_limit_and_that_nothing_changed(
    project: Path,
) -> None:
    """A text pasted into the edit box past what the page reads (a whole log: over 2 MiB)
    got a bare "The form is too large." — no limit to aim for, nothing about the memory.
    Now the answer names the 64 KiB a memory holds, says nothing was changed and how to go
    on; the memory is as it was."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
        before = store.get(memory_id)
    assert before is not None
    response = _send_edit(project, before, "log line\n" * 250_000, follow_redirects=False)
    assert response.status_code == 413
    assert "64 KiB" in response.text and "nothing was changed" in response.text.lower()
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.get(memory_id) == before


def test_an_edit_refused_as_a_duplicate_names_the_secrets_that_made_it_one(
    project: Path,
) -> None:
    """The page refused an edit as a near-duplicate of a memory whose text differed in its
    secret alone, with no word of the redaction that made the two the same."""
    from kenning import open_store

    kept = "Staging deploys read DB_PASSWORD=Zq9xTb42pw from the vault"
    with open_store(cwd=project, embedder="hashing") as store:
        existing = store.remember(kept, "rule").id
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
        before = store.get(memory_id)
    assert before is not None
    response = _send_edit(project, before, kept.replace("Zq9xTb42pw", "Hk3mWv87qa"))
    assert response.status_code == 409
    assert f"near-duplicate of memory {existing} (score 1.00; with its secrets redacted: " in (
        response.text
    )
    assert "1 password_assignment). Nothing was changed." in response.text
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.get(memory_id) == before


def test_a_type_the_text_maps_back_says_why_nothing_changed(project: Path) -> None:
    """Choosing "context" for an ERROR-FIX entry answered "Nothing changed." alone: the type
    stays error_fix (README: context holding an ERROR-FIX entry is error_fix), and the
    person took the save for lost. The message says why."""
    from kenning import open_store
    from kenning.model import edit_version

    fix = "ERROR-FIX: ImportError: numpy | FIX: pip install numpy in the venv"
    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember(fix, "error_fix").id or ""
        before = store.get(memory_id)
    assert before is not None
    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/edit?id={memory_id}").text, "/edit")
        fields.update(content=before.content, type="context", base=edit_version(before))
        response = client.post("/edit", data=fields)
    finally:
        client.close()
        source.close()
    assert response.status_code == 200, response.text
    assert "for this text the type context is error_fix" in response.text, response.text
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.get(memory_id) == before


def test_saving_a_note_shown_redacted_says_its_secrets_are_redacted_now(project: Path) -> None:
    """qa-s64c U6: the edit form shows a credential another writer left in a note redacted,
    so saving the form as it was stores the note redacted; the page said only "Saved:
    re-embedded", nothing of the secret taken out of the stored text."""
    import html as html_lib
    import re
    import sqlite3

    from kenning import open_store

    github = "ghp_" + "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("All timestamps are stored in UTC", "rule").id or ""
    with contextlib.closing(sqlite3.connect(project / ".kenning" / "memory.db")) as conn:
        conn.execute("UPDATE memories SET content = content || ?", (f"; CI token {github}",))
        conn.commit()
    with open_store(cwd=project, embedder="hashing") as store:
        before = store.get(memory_id)
    assert before is not None and github in before.content
    client, source = _page_client(project)
    try:
        form = client.get(f"/edit?id={memory_id}").text
        shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", form, re.S)
        assert shown is not None and github not in form
        fields = _form_fields(form, "/edit")
        fields.update(content=html_lib.unescape(shown[1]).strip("\n"), type=before.type)
        response = client.post("/edit", data=fields)
    finally:
        client.close()
        source.close()
    assert response.status_code == 200, response.text
    assert "The secrets it held (1 github_token), shown redacted in the form, are " in (
        response.text
    )
    with open_store(cwd=project, embedder="hashing") as store:
        after = store.get(memory_id)
    assert after is not None and github not in after.content
    assert "[REDACTED:github_token]" in after.content


def test_saving_the_same_text_with_a_line_break_added_changes_nothing(project: Path) -> None:
    """The edit form saved with nothing changed but whitespace (a browser's line break
    at the end, a space) stamped "edited" and made the memory look new; now the page says
    "Nothing changed." and the memory is as it was."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
        before = store.get(memory_id)
    assert before is not None
    response = _send_edit(project, before, before.content + "\r\n")
    assert response.status_code == 200 and "Nothing changed." in response.text
    assert "edited" not in response.text
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.get(memory_id) == before


def test_a_query_that_shows_nothing_lists_as_a_blank_one_does(project: Path) -> None:
    """A query of zero-width spaces or a byte-order mark answered 400, "the query is empty",
    where a blank one shows the list: it is no query either, and shows the list."""
    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        kept = store.remember("Deploys happen on Tuesdays only", "decision").id
    client, source = _page_client(project)
    try:
        blank = client.get("/?q=++")
        assert blank.status_code == 200 and _ids_shown(blank.text) == [kept]
        for query in ("%E2%80%8B%E2%80%8B", "%EF%BB%BF", "%E2%81%A0+%E2%80%8D"):
            page = client.get(f"/?q={query}")
            assert page.status_code == 200, (query, page.text[:300])
            assert _ids_shown(page.text) == [kept], query
    finally:
        source.close()


def test_a_type_outside_the_collection_is_named_by_browse_and_search_alike(
    project: Path,
) -> None:
    """collection=conventions with type=error_fix: search said the type is not one of the
    collection's, while browsing (and the page's list, and its count) silently showed "0
    memories" — as if there were none. Now every read names the mistake the same way."""
    from kenning import open_store
    from kenning.errors import InvalidTypeError

    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember(
            "ERROR-FIX: npm ERR! code ERESOLVE | FIX: align peers", "error_fix"
        ).ok
        for read in (
            lambda: store.browse(collection="conventions", memory_type="error_fix"),
            lambda: store.newest(5, collection="conventions", memory_type="error_fix"),
            lambda: store.count(collection="conventions", memory_type="error_fix"),
            lambda: store.search("npm", collection="conventions", memory_type="error_fix"),
        ):
            with pytest.raises(InvalidTypeError, match="do not belong to collection conventions"):
                read()
        assert store.count(collection="code-patterns", memory_type="error_fix") == 1
    client, source = _page_client(project)
    try:
        pages = [
            client.get(f"/?collection=conventions&type=error_fix{extra}")
            for extra in ("", "&q=npm+peers", "&age=7", "&from=20")
        ]
    finally:
        client.close()
        source.close()
    for page in pages:
        assert page.status_code == 400, page.text
        assert "error_fix do not belong to collection conventions" in page.text


def _no_store_page(project: Path, store: Path, *, store_option: bool) -> str:
    """The page, unescaped, of ``kenning ui`` started on ``store`` (given with ``--store``
    or not) before anything is there."""
    import html as html_lib

    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.ui.app import StoreSource, create_app

    source = StoreSource(
        opener=lambda: open_store(
            store, cwd=project, create=False, missing_ok=True, embedder="hashing"
        )
    )
    app = create_app(source, port=8123, token="t", store_option=store_option)
    try:
        with TestClient(app, base_url="http://127.0.0.1:8123") as client:
            return html_lib.unescape(client.get("/?token=t").text)
    finally:
        source.close()


def test_no_store_yet_names_the_store_the_page_was_started_with(
    project: Path, tmp_path: Path
) -> None:
    """``kenning ui --store elsewhere/x.db`` before that store exists: the page advised a
    plain ``kenning remember``, which writes the project's default store, not the one the
    page reads, so the page stayed empty. Now the advice carries the same ``--store``."""
    # inside the project: a store `kenning remember --store` creates (outside it, the
    # store-location guard refuses it: the next test)
    elsewhere = project / "team notes" / "x.db"
    for store_option, command in (
        (True, f"kenning remember --store '{elsewhere}'</code>"),
        (False, "kenning remember</code> (or"),
    ):
        page = _no_store_page(project, elsewhere, store_option=store_option)
        assert 'id="no-store"' in page and command in page, page


def test_no_store_outside_the_project_is_not_said_to_be_created_by_remember(
    project: Path, tmp_path: Path
) -> None:
    """``kenning ui --store ../elsewhere/x.db`` (a mistyped path, a store moved) before
    anything is there: the page said ``kenning remember --store …`` creates it, and run as
    told remember refused to write outside the project root. The page says nothing is
    there and to check the path."""
    elsewhere = tmp_path / "team notes" / "x.db"
    page = _no_store_page(project, elsewhere, store_option=True)
    assert 'id="no-store"' in page and str(elsewhere) in page, page
    assert "kenning remember --store" not in page and "check the path" in page, page
    told = run_cli(project, "remember", "--store", str(elsewhere), "Deploy on Fridays, never.")
    assert told.returncode == 1 and not elsewhere.exists(), told.stderr


def test_opening_the_printed_address_again_keeps_the_tabs_already_open_working(
    project: Path,
) -> None:
    """Each visit of the printed address started a new session and replaced the cookie
    every tab of the browser shares: a tab opened before (or the bookmark's second visit)
    then refused its Save, Forget and Mark reviewed with "The form's CSRF token is missing
    or wrong". Now a browser that has a session keeps it; a form of no session says that
    nothing was changed and what to do."""
    from kenning import open_store
    from kenning.model import edit_version

    with open_store(cwd=project, embedder="hashing") as store:
        memory_id = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/memory?id={memory_id}").text, "/review")
        assert client.get("/?token=t").status_code == 200  # the address, opened again
        response = client.post("/review", data=fields, follow_redirects=False)
        assert response.status_code == 303, response.text
        with open_store(cwd=project, embedder="hashing") as store:
            memory = store.get(memory_id)
        assert memory is not None and "reviewed_at" in memory.metadata
        # another token: its first character changed (to "x" unless it is one already: 1 run
        # in 64 sent the same token and had it accepted)
        token = fields["csrf"]
        wrong = ("y" if token[0] == "x" else "x") + token[1:]
        stale = {**fields, "csrf": wrong, "base": edit_version(memory)}
        refused = client.post("/review", data=stale, follow_redirects=False)
        assert refused.status_code == 403
        assert "Nothing was changed" in refused.text and "Reload the page" in refused.text
    finally:
        client.close()
        source.close()


def _decoded_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the rows the SQLite backend decodes (every read decodes each row it
    returns): what a page costs, in rows, whatever the machine's speed."""
    from kenning.backends import sqlite as sqlite_backend

    count = [0]
    real = sqlite_backend.decode_memory

    def counting(row: Any) -> Any:
        count[0] += 1
        return real(row)

    monkeypatch.setattr(sqlite_backend, "decode_memory", counting)
    return count


def test_a_page_further_reads_only_the_rows_up_to_its_last(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's "show more" past one page (``from=…``) decoded every memory of the project
    to show the next ones: 1.8 s a page at 100k memories (the newest page: 0.1 s). It reads
    the rows up to its last now, as the newest page reads its own: as fast as that page.
    Built through the bulk path (``remember_many``); the rows shown are the same."""
    newest = _aged_project(project)
    decoded = _decoded_rows(monkeypatch)
    client, source = _page_client(project)  # the first page (its stats kept until a change)
    try:
        decoded[0] = 0
        html = client.get("/?from=500").text
    finally:
        source.close()
    assert _ids_shown(html) == newest[500:520]
    assert f"{len(newest) - 520} left" in html
    # the rows up to the page's last, not the project's 1,600
    assert decoded[0] <= 600, decoded


#: The memories of :func:`_aged_project`'s store and the hours between two of them: 103
#: days, so that "older than 90 days" holds more than a page (206 memories) past 1,394
#: newer ones, "last 7 days" (109) more than the 100 rows an age page may decode, none is
#: older than a year, and the page 500 rows in has 1,080 after it. Every age and page test
#: reads this one store (~0.5 s of CPU to build through remember_many, ~1.2 s as an export
#: retimed and imported; 3,000 memories 1.1 hours apart, 2,000 and 400 more took 5.8 s): the
#: bounds on the rows a page decodes stay below the whole store's, and those of a page of
#: "last 7 days" or "older than" below their whole window's.
AGED_MEMORIES = 1600
AGED_HOURS_APART = 1.55
#: The stores :func:`_aged_project` built in this process, by ``(n, hours_apart)``: a copy of
#: the project's ``.kenning`` folder, the ids newest first, and when it was built.
_AGED: dict[tuple[int, float], tuple[Path, list[str], float]] = {}
#: How long a built store is copied instead of built again: its times count back from when
#: it was built, and the age filters' bounds (7 and 90 days) lie 42 minutes or more from the
#: nearest memory's time at 1.55 hours apart.
_AGED_REUSED_FOR_S = 300.0


def _aged_project(
    project: Path, n: int = AGED_MEMORIES, hours_apart: float = AGED_HOURS_APART
) -> list[str]:
    """``n`` memories in ``project``'s store, ``hours_apart`` going back from now (the bulk
    path, ``remember_many`` with their times); their ids newest first."""
    kept = _AGED.get((n, hours_apart))
    if kept is not None and time.monotonic() - kept[2] < _AGED_REUSED_FOR_S:
        shutil.copytree(kept[0], project / ".kenning")
        return list(kept[1])
    built = time.monotonic()
    newest = _build_aged_project(project, n, hours_apart)
    template = Path(tempfile.mkdtemp(prefix="kenning-test-aged-")) / ".kenning"
    atexit.register(shutil.rmtree, template.parent, True)
    shutil.copytree(project / ".kenning", template)
    _AGED[(n, hours_apart)] = (template, newest, built)
    return list(newest)


def _build_aged_project(project: Path, n: int, hours_apart: float) -> list[str]:
    from kenning import open_store
    from kenning.store import NewMemory

    now = datetime.now(UTC)
    notes = []
    for i in range(n):  # hours_apart apart, going back from now
        at = now - timedelta(hours=hours_apart * i)
        notes.append(
            NewMemory(
                f"Service {i} retries {i * 7} times against host h{i * 13}",
                "rule",
                stored_at=at,
                last_seen_at=at,
            )
        )
    with open_store(cwd=project, embedder="hashing") as store:
        assert all(r.ok for r in store.remember_many(notes, near_duplicates=False))
        return [m.id for m in store.browse()]


def test_an_age_filter_reads_only_the_rows_up_to_its_pages_last(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's age filter ("last 7 days", "older than 90 days") decoded every memory of
    the project to show twenty: 0.8 s a page at 100k memories for the last day (the newest
    page: 0.1 s). "Last N days" is a prefix of the newest-first order: it reads the rows up
    to the page's last and counts the window from the stored times alone; "older than"
    does so too while the newer rows are within what newest reads at once. The rows shown
    and counted are the same. Built through the bulk path (``remember_many``)."""
    import re

    n = AGED_MEMORIES
    newest = _aged_project(project)
    per_day = 24 / AGED_HOURS_APART
    decoded = _decoded_rows(monkeypatch)
    client, source = _page_client(project)  # the first page (its stats kept until a change)
    try:
        decoded[0] = 0
        html = client.get("/?age=7").text
        week = decoded[0]
        in_week = int(7 * per_day) + 1
        assert _ids_shown(html) == newest[:20]
        assert f"{in_week} memories" in html, re.findall(r"\d+ memories", html)
        assert in_week > 100  # the bound below: reading the whole week is over it
        last = in_week // PAGE_SIZE * PAGE_SIZE  # the week's last page, a part one
        assert PAGE_SIZE <= last < in_week
        html = client.get(f"/?age=7&from={last}").text
        assert _ids_shown(html) == newest[last:in_week]
        html = client.get("/?age=%3E90&from=20").text
        older = n - (int(90 * per_day) + 1)
        assert _ids_shown(html) == newest[n - older + 20 : n - older + 40]
        assert f"{older} memories" in html
    finally:
        source.close()
    # the rows up to the page's last, not the project's 1,600
    assert week <= 100, week


#: The files :func:`_stale_quarter`'s memories name.
STALE_QUARTER_FILES = 8


@pytest.fixture(scope="module")
def _stale_quarter_built(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[str], list[str]]:
    """:func:`_build_stale_quarter` once for the module: the project (its ``.kenning`` and
    ``src`` to copy), the ids newest first and the stale ones. Two tests read the same 400
    memories (~0.5 s of CPU to build)."""
    # the project fixture's remote: the copy must be this project's store, not another's
    project = make_repo(tmp_path_factory.mktemp("stale") / "proj", remote=PROJECT_REMOTE)
    newest, stale = _build_stale_quarter(project)
    return project, newest, stale


def _stale_quarter(
    project: Path, built: tuple[Path, list[str], list[str]]
) -> tuple[list[str], list[str]]:
    """400 memories in ``project``'s store (the bulk path), each naming one of 8 files, two
    of which change afterwards: the ids newest first, and those of the stale quarter. A
    copy of ``built``'s: the store and the files with their times, as they were left."""
    template, newest, stale = built
    for part in (".kenning", "src"):
        shutil.copytree(template / part, project / part)
    return list(newest), list(stale)


def _build_stale_quarter(project: Path) -> tuple[list[str], list[str]]:
    from kenning import open_store
    from kenning.store import NewMemory

    files = STALE_QUARTER_FILES
    (project / "src").mkdir()
    for k in range(files):
        (project / "src" / f"m{k}.py").write_text(f"def f{k}():\n    return {k}\n")
    notes = [
        NewMemory(f"Service {i} in src/m{i % files}.py retries {i * 7} times", "rule")
        for i in range(400)
    ]
    # no near-duplicate checks (half the build's CPU): the texts differ in their numbers and
    # the store holds the same rows with them; the tests read the stale filter, not them
    with open_store(cwd=project, embedder="hashing") as store:
        assert all(r.ok for r in store.remember_many(notes, near_duplicates=False))
        listed = store.browse()
    for k in range(2):  # a quarter of the memories go stale
        (project / "src" / f"m{k}.py").write_text(f"def f{k}():\n    return {k + 1}\n")
    stale = [m.id for m in listed if int(m.content.split()[1]) % files < 2]
    return [m.id for m in listed], stale


def test_the_stale_filter_checks_each_file_once_not_once_per_memory(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    _stale_quarter_built: tuple[Path, list[str], list[str]],
) -> None:
    """The page's "stale only" filter checks the files of every memory of the project (the
    count is of them all): each file a memory names went through the source-path checks
    and a ``stat`` again for every memory naming it, 1.3 to 7 s at 100k memories naming a
    few hundred files. One listing checks each file once; the memories shown and counted
    are the same. Built through the bulk path (``remember_many``)."""
    from .test_freshness import _source_checks_counted

    newest, stale = _stale_quarter(project, _stale_quarter_built)
    checked = _source_checks_counted(monkeypatch)
    client, source = _page_client(project)
    try:
        checked[0] = 0
        html = client.get("/?stale=stale").text
        assert _ids_shown(html) == stale[:20]
        assert f"{len(stale)} memories" in html
        html = client.get("/?stale=fresh&from=280").text
        assert _ids_shown(html) == [i for i in newest if i not in stale][280:300]
    finally:
        source.close()
    # each file once per listing, and once more for the files the page's 20 shown name (at
    # most all of them), not once per memory: two listings. (Per shown memory, 2 * (8 + 20),
    # is what the pages cost with no file remembered within a listing.)
    assert checked[0] <= 2 * (STALE_QUARTER_FILES + min(STALE_QUARTER_FILES, 20)), checked


def test_the_older_than_filter_reads_only_the_rows_it_shows(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's "older than 90 days" read every newer memory before its own (newest
    first, then skipped), and past 10,000 newer ones (what newest reads at once) every
    memory of the project: 1.4 s a page at 100k. The backend's newest query starts at the
    filter's time now: the page reads its own rows, whatever comes after them."""
    n = AGED_MEMORIES
    newest = _aged_project(project)
    older = n - (int(90 * 24 / AGED_HOURS_APART) + 1)
    decoded = _decoded_rows(monkeypatch)
    client, source = _page_client(project)
    try:
        decoded[0] = 0
        html = client.get("/?age=%3E90").text
        assert _ids_shown(html) == newest[n - older : n - older + 20]
        assert f"{older} memories" in html
        html = client.get("/?age=%3E90&from=40&limit=40").text
        assert _ids_shown(html) == newest[n - older + 40 : n - older + 80]
    finally:
        source.close()
    # the 20 and 80 rows shown, not the 1,394 newer ones before them
    assert decoded[0] <= 20 + 80 + 10, decoded


def test_the_stale_filter_within_an_age_reads_only_that_ages_rows(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The "stale only" (or "fresh only") filter with "last 7 days" or "older than a year" decoded
    every memory of the project to check the few of that age: 1.3 s at 100k memories for
    the 3,500 of the last week, 1.7 s for none older than a year. The age's memories are
    counted from their stored times, and read alone when newest reads them at once; the
    rows shown and counted are the same."""
    import re

    n = AGED_MEMORIES
    newest = _aged_project(project)
    in_week = int(7 * 24 / AGED_HOURS_APART) + 1
    older = n - (int(90 * 24 / AGED_HOURS_APART) + 1)
    decoded = _decoded_rows(monkeypatch)
    client, source = _page_client(project)
    try:
        decoded[0] = 0
        html = client.get("/?age=7&stale=fresh&from=20").text
        week = decoded[0]
        assert _ids_shown(html) == newest[20:40]  # no memory names a file: all fresh
        assert f"{in_week} memories" in html, re.findall(r"\d+ memories", html)
        decoded[0] = 0
        html = client.get("/?age=%3E90&stale=fresh&from=20").text
        old = decoded[0]
        assert _ids_shown(html) == newest[n - older + 20 : n - older + 40]
        assert f"{older} memories" in html
        decoded[0] = 0
        assert _ids_shown(client.get("/?age=%3E365&stale=stale").text) == []
        none = decoded[0]
    finally:
        source.close()
    # the week's and the old memories, not the project's 1,600
    assert week <= in_week + 10 and old <= older + 10 and none <= 10, (week, old, none)


def test_the_stale_filter_reads_only_the_files_recorded_and_the_pages_rows(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    _stale_quarter_built: tuple[Path, list[str], list[str]],
) -> None:
    """The page's "stale only" / "fresh only" filter (no age) decoded every memory of the
    project, text and vector, to check the files each one recorded: 2.6 s at 100k. The
    backend lists each memory's time and file record alone, and only the page's rows are
    decoded; the memories shown and counted are the same. Built through the bulk path."""
    newest, stale = _stale_quarter(project, _stale_quarter_built)
    fresh = [i for i in newest if i not in stale]
    decoded = _decoded_rows(monkeypatch)
    client, source = _page_client(project)  # the first page (its stats kept until a change)
    try:
        decoded[0] = 0
        html = client.get("/?stale=stale").text
        first = decoded[0]
        assert _ids_shown(html) == stale[:20]
        assert f"{len(stale)} memories" in html
        assert "src/m0.py" in html or "src/m1.py" in html  # what changed, as before
        decoded[0] = 0
        html = client.get("/?stale=fresh&from=280").text
        further = decoded[0]
        assert _ids_shown(html) == fresh[280:300]
        assert f"{len(fresh)} memories" in html
    finally:
        source.close()
    # the page's 20 rows, not the project's 400
    assert first <= 30 and further <= 30, (first, further)


def test_a_page_past_what_newest_reads_at_once_decodes_only_its_own_rows(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page of the list past what newest reads at once (its 10,000th row: ``from=10020``),
    or of an age filter holding more than that ("older than 90 days"), decoded every memory
    of the project, text, tags and vector (3 s a page at 100k). The memories' times are
    listed alone and only the page's rows are decoded; the rows shown and counted are the
    same. Built through the bulk path (``remember_many``); the page's bound is 100 here,
    not 10,000, so that the 1,600 memories reach past it."""
    from kenning.ui import app

    monkeypatch.setattr(app, "NEWEST_MAX", 100)
    n = AGED_MEMORIES
    newest = _aged_project(project)
    older = n - (int(90 * 24 / AGED_HOURS_APART) + 1)
    assert older > 100 + 60
    decoded = _decoded_rows(monkeypatch)
    client, source = _page_client(project)  # the first page (its stats kept until a change)
    try:
        decoded[0] = 0
        html = client.get("/?from=120").text
        deep = decoded[0]
        assert _ids_shown(html) == newest[120:140]
        assert f"{n - 140} left" in html
        decoded[0] = 0
        html = client.get("/?age=%3E90&from=140").text
        aged = decoded[0]
        assert _ids_shown(html) == newest[n - older + 140 : n - older + 160]
        assert f"{older} memories" in html
    finally:
        source.close()
    # the page's 20 rows, not the project's 1,600
    assert deep <= 30 and aged <= 30, (deep, aged)


def test_after_a_rename_the_page_says_where_the_notes_are(project: Path) -> None:
    """After a repository rename the page listed "No memory matches." over a store full of
    the project's notes, kept under the old id; it now names that id and the fix."""
    import html as html_lib

    from starlette.testclient import TestClient

    from kenning import open_store
    from kenning.ui.app import StoreSource, create_app

    from .conftest import git

    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember("Deploys go out on Tuesdays.", "decision").ok
    source = StoreSource(opener=lambda: open_store(cwd=project, embedder="hashing"))
    app = create_app(source, port=8123, token="t")
    try:
        with TestClient(app, base_url="http://127.0.0.1:8123") as client:
            assert 'id="other-projects"' not in client.get("/?token=t").text
            git(project, "remote", "set-url", "origin", "git@github.com:Acme/Gadgets.git")
            page = html_lib.unescape(client.get("/?token=t").text)
    finally:
        source.close()
    assert 'id="other-projects"' in page, page
    assert "project acme/gadgets has no memories in this store" in page
    assert "1 under acme/widgets" in page
    assert "`kenning move --from-project acme/widgets` moves it" in page, page  # (one note)


def _written_by_another_tool(project: Path, memory_id: str, **columns: str) -> None:
    """``columns`` of a stored row set as a tool other than kenning writes them (a shared
    store: the AI Memory Module's own types, a hand edit): straight into the SQLite file."""
    import sqlite3

    db = sqlite3.connect(project / ".kenning" / "memory.db")
    try:
        with db:
            for column, value in columns.items():
                db.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, memory_id))
    finally:
        db.close()


def test_a_stored_collection_never_adds_classes_to_the_page(project: Path) -> None:
    """The type's badge took the stored collection into its class attribute as it was: a
    row whose collection holds spaces ("conventions flash error", written by another tool)
    gave the badge the page's own classes (restyled as an alert). The page's stylesheet now
    gets a known collection's class only; the collection is shown as text."""
    import re

    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        stored = store.remember("Deploys go through the release branch only", "rule")
        assert store.remember("Every API handler logs the request id", "guideline").ok
    assert stored.id is not None
    _written_by_another_tool(project, stored.id, collection="conventions flash error danger")
    client, source = _page_client(project)
    try:
        pages = [client.get(address).text for address in ("/", f"/memory?id={stored.id}")]
    finally:
        client.close()
        source.close()
    for html in pages:
        badges = re.findall(r'<span class="([^"]*)">rule</span>', html)
        assert badges and all(classes.split() == ["type"] for classes in badges), badges
        assert "<dd>conventions flash error danger</dd>" in html
    assert '<span class="type type-conventions">guideline</span>' in pages[0]


def test_the_charts_show_hidden_characters_of_stored_names_as_markers(project: Path) -> None:
    """The per-type and per-collection plots drew stored names raw (qa73 F3): a type another
    writer set to U+202E + "noisiced" was drawn as "decision", a collection ending in an
    isolate and a ZWJ drew a second "conventions" bar, and ESC stayed. Such rows are of a
    kind kenning does not know, held and not counted (model.known_kind): the page draws no
    bar of theirs. A bar's label still goes through the one ``untrusted`` filter: each
    hidden character is shown as the list shows it (U+202E), in the SVG text, its title
    and the bar's data-label, and no raw one is left in the plot."""
    import re

    from kenning import open_store
    from kenning.ui.app import _templates

    with open_store(cwd=project, embedder="hashing") as store:
        spoofed = store.remember("Deploys go through the release branch only", "rule")
        doubled = store.remember("Every API handler logs the request id", "guideline")
        assert store.remember("Pin the ORM to 2.x; 3.x broke migrations", "decision").ok
    assert spoofed.id is not None and doubled.id is not None
    _written_by_another_tool(project, spoofed.id, type="\u202enoisiced\u202c\u200b\x1b[31m")
    _written_by_another_tool(project, doubled.id, collection="conventions\u2066\u200d")
    client, source = _page_client(project)
    try:
        html = client.get("/").text
    finally:
        client.close()
        source.close()
    plots = "".join(re.findall(r'<figure class="chart.*?</figure>', html, re.S))
    assert "Memories per type" in plots and "Memories per collection" in plots
    assert not re.search("[\u202e\u202c\u200b\u2066\x1b]", plots), plots
    assert "noisiced" not in plots and 'data-label="decision" data-value="1"' in plots
    # the rule's and the guideline's rows are held apart: the decision is the one counted
    assert 'data-label="discussions" data-value="1"' in plots
    assert 'data-label="conventions"' not in plots, plots

    hidden = {"\u202enoisiced\u202c\u200b\x1b[31m": 1, "conventions\u2066\u200d": 2}
    macro = _templates().get_template("_charts.html").module.chart  # type: ignore[attr-defined]
    plot = str(macro(charts.horizontal_bars("Memories per type", hidden), "types"))
    assert not re.search("[\u202e\u202c\u200b\u2066\x1b]", plot), plot
    label = '<tspan class="ctl" title="hidden control character">{}</tspan>'.format
    assert (
        f"{label('U+202E')}noisiced{label('U+202C')}{label('U+200B')}{label('U+001B')}[31m" in plot
    )
    assert "<title>U+202EnoisicedU+202CU+200BU+001B[31m: 1</title>" in plot
    assert 'data-label="U+202EnoisicedU+202CU+200BU+001B[31m"' in plot
    assert f">conventions{label('U+2066')}\u200d</text>" in plot  # ZWJ: text, as the list
    assert "<span" not in plot  # an HTML element in an SVG would end it


def _select_as_a_browser_sends_it(html: str, name: str) -> str:
    """The value a browser submits for the form's ``<select name=name>``: its selected
    option, else its first (what HTML does when none is marked selected)."""
    import html as html_lib
    import re

    select = re.search(rf'<select[^>]*name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None, html
    options = re.findall(r'<option value="([^"]*)"( selected)?', select[1])
    chosen = [value for value, selected in options if selected] or [options[0][0]]
    return html_lib.unescape(chosen[0])


def test_editing_a_memory_whose_type_the_form_does_not_list_never_changes_its_type(
    project: Path,
) -> None:
    """A memory whose stored type is not one of kenning's (a shared store another tool
    writes: the AI Memory Module's ``agent_handoff``): the edit form's type list held no
    option for it, so the browser sent its first one, and saving a change to the text
    alone silently made the memory an ``implementation`` (in code-patterns). The form now
    offers the memory's own type, selected: saving says what ``kenning edit`` says of that
    type (not one kenning knows: give one of the list), and the memory stays as it was."""
    import html as html_lib

    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        stored = store.remember("Hand the deploy over to the release agent", "session")
    assert stored.id is not None
    _written_by_another_tool(project, stored.id, type="agent_handoff")
    with open_store(cwd=project, embedder="hashing") as store:
        before = store.get(stored.id)
    client, source = _page_client(project)
    try:
        form = client.get(f"/edit?id={stored.id}").text
        sent_type = _select_as_a_browser_sends_it(form, "type")
        response = client.post(
            "/edit",
            data={
                **_form_fields(form, "/edit"),
                "content": "Hand the deploy over to the release agent after QA",
                "type": sent_type,
            },
            follow_redirects=False,
        )
    finally:
        client.close()
        source.close()
    assert sent_type == "agent_handoff"
    assert response.status_code == 400, response.text
    said = html_lib.unescape(response.text)
    assert "the memory's type 'agent_handoff' is not one kenning knows" in said, said
    assert _select_as_a_browser_sends_it(response.text, "type") == "agent_handoff"
    with open_store(cwd=project, embedder="hashing") as store:
        after = store.get(stored.id)
    assert after == before


def test_an_unexpected_failure_is_logged_on_the_terminal_with_its_credentials_redacted(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A library's exception can quote what it was handed (a DSN, a header). The page
    answered 500, and uvicorn printed the traceback on the terminal of `kenning ui` with the
    password as it was (the MCP server's log redacts its tracebacks). The page now logs the
    failure itself, its traceback redacted as the MCP server's is, and answers the 500."""
    import threading
    import time
    import urllib.error
    import urllib.request

    import uvicorn

    from kenning.ui.app import StoreSource, create_app
    from kenning.ui.server import bind

    password = "Hy6tB1q" + "Zr0Lm2"

    def opener() -> MemoryStore:
        raise RuntimeError(f"could not connect to postgresql://app:{password}@db.internal/app")

    sock = bind(0)
    port = sock.getsockname()[1]
    app = create_app(StoreSource(opener=opener), port=port, token="t")
    # as kenning ui configures it (src/kenning/ui/server.py)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any, **kwargs: Any) -> None:
                return None

        browser = urllib.request.build_opener(NoRedirect)
        base = f"http://127.0.0.1:{port}"
        with pytest.raises(urllib.error.HTTPError) as login:
            browser.open(f"{base}/?token=t", timeout=30)
        cookie = login.value.headers["set-cookie"].split(";", 1)[0]
        with pytest.raises(urllib.error.HTTPError) as failed:
            browser.open(urllib.request.Request(f"{base}/", headers={"Cookie": cookie}))
        assert failed.value.code == 500
        assert password not in failed.value.read().decode()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
    # (the page's own log reaches the terminal through logging's last-resort handler, which
    # pytest's capture stands in for here)
    said = capfd.readouterr().err + caplog.text
    assert "RuntimeError" in said, said
    assert password not in said, said
    assert "postgresql://app:[REDACTED:connection_string]@db.internal/app" in said, said


def test_the_header_of_a_store_of_one_memory_counts_it_as_one(project: Path) -> None:
    """A first look at `kenning ui` after one `remember` said "project … · 1 memories · …"."""
    import re

    from kenning import open_store

    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember("Deploys go out on Tuesdays.", "decision").ok
    client, source = _page_client(project)
    try:
        text = re.sub(r"<[^>]+>", "", client.get("/").text)
    finally:
        source.close()
    assert " · 1 memory · " in text, text[:400]


def test_an_age_filter_over_a_searchs_best_results_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A query with the age (or freshness) filter keeps some of search's results, at most
    its 100 best (ranked with decay: the newest first). With more matches than that, the
    old ones were none of them, and the page said "0 results … lower the threshold" though
    every match passed it. It says how many of how many results pass the filters, that more
    may match, and to narrow the query, not to lower the bar."""
    from datetime import UTC, datetime, timedelta

    from kenning import open_store
    from kenning.store import NewMemory

    monkeypatch.setenv("KENNING_SIMILARITY_THRESHOLD", "0.05")
    now = datetime.now(UTC)
    notes = [
        NewMemory(
            f"Deploy cache {i} is purged on every release of service {i}",
            "rule",
            stored_at=now - timedelta(days=(400 if i < 5 else 1)),
        )
        for i in range(130)
    ]
    with open_store(cwd=project, embedder="hashing") as store:
        assert all(r.ok for r in store.remember_many(notes, near_duplicates=False))
    client, source = _page_client(project)
    try:
        html = client.get("/?q=deploy+cache+purged+on+every+release&age=%3E365").text
    finally:
        source.close()
    summary = html[html.index('id="summary"') :].split("</p>", 1)[0]
    assert "of the 100 results at or above the threshold" in summary, summary
    assert "narrow the query" in summary and "lower the threshold" not in summary, summary


def test_the_cascading_reason_names_the_collection_it_counted(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """qa-s69a F4: the page said "1 result at or above the threshold … (cascaded: no result
    passed the threshold (fewer than 3))": the reason counted the primary collection alone,
    and did not say so."""
    from kenning import open_store

    monkeypatch.setenv("KENNING_SIMILARITY_THRESHOLD", "0.05")
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember("Use ruff format, line length 100", "rule").ok
    client, source = _page_client(project)
    try:
        html = client.get("/?q=line+length").text
    finally:
        source.close()
    summary = " ".join(html[html.index('id="summary"') :].split("</p>", 1)[0].split())
    assert "1 result at or above the threshold 0.05" in summary, summary
    assert "(cascaded: no result in code-patterns passed the threshold, fewer than 3)" in summary, (
        summary
    )


def test_an_address_takes_the_start_of_an_id_as_the_cli_does(project: Path) -> None:
    """`kenning recall` shows an id's start (``01a24969-93d9``) and the CLI's forget, edit
    and source take it; the page's addresses took whole ids only ("gone"). Now any start of
    12 hex digits or more names the memory (either case, dashes optional) on every page and
    form; one two ids share is refused naming both, and nothing is forgotten."""
    from dataclasses import replace

    from kenning import open_store
    from kenning.backends.base import MemoryRecord
    from kenning.model import content_hash

    with open_store(cwd=project, embedder="hashing") as store:
        a = store.remember("Backups run nightly at 02:00 UTC.", "rule").id or ""
        b = store.remember("Money is kept in integer cents, never floats.", "rule").id or ""
        # a third id made in a's millisecond, as a batch of writes makes them
        twin = a[:16] + ("0" if a[16] != "0" else "1") + a[17:]
        first = store.get(a)
        assert first is not None and a[:13] != b[:13]
        text = "Durations are stored in whole seconds."
        store.backend.upsert(
            [
                MemoryRecord(
                    replace(first, id=twin, content=text, content_hash=content_hash(text)),
                    store.backend.get_vectors([a])[a],
                )
            ]
        )
    client, source = _page_client(project)
    try:
        shown = client.get(f"/memory?id={b[:13].upper()}")
        assert shown.status_code == 200 and "integer cents" in shown.text, shown.text
        refused = client.get(f"/forget?id={a[:13]}")
        assert refused.status_code == 400, refused.text
        assert a in refused.text and twin in refused.text and "give more of the id" in refused.text
        # the question about the memory a longer start names, confirmed with that start
        fields = _form_fields(client.get(f"/forget?id={a[:17].replace('-', '')}").text, "/forget")
        fields["id"] = a[:17].replace("-", "")
        response = client.post("/forget", data=fields, follow_redirects=False)
        assert response.status_code == 303, response.text
        assert f"Forgot memory {a}." in client.get("/").text
        edited = _form_fields(client.get(f"/edit?id={b[:13]}").text, "/edit")
        edited.update(id=b[:13], content="Money is kept in integer cents, always.", type="rule")
        response = client.post("/edit", data=edited, follow_redirects=False)
        assert response.status_code == 303, response.text
        assert response.headers["location"] == f"/memory?id={b}"
    finally:
        client.close()
        source.close()
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.get(a) is None and store.get(twin) is not None
        changed = store.get(b)
        assert changed is not None and changed.content == "Money is kept in integer cents, always."


def test_an_edit_of_a_memory_forgotten_meanwhile_keeps_the_typed_text(project: Path) -> None:
    """Saving an edit of a memory another process forgot after the form was shown answered
    404 "No such memory … it may have been forgotten", and the text typed was gone (qa80 F6;
    docs/ui.md: a refused edit shows the text typed and the reason). The page says it was
    not saved and why, keeps the text (read-only, escaped as the page escapes any text) and
    names the command that remembers it as a new note."""
    import html

    from kenning import open_store
    from kenning.model import edit_version

    with open_store(cwd=project, embedder="hashing") as store:
        before = store.get(store.remember("Deploys go through the release branch", "rule").id)
    assert before is not None
    typed = 'Deploys need two approvals </textarea><script>alert("x")</script> \u202e done'
    client, source = _page_client(project)
    try:
        fields = _form_fields(client.get(f"/edit?id={before.id}").text, "/edit")
        with open_store(cwd=project, embedder="hashing") as store:
            assert store.forget(before.id)
        # a type kenning lists is named in the command; another (sent by a forged form) not
        for sent_type, command in (
            ("rule", "kenning remember --type rule -"),
            ('x" onmouseover="y', "kenning remember -"),
        ):
            fields.update(content=typed, type=sent_type, base=edit_version(before))
            response = client.post("/edit", data=fields)
            assert response.status_code == 404, response.text
            assert "<script>" not in response.text and 'onmouseover="y' not in response.text
            shown = html.unescape(response.text)
            assert "Not saved: there is no memory with id" in shown, shown
            assert f">{typed}</textarea>" in shown and "readonly" in shown, shown
            assert "1 hidden control character" in shown, shown  # the U+202E, as the form says
            assert command in shown, shown
    finally:
        client.close()
        source.close()
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.count() == 0
