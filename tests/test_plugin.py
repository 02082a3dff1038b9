"""The Claude Code plugin in this repository: manifests, skills and commands are well formed
and within the documented limits, and the protocol constants in their text agree with
kenning.protocol (a drift lint like the memory-query seed's RULE 16).

The real Claude Code CLI validating and installing the plugin is tests/test_agent_clis.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import frontmatter
import pytest

from kenning import protocol
from kenning.installers.claude_code import HOOK_EVENTS, HOOK_MATCHERS, HOOK_TIMEOUT_SECONDS
from kenning.mcp_server import ANSWER_CHAR_BUDGET
from kenning.querybuild import ERROR_QUERY_MAX_CHARS, PLAN_QUERY_MAX_CHARS, PR_QUERY_MAX_CHARS

from .case_table import each_case

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugins" / "kenning"
SKILLS = sorted((PLUGIN / "skills").glob("*/SKILL.md"))
COMMANDS = sorted((PLUGIN / "commands").glob("*.md"))

# Agent Skills specification (agentskills.io), which Claude Code follows: a name of 1-64
# lowercase letters, digits and single hyphens, equal to the skill's folder, without the
# reserved words; a description of 1-1024 characters without XML tags.
NAME_RULE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
# Claude Code puts every skill's and command's description into each session's context:
# keep them short (well under the limit) so the plugin stays cheap to have installed.
BUDGET_DESCRIPTION = 300


def test_marketplace_lists_the_plugin() -> None:
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert market["name"] == "kenning" and market["owner"]["name"]
    [entry] = market["plugins"]
    assert entry["name"] == "kenning"
    assert (ROOT / entry["source"]).resolve() == PLUGIN.resolve()
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "kenning" and manifest["version"] and manifest["author"]


def test_plugin_has_the_skills_and_commands() -> None:
    assert [p.parent.name for p in SKILLS] == ["memory-query", "memory-remember"]
    assert [p.stem for p in COMMANDS] == ["remember", "search", "seed-solutions", "stats"]


@each_case("path", SKILLS, ids=lambda p: p.parent.name)
def test_skill_frontmatter_within_limits(path: Path) -> None:
    post = frontmatter.load(path)
    name, description = post["name"], post["description"]
    assert name == path.parent.name
    assert NAME_RULE.match(name) and len(name) <= MAX_NAME
    assert "claude" not in name and "anthropic" not in name
    assert 0 < len(description) <= BUDGET_DESCRIPTION <= MAX_DESCRIPTION
    assert "<" not in description and ">" not in description
    assert len(post.content.splitlines()) < 500  # the spec's advice for SKILL.md bodies


@each_case("path", COMMANDS, ids=lambda p: p.stem)
def test_command_frontmatter(path: Path) -> None:
    post = frontmatter.load(path)
    assert 0 < len(post["description"]) <= BUDGET_DESCRIPTION
    tools = post.get("allowed-tools", "")
    # commands may run kenning and nothing else without asking
    assert tools and all(t.strip().startswith("Bash(kenning ") for t in tools.split(","))
    if path.stem != "stats":
        assert "$ARGUMENTS" in post.content


def test_hooks_and_mcp_server_run_kenning() -> None:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(HOOK_EVENTS)
    for event, name in HOOK_EVENTS.items():
        [group] = hooks[event]
        [hook] = group["hooks"]
        assert hook["type"] == "command" and hook["command"].endswith(f"kenning hook {name}")
        # as `kenning install claude-code` writes it: above every budget kenning accepts
        assert hook["timeout"] == HOOK_TIMEOUT_SECONDS
        # and for the same tools (the tool-failure hook: the shell's)
        assert group.get("matcher") == HOOK_MATCHERS.get(event)
    servers = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert servers == {"kenning": {"command": "kenning", "args": ["mcp"]}}


# -- the protocol constants in the skill text -------------------------------------------------

QUERY = (PLUGIN / "skills" / "memory-query" / "SKILL.md").read_text()
REMEMBER = (PLUGIN / "skills" / "memory-remember" / "SKILL.md").read_text()
SEARCH = (PLUGIN / "commands" / "search.md").read_text()
ERROR_SENTINEL = (
    f"ruvector-error-fix-constants v1: recall top_k={protocol.RECALL_TOP_K}, discard score "
    f"< {protocol.ERROR_RECALL_FLOOR:.2f}, keep top {protocol.RECALL_KEEP}, truncate "
    f"{protocol.RECALL_CHAR_BUDGET} chars at word boundary."
)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_skill_carries_the_sentinel_lines_byte_for_byte() -> None:
    lines = QUERY.splitlines()
    assert protocol.SENTINEL in lines
    assert ERROR_SENTINEL in lines


@each_case(
    ("text", "pattern", "expected"),
    [
        (QUERY, r"asks for the top (\d+) candidates", protocol.RECALL_TOP_K),
        (QUERY, r"discards scores below (0\.\d+)", protocol.RECALL_FLOOR),
        (QUERY, r"below (0\.\d+) for error queries", protocol.ERROR_RECALL_FLOOR),
        (QUERY, r"keeps the best (\d+)", protocol.RECALL_KEEP),
        (QUERY, r"combined content to (\d+) characters", protocol.RECALL_CHAR_BUDGET),
        (QUERY, r"scores above (0\.\d+)", protocol.DEDUP_THRESHOLD),
        (QUERY, r"\| PR review \| the first (\d+) chars", PR_QUERY_MAX_CHARS),
        (QUERY, r"\| PR review \|.*\| (\d+) \|", PR_QUERY_MAX_CHARS),
        (QUERY, r"fallback: the first (\d+) chars of the plan", PLAN_QUERY_MAX_CHARS),
        (QUERY, r"\| plan / work \|.*\| (\d+) \|", PLAN_QUERY_MAX_CHARS),
        (QUERY, r"\| debugging \|.*\| (\d+) \|", ERROR_QUERY_MAX_CHARS),
        (QUERY, r"top (\d+) file basenames", 3),
        (REMEMBER, r"scores above (0\.\d+)", protocol.DEDUP_THRESHOLD),
        (SEARCH, r"\(default (\d+)\)", protocol.SEARCH_DEFAULT_LIMIT),
        (SEARCH, r"default (0\.\d+) or the project", protocol.SEARCH_DEFAULT_THRESHOLD),
        (SEARCH, r"fewer than (\d+) results pass", protocol.CASCADE_MIN_RESULTS),
        (SEARCH, r"best scores below (0\.\d+)", protocol.CASCADE_MIN_BEST),
        (SEARCH, r"`(0\.\d+) × semantic", protocol.SEMANTIC_WEIGHT),
        (SEARCH, r"× semantic \+ (0\.\d+) × temporal", protocol.TEMPORAL_WEIGHT),
    ],
)
def test_plugin_text_states_the_constants(text: str, pattern: str, expected: float) -> None:
    # table rows are matched within their line; prose across line breaks
    lines = text.splitlines() if pattern.startswith(r"\|") else [_flat(text)]
    found = [float(m) for line in lines for m in re.findall(pattern, line)]
    assert found, f"the plugin no longer states {pattern!r}"
    assert all(value == expected for value in found), (pattern, found, expected)


def test_the_query_skill_says_what_a_recall_answer_left_out() -> None:
    """hooks_recall keeps its answer under ANSWER_CHAR_BUDGET characters and names the results
    it left out in omitted_ids, with "truncated": true: the skill said "truncated" meant the
    800-character cut of the content only, so an agent was not told what omitted_ids are or
    how to see those memories."""
    flat = _flat(QUERY)
    assert f"under {ANSWER_CHAR_BUDGET:,} characters" in flat
    for key in ("omitted_ids", "truncation_note", "metadata_omitted", "kenning recall --json"):
        assert f"`{key}" in flat.replace('`"', "`"), key


def test_no_stray_floor_values_in_the_skills() -> None:
    allowed = {protocol.RECALL_FLOOR, protocol.ERROR_RECALL_FLOOR}
    for text in (QUERY, REMEMBER, SEARCH):
        for value in re.findall(r"(?:floor|below|score <)\D{0,12}(0\.\d+)", _flat(text)):
            assert float(value) in allowed | {protocol.CASCADE_MIN_BEST}, value


def test_search_command_documents_every_aim_search_flag() -> None:
    """/kenning:search is the AI Memory Module's /aim-search: every flag it documents."""
    for flag in (
        "--collection",
        "--type",
        "--intent",
        "--limit",
        "--group-id",
        "--decay",
        "--no-decay",
    ):
        assert f"`{flag}" in SEARCH, flag
    assert "Decay: n/a (temporal: n/a, semantic: 0.85)" in SEARCH
    assert re.search(
        r"^1\. \[0\.72\] .+\n   Collection: code-patterns \| Type: implementation \| "
        r"2026-01-15 \| Id: [0-9a-f]{8}-[0-9a-f]{4}\n   Decay: 0\.72 \(temporal: 0\.61, semantic: 0\.85\)$",
        SEARCH,
        re.M,
    )


def test_search_command_example_is_what_kenning_search_prints() -> None:
    """The output format /kenning:search promises is render_human's, byte for byte."""
    from datetime import UTC, datetime

    from kenning.model import Memory, SearchResult
    from kenning.render import render_human

    def result(
        summary: str, day: int, score: float, temporal: float, semantic: float
    ) -> SearchResult:
        memory = Memory(
            id=f"m{day}",
            content=summary,
            collection="code-patterns",
            type="implementation",
            group_id="acme/widgets",
            stored_at=datetime(2026, 1, day, 12, tzinfo=UTC),
            content_hash="0" * 64,
        )
        return SearchResult(memory=memory, score=score, semantic=semantic, temporal=temporal)

    rendered = render_human(
        [
            result("Implementation of authentication middleware", 15, 0.72, 0.61, 0.85),
            result("JWT token validation pattern", 10, 0.65, 0.52, 0.78),
        ],
        decay=True,
        shown_ids={"m15": "019bc2a1-4f3e", "m10": "019ba8f0-77c2"},  # as short_ids gives them
    )
    assert f"```\n{rendered}\n```" in SEARCH
    off = render_human([result("x", 15, 0.85, 0.61, 0.85)], decay=False)
    assert off.splitlines()[-1].strip() in SEARCH


@pytest.mark.parametrize("on_path", [True, False])
def test_plugin_hook_commands_run_and_stay_silent_without_kenning(
    project: Path, tmp_path: Path, on_path: bool
) -> None:
    """Claude Code runs a hook command through a shell; without kenning on PATH the hook
    must still exit 0 with no output (a hook never breaks the session)."""
    import os
    import subprocess
    import sys

    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    path = (
        f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"
        if on_path
        else f"{empty}:/usr/bin:/bin"
    )
    for event in HOOK_EVENTS:
        [group] = hooks[event]
        [hook] = group["hooks"]
        payload = {"session_id": "s", "cwd": str(project), "hook_event_name": event, "prompt": "hi"}
        proc = subprocess.run(
            ["/bin/sh", "-c", hook["command"]],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=project,
            env={**os.environ, "PATH": path},
            timeout=60,
        )
        assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
