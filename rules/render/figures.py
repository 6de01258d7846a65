"""The figures every face shows beside a pick (Markdown, Slack blocks, the page), said once for all of them in
the answer's language: the price with its digits grouped ("58 500 RUB"), the speed per round step of the
currency ("per 1000 USD", "per 100,000 RUB": per 1000 RUB it would read 0.08) and the memory ("24 ГБ").

Each figure is words to be said (:data:`~rules.knowledge.messages.Text`); the ``*_text`` forms say them in a
language, for the faces that lay out their own answer."""

from __future__ import annotations

from datetime import date

from rules.contract.answer import Money, Pick, RentOffer
from rules.knowledge.catalog import model_number
from rules.knowledge.messages import Grouped, Joined, Phrase, Term, Text, spoken
from rules.money import money_step, money_step_text

__all__ = [
    "dated_text",
    "dated_words",
    "figure",
    "heading",
    "memory_text",
    "memory_words",
    "per_money",
    "price_said",
    "price_text",
    "price_words",
    "same_chip",
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
    """(kind, date) of a price as :func:`dated_words` words them, said in ``lang``."""
    kind, when = dated_words(money)
    return spoken(kind, lang), spoken(when, lang)


def dated_words(money: Money) -> tuple[Text, Text]:
    """(kind, date) as an answer names a price: ("new", "2026-08-15") while fresh; an aged one by what it
    was and how old ("launch price", "February 2025, 21 months old"), never as today's price."""
    kind = "estimate" if money.estimate else str(money.kind)
    if money.seen is None or money.age_months is None:
        return Term("price.kind", kind), str(money.seen)
    seen = date.fromisoformat(money.seen)
    month = Phrase(f"price.month.{seen.month}")
    key = "price.age" if money.age_months else "price.this_month"
    when = Phrase(key, {"month": month, "year": seen.year, "months": money.age_months})
    return Term("price.aged", kind), when


def price_said(pick: Pick) -> Text:
    """The pick's price; one that is not a fresh shop price says what it is and how old (an aged launch
    price, the lab's own quote, an estimate), so no answer shows it as today's."""
    text = Grouped(pick.total_price.text)
    unit = pick.unit_price
    if unit.seen and (unit.age_months is not None or unit.estimate or unit.kind == "quote"):
        kind, seen = dated_words(unit)
        return Joined((text, " (", kind, ", ", seen, ")"))
    return text


def figure(pick: Pick, reference: str) -> Phrase:
    """What the job gets from a pick: tokens (or images, or sequences trained on) a second with their band,
    else the multiple of the reference card (named when ``reference`` is given)."""
    speed = pick.speed
    if speed is not None:
        band = {"value": f"{speed.value:,.0f}", "low": f"{speed.low:,.0f}", "high": f"{speed.high:,.0f}"}
        if speed.users:
            users, total = f"{speed.users:,}", f"{speed.value * speed.users:,.0f}"
            return Phrase("headline.tokens_users", {"users": users, "total": total, **band})
        key = "headline.tokens" if speed.unit == "tokens/s" else "headline.throughput"
        return Phrase(key, {"unit": Phrase(f"unit.{speed.unit.replace('/', '_')}"), **band})
    relative = f"{pick.relative_performance:.1f}"
    if not reference:  # said once where the answer names it
        return Phrase("headline.relative_short", {"relative": relative})
    return Phrase("headline.relative", {"relative": relative, "reference": reference})


def same_chip(pick: Pick, offer: RentOffer) -> bool:
    """Whether the rental is the card's own chip in another form (an H200 SXM for an H200 NVL)."""
    chip = model_number(pick.name)
    return chip is not None and model_number(offer.accelerator) == chip
