"""Follow-ups: a text refining the previous question, or replacing it."""

from __future__ import annotations

from datetime import date

import pytest

from rules.contract.question import Question
from rules.understand import parse

TODAY = date(2024, 6, 15)

PREVIOUS = Question(workload="transformer", budget=800.0, currency="USD", used_ok=False, language="en")


@pytest.mark.parametrize(
    ("text", "changed", "expected"),
    [
        ("what about 2 of them?", ("gpus",), {"gpus": 2}),
        ("and for rnn?", ("workload",), {"workload": "rnn"}),
        ("cheaper?", ("budget",), {"budget": 560}),
        ("дешевле", ("budget",), {"budget": 560, "language": "ru"}),
        ("more expensive", ("budget",), {"budget": 1200}),
        ("more memory", ("memory_gb",), {"memory_gb": 16}),
        ("with used cards", ("used_ok",), {"used_ok": True}),
        ("as of 2020", ("as_of",), {"as_of": date(2020, 12, 31)}),
        ("а для rnn?", ("workload",), {"workload": "rnn", "language": "ru"}),
        ("more gpus", ("gpus",), {"gpus": 2}),
    ],
)
def test_follow_up_refines_previous(text: str, changed: tuple[str, ...], expected: dict) -> None:
    parsed = parse(text, previous=PREVIOUS, today=TODAY)
    assert parsed.changed == changed
    assert parsed.question == PREVIOUS.refined(**expected)


def test_more_memory_steps_up_from_previous() -> None:
    parsed = parse("more memory", previous=PREVIOUS.refined(memory_gb=24), today=TODAY)
    assert parsed.question.memory_gb == 32


def test_more_memory_steps_up_from_what_the_previous_answer_showed() -> None:
    """'more memory?' after an answer that led with a 24 GB card asks for more than 24 GB, and says why; the
    previous answer is worked out only when the text asks for more memory."""
    parsed = parse("more memory?", previous=PREVIOUS, today=TODAY, held_gb=lambda: 24.0)
    assert parsed.question.memory_gb == 32
    assert "than the 24 GB shown" in parsed.understood[0]
    asked_more = parse(
        "more memory", previous=PREVIOUS.refined(memory_gb=48), today=TODAY, held_gb=lambda: 24.0
    )
    assert asked_more.question.memory_gb == 64  # the question's own larger size still counts

    def unasked() -> float:
        raise AssertionError("the previous answer was worked out for a follow-up that does not need it")

    assert parse("cheaper?", previous=PREVIOUS, today=TODAY, held_gb=unasked).question.budget == 560


def test_cheaper_without_a_budget_changes_nothing_and_says_so() -> None:
    parsed = parse("cheaper", previous=Question(workload="cnn"), today=TODAY)
    assert parsed.question == Question(workload="cnn")
    assert parsed.changed == () and parsed.needs_clarification
    assert "no budget" in parsed.understood[0]


def test_complete_question_replaces_previous() -> None:
    previous = Question(workload="llm", budget=5000.0, gpus=4, used_ok=True, as_of=date(2020, 1, 1))
    parsed = parse("cv 1500 eur", previous=previous, today=TODAY)
    assert parsed.question == Question(workload="cnn", budget=1500, currency="EUR", language="en")


def test_follow_up_keeps_previous_currency_for_a_bare_amount() -> None:
    parsed = parse("budget 90000", previous=Question(budget=80000.0, currency="RUB"), today=TODAY)
    assert (parsed.question.budget, parsed.question.currency) == (90000, "RUB")


def test_follow_up_after_compare_stays_compare() -> None:
    first = parse("compare 3090 4090", today=TODAY).question
    parsed = parse("and for rnn?", previous=first, today=TODAY)
    assert parsed.intent == "compare" and parsed.question.compare == ("rtx 3090", "rtx 4090")


def test_follow_up_with_nothing_new_needs_clarification() -> None:
    assert parse("thanks", previous=PREVIOUS, today=TODAY).needs_clarification
