"""Why a choice is what it is, in the asker's words and money: the step up from the best value, the step
not taken, a sourced price put first, a serving pick's share of the users' need, a card kept from leading.

Each note is a :class:`~rules.objective.Note` under its rule, said later in the asker's language; the ranking
(:mod:`rules.ranking`) decides and records what it found (:class:`~rules.objective.Why`), and this module says
why once the stage has made its choice (:func:`worded`), so that the prose can change without touching the
choice.
"""

from __future__ import annotations

from dataclasses import replace

from rules.configurations import Configuration
from rules.knowledge.messages import Phrase, Text
from rules.objective import Choice, Note, Objective, Why

__all__ = ["demoted_note", "explain_choice", "roomier_note", "same_price_note", "serving_notes", "worded"]


def serving_notes(top: Configuration) -> list[Note]:
    """Why a serving pick sits where it does: the least that delivers the users' need in all (speed beyond it
    is not paid for), or, where nothing within reach delivers it, the closest for the money."""
    key = "choice.serving_enough" if top.need_met == 1.0 else "choice.serving_short"
    said = Phrase(key, {"share": f"{top.need_met or 0:.0%}"})
    return [Note("cost-efficiency", "applied", said)]


def demoted_note(demoted: Configuration) -> Note:
    """A configuration ranked above the top that may not lead the answer (rule ``product-lines``)."""
    return Note(
        "product-lines",
        "applied",
        Phrase("rule.product_lines.demoted", {"count": demoted.count, "name": demoted.gpu.name}),
    )


def roomier_note(top: Configuration, lean: Configuration, objective: Objective) -> Note:
    """The pick has more memory than a configuration as fast and cheaper: what the memory costs."""
    return Note(
        "memory-value",
        "applied",
        Phrase(
            "choice.roomier",
            {
                "name": top.gpu.name,
                "gb": f"{top.gpu.memory_gb * top.count:g}",
                "lean": lean.gpu.name,
                "lean_gb": f"{lean.gpu.memory_gb * lean.count:g}",
                "more": objective.pricing.text(top.total_usd - lean.total_usd),
            },
        ),
    )


def same_price_note(top: Configuration, slower: Configuration, objective: Objective) -> Note:
    """The pick costs about what a slower configuration that does the job as well costs."""
    return Note(
        "cost-efficiency",
        "applied",
        Phrase(
            "choice.same_price",
            {
                "count": top.count,
                "name": top.gpu.name,
                "slower_count": slower.count,
                "slower": slower.gpu.name,
                "faster": f"{top.speed / slower.speed - 1:.0%}",
                "price": objective.pricing.text(top.total_usd),
                "slower_price": objective.pricing.text(slower.total_usd),
            },
        ),
    )


def explain_choice(
    top: Configuration,
    best_value: Configuration,
    within: list[Configuration],
    lam: float,
    objective: Objective,
) -> list[Note]:
    """Why the pick sits where it does on the price/speed ladder, in the asker's money: amounts as the picks'
    prices, speed for money per the round step of the currency the picks' own figure is given per
    (:attr:`Pricing.step`)."""
    notes: list[Note] = []
    # where memory weighs in (rule memory-value), the gains are of worth, not of the speed the picks show
    weighed = top.worth != top.speed or best_value.worth != best_value.speed
    measure = Phrase("choice.measure.worth" if weighed else "choice.measure.speed")
    if top.gpu.id != best_value.gpu.id and top.total_usd > best_value.total_usd:
        notes.append(_stepped_up(top, best_value, measure, objective))
    if within and within[0] is not top and within[0].estimated:
        notes.append(
            Note(
                "cost-efficiency",
                "applied",
                Phrase("choice.sourced_first", {"count": within[0].count, "name": within[0].gpu.name}),
            )
        )
    faster = [
        c
        for c in within
        if c.speed > top.speed
        and c.total_usd > top.total_usd  # the next step up the price ladder
        and not c.estimated
    ]
    if faster:
        nxt = min(faster, key=lambda c: (c.total_usd, c.gpu.id))
        notes.append(_stopped_before(top, nxt, measure, lam, objective))
    return notes


def _stepped_up(top: Configuration, best_value: Configuration, measure: Text, objective: Objective) -> Note:
    """The pick costs more than the best value: what each extra dollar buys, against the threshold."""
    threshold, pricing = objective.threshold, objective.pricing
    gain = pricing.per_step((top.worth - best_value.worth) / (top.total_usd - best_value.total_usd))
    return Note(
        "cost-efficiency",
        "applied",
        Phrase(
            "choice.stepped_up",
            {
                "name": best_value.gpu.name,
                "gain": f"{gain:.2f}",
                "measure": measure,
                "threshold": f"{threshold:g}",
                "value": f"{pricing.per_step(best_value.worth_per_usd):.2f}",
                "step": pricing.step_text(),
            },
        ),
    )


def _stopped_before(
    top: Configuration, nxt: Configuration, measure: Text, lam: float, objective: Objective
) -> Note:
    """The next step up the price ladder, and why its extra speed is not worth its extra price."""
    pricing = objective.pricing
    gain = pricing.per_step((nxt.worth - top.worth) / max(nxt.total_usd - top.total_usd, 1e-9))
    return Note(
        "cost-efficiency",
        "applied",
        Phrase(
            "choice.stopped_before",
            {
                "count": nxt.count,
                "name": nxt.gpu.name,
                "measure": measure,
                "faster": f"{nxt.speed / top.speed - 1:.0%}",
                "more": pricing.text(nxt.total_usd - top.total_usd),
                "gain": f"{gain:.2f}",
                "worth": f"{pricing.per_step(lam):.2f}",
                "step": pricing.step_text(),
            },
        ),
    )


def worded(choice: Choice) -> Choice:
    """The choice with the notes of the ranking that made it after those the stage put before them."""
    return choice if choice.why is None else replace(choice, notes=(*choice.notes, *_notes(choice.why)))


def _notes(why: Why) -> list[Note]:
    # what the ranking put first, before memory or speed for the same money moved the pick
    top, objective = why.top, why.objective
    notes = [roomier_note(why.slower, why.lean, objective)] if why.slower is not why.lean else []
    notes += [same_price_note(top, why.slower, objective)] if top is not why.slower else []
    notes += (
        [Note("cost-efficiency", "applied", Phrase("choice.cheapest"))]
        if objective.cheapest
        else explain_choice(top, why.best_value, list(why.within), why.lam, objective)
        if top.need_met is None
        else serving_notes(top)
    )
    notes += [demoted_note(why.demoted)] if why.demoted is not None else []
    return notes + ([why.floor_note] if why.floor_note else [])
