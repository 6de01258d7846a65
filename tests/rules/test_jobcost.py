"""The whole job's time and cost: the FLOPs accounting held against published training runs, and the
options (own, buy, rent, TPU) priced from the same hours."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from rules.advisor import Advisor
from rules.contract.answer import JobCost
from rules.jobcost import (
    Costing,
    amortised_per_hour,
    hours_on,
    job_cost,
    peak_tflops,
    serving_cost_per_million,
    training_work,
)
from rules.knowledge import load_knowledge
from rules.knowledge.loaded import find_model
from rules.knowledge.models import ModelSpec
from rules.market import Rental, TpuChip
from rules.money import Pricing
from rules.rent import power_usd_per_hour

KNOWLEDGE = load_knowledge()
PARAMS = KNOWLEDGE.rulebook.job_cost
CATALOG = KNOWLEDGE.catalog
ADVISOR = Advisor(CATALOG, rulebook=KNOWLEDGE.rulebook)


@dataclass(frozen=True)
class PublishedRun:
    what: str
    model: str
    params_b: float
    tokens_b: float
    gpu: str
    count: int
    hours: float  # wall-clock hours reported (GPU-hours / count where the source gives GPU-hours)
    source: str


PUBLISHED = (
    PublishedRun(
        "GPT-2 124M reproduced with llm.c: 10B tokens on one 8X A100 80GB SXM node in about 90 minutes",
        "gpt2",
        0.124,
        10,
        "a100-80gb-sxm",
        8,
        1.5,
        "https://github.com/karpathy/llm.c/discussions/481 (2024-05-28)",
    ),
    PublishedRun(
        "TinyLlama 1.1B: 3T tokens on 16 A100-40G in about 90 days",
        "tinyllama",
        1.1,
        3000,
        "a100-40gb-sxm",
        16,
        90 * 24,
        "https://github.com/jzhang38/TinyLlama, arXiv 2401.02385 (2024-01-04)",
    ),
    PublishedRun(
        "Llama 2 7B: 2T tokens, 184,320 A100-80GB GPU-hours",
        "llama-2-7b",
        6.74,
        2000,
        "a100-80gb-sxm",
        1,
        184_320,
        "arXiv 2307.09288, table 2 (2023-07-18)",
    ),
)

# TinyLlama's shape (its config.json: 22 layers, width 2048, trained at 2,048 tokens) where the model table
# does not list it.
TINYLLAMA = ModelSpec(
    id="tinyllama",
    name="TinyLlama 1.1B",
    kind="llm",
    workload="llm",
    params_b=1.1,
    layers=22,
    hidden=2048,
    kv_fraction=0.125,
    seq_len=2048,
    train_batch=1,
    activation_gb_per_sample=None,
    aliases=(),
)


@pytest.mark.parametrize("run", PUBLISHED, ids=lambda r: r.model)
def test_training_time_is_within_a_quarter_of_published_runs(run: PublishedRun) -> None:
    spec = find_model(run.model) or TINYLLAMA
    work = training_work(run.params_b, run.tokens_b, "pretrain", spec, PARAMS)
    estimate = hours_on(work, CATALOG.gpu(run.gpu), run.count, PARAMS.utilisation)
    assert abs(estimate / run.hours - 1) <= 0.25, f"{run.what}: {estimate:.1f} h against {run.hours} h"


@pytest.mark.parametrize("run", PUBLISHED, ids=lambda r: r.model)
def test_the_band_holds_every_published_run(run: PublishedRun) -> None:
    spec = find_model(run.model) or TINYLLAMA
    work = training_work(run.params_b, run.tokens_b, "pretrain", spec, PARAMS)
    low, high = PARAMS.utilisation_band
    unit = CATALOG.gpu(run.gpu)
    assert hours_on(work, unit, run.count, high) <= run.hours <= hours_on(work, unit, run.count, low)


def test_adapters_train_faster_than_full_and_attention_counts() -> None:
    spec = find_model("llama-2-7b")
    full = training_work(6.74, 1, "full", spec, PARAMS)
    lora = training_work(6.74, 1, "lora", spec, PARAMS)
    bare = training_work(6.74, 1, "full", None, PARAMS)
    assert lora.flops == pytest.approx(full.flops / PARAMS.adapter_speedup)
    assert bare.flops == pytest.approx(6 * 6.74e9 * 1e9)
    assert full.flops > bare.flops  # attention over the training context


def test_attention_is_counted_at_the_training_context_not_the_longest_read() -> None:
    long_read = find_model("llama 3.1 8b")
    assert (
        long_read is not None
        and long_read.seq_len is not None
        and long_read.seq_len > PARAMS.training_context
    )
    work = training_work(long_read.params_b, 1, "full", long_read, PARAMS)
    per_token = work.flops / 1e9
    assert per_token < 6 * long_read.params_b * 1e9 * 1.2


def _costing(tokens_b: float, need_gb: float, as_of: dt.date = dt.date(2026, 11, 26)) -> Costing:
    work = training_work(1.0, tokens_b, "pretrain", None, PARAMS)
    return Costing(
        work=work,
        params=PARAMS,
        pricing=Pricing.for_question(CATALOG, as_of, "USD", False, KNOWLEDGE.rulebook),
        # every card, one to eight of it in a machine of 100 W, at 0.15 USD a kWh
        electricity={
            (gpu.id, n): power_usd_per_hour(gpu.tdp_w, n, 100, 0.15)
            for gpu in CATALOG.gpus
            for n in range(1, 9)
        },
        holds=lambda unit, count: unit.memory_gb * count >= need_gb,
    )


def _rentals(as_of: dt.date = dt.date(2026, 11, 26)) -> tuple[Rental, ...]:
    return ADVISOR.markets.on(as_of).rentals


def test_options_are_priced_from_their_hours_cheapest_first() -> None:
    costing = _costing(20, need_gb=30)
    h100 = CATALOG.gpu("h100-sxm")
    own = (CATALOG.gpu("rtx-4090"), 2, amortised_per_hour(3200.0, 2, 20))
    answer = job_cost(costing, _rentals(), bought=(h100, 1, 30000.0), owned=own)
    assert isinstance(answer, JobCost)
    costs = [o.cost.usd for o in answer.options]
    assert costs == sorted(costs)
    ways = {o.way for o in answer.options}
    assert {"own", "buy", "rent"} <= ways and "tpu" not in ways
    for option in answer.options:
        assert option.hours_low <= option.hours <= option.hours_high
        assert option.cost_low.usd <= option.cost.usd <= option.cost_high.usd
        if option.way == "rent":
            assert option.provider and option.seen
            assert option.cost.usd == pytest.approx(option.per_hour.usd * option.hours, rel=0.01, abs=0.02)
        if option.way == "buy":
            assert option.cost.usd > 30000  # the card's price and the run's electricity
    bought = next(o for o in answer.options if o.way == "buy")
    assert bought.hours == pytest.approx(hours_on(costing.work, h100, 1, PARAMS.utilisation), rel=0.01)


def test_a_job_too_big_for_a_card_is_not_offered_on_it() -> None:
    costing = _costing(20, need_gb=500)
    answer = job_cost(costing, _rentals())
    for option in answer.options:
        unit = CATALOG.gpu(option.gpu)
        assert unit.memory_gb * option.count >= 500


def test_long_runs_get_more_cards_up_to_a_node() -> None:
    costing = _costing(200, need_gb=10)
    answer = job_cost(costing, _rentals())
    assert answer.options
    for option in answer.options:
        fewer = option.count // 2
        assert option.count in {1, 8} or costing.band(CATALOG.gpu(option.gpu), fewer)[0] > 72


def test_tpus_only_where_the_job_suits_them() -> None:
    costing = _costing(20, need_gb=10)
    rentals = _rentals()
    assert any(isinstance(r.unit, TpuChip) for r in rentals)
    with_tpus = job_cost(costing, rentals, tpu_suits=True)
    without = job_cost(costing, rentals)
    assert all(o.way != "tpu" for o in without.options)
    assert len(with_tpus.options) == len(without.options)


def test_serving_cost_per_million_tokens() -> None:
    assert serving_cost_per_million(2.0, 1000) == pytest.approx(2.0 / 3.6)


def _answer(**fields: object):  # type: ignore[no-untyped-def]
    from rules.contract.question import Question

    return ADVISOR.recommend(Question(**fields), today=dt.date(2026, 11, 26))  # type: ignore[arg-type]


def test_a_training_run_with_its_tokens_is_timed_and_priced_on_the_pick_and_the_askers_cards() -> None:
    answer = _answer(
        params_b=1.0,
        method="pretrain",
        training_tokens_b=20,
        workload="llm",
        budget=5000,
        owned_gpu="rtx 3090",
        gpus=2,
    )
    job = answer.job_cost
    assert job is not None and job.tokens_b == 20 and job.method == "pretrain"
    ways = {o.way: o for o in job.options}
    assert ways["buy"].gpu == answer.picks[0].gpu and ways["buy"].count == answer.picks[0].count
    assert ways["own"].gpu == "rtx-3090" and ways["own"].count == 2
    assert "rent" in ways


def test_no_job_cost_without_tokens_or_for_inference() -> None:
    assert _answer(params_b=1.0, method="pretrain", workload="llm", budget=5000).job_cost is None
    assert (
        _answer(
            params_b=8.0, method="inference", task="inference", training_tokens_b=1, workload="llm"
        ).job_cost
        is None
    )


def test_the_section_names_each_option_with_its_time_and_cost() -> None:
    from rules.knowledge.messages import spoken
    from rules.render.job import job_lines

    answer = _answer(params_b=1.0, method="pretrain", training_tokens_b=20, workload="llm", budget=5000)
    assert answer.job_cost is not None
    lines = [spoken(line, "en") for line in job_lines(answer.job_cost)]
    assert lines[1] == "**The whole job**"
    assert "20B tokens" in lines[2] and "_job-cost_" in lines[2]
    assert len(lines) == 3 + len(answer.job_cost.options)
    for option, line in zip(answer.job_cost.options, lines[3:], strict=True):
        assert option.name in line and option.cost.text in line
    russian = [spoken(line, "ru") for line in job_lines(answer.job_cost)]
    assert russian[1] == "**Вся задача целиком**"


def test_a_named_card_is_timed_at_the_count_asked() -> None:
    """'pretrain gpt-2 on 10b tokens on 8 a100 80gb': the card asked, at eight, against the 90 min."""
    answer = _answer(
        model="gpt2", method="pretrain", training_tokens_b=10, compare=("a100 80gb sxm",), gpus=8
    )
    assert answer.job_cost is not None
    asked = next(o for o in answer.job_cost.options if o.gpu == "a100-80gb-sxm")
    assert asked.count == 8
    assert abs(asked.hours / 1.5 - 1) <= 0.25
    assert sum(o.gpu == "a100-80gb-sxm" for o in answer.job_cost.options) == 1


def test_the_first_line_answers_the_job_with_its_cheapest_way_and_buying_beside_it() -> None:
    answer = _answer(params_b=1.0, method="pretrain", training_tokens_b=20, workload="llm", budget=3000)
    job = answer.job_cost
    assert job is not None
    first = job.options[0]
    assert first.name in answer.headline and first.cost.text in answer.headline
    bought = next(o for o in job.options if o.way == "buy")
    if bought is not first:
        assert f"buying {bought.count} × {bought.name}" in answer.headline
    assert answer.headline.split(":")[0].startswith(("Rent", "Buy", "On your"))


@pytest.mark.parametrize(
    ("text", "examples", "epochs"),
    [
        ("fine-tune llama 3.1 8b with lora on 50k examples for 3 epochs", 50_000, 3),
        ("fine-tune qwen3 8b on 50,000 samples", 50_000, None),
        ("дообучить llama 3.1 8b на 10 000 примеров, 2 эпохи", 10_000, 2),
    ],
)
def test_a_fine_tune_asked_by_its_examples_is_read_and_timed(
    text: str, examples: int, epochs: float | None
) -> None:
    from rules.ask import ask

    reply = ask(ADVISOR, text, today=dt.date(2026, 11, 26))
    assert reply.question is not None
    assert reply.question.examples == examples and reply.question.epochs == epochs
    assert not reply.not_understood
    job = reply.recommendation.job_cost if reply.recommendation else None
    assert job is not None and job.examples == examples and job.epochs == (epochs or 1)
    assert job.tokens_b == pytest.approx(examples * PARAMS.tokens_per_example * (epochs or 1) / 1e9, rel=1e-3)
    assert f"{PARAMS.tokens_per_example:,}" in reply.text  # the assumed length is said


@pytest.mark.parametrize(
    ("text", "users", "months"),
    [
        ("serve qwen3 32b to 30 people for a year", 30, 12),
        ("serve llama 3.1 8b to 10 users for 6 months", 10, 6),
        ("раздавать qwen3 32b 30 пользователям на год", 30, 12),
    ],
)
def test_serving_for_a_period_is_priced_bought_and_rented_per_million_tokens(
    text: str, users: int, months: float
) -> None:
    from rules.ask import ask

    reply = ask(ADVISOR, text, today=dt.date(2026, 11, 26))
    assert reply.question is not None and not reply.not_understood
    assert reply.question.users == users and reply.question.service_months == months
    answer = reply.recommendation
    assert answer is not None and answer.serving_cost is not None
    serving, top = answer.serving_cost, answer.picks[0]
    assert serving.users == users and serving.months == months
    bought = next(o for o in serving.options if o.way == "buy")
    assert (bought.gpu, bought.count) == (top.gpu, top.count)
    assert bought.cost.usd > top.total_price.usd  # the price and the electricity for the period
    hours = months * 30.44 / 7 * serving.hours_per_week
    millions = users * serving.tokens_per_user * 3600 * hours / 1e6
    for option in serving.options:
        assert option.per_million.usd == pytest.approx(option.cost.usd / millions, abs=0.01)
    costs = [o.cost.usd for o in serving.options]
    assert costs == sorted(costs)
    assert bought.per_million.text.split()[-1] in reply.text


def test_a_question_without_users_has_no_serving_cost() -> None:
    assert _answer(model="qwen3-32b", task="inference", workload="llm").serving_cost is None


def test_the_labs_own_matmul_runs_correct_a_cards_training_speed() -> None:
    from rules.contract.question import Question
    from rules.performance import Measured

    h100 = CATALOG.gpu("h100-sxm")
    usual = KNOWLEDGE.rulebook.workload_priorities.efficiency.tensor
    slow = {"h100-sxm": Measured(hosts=2, matmul_tflops={"bf16": 0.6 * usual * h100.tensor_tflops["bf16"]})}
    lab = Advisor(CATALOG, measurements=slow, rulebook=KNOWLEDGE.rulebook)
    question = Question(
        params_b=1.0, method="pretrain", training_tokens_b=20, workload="llm", compare=("h100 sxm",), gpus=1
    )

    def hours(advisor: Advisor) -> float:
        job = advisor.recommend(question, today=dt.date(2026, 11, 26)).job_cost
        assert job is not None
        return next(o.hours for o in job.options if o.gpu == "h100-sxm" and o.asked)

    assert hours(lab) == pytest.approx(hours(ADVISOR) / 0.6, rel=0.02)


def test_a_transcription_runs_the_measured_model_at_its_measured_speed_on_the_measured_card() -> None:
    """The rule's measurement holds where it was made: the reference card, at the central utilisation,
    transcribes the reference model at the measured multiple of real time; a smaller Whisper costs its
    share."""
    from rules.jobcost import transcription_work

    reference = CATALOG.find(PARAMS.transcription_gpu)
    measured = find_model(PARAMS.transcription_model)
    turbo = find_model("whisper large v3 turbo")
    assert reference is not None and measured is not None and turbo is not None
    work = transcription_work(1000, measured, reference, measured.params_b, PARAMS)
    hours = hours_on(work, reference, 1, PARAMS.utilisation)
    assert hours == pytest.approx(1000 / PARAMS.transcription_realtime)
    lighter = transcription_work(1000, turbo, reference, measured.params_b, PARAMS)
    assert lighter.flops == pytest.approx(work.flops * turbo.params_b / measured.params_b)


@pytest.mark.parametrize("audio_hours", [50, 400, 2000, 20000])
@pytest.mark.parametrize(
    "text",
    [
        "transcribe {n} hours of audio with whisper large-v3",
        "we have {n} hours of recorded interviews to transcribe, rent or buy a gpu?",
        "{n} hours of podcasts to transcribe with whisper turbo",
        "расшифровать {n} часов аудио через whisper",
    ],
)
def test_hours_of_audio_are_a_transcription_timed_and_priced_never_a_budget(text: str, audio_hours: int):
    from rules.ask import ask

    reply = ask(ADVISOR, text.format(n=f"{audio_hours:,}"), today=dt.date(2026, 11, 26))
    assert reply.question is not None and reply.question.budget is None
    assert reply.question.audio_hours == audio_hours and not reply.not_understood
    job = reply.recommendation.job_cost if reply.recommendation else None
    assert job is not None and job.audio_hours == audio_hours and job.options
    reference = CATALOG.find(PARAMS.transcription_gpu)
    assert reference is not None
    for option in job.options:  # every way runs the same FLOPs: hours x cards x peak is the work
        card = CATALOG.find(option.gpu)
        assert card is not None
        delivered = option.hours * 3600 * option.count * peak_tflops(card) * 1e12 * PARAMS.utilisation
        rounding = 0.005 / option.hours  # hours are kept to two decimals
        stack = 0.01 if card.software == "cuda" else 0.5  # another stack reaches less of its peak
        assert delivered == pytest.approx(job.flops, rel=rounding + stack)
    assert str(f"{audio_hours:,}") in reply.text.replace("\u00a0", ",").replace(" ", ",")


def test_rent_or_buy_asked_of_a_one_off_transcription_is_answered_from_the_job() -> None:
    """A one-off job's own hours settle renting against buying, not the hours a week a card would be used."""
    from rules.ask import ask

    text = "2000 hours of audio to transcribe, one time. rent or buy?"
    reply = ask(ADVISOR, text, today=dt.date(2026, 11, 26))
    job = reply.recommendation.job_cost if reply.recommendation else None
    assert job is not None
    first = reply.text.split("\n", 1)[0]
    assert first.startswith("**Rent ") and job.options[0].cost.text in first, first
    assert "a week" not in first
