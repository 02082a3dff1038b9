"""``kenning mcp``'s tools in-process: the server ``kenning mcp`` builds, driven by the official
SDK's client over its in-memory transport (the stdio boundary is tested in test_mcp.py)."""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from kenning import open_store, protocol
from kenning.backends.base import Filters
from kenning.embedders.base import Embedder
from kenning.mcp_server import (
    ERROR_CHAR_BUDGET,
    KenningTools,
    _safe_and_bounded,
    build_server,
    structured_copy,
)
from kenning.redaction import redact_secrets
from kenning.render import CUT_CONTEXT_CHARS, cut_message, safe_message

from .cli_runner import run_cli
from .conftest import git, texts_redacted
from .test_mcp import UTC_RULE

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(project: Path, minilm: Embedder) -> AsyncIterator[Client]:
    tools = KenningTools(project)
    try:
        async with Client(build_server(tools)) as connected:
            yield connected
    finally:
        tools.close()


async def call(client: Client, tool: str, **arguments: Any) -> CallToolResult:
    with anyio.fail_after(60):
        return await client.call_tool(tool, arguments)


def answer(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    data = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert isinstance(data, dict)
    return data


async def ok(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """The tool's structured answer, checked to say what its JSON text says (test_mcp.ok)."""
    result = await call(client, tool, **arguments)
    data = result.structured_content
    assert isinstance(data, dict)
    assert structured_copy(answer(result)) == data
    return data


async def error(client: Client, tool: str, **arguments: Any) -> str:
    result = await call(client, tool, **arguments)
    assert result.is_error, result
    text = result.content[0].text  # type: ignore[union-attr]
    assert isinstance(text, str)
    return text


async def test_a_secret_another_writer_stored_is_not_recalled_into_a_prompt(
    client: Client, project: Path
) -> None:
    """kenning redacts what it stores, and the hooks redact what another writer of the store
    (an older kenning, another tool) left there; hooks_recall gave such a note's credentials
    to the agent as they were, in its results and in the "fenced" block it pastes into a
    prompt; then in the note's source, tags and metadata, which its results carry too, and
    search_memories in every field."""
    import sqlite3

    aws_key = "AKIA" + "IOSFODNN7EXAMPLE"
    github = "ghp_" + "pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    leaky = (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: connect with "
        f"aws_access_key_id {aws_key} and password=hunter2hunter2 then enable WAL mode"
    )
    fix = "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode"
    assert answer(await call(client, "hooks_remember", content=fix))["success"]
    conn = sqlite3.connect(project / ".kenning" / "memory.db")  # another tool writing a row
    conn.execute(
        "INSERT INTO memories (id, content, collection, type, group_id, stored_at, "
        "content_hash, source, tags, metadata, embedding) SELECT 'leaky-1', ?, collection, "
        "type, group_id, stored_at, 'leaky-hash', ?, ?, ?, embedding FROM memories",
        (leaky, f"docs/{github}.md", json.dumps([github]), json.dumps({"tok": github})),
    )
    conn.commit()
    conn.close()
    found = answer(
        await call(client, "hooks_recall", query="sqlite3.OperationalError: database is locked")
    )
    contents = [r["content"] for r in found["results"]]
    assert any("connect with" in c for c in contents), contents  # the note is still given …
    text = json.dumps(found)
    assert aws_key not in text and "hunter2" not in text, contents  # … without its secrets
    assert github not in text, text
    assert "[REDACTED:" in found["fenced"], found["fenced"]
    searched = await call(client, "search_memories", query="database is locked")
    text = json.dumps(answer(searched)) + json.dumps(searched.structured_content)
    assert "connect with" in text and "[REDACTED:" in text, text
    assert aws_key not in text and "hunter2" not in text and github not in text, text


async def test_a_note_larger_than_kenning_stores_is_not_served_to_the_agent(
    client: Client, project: Path
) -> None:
    """Red-team F2: another writer of the store left a 2.4 MB note dense with
    ``password=…`` (kenning stores at most 64 KiB of text a note): hooks_recall and
    search_memories redacted all of it on every call (seconds). The row is skipped as
    damaged; the agent gets the project's fix at once."""
    import time

    fix = "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode"
    assert answer(await call(client, "hooks_remember", content=fix))["success"]
    dense = ("password=Hy6tB1q9Zx " * 10 + "database is locked ") * 10000
    conn = sqlite3.connect(project / ".kenning" / "memory.db")  # another tool writing a row
    conn.execute(
        "INSERT INTO memories (id, content, collection, type, group_id, stored_at, "
        "content_hash, source, tags, metadata, embedding) SELECT 'big-1', ?, collection, "
        "type, group_id, stored_at, 'big-hash', source, tags, metadata, embedding FROM memories",
        ("ERROR-FIX: database is locked | FIX: " + dense,),
    )
    conn.commit()
    conn.close()
    started = time.monotonic()
    found = answer(
        await call(client, "hooks_recall", query="sqlite3.OperationalError: database is locked")
    )
    searched = answer(await call(client, "search_memories", query="database is locked"))
    assert time.monotonic() - started < 4.0
    assert [r["content"] for r in found["results"]] == [fix], found
    assert [r["memory"]["content"] for r in searched["results"]] == [fix], searched
    assert "big-1" not in json.dumps(found) + json.dumps(searched)


async def test_a_null_optional_argument_means_its_default(client: Client) -> None:
    """A client that sends every optional argument, null when it has no value (as ruvector's
    server reads ``args.type || 'general'``), gets the defaults, not a validation error."""
    stored = answer(
        await call(
            client,
            "hooks_remember",
            content="The build uses pnpm workspaces: never run npm install at the root.",
            type=None,
            metadata=None,
            source=None,
        )
    )
    assert stored["status"] == "stored" and stored["type"] == "context", stored
    # "" as well (`type || 'general'` reads it as none): it was "unknown memory type ''"
    for blank, day in (("", "Mondays"), ("  ", "Thursdays")):
        note = answer(
            await call(
                client, "hooks_remember", content=f"Release branches are cut on {day}.", type=blank
            )
        )
        assert note["status"] == "stored" and note["type"] == "context", note
    found = answer(
        await call(
            client,
            "search_memories",
            query="pnpm workspaces npm install",
            collection=None,
            memory_type=None,
            intent=None,
            limit=None,
            group_id=None,
            decay=None,
            use_cascading=None,
        )
    )
    assert [r["memory"]["id"] for r in found["results"]] == [stored["id"]]
    assert found["decay"] is True and found["cascading"]["enabled"] is True


async def test_a_blank_filter_means_no_filter(client: Client, project: Path) -> None:
    """A client that fills every argument sends "" for a filter it has none for: a blank
    memory_type or intent was no filter, a blank collection was "unknown collection ''".
    A blank collection is no filter too, for the MCP tool and the API's listings alike (the
    CLI refuses a blank option itself, naming it: test_cli_errors)."""
    rule = answer(await call(client, "hooks_remember", content=UTC_RULE, type="rule"))
    fix = answer(
        await call(
            client,
            "hooks_remember",
            content="The build uses pnpm workspaces: never run npm install at the root.",
            type="implementation",
        )
    )
    query = {"query": "timestamps in UTC", "use_cascading": True}
    plain = answer(await call(client, "search_memories", **query))
    assert {r["memory"]["id"] for r in plain["results"]} >= {rule["id"]}
    for blank in ("", "  "):
        found = answer(
            await call(
                client, "search_memories", **query, collection=blank, memory_type=blank, intent=""
            )
        )
        assert found["results"] == plain["results"], blank
        assert found["cascading"] == plain["cascading"], blank
    # a named collection still narrows, and an unknown one is still refused
    narrowed = answer(await call(client, "search_memories", **query, collection="conventions"))
    assert [r["memory"]["id"] for r in narrowed["results"]] == [rule["id"]]
    assert "unknown collection 'notes'" in await error(
        client, "search_memories", **query, collection="notes"
    )
    with open_store(cwd=project, create=False) as store:
        assert store.count(collection=" ") == store.count() == 2
        assert [m.id for m in store.newest(5, collection="")] == [fix["id"], rule["id"]]
        assert store.count(collection="conventions") == 1


async def test_a_project_id_set_in_dotenv_is_followed_by_the_running_server(
    client: Client, project: Path
) -> None:
    """README: put KENNING_PROJECT=<old id> in the project's .env to go on reading and writing
    the notes of an id that changed. A running server kept writing under the id it opened
    the store with, so its notes went where no later command or hook looked."""
    first = answer(await call(client, "hooks_remember", content="Webhooks are retried 3 times."))
    (project / ".env").write_text("KENNING_PROJECT=acme/payments\n", encoding="utf-8")
    second = answer(
        await call(client, "hooks_remember", content="Invoices are made on the first workday.")
    )
    stats = answer(await call(client, "hooks_stats"))
    assert stats["group_id"] == "acme/payments" and stats["memories"] == 1, stats
    with open_store(cwd=project, create=False) as store:  # as the next command reads it
        assert store.group_id == "acme/payments"
        assert [m.id for m in store.newest(10)] == [second["id"]]
        assert [m.id for m in store.newest(10, group_id="all")] == [second["id"], first["id"]]


async def test_a_remote_renamed_under_the_running_server_moves_its_new_notes_too(
    client: Client, project: Path
) -> None:
    """The project id is worked out from the remote on every run (README); a running server
    kept the id it started with, so after a rename its notes went under the old id while
    every command and hook read the new one."""
    answer(await call(client, "hooks_remember", content="Webhooks are retried 3 times."))
    git(project, "remote", "set-url", "origin", "git@github.com:Acme/Gadgets.git")
    second = answer(
        await call(client, "hooks_remember", content="Invoices are made on the first workday.")
    )
    with open_store(cwd=project, create=False) as store:  # as the next command reads it
        assert store.group_id == "acme/gadgets"
        assert [m.id for m in store.newest(10)] == [second["id"]]


async def test_after_a_rename_recall_and_search_name_the_id_the_notes_are_under(
    client: Client, project: Path
) -> None:
    """After the rename above, an agent's recall and search found nothing and said nothing
    more: the answers now carry ``other_projects``, the id the store's notes are under."""
    answer(await call(client, "hooks_remember", content="Webhooks are retried 3 times."))
    git(project, "remote", "set-url", "origin", "git@github.com:Acme/Gadgets.git")
    recalled = await ok(client, "hooks_recall", query="how often are webhooks retried")
    searched = await ok(client, "search_memories", query="webhook retries")
    for said in (recalled, searched):
        assert (said["results"], said["other_projects"]) == ([], {"acme/widgets": 1}), said
    answer(await call(client, "hooks_remember", content="Invoices are made on the first workday."))
    again = await ok(client, "hooks_recall", query="how often are webhooks retried")
    assert "other_projects" not in again  # the project has notes: nothing to say


async def test_a_project_id_in_another_case_is_named_to_the_agent(client: Client) -> None:
    """Project ids are case-sensitive: search_memories with group_id "Acme/Widgets" found
    none of acme/widgets's notes, and nothing told the agent that the id differs only in
    case. The answer names it in "case_variants" (and the tool's description says so)."""
    answer(await call(client, "hooks_remember", content="Webhooks are retried 3 times."))
    said = await ok(client, "search_memories", query="webhook retries", group_id="Acme/Widgets")
    assert said["results"] == [] and said["case_variants"] == ["acme/widgets"], said
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert "case_variants" in (tools["search_memories"].description or "")
    assert "case_variants" not in await ok(client, "search_memories", query="webhook retries")


async def test_a_project_moved_away_under_the_server_is_said_so(
    client: Client, project: Path
) -> None:
    """The folder the server serves was renamed (or deleted) while it ran: the error said
    it 'is not inside a git repository' and advised `git init` there."""
    answer(await call(client, "hooks_remember", content="Pin the terraform provider versions."))
    project.rename(project.with_name("renamed"))
    result = await call(client, "hooks_recall", query="terraform provider versions")
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert f"{project} (--project-dir) does not exist" in text, text
    assert "git init" not in text and "not inside a git repository" not in text, text


async def test_a_query_of_invisible_characters_only_is_empty(client: Client) -> None:
    """A query of zero-width spaces (or a lone byte-order mark) was searched as if it said
    something: a stored note came back above the floor, noise in the agent's context. It
    is empty, as such a note is to the write path, and said as a blank query is said: by
    hooks_recall too, whose blank query was "query is empty; pass …" and invisible one
    "the query is empty (or only whitespace and invisible characters); pass …"."""
    answer(await call(client, "hooks_remember", content="x"))
    for tool in ("hooks_recall", "search_memories"):
        blank = await error(client, tool, query="   ")
        assert "query is empty" in blank, blank
        for query in ("\u200b\u200b", "\ufeff", "\u2060 \u200b"):
            assert await error(client, tool, query=query) == blank, (tool, query)
    for content in ("\u200b\u200b", "\ufeff\u2060"):  # and a note of them is refused
        refused = await ok(client, "hooks_remember", content=content)
        assert refused["status"] == "rejected" and "empty" in refused["reason"], refused


async def test_a_store_migrated_by_a_newer_kenning_is_not_written_by_the_running_server(
    client: Client, project: Path
) -> None:
    """A newer kenning (installed while the server ran) migrated the store: the server, still
    the old code, went on writing rows into a schema it does not know. It refuses now, as
    opening that store does, and writes nothing."""
    from kenning.backends.sqlite import SCHEMA_VERSION

    answer(await call(client, "hooks_remember", content="The API is versioned in the URL path."))
    db = project / ".kenning" / "memory.db"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.commit()
    result = await call(client, "hooks_remember", content="Old versions are removed after a year.")
    assert result.is_error, result.content
    assert "newer than this kenning understands" in result.content[0].text  # type: ignore[union-attr]
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 1


async def test_an_unknown_id_looked_for_in_every_project_says_any_project(client: Client) -> None:
    """group_id "all" is every project (as `kenning forget --project all` says): the tools
    answered "no memory with id … in project all", a project that does not exist."""
    answer(await call(client, "hooks_remember", content="The API is versioned in the URL path."))
    for tool in ("forget", "read_source"):
        result = await call(client, tool, id="no-such-id", group_id="all")
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert "no memory with id no-such-id in any project" in text, (tool, text)
        # nor advice to pass the group_id "all" that was passed
        assert "group_id" not in text and "another project" not in text, (tool, text)


#: Claude Code's documented limit for a tool's answer: a successful result past 50,000
#: characters is saved to a file and the conversation gets its path instead.
CLAUDE_CODE_RESULT_CHARS = 50_000


async def test_a_search_answer_of_long_notes_stays_within_what_claude_code_takes(
    client: Client, project: Path
) -> None:
    """Twelve notes of 60 KB each, all matching, came back as one answer of 730 KB: Claude Code
    moves an answer past 50,000 characters out of the conversation. The answer keeps the best
    whole notes that fit and names the rest by id; a note longer than the budget alone is cut,
    and says so."""

    def runbook(name: str, size: int) -> str:
        steps = " ".join(
            f"Step {n}: check the {name} deploy log line {n * 7}." for n in range(2000)
        )
        return f"The {name} deploy runbook: restart {name} after a failed deploy. {steps}"[:size]

    for name in ("postgres", "redis", "kafka", "nginx", "celery", "terraform"):
        stored = answer(await call(client, "hooks_remember", content=runbook(name, 12_000)))
        assert stored["status"] == "stored", stored
    query = "deploy runbook after a failed deploy"
    with open_store(cwd=project, create=False) as store:
        ids = [r.memory.id for r in store.search(query).results]
    result = await call(client, "search_memories", query=query)
    text = result.content[0].text  # type: ignore[union-attr]
    assert len(text) < CLAUDE_CODE_RESULT_CHARS, len(text)
    found = answer(result)
    shown = [r["memory"]["id"] for r in found["results"]]
    assert shown and shown + found["omitted_ids"] == ids, found["omitted_ids"]
    assert found["truncated"] is True and found["count"] == len(shown)
    assert "omitted_ids" in found["truncation_note"]
    for r in found["results"]:  # whole notes, as stored
        assert len(r["memory"]["content"]) == 12_000 and not r["content_truncated"]

    answer(await call(client, "hooks_remember", content=runbook("sentry", 60_000)))
    alone = await call(client, "search_memories", query="the sentry deploy runbook", limit=1)
    assert len(alone.content[0].text) < CLAUDE_CODE_RESULT_CHARS  # type: ignore[union-attr]
    first = answer(alone)["results"][0]
    assert first["memory"]["content"].startswith("The sentry deploy runbook")
    assert first["content_truncated"] is True
    assert 20_000 < len(first["memory"]["content"]) < 60_000


async def test_top_k_and_k_that_disagree_are_an_error_naming_both(client: Client) -> None:
    """``k`` is ruvector's other name for ``top_k``. Given both, ``k`` silently won when
    ``top_k`` was 5 (its default, but also a value a client may send on purpose): asked for
    top_k 5 and k 2, the agent got two candidates and no word why."""
    result = await call(client, "hooks_recall", query="deploy", top_k=5, k=2)
    assert result.is_error, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    assert "top_k is 5 and k is 2" in text and "pass one of them" in text, text
    for same in ({"top_k": 3, "k": 3}, {"k": 2}, {"top_k": None, "k": 2}, {"top_k": 7}):
        assert answer(await call(client, "hooks_recall", query="deploy", **same))["success"]


async def test_a_rejected_argument_is_named_with_what_it_takes(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """An argument of the wrong shape came back as pydantic's raw text ("1 validation error
    for hooks_recallArguments … [type=int_parsing, input_value=…] For further information
    visit https://errors.pydantic.dev/…"), one paragraph per rejected item: a memory_type of
    100,000 numbers gave a 19 MB error. It names the argument, what was sent (short, inert)
    and what the argument takes."""

    async def refusal(tool: str, **arguments: Any) -> str:
        result = await call(client, tool, **arguments)
        assert result.is_error, result.content
        text = result.content[0].text  # type: ignore[union-attr]
        assert "pydantic" not in text and "validation error" not in text, text
        assert len(text) < 600, (len(text), text[:600])
        return str(text)

    text = await refusal("hooks_recall", query="deploy", top_k="many")
    assert 'top_k: got the string "many"' in text, text
    assert "an integer from 1 to 100 (default 5)" in text, text
    text = await refusal("hooks_recall", query="deploy", top_k=0)
    assert "top_k: got 0" in text, text
    # pydantic's lax mode took true for 1 (one memory recalled); a number in a string is
    # still read as the number, as lax mode means to
    for tool, argument in (
        ("hooks_recall", "top_k"),
        ("hooks_recall", "k"),
        ("search_memories", "limit"),
    ):
        text = await refusal(tool, query="deploy", **{argument: True})
        assert f"{argument}: got true; it takes an integer from 1 to 100" in text, text
    assert answer(await call(client, "hooks_recall", query="deploy", top_k="2"))["success"]
    # 10,000 items: pydantic's raw refusal of them is ~1.8 MB, past ERROR_CHAR_BUDGET a
    # thousand times over (for 100,000 the SDK took ~2 CPU-s listing its 100,000 errors)
    with caplog.at_level(logging.INFO, logger="mcp"):
        text = await refusal("search_memories", query="deploy", memory_type=[1] * 10_000)
    assert "memory_type: got a list of 10,000 items" in text, text
    # the server's log says it in the same line, not with each of the 10,000 items' fields
    (logged,) = [r.getMessage() for r in caplog.records if "search_memories" in r.getMessage()]
    assert "got a list of 10,000 items" in logged and len(logged) < 1_000, logged[:1_000]
    assert "a list of strings" in text, text
    text = await refusal("hooks_remember", content="x", metadata="\u202e" + "y" * 1_000_000)
    assert "metadata: got a string of 1,000,001 characters" in text, text
    assert "a JSON object" in text and "\u202e" not in text, text
    text = await refusal("hooks_recall", query="deploy", top_k="\u202e\x1b[2J")
    assert "\u202e" not in text and "\x1b" not in text, text
    assert "forget: id is missing" in await refusal("forget")


async def test_an_error_does_not_quote_a_huge_argument_whole(client: Client) -> None:
    """kenning's refusals quote what they refuse ("unknown intent '…'", "no memory with id
    …"): an id or an intent of 1 MB came back whole, a 1 MB error in the agent's context.
    The error keeps its start (what was wrong) and its end (what is accepted), cut between."""
    answer(await call(client, "hooks_remember", content="The API is versioned in the URL path."))
    # 40 budgets (60,000 characters), past the ~11,000 Claude Code keeps of an error: the cut
    # is the same for any length past ERROR_CHAR_BUDGET + 2 * CUT_CONTEXT_CHARS, past which
    # only the ends are redacted
    huge = "x" * (ERROR_CHAR_BUDGET * 40)
    for tool, arguments, end in (
        ("forget", {"id": huge}, "in this project"),
        ("read_source", {"id": huge}, "in this project"),
        ("search_memories", {"query": "api", "intent": huge}, "valid intents are how, what, why"),
        ("search_memories", {"query": "api", "collection": huge}, "discussions"),
        ("hooks_remember", {"content": "a note", "type": huge}, "valid types are"),
    ):
        with texts_redacted() as redacted:
            result = await call(client, tool, **arguments)
        assert result.is_error, (tool, result.content)
        text = result.content[0].text  # type: ignore[union-attr]
        assert len(text) < 3_000, (tool, len(text))
        assert "characters cut" in text and end in text, (tool, text[:300], text[-300:])
        # cut before it is redacted: only its ends and their context are (60,000 characters
        # are past ERROR_CHAR_BUDGET with CUT_CONTEXT_CHARS on both sides)
        longest = max(map(len, redacted))
        assert longest <= ERROR_CHAR_BUDGET + CUT_CONTEXT_CHARS < len(huge), (tool, longest)


#: Secrets as an error may quote them, each with the part that must not show.
QUOTED_SECRETS = [
    ("ghp_Q7RZ2KX9WM4TB8NC5VJ3HL6PF1YD0GS2AE7U", "Q7RZ2KX9WM4TB8NC5VJ3HL6PF1YD0GS2AE7U"),
    ("xoxb-2748193650-4829173650-QZ7RX2KW9MT4BN8C5VJ3HL6P", "2748193650-4829173650-QZ7RX2KW9MT"),
    ("DB_PASSWORD=Zq8Rw2Kx9Mt4Bn7C", "Zq8Rw2Kx9Mt4Bn7C"),
    ("postgresql://app:Zq8Rw2Kx9Mt4Bn7C@db.internal:5432/orders", "Zq8Rw2Kx9Mt4Bn7C"),
    (
        "Authorization: Bearer Q7RZ2KX9WM4TB8NC5VJ3HL6PF1YD0GS2A",
        "Q7RZ2KX9WM4TB8NC5VJ3HL6PF1YD0GS2A",
    ),
    (
        "password: |\n  Zq8Rw2Kx9Mt4Bn7C\n  QZ7RX2KW9MT4BN8C\nnext: 1",
        "Zq8Rw2Kx9Mt4Bn7CQZ7RX2KW9MT4BN8C",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(["MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2qfG7XwQ9Lk5Hn8Rp4VcJt6Ws1Yb"] * 12)
        + "\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2qfG7XwQ9Lk5Hn8Rp4VcJt6Ws1Yb",
    ),
]


async def test_a_secret_across_an_errors_cut_is_redacted_whole() -> None:
    """A long error is cut before it is redacted (redacting 1 MB to keep 1,500 characters
    cost ~2.6 CPU-s): a secret the cut splits, its start kept and its end cut or the
    reverse, must still be redacted whole, as when the whole message was redacted first."""
    head, tail = ERROR_CHAR_BUDGET * 2 // 3, ERROR_CHAR_BUDGET // 3
    filler = "the deploy failed at step four; retry with the cache cleared. " * 1000
    size = ERROR_CHAR_BUDGET + 2 * CUT_CONTEXT_CHARS + 2_000  # past what is redacted whole
    for secret, value in QUOTED_SECRETS:
        assert value not in safe_message(f"{filler[:50]}\n{secret}\n{filler[:50]}")  # a secret
        # the cut falls after `before` of the secret's characters (at a cut: of each copy)
        for before in (1, len(secret) // 2, len(secret) - 1):
            start = f"{filler[: head - before - 1]}\n{secret}\n"
            after = tail + before - len(secret) - 1  # what follows the copy across the tail's cut
            end = f"\n{secret}\n{filler[:after]}" if after >= 0 else f" {filler[: tail + before]}"
            middle = filler[: size - len(start) - len(end)]
            message = start + middle + end
            assert message.index(secret) == head - before and len(message) == size
            if after >= 0:
                assert message.rindex(secret) == size - tail - before
            shown = _safe_and_bounded(message)
            assert len(shown) < ERROR_CHAR_BUDGET + 60 and "characters cut" in shown, shown
            fragments = {value[i : i + 6] for i in range(len(value) - 5)}
            assert not [f for f in fragments if f in shown], (secret, before, shown)
    # a key block longer than the tail's context, its END line kept: its BEGIN is not read
    line = QUOTED_SECRETS[-1][1]
    lines = "\n".join([line] * (CUT_CONTEXT_CHARS // len(line) + 10))
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{lines}\n-----END RSA PRIVATE KEY-----"
    message = f"{filler[:size]}\n{block}\nnext: 1"
    assert redact_secrets(block)[0] == "[REDACTED:private_key]"
    assert line[:20] not in _safe_and_bounded(message)
    # a YAML block scalar longer than the tail's context, its key's line not read with it
    body = "\n".join(f"  Zq8Rw2Kx9Mt4Bn7C{n:06d}" for n in range(CUT_CONTEXT_CHARS // 20 + 10))
    message = f"{filler[:size]}\npassword: |\n{body}"
    assert "Zq8Rw2Kx9Mt4Bn7C" not in redact_secrets(message)[0]
    assert "Zq8Rw2Kx9Mt4Bn7C" not in _safe_and_bounded(message)
    # a message without secrets reads as when it was redacted whole, then cut
    plain = (filler * 2)[:size].replace(". ", ".\n")
    assert _safe_and_bounded(plain) == cut_message(safe_message(plain), ERROR_CHAR_BUDGET)


async def test_a_recall_answer_of_notes_with_large_metadata_stays_within_what_claude_code_takes(
    client: Client, project: Path
) -> None:
    """Recall cuts the notes' content to 800 characters, but each result carries its memory's
    metadata whole (up to 64 KiB): three notes with a stack trace kept in metadata recalled
    as a 183 KB answer, past what Claude Code takes from a tool. The best results that fit
    are kept, each whole or, when its metadata is what does not fit, without it (it was the
    first alone, and the later results, which fit once it was, were left out), and "fenced"
    holds the same results; what cannot come at all is named by id."""

    def trace(name: str, size: int) -> dict[str, str]:
        return {
            "trace": " ".join(f"at {name}.module{n}.call(line {n})" for n in range(3000))[:size]
        }

    for name in ("postgres", "redis", "kafka"):
        note = f"The {name} client times out after 30 s under load: raise the pool size."
        stored = answer(
            await call(client, "hooks_remember", content=note, metadata=trace(name, 20_000))
        )
        assert stored["status"] == "stored", stored
    query = "client times out under load pool size"
    with open_store(cwd=project, create=False) as store:
        ids = [h.memory.id for h in store.recall(query).hits]
    assert len(ids) == 3
    result = await call(client, "hooks_recall", query=query)
    assert len(result.content[0].text) < CLAUDE_CODE_RESULT_CHARS  # type: ignore[union-attr]
    found = answer(result)
    assert [r["id"] for r in found["results"]] == ids and found["omitted_ids"] == []
    assert found["count"] == 3 and found["truncated"] is True
    assert found["fenced"].count("<finding ") == 3
    first, *rest = found["results"]
    assert len(first["metadata"]["trace"]) == 20_000 and "metadata_omitted" not in first
    assert all(r["metadata"] == {} and r["metadata_omitted"] for r in rest), rest
    assert found["truncation_note"].startswith("the metadata of results 2, 3 was left out")

    note = "The sentry client drops events over 200 KB: trim breadcrumbs first."
    answer(await call(client, "hooks_remember", content=note, metadata=trace("sentry", 60_000)))
    alone = await call(client, "hooks_recall", query="sentry drops events over 200 KB", top_k=1)
    assert len(alone.content[0].text) < CLAUDE_CODE_RESULT_CHARS  # type: ignore[union-attr]
    first = answer(alone)["results"][0]
    assert first["content"] == note and first["metadata"] == {} and first["metadata_omitted"]


async def test_a_search_answer_sends_a_note_without_the_metadata_that_does_not_fit(
    client: Client,
) -> None:
    """One note whose metadata holds a 60 KB log: search_memories answered no result at all
    (only its content could be cut, and the metadata was the bulk), and the small note
    after it was left out too. It comes without its metadata, and the next one whole."""
    log = {"log": "GET /billing/charge 502 upstream reset " * 1_500}
    big = "Retry idempotent POSTs to the billing API up to three times with backoff"
    small = "Retry idempotent PUTs to the billing API up to five times with jitter"
    await ok(client, "hooks_remember", content=big, type="rule", metadata=log)
    await ok(client, "hooks_remember", content=small, type="rule")
    result = await call(client, "search_memories", query="billing API retry policy")
    assert len(result.content[0].text) < CLAUDE_CODE_RESULT_CHARS  # type: ignore[union-attr]
    found = answer(result)
    by_content = {r["memory"]["content"]: r for r in found["results"]}
    assert set(by_content) == {big, small} and found["omitted_ids"] == [], found
    assert by_content[big]["metadata_omitted"] and by_content[big]["memory"]["metadata"] == {}
    assert "metadata_omitted" not in by_content[small]
    assert found["truncated"] is True and "metadata of result" in found["truncation_note"]


# -- tool answers and errors (moved from test_mcp.py: no process boundary in them) ----------


async def test_search_memories_takes_use_cascading(client: Client) -> None:
    # the AI Memory Module's search_memories(use_cascading=False): an agent written for it
    # asks for the primary collection alone, and must not get the others' notes instead
    await ok(client, "hooks_remember", content=UTC_RULE, type="rule")
    query = "how do I make a datetime timezone-aware in UTC"
    alone = await ok(client, "search_memories", query=query, use_cascading=False)
    assert alone["cascading"]["enabled"] is False
    assert alone["collections_searched"] == ["code-patterns"] and alone["results"] == []
    cascaded = await ok(client, "search_memories", query=query)
    assert cascaded["cascading"]["expanded"] is True
    assert [r["memory"]["content"] for r in cascaded["results"]] == [UTC_RULE]


async def test_every_bound_is_json_schema(client: Client) -> None:
    """A client checks arguments against the advertised schema: a bound pydantic writes as
    "ge"/"le" (not JSON Schema) is no bound at all to it."""

    def keys(node: Any) -> set[str]:
        if isinstance(node, dict):
            return set(node) | {k for v in node.values() for k in keys(v)}
        if isinstance(node, list):
            return {k for v in node for k in keys(v)}
        return set()

    tools = {t.name: t for t in (await client.list_tools()).tools}
    for name, tool in tools.items():
        assert not keys(tool.input_schema) & {"ge", "le", "gt", "lt"}, name
    top_k = tools["hooks_recall"].input_schema["properties"]["top_k"]
    assert (top_k["minimum"], top_k["maximum"]) == (1, protocol.SEARCH_MAX_LIMIT)


async def test_a_refused_note_creates_no_store(client: Client, project: Path) -> None:
    refused = await ok(client, "hooks_remember", content="   ")
    assert refused["status"] == "rejected" and "empty" in refused["reason"]
    assert (await ok(client, "hooks_stats"))["store_exists"] is False
    assert not (project / ".kenning").exists()
    stored = await ok(client, "hooks_remember", content="Deploys happen on Tuesdays only")
    assert stored["status"] == "stored" and stored["total"] == 1


async def test_every_tool_error_has_one_shape(client: Client) -> None:
    """A refused argument read "hooks_recall: top_k: got …; it takes …", while an error the
    tool raised came back as "Error executing tool hooks_recall: query is empty; …" and an
    unknown tool as "Unknown tool: …": three shapes for one kind of answer. Every tool error
    now starts with the tool's name and says what was wrong and what to do."""
    for tool, arguments, said in (
        ("hooks_recall", {"query": "   "}, "query is empty (or only whitespace and invisible"),
        ("hooks_recall", {"query": "locked", "top_k": "many"}, 'top_k: got the string "many"'),
        ("hooks_remember", {"content": "a note", "type": "bogus"}, "valid types are"),
        ("search_memories", {"query": "x y z", "intent": "when"}, "valid intents are how"),
        ("read_source", {}, "one of them: neither was given"),
        ("read_source", {"id": "0190-nope", "path": "docs/x.md"}, "not both"),
        ("forget", {"id": "0190-nope"}, "no kenning store"),
    ):
        text = await error(client, tool, **arguments)
        assert text.startswith(f"{tool}: "), text
        assert said in text and "Error executing tool" not in text, text
    text = await error(client, "hooks_forget", id="0190-nope")
    assert text.startswith('"hooks_forget": no such tool; call one of hooks_recall'), text


async def test_a_refused_group_id_is_named_as_the_tool_names_it(client: Client) -> None:
    """A blank or invisible group_id came back as "' ' (from the project argument) cannot be
    a project id": the tools have no argument called project, so the agent was not told
    which one to fix. The refusal names group_id."""
    await ok(client, "hooks_remember", content=UTC_RULE, type="rule")
    for tool, arguments in (
        ("search_memories", {"query": "timestamps in UTC", "group_id": " "}),
        ("forget", {"id": "0190-nope", "group_id": "a\u202eb"}),
        ("read_source", {"id": "0190-nope", "group_id": ""}),
    ):
        text = await error(client, tool, **arguments)
        assert "(from the group_id argument) cannot be a project id" in text, text
        assert "project argument" not in text, text


async def test_an_unknown_id_says_where_ids_come_from(client: Client) -> None:
    """forget and read_source of an id the project does not hold answered "no memory with id
    … in this project" and no more: nothing said it may be gone already, or another
    project's, or where an id comes from, as the CLI's forget says."""
    await ok(client, "hooks_remember", content=UTC_RULE, type="rule")
    text = await error(client, "forget", id="0190-nope")
    assert "no memory with id 0190-nope in this project" in text, text
    assert "forgotten already" in text and "search_memories" in text, text
    assert "group_id" in text, text
    text = await error(client, "read_source", id="0190-nope")
    assert "forgotten" in text and "another project's" in text, text
    # read_source said "(name its project)" and not how: the argument that names it, and
    # where ids come from, as forget says
    assert "no memory with id 0190-nope in this project" in text, text
    assert "group_id" in text and "search_memories" in text, text


async def test_a_tool_on_a_project_without_a_store_names_the_tool_that_creates_it(
    client: Client, project: Path
) -> None:
    """``forget`` in a project with no store (or an empty store file, left by a process
    that died creating it) said "`kenning remember` creates it": the CLI's words, to an
    agent that has MCP tools and no shell."""

    def refusal(result: CallToolResult) -> str:
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert isinstance(text, str)
        return text

    text = refusal(await call(client, "forget", id="0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a01"))
    assert text.startswith("forget: no kenning store at "), text
    assert "hooks_remember creates it" in text and "kenning remember" not in text, text
    (project / ".kenning").mkdir()
    (project / ".kenning" / "memory.db").touch()
    text = refusal(await call(client, "forget", id="0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a01"))
    assert "is empty; hooks_remember initialises it" in text, text
    assert "kenning remember" not in text, text


async def test_an_unexpected_failure_is_logged_with_its_credentials_redacted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A library's exception can quote what it was handed (a DSN, a header): the tool error
    was redacted, but the traceback logged to the server's stderr (which clients keep in
    their MCP log files) held the password as it was."""
    from mcp.server.mcpserver.exceptions import ToolError

    from kenning.mcp_server import _tool_errors

    password = "Hy6tB1q" + "Zr0Lm2"

    async def hooks_stats() -> dict[str, Any]:
        raise RuntimeError(f"could not connect to postgresql://app:{password}@db.internal/app")

    with caplog.at_level("ERROR", logger="kenning.mcp"), pytest.raises(ToolError) as raised:
        await _tool_errors(hooks_stats)()
    assert password not in str(raised.value)
    assert "hooks_stats failed" in caplog.text and "RuntimeError" in caplog.text
    assert password not in caplog.text
    assert "postgresql://app:[REDACTED:connection_string]@db.internal/app" in caplog.text


async def test_read_source_of_a_document_that_is_not_there_calls_it_missing(
    client: Client,
) -> None:
    """read_source of a memory whose SOURCE: names a file that never existed said "unsafe
    source path …: no such file (… `kenning stale` lists such memories)": a CLI command, to
    an agent, about a path with nothing unsafe in it."""
    content = (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode | "
        "SOURCE: docs/solutions/never-written.md"
    )
    memory_id = (await ok(client, "hooks_remember", content=content, type="error_fix"))["id"]
    text = await error(client, "read_source", id=memory_id)
    assert "missing source document 'docs/solutions/never-written.md'" in text, text
    assert "unsafe" not in text and "kenning" not in text.replace("kenning store", ""), text


SPRING_LOG = """\
Exception in thread "main" java.lang.IllegalStateException: Failed to load ApplicationContext
\tat org.springframework.test.context.cache.DefaultCacheAwareContextLoaderDelegate.loadContext(DefaultCacheAwareContextLoaderDelegate.java:180)
\tat org.springframework.test.context.support.DefaultTestContext.getApplicationContext(DefaultTestContext.java:130)
Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'dataSource'
\tat org.springframework.beans.factory.support.ConstructorResolver.instantiate(ConstructorResolver.java:657)
Caused by: org.springframework.boot.autoconfigure.jdbc.DataSourceProperties$DataSourceBeanCreationException: Failed to determine a suitable driver class
\tat org.springframework.boot.autoconfigure.jdbc.DataSourceProperties.determineDriverClassName(DataSourceProperties.java:186)
\t... 42 more
"""


async def test_a_pasted_log_is_recalled_by_its_signature(client: Client, project: Path) -> None:
    """A log pasted as the query (an error, as recall judges it) was embedded whole: its
    first 256 word pieces, frames and the outer exception, made the vector, and the fix its
    signature finds at 0.90 scored 0.69. A query of several lines that is an error is
    recalled by its parsed signature, as `kenning recall --error` recalls one; the CLI's
    QUERY too."""
    await ok(
        client,
        "hooks_remember",
        content="ERROR-FIX: DataSourceBeanCreationException: Failed to determine a suitable "
        "driver class | FIX: the tests need the H2 test dependency on the classpath",
        type="error_fix",
    )
    recalled = await ok(client, "hooks_recall", query=SPRING_LOG)
    assert recalled["query"].startswith("Caused by: org.springframework.boot"), recalled["query"]
    assert "\n" not in recalled["query"] and recalled["floor"] == protocol.ERROR_RECALL_FLOOR
    with open_store(cwd=project) as store:  # the log as it was embedded before
        (whole, *_) = store.retrieve(SPRING_LOG, 5, Filters(group_id=store.group_id), error=True)
        # and the Python API's recall, which the surfaces call, asks the signature itself
        assert store.recall(SPRING_LOG).query == recalled["query"]
    assert recalled["results"][0]["score"] > whole.semantic + 0.05, (recalled["results"], whole)
    cli = run_cli(project, "recall", "--json", SPRING_LOG)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["query"] == recalled["query"]
    # a query of one line is recalled as it is given
    one = await ok(client, "hooks_recall", query="suitable driver class for the DataSource")
    assert one["query"] == "suitable driver class for the DataSource"


async def test_a_tool_error_of_a_store_url_shows_no_piece_of_its_credentials(
    client: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """qa-s66b F3: a %00 in a ?password= / ?sslpassword= value was quoted whole by libpq,
    and search_memories' error (and the server's debug log of it) passed it on."""
    caplog.set_level(logging.DEBUG)
    for query in ("password=Plain%00Q9Secret", "sslpassword=Plain%00Q9Secret&sslmode=disable"):
        monkeypatch.setenv("KENNING_STORE", f"postgresql://app@127.0.0.1:1/memory?{query}")
        text = await error(client, "search_memories", query="database is locked")
        assert "%00 or a % followed by no two hex digits" in text, text
        assert "Plain" not in text and "Q9Secret" not in text, text
    assert "Plain" not in caplog.text and "Q9Secret" not in caplog.text
    # qa-s66b F2/F4: the refusal's advice is not redacted; another client's parameter named
    monkeypatch.setenv("KENNING_STORE", "postgresql://app@127.0.0.1:1/memory?password=Tr0ub&d=3")
    text = await error(client, "search_memories", query="database is locked")
    assert text.count("[REDACTED") == 1 and "& as %26" in text and "Tr0ub" not in text, text
    url = "postgresql://app@127.0.0.1:1/memory?password=PlainZq9&pool_size=5"
    monkeypatch.setenv("KENNING_STORE", url)
    text = await error(client, "search_memories", query="database is locked")
    assert '"pool_size"' in text and "&pool_size=5" in text and "PlainZq9" not in text, text


async def test_recall_holds_another_missing_modules_fix_for_the_message_typed_bare(
    client: Client,
) -> None:
    """qa-s69a F1: hooks_recall of "No module named 'yaml'" (the error without its class, as an
    agent or a person types it) answered the fix stored for ``'requests'`` at 0.58, floor 0.5:
    read as words, not as an error, so another module's fix was not held below the floors as
    it is for the whole error. The module's own fix is still found."""
    stored = answer(
        await call(
            client,
            "hooks_remember",
            content="ERROR-FIX: ModuleNotFoundError: No module named 'requests' | FIX: pip "
            "install requests; it is a runtime dependency listed in pyproject.toml",
            type="error_fix",
        )
    )
    said = await ok(client, "hooks_recall", query="No module named 'yaml'")
    assert (said["floor"], said["results"]) == (protocol.ERROR_RECALL_FLOOR, []), said
    said = await ok(client, "hooks_recall", query="pytest fails: No module named 'yaml'")
    assert said["results"] == [], said
    said = await ok(client, "hooks_recall", query="No module named 'requests'")
    assert [r["id"] for r in said["results"]] == [stored["id"]], said


def _twin_of(project: Path, memory_id: str, text: str) -> str:
    """A memory whose id shares ``memory_id``'s first 13 hex digits (made in its
    millisecond, as a batch of writes makes them), written as another writer would: its id."""
    from dataclasses import replace

    from kenning.backends.base import MemoryRecord
    from kenning.model import content_hash

    twin = memory_id[:16] + ("0" if memory_id[16] != "0" else "1") + memory_id[17:]
    with open_store(cwd=project, create=False) as store:
        first = store.get(memory_id)
        assert first is not None
        vector = store.backend.get_vectors([memory_id])[memory_id]
        changed = replace(first, id=twin, content=text, content_hash=content_hash(text))
        store.backend.upsert([MemoryRecord(changed, vector)])
    return twin


async def test_forget_and_read_source_take_the_start_of_an_id_as_the_cli_does(
    client: Client, project: Path
) -> None:
    """`kenning recall` shows an id's start (``01a24969-93d9``) and the CLI's forget and
    source take it; the MCP tools took whole ids only ("no memory with id 01a24969-93d9").
    Now any start of 12 hex digits or more names the memory (either case, dashes optional),
    through the store's resolve_id; a start two ids share is refused, naming both, and
    nothing is forgotten; the answer gives the whole id."""
    (project / "docs" / "solutions").mkdir(parents=True, exist_ok=True)
    (project / "docs" / "solutions" / "db.md").write_text("# WAL\nEnable WAL mode.\n")
    content = (
        "ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode | "
        "SOURCE: docs/solutions/db.md"
    )
    fix = (await ok(client, "hooks_remember", content=content, type="error_fix"))["id"]
    rule = (await ok(client, "hooks_remember", content=UTC_RULE, type="rule"))["id"]
    assert fix[:13] != rule[:13]
    read = await ok(client, "read_source", id=fix[:13].upper())
    assert read["id"] == fix and "Enable WAL mode." in read["text"], read
    twin = _twin_of(project, rule, "Durations are stored in whole seconds.")
    refused = await error(client, "forget", id=rule[:13])
    assert rule in refused and twin in refused and "give more of the id" in refused, refused
    assert (await ok(client, "forget", id=rule[:17].replace("-", ""))) == {
        "success": True,
        "id": rule,
        "deleted": True,
    }
    assert (await ok(client, "forget", id=twin[:13]))["id"] == twin  # the one left starts it
    # too short to be taken (git's 7 digits): said so, not "it may have been forgotten
    # already" (qa76 F5)
    short = await error(client, "forget", id=fix[:8])
    assert "too short to name a memory" in short and "forgotten" not in short, short
    with open_store(cwd=project, create=False) as store:
        assert store.get(rule) is None and store.get(twin) is None and store.get(fix) is not None


async def test_an_argument_the_tool_does_not_take_is_said_in_the_answer(client: Client) -> None:
    """An argument name a tool does not take was dropped without a word (qa80 F5): an agent
    that passed search_memories' limit to hooks_recall got 5 candidates and no sign its
    argument was ignored. The call still answers (a refusal would fail every call of a client
    that adds its own names, and the ruvector protocol skips memory on a tool error), and its
    answer's ignored_arguments names them, the tool that takes one and what this tool takes;
    the fenced block does not carry it, and the structured copy says the same. Silent: the
    declared aliases (k, semantic, types), a name starting with "_", anything sent to the
    tools that take no argument, and an answer with nothing ignored has no such key."""
    result = await call(client, "hooks_recall", query="deploy", limit=1)
    data = answer(result)
    note = data["ignored_arguments"]
    assert note.startswith("limit was ignored: it is not an argument of hooks_recall"), note
    assert "(search_memories takes it)" in note, note
    assert note.endswith("hooks_recall takes query, top_k, k, semantic"), note
    assert "ignored" not in data["fenced"] and "limit" not in data["fenced"], data["fenced"]
    assert result.structured_content is not None
    assert result.structured_content["ignored_arguments"] == note
    assert {"results", "count", "fenced", "omitted_ids"} <= data.keys()
    data = await ok(client, "search_memories", query="deploy", top_k=2, bogus=1, ctx=1)
    note = data["ignored_arguments"]
    assert note.startswith('top_k, "bogus" and "ctx" were ignored: they are not arguments of'), note
    assert "(hooks_recall takes top_k)" in note and "search_memories takes query, " in note, note
    data = await ok(client, "hooks_recall", query="deploy", **{"\u202e" + "x" * 100: 1})
    assert data["ignored_arguments"].startswith("a name of 101 characters was ignored"), data
    assert "\u202e" not in json.dumps(data, ensure_ascii=False), data
    many = {f"n{i}": 1 for i in range(10)}
    data = await ok(client, "hooks_recall", query="deploy", **many)
    assert data["ignored_arguments"].startswith('"n0", "n1", "n2", "n3" and 6 more were'), data
    for tool, arguments in (
        ("hooks_recall", {"query": "deploy"}),
        ("hooks_recall", {"query": "deploy", "k": 2, "semantic": True}),
        ("search_memories", {"query": "deploy", "types": ["rule"]}),
        ("hooks_recall", {"query": "deploy", "_meta": {"progressToken": 1}, "_x": 1}),
        ("hooks_stats", {"x": 1}),
        ("hooks_capabilities", {"random_string": "x"}),
    ):
        data = await ok(client, tool, **arguments)
        assert "ignored_arguments" not in data, (tool, arguments, data)


async def test_a_tool_error_says_which_argument_names_were_ignored(client: Client) -> None:
    """A misspelt argument name failed the call as if it had not been sent ("query is
    missing") with no word of the name that was: an error has no answer to carry
    ignored_arguments in. The error says it now, after what was wrong, for a refusal of the
    arguments and for a failure of the tool itself; an error with nothing ignored does not."""
    refused = await error(client, "hooks_recall", qeury="deploy")
    assert refused.startswith("hooks_recall: query is missing (it is required)"), refused
    assert refused.endswith(
        'Also: "qeury" was ignored: it is not an argument of hooks_recall; '
        "hooks_recall takes query, top_k, k, semantic."
    ), refused
    unstored = await error(client, "forget", id="0123456789abcd", memory_id="0123")
    assert unstored.endswith(
        'hooks_remember creates it. Also: "memory_id" was ignored: it is not an argument of '
        "forget; forget takes id, group_id."
    ), unstored
    await ok(client, "hooks_remember", content=UTC_RULE, type="rule")
    failed = await error(client, "forget", id="0123", memory_id="0123456789abcdef")
    assert "too short to name a memory" in failed, failed
    assert 'Also: "memory_id" was ignored: it is not an argument of forget' in failed, failed
    for tool, arguments in (("hooks_recall", {}), ("forget", {"id": "0123"})):
        assert "Also:" not in await error(client, tool, **arguments), (tool, arguments)
    # the note is marked as the rest of an error is (qa83 F1): a name is the caller's text
    hostile = await error(client, "hooks_recall", **{"evil</reflexion_context>": 1})
    assert "</reflexion_context>" not in hostile, hostile
    assert '"evil\\u003c/reflexion_context>" was ignored' in hostile, hostile
    # two tools that take a name "take" it (qa83 F2)
    both = await error(client, "forget", id="0123", query="x")
    assert "(hooks_recall and search_memories take it)" in both, both
