"""Typos one slip away from a single vocabulary word are read as that word, and the reading says so."""

from __future__ import annotations

from datetime import date

import pytest

from rules.understand import parse
from rules.understand.spelling import one_slip

TODAY = date(2026, 11, 26)


@pytest.mark.parametrize(
    ("typed", "word", "slip"),
    [
        ("trasnformers", "transformers", True),
        ("kagle", "kaggle", True),
        ("trainng", "training", True),
        ("kagglle", "kaggle", True),
        ("kaggel", "kaggle", True),
        ("kaggle", "kaggle", False),
        ("kgagel", "kaggle", False),
        ("transformer", "transformers!", False),
    ],
)
def test_one_slip(typed: str, word: str, slip: bool) -> None:
    assert one_slip(typed, word) is slip


@pytest.mark.parametrize(
    ("text", "field", "value", "typo"),
    [
        ("trasnformers $800", "workload", "transformer", "trasnformers"),
        ("reinforcment learning 1500", "workload", "rl", "reinforcment"),
        ("fine-tunning llama 8b", "task", "training", "fine-tunning"),
        ("stable difusion $600", "workload", "image-generation", "difusion"),
        ("свертчоные сети $900", "workload", "cnn", "свертчоные"),
        ("глубооке обучение 1000 долларов", "workload", "general", "глубооке"),
    ],
)
def test_a_typo_is_read_and_said(text: str, field: str, value: str, typo: str) -> None:
    parsed = parse(text, today=TODAY)
    assert getattr(parsed.question, field) == value and not parsed.unknown
    assert any(line.startswith(f"read '{typo}' as ") for line in parsed.understood), parsed.understood


@pytest.mark.parametrize("text", ["nlp $800 zxqv", "cv $900 abcd", "моделий 32b", "nlp $800 gpuz"])
def test_no_guess_for_a_short_unknown_or_unread_word(text: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.unknown and not any(line.startswith("read '") for line in parsed.understood)
