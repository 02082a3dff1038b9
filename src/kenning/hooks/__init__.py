"""Agent hooks: Claude Code's SessionStart, UserPromptSubmit and PostToolUseFailure
(:mod:`.claude_code`).
Surfaces: they parse, call the store, render; the core never imports them.
"""

from __future__ import annotations

__all__ = ["claude_code"]
