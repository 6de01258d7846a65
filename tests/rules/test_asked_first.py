"""A question that asks for one figure gets it on the first line: how much memory the job needs, before what
to buy for it or why nothing is bought."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.ask import ask
from tests.rules.conftest import TODAY
from tests.wire import wire

JOBS = [
    "llama 3.1 8b with qlora",
    "qwen3 32b inference",
    "stable diffusion xl",
    "full fine-tuning of mistral 7b",
    "flux dev",
    "whisper large-v3",
    "deepseek r1",
    "training a resnet-50",
]
MEMORY_ASKED = [
    "how much vram do i need for {job}{budget}",
    "how much memory does {job} need{budget}?",
    "how many gb of vram for {job}{budget}",
    "vram requirements for {job}{budget}",
    "сколько видеопамяти нужно для {job}{budget}",
    "сколько памяти нужно под {job}{budget}?",
]
BUDGETS = ["", " with $1,500", " with $400", " with $20,000"]
FIGURE = re.compile(
    r"\*\*(?:You need about|Нужно около) ([\d,. \u00a0]+) (?:GB|ГБ) (?:of GPU memory|видеопамяти)\. \S"
)
SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.function_scoped_fixture]}


def _reply(advisor, text: str) -> dict:
    return wire(ask(advisor, text, today=TODAY))


@settings(max_examples=40, **SETTINGS)
@given(job=st.sampled_from(JOBS), phrasing=st.sampled_from(MEMORY_ASKED), budget=st.sampled_from(BUDGETS))
def test_the_memory_asked_for_is_the_first_line_whatever_the_verdict(advisor, job, phrasing, budget):
    reply = _reply(advisor, phrasing.format(job=job, budget=budget))
    first = reply["answer"].split("\n", 1)[0]
    said = FIGURE.match(first)
    assert said, first
    shown = float(re.sub(r"[, \u00a0]", "", said.group(1)))
    need = reply["recommendation"]["memory_need"]["gb"]
    assert abs(shown - need) <= 0.5, (first, need)


@settings(max_examples=12, **SETTINGS)
@given(job=st.sampled_from(JOBS), budget=st.sampled_from(BUDGETS))
def test_a_question_that_does_not_ask_for_the_memory_leads_with_what_it_asked(advisor, job, budget):
    first = _reply(advisor, f"which gpu for {job}{budget}")["answer"].split("\n", 1)[0]
    assert not FIGURE.match(first), first


def test_will_it_fit_says_the_need_in_its_own_yes_or_no_once(advisor):
    first = _reply(advisor, "how much vram does llama 3.3 70b need, will it fit on an rtx 4090?")["answer"]
    first = first.split("\n", 1)[0]
    assert not FIGURE.match(first) and "45 GB" in first, first
