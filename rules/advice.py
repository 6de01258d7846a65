"""The advice rules: what to watch out for with a card, a build or a question.

Each function returns :class:`Finding` s tagged with the rule id; the parameters
(thresholds, lines, counts) come from the rulebook, never from literals here.
"""

from __future__ import annotations

from rules.answer import Finding
from rules.question import Question
from rules.rulebook import Rulebook

__all__ = ["card_findings", "build_findings", "build_refusal", "question_findings", "Persona", "personas"]


def card_findings(rulebook: Rulebook, gpu, question: Question) -> list[Finding]:
    """Facts about the card itself: 16-bit speed, vendor stack, product line."""
    found: list[Finding] = []
    if question.precision != "fp32":
        if not gpu.fast_16bit:
            found.append(Finding("16-bit-speed", "warning", f"{gpu.name} has slow 16-bit math: {question.precision} saves memory but brings no speed"))
        elif rate := gpu.tensor_tflops.get("fp16") or gpu.tensor_tflops.get("bf16"):
            found.append(Finding("16-bit-speed", "applied", f"tensor cores run 16-bit at up to {rate:.0f} TFLOP/s dense"))
    if gpu.software != rulebook.param("vendor-nvidia", "safe_stack"):
        share = rulebook.param("workload-priorities", "software_efficiency").get(gpu.software, 1.0)
        found.append(Finding("vendor-nvidia", "applied", f"outside CUDA ({gpu.software}): the speed estimate counts its PyTorch kernels "
                                                         f"at {share:.0%} of CUDA's, and expect friction with some libraries"))
    if gpu.vendor == "amd":
        found.append(Finding("vendor-amd", "warning", f"{gpu.name} runs PyTorch through ROCm/HIP: check your libraries and custom kernels support it"))
    elif gpu.vendor == "intel":
        found.append(Finding("vendor-intel", "warning", f"{gpu.name} runs PyTorch through oneAPI (XPU): a smaller ecosystem than CUDA"))
    if gpu.line in rulebook.param("product-lines", "poor_value_lines"):
        found.append(Finding("product-lines", "warning", f"{gpu.line} cards cost more per unit of deep-learning speed than GeForce/Radeon cards"))
    if gpu.founders_edition and gpu.line == "geforce":
        found.append(Finding("product-lines", "info", "skip the Founders Edition premium: partner cards of the same chip are as fast"))
    return found


def build_findings(rulebook: Rulebook, gpu, count: int) -> list[Finding]:
    """Facts about ``count`` cards in one box: heat, power supply, slots, licence."""
    found: list[Finding] = []
    heat = rulebook["multi-gpu-heat"].parameters
    big = (gpu.tdp_w or 0) >= heat["big_card_tdp_w"]
    limit = heat["big_card_max_open_air"] if big else heat["small_card_max_open_air"]
    if count > limit and gpu.form_factor == "pcie" and "passive" not in gpu.cooling:
        if "blower" in gpu.cooling:
            found.append(Finding("multi-gpu-heat", "warning", f"{count} × {gpu.name} side by side: buy blower-style cards, open-air ones overheat each other"))
        else:
            found.append(Finding("multi-gpu-heat", "warning", f"{count} × {gpu.name} side by side: no blower version exists, leave slot gaps or use risers/water cooling"))
    power = rulebook["power-and-slots"].parameters
    if gpu.tdp_w:
        watts = gpu.tdp_w * count + power["system_power_w"]
        psu = int(-(-watts * power["psu_headroom"] // 50) * 50)
        found.append(Finding("power-and-slots", "info", f"draws about {watts} W with the system: take a PSU of {psu} W or more"))
    slots = build_slots(rulebook, gpu, count)
    if slots and slots * count > power["max_slots"]:
        found.append(Finding("power-and-slots", "warning", f"{count} cards of {slots:g} slots need {slots * count:g} slots, more than a 4-GPU workstation's {power['max_slots']}"))
    if gpu.line == "geforce" and gpu.vendor == "nvidia" and count >= rulebook.param("geforce-licence", "from_gpus"):
        found.append(Finding("geforce-licence", "warning", "GeForce driver licence excludes data-center deployment: check before racking these in a server room"))
    return found


def build_slots(rulebook: Rulebook, gpu, count: int) -> float | None:
    """Slots one card takes in a build of ``count``: past two cards, the blower version (dual-slot) where one exists."""
    if count > rulebook.param("multi-gpu-heat", "small_card_max_open_air") and "blower" in gpu.cooling:
        return rulebook.param("power-and-slots", "blower_slots")
    return gpu.slots


def build_refusal(rulebook: Rulebook, gpu, count: int, setting: str | None) -> str | None:
    """Why ``count`` × ``gpu`` cannot go in one box (None: they can): heat and slots, applied as rules."""
    heat = rulebook["multi-gpu-heat"].parameters
    if gpu.form_factor == "system" and count > 1:
        return "a whole computer: one per desk, its memory does not pool with another's"
    if setting in ("server", "cloud"):
        if count > 1 and not ({"blower", "passive"} & set(gpu.cooling)):
            return f"{count} open-air cards overheat in a server chassis: it needs blower or passive cards"
        return None
    if count > heat["small_card_max_open_air"] and "blower" not in gpu.cooling:  # two big ones: a warning, a gap helps
        return f"{count} side by side overheat each other and no blower version exists"
    power = rulebook["power-and-slots"].parameters
    slots = build_slots(rulebook, gpu, count)
    if slots and slots * count > power["max_slots"]:
        return f"{count} cards of {slots:g} slots need {slots * count:g} slots, more than a 4-GPU workstation's {power['max_slots']}"
    return None


class Persona:
    """A persona rule that fired: its finding, the memory it asks for, and preferences."""

    def __init__(self, rule: str, reason: str, min_memory_gb: float | None = None, max_tdp_w: float | None = None,
                 consider_used: bool = False, verdict: str | None = None, cuda_only: bool = False) -> None:
        self.rule, self.reason = rule, reason
        self.min_memory_gb, self.max_tdp_w = min_memory_gb, max_tdp_w
        self.consider_used, self.verdict, self.cuda_only = consider_used, verdict, cuda_only

    @property
    def finding(self) -> Finding:
        return Finding(self.rule, "applied", self.reason)


def personas(rulebook: Rulebook, question: Question, budget_usd: float | None) -> list[Persona]:
    """The persona rules (seed's general recommendations) that apply to this question."""
    fired: list[Persona] = []
    p = lambda rule, name: rulebook.param(rule, name)  # noqa: E731
    if question.experience == "hobby":
        fired.append(Persona("persona-not-serious", "just trying deep learning: a small card that needs no new power supply",
                             p("persona-not-serious", "min_memory_gb"), max_tdp_w=p("persona-not-serious", "max_tdp_w")))
    elif question.experience == "beginner" or (question.workload == "general" and question.experience is None):
        fired.append(Persona("persona-beginner", "starting out: a modest card with enough memory, used is fine",
                             p("persona-beginner", "min_memory_gb"), consider_used=p("persona-beginner", "suggest_used"),
                             cuda_only=p("persona-beginner", "cuda_only")))
    if question.workload == "kaggle":
        fired.append(Persona("persona-kaggle", "Kaggle: a cost-efficient card for fast iteration, cloud for the final runs",
                             p("persona-kaggle", "min_memory_gb"), cuda_only=p("persona-kaggle", "cuda_only")))
    if question.experience == "researcher":
        if question.workload in p("persona-nlp-researcher", "workloads"):
            fired.append(Persona("persona-nlp-researcher", "NLP research: large memory, and train in 16-bit to stretch it",
                                 p("persona-nlp-researcher", "min_memory_gb")))
        elif question.workload in p("persona-cv-mt-researcher", "workloads"):
            fired.append(Persona("persona-cv-mt-researcher", "vision research: a big, fast card; blower-style for multi-GPU boxes",
                                 p("persona-cv-mt-researcher", "min_memory_gb")))
    if budget_usd is not None:
        if budget_usd <= p("persona-almost-no-money", "budget_usd"):
            fired.append(Persona("persona-almost-no-money", "almost no money: prototype on the CPU and train on free notebooks (Colab, Kaggle) or short cloud runs",
                                 consider_used=True, verdict="cpu-and-cloud"))
        elif budget_usd <= p("persona-little-money", "budget_usd"):
            fired.append(Persona("persona-little-money", "little money: used cards from the second-hand market are included",
                                 consider_used=True))
    return fired


def question_findings(rulebook: Rulebook, question: Question, workload_label: str, speedup: float) -> list[Finding]:
    """Rules about the plan rather than a card: multi-GPU, cloud, TPUs, the as-of date."""
    found: list[Finding] = []
    if question.gpus > 1:
        found.append(Finding("multi-gpu-speedup", "applied", f"{question.gpus} GPUs give about {speedup:.1f}× one GPU for {workload_label}"))
        found.append(Finding("separate-experiments", "info", "several GPUs also let you run separate experiments side by side"))
    per_machine = rulebook.param("one-machine", "gpus_per_machine")
    if question.gpus > per_machine:
        found.append(Finding("one-machine", "warning", f"more than {per_machine} GPUs means several machines: prefer {per_machine} faster cards in one box"))
    if question.cloud_ok:
        found.append(Finding("cloud-role", "info", "prototype on the local card; rent cloud GPUs for big runs and deadlines"))
        if question.workload in rulebook.param("tpu-fit", "good_for"):
            found.append(Finding("tpu-fit", "info", "Cloud TPUs are a cost-effective option for large transformers and CNNs (with XLA-friendly code)"))
        elif question.workload == "rnn":
            found.append(Finding("tpu-fit", "info", "TPUs suit recurrent nets poorly: rent GPUs instead"))
    if question.as_of is not None:
        found.append(Finding("no-unreleased-chips", "applied", f"only cards released and prices known by {question.as_of.isoformat()} are considered"))
    return found
