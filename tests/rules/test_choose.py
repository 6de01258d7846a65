"""The choice (rules/choose.py, rules/ranking.py): what the stage hands on, over questions made from parts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rules.choice_notes import worded
from rules.choose import chosen
from rules.objective import objective_for
from rules.shown import shown
from tests.rules.test_stages import _staged, texts


def _chosen(advisor, text: str):
    _, stages = _staged(advisor, text)
    objective = objective_for(stages, advisor.rulebook)
    return stages, chosen(stages, stages.kept, objective, advisor.rulebook.vendor_nvidia, "recommend", ())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_the_choice_is_made_of_the_configurations_kept(advisor, text: str) -> None:
    stages, choice = _chosen(advisor, text)
    kept = [id(c) for c in stages.kept]
    picks = [c for c, _ in shown(choice, False)]
    assert all(id(c) in kept for c in picks)
    assert choice.top is None or id(choice.top) in kept


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_the_rankings_notes_are_worded_once_after_the_stages_own(advisor, text: str) -> None:
    """The ranking records why (``Why``); the stage words it once, after the notes it put before them."""
    _, choice = _chosen(advisor, text)
    if choice.top is None:
        assert choice.why is None or choice.notes
        return
    assert choice.why is not None and choice.why.top is not None
    said = [(n.rule, n.reason) for n in choice.notes]
    assert len(said) == len(set(map(repr, said)))  # no note twice
    again = worded(choice)  # wording it again adds the ranking's notes a second time: the stage did it once
    ranking = again.notes[len(choice.notes) :]
    assert list(choice.notes[len(choice.notes) - len(ranking) :]) == list(ranking)
