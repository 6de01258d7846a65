"""`make run` serves where WHICHGPU_HOST / WHICHGPU_PORT say, as the README promises."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.server_process import ROOT, free_port, service_env

VENV = Path(sys.executable).parent.parent


def _make_run_command() -> list[str]:
    """The recipe of `make run` for this test's virtual environment (the install step taken as done)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(["make", "-s", "-n", "-o", f"{VENV}/bin/.installed", "run", f"VENV={VENV}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=30, check=True)
    printed = done.stdout.strip().splitlines()
    assert len(printed) == 1, printed
    return shlex.split(printed[0])


def test_make_run_pins_no_host_or_port() -> None:
    command = _make_run_command()
    assert command[1:] == ["serve"], command


def test_make_run_listens_on_whichgpu_port(tmp_path: Path) -> None:
    port = free_port()
    env = service_env(f"sqlite:///{tmp_path / 'w.db'}", tmp_path, WHICHGPU_HOST="127.0.0.1",
                      WHICHGPU_PORT=str(port))
    process = subprocess.Popen(_make_run_command(), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read().decode()[-2000:] if process.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        pytest.fail(f"nothing answered on WHICHGPU_PORT={port}")
    finally:
        process.terminate()
        process.wait(timeout=20)
