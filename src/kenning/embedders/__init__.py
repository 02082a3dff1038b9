"""Embedders: the offline MiniLM model (default) and a hashing embedder for tests only."""

from __future__ import annotations

import threading

from ..model import Provenance
from .base import Embedder

__all__ = ["EMBEDDERS", "Embedder", "expected_provenance", "load_embedder"]

#: The names ``KENNING_EMBEDDER`` may give (``hashing`` is for tests only).
EMBEDDERS = ("minilm", "hashing")


_LOADED: dict[str, Embedder] = {}
#: Two threads of one process that ask at once (a store's lexical worker and its caller)
#: load once: the second waits for the first's model instead of building its own.
_LOADING = threading.Lock()


def load_embedder(name: str = "minilm") -> Embedder:
    """Load an embedder by name (once per process: the model stays warm).

    ``minilm`` is the default; ``hashing`` is for tests only and never a fallback.
    """
    loaded = _LOADED.get(name)
    if loaded is None:
        with _LOADING:
            loaded = _LOADED.get(name)
            if loaded is None:
                loaded = _LOADED[name] = _load(name)
    return loaded


def expected_provenance(name: str = "minilm") -> Provenance:
    """The provenance of the embedder ``name`` loads, without loading it when it is not
    loaded yet (what a store not written yet will be stamped with)."""
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded.provenance
    if name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder.expected_provenance()
    return load_embedder(name).provenance  # the hashing embedder costs nothing to make


def _load(name: str) -> Embedder:
    if name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder.load()
    if name == "hashing":
        from .hashing import HashingEmbedder

        return HashingEmbedder()
    from ..errors import UserInputError

    raise UserInputError(
        f"unknown embedder {name!r}; valid embedders are {', '.join(EMBEDDERS)} (tests only)"
    )
