"""Numbers with a unit: memory, parameters, hours, llama.cpp types, context, batch, users, counts."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.contract.question import Question
from rules.errors import QuestionError
from rules.understand import parse
from rules.understand.text import clean
from rules.understand.units import NEEDED_LITERALS

TODAY = date(2024, 6, 15)
GOLDEN = Path(__file__).resolve().parents[2] / "quality" / "golden.json"

PHRASES: list[tuple[str, dict[str, Any]]] = [
    # GPU counts
    ("2 gpus", {"gpus": 2}),
    ("2 x gpu", {"gpus": 2}),
    ("4x", {"gpus": 4}),
    ("x4", {"gpus": 4}),
    ("4 cards", {"gpus": 4}),
    ("8-gpu server", {"gpus": 8, "setting": "server", "shared": True}),
    ("for a team", {"setting": "server", "shared": True}),
    ("a 2-card build", {"gpus": 2}),
    ("two gpus", {"gpus": 2}),
    ("четыре видеокарты", {"gpus": 4}),
    ("2 видеокарты", {"gpus": 2}),
    ("2x 3090 for cv", {"gpus": 2, "workload": "cnn", "compare": ("rtx 3090",)}),
    # sizes
    # a size in billions with no job word: a language model to run
    ("7B params", {"params_b": 7, "workload": "llm", "task": "inference", "method": "inference"}),
    (
        "1.3 billion parameters",
        {"params_b": 1.3, "workload": "llm", "task": "inference", "method": "inference"},
    ),
    ("350m", {"params_b": 0.35}),
    ("24GB", {"memory_gb": 24}),
    ("24 gb", {"memory_gb": 24}),
    ("at least 16 GB vram", {"memory_gb": 16}),
    ("24 гб", {"memory_gb": 24}),
    # hours
    ("10 hours a week", {"hours_per_week": 10}),
    ("10h/week", {"hours_per_week": 10}),
    ("20 h per week", {"hours_per_week": 20}),
    ("40 часов в неделю", {"hours_per_week": 40}),
    ("2 hrs a day", {"hours_per_week": 14}),
    ("20 hours a month", {"hours_per_week": 4.6}),
    ("40 часов в месяц", {"hours_per_week": 9.2}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_counts_and_hours(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


def test_billions_without_a_currency_stay_parameters() -> None:
    assert parse("7 billion parameters", today=TODAY).question.params_b == 7


@pytest.mark.parametrize(
    ("text", "precision", "source"),
    [
        ("q4", "4-bit", "q4"),
        ("Q4_K_M", "4-bit", "q4_k_m"),
        ("q5_k_m", "8-bit", "q5_k_m, sized as GGUF Q5_K_M"),
        ("q8_0", "8-bit", "q8_0"),
        ("iq3_xs", "4-bit", "iq3_xs, 3-bit rounded up"),
        ("int4", "4-bit", "int4"),
        ("int8", "8-bit", "int8"),
        ("nf4", "4-bit", "nf4"),
        ("gguf", "4-bit", "gguf"),
        ("gguf q8_0", "8-bit", "q8_0"),
        ("awq", "4-bit", "awq"),
        ("gptq", "4-bit", "gptq"),
        ("fp8", "fp8", "fp8"),
        ("fp16", "16-bit", "fp16"),
        ("bf16", "16-bit", "bf16"),
        ("half precision", "16-bit", "half precision"),
        ("fp32", "fp32", "fp32"),
    ],
)
def test_quantisation_words_set_the_precision(text: str, precision: str, source: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.precision == precision
    said = [line for line in parsed.understood if line.startswith(f"precision: {precision}")]
    assert any(source in line for line in said), parsed.understood


def test_a_bit_width_on_the_next_line_is_not_a_gpu_count() -> None:
    parsed = parse("llama 70b q4_0 on 2 gpus", today=TODAY)
    assert (parsed.question.precision, parsed.question.gpus) == ("4-bit", 2)


@pytest.mark.parametrize(
    ("text", "field_name", "value"),
    [
        ("llama 13b on 8 GB", "card_memory_gb", 8),  # a model named: the card's memory, not the need
        ("24GB card", "memory_gb", 24),
        ("with 16 gb of vram", "memory_gb", 16),
        ("cheapest card for 24 GB", "memory_gb", 24),
        ("32k context", "context_tokens", 32768),
        ("128k tokens", "context_tokens", 131072),
        ("context length 8192", "context_tokens", 8192),
        ("контекст 16к", "context_tokens", 16384),
        ("batch 8", "batch", 8),
        ("batch size 32", "batch", 32),
        ("bs=16", "batch", 16),
    ],
)
def test_memory_context_and_batch(text: str, field_name: str, value: int) -> None:
    parsed = parse(text, today=TODAY)
    assert getattr(parsed.question, field_name) == value
    assert parsed.question.budget is None and parsed.question.gpus == 1


def test_speed_is_not_a_context() -> None:
    assert parse("45 tokens/s on llama 8b", today=TODAY).question.context_tokens is None


@pytest.mark.parametrize(
    ("text", "card_gb", "fits"),
    [
        ("will llama 13b fit on 8 GB", 8, False),
        ("does gemma 27b run on a 16gb card", 16, False),
        ("влезет ли qwen 32b в 24 гб", 24, True),
        ("запустится ли llama 70b на 8 гб", 8, False),
        ("will a 13b model fit on 48gb", 48, True),
    ],
)
def test_a_memory_size_beside_a_model_is_the_cards(text: str, card_gb: int, fits: bool) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert parsed.question.card_memory_gb == card_gb
    assert parsed.question.memory_gb is None  # the model, not the card, says what the job needs
    note = next(u for u in parsed.understood if u.startswith("fit:"))
    assert note.startswith("fit: fits" if fits else "fit: does not fit")


def test_a_follow_up_size_for_the_same_model_is_the_cards() -> None:
    first = parse("will llama 13b fit on 8 GB", today=TODAY).question
    follow = parse("and on 16 gb?", previous=first, today=TODAY)
    assert follow.question.card_memory_gb == 16 and follow.question.model == "llama-13b"


@pytest.mark.parametrize("text", ["llama 70b with at least 48 gb", "llama 70b, минимум 48 гб"])
def test_at_least_beside_a_model_still_states_the_need(text: str) -> None:
    question = parse(text, today=TODAY).question
    assert question.memory_gb == 48 and question.card_memory_gb is None


def test_card_memory_is_checked_like_memory() -> None:
    with pytest.raises(QuestionError) as error:
        Question.from_dict({"card_memory_gb": -1})
    assert error.value.field == "card_memory_gb"


@pytest.mark.parametrize(
    "text, users",
    [
        ("vllm server to serve llama 3.1 8b for 20 users", 20),
        ("serve qwen 14b to 50 concurrent requests", 50),
        ("сервер для 30 пользователей, llama 8b", 30),
    ],
)
def test_users_served_at_once_are_concurrent_sequences(text: str, users: int) -> None:
    """Each user served at once keeps a KV cache (vLLM's max_num_seqs): the count sizes the job's batch."""
    assert parse(text, today=TODAY).question.batch == users


def _crowd_words() -> dict[str, int]:
    vocabulary = json.loads((GOLDEN.parents[2] / "rules" / "data" / "vocabulary.json").read_text("utf-8"))
    return {**vocabulary["number_words"], **vocabulary["crowd_words"]}


@pytest.mark.parametrize("words, size", sorted(_crowd_words().items()))
@pytest.mark.parametrize(
    "template",
    [
        "serve llama 3.1 70b with vllm to {} people at once",
        "обслуживать qwen3 32b для {} пользователей",
        "serve mistral to {} people at once",  # no digit anywhere: the users are read all the same
    ],
)
def test_people_counted_in_words_are_the_users_served(template: str, words: str, size: int) -> None:
    """'a few dozen people', 'десятки пользователей': a crowd said in words is as many users as digits
    would say, never dropped to one user; one is the asker alone, one sequence and nobody to serve."""
    read = parse(template.format(words), today=TODAY)
    served = size if size > 1 else None
    assert (read.question.users, read.question.batch) == (served, size), read.understood
    assert not read.unknown


@pytest.mark.parametrize("one", ["one user", "a single user", "1 user", "one person", "1 request at a time"])
@pytest.mark.parametrize(
    "template", ["local llm for {}, qwen3 14b, $1500", "how much vram to run llama 3.1 8b for {}?"]
)
def test_one_user_is_read_as_one_sequence_and_nobody_served(template: str, one: str) -> None:
    """'for one user' was left unread ('user' not understood): it is one sequence, and no serving of users
    to price over a period."""
    read = parse(template.format(one), today=TODAY)
    assert (read.question.users, read.question.batch) == (None, 1), read.understood
    assert not read.unknown, read.unknown


@pytest.mark.parametrize(
    ("text", "batch"),
    [
        ("RAG server for a team of 10 with Qwen3 32B", 10),  # all ten asking at once: ten KV caches
        ("chat server for 12 colleagues with llama 70b", 12),
        ("сервер для команды из 8 человек с qwen3 32b", 8),
        ("team of 4 training cnns, $8000", None),  # a team's size is no training batch
        ("lab of 5 researchers fine-tuning llama 8b", None),
    ],
)
def test_a_team_served_at_once_is_as_many_sequences_for_inference_only(text, batch):
    question = parse(text).question
    assert question.batch == batch
    if "team of" in text:
        assert question.setting == "server"  # the words that give the number still say who buys


def test_a_pass_skipped_for_want_of_its_literals_could_not_have_matched() -> None:
    """A pass is skipped when the text holds none of the literals listed for its pattern (NEEDED_LITERALS):
    over this table, the golden questions and rare phrasings, each such pattern matches somewhere, and every
    match holds one of them."""
    rare = (
        "llama 3 8b q4_k_m",
        "qwen 32b iq4_xs gguf",
        "32k context",
        "128k tokens of context",
        "context length 8192",
        "ctx=4096",
        "batch size 8",
        "bs=16",
        "батч 4",
        "for 20 users",
        "50 concurrent requests",
        "для 10 пользователей",
        "a team of 10",
        "12 colleagues",
        "команда из 5 человек",
        "16 gib of memory",
        "48 гигабайт",
    )
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["questions"]
    texts = [clean(text) for text in [p for p, _ in PHRASES] + [q["text"] for q in golden] + list(rare)]
    for pattern, literals in NEEDED_LITERALS.items():
        found = [m.group() for text in texts for m in pattern.finditer(text)]
        assert found, pattern.pattern
        assert all(any(literal in match for literal in literals) for match in found), pattern.pattern


@settings(max_examples=60, deadline=None)
@given(
    side=st.sampled_from([32, 64, 128, 256, 512, 640, 768, 1024, 2048]),
    tall=st.sampled_from([32, 64, 256, 512, 1024, 1536]),
    sep=st.sampled_from(["x", " x ", "×"]),
    job=st.sampled_from(["train a gan on {r} images", "sdxl at {r}", "yolo on {r} frames, $900", "unet {r}"]),
)
def test_a_picture_size_is_never_a_count_of_cards(side, tall, sep, job) -> None:
    """'64x64 images' is a resolution: the question keeps one card, and the reading says what it took."""
    said = f"{side}{sep}{tall}"
    parsed = parse(job.format(r=said), today=TODAY)
    assert parsed.question.gpus == 1, parsed.understood
    assert any(line.startswith(f"image size: {side}×{tall}") for line in parsed.understood), parsed.understood


@pytest.mark.parametrize(
    ("text", "count"), [("2x3090 for llama 70b", 2), ("8x h100 for training", 8), ("2×3090 for llama 70b", 2)]
)
def test_a_count_beside_a_card_stays_a_count(text: str, count: int) -> None:
    assert parse(text, today=TODAY).question.gpus == count


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("3x3 convolutions on cifar, $500", "size: 3×3"),
        ("x4 upscaling with real-esrgan, $800", "upscaling: 4×"),
        ("4x upscaling of photos", "upscaling: 4×"),
    ],
)
def test_a_kernel_or_an_upscaling_factor_is_not_a_count_of_cards(text: str, said: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.gpus == 1, parsed.understood
    assert any(line.startswith(said) for line in parsed.understood), parsed.understood


@pytest.mark.parametrize("text", ["run it 24/7 for a year", "24x7 inference", "llama 8b круглосуточно"])
def test_around_the_clock_is_every_hour_of_the_week(text: str) -> None:
    assert parse(text, today=TODAY).question.hours_per_week == 168


def test_a_mixture_of_experts_size_is_not_a_count_of_cards() -> None:
    assert parse("8x7b moe", today=TODAY).question.gpus == 1
