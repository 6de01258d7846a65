"""What the engine answers: picks, findings and the rent-vs-buy comparison.

Every :class:`Finding` names the rule that made it, so each line of an answer can
be traced to its source. ``to_dict`` gives the JSON the API returns; floats are
rounded there so the same question and data give byte-identical output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Finding", "Money", "Pick", "RentVsBuy", "MemoryNeed", "Answer"]


@dataclass(frozen=True)
class Finding:
    """One rule applied: its id, the verdict ('applied', 'warning', 'excluded', 'info') and why."""

    rule: str
    verdict: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "verdict": self.verdict, "reason": self.reason}


@dataclass(frozen=True)
class Money:
    """An amount in the asker's currency, with its USD value and where the figure comes from."""

    amount: float
    currency: str
    usd: float
    seen: str | None = None
    kind: str | None = None
    source: str | None = None
    estimate: bool = False  # the price has no public source
    converted_from: str | None = None  # the currency the figure was given in, when not ``currency``

    def __post_init__(self) -> None:
        # Held to the cent from the start, so every face rounds the same figure (665.496 once showed as 665 and 666).
        object.__setattr__(self, "amount", round(self.amount, 2))

    def to_dict(self) -> dict[str, Any]:
        data = {"amount": round(self.amount, 2), "currency": self.currency, "usd": round(self.usd, 2)}
        if self.seen:
            data.update(date=self.seen, kind=self.kind, source=self.source)
        if self.estimate:
            data["estimate"] = True
        if self.converted_from:
            data["converted_from"] = self.converted_from
        return data


@dataclass(frozen=True)
class Pick:
    gpu: str
    name: str
    vendor: str
    count: int
    unit_price: Money
    total_price: Money
    relative_performance: float
    performance_per_1000: float
    memory_gb: float
    effective_memory_gb: float
    basis: str
    hosts: int
    findings: tuple[Finding, ...] = ()
    tokens_per_second: float | None = None  # LLM decode at batch 1; None when not an LLM job
    form_factor: str = "pcie"
    label: str | None = None  # "best within budget", "best value", "entry", "sweet spot" …
    condition: str = "new"  # "new" | "used"

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "name": self.name,
            "vendor": self.vendor,
            "count": self.count,
            "unit_price": self.unit_price.to_dict(),
            "total_price": self.total_price.to_dict(),
            "relative_performance": round(self.relative_performance, 3),
            "performance_per_1000": round(self.performance_per_1000, 3),
            "memory_gb": round(self.memory_gb, 1),
            "effective_memory_gb": round(self.effective_memory_gb, 1),
            "performance_basis": {"kind": self.basis, "hosts": self.hosts},
            "rules": [f.to_dict() for f in self.findings],
            "tokens_per_second": None if self.tokens_per_second is None else round(self.tokens_per_second, 1),
            "form_factor": self.form_factor,
            "label": self.label,
            "condition": self.condition,
        }


@dataclass(frozen=True)
class RentVsBuy:
    offer: dict[str, Any]
    rent_per_hour: Money
    own_power_per_hour: Money
    break_even_hours: float | None
    hours_per_week: float
    yearly: tuple[dict[str, Any], ...]
    cheaper: str
    reason: str
    options: tuple[dict[str, Any], ...] = ()  # rental lines (GPU and TPU) to weigh against each other

    def to_dict(self) -> dict[str, Any]:
        return {
            "offer": self.offer,
            "rent_per_hour": self.rent_per_hour.to_dict(),
            "own_power_per_hour": self.own_power_per_hour.to_dict(),
            "break_even_hours": None if self.break_even_hours is None else round(self.break_even_hours, 1),
            "hours_per_week": self.hours_per_week,
            "years": list(self.yearly),
            "cheaper": self.cheaper,
            "reason": self.reason,
            "options": list(self.options),
        }


@dataclass(frozen=True)
class MemoryNeed:
    """Memory the job needs, in GB at the asked precision (per card when sharded)."""

    gb: float
    how: str
    model: str | None = None
    method: str | None = None  # inference, lora, qlora, full, pretrain, train
    assumptions: tuple[str, ...] = ()  # what the engine chose because the question did not say

    def to_dict(self) -> dict[str, Any]:
        return {"gb": round(self.gb, 1), "how": self.how, "model": self.model, "method": self.method,
                "assumptions": list(self.assumptions)}


@dataclass(frozen=True)
class Answer:
    question: dict[str, Any]
    intent: str
    verdict: str
    summary: str
    as_of: str
    catalog_version: str
    currency: dict[str, Any]
    reference_gpu: str
    workload: str
    memory_need: MemoryNeed
    picks: tuple[Pick, ...] = ()
    alternatives: dict[str, Pick | None] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()
    excluded: tuple[dict[str, Any], ...] = ()
    rent_vs_buy: RentVsBuy | None = None
    suggestions: tuple[str, ...] = ()
    named: tuple[dict[str, Any], ...] = ()  # every card the question named: compared, fitted, or why not

    @property
    def basis(self) -> str:
        hosts = sum(p.hosts for p in self.picks if p.basis == "measured")
        return f"measured on {hosts} lab host{'s' * (hosts != 1)}" if hosts else "estimated from specs"

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "intent": self.intent,
            "verdict": self.verdict,
            "summary": self.summary,
            "as_of": self.as_of,
            "catalog_version": self.catalog_version,
            "currency": self.currency,
            "reference_gpu": self.reference_gpu,
            "workload": self.workload,
            "performance_basis": self.basis,
            "memory_need": self.memory_need.to_dict(),
            "picks": [p.to_dict() for p in self.picks],
            "alternatives": {k: (v.to_dict() if v else None) for k, v in sorted(self.alternatives.items())},
            "findings": [f.to_dict() for f in self.findings],
            "warnings": [f.to_dict() for f in self.warnings],
            "excluded": list(self.excluded),
            "rent_vs_buy": self.rent_vs_buy.to_dict() if self.rent_vs_buy else None,
            "suggestions": list(self.suggestions),
            "named": list(self.named),
        }
