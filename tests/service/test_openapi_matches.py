"""The OpenAPI document says what the service does: each status and content type a request gets is in it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.test_benchmarks import run_payload


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    from litestar.testing import TestClient

    from service.agents import add_agent
    from service.app import create_app
    from service.settings import Settings

    data = tmp_path_factory.mktemp("openapi")
    settings = Settings(data_dir=data, database_url=f"sqlite:///{data / 'whichgpu.db'}")
    with TestClient(create_app(settings)) as client:
        client.agent_token = add_agent(settings.resolved_database_url, "doc-node")
        client.openapi = client.get("/schema/openapi.json").json()
        yield client


def _responses(service, path: str, method: str) -> dict[str, Any]:
    return service.openapi["paths"][path][method]["responses"]


def _media(response) -> str:
    return response.headers["content-type"].split(";")[0].strip()


@pytest.mark.parametrize(
    ("template", "path"),
    [("/v1/charts/{name}", "/v1/charts/nope.svg"), ("/v1/schemas/{filename}", "/v1/schemas/nope.json")],
)
def test_unknown_charts_and_schemas_are_documented_404_problems(service, template: str, path: str) -> None:
    response = service.get(path)
    assert response.status_code == 404 and _media(response) == "application/problem+json"
    assert "application/problem+json" in _responses(service, template, "get")["404"]["content"]


def test_a_schema_is_served_and_documented_as_schema_json(service) -> None:
    response = service.get("/v1/schemas/benchmark-run.json")
    assert response.status_code == 200 and _media(response) == "application/schema+json"
    assert set(_responses(service, "/v1/schemas/{filename}", "get")["200"]["content"]) == {
        "application/schema+json"
    }


def test_a_chart_is_documented_as_the_image_it_is(service) -> None:
    response = service.get("/v1/charts/perf-per-dollar.svg")
    assert response.status_code == 200
    assert _media(response) in _responses(service, "/v1/charts/{name}", "get")["200"]["content"]


def test_a_benchmark_report_documents_created_already_stored_and_401(service) -> None:
    documented = _responses(service, "/v1/benchmarks", "post")
    payload, auth = run_payload(), {"Authorization": f"Bearer {service.agent_token}"}
    statuses = [service.post("/v1/benchmarks", json=payload, headers=auth).status_code for _ in range(2)]
    statuses.append(service.post("/v1/benchmarks", json=run_payload()).status_code)
    assert statuses == [201, 200, 401]
    assert {str(s) for s in statuses} <= set(documented)
    assert "already stored" in documented["200"]["description"].lower()


def test_chat_streaming_is_documented_as_an_event_stream(service) -> None:
    body = {"model": "whichgpu", "stream": True, "messages": [{"role": "user", "content": "nlp $800"}]}
    response = service.post("/v1/chat/completions", json=body)
    assert response.status_code == 200 and _media(response) == "text/event-stream"
    assert "text/event-stream" in _responses(service, "/v1/chat/completions", "post")["200"]["content"]


def test_options_on_benchmarks_lists_post(service) -> None:
    response = service.options("/v1/benchmarks")
    assert response.status_code == 204
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "OPTIONS", "POST"}
    assert {"get", "post"} <= set(service.openapi["paths"]["/v1/benchmarks"])
