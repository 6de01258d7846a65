"""Moved: the advisor lives in :mod:`rules.advisor`."""

from rules.advisor import Advisor

__all__ = ["Advisor"]
