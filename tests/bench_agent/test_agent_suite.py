"""The benchmark sweep on the CPU at toy sizes: every benchmark, a schema-valid payload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from bench_agent import suite
from bench_agent.agent import benchmark_device
from bench_agent.device import resolve_device
from bench_agent.schema import load_schema, payload_errors
from bench_agent.suite import BENCHMARKS, Interrupted, SuiteConfig, plan, run_suite

CPU = torch.device("cpu")


def matmul_only(tiny_config: SuiteConfig) -> SuiteConfig:
    return SuiteConfig(policy=tiny_config.policy, benchmarks=("matmul",), matmul_n=64)


def test_tiny_cpu_run_is_a_schema_valid_payload_with_every_benchmark(tiny_config: SuiteConfig,
                                                                     tmp_path: Path) -> None:
    payload = benchmark_device(CPU, tiny_config, nvml=None, idle_threshold_pct=100.0, lock_dir=tmp_path)
    assert payload_errors(payload) == []
    assert {r["benchmark"] for r in payload["results"]} == set(BENCHMARKS)
    for r in payload["results"]:
        assert r["error"] is None, r
        assert r["value"] > 0 and r["p10"] <= r["value"] <= r["p90"]
        assert r["check"]["ok"], r
    assert len({(r["benchmark"], r["precision"]) for r in payload["results"]}) == len(payload["results"])
    assert payload["device"]["type"] == "cpu" and payload["environ"]["torch"] == torch.__version__
    assert len(json.dumps(payload)) < 65536  # the service's default body limit


def test_schema_refuses_a_result_without_figures_or_with_a_wrong_unit(tiny_config: SuiteConfig,
                                                                      tmp_path: Path) -> None:
    payload = benchmark_device(CPU, matmul_only(tiny_config), nvml=None, idle_threshold_pct=100.0,
                               lock_dir=tmp_path)
    broken = json.loads(json.dumps(payload))
    broken["results"][0]["value"] = None
    assert any("value" in f"{e['field']}: {e['message']}" for e in payload_errors(broken))
    broken = json.loads(json.dumps(payload))
    broken["results"][0]["unit"] = "GB/s"
    assert payload_errors(broken)
    assert load_schema()["$schema"].endswith("2020-12/schema")


def test_a_failing_case_is_recorded_and_the_sweep_goes_on(tiny_config: SuiteConfig,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("CUDA out of memory (simulated)")

    monkeypatch.setitem(suite.PREPARE, "copy", broken)
    results = run_suite(CPU, tiny_config)
    copy = next(r for r in results if r["benchmark"] == "copy")
    assert copy["error"] == "RuntimeError: CUDA out of memory (simulated)"
    assert copy["value"] is None
    assert all(r["error"] is None for r in results if r["benchmark"] != "copy")


def test_precision_flags_are_set_recorded_and_restored(tiny_config: SuiteConfig) -> None:
    before = torch.backends.cudnn.benchmark
    results = run_suite(CPU, matmul_only(tiny_config))
    settings = results[0]["settings"]
    threads = torch.get_num_threads()
    assert settings == {"tf32": False, "cudnn_benchmark": False, "threads": threads, "dtype": "float32"}
    assert torch.backends.cudnn.benchmark == before


def test_cpu_plan_sizes_bandwidth_arrays_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bench_agent.device.last_level_cache_bytes", lambda: 32 * 1024**2)
    cases = plan(CPU, SuiteConfig(quick=True))
    copy = next(c for c in cases if c.benchmark == "copy")
    assert copy.params["elements"] * 4 >= 4 * 32 * 1024**2
    assert [c.precision for c in cases if c.benchmark == "matmul"] == ["fp32"]  # --quick: no CPU bf16


def test_stop_request_interrupts_between_cases(tiny_config: SuiteConfig) -> None:
    seen: list[str] = []
    with pytest.raises(Interrupted):
        run_suite(CPU, tiny_config, on_case=lambda i, n, c: seen.append(c.label if c else "end"),
                  should_stop=lambda: len(seen) >= 2)
    assert len(seen) == 2


def test_unknown_device_is_a_clear_error() -> None:
    from bench_agent.device import DeviceError

    with pytest.raises(DeviceError, match="not a torch device"):
        resolve_device("gpu7")
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="no CUDA"):
            resolve_device("cuda:0")


def test_cpu_bf16_runs_where_the_cpu_has_it_and_not_in_quick(monkeypatch: pytest.MonkeyPatch,
                                                            tiny_config: SuiteConfig) -> None:
    monkeypatch.setattr(suite, "cpu_has_fast_bf16", lambda: True)
    benchmarks = ("matmul", "cnn_train", "transformer_train")
    full = SuiteConfig(policy=tiny_config.policy, tier="tiny", matmul_n=128, benchmarks=benchmarks)
    results = run_suite(CPU, full)
    assert [(r["benchmark"], r["precision"]) for r in results] == [
        (benchmark, precision) for benchmark in benchmarks for precision in ("fp32", "bf16")
    ]
    for r in results:
        assert r["error"] is None and r["check"]["ok"], r
    assert results[1]["settings"]["dtype"] == "bfloat16" and results[3]["params"]["autocast"] == "bfloat16"
    assert all(c.precision == "fp32" for c in plan(CPU, SuiteConfig(quick=True, tier="tiny", matmul_n=64)))


def test_llm_decode_reports_tokens_per_second_and_the_bandwidth_it_reached(tiny_config: SuiteConfig) -> None:
    llm = SuiteConfig(policy=tiny_config.policy, tier="cpu_quick", benchmarks=("llm_decode", "llm_prompt"))
    results = run_suite(CPU, llm)
    decode = next(r for r in results if r["benchmark"] == "llm_decode")
    prompt = next(r for r in results if r["benchmark"] == "llm_prompt")
    assert decode["error"] is None and prompt["error"] is None, (decode, prompt)
    assert decode["unit"] == prompt["unit"] == "tokens/s" and decode["check"]["ok"]
    params = decode["params"]["parameters"]
    # weights (less the embedding table, of which one row is read) and the KV cache, at 4 bytes in fp32
    # and 2 in bf16 (a CPU with fast bf16, AMX or AVX-512 BF16, runs the model in bf16 too)
    element = {"fp32": 4, "bf16": 2, "fp16": 2}[decode["precision"]]
    assert decode["params"]["bytes_per_token"] > element * (params - 4000 * 256)
    bytes_per_token = decode["params"]["bytes_per_token"]
    assert decode["achieved_gb_s"] == pytest.approx(decode["value"] * bytes_per_token / 1e9)
    assert prompt["value"] > decode["value"]  # a prompt's tokens share each weight read
