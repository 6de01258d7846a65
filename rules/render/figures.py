"""The figures every face shows beside a pick (Markdown, Slack blocks, the page), said once for all of them in
the answer's language: the price with its digits grouped ("58 500 RUB"), the speed per round step of the
currency ("per 1000 USD", "per 100,000 RUB": per 1000 RUB it would read 0.08) and the memory ("24 ГБ").

Each figure is words to be said (:data:`~rules.knowledge.messages.Text`); the ``*_text`` forms say them in a
language, for the faces that lay out their own answer. :func:`words_for` words every pick an answer shows
once, as its first line words them, before the short or the full answer lays out its lines."""

from __future__ import annotations

from dataclasses import dataclass

from rules.contract.answer import Answer, Money, NamedCard, Pick
from rules.headline import dated_words, figure, named_in_headline, not_picked, price_said, same_chip
from rules.knowledge.messages import Grouped, Joined, Phrase, Text, spoken
from rules.money import money_step, money_step_text

__all__ = [
    "Shown",
    "Words",
    "dated_text",
    "heading",
    "memory_text",
    "memory_words",
    "per_money",
    "price_text",
    "speed_per_money",
    "words_for",
]


def heading(key: str, then: Text | None = None) -> Joined:
    """A section's bold heading ("**Why**"), and what follows it on its line ("**Memory**: …")."""
    return Joined(("**", Phrase(key), "**")) if then is None else Joined(("**", Phrase(key), "**: ", then))


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
    return spoken(Grouped(money.text), lang)


def speed_per_money(pick: Pick, lang: str | None = None) -> str:
    return spoken(per_money(pick), lang)


def memory_text(gb: float, lang: str | None = None) -> str:
    return spoken(memory_words(gb), lang)


def dated_text(money: Money, lang: str | None = None) -> tuple[str, str]:
    """(kind, date) of a price as :func:`rules.headline.dated_words` words them, said in ``lang``."""
    kind, when = dated_words(money)
    return spoken(kind, lang), spoken(when, lang)


@dataclass(frozen=True)
class Shown:
    """One pick as the lines under the first line word it: the price and speed as the first line says them,
    and for the full answer its memory, its worth per step of money and, for a price with a date, what the
    price is and how old (as :func:`~rules.headline.dated_words` words it)."""

    pick: Pick
    memory: Phrase
    per_money: Phrase
    price: Text  # the price as the first line says it: an aged one dated
    figure: Text  # the speed the job gets (the reference card unnamed)
    unit_dated: tuple[Text, Text] | None  # (kind, date) of the price of one card, where it has a date
    total_dated: tuple[Text, Text] | None  # the same of the price in all


@dataclass(frozen=True)
class Words:
    """Every pick and alternative of an answer as :class:`Shown`, in the answer's order, and what the lines
    say of the cards named: those the first line leaves for them (None: it judges the named cards itself),
    and whether the rental weighed is the top pick's own chip in another form."""

    picks: tuple[Shown, ...]
    alternatives: tuple[tuple[str, Shown], ...]
    left: tuple[NamedCard, ...] | None
    same_chip: bool


def words_for(answer: Answer) -> Words:
    """The words of every pick the answer shows, made once for the short and the full answer: this module's
    figures, then those the first line words."""
    shown = [*answer.picks, *(p for p in answer.alternatives.values() if p is not None)]
    worth = [(memory_words(p.memory_gb), per_money(p)) for p in shown]
    said = [
        (
            price_said(p),
            figure(p, ""),
            dated_words(p.unit_price) if p.unit_price.seen else None,
            dated_words(p.total_price) if p.total_price.seen else None,
        )
        for p in shown
    ]
    left = None if named_in_headline(answer) else not_picked(answer)
    rent, top = answer.rent_vs_buy, answer.picks[0] if answer.picks else None
    chip = rent is not None and top is not None and same_chip(top, rent.offer)
    made = [
        Shown(p, memory, money, price, speed, unit, total)
        for p, (memory, money), (price, speed, unit, total) in zip(shown, worth, said, strict=True)
    ]
    labels = [label for label, p in answer.alternatives.items() if p is not None]
    count = len(answer.picks)
    return Words(tuple(made[:count]), tuple(zip(labels, made[count:], strict=True)), left, chip)
