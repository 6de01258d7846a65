"""Dates: 'as of 2021-03', 'in 2019', 'март 2024 года', 'late 2025' -> ``as_of``, the day answered for.

Reads a date with a four-digit year, records ``as_of`` and blanks it. Runs first: a year is never a budget or
a card ("in 2019"), while "on 4090" and "на 2080" stay cards. A year alone is 31 December of that year (today
in the current year); a year and month is the month's last day (today in the current month); a part of a year
("early", "mid", "late") is the last day of its third (30 April, 31 August, 31 December), never after today; a
full date is as given.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from rules.errors import QuestionError
from rules.understand.grammar import Grammar, any_of, bounded, grammar
from rules.understand.text import Scan

_YEAR_DIGITS = re.compile(r"\d{4}")
_MONTH_GROUP = re.compile(r"m\d+")
_PART_MONTH = {"early": 4, "mid": 8, "late": 12}  # the last month of each third of a year


def _patterns(g: Grammar) -> tuple[re.Pattern[str], ...]:
    """The date forms, most specific first."""
    prefixes = g.data["date_prefixes"]
    pre = rf"(?:{any_of(prefixes)}\s*)"
    strong = rf"(?:{any_of(w for w in prefixes if ' ' in w)}\s*)"  # "as of", "по состоянию на"
    weak = rf"(?:{any_of(w for w in prefixes if ' ' not in w)}\s*)"  # "in", "on", "на", "в"
    months = "|".join(f"(?P<m{i}>{any_of(ws)})" for i, ws in enumerate(g.data["months"], 1))
    year = r"(?P<y>19\d\d|20[0-4]\d)"
    suffix = any_of(g.data["year_suffixes"])
    parts = g.data["year_parts"]
    part = "|".join(f"(?P<{name}>{any_of(parts[name])})" for name in _PART_MONTH)
    not_money = rf"(?!\s*(?:{g.cur}|{g.thousands}|[\d.,]))"
    return tuple(
        bounded(p)
        for p in (
            # any year: the range check names it
            rf"{pre}?(?P<y>\d{{4}})-(?P<mo>\d\d?)(?:-(?P<d>\d\d?))?(?![\w-])",
            rf"{pre}?(?P<d>\d\d?)\.(?P<mo>\d\d?)\.(?P<y>\d{{4}})(?!\d)",
            rf"{pre}?(?:(?P<d>\d\d?)\s+)?(?:{months})\s*(?:of\s+)?(?P<y>(?:19|20)\d\d)(?!\d)(?:\s*{suffix})?",
            # "late 2025", "mid-2024", "в конце 2025 года": a part of a year
            rf"{pre}?(?:{part})[\s-]*(?:of\s+)?{year}(?!\d)(?:\s*{suffix})?",
            rf"{pre}?{year}\s*{suffix}",
            # "as of 2999": a date, refused by the range check
            rf"{strong}(?P<y>\d{{4}})(?![\w-]){not_money}",
            # "in 2019"; "on 4090", "на 2080" are cards
            rf"{weak}(?P<y>19\d\d|20(?![5-9]0)\d\d)(?![\w-]){not_money}",
        )
    )


def read_dates(scan: Scan) -> None:
    """Every date form holds a four-digit year: a text without one never compiles the date patterns, the
    largest regexes of a one-shot CLI answer."""
    if not _YEAR_DIGITS.search(scan.text):
        return
    for pattern in grammar().patterns(_patterns):
        scan.take(pattern, lambda m: scan.put("as_of", _as_of(m, scan.today), m.group()))


def _as_of(m: re.Match[str], today: date) -> date:
    """Year -> 31 Dec (today this year); year-month -> its last day (today this month)."""
    groups = m.groupdict()
    named = [int(k[1:]) for k, v in groups.items() if v and _MONTH_GROUP.fullmatch(k)]
    year, day = int(groups["y"]), groups.get("d")
    month = int(groups["mo"]) if groups.get("mo") else (named[0] if named else None)
    part = next((m for name, m in _PART_MONTH.items() if groups.get(name)), None)
    if part is not None:  # "late 2025": the end of its third, never after today
        return min(date(int(groups["y"]), part, calendar.monthrange(int(groups["y"]), part)[1]), today)
    try:
        if day is not None:
            return date(year, month or 1, int(day))
        if month is not None:
            last = date(year, month, calendar.monthrange(year, month)[1])
            return today if (year, month) == (today.year, today.month) else last
    except ValueError:
        raise QuestionError("as_of", f"as_of: there is no such date as {m.group().strip()!r}") from None
    return today if year == today.year else date(year, 12, 31)
