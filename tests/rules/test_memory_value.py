"""As fast and roomier for a little more (rule memory-value): where two cards run the job at one speed and one
has more memory, the roomier one leads when it costs at most the rule's premium more and the budget allows it
(the RTX 5060 Ti is sold with 8 GB and with 16 GB of one chip)."""

from __future__ import annotations

from datetime import date

import pytest

from rules.knowledge.loaded import load_rulebook
from tests.rules.conftest import TODAY

WORKS = ("deep learning", "cnn", "kaggle", "computer vision", "gen ai", "rl")
DATES = (date(2024, 6, 1), date(2025, 9, 1), TODAY)


def _same_chip(a, b) -> bool:
    """One chip sold with two memory sizes: same maker, architecture, bandwidth and tensor speed."""
    return (a.vendor, a.arch_id, a.bandwidth_gb_s, dict(a.tensor_tflops)) == (
        b.vendor,
        b.arch_id,
        b.bandwidth_gb_s,
        dict(b.tensor_tflops),
    )


def _roomier_siblings(advisor, gpu, on: date, limit_usd: float):
    """The same chip with more memory, new, on sale on the date, priced at most ``limit_usd``."""
    market = advisor.markets.on(on)
    found = []
    for other in advisor.catalog.gpus:
        if other.id == gpu.id or other.memory_gb <= gpu.memory_gb or not _same_chip(gpu, other):
            continue
        point = market.best_price(other, used_ok=False)
        if point is not None and point.price_usd <= limit_usd:
            found.append(other)
    return found


@pytest.mark.parametrize("on", DATES, ids=str)
@pytest.mark.parametrize("work", WORKS)
def test_no_pick_has_the_same_chip_with_more_memory_within_the_premium_and_budget(advisor, work, on):
    from rules.ask import ask

    premium = load_rulebook().memory_value.roomier_premium
    roomier_led = 0
    for budget in range(250, 1300, 50):
        reply = ask(advisor, f"{work} ${budget}, new card", today=on)
        answer = reply.recommendation
        if answer is None or not answer.picks or answer.picks[0].count != 1:
            continue
        top = advisor.catalog.gpu(answer.picks[0].gpu)
        price = answer.picks[0].total_price.amount  # USD
        market = advisor.markets.on(on)
        leaner = [
            g
            for g in advisor.catalog.gpus
            if g.memory_gb < top.memory_gb and _same_chip(g, top) and market.best_price(g, False)
        ]
        roomier_led += bool(leaner)
        siblings = _roomier_siblings(advisor, top, on, min(budget, price * (1 + premium)))
        assert not siblings, (budget, top.id, [g.id for g in siblings], reply.text)
        if leaner and any(f.rule == "memory-value" for f in answer.findings):
            assert "as fast as" in " ".join(f.reason for f in answer.findings)
    if work in ("deep learning", "gen ai") and on == TODAY:
        assert roomier_led, "the 16 GB RTX 5060 Ti never led: the property was not exercised"


def test_the_answer_says_what_the_memory_costs(advisor):
    from rules.ask import ask

    reply = ask(advisor, "beginner, $450, deep learning course", today=TODAY)
    answer = reply.recommendation
    assert answer is not None and answer.picks[0].gpu == "rtx-5060-ti-16gb", reply.text
    said = [f.reason for f in answer.findings if f.rule == "memory-value"]
    assert said and "as fast as the GeForce RTX 5060 Ti 8 GB" in said[0] and "16 GB against 8 GB" in said[0]


def test_a_roomier_card_beyond_the_budget_does_not_lead(advisor):
    from rules.ask import ask

    reply = ask(advisor, "beginner, $400, deep learning course", today=TODAY)
    answer = reply.recommendation
    assert answer is not None and answer.picks[0].gpu != "rtx-5060-ti-16gb", reply.text
    assert answer.picks[0].total_price.amount <= 400
