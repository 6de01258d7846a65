"""The whole job in words: its work, then each way to run it with its time and cost, cheapest first."""

from __future__ import annotations

from rules.contract.answer import JobCost, JobOption, Money, ServingCost
from rules.job_line import job_time
from rules.knowledge.messages import say, term
from rules.render.figures import price_text

__all__ = ["job_lines", "serving_lines"]


def _money(money: Money, lang: str | None) -> str:
    return price_text(money, lang)


def _line(option: JobOption, lang: str | None) -> str:
    values = {
        "count": option.count,
        "name": option.name,
        "time": job_time(option, lang),
        "cost": _money(option.cost, lang),
    }
    if option.way in ("rent", "tpu"):
        spot = "" if option.spot_cost is None else say("job.spot", lang, cost=_money(option.spot_cost, lang))
        return say(
            "job.rent",
            lang,
            **values,
            provider=option.provider or "",
            cost_low=f"{option.cost_low.amount:,.0f}",
            cost_high=f"{option.cost_high.amount:,.0f}",
            per_hour=f"{option.per_hour.amount:.2f} {option.per_hour.currency}",
            spot=spot,
            date=option.seen or "",
        )
    return say(f"job.{option.way}", lang, **values)


def _tokens(billions: float, lang: str | None) -> str:
    """20B, or 77M below a billion."""
    if billions >= 1:
        return say("job.tokens.b", lang, n=f"{float(f'{billions:.3g}'):,g}")
    return say("job.tokens.m", lang, n=f"{float(f'{billions * 1000:.3g}'):,g}")


def _transcription(job: JobCost, lang: str | None) -> str:
    """The audio, the model and the measured speed the transcription's FLOPs come from."""
    flops = f"{job.flops:.2g}".replace("e+", "e")
    hours = f"{job.audio_hours or 0:,g}"
    return say("job.transcription", lang, hours=hours, basis=job.basis or "", flops=flops)


def _training(job: JobCost, lang: str | None) -> str:
    """The run's method, size and tokens, its FLOPs and the utilisation they are timed at; the examples the
    tokens came from where the question gave those."""
    low, high = job.utilisation_band
    work = say(
        "job.work",
        lang,
        method=term("job.method", job.method, lang),
        params=f"{job.params_b:g}",
        tokens=_tokens(job.tokens_b, lang),
        flops=f"{job.flops:.2g}".replace("e+", "e"),
        utilisation=f"{job.utilisation * 100:.0f}",
        low=f"{low * 100:.0f}",
        high=f"{high * 100:.0f}",
    )
    if job.examples is not None:  # the tokens came from the examples: say what was assumed
        work += say(
            "job.from_examples",
            lang,
            examples=f"{job.examples:,}",
            per=f"{job.tokens_per_example:,}",
            epochs=f"{job.epochs:g}",
        )
    return work


def job_lines(job: JobCost | None, lang: str | None) -> list[str]:
    """The section of the answer that times and prices the whole run (rule ``job-cost``)."""
    if job is None or not job.options:
        return []
    work = _transcription(job, lang) if job.audio_hours is not None else _training(job, lang)
    lines = ["", f"**{say('heading.whole_job', lang)}**", f"- {work} (_job-cost_)"]
    lines += [f"- {_line(option, lang)}" for option in job.options]
    return lines


def serving_lines(serving: ServingCost | None, lang: str | None) -> list[str]:
    """Serving the users for the period: buying against renting the same cards, in all and per million
    tokens (rule ``job-cost``)."""
    if serving is None or not serving.options:
        return []
    said = say(
        "job.serving",
        lang,
        users=serving.users,
        tps=f"{serving.tokens_per_user:g}",
        hours=f"{serving.hours_per_week:g}",
        months=f"{serving.months:g}",
    )
    lines = ["", f"**{say('heading.whole_job', lang)}**", f"- {said} (_job-cost_)"]
    for option in serving.options:
        values = {
            "count": option.count,
            "name": option.name,
            "cost": price_text(option.cost, lang),
            "per_million": f"{option.per_million.amount:.2f} {option.per_million.currency}",
        }
        if option.way == "rent":
            lines.append(
                "- "
                + say(
                    "job.serve_rent", lang, **values, provider=option.provider or "", date=option.seen or ""
                )
            )
        else:
            lines.append("- " + say("job.serve_buy", lang, **values))
    return lines
