"""Wall-clock time of one terminal question, start to exit, as a user sees it.

Run by hand:  .venv/bin/python benchmarks/cli_latency.py [--runs 20] [--tty] [-- ask "nlp $800"]
It runs the installed ``whichgpu`` script (beside this Python) N times after one warm-up
run (which fills the OS file cache and the catalog's start-up cache) and prints the
median and p90 wall time. ``--tty`` gives the command a pseudo-terminal, so the answer is
rendered as on screen; without it the output is piped, as in a script.
``hyperfine 'whichgpu ask "nlp \\$800"'`` (Debian package ``hyperfine``) measures the same.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_COMMAND = ["ask", "nlp $800"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_once(command: list[str], tty: bool) -> tuple[float, float]:
    """(wall, CPU) seconds from spawn to exit; the output goes to a pseudo-terminal or a pipe and is drained.
    CPU time is what the command costs whatever else the machine runs; wall time is what the user waits."""
    cpu = _children_cpu()
    if tty:
        import pty

        leader, follower = pty.openpty()
        start = time.perf_counter()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
        os.close(follower)
        while True:  # drain, or the child blocks on a full terminal buffer
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:  # the child closed its side
                break
        code = process.wait()
        os.close(leader)
    else:
        start = time.perf_counter()
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        code = done.returncode
    elapsed = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"{' '.join(command)} exited with {code}")
    return elapsed, _children_cpu() - cpu


def measure(args: list[str], runs: int, tty: bool) -> dict:
    """The record ``{name, environ, metrics}`` of ``runs`` timed runs after one warm-up."""
    command = [str(Path(sys.executable).with_name("whichgpu")), *args]
    _run_once(command, tty)
    timed = [_run_once(command, tty) for _ in range(runs)]
    samples = sorted(wall for wall, _ in timed)
    median = statistics.median(samples)
    spread = (samples[-1] - samples[0]) / median if median else 0.0
    return {
        "name": "whichgpu " + " ".join(args) + (" (terminal)" if tty else " (piped)"),
        "environ": {"python": platform.python_version(), "machine": platform.machine(),
                    "cpus": os.cpu_count(),
                    "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None},
        "metrics": {"runs": runs, "median_s": round(median, 4),
                    "p90_s": round(samples[int(0.9 * (runs - 1))], 4),
                    "min_s": round(samples[0], 4), "max_s": round(samples[-1], 4), "spread": round(spread, 2),
                    "cpu_median_s": round(statistics.median(cpu for _, cpu in timed), 4)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tty", action="store_true", help="run under a pseudo-terminal (rendered answer)")
    parser.add_argument("--json", action="store_true", help="print the record as JSON")
    parser.add_argument("command", nargs="*", default=DEFAULT_COMMAND,
                        help='whichgpu arguments (default: ask "nlp $800")')
    options = parser.parse_args(argv)
    record = measure(options.command or DEFAULT_COMMAND, options.runs, options.tty)
    if options.json:
        print(json.dumps(record, indent=2))
        return
    m = record["metrics"]
    print(f"{record['name']}: median {m['median_s'] * 1000:.0f} ms, p90 {m['p90_s'] * 1000:.0f} ms "
          f"(min {m['min_s'] * 1000:.0f}, max {m['max_s'] * 1000:.0f}), "
          f"CPU median {m['cpu_median_s'] * 1000:.0f} ms over {m['runs']} runs, "
          f"load average {record['environ']['load_average']:.1f}", flush=True)
    if m["spread"] > 0.5:
        print("warning: the runs spread by more than 50 % of the median; the machine is busy, measure again",
              file=sys.stderr)


if __name__ == "__main__":
    main()
