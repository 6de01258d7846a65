"""An answer as Markdown text: the CLI, `/v1/ask` and chat clients show this.

Works from the typed :class:`~rules.answer.Answer`; a face that received the JSON over
HTTP decodes it into the same type first, so it renders exactly what the CLI prints.
Its fixed prose comes from the message catalogue (:mod:`rules.messages`) in the
question's language.
"""

from __future__ import annotations

from rules.contract.answer import Answer, Detail, Money, Pick, RentVsBuy
from rules.knowledge.messages import basis, say, term
from rules.money import dated_words
from rules.render.figures import memory_text, price_text, speed_per_money
from rules.render.job import job_lines, serving_lines
from rules.render.runs_on import runs_on_lines
from rules.render.short import short_markdown

__all__ = [
    "answer_markdown",
    "clarification_markdown",
    "help_text",
    "model_notes",
    "not_understood_line",
    "outside_notes",
]


def help_text(language: str | None = None) -> str:
    """What whichgpu understands, with examples, in ``language``; made when asked, never at import, so that a
    command that shows no help does not load the knowledge for it."""
    return say("help", language)


def _price(money: Money, lang: str | None = None) -> str:
    text = price_text(money, lang)
    if money.seen:
        key = "price.dated_converted" if money.converted_from else "price.dated"
        kind, seen = dated_words(money, lang)  # an aged price says what it was and how old
        text = say(key, lang, amount=text, kind=kind, date=seen, source_currency=money.converted_from)
    return text


def _pick_line(rank: str, pick: Pick, labelled: bool = True, lang: str | None = None) -> str:
    count = f"{pick.count} × " if pick.count > 1 else ""
    label = f" ({term('label', pick.label, lang)})" if labelled and pick.label else ""
    used = " " + say("pick.used", lang) if pick.condition == "used" else ""
    total = ", " + say("pick.in_all", lang, price=_price(pick.total_price, lang)) if pick.count > 1 else ""
    speed = (
        ", " + say("pick.tokens", lang, tokens=f"{pick.tokens_per_second:.0f}")
        if pick.tokens_per_second
        else ""
    )
    relative = say("pick.reference", lang, relative=f"{pick.relative_performance:.2f}")
    per_money = speed_per_money(pick, lang)
    return (
        f"{rank} **{count}{pick.name}**{label} —{used} {_price(pick.unit_price, lang)}{total}; "
        f"{relative}{speed}, {per_money}, {memory_text(pick.memory_gb, lang)}"
    )


def _named_lines(answer: Answer, lang: str | None = None) -> list[str]:
    """Every card the question named, with what became of it."""
    lines = []
    for entry in answer.named:
        guessed = f" (read “{entry.asked}” as {entry.name})" if entry.guessed else ""
        lines.append(f"- {entry.reason}{guessed}")
    return ["", f"**{say('heading.named', lang)}**", *lines] if lines else []


def answer_markdown(answer: Answer, detail: Detail = "short") -> str:
    """The answer in ``detail``: "full" holds every finding (summary, picks with their rules, warnings, rent
    vs buy, context); "short" is what a person reads first."""
    return short_markdown(answer) if detail == "short" else _full_markdown(answer)


def _full_markdown(answer: Answer) -> str:
    """The whole answer: summary, picks with their rules, warnings, rent vs buy, context."""
    lang = answer.language
    lines = [f"**{answer.headline or answer.summary}**"]
    if answer.headline and answer.headline != answer.summary:
        lines += ["", answer.summary]
    need = answer.memory_need
    if need.how:
        said = "; ".join([need.how, *need.assumptions])
        lines += ["", f"_{say('answer.assumed', lang, how=said)}_"]
    lines.append("")
    for index, pick in enumerate(answer.picks, 1):
        lines.append(_pick_line(f"{index}.", pick, lang=lang))
        if index == 1:
            lines += [f"   - _{r.rule}_: {r.reason}" for r in pick.findings if r.verdict != "warning"]
    lines += _named_lines(answer, lang)
    others = [(name, pick) for name, pick in answer.alternatives.items() if pick]
    if others:
        lines += ["", f"**{say('heading.alternatives', lang)}**"]
        lines += [
            _pick_line(f"- {term('label', name, lang)}:", pick, labelled=False, lang=lang)
            for name, pick in others
        ]
    if answer.warnings:
        lines += ["", f"**{say('heading.watch_out', lang)}**"]
        lines += [f"- ⚠ {w.reason} (_{w.rule}_)" for w in answer.warnings]
    lines += _rent_lines(answer.rent_vs_buy, lang)
    lines += job_lines(answer.job_cost, lang)
    lines += serving_lines(answer.serving_cost, lang)
    lines += runs_on_lines(answer.runs_on, lang)
    if answer.suggestions:
        lines += ["", f"**{say('heading.what_would_work', lang)}**"] + [f"- {s}" for s in answer.suggestions]
    notes = [f for f in answer.findings if f.verdict in ("applied", "info")]
    if notes:
        lines += ["", f"**{say('heading.why', lang)}**"] + [f"- {f.reason} (_{f.rule}_)" for f in notes]
    if answer.excluded:
        lines += ["", f"**{say('heading.left_out', lang)}**"] + [
            f"- {e.reason} (_{e.rule}_)" for e in answer.excluded[:4]
        ]
    lines += ["", _context_line(answer, lang)]
    return "\n".join(lines)


def _context_line(answer: Answer, lang: str | None) -> str:
    """The date, catalog, performance basis and exchange rate the answer stands on."""
    currency = answer.currency
    rate = (
        ""
        if currency.code == "USD"
        else say(
            "answer.rate",
            lang,
            per_usd=f"{currency.per_usd:g}",
            currency=currency.code,
            date=currency.rate_date,
        )
    )
    context = say(
        "answer.context",
        lang,
        as_of=answer.as_of,
        catalog=answer.catalog_version,
        basis=basis(answer.performance_basis, lang),
        reference=answer.reference_gpu,
        rate=rate,
    )
    return f"_{context}_"


def _rent_lines(rent: RentVsBuy | None, lang: str | None) -> list[str]:
    """Rent or buy: the cheapest comparable offer, the break-even, and the other rentals worth knowing."""
    if not rent:
        return []
    offer = rent.offer

    def money(m: Money) -> str:  # hourly prices keep their cents
        return f"{m.amount:.2f} {m.currency}"

    lines = [
        "",
        f"**{say('heading.rent_or_buy', lang)}**",
        "- "
        + say(
            "rent.offer",
            lang,
            where=" ".join(filter(None, (offer.provider, offer.instance))),
            accelerator=offer.units,
            per_hour=money(rent.rent_per_hour),
            date=offer.seen,
        ),
        f"- {rent.reason} (_rent-vs-buy_)",
    ]
    lines += [
        "- "
        + say(
            "rent.option",
            lang,
            count=o.count,
            name=o.name,
            provider=o.provider,
            per_hour=money(o.per_hour),
            per_year=f"{o.per_year.amount:,.0f}",
            date=o.seen,
        )
        for o in rent.options[1:]
    ]
    return lines


def model_notes(
    unknown: tuple[str, ...],
    closed: tuple[tuple[str, str, str], ...],
    language: str | None = None,
    stand_ins: tuple[tuple[str, str], ...] = (),
) -> list[str]:
    """A line per model the reading could not size as named: one the model table lacks (asking for its size),
    a version it lacks (naming the family's model sized in its place) and one with no weights to download
    (naming the open model sized in its place)."""
    lines = [say("understand.unknown_model", language, name=name) for name in unknown]
    lines += [
        say("understand.stand_in", language, name=name, model=model)
        if model
        else say("understand.generic_model", language, name=name)
        for name, model in stand_ins
    ]
    lines += [
        say("understand.closed_model", language, name=name, maker=maker, open_model=open_model)
        for name, maker, open_model in closed
    ]
    return lines


def outside_notes(kinds: tuple[str, ...], language: str | None = None) -> list[str]:
    """A line per kind of hardware asked about that the catalog does not hold ("laptop"): the answer is for
    the cards it holds, and says so."""
    return [say(f"understand.outside.{kind}", language) for kind in kinds]


def not_understood_line(words: tuple[str, ...], language: str | None = None) -> str:
    """The words no reading took, named back so the asker can rephrase; a lone "00" or "$" is what a shell
    leaves of "$800" in double quotes, so those get a hint about quoting. Empty when every word was read."""
    if not words:
        return ""
    line = say("understand.not_understood", language, items=", ".join(f"'{w}'" for w in words))
    if any(w.strip("0") == "" or w in ("$", "€", "£", "₽") for w in words):
        line += " " + say("understand.shell_quoting", language)
    return line


def clarification_markdown(understood: list[str], unknown: list[str], language: str | None = None) -> str:
    """A short clarifying answer for text the parser could not use, in the asker's language."""
    parts = []
    if understood:
        parts.append(say("clarify.understood", language, items="; ".join(understood)))
    if unknown:
        parts.append(say("clarify.unknown", language, items=", ".join(f"“{u}”" for u in unknown[:6])))
    parts.append(say("clarify.hint", language))
    return " ".join(parts)
