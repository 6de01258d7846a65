"""Money: amounts, ranges, currencies, stated prices and the bare number."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from rules.contract.question import Question
from rules.errors import QuestionError
from rules.understand import parse

TODAY = date(2024, 6, 15)

PHRASES: list[tuple[str, dict[str, Any]]] = [
    # budgets
    ("800$", {"budget": 800, "currency": "USD"}),
    ("800 usd", {"budget": 800, "currency": "USD"}),
    ("1.5k", {"budget": 1500, "currency": "USD"}),
    ("$1.5k", {"budget": 1500, "currency": "USD"}),
    ("2k€", {"budget": 2000, "currency": "EUR"}),
    ("€900", {"budget": 900, "currency": "EUR"}),
    ("900 eur", {"budget": 900, "currency": "EUR"}),
    ("900 euros", {"budget": 900, "currency": "EUR"}),
    ("£700", {"budget": 700, "currency": "GBP"}),
    ("700 gbp", {"budget": 700, "currency": "GBP"}),
    ("under 2000 dollars", {"budget": 2000, "currency": "USD"}),
    ("below $3000", {"budget": 3000, "currency": "USD"}),
    ("up to 1200 for rnn", {"budget": 1200, "currency": "USD", "workload": "rnn"}),
    ("budget 1000", {"budget": 1000, "currency": "USD"}),
    ("budget: 1,500", {"budget": 1500, "currency": "USD"}),
    ("80000 руб", {"budget": 80000, "currency": "RUB"}),
    ("80 000 ₽", {"budget": 80000, "currency": "RUB"}),
    ("80к рублей", {"budget": 80000, "currency": "RUB"}),
    ("₽80000", {"budget": 80000, "currency": "RUB"}),
    (
        "Какую видеокарту купить для нлп до 1000 долларов?",
        {"workload": "transformer", "budget": 1000, "currency": "USD"},
    ),
    (
        "компьютерное зрение, бюджет 150 000 руб, 2 видеокарты",
        {"workload": "cnn", "budget": 150000, "currency": "RUB", "gpus": 2},
    ),
    ("nlp 800", {"workload": "transformer", "budget": 800, "currency": "USD"}),
    ("nlp 2000", {"workload": "transformer", "budget": 2000, "currency": "USD"}),
    ("almost no money", {"budget": 100, "currency": "USD"}),
    ("I'm broke", {"budget": 100, "currency": "USD"}),
    ("нет денег", {"budget": 100, "currency": "USD"}),
    ("little money", {"budget": 300, "currency": "USD"}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_budget_forms(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


def test_money_without_currency_says_it_assumed_one() -> None:
    parsed = parse("nlp 800", today=TODAY)
    assert "USD assumed" in parsed.understood[1]


@pytest.mark.parametrize(
    ("text", "budget", "currency"),
    [
        ("$2.5k", 2500, "USD"),
        ("€1500", 1500, "EUR"),
        ("1500 eur", 1500, "EUR"),
        ("150 000 рублей", 150000, "RUB"),
        ("50к руб", 50000, "RUB"),
        ("£900", 900, "GBP"),
        ("2,5 тыс.", 2500, "USD"),  # 2,500 roubles buys no GPU: a small amount without a currency stays USD
        ("2,5 тыс. долларов", 2500, "USD"),
        ("2 million usd", 2000000, "USD"),
    ],
)
def test_money_forms(text: str, budget: int, currency: str) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.budget, parsed.question.currency) == (budget, currency)


@pytest.mark.parametrize(
    ("text", "budget", "currency"),
    [
        ("nlp 800 in EUR", 800, "EUR"),  # a currency said apart from the amount is the amount's
        ("gpu for llm in euros, 1500", 1500, "EUR"),
        ("cv 1200 in GBP", 1200, "GBP"),
        ("нейросети 500 в долларах", 500, "USD"),  # not the roubles a Russian text's large amount would be
        ("компьютерное зрение 90000 в рублях", 90000, "RUB"),
        ("compare 3090 4090 for nlp in eur", None, "EUR"),  # no budget: the prices are shown in it
        ("fit llama 13b fp16 in pounds", None, "GBP"),
        ("nlp $800 in EUR", 800, "USD"),  # the amount's own sign wins, and the answer says why
        ("a european lab, nlp 5000", 5000, "USD"),  # "european" names no currency
    ],
)
def test_a_currency_said_on_its_own(text: str, budget: int | None, currency: str) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.budget, parsed.question.currency) == (budget, currency)
    currencies = ("eur", "euros", "gbp", "pounds", "в рублях", "в долларах")
    assert not any(word in parsed.unknown for word in currencies)
    if "$" in text and "eur" in text.lower():
        assert any("'in eur' not applied" in line for line in parsed.understood)


def test_a_currency_alone_never_turns_an_earlier_budget_into_another_amount() -> None:
    """800 USD asked before is not 800 EUR now; without an earlier budget, the prices are shown in it."""
    parsed = parse("in euros?", previous=Question(workload="cnn", budget=800), today=TODAY)
    assert (parsed.question.budget, parsed.question.currency) == (800, "USD")
    assert any("give the budget in EUR" in line for line in parsed.understood)
    parsed = parse("in euros?", previous=Question(workload="cnn"), today=TODAY)
    assert parsed.question.currency == "EUR" and parsed.changed == ("currency",)


@pytest.mark.parametrize(
    ("text", "budget", "currency"),
    [
        ("$2k-3k", 3000, "USD"),
        ("$2-3k", 3000, "USD"),
        ("1000-1500$", 1500, "USD"),
        ("between $1000 and $1500", 1500, "USD"),
        ("$1000 to $1500 for nlp", 1500, "USD"),
        ("от 50 до 80 тысяч", 80000, "RUB"),
        ("150 тр", 150000, "RUB"),
        ("150т.р.", 150000, "RUB"),
    ],
)
def test_a_budget_range_is_its_top_end(text: str, budget: int, currency: str) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.budget, parsed.question.currency) == (budget, currency)
    assert parsed.unknown == ()


def test_a_smaller_number_after_an_amount_is_not_a_range() -> None:
    parsed = parse("$800 and 2 gpus", today=TODAY)
    assert (parsed.question.budget, parsed.question.gpus) == (800, 2)


@pytest.mark.parametrize(
    "text", ["$1e12", "a trillion dollars", "budget 1e9", "3 billion euros", "nlp for $50 million"]
)
def test_absurd_amounts_are_refused_never_read_small(text: str) -> None:
    with pytest.raises(QuestionError) as caught:
        parse(text, today=TODAY)
    assert caught.value.field == "budget"
    assert "budget" in caught.value.message and "read" in caught.value.message


def test_gpu_number_with_a_currency_is_money() -> None:
    parsed = parse("1080 for $1080", today=TODAY)
    assert parsed.question.budget == 1080
    assert parsed.question.compare == ("gtx 1080",)


def test_bare_numbers_that_are_not_budgets() -> None:
    assert parse("nlp 2019", today=TODAY).question.budget is None  # year-like
    assert parse("nlp 20", today=TODAY).question.budget is None  # too small
    both = parse("800 1200", today=TODAY)  # two candidates: ambiguous
    assert both.question.budget is None and both.unknown == ("800", "1200")
    assert parse("llama 8k context", today=TODAY).question.budget is None


def test_a_large_amount_in_russian_without_a_currency_is_roubles() -> None:
    parsed = parse("какую видеокарту купить для нейросетей за 50000", today=TODAY)
    assert (parsed.question.budget, parsed.question.currency) == (50000, "RUB")
    assert any("RUB assumed" in line for line in parsed.understood)
    assert parse("nlp 50000", today=TODAY).question.currency == "USD"


@pytest.mark.parametrize(
    ("text", "budget", "currency", "prices"),
    [
        (
            "used 3090 for 70k or 5080 for 120k рублей",
            120000,
            "RUB",
            "rtx 3090 70000 RUB, rtx 5080 120000 RUB",
        ),
        (
            "б/у 3090 за 70 тыс или 5080 за 120 тыс рублей",
            120000,
            "RUB",
            "rtx 3090 70000 RUB, rtx 5080 120000 RUB",
        ),
        ("4090 for $1800 or 5090 for $2500?", 2500, "USD", "rtx 4090 1800 USD, rtx 5090 2500 USD"),
    ],
)
def test_the_largest_stated_card_price_is_the_budget(
    text: str, budget: int, currency: str, prices: str
) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert (parsed.question.budget, parsed.question.currency) == (budget, currency)
    assert any(prices in u for u in parsed.understood)


def test_a_worded_budget_beats_stated_card_prices() -> None:
    parsed = parse("budget $3000, 4090 for $1800 or 5090 for $2500", today=date(2026, 11, 23))
    assert parsed.question.budget == 3000


def test_each_amount_is_read_with_its_own_words_and_limits() -> None:
    """Questions that differ only in their amount each read their own: the budget, the words it came from, the
    currency of its sign, and the refusal that names what was read."""
    assert parse("nlp $812 used ok", today=TODAY).question.budget == 812
    other = parse("nlp $143 used ok", today=TODAY)
    assert other.question.budget == 143 and "budget: 143 USD (from '$143')" in other.understood
    assert parse("cv ₽1000", today=TODAY).question.currency == "RUB"
    assert parse("cv ₽5000", today=TODAY).question.currency == "RUB"
    assert parse("cv $10", today=TODAY).question.budget == 10
    with pytest.raises(QuestionError, match=r"budget must be positive \(read 0 USD from '\$00'\)"):
        parse("cv $00", today=TODAY)


ITEM_WORDS = ("images", "photos", "labeled images", "videos", "documents", "изображений", "фотографий")
ITEM_COUNTS = ("10k", "50 000", "2,000", "3m", "500")


@pytest.mark.parametrize("items", ITEM_WORDS)
@pytest.mark.parametrize("count", ITEM_COUNTS)
@pytest.mark.parametrize("template", ["train a cnn on {data}, gpu under $700", "$700, {data} to classify"])
def test_items_of_data_are_work_never_money(template: str, count: str, items: str) -> None:
    """'10k images' is data the job works through: the budget is the amount with its currency."""
    read = parse(template.format(data=f"{count} {items}"), today=date(2026, 11, 26))
    assert read.question.budget == 700 and read.question.currency == "USD", read.understood
    assert any(line.startswith("to process: ") for line in read.understood), read.understood


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("gpu for 10k steps of training, $900", 900),
        ("budget 1500, 2x 3090 for $1400", 1500),
        ("4090 for $1800, budget $3000", 3000),
        ("budget $3000, 4090 for $1800", 3000),
    ],
)
def test_the_budget_is_the_amount_a_budget_word_or_a_currency_marks(text: str, budget: int) -> None:
    assert parse(text, today=date(2026, 11, 26)).question.budget == budget


GPU_HOURS = (
    ("rent an h100 for {n} hours of lora training, how much", "h100"),
    ("i need {n} gpu hours on an a100", "a100"),
    ("{n} часов обучения на h100, арендовать или купить", "h100"),
    ("{n} hours of fine-tuning on a 4090", "4090"),
)


@pytest.mark.parametrize("n", [60, 100, 2000, 12_000])
@pytest.mark.parametrize(("template", "card"), GPU_HOURS)
def test_hours_of_gpu_time_are_rented_hours_never_money(template: str, card: str, n: int) -> None:
    """'100 hours of training' is GPU time the job takes: rent those hours or buy the card, never a budget."""
    read = parse(template.format(n=n), today=date(2026, 11, 26))
    assert read.question.budget is None and read.question.rent_hours == n, read.understood
    assert read.intent == "rent-or-buy" and any(card in c for c in read.question.compare)
