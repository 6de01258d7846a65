"""The cards themselves: speed per workload, vendors and their stacks, product lines, heat, power and slots,
the GeForce licence, and names the catalog does not know (003 "Что делает один графический процессор быстрее
другого?", "Ваши варианты", the multi-GPU heat warning; 000 and 002 on specifications)."""

from __future__ import annotations

from rules.box import too_wide_reason
from rules.configurations import Configuration
from rules.contract.answer import Finding
from rules.explain.evidence import Evidence, Lines, RuleLines, each, kept
from rules.knowledge.messages import term

__all__ = ["HARDWARE"]


def workload_priorities(evidence: Evidence) -> Lines:
    """Each card's speed for the workload against the reference card, and what it rests on."""
    job, language = evidence.job, evidence.language

    def card(c: Configuration) -> list[Finding]:
        return [
            Finding(
                "workload-priorities",
                "applied",
                evidence.say(
                    "rule.workload_priorities.card",
                    relative=f"{c.relative:.2f}",
                    reference=evidence.reference.name,
                    workload=term("workload", evidence.label, language),
                    precision=job.compute_precision,
                    basis=evidence.performance.basis(
                        c.gpu.id, evidence.work, job.compute_precision, language
                    ),
                ),
            )
        ]

    return Lines(cards=each(evidence, card))


def vendor_nvidia(evidence: Evidence) -> Lines:
    """CUDA is the safe stack: stated on every other card (its share of the speed), and the only stack for
    beginners (the filter)."""
    params = evidence.rulebook.vendor_nvidia
    efficiency = evidence.rulebook.workload_priorities.software_efficiency

    def card(c: Configuration) -> list[Finding]:
        if c.gpu.software == params.safe_stack:
            return []
        share = efficiency.get(c.gpu.software, 1.0)
        return [
            Finding(
                "vendor-nvidia",
                "applied",
                evidence.say("rule.vendor_nvidia.card", software=c.gpu.software, share=f"{share:.0%}"),
            )
        ]

    return Lines(kept=kept(evidence, "vendor-nvidia"), cards=each(evidence, card))


def _stack_warning(vendor: str, evidence: Evidence) -> Lines:
    """Each card of ``vendor`` shown runs outside CUDA: the rule vendor-VENDOR warns on it."""
    rule = f"vendor-{vendor}"
    key = f"rule.vendor_{vendor}.card"
    return Lines(
        cards=each(
            evidence,
            lambda c: (
                [Finding(rule, "warning", evidence.say(key, name=c.gpu.name))]
                if c.gpu.vendor == vendor
                else []
            ),
        )
    )


def vendor_amd(evidence: Evidence) -> Lines:
    return _stack_warning("amd", evidence)


def vendor_intel(evidence: Evidence) -> Lines:
    return _stack_warning("intel", evidence)


def product_lines(evidence: Evidence) -> Lines:
    """Lines the seed advises against, and the Founders Edition."""
    avoid = evidence.terms.avoid_lines

    def card(c: Configuration) -> list[Finding]:
        found = []
        if c.gpu.line in avoid:
            found.append(
                Finding(
                    "product-lines", "warning", evidence.say("rule.product_lines.poor_value", line=c.gpu.line)
                )
            )
        if c.gpu.founders_edition and c.gpu.line == "geforce":
            found.append(Finding("product-lines", "info", evidence.say("rule.product_lines.founders")))
        boards = evidence.terms.boards_for(c.gpu)
        if boards:
            platform = evidence.pricing.text(evidence.terms.platform_usd)
            said = evidence.say(
                "rule.product_lines.system", boards=" or ".join(map(str, boards)), platform=platform
            )
            found.append(Finding("product-lines", "info", said))
        return found

    return Lines(cards=each(evidence, card))


def multi_gpu_heat(evidence: Evidence) -> Lines:
    """Open-air cards side by side overheat: blower-style cards past the seed's count."""
    heat = evidence.rulebook.multi_gpu_heat

    def card(c: Configuration) -> list[Finding]:
        gpu, count = c.gpu, c.count
        limit = (
            heat.big_card_max_open_air
            if (gpu.tdp_w or 0) >= heat.big_card_tdp_w
            else heat.small_card_max_open_air
        )
        if (
            count <= limit
            or gpu.form_factor != "pcie"
            or "passive" in gpu.cooling
            or gpu.cooling == ("blower",)
        ):
            return []  # blower-only boards (workstation cards) are made to sit side by side
        key = "rule.multi_gpu_heat.blower" if "blower" in gpu.cooling else "rule.multi_gpu_heat.no_blower"
        return [Finding("multi-gpu-heat", "warning", evidence.say(key, count=count, name=gpu.name))]

    return Lines(cards=each(evidence, card))


def power_and_slots(evidence: Evidence) -> Lines:
    """The power supply a build needs, and slots beyond what the box has."""
    power = evidence.rulebook.power_and_slots

    def card(c: Configuration) -> list[Finding]:
        found = []
        if c.gpu.tdp_w:
            watts = c.gpu.tdp_w * c.count + power.system_power_w
            psu = int(-(-watts * power.psu_headroom // 50) * 50)
            found.append(
                Finding(
                    "power-and-slots",
                    "info",
                    evidence.say("rule.power_and_slots.psu", watts=f"{watts:,}", psu=f"{psu:,}"),
                )
            )
        if host_usd := evidence.terms.host_usd_for(c.gpu, c.count):
            platform = evidence.pricing.text(host_usd)
            server = evidence.terms.in_server(c.count)
            key = "rule.power_and_slots.server_host" if server else "rule.power_and_slots.host"
            said = evidence.say(key, count=c.count, platform=platform)
            found.append(Finding("power-and-slots", "applied", said))  # applied: it is in the price
        if why := too_wide_reason(evidence.rulebook, evidence.question, c.gpu, c.count):
            found.append(Finding("power-and-slots", "warning", evidence.spoken(why)))
        return found

    return Lines(cards=each(evidence, card))


def geforce_licence(evidence: Evidence) -> Lines:
    """NVIDIA's data-centre licence on GeForce cards, for builds of several."""
    from_gpus = evidence.rulebook.geforce_licence.from_gpus
    return Lines(
        cards=each(
            evidence,
            lambda c: (
                [Finding("geforce-licence", "warning", evidence.say("rule.geforce_licence.card"))]
                if c.gpu.line == "geforce" and c.gpu.vendor == "nvidia" and c.count >= from_gpus
                else []
            ),
        )
    )


def spec_dimensions(evidence: Evidence) -> Lines:
    """A name the catalog does not know is said to be unknown."""
    return Lines(
        named=tuple(
            Finding("spec-dimensions", "info", e.reason) if e.status == "not-in-catalog" else None
            for e in evidence.named
        )
    )


HARDWARE: dict[str, RuleLines] = {
    "workload-priorities": workload_priorities,
    "vendor-nvidia": vendor_nvidia,
    "vendor-amd": vendor_amd,
    "vendor-intel": vendor_intel,
    "product-lines": product_lines,
    "multi-gpu-heat": multi_gpu_heat,
    "power-and-slots": power_and_slots,
    "geforce-licence": geforce_licence,
    "spec-dimensions": spec_dimensions,
}
