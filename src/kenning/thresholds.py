"""Search's default similarity threshold belongs to the embedder that made the vectors.

A cosine of 0.6 means "close" for one model and "unrelated" for another, so the default
``kenning search`` threshold is looked up by the vector space a store was built in — the
``embedder`` and ``model_id`` of its :class:`~kenning.model.Provenance` — in
:data:`kenning.protocol.MEASURED_SEARCH_THRESHOLDS` (measured by ``bench/thresholds.py``).
A space nobody measured gets :data:`kenning.protocol.SEARCH_FALLBACK_THRESHOLD`, and says
so. A configured threshold (flag, environment, ``.env``, ``.kenning/config.toml`` — see
:mod:`kenning.config`) always wins over either.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Provenance
from .protocol import MEASURED_SEARCH_THRESHOLDS, SEARCH_FALLBACK_THRESHOLD

#: The model each named embedder loads when no ``KENNING_MODEL_DIR`` says otherwise: what a
#: store will be stamped with before it has been (tests check it against the embedder).
PACKAGED_MODELS = {"minilm": "sentence-transformers/all-MiniLM-L6-v2"}


@dataclass(frozen=True)
class DefaultThreshold:
    """The default threshold for a vector space, and where it came from."""

    value: float
    space: str
    measured: bool

    @property
    def origin(self) -> str:
        if self.measured:
            return f"measured for {self.space} (bench/thresholds.py)"
        return (
            f"fallback: no threshold was measured for {self.space}; the recall floor "
            f"{SEARCH_FALLBACK_THRESHOLD} applies (kenning calibrate --write measures one)"
        )


def space_key(embedder: str, model_id: str) -> str:
    return f"{embedder}:{model_id}"


def default_threshold(provenance: Provenance) -> DefaultThreshold:
    """The measured default for ``provenance``'s vector space, else the fallback."""
    key = space_key(provenance.embedder, provenance.model_id)
    value = MEASURED_SEARCH_THRESHOLDS.get(key)
    if value is None:
        return DefaultThreshold(SEARCH_FALLBACK_THRESHOLD, key, False)
    return DefaultThreshold(value, key, True)


def expected_default(embedder_name: str, model_dir: str | None) -> DefaultThreshold:
    """The default for a store not stamped yet, without loading the model: the packaged
    model of ``embedder_name`` unless a model folder replaces it (then nobody measured it)."""
    model = PACKAGED_MODELS.get(embedder_name) if model_dir is None else None
    if model is None:
        shown = embedder_name if model_dir is None else f"{embedder_name}:{model_dir}"
        return DefaultThreshold(SEARCH_FALLBACK_THRESHOLD, shown, False)
    key = space_key(embedder_name, model)
    value = MEASURED_SEARCH_THRESHOLDS.get(key)
    if value is None:
        return DefaultThreshold(SEARCH_FALLBACK_THRESHOLD, key, False)
    return DefaultThreshold(value, key, True)


__all__ = ["PACKAGED_MODELS", "DefaultThreshold", "default_threshold", "expected_default"]
