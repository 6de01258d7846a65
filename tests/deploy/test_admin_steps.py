"""An admin's steps that used to go quietly wrong: `bench-agent status` without the daemon's env file, the
knowledge cache rebuilt on every start, and a database password copied from the example."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from deploy_files import DEPLOY, ROOT, SYSTEMD, compose, env_file_keys, unit_options

README = (DEPLOY / "README.md").read_text()
BIN = Path(sys.executable).parent


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHICHGPU_", "SLACK_"))}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def test_the_guides_agent_status_reads_the_daemons_env_file(tmp_path: Path) -> None:
    found = re.findall(r"sudo (sh -c '[^'\n]*/opt/whichgpu/bin/bench-agent status')", README)
    assert found, "deploy/README.md runs `bench-agent status` without the agent's env file"
    line = (
        found[0]
        .replace("/etc/whichgpu/bench-agent.env", str(SYSTEMD / "bench-agent.env.example"))
        .replace("/var/lib/bench-agent", str(tmp_path))
        .replace("/opt/whichgpu/bin/", f"{BIN}/")
    )
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=_clean_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "service https://whichgpu.example.org" in done.stdout, (
        done.stdout
    )  # the daemon's URL, not the default
    assert f"data in {tmp_path}" in done.stdout


def test_the_service_unit_keeps_its_knowledge_cache_where_systemd_keeps_it(tmp_path: Path) -> None:
    opts = unit_options(SYSTEMD / "whichgpu.service")["Service"]
    cache = opts["CacheDirectory"][-1]
    assert f"WHICHGPU_CACHE_DIR=%C/{cache}" in opts["Environment"]
    done = subprocess.run(
        [str(BIN / "whichgpu"), "catalog", "--format", "json"],
        capture_output=True,
        env=_clean_env(WHICHGPU_CACHE_DIR=str(tmp_path / "cache"), WHICHGPU_DATA_DIR=str(tmp_path)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "cache").iterdir()), "WHICHGPU_CACHE_DIR is where the built knowledge is kept"


def test_the_compose_example_has_no_password_to_copy() -> None:
    example = (DEPLOY / ".env.example").read_text()
    assert "POSTGRES_PASSWORD" in env_file_keys(DEPLOY / ".env.example")
    assert re.search(r"^POSTGRES_PASSWORD=$", example, re.M), "the example must not offer a password"
    postgres = compose()["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"]
    assert postgres.startswith("${POSTGRES_PASSWORD:?"), "compose must refuse an empty password"


def test_serve_refuses_the_examples_placeholder_password(tmp_path: Path) -> None:
    systemd_url = re.search(
        r"^WHICHGPU_DATABASE_URL=(\S+)$", (SYSTEMD / "whichgpu.env.example").read_text(), re.M
    ).group(1)
    for url in (systemd_url, "postgresql://whichgpu:change-me@postgres:5432/whichgpu"):
        done = subprocess.run(
            [str(BIN / "whichgpu"), "serve", "--port", "0"],
            capture_output=True,
            text=True,
            env=_clean_env(WHICHGPU_DATABASE_URL=url, WHICHGPU_DATA_DIR=str(tmp_path)),
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert "placeholder password" in done.stderr and "Traceback" not in done.stderr
