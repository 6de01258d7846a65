"""The message catalogue's names where they used to live; they are now in :mod:`rules.knowledge.messages`.

Kept until every caller imports from there.
"""

from rules.knowledge.messages import DEFAULT_LANGUAGE, basis, catalogue, cited, languages, say, term

__all__ = ["DEFAULT_LANGUAGE", "basis", "catalogue", "cited", "languages", "say", "term"]
