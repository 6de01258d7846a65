"""What the asker will run — method, precision, model, context — and the memory it takes.

A 2026 question is rarely "train a CNN": it is "run Llama 3 8B", "fine-tune Qwen
with LoRA", "generate images with SDXL". :func:`job_for` turns a question into a
:class:`Job` with every choice the asker left open made and stated: local LLM
inference at 4 bit (Q4_K_M class), LLM training as LoRA for models of 1 B
parameters or more (QLoRA and full fine-tuning shown beside it), 16-bit mixed
precision for training.

Memory is counted from first principles (rule ``memory-fit``):

- inference: weights at the precision + KV cache from the architecture + runtime;
- LoRA: 16-bit base + adapters with their optimizer + checkpointed activations;
- QLoRA: NF4 base (≈ 0.53 B/param) + adapters + checkpointed activations;
- full fine-tuning and pretraining: mixed-precision AdamW, 16 B/param + activations;
- non-LLM training (CNNs, BERT-sized transformers): the 2019 count in 32-bit terms,
  where 16-bit training makes a card hold about 1.5× (rule ``16-bit-memory``) —
  the only place that factor applies, since every other count is already 16-bit.

A mixture of experts counts all experts for memory and the active ones for speed.
Several cards pool their memory only for methods that split the model
(:func:`fit_on` names the method).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from operator import attrgetter
from typing import Any, Callable, Mapping

from rules.answer import MemoryNeed
from rules.memo import remember
from rules.memory import Fit, ModelSpec, find_model
from rules.messages import say, term
from rules.performance import workload_key
from rules.question import Question
from rules.rulebook import Rulebook

__all__ = ["Job", "job_for", "fit_on", "raised", "but_budget", "POOLING"]

GB = 1e9
GIB_IN_GB = 2**30 / 1e9  # card memory is sold in GiB
LLM_METHODS = ("lora", "qlora", "full")
METHOD_NAMES = {"inference": "inference", "lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tuning",
                "pretrain": "pretraining", "train": "training"}
POOLING = {"none": "no pooling (each card holds a full copy)", "layer-split": "a layer split (llama.cpp / Ollama)",
           "tensor-parallel": "tensor parallelism (vLLM / TensorRT-LLM)", "fsdp": "sharding (FSDP / ZeRO-3)",
           "pipeline-parallel": "pipeline stages (vLLM: tensor parallelism needs a count that divides the attention heads)"}
SERIAL = frozenset({"layer-split", "pipeline-parallel"})  # the cards' parts run one after another: no speed-up for one stream


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
    need: MemoryNeed
    assumptions: tuple[str, ...]
    other_methods: tuple[tuple[str, float], ...]
    pooling: str
    shardable_gb: float = 0.0  # the part of ``need`` that splits across cards when they pool
    memory_factor: float = 1.0  # a card holds this many times its size in the need's terms (16-bit-memory)
    bits_per_weight: float = 16.0  # weights as stored, for the bytes read per generated token
    language: str | None = None  # the asker's, for the need and fit texts

    @property
    def is_llm(self) -> bool:
        return self.model is not None and self.model.kind == "llm"

    def pooling_at(self, count: int) -> str:
        """How ``count`` cards pool for the job: tensor parallelism splits every attention layer's heads evenly, so vLLM
        refuses a count that does not divide them (64 heads: 2, 4 or 8 cards) and such a count runs as pipeline stages."""
        heads = self.model.heads if self.model is not None else None
        if self.pooling == "tensor-parallel" and count > 1 and heads and heads % count:
            return "pipeline-parallel"
        return self.pooling

    @property
    def compute_precision(self) -> str:
        """The number format the arithmetic runs in, which sets the speed.

        Training over 8- or 4-bit weights (QLoRA) dequantises them and computes in
        16-bit, so it is no faster than LoRA; only inference computes at the storage format.
        """
        if self.method != "inference" and self.precision in ("8-bit", "4-bit"):
            return "16-bit"
        return self.precision


_BUT_BUDGET = attrgetter(*(f.name for f in fields(Question) if f.name != "budget"))


def but_budget(question: Question) -> tuple[Any, ...]:
    """Every field of the question but its budget: the key of what depends on the question but not on what it may cost."""
    return _BUT_BUDGET(question)


# The question's fields a job reads (:meth:`_Counter.job` and the functions it hands the question to), and nothing else.
_JOB_FIELDS = attrgetter("workload", "model", "params_b", "precision", "method", "task", "context_tokens", "batch", "setting",
                         "memory_gb", "language", "runtime")
_CACHE: dict[tuple[int, tuple[Any, ...]], tuple[Rulebook, Job]] = {}
_SAME: dict[Job, Job] = {}  # each distinct job once


def job_for(question: Question, rulebook: Rulebook) -> Job:
    """The job a question describes; cached, since the engine asks for it per card, and keyed on
    the fields it reads (never the budget, the currency, used cards or hours a week), so every
    question with the same job gets the very same job object without computing it again, and what
    is memoised per job (fits, configurations) is shared too."""
    key = (id(rulebook), _JOB_FIELDS(question))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is rulebook:
        return hit[1]
    if len(_CACHE) > 4096:
        _CACHE.clear()
        _SAME.clear()
    job = _Counter(rulebook).job(question)
    job = _SAME.setdefault(job, job)
    _CACHE[key] = (rulebook, job)
    return job


def _lora_base(spec: ModelSpec) -> str:
    """The precision a model's frozen base is kept in for LoRA: 16-bit unless its trainers quantise it (FLUX.1: 8-bit)."""
    return spec.lora_base or "16-bit"


_FITS: dict[tuple[int, float, int], tuple[Job, Fit]] = {}
_RAISED: dict[tuple[int, float, float | None], tuple[Job, Job]] = {}


def raised(job: Job, need_gb: float, need: Callable[[], MemoryNeed], shardable_gb: float | None = None) -> Job:
    """``job`` with its need raised to ``need_gb`` (a floor, a persona's memory): one raised job per job, size and
    sharding, so :func:`fit_on` keeps its fits cached across questions. ``need`` words it, on the first time only."""
    key = (id(job), need_gb, shardable_gb)
    hit = _RAISED.get(key)
    if hit is not None and hit[0] is job:
        return hit[1]
    lifted = replace(job, need=need()) if shardable_gb is None else replace(job, need=need(), shardable_gb=shardable_gb)
    return remember(_RAISED, key, (job, lifted), 4096)[1]


def fit_on(job: Job, memory_gb: float, count: int) -> Fit:
    """Does ``count`` cards of ``memory_gb`` each hold the job, and how? Cached: the engine asks per card."""
    key = (id(job), memory_gb, count)
    hit = _FITS.get(key)
    if hit is not None and hit[0] is job:
        return hit[1]
    return remember(_FITS, key, (job, _fit(job, memory_gb, count)), 16384)[1]


def _fit(job: Job, memory_gb: float, count: int) -> Fit:
    # A card's "24 GB" is 24 GiB; needs are counted in GB (10^9 bytes), as model files are.
    card = memory_gb * GIB_IN_GB * job.memory_factor
    lang, need = job.language, f"{job.need.gb:.1f}"
    terms = say("job.effective", lang) if job.memory_factor != 1.0 else ""
    if job.need.gb <= card:
        return Fit(True, card, False, say("fit.fits", lang, need=need, card=f"{card:.1f}", terms=terms, gib=f"{memory_gb:g}"),
                   card / job.need.gb - 1 if job.need.gb > 0 else float("inf"))
    if count > 1 and job.pooling != "none" and job.shardable_gb > 0:
        per_card = job.shardable_gb / count + (job.need.gb - job.shardable_gb)
        pooling = job.pooling_at(count)
        how, serial = term("pooling", POOLING[pooling], lang), pooling in SERIAL
        if per_card <= card:
            return Fit(True, card * count, True, say("fit.split", lang, count=count, how=how, per_card=f"{per_card:.1f}", card=f"{card:.1f}"),
                       card / per_card - 1, serial)
        return Fit(False, card * count, True, say("fit.split_short", lang, count=count, how=how, per_card=f"{per_card:.1f}", card=f"{card:.1f}"),
                   serial=serial)
    if count > 1:
        return Fit(False, card, False, say("fit.each_short", lang, need=need, how=term("pooling", POOLING["none"], lang),
                                           card=f"{card:.1f}", terms=terms))
    return Fit(False, card, False, say("fit.short", lang, need=need, card=f"{card:.1f}", terms=terms))


class _Counter:
    """The memory arithmetic, with the rule parameters looked up once."""

    def __init__(self, rulebook: Rulebook) -> None:
        self.language: str | None = None
        self.runtime: str | None = None  # the job's, for how its weights are named
        self.p: Mapping[str, Any] = rulebook["memory-fit"].parameters
        self.factor16 = rulebook.param("16-bit-memory", "effective_memory_factor")
        self.floors: Mapping[str, float] = rulebook.param("memory-caveat", "min_memory_gb")

    def job(self, q: Question) -> Job:
        self.language = q.language
        spec = find_model(q.model)
        if spec is None and q.params_b:
            spec = ModelSpec.generic(q.params_b)
        llm = spec.kind == "llm" if spec else q.workload == "llm"
        method, method_assumed = _method(q, spec, llm)
        precision, precision_assumed = _precision(q, method, spec, llm)
        inference = method == "inference"
        work = workload_key(spec.workload if spec and spec.workload and q.workload == "general" else q.workload,
                            "inference" if inference else "training")
        context = q.context_tokens or self._context(spec, inference)
        batch = q.batch or (spec.train_batch if spec and not llm and not inference else 1)
        runtime = self.runtime = runtime_for(q, method, llm, batch)
        pooling = _pooling(method, llm, runtime)
        bits = self.bits(spec, precision, method)
        factor = self.factor16 if method == "train" and precision in ("16-bit", "fp8") else 1.0
        if q.memory_gb:
            need, shardable = MemoryNeed(q.memory_gb, self.say("job.as_asked", gb=f"{q.memory_gb:g}"), spec.id if spec else None), q.memory_gb
        elif spec is None:
            floor = float(self.floors[q.workload])
            need, shardable = MemoryNeed(floor, self.say("job.typical", workload=term("task", q.workload, self.language), gb=f"{floor:g}")), 0.0
        else:
            need, shardable = self.need(spec, method, precision, context, batch)
        others = tuple((m, round(self.need(spec, m, "4-bit" if m == "qlora" else "16-bit", context, batch)[0].gb, 1))
                       for m in LLM_METHODS if m != method) if llm and spec and not inference and not q.memory_gb else ()
        return Job(work, method, method_assumed, precision, precision_assumed, spec, context, batch, need,
                   self._assumptions(method, method_assumed, precision, context, batch, llm, spec, runtime, q), others, pooling,
                   shardable, factor, bits, q.language)

    def say(self, key: str, **values: Any) -> str:
        return say(key, self.language, **values)

    def method(self, method: str) -> str:
        """The method's name in the asker's language (LoRA and QLoRA are names)."""
        return term("method", METHOD_NAMES[method], self.language)

    def precision(self, precision: str, spec: ModelSpec | None) -> str:
        return term("precision", _precision_label(precision, spec, self.runtime), self.language)

    def _context(self, spec: ModelSpec | None, inference: bool) -> int:
        default = self.p["default_context_tokens"] if inference else self.p["training_context_tokens"]
        return min(default, spec.seq_len) if spec and spec.seq_len else default

    def bits(self, spec: ModelSpec | None, precision: str, method: str) -> float:
        """Bits per stored weight: the released checkpoint's when it ships quantised (gpt-oss)."""
        if method == "qlora":
            return self.p["nf4_bytes_per_param"] * 8
        if spec is not None and spec.weights_gb and precision == "4-bit":
            return spec.weights_gb * GB * 8 / (spec.params_b * GB)
        return float(self.p["bits_per_weight"][precision])

    def need(self, spec: ModelSpec, method: str, precision: str, context: int, batch: int) -> tuple[MemoryNeed, float]:
        """(memory on one card, the part of it that shards) for a named or sized model."""
        overhead = self.p["context_overhead_gb"]
        if method == "inference":
            return self._inference(spec, precision, context, batch, overhead)
        if spec.kind == "llm" and method in ("lora", "qlora", "full", "pretrain"):
            return self._llm_training(spec, method, precision, context, batch, overhead)
        if method in ("lora", "qlora"):
            return self._adapter_training(spec, method, precision, overhead)
        return self._classic_training(spec, precision, overhead)

    def _inference(self, spec, precision, context, batch, overhead):
        params_b = spec.resident_params_b if spec.kind != "llm" and spec.resident_params_b else spec.params_b
        weights = params_b * GB * self.bits(spec, precision, "inference") / 8 / GB
        if spec.kind == "llm":
            working = spec.kv_values(context) * batch * self.p["kv_cache_bytes"] / GB
            part = self.say("job.kv_cache", gb=f"{working:.1f}", context=f"{context:,}", batch=batch)
            shardable = weights + working
        else:
            working = (spec.inference_activation_gb or (spec.activation_gb_per_sample or 0.4) / 4) * batch
            part = self.say("job.activations", gb=f"{working:.1f}")
            if params_b != spec.params_b:
                part += self.say("job.text_encoders", params=f"{spec.params_b - params_b:.1f}")
            shardable = 0.0
        total = weights + working + overhead
        how = self.say("job.inference", name=spec.name, weights=f"{weights:.1f}", precision=self.precision(precision, spec), part=part,
                       overhead=f"{overhead:g}")
        if spec.reference_vram_gb and precision in ("16-bit", "fp32") and spec.reference_vram_gb > total:
            # the model's own code, as published, holds more (whisper keeps fp32 weights and beams): lean runtimes need less
            how += self.say("job.reference_need", gb=f"{spec.reference_vram_gb:g}")
            total = float(spec.reference_vram_gb)
        return MemoryNeed(total, how, spec.id), shardable

    def _llm_training(self, spec, method, precision, context, batch, overhead):
        params = spec.params_b * GB
        if method in ("full", "pretrain"):
            states = params * self.p["full_bytes_per_param"] / GB
            parts = self.say("job.full_states", gb=f"{states:.1f}", bytes=f"{self.p['full_bytes_per_param']:g}")
        else:
            base = params * self.bits(spec, precision, method) / 8 / GB
            adapters = _adapter_params(spec, self.p["lora_rank"]) * self.p["lora_bytes_per_param"] / GB
            states = base + adapters
            label = "NF4" if method == "qlora" else precision
            parts = self.say("job.lora_states", base=f"{base:.1f}", label=label, adapters=f"{adapters:.1f}", rank=self.p["lora_rank"])
        activations = self._checkpointed_activations(spec, context, batch) * (2 if precision == "fp32" else 1)
        total = states + activations + overhead
        how = self.say("job.llm_training", name=spec.name, method=self.method(method), parts=parts, activations=f"{activations:.1f}",
                       context=f"{context:,}", batch=batch, overhead=f"{overhead:g}")
        return MemoryNeed(total, how, spec.id), states

    def _checkpointed_activations(self, spec: ModelSpec, context: int, batch: int) -> float:
        tokens = context * batch
        hidden, layers = spec.hidden or 768, spec.layers or 12
        kept = layers * tokens * hidden * 2
        recomputed = tokens * hidden * self.p["layer_activation_bytes"]
        logits = tokens * (spec.vocab or 32000) * self.p["logit_bytes"]
        return (kept + recomputed + logits) / GB

    def _adapter_training(self, spec, method, precision, overhead):
        """LoRA on a non-LLM (an SDXL style, a ViT): frozen base (16-bit, or what the model's trainers use), a small
        trainable part; a diffusion model's text encoders are run once and cached, so only its denoiser stays."""
        params = (spec.resident_params_b or spec.params_b) * GB
        base = params * self.bits(spec, _lora_base(spec) if method == "lora" else "4-bit", method) / 8 / GB
        adapters = params * self.p["lora_trainable_fraction"] * self.p["lora_bytes_per_param"] / GB
        activations = _activation_gb(spec) / 2  # 16-bit activations
        total = base + adapters + activations + overhead
        how = self.say("job.adapter_training", name=spec.name, method=self.method(method), base=f"{base:.1f}", adapters=f"{adapters:.1f}",
                       activations=f"{activations:.1f}", batch=spec.train_batch, overhead=f"{overhead:g}")
        return MemoryNeed(total, how, spec.id), 0.0

    def _classic_training(self, spec, precision, overhead):
        """The 2019 count: weights, gradients and Adam in 32 bit, activations at the usual batch."""
        states = spec.params_b * GB * self.p["adam_bytes_per_param"] / GB
        activations = _activation_gb(spec)
        how = self.say("job.classic_training", name=spec.name, states=f"{states:.1f}", activations=f"{activations:.1f}", batch=spec.train_batch)
        return MemoryNeed(states + activations + overhead, how, spec.id), 0.0

    def _assumptions(self, method, method_assumed, precision, context, batch, llm, spec, runtime, q) -> tuple[str, ...]:
        said = []
        if method in ("lora", "qlora"):
            said.append(self.say("assumed.adapters", method=self.method(method), rank=self.p["lora_rank"],
                                 precision="4-bit NF4" if method == "qlora" else spec.lora_base if spec and spec.lora_base else precision))
        elif method == "inference":
            said.append(self.say("assumed.inference", precision=self.precision(precision, spec)))
            if runtime is not None and (q.runtime or (batch > 1 and q.setting not in ("server", "cloud"))):
                said.append(self.say(f"assumed.runtime_{'vllm' if runtime == 'vllm' else 'llama_cpp'}"))
        elif method == "train" and precision in ("16-bit", "fp8"):
            said.append(self.say("assumed.mixed_training", precision=precision, factor=f"{self.factor16:g}"))
        elif precision == "16-bit":
            said.append(self.say("assumed.mixed", method=self.method(method), precision=precision))
        else:
            said.append(self.say("assumed.method", method=self.method(method), precision=precision))
        if llm:
            said.append(self.say("assumed.context", context=f"{context:,}"))
        if llm and method == "inference" and batch > 1:  # users served at once: each sequence keeps its own KV cache
            said.append(self.say("assumed.concurrent", batch=batch, context=f"{context:,}"))
        else:
            said.append(self.say("assumed.batch", batch=batch))
        if method_assumed:
            said.append(self.say("assumed.method_assumed", method=self.method(method)))
        return tuple(said)


def _method(q: Question, spec: ModelSpec | None, llm: bool) -> tuple[str, bool]:
    """(method, assumed): inference when asked to run; for LLMs LoRA unless small or 4-bit."""
    if q.method:
        if q.method in ("full", "pretrain") and not llm:
            return "train", False
        return q.method, False
    if q.task == "inference":
        return "inference", False
    if not llm:
        return "train", False
    if q.precision == "4-bit":
        return "qlora", True
    if spec is not None and spec.params_b < 1:
        return "full", True
    return "lora", True


def _precision(q: Question, method: str, spec: ModelSpec | None, llm: bool) -> tuple[str, bool]:
    """(precision, assumed): local LLM inference at 4 bit, servers at 16 bit, training at 16-bit mixed."""
    if method == "qlora":
        return "4-bit", False
    if q.precision:
        return q.precision, False
    if method == "inference" and llm:
        if spec is not None and spec.weights_gb:
            return "4-bit", True  # ships quantised (gpt-oss: MXFP4)
        return ("16-bit" if q.setting in ("server", "cloud") else "4-bit"), True
    return "16-bit", True


def runtime_for(q: Question, method: str, llm: bool, batch: int) -> str | None:
    """The runtime an LLM is run with (None for any other job): the one named; else a batching server (vLLM class) for
    several users at once or a server, whose way across cards is tensor parallelism (vLLM docs, distributed serving);
    else llama.cpp (Ollama, LM Studio), whose default across cards is the layer split (llama.cpp docs, multi-GPU)."""
    if method != "inference" or not llm:
        return None
    if q.runtime:
        return q.runtime
    return "vllm" if batch > 1 or q.setting in ("server", "cloud") else "llama.cpp"


def _pooling(method: str, llm: bool, runtime: str | None) -> str:
    if method == "inference":
        return ("tensor-parallel" if runtime == "vllm" else "layer-split") if llm else "none"
    return "fsdp" if llm and method in ("lora", "qlora", "full", "pretrain") else "none"


def _precision_label(precision: str, spec: ModelSpec | None, runtime: str | None = None) -> str:
    """The precision as the runtime stores it: GGUF types for llama.cpp, AWQ / GPTQ or INT8 checkpoints for vLLM."""
    if precision == "4-bit" and spec is not None and spec.weights_gb:
        return "4-bit (as released, MXFP4)"
    if runtime == "vllm":
        return {"4-bit": "4-bit (AWQ / GPTQ class)", "8-bit": "8-bit (INT8 class)"}.get(precision, precision)
    return {"4-bit": "4-bit (Q4_K_M class)", "8-bit": "8-bit (Q8_0 class)"}.get(precision, precision)


def _adapter_params(spec: ModelSpec, rank: int) -> float:
    """LoRA parameters on every attention and feed-forward projection of a decoder."""
    hidden = spec.hidden or 768
    q = (spec.heads or 1) * spec.head_dim if spec.heads and spec.head_dim else hidden
    kv = (spec.kv_heads or 1) * spec.head_dim if spec.kv_heads and spec.head_dim else hidden
    ff = spec.intermediate if spec.intermediate and not spec.active_params_b else 4 * hidden
    per_layer = (hidden + q) * 2 + (hidden + kv) * 2 + (hidden + ff) * 3
    return per_layer * rank * (spec.layers or 12)


def _activation_gb(spec: ModelSpec) -> float:
    """fp32 activations kept for backward at the model's usual batch (Korthikanti et al. 2022: 34 B/token/unit at 16 bit)."""
    if spec.activation_gb_per_sample is not None:
        return spec.activation_gb_per_sample * spec.train_batch
    per_sample = (spec.seq_len or 512) * (spec.layers or 12) * (spec.hidden or 768) * 68 / GB
    return per_sample * spec.train_batch
