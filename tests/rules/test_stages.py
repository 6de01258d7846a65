"""The stages up to the configurations (rules/stages.py): what each hands on, over questions from parts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.configurations import applies
from rules.contract.question import Question
from rules.contract.values import PRECISIONS
from rules.job import job_for, settled
from rules.stages import Stages, configured
from rules.understand import parse
from tests.rules.conftest import TODAY

JOBS = ("nlp", "cv", "llm", "llama 8b", "llama 70b 4-bit", "qwen 32b", "lora of llama 8b", "sdxl", "flux",
        "mistral 7b", "bert large", "gpt2")  # fmt: skip
EXTRAS = ("", " used ok", " 2 gpus", " 4 gpus", " server", " beginner", " 10 hours a week", " cheapest",
          " for 20 users", " new cards only")  # fmt: skip
CARDS = ("", " i have a 3060", " compare 3090 4090", " on a 4090", " on 8 gb", " will it fit on 24gb")

texts = st.builds(
    lambda job, budget, extra, cards: f"{job}{f' ${budget}' if budget else ''}{extra}{cards}",
    st.sampled_from(JOBS),
    st.sampled_from((0, 400, 900, 2500, 8000, 40000)),
    st.sampled_from(EXTRAS),
    st.sampled_from(CARDS),
)


def _staged(advisor, text: str) -> tuple[Question, Stages]:
    asked = parse(text, today=TODAY).question
    return asked, configured(settled(asked, advisor.rulebook), TODAY, advisor.known, asked)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_the_configurations_kept_are_those_every_filter_that_applies_passes(advisor, text: str) -> None:
    _, stages = _staged(advisor, text)
    tests = [keep.test for keep in stages.terms.keeps if applies(keep, stages.configs)]
    assert list(stages.kept) == [c for c in stages.configs if all(test(c) for test in tests)]
    assert all(any(c is k for c in stages.configs) for k in stages.kept)  # the same records, in their order


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_whether_cards_of_the_memory_said_hold_the_job_is_sized_once_with_the_configurations(
    advisor, text: str
) -> None:
    _, stages = _staged(advisor, text)
    gb = stages.question.card_memory_gb
    if not gb:
        assert stages.card_fit is None
        return
    assert stages.card_fit == stages.sizing.fit(gb, max(stages.question.gpus, 1))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_lower_precisions_are_sized_only_where_a_card_is_judged_and_need_less(advisor, text: str) -> None:
    asked, stages = _staged(advisor, text)
    q = stages.question
    if not (q.compare or q.owned_gpu or q.card_memory_gb):
        assert stages.lower_needs == ()
        return
    engine = job_for(asked, advisor.rulebook)  # at the precision the engine chose for the question as asked
    left_open = engine.precision_assumed and asked.task == "inference" and (asked.model or asked.params_b)
    below = PRECISIONS[PRECISIONS.index(engine.precision) + 1 :] if engine.precision in PRECISIONS else ()
    lighter = {p: job_for(asked.refined(precision=p), advisor.rulebook).need for p in below}
    expected = [(p, n) for p, n in lighter.items() if p in ("8-bit", "4-bit") and n.gb < engine.need.gb]
    assert list(stages.lower_needs) == (expected if left_open else [])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_the_askers_hours_are_said_or_the_rules_default_with_why(advisor, text: str) -> None:
    _, stages = _staged(advisor, text)
    q, hours, params = stages.question, stages.asker.hours_per_week, advisor.rulebook.rent_vs_buy
    if q.hours_per_week:
        assert (hours, stages.asker.hours_assumed) == (q.hours_per_week, "")
        return
    several = q.setting == "server" or q.gpus > 1 or (q.users or 0) > 1
    assert hours == (params.server_hours_per_week if several else params.default_hours_per_week)
    assert stages.asker.hours_assumed  # why those hours is said


OWNED = ("i have a 3060", "i have a 3090", "i have a 4090", "i have a 1070", "i have a 5090")
RUNS = ("run llama 8b", "run llama 70b 4-bit", "run qwen 32b", "nlp", "train llama 8b", "flux")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=st.sampled_from(RUNS), owned=st.sampled_from(OWNED), budget=st.sampled_from(("", " $1500")))
def test_keeping_the_card_you_have_says_it_holds_the_model_only_where_one_card_of_it_does(
    advisor, run: str, owned: str, budget: str
) -> None:
    _, stages = _staged(advisor, f"{run}{budget}, {owned}")
    terms, job, card = stages.terms, stages.job, stages.asker.owned
    assert card is not None
    assert (terms.wait_holding is not None) == (job.method == "inference" and job.model is not None)
    holds = terms.wait_holding is not None and stages.sizing.fit(card.memory_gb, 1).fits
    assert stages.wait == (terms.wait_holding if holds else terms.wait)


def test_an_owned_card_that_holds_the_model_is_kept_for_that_reason(advisor) -> None:
    held = _staged(advisor, "run llama 8b, i have a 3090")[1]
    short = _staged(advisor, "run llama 70b 8-bit, i have a 3060")[1]
    assert held.wait is not None and held.wait is held.terms.wait_holding
    assert short.wait is short.terms.wait  # 70 GB of weights: one 12 GB card does not hold them
