"""The model table, and the memory questions the engine asks of a job.

Models people name ("llama 3 8b", "sdxl") come from rules/data/models.json with
their architecture (layers, heads, KV heads, experts) and its source.
:class:`MemoryModel` answers the engine's memory questions through
:mod:`rules.job`, where the per-method counting lives (rule ``memory-fit``).
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
                 "inference_activation_gb", "weights_gb", "resident_params_b", "sliding_window", "sliding_layers", "reference_vram_gb", "lora_base")


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
    resident_params_b: float | None = None  # diffusion: the denoiser kept on the card; text encoders run once and are offloaded
    sliding_window: int | None = None  # tokens a local-attention layer attends to (and caches)
    sliding_layers: int = 0  # layers with local attention; the others attend to the whole context
    reference_vram_gb: float | None = None  # what the model's own reference code is published to need for inference
    lora_base: str | None = None  # the precision LoRA trainers keep the frozen base in, where it is not 16-bit
    source: str = ""

    @property
    def active_b(self) -> float:
        """Parameters read per generated token (all of them unless a mixture of experts)."""
        return self.active_params_b or self.params_b

    @property
    def kv_width_per_layer(self) -> int:
        """Values one layer caches per token (keys and values)."""
        if self.kv_width:
            return self.kv_width
        if self.kv_heads and self.head_dim:
            return 2 * self.kv_heads * self.head_dim
        return int(2 * (self.hidden or 768) * self.kv_fraction)

    @property
    def kv_values_per_token(self) -> int:
        """Values the KV cache holds per token, over all layers, while the context is within every window."""
        return self.kv_width_per_layer * (self.layers or 12)

    def kv_values(self, tokens: float) -> float:
        """Values the KV cache holds for ``tokens`` of context: a local-attention layer (Gemma 2/3,
        gpt-oss) keeps only its window, as llama.cpp and vLLM allocate it."""
        layers = self.layers or 12
        if not self.sliding_window or not self.sliding_layers:
            return self.kv_width_per_layer * layers * tokens
        local = min(self.sliding_layers, layers)
        return self.kv_width_per_layer * ((layers - local) * tokens + local * min(tokens, self.sliding_window))

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
    headroom: float = float("inf")  # spare share where memory binds: the card, or each card's part of a split job
    serial: bool = False  # the cards hold parts of the model that run one after another (layer or pipeline split): no speed-up


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
                         **{name: raw.get(name) for name in _ARCHITECTURE if name in raw}, source=raw["source"])
        for key in (spec.id, *spec.aliases):
            table[_slug(key)] = spec
    return table


def find_model(name: str | None) -> ModelSpec | None:
    """The model a name or alias means ('llama 3 8b', 'sdxl'), or None."""
    return load_models().get(_slug(name)) if name else None


class MemoryModel:
    """The engine's memory questions, answered by :mod:`rules.job` (one home for the arithmetic)."""

    def __init__(self, rulebook: Rulebook) -> None:
        from rules import job  # rules.job builds on this module's ModelSpec and Fit

        self._job, self._rulebook = job, rulebook
        self._models = load_models()

    def find_model(self, name: str | None) -> ModelSpec | None:
        return find_model(name)

    def model_for(self, question: Question) -> ModelSpec | None:
        return self._job.job_for(question, self._rulebook).model

    def need(self, question: Question, floor_gb: float | None = None) -> MemoryNeed:
        """Memory the job needs on one card; with no model named, at least ``floor_gb``."""
        need = self._job.job_for(question, self._rulebook).need
        if floor_gb is not None and need.model is None and not question.memory_gb and floor_gb > need.gb:
            return MemoryNeed(float(floor_gb), f"typical {question.workload} work needs about {floor_gb:g} GB")
        return need

    def fit(self, question: Question, need: MemoryNeed, memory_gb: float, gpus: int) -> Fit:
        """Does ``gpus`` cards of ``memory_gb`` each hold the job?"""
        job = self._job.job_for(question, self._rulebook)
        if need.gb != job.need.gb:  # a floor raised the need
            job = self._job.raised(job, need.gb, lambda: need)
        return self._job.fit_on(job, memory_gb, gpus)

    def describe(self) -> dict[str, Any]:
        return {"models": sorted({spec.id for spec in self._models.values()})}
