"""Agent integrations: Claude Code hooks (:mod:`.claude_code`) and their installer
(:mod:`.install`). Surfaces: they parse, call the store, render; the core never imports them.
"""

from __future__ import annotations

__all__ = ["claude_code", "install"]
