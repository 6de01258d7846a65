"""The figures every face shows beside a pick (Markdown, Slack blocks, the page), said once for all of them in
the answer's language: the price with its digits grouped ("58 500 RUB"), the speed per round step of the
currency ("per 1000 USD", "per 100,000 RUB": per 1000 RUB it would read 0.08) and the memory ("24 ГБ")."""

from __future__ import annotations

from rules.contract.answer import Money, Pick
from rules.knowledge.messages import grouped, say
from rules.money import money_step, money_step_text

__all__ = ["memory_text", "price_text", "speed_per_money"]


def price_text(money: Money, lang: str | None = None) -> str:
    return grouped(money.text, lang)


def speed_per_money(pick: Pick, lang: str | None = None) -> str:
    """The pick's speed per step of the currency its price is in, at the rate that price was converted at."""
    money = pick.total_price
    per_usd = money.amount / money.usd if money.usd > 0 else 1.0
    value = pick.performance_per_1000 * money_step(per_usd) / 1000
    return say("pick.per_step", lang, value=f"{value:.2f}", step=money_step_text(per_usd, money.currency))


def memory_text(gb: float, lang: str | None = None) -> str:
    return say("pick.memory", lang, gb=f"{gb:g}")

