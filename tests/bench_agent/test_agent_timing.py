"""Statistics and the measuring loop, on synthetic timings and a fake clock."""

from __future__ import annotations

import math
import statistics

import pytest

from bench_agent.timing import NOISY_CV, DeviceClock, TimingPolicy, measure, percentile, summarize


def test_summary_of_known_times() -> None:
    times = [float(t) for t in range(1, 11)]  # 1 … 10 s
    stats = summarize(times)
    assert stats.median == pytest.approx(5.5)
    assert stats.p10 == pytest.approx(1.9)  # NumPy's linear interpolation: 1 + 0.9 * (2 - 1)
    assert stats.p90 == pytest.approx(9.1)
    assert stats.repeats == 10
    assert stats.cv == pytest.approx(statistics.stdev(times) / 5.5)


def test_percentile_matches_numpy_linear_method() -> None:
    values = sorted([0.3, 0.1, 0.7, 0.2])
    assert percentile(values, 0) == 0.1
    assert percentile(values, 100) == 0.7
    assert percentile(values, 50) == pytest.approx(0.25)


def test_steady_timings_are_not_noisy_and_spread_ones_are() -> None:
    steady = summarize([1.00, 1.01, 0.99, 1.00, 1.005, 0.995])
    spread = summarize([1.0, 1.2, 0.8, 1.1, 0.9, 1.0])
    assert steady.cv < NOISY_CV and not steady.noisy
    assert spread.cv > NOISY_CV and spread.noisy


def test_rate_turns_time_percentiles_around() -> None:
    stats = summarize([1.0, 2.0, 4.0])
    rate = stats.rate(8.0)
    assert rate["value"] == pytest.approx(8.0 / stats.median)
    assert rate["p10"] == pytest.approx(8.0 / stats.p90)  # slow calls give the low rate
    assert rate["p90"] == pytest.approx(8.0 / stats.p10)
    assert rate["p10"] <= rate["value"] <= rate["p90"]


@pytest.mark.parametrize("bad", [[], [0.0, 1.0], [-1.0]])
def test_summary_refuses_empty_or_non_positive(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        summarize(bad)


class FakeClock(DeviceClock):
    """Each call of the measured function advances time by a fixed cost; syncs are counted."""

    def __init__(self, cost_s: float):
        self.t = 0.0
        self.syncs = 0
        self.cost_s = cost_s
        super().__init__(sync=self._sync_count, now=lambda: self.t)

    def _sync_count(self) -> None:
        self.syncs += 1


def test_measure_warms_up_by_time_and_repeats_until_time_and_count() -> None:
    clock = FakeClock(cost_s=0.001)
    calls = {"n": 0}

    def fn() -> None:
        calls["n"] += 1
        clock.t += clock.cost_s

    policy = TimingPolicy(warmup_s=0.05, run_s=0.2, min_repeats=5, max_repeats=1000, block_s=0.01)
    m = measure(fn, clock, policy)
    assert m.calls_per_block == 10  # blocks of >= 10 ms at 1 ms a call
    assert m.stats.median == pytest.approx(0.001)
    assert m.stats.cv == pytest.approx(0.0, abs=1e-9)
    assert len(m.times_s) >= 5 and sum(t * m.calls_per_block for t in m.times_s) >= 0.2
    assert calls["n"] >= 50 + 200 - 1  # warm-up (>= 50 ms) and measuring (>= 200 ms)
    assert clock.syncs >= 2 * len(m.times_s)  # synced before and after every block


def test_measure_gives_up_on_min_repeats_after_max_s() -> None:
    clock = FakeClock(cost_s=2.0)

    def fn() -> None:
        clock.t += clock.cost_s

    policy = TimingPolicy(warmup_s=0.0, run_s=1.0, min_repeats=10, max_repeats=100, block_s=0.001, max_s=5.0)
    m = measure(fn, clock, policy)
    assert len(m.times_s) == 3  # 3 blocks of 2 s pass max_s; the 10 asked for would take 20 s


def test_measure_stops_at_max_repeats_for_slow_functions() -> None:
    clock = FakeClock(cost_s=1.0)

    def fn() -> None:
        clock.t += clock.cost_s

    policy = TimingPolicy(warmup_s=0.0, run_s=1e9, min_repeats=1, max_repeats=4, block_s=0.001, max_s=1e9)
    m = measure(fn, clock, policy)
    assert len(m.times_s) == 4 and m.calls_per_block == 1
    assert math.isclose(m.stats.median, 1.0)


def test_cuda_clock_times_blocks_with_events_after_a_sync() -> None:
    """The CUDA path, against a stand-in for torch.cuda: sync, record, run, record, wait, elapsed."""
    from types import SimpleNamespace

    from bench_agent.timing import CudaEventClock

    log: list[str] = []

    class Event:
        def __init__(self, enable_timing: bool = False):
            assert enable_timing
            self.name = "begin" if not any(e.startswith("new") for e in log) else "end"
            log.append(f"new {self.name}")

        def record(self) -> None:
            log.append(f"record {self.name}")

        def synchronize(self) -> None:
            log.append(f"wait {self.name}")

        def elapsed_time(self, other: Event) -> float:
            return 40.0  # milliseconds

    cuda = SimpleNamespace(Event=Event, synchronize=lambda device=None: log.append("sync"))
    fake_torch = SimpleNamespace(cuda=cuda)
    clock = CudaEventClock(fake_torch, device="cuda:0")
    seconds = clock.time_block(lambda: log.append("call"), 4)
    assert seconds == pytest.approx(0.040)
    assert log[log.index("sync"):] == ["sync", "record begin", *["call"] * 4, "record end", "wait end"]
