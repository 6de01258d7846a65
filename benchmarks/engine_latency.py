"""One recommendation, configurations of 1-8 cards included, over the full catalog:
median and p90 latency on one core.

Run by hand:  .venv/bin/python benchmarks/engine_latency.py
(taskset -c 0 pins it to one core when available). The numbers go in the README.
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import date

from rules.advisor import Advisor
from rules.contract.question import Question
from rules.knowledge.loaded import load_catalog

QUESTIONS = [
    Question(workload="transformer", budget=800),
    Question(workload="cnn", budget=3000, gpus=2, used_ok=True, hours_per_week=10),
    Question(workload="llm", model="llama-13b", precision="4-bit", budget=2500),
    Question(workload="rnn", budget=900, currency="EUR", as_of=date(2019, 4, 3)),
    Question(workload="transformer", budget=100000, gpus=8),
    Question(workload="llm", model="llama-70b", precision="4-bit", task="inference",
             compare=("rtx 3090", "rtx 4090")),
    Question(workload="llm", budget=1500, owned_gpu="rtx 3060"),
    Question(workload="kaggle", experience="beginner"),
]


def main(rounds: int = 2000) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    advisor = Advisor(load_catalog())
    for question in QUESTIONS:  # warm the per-snapshot caches, as a running service has them
        advisor.recommend(question)
    for question in QUESTIONS:
        samples, cpu = [], []
        for _ in range(rounds // len(QUESTIONS)):
            start, start_cpu = time.perf_counter(), time.process_time()
            advisor.recommend(question)
            cpu.append((time.process_time() - start_cpu) * 1000)
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        cpu.sort()
        # CPU time too: on a busy machine the wall clock also counts time spent waiting for a core
        wall_p90, cpu_p90 = samples[int(len(samples) * 0.9)], cpu[int(len(cpu) * 0.9)]
        print(f"{question.workload:12} budget {question.budget or 0:>6g} {question.currency} "
              f"× {question.gpus}: median {statistics.median(samples):.3f} ms, p90 {wall_p90:.3f} ms wall; "
              f"CPU median {statistics.median(cpu):.3f} ms, p90 {cpu_p90:.3f} ms over {len(samples)} runs, "
              f"{len(advisor.catalog.gpus)} cards")

if __name__ == "__main__":
    main()
