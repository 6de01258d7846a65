"""POST /v1/recommendations: answers valid against the published schema, every bad input a problem."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from service.api.inputs import schema_errors
from tests.app_client import app_client

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("api"), max_body_bytes=4096) as test_client:
        yield test_client


def problem(response, status: int, field: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert schema_errors("problem", body) == []
    assert body["status"] == status and body["instance"]
    assert field in [e["field"] for e in body["errors"]], body
    return body


def test_answer_matches_the_published_schema(client):
    response = client.post(
        "/v1/recommendations", json={"workload": "transformer", "budget": 800, "as_of": "2023-06-01"}
    )
    assert response.status_code == 200
    answer = response.json()
    assert schema_errors("answer", answer) == []
    assert answer["verdict"] == "buy" and answer["picks"]
    assert answer["picks"][0]["total_price"]["usd"] <= 800
    assert answer["as_of"] == "2023-06-01"


def test_empty_question_uses_defaults(client):
    response = client.post("/v1/recommendations", json={})
    assert response.status_code == 200
    assert response.json()["question"]["workload"] == "general"


def test_compare_intent(client):
    response = client.post(
        "/v1/recommendations", json={"intent": "compare", "compare": ["3090", "4090"], "as_of": "2023-06-01"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["verdict"] == "compare" and {p["gpu"] for p in body["picks"]} == {"rtx-3090", "rtx-4090"}


def test_lowercase_currency_is_accepted(client):
    response = client.post(
        "/v1/recommendations", json={"budget": 700, "currency": "eur", "as_of": "2023-06-01"}
    )
    assert response.status_code == 200
    assert response.json()["currency"]["code"] == "EUR"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"budget": -5}, "budget"),
        ({"budget": 0}, "budget"),
        ({"budget": 1e12}, "budget"),
        ({"budget": "800"}, "budget"),
        ({"workload": "astrology"}, "workload"),
        ({"currency": "XYZ"}, "currency"),
        ({"currency": "dollars"}, "currency"),
        ({"gpus": 0}, "gpus"),
        ({"gpus": 2.5}, "gpus"),
        ({"gpus": 2.0}, "gpus"),  # a whole number to JSON Schema, not to the type the handler reads
        ({"gpus": True}, "gpus"),
        ({"as_of": "2009-12-31"}, "as_of"),
        ({"as_of": (date.today() + timedelta(days=3)).isoformat()}, "as_of"),
        ({"as_of": "2023-02-30"}, "as_of"),
        ({"as_of": "yesterday"}, "as_of"),
        ({"used_ok": "yes"}, "used_ok"),
        ({"compare": ["a"] * 7}, "compare"),
        ({"colour": "red"}, "colour"),
        ({"intent": "guess"}, "intent"),
        ({"budget": 200_000_000, "currency": "USD"}, "budget"),
    ],
)
def test_bad_values_are_422_naming_the_field(client, body, field):
    problem(client.post("/v1/recommendations", json=body), 422, field)


def test_not_an_object_is_422(client):
    problem(client.post("/v1/recommendations", json=[1, 2]), 422, "body")


def test_malformed_json_is_400(client):
    body = problem(
        client.post(
            "/v1/recommendations", content=b'{"budget": 8', headers={"content-type": "application/json"}
        ),
        400,
        "body",
    )
    assert "not valid JSON" in body["detail"]


def test_wrong_content_type_is_415(client):
    problem(
        client.post(
            "/v1/recommendations",
            content=b"budget=800",
            headers={"content-type": "application/x-www-form-urlencoded"},
        ),
        415,
        "content-type",
    )


def test_body_over_the_limit_is_413(client):
    problem(client.post("/v1/recommendations", json={"model": "x" * 5000}), 413, "body")


def test_unknown_route_and_wrong_method_are_problems(client):
    problem(client.get("/v1/nothing-here"), 404, "path")
    body = problem(client.get("/v1/recommendations"), 405, "method")
    assert body["title"] == "Method not allowed"


def test_recommendations_are_counted_by_workload(client):
    client.post("/v1/recommendations", json={"workload": "rnn"})
    metrics = client.get("/metrics").text
    assert 'whichgpu_recommendations_total{face="recommendations",workload="rnn"}' in metrics
    assert 'route="/v1/recommendations"' in metrics
