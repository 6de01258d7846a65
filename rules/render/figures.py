"""The figures every face shows beside a pick (Markdown, Slack blocks, the page), said once for all of them in
the answer's language: the price with its digits grouped ("58 500 RUB"), the speed per round step of the
currency ("per 1000 USD", "per 100,000 RUB": per 1000 RUB it would read 0.08) and the memory ("24 ГБ").

Each figure is words to be said (:data:`~rules.knowledge.messages.Text`); the ``*_text`` forms say them in a
language, for the faces that lay out their own answer."""

from __future__ import annotations

from rules.contract.answer import Money, Pick
from rules.headline import dated_words
from rules.knowledge.messages import Grouped, Joined, Phrase, Text, spoken
from rules.money import money_step, money_step_text

__all__ = [
    "dated_text",
    "heading",
    "memory_text",
    "memory_words",
    "per_money",
    "price_text",
    "price_words",
    "speed_per_money",
]


def heading(key: str, then: Text | None = None) -> Joined:
    """A section's bold heading ("**Why**"), and what follows it on its line ("**Memory**: …")."""
    return Joined(("**", Phrase(key), "**")) if then is None else Joined(("**", Phrase(key), "**: ", then))


def price_words(money: Money) -> Grouped:
    return Grouped(money.text)


def per_money(pick: Pick) -> Phrase:
    """The pick's speed per step of the currency its price is in, at the rate that price was converted at."""
    money = pick.total_price
    per_usd = money.amount / money.usd if money.usd > 0 else 1.0
    value = pick.performance_per_1000 * money_step(per_usd) / 1000
    step = money_step_text(per_usd, money.currency)
    return Phrase("pick.per_step", {"value": f"{value:.2f}", "step": step})


def memory_words(gb: float) -> Phrase:
    return Phrase("pick.memory", {"gb": f"{gb:g}"})


def price_text(money: Money, lang: str | None = None) -> str:
    return spoken(price_words(money), lang)


def speed_per_money(pick: Pick, lang: str | None = None) -> str:
    return spoken(per_money(pick), lang)


def memory_text(gb: float, lang: str | None = None) -> str:
    return spoken(memory_words(gb), lang)


def dated_text(money: Money, lang: str | None = None) -> tuple[str, str]:
    """(kind, date) of a price as :func:`rules.headline.dated_words` words them, said in ``lang``."""
    kind, when = dated_words(money)
    return spoken(kind, lang), spoken(when, lang)
