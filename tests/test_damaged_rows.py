"""One damaged row must not make the store unusable (issue 13, item 6).

A row is damaged by hand through SQLite (a wrong-size, non-finite or non-unit vector; tags,
metadata or a timestamp that do not decode). Then: reads skip it with one warning line
naming it; ``export`` writes every good memory and names the bad one; ``reembed`` repairs
what it can (a row whose content is fine gets a new vector), reports the rest, and never
leaves the store half re-embedded; ``doctor`` finds it and says how to fix it.
"""

from __future__ import annotations

import io
import json
import logging
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning import MemoryStore, open_store
from kenning.backends.base import Filters
from kenning.backends.sqlite import memory_columns
from kenning.doctor import run_doctor
from kenning.embedders.base import Embedder
from kenning.reembed import REEMBED_STATE_KEY, reembed
from kenning.transfer import export_memories, import_memories

from .backends import pg_databases, pg_server, pg_url  # noqa: F401  (fixtures used by name)
from .conftest import make_repo
from .reliability.conftest import assert_clean_outcome, run_kenning

NOTES = [
    "Use snake_case for Python function names.",
    "We chose PostgreSQL over MySQL for its JSONB support.",
    "The CI pipeline caches node_modules keyed by the lockfile hash.",
    "Feature flags are evaluated server side only.",
    "Retry sqlite writes when the database is locked, with busy_timeout.",
    "Never commit generated protobuf files; CI regenerates them.",
]
#: The damaged row: its words also match the queries below, so a read that did not skip it
#: would meet it.
VICTIM = 3

_nan = np.full(384, 0.05, dtype=np.float32)
_nan[7] = np.nan


class NotUtf8Text(bytes):
    """Bytes written as a TEXT value (another writer's): SQLite keeps them, and reading
    them as text failed the whole query ("Could not decode to UTF-8 column")."""


#: A text over the 64 KiB kenning stores a note (80 KB), dense with what redaction takes out.
OVERSIZED_TEXT = "Feature flags: " + ("password=Hy6tB1q9Zx " * 10 + "lorem ipsum dolor ") * 370
DAMAGE: dict[str, tuple[str, Any]] = {
    "vector-short": ("embedding", b"\x00\x11\x22\x33"),
    "vector-nan": ("embedding", _nan.tobytes()),
    "vector-huge": ("embedding", np.full(384, 1e30, dtype=np.float32).tobytes()),
    "vector-not-unit": ("embedding", np.full(384, 0.5, dtype=np.float32).tobytes()),
    "tags-not-json": ("tags", "not json"),
    "tags-a-string": ("tags", '"abc"'),
    "tags-not-strings": ("tags", "[1, null]"),
    "metadata-a-string": ("metadata", '"not an object"'),
    "metadata-a-list": ("metadata", "[1, 2]"),
    "stored-at-garbage": ("stored_at", "garbage"),
    "stored-at-a-number": ("stored_at", 12345),
    "group-id-a-blob": ("group_id", b"acme/widgets"),
    "type-a-blob": ("type", b"context"),
    # kenning refuses a note of no text; another writer of the store left one
    "content-blank": ("content", " \n\t \n "),
    # larger than kenning stores (F2: redacting it on every read cost seconds): another
    # writer's, dense with credentials
    "content-oversized": ("content", OVERSIZED_TEXT),
    "metadata-oversized": ("metadata", json.dumps({"notes": OVERSIZED_TEXT * 3})),
}
#: Text that is not UTF-8: skipped by reads, counted apart and named by doctor like the
#: damage above (the tests that store it through SQLite's typed columns alone: not part of
#: DAMAGE).
NOT_UTF8: dict[str, tuple[str, Any]] = {
    "content-not-utf8": ("content", NotUtf8Text(b"ERROR: caf\xe9 \xff\xfe")),
    "type-not-utf8": ("type", NotUtf8Text(b"cont\xe9xt")),
}
VECTOR_DAMAGE = {k for k, (column, _) in DAMAGE.items() if column == "embedding"}
#: A vector of zeros another writer left: no direction to copy (the tests that name it
#: alone: not part of DAMAGE).
ZERO_VECTOR: dict[str, tuple[str, Any]] = {
    "vector-zero": ("embedding", np.zeros(384, dtype=np.float32).tobytes()),
}


@pytest.fixture(scope="module")
def _notes_store(
    tmp_path_factory: pytest.TempPathFactory, minilm: Embedder
) -> tuple[Path, list[str]]:
    """NOTES remembered through MiniLM once for the module: a copy of this store's folder
    and the ids. Remembering them again for each of the ~70 damaged-row tests (an embedding
    and a duplicate check per note) was most of the module's CPU; each test damages a copy
    of its own."""
    # the project fixture's remote: the copy must be this project's store, not another's
    remote = "git@github.com:Acme/Widgets.git"
    project = make_repo(tmp_path_factory.mktemp("notes") / "proj", remote=remote)
    with open_store(cwd=project, embedder=minilm) as store:
        ids = []
        for text in NOTES:
            result = store.remember(text, "context")
            assert result.status == "stored" and result.id
            ids.append(result.id)
    return project / ".kenning", ids


@pytest.fixture
def damaged(
    project: Path,
    minilm: Embedder,
    _notes_store: tuple[Path, list[str]],
    request: pytest.FixtureRequest,
) -> Iterator[tuple[MemoryStore, str, str]]:
    """The store with one row damaged on disk, opened afresh (as the next command would)."""
    built, ids = _notes_store
    shutil.copytree(built, project / ".kenning")
    column, value = {**DAMAGE, **NOT_UTF8, **ZERO_VECTOR}[request.param]
    conn = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    mark = "CAST(? AS TEXT)" if isinstance(value, NotUtf8Text) else "?"
    conn.execute(f"UPDATE memories SET {column} = {mark} WHERE id = ?", (value, ids[VICTIM]))
    conn.close()
    with open_store(cwd=project, embedder=minilm, create=False) as reopened:
        yield reopened, ids[VICTIM], request.param


def _warned(caplog: pytest.LogCaptureFixture, memory_id: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and memory_id in r.getMessage()
    ]


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_reads_skip_a_damaged_row_with_a_warning(
    damaged: tuple[MemoryStore, str, str], caplog: pytest.LogCaptureFixture
) -> None:
    store, bad, kind = damaged
    caplog.set_level(logging.WARNING)
    recall = store.recall("feature flags evaluated on the server", group_id="all")
    assert bad not in [h.memory.id for h in recall.hits]
    assert store.recall("python function naming").hits[0].memory.content == NOTES[0]
    response = store.search("feature flags server side", threshold=0.0, limit=10)
    found = [r.memory.id for r in response.results]
    assert bad not in found and len(found) >= 3
    assert all(-1.0 <= r.semantic <= 1.0 for r in response.results)
    # listing needs no vector: a memory whose vector alone is damaged is still listed
    newest = [m.id for m in store.newest(10)]
    if kind in VECTOR_DAMAGE:
        assert bad in newest and len(newest) == len(NOTES)
    else:
        assert bad not in newest and len(newest) == len(NOTES) - 1
    warnings = _warned(caplog, bad)
    assert warnings and all("kenning doctor" in w for w in warnings), caplog.text
    assert all("\n" not in w for w in warnings)
    # once per row and store, however many reads met it
    assert len(warnings) == 1, warnings


@pytest.mark.parametrize("damaged", [*DAMAGE, *NOT_UTF8], indirect=True)
def test_the_stale_filters_listing_leaves_out_the_rows_browse_leaves_out(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """The page's stale filter lists from each memory's file record and time alone
    (Backend.metadata_entries): a row whose fields do not decode is left out of it and of
    its count, as browse leaves it out; one whose vector alone is damaged is listed."""
    store, bad, kind = damaged
    listed = [m.id for m in store.browse(group_id="all")]
    assert (bad in listed) == (kind in VECTOR_DAMAGE)
    shown, _, total = store.browse_by_freshness(False, group_id="all")
    assert [m.id for m in shown] == listed and total == len(listed)
    page, _, _ = store.browse_by_freshness(False, group_id="all", offset=1, limit=2)
    assert [m.id for m in page] == listed[1:3]


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_export_writes_every_good_row_and_names_the_bad_one(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    import io

    store, bad, kind = damaged
    out = io.StringIO()
    report = export_memories(store, out, group_id="all")
    lines = [json.loads(line) for line in out.getvalue().splitlines()[1:]]
    if kind in VECTOR_DAMAGE:
        # the memory is whole: it is exported without its vector (import re-embeds it)
        assert report.exported == len(NOTES) and len(lines) == len(NOTES)
        line = next(x for x in lines if x["id"] == bad)
        assert "embedding" not in line and line["content"] == NOTES[VICTIM]
        assert list(report.without_vectors) == [bad]
        assert not report.damaged
    else:
        assert report.exported == len(NOTES) - 1
        assert {x["content"] for x in lines} == set(NOTES) - {NOTES[VICTIM]}
        assert list(report.damaged) == [bad] and report.damaged[bad]


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_reembed_repairs_what_it_can_and_finishes(
    damaged: tuple[MemoryStore, str, str], minilm: Embedder
) -> None:
    store, bad, kind = damaged
    outcome = reembed(store)
    assert store.backend.get_meta(REEMBED_STATE_KEY) is None  # not half re-embedded
    assert store.backend.read_provenance() == minilm.provenance
    assert store.recall("python function naming").hits  # the store is usable
    if kind in VECTOR_DAMAGE:
        # the store is on this model: the damaged vector is recomputed, the others kept
        assert outcome["reembedded"] == 1 and outcome["damaged"] == {}
        assert outcome["unchanged"] == len(NOTES) - 1
        vector = store.backend.get_vectors([bad])[bad]
        assert float(np.dot(vector, minilm.embed([NOTES[VICTIM]])[0])) > 0.9999
        assert run_doctor(cwd=store.project.root).healthy
        hits = store.recall("feature flags evaluated on the server side").hits
        assert hits and hits[0].memory.id == bad
    else:
        assert (outcome["reembedded"], outcome["unchanged"]) == (0, len(NOTES) - 1)
        assert list(outcome["damaged"]) == [bad]
        assert "kenning forget" in outcome["damaged"][bad]


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_doctor_finds_the_damaged_row_and_says_how_to_fix_it(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    store, bad, kind = damaged
    report = run_doctor(cwd=store.project.root)
    assert not report.healthy
    rows = report.check("rows")
    assert rows.status == "failed" and bad in rows.message, rows
    column = DAMAGE[kind][0]
    assert (column if column != "embedding" else "vector") in rows.message, rows.message
    fix = rows.fix or ""
    assert ("kenning reembed" if kind in VECTOR_DAMAGE else "kenning forget") in fix, fix


@pytest.mark.parametrize(
    "damaged",
    [
        "vector-short",
        "tags-not-json",
        "stored-at-garbage",
        "content-oversized",
        "metadata-oversized",
    ],
    indirect=True,
)
def test_the_cli_works_around_a_damaged_row(
    damaged: tuple[MemoryStore, str, str], tmp_path: Path
) -> None:
    store, bad, kind = damaged
    root = store.project.root
    store.close()
    for argv in (
        ["recall", "--project", "all", "feature flags evaluated on the server"],
        ["search", "--group-id", "all", "feature flags server side"],
        ["recall", "--json", "python function naming"],
    ):
        proc = run_kenning(root, *argv)
        assert_clean_outcome(proc, " ".join(argv))
        assert proc.returncode == 0, proc.stderr
        err = proc.stderr.decode()
        assert "Traceback" not in err and bad in err and "kenning doctor" in err, err
        assert bad.encode() not in proc.stdout
    out = tmp_path / "backup.jsonl"
    proc = run_kenning(root, "export", "--group-id", "all", "-o", str(out))
    assert_clean_outcome(proc, "export")
    lines = out.read_text().splitlines()
    if kind in VECTOR_DAMAGE:
        assert proc.returncode == 0 and len(lines) == len(NOTES) + 1
    else:
        assert proc.returncode == 1 and len(lines) == len(NOTES)
        assert bad in proc.stderr.decode()
    proc = run_kenning(root, "reembed", "--json")
    assert_clean_outcome(proc, "reembed")
    proc = run_kenning(root, "recall", "python function naming")
    assert proc.returncode == 0 and NOTES[0].encode() in proc.stdout, proc.stderr
    doctor = json.loads(run_kenning(root, "doctor", "--json").stdout)
    assert doctor["healthy"] is (kind in VECTOR_DAMAGE), doctor
    if kind not in VECTOR_DAMAGE:  # the fix doctor names works
        proc = run_kenning(root, "forget", "--group-id", "all", bad)
        assert proc.returncode == 0, proc.stderr
        doctor = json.loads(run_kenning(root, "doctor", "--json").stdout)
        assert doctor["healthy"], doctor


def test_iterate_yields_the_damaged_vector_rows_for_repair(store: MemoryStore) -> None:
    """Vector damage leaves the memory readable: ``iterate`` yields it (export writes it
    without the vector, reembed recomputes it), but vector search never scores it."""
    ids = [store.remember(text, "context").id for text in NOTES]
    conn = sqlite3.connect(store.backend.location, isolation_level=None)
    conn.execute(
        "UPDATE memories SET embedding = ? WHERE id = ?",
        (np.full(384, 1e30, dtype=np.float32).tobytes(), ids[0]),
    )
    conn.close()
    store = open_store(cwd=store.project.root, embedder=store.embedder, create=False)
    records = {r.memory.id: r for r in store.backend.iterate(Filters())}
    assert set(records) == set(ids)
    query = store.embedder.embed(["anything at all"])[0]
    hits = store.backend.vector_search(query, 10, Filters())
    assert ids[0] not in [h.memory.id for h in hits]
    assert all(-1.0 <= h.score <= 1.0 for h in hits)
    store.close()


@pytest.mark.parametrize(
    "damaged",
    ["vector-short", "tags-not-json", "stored-at-garbage", "content-not-utf8", "type-not-utf8"],
    indirect=True,
)
def test_stats_counts_what_search_sees_and_names_the_damaged(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """``kenning stats`` said 6 memories where search could see 5: a row whose fields or
    vector do not decode was counted as a note. It is counted apart, as doctor names it."""
    store, bad, _ = damaged
    data = store.stats()
    assert (data["memories"], data["memories_all_projects"]) == (len(NOTES) - 1,) * 2, data
    assert (data["damaged"], data["damaged_all_projects"]) == (1, 1), data
    assert sum(data["by_collection"].values()) == sum(data["by_type"].values()) == len(NOTES) - 1
    query = store.embedder.embed(["anything at all"])[0]
    visible = [h.memory.id for h in store.backend.vector_search(query, 50, Filters())]
    assert len(visible) == data["memories"] and bad not in visible
    root = store.project.root
    store.close()
    proc = run_kenning(root, "stats")
    assert_clean_outcome(proc, "stats")
    out = proc.stdout.decode()
    assert f"{len(NOTES) - 1} in this project, {len(NOTES) - 1} in the store" in out, out
    assert "damaged:    1 in this project, 1 in the store" in out, out
    assert "kenning doctor" in out, out
    every = json.loads(run_kenning(root, "stats", "--json", "--project", "all").stdout)
    assert (every["memories"], every["damaged"]) == (len(NOTES) - 1, 1), every


@pytest.mark.parametrize("damaged", ["tags-not-json"], indirect=True)
def test_the_damaged_count_follows_the_store_as_it_changes(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """The count is kept between calls (the page asks for stats on every load): a row
    damaged by another connection afterwards, and a damaged row forgotten, are seen."""
    store, bad, _ = damaged
    assert store.stats()["damaged"] == 1
    other = next(r.memory.id for r in store.backend.iterate(Filters()) if r.memory.id != bad)
    conn = sqlite3.connect(store.backend.location, isolation_level=None)
    conn.execute("UPDATE memories SET tags = ? WHERE id = ?", ("{not json", other))
    conn.close()
    data = store.stats()
    assert (data["damaged"], data["memories"]) == (2, len(NOTES) - 2), data
    assert store.forget(bad)
    data = store.stats()
    assert (data["damaged"], data["memories"]) == (1, len(NOTES) - 2), data


_DEEP = "[" * 1500 + "]" * 1500
#: Every way of damaging a field that we know of, and forms close to them that decode (a
#: leap day, an escape, another writer's spacing), each in a row of its own: the fast count
#: must agree with decoding every row.
#: Texts and metadata at the sizes kenning stores and one byte past them (in characters of
#: one to four UTF-8 bytes): the SQL check's size and the decoder's must agree.
_AT_LIMIT = 64 * 1024
_METADATA_AT_LIMIT = 3 * 64 * 1024
SIZE_FORMS: list[tuple[str, object]] = [
    *(
        ("content", c * (_AT_LIMIT // len(c.encode()) + extra))
        for c in ("a", "é", "日", "𝄞")
        for extra in (0, 1)
    ),
    ("content", "日" * (_AT_LIMIT // 3) + "a"),  # 65,536 bytes
    ("content", "日" * (_AT_LIMIT // 3) + "é"),  # 65,537
    *(
        ("metadata", '{"k": "' + c * ((_METADATA_AT_LIMIT - 9) // len(c.encode()) + extra) + '"}')
        for c in ("a", "日")
        for extra in (0, 1)
    ),
]
FIELD_FORMS: list[tuple[str, object]] = [
    *SIZE_FORMS,
    *(("id", v) for v in (b"abc",)),
    *(
        ("content", v)
        for v in (
            b"text",
            7,
            "",
            " ",
            " \n\t\r\x0b\x0c ",
            "\u3000\u2028\u2029\x85\xa0\u1680\u2000\u200a\u202f\u205f",
            "\x1c\x1d\x1e\x1f",
            " x ",
            "日本",
            "\u200b",
            "\x00 ",
            " \x00",
            "a\x00 ",
            "\u3000日\u3000",
        )
    ),
    *(("collection", v) for v in (b"context",)),
    *(("type", v) for v in (b"decision",)),
    *(("group_id", v) for v in (b"abc",)),
    *(("source", v) for v in (b"src", 5, "docs/a.md")),
    *(
        ("stored_at", v)
        for v in (
            "garbage",
            12345,
            1.5,
            b"2026-01-01T00:00:00+00:00",
            "",
            "2026-02-29T00:00:00+00:00",
            "2024-02-29T00:00:00+00:00",
            "1900-02-29T10:00:00+00:00",
            "2000-02-29T10:00:00+00:00",
            "2026-04-31T00:00:00+00:00",
            "2026-04-30T00:00:00+00:00",
            "2026-12-31T23:59:59+00:00",
            "2026-13-01T00:00:00+00:00",
            "2026-00-10T00:00:00+00:00",
            "2026-01-00T00:00:00+00:00",
            "2026-01-01T24:00:00+00:00",
            "2026-01-01T23:60:00+00:00",
            "2026-01-01T23:00:60+00:00",
            "0000-01-01T00:00:00+00:00",
            "0001-01-01T00:00:00+00:00",
            "9999-12-31T23:59:59+00:00",
            "2026-01-01T00:00:00+00:00\x00x",
            "2026-01-01T00:00:00+00:00 ",
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01",
            "2026-01-01T00:00:00.123456+00:00",
            "2026-01-01T00:00:00.12345+00:00",
            "2026-01-01T00:00:00.1234567+00:00",
            "2026-01-01T00:00:00+05:00",
            "0001-01-01T00:00:00+05:00",
            "2026-1-01T00:00:00+00:00",
            "2026/01/01T00:00:00+00:00",
            "2026-01-01x00:00:00+00:00",
            "2026-01-01T00:00:00-00:00",
        )
    ),
    *(
        ("last_seen_at", v)
        for v in (
            None,
            "garbage",
            5,
            b"x",
            "2026-02-30T00:00:00+00:00",
            "2026-03-01T00:00:00+00:00",
            "2028-02-29T12:00:00.000001+00:00",
            "2026-01-01T00:00:00+00:00\x00",
        )
    ),
    *(("seen_count", v) for v in (0, -1, 2, "3", "x", 1.5, b"\x01", 10**12)),
    *(
        ("tags", v)
        for v in (
            "not json",
            '"abc"',
            "[1, null]",
            '["a", 1]',
            '["a",1]',
            '["a", ["b"]]',
            '[", ""]',
            '["a\\"b"]',
            '["a\\\\"]',
            '["a\x01"]',
            '["a\tb"]',
            '["a"]\x00x',
            '["é", "ß"]',
            '["a","b"]',
            '[ "a" ]',
            '["a", "b", ]',
            '["a" , "b"]',
            '[""]',
            '["", ""]',
            '["]',
            '["a"]  ',
            b'["a"]',
            '["\\ud800"]',
            '["a", "b"',
            '["a", "b"]',
            '["a"] ["b"]',
            '["a", "b", "c"]',
            '["a", "", "c"]',
            "[]",
            " []",
            "['a']",
            '["\\u00e9"]',
            "{}",
            '["a", "b"], "c"]',
            '["a\\", "b"]',
            '["a\u2028b"]',
        )
    ),
    *(
        ("metadata", v)
        for v in (
            '"not an object"',
            "[1, 2]",
            '{"a": 1}',
            '{"a": NaN}',
            "{'a': 1}",
            '{"a": 1,}',
            '{"a": 1} x',
            '{"a": "\x01"}',
            '{"a": 1}\x00x',
            '{"n": ' + "1" * 5000 + "}",
            '{"n": ' + "1" * 4000 + "}",
            '{"a": ' + _DEEP + "}",
            '{"a": [[[]]]}',
            '{"a": 1e999}',
            "{}",
            " {}",
            '{"a":"\\u0000"}',
            b"{}",
            '{"a": {"b": [1, "x", null, true]}}',
            "null",
            '{"a": 1} // c',
            "{a: 1}",
            '{"a": 0x10}',
            '{"a": .5}',
            '{"a": "\\x41"}',
            '{"a": "' + "x" * 5000 + '"}',
            '{"a": [' + ", ".join(["[1]"] * 150) + "]}",
        )
    ),
    # text that is not UTF-8 in each column read as text (the SQL typed it all as text)
    *(
        (column, NotUtf8Text(v))
        for column, v in (
            ("id", b"row-\xe9"),
            ("content", b"ERROR: caf\xe9 \xff\xfe"),
            ("content", b"lone \x80 continuation"),
            ("collection", b"discussions\xc3"),
            ("type", b"cont\xe9xt"),
            ("group_id", b"acme/w\xefidgets"),
            ("content_hash", b"\xed\xa0\x80"),  # a surrogate, as UTF-8 may not hold one
            ("source", b"docs/caf\xe9.md"),
            ("tags", b'["caf\xe9"]'),
            ("metadata", b'{"a": "caf\xe9"}'),
        )
    ),
]
VECTOR_FORMS = [b"\x00\x11\x22\x33", _nan.tobytes(), np.full(384, 0.5, dtype=np.float32).tobytes()]


def test_the_damaged_count_agrees_with_decoding_every_row(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    """The count decodes only the rows an SQL check cannot pass (decoding every row took
    0.5 s at 50k rows, after every write): every form the decoder refuses must be among
    them, and the count must be the one decoding every row gives, per project too."""
    from kenning.backends.sqlite import (
        add_utf8_check,
        decode_memory,
        decode_text,
        decode_vector,
        fields_decode_sql,
    )
    from kenning.vectors import vector_problem

    caplog.set_level(logging.ERROR)
    first = store.remember(NOTES[0], "context").id
    path = store.backend.location
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.text_factory = decode_text  # as the store reads them
    add_utf8_check(conn)
    columns = [r[1] for r in conn.execute("PRAGMA table_info(memories)") if r[1] != "rowid"]
    others = [c for c in columns if c not in ("id", "content_hash", "group_id")]
    forms: list[tuple[str, object]] = [*FIELD_FORMS, *(("embedding", v) for v in VECTOR_FORMS)]
    for i, (column, value) in enumerate(forms):
        conn.execute(
            f"INSERT INTO memories (id, content_hash, group_id, {', '.join(others)}) "
            f"SELECT ?, ?, ?, {', '.join(others)} FROM memories WHERE id = ?",
            (f"row-{i}", f"hash-{i}", "other/project" if i % 3 else store.group_id, first),
        )
        mark = "CAST(? AS TEXT)" if isinstance(value, NotUtf8Text) else "?"
        try:
            conn.execute(f"UPDATE memories SET {column} = {mark} WHERE id = ?", (value, f"row-{i}"))
        except sqlite3.OperationalError:  # JSON the error-fingerprint index cannot read:
            assert column == "metadata"  # such metadata cannot be stored at all
    rows = conn.execute(
        f"SELECT rowid, {memory_columns(6)}, embedding, {fields_decode_sql(6)} FROM memories"
    ).fetchall()
    conn.close()
    expected: dict[str, int] = {}
    for row in rows:
        fields, blob, passed = row[1:-2], row[-2], row[-1]
        try:
            decode_memory(fields)
        except ValueError:
            assert not passed, f"the SQL check passed a row the decoder refuses: {fields}"
            damaged = True
        else:
            damaged = vector_problem(decode_vector(blob), 384) is not None
        if damaged:
            group = str(fields[4])
            expected[group] = expected.get(group, 0) + 1
    assert sum(expected.values()) > 40
    assert rows[0][-1] == 1  # a row as kenning writes it is not decoded again

    with open_store(cwd=store.project.root, embedder=store.embedder, create=False) as again:
        counted: dict[str, int] = {}
        for (group, _, _), n in again.backend.count_damaged(Filters()).items():
            counted[str(group)] = counted.get(str(group), 0) + n
        assert counted == expected
        stats = again.stats()
        assert stats["damaged_all_projects"] == sum(expected.values()), stats
        assert stats["damaged"] == expected.get(store.group_id, 0), stats
        assert stats["memories_all_projects"] == len(rows) - sum(expected.values()), stats


@pytest.mark.parametrize("damaged", ["tags-not-json", "vector-short"], indirect=True)
def test_the_cli_counts_one_damaged_memory_in_the_singular(
    damaged: tuple[MemoryStore, str, str], tmp_path: Path
) -> None:
    """`kenning migrate` said "1 damaged memories could not be read and were not copied"
    (export and reembed alike): one is a damaged memory."""
    store, _, kind = damaged
    root = store.project.root
    store.close()
    runs = {
        "export": ["export", "--group-id", "all", "-o", str(tmp_path / "backup.jsonl")],
        "migrate": ["migrate", "--group-id", "all", "--to", str(root / ".kenning" / "copy.db")],
    }
    said = {}
    for name, argv in runs.items():
        proc = run_kenning(root, *argv)
        assert_clean_outcome(proc, name)
        said[name] = proc.stderr.decode()
    if kind in VECTOR_DAMAGE:
        message = "1 memory was exported without its damaged vector (`kenning import` re-embeds it)"
        assert message in said["export"], said
    else:
        assert "1 damaged memory could not be read and was left out" in said["export"], said
        assert "1 damaged memory could not be read and was not copied" in said["migrate"], said
        proc = run_kenning(root, "reembed", "--force")
        assert "1 damaged memory could not be re-embedded" in proc.stderr.decode(), proc.stderr


@pytest.mark.parametrize(
    "damaged", ["tags-not-json", "vector-short", "content-not-utf8"], indirect=True
)
def test_the_page_counts_the_memories_it_lists(damaged: tuple[MemoryStore, str, str]) -> None:
    """The page said "6 memories, newest first" over the 5 it listed, with a "show more (1
    left)" link to an empty page: its count took every row, where its list (like export)
    skips a row whose fields do not decode. A row whose vector alone is damaged is listed."""
    from .test_ui_parts import _ids_shown, _page_client

    store, bad, kind = damaged
    root = store.project.root
    store.close()
    client, source = _page_client(root)
    try:
        for query in ("/", "/?project=all", "/?type=context"):
            html = client.get(query).text
            shown = _ids_shown(html)
            assert (bad in shown) is (kind in VECTOR_DAMAGE), query
            assert f"{len(shown)} memories, newest first" in html, (query, len(shown))
            assert "show more" not in html, query
    finally:
        source.close()


@pytest.mark.parametrize(
    "damaged", ["tags-not-json", "content-not-utf8", "vector-short"], indirect=True
)
def test_the_pages_age_filters_count_the_memories_they_list(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """An age filter's total was taken from the stored times alone, which a row whose other
    fields do not decode still has: "last 7 days" said 4 memories over the 3 it listed, and
    "older than 90 days" said 1 and listed one of the 2 (every readable row less the newer
    ones, the damaged one taken for one of those). And newest(n) gave n - 1 when a damaged
    row was among the n newest: a true count still showed one fewer, "show more" no more."""
    from .test_ui_parts import _ids_shown, _page_client

    store, bad, kind = damaged
    assert len(store.newest(len(NOTES) - 1)) == len(NOTES) - 1
    root = store.project.root
    old = [m.id for m in store.browse(group_id="all") if m.id != bad][:2]
    store.close()
    conn = sqlite3.connect(root / ".kenning" / "memory.db", isolation_level=None)
    conn.executemany(
        "UPDATE memories SET stored_at = ? WHERE id = ?",
        [("2024-01-02T03:04:05.000006+00:00", i) for i in old],
    )
    conn.close()
    client, source = _page_client(root)
    try:
        for query in ("/?age=>90", "/?age=>90&project=all", "/?age=7", "/?age=7&type=context"):
            html = client.get(query).text
            shown = _ids_shown(html)
            older = ">90" in query
            assert (bad in shown) is (kind in VECTOR_DAMAGE and not older), query
            assert (set(old) <= set(shown)) is older, query
            noun = "memory" if len(shown) == 1 else "memories"
            assert f"{len(shown)} {noun}, newest first" in html, (query, len(shown))
            assert "show more" not in html, query
    finally:
        source.close()


@pytest.mark.parametrize("damaged", ["vector-short", "content-not-utf8"], indirect=True)
def test_the_pages_header_says_how_many_rows_it_does_not_count(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """The header said "5 memories" (what search sees, as kenning stats counts) over a list
    of "6 memories, newest first" (a row whose vector alone is damaged is listed) and said
    nothing of the row it left out; it says how many are damaged and where they are named,
    as kenning stats does."""
    from .test_ui_parts import _page_client

    store, _, _ = damaged
    root = store.project.root
    store.close()
    client, source = _page_client(root)
    try:
        html = client.get("/").text
        header = html.split('<span class="where">', 1)[1].split("</span>\n", 1)[0]
        assert f"{len(NOTES) - 1} memories · 1 damaged (see kenning doctor)" in header, header
    finally:
        source.close()


def _plotted(html: str, chart: str) -> tuple[int, int]:
    """How many memories a plot of the page shows in its bars, and in its "N older" note."""
    import re

    figure = html.split(f'<figure class="chart {chart}">', 1)[1].split("</figure>", 1)[0]
    older = re.search(r'<p class="note">(\d+) older</p>', figure)
    bars = re.findall(r'<rect class="bar[^"]*" data-label="[^"]*" data-value="(\d+)"', figure)
    return sum(map(int, bars)), int(older[1]) if older else 0


@pytest.mark.parametrize(
    "damaged", ["tags-not-json", "vector-short", "content-not-utf8"], indirect=True
)
def test_the_pages_plots_count_the_memories_its_header_counts(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """The header said "5 memories · 1 damaged" over plots adding up to 6: they counted
    every row. They count what the header counts (what search sees, as kenning stats),
    for this project and for every one, recent rows and older ones."""
    from .test_ui_parts import _page_client

    store, bad, kind = damaged
    root = store.project.root
    old = next(m.id for m in store.browse(group_id="all") if m.id != bad)
    store.close()
    conn = sqlite3.connect(root / ".kenning" / "memory.db", isolation_level=None)
    conn.execute(  # one memory before the weeks plotted: counted in the "N older" note
        "UPDATE memories SET stored_at = ? WHERE id = ?", ("2024-01-02T03:04:05+00:00", old)
    )
    conn.close()
    client, source = _page_client(root)
    try:
        for query in ("/", "/?project=all", "/?project=acme/widgets"):
            html = client.get(query).text
            assert f"{len(NOTES) - 1} memories · 1 damaged" in html, query
            assert _plotted(html, "collections") == (len(NOTES) - 1, 0), query
            assert _plotted(html, "types") == (len(NOTES) - 1, 0), query
            # a row whose vector alone is damaged is listed, but not in the weekly plot:
            # its week held it, and the "older" note one fewer, over the header's count
            assert _plotted(html, "weeks") == (len(NOTES) - 2, 1), (query, kind)
    finally:
        source.close()


@pytest.mark.parametrize("damaged", ["tags-not-json", "vector-short"], indirect=True)
def test_hooks_remember_totals_every_row_hooks_stats_counts(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """hooks_remember's total is every row of the project, the damaged one too, which
    hooks_stats counts apart: leaving it out would cost every write a damaged-row count (a
    table scan on PostgreSQL). The two answers add up."""
    from kenning.mcp_server import KenningTools

    store, _, _ = damaged
    root = store.project.root
    store.close()
    tools = KenningTools(root)
    try:
        before = tools.hooks_stats()
        assert (before["memories"], before["damaged"]) == (len(NOTES) - 1, 1), before
        result = tools.hooks_remember("Release notes are drafted from merged pull requests.")
        after = tools.hooks_stats()
        assert result["total"] == after["memories"] + after["damaged"], (result, after)
        assert after["memories"] == len(NOTES), after
        assert after["damaged"] == 1, after
    finally:
        tools.close()


@pytest.mark.parametrize("damaged", ["tags-not-json"], indirect=True)
def test_the_damaged_count_follows_this_connections_own_writes(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """After a write of its own the count looks again only at the rows that can have
    changed (the damaged ones, the ones written since): one this connection repairs,
    damages or deletes is still seen."""
    store, bad, _ = damaged
    assert store.stats()["damaged"] == 1
    records = {r.memory.id: r for r in store.backend.iterate(Filters())}
    other = next(i for i in records if i != bad)
    # damaged by this connection's own write (tags that are not all text)
    hurt = records[other]
    store.backend.upsert([replace(hurt, memory=replace(hurt.memory, tags=("a", 1)))])  # type: ignore[arg-type]
    data = store.stats()
    assert (data["damaged"], data["memories"]) == (2, len(NOTES) - 2), data
    # repaired by another (its tags written as kenning writes them)
    store.backend.upsert([hurt])
    data = store.stats()
    assert (data["damaged"], data["memories"]) == (1, len(NOTES) - 1), data
    assert store.remember("Release notes are drafted from merged pull requests.", "context").id
    assert store.forget(bad, group_id="all")
    data = store.stats()
    assert (data["damaged"], data["memories"]) == (0, len(NOTES)), data


def test_export_does_not_promise_another_projects_damaged_row(
    store: MemoryStore, tmp_path: Path
) -> None:
    """`kenning export` of a project said "1 memory of other projects in the store is not in
    this export; `kenning export --project all` exports every project" when the only other
    row was damaged, which no export writes: the note counted every row."""
    for text in NOTES[:3]:
        assert store.remember(text, "context").id
    other = store.remember(NOTES[3], "context").id
    root = store.project.root
    store.close()
    conn = sqlite3.connect(root / ".kenning" / "memory.db", isolation_level=None)
    conn.execute(
        "UPDATE memories SET group_id = ?, tags = ? WHERE id = ?",
        ("other/project", "not json", other),
    )
    conn.close()
    proc = run_kenning(root, "export", "-o", str(tmp_path / "a.jsonl"))
    assert_clean_outcome(proc, "export")
    err = proc.stderr.decode()
    assert "exported 3 memories" in err and "other projects" not in err, err
    proc = run_kenning(root, "export", "--project", "all", "-o", str(tmp_path / "all.jsonl"))
    assert "exported 3 memories" in proc.stderr.decode(), proc.stderr


@pytest.mark.parametrize("every", [False, True], ids=["repair", "force"])
@pytest.mark.parametrize(
    "damaged", ["tags-not-json", "vector-nan", "content-not-utf8"], indirect=True
)
def test_reembed_progress_ends_at_its_total(
    damaged: tuple[MemoryStore, str, str], every: bool
) -> None:
    """A row whose fields do not decode is never read, yet the progress total counted it:
    the bar stopped one short of its end (and a repair of a small store never drew it)."""
    store, _, _ = damaged
    calls: list[tuple[int, int]] = []
    reembed(store, every=every, progress=lambda done, total: calls.append((done, total)))
    assert calls, "no progress at all"
    done, total = calls[-1]
    assert done == total == store.count(group_id="all", readable=True), calls


@pytest.mark.parametrize("damaged", list(NOT_UTF8), indirect=True)
def test_a_row_whose_text_is_not_utf8_is_skipped_and_named(
    damaged: tuple[MemoryStore, str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Every read of such a store failed ("Could not decode to UTF-8 column 'content'"):
    browse, recall, export, the hooks; doctor said only that the rows cannot be read."""
    store, bad, kind = damaged
    column = NOT_UTF8[kind][0]
    with caplog.at_level(logging.WARNING):
        listed = [m.id for m in store.browse(group_id="all")]
    assert bad not in listed and len(listed) == len(NOTES) - 1
    (warning,) = _warned(caplog, bad)
    assert f"its {column} is not UTF-8 text" in warning
    store.stats(group_id="all")  # counts what it can read (a type not UTF-8 is no type)
    rows = run_doctor(cwd=store.project.root).check("rows")
    assert rows.status == "failed" and bad in rows.message, rows
    assert f"{column} is not UTF-8 text" in rows.message and "kenning forget" in (rows.fix or "")


def _first_reads(store: MemoryStore, bad: str) -> dict[str, Any]:
    """Each read a store can meet such a row with first (the connection reads text with
    SQLite's own decoding until it meets text that is not UTF-8): what it gives, and what
    it gives when the damaged row is left out alone."""
    readable = len(NOTES) - 1
    return {
        "recall": (lambda: [h.memory.id for h in store.recall(NOTES[0], top_k=10).hits], None),
        "search": (
            lambda: [r.memory.id for r in store.search(NOTES[0], group_id="all").results],
            None,
        ),
        "export": (
            lambda: export_memories(store, io.StringIO(), group_id="all").exported,
            readable,
        ),
        "newest": (lambda: len(store.newest(len(NOTES), group_id="all")), readable),
        "get": (lambda: store.get(bad), None),
    }


@pytest.mark.parametrize("read", ["recall", "search", "export", "newest", "get"])
@pytest.mark.parametrize("damaged", ["content-not-utf8"], indirect=True)
def test_the_first_read_to_meet_text_not_utf8_skips_that_row_alone(
    damaged: tuple[MemoryStore, str, str], read: str
) -> None:
    """Text is read with SQLite's own decoding (the fast path) until a query meets text that
    is not UTF-8: that query is made again, text checked, and the row is skipped alone
    rather than the query failing with "Could not decode to UTF-8"."""
    store, bad, _ = damaged
    run, expected = _first_reads(store, bad)[read]
    result = run()
    if isinstance(result, list):
        assert result and bad not in result, result
    else:
        assert result == expected


def test_doctor_and_export_name_a_row_of_a_type_kenning_does_not_know(
    store: MemoryStore,
) -> None:
    """qa72 F4 on the embedded store: a row whose type and collection another writer set
    ('bogus', 'nowhere') was said by no check, and an export wrote it without a word, which
    an import then refused whole. Doctor names it (a warning: it reads) with the edit;
    export writes it and names it with why the import refuses it."""
    ids = [r.id for r in (store.remember(text, "context") for text in NOTES[:3])]
    conn = sqlite3.connect(store.backend.location, isolation_level=None)
    conn.execute(
        "UPDATE memories SET type = 'bogus', collection = 'nowhere' WHERE id = ?", (ids[1],)
    )
    conn.close()
    rows = run_doctor(cwd=store.project.root).check("rows")
    assert rows.status == "warning", rows
    assert f"{ids[1]!r}: type 'bogus' in collection 'nowhere'" in rows.message, rows.message
    assert ids[0] not in rows.message and "kenning edit ID --type TYPE" in (rows.fix or "")
    out = io.StringIO()
    report = export_memories(store, out)
    assert report.exported == 3 and report.refused == {ids[1]: "type 'bogus' is no kenning type"}, (
        report
    )


def test_doctor_names_a_row_stamped_beyond_a_day_ahead(store: MemoryStore) -> None:
    """kenning refuses a time more than a day ahead, but another writer's clock can leave
    one: until that date recall ranks the note as new and the session-start hook leaves it
    out, and only the hook's stderr said so. Doctor names it (a warning: it reads fine) and
    the fix; once the date is near, nothing."""
    ids = [r.id for r in (store.remember(text, "context") for text in NOTES[:3])]
    conn = sqlite3.connect(store.backend.location, isolation_level=None)
    conn.execute(
        "UPDATE memories SET stored_at = ? WHERE id = ?", ("2031-05-01T00:00:00+00:00", ids[1])
    )
    conn.close()
    # this clock, as the notes were stamped by it (a fixed date failed once it was a day past)
    report = run_doctor(cwd=store.project.root, now=datetime.now(UTC))
    rows = report.check("rows")
    assert rows.status == "warning", rows
    assert f"{ids[1]!r}: 2031-05-01T00:00:00+00:00" in rows.message, rows.message
    assert ids[0] not in rows.message and "1 stamped more than a day ahead" in rows.message
    assert "kenning forget <id> --group-id all" in (rows.fix or "")
    later = run_doctor(cwd=store.project.root, now=datetime(2031, 4, 30, 12, tzinfo=UTC))
    assert later.check("rows").status == "ok", later.check("rows")


def test_many_damaged_rows_are_counted_in_one_line(project: Path) -> None:
    """Every read names a damaged row it skips: with 2,000 of them (another tool's bulk
    write), each recall, search and stats put 2,000 lines before its answer. A command names
    the first three and counts the rest in one line with `kenning doctor`, as the hooks and
    export already did."""
    from kenning.store import NewMemory

    from .cli_runner import run_cli

    env = {"KENNING_EMBEDDER": "hashing"}
    with open_store(cwd=project, embedder="hashing") as store:
        notes = [NewMemory(f"Service {i} retries the payment webhook {i} times", "rule") for i in range(12)]  # fmt: skip
        assert all(r.ok for r in store.remember_many(notes, near_duplicates=False))
    conn = sqlite3.connect(project / ".kenning" / "memory.db")
    conn.execute("UPDATE memories SET embedding = zeroblob(100) WHERE rowid <= 10")
    conn.commit()
    conn.close()
    for argv in (("recall", "payment webhook retries"), ("stats",)):
        r = run_cli(project, *argv, env=env)
        assert r.returncode == 0, r.stderr
        named = [x for x in r.stderr.splitlines() if "skipped the damaged memory" in x]
        assert len(named) == 3, r.stderr
        (counted,) = [x for x in r.stderr.splitlines() if "more damaged" in x]
        assert "and 7 more damaged memories skipped" in counted and "kenning doctor" in counted


def test_doctor_names_full_width_notes_an_older_kenning_embedded_as_written(
    store: MemoryStore,
) -> None:
    """Before the model read full-width text as the usual letters, such a note was embedded
    as unknown word pieces: after an upgrade recall missed it, and doctor and stats said
    every row was ok; only `kenning reembed`, which nothing suggested, found it. Doctor's
    rows check embeds those notes again and names the ones whose vector the model no longer
    makes; after reembed it is ok."""
    wide = store.remember(
        "ｄａｔａｂａｓｅ ｉｓ ｌｏｃｋｅｄ： ｅｎａｂｌｅ ＷＡＬ ｍｏｄｅ", "context"
    ).id
    plain = store.remember("Use black for formatting Python code", "guideline").id
    assert wide and plain
    root = store.project.root
    as_written = store.embedder.embed(["unrelated words the old vector stood for"])[0]
    store.close()
    conn = sqlite3.connect(root / ".kenning" / "memory.db", isolation_level=None)
    conn.execute(
        "UPDATE memories SET embedding = ? WHERE id = ?",
        (np.asarray(as_written, dtype=np.float32).tobytes(), wide),
    )
    conn.close()
    (rows,) = [c for c in run_doctor(cwd=root).checks if c.name == "rows"]
    assert rows.status == "warning" and repr(wide) in rows.message, rows
    assert plain not in rows.message and "kenning reembed" in (rows.fix or ""), rows
    with open_store(cwd=root, embedder=store.embedder) as again:
        assert reembed(again)["reembedded"] == 1
    (rows,) = [c for c in run_doctor(cwd=root).checks if c.name == "rows"]
    assert rows.status == "ok", rows


@pytest.mark.parametrize("damaged", ["tags-not-json"], indirect=True)
def test_forgetting_a_damaged_row_does_not_warn_it_was_skipped(
    damaged: tuple[MemoryStore, str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """qa72 F6: `kenning forget ID` of a damaged row printed "skipped the damaged memory …
    or `kenning forget` it" while it forgot it. Another damaged row a read meets is still
    said."""
    store, bad, _ = damaged
    other = next(r.memory.id for r in store.backend.iterate(Filters()) if r.memory.id != bad)
    conn = sqlite3.connect(store.backend.location, isolation_level=None)
    conn.execute("UPDATE memories SET tags = ? WHERE id = ?", ("{not json", other))
    conn.close()
    with caplog.at_level(logging.WARNING):
        assert store.forget(bad)
    assert not [r for r in caplog.records if "skipped" in r.getMessage()], caplog.text
    with caplog.at_level(logging.WARNING):
        assert store.get(other) is None
    assert [r for r in caplog.records if other in r.getMessage()], caplog.text


@pytest.mark.parametrize("target", ["sqlite", "postgresql"])
@pytest.mark.parametrize("damaged", ["vector-nan", "vector-short", "vector-zero"], indirect=True)
def test_migrate_embeds_again_the_text_of_a_memory_whose_vector_has_no_direction(
    damaged: tuple[MemoryStore, str, str],
    target: str,
    request: pytest.FixtureRequest,
) -> None:
    """A SQLite store holding one memory whose vector is NaN, of another dimension or all
    zeros (another writer's, or disk damage) could not be migrated at all: "skipped the
    damaged memory" and then "error: a vector contains NaN or infinity; nothing was
    written" (into PostgreSQL; into SQLite "… has 1 dimensions …"), naming no memory,
    copying none. Its text is fine: `kenning migrate` embeds it again with the store's
    embedder and copies it with that vector, says so in one line naming it, and copies
    every other memory, verified. Without ``embed`` (the Python API), it is not copied,
    named in the report, and the migration is not verified (a zero vector into a server,
    which scores it 0 as a server source's is, is copied as it is)."""
    from kenning.migrate import migrate

    store, bad, kind = damaged
    root = store.project.root
    wanted = store.embedder.embed([NOTES[VICTIM]])[0]
    store.close()
    to = (
        str(root / ".kenning" / "copy.db")
        if target == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    proc = run_kenning(root, "migrate", "--group-id", "all", "--to", to)
    said = proc.stderr.decode()
    assert proc.returncode == 0, said
    assert "copied 6, already present 0; source 6, target 6, verified" in proc.stdout.decode()
    if kind == "vector-zero":
        line = "1 memory holds a zero vector (another writer's), which points nowhere: copied "
        assert f"{line}with its text embedded again: {bad}" in said, said
    else:
        why = "holds NaN or infinity" if kind == "vector-nan" else "has 1 dimensions, not 384"
        assert (
            "1 memory holds a damaged vector (another writer's, or damage on disk), which no "
            f"search can score: copied with its text embedded again: {bad} ({why})"
        ) in said, said
    assert "skipped the damaged memory" not in said and "error" not in said, said
    with open_store(to, cwd=root, embedder=store.embedder, create=False) as copy:
        vectors = {r.memory.id: r.vector for r in copy.backend.iterate(Filters())}
    assert len(vectors) == len(NOTES), vectors.keys()
    assert float(np.dot(np.asarray(vectors[bad]), wanted)) > 0.999, "not its text's vector"
    again = run_kenning(root, "migrate", "--group-id", "all", "--to", to)  # a second run
    assert again.returncode == 0, again.stderr.decode()
    assert "copied 0, already present 6; source 6, target 6, verified" in again.stdout.decode()
    # (it wrote nothing: the memory is not said again as "copied with its text embedded
    # again", as it was by every resumed run)
    assert "embedded again" not in again.stderr.decode() and bad not in again.stderr.decode()

    # the Python API without embed: nothing to embed its text with
    kept = kind == "vector-zero" and target == "postgresql"
    other = (
        str(root / ".kenning" / "other.db")
        if target == "sqlite"
        else request.getfixturevalue("pg_databases").url(
            request.getfixturevalue("pg_databases").create()
        )
    )
    with (
        open_store(cwd=root, embedder=store.embedder, create=False) as source,
        open_store(other, cwd=root, embedder=store.embedder) as into,
    ):
        report = migrate(source.backend, into.backend, group_id=None)
        held = {r.memory.id for r in into.backend.iterate(Filters())}
    assert report.copied == len(NOTES) - (not kept), report
    assert report.verified is kept and (bad in held) is kept, report
    assert not report.zero_vectors and not report.damaged_vectors, report
    if kind == "vector-zero":
        assert report.zero_not_copied == ([] if kept else [bad]), report
    else:
        assert report.damaged_vectors_not_copied == {bad: why}, report


@pytest.mark.parametrize("damaged", ["vector-nan"], indirect=True)
def test_a_failed_migrate_says_each_held_damaged_vector_once(
    damaged: tuple[MemoryStore, str, str],
) -> None:
    """qa75 F3: a migrate that failed (here: a server that refuses the connection) printed
    "kenning: and 2 more damaged memories skipped" and no line before it: the warnings held
    while it ran (a damaged vector is copied, not skipped, when it succeeds) were counted
    again as they were let out, and dropped as past the three shown. Each is said once."""
    store, bad, _ = damaged
    root = store.project.root
    others = [m.id for m in store.browse(limit=None) if m.id != bad][:2]
    store.close()
    conn = sqlite3.connect(root / ".kenning" / "memory.db", isolation_level=None)
    for memory_id in others:
        conn.execute("UPDATE memories SET embedding = ? WHERE id = ?", (_nan.tobytes(), memory_id))
    conn.close()
    proc = run_kenning(root, "migrate", "--to", "postgresql://k:pw-never-shown@127.0.0.1:9/k")
    said = proc.stderr.decode()
    assert proc.returncode == 3, said
    assert "more damaged memor" not in said, said
    for memory_id in (bad, *others):
        assert said.count(f"skipped the damaged memory {memory_id!r}") == 1, said


def test_a_note_at_the_largest_sizes_kenning_stores_is_read(store: MemoryStore) -> None:
    """The sizes reads hold back as another writer's (red-team F2) are past the largest a
    write of kenning accepts: a note of 64 KiB of text whose metadata is as large as an
    import takes (twice 64 KiB of JSON), then edited and reviewed (kenning's own keys added),
    is read back whole: recall, newest, export, doctor."""
    from kenning import protocol
    from kenning.backends.base import encode_metadata
    from kenning.store_write import RESTORE_ALLOWANCE

    assert protocol.MAX_STORED_METADATA_BYTES > RESTORE_ALLOWANCE * protocol.MAX_METADATA_BYTES
    first = store.remember(NOTES[0], "context").id
    out = io.StringIO()
    export_memories(store, out)
    header, line = out.getvalue().splitlines()
    exported = json.loads(line)
    text = "Feature flags are evaluated server side only. " + "é" * 32000
    text += "a" * (protocol.MAX_CONTENT_BYTES - len(text.encode()))
    padding = RESTORE_ALLOWANCE * protocol.MAX_METADATA_BYTES - len('{"notes": ""}') - 64
    exported.update(id="restored-1", content=text, metadata={"notes": "日" * (padding // 3)})
    exported.pop("embedding", None)
    assert store.forget(first)
    report = import_memories(store, [header, json.dumps(exported, ensure_ascii=False)])
    assert report["imported"] == 1, report
    assert store.update("restored-1", type="decision").ok
    assert store.mark_reviewed("restored-1")
    (memory,) = store.newest(5)
    assert len(memory.content.encode()) == protocol.MAX_CONTENT_BYTES
    stored = len(encode_metadata(memory.metadata).encode())
    assert stored > RESTORE_ALLOWANCE * protocol.MAX_METADATA_BYTES - 64, stored
    assert {"reviewed_at", "edited_at"} <= set(memory.metadata), list(memory.metadata)
    assert store.recall("feature flags evaluated server side").hits[0].memory.id == "restored-1"
    assert export_memories(store, io.StringIO()).exported == 1
    assert not store.backend.damaged_rows()
    assert run_doctor(cwd=store.project.root).check("rows").status == "ok"


@pytest.mark.parametrize(
    "damaged",
    ["content-oversized", "metadata-oversized", "tags-not-json", "content-blank"],
    indirect=True,
)
def test_an_edit_of_a_damaged_row_says_what_is_wrong_and_the_fix(
    damaged: tuple[MemoryStore, str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """`kenning edit` of a row every read skips (one larger than kenning stores, red-team
    F2, or whose fields do not decode) said "no memory with id …; it may have been forgotten
    already", of a row doctor names: it says the row cannot be edited, why, and the fix
    (forget it), once, and changes nothing."""
    from kenning.errors import UnknownMemoryError, UserInputError

    store, bad, kind = damaged
    caplog.set_level(logging.WARNING)
    with pytest.raises(UserInputError) as raised:
        store.update(bad, content="Feature flags are evaluated on the server.")
    assert not isinstance(raised.value, UnknownMemoryError)
    message = str(raised.value)
    assert f"memory {bad} cannot be edited: its {DAMAGE[kind][0]} " in message, message
    assert "every read skips it" in message and "kenning forget" in message, message
    assert not _warned(caplog, bad), caplog.text  # (the error says it)
    with pytest.raises(UnknownMemoryError):  # another project's is not named here
        store.update(bad, content="Feature flags.", group_id="someone/else")
    root = store.project.root
    store.close()
    if kind == "content-oversized":
        proc = run_kenning(root, "edit", bad, "--content", "Feature flags are server side.")
        assert_clean_outcome(proc, "edit")
        err = proc.stderr.decode()
        assert proc.returncode == 1 and "cannot be edited: its content is 80,6" in err, err
        assert "no memory with id" not in err, err
