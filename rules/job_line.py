"""The first line of a question about a whole training run ("how long to pretrain a 1B model on 20B tokens"):
the card asked, else the cheapest way, with the run's time and cost; then the cheapest way where it is
another, or buying."""

from __future__ import annotations

from rules.contract.answer import JobCost, JobOption
from rules.knowledge.messages import say

__all__ = ["DAYS_FROM_HOURS", "job_first", "job_time"]

DAYS_FROM_HOURS = 72  # a run longer than three days reads better in days


def job_first(job: JobCost, lang: str | None) -> str:
    """The card asked (else the cheapest way) for the whole run, its time and cost; then the cheapest way
    where it is another, or buying."""
    cheapest = job.options[0]
    first = next((o for o in job.options if o.asked), cheapest)
    said = say(
        "headline.job", lang, way=_way(first, lang, True), time=job_time(first, lang), cost=first.cost.text
    )
    if first is not cheapest:
        return said + say(
            "headline.job_cheapest",
            lang,
            way=_way(cheapest, lang),
            time=job_time(cheapest, lang),
            cost=cheapest.cost.text,
        )
    bought = next((o for o in job.options if o.way == "buy"), None)
    if bought is not None and bought is not first:
        said += say(
            "headline.job_buy",
            lang,
            way=_way(bought, lang),
            time=job_time(bought, lang),
            cost=bought.cost.text,
        )
    return said


def _way(option: JobOption, lang: str | None, lead: bool = False) -> str:
    """How the option gets the compute, in words: rent it, your own cards, or the cards bought."""
    rent = "headline.way_rent_lead" if lead else "headline.way_rent"
    key = {"rent": rent, "tpu": rent, "own": "headline.way_own"}.get(
        option.way, "headline.way_buy_lead" if lead else "headline.way_buy"
    )
    return say(key, lang, count=option.count, name=option.name, provider=option.provider or "")


def job_time(option: JobOption, lang: str | None) -> str:
    if option.hours >= DAYS_FROM_HOURS:
        low, value, high = (f"{h / 24:,.0f}" for h in (option.hours_low, option.hours, option.hours_high))
        return say("job.time.days", lang, value=value, low=low, high=high)
    digits = 1 if option.hours < 10 else 0
    low, value, high = (f"{h:,.{digits}f}" for h in (option.hours_low, option.hours, option.hours_high))
    return say("job.time.hours", lang, value=value, low=low, high=high)
