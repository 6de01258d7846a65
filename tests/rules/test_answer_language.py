"""A Russian question gets Russian lines: findings, warnings, each pick's rules, the memory need and its
assumptions, the summary and suggestions. Names (cards, models, providers, cited works), numbers and units
pass through unchanged; any other Latin-script word left in a line is English prose the catalogue missed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from rules.ask import ask
from rules.contract.question import Question
from rules.knowledge.loaded import load_models, load_rulebook
from tests.wire import wire

TODAY = date(2026, 11, 22)
SEED_DATE = date(2019, 4, 3)

# Technical words an answer in any language writes as they are: stacks, formats, units, libraries.
TERMS = {
    "bit",
    "pcie",  # the bus, and a processor line, named as they are sold
    "threadripper",
    "fp32",
    "fp16",
    "bf16",
    "fp8",
    "int8",
    "lora",
    "qlora",
    "nf4",
    "adamw",
    "adam",
    "pytorch",
    "rocm",
    "hip",
    "oneapi",
    "cuda",
    "colab",
    "kaggle",
    "llama.cpp",
    "ollama",
    "vllm",
    "tensorrt",
    "llm",
    "geforce",
    "radeon",
    "founders",
    "edition",
    "mxfp4",
    "tflop",
    "gib",
    "xla",
    "zero",
    "fsdp",
    "xpu",
    "gpu",
    "tpu",
    "nvidia",
}
PRODUCTS = {"Cloud TPU", "Founders Edition"}

QUESTIONS = [  # as a Russian speaker types them
    "какую видеокарту купить для нейросетей за 50000 рублей",
    "обучение lora для sdxl",
    "запустить llama 70b дома",
    "у меня gtx 1080 ti, свёрточные сети, бюджет 100000 рублей",
    "4 видеокарты для обучения трансформеров за 800000 рублей, облако подходит",
    "влезет ли llama 13b в 8 гб",
    "сравни 3090 и 4090 для трансформеров",
]

FIELDS = [  # questions that make the other rules speak, in Russian
    dict(workload="general", budget=400, experience="hobby"),
    dict(workload="kaggle", budget=600),
    dict(workload="transformer", budget=3000, experience="researcher"),
    dict(workload="cnn", budget=3000, experience="researcher"),
    dict(workload="cnn", budget=120, used_ok=True),
    dict(workload="cnn", budget=300),
    dict(workload="cnn", budget=5),
    dict(workload="cnn", budget=800, precision="16-bit", as_of=SEED_DATE),
    dict(workload="cnn", budget=100000, gpus=8),
    dict(workload="cnn", budget=300, used_ok=True, as_of=date(2026, 6, 1)),
    dict(workload="cnn", budget=1500, owned_gpu="rtx 4090"),
    dict(workload="cnn", budget=1500, owned_gpu="gtx 1080 ti", as_of=SEED_DATE),
    dict(workload="rnn", budget=900),
    dict(workload="llm", model="llama 3 8b", task="inference", owned_gpu="rtx 4090"),
    dict(workload="llm", model="llama 3 405b", budget=3000),
    dict(workload="llm", model="llama 3 8b", method="full", budget=5000),
    dict(workload="cnn", memory_gb=20, budget=2000),
    dict(workload="cnn", budget=800, objective="cheapest"),
    dict(workload="image-generation", model="sdxl", task="inference", budget=800),
]
COMPARED = [("rx 7900 xtx",), ("arc a770",), ("no such card", "4090"), ("tpu v5e", "h100")]


@pytest.fixture(scope="module")
def names(catalog) -> set[str]:
    """Everything an answer may name as it is: cards, chips, models, providers, ids, cited works."""
    found = (
        {g.name for g in catalog.gpus}
        | {t.name for t in catalog.tpus.values()}
        | {m.name for m in load_models().values()}
    )
    found |= (
        {g.line for g in catalog.gpus}
        | {g.software for g in catalog.gpus}
        | {g.architecture for g in catalog.gpus}
    )
    found |= PRODUCTS | {o.provider for o in catalog.offers} | {o.instance for o in catalog.offers}
    found |= {rule.id for rule in load_rulebook()} | {work.split(": ")[0] for work in _cited(load_rulebook())}
    return {name for name in found if name and len(name) > 2}


def _cited(rulebook) -> Iterator[str]:
    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if "name" in node and "url" in node:
                yield node["name"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    for rule in rulebook:
        yield from walk(rule.to_dict())


def english_words(line: str, names: set[str]) -> list[str]:
    for name in sorted(names, key=len, reverse=True):
        line = line.replace(name, " ")
    words = re.findall(r"[A-Za-z][A-Za-z_.]*", line)
    return [w for w in words if len(w) >= 3 and not w.isupper() and w.lower().strip(".") not in TERMS]


def prose(answer: dict[str, Any]) -> list[str]:
    need = answer["memory_need"]
    return (
        [f["reason"] for f in answer["findings"] + answer["warnings"]]
        + [r["reason"] for p in answer["picks"] for r in p["rules"]]
        + [need["how"], *need["assumptions"], answer["summary"], *answer["suggestions"]]
    )


def _english_lines(answer: dict[str, Any], names: set[str]) -> list[str]:
    asked = names | {e["asked"] for e in answer["named"]}
    return [line for line in prose(answer) if english_words(line, asked)]


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_russian_question_gets_no_english_prose(advisor, names, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.recommendation is not None
    answer = wire(reply.recommendation)
    assert answer["question"]["language"] == "ru"
    assert answer["memory_need"]["assumptions"] and len(prose(answer)) > 4
    assert _english_lines(answer, names) == []


@pytest.mark.parametrize("fields", FIELDS + [dict(workload="cnn", compare=c) for c in COMPARED], ids=str)
def test_every_rule_speaks_russian(advisor, names, fields: dict[str, Any]) -> None:
    intent = "compare" if fields.get("compare") else "recommend"
    answer = wire(advisor.recommend(Question(**fields, language="ru"), intent=intent, today=TODAY))
    assert _english_lines(answer, names) == []


def test_the_check_finds_english_prose(advisor, names) -> None:
    """The same question in English fails the check, so the check can fail."""
    answer = wire(
        advisor.recommend(Question(workload="general", budget=400, experience="hobby"), today=TODAY)
    )
    assert len(_english_lines(answer, names)) > 5


def test_every_message_the_engine_says_is_in_the_catalogue() -> None:
    """A key written in code but missing from messages.json would fail only when its branch runs."""
    from rules.knowledge.messages import catalogue

    source = "\n".join(
        p.read_text(encoding="utf-8") for p in (Path(__file__).resolve().parents[2] / "rules").rglob("*.py")
    )
    keys = set(re.findall(r'\b(?:say|Phrase)\(\s*"([a-z0-9_.]+)"', source))
    keys |= {
        k
        for pair in re.findall(r'\b(?:say|Phrase)\(\s*"([a-z0-9_.]+)" if .*? else "([a-z0-9_.]+)"', source)
        for k in pair
    }
    assert len(keys) > 80 and keys - set(catalogue()) == set()


def test_refusals_are_told_in_the_language_of_each_question(catalog) -> None:
    """Why N of a card cannot go in one box is looked up once per card, count and setting; a Russian
    question after the same one in English still reads it in Russian."""
    from rules.advisor import Advisor

    russian = "сервер на 8 видеокарт для llm за 50000 долларов"
    alone = wire(ask(Advisor(catalog), russian, today=TODAY).recommendation)
    advisor = Advisor(catalog)
    ask(advisor, "a server with 8 gpus for llm $50000", today=TODAY)
    after = wire(ask(advisor, russian, today=TODAY).recommendation)
    assert any("перегрева" in e["reason"] for e in alone["excluded"])
    assert [e["reason"] for e in after["excluded"]] == [e["reason"] for e in alone["excluded"]]
