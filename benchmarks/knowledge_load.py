"""Loading the engine's knowledge, as a terminal question starts: a cold start (validate, build, write the
snapshot), a warm start (one snapshot file read) and the snapshot's decode alone.

Run by hand:  .venv/bin/python benchmarks/knowledge_load.py [--runs 10]
Each start is a fresh Python process; "load" is the time from importing rules.knowledge to holding the
knowledge, "process" the whole process's wall time (interpreter start included). Medians with their range;
a range wider than half the median is flagged, as a busy machine makes it.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = ("import time; start = time.perf_counter(); from rules.knowledge import load_knowledge; "
         "load_knowledge(); print(time.perf_counter() - start)")


def start(cache: Path) -> tuple[float, float]:
    """(load seconds, process seconds) of one fresh process using ``cache``."""
    env = {**os.environ, "WHICHGPU_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout), time.perf_counter() - began


def line(name: str, samples: list[float]) -> str:
    median, low, high = statistics.median(samples), min(samples), max(samples)
    spread = " (spread over half the median: a busy machine?)" if high - low > median / 2 else ""
    return f"{name:28} median {median * 1000:8.1f} ms, range {low * 1000:.1f}-{high * 1000:.1f} ms{spread}"


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cold = [start(Path(tmp) / f"cold-{i}") for i in range(runs)]
        warm_cache = Path(tmp) / "warm"
        start(warm_cache)  # writes the snapshot; the warm starts read it
        warm = [start(warm_cache) for _ in range(runs + 1)][1:]
        (snapshot,) = warm_cache.glob("knowledge-*.pickle")
        blob = snapshot.read_bytes()
    from rules.knowledge import store  # the classes the snapshot names, imported once before timing

    payload = blob[blob.index(b"\n", blob.index(b"\n") + 1) + 1:]
    payload = payload[payload.index(b"\n") + 1:]
    decode = []
    for _ in range(runs):
        began = time.perf_counter()
        knowledge = pickle.loads(payload)
        decode.append(time.perf_counter() - began)
    assert isinstance(knowledge, store.Knowledge)
    print(f"snapshot: {len(blob) / 1e6:.2f} MB, {len(knowledge.catalog.gpus)} GPUs, "
          f"{len(knowledge.catalog.offers)} offers, {len(knowledge.rulebook.rules)} rules; {runs} runs each")
    print(line("cold start: load", [c[0] for c in cold]))
    print(line("cold start: process", [c[1] for c in cold]))
    print(line("warm start: load", [w[0] for w in warm]))
    print(line("warm start: process", [w[1] for w in warm]))
    print(line("snapshot decode (in process)", decode))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    main(parser.parse_args().runs)
