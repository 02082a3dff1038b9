"""The embedder interface: texts in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..model import Provenance


@runtime_checkable
class Embedder(Protocol):
    """Turns text into unit vectors; ``provenance`` names the vector space."""

    @property
    def provenance(self) -> Provenance: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return a ``(len(texts), dimension)`` float32 array of unit-length rows."""
        ...
