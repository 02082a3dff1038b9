"""Embedders: the offline MiniLM model (default) and a hashing embedder for tests only."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

from ..model import Provenance
from .base import Embedder

__all__ = [
    "EMBEDDERS",
    "Embedder",
    "check_embedder_name",
    "expected_provenance",
    "load_embedder",
    "unknown_embedder_variable",
    "variables_said",
    "variables_that_chose",
]

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


def check_embedder_name(name: str) -> str:
    """``name`` when it names an embedder; a :class:`~kenning.errors.UserInputError` naming
    the valid ones otherwise (``open_store`` asks as it opens, not at the first recall),
    and ``KENNING_EMBEDDER`` with its fix when the name is that variable's."""
    if name not in EMBEDDERS:
        from ..config import embedder_name
        from ..errors import UserInputError

        if name == embedder_name():  # (what every surface loads when given no embedder)
            raise UserInputError("; ".join(unknown_embedder_variable(name)))
        raise UserInputError(
            f"unknown embedder {name!r}; valid embedders are {', '.join(EMBEDDERS)} (tests only)"
        )
    return name


def unknown_embedder_variable(name: str) -> tuple[str, str]:
    """What is wrong with ``KENNING_EMBEDDER=name``, which names no embedder, and its fix:
    the variable is named, since it is set where the user may not look (an MCP server's
    ``env`` block, a shell profile)."""
    return (
        f"KENNING_EMBEDDER={name[:80]!r} is no embedder (the embedders are "
        f"{', '.join(EMBEDDERS)}; hashing for tests only)",
        "unset KENNING_EMBEDDER (minilm is the default) or set it to one of those",
    )


def _load(name: str) -> Embedder:
    if check_embedder_name(name) == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder.load()
    from .hashing import HashingEmbedder

    return HashingEmbedder()


def variables_that_chose(
    current: Provenance, stored: Provenance, environ: Mapping[str, str] | None = None
) -> tuple[tuple[str, str], ...]:
    """The variables (name, value) that chose ``current`` over ``stored``, the model a store
    was made with, when unsetting them goes back to it: ``stored`` is the bundled MiniLM
    (what no variable gives) and ``KENNING_EMBEDDER`` or ``KENNING_MODEL_DIR`` chose the
    model in use. Empty when the store's model is another: no variable unset gives it back,
    and `kenning reembed` is the fix."""
    from ..config import embedder_name, model_dir
    from .minilm import MINILM_MODEL_ID

    env = os.environ if environ is None else environ
    if (stored.embedder, stored.model_id) != ("minilm", MINILM_MODEL_ID) or current == stored:
        return ()
    chosen: list[tuple[str, str]] = []
    name = embedder_name(env)
    if name != "minilm" and current.embedder == name:
        chosen.append(("KENNING_EMBEDDER", name))
    folder = model_dir(env)
    if folder is not None and (current.embedder == "minilm" or chosen):
        chosen.append(("KENNING_MODEL_DIR", folder))
    return tuple(chosen)


def variables_said(current: Provenance, stored: Provenance) -> tuple[str, str]:
    """What a model mismatch says of the variables that chose ``current``: " (chosen by
    KENNING_EMBEDDER='hashing')" and "unset KENNING_EMBEDDER to use the store's model
    again, or "; nothing when no variable unset gives the store's model back. A reembed is
    not the only fix: run as told, it re-embeds everyone's store with the model one shell's
    variable chose."""
    chosen = variables_that_chose(current, stored)
    if not chosen:
        return "", ""
    said = " and ".join(f"{name}={value[:120]!r}" for name, value in chosen)
    names = " and ".join(name for name, _ in chosen)
    return f" (chosen by {said})", f"unset {names} to use the store's model again, or "
