"""The plan around the cards: several cards and what they buy, one machine or several, the cloud and TPUs, and
the date the advice stands on (003 first sections and "Deep Learning in the Cloud"; 002 "Single-GPU vs.
multi-GPU")."""

from __future__ import annotations

from rules.configurations import Configuration
from rules.contract.answer import Finding
from rules.explain.evidence import Evidence, Lines, RuleLines, each, kept
from rules.knowledge.messages import term

__all__ = ["PLAN"]


def multi_gpu_speedup(evidence: Evidence) -> Lines:
    """What several cards buy for the workload, and how each configuration of several pools; the general
    speed-up is left out where the pick splits its layers, so no line contradicts the pick's own."""
    q = evidence.question
    plan = (
        (
            Finding(
                "multi-gpu-speedup",
                "applied",
                evidence.say(
                    "rule.multi_gpu_speedup.plan",
                    gpus=q.gpus,
                    speedup=f"{evidence.performance.speedup(evidence.work, q.gpus):.1f}",
                    workload=term("workload", evidence.label, evidence.language),
                ),
            ),
        )
        if q.gpus > 1 and not (evidence.shown and evidence.shown[0].fit.serial)
        else ()
    )  # a layer split runs the cards one after another: the pick's own line says so, not a general speed-up

    def card(c: Configuration) -> list[Finding]:
        if c.count == 1:
            return []
        key = "rule.multi_gpu_speedup.split" if c.fit.serial else "rule.multi_gpu_speedup.card"
        return [
            Finding(
                "multi-gpu-speedup",
                "applied",
                evidence.say(key, count=c.count, speedup=f"{c.speed / c.relative:.1f}"),
            )
        ]

    return Lines(plan=plan, cards=each(evidence, card))


def separate_experiments(evidence: Evidence) -> Lines:
    if evidence.question.gpus <= 1:
        return Lines()
    return Lines(
        plan=(Finding("separate-experiments", "info", evidence.say("rule.separate_experiments.plan")),)
    )


def one_machine(evidence: Evidence) -> Lines:
    """A desk holds four cards, a server eight: more means several machines; a job no desk holds is sized
    as a server (its filter line)."""
    q, params = evidence.question, evidence.rulebook.one_machine
    if q.gpus <= params.gpus_per_machine:
        return Lines(kept=kept(evidence, "one-machine"))
    fits = params.gpus_per_server if q.setting in ("server", "cloud") else params.gpus_per_machine
    plan = (
        (Finding("one-machine", "warning", evidence.say("rule.one_machine.plan", per_machine=fits)),)
        if q.gpus > fits
        else ()
    )
    return Lines(kept=kept(evidence, "one-machine"), plan=plan)


def cloud_role(evidence: Evidence) -> Lines:
    if not evidence.question.cloud_ok:
        return Lines()
    return Lines(plan=(Finding("cloud-role", "info", evidence.say("rule.cloud_role.plan")),))


def tpu_fit(evidence: Evidence) -> Lines:
    q = evidence.question
    if not q.cloud_ok or not evidence.job.runs_on_tpu:
        return Lines()
    if q.workload in evidence.rulebook.tpu_fit.good_for:
        return Lines(plan=(Finding("tpu-fit", "info", evidence.say("rule.tpu_fit.good")),))
    if q.workload == "rnn":
        return Lines(plan=(Finding("tpu-fit", "info", evidence.say("rule.tpu_fit.rnn")),))
    return Lines()


def no_unreleased_chips(evidence: Evidence) -> Lines:
    """The advice stands on its date: only cards released by then, and a named one that was not is said so."""
    q = evidence.question
    plan = (
        (
            Finding(
                "no-unreleased-chips",
                "applied",
                evidence.say("rule.no_unreleased_chips.plan", date=q.as_of.isoformat()),
            ),
        )
        if q.as_of
        else ()
    )
    named = tuple(
        Finding("no-unreleased-chips", "excluded", e.reason) if e.status == "not-released" else None
        for e in evidence.named
    )
    return Lines(plan=plan, named=named)


PLAN: dict[str, RuleLines] = {
    "multi-gpu-speedup": multi_gpu_speedup,
    "separate-experiments": separate_experiments,
    "one-machine": one_machine,
    "cloud-role": cloud_role,
    "tpu-fit": tpu_fit,
    "no-unreleased-chips": no_unreleased_chips,
}
