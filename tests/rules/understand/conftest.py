"""Fixtures for reading text: what a phrase sets, checked against every field of the question."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pytest

from rules.contract.question import Question
from rules.understand import parse


@pytest.fixture
def sets_only() -> Callable[[str, dict[str, Any], date], None]:
    """Check that a text sets the fields ``expected`` names to those values, leaves every other field at its
    default, and needs no clarification."""

    def check(text: str, expected: dict[str, Any], today: date) -> None:
        parsed = parse(text, today=today)
        default = Question()
        # the language has its own tests: test_understand_language.py
        for name in set(Question.__dataclass_fields__) - {"language"}:
            want = expected.get(name, getattr(default, name))
            assert getattr(parsed.question, name) == want, (name, parsed.understood, parsed.unknown)
        assert set(parsed.changed) >= set(expected) - {"currency"}
        assert not parsed.needs_clarification

    return check
