"""Fixtures of the bench agent's tests: tiny suite settings, a fake pynvml, an agent data dir."""

from __future__ import annotations

import socket
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bench_agent.suite import SuiteConfig
from bench_agent.timing import TimingPolicy

TINY_POLICY = TimingPolicy(warmup_s=0.01, run_s=0.03, min_repeats=3, max_repeats=50, block_s=0.001)


@pytest.fixture
def tiny_config() -> SuiteConfig:
    """Every benchmark at toy sizes and a few milliseconds of timing each."""
    return SuiteConfig(quick=True, policy=TINY_POLICY, tier="tiny", matmul_n=128, stream_bytes=1024**2)


@pytest.fixture
def unused_port() -> int:
    """A localhost port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def agent_env(tmp_path: Path, unused_port: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for an agent whose data dir is private and whose service is down."""
    env = {
        "WHICHGPU_DATA_DIR": str(tmp_path / "data"),
        "WHICHGPU_API_URL": f"http://127.0.0.1:{unused_port}",
        "WHICHGPU_AGENT_TOKEN": "test-token",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("WHICHGPU_AGENT_CONFIG", raising=False)
    return env


# --- a fake pynvml, injected at the module boundary ----------------------------------------


class NVMLError(Exception):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


@dataclass
class FakeGpu:
    uuid: str = "GPU-00000000-1111-2222-3333-444444444444"
    name: str = "NVIDIA Fake 100"
    sm_clock: int = 1980
    mem_clock: int = 2619
    temperature: int = 55
    power_mw: int = 300_000
    limit_mw: int = 350_000
    utilization: int = 0
    throttle_mask: int = 0
    processes: list[Any] = field(default_factory=list)


def make_fake_pynvml(gpus: list[FakeGpu]) -> types.ModuleType:
    """A module with the pynvml functions the agent calls, reading the given fake GPUs."""
    mod = types.ModuleType("pynvml")
    mod.NVMLError = NVMLError
    mod.NVML_CLOCK_SM, mod.NVML_CLOCK_MEM, mod.NVML_TEMPERATURE_GPU = 1, 2, 0
    mod.calls = []
    mod.nvmlInit = lambda: mod.calls.append("init")
    mod.nvmlShutdown = lambda: mod.calls.append("shutdown")
    mod.nvmlSystemGetDriverVersion = lambda: "550.54.15"
    mod.nvmlDeviceGetCount = lambda: len(gpus)
    mod.nvmlDeviceGetHandleByIndex = lambda i: gpus[i]

    def by_uuid(uuid: str) -> FakeGpu:
        for gpu in gpus:
            if gpu.uuid == uuid:
                return gpu
        raise NVMLError("not found")

    mod.nvmlDeviceGetHandleByUUID = by_uuid
    mod.nvmlDeviceGetUUID = lambda h: h.uuid
    mod.nvmlDeviceGetName = lambda h: h.name
    mod.nvmlDeviceGetClockInfo = lambda h, kind: h.sm_clock if kind == 1 else h.mem_clock
    mod.nvmlDeviceGetTemperature = lambda h, kind: h.temperature
    mod.nvmlDeviceGetPowerUsage = lambda h: h.power_mw
    mod.nvmlDeviceGetEnforcedPowerManagementLimit = lambda h: h.limit_mw
    mod.nvmlDeviceGetUtilizationRates = lambda h: types.SimpleNamespace(gpu=h.utilization, memory=0)
    mod.nvmlDeviceGetCurrentClocksThrottleReasons = lambda h: h.throttle_mask
    mod.nvmlDeviceGetComputeRunningProcesses = lambda h: list(h.processes)

    def graphics(h: FakeGpu) -> list[Any]:
        raise NVMLError_NotSupported("graphics processes not supported")

    mod.nvmlDeviceGetGraphicsRunningProcesses = graphics
    return mod


@pytest.fixture
def fake_gpu() -> FakeGpu:
    return FakeGpu()


@pytest.fixture
def fake_pynvml(fake_gpu: FakeGpu, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """``import pynvml`` yields the fake for the duration of the test."""
    module = make_fake_pynvml([fake_gpu])
    monkeypatch.setitem(sys.modules, "pynvml", module)
    return module
