"""Embedders: the offline MiniLM model (default) and a hashing embedder for tests only."""

from __future__ import annotations

from .base import Embedder

__all__ = ["Embedder", "load_embedder"]


def load_embedder(name: str = "minilm") -> Embedder:
    """Load an embedder by name. ``minilm`` is the default; ``hashing`` is for tests only."""
    if name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder.load()
    if name == "hashing":
        from .hashing import HashingEmbedder

        return HashingEmbedder()
    from ..errors import UserInputError

    raise UserInputError(f"unknown embedder {name!r}; valid embedders are minilm, hashing (tests only)")
