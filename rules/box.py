"""One box: how many of a card a desk or a server takes, by its slots and its cooling.

The rules ``power-and-slots`` (a desk has so many slots, a blower card takes two) and ``multi-gpu-heat``
(open-air cards overheat side by side; a whole system is one box) as the choice's refusal and the lines
that explain it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rules.knowledge.messages import Phrase

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge import Gpu, Rulebook

__all__ = ["box_refusal", "build_slots", "too_wide_reason"]


def build_slots(rulebook: Rulebook, gpu: Gpu, count: int) -> float | None:
    """Slots one card takes in a build of ``count``: past two cards, the blower version
    (dual-slot) where one exists."""
    if count > rulebook.multi_gpu_heat.small_card_max_open_air and "blower" in gpu.cooling:
        return float(rulebook.power_and_slots.blower_slots)
    return gpu.slots


def too_wide_reason(rulebook: Rulebook, question: Question, gpu: Gpu, count: int) -> Phrase | None:
    """Why ``count`` of ``gpu`` take more slots than the box has (rule ``power-and-slots``);
    None when they fit."""
    power = rulebook.power_and_slots
    server = question.setting in ("server", "cloud")
    most, message = (
        (power.server_max_slots, "rule.power_and_slots.server_slots")
        if server
        else (power.max_slots, "rule.power_and_slots.slots")
    )
    slots = build_slots(rulebook, gpu, count)
    if slots and slots * count > most:
        return Phrase(
            message, {"count": count, "slots": f"{slots:g}", "total": f"{slots * count:g}", "max_slots": most}
        )
    return None


def box_refusal(rulebook: Rulebook, question: Question) -> Callable[[Gpu, int], Phrase | None]:
    """Why N of a card cannot go in one box: a whole system is one box (multi-gpu-heat), open-air cards
    overheat side by side in a server (multi-gpu-heat) or past the seed's count on a desk, and a desk has only
    so many slots (power-and-slots)."""
    heat = rulebook.multi_gpu_heat
    server = question.setting in ("server", "cloud")
    power = rulebook.power_and_slots
    open_air, blower_slots, max_slots = (
        heat.small_card_max_open_air,
        float(power.blower_slots),
        power.max_slots,
    )

    def refuse(gpu: Gpu, count: int) -> Phrase | None:
        if gpu.form_factor == "system" and count > 1:
            return Phrase("rule.multi_gpu_heat.system")
        blower = "blower" in gpu.cooling
        if server:
            if count > 1 and not (blower or "passive" in gpu.cooling):
                return Phrase("rule.multi_gpu_heat.server_open_air", {"count": count})
            return None
        if count > open_air and not blower:  # two big ones: a warning, a gap helps
            return Phrase("rule.multi_gpu_heat.desktop", {"count": count})
        slots = blower_slots if count > open_air and blower else gpu.slots  # build_slots, on the desk
        if slots and slots * count > max_slots:
            return Phrase(
                "rule.power_and_slots.slots",
                {
                    "count": count,
                    "slots": f"{slots:g}",
                    "total": f"{slots * count:g}",
                    "max_slots": max_slots,
                },
            )
        return None

    return refuse
