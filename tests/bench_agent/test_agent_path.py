"""A lab admin's path with the agent: one command installs it with the right torch, a run says when the
service stores it without using it for advice, and the daemon will not start without a token."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from bench_agent.cli import advice_exclusions, install_hint
from tests.server_process import ROOT, running_server

SCRIPT = Path(sys.executable).with_name("bench-agent")
TINY = ["--warmup", "0.01", "--seconds", "0.03", "--matmul-n", "128", "--stream-mb", "1", "--tier", "tiny"]


def agent(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=180
    )


def test_a_quick_cpu_run_reaches_the_service_and_says_it_is_not_used_for_advice(tmp_path: Path) -> None:
    from service.agents import add_agent
    from service.db import migrate

    database = f"sqlite:///{tmp_path / 'service.db'}"
    migrate(database)
    token = add_agent(database, "lab-dev")
    with running_server(database, tmp_path / "service") as url:
        env = {
            "WHICHGPU_DATA_DIR": str(tmp_path / "agent"),
            "WHICHGPU_API_URL": url,
            "WHICHGPU_AGENT_TOKEN": token,
        }
        done = agent("run", "--once", "--quick", "--device", "cpu", "--no-progress", *TINY, env=env)
    assert done.returncode == 0, done.stderr
    assert re.search(r"run \w+ delivered to http://127\.0\.0\.1:\d+", done.stderr), done.stderr
    said = next(line for line in done.stderr.splitlines() if "not used for advice" in line)
    assert "--quick" in said and "CPU" in said and "Traceback" not in done.stderr


def test_only_a_full_gpu_run_is_said_to_count() -> None:
    assert advice_exclusions({"quick": False, "device": {"type": "cuda", "name": "RTX 4090"}}) == []
    assert len(advice_exclusions({"quick": True, "device": {"type": "cuda"}})) == 1
    assert len(advice_exclusions({"quick": False, "device": {"type": "cpu"}})) == 1


def test_the_daemon_refuses_to_start_without_a_token(tmp_path: Path) -> None:
    env = {
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_AGENT_TOKEN": "",
        "WHICHGPU_API_URL": "http://127.0.0.1:9",
    }
    done = agent(
        "daemon", "--devices", "cpu", "--max-rounds", "1", "--interval", "0", "--force", *TINY, env=env
    )
    assert done.returncode == 2 and "WHICHGPU_AGENT_TOKEN" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "spool").exists() or not list((tmp_path / "spool").glob("*.json"))


def test_without_torch_a_checkout_is_told_the_make_target(tmp_path: Path) -> None:
    probe = (
        "import sys; sys.modules['torch'] = None; from bench_agent.cli import main; "
        "sys.exit(main(['run', '--once', '--device', 'cpu', '--no-send']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "WHICHGPU_DATA_DIR": str(tmp_path)},
    )
    assert done.returncode == 1, done.stderr
    assert f"make -C {ROOT} install-agent" in done.stderr and install_hint() in done.stderr


def test_install_agent_takes_torch_only_from_pytorchs_index() -> None:
    def recipe(*extra: str) -> list[str]:
        done = subprocess.run(
            ["make", "-s", "-n", "-o", ".venv/bin/.installed", "install-agent", *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout.strip().splitlines()

    torch, extra = recipe()
    assert torch.endswith("pip install -q torch --index-url https://download.pytorch.org/whl/cpu")
    assert "--extra-index-url" not in torch and extra.endswith("pip install -q -e '.[agent]'")
    cuda, _ = recipe("TORCH_INDEX=https://download.pytorch.org/whl/cu124")
    assert cuda.endswith("--index-url https://download.pytorch.org/whl/cu124")
