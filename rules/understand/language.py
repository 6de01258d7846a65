"""The language a question is written in: the answer speaks it, and a large bare amount in Russian is roubles.

"ru" when at least a quarter of the letters are Cyrillic, else "en"; None when the text has no letters. The
build keeps it only when the text changed something (help and nonsense have no language), and it is not listed
in ``changed``: it is kept through follow-ups, not asked for.
"""

from __future__ import annotations

import re

_LATIN_LETTER = re.compile("[A-Za-z]")


def text_language(text: str) -> str | None:
    """'ru' when at least a quarter of the letters are Cyrillic, else 'en'; None without letters."""
    if text.isascii():  # no Cyrillic: English as soon as there is a letter
        return "en" if _LATIN_LETTER.search(text) else None
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return None
    cyrillic = sum(1 for ch in letters if "\u0400" <= ch <= "\u04ff")
    return "ru" if cyrillic * 4 >= len(letters) else "en"
