"""The language a question is written in."""

from __future__ import annotations

from datetime import date

import pytest

from rules.understand import parse

TODAY = date(2024, 6, 15)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("nlp $800", "en"),
        ("какую видеокарту купить для нейросетей за 50000 рублей", "ru"),
        ("дообучить llama 3 8b с lora", "ru"),
        ("rtx 4090 за 150к руб", "ru"),
        ("3090 $800", None),
    ],
)
def test_language(text: str, language: str | None) -> None:
    assert parse(text, today=TODAY).question.language == language
