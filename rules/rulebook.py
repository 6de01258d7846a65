"""The rulebook's names where they used to live; they are now in :mod:`rules.knowledge.rulebook`.

Kept until every caller imports from there.
"""

from rules.knowledge.rulebook import Rule, Rulebook, load_rulebook

__all__ = ["Rule", "Rulebook", "load_rulebook"]
