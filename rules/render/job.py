"""The whole job in words: its work, then each way to run it with its time and cost, cheapest first."""

from __future__ import annotations

from rules.contract.answer import JobCost, JobOption, ServingCost
from rules.job_line import job_time
from rules.knowledge.messages import Grouped, Joined, Phrase, Term, Text
from rules.render.figures import heading

__all__ = ["job_lines", "serving_lines"]


def _line(option: JobOption) -> Phrase:
    values = {
        "count": option.count,
        "name": option.name,
        "time": job_time(option),
        "cost": Grouped(option.cost.text),
    }
    if option.way in ("rent", "tpu"):
        spot = (
            "" if option.spot_cost is None else Phrase("job.spot", {"cost": Grouped(option.spot_cost.text)})
        )
        return Phrase(
            "job.rent",
            {
                **values,
                "provider": option.provider or "",
                "cost_low": f"{option.cost_low.amount:,.0f}",
                "cost_high": f"{option.cost_high.amount:,.0f}",
                "per_hour": f"{option.per_hour.amount:.2f} {option.per_hour.currency}",
                "spot": spot,
                "date": option.seen or "",
            },
        )
    return Phrase(f"job.{option.way}", {**values})


def _tokens(billions: float) -> Phrase:
    """20B, or 77M below a billion."""
    if billions >= 1:
        return Phrase("job.tokens.b", {"n": f"{float(f'{billions:.3g}'):,g}"})
    return Phrase("job.tokens.m", {"n": f"{float(f'{billions * 1000:.3g}'):,g}"})


def _transcription(job: JobCost) -> Phrase:
    """The audio, the model and the measured speed the transcription's FLOPs come from."""
    flops = f"{job.flops:.2g}".replace("e+", "e")
    hours = f"{job.audio_hours or 0:,g}"
    return Phrase("job.transcription", {"hours": hours, "basis": job.basis or "", "flops": flops})


def _training(job: JobCost) -> Text:
    """The run's method, size and tokens, its FLOPs and the utilisation they are timed at; the examples the
    tokens came from where the question gave those."""
    low, high = job.utilisation_band
    work: Text = Phrase(
        "job.work",
        {
            "method": Term("job.method", job.method),
            "params": f"{job.params_b:g}",
            "tokens": _tokens(job.tokens_b),
            "flops": f"{job.flops:.2g}".replace("e+", "e"),
            "utilisation": f"{job.utilisation * 100:.0f}",
            "low": f"{low * 100:.0f}",
            "high": f"{high * 100:.0f}",
        },
    )
    if job.examples is not None:  # the tokens came from the examples: say what was assumed
        work += Phrase(
            "job.from_examples",
            {
                "examples": f"{job.examples:,}",
                "per": f"{job.tokens_per_example:,}",
                "epochs": f"{job.epochs:g}",
            },
        )
    return work


def job_lines(job: JobCost | None) -> list[Text]:
    """The section of the answer that times and prices the whole run (rule ``job-cost``)."""
    if job is None or not job.options:
        return []
    work = _transcription(job) if job.audio_hours is not None else _training(job)
    lines: list[Text] = [
        "",
        heading("heading.whole_job"),
        Joined(("- ", work, " (_job-cost_)")),
    ]
    lines += [Joined(("- ", _line(option))) for option in job.options]
    return lines


def serving_lines(serving: ServingCost | None) -> list[Text]:
    """Serving the users for the period: buying against renting the same cards, in all and per million
    tokens (rule ``job-cost``)."""
    if serving is None or not serving.options:
        return []
    said = Phrase(
        "job.serving",
        {
            "users": serving.users,
            "tps": f"{serving.tokens_per_user:g}",
            "hours": f"{serving.hours_per_week:g}",
            "months": f"{serving.months:g}",
        },
    )
    lines: list[Text] = [
        "",
        heading("heading.whole_job"),
        Joined(("- ", said, " (_job-cost_)")),
    ]
    for option in serving.options:
        values: dict[str, object] = {
            "count": option.count,
            "name": option.name,
            "cost": Grouped(option.cost.text),
            "per_million": f"{option.per_million.amount:.2f} {option.per_million.currency}",
        }
        if option.way == "rent":
            lines.append(
                "- "
                + Phrase(
                    "job.serve_rent", {**values, "provider": option.provider or "", "date": option.seen or ""}
                )
            )
        else:
            lines.append("- " + Phrase("job.serve_buy", {**values}))
    return lines
