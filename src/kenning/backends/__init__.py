"""Storage engines behind one Protocol: embedded SQLite (default); server backends later."""

from __future__ import annotations

from .base import Backend, Filters, MemoryRecord, ScoredMemory

__all__ = ["Backend", "Filters", "MemoryRecord", "ScoredMemory"]
