"""The advisor end to end over the shipped catalog: picks, money, dates, impossible questions."""

from __future__ import annotations

import json
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Advisor
from rules.question import Question

TODAY = date(2026, 11, 22)  # fixed, so answers do not change with the calendar
SEED_DATE = date(2019, 4, 3)  # the date of seed 003's advice


def _rules(answer):
    fired = {f["rule"] for f in answer["findings"]} | {f["rule"] for f in answer["warnings"]}
    for pick in answer["picks"]:
        fired |= {r["rule"] for r in pick["rules"]}
    return fired


def test_reproduces_the_seeds_cost_efficient_cheap_pick_in_2019(recommend):
    answer = recommend(workload="cnn", budget=500, as_of=SEED_DATE)
    assert answer["picks"][0]["gpu"] == "rtx-2060"
    assert answer["picks"][1]["gpu"] == "rtx-2070"


def test_reproduces_the_seeds_nlp_researcher_pick_in_2019(recommend):
    answer = recommend(workload="transformer", budget=3000, as_of=SEED_DATE, experience="researcher")
    assert answer["picks"][0]["gpu"] == "rtx-2080-ti"
    assert "persona-nlp-researcher" in _rules(answer)


def test_as_of_hides_later_cards_and_later_prices(recommend, advisor):
    answer = recommend(workload="cnn", budget=100000, gpus=1, as_of=date(2018, 1, 1), used_ok=True)
    released = {g.id: g.released for g in advisor.catalog.gpus}
    shown = [p for p in answer["picks"]] + [p for p in answer["alternatives"].values() if p]
    assert shown
    for pick in shown:
        assert released[pick["gpu"]] <= date(2018, 1, 1)
        assert pick["unit_price"]["date"] <= "2018-01-01"
    assert all(g["gpu"] != "rtx-2080-ti" for g in advisor.card_rows("cnn", date(2018, 1, 1)))


def test_prices_of_the_asked_date_are_used(advisor):
    early = {r["gpu"]: r for r in advisor.card_rows("cnn", date(2019, 4, 3))}
    late = {r["gpu"]: r for r in advisor.card_rows("cnn", date(2022, 1, 20), used_ok=True)}
    assert early["gtx-1080-ti"]["price"]["date"] <= "2019-04-03"
    assert early["gtx-1080-ti"]["price"]["date"] != late["gtx-1080-ti"]["price"]["date"]


def test_budget_in_euros_is_converted_with_a_dated_rate(recommend):
    answer = recommend(workload="transformer", budget=900, currency="EUR")
    assert answer["currency"]["code"] == "EUR" and answer["currency"]["rate_date"] <= TODAY.isoformat()
    top = answer["picks"][0]
    assert top["total_price"]["currency"] == "EUR" and top["total_price"]["amount"] <= 900
    assert top["total_price"]["usd"] != pytest.approx(top["total_price"]["amount"])


def test_budget_below_every_card_says_what_would_work(recommend):
    answer = recommend(workload="cnn", budget=20)
    assert answer["verdict"] == "over-budget" and answer["picks"] == []
    assert "cheapest" in answer["summary"] and answer["suggestions"]


def test_model_larger_than_any_card_says_what_would_work(recommend):
    answer = recommend(workload="llm", model="llama-405b", precision="fp32", budget=1_000_000)
    assert answer["verdict"] == "too-large" and answer["picks"] == []
    assert any("4-bit" in s for s in answer["suggestions"])
    assert any("several GPUs" in s for s in answer["suggestions"])


def test_memory_caveat_lists_cheaper_cards_left_out_for_memory(recommend):
    answer = recommend(workload="transformer", budget=1200, experience="researcher", as_of=SEED_DATE)
    assert answer["excluded"] and all(e["rule"] == "memory-caveat" for e in answer["excluded"])
    assert all(p["effective_memory_gb"] >= answer["memory_need"]["gb"] for p in answer["picks"])


def test_rent_vs_buy_break_even_is_price_over_hourly_margin(recommend):
    answer = recommend(workload="cnn", budget=2000, hours_per_week=10)
    rent = answer["rent_vs_buy"]
    assert rent is not None
    margin = rent["rent_per_hour"]["usd"] - rent["own_power_per_hour"]["usd"]
    assert rent["break_even_hours"] == pytest.approx(answer["picks"][0]["total_price"]["usd"] / margin, rel=0.03)  # rounded cents
    assert [y["years"] for y in rent["years"]] == [1, 2]
    assert {y["cheaper"] for y in rent["years"]} <= {"buy", "rent"}


def test_no_cloud_means_no_rent_comparison(recommend):
    assert recommend(workload="cnn", budget=2000, cloud_ok=False)["rent_vs_buy"] is None


def test_compare_named_cards(recommend):
    answer = recommend(intent="compare", workload="cnn", compare=("3090", "rtx 4090"))
    assert {p["gpu"] for p in answer["picks"]} == {"rtx-3090", "rtx-4090"}
    assert "4090" in answer["summary"]


def test_the_same_question_gives_byte_identical_answers(catalog):
    question = Question(workload="transformer", budget=1500, gpus=2, hours_per_week=12, used_ok=True)
    first = json.dumps(Advisor(catalog).recommend(question, today=TODAY).to_dict(), sort_keys=True)
    second = json.dumps(Advisor(catalog).recommend(question, today=TODAY).to_dict(), sort_keys=True)
    assert first == second


questions = st.builds(
    Question,
    workload=st.sampled_from(["cnn", "rnn", "transformer", "llm", "rl", "kaggle", "general"]),
    budget=st.floats(min_value=100, max_value=50000),
    gpus=st.integers(min_value=1, max_value=8),
    precision=st.sampled_from(["fp32", "16-bit", "8-bit", "4-bit"]),
    task=st.sampled_from(["training", "inference"]),
    used_ok=st.booleans(),
    model=st.sampled_from([None, "bert-large", "llama-7b", "resnet-50", "sd-xl"]),
    as_of=st.sampled_from([None, date(2017, 6, 1), SEED_DATE, date(2021, 6, 1), date(2024, 1, 1)]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(question=questions, factor=st.floats(min_value=1.0, max_value=10.0))
def test_a_larger_budget_never_lowers_the_top_picks_performance(advisor, question, factor):
    small = advisor.recommend(question, today=TODAY)
    large = advisor.recommend(question.refined(budget=question.budget * factor), today=TODAY)
    if small.picks:
        assert large.picks
        assert large.picks[0].relative_performance >= small.picks[0].relative_performance - 1e-9


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(question=questions)
def test_every_pick_is_within_budget_and_fits_memory(advisor, question):
    answer = advisor.recommend(question, today=TODAY).to_dict()
    shown = answer["picks"] + [p for p in answer["alternatives"].values() if p]
    for pick in shown:
        assert pick["total_price"]["amount"] <= question.budget * 1.0001
        fit = next(r for r in pick["rules"] if r["rule"] == "memory-fit")
        assert "needs" not in fit["reason"] or "per card" in fit["reason"]
    assert json.dumps(answer, sort_keys=True) == json.dumps(advisor.recommend(question, today=TODAY).to_dict(), sort_keys=True)


def test_question_checks_name_the_field():
    from rules.question import QuestionError

    for data, field in [({"compare": "3090"}, "compare"), ({"budget": -5}, "budget"), ({"workload": "poetry"}, "workload"),
                        ({"as_of": "2009-12-31"}, "as_of"), ({"as_of": "2999-01-01"}, "as_of"), ({"gpus": 0}, "gpus"),
                        ({"colour": "red"}, "colour")]:
        with pytest.raises(QuestionError) as caught:
            Question.from_dict(data, TODAY)
        assert caught.value.field == field, data
