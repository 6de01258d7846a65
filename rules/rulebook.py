"""The rules of thumb as data: id, title, citation, why and parameters.

``rules/data/rules.json`` is the single home of every rule's text and numbers;
the code that applies a rule looks its parameters up here by id, and every
finding it makes carries the id, so an answer can always be traced to a source.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from rules.datafile import load_data

__all__ = ["Rule", "Rulebook", "load_rulebook"]


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    citation: tuple[Mapping[str, str], ...]
    why: str
    parameters: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "citation": [dict(c) for c in self.citation],
                "why": self.why, "parameters": dict(self.parameters)}


@dataclass(frozen=True)
class Rulebook:
    rules: Mapping[str, Rule]

    def __getitem__(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def param(self, rule_id: str, name: str) -> Any:
        return self.rules[rule_id].parameters[name]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    def __getattr__(self, name: str) -> Any:  # TEMPORARY: typed access until the typed rulebook lands
        rule_id = {"sixteen_bit_memory": "16-bit-memory", "sixteen_bit_speed": "16-bit-speed"}.get(name, name.replace("_", "-"))
        rules = self.__dict__.get("rules")
        if rules is None or rule_id not in rules:
            raise AttributeError(name)
        return _Params(rules[rule_id].parameters)


class _Params:
    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None


@lru_cache(maxsize=1)
def load_rulebook() -> Rulebook:
    document = load_data("rules")
    rules = {
        raw["id"]: Rule(raw["id"], raw["title"], tuple(MappingProxyType(c) for c in raw["citation"]),
                        raw["why"], MappingProxyType(raw["parameters"]))
        for raw in document["rules"]
    }
    return Rulebook(MappingProxyType(rules))
