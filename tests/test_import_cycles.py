"""The engine's modules read one way: no module of ``rules`` imports, even inside a function or only for
the type checker, a module that imports it back (through any chain)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_names(package: Path) -> dict[str, Path]:
    """Dotted name -> file of every module of the package (a package by its ``__init__``)."""
    names = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports; ``from pkg import sub`` names the submodule."""
    modules = module_names(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                subs = {f"{node.module}.{alias.name}" for alias in node.names}
                targets = (subs & modules.keys()) | ({node.module} if subs - modules.keys() else set())
            else:
                continue
            graph[name] |= {target for target in targets if target in modules and target != name}
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (Tarjan's strongly connected components of two or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while (member := stack.pop()) != module:
                group.append(member)
            if group:
                found.append(sorted([*group, module]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_engine_has_no_import_cycle() -> None:
    found = cycles(import_graph(ROOT / "rules"))
    assert not found, "modules that import each other:\n" + "\n".join(", ".join(group) for group in found)


def test_the_check_sees_a_cycle_through_a_lazy_and_a_typing_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def f():\n    from pkg.high import g\n")
    (package / "high.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import low\n"
    )
    (package / "apart.py").write_text("from pkg import low\n")
    assert cycles(import_graph(package)) == [["pkg.high", "pkg.low"]]
