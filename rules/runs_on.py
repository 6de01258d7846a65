"""The inverse question: what runs on the cards one has, a card asked about or the lab's own hosts.

For each model of the model table the engine sizes the same jobs it sizes for a purchase: inference at
the widest weights that fit (16-bit, then 8-bit, then 4-bit, as people step down to make a model fit)
with its tokens a second, and fine-tuning by the lightest method that still fits (full, LoRA, QLoRA).
The answer lists the largest models that run, since a person asking wants to know how far the cards go.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date

from msgspec.structs import replace as with_changes

from rules.configurations import fit_on
from rules.contract.answer import ModelRun, RunsOn
from rules.contract.question import Question
from rules.job import job_for
from rules.knowledge import Catalog, Gpu, ModelSpec, Rulebook
from rules.knowledge.loaded import load_models
from rules.knowledge.messages import say
from rules.performance import PerformanceModel

__all__ = ["runs_on", "runs_on_asked"]

INFERENCE_FORMATS = ("16-bit", "8-bit", "4-bit")  # widest first: the first that fits is the one to run
TUNING = (("full", "16-bit"), ("lora", "16-bit"), ("qlora", "4-bit"))  # heaviest first
SHOWN_KINDS = ("llm", "diffusion", "speech")


def _fits(question: Question, rulebook: Rulebook, gpu: Gpu, count: int) -> bool:
    job = job_for(question, rulebook)
    return fit_on(job, gpu.memory_gb, count).fits


def _inference(
    spec: ModelSpec, base: Question, rulebook: Rulebook, performance: PerformanceModel, gpu: Gpu, count: int
) -> tuple[str | None, float | None]:
    """The widest weights that fit for inference, and the tokens a second at them (LLMs)."""
    for precision in INFERENCE_FORMATS:
        asked = replace(base, model=spec.id, task="inference", method="inference", precision=precision)
        job = job_for(asked, rulebook)
        if fit_on(job, gpu.memory_gb, count).fits:
            speed = performance.tokens_per_second(gpu, job, count)
            return precision, None if speed is None else round(speed, 1)
    return None, None


def _tuning(spec: ModelSpec, base: Question, rulebook: Rulebook, gpu: Gpu, count: int) -> str | None:
    """The heaviest fine-tuning method that fits (full beats LoRA beats QLoRA), or None."""
    if gpu.trains == "none":
        return None
    for method, precision in TUNING:
        if method == "full" and gpu.trains != "full":
            continue
        asked = replace(base, model=spec.id, task="training", method=method, precision=precision)
        if _fits(asked, rulebook, gpu, count):
            return method
    return None


def runs_on(
    gpu: Gpu,
    count: int,
    models: Iterable[ModelSpec],
    rulebook: Rulebook,
    performance: PerformanceModel,
    base: Question,
) -> RunsOn:
    """Each model of the table on ``count`` × ``gpu``: how it runs for inference and how it can be tuned,
    the largest first; models that neither run nor tune are left out."""
    rows: list[ModelRun] = []
    seen: set[str] = set()
    for spec in sorted(models, key=lambda s: (-s.params_b, s.id)):
        if spec.kind not in SHOWN_KINDS or spec.id in seen:
            continue
        seen.add(spec.id)
        precision, speed = _inference(spec, base, rulebook, performance, gpu, count)
        tuning = _tuning(spec, base, rulebook, gpu, count) if spec.kind == "llm" else None
        if precision is None and tuning is None:
            continue
        rows.append(
            ModelRun(
                model=spec.id,
                name=spec.name,
                kind=spec.kind,
                params_b=spec.params_b,
                inference=precision,
                tokens_per_second=speed,
                fine_tune=tuning,
            )
        )
    return RunsOn(gpu=gpu.id, name=gpu.name, count=count, memory_gb=gpu.memory_gb, models=tuple(rows))


def runs_on_asked(
    question: Question,
    catalog: Catalog,
    rulebook: Rulebook,
    performance: PerformanceModel,
    lab_gpus: tuple[str, ...],
) -> tuple[RunsOn, ...]:
    """What runs on the cards asked about (named, or the asker's own), else on the lab's measured cards."""
    names = question.compare or ((question.owned_gpu,) if question.owned_gpu else ())
    cards = [gpu for name in names if (gpu := catalog.find(name)) is not None]
    count = question.gpus if len(cards) == 1 else 1
    models = {spec.id: spec for spec in load_models().values()}.values()
    base = Question(language=question.language, as_of=question.as_of)
    if not cards and question.card_memory_gb:  # "on a 24gb card": sized on the newest such card, said so
        typical = _typical_card(catalog, question.card_memory_gb, question.as_of or date.today())
        if typical is not None:
            runs = runs_on(typical, count, models, rulebook, performance, base)
            gb = f"{typical.memory_gb:g}"
            name = say("runs.typical_card", question.language, gb=gb, name=typical.name)
            return (with_changes(runs, name=name),)
    if not cards:
        cards = [catalog.gpu(gpu_id) for gpu_id in lab_gpus]
    return tuple(runs_on(gpu, count, models, rulebook, performance, base) for gpu in cards)


def _typical_card(catalog: Catalog, memory_gb: float, as_of: date) -> Gpu | None:
    """The newest GeForce-class card for a desk with exactly ``memory_gb`` (NVIDIA first, the cards most
    people have), else any: what "a 24 GB card" most likely is."""
    cards = [g for g in catalog.released_by(as_of) if g.memory_gb == memory_gb and g.desktop]
    return max(cards, key=lambda g: (g.line == "geforce", g.vendor == "nvidia", g.released), default=None)
