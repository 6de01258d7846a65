"""The README is what a new user follows: its commands, settings and CI entry stay true."""

from __future__ import annotations

import re
from pathlib import Path

from service.settings import settings_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_settings_table_matches_the_settings():
    block = README.split("<!-- settings-table", 1)[1].split("<!-- /settings-table -->", 1)[0]
    rows = re.findall(r"^\| `([A-Z_]+)` \| (.+?) \| (.+?) \|$", block, re.M)
    documented = {env: (default.strip("`") if default != "—" else "", doc) for env, default, doc in rows}
    assert documented == {env: (default, doc) for env, default, doc in settings_table()}


def test_ci_runs_the_readme_test_command():
    assert "make test" in README and "make run" in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make test$", ci, re.M)


def test_make_targets_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "constraints.txt" in makefile and "torch==2.13.0" in (ROOT / "constraints.txt").read_text()
