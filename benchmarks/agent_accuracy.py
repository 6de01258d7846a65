"""How close the bench agent's fp32 matmul figure is to torch.utils.benchmark on the same shape.

Usage: python benchmarks/agent_accuracy.py [--n 1024] [--pairs 7] [--threads N] [--device cpu]

Measures side by side (agent, then reference, ``--pairs`` times) and prints both medians
and the median of the per-pair ratios; the test ``tests/bench_agent/test_agent_accuracy.py``
asserts the ratio is within 15% of 1.
"""

from __future__ import annotations

import argparse
import statistics

import torch
from torch.utils.benchmark import Timer

from bench_agent.device import resolve_device
from bench_agent.suite import SuiteConfig, plan, run_case
from bench_agent.timing import TimingPolicy


def reference_tflops(device: torch.device, n: int, min_run_time: float) -> float:
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    out = torch.empty(n, n, device=device)
    sync = "torch.cuda.synchronize()" if device.type == "cuda" else ""
    timer = Timer(f"torch.matmul(a, b, out=out); {sync}", num_threads=torch.get_num_threads(),
                  globals={"torch": torch, "a": a, "b": b, "out": out})
    timer.timeit(3)
    return 2 * n**3 / timer.blocked_autorange(min_run_time=min_run_time).median / 1e12


def agent_tflops(device: torch.device, n: int, run_s: float) -> float:
    policy = TimingPolicy(warmup_s=0.2, run_s=run_s, min_repeats=5)
    config = SuiteConfig(quick=True, policy=policy, benchmarks=("matmul",), matmul_n=n)
    case = next(c for c in plan(device, config) if c.precision == "fp32")
    result = run_case(device, case, config)
    if result["error"]:
        raise SystemExit(result["error"])
    return result["value"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    pairs = [(agent_tflops(device, args.n, args.seconds), reference_tflops(device, args.n, args.seconds))
             for _ in range(args.pairs)]
    ratio = statistics.median(a / r for a, r in pairs)
    print(f"device {device}, threads {torch.get_num_threads()}, fp32 matmul {args.n}^3, {args.pairs} pairs")
    print(f"  agent                 {statistics.median(a for a, _ in pairs):.4f} TFLOP/s (median)")
    print(f"  torch.utils.benchmark {statistics.median(r for _, r in pairs):.4f} TFLOP/s (median)")
    print(f"  median per-pair ratio {ratio:.3f}")


if __name__ == "__main__":
    main()
