"""The OpenAPI document matches behaviour: Schemathesis runs every check against a real server process.

A short, derandomized run (a few examples per operation, all phases) so it fits in CI;
settings in schemathesis.toml beside this file. Longer runs use the same command with
a larger ``--max-examples``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from service.agents import add_agent
from service.db import migrate
from tests.server_process import running_server

CONFIG = Path(__file__).with_name("schemathesis.toml")
SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
MAX_EXAMPLES = 6
pytestmark = pytest.mark.e2e


def test_every_schemathesis_check_passes_against_a_real_server(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'whichgpu.db'}"
    migrate(url)
    env = {
        **os.environ,
        "WHICHGPU_FUZZ_AGENT_TOKEN": add_agent(url, "fuzz-node"),
        "WHICHGPU_FUZZ_ADMIN_TOKEN": "fuzz-admin-token",
    }
    with running_server(url, tmp_path, WHICHGPU_ADMIN_TOKEN="fuzz-admin-token") as base:
        done = subprocess.run(
            [
                SCHEMATHESIS,
                "--config-file",
                str(CONFIG),
                "run",
                f"{base}/schema/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                str(MAX_EXAMPLES),
                "--seed",
                "20261123",
                "--workers",
                "1",
                "--no-color",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
    selected, total = map(int, re.search(r"Selected: (\d+)/(\d+)", done.stdout).groups())
    tested = int(re.search(r"Tested: (\d+)", done.stdout).group(1))
    # every operation of the document was exercised
    assert tested == selected == total > 10, done.stdout[-2000:]
