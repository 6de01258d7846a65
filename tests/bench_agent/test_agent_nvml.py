"""NVML telemetry with a fake pynvml: throttled and contended flags, the idle check."""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest
import torch

from bench_agent import agent
from bench_agent.agent import NotIdle, benchmark_device, probe_device
from bench_agent.nvml import Nvml, TelemetrySampler, open_nvml
from bench_agent.suite import SuiteConfig, plan, run_case

FAKE_CUDA = types.SimpleNamespace(type="cuda", index=0)


def test_without_pynvml_there_is_no_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    assert open_nvml() is None


def test_sample_reads_clocks_power_and_throttle_reasons(fake_pynvml: types.ModuleType, fake_gpu: Any) -> None:
    nvml = open_nvml()
    assert nvml is not None and fake_pynvml.calls == ["init"]
    fake_gpu.throttle_mask = 0x4 | 0x40  # SW power cap + HW thermal slowdown
    sample = nvml.sample(nvml.handle(fake_gpu.uuid))
    assert sample["sm_clock_mhz"] == 1980 and sample["temperature_c"] == 55
    assert sample["power_w"] == 300.0 and sample["power_limit_w"] == 350.0
    assert sample["throttle_reasons"] == ["sw_power_cap", "hw_thermal_slowdown"]
    assert nvml.driver_version() == "550.54.15"


def test_unsupported_queries_are_missing_figures_not_failures(fake_pynvml: types.ModuleType,
                                                              fake_gpu: Any) -> None:
    def unsupported(*args: Any) -> None:
        raise fake_pynvml.NVMLError("Not Supported")

    fake_pynvml.nvmlDeviceGetPowerUsage = unsupported
    nvml = Nvml(fake_pynvml)
    assert nvml.sample(fake_gpu)["power_w"] is None
    assert nvml.processes(fake_gpu) == []  # graphics query raises NotSupported in the fake


def test_throttling_during_a_case_flags_the_result(fake_pynvml: types.ModuleType, fake_gpu: Any,
                                                   tiny_config: SuiteConfig) -> None:
    fake_gpu.throttle_mask = 0x20  # SW thermal slowdown
    config = SuiteConfig(policy=tiny_config.policy, benchmarks=("matmul",), matmul_n=64)
    case = plan(torch.device("cpu"), config)[0]
    with TelemetrySampler(Nvml(fake_pynvml), fake_gpu, interval_s=0.005) as sampler:
        time.sleep(0.02)
        result = run_case(torch.device("cpu"), case, tiny_config, sampler)
    assert "throttled" in result["flags"]
    telemetry = result["telemetry"]
    assert telemetry["throttle_reasons"] == ["sw_thermal_slowdown"] and telemetry["samples"] >= 1


def test_power_cap_idle_reasons_alone_are_not_throttling(fake_pynvml: types.ModuleType,
                                                         fake_gpu: Any) -> None:
    fake_gpu.throttle_mask = 0x1  # GPU idle
    with TelemetrySampler(Nvml(fake_pynvml), fake_gpu, interval_s=0.005) as sampler:
        time.sleep(0.02)
    summary = sampler.summary()
    assert summary["throttle_reasons"] == ["gpu_idle"] and summary["throttled"] is False


def test_other_processes_make_the_gpu_busy(fake_pynvml: types.ModuleType, fake_gpu: Any) -> None:
    nvml = Nvml(fake_pynvml)
    assert probe_device(FAKE_CUDA, nvml, fake_gpu, threshold_pct=10).idle
    fake_gpu.processes = [types.SimpleNamespace(pid=4242, usedGpuMemory=2 * 1024**3)]
    probe = probe_device(FAKE_CUDA, nvml, fake_gpu, threshold_pct=10)
    assert not probe.idle and "4242" in probe.reason
    assert probe.processes == [{"pid": 4242, "used_memory_mb": 2048}]


def test_own_process_does_not_count(fake_pynvml: types.ModuleType, fake_gpu: Any) -> None:
    import os

    fake_gpu.processes = [types.SimpleNamespace(pid=os.getpid(), usedGpuMemory=None)]
    assert probe_device(FAKE_CUDA, Nvml(fake_pynvml), fake_gpu, threshold_pct=10).idle


def test_utilisation_over_the_threshold_is_busy(fake_pynvml: types.ModuleType, fake_gpu: Any) -> None:
    fake_gpu.utilization = 35
    probe = probe_device(FAKE_CUDA, Nvml(fake_pynvml), fake_gpu, threshold_pct=10)
    assert not probe.idle and "35%" in probe.reason
    assert probe_device(FAKE_CUDA, Nvml(fake_pynvml), fake_gpu, threshold_pct=50).idle


def test_load_at_start_flags_the_run_contended(monkeypatch: pytest.MonkeyPatch, tiny_config: SuiteConfig,
                                               tmp_path: Path) -> None:
    monkeypatch.setattr(agent, "cpu_busy_percent", lambda window_s=0.3: 80.0)
    config = SuiteConfig(policy=tiny_config.policy, benchmarks=("matmul",), matmul_n=64)
    payload = benchmark_device(torch.device("cpu"), config, nvml=None, idle_threshold_pct=10,
                               lock_dir=tmp_path)
    assert "contended" in payload["flags"] and all("contended" in r["flags"] for r in payload["results"])
    with pytest.raises(NotIdle, match="80%"):
        benchmark_device(torch.device("cpu"), config, nvml=None, idle_threshold_pct=10, lock_dir=tmp_path,
                         require_idle=True)
