"""Warm rendering time of each chart the service draws (the cache bypassed): median of N with its spread.

Run by hand:  .venv/bin/python benchmarks/chart_render.py [--rounds 20] [--json]
Each case times what a cache miss costs a request: the advisor's rows plus drawing
and encoding. CPU time is shown beside wall time: on a busy machine it is the steadier figure.
Target: under 200 ms per chart. The numbers go in the README.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

import matplotlib

from rules.advisor import Advisor
from rules.ask import ask
from rules.knowledge.loaded import load_catalog
from service.charts import bar_chart, render_question
from service.web import question_chart_points

TARGET_MS = 200.0
AS_OF = date(2023, 6, 1)
QUESTION = "nlp $800 as of 2023-06-01"


def cases(advisor: Advisor) -> dict[str, Callable[[], bytes]]:
    def question(fmt: str) -> Callable[[], bytes]:
        def draw() -> bytes:
            reply = ask(advisor, QUESTION, today=AS_OF)
            return render_question(reply.recommendation, question_chart_points(advisor, reply), QUESTION, fmt,
                                   reference_name=advisor.reference.name)
        return draw

    found: dict[str, Callable[[], bytes]] = {}
    for kind in ("perf-per-dollar", "relative-performance"):
        for fmt in ("svg", "png"):
            found[f"{kind}.{fmt}"] = partial(bar_chart, advisor, kind, "transformer", AS_OF, fmt)
    found["question.svg"], found["question.png"] = question("svg"), question("png")
    return found


def measure(draw: Callable[[], bytes], rounds: int, warmup: int = 3) -> dict[str, Any]:
    for _ in range(warmup):
        draw()
    gc.collect()
    gc.freeze()  # as `whichgpu serve` does after start-up
    samples, cpu = [], []
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.thread_time()
        size = len(draw())
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
    samples.sort()
    median = statistics.median(samples)
    p10, p90 = samples[int(len(samples) * 0.1)], samples[min(len(samples) - 1, int(len(samples) * 0.9))]
    return {"median_ms": round(median, 1), "cpu_median_ms": round(statistics.median(cpu), 1),
            "p10_ms": round(p10, 1), "p90_ms": round(p90, 1), "rounds": rounds, "bytes": size,
            "spread": round((p90 - p10) / median, 3), "under_target": median < TARGET_MS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the records as JSON")
    args = parser.parse_args(argv)
    advisor = Advisor(load_catalog())
    environ = {"python": platform.python_version(), "matplotlib": matplotlib.__version__,
               "machine": platform.machine(), "cards": len(advisor.catalog.gpus)}
    records = []
    for name, draw in cases(advisor).items():
        try:
            records.append({"name": name, "environ": environ, "metrics": measure(draw, args.rounds)})
        except Exception as exc:  # a failing case is recorded with its error; the sweep goes on
            records.append({"name": name, "environ": environ, "error": f"{type(exc).__name__}: {exc}"})
    if args.json:
        print(json.dumps(records, indent=2))
    else:
        for record in records:
            if "error" in record:
                print(f"{record['name']:28} ERROR {record['error']}")
                continue
            m = record["metrics"]
            note = "  (spread over 20%: rerun on a quiet machine)" if m["spread"] > 0.2 else ""
            verdict = "ok" if m["under_target"] else "OVER"
            print(f"{record['name']:28} median {m['median_ms']:7.1f} ms  p10 {m['p10_ms']:7.1f}  "
                  f"p90 {m['p90_ms']:7.1f}  cpu {m['cpu_median_ms']:6.1f} ms  {m['bytes'] / 1024:5.0f} KiB  "
                  f"{verdict} (target {TARGET_MS:.0f} ms){note}")
    failed = [r for r in records if "error" in r or not r["metrics"]["under_target"]]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
