"""How fast a card runs a workload: a two-term roofline over the catalog's specs.

One unit of work of class *c* costs ``I_c`` FLOPs per byte of memory traffic, so

    time = I_c / compute_rate(card, precision) + bytes_factor(precision) / memory_rate(card)

with ``I_c`` large for convolutions (compute-bound), small for recurrent nets
(bandwidth-bound) and in between for transformers (rule ``workload-priorities``).
The workload priorities of the rule are not sorted in by hand: they come out of
this model, because a faster term matters in proportion to its share of the time.

Lab measurements replace the spec-sheet inputs: a measured matmul rate stands in
for ``peak × efficiency`` and a measured triad bandwidth for ``bandwidth × efficiency``;
a figure only one host measured moves the spec estimate by the one-host bound of the
lab's training correction at most, until a second host confirms it.
The lab's CNN / LSTM / transformer training steps then correct what those two miss
(kernels, cuDNN, launch overheads): per class *c* a card's factor is

    f_c(card) = ratio(card) / median ratio over the lab's cards,   ratio = measured steps/s / predicted

compared only among runs of the same benchmark, size tier and precision, and bounded
(more tightly when one host alone stands behind it); a card alone in its group is not
corrected, since the model's throughput has no absolute unit to compare one card with.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from rules.knowledge.messages import basis, say, term
from rules.knowledge.rulebook import Rulebook
from rules.need import kv_values

if TYPE_CHECKING:
    from rules.job import Job
    from rules.knowledge.parameters import LlmDecode

__all__ = ["Measured", "PerformanceModel", "TrainingStep"]

RULE = "workload-priorities"
DECODE_WORKLOAD = "llm_inference"
STEP_NAMES = {
    "cnn": "CNN",
    "rnn": "LSTM",
    "transformer": "transformer",
}  # the bench-agent step of each class, in words


@dataclass(frozen=True)
class TrainingStep:
    """A bench-agent training benchmark of one card: the median rate at one size tier and precision."""

    benchmark: str  # cnn_train, lstm_train, transformer_train
    tier: str  # the agent's size tier (gpu, gpu_small …): only runs of one tier are compared
    precision: str  # fp32, fp16, bf16
    per_second: float  # images, sequences or tokens per second
    hosts: int


@dataclass(frozen=True)
class Measured:
    """Lab figures for one catalog GPU: medians of recent unflagged runs across hosts."""

    hosts: int
    matmul_tflops: Mapping[str, float] = field(default_factory=dict)
    bandwidth_gb_s: float | None = None
    decode_gb_s: float | None = (
        None  # bandwidth LLM token generation reached at 16 bit (bench-agent llm_decode)
    )
    training: tuple[TrainingStep, ...] = ()
    # hosts behind each figure ("matmul/fp16", "bandwidth", "decode"); a figure not named here has ``hosts``
    figure_hosts: Mapping[str, int] = field(default_factory=dict)

    def hosts_of(self, figure: str) -> int:
        return self.figure_hosts.get(figure, self.hosts)


class Accelerator(Protocol):
    """What the speed model reads of a card: a catalog GPU, or a Cloud TPU chip rented."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def fp32_tflops(self) -> float: ...
    @property
    def fp16_tflops(self) -> float: ...
    @property
    def tensor_tflops(self) -> Mapping[str, float]: ...
    @property
    def fast_16bit(self) -> bool: ...
    @property
    def software(self) -> str: ...
    @property
    def bandwidth_gb_s(self) -> float: ...


class PerformanceModel:
    """Throughput per card and workload, relative to the reference card, cached per snapshot."""

    def __init__(
        self,
        rulebook: Rulebook,
        reference: Accelerator,
        measurements: Mapping[str, Measured] | None = None,
        gpu_of: Callable[[str], Accelerator] | None = None,
    ) -> None:
        """``gpu_of`` finds a measured card's catalog entry (its training steps need its predicted rate)."""
        params = rulebook.workload_priorities
        self._classes = {name: spec.flops_per_byte for name, spec in params.classes.items()}
        self._mixes = params.workloads
        self._efficiency = params.efficiency
        self._software = params.software_efficiency
        self._bytes = params.bytes_factor
        self._compute_precision = params.compute_precision
        self._speedups = rulebook.multi_gpu_speedup.speedup
        self._decode = params.llm_decode
        self._bits = rulebook.memory_fit.bits_per_weight
        self._measured = dict(measurements or {})
        self._cache: dict[tuple[str, str, str], float] = {}
        self.reference = reference
        self._lab = params.lab_training
        self._training = self._training_factors(gpu_of) if gpu_of else {}
        self._reference_time = {w: self._time(reference, w, "fp32", spec_only=True) for w in self._mixes}

    @property
    def decode(self) -> LlmDecode:
        """The rule's token-generation parameters (serving reads its shares from them)."""
        return self._decode

    def measured(self, gpu_id: str) -> Measured | None:
        return self._measured.get(gpu_id)

    def compute_tflops(self, gpu: Accelerator, precision: str, spec_only: bool = False) -> float:
        """Achievable dense TFLOP/s for the precision: measured, else peak × efficiency × software stack."""
        wanted = self._compute_precision[precision]
        fast = wanted != "fp32" and gpu.fast_16bit
        measured = None if spec_only else self._measured.get(gpu.id)
        if measured:
            keys = ("fp16", "bf16") if fast else ("fp32",)
            rates = [
                (measured.matmul_tflops[k], measured.hosts_of(f"matmul/{k}"))
                for k in keys
                if measured.matmul_tflops.get(k)
            ]
            if rates:
                rate, hosts = max(rates)
                return self._believed(rate, self.compute_tflops(gpu, precision, spec_only=True), hosts)
        software = self._software.get(gpu.software, 1.0)
        if not fast:
            return gpu.fp32_tflops * self._efficiency.shader * software
        tensor = (
            gpu.tensor_tflops.get(wanted) or gpu.tensor_tflops.get("fp16") or gpu.tensor_tflops.get("bf16")
        )
        if tensor:
            return tensor * self._efficiency.tensor * software
        return max(gpu.fp16_tflops, gpu.fp32_tflops) * self._efficiency.shader * software

    def memory_gb_s(self, gpu: Accelerator, spec_only: bool = False) -> float:
        estimate = gpu.bandwidth_gb_s * self._efficiency.bandwidth
        measured = None if spec_only else self._measured.get(gpu.id)
        if measured and measured.bandwidth_gb_s:
            return self._believed(measured.bandwidth_gb_s, estimate, measured.hosts_of("bandwidth"))
        return estimate

    def _believed(self, figure: float, estimate: float, hosts: int) -> float:
        """A lab figure; one host alone moves the spec estimate by at most the one-host bound (1.15×)."""
        if hosts >= 2:
            return figure
        bound = 1 + self._lab.max_shift_one_host
        return min(estimate * bound, max(estimate / bound, figure))

    def _time(self, gpu: Accelerator, workload: str, precision: str, spec_only: bool = False) -> float:
        """Seconds per unit of work (arbitrary unit, the same for every card),
        corrected by the lab's training steps."""
        return sum(
            weight
            * self._class_time(gpu, cls, precision, spec_only)
            / (1.0 if spec_only else self.training_factor(gpu.id, cls, precision))
            for cls, weight in self._mixes[workload].items()
        )

    def training_factor(self, gpu_id: str, cls: str, precision: str) -> float:
        """How much faster the lab's training steps of class ``cls`` ran on the card than the model says (1.0:
        no correction); the precision's own figure, else the other precision's."""
        found = self._training_found(gpu_id, cls, precision)
        return found[0] if found else 1.0

    def _training_found(self, gpu_id: str, cls: str, precision: str) -> tuple[float, int] | None:
        """(factor, hosts) for the precision's family, else the other family's;
        None when no step corrects it."""
        family = "fp32" if precision == "fp32" else "16-bit"
        other = "16-bit" if family == "fp32" else "fp32"
        return self._training.get((gpu_id, cls, family)) or self._training.get((gpu_id, cls, other))

    def _training_factors(
        self, gpu_of: Callable[[str], Accelerator]
    ) -> dict[tuple[str, str, str], tuple[float, int]]:
        """(card, class, fp32 | 16-bit) -> (bounded factor, hosts) from every group of two or more lab
        cards."""
        classes = self._lab.benchmarks
        groups: dict[tuple[str, str, str], dict[str, tuple[float, int]]] = defaultdict(dict)
        for gpu_id, measured in self._measured.items():
            try:
                gpu = gpu_of(gpu_id)
            except KeyError:
                continue
            for step in measured.training:
                if step.benchmark in classes and step.per_second > 0:
                    family = "fp32" if step.precision == "fp32" else "16-bit"
                    predicted = 1.0 / self._class_time(gpu, classes[step.benchmark], family)
                    groups[(step.benchmark, step.tier, step.precision)][gpu_id] = (
                        step.per_second / predicted,
                        step.hosts,
                    )
        logs: dict[tuple[str, str, str], list[tuple[float, int]]] = defaultdict(list)
        for (benchmark, _, precision), cards in groups.items():
            if len(cards) < self._lab.min_cards:
                continue
            median = statistics.median(ratio for ratio, _ in cards.values())
            family = "fp32" if precision == "fp32" else "16-bit"
            for gpu_id, (ratio, hosts) in cards.items():
                logs[(gpu_id, classes[benchmark], family)].append((math.log(ratio / median), hosts))
        factors = {}
        for key, found in logs.items():
            hosts = max(h for _, h in found)
            bound = math.log1p(self._lab.max_shift if hosts >= 2 else self._lab.max_shift_one_host)
            shift = statistics.fmean(log for log, _ in found)
            factors[key] = (math.exp(max(-bound, min(bound, shift))), hosts)
        return factors

    def _class_time(self, gpu: Accelerator, cls: str, precision: str, spec_only: bool = False) -> float:
        """Seconds per unit of one class's work: ``I_c`` over compute plus the bytes over bandwidth
        (the roofline); the software stack reaches its share of both (a measured bandwidth already has it)."""
        compute = self.compute_tflops(gpu, precision, spec_only) * 1e12
        fast = precision == "fp32" or gpu.fast_16bit
        measured = None if spec_only else self._measured.get(gpu.id)
        software = 1.0 if measured and measured.bandwidth_gb_s else self._software.get(gpu.software, 1.0)
        return self._classes[cls] / compute + (self._bytes[precision] if fast else 1.0) / (
            self.memory_gb_s(gpu, spec_only) * software * 1e9
        )

    def basis(
        self, gpu_id: str, workload: str, precision: str = "16-bit", language: str | None = None
    ) -> str:
        """Where a card's figure for the workload comes from: "estimated from specs", or "measured on 2 lab
        hosts" and how far the lab's training steps of the workload's classes moved it at ``precision``
        (in ``language``)."""
        measured = self._measured.get(gpu_id)
        if measured is None:
            return term("basis", "estimated from specs", language)
        said = f"measured on {measured.hosts} lab host{'s' * (measured.hosts != 1)}"
        said = basis(said, language)
        for cls in self._mixes.get(workload, {}):
            if found := self._training_found(gpu_id, cls, precision):
                factor, hosts = found
                said += say(
                    "basis.training_step", language, name=STEP_NAMES[cls], factor=f"{factor:.2f}", hosts=hosts
                )
        return said

    def relative(self, gpu: Accelerator, workload: str, precision: str) -> float:
        """Throughput for the workload relative to the reference card in fp32 (1.0 = reference)."""
        key = (gpu.id, workload, precision)
        if key not in self._cache:
            if (
                workload == DECODE_WORKLOAD
            ):  # token generation: the calibrated decode model, not the roofline mix
                value = self._decode_rate(gpu, precision) / self._decode_rate(
                    self.reference, "fp32", spec_only=True
                )
            else:
                value = self._reference_time[workload] / self._time(gpu, workload, precision)
            self._cache[key] = value
        return self._cache[key]

    def _decode_rate(self, gpu: Accelerator, precision: str, spec_only: bool = False) -> float:
        """Tokens/s of the rule's typical dense model (8 B parameters) at the precision, short context."""
        bits = self._bits[precision]
        weights = self._decode.typical_model_b * 1e9 * bits / 8
        bandwidth = self.decode_bandwidth_gb_s(gpu, bits, spec_only) * 1e9
        return 1.0 / (weights / bandwidth + self._per_token_s(gpu, self.backend(gpu), spec_only))

    def speedup(self, workload: str, gpus: int) -> float:
        """Data-parallel speed-up on ``gpus`` cards, weighted over the workload's classes."""
        total = 0.0
        for cls, weight in self._mixes[workload].items():
            curve = self._speedups[cls]
            if gpus <= len(curve):
                factor = curve[gpus - 1]
            else:
                factor = curve[-1] + (gpus - len(curve)) * (curve[-1] - curve[-2])
            total += weight * factor
        return total

    def tokens_per_second(self, gpu: Accelerator, job: Job, count: int = 1) -> float | None:
        """Tokens/s each user gets (None for other jobs): at batch 1 the bytes read per token over the
        bandwidth reached; serving ``job.batch`` users, the step of :meth:`step_seconds`,
        one token per user each step."""
        step = self.step_seconds(gpu, job, count)
        return None if step is None else 1.0 / step

    def step_seconds(self, gpu: Accelerator, job: Job, count: int = 1) -> float | None:
        """One decode step for every sequence served at once: the weights are read once (of a mixture of
        experts, every expert some sequence is routed to), each sequence's KV cache (half-full on average)
        every step; the arithmetic (2 FLOPs per active parameter and sequence) bounds it when the batch is
        large; plus the fixed cost of a step."""
        spec = job.model
        if job.method != "inference" or spec is None or spec.kind != "llm":
            return None
        d = self._decode
        backend = self.backend(gpu, job.backend)
        weights = spec.read_b(job.batch) * 1e9 * job.bits_per_weight / 8
        kv = kv_values(spec, job.context_tokens / 2) * job.kv_cache_bytes * job.batch
        bandwidth = self.decode_bandwidth_gb_s(gpu, job.bits_per_weight, backend=backend) * 1e9
        fixed = self._per_token_s(gpu, backend) + (d.moe_per_token_ms / 1000 if spec.active_params_b else 0.0)
        cards = 1.0
        if count > 1 and job.poolings[count] == "tensor-parallel":
            cards = count * d.tensor_parallel_factor
        elif count > 1:
            cards = d.layer_split_factor  # one card works at a time; hand-over between them
        reading = (weights + kv) / (bandwidth * cards)
        if job.batch == 1:  # one sequence: the arithmetic hides under the reading
            return reading + fixed
        compute = self.compute_tflops(gpu, job.compute_precision) * 1e12 * d.prompt_efficiency * cards
        return max(reading, 2 * spec.active_b * 1e9 * job.batch / compute) + fixed

    def backend(self, gpu: Accelerator, asked: str | None = None) -> str:
        """The compute backend a run uses: the one asked where the card's stack runs it (Vulkan on NVIDIA, AMD
        and Intel, MLX on Apple), else the card's usual one (CUDA, ROCm, Metal, SYCL)."""
        d = self._decode
        if asked and asked in d.backends.get(gpu.software, ()):
            return asked
        return d.usual_backend.get(gpu.software, gpu.software)

    def _per_token_s(self, gpu: Accelerator, backend: str, spec_only: bool = False) -> float:
        """The fixed cost of a token on the backend; a measured decode bandwidth already includes it."""
        measured = None if spec_only else self._measured.get(gpu.id)
        if measured and measured.decode_gb_s:
            return 0.0
        return self._decode.per_token_ms.get(backend, max(self._decode.per_token_ms.values())) / 1000

    def decode_bandwidth_gb_s(
        self, gpu: Accelerator, bits_per_weight: float, spec_only: bool = False, backend: str | None = None
    ) -> float:
        """Bandwidth one generation stream reaches: datasheet x the backend's efficiency (x quantised, x
        wide-HBM factors); ``backend`` None: the card's usual one.

        A lab-measured decode bandwidth replaces the whole estimate; else a measured triad bandwidth stands in
        for the datasheet figure (divided by the share triad reaches).
        """
        d = self._decode
        measured = None if spec_only else self._measured.get(gpu.id)
        if measured and measured.decode_gb_s:  # the lab's own 16-bit decode: stack and card effects included
            estimate = self.decode_bandwidth_gb_s(gpu, 16, spec_only=True)
            believed = self._believed(measured.decode_gb_s, estimate, measured.hosts_of("decode"))
            return believed * (d.quantized_factor if bits_per_weight < 12 else 1.0)
        peak = (
            self.memory_gb_s(gpu) / self._efficiency.bandwidth
            if measured and measured.bandwidth_gb_s
            else gpu.bandwidth_gb_s
        )
        backend = backend or self.backend(gpu)
        share = d.bandwidth_efficiency.get(backend, min(d.bandwidth_efficiency.values()))
        # a generation that reaches less of its bandwidth on any backend (Arc A-series, Apple M1/M2)
        share = d.architecture_bandwidth_efficiency.get(getattr(gpu, "architecture", ""), share)
        if bits_per_weight < 12:
            share *= d.quantized_factor
        if (
            getattr(gpu, "line", None) in d.hbm_lines
            and gpu.bandwidth_gb_s >= d.hbm_min_bandwidth_gb_s
            and getattr(gpu, "arch_id", None) not in d.gddr_architectures
        ):
            share *= d.hbm_factor
        return peak * share

    def prompt_tokens_per_second(self, gpu: Accelerator, job: Job, count: int = 1) -> float | None:
        """Prompt processing: compute-bound, 2 FLOPs per active parameter and token."""
        spec = job.model
        if job.method != "inference" or spec is None or spec.kind != "llm":
            return None
        flops = self.compute_tflops(gpu, "16-bit") * 1e12 * self._decode.prompt_efficiency
        if count > 1 and job.pooling == "tensor-parallel":
            flops *= count * self._decode.tensor_parallel_factor
        return flops / (2 * spec.active_b * 1e9)

    def is_measured(self, gpu_id: str) -> bool:
        return gpu_id in self._measured
