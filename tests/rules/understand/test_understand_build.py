"""From what was read to the question: out-of-range values are refused naming the field."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from rules.errors import QuestionError
from rules.understand import clean, parse
from rules.understand.build import PASSES
from rules.understand.grammar import grammar
from rules.understand.text import Scan

TODAY = date(2024, 6, 15)
GOLDEN = Path(__file__).resolve().parents[2] / "quality" / "golden.json"


@pytest.mark.parametrize(
    ("text", "field_name"),
    [
        ("as of 2031", "as_of"),
        ("nlp $800 as of 2999-01-01", "as_of"),
        ("as of 2999", "as_of"),
        ("in 1999", "as_of"),
        ("as of 2019-13", "as_of"),
        ("as of 2019-02-30", "as_of"),
        ("30 gpus", "gpus"),
        ("$0", "budget"),
        ("$99999999999", "budget"),
        ("0 gb", "memory_gb"),
        ("200 hours a week", "hours_per_week"),
    ],
)
def test_out_of_range_values_raise_question_error(text: str, field_name: str) -> None:
    with pytest.raises(QuestionError) as caught:
        parse(text, today=TODAY)
    assert caught.value.field == field_name


def test_a_pass_marked_as_needing_a_digit_takes_nothing_from_a_text_without_one() -> None:
    """Passes marked in PASSES as reading only what holds a digit are skipped for texts without one: run
    anyway over digitless texts (the golden questions with their digits dropped, and every vocabulary word),
    each leaves the scan as it found it."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["questions"]
    words = [word.replace("*", "") for concept in grammar().data["concepts"] for word in concept["words"]]
    texts = [clean(re.sub(r"\d", " ", q["text"])) for q in golden] + [clean(word) for word in words]
    needing = [step for step, needs_digits in PASSES if needs_digits]
    assert len(needing) > 5
    for text in texts:
        for step in needing:
            scan = Scan(text, TODAY)
            before = repr(vars(scan))
            step(scan)
            assert repr(vars(scan)) == before, (step.__name__, text)
