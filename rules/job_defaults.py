"""The choices a question leaves open about its job, made as an adviser would and stated by the job.

The method (inference, or LoRA for an LLM of 1 B parameters or more), the number format (4 bit for local
LLM inference, FP8 or 16 bit on a server, 16-bit mixed for training), the runtime an LLM is run with, the
context, and how several cards pool the model's memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.contract.question import Question
from rules.knowledge.models import ModelSpec

if TYPE_CHECKING:
    from rules.knowledge import Rulebook

__all__ = ["context_for", "method_for", "pooling_for", "precision_for", "runtime_for"]


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
