"""Shows the golden hit rate at the end of every test run that included the suite (not only with -s)."""

from __future__ import annotations

import pytest

_SUMMARY = pytest.StashKey[list]()


@pytest.fixture
def golden_summary(request) -> list[str]:
    """Lines the terminal summary prints after the run."""
    return request.config.stash.setdefault(_SUMMARY, [])


def pytest_terminal_summary(terminalreporter, config):
    lines = config.stash.get(_SUMMARY, [])
    if lines:
        terminalreporter.write_sep("-", "golden questions")
        for line in lines:
            terminalreporter.write_line(line)
