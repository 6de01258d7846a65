"""The first line of a question about a whole training run ("how long to pretrain a 1B model on 20B tokens"):
the card asked, else the cheapest way, with the run's time and cost; then the cheapest way where it is
another, or buying."""

from __future__ import annotations

from rules.contract.answer import JobCost, JobOption
from rules.knowledge.messages import Phrase, Text

__all__ = ["DAYS_FROM_HOURS", "job_first", "job_time"]

DAYS_FROM_HOURS = 72  # a run longer than three days reads better in days


def job_first(job: JobCost) -> Text:
    """The card asked (else the cheapest way) for the whole run, its time and cost; then the cheapest way
    where it is another, or buying."""
    cheapest = job.options[0]
    first = next((o for o in job.options if o.asked), cheapest)
    said: Text = Phrase(
        "headline.job",
        {"way": _way(first, True), "time": job_time(first), "cost": first.cost.text},
    )
    if first is not cheapest:
        return said + Phrase(
            "headline.job_cheapest",
            {"way": _way(cheapest), "time": job_time(cheapest), "cost": cheapest.cost.text},
        )
    bought = next((o for o in job.options if o.way == "buy"), None)
    if bought is not None and bought is not first:
        said += Phrase(
            "headline.job_buy",
            {"way": _way(bought), "time": job_time(bought), "cost": bought.cost.text},
        )
    return said


def _way(option: JobOption, lead: bool = False) -> Phrase:
    """How the option gets the compute, in words: rent it, your own cards, or the cards bought."""
    rent = "headline.way_rent_lead" if lead else "headline.way_rent"
    key = {"rent": rent, "tpu": rent, "own": "headline.way_own"}.get(
        option.way, "headline.way_buy_lead" if lead else "headline.way_buy"
    )
    return Phrase(key, {"count": option.count, "name": option.name, "provider": option.provider or ""})


def job_time(option: JobOption) -> Phrase:
    if option.hours >= DAYS_FROM_HOURS:
        low, value, high = (f"{h / 24:,.0f}" for h in (option.hours_low, option.hours, option.hours_high))
        return Phrase("job.time.days", {"value": value, "low": low, "high": high})
    digits = 1 if option.hours < 10 else 0
    low, value, high = (f"{h:,.{digits}f}" for h in (option.hours_low, option.hours, option.hours_high))
    return Phrase("job.time.hours", {"value": value, "low": low, "high": high})
