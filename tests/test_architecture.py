"""Architecture boundaries, read from the source with ``ast``.

Surfaces (CLI, MCP server, hooks, installers, the web page) sit on one core
(:class:`kenning.store.MemoryStore` and the whole-store jobs beside it); pure domain modules
sit under the core; foundations at the bottom. Arrows only point down.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "kenning"
SURFACES = {"cli", "mcp_server", "hooks", "installers", "ui", "__main__"}
#: Pure modules: strings and numbers in, strings and numbers out — no store, no backend, no
#: model, no surface.
PURE = {
    "scoring",
    "search",
    "intent",
    "render",
    "truncation",
    "lexical",
    "errorfix",
    "signatures",
    "log_formats",
    "fingerprints",
    "solution_docs",
    "querybuild",
    "safety",
    "code_spans",
    "dedup",
    "redaction",
    "vectors",
    "widths",
    "thresholds",
}
FOUNDATIONS = {"model", "protocol", "errors", "lazyre"}
#: The parts :class:`~kenning.store.MemoryStore` is built from, bottom first: each part's class
#: derives from the class of the part below it, and uses only the parts below it.
STORE_PARTS = {
    "store_base": "StoreBase",
    "store_freshness": "StoreFreshness",
    "store_read": "StoreReads",
    "store_write": "StoreWrites",
    "store_curation": "StoreCuration",
    "store": "MemoryStore",
}
IMPURE = {"backends", "embedders", "api", "transfer", "reembed", "migrate", "seeding"}
IMPURE |= set(STORE_PARTS)
IMPURE |= {"freshness"}  # hashes the files memories name, runs git


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        out.append((rel.parts[0].removesuffix(".py"), path))
    return out


@functools.cache
def _tree(path: Path) -> ast.Module:
    """``path`` parsed once for the module's tests (2.4 MB of source: each parse of the
    package ~0.3 CPU-s, and six tests walk it; none changes a tree)."""
    return ast.parse(_source(path))


@functools.cache
def _imports(path: Path) -> frozenset[str]:
    """The top-level kenning modules ``path`` imports (relative or absolute)."""
    tree = _tree(path)
    depth = len(path.relative_to(PACKAGE).parts) - 1  # 0 for kenning/x.py, 1 for a subpackage
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                if node.level <= depth:  # inside its own subpackage
                    continue
                if module:
                    names.add(module.split(".")[0])
                else:
                    names.update(a.name for a in node.names)
            elif module.startswith("kenning."):
                names.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("kenning."))
    return frozenset(names)


@functools.cache
def _source(path: Path) -> str:
    return path.read_text()


def _may_name(path: Path, names: set[str]) -> bool:
    """Whether ``path``'s source holds one of ``names`` as a word: an import of one does
    (a name is written as it is), and a module that holds none need not be parsed (the
    package's parse was most of these tests' CPU)."""
    return (
        re.search(rf"\b(?:{'|'.join(map(re.escape, sorted(names)))})\b", _source(path)) is not None
    )


def test_core_never_imports_a_surface() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)} imports {sorted(_imports(path) & SURFACES)}"
        for top, path in _modules()
        if top not in SURFACES and _may_name(path, SURFACES) and _imports(path) & SURFACES
    ]
    assert not offenders


@pytest.mark.parametrize("layer", ["pure", "foundation"])
def test_lower_layers_never_import_the_core(layer: str) -> None:
    members = PURE if layer == "pure" else FOUNDATIONS
    forbidden = IMPURE | SURFACES | ({"config", "project"} if layer == "foundation" else set())
    offenders = [
        f"{path.relative_to(PACKAGE)} imports {sorted(_imports(path) & forbidden)}"
        for top, path in _modules()
        if top in members and _imports(path) & forbidden
    ]
    assert not offenders


def test_backends_know_nothing_of_the_core() -> None:
    forbidden = {"search", "scoring", "api", "transfer", "reembed", "seeding"} | SURFACES
    forbidden |= set(STORE_PARTS)
    offenders = [
        f"{path.relative_to(PACKAGE)} imports {sorted(_imports(path) & forbidden)}"
        for top, path in _modules()
        if top == "backends" and _imports(path) & forbidden
    ]
    assert not offenders


def test_each_store_part_uses_only_the_parts_below_it() -> None:
    """MemoryStore is a linear chain of parts (issue 15's "smaller rooms"): a part that
    imported a part above it would tie the rooms back together (and a cycle would follow), and
    a class that skipped a part or derived from two would no longer be that chain."""
    from kenning.store import MemoryStore

    parts = list(STORE_PARTS)
    imported_from_above = {
        part: sorted(_imports(PACKAGE / f"{part}.py") & set(parts[i + 1 :]))
        for i, part in enumerate(parts)
    }
    assert {part: above for part, above in imported_from_above.items() if above} == {}
    chain = [(c.__module__, c.__name__, len(c.__bases__)) for c in MemoryStore.__mro__[:-1]]
    assert chain == [(f"kenning.{part}", name, 1) for part, name in reversed(STORE_PARTS.items())]


#: A part of MemoryStore is a room one reads on its own: the whole class was 684 lines when
#: issue 15 asked for smaller rooms, and 1,935 when it was split along its seams.
STORE_PART_MAX_LINES = 900


def test_each_store_part_stays_a_room_one_reads_on_its_own() -> None:
    """Past the bound, split the part along its seams (a new part in the chain), rather than
    raising the bound: methods moved back into one part would pass every other test."""
    sizes = {part: len((PACKAGE / f"{part}.py").read_text().splitlines()) for part in STORE_PARTS}
    assert {part: n for part, n in sizes.items() if n > STORE_PART_MAX_LINES} == {}, sizes


def _attribute_reads(path: Path, attribute: str) -> list[int]:
    tree = _tree(path)
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == attribute
    ]


def test_surfaces_never_reach_into_the_backend() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for top, path in _modules()
        if top in SURFACES
        for line in _attribute_reads(path, "backend")
    ]
    assert not offenders


#: The functions of a surface that redact text themselves, none of it an error message: an
#: installer's diff of a client's config and the words of the user's its uninstall notes
#: quote (a wrapper on kenning's hook command). A memory read into a prompt is redacted by
#: the core (``redact_on_read``, :func:`kenning.store_read.redacted_on_read`).
SURFACE_REDACTIONS = {
    "installers/files.py:diff",
    "installers/claude_code.py:named_only",
}


def _calls_by_function(tree: ast.AST, name: str) -> list[tuple[str, int]]:
    """``(innermost enclosing function, line)`` of every call of ``name`` in ``tree``."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        elif isinstance(node, ast.Call):
            called = node.func
            if (isinstance(called, ast.Name) and called.id == name) or (
                isinstance(called, ast.Attribute) and called.attr == name
            ):
                found.append((function, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "<module>")
    return found


def test_surfaces_show_error_messages_through_renders_one_cut() -> None:
    """An error message that may quote a huge input is made safe and cut in one place,
    render (:func:`~kenning.render.safe_bounded_message`,
    :func:`~kenning.render.safe_message_start`: cut before it is redacted, a secret across
    the cut still whole): no other module writes the cut's marker, and a surface redacts
    nothing itself but what is not a message."""
    marker, redacting = [], {}
    for top, path in _modules():
        source = path.read_text()
        if "characters cut" not in source and "redact_secrets" not in source:
            continue  # parsing every module would be most of the test's cost
        tree, name = _tree(path), path.relative_to(PACKAGE)
        if top != "render":
            marker += [
                f"{name}:{node.lineno}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "characters cut" in node.value
            ]
        if top in SURFACES:
            for function, line in _calls_by_function(tree, "redact_secrets"):
                redacting[f"{name}:{function}"] = line
    assert not marker, f"an error cut outside render: {marker}"
    assert set(redacting) == SURFACE_REDACTIONS, redacting


#: Read in kenning.config only: kenning's own settings, and the one variable of a client
#: kenning depends on (Claude Code's project folder for the servers and hooks it starts).
CONFIG_VARIABLES = ("KENNING_", "CLAUDE_PROJECT_DIR")


def test_only_config_reads_kenning_variables() -> None:
    """Every KENNING_* variable (and CLAUDE_PROJECT_DIR) is read in kenning.config."""
    offenders = []
    for top, path in _modules():
        if top == "config":
            continue
        source = _source(path)
        if not any(prefix in source for prefix in CONFIG_VARIABLES):
            continue  # (a name read is a string the source writes: parsing it finds none)
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.Call):
                continue
            named = [
                a.value
                for a in node.args[:1]
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if not any(n.startswith(CONFIG_VARIABLES) for n in named):
                continue  # (unparsing every call's function was most of the test's CPU)
            func = ast.unparse(node.func)
            reads_env = func.endswith(("environ.get", "getenv", "environ.setdefault"))
            if reads_env:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} reads {named[0]}")
        for prefix in CONFIG_VARIABLES:
            if f'environ["{prefix}' in source or f"environ['{prefix}" in source:
                offenders.append(f"{path.relative_to(PACKAGE)} indexes os.environ for {prefix}")
    assert not offenders


def test_public_api() -> None:
    import kenning

    for name in (
        "open_store",
        "remember",
        "recall",
        "search_memories",
        "MemoryStore",
        "KenningError",
    ):
        assert name in kenning.__all__
        assert hasattr(kenning, name)
    assert sorted(kenning.__all__) == sorted(set(kenning.__all__))


def test_the_public_api_is_typed_and_documented() -> None:
    """A library user's type checker sees kenning's hints (PEP 561's py.typed marker), and
    help() says what every public name does."""
    from importlib.resources import files

    import kenning

    assert (files("kenning") / "py.typed").is_file()
    undocumented = [
        name
        for name in kenning.__all__
        if name != "__version__" and not (getattr(kenning, name).__doc__ or "").strip()
    ]
    assert undocumented == []
