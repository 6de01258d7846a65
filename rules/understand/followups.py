"""Follow-ups that change the previous question: cheaper, more expensive, more memory, more gpus.

"cheaper" -> budget x 0.7, "more expensive" -> x 1.5; without a budget to scale they change nothing and say
so. "more memory" -> the next size in ``memory_steps_gb`` above the previous memory_gb and what the previous
answer's top held (``held_gb``), 16 GB at least; "more gpus" doubles the count (at most 16).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from rules.contract.question import Question
from rules.understand.grammar import grammar
from rules.understand.text import CardSaid, Scan, whole

# The memory the previous answer's top configuration holds, asked only when a follow-up wants more memory.
HeldGb = Callable[[], float | None]
# The cards the answer before showed, in its order, each with its price: what "them", "that card", "the second
# one" and "the cheaper one" refer to. Called only when the text refers to one.
ShownCards = Callable[[], tuple[tuple[str, float], ...]]


def referred_cards(read: Scan, shown: ShownCards | None) -> list[str]:
    """Each card the text refers to ("2 of them", "the cheaper one") added to the cards said, as the answer
    before showed it; returns what ``understood`` says of them (or that there was no answer to refer to)."""
    if not read.references:
        return []
    cards = shown() if shown is not None else ()
    understood = []
    for which, phrase in dict.fromkeys(read.references):
        if not cards:
            understood.append(f"'{phrase}': no earlier answer's cards to refer to")
            continue
        if which == "cheaper":
            gpu = min(cards, key=lambda card: card[1])[0]
        else:
            gpu = cards[min(1 if which == "second" else 0, len(cards) - 1)][0]
        read.cards.append(CardSaid(len(read.original), gpu))
        understood.append(f"'{phrase}': {gpu}, from the answer before")
    return understood


def follow_ups(
    asked: Iterable[str], base: Question, changes: dict[str, Any], held_gb: HeldGb | None
) -> list[str]:
    """Apply each follow-up asked (once, in the order said) to ``changes``; returns what it understood."""
    understood = []
    for what in dict.fromkeys(asked):
        if what == "more_memory":
            understood.append(_more_memory(base, changes, held_gb))
        elif what == "more_gpus":
            understood.append(_more_gpus(base, changes))
        else:
            factor, word = _BUDGET_STEPS[what]
            understood.append(_scale_budget(base, changes, factor, word))
    return understood


_BUDGET_STEPS = {"cheaper": (0.7, "cheaper"), "pricier": (1.5, "more expensive")}


def _scale_budget(base: Question, changes: dict[str, Any], factor: float, word: str) -> str:
    budget = changes.get("budget", base.budget)
    if budget is None:
        return f"{word}: there is no budget yet to change; say one, e.g. '$800'"
    changes["budget"] = whole(round(budget * factor)) if math.isfinite(budget) else budget
    return f"budget: {changes['budget']:g} {changes.get('currency', base.currency)} ({word}: x{factor:g})"


def _more_memory(base: Question, changes: dict[str, Any], held_gb: HeldGb | None) -> str:
    """The next memory step above what the question asked and what the previous answer's pick holds:
    'more memory?' after a 24 GB card asks for more than 24 GB, not for the 16 GB a question without a size
    would start from."""
    asked = changes.get("memory_gb", base.memory_gb) or 0
    held = (held_gb() if held_gb is not None else None) or 0
    current = max(asked, held)
    steps = [s for s in grammar().data["memory_steps_gb"] if s > current] or [min(current * 1.5, 4096)]
    changes["memory_gb"] = whole(max(steps[0], 16))
    shown = f" than the {held:g} GB shown" if held > asked else ""
    return f"memory the job needs (GB): {changes['memory_gb']:g} (more memory{shown})"


def _more_gpus(base: Question, changes: dict[str, Any]) -> str:
    changes["gpus"] = min(changes.get("gpus", base.gpus) * 2, 16)
    return f"gpus: {changes['gpus']} (more gpus)"


def next_questions(question: Question) -> tuple[str, ...]:
    """Next questions that refine this one (each understood by the parser as a follow-up)."""
    options = [
        "cheaper?",
        f"what about {question.gpus + 1} of them?" if question.gpus < 4 else "what about 2 of them?",
    ]
    options.append("and for rnn?" if question.workload != "rnn" else "and for transformers?")
    options.append("more memory?")
    if not question.used_ok:
        options.append("with used cards?")
    return tuple(options)
