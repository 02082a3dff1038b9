# ruff: noqa: F811  (pytest fixtures are imported and then named as parameters)
"""Curation in the core: ``MemoryStore.get / browse / update / mark_reviewed`` and the recall
log, on every backend where the behaviour is the backend's (edits run in its transaction),
plus ``kenning edit`` on the command line. Real stores, the real MiniLM model."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from kenning import protocol
from kenning.backends.base import Backend, Filters, MemoryRecord
from kenning.config import load_settings
from kenning.embedders.base import Embedder
from kenning.errors import EditConflict, InvalidTypeError, UserInputError
from kenning.model import NEAR_DUPLICATE, REJECTED, STORED, edit_version
from kenning.project import resolve_project
from kenning.recall_log import RECALL_LOG_FILENAME
from kenning.store import MemoryStore, open_store
from tests.backends import (  # noqa: F401  (fixtures used by name)
    backend,
    backend_location,
    pg_databases,
    pg_server,
    pg_url,
    store_kind,
)
from tests.cli_runner import CliRun, run_cli

DB_LOCKED = (
    "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL and retry with "
    "busy_timeout | SOURCE: docs/solutions/db.md — concurrent writers"
)
NPM = "ERROR-FIX: npm ERR! code ERESOLVE | FIX: align the peer dependency versions"
NAMING = "Use snake_case for Python function names."
DEPLOY = "We decided to deploy on Fridays only after the QA sign-off."
NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
def mstore(backend: Backend, project: Path, minilm: Embedder) -> MemoryStore:
    p = resolve_project(project)
    return MemoryStore(backend, p, load_settings(p.root), minilm)


def _vector(store: MemoryStore, memory_id: str) -> np.ndarray:
    return store.backend.get_vectors([memory_id])[memory_id]


def test_update_reembeds_under_the_same_id(mstore: MemoryStore) -> None:
    first = mstore.remember(NAMING, "naming", source="docs/style.md", tags=["python"])
    other = mstore.remember(DEPLOY, "decision", stored_at=NOW - timedelta(days=3))
    assert first.status == other.status == STORED
    before = mstore.get(first.id or "")
    assert before is not None
    old_vector = _vector(mstore, before.id)

    text = "Name Python test files test_<module>.py and keep one module per test file."
    result = mstore.update(before.id, content=text)
    assert (result.status, result.id) == (STORED, before.id)
    after = mstore.get(before.id)
    assert after is not None
    assert after.content == text and after.type == "naming" and after.collection == "conventions"
    # kept: when it was stored, where it came from, its tags; recorded: the edit
    assert (after.stored_at, after.source, after.tags) == (
        before.stored_at,
        "docs/style.md",
        ("python",),
    )
    assert "edited_at" in after.metadata
    assert mstore.backend.count(Filters()) == 2
    # re-embedded: the new vector is the model's vector of the new text
    new_vector = _vector(mstore, before.id)
    np.testing.assert_allclose(new_vector, mstore.embedder.embed([text])[0], atol=1e-5)
    assert float(np.dot(new_vector, old_vector)) < 0.9
    hits = mstore.search("naming of python test files", threshold=0.3, now=NOW).results
    assert hits and hits[0].memory.id == before.id and hits[0].memory.content == text


def test_update_type_only_moves_the_collection(mstore: MemoryStore) -> None:
    stored = mstore.remember(NAMING, "naming")
    result = mstore.update(stored.id or "", type="rule")
    assert (result.status, result.collection, result.type) == (STORED, "conventions", "rule")
    moved = mstore.update(stored.id or "", type="decision")
    assert (moved.collection, moved.type) == ("discussions", "decision")
    memory = mstore.get(stored.id or "")
    assert memory is not None and memory.content == NAMING and memory.type == "decision"


def test_update_from_a_version_that_changed_since_changes_nothing(mstore: MemoryStore) -> None:
    """An edit made from the memory as it was read (the web page's form): another writer's
    change in between is not undone — the version is compared under the write lock."""
    stored = mstore.remember(NAMING, "rule")
    read = mstore.get(stored.id or "")
    assert read is not None
    seen = edit_version(read)
    # another process (or tab) edits it after this one read it
    assert mstore.update(read.id, content=NAMING + " Constants are UPPER_CASE.").ok
    with pytest.raises(EditConflict, match="changed since"):
        mstore.update(read.id, content="Use camelCase.", expected_version=seen)
    now = mstore.get(read.id)
    assert now is not None and now.content == NAMING + " Constants are UPPER_CASE."
    # made from the version as it is now, the edit applies
    done = mstore.update(read.id, type="decision", expected_version=edit_version(now))
    assert done.status == STORED and done.type == "decision"


def test_update_into_a_duplicate_changes_nothing(mstore: MemoryStore) -> None:
    """The edit deletes and re-checks inside the backend's transaction; a refused edit
    must leave the memory, its vector and every other row exactly as they were."""
    a = mstore.remember(DB_LOCKED, "error_fix")
    b = mstore.remember(DEPLOY, "decision")
    before = mstore.get(b.id or "")
    vector = _vector(mstore, b.id or "")
    for text in (DB_LOCKED, "  " + DB_LOCKED.replace("WAL", "WAL ") + " "):  # exact, then spaced
        result = mstore.update(b.id or "", content=text)
        assert (result.status, result.duplicate_of, result.score) == (NEAR_DUPLICATE, a.id, 1.0)
        # the answer is about the memory edited, which stays as it was
        assert (result.id, result.collection, result.type) == (b.id, b.collection, b.type)
        assert result.to_dict()["existing_id"] == a.id
    near = DB_LOCKED.replace("concurrent writers", "concurrent writers!")
    result = mstore.update(b.id or "", content=near)
    assert result.status == NEAR_DUPLICATE and (result.id, result.existing_id) == (b.id, a.id)
    assert result.score is not None and protocol.DEDUP_THRESHOLD < result.score <= 1.0
    assert mstore.get(b.id or "") == before
    np.testing.assert_allclose(_vector(mstore, b.id or ""), vector, atol=1e-6)
    assert mstore.backend.count(Filters()) == 2
    assert mstore.recall("deploy on fridays after QA").hits[0].memory.id == b.id


def test_update_keeps_its_own_text_and_lets_it_change(mstore: MemoryStore) -> None:
    """Dedup is against the *other* memories: an edit close to the memory's own text (or
    the same text) is saved, not refused as a duplicate of itself."""
    stored = mstore.remember(DEPLOY, "decision")
    same = mstore.update(stored.id or "", content=DEPLOY)
    assert (same.status, same.id) == (STORED, stored.id)
    close = mstore.update(stored.id or "", content=DEPLOY.replace("Fridays", "Thursdays"))
    assert (close.status, close.id) == (STORED, stored.id)
    memory = mstore.get(stored.id or "")
    assert memory is not None and "Thursdays" in memory.content


def test_update_applies_the_write_rules(mstore: MemoryStore) -> None:
    stored = mstore.remember(DEPLOY, "decision")
    redacted = mstore.update(
        stored.id or "", content="deploy  with   AWS key AKIAIOSFODNN7EXAMPLE and it works"
    )
    assert redacted.status == STORED and sum(redacted.redactions.values()) == 1
    memory = mstore.get(stored.id or "")
    assert memory is not None
    assert "AKIAIOSFODNN7EXAMPLE" not in memory.content and "[REDACTED:" in memory.content
    assert "  " not in memory.content  # normalised like remember
    for bad, words in (({"content": "   "}, "empty"), ({"type": "banana"}, "valid types")):
        result = mstore.update(stored.id or "", **bad)  # type: ignore[arg-type]
        assert result.status == REJECTED and words in (result.reason or "")
    assert mstore.get(stored.id or "") == memory
    with pytest.raises(UserInputError, match="no memory with id"):
        mstore.update("no-such-id", content="x")
    with pytest.raises(UserInputError, match="new content"):
        mstore.update(stored.id or "")


def test_update_recomputes_the_error_fingerprint(mstore: MemoryStore) -> None:
    stored = mstore.remember(DB_LOCKED, "context")  # the ruvector way: context → error_fix
    assert stored.type == "error_fix"
    old = mstore.get(stored.id or "")
    assert old is not None and old.metadata["given_type"] == "context"
    result = mstore.update(stored.id or "", content=NPM)
    assert (result.status, result.type) == (STORED, "error_fix")
    new = mstore.get(stored.id or "")
    assert new is not None
    assert new.metadata["error_fingerprint"] != old.metadata["error_fingerprint"]
    hit = mstore.recall("npm ERR! code ERESOLVE", errors=True).hits[0]
    assert hit.memory.id == stored.id and hit.match == "fingerprint"
    assert not [
        h
        for h in mstore.recall(DB_LOCKED.split(" | ")[0], errors=True).hits
        if h.match == "fingerprint"
    ]
    plain = mstore.update(stored.id or "", content=NAMING)  # no longer an ERROR-FIX entry
    assert plain.type == "context"
    memory = mstore.get(stored.id or "")
    assert memory is not None and "error_fingerprint" not in memory.metadata


def test_a_notes_own_metadata_cannot_pose_as_what_kenning_derives(mstore: MemoryStore) -> None:
    """kenning derives given_type, error_fingerprint and file_blobs from a note's type, text
    and files; a note handed in with its own (an agent's remember_memory metadata) kept
    them: a fingerprint of a common error made an unrelated note the exact fix (0.95, ranked
    first) of every such error, and a given_type kenning does not know made every later
    content edit of the note fail as an unknown type."""
    fingerprint = mstore.remember(DB_LOCKED, "context")
    entry = mstore.get(fingerprint.id or "")
    assert entry is not None
    stolen = entry.metadata["error_fingerprint"]
    mstore.forget(entry.id)
    posing = mstore.remember(
        NAMING,
        "rule",
        metadata={"given_type": "bogus", "error_fingerprint": stolen, "ticket": "OPS-7"},
    )
    assert posing.status == STORED
    memory = mstore.get(posing.id or "")
    assert memory is not None
    assert memory.metadata == {"ticket": "OPS-7"}, memory.metadata
    hits = mstore.recall(DB_LOCKED.split(" | ")[0], errors=True).hits
    assert not [h for h in hits if h.match == "fingerprint"]
    assert mstore.update(posing.id or "", content=NAMING + " Always.").status == STORED
    # a store written before kenning owned the key may hold a note's own given_type
    edited = mstore.get(posing.id or "")
    assert edited is not None
    vector = _vector(mstore, edited.id)
    with mstore.backend.exclusive():
        mstore.backend.upsert(
            [MemoryRecord(replace(edited, metadata={"given_type": "bogus"}), vector)]
        )
    again = mstore.update(edited.id, content=NAMING + " Always, everywhere.")
    assert (again.status, again.type) == (STORED, "rule"), again


def test_a_new_note_cannot_claim_a_review_or_an_edit(mstore: MemoryStore) -> None:
    """``reviewed_at`` says a person checked the text (the page's Mark reviewed) and
    ``edited_at`` that it was edited: a note handed in with its own (an agent's
    hooks_remember metadata) kept them, and the page showed a text nobody had read as
    reviewed. An import keeps them: a restored note was reviewed where it was exported."""
    claimed = {"reviewed_at": NOW.isoformat(), "edited_at": NOW.isoformat(), "ticket": "OPS-7"}
    posing = mstore.remember(DEPLOY, "decision", metadata=claimed)
    assert posing.status == STORED
    memory = mstore.get(posing.id or "")
    assert memory is not None and memory.metadata == {"ticket": "OPS-7"}, memory.metadata


def test_a_note_kenning_grew_past_the_limits_can_be_edited(store: MemoryStore) -> None:
    """A source or tag given at its limit grows past it when a secret in it is redacted (the
    marker is longer), and metadata at its limit when Mark reviewed adds reviewed_at: every
    edit of such a note — its type, its text — was refused for the field the edit does not
    change and the user never gave over the limit ("source is 2067 characters, over the
    2048 limit"). The fields an edit keeps are held to what a restore accepts."""
    secret = "?password=hunter22abc"
    source = "docs/" + "s" * (protocol.MAX_SOURCE_CHARS - 5 - len(secret)) + secret
    tag = "cfg password=hunter22abc " + "t" * (protocol.MAX_TAG_CHARS - 25)
    grown = store.remember(DEPLOY, "decision", source=source, tags=[tag])
    full = store.remember(
        NAMING, "naming", metadata={"note": "x" * (protocol.MAX_METADATA_BYTES - 40)}
    )
    assert grown.status == full.status == STORED
    store.mark_reviewed(full.id or "")
    for memory_id in (grown.id or "", full.id or ""):
        kept = store.get(memory_id)
        assert kept is not None
        retyped = store.update(memory_id, type="rule")
        assert retyped.status == STORED, retyped.reason
        rewritten = store.update(memory_id, content=kept.content + " Checked again in June.")
        assert rewritten.status == STORED, rewritten.reason
        edited = store.get(memory_id)
        assert edited is not None and edited.type == "rule"
        assert (edited.source, edited.tags) == (kept.source, kept.tags)
    # a new value over a limit is still refused: the allowance is for what was stored
    assert store.remember(DEPLOY + " Again.", "decision", source=source + "x").status == REJECTED


def test_mark_reviewed_records_the_time_and_keeps_the_rest(mstore: MemoryStore) -> None:
    stored = mstore.remember(NAMING, "naming", metadata={"origin": "test"})
    vector = _vector(mstore, stored.id or "")
    reviewed = mstore.mark_reviewed(stored.id or "", now=NOW)
    assert reviewed.metadata == {"origin": "test", "reviewed_at": NOW.isoformat()}
    memory = mstore.get(stored.id or "")
    assert memory == reviewed
    np.testing.assert_allclose(_vector(mstore, stored.id or ""), vector, atol=1e-6)
    with pytest.raises(UserInputError, match="no memory with id"):
        mstore.mark_reviewed("no-such-id")
    with pytest.raises(UserInputError, match="id of a memory"):
        mstore.get("  ")


def test_an_edited_text_is_no_longer_marked_reviewed(mstore: MemoryStore) -> None:
    """``reviewed_at`` says a person checked the text: an edit kept it, so the page showed
    a text nobody had read as reviewed. A new type keeps it (the text is the one checked)."""
    stored = mstore.remember(NAMING, "naming", metadata={"origin": "test"})
    memory_id = stored.id or ""
    mstore.mark_reviewed(memory_id, now=NOW)
    assert mstore.update(memory_id, type="rule").status == STORED
    retyped = mstore.get(memory_id)
    assert retyped is not None and retyped.metadata["reviewed_at"] == NOW.isoformat()
    edited = mstore.update(memory_id, content="Use camelCase for Python function names.")
    assert edited.status == STORED, edited.reason
    memory = mstore.get(memory_id)
    assert memory is not None and "reviewed_at" not in memory.metadata
    assert memory.metadata["origin"] == "test" and "edited_at" in memory.metadata


def test_browse_filters_and_orders(store: MemoryStore) -> None:
    ids = {}
    for text, kind, age in (
        (DB_LOCKED, "error_fix", 1),
        (NAMING, "naming", 40),
        (DEPLOY, "decision", 200),
    ):
        ids[kind] = store.remember(text, kind, stored_at=NOW - timedelta(days=age)).id
    store.remember("A note of another project.", "decision", group_id="other/repo")
    assert [m.id for m in store.browse()] == [ids["error_fix"], ids["naming"], ids["decision"]]
    assert [m.id for m in store.browse(limit=1)] == [ids["error_fix"]]
    assert [m.id for m in store.browse(collection="conventions")] == [ids["naming"]]
    assert [m.id for m in store.browse(memory_type=["decision", "port"])] == [ids["decision"]]
    assert [m.id for m in store.browse(stored_after=NOW - timedelta(days=30))] == [ids["error_fix"]]
    assert [m.id for m in store.browse(stored_before=NOW - timedelta(days=90))] == [ids["decision"]]
    assert len(store.browse(group_id="all")) == 4
    assert [m.content for m in store.browse(group_id="other/repo")] == [
        "A note of another project."
    ]
    with pytest.raises(InvalidTypeError):
        store.browse(memory_type="banana")


def test_recall_log_is_off_by_default_and_never_holds_the_query(
    project: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = project / ".kenning" / RECALL_LOG_FILENAME
    with open_store(cwd=project, embedder=minilm) as store:
        store.remember(DB_LOCKED, "error_fix")
        store.recall("database is locked when two agents write")
        assert not log.exists() and store.recent_recalls() == []
    monkeypatch.setenv("KENNING_RECALL_LOG", "1")
    secret_query = "database is locked zebra-canary-4242 when two agents write"
    with open_store(cwd=project, embedder=minilm) as store:
        first = store.recall(secret_query)
        store.recall("chocolate cake recipe with strawberries")
        entries = store.recent_recalls()
    text = log.read_text()
    assert "zebra-canary" not in text and "chocolate" not in text
    assert len(entries) == 2 and len(text.splitlines()) == 2
    assert entries[0].kept == len(first.hits) == 1 and entries[0].floor == first.floor
    assert entries[0].scores[0] == pytest.approx(first.hits[0].score, abs=1e-4)
    assert entries[1].kept == 0 and all(s < protocol.RECALL_FLOOR for s in entries[1].scores)
    # config.toml switches it on too; a bad value is a clear error
    monkeypatch.delenv("KENNING_RECALL_LOG")
    (project / ".kenning" / "config.toml").write_text("recall_log = true\n")
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.settings.recall_log and store.settings.sources["recall_log"].endswith(
            "config.toml"
        )
    monkeypatch.setenv("KENNING_RECALL_LOG", "sometimes")
    with open_store(cwd=project, embedder=minilm) as store:
        # said by what reads settings (a recall); an export or a write reads none
        with pytest.raises(
            UserInputError, match=r"recall log from the environment \(KENNING_RECALL_LOG\)"
        ):
            store.recall("database is locked")
        assert [m.content for m in store.browse()] == [DB_LOCKED]


def test_recall_log_is_never_written_through_a_symlink_nor_waits_on_a_pipe(
    project: Path, tmp_path: Path, minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout can carry .kenning/config.toml (recall_log = true) and, in .kenning, a
    recall-log.jsonl that is a symlink: every recall appended a line to the file it leads
    to (a shell profile, a source file of another project). A named pipe there made every
    recall wait for a reader for ever. Neither is opened now: the recall goes on, the
    log line is not written, a warning says why."""
    import threading

    monkeypatch.setenv("KENNING_RECALL_LOG", "1")
    with open_store(cwd=project, embedder=minilm) as store:
        store.remember(DB_LOCKED, "error_fix")
    log = project / ".kenning" / RECALL_LOG_FILENAME
    outside = tmp_path / "profile.sh"
    outside.write_text("export PATH=/usr/bin\n")
    log.symlink_to(outside)
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.recall("database is locked when two agents write").hits
        assert store.recent_recalls() == []
    assert outside.read_text() == "export PATH=/usr/bin\n" and log.is_symlink()
    log.unlink()
    os.mkfifo(log)
    done: list[int] = []

    def recall() -> None:
        with open_store(cwd=project, embedder=minilm) as store:
            done.append(len(store.recall("database is locked when two agents write").hits))
            done.append(len(store.recent_recalls()))

    worker = threading.Thread(target=recall, daemon=True)
    worker.start()
    worker.join(30)
    assert done == [1, 0], "the recall waited on the named pipe"


def test_recall_log_rotates_and_skips_bad_lines(tmp_path: Path) -> None:
    from kenning import recall_log

    path = tmp_path / ".kenning" / RECALL_LOG_FILENAME
    entry = recall_log.RecallLogEntry(NOW, 0.5, (0.61, 0.42), 1)
    for _ in range(3):
        recall_log.append_entry(path, entry)
    with path.open("a") as fh:
        fh.write("not json\n" + json.dumps({"at": "x"}) + "\n")
    assert len(recall_log.read_recent(path)) == 3
    path.write_text("x" * (recall_log.MAX_LOG_BYTES + 1) + "\n")
    recall_log.append_entry(path, entry)
    assert path.with_name(RECALL_LOG_FILENAME + ".1").exists()
    assert path.read_text().count("\n") == 1
    assert [e.scores for e in recall_log.read_recent(path)] == [(0.61, 0.42)]


def _kenning(cwd: Path, *args: str, stdin: str | None = None) -> CliRun:
    return run_cli(cwd, *args, stdin=stdin)


def test_cli_edit(project: Path) -> None:
    a = json.loads(_kenning(project, "remember", "--json", "--type", "error_fix", DB_LOCKED).stdout)
    b = json.loads(_kenning(project, "remember", "--json", "--type", "decision", DEPLOY).stdout)
    r = _kenning(project, "edit", b["id"], "--content", "-", stdin="We deploy on Mondays now.\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"updated {b['id']} (discussions/decision)"
    r = _kenning(project, "edit", "--json", b["id"], "--type", "rule")
    assert r.returncode == 0 and json.loads(r.stdout)["type"] == "rule"
    r = _kenning(project, "edit", b["id"], "--content", DB_LOCKED)
    assert r.returncode == 1 and f"near-duplicate of {a['id']}" in r.stderr
    r = _kenning(project, "edit", b["id"])
    assert r.returncode == 2 and "--content, --type" in r.stderr
    r = _kenning(project, "edit", "no-such-id", "--type", "rule")
    assert r.returncode == 1 and "no memory with id no-such-id" in r.stderr
    with open_store(cwd=project) as store:
        memory = store.get(b["id"])
    assert memory is not None and (memory.content, memory.type) == (
        "We deploy on Mondays now.",
        "rule",
    )


def test_cli_edit_refused_as_a_duplicate_says_why_as_remember_does(project: Path) -> None:
    """`kenning edit` refused as a near-duplicate said only "(score 0.95); nothing changed",
    where `remember` of the same text says why it is one ("the same text up to case, …"),
    as both give in --json."""
    a = json.loads(_kenning(project, "remember", "--json", "--type", "decision", DEPLOY).stdout)
    b = json.loads(_kenning(project, "remember", "--json", DB_LOCKED).stdout)
    again = DEPLOY.lower()
    answer = json.loads(_kenning(project, "edit", "--json", b["id"], "--content", again).stdout)
    assert answer["status"] == "near-duplicate" and answer["reason"], answer
    r = _kenning(project, "edit", b["id"], "--content", again)
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"error: near-duplicate of {a['id']} (score "), line
    assert f"; {answer['reason']}); nothing changed" in line, line


def test_an_edit_refused_as_a_duplicate_says_which_secrets_made_it_one(project: Path) -> None:
    """An edit whose text matched another memory only once its secret was redacted answered
    "identical content" with no redactions: the text given had a password the memory has
    not. It names them, as `remember` of the same text does (in --json; on the one line
    a refusal gets)."""
    kept = "Staging deploys read DB_PASSWORD=Zq9xTb42pw from the vault"
    a = json.loads(_kenning(project, "remember", "--json", "--type", "rule", kept).stdout)
    b = json.loads(_kenning(project, "remember", "--json", DEPLOY).stdout)
    again = kept.replace("Zq9xTb42pw", "Hk3mWv87qa")  # another secret, the same redacted text
    remembered = json.loads(_kenning(project, "remember", "--json", "--type", "rule", again).stdout)
    assert remembered["status"] == "near-duplicate"
    assert remembered["redactions"] == {"password_assignment": 1}
    r = _kenning(project, "edit", "--json", b["id"], "--content", again, "--type", "rule")
    answer = json.loads(r.stdout)
    assert r.returncode == 1 and answer["status"] == "near-duplicate", answer
    assert answer["existing_id"] == a["id"]
    assert answer["redactions"] == remembered["redactions"]
    r = _kenning(project, "edit", b["id"], "--content", again, "--type", "rule")
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()  # still one line, as every refusal
    assert line.startswith(f"error: near-duplicate of {a['id']} (score "), line
    assert "; with its secrets redacted: 1 password_assignment); nothing changed" in line, line
    assert "Hk3mWv87qa" not in r.stderr + r.stdout
    with open_store(cwd=project) as store:
        memory = store.get(b["id"])
    assert memory is not None and memory.content == DEPLOY


def test_cli_edit_of_an_unknown_id_says_which_project_it_looked_in(project: Path) -> None:
    """`kenning edit ID --project acme/other` (or --project all) of an id not there said
    "no memory with id ID in this project", where forget names the project it searched."""
    mine = json.loads(_kenning(project, "remember", "--json", DEPLOY).stdout)["id"]
    for extra, where in (
        ((), "in this project"),
        (("--project", "acme/other"), "in project acme/other"),
        (("--project", "all"), "in any project"),
    ):
        r = _kenning(project, "edit", "no-such-id", "--type", "rule", *extra)
        assert r.returncode == 1, r.stderr
        assert f"error: no memory with id no-such-id {where} " in r.stderr, (extra, r.stderr)
    # a memory of this project, looked for in another: the project it is under is named
    r = _kenning(project, "edit", mine, "--type", "rule", "--project", "acme/other")
    assert r.returncode == 1, r.stderr
    assert "is project acme/widgets's, not project acme/other's" in r.stderr, r.stderr


def test_mark_reviewed_of_another_projects_memory_names_the_project_it_looked_in(
    mstore: MemoryStore,
) -> None:
    """mark_reviewed(ID, group_id="acme/third") of a memory of another project said "no
    memory with id ID in this project", though it had looked in acme/third."""
    theirs = mstore.remember(DEPLOY, "decision", group_id="other/repo").id or ""
    with pytest.raises(UserInputError) as info:
        mstore.mark_reviewed(theirs, group_id="acme/third")
    assert f"no memory with id {theirs} in project acme/third" in str(info.value)
    with pytest.raises(UserInputError) as info:
        mstore.mark_reviewed(theirs)
    assert f"no memory with id {theirs} in this project" in str(info.value)


def test_an_edit_of_an_unknown_id_names_no_option_of_the_cli(
    mstore: MemoryStore, project: Path
) -> None:
    """MemoryStore.update of an unknown id said "(it may have been forgotten; --project names
    another project's)": an option of the CLI, in the core, shown by every surface. The core
    says the fact; the CLI says how to find ids and name another project, as forget does."""
    with pytest.raises(UserInputError) as info:
        mstore.update("no-such-id", content="x")
    said = str(info.value)
    assert said.startswith("no memory with id no-such-id in this project"), said
    assert "forgotten" in said and "another project's" in said, said
    assert "--project" not in said and "kenning" not in said, said
    assert _kenning(project, "remember", DEPLOY).returncode == 0
    r = _kenning(project, "edit", "no-such-id", "--type", "rule")
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert "--project names another project's" in line, line
    assert "`kenning search` and `kenning recall` show ids" in line, line
    # looked for in every project already: no advice to name another (it said so)
    r = _kenning(project, "forget", "--project", "all", "no-such-id")
    (line,) = r.stderr.splitlines()
    assert r.returncode == 1 and "in any project" in line, line
    assert "another project" not in line and "`kenning search` and `kenning recall`" in line


def test_another_projects_memory_is_changed_only_when_named(mstore: MemoryStore) -> None:
    """A shared server holds many projects: an edit or a review from this project must not
    reach another's memory by its id (forget never did), unless --project names it."""
    theirs = mstore.remember(DEPLOY, "decision", group_id="other/repo").id or ""
    before = mstore.get(theirs)
    for change in (
        lambda: mstore.update(theirs, content="Deploy any day, skip the tests."),
        lambda: mstore.update(theirs, type="rule"),
        lambda: mstore.mark_reviewed(theirs),
    ):
        with pytest.raises(UserInputError, match="in this project"):
            change()
    assert mstore.get(theirs) == before
    assert mstore.update(theirs, type="rule", group_id="other/repo").status == STORED
    assert mstore.mark_reviewed(theirs, group_id="all").metadata["reviewed_at"]


def test_an_edit_that_changes_nothing_writes_nothing(project: Path, minilm: Embedder) -> None:
    """Saving a memory's own text again (``kenning edit ID --content`` with the same text,
    the page's Save with a line break added) stamped ``edited_at`` and recorded the files it
    names as they are now: a stale memory became fresh, though nobody checked it. Now an
    edit whose normalised text and type are those stored writes nothing and says so."""
    (project / "docs").mkdir()
    (project / "docs" / "parser.md").write_text("the parser\n")
    text = "Read docs/parser.md before touching the parser"
    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember(text, "rule").id or ""
        (project / "docs" / "parser.md").write_text("the parser, rewritten\n")
        before = store.get(memory_id)
        assert before is not None
        assert store.freshness([before])[memory_id].stale
        result = store.update(memory_id, content=f"  {text} \n", type="rule")
        assert (result.status, result.id, result.unchanged) == (STORED, memory_id, True)
        after = store.get(memory_id)
        assert after == before and "edited_at" not in after.metadata
        assert store.freshness([after])[memory_id].stale  # still stale: nobody checked it
    r = _kenning(project, "edit", memory_id, "--content", text)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"unchanged {memory_id}: the text and type are those stored"
    with open_store(cwd=project, embedder=minilm) as store:
        assert store.get(memory_id) == before
    # a real change is still saved
    done = json.loads(_kenning(project, "edit", "--json", memory_id, "--type", "guideline").stdout)
    assert (done["status"], done["type"], done["reason"]) == (STORED, "guideline", None)


def test_a_text_edit_of_a_memory_of_another_tools_type_says_to_give_a_type(
    project: Path, minilm: Embedder
) -> None:
    """A memory of a type another tool wrote into the store: an edit of its text alone was
    refused as "unknown memory type 'custom_tool_type'", a type the edit never gave. It
    says why, and what to do; given a type with the text, the edit is made."""
    import sqlite3

    with open_store(cwd=project, embedder=minilm) as store:
        memory_id = store.remember("Service logs go to stdout.", "rule").id or ""
        location = store.backend.location
    with sqlite3.connect(location) as conn:
        conn.execute("UPDATE memories SET type = 'custom_tool_type'")
    with open_store(cwd=project, embedder=minilm) as store:
        result = store.update(memory_id, content="Service logs go to stdout as JSON.")
        assert result.status == REJECTED, result
        assert (result.reason or "").startswith(
            "the memory's type 'custom_tool_type' is not one kenning knows (another tool wrote "
            "it), so its text cannot be changed alone; give a type with the new text"
        ), result
        kept = store.get(memory_id)
        assert kept is not None and kept.content == "Service logs go to stdout."
        assert store.update(memory_id, content="Logs go to stdout as JSON.", type="rule").ok


def test_the_id_recall_and_search_show_is_what_forget_edit_and_source_take(
    project: Path,
) -> None:
    """qa-s69a F3: the text of recall and search showed no ids, and forget/edit/source took
    only a whole id, so "recall gave me an outdated note → forget it" needed --json and jq.
    Each listing shows the short id (git's and docker's habit), and each command takes it,
    or any start of the id of 12 hex digits or more, dashes optional."""
    import re

    (project / "docs").mkdir()
    (project / "docs" / "tz.md").write_text("UTC everywhere\n")
    utc = run_cli(project, "remember", "--json", "--type", "rule", "--source", "docs/tz.md",
                  "All timestamps are stored in UTC")  # fmt: skip
    utc_id = json.loads(utc.stdout)["id"]
    cents = run_cli(project, "remember", "--json", "--type", "rule",
                    "Money is kept in integer cents, never floats")  # fmt: skip
    cents_id = json.loads(cents.stdout)["id"]

    recalled = run_cli(project, "recall", "which timezone do we store timestamps in")
    assert recalled.returncode == 0, recalled.stderr
    first = recalled.stdout.splitlines()[0]
    assert re.fullmatch(r"1\. \[\d\.\d\d\] (\S+) All timestamps are stored in UTC", first), first
    shown = first.split()[2]
    assert shown == utc_id[:13]  # 12 hex digits: the millisecond the note was made

    searched = run_cli(project, "search", "how is money stored")
    assert f"| Id: {cents_id[:13]}" in searched.stdout, searched.stdout

    source = run_cli(project, "source", shown)
    assert source.returncode == 0 and source.stdout.strip().endswith("docs/tz.md"), source.stderr
    edited = run_cli(project, "edit", cents_id[:13].replace("-", ""), "--type", "guideline")
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.strip() == f"updated {cents_id} (conventions/guideline)"
    # the whole id in capitals, or without its dashes (as some tools print UUIDs): the same
    for typed in (utc_id.upper(), utc_id.replace("-", "")):
        again = run_cli(project, "source", typed)
        assert again.returncode == 0, (typed, again.stderr)
        assert again.stdout.strip().endswith("docs/tz.md"), (typed, again.stdout)
    forgot = run_cli(project, "forget", shown)
    assert (forgot.returncode, forgot.stdout.strip()) == (0, f"forgot {utc_id}"), forgot.stderr

    # too short to be taken (git's 7 digits, a typo's neighbour minute): not found, and why
    short = run_cli(project, "forget", cents_id[:8])
    assert short.returncode == 1 and "from 12 hex digits on" in short.stderr, short.stderr
    # said too short, not "no memory … it may have been forgotten already" (qa76 F5)
    assert "is too short to name a memory" in short.stderr, short.stderr
    assert "forgotten" not in short.stderr, short.stderr
    # another project's start of an id is named as for a whole id
    other = run_cli(project, "forget", cents_id[:13], "--project", "acme/other")
    assert other.returncode == 1 and "pass --project acme/widgets" in other.stderr, other.stderr


def test_a_start_of_an_id_that_starts_several_is_refused_naming_them(project: Path) -> None:
    """Ids made in one millisecond (a batch of writes) share their first 12 hex digits: the
    listing shows each one longer, and the shared start is refused, naming them, with
    nothing forgotten."""
    from kenning.model import content_hash

    with open_store(cwd=project) as store:
        a = store.remember("All timestamps are stored in UTC", "rule").id or ""
        first = store.get(a)
        assert first is not None
        twin = a[:16] + ("0" if a[16] != "0" else "1") + a[17:]
        text = "Durations are stored in whole seconds"
        store.backend.upsert(
            [
                MemoryRecord(
                    replace(first, id=twin, content=text, content_hash=content_hash(text)),
                    _vector(store, a),
                )
            ]
        )
    refused = run_cli(project, "forget", a[:13])
    assert refused.returncode == 1, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert a in line and twin in line and "give more of the id" in line, line
    assert "stored in UTC" in line and "whole seconds" in line, line
    as_json = run_cli(project, "forget", "--json", a[:13])
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["deleted"] is False
    listing = run_cli(project, "search", "--threshold", "0", "what is stored in UTC")
    assert f"| Id: {a[:17]}" in listing.stdout and f"| Id: {twin[:17]}" in listing.stdout
    assert run_cli(project, "forget", a[:17]).returncode == 0
    with open_store(cwd=project) as store:
        assert store.get(twin) is not None and store.get(a) is None
