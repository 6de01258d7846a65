"""Hardware names: the cards asked about, the card owned, counts and sizes beside cards."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from rules.understand import parse

TODAY = date(2024, 6, 15)

PHRASES: list[tuple[str, dict[str, Any]]] = [
    # owned GPU
    ("I have a 1070", {"owned_gpu": "gtx 1070"}),
    ("already have gtx 1080, nlp", {"owned_gpu": "gtx 1080", "workload": "transformer"}),
    ("у меня 1070", {"owned_gpu": "gtx 1070"}),
    ("upgrade my 2080 ti for llm", {"owned_gpu": "rtx 2080 ti", "workload": "llm"}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_owned_cards(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


@pytest.mark.parametrize(
    "text",
    [
        "compare 3090 4090",
        "3090 vs 4090",
        "1080 ti",
        "a100 h100",
        "mi300x",
        "rx 7900 xtx",
        "4090",
        "gtx 980",
        "i have a 3090",
        "nlp 3090",
        "v100 or t4",
    ],
)
def test_gpu_numbers_are_never_budgets(text: str) -> None:
    assert parse(text, today=TODAY).question.budget is None


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("compare 3090 4090", ("rtx 3090", "rtx 4090")),
        ("3090 vs 4090", ("rtx 3090", "rtx 4090")),
        ("3090 or 4090?", ("rtx 3090", "rtx 4090")),
        ("compare RTX 3090, 4090 and A100", ("rtx 3090", "rtx 4090", "a100")),
        ("rx 7900 xtx or mi300x", ("rx 7900 xtx", "mi300x")),
        ("1080ti vs 2080 super", ("gtx 1080 ti", "rtx 2080 super")),
        ("сравни 3090 и 4090", ("rtx 3090", "rtx 4090")),
    ],
)
def test_compare_intent(text: str, cards: tuple[str, ...]) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.intent == "compare"
    assert parsed.question.compare == cards
    assert parsed.question.budget is None


@pytest.mark.parametrize(
    ("text", "cards", "budget"),
    [
        ("5070 ti vs 9070 xt for cnn", ("rtx 5070 ti", "rx 9070 xt"), None),
        ("rtx pro 6000 vs 5090 for llm inference", ("rtx pro 6000", "rtx 5090"), None),
        ("5090 for $2.5k", ("rtx 5090",), 2500),
        ("rx 9060 xt", ("rx 9060 xt",), None),
        ("b580", ("b580",), None),
        ("r9700", ("r9700",), None),
        ("radeon ai pro r9700 or arc pro b60", ("radeon ai pro r9700", "arc pro b60"), None),
        ("a100 80gb", ("a100 80gb",), None),
        ("h100 pcie", ("h100 pcie",), None),
        ("A100-80GB PCIe vs H100 SXM5", ("a100 80gb pcie", "h100 sxm5"), None),
        ("dgx spark", ("dgx spark",), None),
        ("mac studio m3 ultra 512gb", ("mac studio m3 ultra 512gb",), None),
        ("strix halo", ("strix halo",), None),
        ("ryzen ai max+ 395 or 5090", ("ryzen ai max+ 395", "rtx 5090"), None),
        ("gb200", ("gb200",), None),
        (
            "compare rtx a6000, tesla v100 and instinct mi300x",
            ("rtx a6000", "tesla v100", "instinct mi300x"),
            None,
        ),
    ],
)
def test_card_and_system_names_are_never_budgets(
    text: str, cards: tuple[str, ...], budget: int | None
) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.compare == cards
    assert parsed.question.budget == budget
    assert parsed.unknown == ()


def test_unknown_hardware_names_are_kept_for_the_engine_to_report() -> None:
    parsed = parse("rtx 6090 vs 5090", today=TODAY)
    assert parsed.question.compare == ("rtx 6090", "rtx 5090")
    assert "rtx 6090 (not in the catalog)" in parsed.understood[-1]
    assert "rtx 5090 (GeForce RTX 5090)" in parsed.understood[-1]


def test_the_first_card_count_said_wins() -> None:
    parsed = parse("what's better for vllm serving: 2x 4090 or 1x rtx 6000 ada", today=TODAY)
    assert (parsed.question.gpus, parsed.question.compare) == (2, ("rtx 4090", "rtx 6000 ada"))


@pytest.mark.parametrize(
    ("text", "cards", "budget"),
    [
        ("rtx 5070 ti vs 9070", ("rtx 5070 ti", "rx 9070"), None),
        ("compare 7900 and 4090", ("rx 7900", "rtx 4090"), None),
        ("nlp 6800", (), 6800),  # alone, a Radeon-like number is still a budget
        ("budget 6800, 3090 or 4090?", ("rtx 3090", "rtx 4090"), 6800),
        ("nlp 5000 or 6000", (), None),  # round amounts are never Radeons (two of them: ambiguous, not read)
        ("vega 64", ("vega 64",), None),
        ("titan or rtx titan", ("titan", "rtx titan"), None),
        ("gh200", ("gh200",), None),
        ("rtx 4090d", ("rtx 4090d",), None),
        ("rtx 3060 laptop", ("rtx 3060 laptop",), None),
    ],
)
def test_more_hardware_names(text: str, cards: tuple[str, ...], budget: int | None) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.compare, parsed.question.budget) == (cards, budget)


def test_russian_memory_sizes_name_the_variant() -> None:
    parsed = parse("4060 ti 16гб или 3060 12гб", today=TODAY)
    assert parsed.question.compare == ("rtx 4060 ti 16gb", "rtx 3060 12gb")


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("16gb rtx 5060 ti", ("rtx 5060 ti 16gb",)),
        ("on a 16 GB 5060 Ti", ("rtx 5060 ti 16gb",)),
        ("rtx 3090 24gb", ("rtx 3090",)),  # the size it has anyway: resolved exactly
        ("16гб 5060 ti или 3090 24гб", ("rtx 5060 ti 16gb", "rtx 3090")),
        ("2x 24gb 3090 for llm", ("rtx 3090",)),
        ("rtx 3090 12gb", ("rtx 3090 12gb",)),  # no such variant: kept, so the answer can say so
    ],
)
def test_a_memory_size_beside_a_card_names_the_card(text: str, cards: tuple[str, ...]) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert parsed.question.compare == cards
    assert parsed.question.memory_gb is None
    assert not any("memory the job needs" in u for u in parsed.understood)


def test_a_memory_size_before_an_owned_card_names_it() -> None:
    assert parse("у меня 16 гб 4060 ti", today=TODAY).question.owned_gpu == "rtx 4060 ti 16gb"


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("H100s vs A100s", ("h100", "a100")),
        ("two 4090s for llm", ("rtx 4090",)),
        ("l40s or 4090s", ("l40s", "rtx 4090")),  # L40S is a name, not a plural
        ("a100s или h100s для обучения", ("a100", "h100")),
        ("tpu v5e pods", ("tpu v5e",)),
    ],
)
def test_plural_card_names_resolve(text: str, cards: tuple[str, ...]) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert parsed.question.compare == cards
    assert not parsed.unknown
    assert not any("not in the catalog" in u for u in parsed.understood)


@pytest.mark.parametrize(
    ("text", "as_of", "tpu"),
    [
        ("TPUs for training", date(2026, 11, 23), "tpu v6e"),
        ("tpus для обучения в 2020", date(2020, 12, 31), "tpu v3"),
    ],
)
def test_tpus_mean_the_newest_cloud_tpu_of_the_date(text: str, as_of: date, tpu: str) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert parsed.question.compare[0] == tpu
    assert any("rented in the cloud" in u for u in parsed.understood)


@pytest.mark.parametrize(
    "text",
    [
        "5090 vs 4090 vs used 3090",
        "5090 или 4090 или 3090 б/у",
        "used 3090 or new 4090",
        "4090 новая или 3090 б/у",
        "brand new 5090 or a 3090 off ebay",
    ],
)
def test_used_in_a_compare_question_allows_used(text: str) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert parsed.intent == "compare"
    assert parsed.question.used_ok is True


@pytest.mark.parametrize(
    "text, card",
    [
        ("will qwen3 235b run on a mac studio m3 ultra with 256gb?", "mac studio m3 ultra 256gb"),
        ("mac studio m3 ultra with 512gb for deepseek", "mac studio m3 ultra 512gb"),
        ("rtx 5060 ti with 8gb for llms", "rtx 5060 ti 8gb"),
        ("mac studio m4 max with 128gb", "mac studio m4 max"),  # the card read anyway has it
        ("rtx 3090 with 64gb of ram for llama 70b", "rtx 3090"),  # no 3090 has 64 GB: the machine's RAM
    ],
)
def test_a_memory_size_said_after_a_card_picks_the_variant_that_has_it(text: str, card: str) -> None:
    """'X with 256gb' names X's 256 GB variant where the catalog has one; it is never the card's memory
    asked for beside another card."""
    question = parse(text, today=date(2026, 11, 26)).question
    assert question.compare == (card,)
    assert question.memory_gb is None


SERIES_WORDS = ("rtx", "gtx", "rx", "RTX", "rx-")
SERIES_NUMBERS = ("60", "70", "6090", "6080 ti", "10070", "10070 xt", "5090", "60 series", "50 series")
SERIES_AROUND = ("should i wait for the {}", "{} for llm", "is the {} worth waiting for", "стоит ли ждать {}")


@pytest.mark.parametrize("around", SERIES_AROUND)
@pytest.mark.parametrize("number", SERIES_NUMBERS)
@pytest.mark.parametrize("series", SERIES_WORDS)
def test_a_number_after_a_series_word_names_a_card_known_or_not(series, number, around) -> None:
    """'rtx 60 series', 'rx 10070': a number after a series word is a card, never money, and is named back
    (the engine says when the catalog does not know it)."""
    name = f"{series}{'' if series.endswith('-') else ' '}{number}"
    question = parse(around.format(name), today=date(2026, 11, 26)).question
    assert question.budget is None
    assert len(question.compare) == 1, question.compare
    assert question.compare[0].split()[1] == number.split()[0], question.compare
