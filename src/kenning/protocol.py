"""The memory-protocol constants, in exactly one place.

These are the ruvector protocol's numbers (the "sentinel line" of the memory-query seed)
and the AI Memory Module's search defaults. Docs, help texts and tests read them from
here; a test fails when the README states a different value.
"""

from __future__ import annotations

#: ``hooks_recall`` asks the store for this many candidates.
RECALL_TOP_K = 5
#: Candidates scoring below this are discarded (noise on sparse or cold stores).
RECALL_FLOOR = 0.5
#: Error queries are short against long stored entries, so MiniLM cosine compresses toward
#: the middle; the seed calibrated a lower floor for them.
ERROR_RECALL_FLOOR = 0.40
#: At most this many results survive the floor.
RECALL_KEEP = 3
#: The combined content of the kept results is cut to this many characters at a word boundary.
RECALL_CHAR_BUDGET = 800

#: Write path: the protocol's near-duplicate gate. Only a stored memory whose cosine to the
#: new note is above this can be a near-duplicate; above it :mod:`kenning.dedup` decides
#: whether the two say the same thing.
DEDUP_THRESHOLD = 0.82
#: The seed protocol compares a new note with this many neighbours (its sentinel line says
#: so); kenning reads :data:`kenning.dedup.NEIGHBOURS` of them.
DEDUP_TOP_K = 1

#: ``search`` defaults (AI Memory Module).
SEARCH_DEFAULT_LIMIT = 5
SEARCH_MAX_LIMIT = 100
SEARCH_DEFAULT_THRESHOLD = 0.7
#: Cascading expands past the primary collection when fewer results than this pass...
CASCADE_MIN_RESULTS = 3
#: ...or when the best semantic score is below this.
CASCADE_MIN_BEST = 0.5

#: Decay weights: ``final = SEMANTIC_WEIGHT * semantic + TEMPORAL_WEIGHT * temporal``.
SEMANTIC_WEIGHT = 0.7
TEMPORAL_WEIGHT = 0.3

#: Content limits (after whitespace normalisation).
MAX_CONTENT_BYTES = 64 * 1024

#: The sentinel line of the ruvector protocol, rebuilt from the constants above.
SENTINEL = (
    f"ruvector-protocol-constants v1: recall top_k={RECALL_TOP_K}, discard score < {RECALL_FLOOR}, "
    f"keep top {RECALL_KEEP}, truncate {RECALL_CHAR_BUDGET} chars at word boundary; "
    f"dedup top_k={DEDUP_TOP_K}, skip if score > {DEDUP_THRESHOLD}."
)
