"""Prices: every row sourced, old prices age out, and today's catalog is priced."""

from __future__ import annotations

import json
import shutil
from datetime import date
from types import SimpleNamespace

import pytest

from rules.ask import ask
from rules.knowledge.catalog import CatalogError
from rules.knowledge.datafile import DATA_DIR
from rules.knowledge.loaded import load_catalog, load_rulebook
from rules.knowledge.records import PricePoint
from rules.money import Pricing, months_between
from tests.wire import wire

TODAY = date(2026, 11, 23)
SOLD_OR_BOUGHT_USED = (
    "rtx-3060",
    "rtx-3090",
    "rtx-4060-ti-16gb",
    "rtx-4080-super",
    "rtx-4090",
    "rtx-5060-ti-16gb",
    "rtx-5060-ti-8gb",
    "rtx-5060",
    "rtx-5050",
    "rtx-5070",
    "rtx-5070-ti",
    "rtx-5080",
    "rtx-5090",
    "rtx-pro-6000-blackwell",
    "rx-9070-xt",
    "rx-9070",
    "rx-9060-xt-16gb",
    "arc-b580",
    "arc-b570",
    "tesla-p40",
    "v100-sxm2-32gb",
    "a100-80gb-pcie",
    "dgx-spark",
    "mac-studio-m3-ultra-96gb",
    "ryzen-ai-max-395-128gb",
    "radeon-ai-pro-r9700",
)


@pytest.fixture(scope="module")
def rulebook():
    return load_rulebook()


def _pricing(catalog, rulebook, as_of: date, used_ok: bool = True) -> Pricing:
    return Pricing.for_question(catalog, as_of, "USD", used_ok, rulebook)


def test_a_price_row_without_a_source_is_rejected(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    doc = json.loads((data / "prices.json").read_text())
    del doc["prices"][0]["source"]
    (data / "prices.json").write_text(json.dumps(doc))
    with pytest.raises(CatalogError, match="source"):
        load_catalog(data, use_cache=False)


def test_every_price_names_its_source_and_estimates_say_so(catalog):
    for gpu in catalog.gpus:
        for point in gpu.prices:
            assert len(point.source) > 10, (gpu.id, point)
            assert point.estimate == ("estimate" in point.source), (gpu.id, point.source)


def test_epoch_release_prices_credit_epoch_ai(catalog):
    epoch = [p for g in catalog.gpus for p in g.prices if p.source.startswith("Epoch AI")]
    assert epoch and all("CC BY 4.0" in p.source and p.kind == "msrp" for p in epoch)


def test_an_aged_out_used_price_is_not_used(catalog, rulebook):
    limit = rulebook.param("cost-efficiency", "used_max_age_months")
    gpu = catalog.gpu("rtx-2060")
    last = max((p for p in gpu.prices if p.kind == "used" and p.seen <= TODAY), key=lambda p: p.seen)
    assert months_between(last.seen, TODAY) > limit  # the 2023 survey point is all there is
    pricing = _pricing(catalog, rulebook, TODAY)
    assert pricing.best_price(gpu) is None or pricing.best_price(gpu).seen > last.seen
    assert pricing.last_known(gpu).seen >= last.seen
    while_current = _pricing(catalog, rulebook, last.seen.replace(day=28))
    assert while_current.best_price(gpu) is not None


def test_an_aged_out_new_price_is_not_used(catalog, rulebook):
    limit = rulebook.param("cost-efficiency", "new_max_age_months")
    for gpu in catalog.gpus:
        pricing = _pricing(catalog, rulebook, TODAY, used_ok=False)
        point = pricing.best_price(gpu)
        if point is not None:
            assert point.kind in ("new", "msrp") and months_between(point.seen, TODAY) <= limit, gpu.id


def test_a_sourced_price_wins_over_an_estimate(catalog, rulebook):
    pricing = _pricing(catalog, rulebook, TODAY)
    checked = 0
    for gpu in catalog.gpus:
        on_sale = pricing.in_shops(gpu) and (gpu.withdrawn is None or gpu.withdrawn > TODAY)
        current = [
            p
            for p in gpu.prices
            if p.seen <= TODAY and pricing.is_current(p) and (p.kind == "used" or on_sale)
        ]
        best = pricing.best_price(gpu)
        if any(not p.estimate for p in current):
            assert best is not None and not best.estimate, gpu.id
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("gpu_id", SOLD_OR_BOUGHT_USED)
def test_todays_catalog_prices_every_card_still_sold_or_bought_used(advisor, gpu_id):
    rows = {r.gpu: r for r in advisor.card_rows("general", TODAY, used_ok=True)}
    price = rows[gpu_id].price
    assert price is not None, f"{gpu_id}: no current price on {TODAY}"
    assert price.seen and price.source and price.kind in ("msrp", "new", "used")


def test_estimates_are_marked_in_the_answer(catalog, rulebook):
    # in April 2019 the used GTX 970 has only the editors' estimate of that month
    pricing = _pricing(catalog, rulebook, date(2019, 4, 20))
    gpu = catalog.gpu("gtx-970")
    point = pricing.best_price(gpu)
    assert point.estimate and wire(pricing.money(point.price_usd, point))["estimate"] is True
    sourced = _pricing(catalog, rulebook, TODAY).best_price(catalog.gpu("rtx-5080"))
    assert "estimate" not in wire(pricing.money(sourced.price_usd, sourced))


def test_a_converted_price_says_so_and_names_its_rate(catalog, rulebook):
    pricing = Pricing.for_question(catalog, TODAY, "EUR", False, rulebook)
    point = pricing.best_price(catalog.gpu("rtx-5080"))
    money = wire(pricing.money(point.price_usd, point))
    assert point.currency == "USD" and money["converted_from"] == "USD"
    assert money["amount"] == pytest.approx(point.price_usd * pricing.per_usd, abs=0.01)
    assert pricing.rate_source.startswith("ECB euro reference rate") and pricing.rate_date <= TODAY
    in_usd = Pricing.for_question(catalog, TODAY, "USD", False, rulebook)
    assert "converted_from" not in wire(in_usd.money(point.price_usd, point))


def test_monthly_reference_rates_from_2017(catalog):
    for currency in ("EUR", "GBP"):
        months = {(r.seen.year, r.seen.month) for r in catalog.currencies if r.currency == currency}
        assert all((year, month) in months for year in range(2017, 2025) for month in range(1, 13)), currency
        assert all(
            r.source.startswith("ECB")
            for r in catalog.currencies
            if r.currency == currency and r.seen.year < 2025
        )


def test_the_cheapest_card_for_a_lora_is_a_used_3090_at_a_sourced_2026_price(advisor):
    reply = ask(advisor, "cheapest card for LoRA on llama 3 8B", today=TODAY)
    top = reply.recommendation.picks[0]
    price = top.unit_price
    assert top.gpu == "rtx-3090" and price.kind == "used", (top.gpu, price)
    assert 600 <= price.usd <= 1000 and price.seen >= "2026-01-01" and not price.estimate, price


@pytest.mark.parametrize(
    "gpu_id",
    [
        "rtx-3090",
        "rtx-3090-ti",
        "rtx-4090",
        "rtx-3060",
        "rtx-a6000",
        "tesla-p40",
        "v100-sxm2-32gb",
        "a100-80gb-pcie",
    ],
)
def test_cards_commonly_bought_used_have_a_current_used_price(catalog, rulebook, gpu_id):
    point = _pricing(catalog, rulebook, TODAY)._current(catalog.gpu(gpu_id), "used")
    assert point is not None and months_between(point.seen, TODAY) <= 12, (gpu_id, point)


def _street_and_msrp(street_seen: date, msrp_seen: date, street_estimate: bool = False):
    msrp = PricePoint(msrp_seen, "msrp", 1999.0, 1999.0, "USD", "vendor launch price")
    street = PricePoint(street_seen, "new", 3059.0, 3059.0, "USD", "retailer listing", street_estimate)
    return SimpleNamespace(id="card", prices=tuple(sorted((msrp, street), key=lambda p: p.seen)))


def test_a_recent_street_price_beats_a_launch_msrp(catalog, rulebook):
    pricing = _pricing(catalog, rulebook, TODAY, used_ok=False)
    months = rulebook.param("cost-efficiency", "street_over_msrp_months")
    assert pricing.best_price(_street_and_msrp(date(2026, 1, 5), date(2025, 1, 30))).kind == "new"
    # a newer list price does not hide a street price of the last months either ...
    assert pricing.best_price(_street_and_msrp(date(2026, 6, 1), date(2026, 7, 1))).kind == "new"
    # ... but stands in once the street price is older than the rule's window
    old_street = date(TODAY.year - (months // 12) - 1, TODAY.month, 1)
    assert pricing.best_price(_street_and_msrp(old_street, TODAY.replace(day=1))).kind == "msrp"


def test_the_rtx_5090_is_priced_at_its_street_price_not_its_msrp(catalog, rulebook):
    point = _pricing(catalog, rulebook, TODAY, used_ok=False).best_price(catalog.gpu("rtx-5090"))
    assert point.kind == "new" and point.price_usd > 1999 and not point.estimate, point


@pytest.mark.parametrize(
    "text, says",
    [
        ("видеокарта для llm до 150000 рублей", "пересчёт цены в USD"),
        ("gpu for llm under 150000 rub", "a USD price converted"),
    ],
)
def test_a_ruble_answer_says_its_prices_are_converted_us_prices(advisor, text, says):
    reply = ask(advisor, text, today=TODAY, detail="full")
    first = next(line for line in reply.text.splitlines() if line.startswith("1. "))
    assert "RUB" in first and says in first, first
    assert reply.recommendation.picks[0].unit_price.converted_from == "USD"


def test_a_card_past_its_shop_life_is_sold_used_only(catalog, rulebook):
    """A new RTX 3090 was listed at $1,550 in 2025, five years after launch and above its $1,499 launch price:
    remnant stock, not the market. Past its line's shop life (4 years for GeForce) only used offers count; a
    workstation card is sold new for longer (6 years)."""
    gpu = catalog.gpu("rtx-3090")
    in_2021 = _pricing(catalog, rulebook, date(2021, 6, 15), used_ok=False)
    assert in_2021.in_shops(gpu) and in_2021.best_price(gpu) is not None
    today = _pricing(catalog, rulebook, TODAY)
    assert not today.in_shops(gpu)
    best = today.best_price(gpu)
    assert best is not None and best.kind == "used"
    assert _pricing(catalog, rulebook, TODAY, used_ok=False).best_price(gpu) is None
    a5000 = catalog.gpu("rtx-a5000")  # 2021 workstation card: still in shops five years on
    assert today.in_shops(a5000) and not _pricing(catalog, rulebook, date(2027, 6, 1)).in_shops(a5000)
