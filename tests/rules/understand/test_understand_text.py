"""Cleaning and the scan: Slack markup, emoji and markdown are read past; any text parses or is refused."""

from __future__ import annotations

import contextlib
import re
from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.contract.question import Question
from rules.contract.text import MAX_TEXT_CHARS
from rules.errors import QuestionError
from rules.understand import ParsedText, clean, parse
from rules.understand.text import Scan

TODAY = date(2024, 6, 15)

PHRASES: list[tuple[str, dict[str, Any]]] = [
    # hygiene
    ("<@U123ABC> :tada: *NLP* `$900` 🚀", {"workload": "transformer", "budget": 900, "currency": "USD"}),
    ("**cv**, _$1,200_!!!", {"workload": "cnn", "budget": 1200, "currency": "USD"}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_markup_is_read_past(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


def test_unknown_words_are_reported_without_fillers() -> None:
    parsed = parse("which gpu for nlp with frobnication please", today=TODAY)
    assert parsed.question.workload == "transformer"
    assert parsed.unknown == ("frobnication",)


def test_too_long_text_is_refused() -> None:
    parse("nlp " * (MAX_TEXT_CHARS // 4), today=TODAY)
    with pytest.raises(QuestionError) as caught:
        parse("x" * (MAX_TEXT_CHARS + 1), today=TODAY)
    assert caught.value.field == "text"


def test_non_text_is_refused() -> None:
    with pytest.raises(QuestionError):
        parse(None)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=MAX_TEXT_CHARS))
def test_any_text_parses_or_raises_question_error_and_is_deterministic(text: str) -> None:
    try:
        first = parse(text, today=TODAY)
    except QuestionError as exc:
        with pytest.raises(QuestionError) as again:
            parse(text, today=TODAY)
        assert str(again.value) == str(exc)
        return
    assert isinstance(first, ParsedText)
    assert parse(text, today=TODAY) == first
    first.question.check(TODAY)
    assert first.intent in ("recommend", "compare", "fit", "rent-or-buy", "upgrade", "what-runs-on", "help")


WORDS = st.sampled_from(
    [
        "nlp",
        "$800",
        "3090",
        "4090",
        "llama",
        "13b",
        "fp16",
        "2",
        "gpus",
        "as",
        "of",
        "2019",
        "в",
        "2019-04",
        "у",
        "меня",
        "1070",
        "k",
        "руб",
        "x",
        "cheaper",
        "more",
        "memory",
        "vs",
        "24gb",
        "hours",
        "week",
        "б/у",
        "1.5k",
        "€",
        "?",
        "<@U1>",
        "🚀",
        "-",
        "8x7b",
        "resnet50",
    ]
)
PREVIOUS = Question(workload="transformer", budget=800.0, currency="USD", used_ok=False, language="en")


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=12), st.booleans())
def test_word_salad_parses_or_raises_question_error(words: list[str], with_previous: bool) -> None:
    previous = PREVIOUS if with_previous else None
    try:
        parsed = parse(" ".join(words), previous=previous, today=TODAY)
    except QuestionError:
        return
    parsed.question.check(TODAY)


@pytest.mark.parametrize(
    "text",
    [
        "9" * 2000,
        "a100 " * 400,
        "$" + "1," * 999,
        "llama " + "3." * 997,
        "qwen " + "8b " * 665,
        "q4_" * 666,
        "context " * 250,
        "1 " * 1000,
        "rtx pro " * 250,
        "mac studio m3 " * 142,
        "-" * 2000,
        "у меня " * 285,
        "budget 1 000 " * 166,
        "context " + "длин" * 498,
        "1" * 1999 + "k",
        "<http://" + "<" * 1990,
        "5090" + " ti" * 665,
        "$1-" * 666,
        "between 1 and " * 142,
    ],
)
def test_pathological_text_parses_quickly(text: str) -> None:
    """Linear-time patterns: 2,000 characters of junk take tens of milliseconds, where a pattern that
    backtracks takes seconds (CPU time: the test host is shared; the least of three runs, since a collection
    or a first-seen word's regex can land in any one of them)."""
    import time

    parse("a100 llama 8b", today=TODAY)  # the catalog and the model table load once, outside the timing
    text = text[:MAX_TEXT_CHARS]
    spent = []
    for _ in range(3):
        started = time.process_time()
        with contextlib.suppress(QuestionError):
            parse(text, today=TODAY)
        spent.append(time.process_time() - started)
    assert min(spent) < 0.2, spent


def test_cleaning_keeps_what_the_grammar_reads() -> None:
    """Slack mentions and link targets, shortcodes, emoji and markdown go; a dash stays; 'ё' reads 'е'."""
    assert clean("<@U1> *NLP* — $900 :tada: Ёлка <https://x.io|link> 🚀") == "nlp - $900 елка link"


def test_a_pass_blanks_what_it_takes_and_leaves_the_rest_for_the_next() -> None:
    scan = Scan("nlp 3090 800", TODAY)
    scan.take(re.compile(r"\d{4}"), lambda m: True)
    assert scan.leftovers() == ["nlp", "800"] and scan.original == "nlp 3090 800"
    scan.take(re.compile(r"800"), lambda m: False)  # refused: left for a later pass
    assert scan.leftovers() == ["nlp", "800"]
    scan.take(re.compile(r"n(lp)"), lambda m: m.span(1))  # a span: only that part is taken
    assert scan.leftovers() == ["n", "800"]

    def never(m: re.Match[str]) -> bool:
        raise AssertionError("a text without the literals a pattern needs is not searched")

    scan.take(re.compile(r"8"), never, needs=("gb",))


def test_the_first_mention_of_a_field_wins() -> None:
    scan = Scan("", TODAY)
    assert scan.put("gpus", 2, " 2 gpus ") and scan.put("gpus", 4, "4 cards")
    assert scan.values == {"gpus": (2, "2 gpus")}


def test_a_cyrillic_x_beside_a_number_is_the_times_sign_and_stays_in_words() -> None:
    from rules.understand.text import clean

    assert clean("2х3090, х2, 2 х 3090") == "2x3090, x2, 2 x 3090"
    assert clean("Их хватит: хорошо, 3 штуки") == "их хватит: хорошо, 3 штуки"
