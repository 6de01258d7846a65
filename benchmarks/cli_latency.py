"""Wall-clock time of one terminal question, start to exit, as a user sees it.

Run by hand:  .venv/bin/python benchmarks/cli_latency.py [--runs 20] [--tty] [-- ask "nlp $800"]
Against a peer: .venv/bin/python benchmarks/cli_latency.py --peer [--llmfit PATH] [--runs 15]
It runs the installed ``whichgpu`` script (beside this Python) N times after one warm-up
run (which fills the OS file cache and the catalog's start-up cache) and prints the
median and p90 wall time. ``--tty`` gives the command a pseudo-terminal, so the answer is
rendered as on screen; without it the output is piped, as in a script.
``hyperfine 'whichgpu ask "nlp \\$800"'`` (Debian package ``hyperfine``) measures the same.
``--peer`` times, in one hyperfine run, llmfit's ``plan`` for Llama 3.1 70B at Q4_K_M (a compiled tool that
answers the same fit question), ``whichgpu ask 'fit llama 70b 4-bit' --json`` and ``whichgpu --help``, with
``python -c pass`` as the floor; it compiles the bytecode first (with PYTHONDONTWRITEBYTECODE set, as on some
machines, every run would otherwise recompile every module).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
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


PEER_QUESTION = "fit llama 70b 4-bit"
LLMFIT_PLAN = "plan meta-llama/Llama-3.1-70B --context 4096 --quant Q4_K_M --json"
LLMFIT_PLACES = ("/tmp/llmfit-venv/bin/llmfit",)


def _llmfit(explicit: str | None) -> str | None:
    """The llmfit executable: the one given, on PATH, or where it is usually installed for this comparison."""
    found = explicit or shutil.which("llmfit")
    return found or next((p for p in LLMFIT_PLACES if os.access(p, os.X_OK)), None)


def peer_commands(llmfit: str | None) -> dict[str, str]:
    """Name -> shell-free command line of each command the peer comparison times."""
    here = Path(sys.executable)
    commands = {"python -c pass": f"{here} -c pass"}
    if llmfit:
        commands["llmfit plan"] = f"{llmfit} {LLMFIT_PLAN}"
    commands["whichgpu ask (fit)"] = f"{here.with_name('whichgpu')} ask '{PEER_QUESTION}' --json"
    commands["whichgpu --help"] = f"{here.with_name('whichgpu')} --help"
    return commands


def compare_with_peer(runs: int, llmfit: str | None) -> dict[str, dict[str, float]]:
    """Name -> {mean_s, stddev_s, median_s} from one hyperfine run of :func:`peer_commands`."""
    hyperfine = shutil.which("hyperfine")
    if hyperfine is None:
        raise SystemExit("--peer needs hyperfine (Debian package hyperfine)")
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", "rules", "service", "bot", "bench_agent"],
                   cwd=root, check=True)
    commands = peer_commands(llmfit)
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "hyperfine.json"
        subprocess.run([hyperfine, "-N", "-w", "2", "-r", str(runs), "--export-json", str(export),
                        *commands.values()], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        results = json.loads(export.read_text())["results"]
    return {name: {"mean_s": r["mean"], "stddev_s": r["stddev"], "median_s": r["median"]}
            for name, r in zip(commands, results, strict=True)}


def _print_peer(figures: dict[str, dict[str, float]]) -> None:
    for name, f in figures.items():
        print(f"{name:20} mean {f['mean_s'] * 1000:6.1f} ms ± {f['stddev_s'] * 1000:4.1f}, "
              f"median {f['median_s'] * 1000:6.1f} ms")
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs, Python {platform.python_version()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tty", action="store_true", help="run under a pseudo-terminal (rendered answer)")
    parser.add_argument("--json", action="store_true", help="print the record as JSON")
    parser.add_argument("--peer", action="store_true",
                        help="hyperfine: llmfit plan, whichgpu ask (fit) and whichgpu --help in one run")
    parser.add_argument("--llmfit", help="the llmfit executable (default: on PATH or /tmp/llmfit-venv)")
    parser.add_argument("command", nargs="*", default=DEFAULT_COMMAND,
                        help='whichgpu arguments (default: ask "nlp $800")')
    options = parser.parse_args(argv)
    if options.peer:
        figures = compare_with_peer(options.runs, _llmfit(options.llmfit))
        if options.json:
            print(json.dumps(figures, indent=2))
        else:
            _print_peer(figures)
        return
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
