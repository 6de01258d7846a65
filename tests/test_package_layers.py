"""The packages form layers: ``rules`` at the bottom, ``bot`` and ``bench_agent`` beside each other above it,
``service`` on top. A module that imports a package above its own (even inside a function) fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What each package must not import.
FORBIDDEN = {
    "rules": {"service", "bot", "bench_agent"},
    "bot": {"service", "bench_agent"},
    "bench_agent": {"service", "bot"},
}


def imported_packages(path: Path) -> set[tuple[int, str]]:
    """(line, top-level package) of every absolute import in one file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {(node.lineno, alias.name.split(".")[0]) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.lineno, node.module.split(".")[0]))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_package_imports_one_above_it(package: str):
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for path in sorted((ROOT / package).rglob("*.py"))
             for line, name in sorted(imported_packages(path)) if name in FORBIDDEN[package]]
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path):
    module = tmp_path / "lazy.py"
    module.write_text("def f():\n    from service.settings import Settings\n    import bot.app\n")
    assert imported_packages(module) == {(2, "service"), (3, "bot")}
