"""The full answer: every finding a person may want once the short answer is read (summary, picks with
their rules, the cards named, alternatives, warnings, rent vs buy, what the job costs, what would work, why,
what was left out, and what the answer stands on)."""

from __future__ import annotations

from collections.abc import Sequence

from rules.contract.answer import Answer, Money, Pick, RentVsBuy
from rules.headline import dated_words
from rules.knowledge.messages import Basis, Joined, Phrase, Term, Text
from rules.render.figures import heading, memory_words, per_money, price_words

__all__ = ["full_lines"]


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


def full_lines(answer: Answer, worked: Sequence[Text]) -> list[Text]:
    """The whole answer: summary, picks with their rules, warnings, rent vs buy, the job's and serving's cost
    and what runs on the cards (``worked``, made once for both answers), context."""
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
    lines += worked
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
