"""Engine fixtures: the shipped catalog, one advisor, a fixed 'today'."""

from __future__ import annotations

from datetime import date

import pytest

from tests.wire import wire

TODAY = date(2026, 11, 22)  # fixed, so answers do not change with the calendar


@pytest.fixture(scope="session")
def catalog():
    from rules.knowledge.loaded import load_catalog

    return load_catalog()


@pytest.fixture(scope="session")
def advisor(catalog):
    from rules.advisor import Advisor

    return Advisor(catalog)


@pytest.fixture
def recommend(advisor):
    """Answer a question given as keyword arguments, as JSON (what every face shows)."""
    from rules.contract.question import Question

    def run(intent: str = "recommend", **fields):
        return wire(advisor.recommend(Question(**fields), intent=intent, today=TODAY))

    return run
