"""Every piece of a question read for what it says, in any order: a budget, a count of cards, users, hours,
epochs, tokens a second, a context, a model, each next to any other ("mistral 7b 2x 2k usd", "4x 4 people",
"flux 3k usd", "flux 20 h/week")."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.understand import parse

TODAY = date(2026, 11, 22)

# (field, what the text says, the value read)
PIECES: dict[str, list[tuple[str, object]]] = {
    "budget": [("$800", 800), ("1500 usd", 1500), ("under 1200 dollars", 1200), ("budget 2000", 2000),
               ("3k usd", 3000), ("2k$", 2000), ("700 dollars", 700), ("€900", 900), ("50000 рублей", 50000)],
    "gpus": [("2 gpus", 2), ("4 cards", 4), ("4x", 4), ("2x", 2), ("a pair of gpus", 2)],
    "users": [("for 5 users", 5), ("4 people", 4), ("for 20 users", 20)],
    "hours_per_week": [("10 hours a week", 10), ("40 hours a week", 40), ("12 hours a week", 12),
                       ("20 h/week", 20)],
    "epochs": [("3 epochs", 3), ("for 2 epochs", 2)],
    "tokens_per_user": [("20 tokens/s each", 20), ("at 30 tok/s per user", 30)],
    "context_tokens": [("8k context", 8192), ("32k context", 32768)],
    "model": [("llama 8b", "llama-8b"), ("qwen 32b", "qwen-32b"), ("flux", "flux-1-dev"),
              ("mistral 7b", "mistral-7b"), ("gemma 3 27b", "gemma-3-27b"), ("deepseek v3", "deepseek-v3"),
              ("whisper large", "whisper-large-v3"), ("sdxl", "sd-xl")],
}  # fmt: skip


# the same in Russian, as the seed's readers write it
PIECES_RU: dict[str, list[tuple[str, object]]] = {
    "budget": [("за 50000 рублей", 50000), ("бюджет 80000 руб", 80000), ("до 120 тыс рублей", 120000),
               ("100к рублей", 100000), ("150000₽", 150000)],
    "gpus": [("2 видеокарты", 2), ("на 4 видеокартах", 4), ("две видеокарты", 2), ("4 гпу", 4),
             ("2 карты", 2), ("2х", 2)],
    "users": [("на 10 пользователей", 10), ("для 5 человек", 5)],
    "hours_per_week": [("10 часов в неделю", 10), ("40 часов в неделю", 40)],
    "epochs": [("3 эпохи", 3), ("5 эпох", 5)],
    "model": [("llama 8b", "llama-8b"), ("flux", "flux-1-dev"), ("sdxl", "sd-xl"),
              ("whisper large", "whisper-large-v3")],
}  # fmt: skip


@st.composite
def questions(draw: st.DrawFn, pieces: dict[str, list[tuple[str, object]]]) -> tuple[str, dict[str, object]]:
    fields = draw(st.lists(st.sampled_from(sorted(pieces)), min_size=2, max_size=4, unique=True))
    said = {field: draw(st.sampled_from(pieces[field])) for field in fields}
    order = draw(st.permutations(fields))
    return " ".join(said[f][0] for f in order), {f: said[f][1] for f in fields}


@settings(max_examples=400, deadline=None)
@given(question=st.one_of(questions(PIECES), questions(PIECES_RU)))
def test_every_piece_is_read_for_what_it_says_in_any_order(question: tuple[str, dict[str, object]]) -> None:
    text, expected = question
    parsed = parse(text, today=TODAY)
    read = {field: getattr(parsed.question, field) for field in expected}
    assert read == expected, text
    assert not parsed.unknown, text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4x 4 people", {"gpus": 4, "users": 4}),  # not a 4×4 grid
        ("mistral 7b 2x 2k usd", {"gpus": 2, "budget": 2000}),  # not a 2×2 grid and a stray "k usd"
        ("llama 8b 3k usd", {"model": "llama-8b", "budget": 3000}),  # not a model "llama 8b 3k"
        ("3x3 convolutions cnn $800", {"gpus": 1, "budget": 800}),  # a kernel's size stays one
        ("flux 20 h/week", {"model": "flux-1-dev", "hours_per_week": 20}),  # not a model "flux 20"
        ("whisper large 20 h/week", {"model": "whisper-large-v3", "hours_per_week": 20}),
        ("flux 100к рублей", {"model": "flux-1-dev", "budget": 100000}),  # not a model "flux 100"
        ("sdxl 4 гпу", {"model": "sd-xl", "gpus": 4}),
        ("sdxl 2 3090s", {"model": "sd-xl", "gpus": 2, "compare": ("rtx 3090",)}),  # two cards, not a model
        ("sdxl 3090s", {"model": "sd-xl", "compare": ("rtx 3090",)}),
        ("sdxl 2 карты", {"model": "sd-xl", "gpus": 2}),
        ("llama 8b lora at batch size 4, $3000", {"batch": 4, "budget": 3000}),  # a comma ends the number
        ("bert large batch 32. $1000", {"batch": 32, "budget": 1000}),
        ("nlp 1,800", {"budget": 1800}),  # a grouped number stays one
        ("2х3090 для llama 70b", {"gpus": 2, "compare": ("rtx 3090",)}),  # a Cyrillic "х" as the times sign
        ("llama 70b на 2х 4090", {"gpus": 2, "compare": ("rtx 4090",)}),
    ],
)
def test_counts_and_thousands_next_to_sizes(text: str, expected: dict[str, object]) -> None:
    question = parse(text, today=TODAY).question
    assert {field: getattr(question, field) for field in expected} == expected


@settings(max_examples=150, deadline=None)
@given(
    job=st.sampled_from(("nlp", "cv", "llama 8b", "sdxl", "whisper large", "kaggle", "учусь")),
    # round amounts, as budgets are said: a bare four-digit number such as 1650 names a card (a GTX 1650)
    low=st.integers(min_value=1, max_value=30).map(lambda n: n * 100),
    step=st.integers(min_value=1, max_value=30).map(lambda n: n * 100),
    dash=st.sampled_from(("-", " - ", "–", " – ")),
    extra=st.sampled_from(("", " used ok", " 2 gpus", " new only")),
)
def test_a_range_left_over_with_no_currency_is_a_budget_up_to_its_top(
    job: str, low: int, step: int, dash: str, extra: str
) -> None:
    high = low + step
    question = parse(f"{job} {low}{dash}{high}{extra}", today=TODAY).question
    assert question.budget == high


@pytest.mark.parametrize("text", ["nlp 2023-2024", "nlp 30-40", "nlp 800-500", "nlp 500-800 or 900"])
def test_a_range_that_cannot_be_money_is_no_budget(text: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.budget is None and parsed.unknown
