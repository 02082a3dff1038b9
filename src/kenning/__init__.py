"""kenning — institutional memory for coding agents.

Remember error→fix notes, conventions and decisions for a project; recall the few that
matter before acting, scored, deduplicated, time-decayed and fenced for the prompt.

>>> from kenning import open_store, remember, recall, search_memories
"""

from __future__ import annotations

import os

# Threaded BLAS is far slower for single-query scoring on a busy 2-core box (SPEC §3).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .api import recall, remember, search_memories
from .errors import (
    ContentError,
    DedupCheckFailed,
    DuplicateContent,
    EditConflict,
    InvalidTypeError,
    KenningError,
    NotAKenningStore,
    ProvenanceMismatch,
    StoreClosed,
    StoreCorrupted,
    StoreLocationError,
    StoreNotFound,
    StoreUnavailable,
    StoreWriteFailed,
    UserInputError,
)
from .model import (
    Memory,
    Provenance,
    RecallResult,
    RememberResult,
    SearchResult,
)
from .search import SearchResponse
from .store import MemoryStore, NewMemory, open_store

__version__ = "0.1.0"

__all__ = [
    "ContentError",
    "DedupCheckFailed",
    "DuplicateContent",
    "EditConflict",
    "InvalidTypeError",
    "KenningError",
    "Memory",
    "MemoryStore",
    "NewMemory",
    "NotAKenningStore",
    "Provenance",
    "ProvenanceMismatch",
    "RecallResult",
    "RememberResult",
    "SearchResponse",
    "SearchResult",
    "StoreClosed",
    "StoreCorrupted",
    "StoreLocationError",
    "StoreNotFound",
    "StoreUnavailable",
    "StoreWriteFailed",
    "UserInputError",
    "__version__",
    "open_store",
    "recall",
    "remember",
    "search_memories",
]
