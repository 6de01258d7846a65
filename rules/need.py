"""The memory a job needs on one card, counted from first principles (rule ``memory-fit``).

- inference: weights at the precision + KV cache from the architecture + runtime;
- LoRA: 16-bit base + adapters with their optimizer + checkpointed activations;
- QLoRA: NF4 base (about 0.53 B/param) + adapters + checkpointed activations;
- full fine-tuning and pretraining: mixed-precision AdamW, 16 B/param + activations;
- non-LLM training (CNNs, BERT-sized transformers): the 2019 count in 32-bit terms.

A mixture of experts counts all experts for memory. Every count says how it was made, as a phrase said
later in the asker's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from rules.contract.answer import MemoryParts
from rules.job_defaults import BACKEND_NAMES, Choices
from rules.knowledge.loaded import find_format
from rules.knowledge.messages import Joined, Phrase, Term, Text

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge import ModelSpec, Rulebook
    from rules.knowledge.models import DownloadFormat

__all__ = [
    "GB",
    "GIB_IN_GB",
    "METHOD_NAMES",
    "Counted",
    "Counter",
    "Need",
    "count_for",
    "kv_values",
    "precision_label",
]

LLM_METHODS = ("lora", "qlora", "full")
GB = 1e9
GIB_IN_GB = 2**30 / 1e9  # card memory is sold in GiB
METHOD_NAMES = {
    "inference": "inference",
    "lora": "LoRA",
    "qlora": "QLoRA",
    "full": "full fine-tuning",
    "pretrain": "pretraining",
    "train": "training",
}


# the format of the checkpoints that ship quantised (gpt-oss: MXFP4 experts): their own size is the file's
RELEASED_FORMAT = "MXFP4"


def precision_label(precision: str, spec: ModelSpec | None, runtime: str | None = None) -> str:
    """The precision as the runtime stores it: GGUF types for llama.cpp,
    AWQ / GPTQ or INT8 checkpoints for vLLM."""
    if precision == "4-bit" and spec is not None and spec.weights_gb:
        return f"4-bit (as released, {RELEASED_FORMAT})"
    if runtime == "vllm":
        return {"4-bit": "4-bit (AWQ / GPTQ class)", "8-bit": "8-bit (INT8 class)"}.get(precision, precision)
    return {"4-bit": "4-bit (Q4_K_M class)", "8-bit": "8-bit (Q8_0 class)"}.get(precision, precision)


@dataclass(frozen=True)
class Need:
    """Memory a job needs on one card, in GB (not rounded: the engine sizes with the exact figure), and how it
    was counted; ``parts`` is None for a typical or asked-for figure."""

    gb: float
    how: Text
    model: str | None = None
    parts: MemoryParts | None = None


@dataclass(frozen=True)
class Counted:
    """The job's memory as counted: the need on one card, the part of it that shards, what a card holds in the
    need's terms, the other fine-tuning methods' needs, the weights' and cache's bytes, and what was taken for
    granted because the question did not say."""

    need: Need
    shardable_gb: float
    memory_factor: float  # a card holds this many times its size in the need's terms (16-bit-memory)
    other_methods: tuple[tuple[str, float], ...]
    bits_per_weight: float
    kv_cache_bytes: float
    assumptions: tuple[Text, ...]


def count_for(
    q: Question, rulebook: Rulebook, spec: ModelSpec | None, choices: Choices, floors: tuple[float, ...] = ()
) -> Counted:
    """The job's memory for ``choices``; where no model or size was named, raised to the workload's typical
    memory and the personas' ``floors``."""
    counter = _counter_for(q, rulebook, choices.runtime)
    need, shardable = _need(q, rulebook, counter, spec, choices)
    factor = (
        _mixed_precision_factor(need, rulebook.rule_16_bit_memory.effective_memory_factor)
        if choices.method == "train" and choices.precision in ("16-bit", "fp8")
        else 1.0
    )
    floor_gb = (
        0.0 if spec or q.memory_gb else max([rulebook.memory_caveat.min_memory_gb[q.workload], *floors])
    )
    if floor_gb > need.gb:
        key = "job.typical_32_bit" if factor != 1.0 else "job.typical"
        typical = Phrase(key, {"workload": Term("task", q.workload), "gb": f"{floor_gb:g}"})
        need = Need(float(floor_gb), typical)
        shardable = 0.0
    return Counted(
        need,
        shardable,
        factor,
        _other_methods(counter, q, spec, choices),
        counter.bits(spec, choices.precision, choices.method),
        counter.kv_cache_bytes(choices.precision),
        _assumptions(counter, q, spec, choices, factor),
    )


@dataclass(frozen=True)
class Counter:
    """The memory arithmetic for one question: the rule's parameters and the runtime."""

    rulebook: Rulebook
    runtime: str | None = None  # the job's, for how its weights are named
    weight_format: DownloadFormat | None = None  # the file asked for (GGUF Q5_K_M): its bits size the weights
    lean_adapters: bool = False  # LoRA/QLoRA as Unsloth runs them: checkpoints in RAM, the loss in chunks

    @property
    def p(self) -> Any:
        return self.rulebook.memory_fit

    def method(self, method: str) -> Term:
        """The method's name, said in the asker's language (LoRA and QLoRA are names)."""
        return Term("method", METHOD_NAMES[method])

    def _file(self, spec: ModelSpec | None) -> DownloadFormat | None:
        """The file asked for, unless it is the checkpoint the model ships as (gpt-oss in MXFP4)."""
        released = spec is not None and bool(spec.weights_gb)
        fmt = self.weight_format
        return None if fmt is None or (released and fmt.id == RELEASED_FORMAT) else fmt

    def precision(self, precision: str, spec: ModelSpec | None) -> Text:
        asked = self._file(spec)
        if asked is not None:
            return f"{asked.id} ({asked.bits_per_weight:.2f} bits)"
        return Term("precision", precision_label(precision, spec, self.runtime))

    def kv_cache_bytes(self, precision: str) -> float:
        """Bytes per cached key or value: FP8 where the runtime serves FP8 models with an FP8 cache,
        else 16 bit."""
        fp8 = precision == "fp8" and self.runtime in self.rulebook.workload_priorities.llm_decode.fp8_runtimes
        return 1.0 if fp8 else float(self.p.kv_cache_bytes)

    def bits(self, spec: ModelSpec | None, precision: str, method: str) -> float:
        """Bits per stored weight: the released checkpoint's when it ships quantised (gpt-oss)."""
        if method == "qlora":
            return float(self.p.nf4_bytes_per_param * 8)
        asked = self._file(spec)
        if method == "inference" and asked is not None:
            return asked.bits_per_weight
        if spec is not None and spec.weights_gb and precision == "4-bit":
            return float(spec.weights_gb * GB * 8 / (spec.params_b * GB))
        return float(self.p.bits_per_weight[precision])

    def need(
        self, spec: ModelSpec, method: str, precision: str, context: int, batch: int
    ) -> tuple[Need, float]:
        """(memory on one card, the part of it that shards) for a named or sized model."""
        overhead = self.p.context_overhead_gb
        if method == "inference":
            return self._inference(spec, precision, context, batch, overhead)
        if spec.kind == "llm" and method in ("lora", "qlora", "full", "pretrain"):
            return self._llm_training(spec, method, precision, context, batch, overhead)
        if method in ("lora", "qlora"):
            return self._adapter_training(spec, method, overhead)
        return self._classic_training(spec, overhead)

    def _inference(
        self, spec: ModelSpec, precision: str, context: int, batch: int, overhead: float
    ) -> tuple[Need, float]:
        params_b = spec.resident_params_b if spec.kind != "llm" and spec.resident_params_b else spec.params_b
        weights = params_b * GB * self.bits(spec, precision, "inference") / 8 / GB
        if spec.kind == "llm":
            working = kv_values(spec, context) * batch * self.kv_cache_bytes(precision) / GB
            key = "job.kv_cache_users" if batch > 1 else "job.kv_cache"
            part: Phrase | Joined = Phrase(
                key, {"gb": f"{working:.1f}", "context": f"{context:,}", "batch": batch}
            )
            shardable = weights + working
            parts = MemoryParts(weights=weights, kv_cache=working, runtime=overhead)
        else:
            working = (spec.inference_activation_gb or (spec.activation_gb_per_sample or 0.4) / 4) * batch
            part = Phrase("job.activations", {"gb": f"{working:.1f}"})
            parts = MemoryParts(weights=weights, activations=working, runtime=overhead)
            if params_b != spec.params_b:
                part += Phrase("job.text_encoders", {"params": f"{spec.params_b - params_b:.1f}"})
            shardable = 0.0
        total = weights + working + overhead
        how: Phrase | Joined = Phrase(
            "job.inference",
            {
                "name": spec.name,
                "weights": f"{weights:.1f}",
                "precision": self.precision(precision, spec),
                "part": part,
                "overhead": f"{overhead:g}",
            },
        )
        if spec.reference_vram_gb and precision in ("16-bit", "fp32") and spec.reference_vram_gb > total:
            # the model's own code, as published, holds more (whisper keeps fp32 weights and beams):
            # lean runtimes need less
            how += Phrase("job.reference_need", {"gb": f"{spec.reference_vram_gb:g}"})
            return Need(float(spec.reference_vram_gb), how, spec.id), shardable
        return Need(total, how, spec.id, parts=parts), shardable

    def _llm_training(
        self, spec: ModelSpec, method: str, precision: str, context: int, batch: int, overhead: float
    ) -> tuple[Need, float]:
        params = spec.params_b * GB
        if method in ("full", "pretrain"):
            states = params * self.p.full_bytes_per_param / GB
            parts = Phrase(
                "job.full_states", {"gb": f"{states:.1f}", "bytes": f"{self.p.full_bytes_per_param:g}"}
            )
            typed = _states(params, states, 2, overhead)
        else:
            base = params * self.bits(spec, precision, method) / 8 / GB
            adapters = _adapter_params(spec, self.p.lora_rank) * self.p.lora_bytes_per_param / GB
            states = base + adapters
            label = "NF4" if method == "qlora" else precision
            parts = Phrase(
                "job.lora_states",
                {
                    "base": f"{base:.1f}",
                    "label": label,
                    "adapters": f"{adapters:.1f}",
                    "rank": self.p.lora_rank,
                },
            )
            typed = MemoryParts(weights=base, adapters=adapters, runtime=overhead)
        lean = self.lean_adapters and method in ("lora", "qlora")
        activations = (
            self._recomputed_layer(spec, context, batch)
            if lean
            else self._checkpointed_activations(spec, context, batch) * (2 if precision == "fp32" else 1)
        )
        total = states + activations + overhead
        how = Phrase(
            "job.llm_training_lean" if lean else "job.llm_training",
            {
                "name": spec.name,
                "method": self.method(method),
                "parts": parts,
                "activations": f"{activations:.1f}",
                "context": f"{context:,}",
                "batch": batch,
                "overhead": f"{overhead:g}",
            },
        )
        typed = msgspec.structs.replace(typed, activations=round(activations, 1))
        return Need(total, how, spec.id, parts=typed), states

    def _recomputed_layer(self, spec: ModelSpec, context: int, batch: int) -> float:
        """The activations a fine-tune keeps on the card when its checkpoints wait in system RAM and its loss
        is taken in chunks (rule memory-fit, offloaded_checkpoints_since): the one layer being recomputed."""
        return float(context * batch * (spec.hidden or 768) * self.p.layer_activation_bytes) / GB

    def _checkpointed_activations(self, spec: ModelSpec, context: int, batch: int) -> float:
        tokens = context * batch
        hidden, layers = spec.hidden or 768, spec.layers or 12
        kept = layers * tokens * hidden * 2
        recomputed = tokens * hidden * self.p.layer_activation_bytes
        logits = tokens * (spec.vocab or 32000) * self.p.logit_bytes
        return float(kept + recomputed + logits) / GB

    def _adapter_training(self, spec: ModelSpec, method: str, overhead: float) -> tuple[Need, float]:
        """LoRA on a non-LLM (an SDXL style, a ViT): frozen base (16-bit, or what the model's trainers use), a
        small trainable part; a diffusion model's text encoders are run once and cached,
        so only its denoiser stays."""
        params = (spec.resident_params_b or spec.params_b) * GB
        base_precision = (spec.lora_base or "16-bit") if method == "lora" else "4-bit"
        base = params * self.bits(spec, base_precision, method) / 8 / GB
        adapters = params * self.p.lora_trainable_fraction * self.p.lora_bytes_per_param / GB
        activations = _activation_gb(spec) / 2  # 16-bit activations
        total = base + adapters + activations + overhead
        how = Phrase(
            "job.adapter_training",
            {
                "name": spec.name,
                "method": self.method(method),
                "base": f"{base:.1f}",
                "adapters": f"{adapters:.1f}",
                "activations": f"{activations:.1f}",
                "batch": spec.train_batch,
                "overhead": f"{overhead:g}",
            },
        )
        parts = MemoryParts(weights=base, adapters=adapters, activations=activations, runtime=overhead)
        return Need(total, how, spec.id, parts=parts), 0.0

    def _classic_training(self, spec: ModelSpec, overhead: float) -> tuple[Need, float]:
        """The 2019 count: weights, gradients and Adam in 32 bit, activations at the usual batch."""
        states = spec.params_b * GB * self.p.adam_bytes_per_param / GB
        activations = _activation_gb(spec)
        how = Phrase(
            "job.classic_training",
            {
                "name": spec.name,
                "states": f"{states:.1f}",
                "activations": f"{activations:.1f}",
                "batch": spec.train_batch,
            },
        )
        parts = msgspec.structs.replace(
            _states(spec.params_b * GB, states, 4, overhead), activations=round(activations, 1)
        )
        return Need(states + activations + overhead, how, spec.id, parts=parts), 0.0


def _states(params: float, states_gb: float, bytes_each: int, runtime: float) -> MemoryParts:
    """Weights and gradients at ``bytes_each`` a parameter; the rest of the states is the optimizer's."""
    weights = params * bytes_each / GB
    return MemoryParts(weights=weights, gradients=weights, optimizer=states_gb - 2 * weights, runtime=runtime)


def _adapter_params(spec: ModelSpec, rank: int) -> float:
    """LoRA parameters on every attention and feed-forward projection of a decoder."""
    hidden = spec.hidden or 768
    q = (spec.heads or 1) * spec.head_dim if spec.heads and spec.head_dim else hidden
    kv = (spec.kv_heads or 1) * spec.head_dim if spec.kv_heads and spec.head_dim else hidden
    ff = spec.intermediate if spec.intermediate and not spec.active_params_b else 4 * hidden
    per_layer = (hidden + q) * 2 + (hidden + kv) * 2 + (hidden + ff) * 3
    return per_layer * rank * (spec.layers or 12)


def _activation_gb(spec: ModelSpec) -> float:
    """fp32 activations kept for backward at the model's usual batch (Korthikanti et al. 2022:
    34 B/token/unit at 16 bit)."""
    if spec.activation_gb_per_sample is not None:
        return spec.activation_gb_per_sample * spec.train_batch
    positions = (spec.seq_len or 512) * (spec.layers or 12)  # every layer over the whole sequence
    if spec.encoder_layers and spec.decoder_layers and spec.decoder_seq_len:  # Whisper: audio in, text out
        positions = (spec.seq_len or 512) * spec.encoder_layers + spec.decoder_seq_len * spec.decoder_layers
    per_sample = positions * (spec.hidden or 768) * 68 / GB
    return per_sample * spec.train_batch


def _counter_for(q: Question, rulebook: Rulebook, runtime: str | None) -> Counter:
    """The memory arithmetic for the question: its runtime, the weight file it names, and whether
    a fine-tune on its date keeps its checkpoints in system RAM as Unsloth does (rule memory-fit)."""
    lean = q.as_of is None or q.as_of >= rulebook.memory_fit.offloaded_checkpoints_since
    return Counter(rulebook, runtime, find_format(q.weight_format), lean)


def _need(
    q: Question, rulebook: Rulebook, counter: Counter, spec: ModelSpec | None, choices: Choices
) -> tuple[Need, float]:
    """(memory on one card, the part that shards): as asked, the workload's typical need, or counted for the
    model by the choices (method, precision, context, batch)."""
    if q.memory_gb:
        said = Phrase("job.as_asked", {"gb": f"{q.memory_gb:g}"})
        return Need(q.memory_gb, said, spec.id if spec else None), q.memory_gb
    if spec is None:
        floor = float(rulebook.memory_caveat.min_memory_gb[q.workload])
        said = Phrase("job.typical", {"workload": Term("task", q.workload), "gb": f"{floor:g}"})
        return Need(floor, said), 0.0
    return counter.need(spec, choices.method, choices.precision, choices.context, choices.batch)


def _other_methods(
    counter: Counter, q: Question, spec: ModelSpec | None, choices: Choices
) -> tuple[tuple[str, float], ...]:
    """The memory each other fine-tuning method would need, shown beside an LLM training job's own."""
    method = choices.method
    if not (spec and choices.llm and method != "inference" and not q.memory_gb):
        return ()
    context, batch = choices.context, choices.batch
    return tuple(
        (m, round(counter.need(spec, m, "4-bit" if m == "qlora" else "16-bit", context, batch)[0].gb, 1))
        for m in LLM_METHODS
        if m != method
    )


def _serving_said(q: Question, batch: int, per_user: float) -> Phrase:
    """That the speeds shown are each user's, and the need in all: asked, or at a reading speed."""
    key = "assumed.serving_asked" if q.tokens_per_user else "assumed.serving_reading"
    return Phrase(key, {"users": batch, "per_user": f"{per_user:g}", "total": f"{per_user * batch:,.0f}"})


def _mixed_precision_factor(need: Need, seed_factor: float) -> float:
    """How many times its size a card holds of a need counted in 32-bit terms, trained in mixed precision
    (rule 16-bit-memory): the seed's factor where activations fill the memory, as they did in the networks of
    its time; the 32-bit master weights, gradients and optimizer state take what they took. A need not
    counted part by part keeps the seed's factor."""
    parts = need.parts
    if parts is None or not parts.activations or need.gb <= 0:
        return seed_factor if parts is None else 1.0
    return need.gb / (need.gb - parts.activations * (1 - 1 / seed_factor))


def _assumptions(
    counter: Counter, q: Question, spec: ModelSpec | None, choices: Choices, factor: float
) -> tuple[Text, ...]:
    """What the job took for granted because the question did not say, in the asker's words."""
    method, precision, context, batch = choices.method, choices.precision, choices.context, choices.batch
    said: list[Text] = []
    if method in ("lora", "qlora"):
        base = "4-bit NF4" if method == "qlora" else spec.lora_base if spec and spec.lora_base else precision
        said.append(
            Phrase(
                "assumed.adapters",
                {"method": counter.method(method), "rank": counter.p.lora_rank, "precision": base},
            )
        )
    elif method == "inference":
        said.append(Phrase("assumed.inference", {"precision": counter.precision(precision, spec)}))
        runtime = counter.runtime
        if runtime is not None and (q.runtime or (batch > 1 and q.setting not in ("server", "cloud"))):
            said.append(Phrase(f"assumed.runtime_{'vllm' if runtime == 'vllm' else 'llama_cpp'}"))
        if q.backend:  # the speeds are that backend's where the card runs it
            said.append(Phrase("assumed.backend", {"backend": BACKEND_NAMES[q.backend]}))
    elif method == "train" and precision in ("16-bit", "fp8"):
        said.append(Phrase("assumed.mixed_training", {"precision": precision, "factor": f"{factor:.2g}"}))
    elif precision == "16-bit":
        said.append(Phrase("assumed.mixed", {"method": counter.method(method), "precision": precision}))
    else:
        said.append(Phrase("assumed.method", {"method": counter.method(method), "precision": precision}))
    if choices.llm:
        said.append(Phrase("assumed.context", {"context": f"{context:,}"}))
    if choices.llm and method == "inference" and batch > 1:  # each sequence served keeps its own KV cache
        said.append(Phrase("assumed.concurrent", {"batch": batch, "context": f"{context:,}"}))
    else:
        said.append(Phrase("assumed.batch", {"batch": batch}))
    if choices.method_assumed:
        said.append(Phrase("assumed.method_assumed", {"method": counter.method(method)}))
    if choices.tokens_per_user:  # users' speed is at stake: the need; the speeds shown are each user's
        said.append(_serving_said(q, batch, choices.tokens_per_user))
    if choices.users and not q.users and batch == choices.users:  # the users were assumed: how to do better
        said.append(Phrase("assumed.shared_users", {"users": choices.users}))
    return tuple(said)


def kv_values(spec: ModelSpec, tokens: float) -> float:
    """Values the KV cache of ``spec`` holds for ``tokens`` of context: a local-attention layer (Gemma 2/3,
    gpt-oss) keeps only its window, as llama.cpp and vLLM allocate it."""
    layers = spec.layers or 12
    if not spec.sliding_window or not spec.sliding_layers:
        return spec.kv_width_per_layer * layers * tokens
    local = min(spec.sliding_layers, layers)
    windowed = local * min(tokens, spec.sliding_window)
    return spec.kv_width_per_layer * ((layers - local) * tokens + windowed)
