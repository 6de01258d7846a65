"""The inverse question, "what can I run on …": each model sized on the cards asked, the widest weights
that fit, the heaviest tuning that fits, and the same answer for the lab's own measured cards."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.advisor import Advisor
from rules.configurations import fit_on
from rules.contract.answer import RunsOn
from rules.contract.question import Question
from rules.job import job_for
from rules.knowledge import load_knowledge
from rules.knowledge.loaded import load_models
from rules.knowledge.messages import spoken
from rules.render.runs_on import runs_on_lines

KNOWLEDGE = load_knowledge()
ADVISOR = Advisor(KNOWLEDGE.catalog, rulebook=KNOWLEDGE.rulebook)
TODAY = dt.date(2026, 11, 26)
WIDER = {"4-bit": "8-bit", "8-bit": "16-bit"}


def _runs(card: str, count: int = 1) -> RunsOn:
    answer = ADVISOR.recommend(Question(compare=(card,), gpus=count), intent="what-runs-on", today=TODAY)
    (runs,) = answer.runs_on
    return runs


@pytest.mark.parametrize(
    ("card", "count"), [("rtx 4060", 1), ("rtx 3090", 1), ("rtx 3090", 2), ("h100 sxm", 1)]
)
def test_each_model_runs_at_the_widest_weights_that_fit(card: str, count: int) -> None:
    runs = _runs(card, count)
    gpu = KNOWLEDGE.catalog.gpu(runs.gpu)
    models = load_models()
    assert runs.count == count and runs.models
    for row in runs.models:
        if row.inference is None:
            continue
        asked = Question(model=row.model, task="inference", method="inference", precision=row.inference)
        assert fit_on(job_for(asked, KNOWLEDGE.rulebook), gpu.memory_gb, count).fits, row
        wider = WIDER.get(row.inference)
        if wider is not None:
            asked = Question(model=row.model, task="inference", method="inference", precision=wider)
            assert not fit_on(job_for(asked, KNOWLEDGE.rulebook), gpu.memory_gb, count).fits, row
        assert row.model in {spec.id for spec in models.values()}
    sizes = [row.params_b for row in runs.models]
    assert sizes == sorted(sizes, reverse=True)


def test_more_cards_run_larger_models() -> None:
    one, two = _runs("rtx 3090", 1), _runs("rtx 3090", 2)
    largest = max(r.params_b for r in one.models if r.inference)
    assert max(r.params_b for r in two.models if r.inference) > largest


def test_tuning_is_the_heaviest_method_that_fits() -> None:
    runs = _runs("rtx 4090")
    by_method = {row.fine_tune for row in runs.models if row.fine_tune}
    assert {"qlora", "lora", "full"} <= by_method
    for row in runs.models:
        if row.fine_tune == "qlora":
            lora = Question(model=row.model, task="training", method="lora", precision="16-bit")
            assert not fit_on(job_for(lora, KNOWLEDGE.rulebook), 24, 1).fits, row


def test_the_labs_measured_cards_answer_when_no_card_is_named() -> None:
    from rules.performance import Measured

    lab = Advisor(
        KNOWLEDGE.catalog,
        measurements={"rtx-4090": Measured(hosts=1), "a100-80gb-sxm": Measured(hosts=2)},
        rulebook=KNOWLEDGE.rulebook,
    )
    answer = lab.recommend(Question(workload="llm"), intent="what-runs-on", today=TODAY)
    assert {r.gpu for r in answer.runs_on} == {"rtx-4090", "a100-80gb-sxm"}


def test_the_section_names_the_largest_models_in_both_languages() -> None:
    runs = _runs("rtx 3090", 2)
    lines = [spoken(line, "en") for line in runs_on_lines((runs,))]
    assert lines[1] == "**What runs on it**" and "2 × GeForce RTX 3090 (48 GB in all)" in lines[2]
    largest = next(r for r in runs.models if r.kind == "llm" and r.inference)
    assert largest.name in lines[3] and "tokens/s" in lines[3]
    assert spoken(runs_on_lines((runs,))[1], "ru") == "**Что на этом запустится**"


def test_the_first_line_names_the_largest_model_that_runs_and_the_largest_that_tunes() -> None:
    answer = ADVISOR.recommend(Question(compare=("rtx 3090",), gpus=2), intent="what-runs-on", today=TODAY)
    (runs,) = answer.runs_on
    largest = next(r for r in runs.models if r.kind == "llm" and r.inference)
    tuned = next(r for r in runs.models if r.fine_tune)
    assert answer.headline.startswith("On 2 × GeForce RTX 3090")
    assert largest.name in answer.headline and tuned.name in answer.headline


def test_a_card_asked_by_its_memory_alone_is_sized_on_the_card_most_people_have() -> None:
    from rules.ask import ask

    reply = ask(ADVISOR, "what llms can I run on a 24gb card", today=TODAY)
    answer = reply.recommendation
    assert answer is not None and answer.runs_on
    (runs,) = answer.runs_on
    gpu = KNOWLEDGE.catalog.gpu(runs.gpu)
    assert gpu.memory_gb == 24 and gpu.line == "geforce"
    assert "24 GB card" in answer.headline and gpu.name in answer.headline
    assert any(m.params_b > 30 and m.inference == "4-bit" for m in runs.models)  # a 32B model at 4 bits


@pytest.mark.parametrize("text", ["what can we run on our gpus", "что можно запустить на наших gpu"])
def test_what_runs_on_the_labs_own_cards_and_a_clear_line_when_it_has_none(text: str) -> None:
    from rules.ask import ask
    from rules.performance import Measured

    lab = Advisor(
        KNOWLEDGE.catalog, measurements={"rtx-4090": Measured(hosts=2)}, rulebook=KNOWLEDGE.rulebook
    )
    reply = ask(lab, text, today=TODAY)
    assert reply.intent == "what-runs-on" and reply.recommendation is not None
    assert [r.gpu for r in reply.recommendation.runs_on] == ["rtx-4090"]
    bare = ask(ADVISOR, text, today=TODAY)
    assert bare.intent == "what-runs-on" and bare.recommendation is not None
    assert not bare.recommendation.runs_on and "rtx 4090" in bare.text.splitlines()[0]


ASKS_HOW_FAR = (
    "{card}, what's the biggest model I can run?",
    "what is the largest model that fits on {a} {card}",
    "which models can run on {a} {card}",
    "biggest llm for my {card}",
    "how big a model can I run on my {card}?",
    "what models fit on {a} {card}",
    "какую самую большую модель запустит {card}?",
)


@pytest.mark.parametrize("card", ["rtx 3090", "rtx 3060 12gb", "rtx 5060 ti 16gb", "rx 7900 xtx"])
@pytest.mark.parametrize("phrasing", ASKS_HOW_FAR)
def test_a_question_of_how_far_a_card_goes_is_answered_with_the_largest_model_it_runs(
    card: str, phrasing: str
) -> None:
    """However it is put, and whether the card is owned ("my …") or only asked about, the first line names
    the largest model the card runs, never what to buy or a verdict to keep the card."""
    from rules.ask import ask

    reply = ask(ADVISOR, phrasing.format(card=card, a="an" if card[0] in "aeiou" else "a"), today=TODAY)
    answer = reply.recommendation
    assert reply.intent == "what-runs-on" and answer is not None and answer.runs_on, reply.text
    (runs,) = answer.runs_on
    largest = next(r for r in runs.models if r.kind == "llm" and r.inference)
    first = reply.text.splitlines()[0]
    assert largest.name in first, first
    assert first.startswith(("**On 1 ×", "**На 1 ×")), first
