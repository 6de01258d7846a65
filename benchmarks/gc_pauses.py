"""Garbage-collector pauses while the free-text memo fills: what a long-running server pays for its caches.

Run by hand:  .venv/bin/python benchmarks/gc_pauses.py [--asks 15000]

Builds the service's snapshot on a fresh SQLite database, sets the collector up as
`whichgpu serve` does (collect, freeze, young threshold 20,000), then asks ``--asks``
different short questions through the snapshot's memo (4,096 entries) and times every
collection in CPU time (thread time, so other programs on the machine do not inflate it).
A memo that keeps answer object graphs makes every older-generation collection walk them;
one that keeps encoded bytes leaves the collector little to do. It also counts the objects
one answer leaves in reference cycles: refcounting cannot free those, only a collection can,
so every one of them is work for the collector (0 is the goal).
"""

from __future__ import annotations

import argparse
import gc
import random
import tempfile
import time
from datetime import date

from service.db import migrate
from service.snapshot import SnapshotHolder

WORDS = ("cv", "rnn", "nlp", "llm", "rl", "kaggle", "learning")


def cyclic_garbage_per_answer(snapshot, rng: random.Random, today: date, answers: int = 20) -> float:
    """Objects that answering leaves in reference cycles, per answer (the memo is bypassed)."""
    gc.collect()
    gc.disable()
    try:
        for _ in range(answers):
            snapshot._asked(f"{rng.choice(WORDS)} ${rng.randint(300, 6000)}", None, today)
        return gc.collect() / answers
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--asks", type=int, default=15_000)
    args = parser.parse_args()
    url = f"sqlite:///{tempfile.mkdtemp()}/whichgpu.db"
    migrate(url)
    snapshot = SnapshotHolder(url).get()
    gc.collect()
    gc.freeze()  # as `whichgpu serve` does after start
    gc.set_threshold(20_000, 20, 20)
    pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
    started = [0.0]

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            pauses[info["generation"]].append((time.thread_time() - started[0]) * 1000)

    gc.callbacks.append(timed)
    rng = random.Random(2)
    today = date.today()
    cpu = time.process_time()
    for _ in range(args.asks):
        snapshot.asked(f"{rng.choice(WORDS)} ${rng.randint(300, 6000)}", None, today)
    cpu = time.process_time() - cpu
    gc.callbacks.remove(timed)
    total = sum(sum(p) for p in pauses.values())
    print(f"{args.asks} different questions, {cpu / args.asks * 1000:.2f} ms CPU each; "
          "collections in CPU ms:")
    for generation, times in pauses.items():
        if times:
            print(f"  generation {generation}: {len(times):4d} collections, max {max(times):6.1f} ms, "
                  f"total {sum(times):7.1f} ms")
    print(f"  all: {total:.0f} ms, {100 * total / 1000 / cpu:.1f} % of the CPU time")
    cyclic = cyclic_garbage_per_answer(snapshot, rng, today)
    print(f"objects one answer leaves in reference cycles: {cyclic:.0f}")


if __name__ == "__main__":
    main()
