"""An answer as Markdown text: the CLI, `/v1/ask` and chat clients show this.

Works from the typed :class:`~rules.answer.Answer`; a face that received the JSON over
HTTP decodes it into the same type first, so it renders exactly what the CLI prints.
Its fixed prose comes from the message catalogue (:mod:`rules.messages`): the lines are made as words to be
said, and said once, in the question's language.
"""

from __future__ import annotations

from rules.contract.answer import Answer, Detail, Money, Pick, RentVsBuy
from rules.knowledge.messages import Basis, Joined, Phrase, Term, Text, spoken
from rules.money import dated_words
from rules.render.figures import heading, memory_words, per_money, price_words
from rules.render.job import job_lines, serving_lines
from rules.render.runs_on import runs_on_lines
from rules.render.short import short_lines

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
    return spoken(Phrase("help"), language)


def _price(money: Money) -> Text:
    text = price_words(money)
    if money.seen:
        key = "price.dated_converted" if money.converted_from else "price.dated"
        kind, seen = dated_words(money)  # an aged price says what it was and how old
        return Phrase(
            key, {"amount": text, "kind": kind, "date": seen, "source_currency": money.converted_from}
        )
    return text


def _pick_line(rank: Text, pick: Pick, labelled: bool = True) -> Text:
    count = f"{pick.count} × " if pick.count > 1 else ""
    label: Text = Joined((" (", Term("label", pick.label), ")")) if labelled and pick.label else ""
    used: Text = Joined((" ", Phrase("pick.used"))) if pick.condition == "used" else ""
    total: Text = (
        Joined((", ", Phrase("pick.in_all", {"price": _price(pick.total_price)}))) if pick.count > 1 else ""
    )
    speed: Text = (
        Joined((", ", Phrase("pick.tokens", {"tokens": f"{pick.tokens_per_second:.0f}"})))
        if pick.tokens_per_second
        else ""
    )
    relative = Phrase("pick.reference", {"relative": f"{pick.relative_performance:.2f}"})
    return Joined(
        (
            rank,
            f" **{count}{pick.name}**",
            label,
            " —",
            used,
            " ",
            _price(pick.unit_price),
            total,
            "; ",
            relative,
            speed,
            ", ",
            per_money(pick),
            ", ",
            memory_words(pick.memory_gb),
        )
    )


def _named_lines(answer: Answer) -> list[Text]:
    """Every card the question named, with what became of it."""
    lines: list[Text] = []
    for entry in answer.named:
        guessed = f" (read “{entry.asked}” as {entry.name})" if entry.guessed else ""
        lines.append(f"- {entry.reason}{guessed}")
    return ["", heading("heading.named"), *lines] if lines else []


def answer_markdown(answer: Answer, detail: Detail = "short") -> str:
    """The answer in ``detail``: "full" holds every finding (summary, picks with their rules, warnings, rent
    vs buy, context); "short" is what a person reads first."""
    lines = short_lines(answer) if detail == "short" else _full_lines(answer)
    return spoken(Joined(tuple(lines), "\n"), answer.language)


def _full_lines(answer: Answer) -> list[Text]:
    """The whole answer: summary, picks with their rules, warnings, rent vs buy, context."""
    lines: list[Text] = [f"**{answer.headline or answer.summary}**"]
    if answer.headline and answer.headline != answer.summary:
        lines += ["", answer.summary]
    need = answer.memory_need
    if need.how:
        said = "; ".join([need.how, *need.assumptions])
        lines += ["", Joined(("_", Phrase("answer.assumed", {"how": said}), "_"))]
    lines.append("")
    for index, pick in enumerate(answer.picks, 1):
        lines.append(_pick_line(f"{index}.", pick))
        if index == 1:
            lines += [f"   - _{r.rule}_: {r.reason}" for r in pick.findings if r.verdict != "warning"]
    lines += _named_lines(answer)
    others = [(name, pick) for name, pick in answer.alternatives.items() if pick]
    if others:
        lines += ["", heading("heading.alternatives")]
        lines += [
            _pick_line(Joined(("- ", Term("label", name), ":")), pick, labelled=False)
            for name, pick in others
        ]
    if answer.warnings:
        lines += ["", heading("heading.watch_out")]
        lines += [f"- ⚠ {w.reason} (_{w.rule}_)" for w in answer.warnings]
    lines += _rent_lines(answer.rent_vs_buy)
    lines += job_lines(answer.job_cost)
    lines += serving_lines(answer.serving_cost)
    lines += runs_on_lines(answer.runs_on)
    if answer.suggestions:
        lines += ["", heading("heading.what_would_work")]
        lines += [f"- {s}" for s in answer.suggestions]
    notes = [f for f in answer.findings if f.verdict in ("applied", "info")]
    if notes:
        lines += ["", heading("heading.why")]
        lines += [f"- {f.reason} (_{f.rule}_)" for f in notes]
    if answer.excluded:
        lines += ["", heading("heading.left_out")]
        lines += [f"- {e.reason} (_{e.rule}_)" for e in answer.excluded[:4]]
    lines += ["", _context_line(answer)]
    return lines


def _context_line(answer: Answer) -> Text:
    """The date, catalog, performance basis and exchange rate the answer stands on."""
    currency = answer.currency
    rate: Text = (
        ""
        if currency.code == "USD"
        else Phrase(
            "answer.rate",
            {"per_usd": f"{currency.per_usd:g}", "currency": currency.code, "date": currency.rate_date},
        )
    )
    context = Phrase(
        "answer.context",
        {
            "as_of": answer.as_of,
            "catalog": answer.catalog_version,
            "basis": Basis(answer.performance_basis),
            "reference": answer.reference_gpu,
            "rate": rate,
        },
    )
    return Joined(("_", context, "_"))


def _rent_lines(rent: RentVsBuy | None) -> list[Text]:
    """Rent or buy: the cheapest comparable offer, the break-even, and the other rentals worth knowing."""
    if not rent:
        return []
    offer = rent.offer

    def money(m: Money) -> str:  # hourly prices keep their cents
        return f"{m.amount:.2f} {m.currency}"

    offered = Phrase(
        "rent.offer",
        {
            "where": " ".join(filter(None, (offer.provider, offer.instance))),
            "accelerator": offer.units,
            "per_hour": money(rent.rent_per_hour),
            "date": offer.seen,
        },
    )
    lines: list[Text] = [
        "",
        heading("heading.rent_or_buy"),
        Joined(("- ", offered)),
        f"- {rent.reason} (_rent-vs-buy_)",
    ]
    lines += [
        Joined(
            (
                "- ",
                Phrase(
                    "rent.option",
                    {
                        "count": o.count,
                        "name": o.name,
                        "provider": o.provider,
                        "per_hour": money(o.per_hour),
                        "per_year": f"{o.per_year.amount:,.0f}",
                        "date": o.seen,
                    },
                ),
            )
        )
        for o in rent.options[1:]
    ]
    return lines


def model_notes(
    unknown: tuple[str, ...],
    closed: tuple[tuple[str, str, str], ...],
    stand_ins: tuple[tuple[str, str], ...] = (),
) -> list[Text]:
    """A line per model the reading could not size as named: one the model table lacks (asking for its size),
    a version it lacks (naming the family's model sized in its place) and one with no weights to download
    (naming the open model sized in its place)."""
    lines: list[Text] = [Phrase("understand.unknown_model", {"name": name}) for name in unknown]
    lines += [
        Phrase("understand.stand_in", {"name": name, "model": model})
        if model
        else Phrase("understand.generic_model", {"name": name})
        for name, model in stand_ins
    ]
    lines += [
        Phrase("understand.closed_model", {"name": name, "maker": maker, "open_model": open_model})
        for name, maker, open_model in closed
    ]
    return lines


def outside_notes(kinds: tuple[str, ...]) -> list[Text]:
    """A line per kind of hardware asked about that the catalog does not hold ("laptop"): the answer is for
    the cards it holds, and says so."""
    return [Phrase(f"understand.outside.{kind}") for kind in kinds]


def not_understood_line(words: tuple[str, ...]) -> Text:
    """The words no reading took, named back so the asker can rephrase; a lone "00" or "$" is what a shell
    leaves of "$800" in double quotes, so those get a hint about quoting. Empty when every word was read."""
    if not words:
        return ""
    line = Phrase("understand.not_understood", {"items": ", ".join(f"'{w}'" for w in words)})
    if any(w.strip("0") == "" or w in ("$", "€", "£", "₽") for w in words):
        return Joined((line, " ", Phrase("understand.shell_quoting")))
    return line


def clarification_markdown(understood: list[str], unknown: list[str], language: str | None = None) -> str:
    """A short clarifying answer for text the parser could not use, in the asker's language."""
    parts: list[Text] = []
    if understood:
        parts.append(Phrase("clarify.understood", {"items": "; ".join(understood)}))
    if unknown:
        parts.append(Phrase("clarify.unknown", {"items": ", ".join(f"“{u}”" for u in unknown[:6])}))
    parts.append(Phrase("clarify.hint"))
    return spoken(Joined(tuple(parts), " "), language)
