"""The published JSON Schemas and the OpenAPI document come from the same types; real answers satisfy them."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import msgspec
import pytest

import service
from rules.ask import ask
from rules.contract.answer import Answer, Reply
from service.api.inputs import schema, schema_errors, schema_names
from service.contract import INPUTS, PUBLISHED, generate
from tests.app_client import app_client

TODAY = date(2026, 11, 22)
# Each operation's JSON body and success response, by the published schema that describes them.
OPERATIONS = {
    ("/v1/recommendations", "post"): ("recommendation-request", "answer"),
    ("/v1/ask", "post"): ("ask-request", "ask-response"),
    ("/v1/chat/completions", "post"): ("chat-completion-request", "chat-completion-response"),
    ("/v1/models", "get"): (None, "model-list"),
    ("/v1/models/{model_id}", "get"): (None, "model"),
    ("/v1/gpus", "get"): (None, "gpu-list"),
    ("/v1/gpus/{gpu_id}", "get"): (None, "gpu"),
    ("/v1/rules", "get"): (None, "rule-list"),
    ("/v1/schemas", "get"): (None, "schema-list"),
    ("/healthz", "get"): (None, "health"),
    ("/v1/benchmarks", "get"): (None, "benchmark-list"),
    ("/v1/benchmarks", "post"): (None, "benchmark-receipt"),
    ("/v1/lab-prices", "get"): (None, "lab-price-list"),
    ("/v1/lab-prices", "post"): (None, "lab-price-list"),
}


@pytest.fixture(scope="module")
def advisor():
    from rules.advisor import Advisor
    from rules.knowledge.loaded import load_catalog

    return Advisor(load_catalog())


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("contract")) as test_client:
        test_client.openapi = test_client.get("/schema/openapi.json").json()
        yield test_client


def _component(media: dict) -> str:
    """The component a media type's schema refers to (a described body's reference is wrapped in allOf)."""
    found = media["schema"]
    return (found.get("$ref") or found["allOf"][0]["$ref"]).removeprefix("#/components/schemas/")


@pytest.mark.parametrize(("operation", "names"), OPERATIONS.items(), ids=[" ".join(o) for o in OPERATIONS])
def test_the_document_and_the_published_schemas_describe_the_same_types(client, operation, names) -> None:
    path, method = operation
    documented = client.openapi["paths"][path][method]
    body, success = names
    if body:
        assert (
            _component(documented["requestBody"]["content"]["application/json"])
            == PUBLISHED[body].type.__name__
        )
    response = next(r for status, r in documented["responses"].items() if status.startswith("2"))
    assert _component(response["content"]["application/json"]) == PUBLISHED[success].type.__name__
    problems = [
        r["content"]["application/problem+json"]
        for r in documented["responses"].values()
        if "application/problem+json" in r.get("content", {})
    ]
    assert all(_component(media) == PUBLISHED["problem"].type.__name__ for media in problems)
    refusals = [r for status, r in documented["responses"].items() if status[0] in "45"]
    if path.startswith(("/v1/chat/", "/v1/models")):  # OpenAI's clients read OpenAI's error shape there
        assert refusals and not problems
        assert all(
            _component(r["content"]["application/json"]) == PUBLISHED["openai-error"].type.__name__
            for r in refusals
        )


def _without_null_members(node):
    """As the document is served: Litestar leaves out members whose value is null (``"default": null``)."""
    if isinstance(node, dict):
        return {k: _without_null_members(v) for k, v in node.items() if v is not None}
    if isinstance(node, list):
        return [_without_null_members(v) for v in node]
    return node


def test_the_documents_types_are_the_published_schemas_definitions(client) -> None:
    """One generator writes both: each struct's component in the document is its definition in the published
    schemas, keyword for keyword."""
    documented = client.openapi["components"]["schemas"]
    compared = 0
    for name, published in PUBLISHED.items():
        if name in INPUTS:  # an input's schema is written for its refusals' wording (its root at the top)
            continue
        text = json.dumps(generate(name).get("$defs", {})).replace('"#/$defs/', '"#/components/schemas/')
        for definition, written in _without_null_members(json.loads(text)).items():
            if definition in documented:
                assert documented[definition] == written, (name, definition)
                compared += 1
        # an event's data: the stream's description links its schema
        streamed = name == "chat-completion-chunk"
        assert streamed or published.type.__name__ in documented, name
    assert compared > 40


def test_every_operation_with_a_json_answer_is_held_to_a_published_schema(client) -> None:
    held = set(OPERATIONS)
    for path, item in client.openapi["paths"].items():
        for method, operation in item.items():
            success = next(r for status, r in operation["responses"].items() if status.startswith("2"))
            if "application/json" in (success.get("content") or {}):
                assert (path, method) in held, f"{method} {path} answers JSON no published schema describes"


def test_the_published_schemas_are_generated_not_kept_by_hand() -> None:
    assert not (Path(service.__file__).parent / "schemas").exists(), (
        "API schemas are generated from the types"
    )
    for name in PUBLISHED:
        assert schema(name) == generate(name)
    kinds = {name: PUBLISHED[name].type for name in PUBLISHED}
    assert kinds["answer"] is Answer and kinds["ask-response"] is Reply
    assert {"benchmark-run", *PUBLISHED} <= set(schema_names())


def test_a_changed_type_changes_its_published_schema(monkeypatch) -> None:
    class Smaller(msgspec.Struct):
        answer: str

    before = generate("ask-response")
    monkeypatch.setitem(PUBLISHED, "ask-response", PUBLISHED["ask-response"]._replace(type=Smaller))
    assert generate("ask-response") != before
    assert generate("ask-response")["$defs"]["Smaller"]["required"] == ["answer"]


def test_live_answers_satisfy_their_published_schemas(client) -> None:
    chat = {"model": "whichgpu", "messages": [{"role": "user", "content": "nlp $800"}]}
    answers = {
        "chat-completion-response": client.post("/v1/chat/completions", json=chat),
        "model-list": client.get("/v1/models"),
        "schema-list": client.get("/v1/schemas"),
        "benchmark-list": client.get("/v1/benchmarks"),
        "problem": client.get("/v1/gpus/voodoo-5"),
    }
    for name, response in answers.items():
        assert response.status_code < 500
        assert schema_errors(name, response.json()) == [], name
    streamed = client.post("/v1/chat/completions", json={**chat, "stream": True}).text
    chunks = [
        json.loads(line.removeprefix("data: "))
        for line in streamed.splitlines()
        if line.startswith("data: {")
    ]
    assert len(chunks) >= 3 and all(schema_errors("chat-completion-chunk", c) == [] for c in chunks)
    assert schema_errors("model-list", {"object": "list", "data": [{"id": "gpt-4"}]}), "the schema can refuse"


@pytest.mark.parametrize(
    "text",
    [
        "nlp $800",
        "compare 3090 4090 and tpu v5e",
        "will llama 13b fit on 8 GB",
        "4 gpus 1000 rub cnn",
        "asdf qwer",
    ],
)
def test_real_replies_satisfy_the_schemas_and_decode_to_equal_objects(advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    wire = json.loads(msgspec.json.encode(reply))
    assert schema_errors("ask-response", wire) == []
    if reply.recommendation is not None:
        assert schema_errors("answer", wire["recommendation"]) == []
    decoded = msgspec.json.decode(msgspec.json.encode(reply), type=Reply)
    assert decoded == reply
    # 800 and 800.0 alike: a budget may be given whole
    assert json.loads(msgspec.json.encode(decoded)) == wire


def test_an_answer_out_of_its_schema_is_refused_by_the_type(advisor) -> None:
    wire = json.loads(msgspec.json.encode(ask(advisor, "nlp $800", today=TODAY).recommendation))
    wire["picks"][0]["count"] = "two"
    assert schema_errors("answer", wire)
    with pytest.raises(msgspec.ValidationError, match=r"picks\[0\]\.count"):
        msgspec.convert(wire, Answer)
