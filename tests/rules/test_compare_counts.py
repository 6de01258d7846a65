"""Cards compared at the count asked for each ('2x 3090 vs a 5090'): two of one against one of the other,
never two of each; a count that does not hold the job is said so and shown at one that does."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.advisor import Advisor
from rules.ask import ask
from rules.knowledge import load_knowledge
from rules.understand import parse

KNOWLEDGE = load_knowledge()
ADVISOR = Advisor(KNOWLEDGE.catalog, rulebook=KNOWLEDGE.rulebook)
TODAY = dt.date(2026, 11, 26)


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("2x rtx 3090 vs 1x rtx 5090 for qwen 32b", (2, 1)),
        ("two 3090s or one 5090 for qwen 32b", (2, 1)),
        ("compare 2 3090s and a 5090 for llm inference", (2, 1)),
        ("compare 3090 and 4090", ()),
        ("2x 3090 vs 2x 4090", ()),
    ],
)
def test_each_card_keeps_the_count_said_with_it(text: str, counts: tuple[int, ...]) -> None:
    assert parse(text, today=TODAY).question.compare_counts == counts


def test_a_pair_against_one_card_is_compared_as_asked_by_the_jobs_speed() -> None:
    reply = ask(ADVISOR, "two 3090s or one 5090 for qwen 32b", today=TODAY)
    answer = reply.recommendation
    assert answer is not None
    counts = {p.gpu: p.count for p in answer.picks}
    assert counts == {"rtx-3090": 2, "rtx-5090": 1}
    labels = {p.gpu: p.label for p in answer.picks}
    assert labels["rtx-5090"] != "as many as hold it"
    fast = max(answer.picks, key=lambda p: p.speed.value if p.speed else 0)
    assert answer.headline.startswith(f"Buy the {fast.name}: about")  # faster by tokens a second, worth it


def test_a_count_that_does_not_hold_the_job_is_said_and_shown_at_one_that_does() -> None:
    answer = ADVISOR.recommend(
        parse("2x rtx 3090 vs 1x rtx 5090 for llama 70b", today=TODAY).question, intent="compare", today=TODAY
    )
    five = next(p for p in answer.picks if p.gpu == "rtx-5090")
    assert five.count == 2 and five.label == "as many as hold it"
    assert "one 32 GB GeForce RTX 5090 does not hold it; two do" in answer.headline
