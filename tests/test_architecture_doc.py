"""docs/architecture.md stays true to the tree: every file or folder it names exists, and the README
points to it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "architecture.md"
PATH = re.compile(r"`(\w[\w.-]*/[\w./-]*|[\w-]+\.(?:py|json|md|j2))`")


def named_paths(text: str) -> list[str]:
    return sorted({m.group(1) for m in PATH.finditer(text)})


def test_every_path_the_guide_names_exists() -> None:
    named = named_paths(GUIDE.read_text(encoding="utf-8"))
    assert len(named) > 40, "the guide should name the files of each step"
    missing = [p for p in named if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_the_check_sees_a_missing_path() -> None:
    assert named_paths("see `rules/nope.py` and `service/api/` and `x`") == ["rules/nope.py", "service/api/"]
    assert not (ROOT / "rules/nope.py").exists()


def test_the_readme_points_to_the_guide() -> None:
    assert "docs/architecture.md" in (ROOT / "README.md").read_text(encoding="utf-8")
