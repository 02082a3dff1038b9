"""Every relative link of the README and of the pages of docs/ leads somewhere.

The README points at docs/ pages for everything it leaves out (its reference sections moved
there), and the pages point at each other and at sections of each other: a page renamed, or
a heading reworded, would leave a link to nothing. A link is resolved as GitHub resolves it:
relative to the page's folder, and ``#anchor`` as the slug GitHub gives a heading.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (a link there is code)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _links(text: str) -> list[str]:
    """The target of every inline link and image, ``[text](target)``."""
    return re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text in lower case, without the characters that
    are not letters, digits, spaces, hyphens or underscores, spaces made hyphens."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a page; a repeated one gets ``-1``, ``-2``… as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(
        r"^#{1,6} (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M), re.M
    ):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def test_slug_is_githubs() -> None:
    assert slug("Agent surfaces: the hook process and the warm MCP server") == (
        "agent-surfaces-the-hook-process-and-the-warm-mcp-server"
    )
    assert slug("Claude Code: `kenning install claude-code`") == (
        "claude-code-kenning-install-claude-code"
    )
    assert slug("5. `kenning doctor`") == "5-kenning-doctor"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_its_heading(page: Path) -> None:
    text = page.read_text()
    broken = []
    for target in _links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            broken.append(f"{target}: {linked.name} has no heading #{anchor}")
    assert not broken, broken


def test_the_readme_links_to_every_docs_page() -> None:
    """Every docs/ page is reachable from the README, so every fact it holds is findable."""
    linked = {
        (ROOT / t.partition("#")[0]).resolve() for t in _links((ROOT / "README.md").read_text())
    }
    pages = {p.resolve() for p in PAGES[1:]}
    assert not pages - linked, sorted(p.name for p in pages - linked)
