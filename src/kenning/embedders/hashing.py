"""A deterministic feature-hashing embedder — for tests only.

It needs no model files and is fast and reproducible, which is all tests want from it. It is
NOT a semantic model (its nearest neighbours agree with MiniLM's only about a quarter of the
time) and kenning never falls back to it silently: it is used only when asked for by name
(``load_embedder("hashing")``), and its provenance (``hashing`` / ``hashing-v1``) keeps its
vectors from ever mixing with a real model's in one store.

Features: lowercase word unigrams and character trigrams of each word (padded with ``#``
at both ends), each hashed with blake2b into a bucket and a sign; counts are
``1 + log(tf)``-damped, character trigrams weighted half, and the vector L2-normalised.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..model import Provenance

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)
_TRIGRAM_WEIGHT = 0.5


class HashingEmbedder:
    """Signed feature hashing into ``dimension`` buckets. Tests only; never a fallback."""

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 1:
            raise ValueError("dimension must be positive")
        self._dimension = dimension
        self._provenance = Provenance(
            embedder="hashing",
            model_id="hashing-v1",
            dimension=dimension,
            normalised=True,
            prefix_policy="none",
        )
        self._cache: dict[str, tuple[int, float]] = {}

    @property
    def provenance(self) -> Provenance:
        return self._provenance

    @property
    def dimension(self) -> int:
        return self._dimension

    def _bucket(self, feature: str) -> tuple[int, float]:
        hit = self._cache.get(feature)
        if hit is None:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            hit = (value % self._dimension, 1.0 if (value >> 63) & 1 else -1.0)
            if len(self._cache) < 200_000:
                self._cache[feature] = hit
        return hit

    @staticmethod
    def features(text: str) -> Counter[str]:
        """The weighted features of ``text`` (word unigrams ``w:``, trigrams ``c:``)."""
        feats: Counter[str] = Counter()
        # each word's features once, counted as often as the word is there: the same counts,
        # and the same order of first appearance (a word's first time, as the words are
        # counted), so the vector's sum is made in the same order
        for word, times in Counter(_WORD.findall(text.lower())).items():
            padded = f"#{word}#"
            grams = ["w:" + word, *["c:" + padded[i : i + 3] for i in range(len(padded) - 2)]]
            if times == 1:
                feats.update(grams)
            else:
                for gram in grams:
                    feats[gram] += times
        return feats

    def _embed_one(self, text: str) -> np.ndarray:
        vec = np.zeros(self._dimension, dtype=np.float64)
        for feature, count in self.features(text).items():
            bucket, sign = self._bucket(feature)
            weight = 1.0 + math.log(count)
            if feature.startswith("c:"):
                weight *= _TRIGRAM_WEIGHT
            vec[bucket] += sign * weight
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            # No word characters at all: a fixed unit vector, so the row is still unit-length.
            vec[self._bucket("empty:")[0]] = 1.0
            norm = 1.0
        return (vec / norm).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return a ``(len(texts), dimension)`` float32 array of unit-length rows."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._embed_one(str(text))
        return out
