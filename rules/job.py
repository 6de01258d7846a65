"""Stage 2 of an answer: what the asker will run — method, precision, model, context, runtime
— and its memory.

A 2026 question is rarely "train a CNN": it is "run Llama 3 8B", "fine-tune Qwen with LoRA", "generate images
with SDXL". :func:`job_for` turns a question into a :class:`Job` with every choice the asker left open made
and stated: local LLM inference at 4 bit (Q4_K_M class), LLM training as LoRA for models of 1 B parameters or
more (QLoRA and full fine-tuning shown beside it), 16-bit mixed precision for training; :mod:`rules.need`
counts the memory. Non-LLM training keeps the 2019 count in 32-bit terms, where 16-bit training makes a card
hold about 1.5x (rule ``16-bit-memory``): the only place that factor applies. Several cards pool their memory
only for methods that split the model (:func:`rules.configurations.fit_on` names the method).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from rules.contract.question import Question
from rules.contract.values import PRECISIONS
from rules.job_defaults import choices_for
from rules.knowledge.loaded import find_model
from rules.knowledge.messages import Phrase, Term, Text
from rules.knowledge.models import ModelSpec
from rules.need import GB, GIB_IN_GB, METHOD_NAMES, Need, count_for

if TYPE_CHECKING:
    from rules.knowledge import Rulebook

__all__ = [
    "GIB_IN_GB",
    "METHOD_NAMES",
    "POOLING",
    "Job",
    "job_for",
    "lower_needs",
    "memory_reference",
    "model_of",
    "raised",
    "settled",
    "term_key",
]

POOLING = {
    "none": "no pooling (each card holds a full copy)",
    "layer-split": "a layer split (llama.cpp / Ollama)",
    "tensor-parallel": "tensor parallelism (vLLM / TensorRT-LLM)",
    "fsdp": "sharding (FSDP / ZeRO-3)",
    "pipeline-parallel": "pipeline stages (vLLM: tensor parallelism needs a count that divides the attention "
    "heads)",
}


@dataclass(frozen=True)
class Job:
    """One question's job, with every open choice made; ``need`` is GB on one card."""

    workload: str
    method: str
    method_assumed: bool
    precision: str
    precision_assumed: bool
    model: ModelSpec | None
    context_tokens: int
    batch: int
    need: Need
    assumptions: tuple[Text, ...]
    other_methods: tuple[tuple[str, float], ...]
    pooling: str  # how its runtime pools cards
    poolings: tuple[str, ...]  # how 0, 1, ... MAX_GPUS cards pool: rules.job_defaults.poolings_for
    shardable_gb: float = 0.0  # the part of ``need`` that splits across cards when they pool
    memory_factor: float = 1.0  # a card holds this many times its size in the need's terms (16-bit-memory)
    bits_per_weight: float = 16.0  # weights as stored, for the bytes read per generated token
    tokens_per_user: float = (
        0.0  # tokens/s each user served at once needs; 0: one user who named none, other jobs
    )
    kv_cache_bytes: float = 2.0  # bytes per cached value: 1 with an FP8 KV cache
    backend: str | None = (
        None  # the compute backend asked (cuda, rocm, vulkan, metal, mlx, sycl); None: the card's
    )
    runtime: str | None = None  # the LLM runtime (vllm, llama.cpp); None for other jobs
    memory_share: float = 1.0  # the share of each card's memory the runtime uses (vLLM's 0.9)

    @property
    def serving_need(self) -> float:
        """Tokens/s the configuration must deliver in all: every user served at once at the speed each needs;
        0 when nobody's speed is at stake (one user, no speed asked, or not LLM inference)."""
        return self.batch * self.tokens_per_user

    @property
    def is_llm(self) -> bool:
        return self.model is not None and self.model.kind == "llm"

    @property
    def runs_on_tpu(self) -> bool:
        """False for a model run with llama.cpp (Ollama, LM Studio): GGUF files, split by layers, and no TPU
        backend, so a Cloud TPU is no option for it (llama.cpp docs, supported backends); false for QLoRA,
        whose 4-bit NF4 base is a bitsandbytes kernel with no TPU backend (bitsandbytes installation guide,
        v0.50: NVIDIA, AMD, Intel XPU, Apple Silicon and Intel Gaudi)."""
        return self.pooling != "layer-split" and self.method != "qlora"

    @property
    def experts_in_ram(self) -> bool:
        """A mixture of experts run by llama.cpp: its experts can stay in system RAM (--cpu-moe /
        --n-cpu-moe, 2025-08), the few read per token crossing to the card."""
        return self.model is not None and bool(self.model.active_params_b) and self.pooling == "layer-split"

    @property
    def compute_precision(self) -> str:
        """The number format the arithmetic runs in, which sets the speed: training over 8- or 4-bit weights
        (QLoRA) dequantises them and computes in 16-bit, as does a diffusion model run from fp8 weights
        (ComfyUI upcasts them: memory-fit); only LLM inference computes at the storage format."""
        if self.method != "inference" and self.precision in ("8-bit", "4-bit"):
            return "16-bit"
        if self.model is not None and self.model.kind == "diffusion" and self.precision == "fp8":
            return "16-bit"
        return self.precision


def model_of(question: Question) -> ModelSpec | None:
    """The model the question names, or a generic model of the size it gives: a diffusion transformer for
    image work, else a transformer."""
    spec = find_model(question.model)
    if spec is None and question.params_b and question.workload == "image-generation":
        spec = ModelSpec.generic_diffusion(question.params_b)  # "flux.3 12b": an image model, not an LLM
    elif spec is None and question.params_b:
        spec = ModelSpec.generic(question.params_b, question.active_params_b)
    return spec


def settled(question: Question, rulebook: Rulebook) -> Question:
    """The question with the engine's defaults filled in: the job's usual precision, the named model's
    workload, and a server for more cards than a desk holds."""
    job = job_for(question, rulebook)
    changes: dict[str, Any] = {}
    if question.precision is None:
        changes["precision"] = job.precision
    spec = job.model
    if spec and spec.workload and question.workload == "general":
        changes["workload"] = spec.workload
    if question.setting is None and question.gpus > rulebook.one_machine.gpus_per_machine:
        changes["setting"] = "server"
    return question.refined(**changes) if changes else question


def job_for(question: Question, rulebook: Rulebook, floors: tuple[float, ...] = ()) -> Job:
    """The job a question describes, every choice the asker left open made and stated; its memory raised to
    the personas' ``floors`` where no model or size was named."""
    spec = model_of(question)
    choices = choices_for(question, spec, rulebook)
    counted = count_for(question, rulebook, spec, choices, floors)
    return Job(
        choices.work,
        choices.method,
        choices.method_assumed,
        choices.precision,
        choices.precision_assumed,
        spec,
        choices.context,
        choices.batch,
        counted.need,
        counted.assumptions,
        counted.other_methods,
        choices.pooling,
        choices.poolings,
        counted.shardable_gb,
        counted.memory_factor,
        counted.bits_per_weight,
        choices.tokens_per_user,
        counted.kv_cache_bytes,
        question.backend,
        choices.runtime,
        choices.memory_share,
    )


def raised(job: Job, need: Need, shardable_gb: float | None = None) -> Job:
    """``job`` with its need raised (a floor, a persona's memory)."""
    return (
        replace(job, need=need)
        if shardable_gb is None
        else replace(job, need=need, shardable_gb=shardable_gb)
    )


def term_key(word: str) -> str:
    """The message key :func:`rules.messages.term` looks a word up by."""
    return re.sub(r"[^a-z0-9]+", "_", word.lower()).strip("_")


__all__ += ["GB"]


def memory_reference(
    question: Question, job: Job, rulebook: Rulebook, as_of: date
) -> tuple[Job, float, Text] | None:
    """(the reference job, its need in GB with headroom, its name) for a memory-bound question;
    None for others."""
    q, params = question, rulebook.memory_value
    if q.memory_gb or job.method not in params.methods or not (job.is_llm or q.workload == "llm"):
        return None
    if job.model is not None:
        return job, job.need.gb * (1 + params.named_headroom), job.model.name
    rows = [row for row in params.reference_models if row.from_ <= as_of]
    if not rows:
        return None
    row = max(rows, key=lambda r: r.from_)
    reference = job_for(q.refined(model=row.model, params_b=None), rulebook)
    if reference.model is None:
        return None
    name = Phrase(
        "rule.memory_value.class",
        {"model": reference.model.name, "method": Term("method", METHOD_NAMES[reference.method])},
    )
    return reference, reference.need.gb, name


def lower_needs(question: Question, rulebook: Rulebook) -> tuple[tuple[str, Need], ...]:
    """(precision, need) at the 8- and 4-bit precisions below the one the engine chose for a model's
    inference; none where the question set the precision itself."""
    if question.task != "inference" or not (question.model or question.params_b):
        return ()
    job = job_for(question, rulebook)
    if not job.precision_assumed:
        return ()
    lower = PRECISIONS[PRECISIONS.index(job.precision) + 1 :] if job.precision in PRECISIONS else ()
    return tuple(
        (p, need)
        for p in lower
        if p in ("8-bit", "4-bit")
        and (need := job_for(question.refined(precision=p), rulebook).need).gb < job.need.gb
    )
