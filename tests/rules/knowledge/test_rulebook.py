"""The rulebook's typed parameters: the data file, its schema and the records say the same thing."""

from __future__ import annotations

import copy
import datetime as dt
import json
import shutil
import types
import typing
from collections.abc import Mapping
from dataclasses import FrozenInstanceError, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
import pytest

from rules.knowledge import DataFileError, Rulebook, load_knowledge
from rules.knowledge.datafile import DATA_DIR, data_validator, load_schema, schema_problem
from rules.knowledge.loaded import load_rulebook
from rules.knowledge.parameters import MemoryFit, Parameters
from rules.knowledge.rulebook import attribute_of, rule_id_of, typed_parameters

DOCUMENT = json.loads((DATA_DIR / "rules.json").read_text(encoding="utf-8"))
SCHEMA = load_schema("rules")


@pytest.fixture(scope="module")
def rulebook() -> Rulebook:
    return load_rulebook()


def _rule(document: dict[str, Any], rule_id: str) -> dict[str, Any]:
    return next(raw for raw in document["rules"] if raw["id"] == rule_id)


def test_a_typed_parameter_is_the_number_the_data_writes(rulebook: Rulebook) -> None:
    assert isinstance(rulebook.memory_fit, MemoryFit)
    assert rulebook.memory_fit.tight_headroom == rulebook.param("memory-fit", "tight_headroom") == 0.1
    assert rulebook.rule_16_bit_memory.effective_memory_factor == rulebook.param(
        "16-bit-memory", "effective_memory_factor"
    )
    assert rulebook.spec_dimensions.measured_bands["matmul"] == (0.2, 1.1)
    assert set(rulebook.spec_dimensions.measured_bands) == {"matmul", "triad", "copy", "llm_decode"}
    assert rulebook.persona_already_own.seed_date == dt.date(2019, 4, 3)
    assert all(isinstance(floor.from_, dt.date) for floor in rulebook.memory_floor.floors)


@pytest.mark.parametrize("attribute", sorted(typed_parameters()))
def test_every_record_reads_its_rule_whole(rulebook: Rulebook, attribute: str) -> None:
    record = getattr(rulebook, attribute)
    assert json.loads(msgspec.json.encode(record)) == _rule(DOCUMENT, rule_id_of(attribute))["parameters"]


def test_every_rule_with_parameters_has_a_record_and_every_record_a_rule(rulebook: Rulebook) -> None:
    with_parameters = {attribute_of(rule.id) for rule in rulebook if rule.parameters}
    assert set(typed_parameters()) == with_parameters


@pytest.mark.parametrize(
    "rule_id, attribute",
    [
        ("memory-fit", "memory_fit"),
        ("16-bit-memory", "rule_16_bit_memory"),
        ("persona-cv-mt-researcher", "persona_cv_mt_researcher"),
    ],
)
def test_an_attribute_is_the_rule_id_in_python(rule_id: str, attribute: str) -> None:
    assert attribute_of(rule_id) == attribute and rule_id_of(attribute) == rule_id


def test_every_rule_id_survives_the_round_trip_to_an_attribute(rulebook: Rulebook) -> None:
    for rule in rulebook:
        assert rule_id_of(attribute_of(rule.id)) == rule.id and attribute_of(rule.id).isidentifier()


def test_records_are_read_only(rulebook: Rulebook) -> None:
    with pytest.raises(AttributeError):
        rulebook.memory_fit.tight_headroom = 0.5  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        rulebook.memory_fit = rulebook.memory_fit  # type: ignore[misc]


def test_the_untyped_views_are_unchanged(rulebook: Rulebook) -> None:
    raw = _rule(DOCUMENT, "rent-vs-buy")
    assert rulebook["rent-vs-buy"].to_dict() == raw
    assert dict(rulebook["rent-vs-buy"].parameters) == raw["parameters"]


def test_a_rulebook_made_from_changed_rules_reads_the_change() -> None:
    """As a calibration run does: swap one rule's parameters, and the typed view follows."""
    base = load_rulebook()
    changed = dict(base["memory-fit"].parameters, tight_headroom=0.25)
    rule = replace(base["memory-fit"], parameters=MappingProxyType(changed))
    rules = dict(base.rules, **{"memory-fit": rule})
    assert Rulebook(MappingProxyType(rules)).memory_fit.tight_headroom == 0.25


# ---- data, schema and records agree ------------------------------------------------------------------------


def _resolved(node: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def _agree(node: Mapping[str, Any], kind: Any, where: str) -> None:
    """The schema ``node`` describes exactly the values the record type ``kind`` decodes."""
    node, origin, args = _resolved(node), typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        (kind,) = [a for a in args if a is not type(None)]
        origin, args = typing.get_origin(kind), typing.get_args(kind)
    scalar = {bool: "boolean", int: "integer", float: "number", str: "string", dt.date: "string"}
    if kind in scalar:
        assert node["type"] == scalar[kind], where
        assert kind is not dt.date or "pattern" in node, where
    elif isinstance(kind, type) and issubclass(kind, Parameters):
        hints = typing.get_type_hints(kind)
        fields = msgspec.structs.fields(kind)
        assert node["type"] == "object" and node["additionalProperties"] is False, where
        assert set(node["properties"]) == {f.encode_name for f in fields}, where
        assert set(node["required"]) == {f.encode_name for f in fields if f.required}, where
        for f in fields:
            _agree(node["properties"][f.encode_name], hints[f.name], f"{where}.{f.encode_name}")
    elif origin is tuple:
        assert node["type"] == "array", where
        if args[-1] is Ellipsis:
            _agree(node["items"], args[0], f"{where}[]")
        else:
            assert node["minItems"] == node["maxItems"] == len(args), where
            for item, arg in zip(node["prefixItems"], args, strict=True):
                _agree(item, arg, f"{where}[]")
    elif origin is Mapping:
        assert node["type"] == "object", where
        _agree(node["additionalProperties"], args[1], f"{where}{{}}")
    else:
        raise AssertionError(f"{where}: no schema check for {kind!r}")


@pytest.mark.parametrize("attribute", sorted(typed_parameters()))
def test_the_schema_describes_each_record(attribute: str) -> None:
    rule_id = rule_id_of(attribute)
    _agree(SCHEMA["$defs"][rule_id], typed_parameters()[attribute], rule_id)


def test_the_schema_routes_each_rule_to_its_record_and_others_to_none() -> None:
    branches = SCHEMA["$defs"]["rule"]["allOf"]
    routed = {
        b["if"]["properties"]["id"]["const"]: b["then"]["properties"]["parameters"]["$ref"]
        for b in branches
        if "then" in b
    }
    typed = {rule_id_of(a) for a in typed_parameters()}
    assert routed == {rule_id: f"#/$defs/{rule_id}" for rule_id in typed}
    (rest,) = [b for b in branches if "else" in b]
    assert set(rest["if"]["properties"]["id"]["enum"]) == typed
    assert _resolved(rest["else"]["properties"]["parameters"])["maxProperties"] == 0


MISTAKES = [
    ("memory-fit", lambda p: p.update(tight_headroom="tenth"), "parameters.tight_headroom"),
    ("memory-fit", lambda p: p.update(tight_headrom=0.1), "parameters"),
    ("memory-fit", lambda p: p.pop("lora_rank"), "parameters"),
    ("one-machine", lambda p: p.update(gpus_per_machine=4.5), "parameters.gpus_per_machine"),
    ("memory-floor", lambda p: p["floors"][2].update(gb="8"), "parameters.floors.gb"),
    (
        "workload-priorities",
        lambda p: p["llm_decode"].update(hbm_lines="datacenter"),
        "parameters.llm_decode.hbm_lines",
    ),
]


@pytest.mark.parametrize("rule_id, mistake, field", MISTAKES)
def test_a_mistaken_parameter_is_refused_by_schema_and_record_alike(
    rule_id: str, mistake: Any, field: str
) -> None:
    document = copy.deepcopy(DOCUMENT)
    mistake(_rule(document, rule_id)["parameters"])
    problem = schema_problem(data_validator("rules"), document)
    assert problem is not None and f"field {field!r}" in problem and repr(rule_id) in problem, problem
    with pytest.raises(DataFileError, match=f"entry {rule_id!r}: field {field!r}: "):
        Rulebook.from_document(document)


def test_parameters_on_a_rule_without_a_record_are_refused() -> None:
    document = copy.deepcopy(DOCUMENT)
    _rule(document, "16-bit-speed")["parameters"]["speedup"] = 2.0
    assert "expected to be empty" in (schema_problem(data_validator("rules"), document) or "")
    with pytest.raises(DataFileError, match="'16-bit-speed': field 'parameters': no typed record"):
        Rulebook.from_document(document)


def test_a_record_problem_the_schema_misses_names_the_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    document = copy.deepcopy(DOCUMENT)
    _rule(document, "persona-already-own")["parameters"]["seed_date"] = "2019-02-30"  # the pattern fits
    (data / "rules.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(DataFileError) as raised:
        load_knowledge(data, use_cache=False)
    assert str(raised.value).startswith(
        f"{data / 'rules.json'}: entry 'persona-already-own': field 'parameters.seed_date': Invalid"
    )
