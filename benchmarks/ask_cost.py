"""What one varied `/v1/ask` costs the engine, without HTTP: CPU per answer by kind of question,
or instructions.

Run by hand:
    .venv/bin/python benchmarks/ask_cost.py              # CPU per ask, best of 5 batches, by kind
    .venv/bin/python benchmarks/ask_cost.py --callgrind  # instructions per ask (needs valgrind; ~5 min)

The questions vary as benchmarks/post_varied.lua's do (the HTTP load test): a workload word and a budget
(55 %), a named model with a method and a budget (25 %), a fit (10 %), two cards compared (10 %), now and then
a currency, used cards, a card count, a setting, hours, an owned card or a past date. They are answered the
way the server answers them (service.snapshot.Snapshot.asked: parse, recommend, Markdown, JSON), after
3,000 other questions have warmed the per-date tables and memos, as on a server that has answered a while.
CPU time moves with the machine's other work; instructions do not, so compare commits by ``--callgrind``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

WORDS = ["cv", "rnn", "nlp", "llm", "rl", "kaggle", "learning", "deep learning", "stable diffusion",
         "transformers", "computer vision", "image classification", "speech recognition",
         "reinforcement learning"]
MODELS = ["llama 8b", "llama 13b", "llama 70b", "qwen 7b", "qwen 32b", "mistral 7b", "bert large", "gpt2",
          "resnet 50", "yolov8", "vit large", "t5 3b", "sdxl", "flux"]
METHODS = ["inference", "lora", "qlora", "fine-tuning", "training", "4-bit inference", "fp16 inference"]
EXTRAS = ["", "", "", "", " used ok", " 2 gpus", " 4 gpus", " in EUR", " in GBP", " as of 2019",
          " as of 2021-03", " as of 2023-06", " server", " beginner", " 10 hours a week", " cheapest",
          " for inference", " i have a rtx 3060", " desktop", " 8 gpus"]
CARDS = ["3090", "4090", "3060", "4060 ti", "a100", "h100", "7900 xtx", "5090", "a6000", "l40s", "2080 ti",
         "1080 ti"]
PRECISIONS = ["fp16", "4-bit", "8-bit", "q4", "bf16"]
TODAY = date(2026, 11, 23)  # fixed, so that runs on different days ask the same questions of the same market


def varied(count: int, seed: int) -> list[tuple[str, str]]:
    """(kind, text) for ``count`` questions shaped like post_varied.lua's."""
    rng = random.Random(seed)
    pick = rng.choice

    def budget() -> int:
        scale = pick([150, 300, 500, 800, 1200, 2000, 3500, 6000, 15000, 60000])
        return scale + rng.randint(0, scale // 4)

    asks = []
    for _ in range(count):
        shape = rng.randint(1, 100)
        if shape <= 55:
            asks.append(("word", f"{pick(WORDS)} ${budget()}{pick(EXTRAS)}"))
        elif shape <= 80:
            asks.append(("model", f"{pick(MODELS)} {pick(METHODS)} ${budget()}{pick(EXTRAS)}"))
        elif shape <= 90:
            asks.append(("fit", f"fit {pick(MODELS)} {pick(PRECISIONS)}{pick(EXTRAS)}"))
        else:
            asks.append(("compare", f"compare {pick(CARDS)} {pick(CARDS)} for {pick(WORDS)}{pick(EXTRAS)}"))
    return asks


def _snapshot():
    from rules.advisor import Advisor
    from rules.knowledge.loaded import load_catalog, load_rulebook
    from service.snapshot import Snapshot

    catalog, rulebook = load_catalog(), load_rulebook()
    snapshot = Snapshot(catalog, rulebook, Advisor(catalog, rulebook=rulebook), "benchmark")
    for _, text in varied(3000, seed=7000):
        snapshot.asked(text, None, TODAY)
    return snapshot


def cpu(batches: int = 5, size: int = 1500) -> None:
    """CPU per ask, best of ``batches`` batches of new questions, overall and by kind."""
    snapshot = _snapshot()
    best: dict[str, float] = {}
    for batch in range(batches):
        spent: dict[str, list[float]] = {}
        for kind, text in varied(size, seed=1000 + batch):
            start = time.process_time()
            snapshot.asked(text, None, TODAY)
            spent.setdefault(kind, []).append(time.process_time() - start)
        spent["all"] = [s for kind in list(spent) for s in spent[kind]]
        for kind, samples in spent.items():
            best[kind] = min(best.get(kind, float("inf")), statistics.fmean(samples) * 1000)
    print(f"CPU per ask, best of {batches} batches of {size} new questions (after 3,000 others):")
    for kind in ("all", "word", "model", "fit", "compare"):
        print(f"  {kind:8} {best[kind]:.3f} ms")


def _answer_under_callgrind(count: int) -> None:
    snapshot = _snapshot()
    for _, text in varied(count, seed=1000):
        snapshot.asked(text, None, TODAY)


def callgrind(count: int = 500) -> None:
    """Instructions per ask: a run answering ``count`` questions after the warm-up, less one that does not."""
    totals = []
    with tempfile.TemporaryDirectory() as scratch:
        for asked in (0, count):
            out = Path(scratch) / f"callgrind.{asked}"
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                       sys.executable, __file__, "--answer", str(asked)]
            env = {**os.environ, "PYTHONHASHSEED": "0"}
            subprocess.run(command, check=True, capture_output=True, env=env)
            summary = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
            assert summary, "callgrind wrote no summary"
            totals.append(int(summary.group(1)))
    per_ask = (totals[1] - totals[0]) / count / 1e6
    print(f"{per_ask:.2f} million instructions per ask ({count} asks after 3,000 others)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions under valgrind instead of timing")
    parser.add_argument("--answer", type=int, help=argparse.SUPPRESS)  # the process callgrind runs
    args = parser.parse_args()
    if args.answer is not None:
        _answer_under_callgrind(args.answer)
    elif args.callgrind:
        callgrind()
    else:
        cpu()


if __name__ == "__main__":
    main()
