"""One price per card per answer: the summary, the picks and the alternatives agree to the unit."""

from __future__ import annotations

import re

import pytest

from rules.answer import Money
from rules.ask import ask
from tests.rules.conftest import TODAY
from tests.wire import wire

LISTED = re.compile(r"\*\*(?:\d+ × )?([^*]+?)\*\* — ([\d,]+) ([A-Z]{3})")
SUMMARY = re.compile(r"\d+ × (.+?) at ([\d,]+) ([A-Z]{3}) each")


def test_an_amount_is_held_to_the_cent() -> None:
    assert Money(665.496, "EUR", 780.0).amount == 665.5
    assert wire(Money(665.496, "EUR", 780.0))["amount"] == 665.5


@pytest.mark.parametrize("currency", ["€", "£", "RUB"])
def test_each_card_has_one_price_in_an_answer(advisor, currency: str) -> None:
    differing = []
    for workload in ("llm", "cv", "nlp", "kaggle"):
        for budget in (500, 700, 900, 1500, 3000):
            text = f"{workload} {budget * 90} rub" if currency == "RUB" else f"{workload} {currency}{budget}"
            reply = ask(advisor, text, today=TODAY)
            shown: dict[str, set[str]] = {}
            for name, amount, code in LISTED.findall(reply.text) + SUMMARY.findall(reply.text):
                shown.setdefault(f"{name} {code}", set()).add(amount)
            differing += [(text, card, amounts) for card, amounts in shown.items() if len(amounts) > 1]
    assert differing == []
