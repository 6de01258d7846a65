"""An advisor keeps nothing of one answer for the next but the market of each date: one that has answered
other budgets, currencies and shapes first answers each question exactly as a fresh advisor does."""

from __future__ import annotations

import msgspec

from rules.advisor import Advisor
from rules.ask import ask
from tests.rules.conftest import TODAY

TEXTS = (
    "nlp ${}",
    "cv ${} 2 gpus",
    "llm ${} used ok",
    "kaggle ${} beginner",
    "rl ${} in EUR",
    "learning ${} server",
    "llama 13b qlora ${}",
    "transformers ${} i have a rtx 3060",
    "nlp ${} cheapest",
    "cv ${} as of 2019",
    "compare 3090 4090 for nlp ${}",
    "deep learning ${} 10 hours a week",
)
# Each side of the two money personas' limits ($150 and $350, rules.json), and far above them.
BUDGETS = (90, 140, 160, 300, 340, 360, 800, 2500, 15000)


def test_an_answer_is_the_same_whatever_was_asked_before(catalog):
    warm = Advisor(catalog)
    for text in TEXTS:
        for budget in BUDGETS:
            asked = text.format(budget)
            after_others = msgspec.json.encode(ask(warm, asked, today=TODAY))
            alone = msgspec.json.encode(ask(Advisor(catalog), asked, today=TODAY))
            assert after_others == alone, asked
