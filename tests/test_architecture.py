"""Architecture boundaries: the core never imports a surface."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "kenning"
SURFACES = {"cli", "mcp_server", "hooks", "installers"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                names.add(module.split(".")[0] if module else "")
                names.update(a.name for a in node.names if not module)
            elif module.startswith("kenning."):
                names.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("kenning."))
    return names


def test_core_never_imports_a_surface() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        top = rel.parts[0].removesuffix(".py")
        if top in SURFACES or top == "__main__":
            continue
        bad = _imports(path) & SURFACES
        if bad:
            offenders.append(f"{rel} imports {sorted(bad)}")
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
