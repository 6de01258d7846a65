"""The first line of an answer: the answer to the question's intent, in so many words.

A question to buy is answered "Buy a used RTX 3090 (24 GB), about 750 USD: about 45 tokens/s, 39-51";
"will it fit" with yes or no, the need and the card's memory, and the count that holds it; a comparison with
how much faster one card is and what it costs more or less; rent or buy with the one that is cheaper and when
buying pays off; what runs on a card with what the card named holds. Verdicts that buy nothing (wait, over
budget, too large) keep the reason the verdict gives. The speed is the job's figure where one exists (tokens,
images or sequences a second, with its band), else the multiple of the reference card. The words of a price
and a speed are made here (:func:`price_said` with how old a price is, :func:`figure`), for the first line
and for the short answer's picks and the faces, which say them alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from rules.contract.answer import Answer, Money, NamedCard, NamedPrice, Pick, RentOffer, RentVsBuy, RunsOn
from rules.knowledge.catalog import model_number
from rules.knowledge.messages import (
    Article,
    Cased,
    Counted,
    Grouped,
    Joined,
    Phrase,
    Term,
    Text,
    spare_text,
    spoken,
)

__all__ = [
    "NAMED_IN_HEADLINE",
    "TUNING_NAMES",
    "Firsts",
    "dated_words",
    "figure",
    "headline",
    "named_in_headline",
    "not_picked",
    "price_said",
    "said_once",
    "same_chip",
]

TUNING_NAMES = {"full": "full fine-tuning", "lora": "LoRA", "qlora": "QLoRA"}


# Intents whose first line judges the named cards themselves.
NAMED_IN_HEADLINE = frozenset({"fit", "compare", "rent-or-buy", "what-runs-on"})


@dataclass(frozen=True)
class Firsts:
    """What the modules that word them say before the line for the intent, or in its place: the PSU and the
    memory need the question asked for, the whole run's time and cost, the comparison of the cards."""

    power: str | None = None
    need: str | None = None
    job: Text | None = None
    compared: Text | None = None


def headline(answer: Answer, reference: str, firsts: Firsts) -> str:
    """The line that answers the question's intent, behind the figure asked for (``firsts``); the verdict's
    own sentence where nothing is bought; said once in the asker's language."""
    rent, top = answer.rent_vs_buy, answer.picks[0] if answer.picks else None
    chip = rent is not None and top is not None and same_chip(top, rent.offer)  # the rental: the pick's chip
    said = Cased(firsts.power or _answered(answer, reference, firsts, chip) or answer.summary)
    if firsts.need is None or answer.intent in NAMED_IN_HEADLINE:  # "will it fit" says the need itself
        return spoken(said, answer.language)
    return spoken(Phrase("headline.need_first", {"gb": firsts.need, "then": said}), answer.language)


def _answered(answer: Answer, reference: str, firsts: Firsts, chip: bool) -> Text | None:
    """The line for the question's intent; from ``firsts``, the whole run's time and cost where it was
    priced and the comparison of the cards where they were compared; ``chip``: whether the rental weighed
    is the pick's own chip in another form."""
    if answer.intent == "what-runs-on" and answer.runs_on:  # what the card holds, whatever there is to buy
        return _runs_on(answer.runs_on[0])
    if answer.verdict in ("wait", "over-budget", "too-large", "cpu-and-cloud"):
        kept = any(e.owned is True and e.status == "fits" for e in answer.named)  # "keep it: it holds it"
        return _fit(answer) if answer.intent == "fit" and not kept else None  # else the verdict's words
    said: Text | None = None
    if answer.question.setting == "cloud" and answer.rent_vs_buy is not None and answer.intent != "fit":
        said = _rent_asked(answer.rent_vs_buy)
    elif answer.intent == "fit" or _judged_for_fit(answer):
        said = _fit(answer)
        if said and answer.question.budget and answer.picks:  # the second part: what to buy for the money
            said = _with_budget(said, answer, reference)
    elif answer.intent == "compare":
        said = firsts.compared
        held = _not_held_alone(answer)
        said = Joined((held, ". ", Cased(said))) if said and held else said
    elif answer.intent == "rent-or-buy" and not (answer.job_cost and answer.job_cost.options):
        said = _rent_or_buy(answer, chip)  # a whole job priced each way answers it below, from its own hours
    elif answer.intent == "what-runs-on" and answer.named:  # what each card named holds, as judged
        said = said_once(answer.named)
    elif answer.intent == "what-runs-on" and not answer.question.card_memory_gb:  # no card, no lab card
        said = Phrase("headline.runs_no_cards")
    if said is None:
        said = firsts.job
    if said is None and answer.picks:
        said = _buy(answer, reference)
        left = () if named_in_headline(answer) else not_picked(answer)
        if left:  # a card asked about and not bought: the first line says so, its verdict follows
            names = _either([e.name for e in left])
            said = Phrase("headline.rather_than", {"names": names, "buy": Cased(said, upper=False)})
    return said


def not_picked(answer: Answer) -> tuple[NamedCard, ...]:
    """The cards the question named, not owned, when no pick shown buys any of them: where one of the named is
    bought, the question's options were answered ("mac or pc" names every Mac Studio; one is the pick)."""
    shown = {p.gpu for p in answer.picks[:3]}
    asked = [e for e in answer.named if e.owned is not True and e.gpu is not None]
    return () if any(e.gpu in shown for e in asked) else tuple(asked)


def _runs_on(card: RunsOn) -> Phrase | None:
    """The largest model the cards run (with its speed) and the largest they fine-tune."""
    runs = next((m for m in card.models if m.kind == "llm" and m.inference), None)
    if runs is None:
        return None
    speed = (
        ""
        if runs.tokens_per_second is None
        else Phrase("headline.runs_speed", {"tps": f"{runs.tokens_per_second:.0f}"})
    )
    tuned = next((m for m in card.models if m.fine_tune), None)
    tunes = (
        ""
        if tuned is None
        else Phrase(
            "headline.runs_tunes", {"name": tuned.name, "method": TUNING_NAMES[tuned.fine_tune or ""]}
        )
    )
    return Phrase(
        "headline.runs_on",
        {
            "count": card.count,
            "name": card.name,
            "model": runs.name,
            "precision": runs.inference or "",
            "speed": speed,
            "tunes": tunes,
        },
    )


def _buy(answer: Answer, reference: str, top: Pick | None = None) -> Text:
    top = top or answer.picks[0]
    used = top.condition == "used"
    if top.count > 1:
        what = Phrase(
            "headline.used_many" if used else "headline.new_many", {"count": top.count, "name": top.name}
        )
    else:
        key = "headline.used" if used else "headline.new"
        what = Phrase(key, {"name": top.name, "article": Article(top.name)})
    price = price_said(top) if top.count == 1 else Phrase("headline.in_all", {"price": price_said(top)})
    gb = f"{top.memory_gb:g}"
    memory = (  # "GeForce RTX 5060 Ti 16 GB" says its memory in its name
        ""
        if f"{gb} GB" in top.name
        else Phrase("headline.memory", {"gb": gb, "each": Phrase("headline.each") if top.count > 1 else ""})
    )
    line = Phrase(
        "headline.buy", {"what": what, "memory": memory, "price": price, "figure": figure(top, reference)}
    )
    return line + _owned(answer, top)


def _owned(answer: Answer, top: Pick) -> Text:
    """How the pick compares with the card the asker has: a multiple only where that card holds the job."""
    for entry in answer.named:
        if entry.owned is not True or not isinstance(entry.memory_gb, float):
            continue
        if entry.gpu == answer.reference_gpu:  # the figure before already says it
            return ""
        if entry.cards_needed != 1:
            return Phrase("headline.owned_short", {"name": entry.name, "gb": f"{entry.memory_gb:g}"})
        mine = entry.relative_performance
        if isinstance(mine, float) and mine > 0:
            return Phrase(
                "headline.owned_faster",
                {"ratio": f"{top.relative_performance / mine:.1f}", "name": entry.name},
            )
    return ""


def _one_per_family(entries: list[NamedCard]) -> list[NamedCard]:
    """A family word ("mac") names every member, each by its id: the first line speaks for the family through
    the cheapest member on sale that holds the job (else the roomiest on sale); the rest stay in the full
    answer."""
    family = [e for e in entries if e.gpu is not None and e.asked == e.gpu]
    on_sale = [e for e in family if isinstance(e.price, NamedPrice)]
    if len(family) < 2 or not on_sale:
        return entries
    holding = [e for e in on_sale if e.status == "fits"]
    best = (
        min(holding, key=lambda e: e.price.usd if isinstance(e.price, NamedPrice) else 0.0)
        if holding
        else max(on_sale, key=lambda e: e.memory_gb if isinstance(e.memory_gb, float) else 0.0)
    )
    return [e for e in entries if e not in family or e is best]


def _judged_for_fit(answer: Answer) -> bool:
    """A question that names a card the job does not fit ("full fine-tune of llama 3 8b on a single 4090"), or
    one card beside "or what should I buy?": whether the card holds the job is said first."""
    if answer.question.card_memory_gb and answer.named:
        return True
    asked = [e for e in answer.named if e.owned is not True]
    if answer.intent == "compare" and len(asked) == 1:
        return asked[0].status in ("fits", "does-not-fit")
    return answer.intent == "recommend" and any(e.status == "does-not-fit" for e in asked)


def named_in_headline(answer: Answer) -> bool:
    """Whether the first line itself judges the cards the question named."""
    return answer.intent in NAMED_IN_HEADLINE or _judged_for_fit(answer)


def _fit(answer: Answer) -> Text | None:
    """Yes or no for the one card the question asks about, with the count that holds the job."""
    weighed = [e for e in answer.named if e.status in ("fits", "does-not-fit")]
    asked = [e for e in weighed if e.owned is not True]
    entries = _one_per_family(asked or weighed)  # "will it fit on my 4090": the card owned is the one asked
    sized = {e.memory_gb for e in entries if e.gpu is not None}
    if len(entries) > 1:  # "an rtx 5070 with 12gb": the memory said is the named card's, judged once
        entries = [e for e in entries if e.gpu is not None or answer.question.card_memory_gb not in sized]
    if len(entries) > 1:
        verdicts = {e.status for e in entries}
        key = {"fits": "headline.yes_all", "does-not-fit": "headline.no_all"}.get(verdicts.pop(), "")
        said = said_once(entries)
        return Phrase(key, {"said": said}) if key and not verdicts else said
    if not entries:
        return None
    entry = entries[0]
    if entry.gpu is None and answer.question.card_memory_gb:  # "is 8gb enough for sdxl": a size, no card
        if isinstance(entry.at_lower, str) and isinstance(entry.at_lower_gb, float):  # yes, a lighter file
            low, need = f"{entry.at_lower_gb:.0f}", f"{answer.memory_need.gb:.0f}"
            key = "headline.size_yes_offloaded" if entry.offloaded is True else "headline.size_yes_at_lower"
            gb = f"{answer.question.card_memory_gb:g}"
            return Phrase(key, {"precision": entry.at_lower, "low": low, "gb": gb, "need": need})
        key = "headline.yes_all" if entry.status == "fits" else "headline.no_all"
        return Phrase(key, {"said": Cased(entry.reason, upper=False)})
    need = entry.reason.split(": ", 1)[0]
    if not isinstance(entry.memory_gb, float) or need == entry.reason:
        return None
    words = {"need": need, "name": entry.name, "gb": f"{entry.memory_gb:g}"}
    speed = _named_speed(entry, answer)
    judged = (_holds if entry.status == "fits" else _does_not_hold)(entry, answer, speed, words)
    if isinstance(entry.withdrawn, str) and entry.owned is not True:  # its maker stopped selling it new
        judged += Phrase("headline.withdrawn", {"since": entry.withdrawn[:7]})
    return judged


def _does_not_hold(entry: NamedCard, answer: Answer, speed: Text, words: dict[str, str]) -> Text:
    """No for the card asked about, at the count asked: yes at a lower precision one card holds, else how
    many hold it (none, for a job that runs whole on each card) and, for a mixture of experts llama.cpp runs,
    that its experts can stay in system RAM."""
    if isinstance(entry.at_lower, str) and isinstance(entry.at_lower_gb, float):  # a lower precision holds it
        key = "headline.yes_offloaded" if entry.offloaded is True else "headline.yes_at_lower"
        return Phrase(key, {"precision": entry.at_lower, "low": f"{entry.at_lower_gb:.0f}", **words})
    asked = answer.question.gpus  # "on two rtx 3090s": the count asked is the one judged
    if not isinstance(entry.cards_needed, int):  # None: not even eight hold it, or the job does not split
        key = "headline.no_split" if entry.splits is False else "headline.no_count"
        line: Text = Phrase("headline.no_system" if entry.form_factor == "system" else key, words)
    else:
        speed = speed and Phrase("headline.at_speed", {"figure": speed})
        key, many = ("headline.no_many", Counted(asked)) if asked > 1 else ("headline.no", "")
        line = Phrase(key, {"count": Counted(entry.cards_needed), "speed": speed, "asked": many, **words})
    if isinstance(entry.built_as, str) and isinstance(entry.cards_needed, int):  # another form builds
        line += Phrase("headline.built_as", {"name": entry.built_as, "count": Counted(entry.cards_needed)})
    if entry.experts_in_ram is not True:
        return line
    return line + Phrase("headline.experts_in_ram", {"count": Counted(max(asked, 1))})


def _holds(entry: NamedCard, answer: Answer, speed: Text, words: dict[str, str]) -> Text:
    """Yes for the card asked about: its speed first where the question asked how fast; the count asked
    ("on 2 x rtx pro 6000") where it is more than one."""
    needed = entry.cards_needed if isinstance(entry.cards_needed, int) else 1
    many = needed > 1
    count = Counted(needed)
    if speed and answer.question.asked_speed:
        key = "headline.speed_first_many" if many else "headline.speed_first"
        return Cased(Phrase(key, {"figure": speed, "count": count, **words}))
    speed = speed and Phrase("headline.then_speed", {"figure": speed})
    if isinstance(entry.spare, float):  # less than the tight margin: yes, only just
        key = "headline.yes_tight_many" if many else "headline.yes_tight"
        return Phrase(key, {"count": count, "spare": spare_text(entry.spare), "speed": speed, **words})
    return Phrase("headline.yes_many" if many else "headline.yes", {"count": count, "speed": speed, **words})


def _with_budget(fit: Text, answer: Answer, reference: str) -> Phrase:
    # the card asked about leads the picks; what to buy for the money is the engine's own pick behind it
    own = answer.picks[1] if answer.picks[0].label == "as asked" and len(answer.picks) > 1 else None
    buy = _buy(answer, reference, own)
    budget = Money(answer.question.budget or 0.0, answer.currency.code, 0.0).text
    return Phrase("headline.with_budget", {"fit": fit, "budget": budget, "buy": Cased(buy, upper=False)})


def _named_speed(entry: NamedCard, answer: Answer) -> Text:
    """The speed at the count that holds the job, from the pick built at that count where there is one; else
    the named card's own estimate (a card not on sale, such as a withdrawn Mac Studio)."""
    for p in (*answer.picks, *(a for a in answer.alternatives.values() if a)):
        if p.gpu == entry.gpu and p.count == entry.cards_needed and p.speed is not None:
            return figure(p, "")
    if isinstance(entry.tokens_per_second, float) and answer.question.asked_speed:
        return Phrase("pick.tokens", {"tokens": f"{entry.tokens_per_second:.0f}"})
    return ""


def _not_held_alone(answer: Answer) -> Text:
    """For compared cards the count asked does not hold the job: the need, and how many do, said once."""
    short = [e for e in answer.named if e.status == "does-not-fit"]
    if not short:
        return ""
    return said_once(short)


def _rent_or_buy(answer: Answer, chip: bool) -> Phrase | None:
    """Rent or buy, and after how long buying pays off at the hours assumed (``chip``: the rental is the
    pick's own chip in another form)."""
    rent = answer.rent_vs_buy
    if rent is None or not answer.picks:
        return None
    name, hours = answer.picks[0].name, f"{rent.hours_per_week:g}"
    if rent.offer.gpu is not None and rent.offer.gpu != answer.picks[0].gpu:  # no provider lists the card
        return _unlisted_weighed(rent, answer.picks[0], chip)
    total = answer.question.rent_hours
    if total:  # "100 hours of training": those hours rented, against the card's price
        per_hour = rent.rent_per_hour
        cost = _renting_for(per_hour, total)
        return Phrase(
            "headline.rent_hours" if cost.usd <= _owned_cost(answer, total) else "headline.buy_hours",
            {
                "hours": f"{total:g}",
                "name": name,
                "provider": rent.offer.provider,
                "cost": Grouped(cost.text),
                "per_hour": f"{rent.rent_per_hour.amount:.2f} {rent.rent_per_hour.currency}",
                "price": price_said(answer.picks[0]),
            },
        )
    if rent.break_even_hours is None:
        return Phrase("headline.rent_never", {"hours": hours, "name": name})
    years = f"{rent.break_even_hours / (rent.hours_per_week * 52):.1f}"
    key = "headline.rent" if rent.cheaper == "rent" else "headline.buy_pays"
    return Phrase(key, {"hours": hours, "name": name, "years": years})


def _rent_asked(rent: RentVsBuy) -> Phrase:
    """Renting only, as the question said: the card it named, else the rental that holds the job for least;
    per hour, and a month at the hours a week said or assumed."""
    price, hours, offer = rent.rent_per_hour, rent.hours_per_week, rent.offer
    month = _renting_for(price, hours * 52 / 12)
    named = any(o.named and o.accelerator == offer.accelerator for o in rent.options)
    return Phrase(
        "headline.rent_named" if named else "headline.rent_only",
        {
            "units": offer.units,
            "provider": offer.provider,
            "per_hour": f"{price.amount:.2f} {price.currency}",
            "per_month": Grouped(month.text),
            "hours": f"{hours:g}",
        },
    )


def _unlisted_weighed(rent: RentVsBuy, pick: Pick, chip: bool) -> Phrase:
    """Rent or buy where no provider lists the card bought: renting its chip in another form, or a card about
    as fast, at the hours assumed, a year and over the rule's years, set beside the card's price; no
    break-even is claimed against another card's listing."""
    per_hour, hours, offer = rent.rent_per_hour, rent.hours_per_week, rent.offer
    year = _renting_for(per_hour, hours * 52)
    horizon = rent.yearly[-1] if rent.yearly else None
    total = horizon.rent if horizon else year
    instead = Phrase("headline.rent_same_chip" if chip else "headline.rent_as_fast")
    return Phrase(
        "headline.rent_unlisted" if total.usd <= pick.total_price.usd else "headline.buy_unlisted",
        {
            "instead": instead,
            "seen": offer.seen,
            "per_year": Grouped(year.text),
            "hours": f"{hours:g}",
            "units": offer.units,
            "provider": offer.provider,
            "per_hour": f"{per_hour.amount:.2f} {per_hour.currency}",
            "total": Grouped(total.text),
            "years": horizon.years if horizon else 1,
            "price": price_said(pick),
            "name": pick.name,
        },
    )


def _renting_for(per_hour: Money, hours: float) -> Money:
    """What ``hours`` of a rental cost, in its currency and in USD."""
    return Money(per_hour.amount * hours, per_hour.currency, per_hour.usd * hours)


def _owned_cost(answer: Answer, hours: float) -> float:
    """What owning the pick costs for ``hours`` of use, in USD: its price and the electricity."""
    rent = answer.rent_vs_buy
    power = rent.own_power_per_hour.usd if rent is not None else 0.0
    return answer.picks[0].total_price.usd + hours * power


def said_once(entries: Sequence[NamedCard]) -> Text:
    """The named cards' reasons with a shared "{need}: " said once and cards of one verdict named together."""
    need = {e.reason.split(": ", 1)[0] for e in entries}
    if len(need) != 1 or any(": " not in e.reason for e in entries):
        return "; ".join(e.reason for e in entries)
    clauses: dict[str, list[str]] = {}
    for e in entries:
        rest = e.reason.split(": ", 1)[1]
        key = rest.replace(e.name, "\0") if e.name and e.name in rest else rest
        names = clauses.setdefault(key, [])
        if e.name and e.name not in names:
            names.append(e.name)
    said = [Joined(_between(key.split("\0"), _either(names))) for key, names in clauses.items()]
    return Joined((next(iter(need)), ": ", Joined(tuple(said), "; ")))


def _between(parts: list[str], name: Text) -> tuple[Text, ...]:
    """``parts`` with ``name`` said between each two."""
    return tuple(x for i, part in enumerate(parts) for x in ((name, part) if i else (part,)))


def _either(names: Sequence[str]) -> Text:
    """ "A", "A or B", "A, B or C" in the asker's language."""
    if len(names) < 2:
        return names[0] if names else ""
    return Phrase("named.either", {"first": ", ".join(names[:-1]), "last": names[-1]})


def dated_words(money: Money) -> tuple[Text, Text]:
    """(kind, date) as an answer names a price: ("new", "2026-08-15") while fresh; an aged one by what it
    was and how old ("launch price", "February 2025, 21 months old"), never as today's price."""
    kind = "estimate" if money.estimate else str(money.kind)
    if money.seen is None or money.age_months is None:
        return Term("price.kind", kind), str(money.seen)
    seen = date.fromisoformat(money.seen)
    month = Phrase(f"price.month.{seen.month}")
    key = "price.age" if money.age_months else "price.this_month"
    when = Phrase(key, {"month": month, "year": seen.year, "months": money.age_months})
    return Term("price.aged", kind), when


def price_said(pick: Pick) -> Text:
    """The pick's price; one that is not a fresh shop price says what it is and how old (an aged launch
    price, the lab's own quote, an estimate), so no answer shows it as today's."""
    text = Grouped(pick.total_price.text)
    unit = pick.unit_price
    if unit.seen and (unit.age_months is not None or unit.estimate or unit.kind == "quote"):
        kind, seen = dated_words(unit)
        return Joined((text, " (", kind, ", ", seen, ")"))
    return text


def figure(pick: Pick, reference: str) -> Phrase:
    """What the job gets from a pick: tokens (or images, or sequences trained on) a second with their band,
    else the multiple of the reference card (named when ``reference`` is given)."""
    speed = pick.speed
    if speed is not None:
        band = {"value": f"{speed.value:,.0f}", "low": f"{speed.low:,.0f}", "high": f"{speed.high:,.0f}"}
        if speed.users:
            users, total = f"{speed.users:,}", f"{speed.value * speed.users:,.0f}"
            return Phrase("headline.tokens_users", {"users": users, "total": total, **band})
        key = "headline.tokens" if speed.unit == "tokens/s" else "headline.throughput"
        return Phrase(key, {"unit": Phrase(f"unit.{speed.unit.replace('/', '_')}"), **band})
    relative = f"{pick.relative_performance:.1f}"
    if not reference:  # said once where the answer names it
        return Phrase("headline.relative_short", {"relative": relative})
    return Phrase("headline.relative", {"relative": relative, "reference": reference})


def same_chip(pick: Pick, offer: RentOffer) -> bool:
    """Whether the rental is the card's own chip in another form (an H200 SXM for an H200 NVL)."""
    chip = model_number(pick.name)
    return chip is not None and model_number(offer.accelerator) == chip
