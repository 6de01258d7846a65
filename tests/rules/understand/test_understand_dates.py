"""Dates: 'as of 2019', 'в феврале 2020' -> as_of; a card after 'on'/'на' is not a date."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from rules.understand import parse

TODAY = date(2024, 6, 15)

PHRASES: list[tuple[str, dict[str, Any]]] = [
    # as_of (TODAY is 2024-06-15)
    ("as of 2019", {"as_of": date(2019, 12, 31)}),
    ("kaggle in 2019", {"workload": "kaggle", "as_of": date(2019, 12, 31)}),
    ("as of 2019-04", {"as_of": date(2019, 4, 30)}),
    ("as of april 2019", {"as_of": date(2019, 4, 30)}),
    ("on 2019-04-03", {"as_of": date(2019, 4, 3)}),
    ("на 2019 год", {"as_of": date(2019, 12, 31)}),
    ("в феврале 2020", {"as_of": date(2020, 2, 29)}),
    ("as of 2024", {"as_of": TODAY}),
    ("as of 2024-06", {"as_of": TODAY}),
    # a part of a year: the last day of its third, never after today
    ("in late 2019", {"as_of": date(2019, 12, 31)}),
    ("as of early 2021", {"as_of": date(2021, 4, 30)}),
    ("mid-2023", {"as_of": date(2023, 8, 31)}),
    ("mid 2023", {"as_of": date(2023, 8, 31)}),
    ("at the end of 2022", {"as_of": date(2022, 12, 31)}),
    ("в конце 2022 года", {"as_of": date(2022, 12, 31)}),
    ("в начале 2023 года", {"as_of": date(2023, 4, 30)}),
    ("в середине 2021", {"as_of": date(2021, 8, 31)}),
    ("late 2024", {"as_of": TODAY}),
    ("early 2024", {"as_of": date(2024, 4, 30)}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_date_forms(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("run llama 70b on 4090", ("rtx 4090",)),
        ("генерация картинок на 5090", ("rtx 5090",)),
        ("fine-tune bert on 2080 ti", ("rtx 2080 ti",)),
        ("в 3090 влезет?", ("rtx 3090",)),
    ],
)
def test_a_card_after_on_or_na_is_not_a_date(text: str, cards: tuple[str, ...]) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.compare, parsed.question.as_of) == (cards, None)
