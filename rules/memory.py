"""How much GPU memory a job needs, and whether a card (or several) holds it.

Training at fp32 or 16-bit is estimated in 32-bit terms — weights, gradients and
Adam state (16 bytes per parameter) plus activations at the model's usual batch —
and compared with the card's *effective* memory: 1.5× its size with 16-bit
training (rule ``16-bit-memory``), not 2×. Training at 8 or 4 bits means adapter
fine-tuning (LoRA / QLoRA): quantised frozen weights, a small trainable part.
Inference needs the weights at the precision plus the KV cache.
Several cards add up their memory only when the states are sharded, and the
answer says so (rule ``memory-fit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from rules.answer import MemoryNeed
from rules.datafile import load_data
from rules.question import Question
from rules.rulebook import Rulebook

__all__ = ["ModelSpec", "Fit", "MemoryModel", "load_models", "find_model"]

_ARCHITECTURE = ("active_params_b", "heads", "kv_heads", "head_dim", "kv_width", "intermediate", "vocab",
                 "inference_activation_gb", "weights_gb")
BYTES_PER_PARAM = {"fp32": 4.0, "16-bit": 2.0, "8-bit": 1.0, "4-bit": 0.56}
GB = 1e9


@dataclass(frozen=True)
class ModelSpec:
    id: str
    name: str
    kind: str
    workload: str | None
    params_b: float
    layers: int | None
    hidden: int | None
    kv_fraction: float
    seq_len: int | None
    train_batch: int
    activation_gb_per_sample: float | None
    aliases: tuple[str, ...]
    active_params_b: float | None = None  # mixture of experts: parameters read per token
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    kv_width: int | None = None  # values cached per token and layer, when not 2 x kv_heads x head_dim
    intermediate: int | None = None
    vocab: int | None = None
    inference_activation_gb: float | None = None
    weights_gb: float | None = None  # released checkpoint size when it ships quantised
    source: str = ""

    @property
    def active_b(self) -> float:
        """Parameters read per generated token (all of them unless a mixture of experts)."""
        return self.active_params_b or self.params_b

    @property
    def kv_values_per_token(self) -> int:
        """Values the KV cache holds per token, over all layers."""
        if self.kv_width:
            width = self.kv_width
        elif self.kv_heads and self.head_dim:
            width = 2 * self.kv_heads * self.head_dim
        else:
            width = int(2 * (self.hidden or 768) * self.kv_fraction)
        return width * (self.layers or 12)

    @classmethod
    def generic(cls, params_b: float) -> "ModelSpec":
        """A transformer of the given size with the usual depth/width ratio (hidden ≈ 128 × layers)."""
        hidden = max(256, int(round((params_b * 1e9 * 128 / 12) ** (1 / 3) / 64) * 64))
        layers = max(2, round(params_b * 1e9 / (12 * hidden * hidden)))
        return cls(f"{params_b:g}b-params", f"{params_b:g}B-parameter transformer", "llm" if params_b >= 1 else "transformer",
                   None, params_b, layers, hidden, 1.0, 2048, 1 if params_b >= 1 else 8, None, ())


@dataclass(frozen=True)
class Fit:
    """Whether a card count holds the job, the memory it offers, and how (if sharded)."""

    fits: bool
    effective_gb: float
    sharded: bool
    reason: str


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


@lru_cache(maxsize=1)
def load_models() -> Mapping[str, ModelSpec]:
    """Model table keyed by id and by every alias (as slugs)."""
    table: dict[str, ModelSpec] = {}
    for raw in load_data("models")["models"]:
        kv_fraction = raw["kv_heads"] / raw["heads"] if raw.get("kv_heads") and raw.get("heads") else 1.0
        spec = ModelSpec(raw["id"], raw["name"], raw["kind"], raw.get("workload"), raw["params_b"], raw.get("layers"),
                         raw.get("hidden"), kv_fraction, raw.get("seq_len"), raw.get("train_batch", 1),
                         raw.get("activation_gb_per_sample"), tuple(raw.get("aliases", ())),
                         **{name: raw.get(name) for name in _ARCHITECTURE}, source=raw["source"])
        for key in (spec.id, *spec.aliases):
            table[_slug(key)] = spec
    return table


def find_model(name: str | None) -> ModelSpec | None:
    """The model a name or alias means ('llama 3 8b', 'sdxl'), or None."""
    return load_models().get(_slug(name)) if name else None


class MemoryModel:
    def __init__(self, rulebook: Rulebook) -> None:
        self._fit = rulebook["memory-fit"].parameters
        self._factor16 = rulebook.param("16-bit-memory", "effective_memory_factor")
        self._min_memory: Mapping[str, float] = rulebook.param("memory-caveat", "min_memory_gb")
        self._models = load_models()

    def find_model(self, name: str | None) -> ModelSpec | None:
        return find_model(name)

    def model_for(self, question: Question) -> ModelSpec | None:
        spec = self.find_model(question.model)
        if spec is None and question.params_b:
            spec = ModelSpec.generic(question.params_b)
        return spec

    def effective_factor(self, question: Question) -> float:
        """How much more a card holds than its size, in the terms the need is counted in."""
        adapter = question.task == "training" and question.precision in ("8-bit", "4-bit")
        if question.task == "training" and question.precision == "16-bit" and not adapter:
            return self._factor16
        return 1.0

    def need(self, question: Question, floor_gb: float | None = None) -> MemoryNeed:
        """Memory the job needs on one card, in the terms of :meth:`effective_factor`."""
        if question.memory_gb:
            return MemoryNeed(question.memory_gb, f"{question.memory_gb:g} GB as asked")
        spec = self.model_for(question)
        if spec is None:
            floor = floor_gb if floor_gb is not None else self._min_memory[question.workload]
            return MemoryNeed(float(floor), f"typical {question.workload} work needs about {floor:g} GB in 32-bit terms")
        states, activations, how = self._parts(spec, question)
        total = states + activations + self._fit["context_overhead_gb"]
        return MemoryNeed(total, how, spec.id)

    def _parts(self, spec: ModelSpec, question: Question) -> tuple[float, float, str]:
        """(sharded-able states GB, activations GB, explanation) for one card."""
        params = spec.params_b * 1e9
        if question.task == "inference":
            weights = params * BYTES_PER_PARAM[question.precision] * (1 + self._fit["inference_overhead"]) / GB
            kv = self._kv_cache_gb(spec)
            return weights, kv, f"{spec.name}: {weights:.1f} GB weights at {question.precision} + {kv:.1f} GB KV cache/activations"
        activations = self._activation_gb(spec)
        if question.precision in ("8-bit", "4-bit"):
            trainable = params * self._fit["lora_trainable_fraction"] * self._fit["adam_bytes_per_param"] / GB
            weights = params * BYTES_PER_PARAM[question.precision] / GB
            states = weights + trainable
            activations /= 2  # adapters train in 16-bit
            return states, activations, (f"{spec.name} adapter fine-tuning (LoRA/QLoRA): {weights:.1f} GB {question.precision} weights "
                                         f"+ {trainable:.1f} GB adapters + {activations:.1f} GB activations")
        states = params * self._fit["adam_bytes_per_param"] / GB
        return states, activations, (f"{spec.name} full training: {states:.1f} GB weights, gradients and Adam state "
                                     f"+ {activations:.1f} GB activations at batch {spec.train_batch} (32-bit terms)")

    def _activation_gb(self, spec: ModelSpec) -> float:
        if spec.activation_gb_per_sample is not None:
            return spec.activation_gb_per_sample * spec.train_batch
        seq = spec.seq_len or 512
        # ~34 bytes per token, layer and hidden unit in 16-bit (Korthikanti et al. 2022): 68 in fp32 terms.
        per_sample = seq * (spec.layers or 12) * (spec.hidden or 768) * 68 / GB
        if spec.kind == "llm":
            per_sample /= (spec.layers or 12) ** 0.5  # activation checkpointing, standard for LLM fine-tuning
        return per_sample * spec.train_batch

    def _kv_cache_gb(self, spec: ModelSpec) -> float:
        if spec.kind in ("cnn", "diffusion"):
            return (spec.activation_gb_per_sample or 0.1) / 2
        context = self._fit["default_context_tokens"]
        return 2 * (spec.layers or 12) * (spec.hidden or 768) * spec.kv_fraction * context * 2 / GB

    def fit(self, question: Question, need: MemoryNeed, memory_gb: float, gpus: int) -> Fit:
        """Does ``gpus`` cards of ``memory_gb`` each hold the job?"""
        factor = self.effective_factor(question)
        effective = memory_gb * factor
        if need.gb <= effective:
            return Fit(True, effective, False, f"{need.gb:.1f} GB needed, {effective:.1f} GB effective per card")
        spec = self.model_for(question)
        if gpus > 1 and spec is not None and not question.memory_gb:
            states, activations, _ = self._parts(spec, question)
            per_card = states / gpus + activations / gpus + self._fit["context_overhead_gb"]
            how = "tensor/pipeline parallelism" if question.task == "inference" else "sharding (FSDP / ZeRO-3)"
            if per_card <= effective:
                return Fit(True, effective * gpus, True,
                           f"fits only split across {gpus} cards with {how}: {per_card:.1f} GB per card of {effective:.1f} GB")
            return Fit(False, effective * gpus, True, f"needs {per_card:.1f} GB per card even with {how}, has {effective:.1f} GB")
        return Fit(False, effective, False, f"needs {need.gb:.1f} GB, has {effective:.1f} GB effective")

    def describe(self) -> dict[str, Any]:
        return {"models": sorted({spec.id for spec in self._models.values()})}
