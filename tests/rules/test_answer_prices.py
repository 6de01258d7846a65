"""One price per card per answer: the summary, the picks and the alternatives agree to the unit."""

from __future__ import annotations

import math
import re

import pytest

from rules.ask import ask
from rules.contract.answer import Money
from tests.rules.conftest import TODAY
from tests.wire import wire

LISTED = re.compile(r"\*\*(?:\d+ × )?([^*]+?)\*\* — ([\d,]+) ([A-Z]{3})")
SUMMARY = re.compile(r"\d+ × (.+?) at ([\d,]+) ([A-Z]{3}) each")


def test_an_amount_is_held_to_the_cent() -> None:
    assert Money(665.496, "EUR", 780.0).amount == 665.5
    assert wire(Money(665.496, "EUR", 780.0))["amount"] == 665.5


@pytest.mark.parametrize("currency", ["€", "£", "RUB"])
def test_each_card_has_one_price_in_an_answer(advisor, currency: str) -> None:
    differing = []
    for workload in ("llm", "cv", "nlp", "kaggle"):
        for budget in (500, 700, 900, 1500, 3000):
            text = f"{workload} {budget * 90} rub" if currency == "RUB" else f"{workload} {currency}{budget}"
            reply = ask(advisor, text, today=TODAY)
            shown: dict[str, set[str]] = {}
            for name, amount, code in LISTED.findall(reply.text) + SUMMARY.findall(reply.text):
                shown.setdefault(f"{name} {code}", set()).add(amount)
            differing += [(text, card, amounts) for card, amounts in shown.items() if len(amounts) > 1]
    assert differing == []


# Every amount the choice's notes name is said in the asker's currency, at the answer's own rate, as the
# picks' prices are; speed for money is given per the round step of that currency (1000 EUR, 100,000 RUB),
# not per 1000 USD.
MONEY = r"\d+(?:[, ]\d{3})* [A-Z]{3}"  # digits grouped as the language writes them: "58,500" or "58 500"
# a memory-bound job's gains are of worth
SPEED_EN = r"of speed(?: weighted by the memory it holds \(memory-value\))?"
SPEED_RU = r"скорости(?: с поправкой на память \(memory-value\))?"
NOTES = {
    "choice.stepped_up": (
        rf"each extra (?P<step>{MONEY}) buys (?P<gain>[\d.]+) {SPEED_EN}, "
        rf"worth it while at least [\d.]+× the (?P<value>[\d.]+) "
        rf"per (?P<step2>{MONEY}) of the best value",
        rf"каждые лишние (?P<step>{MONEY}) дают (?P<gain>[\d.]+) {SPEED_RU} — "
        rf"это оправдано, пока не меньше [\d.]+× от "
        rf"(?P<value>[\d.]+) на (?P<step2>{MONEY}) у самой выгодной",
    ),
    "choice.stopped_before": (
        rf"faster for (?P<more>{MONEY}) more \((?P<gain>[\d.]+) {SPEED_EN} "
        rf"per extra (?P<step>{MONEY}), below the (?P<worth>[\d.]+) ",
        rf"быстрее за (?P<more>{MONEY}) больше \((?P<gain>[\d.]+) {SPEED_RU} "
        rf"на лишние (?P<step>{MONEY}) — меньше (?P<worth>[\d.]+),",
    ),
    "choice.used_for_floor": (
        rf"GB or more start at (?P<new>{MONEY}), used ones at (?P<used>{MONEY}): "
        r"used cards with enough memory are included",
        rf"ГБ и больше стоят от (?P<new>{MONEY}), б/у — от (?P<used>{MONEY}): "
        r"б/у карты с достаточной памятью включены",
    ),
    "choice.used_for_any_count": (
        rf"the cheapest new cards that hold the job cost (?P<new>{MONEY}), "
        rf"used ones (?P<used>{MONEY}): used cards",
        rf"самые дешёвые новые карты, которые вмещают задачу, стоят (?P<new>{MONEY}), "
        rf"б/у — (?P<used>{MONEY}): б/у карты",
    ),
    "choice.used_for_one_card": (
        rf"a new card that holds the job on its own starts at (?P<new>{MONEY}), "
        rf"a used one at (?P<used>{MONEY}): used cards",
        rf"новая карта, которая одна вмещает задачу, стоит от (?P<new>{MONEY}), "
        rf"б/у — от (?P<used>{MONEY}): б/у карты",
    ),
    "named.last_seen": (
        rf"no current price; last seen [\d-]+ at (?P<price>{MONEY}) \(",
        rf"нет текущей цены; последняя [\d-]+: (?P<price>{MONEY}) \(",
    ),
}
STEPS = {"USD": "1000 USD", "EUR": "1000 EUR", "GBP": "1000 GBP", "RUB": "100,000 RUB"}
NOTE_QUESTIONS = [
    ("choice.stepped_up", "llm fine-tuning 1500 EUR"),
    ("choice.stepped_up", "нейросети 60000 рублей"),
    ("choice.stopped_before", "nlp for inference €1220"),
    ("choice.stopped_before", "инференс трансформеров, бюджет 110000 рублей"),
    ("choice.used_for_floor", "llm fine-tuning 1500 EUR"),
    ("choice.used_for_floor", "обучение трансформеров, бюджет 150 000 рублей"),
    ("choice.used_for_any_count", "mac or pc for running llama 70b locally, €4000"),
    ("choice.used_for_any_count", "run llama 70b locally 300000 рублей"),
    ("choice.used_for_one_card", "deepseek r1 distill 32b on a single gpu, €1500"),
    ("choice.used_for_one_card", "deepseek r1 distill 32b на одной видеокарте, 135000 рублей"),
    ("named.last_seen", "compare titan rtx 3090 €1500"),
    ("named.last_seen", "влезет ли llama 8b на titan v, 60000 рублей"),
]


def _notes(answer: dict, key: str) -> list[re.Match[str]]:
    """The notes ``key`` in the answer (why, named cards), parsed."""
    said = [f["reason"] for f in answer["findings"]] + [n["reason"] for n in answer["named"]]
    pattern = re.compile(NOTES[key][answer["question"]["language"] == "ru"])
    return [m for m in map(pattern.search, said) if m]


def _amount(money: str) -> tuple[float, str]:
    amount, currency = money.rsplit(" ", 1)
    return float(amount.replace(",", "").replace(" ", "")), currency


@pytest.mark.parametrize("key, text", NOTE_QUESTIONS, ids=[f"{k}-{t}" for k, t in NOTE_QUESTIONS])
def test_a_choice_note_names_money_in_the_askers_currency(advisor, key: str, text: str) -> None:
    """'stopped before 1 × GeForce RTX 5080: 18% faster for 531 USD more' in an answer asked in roubles: every
    amount a note names is in the asker's currency, converted at the answer's rate, and the speed-for-money
    figures are per the currency's round step. The same question asked in USD,
    at the same budget in dollars, is the reference."""
    from rules.understand import parse

    parsed = parse(text, today=TODAY)
    question = parsed.question
    assert question.currency in ("EUR", "RUB")
    per_usd = advisor.markets.on(TODAY).pricing(question.currency, question.used_ok).per_usd
    answer = wire(advisor.recommend(question, intent=parsed.intent, today=TODAY))
    in_usd = wire(
        advisor.recommend(
            question.refined(currency="USD", budget=question.budget / per_usd),
            intent=parsed.intent,
            today=TODAY,
        )
    )
    notes, references = _notes(answer, key), _notes(in_usd, key)
    assert notes and len(notes) == len(references), (answer["findings"], in_usd["findings"])
    step = 1000 * 10 ** round(
        math.log10(per_usd)
    )  # units of the asker's currency a speed-for-money figure is per
    for note, reference in zip(notes, references, strict=True):
        assert "USD" not in note.string, note.string
        for name, said in note.groupdict().items():
            was = reference[name]
            if name.startswith("step"):
                assert (_amount(said), was) == (_amount(STEPS[question.currency]), "1000 USD"), note.string
            elif name in ("gain", "value", "worth"):  # speed per step of money
                factor = step / 1000 / per_usd
                assert float(said) == pytest.approx(float(was) * factor, abs=0.006 * factor + 0.006), (
                    note.string,
                    reference.string,
                )
            else:
                (amount, currency), (usd, dollars) = _amount(said), _amount(was)
                assert (currency, dollars) == (question.currency, "USD"), note.string
                assert amount == pytest.approx(usd * per_usd, abs=0.5 * per_usd + 1), (
                    note.string,
                    reference.string,
                )


def test_a_choice_note_in_dollars_reads_as_it_did(advisor) -> None:
    """Asked in dollars, the notes say USD amounts and speed per 1000 USD, as they always have."""
    from rules.understand import parse

    parsed = parse("llm fine-tuning $1750", today=TODAY)
    answer = wire(advisor.recommend(parsed.question, intent=parsed.intent, today=TODAY))
    floor, step = _notes(answer, "choice.used_for_floor"), _notes(answer, "choice.stepped_up")
    assert floor and step
    assert _amount(floor[0]["new"])[1] == _amount(floor[0]["used"])[1] == "USD"
    assert step[0]["step"] == step[0]["step2"] == "1000 USD"
