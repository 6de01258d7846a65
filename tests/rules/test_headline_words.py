"""The first line in good English, and the list under it free of cards it already beats, over generated
questions: "an NVIDIA", never "a NVIDIA"; a name that says its memory is not followed by it again; no
runner-up that a card shown beside it beats for the same money; a beginner who asked for new cards is not
told that used is fine."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from itertools import product
from types import MappingProxyType

import pytest

from rules.advisor import Advisor
from rules.ask import ask
from rules.knowledge.loaded import load_catalog, load_rulebook
from rules.knowledge.messages import article
from rules.knowledge.rulebook import Rulebook

TODAY = date(2026, 11, 27)
WORKLOADS = [
    "nlp", "computer vision", "stable diffusion", "flux dev", "llm inference", "qwen2.5 coder 32b",
    "gpt-oss-120b", "kaggle", "beginner",
]
BUDGETS = ["$300", "$450", "$600", "$900", "$2000", "$5000", "$12000", ""]
SAME_PRICE, SAME_SPEED = 0.02, 0.05  # rule cost-efficiency, same_price_share and same_speed_share


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor(load_catalog())


@pytest.fixture(scope="module")
def replies(advisor: Advisor) -> list:
    texts = [f"{w} {b} {new}".strip() for w, b, new in product(WORKLOADS, BUDGETS, ["", "new only"])]
    return [(text, ask(advisor, text, today=TODAY)) for text in texts]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("NVIDIA DGX Spark (GB10, 128 GB)", "an"),
        ("NVIDIA H100 SXM5 80 GB", "an"),
        ("RTX 4090", "an"),
        ("H100", "an"),
        ("AMD Radeon RX 7900 XTX", "an"),
        ("Intel Arc B580", "an"),
        ("Apple Mac Studio", "an"),
        ("GeForce RTX 5090", "a"),
        ("DGX Spark", "a"),
        ("Mac Studio M4 Max", "a"),
        ("Tesla P40", "a"),
        ("Quadro RTX 8000", "a"),
    ],
)
def test_the_article_goes_by_the_first_sound(name: str, said: str) -> None:
    assert article(name) == f"{said} " and article(name, "ru") == ""


def test_every_buy_line_takes_the_article_of_its_card(replies: list) -> None:
    checked = 0
    for text, reply in replies:
        answer = reply.recommendation
        lead = reply.text.splitlines()[0]
        if answer is None or not answer.picks or not lead.startswith("**Buy a"):
            continue
        top = answer.picks[0]
        if top.count == 1 and top.condition == "new":
            assert lead.startswith(f"**Buy {article(top.name)}{top.name}"), (text, lead)
            checked += 1
    assert checked >= 20


def test_a_name_that_says_its_memory_is_not_followed_by_it(replies: list) -> None:
    named_memory = 0
    for text, reply in replies:
        answer = reply.recommendation
        if answer is None or not answer.picks:
            continue
        top, lead = answer.picks[0], reply.text.splitlines()[0]
        gb = f"{top.memory_gb:g} GB"
        assert f"{gb} ({gb}" not in lead and f"{gb}) ({gb}" not in lead, (text, lead)
        named_memory += gb in top.name and top.name in lead
    assert named_memory >= 3  # the 16 GB RTX 5060 Ti and friends led some of them


def _speed(pick) -> float:
    return pick.tokens_per_second if pick.tokens_per_second is not None else pick.relative_performance


def test_no_runner_up_is_left_with_nothing_to_offer_by_a_card_shown(replies: list) -> None:
    """Before: a 4060 Ti 16 GB at 449 USD stood as runner-up under a faster 5060 Ti 16 GB shown at 450 USD,
    and a 4080 Super at 1,799 USD (5.5x) under a 5070 Ti shown at 749 USD (5.4x)."""
    runners = 0
    for text, reply in replies:
        answer = reply.recommendation
        if answer is None or not answer.picks:
            continue
        shown = [*answer.picks, *(p for p in answer.alternatives.values() if p)]
        for runner in (p for p in answer.picks if p.label == "runner-up"):
            runners += 1
            for other in shown:
                beaten = (
                    other.gpu != runner.gpu
                    and other.condition == runner.condition
                    and (other.tokens_per_second is None) == (runner.tokens_per_second is None)
                    and other.memory_gb * other.count >= runner.memory_gb * runner.count
                    and _speed(other) >= _speed(runner) * (1 - SAME_SPEED)
                    and other.total_price.usd <= runner.total_price.usd * (1 + SAME_PRICE)
                    and (_speed(other) > _speed(runner) or other.total_price.usd < runner.total_price.usd)
                )
                assert not beaten, (text, runner.name, other.name)
    assert runners >= 5


@pytest.mark.parametrize(
    "text",
    [
        "starting my master's thesis: small CNNs, new cards only, at most $600",
        "beginner, new cards only, $400",
        "student, no used cards, 500 usd",
        "учусь, нужна новая видеокарта до 40000 рублей",
    ],
)
def test_a_beginner_who_asked_new_is_never_told_used_is_fine(advisor: Advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.question is not None and reply.question.new_only
    assert "used is fine" not in reply.text and "можно б/у" not in reply.text
    answer = reply.recommendation
    assert answer is not None and answer.picks and all(p.condition == "new" for p in answer.picks)


COMPARED = ["rtx 5090", "rtx pro 6000", "rtx 4090", "rtx 3090", "rtx 5080", "rx 7900 xtx", "dgx spark"]
JOBS = ["for llm inference", "for stable diffusion", "for nlp training", "for llama 70b at 4-bit"]


def test_a_comparison_s_first_line_names_a_card_compared(advisor: Advisor) -> None:
    """Before: a message written twice replaced "The X and the Y are about as fast …" with "A card about as
    fast", a first line naming neither card; every phrasing of a comparison names one it weighs."""
    for one, other in product(COMPARED, COMPARED):
        if one >= other:
            continue
        for job in JOBS:
            reply = ask(advisor, f"{one} vs {other} {job}", today=TODAY)
            answer = reply.recommendation
            if answer is None or answer.intent != "compare":
                continue
            lead = reply.text.splitlines()[0]
            names = [e.name for e in answer.named] + [p.name for p in answer.picks]
            assert any(name in lead for name in names), (one, other, job, lead)


def test_two_cards_compared_without_a_model_still_name_the_one_to_buy(advisor: Advisor) -> None:
    """Before: "used 3090 or new 5060 ti for local llms?" said how much faster one was and stopped, since
    without a model named the cards are "compared" (they hold the work's typical need) rather than "fits",
    and only fitted cards were weighed for the buy."""
    asked = 0
    for one, other in product(COMPARED, COMPARED):
        if one >= other:
            continue
        for job in ("for llm inference", "for stable diffusion", "for nlp training"):
            reply = ask(advisor, f"{one} or {other} {job}?", today=TODAY)
            answer = reply.recommendation
            if answer is None or answer.intent != "compare":
                continue
            holding = [p for p in answer.picks if p.label in ("fits", "compared")]
            if len(holding) < 2 or answer.picks[0] is not holding[0]:
                continue
            asked += 1
            lead = reply.text.splitlines()[0]
            assert lead.startswith(f"**Buy the {holding[0].name}"), (one, other, job, lead)
    assert asked >= 10


def _with_same_speed(share: float) -> Rulebook:
    base = load_rulebook()
    changed = dict(base["cost-efficiency"].parameters, same_speed_share=share)
    rule = replace(base["cost-efficiency"], parameters=MappingProxyType(changed))
    return Rulebook(MappingProxyType(dict(base.rules, **{"cost-efficiency": rule})))


def test_a_comparison_is_as_fast_within_the_rule_s_share_of_speed(advisor: Advisor) -> None:
    """The first line calls two compared cards about as fast where their speeds differ by less than rule
    cost-efficiency's same_speed_share, the same share the choice reads: the share is the rulebook's, not a
    figure of the line's own. Pairs the rule's 5 % calls as fast read "faster" where the share is nil."""
    nil = Advisor(load_catalog(), rulebook=_with_same_speed(0.0))
    as_fast = 0
    for one, other in product(COMPARED, COMPARED):
        if one >= other:
            continue
        text = f"{one} vs {other} for llm inference"
        lead = ask(advisor, text, today=TODAY).text.splitlines()[0]
        if "about as fast" not in lead:
            continue
        as_fast += 1
        strict = ask(nil, text, today=TODAY).text.splitlines()[0]
        assert "about as fast" not in strict and "faster" in strict, (text, lead, strict)
    assert as_fast >= 1
