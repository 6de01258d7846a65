"""Every answer to a fixed set of questions, as JSON: proof that a speed change changed no answer.

    python scripts/answer_snapshot.py > before.jsonl           # on the commit before the change
    python scripts/answer_snapshot.py --against before.jsonl   # after it: exits 1 on any difference

The questions are the golden suite's texts on their dates, plus a few hundred varied free-text
questions (every workload word, budgets from $150 to $60,000, currencies, used cards, counts,
dates, follow-ups, named models with a method, comparisons, fits, Russian) asked on one fixed
day, so the run is repeatable.
Each line is one reply as the API encodes it (Markdown and structured answer), with the full Markdown answer
beside it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import date
from pathlib import Path

import msgspec

from rules.advisor import Advisor
from rules.ask import ask
from rules.errors import QuestionError
from rules.knowledge.loaded import load_catalog
from rules.render.markdown import answer_markdown
from rules.understand import parse

TODAY = date(2026, 1, 15)
GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "quality" / "golden.json"
WORDS = ("cv", "rnn", "nlp", "llm", "rl", "kaggle", "learning", "deep learning", "stable diffusion",
         "transformers")
EXTRAS = ("", " used ok", " 2 gpus", " 4 gpus", " in EUR", " as of 2019", " as of 2021-03",
          " server", " beginner", " 10 hours a week", " cheapest", " for inference")
FIXED = ("fit llama 13b fp16", "fit llama 70b 4-bit", "compare 3090 4090",
         "compare rtx 3060 and rtx 4060 ti for nlp",
         "which one gpu runs llama 3 70b at q4 by itself", "help", "hello there",
         "какую видеокарту купить для нейросетей за 50000 рублей", "nlp $800 i have a rtx 3060",
         "llama 13b 4-bit inference $2500", "a server with 8 h100 for llm training",
         "24gb of vram for $1000", "cv $0", "nlp $99999999")
MODELS = ("llama 8b", "llama 13b", "llama 70b", "qwen 7b", "qwen 32b", "mistral 7b", "bert large",
          "gpt2", "resnet 50", "yolov8", "vit large", "t5 3b", "sdxl", "flux")
METHODS = ("inference", "lora", "qlora", "fine-tuning", "training", "4-bit inference", "fp16 inference")
CARDS = ("3090", "4090", "3060", "4060 ti", "a100", "h100", "7900 xtx", "5090", "a6000", "l40s",
         "2080 ti", "1080 ti")
BUDGETS = (150, 300, 500, 800, 1200, 2000, 3500, 6000, 15000, 60000)
MODEL_BUDGETS = (300, 1200, 3500, 15000, 60000)
FOLLOW_UPS = ("cheaper?", "what about 2 of them?", "and for rnn?", "more memory?", "with used cards?")


def questions(count: int) -> list[tuple[str, date, str | None]]:
    """(text, today, previous text or None): the golden texts, the fixed ones, then ``count`` varied ones."""
    golden = json.loads(GOLDEN.read_text())["questions"]
    out = [(q["text"], date.fromisoformat(q["as_of"]), None) for q in golden]
    out += [(text, TODAY, None) for text in FIXED]
    rng = random.Random(16)
    for _ in range(count):
        text = f"{rng.choice(WORDS)} ${rng.choice(BUDGETS) + rng.randint(0, 99)}" + rng.choice(EXTRAS)
        follow = rng.random() < 0.15
        out.append((rng.choice(FOLLOW_UPS) if follow else text, TODAY, text if follow else None))
    # named models with a method, fits and comparisons, as in benchmarks/post_varied.lua
    for _ in range(count // 2):
        shape = rng.random()
        if shape < 0.5:
            model, method = rng.choice(MODELS), rng.choice(METHODS)
            text = f"{model} {method} ${rng.choice(MODEL_BUDGETS) + rng.randint(0, 99)}"
        elif shape < 0.75:
            text = f"fit {rng.choice(MODELS)} {rng.choice(('fp16', '4-bit', '8-bit', 'q4', 'bf16'))}"
        else:
            text = f"compare {rng.choice(CARDS)} {rng.choice(CARDS)} for {rng.choice(WORDS)}"
        out.append((text + rng.choice(EXTRAS), TODAY, None))
    return out


def snapshot(count: int) -> list[str]:
    advisor = Advisor(load_catalog())
    lines = []
    for text, today, previous_text in questions(count):
        previous = parse(previous_text, today=today).question if previous_text else None
        full = None
        try:
            reply = ask(advisor, text, previous=previous, today=today)
            said = json.loads(msgspec.json.encode(reply))
            if reply.recommendation is not None:
                full = answer_markdown(reply.recommendation, "full")
        except QuestionError as error:  # out-of-range values: the error is the answer
            said = {"error": str(error)}
        record = {"text": text, "previous": previous_text, "today": today.isoformat(), "reply": said}
        record["full"] = full
        lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300,
                        help="varied questions besides the golden and fixed ones")
    parser.add_argument("--against", type=Path,
                        help="an earlier run's output: report every answer that differs")
    args = parser.parse_args()
    lines = snapshot(args.count)
    if args.against is None:
        print("\n".join(lines))
        return 0
    before = args.against.read_text().splitlines()
    if len(before) != len(lines):
        print(f"{len(before)} answers before, {len(lines)} now: not the same question set", file=sys.stderr)
        return 1
    differ = [(b, a) for b, a in zip(before, lines, strict=True) if b != a]
    for b, _ in differ[:5]:
        print(f"differs: {json.loads(b)['text']!r}", file=sys.stderr)
    print(f"{len(lines) - len(differ)}/{len(lines)} answers identical", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
