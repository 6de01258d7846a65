"""The whole job, timed and priced on each way to get the compute: own cards, buying, renting, a TPU.

People ask about jobs ("pretrain a 1B model on 20B tokens"), not cards. A training run's work is
its model FLOPs: about 6 × parameters per token for forward and backward, plus the attention over
the context (rule ``job-cost``, the accounting training reports use for their FLOPs utilisation).
A card delivers its dense 16-bit tensor peak times the utilisation that tuned open training code
reaches; the band around it comes from the spread of published runs. Time follows, and from it
money: buying (the price and the electricity), renting (on demand and spot, provider and date
named), the lab's own cards (their price spread over the hours they are used, and electricity).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from msgspec.structs import replace as with_changes

from rules.contract.answer import JobCost, JobOption, Money, ServingCost, ServingOption, Way
from rules.knowledge.loaded import find_model
from rules.knowledge.messages import Phrase, spoken
from rules.market import Rental, TpuChip

if TYPE_CHECKING:
    from rules.configurations import Configuration
    from rules.contract.question import Question
    from rules.job import Job
    from rules.knowledge import Catalog, CloudOffer, Gpu, ModelSpec, Rulebook
    from rules.knowledge.parameters import JobCostParameters
    from rules.money import Pricing
    from rules.performance import PerformanceModel
    from rules.stages import Known, Stages

__all__ = [
    "Costing",
    "JobAsked",
    "Work",
    "amortised_per_hour",
    "hours_on",
    "job_cost",
    "job_priced",
    "measured_share",
    "peak_tflops",
    "priced_job",
    "running_costs",
    "served",
    "serving_cost",
    "serving_cost_per_million",
    "training_work",
    "transcription",
    "transcription_work",
]

COUNTS = (1, 2, 4, 8)  # one node: beyond eight cards a run spans machines, which this estimate leaves out


@dataclass(frozen=True)
class Work:
    """A run's model FLOPs, and the words that name it: a training run's tokens, a transcription's hours."""

    flops: float
    tokens: float
    params_b: float
    method: str
    audio_hours: float | None = None


def training_work(
    params_b: float, tokens_b: float, method: str, spec: ModelSpec | None, params: JobCostParameters
) -> Work:
    """The run's FLOPs: ``flops_per_param_token`` × N per token, plus 12 × layers × context × width
    for attention when the model's shape is known (at the context runs train at, not the longest the
    model reads). Adapters skip the frozen weights' gradients
    (``adapter_speedup``, the LoRA paper's measured 25 %)."""
    per_token = params.flops_per_param_token * params_b * 1e9
    if spec is not None and spec.layers and spec.hidden and spec.seq_len:
        context = min(spec.seq_len, params.training_context)
        per_token += params.attention_flops_factor * spec.layers * context * spec.hidden
    if method in ("lora", "qlora"):
        per_token /= params.adapter_speedup
    tokens = tokens_b * 1e9
    return Work(per_token * tokens, tokens, params_b, method)


def transcription_work(audio_hours: float, spec: ModelSpec, reference: Gpu, reference_params_b: float,
                       params: JobCostParameters) -> Work:  # fmt: skip
    """The transcription's FLOPs: each second of audio costs what the measurement implies (``reference`` at
    the job-cost utilisation transcribes ``transcription_realtime`` seconds a second with the reference
    model), a smaller Whisper its share of the parameters; cards then differ by their tensor peak."""
    per_second = peak_tflops(reference) * 1e12 * params.utilisation / params.transcription_realtime
    per_second *= spec.params_b / reference_params_b
    return Work(audio_hours * 3600 * per_second, 0.0, spec.params_b, "transcription", audio_hours)


def transcription(
    question: Question, job: Job, params: JobCostParameters, catalog: Catalog
) -> tuple[Work, Phrase] | None:
    """Hours of audio to transcribe with a speech model (the rule's measured one where none is named): the
    job's work, and the measured speed it comes from, to be said in the asker's words."""
    speech = job.model.kind == "speech" if job.model is not None else question.workload == "speech"
    if not question.audio_hours or job.method != "inference" or not speech:
        return None
    measured, reference = find_model(params.transcription_model), catalog.find(params.transcription_gpu)
    if measured is None or reference is None:
        return None
    spec = job.model or measured
    work = transcription_work(question.audio_hours, spec, reference, measured.params_b, params)
    key = "job.transcription_measured" if spec.id == measured.id else "job.transcription_scaled"
    basis = Phrase(key, {"model": spec.name, "measured": measured.name, "gpu": reference.name,
                         "realtime": f"{params.transcription_realtime:g}"})  # fmt: skip
    return work, basis


def peak_tflops(unit: Gpu | TpuChip) -> float:
    """The dense 16-bit tensor peak the utilisation is measured against (shader FP16 without matrix units)."""
    tensor = unit.tensor_tflops
    return tensor.get("bf16") or tensor.get("fp16") or unit.fp16_tflops


def hours_on(work: Work, unit: Gpu | TpuChip, count: int, utilisation: float) -> float:
    """Wall-clock hours of ``work`` on ``count`` × ``unit`` at ``utilisation`` of the tensor peak."""
    return work.flops / (peak_tflops(unit) * 1e12 * count * utilisation) / 3600


def serving_cost_per_million(hourly_usd: float, tokens_per_second: float) -> float:
    """USD per million tokens generated when the configuration serves ``tokens_per_second`` in all."""
    return hourly_usd / (tokens_per_second * 3600) * 1e6


@dataclass(frozen=True)
class Costing:
    """What the job costs on one question's terms: its work, prices, electricity and hours of use."""

    work: Work
    params: JobCostParameters
    pricing: Pricing
    electricity: Mapping[tuple[str, int], float]  # (card, count) -> USD an hour: rules.rent.electricity_for
    holds: Callable[[Gpu | TpuChip, int], bool]  # the job's memory fits on this many of these
    # the lab's measured share of a card's datasheet tensor peak against the usual share (1.0: no measurement)
    measured: Callable[[Gpu | TpuChip], float] = lambda unit: 1.0

    def band(self, unit: Gpu | TpuChip, count: int) -> tuple[float, float, float]:
        """Hours at the central utilisation, and at the band's high and low (fastest first)."""
        low, high = self.params.utilisation_band
        stack = self.params.stack_share.get(unit.software, 1.0) * self.measured(unit)
        return (
            hours_on(self.work, unit, count, self.params.utilisation * stack),
            hours_on(self.work, unit, count, high * stack),
            hours_on(self.work, unit, count, low * stack),
        )

    def power_usd_per_hour(self, unit: Gpu | TpuChip, count: int) -> float:
        """Electricity of ``count`` cards and the machine around them, per hour of the run."""
        return self.electricity[(unit.id, count)]

    def count_for(self, unit: Gpu | TpuChip) -> int | None:
        """The fewest cards (of one node) that hold the job, doubled while the run outlasts
        ``longest_wall_hours``."""
        holding = [n for n in COUNTS if self.holds(unit, n)]
        if not holding:
            return None
        count = holding[0]
        while count < COUNTS[-1] and self.band(unit, count)[0] > self.params.longest_wall_hours:
            count *= 2
        return count

    def option(
        self,
        way: Way,
        unit: Gpu | TpuChip,
        count: int,
        *,
        up_front_usd: float = 0.0,
        hourly_usd: float = 0.0,
        spot_hourly_usd: float | None = None,
        offer: CloudOffer | None = None,
    ) -> JobOption:
        """One way to run the job: ``up_front_usd`` (a purchase) and ``hourly_usd`` while it runs; a card
        the lab runs itself also pays its electricity, a rental's is in its price."""
        hours, fast, slow = self.band(unit, count)
        rate = hourly_usd + (0.0 if offer is not None else self.power_usd_per_hour(unit, count))

        def cost(h: float) -> Money:
            return self.pricing.money(up_front_usd + rate * h)

        return JobOption(
            way=way,
            gpu=unit.id,
            name=unit.name,
            count=count,
            hours=round(hours, 2),
            hours_low=round(fast, 2),
            hours_high=round(slow, 2),
            cost=cost(hours),
            cost_low=cost(fast),
            cost_high=cost(slow),
            per_hour=self.pricing.money(rate),
            spot_cost=None if spot_hourly_usd is None else self.pricing.money(spot_hourly_usd * hours),
            provider=None if offer is None else offer.provider,
            seen=None if offer is None else offer.seen.isoformat(),
        )

    def rented(self, rental: Rental, asked: int | None = None) -> JobOption | None:
        """The rental on ``asked`` units, else on as many as hold the job; spot priced where listed."""
        count = asked or self.count_for(rental.unit)
        if count is None:
            return None
        offer = rental.offer
        spot = offer.spot_per_hour / offer.count * count if offer.spot_per_hour else None
        way: Way = "tpu" if isinstance(rental.unit, TpuChip) else "rent"
        return self.option(
            way, rental.unit, count, hourly_usd=rental.per_unit_usd * count, spot_hourly_usd=spot, offer=offer
        )


def amortised_per_hour(price_usd: float, years: int, hours_per_week: float) -> float:
    """A card the lab owns costs its price spread over the hours it is used in ``years`` (rule
    ``rent-vs-buy``)."""
    return price_usd / (years * 52 * hours_per_week)


def job_cost(
    costing: Costing,
    rentals: Sequence[Rental],
    *,
    bought: tuple[Gpu, int, float] | None = None,
    owned: tuple[Gpu, int, float] | None = None,
    named: Sequence[tuple[Gpu, int]] = (),
    tpu_suits: bool = False,
) -> JobCost:
    """The job on each way to get the compute, cheapest first: the lab's own cards (``owned``: card,
    count, USD per hour of use, see :func:`amortised_per_hour`), buying ``bought`` (card, count, total
    price in USD), the cards the question ``named`` at the count it named (rented where a provider lists
    them, else bought), and the cheapest rentals that hold it (TPUs where ``tpu_suits``)."""
    options: list[JobOption] = []
    if owned is not None:
        gpu, count, per_hour = owned
        options.append(costing.option("own", gpu, count, hourly_usd=per_hour))
    if bought is not None:
        gpu, count, price = bought
        options.append(costing.option("buy", gpu, count, up_front_usd=price))
    asked_ids = {gpu.id for gpu, _ in named}
    for gpu, count in named:  # the cards the question names, at the count it names: rented where listed
        rental = next((r for r in rentals if r.unit.id == gpu.id), None)
        if rental is not None and (option := costing.rented(rental, count)) is not None:
            options.append(with_changes(option, asked=True))
        elif (point := costing.pricing.best_price(gpu)) is not None:
            option = costing.option("buy", gpu, count, up_front_usd=point.price_usd * count)
            options.append(with_changes(option, asked=True))
    rented = [
        option
        for rental in rentals
        if (tpu_suits or not isinstance(rental.unit, TpuChip)) and rental.unit.id not in asked_ids
        if (option := costing.rented(rental)) is not None
    ]
    rented.sort(key=lambda o: (o.cost.usd, o.hours))
    options.extend(rented[: costing.params.rentals_shown])
    options.sort(key=lambda o: (o.cost.usd, o.hours))
    work = costing.work
    return JobCost(
        method=work.method,
        params_b=work.params_b,
        tokens_b=float(f"{work.tokens / 1e9:.4g}"),
        flops=float(f"{work.flops:.3g}"),
        audio_hours=work.audio_hours,
        utilisation=costing.params.utilisation,
        utilisation_band=costing.params.utilisation_band,
        options=tuple(options),
    )


@dataclass(frozen=True)
class JobAsked:
    """What the engine knows of a training job when it prices it: the run and the cards around it."""

    params_b: float
    tokens_b: float
    method: str
    model: ModelSpec | None
    top: tuple[Gpu, int, float] | None  # the pick: card, count, total price in USD
    owned: Gpu | None  # the card the asker has
    owned_count: int
    owned_price_usd: float | None  # one of them at today's price, new or used: what the lab's card is worth
    hours_per_week: float
    named: tuple[tuple[Gpu, int], ...] = ()  # the cards the question names, at the count it names
    work: Work | None = None  # a job measured otherwise than by its training tokens (a transcription)


def measured_share(performance: PerformanceModel, rulebook: Rulebook) -> Callable[[Gpu | TpuChip], float]:
    """How much more (or less) of its tensor peak a card reached on the lab's own hosts than cards usually
    do (rule ``peak-efficiency``), bounded to half or one and a half: the lab's matmul runs, where it has
    them, correct the run's speed on that card."""
    usual = rulebook.workload_priorities.efficiency.tensor

    def share(unit: Gpu | TpuChip) -> float:
        measured = performance.measured(unit.id)
        matmul = measured.matmul_tflops if measured else {}
        tflops = matmul.get("bf16") or matmul.get("fp16")
        if not tflops:
            return 1.0
        return min(1.5, max(0.5, tflops / (peak_tflops(unit) * usual)))

    return share


def priced_job(
    asked: JobAsked,
    *,
    rulebook: Rulebook,
    pricing: Pricing,
    rentals: Sequence[Rental],
    fit: Callable[[float, int], bool],
    electricity: Mapping[tuple[str, int], float],
    tpu_suits: bool,
    measured: Callable[[Gpu | TpuChip], float] = lambda unit: 1.0,
) -> JobCost:
    """The engine's stage: the run's work, and each way to run it priced (see :func:`job_cost`)."""
    params = rulebook.job_cost
    costing = Costing(
        work=asked.work or training_work(asked.params_b, asked.tokens_b, asked.method, asked.model, params),
        params=params,
        pricing=pricing,
        electricity=electricity,
        holds=lambda unit, count: fit(unit.memory_gb, count),
        measured=measured,
    )
    owned = None
    if asked.owned is not None and asked.owned_price_usd is not None:
        years = max(rulebook.rent_vs_buy.years)
        per_hour = amortised_per_hour(asked.owned_price_usd * asked.owned_count, years, asked.hours_per_week)
        owned = (asked.owned, asked.owned_count, per_hour)
    return job_cost(costing, rentals, bought=asked.top, owned=owned, named=asked.named, tpu_suits=tpu_suits)


WEEKS_PER_MONTH = 30.44 / 7  # weeks in an average month


def serving_cost(
    bought: tuple[Gpu, int, float],
    rental: Rental | None,
    *,
    users: int,
    tokens_per_user: float,
    months: float,
    hours_per_week: float,
    pricing: Pricing,
    power_usd_per_hour: float,
) -> ServingCost:
    """Serving ``users`` for ``months``: the configuration bought (its price and electricity) against the
    same cards rented, each in all and per million tokens generated at the users' load."""
    gpu, count, price_usd = bought
    hours = months * WEEKS_PER_MONTH * hours_per_week
    millions = users * tokens_per_user * 3600 * hours / 1e6

    def option(way: str, usd: float, offer: CloudOffer | None = None) -> ServingOption:
        return ServingOption(
            way=way,  # type: ignore[arg-type]
            gpu=gpu.id,
            name=gpu.name,
            count=count,
            cost=pricing.money(usd),
            per_million=pricing.money(usd / millions),
            provider=None if offer is None else offer.provider,
            seen=None if offer is None else offer.seen.isoformat(),
        )

    options = [option("buy", price_usd + power_usd_per_hour * hours)]
    if rental is not None:
        options.append(option("rent", rental.per_unit_usd * count * hours, rental.offer))
    options.sort(key=lambda o: o.cost.usd)
    return ServingCost(
        users=users,
        tokens_per_user=tokens_per_user,
        months=months,
        hours_per_week=hours_per_week,
        options=tuple(options),
    )


def served(
    stages: Stages, known: Known, top: Configuration | None, electricity: Mapping[tuple[str, int], float]
) -> ServingCost | None:
    """A model served to its users: the pick bought against the same cards rented, for the period."""
    question, rulebook = stages.question, known.rulebook
    if not question.users or stages.job.method != "inference" or top is None:
        return None
    rental = next((r for r in stages.market.rentals if r.unit.id == top.gpu.id), None)
    return serving_cost(
        (top.gpu, top.count, top.total_usd),
        rental,
        users=question.users,
        tokens_per_user=question.tokens_per_user
        or rulebook.workload_priorities.llm_decode.reading_tokens_per_second,
        months=question.service_months or 12,
        hours_per_week=question.hours_per_week or rulebook.rent_vs_buy.server_hours_per_week,
        pricing=stages.pricing,
        power_usd_per_hour=electricity[(top.gpu.id, top.count)],
    )


def job_priced(
    stages: Stages, known: Known, top: Configuration | None, electricity: Mapping[tuple[str, int], float]
) -> JobCost | None:
    """A training run's tokens or a transcription's audio: its hours and cost on each way to run it."""
    question, job, rulebook, catalog = stages.question, stages.job, known.rulebook, known.catalog
    params_b = job.model.params_b if job.model is not None else question.params_b
    tokens_b, per_example = question.training_tokens_b, None
    if not tokens_b and question.examples:  # "on 50k examples for 3 epochs"
        per_example = rulebook.job_cost.tokens_per_example
        tokens_b = question.examples * per_example * (question.epochs or 1) / 1e9
    transcribed = transcription(question, job, rulebook.job_cost, catalog)
    work, basis = transcribed if transcribed is not None else (None, None)
    if work is None and (not tokens_b or not params_b or job.method == "inference"):
        return None
    owned = stages.asker.owned  # the card the asker has, as the stages resolved it
    point = None if owned is None else stages.market.best_price(owned, used_ok=True)
    asked = JobAsked(
        params_b=params_b or 0.0,
        tokens_b=tokens_b or 0.0,
        method=job.method,
        model=job.model,
        top=None if top is None else (top.gpu, top.count, top.total_usd),
        owned=owned,
        owned_count=question.gpus if owned is not None else 1,
        owned_price_usd=None if point is None else point.price_usd,
        hours_per_week=stages.asker.hours_per_week,
        named=tuple(
            (gpu, question.gpus) for name in question.compare if (gpu := catalog.find(name)) is not None
        ),
        work=work,
    )
    sizing = stages.sizing
    priced = priced_job(
        asked,
        rulebook=rulebook,
        pricing=stages.pricing,
        rentals=stages.market.rentals,
        fit=lambda memory_gb, count: sizing.fit(memory_gb, count).fits,
        electricity=electricity,
        tpu_suits=question.workload in rulebook.tpu_fit.good_for,
        measured=measured_share(known.performance, rulebook),
    )
    if basis is not None:
        return with_changes(priced, basis=spoken(basis, question.language))
    if per_example is None:
        return priced
    return with_changes(
        priced, examples=question.examples, tokens_per_example=per_example, epochs=question.epochs or 1
    )


def running_costs(
    stages: Stages, known: Known, top: Configuration | None, electricity: Mapping[tuple[str, int], float]
) -> tuple[ServingCost | None, JobCost | None]:
    """The stage: what the pick costs to run, where the question says how long (a served model's period, a
    training run's tokens or a transcription's audio), each way against the others."""
    job = job_priced(stages, known, top, electricity)
    return served(stages, known, top, electricity), job
