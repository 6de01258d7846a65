"""The model table: the models people name ("llama 3 8b", "sdxl") with their shapes.

Each row of ``rules/data/models.json`` carries the architecture the memory and speed
estimates need (layers, heads, KV heads, experts) and its source. The table, keyed by
id and by every alias as a slug, is part of the loaded knowledge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = [
    "DownloadFormat",
    "ModelSpec",
    "format_table",
    "model_table",
    "slug",
]

_ARCHITECTURE = (
    "active_params_b",
    "experts",
    "active_experts",
    "heads",
    "kv_heads",
    "head_dim",
    "kv_width",
    "intermediate",
    "vocab",
    "inference_activation_gb",
    "weights_gb",
    "resident_params_b",
    "sliding_window",
    "sliding_layers",
    "reference_vram_gb",
    "lora_base",
    "encoder_layers",
    "decoder_layers",
    "decoder_seq_len",
)


_GQA_KV_WIDTH = 8 * 128  # key/value heads x head size of grouped-query attention in the LLMs of 2024-2026


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
    experts: int | None = None  # mixture of experts: routed experts in each layer
    active_experts: int | None = None  # mixture of experts: routed experts each token goes to
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    kv_width: int | None = None  # values cached per token and layer, when not 2 x kv_heads x head_dim
    intermediate: int | None = None
    vocab: int | None = None
    inference_activation_gb: float | None = None
    weights_gb: float | None = None  # released checkpoint size when it ships quantised
    # diffusion: the denoiser kept on the card; text encoders run once and are offloaded
    resident_params_b: float | None = None
    sliding_window: int | None = None  # tokens a local-attention layer attends to (and caches)
    sliding_layers: int = 0  # layers with local attention; the others attend to the whole context
    # what the model's own reference code is published to need for inference
    reference_vram_gb: float | None = None
    lora_base: str | None = None  # the precision LoRA trainers keep the frozen base in, where not 16-bit
    # an encoder-decoder (Whisper): each stack's layers, the decoder's text positions (seq_len: the encoder's)
    encoder_layers: int | None = None
    decoder_layers: int | None = None
    decoder_seq_len: int | None = None
    source: str = ""

    @property
    def active_b(self) -> float:
        """Parameters read per generated token (all of them unless a mixture of experts)."""
        return self.active_params_b or self.params_b

    def read_b(self, batch: int) -> float:
        """Parameters a decode step reads for ``batch`` sequences: all of a dense model; of a mixture of
        experts, the part every token uses and each expert some sequence is routed to (uniform routing: E x
        (1 - (1 - k/E)^B) of the E experts), so a large batch reads nearly all of them."""
        e, k = self.experts, self.active_experts
        if not (e and k and self.active_params_b) or batch <= 1 or e <= k:
            return self.active_b
        per_expert = (self.params_b - self.active_b) / (e - k)
        shared = self.active_b - k * per_expert
        touched = e * (1 - (1 - k / e) ** batch)
        return min(self.params_b, shared + touched * per_expert)

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


    @classmethod
    def generic_diffusion(cls, params_b: float) -> ModelSpec:
        """An image or video model of the given size that the table does not know, sized as its denoiser
        alone: no text encoders to offload are known, no cache of keys and values, no tokens a second."""
        return cls(
            f"{params_b:g}b-params-diffusion",
            f"{params_b:g}B-parameter diffusion transformer",
            "diffusion",
            "image-generation",
            params_b,
            None,
            None,
            1.0,
            None,
            1,
            None,
            (),
        )

    @classmethod
    def generic(cls, params_b: float, active_params_b: float | None = None) -> ModelSpec:
        """A transformer of the given size with the usual depth/width ratio (hidden ≈ 128 × layers). An
        LLM of a billion parameters or more caches keys and values for 8 heads of 128 (grouped-query
        attention), as Llama 3, Qwen2.5/3, Mistral and Gemma 3 of every size do; smaller transformers
        for every head (BERT, GPT-2). ``active_params_b``: a mixture of experts that holds all its
        parameters and reads that many per token."""
        hidden = max(256, int(round((params_b * 1e9 * 128 / 12) ** (1 / 3) / 64) * 64))
        layers = max(2, round(params_b * 1e9 / (12 * hidden * hidden)))
        llm = params_b >= 1
        moe = active_params_b is not None and active_params_b < params_b
        return cls(
            f"{params_b:g}b-a{active_params_b:g}b-params" if moe else f"{params_b:g}b-params",
            f"{params_b:g}B-parameter mixture of experts ({active_params_b:g}B active)"
            if moe
            else f"{params_b:g}B-parameter transformer",
            "llm" if llm else "transformer",
            None,
            params_b,
            layers,
            hidden,
            min(1.0, _GQA_KV_WIDTH / hidden) if llm else 1.0,
            2048,
            1 if params_b >= 1 else 8,
            None,
            (),
            active_params_b=active_params_b if moe else None,
        )


@dataclass(frozen=True)
class DownloadFormat:
    """A weight format people download (GGUF Q4_K_M, AWQ, MXFP4 …): what one weight costs in memory."""

    id: str
    bits_per_weight: float
    source: str

    @property
    def bytes_per_weight(self) -> float:
        return self.bits_per_weight / 8


def format_table(document: Mapping[str, Any]) -> Mapping[str, DownloadFormat]:
    """The ``formats`` of ``models.json`` keyed by id and every alias (as slugs)."""
    table: dict[str, DownloadFormat] = {}
    for raw in document.get("formats", ()):
        fmt = DownloadFormat(raw["id"], raw["bits_per_weight"], raw["source"])
        for key in (fmt.id, *raw.get("aliases", ())):
            table[slug(key)] = fmt
    return MappingProxyType(table)


def slug(text: str) -> str:
    """A name as the tables key it: lower case, words joined by hyphens."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def _spec(raw: Mapping[str, Any]) -> ModelSpec:
    kv_fraction = raw["kv_heads"] / raw["heads"] if raw.get("kv_heads") and raw.get("heads") else 1.0
    shape = {name: raw[name] for name in _ARCHITECTURE if name in raw}
    return ModelSpec(
        raw["id"],
        raw["name"],
        raw["kind"],
        raw.get("workload"),
        raw["params_b"],
        raw.get("layers"),
        raw.get("hidden"),
        kv_fraction,
        raw.get("seq_len"),
        raw.get("train_batch", 1),
        raw.get("activation_gb_per_sample"),
        tuple(raw.get("aliases", ())),
        **shape,
        source=raw["source"],
    )


def model_table(document: Mapping[str, Any]) -> Mapping[str, ModelSpec]:
    """The schema-valid ``models.json`` as a table keyed by id and by every alias (as slugs)."""
    table: dict[str, ModelSpec] = {}
    for raw in document["models"]:
        spec = _spec(raw)
        for key in (spec.id, *spec.aliases):
            table[slug(key)] = spec
    return MappingProxyType(table)
