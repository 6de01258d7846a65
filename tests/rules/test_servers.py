"""Data-centre parts as an adviser of late 2026 sells them: a module comes as a board of several, a chip
asked for alone is the card it is sold as, a board's price has its source, rent is priced on the card
bought."""

from __future__ import annotations

from datetime import date

import pytest

from rules.ask import ask
from tests.wire import wire

TODAY = date(2026, 11, 26)


def _answer(advisor, text: str) -> dict:
    return wire(ask(advisor, text, today=TODAY))["recommendation"]


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("rent or buy an h100", "h100-pcie"),
        ("llama 4 scout 109b int4 on one h100", "h100-pcie"),
        ("rent or buy an h200", "h200-nvl"),
    ],
)
def test_a_module_asked_for_alone_is_the_card_its_chip_is_sold_as(advisor, text, card):
    top = _answer(advisor, text)["picks"][0]
    assert (top["gpu"], top["count"]) == (card, 1)


def test_a_module_in_a_server_question_stays_a_whole_board(advisor):
    top = _answer(advisor, "server with 8 h100 for pretraining")["picks"][0]
    assert (top["gpu"], top["count"]) == ("h100-sxm", 8)
    assert top["unit_price"]["source"] and not top["unit_price"].get("estimate")


def test_card_forms_share_the_chip_and_none_exist_for_a_module_only_chip(catalog):
    assert {g.id for g in catalog.card_forms(catalog.gpu("h100-sxm"))} == {"h100-pcie", "h100-nvl"}
    assert {g.id for g in catalog.card_forms(catalog.gpu("h200-sxm"))} == {"h200-nvl"}
    assert catalog.card_forms(catalog.gpu("b200")) == ()
    assert catalog.card_forms(catalog.gpu("mi300x")) == ()


def test_rent_line_is_the_card_bought(advisor):
    answer = _answer(advisor, "rent or buy an h100")
    offer = answer["rent_vs_buy"]["offer"]
    assert offer["gpu"] == answer["picks"][0]["gpu"] == "h100-pcie"
    assert offer["provider"] and offer["seen"] and offer["source"]


@pytest.mark.parametrize("card", ["h100-sxm", "h200-sxm", "b200", "h100-pcie"])
def test_data_centre_cards_have_a_current_price(advisor, card):
    point = advisor.markets.on(TODAY).best_new[card]
    assert point is not None and (TODAY - point.seen).days < 365


@pytest.mark.parametrize("card", ["h100-sxm", "h200-sxm", "b200"])
def test_data_centre_modules_are_priced_from_a_source(advisor, card):
    point = advisor.markets.on(TODAY).best_new[card]
    assert not point.estimate and "http" in point.source
