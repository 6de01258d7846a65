"""More cards than a desk carries need a host built for them (rule power-and-slots): a configuration of three
or four PCIe cards carries a multi-GPU workstation in its price, five to eight an eight-GPU server, and says
so; one or two cards are priced alone."""

from __future__ import annotations

import pytest

from rules.ask import ask
from rules.knowledge.loaded import load_rulebook
from tests.rules.conftest import TODAY
from tests.wire import wire

QUESTIONS = [
    "deep learning $6063 4 gpus",
    "lab server for llm training, budget $60000",
    "cv $3583 server",
    "transformers $15030 server",
    "gpt-oss-120b server for a team of 8",
    "serve qwen3 32b with vllm to 50 concurrent users, what gpus do we need",
    "our lab of 6 wants one shared server running qwen3 30b a3b for everyone, budget $6000",
    "2 rtx 4090 for llm fine-tuning",
    "nlp $800",
    "8 gpus for training transformers, budget $100000",
    "deep learning $60010 server",
]


def _picks(answer: dict) -> list[dict]:
    return [*answer["picks"], *(p for p in answer["alternatives"].values() if p)]


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_configuration_past_the_desk_carries_its_host_in_its_price(advisor, text: str) -> None:
    rulebook = load_rulebook()
    params, workstation = rulebook.power_and_slots, rulebook.one_machine.gpus_per_machine
    answer = wire(ask(advisor, text, today=TODAY).recommendation)
    for pick in _picks(answer):
        if pick["form_factor"] != "pcie":
            continue
        cards = pick["unit_price"]["usd"] * pick["count"]
        hosts = [r for r in pick["rules"] if r["rule"] == "power-and-slots" and r["verdict"] == "applied"]
        if pick["count"] > params.desk_cards:
            server = pick["count"] > workstation
            host = params.server_platform_usd if server else params.multi_gpu_platform_usd
            assert pick["total_price"]["usd"] == pytest.approx(cards + host, abs=1)
            assert hosts and f"{host:,.0f} USD" in hosts[0]["reason"], pick["rules"]
            assert ("eight-GPU server" in hosts[0]["reason"]) == server
        else:
            assert pick["total_price"]["usd"] == pytest.approx(cards, abs=1)
            assert not hosts


def test_a_lab_serving_a_moe_model_to_six_buys_two_cards_not_three_old_ones(advisor) -> None:
    """The host three cards need makes two 24 GB cards cheaper in all than three 16 GB ones."""
    text = "our lab of 6 wants one shared server running qwen3 30b a3b for everyone, budget $6000"
    reply = ask(advisor, text, today=TODAY)
    top = wire(reply.recommendation)["picks"][0]
    assert top["count"] <= 2 and top["memory_gb"] >= 24, reply.text.splitlines()[0]
    assert "host" not in reply.text.split("\n\n")[0]


def test_the_short_answer_says_why_the_total_is_above_the_cards(advisor) -> None:
    reply = ask(advisor, "deep learning $6063 4 gpus", today=TODAY)
    first_pick = next(line for line in reply.text.splitlines() if line.startswith("1. "))
    after = reply.text.split(first_pick, 1)[1].splitlines()[1]
    assert "host built for several GPUs" in after and "_power-and-slots_" in after


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("кластер из 4 видеокарт для обучения за 1 000 000 рублей", "RUB"),
        ("deep learning 4 gpus 9000 eur", "EUR"),
    ],
)
def test_the_host_is_priced_in_the_askers_currency(advisor, text: str, currency: str) -> None:
    """One answer speaks one currency: the host a finding adds is said in the money the picks are."""
    answer = wire(ask(advisor, text, today=TODAY).recommendation)
    top = answer["picks"][0]
    assert top["count"] > 2 and top["total_price"]["currency"] == currency
    applied = ("power-and-slots", "applied")
    (host,) = [r["reason"] for r in top["rules"] if (r["rule"], r["verdict"]) == applied]
    assert currency in host and "USD" not in host, host


def test_some_question_here_buys_a_server_of_pcie_cards(advisor) -> None:
    """The property above is only as good as its questions: one of them must reach past a workstation."""
    counts = [
        p["count"]
        for text in QUESTIONS
        for p in _picks(wire(ask(advisor, text, today=TODAY).recommendation))
        if p["form_factor"] == "pcie"
    ]
    assert max(counts) > load_rulebook().one_machine.gpus_per_machine
