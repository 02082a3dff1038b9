"""The memory-protocol constants, in exactly one place.

These are the ruvector protocol's numbers (the "sentinel line" of the memory-query seed)
and the AI Memory Module's search defaults. Docs, help texts and tests read them from
here; a test fails when the README or a docs/ page states a different value.
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
#: so); kenning reads :data:`kenning.dedup.NEIGHBOURS` of them (and more close ones,
#: :data:`kenning.dedup.CLOSE_NEIGHBOURS`).
DEDUP_TOP_K = 1

#: ``search`` defaults (AI Memory Module).
SEARCH_DEFAULT_LIMIT = 5
SEARCH_MAX_LIMIT = 100
#: ``search``'s default similarity threshold for kenning's embedder, all-MiniLM-L6-v2.
#:
#: A threshold belongs to the vector space it was measured in: the AI Memory Module's 0.7
#: was calibrated for jina-embeddings-v2-base-en, and with MiniLM it hid the README's own
#: example (best 0.64). Measured by ``python -m bench thresholds`` (``bench/thresholds.py``;
#: the table in docs/benchmarks.md, ``thresholds.json``): stores built with
#: ``remember_many``, queries answered by ``MemoryStore.search`` with its defaults; the
#: value is the lowest (0.01 grid) at which at most 5 % of LoCoMo questions asked in
#: another conversation return anything. Run of 2026-11-30 on the stable-score fusion
#: (1,307 LoCoMo questions; 1,572 correct top-1 hits over the six sets of ``bench/quality.py``):
#:
#: =========  ========================  ======================  ===========================
#: threshold  LoCoMo false positives    correct top-1 kept      of which yellow ERROR-FIX
#: =========  ========================  ======================  ===========================
#: 0.45       14.9 %                    99.6 %                  96.7 %
#: 0.50        5.4 %                    98.4 %                  82.0 %
#: **0.51**    4.7 %                    98.0 %                  78.7 %
#: 0.60        0.8 %                    94.8 %                  54.1 %
#: 0.70        0.1 %                    85.1 %                  26.2 %
#: =========  ========================  ======================  ===========================
#:
#: (none of the 25 hand-written unrelated yellow queries passes from 0.45 up). 0.7 kept only
#: 85 % of correct answers, a quarter of the ERROR-FIX ones, whose long text compresses
#: MiniLM's cosine (recall holds them to its 0.40 error floor for the same reason).
#: Re-run the bench when the score changes (the lexical bonus is fused into it) and update
#: this value; a project measures its own with ``kenning calibrate --write``.
SEARCH_DEFAULT_THRESHOLD = 0.51
#: Measured defaults per vector space, keyed by ``"<embedder>:<model id>"`` of the store's
#: :class:`~kenning.model.Provenance` (:mod:`kenning.thresholds` looks them up). Another
#: model — ``KENNING_MODEL_DIR`` pointing at other weights — gets its own entry only once
#: ``bench/thresholds.py --embedder`` has measured it.
MEASURED_SEARCH_THRESHOLDS: dict[str, float] = {
    "minilm:sentence-transformers/all-MiniLM-L6-v2": SEARCH_DEFAULT_THRESHOLD,
}
#: An embedder with no measured value falls back to the protocol's recall floor: search then
#: shows nothing weaker than recall would, which is the conservative side (a false hit in a
#: prompt costs more than a missed one). Measure it with ``kenning calibrate --write``.
SEARCH_FALLBACK_THRESHOLD = RECALL_FLOOR
#: Cascading expands past the primary collection when fewer results than this pass...
CASCADE_MIN_RESULTS = 3
#: ...or when the best semantic score is below this.
CASCADE_MIN_BEST = 0.5

#: Decay weights: ``final = SEMANTIC_WEIGHT * semantic + TEMPORAL_WEIGHT * temporal``.
SEMANTIC_WEIGHT = 0.7
TEMPORAL_WEIGHT = 0.3

#: How much lower a stale memory ranks: subtracted from its final score (search) or its
#: score (recall, the session hook) for ordering; floors and thresholds are still tested
#: on the unpenalised relevance, so a stale memory is marked and demoted, never hidden.
#:
#: Why 0.05: a stale memory may still be right (the file changed elsewhere) or wrong (the
#: code it describes moved on); nothing in the file says which. The penalty should settle
#: near-ties in favour of the fresh memory and leave a clearly better stale match on top.
#: Measured by ``python -m bench quality`` (its ``stale penalty`` table, ``stale_penalty``
#: in quality.json with a sweep) on the hybrid scores of the six eval sets: at 0.05,
#: 74–89 % of correct top-1 answers would keep their rank were they stale and the runner-up
#: fresh (yellow 84 %, rust 85 %, rust masked 87 %, ruff 89 %, ruff masked 82 %, LoCoMo
#: 74 %), and in 1.4–7.4 % of queries a correct answer at rank 2 would rise past a stale
#: wrong top-1. At 0.1 the kept share
#: falls to 57–80 %, at 0.2 to 28–62 % (it buries right answers); at 0.02 it keeps 88–96 %
#: but settles few ties. The quality figures themselves do not move (no memory there is
#: stale; identical to the run before this penalty existed). Configurable
#: (:mod:`kenning.config`): ``stale_penalty`` in ``.kenning/config.toml`` or
#: ``KENNING_STALE_PENALTY`` (0 ranks stale memories as fresh ones; they are still marked).
STALE_PENALTY = 0.05

#: Content limits (after whitespace normalisation).
MAX_CONTENT_BYTES = 64 * 1024
#: Limits of the other stored fields, which every answer that shows the memory carries
#: (recall's 800-character budget cuts the content, not them): a path or URL, short labels,
#: and metadata as JSON.
MAX_SOURCE_CHARS = 2048
MAX_TAGS = 64
MAX_TAG_CHARS = 128
MAX_METADATA_BYTES = 64 * 1024
#: The most metadata, as stored JSON, a row kenning wrote can hold: an import or an edit
#: takes up to twice :data:`MAX_METADATA_BYTES` (``store_write.RESTORE_ALLOWANCE``: what was
#: stored within it grows by redaction markers and kenning's own keys), and kenning's keys
#: (an error fingerprint, a file record, review and edit times) add well under as much
#: again. A row holding more (with content over :data:`MAX_CONTENT_BYTES`) was written by
#: another writer of the store: every read holds it back as a damaged row (F2: redacting a
#: few megabytes of it on read took seconds, past the hooks' budget).
MAX_STORED_METADATA_BYTES = 3 * MAX_METADATA_BYTES
#: The largest ``seen_count`` (PostgreSQL's ``integer``): a sighting beyond it is not counted,
#: and an import that asks for more is refused instead of wrapping to a negative count.
MAX_SEEN_COUNT = 2**31 - 1
#: The longest query recall and search take. The model reads 256 word pieces of it and
#: lexical search its first terms, but tokenising a query costs in proportion to its whole
#: length: a pasted megabyte would hold up every other call (the hook's prompt is cut to the
#: same length before it becomes queries).
MAX_QUERY_CHARS = 20_000

#: The sentinel line of the ruvector protocol, rebuilt from the constants above.
SENTINEL = (
    f"ruvector-protocol-constants v1: recall top_k={RECALL_TOP_K}, discard score < {RECALL_FLOOR}, "
    f"keep top {RECALL_KEEP}, truncate {RECALL_CHAR_BUDGET} chars at word boundary; "
    f"dedup top_k={DEDUP_TOP_K}, skip if score > {DEDUP_THRESHOLD}."
)
