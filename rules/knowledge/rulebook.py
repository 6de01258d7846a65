"""The rules of thumb as data: id, title, citation, why and parameters.

``rules/data/rules.json`` is the single home of every rule's text and numbers; the
code that applies a rule reads its parameters here, and every finding it makes carries
the rule id, so an answer can always be traced to a source.

Parameters are typed: ``rulebook.memory_fit.tight_headroom`` is a ``float`` of the
record :class:`~rules.knowledge.parameters.MemoryFit`. The attribute of a rule is its
id with hyphens as underscores; an id that starts with a digit takes the prefix
``rule_`` (``16-bit-memory`` -> ``rulebook.rule_16_bit_memory``). A rulebook decodes
its records from its rules when it is made, so the typed and the untyped view
(``param(rule_id, name)``, ``rulebook[rule_id].parameters``) never differ.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import msgspec

from rules.knowledge.datafile import DataFileError
from rules.knowledge.parameters import (
    CostEfficiency,
    GeforceLicence,
    JobCostParameters,
    MemoryCaveat,
    MemoryFit,
    MemoryFloor,
    MemoryValue,
    MultiGpuHeat,
    MultiGpuSpeedup,
    OneMachine,
    Parameters,
    PersonaAlmostNoMoney,
    PersonaAlreadyOwn,
    PersonaBeginner,
    PersonaCvMtResearcher,
    PersonaKaggle,
    PersonaLittleMoney,
    PersonaNlpResearcher,
    PersonaNotSerious,
    PowerAndSlots,
    ProductLines,
    RentVsBuy,
    Rule16BitMemory,
    SoftwareSupport,
    SpecDimensions,
    TpuFit,
    TrainingLimits,
    UsedCards,
    VendorNvidia,
    WorkloadPriorities,
)

__all__ = ["Rule", "Rulebook", "attribute_of", "rule_id_of"]

_FIELD_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)


def attribute_of(rule_id: str) -> str:
    """The rulebook attribute holding a rule's typed parameters: ``memory-fit`` -> ``memory_fit``,
    ``16-bit-memory`` -> ``rule_16_bit_memory``."""
    name = rule_id.replace("-", "_")
    return f"rule_{name}" if name[:1].isdigit() else name


def rule_id_of(attribute: str) -> str:
    """The rule id an attribute of :func:`attribute_of` stands for."""
    prefixed = attribute.startswith("rule_") and attribute[len("rule_") :][:1].isdigit()
    return (attribute[len("rule_") :] if prefixed else attribute).replace("_", "-")


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    citation: tuple[Mapping[str, str], ...]
    why: str
    parameters: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "citation": [dict(c) for c in self.citation],
            "why": self.why,
            "parameters": dict(self.parameters),
        }


@dataclass(frozen=True)
class Rulebook:
    """Every rule by id, and the typed parameters of each rule that has some (decoded from ``rules``
    when the rulebook is made)."""

    rules: Mapping[str, Rule]
    workload_priorities: WorkloadPriorities = field(init=False, repr=False, compare=False)
    cost_efficiency: CostEfficiency = field(init=False, repr=False, compare=False)
    memory_caveat: MemoryCaveat = field(init=False, repr=False, compare=False)
    one_machine: OneMachine = field(init=False, repr=False, compare=False)
    memory_fit: MemoryFit = field(init=False, repr=False, compare=False)
    rule_16_bit_memory: Rule16BitMemory = field(init=False, repr=False, compare=False)
    multi_gpu_heat: MultiGpuHeat = field(init=False, repr=False, compare=False)
    multi_gpu_speedup: MultiGpuSpeedup = field(init=False, repr=False, compare=False)
    vendor_nvidia: VendorNvidia = field(init=False, repr=False, compare=False)
    product_lines: ProductLines = field(init=False, repr=False, compare=False)
    geforce_licence: GeforceLicence = field(init=False, repr=False, compare=False)
    tpu_fit: TpuFit = field(init=False, repr=False, compare=False)
    rent_vs_buy: RentVsBuy = field(init=False, repr=False, compare=False)
    job_cost: JobCostParameters = field(init=False, repr=False, compare=False)
    power_and_slots: PowerAndSlots = field(init=False, repr=False, compare=False)
    spec_dimensions: SpecDimensions = field(init=False, repr=False, compare=False)
    persona_beginner: PersonaBeginner = field(init=False, repr=False, compare=False)
    persona_not_serious: PersonaNotSerious = field(init=False, repr=False, compare=False)
    persona_kaggle: PersonaKaggle = field(init=False, repr=False, compare=False)
    persona_cv_mt_researcher: PersonaCvMtResearcher = field(init=False, repr=False, compare=False)
    persona_nlp_researcher: PersonaNlpResearcher = field(init=False, repr=False, compare=False)
    persona_little_money: PersonaLittleMoney = field(init=False, repr=False, compare=False)
    persona_almost_no_money: PersonaAlmostNoMoney = field(init=False, repr=False, compare=False)
    persona_already_own: PersonaAlreadyOwn = field(init=False, repr=False, compare=False)
    software_support: SoftwareSupport = field(init=False, repr=False, compare=False)
    training_limits: TrainingLimits = field(init=False, repr=False, compare=False)
    memory_floor: MemoryFloor = field(init=False, repr=False, compare=False)
    used_cards: UsedCards = field(init=False, repr=False, compare=False)
    memory_value: MemoryValue = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        typed = typed_parameters()
        for rule in self.rules.values():
            if rule.parameters and attribute_of(rule.id) not in typed:
                raise DataFileError(
                    f"entry {rule.id!r}: field 'parameters': no typed record for this rule's "
                    f"parameters (add one to rules/knowledge/parameters.py)"
                )
        for attribute, record in typed.items():
            rule_id = rule_id_of(attribute)
            if rule_id not in self.rules:
                raise DataFileError(f"no rule {rule_id!r}, whose parameters the rulebook reads")
            object.__setattr__(self, attribute, _decode(self.rules[rule_id], record))

    def __getitem__(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def param(self, rule_id: str, name: str) -> Any:
        """A parameter as the data file writes it (the typed attributes are the reading to prefer)."""
        return self.rules[rule_id].parameters[name]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> Rulebook:
        """The schema-valid ``rules.json``."""
        rules = {
            raw["id"]: Rule(
                raw["id"],
                raw["title"],
                tuple(MappingProxyType(c) for c in raw["citation"]),
                raw["why"],
                MappingProxyType(raw["parameters"]),
            )
            for raw in document["rules"]
        }
        return cls(MappingProxyType(rules))


def typed_parameters() -> dict[str, type[Parameters]]:
    """Rulebook attribute -> the record its rule's parameters decode into."""
    hints = typing.get_type_hints(Rulebook)
    return {f.name: hints[f.name] for f in fields(Rulebook) if not f.init}


def _decode(rule: Rule, record: type[Parameters]) -> Parameters:
    """``rule.parameters`` as ``record``, strictly: a missing, unknown or mistyped field is an error."""
    try:
        return msgspec.convert(dict(rule.parameters), record, strict=True)
    except msgspec.ValidationError as error:
        found = _FIELD_AT.match(str(error))
        message, path = (found["message"], found["path"] or "") if found else (str(error), "")
        where = "parameters" + re.sub(r"\[\d+\]", "", path)
        raise DataFileError(f"entry {rule.id!r}: field {where!r}: {message}") from None
