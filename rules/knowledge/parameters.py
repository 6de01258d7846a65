"""Every rule's parameters as a typed, frozen record, one per rule that has parameters.

The fields are named and typed as ``rules/data/rules.json`` writes them (a JSON integer
is an ``int``, a number with a fraction a ``float``, a list a tuple, a dated row's
``from`` is ``from_``) and ``rules/schemas/rules.schema.json`` describes the same
shapes; a test holds the three together. The ``*_note`` fields carry the reason for
a number beside it, as the data file does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import msgspec

__all__ = [
    "BenchmarkScale",
    "CostEfficiency",
    "DroppedStack",
    "Floor",
    "GeforceLicence",
    "JobCostParameters",
    "LabTraining",
    "LimitedStack",
    "LlmDecode",
    "MemoryCaveat",
    "MemoryFit",
    "MemoryFloor",
    "MemoryValue",
    "MultiGpuHeat",
    "MultiGpuSpeedup",
    "OneMachine",
    "Parameters",
    "PeakEfficiency",
    "PersonaAlmostNoMoney",
    "PersonaAlreadyOwn",
    "PersonaBeginner",
    "PersonaCvMtResearcher",
    "PersonaKaggle",
    "PersonaLittleMoney",
    "PersonaNlpResearcher",
    "PersonaNotSerious",
    "PowerAndSlots",
    "ProductLines",
    "ReferenceModel",
    "RentVsBuy",
    "RooflineClass",
    "Rule16BitMemory",
    "SoftwareSupport",
    "Source",
    "SpecDimensions",
    "TpuFit",
    "TrainingLimits",
    "TrainingThroughput",
    "UsedCards",
    "VendorNvidia",
    "WorkloadPriorities",
]


class Parameters(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Base of every parameter record: read-only, a field the record does not name is an error, and
    written back out it leaves out what the data left out (each record says ``frozen=True`` again for
    the type checker's sake)."""


class Source(Parameters, frozen=True):
    """Where a dated row comes from."""

    name: str
    url: str
    date: dt.date


# ---- workload-priorities -------------------------------------------------------------------------


class RooflineClass(Parameters, frozen=True):
    """A class of work by its arithmetic intensity: where compute and bandwidth trade places."""

    flops_per_byte: int
    label: str


class PeakEfficiency(Parameters, frozen=True):
    """Share of the datasheet peak a real job reaches, per limiting unit."""

    tensor: float
    shader: float
    bandwidth: float


class LabTraining(Parameters, frozen=True):
    """How far the lab's measured training steps may correct the speed model."""

    benchmarks: Mapping[str, str]  # lab benchmark -> roofline class it corrects
    min_cards: int
    max_shift: float
    max_shift_one_host: float
    note: str


class LlmDecode(Parameters, frozen=True):
    """Token generation at batch 1: bandwidth reached per stack, fixed cost per token, multi-card factors."""

    bandwidth_efficiency: Mapping[str, float]  # backend -> share of the bandwidth reached
    quantized_factor: float
    per_token_ms: Mapping[str, float]  # backend -> fixed cost per token
    architecture_bandwidth_efficiency: Mapping[str, float]
    hbm_factor: float
    hbm_lines: tuple[str, ...]
    hbm_min_bandwidth_gb_s: int
    gddr_architectures: tuple[str, ...]
    gddr_note: str
    layer_split_factor: float
    tensor_parallel_factor: float
    kv_cache_bytes: int
    typical_model_b: int
    prompt_efficiency: float
    measured_error: float  # share either side of an estimate: the held-out rows' 80th percentile error
    measured_error_note: str
    note: str
    reading_tokens_per_second: float  # what one user needs when the question does not say
    shared_users: int  # users at once on a shared server when the question gives no number
    shared_users_note: str
    reading_note: str
    fp8_runtimes: tuple[str, ...]  # runtimes that serve FP8 weights and KV cache
    fp8_note: str
    fp8_architectures: tuple[str, ...]  # architectures the serving runtime runs FP8 weights and cache on
    batch_note: str
    usual_backend: Mapping[str, str]  # software stack of a card -> the backend its runs use unless asked
    backends: Mapping[str, tuple[str, ...]]  # software stack of a card -> the backends that run on it
    # routing a mixture of experts: gating and gathering the chosen experts, per token
    moe_per_token_ms: float
    backend_note: str
    # where nothing delivers the users' need, what comes this close to the best is kept
    short_of_need_share: float


class BenchmarkScale(Parameters, frozen=True):
    """One benchmarked model's training throughput for a relative speed of 1 (the reference card)."""

    benchmark: str
    unit: str  # "images/s" or "sequences/s"
    per_reference: float


class TrainingThroughput(Parameters, frozen=True):
    """Absolute 16-bit training throughput for benchmarked models, and the share either side it holds to."""

    measured_error: float
    note: str
    source: str
    models: Mapping[str, BenchmarkScale]  # model id -> its benchmark's scale


class WorkloadPriorities(Parameters, frozen=True):
    reference_gpu: str
    reference_note: str
    classes: Mapping[str, RooflineClass]
    workloads: Mapping[str, Mapping[str, float]]  # workload -> roofline class -> weight
    efficiency: PeakEfficiency
    bytes_factor: Mapping[str, float]  # precision -> bytes moved relative to fp32
    compute_precision: Mapping[str, str]  # precision asked -> precision the arithmetic runs in
    software_efficiency: Mapping[str, float]
    lab_training: LabTraining
    software_note: str
    llm_decode: LlmDecode
    training_throughput: TrainingThroughput | None = None


# ---- prices, memory, cards -----------------------------------------------------------------------


class CostEfficiency(Parameters, frozen=True):
    step_up_threshold: float
    same_price_share: float
    same_price_note: str
    same_speed_share: float
    same_speed_note: str
    no_budget_threshold: float
    no_budget_note: str
    step_up_note: str
    price_kinds: tuple[str, ...]
    new_max_age_months: int
    used_max_age_months: int
    street_over_msrp_months: int
    street_over_msrp_note: str
    price_age_note: str
    shop_life_years: Mapping[str, int]  # product line -> years sold new
    remnant_over_used: float
    remnant_note: str
    shop_life_note: str
    fresh_months: int  # a price older than this is named with its age and weighs less
    stale_weight: float  # an aged price counts as if it were price / stale_weight against fresh ones
    fresh_note: str


class MemoryCaveat(Parameters, frozen=True):
    min_memory_gb: Mapping[str, int]  # workload -> GB


class OneMachine(Parameters, frozen=True):
    gpus_per_machine: int
    gpus_per_server: int


class MemoryFit(Parameters, frozen=True):
    context_overhead_gb: float
    tight_headroom: float
    diffusion_offload_resident_share: float  # of the 4-bit weights a card must hold to run the rest from RAM
    diffusion_offload_note: str
    tight_note: str
    runtime_memory_share: Mapping[str, float]  # runtime -> share of each card's memory it uses
    runtime_memory_note: str
    runtime_memory_sources: tuple[str, ...]
    adam_bytes_per_param: int
    lora_trainable_fraction: float
    inference_overhead: float
    default_context_tokens: int
    training_context_tokens: int
    bits_per_weight: Mapping[str, float]  # precision -> bits per stored weight
    bits_note: str
    bits_sources: tuple[str, ...]
    kv_cache_bytes: int
    nf4_bytes_per_param: float
    nf4_note: str
    lora_rank: int
    lora_bytes_per_param: int
    full_bytes_per_param: int
    full_note: str
    layer_activation_bytes: int
    activation_note: str
    logit_bytes: int
    logit_note: str
    image_inference_precision: str  # image and video models at inference, unless asked
    large_diffusion_precision: str  # a diffusion transformer of large_diffusion_from_b or more, from its date
    large_diffusion_from_b: float
    large_diffusion_since: dt.date
    offloaded_checkpoints_since: dt.date  # LoRA/QLoRA keep checkpoints in RAM and chunk the loss from then
    offloaded_checkpoints_note: str
    large_diffusion_note: str


class Rule16BitMemory(Parameters, frozen=True):
    effective_memory_factor: float


class MultiGpuHeat(Parameters, frozen=True):
    big_card_tdp_w: int
    big_card_max_open_air: int
    small_card_max_open_air: int


class MultiGpuSpeedup(Parameters, frozen=True):
    speedup: Mapping[str, tuple[float, ...]]  # roofline class -> speed-up of 1, 2, 3, 4 cards


class VendorNvidia(Parameters, frozen=True):
    safe_stack: str
    note: str
    cuda_leads_within: float
    cuda_leads_note: str
    cheapest_premium: float  # asked for the cheapest: CUDA leads while it costs at most this share more
    cheapest_premium_note: str


class ProductLines(Parameters, frozen=True):
    poor_value_lines: tuple[str, ...]
    memory_bound_lines: tuple[str, ...]
    memory_bound_note: str
    system_boards: Mapping[str, tuple[int, ...]]  # module form factor -> the module counts its systems hold
    system_boards_note: str
    system_boards_by_gpu: Mapping[str, tuple[int, ...]]  # a module sold on boards of its own counts only
    system_boards_by_gpu_note: str
    platform_usd_per_module: float  # the server around a board of modules, per module it holds
    platform_note: str


class GeforceLicence(Parameters, frozen=True):
    from_gpus: int


class TpuFit(Parameters, frozen=True):
    good_for: tuple[str, ...]


class JobCostParameters(Parameters, frozen=True):
    flops_per_param_token: float
    attention_flops_factor: float
    adapter_speedup: float
    utilisation: float
    utilisation_band: tuple[float, float]
    utilisation_note: str
    longest_wall_hours: float
    longest_wall_note: str
    rentals_shown: int
    stack_share: Mapping[str, float]  # software stack -> its share of the CUDA utilisation
    stack_note: str
    tokens_per_example: int  # a fine-tune asked by its examples: tokens each is assumed to hold
    tokens_per_example_note: str
    training_context: int
    training_context_note: str
    # a transcription's speed: this model on this card runs this many times real time (see transcription_note)
    transcription_model: str
    transcription_gpu: str
    transcription_realtime: float
    transcription_note: str
    sources: tuple[Source, ...]


class RentVsBuy(Parameters, frozen=True):
    min_relative_speed: float
    system_power_w: int
    years: tuple[int, ...]
    default_hours_per_week: int
    server_hours_per_week: int
    server_hours_note: str
    rental_quantile: float
    offer_max_age_months: int
    offer_max_age_note: str
    rental_quantile_note: str


class PowerAndSlots(Parameters, frozen=True):
    system_power_w: int
    psu_headroom: float
    max_slots: int
    blower_slots: int
    max_slots_note: str
    server_max_slots: int
    server_max_slots_note: str
    desk_cards: int  # cards a desktop board carries; more need a multi-GPU host
    desk_cards_note: str
    multi_gpu_platform_usd: float  # that host beyond the cards: board, CPU with the lanes, PSU, frame
    multi_gpu_platform_note: str
    server_platform_usd: float  # the server more cards than a workstation takes need, beyond the cards
    server_platform_note: str


class SpecDimensions(Parameters, frozen=True):
    measured_bands: Mapping[str, tuple[float, float]]  # benchmark kind -> believable shares of the datasheet
    measured_band_note: str
    clock_skew_minutes: int


# ---- personas ------------------------------------------------------------------------------------


class PersonaBeginner(Parameters, frozen=True):
    min_memory_gb: int
    suggest_used: bool
    cuda_only: bool
    cuda_note: str


class PersonaNotSerious(Parameters, frozen=True):
    min_memory_gb: int
    max_tdp_w: int


class PersonaKaggle(Parameters, frozen=True):
    min_memory_gb: int
    cuda_only: bool


class PersonaCvMtResearcher(Parameters, frozen=True):
    min_memory_gb: int
    workloads: tuple[str, ...]


class PersonaNlpResearcher(Parameters, frozen=True):
    min_memory_gb: int
    workloads: tuple[str, ...]


class PersonaLittleMoney(Parameters, frozen=True):
    budget_usd: int


class PersonaAlmostNoMoney(Parameters, frozen=True):
    budget_usd: int


class PersonaAlreadyOwn(Parameters, frozen=True):
    threshold_gpu: str
    seed_date: dt.date
    threshold_note: str
    unless_workloads: tuple[str, ...]
    min_speedup: float
    memory_bound_workloads: tuple[str, ...]


# ---- dated rows ----------------------------------------------------------------------------------


class DroppedStack(Parameters, frozen=True):
    """A software stack that stopped supporting architectures on a date."""

    software: str
    architectures: tuple[str, ...]
    from_: dt.date = msgspec.field(name="from")
    source: Source


class LimitedStack(Parameters, frozen=True):
    """Stacks that ran a job only through a basic port, or not at all, between two dates."""

    software: tuple[str, ...]
    workloads: tuple[str, ...]
    what: str
    from_: dt.date = msgspec.field(name="from")
    source: Source
    until: dt.date | None = None  # None: it still holds
    task: str | None = None  # None: training and inference alike
    precisions: tuple[str, ...] | None = None  # None: at every precision
    runtimes: tuple[str, ...] | None = None  # None: whatever runs the job; else where the question names one


class SoftwareSupport(Parameters, frozen=True):
    dropped: tuple[DroppedStack, ...]
    limited_note: str
    limited: tuple[LimitedStack, ...]


class TrainingLimits(Parameters, frozen=True):
    adapter_methods: tuple[str, ...]


class Floor(Parameters, frozen=True):
    """The least memory a source advises for a workload and task from a date."""

    workload: str
    task: str
    gb: int
    from_: dt.date = msgspec.field(name="from")
    source: Source
    experience: str | None = None  # None: whoever asks


class MemoryFloor(Parameters, frozen=True):
    floors: tuple[Floor, ...]


class UsedCards(Parameters, frozen=True):
    used_when_new_costs_more_than: float
    used_min_saving: float
    used_min_saving_note: str
    used_note: str
    several_from: int
    several_note: str


class ReferenceModel(Parameters, frozen=True):
    """The model class labs fine-tune, from a date."""

    from_: dt.date = msgspec.field(name="from")
    model: str
    source: Source


class MemoryValue(Parameters, frozen=True):
    speed_share: float
    speed_share_note: str
    named_headroom: float
    named_headroom_note: str
    methods: tuple[str, ...]
    reference_models: tuple[ReferenceModel, ...]
    roomier_premium: float
    roomier_premium_note: str
