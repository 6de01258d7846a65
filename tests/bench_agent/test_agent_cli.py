"""The ``bench-agent`` command as users run it: a subprocess, its stdout, stderr and exit code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench_agent.agent import device_lock
from bench_agent.schema import payload_errors
from bench_agent.suite import BENCHMARKS

SCRIPT = Path(sys.executable).with_name("bench-agent")
AGENT = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "bench_agent.cli"]
TINY = ["--warmup", "0.01", "--seconds", "0.03", "--matmul-n", "128", "--stream-mb", "1", "--tier", "tiny"]


def bench_agent(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGENT, *args], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=timeout)


def test_run_once_quick_on_cpu_prints_a_valid_payload(agent_env: dict[str, str]) -> None:
    proc = bench_agent("run", "--once", "--quick", "--device", "cpu", "--json", *TINY, env=agent_env)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload_errors(payload) == []
    assert {r["benchmark"] for r in payload["results"]} == set(BENCHMARKS)
    assert payload["quick"] is True
    # The service is down: the run waits in the spool, and the user is told so.
    spooled = Path(agent_env["WHICHGPU_DATA_DIR"]) / "spool" / f"{payload['run_id']}.json"
    assert json.loads(spooled.read_text()) == payload
    assert "kept in" in proc.stderr and "Traceback" not in proc.stderr
    status = bench_agent("status", "--json", env=agent_env)
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["spool"]["pending"] == 1 and report["service"]["reachable"] is False
    assert report["last_runs"][-1]["run_id"] == payload["run_id"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--bogus"], "unrecognized arguments: --bogus"),
        (["run", "--seconds", "soon"], "not a number"),
        (["launch"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_flags_exit_2_with_usage_and_no_traceback(agent_env: dict[str, str], args: list[str],
                                                      message: str) -> None:
    proc = bench_agent(*args, env=agent_env)
    assert proc.returncode == 2
    assert message in proc.stderr and "usage:" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--device", "tpu9"], "not a torch device"),
        (["run", "--only", "matmul,fft"], "unknown benchmark"),
        (["--config", "/nonexistent/agent.toml", "status"], "cannot read config file"),
    ],
)
def test_bad_values_are_one_clear_line(agent_env: dict[str, str], args: list[str], message: str) -> None:
    proc = bench_agent(*args, env=agent_env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("bench-agent: error:") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_setting_in_the_environment_is_a_clear_error(agent_env: dict[str, str]) -> None:
    proc = bench_agent("status", env={**agent_env, "WHICHGPU_AGENT_INTERVAL": "hourly"})
    assert proc.returncode == 2
    assert "WHICHGPU_AGENT_INTERVAL" in proc.stderr and "Traceback" not in proc.stderr


def test_config_file_sets_what_the_environment_does_not(agent_env: dict[str, str], tmp_path: Path) -> None:
    config = tmp_path / "agent.toml"
    config.write_text('[agent]\napi_url = "http://127.0.0.1:1"\nagent_token = "from-file"\n')
    env = {k: v for k, v in agent_env.items() if k != "WHICHGPU_API_URL"}
    env["WHICHGPU_AGENT_CONFIG"] = str(config)
    inherited = {k: v for k, v in os.environ.items() if k != "WHICHGPU_API_URL"}
    proc = subprocess.run([*AGENT, "status", "--json"], env={**inherited, **env}, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["service"]["url"] == "http://127.0.0.1:1"
    config.write_text('[agent]\napi_urll = "x"\n')
    bad = bench_agent("--config", str(config), "status", env=agent_env)
    assert bad.returncode == 2 and "unknown setting 'api_urll'" in bad.stderr


def test_a_locked_device_is_refused_with_exit_75(agent_env: dict[str, str], tmp_path: Path) -> None:
    with device_lock(tmp_path / "locks", "cpu"):
        proc = bench_agent("run", "--once", "--device", "cpu", "--lock-dir", str(tmp_path / "locks"), *TINY,
                           env=agent_env)
    assert proc.returncode == 75
    assert "being benchmarked by pid" in proc.stderr and "Traceback" not in proc.stderr


def test_daemon_runs_max_rounds_and_spools(agent_env: dict[str, str]) -> None:
    proc = bench_agent("daemon", "--devices", "cpu", "--max-rounds", "1", "--interval", "0", "--force",
                       "--quick", *TINY, env=agent_env)
    assert proc.returncode == 0, proc.stderr
    spool = Path(agent_env["WHICHGPU_DATA_DIR"]) / "spool"
    (payload_file,) = [p for p in spool.glob("*.json") if not p.name.endswith(".state.json")]
    assert payload_errors(json.loads(payload_file.read_text())) == []
    assert "stopped after 1 round" in proc.stderr
    assert "runs with --quick or cpu are stored but never used for advice" in proc.stderr


def test_daemon_skips_a_busy_device(agent_env: dict[str, str]) -> None:
    # Idle means "other processes' use under the threshold": at 0% nothing is ever idle.
    proc = bench_agent("daemon", "--devices", "cpu", "--max-rounds", "1", "--interval", "0",
                       "--idle-threshold", "0", *TINY, env=agent_env)
    assert proc.returncode == 0, proc.stderr
    assert "skipped this round" in proc.stderr
    assert not list((Path(agent_env["WHICHGPU_DATA_DIR"]) / "spool").glob("*.json"))


def test_sigterm_stops_the_daemon_cleanly(agent_env: dict[str, str]) -> None:
    env = {**os.environ, **agent_env}
    proc = subprocess.Popen([*AGENT, "daemon", "--devices", "cpu", "--interval", "3600", "--force", *TINY],
                            env=env, stderr=subprocess.PIPE, text=True)
    spool = Path(agent_env["WHICHGPU_DATA_DIR"]) / "spool"
    deadline = time.monotonic() + 90
    while not list(spool.glob("*.state.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)  # the first round is done once delivery was attempted
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert "stopped after 1 round" in stderr and "Traceback" not in stderr


def test_sigterm_during_a_run_leaves_no_half_result(agent_env: dict[str, str]) -> None:
    env = {**os.environ, **agent_env}
    slow = ["--warmup", "0.2", "--seconds", "1", "--matmul-n", "128", "--stream-mb", "1", "--tier", "tiny"]
    proc = subprocess.Popen([*AGENT, "daemon", "--devices", "cpu", "--interval", "3600", "--force", *slow],
                            env=env, stderr=subprocess.PIPE, text=True)
    time.sleep(4)  # torch imported, some cases measured, the run (about 8 s of timing) not over
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    spool = Path(agent_env["WHICHGPU_DATA_DIR"]) / "spool"
    files = list(spool.rglob("*")) if spool.exists() else []
    assert not [f for f in files if f.name.startswith(".tmp-")]
    for f in files:  # whatever is there is a whole, valid run
        if f.is_file() and not f.name.endswith(".state.json"):
            assert payload_errors(json.loads(f.read_text())) == []
    assert "run interrupted, nothing spooled" in stderr
    assert not [f for f in files if f.is_file()]
