"""The choices a question leaves open about its job, made as an adviser would and stated by the job.

The method (inference, or LoRA for an LLM of 1 B parameters or more), the number format (4 bit for local
LLM inference, FP8 or 16 bit on a server, 16-bit mixed for training), the runtime an LLM is run with, the
users served at once and the speed each needs, the context, and how several cards pool the model's memory:
:func:`choices_for` makes them all, as :class:`Choices`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.contract.question import Question
from rules.contract.values import MAX_GPUS
from rules.knowledge.models import ModelSpec

if TYPE_CHECKING:
    from rules.knowledge import Rulebook

__all__ = [
    "BACKEND_NAMES",
    "Choices",
    "choices_for",
    "context_for",
    "method_for",
    "pooling_for",
    "poolings_for",
    "precision_for",
    "runtime_for",
    "workload_key",
]

BACKEND_NAMES = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "vulkan": "Vulkan",
    "metal": "Metal",
    "mlx": "MLX",
    "sycl": "SYCL",
}


@dataclass(frozen=True)
class Choices:
    """Every choice about the job, made where the question left it open (``*_assumed``: by the engine)."""

    llm: bool  # a language model's job: the named model's kind, else the workload asked
    method: str
    method_assumed: bool
    users: int | None  # users served at once: asked, or assumed for a machine a group shares
    batch: int
    runtime: str | None
    precision: str
    precision_assumed: bool
    work: str  # the performance model's workload
    context: int
    pooling: str
    tokens_per_user: float  # the speed each user needs; 0 where nobody's speed is at stake
    memory_share: float  # the share of each card's memory the runtime uses (vLLM's 0.9)
    poolings: tuple[str, ...]  # how 0, 1, ... MAX_GPUS cards pool for the job


def choices_for(q: Question, spec: ModelSpec | None, rulebook: Rulebook) -> Choices:
    """The job's open choices, made in order: each reads the ones before it."""
    llm = spec.kind == "llm" if spec else q.workload == "llm"
    method, method_assumed = method_for(q, spec, llm)
    inference = method == "inference"
    users = q.users or _shared_users(q, rulebook, llm and inference)
    batch = (
        q.batch
        or (users if llm and inference else None)
        or (spec.train_batch if spec and not llm and not inference else 1)
    )
    runtime = runtime_for(q, method, llm, batch)
    precision, precision_assumed = precision_for(q, method, spec, llm, runtime, rulebook)
    work = workload_key(
        spec.workload if spec and spec.workload and q.workload == "general" else q.workload,
        "inference" if inference else "training",
    )
    pooling = pooling_for(method, llm, runtime)
    return Choices(
        llm,
        method,
        method_assumed,
        users,
        batch,
        runtime,
        precision,
        precision_assumed,
        work,
        q.context_tokens or context_for(rulebook, spec, inference),
        pooling,
        _tokens_per_user(q, rulebook, llm and inference, batch),
        float(rulebook.memory_fit.runtime_memory_share.get(runtime or "", 1.0)),
        poolings_for(pooling, spec),
    )


def workload_key(workload: str, task: str) -> str:
    """The performance-model workload for a question (LLM serving is decode-bound)."""
    return "llm_inference" if workload == "llm" and task == "inference" else workload


def _shared_users(q: Question, rulebook: Rulebook, llm_inference: bool) -> int | None:
    """Users at once on a server or a machine a group shares (the question said so: a server, a lab, a team),
    where it gives no number, requests or batch (rule workload-priorities, llm_decode.shared_users); None for
    a desk, for a server the engine settled on (eight cards, a data-centre card) and for other jobs."""
    if not llm_inference or q.batch or not q.shared:
        return None
    return int(rulebook.workload_priorities.llm_decode.shared_users)


def _tokens_per_user(q: Question, rulebook: Rulebook, llm_inference: bool, batch: int) -> float:
    """The speed each user needs: the question's, else for several users a reading speed (rule parameter); 0
    for one person who named none (the faster the better, as for any other job) and for other jobs."""
    if not llm_inference:
        return 0.0
    if q.tokens_per_user:
        return float(q.tokens_per_user)
    return float(rulebook.workload_priorities.llm_decode.reading_tokens_per_second) if batch > 1 else 0.0


def context_for(rulebook: Rulebook, spec: ModelSpec | None, inference: bool) -> int:
    params = rulebook.memory_fit
    default = int(params.default_context_tokens if inference else params.training_context_tokens)
    return min(default, spec.seq_len) if spec and spec.seq_len else default


def method_for(q: Question, spec: ModelSpec | None, llm: bool) -> tuple[str, bool]:
    """(method, assumed): inference when asked to run; for LLMs LoRA unless small or 4-bit; a named image or
    video model is fine-tuned with LoRA, as people train them on their own pictures (kohya sd-scripts,
    ostris ai-toolkit, diffusers' DreamBooth LoRA scripts), unless the whole model is asked for."""
    if q.method:
        if q.method in ("full", "pretrain") and not llm:
            return "train", False
        return q.method, False
    if q.task == "inference":
        return "inference", False
    if spec is not None and spec.kind == "diffusion":
        return "lora", True
    if not llm:
        return "train", False
    if q.precision == "4-bit":
        return "qlora", True
    if spec is not None and spec.params_b < 1:
        return "full", True
    return "lora", True


def precision_for(
    q: Question, method: str, spec: ModelSpec | None, llm: bool, runtime: str | None, rulebook: Rulebook
) -> tuple[str, bool]:
    """(precision, assumed): local LLM inference at 4 bit; servers at FP8 where the runtime serves it (vLLM
    class), else 16 bit; a large diffusion transformer from its fp8 checkpoint (memory-fit); training at
    16-bit mixed."""
    if method == "qlora":
        return "4-bit", False
    if q.precision:
        return q.precision, False
    if method == "inference" and llm:
        if spec is not None and spec.weights_gb:
            return "4-bit", True  # ships quantised (gpt-oss: MXFP4)
        if runtime in rulebook.workload_priorities.llm_decode.fp8_runtimes:
            return "fp8", True
        return ("16-bit" if q.setting in ("server", "cloud") else "4-bit"), True
    if method == "inference" and spec is not None and spec.kind == "diffusion":
        fit = rulebook.memory_fit
        large = (spec.resident_params_b or spec.params_b) >= fit.large_diffusion_from_b
        dated = q.as_of is None or q.as_of >= fit.large_diffusion_since
        return (fit.large_diffusion_precision if large and dated else fit.image_inference_precision), True
    return "16-bit", True


def runtime_for(q: Question, method: str, llm: bool, batch: int) -> str | None:
    """The runtime an LLM is run with (None for any other job): the one named; else a batching server (vLLM
    class) for several users at once or a server, whose way across cards is tensor parallelism (vLLM docs,
    distributed serving); else llama.cpp (Ollama, LM Studio), whose default across cards is the layer split
    (llama.cpp docs, multi-GPU)."""
    if method != "inference" or not llm:
        return None
    if q.runtime:
        return q.runtime
    return "vllm" if batch > 1 or q.setting in ("server", "cloud") else "llama.cpp"


def pooling_for(method: str, llm: bool, runtime: str | None) -> str:
    if method == "inference":
        return ("tensor-parallel" if runtime == "vllm" else "layer-split") if llm else "none"
    return "fsdp" if llm and method in ("lora", "qlora", "full", "pretrain") else "none"


def poolings_for(pooling: str, spec: ModelSpec | None) -> tuple[str, ...]:
    """How 0, 1, ... MAX_GPUS cards pool for a job whose runtime pools by ``pooling``: tensor parallelism
    splits every attention layer's heads evenly, so vLLM refuses a count that does not divide them (64 heads:
    2, 4 or 8 cards) or the KV heads (8 KV heads: 2, 4 or 8 cards, or a multiple of 8 that copies them), and
    such a count runs as pipeline stages."""
    heads = spec.heads if spec is not None else None
    return tuple(
        "pipeline-parallel"
        if pooling == "tensor-parallel" and count > 1 and heads and not _splits_heads(spec, count)
        else pooling
        for count in range(MAX_GPUS + 1)
    )


def _splits_heads(spec: ModelSpec | None, count: int) -> bool:
    """Whether ``count`` cards split the model's attention in tensor parallel
    (vLLM's check of the head counts)."""
    if spec is None or not spec.heads or spec.heads % count:
        return spec is None or not spec.heads
    kv = spec.kv_heads or spec.heads
    return kv % count == 0 or count % kv == 0
