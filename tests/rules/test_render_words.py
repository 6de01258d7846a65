"""The words of every pick, made once for the Markdown (rules/render/figures.py, words_for)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rules.headline import figure, named_in_headline, not_picked, price_said
from rules.knowledge.messages import spoken
from rules.render.figures import words_for
from rules.render.markdown import answer_markdown
from rules.understand import parse
from tests.rules.conftest import TODAY
from tests.rules.test_stages import texts


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_every_pick_and_alternative_is_worded_once_as_the_first_line_words_it(advisor, text: str) -> None:
    answer = advisor.recommend(parse(text, today=TODAY).question, today=TODAY)
    words = words_for(answer)
    assert [s.pick for s in words.picks] == list(answer.picks)
    assert [(label, s.pick) for label, s in words.alternatives] == [
        (label, p) for label, p in answer.alternatives.items() if p is not None
    ]
    for shown in (*words.picks, *(s for _, s in words.alternatives)):
        assert spoken(shown.price, answer.language) == spoken(price_said(shown.pick), answer.language)
        assert spoken(shown.figure, answer.language) == spoken(figure(shown.pick, ""), answer.language)
    assert words.left == (None if named_in_headline(answer) else not_picked(answer))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_the_short_answer_shows_each_pick_at_the_price_its_words_say(advisor, text: str) -> None:
    answer = advisor.recommend(parse(text, today=TODAY).question, today=TODAY)
    short = answer_markdown(answer, "short")
    rentals_only = answer.question.setting == "cloud" and answer.rent_vs_buy is not None
    for shown in words_for(answer).picks[:3]:
        if not rentals_only:
            assert spoken(shown.price, answer.language) in short
