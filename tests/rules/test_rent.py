"""Rent or buy over the shipped cloud offers: GPUs of every form factor, and TPUs where they suit."""

from __future__ import annotations

from datetime import date

import pytest

from rules.ask import ask
from rules.job_defaults import workload_key
from rules.market import representative_rentals
from rules.named import tpu_chips, tpu_named
from rules.rent import electricity_for, power_usd_per_hour
from rules.stages import configured
from rules.understand import parse
from tests.wire import wire

TODAY = date(2026, 11, 22)  # fixed, so answers do not change with the calendar


def _cheapest(catalog, unit_id: str, kind: str):
    offers = [o for o in catalog.offers_at(TODAY) if (o.tpu_id if kind == "tpu" else o.gpu_id) == unit_id]
    return min(offers, key=lambda o: o.per_unit_per_hour)


def test_tpu_versus_gpu_question_gets_a_tpu_rental_line(advisor, catalog):
    answer = wire(ask(advisor, "tpu v5e vs a100 for bert training, 20 hours a week", today=TODAY))[
        "recommendation"
    ]
    rent = answer["rent_vs_buy"]
    assert rent is not None
    tpu = next(o for o in rent["options"] if o["kind"] == "tpu" and o["id"] == "tpu-v5e")
    offer = _cheapest(catalog, "tpu-v5e", "tpu")
    assert tpu["per_hour"]["usd"] == pytest.approx(offer.per_unit_per_hour)
    assert tpu["per_year"]["usd"] == pytest.approx(offer.per_unit_per_hour * 20 * 52, rel=1e-3)
    assert tpu["source"] == offer.source and tpu["seen"] == offer.seen.isoformat()
    assert rent["hours_per_week"] == 20
    assert not any(
        "tpu" in f["reason"].lower() and "not in the catalog" in f["reason"] for f in answer["findings"]
    )


def test_tpus_are_left_out_where_the_workload_does_not_suit_them(recommend, advisor):
    assert "rnn" not in advisor.rulebook.tpu_fit.good_for
    rnn = recommend(workload="rnn", budget=2000)["rent_vs_buy"]
    assert rnn is not None and all(o["kind"] == "gpu" for o in rnn["options"])
    cnn = recommend(workload="cnn", budget=2000)["rent_vs_buy"]
    assert any(o["kind"] == "tpu" for o in cnn["options"])


def test_server_gpus_are_rented_though_never_bought_for_a_desktop(advisor):
    answer = wire(ask(advisor, "trillium vs h100 for transformer training", today=TODAY))["recommendation"]
    ids = {o["id"] for o in answer["rent_vs_buy"]["options"]}
    assert "tpu-v6e" in ids
    assert any(i.startswith("h100") for i in ids)


def test_nothing_to_buy_still_prices_the_rental(recommend):
    answer = recommend(workload="llm", task="inference", params_b=180, budget=1000)
    assert answer["verdict"] in ("over-budget", "too-large")
    rent = answer["rent_vs_buy"]
    assert rent is not None and rent["break_even_hours"] is None and rent["cheaper"] == "rent"
    assert all(y["buy"] is None for y in rent["years"])


def test_no_cloud_means_no_rental_in_a_comparison_either(advisor):
    answer = wire(ask(advisor, "tpu v5e vs a100 for bert training, no cloud", today=TODAY))["recommendation"]
    assert answer["rent_vs_buy"] is None


@pytest.mark.parametrize(
    "name,tpu_id",
    [("tpu v5e", "tpu-v5e"), ("Cloud TPU v6e", "tpu-v6e"), ("trillium", "tpu-v6e"), ("TPU-v4", "tpu-v4")],
)
def test_tpu_names_resolve(catalog, name, tpu_id):
    assert tpu_named(catalog, name).id == tpu_id
    assert tpu_named(catalog, "rtx 4090") is None


def test_tpu_speed_comes_from_its_spec_sheet(advisor, catalog):
    chips = tpu_chips(catalog)
    v5e, v6e = chips["tpu-v5e"], chips["tpu-v6e"]
    speed = [advisor.performance.relative(chip, "transformer", "16-bit") for chip in (v5e, v6e)]
    assert 0 < speed[0] < speed[1]


def test_the_rental_is_a_representative_provider_not_a_marketplace_outlier(advisor, catalog):
    h100 = next(r for r in advisor.markets.on(TODAY).rentals if r.unit.id == "h100-sxm")
    cheapest = _cheapest(catalog, "h100-sxm", "gpu")
    assert cheapest.per_unit_per_hour < 1.0  # the outlier marketplace row is in the data ...
    assert h100.providers >= 4 and 1.5 <= h100.per_unit_usd <= 3.5, h100  # ... but mainstream prices decide
    answer = wire(ask(advisor, "rent an h100 for llm training", today=TODAY))["recommendation"]
    h100_line = next(o for o in answer["rent_vs_buy"]["options"] if o["id"] == "h100-sxm")
    assert (
        h100_line["provider"] == h100.offer.provider and f"{h100.providers} providers" in h100_line["basis"]
    )


def test_the_answer_says_which_provider_the_rental_is_and_why(recommend):
    rent = recommend(workload="llm", budget=40000, gpus=4, setting="server")["rent_vs_buy"]
    assert rent["offer"]["provider"] in rent["offer"]["basis"] and rent["offer"]["basis"] in rent["reason"]


@pytest.mark.parametrize(
    "asked, expected_rule",
    [
        ({"gpus": 4, "setting": "server"}, "server_hours_per_week"),
        ({"gpus": 2}, "server_hours_per_week"),
        ({"gpus": 1}, "default_hours_per_week"),
    ],
)
def test_a_server_or_several_gpus_assume_more_hours_and_say_so(recommend, advisor, asked, expected_rule):
    hours = getattr(advisor.rulebook.rent_vs_buy, expected_rule)
    rent = recommend(workload="cnn", budget=20000, **asked)["rent_vs_buy"]
    assert rent["hours_per_week"] == hours and f"{hours:g} h/week assumed" in rent["reason"]


def test_hours_the_asker_gives_win_over_any_assumption(recommend):
    rent = recommend(workload="cnn", budget=20000, gpus=4, setting="server", hours_per_week=10)["rent_vs_buy"]
    assert rent["hours_per_week"] == 10 and "assumed" not in rent["reason"]


def _offer(provider: str, per_hour: float, seen: date):
    from rules.knowledge.records import CloudOffer

    return CloudOffer(
        provider, "1x", "H100", "h100-sxm", "gpu", 1, per_hour, per_hour, None, 80.0, seen, f"{provider} page"
    )


def test_old_cloud_prices_count_only_where_nothing_younger_is_known(advisor, catalog):
    from types import SimpleNamespace

    h100 = catalog.gpu("h100-sxm")
    old, young = date(2023, 1, 1), date(2026, 6, 1)
    offers = [
        _offer("Old cloud", 0.5, old),
        _offer("Another old cloud", 0.6, old),
        _offer("Young cloud", 2.5, young),
    ]
    stub = SimpleNamespace(gpus=(h100,), tpus={}, gpu=lambda _: h100, offers_at=lambda day: tuple(offers))
    [rental] = representative_rentals(stub, advisor.rulebook, TODAY, {})
    assert rental.offer.provider == "Young cloud" and rental.providers == 1
    offers[2:] = []
    [fallback] = representative_rentals(stub, advisor.rulebook, TODAY, {})
    assert fallback.offer.seen == old  # nothing younger: the old price still counts, with its date


ASKED_CARDS = ["h100", "a100 80gb", "rtx 4090", "rtx 5090", "rtx 5070 ti", "rtx 3090", "l40s", "rtx pro 6000"]


@pytest.mark.parametrize("card", ASKED_CARDS)
def test_rent_or_buy_weighs_the_card_asked_against_its_own_listing_only(advisor, card):
    answer = wire(ask(advisor, f"{card} for llm training", today=TODAY))["recommendation"]
    rent = answer["rent_vs_buy"]
    if rent is None or not answer["picks"]:
        pytest.skip(f"{card}: no pick or no rental to weigh")
    bought = answer["picks"][0]["gpu"]
    listed = {r.unit.id for r in advisor.markets.on(TODAY).rentals}
    if bought in listed:
        assert rent["offer"]["gpu"] == bought, rent["offer"]
        assert rent["break_even_hours"] is not None or "electricity" in rent["reason"]
    else:
        assert rent["break_even_hours"] is None and all(y["buy"] is None for y in rent["years"])
        assert rent["reason"].startswith("no provider lists the "), rent["reason"]


def test_an_h100_is_priced_on_an_h100_listing_never_an_mi300x(advisor):
    answer = wire(ask(advisor, "rent or buy an h100 for llm training, 8 hours a day", today=TODAY))
    rent = answer["recommendation"]["rent_vs_buy"]
    bought = answer["recommendation"]["picks"][0]["gpu"]
    assert rent["offer"]["gpu"] == bought and bought.startswith("h100") and "MI300X" not in rent["reason"]
    h100 = next(r for r in advisor.markets.on(TODAY).rentals if r.unit.id == bought)
    count = answer["recommendation"]["picks"][0]["count"]  # as many rented as bought
    assert rent["rent_per_hour"]["usd"] == pytest.approx(h100.per_unit_usd * count)
    assert rent["offer"]["seen"] == h100.offer.seen.isoformat() and h100.offer.provider in rent["reason"]


def test_a_card_no_provider_lists_says_so_and_names_no_break_even(advisor):
    listed = {r.unit.id for r in advisor.markets.on(TODAY).rentals}
    assert "rtx-5070-ti" not in listed  # the catalog's cloud offers do not list it
    rent = wire(ask(advisor, "is the rtx 5070 ti good for llm inference, 7b model", today=TODAY))[
        "recommendation"
    ]["rent_vs_buy"]
    assert rent["reason"].startswith("no provider lists the GeForce RTX 5070 Ti")
    assert rent["break_even_hours"] is None


@pytest.mark.parametrize(
    "text",
    [
        "qlora llama 3 8b, 1000 euros, new cards only",
        "lora fine-tune of qwen3 8b, $1500",
        "comfyui flux dev, what gpu under $1000",
        "qlora llama 3 8b on a used card, $500",
        "resnet 50 training, $900",
    ],
)
def test_a_stand_in_rental_is_as_fast_by_the_measure_the_pick_is_ranked_by(advisor, catalog, text):
    """'A card about as fast rents instead' weighs the rental at the job's own precision, as the pick is: at
    any other, a Quadro RTX 4000 of 2018 came out as fast as an RTX 5070 Ti for a QLoRA at 16-bit."""
    answer = wire(ask(advisor, text, today=TODAY))["recommendation"]
    rent, picks = answer["rent_vs_buy"], answer["picks"]
    if rent is None or not picks or picks[0]["count"] > 1 or rent["offer"]["gpu"] == picks[0]["gpu"]:
        return  # one card's speed against one rented unit's
    ratio = advisor.rulebook.rent_vs_buy.min_relative_speed
    work = workload_key(answer["workload"], "training")  # every question here trains

    def speed(gpu_id: str) -> float:  # 16-bit compute, as these training jobs run
        return advisor.performance.relative(catalog.gpu(gpu_id), work, "16-bit")

    assert speed(rent["offer"]["gpu"]) >= ratio * speed(picks[0]["gpu"]) * 0.999, rent["offer"]


def test_a_qlora_never_rents_a_tpu(advisor):
    """QLoRA's NF4 base is a bitsandbytes kernel, and bitsandbytes has no TPU backend."""
    for text in ("qlora bert large $15086 as of 2019", "qlora qwen 32b $60000", "qlora of llama 3 8b, $3000"):
        rent = wire(ask(advisor, text, today=TODAY))["recommendation"]["rent_vs_buy"]
        assert rent is None or not any(o["kind"] == "tpu" for o in rent["options"]), text


RENT_ONLY = ("I don't want to buy anything", "rent only", "cloud only", "не хочу покупать", "no buying")
JOBS = ("fine-tune llama 3 8b with lora", "qlora of llama 3 70b", "serve llama 3.1 8b to 20 users")


@pytest.mark.parametrize("said", RENT_ONLY)
@pytest.mark.parametrize("job", JOBS)
def test_renting_only_leads_with_the_rental_that_holds_the_job(advisor, said, job):
    """Asked to rent only, the first line is a rental, never a card to buy, and the rental holds the job."""

    reply = ask(advisor, f"{said}: {job}", today=date(2026, 11, 27))
    answer = reply.recommendation
    assert answer is not None and answer.rent_vs_buy is not None, reply.text
    first = reply.text.splitlines()[0]
    assert first.startswith(("**Rent, as asked", "**Арендуйте, как и просили")), first
    offer = answer.rent_vs_buy.offer
    unit = advisor.catalog.gpu(offer.gpu) if offer.gpu else None
    need = answer.memory_need.gb
    if unit is not None:
        assert unit.memory_gb * offer.count * 1.0737 >= need, (offer, need)
    assert offer.units in first
    assert "about as fast rents instead" not in reply.text  # nothing bought to set a rental beside


def test_saying_nothing_of_renting_still_buys(advisor):
    reply = ask(advisor, "fine-tune llama 3 8b with lora, $3000", today=date(2026, 11, 27))
    assert reply.text.startswith("**Buy"), reply.text.splitlines()[0]


@pytest.mark.parametrize(
    ("text", "machines"),
    [
        ("llama 70b 4-bit, i have a 3090, 2 gpus", {("rtx-3090", 2)}),
        ("compare 4090 and 5090 for sdxl", {("rtx-4090", 1), ("rtx-5090", 1)}),
        ("nlp $2000", set()),
    ],
)
def test_the_electricity_of_each_machine_weighed_is_priced_once_by_the_same_sum(
    advisor, text: str, machines: set[tuple[str, int]]
) -> None:
    question = parse(text, today=TODAY).question
    stages = configured(question, TODAY, advisor.known)
    top = stages.kept[0]
    electricity = electricity_for(stages, advisor.known, (top, None))
    assert set(electricity) == machines | {(top.gpu.id, top.count)}
    system, price = advisor.rulebook.rent_vs_buy.system_power_w, advisor.known.electricity_usd_per_kwh
    for (gpu, count), usd in electricity.items():
        assert usd == power_usd_per_hour(advisor.catalog.gpu(gpu).tdp_w, count, system, price) > 0
