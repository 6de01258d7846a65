"""deploy/README.md says what the code does: its settings table, its links, its TODO markers."""

from __future__ import annotations

import importlib.util
import re

from deploy_files import DEPLOY, ROOT


def _settings_table_module():
    spec = importlib.util.spec_from_file_location("settings_table", DEPLOY / "settings_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_settings_table_matches_the_settings() -> None:
    gen = _settings_table_module()
    table = gen.readme_table((DEPLOY / "README.md").read_text())
    assert table == gen.render(), "deploy/README.md is stale: run `python deploy/settings_table.py --write`"


def test_every_setting_has_a_row() -> None:
    from service.settings import settings_table

    table = _settings_table_module().readme_table((DEPLOY / "README.md").read_text())
    for env, _default, _doc in settings_table():
        assert f"| `{env}` |" in table


def test_every_deploy_file_is_described_and_local_links_point_somewhere() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for path in DEPLOY.rglob("*"):
        itself = path.name in ("README.md", ".gitignore", "settings_table.py") or "__pycache__" in path.parts
        if path.is_file() and not itself:
            assert path.name in readme, f"deploy/README.md does not mention {path.relative_to(DEPLOY)}"
    for target in re.findall(r"\]\(([^)#:]+)\)", readme):
        assert (DEPLOY / target).resolve().exists(), f"broken link {target}"


def test_the_scaling_section_carries_measured_numbers() -> None:
    """No placeholder is left; the throughput figures are there."""
    scaling = (DEPLOY / "README.md").read_text().split("## Scaling", 1)[1]
    assert not re.findall(r"<(?:measured|derived):[^>]*>|SCALING-NUMBER", scaling)
    assert re.search(r"[\d,]+ req/s", scaling) and re.search(r"[\d,]+ runs/s", scaling)


def test_no_tracked_deploy_file_names_a_local_path() -> None:
    local = [f"/{name}/" for name in ("work", "farm")]  # spelled so that this file holds neither
    for path in [*DEPLOY.rglob("*"), ROOT / ".dockerignore"]:
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not [p for p in local if p in text], path
