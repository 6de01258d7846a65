"""The job's memory: what it needs, whether each card holds it, the dated floor, memory's worth (003,
"Required Memory Size and 16-bit Training")."""

from __future__ import annotations

from rules.configurations import Configuration, Left
from rules.contract.answer import Finding
from rules.explain.evidence import Evidence, Lines, RuleLines, each
from rules.job import POOLING, term_key
from rules.knowledge.messages import Phrase, spare_text

__all__ = ["MEMORY"]


def memory_fit(evidence: Evidence) -> Lines:
    """The need once, each card's fit, a warning where little is left to spare,
    and a named card that cannot hold it."""
    q, job = evidence.question, evidence.job
    tight = evidence.rulebook.memory_fit.tight_headroom
    wide = (
        job.precision in ("16-bit", "fp32") and job.method == "inference"
    )  # weights that 8 bits would halve

    def card(c: Configuration) -> list[Finding]:
        found = [Finding("memory-fit", "applied", evidence.spoken(c.fit.said))]
        if not q.memory_gb and c.fit.fits and c.fit.headroom < tight:  # a split binds on each card's part
            spare = max(c.fit.headroom, 0.0)
            which = (
                "tight_weights"
                if wide
                else ("tight_moe" if job.experts_in_ram else "tight_inference")
                if job.method == "inference" and q.workload == "llm"
                else "tight"
            )
            found.append(
                Finding(
                    "memory-fit",
                    "warning",
                    evidence.say(
                        f"rule.memory_fit.{which}",
                        spare=spare_text(spare),
                        count=c.count,
                        name=c.gpu.name,
                        split=_split_by(evidence, c),
                    ),
                )
            )
        return found

    need = Finding(
        "memory-fit",
        "applied",
        evidence.say("rule.memory_fit.need", gb=f"{job.need.gb:.1f}", how=job.need.how),
    )
    named = tuple(
        Finding("memory-fit", "warning", e.reason) if e.status == "does-not-fit" else None
        for e in evidence.named
    )
    return Lines(need=(need,), cards=each(evidence, card), named=named)


def _split_by(evidence: Evidence, c: Configuration) -> str:
    """How a split job lies on its cards (a short answer may show the warning alone); "" for one card."""
    if not c.fit.sharded or c.count < 2:
        return ""
    how = Phrase(f"pooling.{term_key(POOLING[evidence.job.poolings[c.count]])}")
    return evidence.say("rule.memory_fit.split_by", how=how)


def memory_floor(evidence: Evidence) -> Lines:
    """The memory a card should have for the workload on the date, when no size was asked."""
    floor, made = evidence.terms.floor, evidence.choice
    if floor is None or made is None:
        return Lines()
    found = [Finding("memory-floor", "applied", evidence.spoken(floor.reason))]
    if made.under_floor is not None:
        c = made.under_floor
        found.append(
            Finding(
                "memory-floor",
                "applied",
                evidence.say("rule.memory_floor.under", name=c.gpu.name, gb=f"{c.gpu.memory_gb:g}"),
            )
        )
    if made.top is not None and made.top.gpu.memory_gb < floor.gb:
        found.append(
            Finding(
                "memory-floor",
                "warning",
                evidence.say(
                    "rule.memory_floor.unmet",
                    floor=f"{floor.gb:g}",
                    name=made.top.gpu.name,
                    gb=f"{made.top.gpu.memory_gb:g}",
                ),
            )
        )
    return Lines(choice=tuple(found))


def memory_value(evidence: Evidence) -> Lines:
    """Memory-bound jobs: what the job's class needs, and how much of it each configuration holds."""
    worth = evidence.terms.worth
    if worth is None:
        return Lines()
    need = Finding(
        "memory-value",
        "applied",
        evidence.say(
            "rule.memory_value.need_training"  # a run from scratch is training, not fine-tuning
            if worth.job.method in ("pretrain", "train")
            else "rule.memory_value.need",
            reference=worth.name,
            gb=f"{worth.target_gb:.0f}",
            share=f"{worth.share:g}",
        ),
    )

    def card(c: Configuration) -> list[Finding]:
        if c.memory_value >= 1.0:
            return [
                Finding(
                    "memory-value", "applied", evidence.say("rule.memory_value.holds", reference=worth.name)
                )
            ]
        return [
            Finding(
                "memory-value",
                "applied",
                evidence.say(
                    "rule.memory_value.card",
                    held=f"{worth.held(c.gpu.memory_gb, c.count):.0%}",
                    reference=worth.name,
                    worth=f"{c.memory_value:.2f}",
                ),
            )
        ]

    return Lines(need=(need,), cards=each(evidence, card))


def _trains_in_16_bit(evidence: Evidence) -> bool:
    q = evidence.question
    return evidence.job.method == "train" and q.precision in ("16-bit", "fp8") and not q.memory_gb


def sixteen_bit_memory(evidence: Evidence) -> Lines:
    """16-bit training holds about half as much again (the 2019 count, 32-bit terms)."""
    factor = 1.0 if evidence.question.memory_gb else evidence.job.memory_factor
    need = (
        (
            Finding(
                "16-bit-memory", "applied", evidence.say("rule.16_bit_memory.need", factor=f"{factor:.2g}")
            ),
        )
        if _trains_in_16_bit(evidence)
        else ()
    )

    def card(c: Configuration) -> list[Finding]:
        if factor == 1.0:  # only 2019-style training is counted in 32-bit terms
            return []
        return [
            Finding(
                "16-bit-memory",
                "applied",
                evidence.say(
                    "rule.16_bit_memory.card",
                    gb=f"{c.gpu.memory_gb:g}",
                    effective=f"{round(c.gpu.memory_gb * factor, 1):g}",
                ),
            )
        ]

    return Lines(need=need, cards=each(evidence, card))


def sixteen_bit_speed(evidence: Evidence) -> Lines:
    """Tensor cores help only with 16-bit data; loss scaling where 16-bit training is unstable."""
    precision = evidence.question.precision
    need = (
        (Finding("16-bit-speed", "info", evidence.say("rule.16_bit_speed.need")),)
        if _trains_in_16_bit(evidence)
        else ()
    )

    def card(c: Configuration) -> list[Finding]:
        gpu = c.gpu
        if precision == "fp32":
            return []
        if not gpu.fast_16bit:
            return [
                Finding(
                    "16-bit-speed",
                    "warning",
                    evidence.say("rule.16_bit_speed.slow", name=gpu.name, precision=precision),
                )
            ]
        if rate := gpu.tensor_tflops.get("fp16") or gpu.tensor_tflops.get("bf16"):
            return [
                Finding(
                    "16-bit-speed", "applied", evidence.say("rule.16_bit_speed.tensor", rate=f"{rate:.0f}")
                )
            ]
        return []

    return Lines(need=need, cards=each(evidence, card))


def memory_caveat(evidence: Evidence) -> Lines:
    """Of the cards left out for memory, only those cheaper than the pick are worth naming."""
    if evidence.choice is None or evidence.choice.top is None:
        return Lines()
    kept = [e for e in evidence.excluded if e.rule != "memory-fit" or e.gpu in evidence.cheaper]
    relabelled = tuple(Left(e.gpu, "memory-caveat", e.reason) if e.rule == "memory-fit" else e for e in kept)
    return Lines(left_out=relabelled)


MEMORY: dict[str, RuleLines] = {
    "memory-fit": memory_fit,
    "memory-floor": memory_floor,
    "memory-value": memory_value,
    "16-bit-memory": sixteen_bit_memory,
    "16-bit-speed": sixteen_bit_speed,
    "memory-caveat": memory_caveat,
}
