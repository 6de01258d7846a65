"""Prices that say their age: a 2026 street price where a source gives one, the age of an older price named in
the answer, an aged price weighing less than a fresh one, and withdrawn configurations never offered new."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ask import ask
from rules.knowledge.loaded import load_rulebook
from rules.knowledge.records import PricePoint
from rules.money import Pricing, months_between
from rules.render.figures import dated_text
from tests.wire import wire

TODAY = date(2026, 11, 26)
STREET = "Street price seen"


@pytest.fixture(scope="module")
def rulebook():
    return load_rulebook()


def _pricing(catalog, rulebook, used_ok: bool = False) -> Pricing:
    return Pricing.for_question(catalog, TODAY, "USD", used_ok, rulebook)


@pytest.mark.parametrize(
    "gpu_id, launch_usd, low, high",
    [
        ("rtx-5070-ti", 749, 800, 1200),  # $829 best price, early 2026 (PC Gamer)
        ("rtx-5060-ti-16gb", 429, 440, 640),  # $450 best price, early 2026 (PC Gamer)
        ("rx-9070-xt", 599, 620, 700),  # about $630, December 2025
        ("dgx-spark", 3999, 4600, 4800),  # $4,699 list price from mid 2026
        ("ryzen-ai-max-395-128gb", 1999, 2400, 2500),  # Framework Desktop 128 GB, $2,459 from January 2026
        ("mac-studio-m3-ultra-96gb", 3999, 5200, 5400),  # $5,299 after Apple's June 2026 price rise
    ],
)
def test_a_card_people_buy_is_priced_at_its_sourced_street_price_not_its_launch_price(
    catalog, rulebook, gpu_id, launch_usd, low, high
):
    point = _pricing(catalog, rulebook).best_price(catalog.gpu(gpu_id))
    assert point is not None and point.kind == "new" and not point.estimate, point
    assert point.source.startswith(STREET) and "http" in point.source, point.source
    assert low <= point.price_usd <= high and point.price_usd != launch_usd, point
    assert point.seen >= date(2025, 11, 1)


@pytest.mark.parametrize(
    "question, name",
    [
        ("is the rtx 5070 ti good for llm inference, 7b model", "GeForce RTX 5070 Ti"),
        ("rtx 5060 ti 16gb for stable diffusion", "GeForce RTX 5060 Ti 16 GB"),
        ("rx 9070 xt for llm inference", "Radeon RX 9070 XT"),
    ],
)
def test_an_old_price_in_the_answer_says_what_it_was_and_how_old(advisor, rulebook, question, name):
    reply = ask(advisor, question, today=TODAY)
    top = reply.recommendation.picks[0]
    price = top.unit_price
    fresh = rulebook.param("cost-efficiency", "fresh_months")
    age = months_between(date.fromisoformat(price.seen), TODAY)
    line = next(line for line in reply.text.splitlines() if line.startswith("1. "))
    if age > fresh:
        assert price.age_months == age
        kind, when = dated_text(price)
        assert f"({kind}, {when})" in line and f"{age} months old" in line, line
        assert price.seen not in line  # never the bare date a current price would carry
    else:
        assert price.age_months is None and price.seen in line


@settings(max_examples=60, deadline=None)
@given(
    months=st.integers(min_value=0, max_value=30),
    kind=st.sampled_from(["msrp", "new", "used"]),
)
def test_every_price_past_its_freshness_window_is_named_with_its_age(catalog, rulebook, months, kind):
    pricing = _pricing(catalog, rulebook, used_ok=True)
    index = TODAY.year * 12 + TODAY.month - 1 - months  # the 15th of the month ``months`` before today's
    seen = date(index // 12, index % 12 + 1, 15)
    point = PricePoint(seen, kind, 500.0, 500.0, "USD", "a dated source")
    money = pricing.money(500.0, point)
    aged = months_between(seen, TODAY) > rulebook.param("cost-efficiency", "fresh_months")
    assert (money.age_months is not None) == aged
    kind_words, when = dated_text(money)
    if aged:
        assert str(seen.year) in when and f"{money.age_months} months old" in when
        assert kind_words in ("launch price", "street price", "used price")
        assert pricing.weighed_usd(point) > point.price_usd
    else:
        assert when == seen.isoformat() and pricing.weighed_usd(point) == point.price_usd


def test_the_launch_price_of_2025_is_named_as_such(catalog, rulebook):
    point = PricePoint(date(2025, 2, 20), "msrp", 749.0, 749.0, "USD", "vendor launch price")
    money = _pricing(catalog, rulebook).money(749.0, point)
    assert dated_text(money) == ("launch price", "February 2025, 21 months old")
    assert wire(money)["age_months"] == 21


def test_an_aged_new_price_weighs_less_than_a_fresh_used_one(catalog, rulebook):
    old_new = PricePoint(date(2025, 3, 1), "msrp", 1000.0, 1000.0, "USD", "vendor launch price")
    fresh_used = PricePoint(date(2026, 10, 1), "used", 900.0, 900.0, "USD", "sold listings")
    card = SimpleNamespace(
        id="card", line=None, released=date(2025, 3, 1), withdrawn=None, prices=(old_new, fresh_used)
    )
    pricing = _pricing(catalog, rulebook, used_ok=True)
    weight = rulebook.param("cost-efficiency", "stale_weight")
    assert pricing.weighed_usd(old_new) == pytest.approx(1000.0 / weight)
    assert pricing.best_price(card) == fresh_used  # 900 fresh beats 1000 aged; so would 1,100
    dearer_used = PricePoint(fresh_used.seen, "used", 1100.0, 1100.0, "USD", "sold listings")
    assert (
        pricing.best_price(SimpleNamespace(**{**vars(card), "prices": (old_new, dearer_used)})) == dearer_used
    )


@pytest.mark.parametrize(
    "gpu_id", ["mac-studio-m3-ultra-512gb", "mac-studio-m3-ultra-256gb", "mac-studio-m4-max-128gb"]
)
def test_a_withdrawn_configuration_is_marked_and_never_offered_new(advisor, catalog, rulebook, gpu_id):
    gpu = catalog.gpu(gpu_id)
    assert gpu.withdrawn is not None and gpu.withdrawn <= TODAY and "http" in gpu.sources["withdrawn"]
    before = Pricing.for_question(catalog, date(2025, 12, 1), "USD", False, rulebook)
    assert before.best_price(gpu) is not None  # on sale before it was withdrawn
    assert _pricing(catalog, rulebook).best_price(gpu) is None
    market = advisor.markets.on(TODAY)
    assert not any(o.gpu.id == gpu_id and o.condition == "new" for o in market.offers)
    reply = wire(ask(advisor, "mac studio 512gb for llama 3 405b inference", today=TODAY))
    offered = [p for p in reply["recommendation"]["picks"] if p["gpu"] == gpu_id]
    assert all(p["condition"] != "new" for p in offered)


def test_every_imported_street_price_keeps_its_source_and_date(catalog):
    street = [(gpu, p) for gpu in catalog.gpus for p in gpu.prices if p.source.startswith(STREET)]
    assert len(street) >= 20
    for gpu, point in street:
        assert "https://" in point.source and "reliability" in point.source, (gpu.id, point)
        assert date(2025, 11, 1) <= point.seen <= date(2026, 12, 31)
        if "reliability low" in point.source:  # a page of low reliability stands only beside a better price
            better = [
                p
                for p in gpu.prices
                if not p.estimate
                and "reliability low" not in p.source
                and (p.kind == "msrp" or (p.kind == point.kind and p.source.startswith(STREET)))
            ]
            assert better, (gpu.id, point)


QUESTIONS = [
    "best gpu for llm inference under $1000",
    "gpu for stable diffusion, $600",
    "cheapest card for LoRA on llama 3 8B",
    "workstation for fine-tuning a 70b model, $12000",
    "gpu for kaggle competitions, budget $300",
    "mac studio or dgx spark for llama 3 70b inference",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_no_answer_shows_a_price_older_than_its_window_as_todays(advisor, rulebook, question):
    reply = ask(advisor, question, today=TODAY)
    rec = reply.recommendation
    if rec is None:
        pytest.skip("not a recommendation")
    fresh = rulebook.param("cost-efficiency", "fresh_months")
    shown = [p.unit_price for p in rec.picks] + [a.unit_price for a in rec.alternatives.values() if a]
    for money in shown:
        age = months_between(date.fromisoformat(money.seen), TODAY) if money.seen else 0
        if age > fresh or money.estimate:
            assert money.age_months == age, money
            assert f"{dated_text(money)[1]}" in reply.text, (money, reply.text[:400])
        else:
            assert money.age_months is None
