"""Money: amounts, ranges, currencies and prices stated beside cards -> ``budget`` and ``currency``.

Forms: "$2.5k", "2,5 тыс.", "150 000 рублей", "150 тр"; a range with a currency or "k" ("$2k-3k", "between
$1000 and $1500", "от 50 до 80 тысяч") is its top end, what the person is ready to spend; "million"/"billion"
words scale an amount only with a currency ("$2 million"; "7 billion" stays a parameter count). An absurd
amount ("$1e12", "a trillion dollars") reaches the budget check and is refused naming the words read, never
read as a small number. Money without a currency word is the previous question's currency, roubles for a large
amount in Russian text, else USD. A currency said apart from the amount ("nlp 800 in EUR") names it; an
amount's own sign wins.
"""

from __future__ import annotations

import re
from typing import Any

from rules.contract.question import Question
from rules.understand.grammar import MONEY_NUM, NUMBER_END, Grammar, any_of, bounded, grammar
from rules.understand.text import AmountSaid, Scan, note, number, whole

_DIGIT_RUN = re.compile(r"\d+")
_AMOUNT = re.compile(MONEY_NUM)
_BARE_RANGE = re.compile(rf"(?:{MONEY_NUM})[-–](?:{MONEY_NUM})")  # a range written as one word: "500-800"
# a range left over with nothing beside it, written as one word or spaced: "500-800", "500 - 800"
_SPACED_RANGE = re.compile(rf"(?<![\w.,])(?P<low>{MONEY_NUM})\s*[-–]\s*(?P<high>{MONEY_NUM}){NUMBER_END}")
_NOT_CONTEXT = r"(?!\s*(?:context|ctx|tokens?|токен\w*|контекст\w*|monitor|video|resolution|display))"


def _money_patterns(g: Grammar) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """An amount marked as money (a sign, a currency, 'k', 'million', or a budget word before it), and a
    number after a budget word."""
    grouped = rf"\d{{1,3}}(?:\s\d{{3}})+(?=\s*(?:{g.thousands}|{g.cur}))"
    num = rf"(?P<num>{grouped}|(?:{MONEY_NUM})(?:e\+?\d{{1,3}}(?!\d))?)"
    words = any_of(g.data["budget_words"])
    large = any_of(w for scale in g.data["large_numbers"] for w in scale["words"])
    roubles_k = any_of(g.data["thousand_roubles"])
    amount = (
        rf"(?:{num}|(?P<one>an?|one|один|одна)(?=\s+{large}))"
        rf"\s*(?:(?P<kr>{roubles_k})|(?P<k>{g.thousands})|(?P<large>{large}))?"
    )
    body = rf"(?P<pre>[$€£₽])?\s*{amount}\s*(?P<cur>{g.cur})?"
    marked = bounded(rf"(?:{words}\s*[:=]?\s*)?{body}{_NOT_CONTEXT}")
    worded = bounded(rf"{words}\s*[:=]?\s*{num}(?![\d\w])")
    return marked, worded


def _range_patterns(g: Grammar) -> tuple[re.Pattern[str], ...]:
    """'$2k-3k', '1000-1500$', '$1000 to $1500', 'от 50 до 80 тысяч', 'between $1000 and $1500'."""

    def end(i: int) -> str:
        return (
            rf"(?P<pre{i}>[$€£₽])?\s*(?P<n{i}>{MONEY_NUM})\s*(?P<k{i}>{g.thousands})?"
            rf"\s*(?P<cur{i}>{g.cur})?"
        )

    joined = rf"{end(1)}\s*(?:-|{any_of(g.data['range_words'])})\s*{end(2)}{NUMBER_END}"
    return (
        bounded(rf"(?:between|между)\s+{end(1)}\s+(?:and|и)\s+{end(2)}{NUMBER_END}"),
        bounded(rf"(?:(?:from|от)\s+)?{joined}"),
    )


def _currency_word(g: Grammar) -> re.Pattern[str]:
    """A currency named with no amount beside it ("prices in euros", "в рублях", "in GBP"). Words of two
    letters or more: a sign or a lone 'р' left over is no currency said."""
    words = [w for ws in g.data["currencies"].values() for w in ws if len(w.rstrip("*.")) >= 2]
    return bounded(rf"(?:(?:in|в|во)\s+)?(?!europ)(?P<cur>{any_of(words)})")  # "euro*" is no "european lab"


def _budget_word_at_start(g: Grammar) -> re.Pattern[str]:
    return re.compile(any_of(g.data["budget_words"]))


def _budget_word_at_end(g: Grammar) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){any_of(g.data['budget_words'])}\s*[:=]?\s*$")


def read_ranges(scan: Scan) -> None:
    """A range with a currency or 'k' is the top of it: what the person is ready to spend."""
    if len(_DIGIT_RUN.findall(scan.text)) < 2:  # both ends are numbers, with a dash or a word between them
        return

    def found(m: re.Match[str]) -> bool:
        g = m.groupdict()
        if not any(g[f"{part}{i}"] for part in ("pre", "k", "cur") for i in (1, 2)):
            return False
        low, high = number(g["n1"]), number(g["n2"])
        high *= 1000 if g["k2"] else 1
        low *= 1000 if g["k1"] or (g["k2"] and low < 1000) else 1  # "$2-3k" is 2k to 3k
        if high < low:
            return False
        mark = g["pre1"] or g["cur1"] or g["pre2"] or g["cur2"] or ""
        return scan.put("budget", (whole(high), currency(mark)), m.group())

    for pattern in grammar().patterns(_range_patterns):
        scan.take(pattern, found)


def read_marked(scan: Scan) -> None:
    """Money with a sign, a currency word, a 'k' or a budget word: '$800', '50 тыс', 'budget: $800'."""
    scan.take(grammar().patterns(_money_patterns)[0], lambda m: _money_found(scan, m, need_mark=True))


def read_worded(scan: Scan) -> None:
    """A number after a budget word, once cards, sizes and counts have taken theirs: 'budget 1500'."""
    scan.take(grammar().patterns(_money_patterns)[1], lambda m: _money_found(scan, m, need_mark=False))


def read_currency_words(scan: Scan) -> None:
    """The first currency said on its own: the currency of an amount given without one, or of the prices
    shown."""

    def found(m: re.Match[str]) -> bool:
        code = currency(m.group("cur"))
        if code is not None and scan.currency_said is None:
            scan.currency_said = (code, m.group().strip())
        return code is not None

    scan.take(grammar().patterns(_currency_word), found)


def read_bare_number(scan: Scan) -> None:
    """The only number left over, >= 50 and not a year-like 2010..2049, is a budget: 'nlp 800'; the only two,
    written as a range, are one, its top end: 'nlp 500-800' (a range with a currency or 'k' is read earlier).
    Other leftover numbers, small ones or year-like ones are reported as unknown."""
    numbers = [t for t in scan.leftovers() if _AMOUNT.fullmatch(t) or _BARE_RANGE.fullmatch(t)]
    plain = [t for t in numbers if _AMOUNT.fullmatch(t)]
    if "budget" in scan.values or not (len(numbers) == 1 or len(plain) == 2 == len(numbers)):
        return
    if len(plain) == 1:
        value = number(numbers[0])
        if _money_like(value):
            pattern = re.compile(r"(?<!\w)(?<!\d[.,])" + re.escape(numbers[0]) + NUMBER_END)
            scan.take(pattern, lambda m: scan.put("budget", (whole(value), None), m.group()))
        return

    def found(m: re.Match[str]) -> bool:
        low, high = number(m.group("low")), number(m.group("high"))
        return (
            _money_like(low)
            and _money_like(high)
            and low < high
            and scan.put("budget", (whole(high), None), m.group())
        )

    scan.take(_SPACED_RANGE, found)


def _money_like(value: float) -> bool:
    """An amount a budget can be: 50 or more, and no year-like 2010..2049."""
    return value >= 50 and not 2010 <= value <= 2049


def _money_found(scan: Scan, m: re.Match[str], need_mark: bool) -> bool:
    """An amount is money with a currency sign or word, a 'k', or a budget word before it.

    "a million"/"7 billion" without a currency stay parameter counts; with one they are
    money, so "$1e12" or "a trillion dollars" reach the budget check and are refused.
    """
    groups = m.groupdict()
    mark = groups.get("pre") or groups.get("cur") or ("₽" if groups.get("kr") else None)
    marked = mark or groups.get("k")
    if groups.get("large") and not mark:
        return False
    amount = (1.0 if groups.get("one") else number(groups["num"])) * _scale(groups)
    if (need_mark and not marked) or (not marked and amount < 50):
        return False
    worded = bool(grammar().patterns(_budget_word_at_start).match(m.group()))
    scan.amounts.append(AmountSaid(m.start(), whole(amount), currency(mark or ""), m.group().strip(), worded))
    return scan.put("budget", (whole(amount), currency(mark or "")), m.group())


def _scale(groups: dict[str, str | None]) -> float:
    """What 'k', 'тыс', 'million' or 'billion' after a number multiplies it by."""
    if groups.get("k") or groups.get("kr"):
        return 1000.0
    word = groups.get("large")
    if not word:
        return 1.0
    return next(
        float(s["factor"]) for s in grammar().data["large_numbers"] if re.fullmatch(any_of(s["words"]), word)
    )


def currency(mark: str) -> str | None:
    """The currency code a sign or word names ('$' -> 'USD', 'рублей' -> 'RUB'), or None."""
    return next((code for pattern, code in grammar().currency if pattern.fullmatch(mark.strip())), None)


def after_budget_word(before: str) -> bool:
    """Whether the text just before a number ends in a budget word: 'budget 6800' is money, not a Radeon."""
    return bool(grammar().patterns(_budget_word_at_end).search(before[-40:]))


def _stated_prices(scan: Scan) -> list[str]:
    """Amounts said beside cards ("used 3090 for 70k or 5080 for 120k рублей"): the largest is the budget.

    Not when only some amounts carry a budget word (that one is the budget: "budget $3000, 4090 for $1800");
    every amount with one ("за 70 тыс … за 120 тыс") is prices. One currency said anywhere covers the
    amounts said without one. Returns the per-card prices for ``understood``.
    """
    worded = [a.worded for a in scan.amounts]
    if len(scan.amounts) >= 2 and any(worded) and not all(worded):  # the one a budget word marks, anywhere
        budget = next(a for a in scan.amounts if a.worded)
        scan.values["budget"] = ((budget.amount, budget.currency), budget.phrase)
        return []
    if len(scan.amounts) < 2 or not scan.cards:  # all "за ...": prices
        return []
    currencies = {a.currency for a in scan.amounts if a.currency}
    said = currencies.pop() if len(currencies) == 1 else None
    top = max(scan.amounts, key=lambda a: a.amount)
    scan.values["budget"] = ((top.amount, top.currency or said), top.phrase)
    notes = []
    for at, amount, cur, _, _ in scan.amounts:
        card = max((c for c in scan.cards if c.at < at), default=None)
        if card is not None:
            notes.append(f"{card.name} {amount:g} {cur or said or ''}".strip())
    return [f"prices stated: {', '.join(notes)}; the largest is read as the budget"] if notes else []


def _currency_wins(scan: Scan) -> list[str]:
    """Of two amounts, one with its currency ("$700") is the budget over one said bare ("10k"), unless a
    budget word marks the bare one ("budget 1500"). Returns what ``understood`` says of the amount set
    aside."""
    if "budget" not in scan.values or scan.values["budget"][0][1] is not None:
        return []
    (_, _), first = scan.values["budget"]
    if any(a.worded for a in scan.amounts if a.phrase == first):
        return []
    marked = next((a for a in scan.amounts if a.currency), None)
    if marked is None:
        return []
    scan.values["budget"] = ((marked.amount, marked.currency), marked.phrase)
    return [f"'{first}' not read as the budget: '{marked.phrase}' names its currency"]


def _assumed_currency(amount: float, base: Question, fresh: bool, language: str | None) -> str:
    """The previous question's currency; else roubles for a large amount in Russian text ("за 50000"); else
    USD."""
    if not fresh:
        return base.currency
    return "RUB" if language == "ru" and amount >= 10_000 else "USD"


def budget_changes(
    scan: Scan, base: Question, fresh: bool, language: str | None, changes: dict[str, Any]
) -> list[str]:
    """The budget and currency the text gives, into ``changes``; returns what ``understood`` says of them.

    A currency said alone never turns an earlier budget into the same number in another currency."""
    understood = _currency_wins(scan)
    prices = _stated_prices(scan)
    said = scan.currency_said
    if "budget" in scan.values:
        (amount, mark), phrase = scan.values["budget"]
        named = mark or (said[0] if said else None)
        changes["budget"] = amount
        changes["currency"] = named or _assumed_currency(amount, base, fresh, language)
        how = (
            f"' and '{said[1]}"
            if said and not mark
            else ""
            if named
            else f"; no currency given, {changes['currency']} assumed"
        )
        shown = f"{amount:g}" if amount < 1e6 else f"{amount:,.0f}"
        understood.append(f"budget: {shown} {changes['currency']} (from '{phrase}{how}')")
        if said and said[0] != changes["currency"]:
            understood.append(
                f"currency: {changes['currency']}, as the budget says ('{said[1]}' not "
                f"applied: give the budget in {said[0]} to see {said[0]} prices)"
            )
    elif said:
        if base.budget is None or base.currency == said[0]:
            changes["currency"] = said[0]
            understood.append(note("currency", said[0], said[1]))
        else:  # a budget from before is in its own currency: the same number in another is another budget
            understood.append(
                f"currency: {base.currency}, as the budget of {base.budget:g} {base.currency} "
                f"says ('{said[1]}' not applied: give the budget in {said[0]} to see "
                f"{said[0]} prices)"
            )
    return understood + prices
