"""The full answer: every finding a person may want once the short answer is read (summary, picks with
their rules, the cards named, alternatives, warnings, rent vs buy, what the job costs, what would work, why,
what was left out, and what the answer stands on)."""

from __future__ import annotations

from collections.abc import Sequence

from rules.contract.answer import Answer, Money, RentVsBuy
from rules.knowledge.messages import Basis, Grouped, Joined, Phrase, Term, Text
from rules.render.figures import Shown, Words, heading

__all__ = ["full_lines"]


def _price(money: Money, dated: tuple[Text, Text] | None) -> Text:
    """A price, with what it is and its date where it has one (an aged price says how old)."""
    text = Grouped(money.text)
    if dated is None:
        return text
    kind, seen = dated
    key = "price.dated_converted" if money.converted_from else "price.dated"
    return Phrase(key, {"amount": text, "kind": kind, "date": seen, "source_currency": money.converted_from})


def _pick_line(rank: Text, shown: Shown, labelled: bool = True) -> Text:
    pick = shown.pick
    count = f"{pick.count} × " if pick.count > 1 else ""
    label: Text = Joined((" (", Term("label", pick.label), ")")) if labelled and pick.label else ""
    used: Text = Joined((" ", Phrase("pick.used"))) if pick.condition == "used" else ""
    total: Text = (
        Joined((", ", Phrase("pick.in_all", {"price": _price(pick.total_price, shown.total_dated)})))
        if pick.count > 1
        else ""
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
            _price(pick.unit_price, shown.unit_dated),
            total,
            "; ",
            relative,
            speed,
            ", ",
            shown.per_money,
            ", ",
            shown.memory,
        )
    )


def _named_lines(answer: Answer) -> list[Text]:
    """Every card the question named, with what became of it."""
    lines: list[Text] = []
    for entry in answer.named:
        guessed = f" (read “{entry.asked}” as {entry.name})" if entry.guessed else ""
        lines.append(f"- {entry.reason}{guessed}")
    return ["", heading("heading.named"), *lines] if lines else []


def full_lines(answer: Answer, words: Words, worked: Sequence[Text]) -> list[Text]:
    """The whole answer: summary, picks with their rules, warnings, rent vs buy, the job's and serving's cost
    and what runs on the cards (``worked``, made once for both answers, as the picks' ``words``), context."""
    lines: list[Text] = [f"**{answer.headline or answer.summary}**"]
    if answer.headline and answer.headline != answer.summary:
        lines += ["", answer.summary]
    need = answer.memory_need
    if need.how:
        said = "; ".join([need.how, *need.assumptions])
        lines += ["", Joined(("_", Phrase("answer.assumed", {"how": said}), "_"))]
    lines.append("")
    for index, shown in enumerate(words.picks, 1):
        lines.append(_pick_line(f"{index}.", shown))
        if index == 1:
            lines += [f"   - _{r.rule}_: {r.reason}" for r in shown.pick.findings if r.verdict != "warning"]
    lines += _named_lines(answer)
    if words.alternatives:
        lines += ["", heading("heading.alternatives")]
        lines += [
            _pick_line(Joined(("- ", Term("label", name), ":")), shown, labelled=False)
            for name, shown in words.alternatives
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
