"""Secrets never reach the store file: every write path, every stored field.

Each test writes secrets through one surface — the Python API, ``kenning remember``,
``kenning import``, ``kenning seed-solutions``, the MCP ``hooks_remember`` tool, the Claude
Code hooks — then reads the raw bytes of everything under ``.kenning/`` (``memory.db``, its
WAL and shared-memory files: the FTS5 shadow tables and not-yet-checkpointed pages included)
and asserts that no secret's bytes are there, while a marker word written alongside is (so
the grep does see what was written).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from mcp import Client

import kenning
from kenning import MemoryStore
from kenning.backends.base import Filters
from kenning.embedders.base import Embedder
from kenning.mcp_server import KenningTools, build_server
from kenning.render import redaction_counts
from kenning.store import NewMemory
from tests.backends import pg_databases, pg_server, pg_url  # noqa: F401  (fixtures by name)

from . import cli_runner
from .test_cli import kenning as run_cli
from .test_hooks import hook_here, payload
from .test_mcp_inprocess import ok

# Assembled at run time so that no literal credential-shaped string sits in the repository.
GH = "ghp_" + "Vb7Lp2Xq9Zk4" * 3
AWS_SECRET = "q7Zr/Lm2Xv" + "9Kt4+Wp8Ys3Nd6Hf1Jb5Rc0GeTa2Qw"
STRIPE = "sk_live_" + "51Hc9RkT2mVb7Lp4Xq9Zk8Ws"
AWS_ID = "AKIA" + "QYLPMN5HFIQR7XYZ"
URL_PW = "Pw/9x+Lm2" + "Vb7Kq"
JWT_SECRET = "Zx9kQ2mV" + "b7LpW4sT"
SECRETS = (GH, AWS_SECRET, STRIPE, AWS_ID, URL_PW, JWT_SECRET)


def raw_store(root: Path) -> bytes:
    """Every byte kenning keeps for the project: the SQLite file, its WAL and SHM, anything."""
    folder = root / ".kenning"
    assert folder.is_dir()
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def assert_no_secret(root: Path, *present: str) -> None:
    raw = raw_store(root)
    for word in present:
        assert word.encode() in raw, f"{word!r} was written but is not in the store files"
    for secret in SECRETS:
        assert secret.encode() not in raw, f"a secret ({secret[:6]}…) reached the store file"


def note(marker: str) -> str:
    return (
        f"{marker}: deploy with GITHUB_TOKEN={GH} and aws_secret_access_key = {AWS_SECRET}; "
        f"the charge failed with {STRIPE}, key id {AWS_ID}, "
        f"DATABASE_URL=postgresql://app:{URL_PW}@db.internal:5432/app, JWT_SECRET={JWT_SECRET}"
    )


def test_store_remember_redacts_every_field(store: MemoryStore, project: Path) -> None:
    result = store.remember(
        note("kiwimarker"),
        "decision",
        source=f"https://ci:{GH}@github.com/acme/app/blob/main/deploy.md",
        tags=["deploy", f"key-{AWS_ID}", f"JWT_SECRET={JWT_SECRET}"],
        metadata={
            "env": {"DB_URL": f"postgresql://app:{URL_PW}@db/app", "retries": 3},
            "aws_secret_access_key": AWS_SECRET,
            STRIPE: "a key that is itself a secret",
            "owner": "papayamarker",
        },
    )
    assert result.status == "stored", result
    assert {"github_token", "aws_secret", "stripe_key", "aws_access_key"} <= set(result.redactions)
    assert not any(secret in json.dumps(result.to_dict()) for secret in SECRETS)
    assert_no_secret(project, "kiwimarker", "papayamarker", "deploy.md")
    (memory,) = store.backend.get([result.id])
    assert memory.tags[0] == "deploy" and memory.metadata["env"]["retries"] == 3


def test_api_remember(project: Path) -> None:
    result = kenning.remember(note("limemarker"), "context", tags=[GH], cwd=project)
    assert result.status == "stored"
    assert_no_secret(project, "limemarker")


def test_cli_remember_source_and_tags(project: Path) -> None:
    r = run_cli(
        project,
        "remember",
        "--json",
        "--source",
        f"postgresql://app:{URL_PW}@db.internal/app",
        "--tag",
        GH,
        "--tag",
        "mangomarker",
        note("melonmarker"),
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["redactions"]["github_token"] >= 2  # content and tag
    for secret in SECRETS:
        assert secret not in r.stdout and secret not in r.stderr  # kinds and counts only
    assert_no_secret(project, "melonmarker", "mangomarker")


def test_cli_remember_of_a_report_with_escaped_secrets(project: Path) -> None:
    """A go test -json report (stdin) whose credentials a JSON encoder wrote escaped: the
    AWS key id's first letter as ``\\u0041``, the URL's slashes as ``\\/`` (PHP), a token
    letter by letter. A reader decoding the stored text got them back (qa-s67b F8)."""
    escaped_gh = "".join(f"\\u{ord(c):04x}" for c in GH)
    events = [
        {"Action": "run", "Package": "acme/db", "Test": "TestDB"},
        {"Action": "output", "Package": "acme/db", "Test": "TestDB",
         "Output": f"    db_test.go:12: figmarker key \\u0041{AWS_ID[1:]} was refused\\n"},
        {"Action": "output", "Package": "acme/db", "Test": "TestDB",
         "Output": "    db_test.go:13: dsn postgresql:\\/\\/app:"
         + URL_PW.replace("/", "\\/") + "@db.internal:5432\\/app\\n"},
        {"Action": "output", "Package": "acme/db", "Test": "TestDB",
         "Output": f"    db_test.go:14: GITHUB_TOKEN={escaped_gh}\\n"},
        {"Action": "fail", "Package": "acme/db", "Test": "TestDB"},
    ]  # fmt: skip
    # written by hand as an encoder would, not with json.dumps (which would escape the "\\")
    report = "\n".join(
        "{" + ", ".join(f'"{k}": "{v}"' for k, v in event.items()) + "}" for event in events
    )
    r = run_cli(project, "remember", "--type", "error_fix", "--json", "-", stdin=report.encode())
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {"aws_access_key", "connection_string", "github_token"} <= set(data["redactions"])
    raw = raw_store(project)
    assert b"figmarker" in raw
    for tail in (AWS_ID[1:], URL_PW.replace("/", "\\/"), escaped_gh[-30:]):
        assert tail.encode() not in raw, f"an escaped secret ({tail[:6]}…) reached the store"


def test_cli_import_redacts_every_field_and_reembeds(
    project: Path, tmp_path: Path, minilm: Embedder
) -> None:
    content = note("plummarker")
    leaked_vector = minilm.embed([content])[0]  # the vector of the unredacted text
    record = {
        "id": "01JIMPORTSECRET00000000001",
        "content": content,
        "collection": "discussions",
        "type": "decision",
        "group_id": "acme/widgets",
        "stored_at": "2026-01-02T03:04:05+00:00",
        "content_hash": "",
        "source": f"https://deploy:{URL_PW}@git.example.com/acme/app.git",
        "tags": ["release", GH],
        "metadata": {"ci": {"STRIPE_KEY": STRIPE, "note": "cherrymarker"}, AWS_ID: 1},
        "embedding": base64.b64encode(leaked_vector.astype(np.float32).tobytes()).decode(),
    }
    header = {"kenning_export": 1, "provenance": minilm.provenance.to_dict()}
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    r = run_cli(project, "import", "--json", str(export))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["imported"] == 1
    assert_no_secret(project, "plummarker", "cherrymarker", "release")
    # The given vector described the secret-bearing text: the stored one is the redacted
    # text's own embedding.
    with kenning.open_store(cwd=project, embedder=minilm, create=False) as store:
        (stored,) = list(store.backend.iterate(Filters()))
    fresh = minilm.embed([stored.memory.content])[0]
    assert float(np.dot(stored.vector, fresh)) > 0.9999
    assert float(np.dot(stored.vector, leaked_vector)) < 0.9999


def test_a_project_id_holding_a_token_is_stored_and_said_redacted(
    project: Path, tmp_path: Path, minilm: Embedder
) -> None:
    # an export's group_id, or the project a caller names, is a stored field as well
    record = {
        "id": "01JIMPORTSECRET00000000002",
        "content": "quincemarker: the release checklist lives in docs/release.md",
        "collection": "discussions",
        "type": "decision",
        "group_id": f"ci-{GH}",
        "stored_at": "2026-01-02T03:04:05+00:00",
        "source": None,
        "tags": [],
        "metadata": {},
    }
    header = {"kenning_export": 1, "provenance": minilm.provenance.to_dict()}
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    r = run_cli(project, "import", str(export))
    assert r.returncode == 0, r.stderr
    assert GH not in r.stdout and GH not in r.stderr
    r = run_cli(project, "remember", "--project", f"ops-{GH}", "figmarker: rotate keys monthly")
    assert r.returncode == 0, r.stderr
    assert GH not in r.stdout and GH not in r.stderr
    # the note's answer says so, as for its other fields: the id was changed silently
    assert "redacted: 1 github_token" in r.stderr, r.stderr
    for env, args in (({"KENNING_PROJECT": f"env-{GH}"}, ()), ({}, ("--project", "plain/one"))):
        r = cli_runner.run_cli(project, "remember", "--json", *args, "datemarker: tags", env=env)
        assert r.returncode == 0, r.stderr
        expected = {"github_token": 1} if env else {}
        assert json.loads(r.stdout)["redactions"] == expected, r.stdout
    with kenning.open_store(cwd=project, embedder=minilm) as store:
        [result] = store.remember_many([NewMemory("eldermarker: cut on Fridays")], group_id=GH)
        assert result.redactions == {"github_token": 1}, result
    assert_no_secret(project, "quincemarker", "figmarker", "datemarker", "eldermarker")
    r = run_cli(project, "search", "--project", "all", "--json", "release checklist rotate keys")
    assert r.returncode == 0, r.stderr
    assert GH not in r.stdout and "[REDACTED:github_token]" in r.stdout


SOLUTION_DOC = """---
title: Payments webhook rejected
track: bug
problem: the payments webhook is rejected in production
---
# Payments webhook rejected

The worker logs:

```
stripe.error.AuthenticationError: Invalid API Key provided: {stripe}
```

## Fix

Rotate the key and set STRIPE_KEY={stripe} only in the vault; the deploy token {gh} was
revoked too. Old DSN: postgresql://app:{pw}@db.internal/app (grapemarker).
"""


def test_cli_seed_solutions(project: Path) -> None:
    doc = project / "docs" / "solutions" / "payments" / "webhook.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(SOLUTION_DOC.format(stripe=STRIPE, gh=GH, pw=URL_PW), encoding="utf-8")
    r = run_cli(project, "seed-solutions", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["seeded"] == 1
    assert_no_secret(project, "AuthenticationError", "Rotate the key")


YAML_PW = "Zr8TqLm2" + "Vx9KpWq"


def test_seed_solutions_redacts_a_doc_before_it_joins_its_lines(project: Path) -> None:
    """A solution doc's fix is made one line: redacted only afterwards, a secret that its
    layout on lines made known (a YAML block's password, its key and value no longer on
    their own lines) was stored."""
    doc = project / "docs" / "solutions" / "db" / "login.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(
        "---\ntitle: Database login refused\ntrack: bug\nproblem: login refused\n---\n"
        "# Database login refused\n\n```\nFATAL: password authentication failed\n```\n\n"
        f"## Fix\n\nvalues.yaml had:\n\n```yaml\ndb:\n  password: |\n    {YAML_PW}\n```\n",
        encoding="utf-8",
    )
    r = run_cli(project, "seed-solutions", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["seeded"] == 1
    raw = raw_store(project)
    assert b"authentication failed" in raw and b"values.yaml had" in raw
    assert YAML_PW.encode() not in raw


def test_seed_solutions_says_every_kind_it_redacted(project: Path) -> None:
    """A doc is redacted before its fix's lines are joined, so the write path found nothing
    left to redact, and seed-solutions said nothing of the password it took out of the fix
    nor of the key in its problem: the entry's text is not the doc's, and the run now says
    so, as kenning remember and import do ('redacted: …' on stderr, "redactions" in
    --json). Only what reaches an entry is counted: a secret in a part of the doc no entry
    takes is not."""
    doc = project / "docs" / "solutions" / "db" / "login.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(
        "---\ntitle: Database login refused\ntrack: bug\n"
        f"problem: login refused with key id {AWS_ID}\n---\n"
        "# Database login refused\n\n```\nFATAL: password authentication failed\n```\n\n"
        f"## Fix\n\nvalues.yaml had:\n\n```yaml\ndb:\n  password: |\n    {YAML_PW}\n```\n\n"
        f"## Notes\n\nThe old token was {GH}.\n",
        encoding="utf-8",
    )
    r = run_cli(project, "seed-solutions")
    assert r.returncode == 0, r.stderr
    assert "redacted: 1 aws_access_key, 1 password_assignment" in r.stderr, r.stderr
    assert YAML_PW not in r.stderr + r.stdout
    doc.write_text(doc.read_text("utf-8").replace("values.yaml had", "values.yaml holds"))
    r = run_cli(project, "seed-solutions", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["updated"] == 1, report
    assert report["redactions"] == {"aws_access_key": 1, "password_assignment": 1}
    assert "redacted:" not in r.stderr


def test_a_ruvector_error_record_is_redacted_before_its_lines_are_joined(project: Path) -> None:
    """ruvector's error records become one-line ERROR-FIX entries: redacted only once
    joined, a fix whose secret only its lines give away (a YAML block) was stored."""
    folder = project / ".ruvector"
    folder.mkdir()
    fix = f"set it in values.yaml:\ndb:\n  password: |\n    {YAML_PW}\n(kiwirecord)"
    errors = {"FATAL: password authentication failed for user app": [{"fix": fix}]}
    (folder / "intelligence.json").write_text(json.dumps({"memories": [], "errors": errors}))
    r = run_cli(project, "import", "--from", "ruvector", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["imported"] == 1
    raw = raw_store(project)
    assert b"kiwirecord" in raw
    assert YAML_PW.encode() not in raw


def test_a_ruvector_import_says_every_kind_it_redacted(project: Path) -> None:
    """An error record is redacted before its lines are joined, so the write path found
    nothing left to redact in it, and the import said nothing of the password it took out
    (nor of a note's key): the store's text is not the file's, and the import says so, as
    kenning import of an export does ('redacted: …' on stderr, "redactions" in --json)."""
    folder = project / ".ruvector"
    folder.mkdir()
    fix = f"set it in values.yaml:\ndb:\n  password: |\n    {YAML_PW}\n(kiwirecord)"
    errors = {"FATAL: password authentication failed for user app": [{"fix": fix}]}
    memories = [{"content": f"deploy key id {AWS_ID} (plumrecord)", "memory_type": "project"}]
    (folder / "intelligence.json").write_text(json.dumps({"memories": memories, "errors": errors}))
    r = run_cli(project, "import", "--from", "ruvector")
    assert r.returncode == 0, r.stderr
    assert "redacted: 1 aws_access_key, 1 password_assignment" in r.stderr, r.stderr
    assert YAML_PW not in r.stderr + r.stdout
    (project / ".kenning").rename(project / "first")
    r = run_cli(project, "import", "--from", "ruvector", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["redactions"] == {"aws_access_key": 1, "password_assignment": 1}
    assert "redacted:" not in r.stderr


@pytest.mark.anyio
async def test_mcp_hooks_remember(project: Path, minilm: Embedder) -> None:
    # The tool's write path, in-process: the server kenning mcp builds, driven by the SDK's
    # client (a stdio server costs a process and a model load, ~1.5 CPU-s, and its
    # transport carries the note as any other: test_mcp.py tests it), closed before the grep
    # as the process would have exited.
    tools = KenningTools(project)
    try:
        async with Client(build_server(tools)) as client:
            data = await ok(client, "hooks_remember", content=note("figmarker"), type="decision")
    finally:
        tools.close()
    assert data["stored"] is True
    assert data["redactions"]["github_token"] == 1
    assert not any(secret in json.dumps(data) for secret in SECRETS)
    assert_no_secret(project, "figmarker")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_hooks_store_nothing_from_a_prompt(
    store: MemoryStore, project: Path, tmp_path: Path
) -> None:
    assert store.remember("Deployments use the blue-green script (pearmarker).", "rule").ok
    prompt = json.loads(payload("prompt_submit_task", project))
    prompt["prompt"] = f"Why does the deploy fail? {note('quincemarker')}"
    for event, data in (
        ("prompt-submit", json.dumps(prompt).encode()),
        ("session-start", payload("session_start_startup", project)),
    ):
        # with the recall log on: it lives in .kenning/ too, and must not take the prompt;
        # the hook's work in-process (what it stores and prints is the point, not its
        # process, whose start and model load cost ~0.4 CPU-s a hook)
        proc = hook_here(event, data, tmp_path, env={"KENNING_RECALL_LOG": "1"})
        assert proc.returncode == 0, proc.stderr
        for secret in SECRETS:
            assert secret not in proc.stderr
    assert (project / ".kenning" / "recall-log.jsonl").is_file()  # so the grep read it too
    assert_no_secret(project, "pearmarker")


def test_update_redacts_the_new_content(store: MemoryStore, project: Path) -> None:
    # The edit path of `kenning ui`: MemoryStore.update goes through the same preparation.
    first = store.remember("Deploys run from the release branch (oakmarker).", "rule")
    assert first.id is not None
    edited = store.update(first.id, content=note("elmmarker"))
    assert edited.status == "stored" and edited.redactions.get("github_token") == 1
    assert_no_secret(project, "elmmarker")


def remember_and_grep(
    store: MemoryStore,
    project: Path,
    content: str,
    kept: Sequence[bytes],
    secrets: Sequence[str],
) -> None:
    """Remember ``content``; every byte under ``.kenning`` holds the ``kept`` words and none
    of the ``secrets``."""
    result = store.remember(content, "context")
    assert result.status == "stored", result
    raw = raw_store(project)
    assert all(word in raw for word in kept), kept
    for secret in secrets:
        assert secret.encode() not in raw, f"a secret ({secret[:6]}…) reached the store file"


def test_store_file_grep_sees_an_unredacted_write(store: MemoryStore, project: Path) -> None:
    """The control: the same grep finds a value the redactor does not know as a secret, so
    the tests above fail if redaction is skipped rather than pass because nothing is read."""
    plain = "unknownformat-" + "Q7zK2mX9" * 3
    assert store.remember(f"the vendor key is {plain} (kiwanomarker)", "context").ok
    raw = raw_store(project)
    assert b"kiwanomarker" in raw and plain.encode() in raw


def test_postgres_messages_never_show_the_password(pg_url: str) -> None:  # noqa: F811
    from urllib.parse import quote, urlsplit

    from kenning.backends.postgres import PostgresBackend
    from kenning.errors import KenningError, StoreUnavailable
    from kenning.redaction import redact_url

    password = urlsplit(pg_url).password
    if not password:
        pytest.skip("the test server accepts connections without a password")
    wrong_pw = "wr0ng/Pa+ss" + "word9"  # '/' and '+' ended the old URL-password pattern
    # as written (refused before it is sent: libpq would read "Pa+ss…" as the host), and
    # percent-encoded (the server refuses it)
    for written, refusal in (
        (wrong_pw, KenningError),
        (quote(wrong_pw, safe=""), StoreUnavailable),
    ):
        wrong = pg_url.replace(f":{password}@", f":{written}@")
        with pytest.raises(refusal) as info:
            PostgresBackend(wrong)
        message = str(info.value)
        assert wrong_pw not in message and "wr0ng" not in message
        assert redact_url(wrong) in message  # the location, without its password
        assert "@127.0.0.1" in redact_url(wrong) and "Pa" not in redact_url(wrong)


def test_a_rejected_note_does_not_echo_its_secret(store: MemoryStore) -> None:
    # A tag with undecodable bytes is refused; the reason names the tag, redacted.
    result = store.remember("a fine note about deploys", "context", tags=[f"{GH}\udcff"])
    assert result.status == "rejected"
    assert "not valid UTF-8" in (result.reason or "")
    assert GH not in (result.reason or "") and "[REDACTED:github_token]" in (result.reason or "")


#: Notes that are nothing but a credential once it is redacted (qa-s67a F3), and the kind
#: each refusal names.
CREDENTIAL_ONLY = (
    (GH, "1 github_token"),
    ("password=" + URL_PW, "1 password_assignment"),
    (f"{AWS_ID} aws_secret_access_key={AWS_SECRET}", "1 aws_access_key, 1 aws_secret"),
    (f"export STRIPE_KEY={STRIPE}\nJWT_SECRET={JWT_SECRET}", "stripe_key"),
    # a key the rules read through its escapes is its letters (qa75 F7)
    ('{"pass\\u0077ord": "' + URL_PW + '"}', "1 password_assignment"),
    ("&#112;assword=" + URL_PW, "1 password_assignment"),
)


def _said_without_secrets(reason: str | None, kinds: str) -> None:
    assert reason is not None and "nothing but" in reason and kinds in reason, reason
    assert "without the secret itself" in reason, reason  # how to fix it
    assert not any(secret in reason for secret in SECRETS), reason


def test_a_note_that_is_nothing_but_a_credential_is_refused_by_the_write_path(
    store: MemoryStore, project: Path
) -> None:
    """qa-s67a F3: a note that, redacted, is only a marker (``[REDACTED:github_token]``,
    ``password=[REDACTED:…]``) was stored: it scored 1.00 for "github token", and the next
    such note, with another token, was refused as an "identical content" duplicate of it.
    It is refused now, naming the kinds (never the secret) and what to write instead, by
    remember, remember_many and an edit; a word more and the note is stored, redacted."""
    kept = store.remember(f"the deploy token is {GH} (rotate monthly; bananamarker)", "context")
    assert kept.status == "stored" and kept.redactions == {"github_token": 1}, kept
    for content, kinds in CREDENTIAL_ONLY:
        result = store.remember(content, "context")
        assert result.status == "rejected", (content[:8], result)
        _said_without_secrets(result.reason, kinds)
        # the result counts what the reason names (qa75 F7: it said {})
        assert result.redactions and redaction_counts(result.redactions) in (result.reason or "")
    other_token = "ghp_" + "Qw3Er5Ty7Ui9" * 3  # another secret: refused, not a "duplicate"
    refused = store.remember(other_token, "context")
    assert refused.status == "rejected" and "identical" not in (refused.reason or "")
    batch = store.remember_many([NewMemory(GH), NewMemory("Deploys need two approvals.")])
    assert [r.status for r in batch] == ["rejected", "stored"], batch
    edited = store.update(kept.id or "", content="GITHUB_TOKEN=" + GH)
    assert edited.status == "rejected", edited
    _said_without_secrets(edited.reason, "1 github_token")
    assert edited.redactions == {"github_token": 1}, edited
    assert store.count() == 2  # the kept note (unchanged) and the batch's second
    memory = store.get(kept.id or "")
    assert memory is not None and "bananamarker" in memory.content
    assert_no_secret(project, "bananamarker")


def test_cli_and_mcp_refuse_a_note_that_is_nothing_but_a_credential(project: Path) -> None:
    """The same refusal through ``kenning remember`` (exit 1 and the reason, as for an empty
    note; ``--json``: status rejected) and the MCP ``hooks_remember`` tool; no store is
    created, and no secret is printed."""
    import anyio

    for content in ("password=" + URL_PW, '{"pass\\u0077ord": "' + URL_PW + '"}'):
        r = run_cli(project, "remember", content)
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert "rejected: content is nothing but a credential (1 password_assignment)" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr  # one line, as every refusal
    r = run_cli(project, "remember", "--json", GH)
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["status"] == "rejected" and data["id"] is None, data
    _said_without_secrets(data["reason"], "1 github_token")
    # --json counts the credentials its reason names (qa75 F7: "redactions": {})
    assert data["redactions"] == {"github_token": 1}, data
    for printed in (r.stdout, r.stderr):
        assert not any(secret in printed for secret in SECRETS)

    async def remember(content: str) -> dict[str, object]:
        tools = KenningTools(project)
        try:
            async with Client(build_server(tools)) as client:
                return await ok(client, "hooks_remember", content=content)
        finally:
            tools.close()

    data = anyio.run(remember, f"Authorization: Bearer {GH}")
    assert data["status"] == "rejected", data
    _said_without_secrets(str(data["reason"]), "1 github_token")
    assert data["redactions"] == {"github_token": 1}, data
    data = anyio.run(remember, "s\\u0065cret=" + URL_PW)
    assert data["status"] == "rejected", data
    _said_without_secrets(str(data["reason"]), "1 password_assignment")
    assert data["redactions"] == {"password_assignment": 1}, data
    assert not (project / ".kenning").exists()  # a refused note creates no store


# Shapes the token and assignment rules missed: pasted `aws configure` prompts, the base64
# user:password of a Docker config's or .npmrc's `auth`, JSON escaped inside a JSON string
# (a log line, a request body), and a random value after "password:" in a sentence.
AWS_PROMPT_SECRET = "Tq4Zr/Lm2Xv" + "9Kt4+Wp8Ys3Nd6Hf1Jb5Rc0GeTa2Q"
DOCKER_AUTH = base64.b64encode(b"deployer:" + b"Hq7rW2xLp9Vm").decode()
NPM_AUTH = base64.b64encode(b"ci-bot:" + b"Zr8sK3tMw6Yq").decode()
ESCAPED_PW = "Kd8vN2" + "qRt5Wx"
PROSE_PW = "Pm4wQ9" + "zLx2Rv"
MISSED_SHAPES = (AWS_PROMPT_SECRET, DOCKER_AUTH, NPM_AUTH, ESCAPED_PW, PROSE_PW)


def test_pasted_prompts_auth_blobs_and_escaped_json_do_not_reach_the_store(
    store: MemoryStore, project: Path
) -> None:
    content = (
        "acornmarker: set up the CI runner.\n"
        f"AWS Access Key ID [None]: {AWS_ID}\n"
        f"AWS Secret Access Key [None]: {AWS_PROMPT_SECRET}\n"
        "Default region name [None]: eu-west-1\n"
        f'~/.docker/config.json: {{"auths": {{"ghcr.io": {{"auth": "{DOCKER_AUTH}"}}}}}}\n'
        f".npmrc: _auth={NPM_AUTH}\n"
        f'the request log showed body="{{\\"user\\": \\"ci\\", \\"password\\": \\"{ESCAPED_PW}\\"}}"\n'
        f"Use Password: {PROSE_PW} to log in to the staging console."
    )
    remember_and_grep(store, project, content, [b"acornmarker", b"staging console"], MISSED_SHAPES)


NETRC_PW = "Wn3xR8" + "kLq5Tz"
SAID_PW = "Hy6tB1" + "mQw9Ks"
FULLWIDTH_GH = "".join(chr(ord(c) + 0xFEE0) for c in GH)  # ｇｈｐ＿…: a model reads it as GH


def test_netrc_lines_said_passwords_and_full_width_tokens_do_not_reach_the_store(
    store: MemoryStore, project: Path
) -> None:
    content = (
        "hazelmarker: the deploy bot reads ~/.netrc:\n"
        f"machine api.heroku.com\n  login bot@example.com\n  password {NETRC_PW}\n"
        f"The staging admin password is {SAID_PW}, rotate it monthly.\n"
        f"A pasted token in full-width letters: {FULLWIDTH_GH}"
    )
    kept = [b"hazelmarker", b"rotate it monthly"]
    remember_and_grep(store, project, content, kept, (NETRC_PW, SAID_PW, FULLWIDTH_GH))


def test_a_password_a_person_chose_said_in_a_note_does_not_reach_the_store(
    project: Path,
) -> None:
    """`kenning remember "postgres password for staging is hunter2_Zx91kq"` stored the
    password: said in a sentence, only a generated-looking one was taken."""
    chosen = "hunter2" + "_Zx91kq"
    r = run_cli(project, "remember", f"figmarker: postgres password for staging is {chosen}")
    assert r.returncode == 0, r.stderr
    assert chosen not in r.stdout + r.stderr
    raw = raw_store(project)
    assert b"figmarker" in raw and chosen.encode() not in raw


def test_a_password_said_before_its_name_or_after_a_login_does_not_reach_the_store(
    store: MemoryStore, project: Path
) -> None:
    used, login, colon = ("Qm7vT2" + "xR9k", "hunter2" + "_Zx91kq", "Lp4wQ9" + "zT7m")
    content = (
        f"quincemarker: use {used} as the staging DB password; login with admin / {login}; "
        f"password for the admin user: {colon}"
    )
    remember_and_grep(store, project, content, [b"quincemarker"], (used, login, colon))


def test_a_chosen_password_after_a_colon_or_set_to_does_not_reach_the_store(
    store: MemoryStore, project: Path
) -> None:
    colon, set_to = ("hunter2" + "_Zx91kq", "purple42" + "monkey")
    content = (
        f"plummarker: the DB password: {colon} (rotate monthly); "
        f"then set the staging password to {set_to}"
    )
    remember_and_grep(store, project, content, [b"plummarker"], (colon, set_to))
