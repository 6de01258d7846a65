"""The short answer: what a person reads first, with the full reasoning a request away.

The first line answers the question's intent; then what the job needs, at most three picks each with the
figure that matters for the job, the alternatives in one line, rent or buy in one line, and at most five
reasons that decided the answer, each with the rule behind it. Lines that hold whatever the pick (advice on
renting for big runs, loss scaling, power supplies) stay in the full answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.contract.answer import Answer, Finding, NamedCard, Pick, RentVsBuy
from rules.knowledge.messages import Cased, Grouped, Joined, Phrase, Term, Text, spoken
from rules.render.figures import Shown, Words, heading

__all__ = ["BACKGROUND_RULES", "MAX_PICKS", "MAX_REASONS", "deciding", "short_lines"]

MAX_PICKS = 3
MAX_REASONS = 5
# Rules whose lines hold for any pick of the answer, or that another short line already says (the need): the
# full answer keeps them, the short one leaves them out.
BACKGROUND_RULES = frozenset(
    {
        "cloud-role",
        "tpu-fit",
        "training-limits",
        "16-bit-speed",
        "16-bit-memory",
        "product-lines",
        "power-and-slots",
        "memory-fit",
        "workload-priorities",
        "software-support",
    }
)
# rules whose general remarks stay in the full answer; a line of theirs that moved the pick is shown
BACKGROUND_REMARKS = frozenset({"separate-experiments"})
# Rules about the card to buy: where the question only rents, the short answer leaves them to the full one
BUYING_RULES = frozenset(
    {
        "cost-efficiency",
        "used-cards",
        "product-lines",
        "multi-gpu-heat",
        "power-and-slots",
        "persona-already-own",
    }
)


def short_lines(answer: Answer, words: Words, worked: Sequence[Text], runs: Sequence[Text]) -> list[Text]:
    """The short answer's lines, to be said in the answer's language; ``words``: the picks as the first line
    words them, ``worked``: what the job and serving cost, ``runs``: what runs on the cards, each made once
    for the short and the full answer."""
    first: Text = Joined(("**", answer.headline or answer.summary, "**"))
    if answer.intent == "what-runs-on" and answer.runs_on:  # the models are the answer; buying is not asked
        return [first, *runs]
    lines = [first]
    lines += _named_lines(answer, words.left)
    lines += _memory_line(answer)
    rentals = _rentals(answer)
    picks = [] if rentals else words.picks[:MAX_PICKS]  # renting only, as asked: the rentals, not cards
    lines += rentals
    if picks:
        lines.append("")
        for index, shown in enumerate(picks, 1):
            lines.append(_pick_line(f"{index}.", shown))
            if index == 1:
                pick = shown.pick
                lines += [f"   - {f.reason} (_{f.rule}_)" for f in _held_by_several(pick) + _host(pick)]
    also: list[Text] = [
        Phrase(
            "short.alternative",
            {
                "label": Term("label", label),
                "name": _alternative_name(label, s.pick),
                "price": s.price,
                "figure": s.figure,
            },
        )
        for label, s in words.alternatives
        if (s.pick.gpu, s.pick.count) not in {(q.pick.gpu, q.pick.count) for q in picks} and not rentals
    ]
    if also:
        lines += ["", heading("heading.alternatives", Joined(tuple(also), "; "))]
    lines += worked
    renting_only = answer.question.setting == "cloud"  # the first line named the rental
    if answer.rent_vs_buy is not None and not _job_weighs_renting(answer) and not renting_only:
        weighed = answer.intent == "rent-or-buy"
        rent = _rent_line(answer.rent_vs_buy, answer.picks[:1], words.same_chip, weighed=weighed)
        said = spoken(rent, answer.language)
        if said and said != answer.headline:  # the first line said it already
            lines += ["", heading("heading.rent_or_buy", said)]
    if answer.suggestions:
        lines += [""] + [f"- {s}" for s in answer.suggestions[:2]]
    reasons = deciding(answer)
    if reasons:
        lines += ["", heading("heading.why")]
        lines += [f"- {f.reason} (_{f.rule}_)" for f in reasons]
    return lines


def _named_lines(answer: Answer, not_picked: tuple[NamedCard, ...] | None) -> list[Text]:
    """The cards the question named that the picks leave out (``not_picked``), each with its verdict: a card
    asked about is never dropped without a word. Fit, compare, rent-or-buy and what-runs-on answers judge
    them in their first line (None)."""
    if not_picked is None:
        return []
    unknown = [e for e in answer.named if e.gpu is None or e.status == "not-released"]
    left = [*not_picked, *(e for e in unknown if e.owned is not True)]
    if not left:
        return []
    said = "; ".join(e.reason for e in left)
    return ["", heading("heading.named", said)]


def _memory_line(answer: Answer) -> list[Text]:
    """What the job needs, in one line: the total and its parts where they were counted."""
    need = answer.memory_need
    if not need.how:
        return []
    said = Phrase("short.memory_sum", {"gb": f"{need.gb:g}", "how": need.how}) if need.parts else need.how
    return ["", heading("short.memory", said)]


def _job_weighs_renting(answer: Answer) -> bool:
    """Whether the whole job's lines already set renting against buying: the short answer says it once."""
    ways = {o.way for o in answer.job_cost.options} if answer.job_cost else set()
    ways |= {o.way for o in answer.serving_cost.options} if answer.serving_cost else set()
    return "rent" in ways and bool(ways & {"buy", "own"})


def deciding(answer: Answer) -> list[Finding]:
    """At most five lines that decided the answer: every warning first, then one line per rule of the choice's
    own reasons."""
    renting = answer.rent_vs_buy if _renting_only(answer) else None  # why this rental, first
    shown: dict[str, Finding] = (
        {"rent-vs-buy": Finding("rent-vs-buy", "applied", renting.reason)} if renting is not None else {}
    )
    for warning in answer.warnings:
        if renting is None or warning.rule not in BUYING_RULES:
            shown.setdefault(f"{warning.rule} {warning.reason}", warning)
    for finding in answer.findings:
        if renting is not None and finding.rule in BUYING_RULES:
            continue
        remark = finding.rule in BACKGROUND_REMARKS and finding.verdict == "info"
        if finding.rule not in BACKGROUND_RULES and not remark and finding.verdict in ("applied", "info"):
            shown.setdefault(finding.rule, finding)
    return list(shown.values())[:MAX_REASONS]


def _held_by_several(pick: Pick) -> list[Finding]:
    """How several cards hold the job when they pool its memory (split by layers or in tensor parallel): a
    choice the asker acts on."""
    if pick.count < 2 or pick.effective_memory_gb < pick.memory_gb * pick.count:
        return []
    return [f for f in pick.findings if f.rule == "memory-fit" and f.verdict == "applied"][:1]


def _host(pick: Pick) -> list[Finding]:
    """The multi-GPU host the price in all includes (rule power-and-slots): it explains a total above the
    cards' own prices."""
    return [f for f in pick.findings if f.rule == "power-and-slots" and f.verdict == "applied"][:1]


def _renting_only(answer: Answer) -> bool:
    """The question only rents (the cloud setting) and is no fit question, which judges a card: the short
    answer lists rentals and why, not cards to buy."""
    rent = answer.rent_vs_buy
    cloud = answer.question.setting == "cloud" and answer.intent != "fit"
    return cloud and rent is not None and bool(rent.options)


def _rentals(answer: Answer) -> list[Text]:
    """Renting only, as the question said: the rentals worth knowing, each an hour and a year at the hours
    said or assumed, in place of cards to buy."""
    rent = answer.rent_vs_buy
    if rent is None or not _renting_only(answer):
        return []
    lines: list[Text] = [""]
    return lines + [
        Phrase(
            "short.rental",
            {
                "rank": f"{index}.",
                "name": f"{o.count} × {o.name}" if o.count > 1 else o.name,
                "provider": o.provider,
                "per_hour": f"{o.per_hour.amount:.2f} {o.per_hour.currency}",
                "per_year": Grouped(o.per_year.text),
                "hours": f"{rent.hours_per_week:g}",
                "relative": f"{o.relative_performance:.1f}",
            },
        )
        for index, o in enumerate(rent.options[:MAX_PICKS], 1)
    ]


def _pick_line(rank: str, shown: Shown) -> Phrase:
    pick = shown.pick
    label: Text = Joined((", ", Term("label", pick.label))) if pick.label else ""
    used: Text = Phrase("short.used") if pick.condition == "used" else ""
    return Phrase(
        "short.pick",
        {
            "rank": rank,
            "what": _name(pick),
            "gb": f"{pick.memory_gb:g}",
            "each": Phrase("headline.each") if pick.count > 1 else "",
            "label": Joined((used, label)),
            "price": shown.price,
            "figure": shown.figure,
        },
    )


def _rent_line(rent: RentVsBuy, top: Sequence[Pick], same_chip: bool, *, weighed: bool = False) -> Text:
    """Rent or buy in one line: which is cheaper over the rule's years, the offer, when buying pays off; for a
    card no provider lists, the offer weighed instead, named as such (``same_chip``: the card's own chip in
    another form), with no break-even (``weighed``: the first line set that offer against the card already,
    so only the rentals the question named remain)."""
    offer, years = rent.offer, rent.yearly[-1].years if rent.yearly else 2
    if top and offer.gpu is not None and offer.gpu != top[0].gpu:
        if weighed:
            return Cased(_named_rentals(rent), drop="; ")
        return unlisted_rent_line(rent, top[0], same_chip) + _named_rentals(rent)
    fields: dict[str, object] = {
        "cheaper": Phrase("short.rent_cheaper" if rent.cheaper == "rent" else "short.buy_cheaper"),
        "years": years,
        "units": offer.units,
        "provider": offer.provider,
        "per_hour": f"{rent.rent_per_hour.amount:.2f} {rent.rent_per_hour.currency}",
        "hours": f"{rent.hours_per_week:g}",
    }
    if rent.break_even_hours is None or rent.hours_per_week <= 0:
        line = Phrase("short.rent_line_never", fields)
    else:
        pays_off = f"{rent.break_even_hours / (rent.hours_per_week * 52):.1f}"
        line = Phrase("short.rent_line", {"pays_off": pays_off, **fields})
    return Cased(line) + _named_rentals(rent)


def _named_rentals(rent: RentVsBuy) -> Joined:
    """The rentals the question named ("rent a tpu or buy gpus?"), where the offer weighed is another."""
    said: list[Text] = [
        Phrase(
            "short.rent_named",
            {
                "name": o.name,
                "provider": o.provider,
                "per_hour": f"{o.per_hour.amount:.2f} {o.per_hour.currency}",
                "per_year": Grouped(o.per_year.text),
            },
        )
        for o in rent.options
        if o.named and o.accelerator != rent.offer.accelerator
    ]
    return Joined(tuple(said))


def _name(pick: Pick) -> str:
    return f"{pick.count} × {pick.name}" if pick.count > 1 else pick.name


def _alternative_name(label: str, pick: Pick) -> Text:
    """An alternative's cards, marked used where its label does not already say so ("roomiest: GeForce RTX
    4060 Ti 16 GB (used)"), so a used price is never read as a new one."""
    used = pick.condition == "used" and label != "used"
    return Joined((_name(pick), " (", Phrase("pick.used"), ")")) if used else _name(pick)


def unlisted_rent_line(rent: RentVsBuy, pick: Pick, same_chip: bool) -> Cased:
    """No provider lists the card bought: the nearest offer of its own chip (``same_chip``), labelled, or a
    card about as fast; never a break-even against another card's listing."""
    offer = rent.offer
    per_hour = f"{rent.rent_per_hour.amount:.2f} {rent.rent_per_hour.currency}"
    fields = {"name": pick.name, "units": offer.units, "provider": offer.provider, "per_hour": per_hour}
    if same_chip:
        return Cased(Phrase("short.rent_same_chip", {"seen": offer.seen, **fields}))
    return Cased(Phrase("short.rent_unlisted", fields))
