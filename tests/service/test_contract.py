"""The published JSON Schemas are the ones the typed contract generates, and real answers satisfy them."""

from __future__ import annotations

import json
from datetime import date

import msgspec
import pytest

from rules.answer import Answer, Reply
from rules.ask import ask
from service.api.inputs import schema_errors
from service.contract import GENERATED, SCHEMA_DIR, generate, rendered

TODAY = date(2026, 11, 22)


@pytest.fixture(scope="module")
def advisor():
    from rules.catalog import load_catalog
    from rules.engine import Advisor

    return Advisor(load_catalog())


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_the_served_file_is_what_the_type_generates(name: str) -> None:
    served = (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")
    assert served == rendered(name), f"{name}.schema.json is stale: run `python -m service.contract`"


def test_a_changed_type_is_seen_as_a_stale_file(monkeypatch) -> None:
    class Smaller(msgspec.Struct):
        answer: str

    monkeypatch.setitem(GENERATED, "ask-response", (Smaller, *GENERATED["ask-response"][1:]))
    assert rendered("ask-response") != (SCHEMA_DIR / "ask-response.schema.json").read_text(encoding="utf-8")
    assert generate("ask-response")["$defs"]["Smaller"]["required"] == ["answer"]


@pytest.mark.parametrize("text", ["nlp $800", "compare 3090 4090 and tpu v5e", "will llama 13b fit on 8 GB",
                                  "4 gpus 1000 rub cnn", "asdf qwer"])
def test_real_replies_satisfy_the_schemas_and_decode_to_equal_objects(advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    wire = json.loads(msgspec.json.encode(reply))
    assert schema_errors("ask-response", wire) == []
    if reply.recommendation is not None:
        assert schema_errors("answer", wire["recommendation"]) == []
    decoded = msgspec.json.decode(msgspec.json.encode(reply), type=Reply)
    assert decoded == reply
    assert json.loads(msgspec.json.encode(decoded)) == wire  # 800 and 800.0 alike: a budget may be given whole


def test_an_answer_out_of_its_schema_is_refused_by_the_type(advisor) -> None:
    wire = json.loads(msgspec.json.encode(ask(advisor, "nlp $800", today=TODAY).recommendation))
    wire["picks"][0]["count"] = "two"
    assert schema_errors("answer", wire)
    with pytest.raises(msgspec.ValidationError, match=r"picks\[0\]\.count"):
        msgspec.convert(wire, Answer)
