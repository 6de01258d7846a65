"""Measure a callable on a device: warm-up by time, repeats by time, median with its spread.

The shape follows ``torch.utils.benchmark`` (blocked autorange) and Triton's ``do_bench``:
warm up for a while (this absorbs cuDNN/cuBLAS autotuning and lazy init), estimate the
cost of one call, then time *blocks* of calls long enough for the clock to be exact, and
keep going until both a minimum time and a minimum number of blocks are reached.

On CUDA a block is timed with CUDA events recorded on the current stream, after a
``torch.cuda.synchronize()``; elsewhere with ``time.perf_counter`` around the block and a
device sync (``torch.mps.synchronize`` on Apple GPUs, nothing on the CPU).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FULL",
    "NOISY_CV",
    "QUICK",
    "DeviceClock",
    "Measurement",
    "Stats",
    "TimingPolicy",
    "clock_for",
    "measure",
    "percentile",
    "summarize",
]

NOISY_CV = 0.03
"""A result whose coefficient of variation exceeds this is flagged ``noisy``."""


@dataclass(frozen=True)
class TimingPolicy:
    """How long to warm up and to measure, and how finely."""

    warmup_s: float = 1.0
    run_s: float = 2.0
    min_repeats: int = 10
    max_repeats: int = 200
    block_s: float = 0.002
    """Shortest block of calls timed as one sample (keeps clock and launch overhead small)."""
    max_s: float = 30.0
    """Measuring stops after this long once ``MIN_REPEATS_WHEN_SLOW`` blocks are in, even
    below ``min_repeats`` (a slow or starved device must not stall the sweep)."""


MIN_REPEATS_WHEN_SLOW = 3


QUICK = TimingPolicy(warmup_s=0.25, run_s=0.6, min_repeats=7, max_repeats=100, block_s=0.005, max_s=3.0)
FULL = TimingPolicy()


@dataclass(frozen=True)
class Stats:
    """Summary of per-call times in seconds."""

    median: float
    p10: float
    p90: float
    mean: float
    cv: float
    repeats: int

    @property
    def noisy(self) -> bool:
        return self.cv > NOISY_CV

    def rate(self, work: float) -> dict[str, float]:
        """``work`` per second: the median rate and its p10/p90 (p10 of the rate is work/p90 of time)."""
        return {"value": work / self.median, "p10": work / self.p90, "p90": work / self.p10}


@dataclass(frozen=True)
class Measurement:
    """Per-call times of the measured blocks, how many calls a block held, and the summary."""

    times_s: tuple[float, ...]
    calls_per_block: int
    stats: Stats
    started: float
    finished: float


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0…100) of already sorted values (NumPy's default)."""
    if not sorted_values:
        raise ValueError("no values")
    pos = (len(sorted_values) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(times_s: Sequence[float]) -> Stats:
    """Median, p10, p90, mean and coefficient of variation (sample std / mean) of ``times_s``."""
    values = sorted(float(t) for t in times_s)
    if not values or values[0] <= 0:
        raise ValueError("need at least one positive time")
    mean = statistics.fmean(values)
    cv = statistics.stdev(values) / mean if len(values) > 1 else 0.0
    return Stats(
        median=percentile(values, 50),
        p10=percentile(values, 10),
        p90=percentile(values, 90),
        mean=mean,
        cv=cv,
        repeats=len(values),
    )


class DeviceClock:
    """Times a block of calls on one device; the host clock with an optional device sync."""

    def __init__(self, sync: Callable[[], None] | None = None, now: Callable[[], float] = time.perf_counter):
        self._sync = sync or (lambda: None)
        self.now = now

    def sync(self) -> None:
        self._sync()

    def time_block(self, fn: Callable[[], Any], calls: int) -> float:
        """Seconds for ``calls`` calls of ``fn``, from a synced start to a synced end."""
        self.sync()
        start = self.now()
        for _ in range(calls):
            fn()
        self.sync()
        return self.now() - start


class CudaEventClock(DeviceClock):
    """Times blocks with CUDA events on the current stream (no host-side launch jitter)."""

    def __init__(self, torch: Any, device: Any):
        self._torch = torch
        self._device = device
        super().__init__(sync=lambda: torch.cuda.synchronize(device))

    def time_block(self, fn: Callable[[], Any], calls: int) -> float:
        cuda = self._torch.cuda
        begin, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        self.sync()
        begin.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        return begin.elapsed_time(end) / 1000.0  # ms → s


def clock_for(device: Any) -> DeviceClock:
    """The right clock for a torch device: CUDA events on CUDA/ROCm, host clock + sync elsewhere."""
    import torch

    if device.type == "cuda":
        return CudaEventClock(torch, device)
    if device.type == "mps":
        return DeviceClock(sync=torch.mps.synchronize)
    if device.type == "xpu" and hasattr(torch, "xpu"):
        return DeviceClock(sync=torch.xpu.synchronize)
    return DeviceClock()


def measure(fn: Callable[[], Any], clock: DeviceClock, policy: TimingPolicy) -> Measurement:
    """Warm ``fn`` up for ``policy.warmup_s``, then time blocks for ``policy.run_s``.

    Returns per-call times (block time / calls per block). At least one warm-up call and
    ``policy.min_repeats`` blocks are made (``MIN_REPEATS_WHEN_SLOW`` past ``policy.max_s``),
    at most ``policy.max_repeats``.
    """
    started = clock.now()
    # Warm-up by time; the last calls' cost estimates one call (autotuning is over by then).
    warm_calls, estimate = 0, 0.0
    while True:
        estimate = clock.time_block(fn, 1)
        warm_calls += 1
        if clock.now() - started >= policy.warmup_s:
            break
    calls = max(1, math.ceil(policy.block_s / max(estimate, 1e-9)))
    if calls > 1:  # one call's estimate carries sync overhead: re-estimate from a block
        estimate = clock.time_block(fn, calls) / calls
        calls = max(1, math.ceil(policy.block_s / max(estimate, 1e-9)))
    times: list[float] = []
    run_start = clock.now()
    while len(times) < policy.max_repeats:
        times.append(clock.time_block(fn, calls) / calls)
        elapsed = clock.now() - run_start
        if len(times) >= policy.min_repeats and elapsed >= policy.run_s:
            break
        if len(times) >= MIN_REPEATS_WHEN_SLOW and elapsed >= policy.max_s:
            break
    return Measurement(tuple(times), calls, summarize(times), started, clock.now())
