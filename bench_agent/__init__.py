"""whichgpu bench agent: PyTorch reference benchmarks on lab GPU hosts, reported to the service.

Modules, one concept each:

- :mod:`bench_agent.timing` — measure a callable: warm-up and repeats by time, device sync, stats.
- :mod:`bench_agent.suite` — the benchmarks (matmul, memory bandwidth, three training steps).
- :mod:`bench_agent.device` — what was measured on: device, host and software record.
- :mod:`bench_agent.nvml` — NVIDIA telemetry, other processes, the idle check (pynvml optional).
- :mod:`bench_agent.spool` — complete payloads on disk until the service accepts them.
- :mod:`bench_agent.report` — the HTTP client that delivers spooled payloads.
- :mod:`bench_agent.schema` — the JSON Schema of a payload.
- :mod:`bench_agent.agent` — one run and the daemon loop (locks, idle check, delivery).
- :mod:`bench_agent.cli` — the ``bench-agent`` command.

Importing the package is cheap: torch is imported only when a benchmark runs.
"""

from ._version import __version__

__all__ = ["__version__"]
