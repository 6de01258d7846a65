"""The short answer and the full one: the full form never loses a finding the answer holds."""

from __future__ import annotations

import pytest

from rules.ask import ask
from tests.rules.conftest import TODAY

QUESTIONS = ("nlp $800", "fit llama 70b on a 3090", "compare 3090 4090 for llm", "cv 2 gpus 3000")


@pytest.mark.parametrize("text", QUESTIONS)
def test_the_full_answer_names_every_rule_behind_it(advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY, detail="full")
    answer = reply.recommendation
    assert answer is not None
    rules = {f.rule for f in (*answer.findings, *answer.warnings) if f.verdict != "excluded"}
    rules |= {f.rule for f in answer.picks[0].findings} if answer.picks else set()
    missing = sorted(rule for rule in rules if f"_{rule}_" not in reply.text)
    assert missing == []


@pytest.mark.parametrize("text", QUESTIONS)
def test_the_short_answer_is_the_default_and_no_longer_than_the_full(advisor, text: str) -> None:
    short = ask(advisor, text, today=TODAY)
    full = ask(advisor, text, today=TODAY, detail="full")
    assert short.text == ask(advisor, text, today=TODAY, detail="short").text
    assert len(short.text) <= len(full.text)
    assert short.text.splitlines()[0] == full.text.splitlines()[0]
