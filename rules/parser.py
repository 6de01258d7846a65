"""Free text -> Question: moved to :mod:`rules.understand`; these names stay importable from here until every
caller imports them from there."""

from __future__ import annotations

from rules.understand import ParsedText, clean, parse, text_language
from rules.understand.grammar import grammar as vocabulary

__all__ = ["ParsedText", "clean", "parse", "text_language", "vocabulary"]
