"""The first line of a question that asks for one figure: the power supply ("what psu for two rtx 3090"), the
watts the build draws and the PSU it needs as the rule power-and-slots counts them for the pick; the memory
("how much vram do i need"), the job's need said before what to buy for it."""

from __future__ import annotations

from rules.contract.answer import Answer

__all__ = ["need_asked", "power_first"]


def power_first(answer: Answer) -> str | None:
    """The pick's power line, said first where the question asked for the PSU; None otherwise."""
    if not answer.question.asked_power or not answer.picks:
        return None
    named = [e.gpu for e in answer.named if e.gpu is not None]
    top = next((p for p in answer.picks if p.gpu in named), None) if named else answer.picks[0]
    if top is None:  # the card asked about is not bought: the usual first line says why
        return None
    line = next((f.reason for f in top.findings if f.rule == "power-and-slots" and f.verdict == "info"), None)
    if line is None:
        return None
    subject = f"{top.count} × {top.name}" if top.count > 1 else top.name
    return f"{subject} {line}"


def need_asked(answer: Answer) -> str | None:
    """The memory the job needs, as the first line says it, where the question asked for that figure; None
    otherwise. Whatever the verdict, the figure asked for comes first: what to buy, or why nothing is bought,
    follows it."""
    need = answer.memory_need
    if not answer.question.asked_memory or not need.how or need.gb <= 0:
        return None
    return f"{need.gb:,.0f}" if need.gb >= 100 else f"{need.gb:g}"
