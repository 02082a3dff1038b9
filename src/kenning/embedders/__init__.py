"""Embedders: the offline MiniLM model (default) and a hashing embedder for tests only."""

from __future__ import annotations

from .base import Embedder

__all__ = ["Embedder", "load_embedder"]


_LOADED: dict[str, Embedder] = {}


def load_embedder(name: str = "minilm") -> Embedder:
    """Load an embedder by name (once per process: the model stays warm).

    ``minilm`` is the default; ``hashing`` is for tests only and never a fallback.
    """
    if name not in _LOADED:
        _LOADED[name] = _load(name)
    return _LOADED[name]


def _load(name: str) -> Embedder:
    if name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder.load()
    if name == "hashing":
        from .hashing import HashingEmbedder

        return HashingEmbedder()
    from ..errors import UserInputError

    raise UserInputError(
        f"unknown embedder {name!r}; valid embedders are minilm, hashing (tests only)"
    )
