"""GET /v1/gpus, /v1/gpus/{id}, /v1/rules, /v1/schemas, /healthz, /metrics and the OpenAPI docs."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from rules.contract import question, values
from rules.contract.text import MAX_TEXT_CHARS
from rules.knowledge.datafile import schema_names as data_schema_names
from rules.understand.workloads import LISTED_WORKLOADS
from service.api import inputs
from service.api.inputs import schema_errors
from tests.app_client import app_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("catalog")) as test_client:
        yield test_client


def problem(response, status: int, field: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert field in [e["field"] for e in response.json()["errors"]]


def gpus(client, **params) -> dict:
    response = client.get("/v1/gpus", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert schema_errors("gpu-list", body) == []
    return body


def test_list_pages_with_a_stable_total(client):
    first, second = gpus(client, limit=5), gpus(client, limit=5, offset=5)
    assert first["total"] == second["total"] > 10
    assert len(first["items"]) == 5 and not {g["id"] for g in first["items"]} & {
        g["id"] for g in second["items"]
    }


def test_filters(client):
    body = gpus(client, vendor="AMD", min_memory_gb=16, max_price=1500, as_of="2023-06-01", limit=200)
    assert body["items"]
    for item in body["items"]:
        assert item["vendor"] == "amd" and item["memory_gb"] >= 16
        assert item["price"]["amount"] <= 1500 and item["released"] <= "2023-06-01"


def test_as_of_hides_later_cards(client):
    ids = {g["id"] for g in gpus(client, as_of="2019-01-01", limit=200)["items"]}
    assert "rtx-2080-ti" in ids and "rtx-3090" not in ids


def test_workload_adds_performance_sorted_fastest_first(client):
    items = gpus(client, workload="rnn", as_of="2023-06-01", limit=50)["items"]
    assert all("relative_performance" in g and g["performance_basis"] == "estimated" for g in items)
    speeds = [g["relative_performance"] for g in items]
    assert speeds == sorted(speeds, reverse=True)
    assert "relative_performance" not in gpus(client, limit=1)["items"][0]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"limit": 0}, "limit"),
        ({"limit": 500}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"min_memory_gb": "lots"}, "min_memory_gb"),
        ({"max_price": -3}, "max_price"),
        ({"workload": "astro"}, "workload"),
        ({"as_of": "2001-01-01"}, "as_of"),
        ({"as_of": (date.today() + timedelta(days=9)).isoformat()}, "as_of"),
        ({"currency": "ZZZ"}, "currency"),
        ({"colour": "red"}, "colour"),
        ({"offset": "9" * 30}, "offset"),
        ({"min_memory_gb": "1e999"}, "min_memory_gb"),
        ({"used_ok": "maybe"}, "used_ok"),
    ],
)
def test_bad_query_is_422(client, params, field):
    problem(client.get("/v1/gpus", params=params), 422, field)


def test_a_repeated_query_parameter_is_422(client):
    problem(client.get("/v1/gpus?limit=5&limit=6"), 422, "limit")


def test_query_parameters_are_documented_with_their_ranges(client):
    listed = client.get("/schema/openapi.json").json()["paths"]["/v1/gpus"]["get"]["parameters"]
    limit = next(p for p in listed if p["name"] == "limit")["schema"]
    assert (limit["minimum"], limit["maximum"]) == (1, 200)
    assert {
        "vendor",
        "min_memory_gb",
        "max_price",
        "currency",
        "used_ok",
        "as_of",
        "workload",
        "limit",
        "offset",
    } == {p["name"] for p in listed if p["in"] == "query"}


def test_gpu_detail_has_price_history_and_basis(client):
    response = client.get("/v1/gpus/rtx-3090")
    assert response.status_code == 200
    gpu = response.json()
    assert schema_errors("gpu", gpu) == []
    assert gpu["prices"] and gpu["performance"]["basis"] == "estimated"
    assert set(gpu["performance"]["relative"]) == set(values.WORKLOADS)
    assert client.get("/v1/gpus/RTX%203090").json()["id"] == "rtx-3090"


def test_entries_say_whether_they_fit_a_desk(client):
    rows = {g["id"]: g for g in gpus(client, limit=200)["items"]}
    assert (
        rows["rtx-3090"]["form_factor"],
        rows["rtx-3090"]["availability"],
        rows["rtx-3090"]["desktop"],
    ) == ("pcie", "retail", True)
    assert rows["h100-sxm"]["desktop"] is False and rows["h100-sxm"]["availability"] == "server"
    spark = client.get("/v1/gpus/dgx spark").json()
    assert schema_errors("gpu", spark) == []
    assert (
        spark["id"],
        spark["form_factor"],
        spark["unified_memory"],
        spark["desktop"],
        spark["server_only"],
    ) == ("dgx-spark", "system", True, True, False)
    assert client.get("/v1/gpus/l40s").json()["server_only"] is True


def test_unknown_gpu_is_404(client):
    problem(client.get("/v1/gpus/voodoo-5"), 404, "gpu_id")


def test_rules(client):
    body = client.get("/v1/rules").json()
    assert schema_errors("rule-list", body) == []
    assert "workload-priorities" in {r["id"] for r in body["rules"]}


def test_schemas_published_include_api_data_and_agent(client):
    names = {s["name"] for s in client.get("/v1/schemas").json()["schemas"]}
    assert {"recommendation-request", "answer", "ask-request", "problem", "benchmark-run"} <= names
    assert set(data_schema_names()) <= names
    response = client.get("/v1/schemas/answer.json")
    assert response.status_code == 200 and response.json()["title"] == "Answer"
    problem(client.get("/v1/schemas/nope.json"), 404, "name")
    problem(client.get("/v1/schemas/answer"), 404, "name")


def test_request_schema_enums_match_the_engine():
    # generated: msgspec lists a Literal's values sorted
    props = inputs.schema("recommendation-request")["properties"]
    assert props["workload"]["enum"] == sorted(values.WORKLOADS)
    assert props["precision"]["enum"] == [*sorted(values.PRECISIONS), None]
    assert props["method"]["enum"] == [*sorted(values.METHODS), None]
    assert props["task"]["enum"] == sorted(values.TASKS)
    assert set(props) - {"intent", "detail"} == set(question.Question.__dataclass_fields__)  # how it is asked
    listed = inputs.schema("gpu-query")["properties"]["workload"]["enum"]
    assert listed == [*sorted(LISTED_WORKLOADS), None]  # the question's workloads and LLM serving


def test_healthz(client):
    body = client.get("/healthz").json()
    assert schema_errors("health", body) == []
    assert body["status"] == "ok" and body["database"] == "ok" and len(body["catalog_version"]) >= 8


def test_metrics_by_route_template(client):
    client.get("/v1/gpus/rtx-3090")
    text = client.get("/metrics").text
    assert 'whichgpu_http_requests_total{method="GET",route="/v1/gpus/{gpu_id}",status="200"}' in text
    assert "whichgpu_http_request_duration_seconds_bucket" in text


def test_openapi_describes_every_endpoint_with_examples(client):
    doc = client.get("/schema/openapi.json").json()
    paths = doc["paths"]
    for path in (
        "/v1/recommendations",
        "/v1/ask",
        "/v1/chat/completions",
        "/v1/models",
        "/v1/gpus",
        "/v1/gpus/{gpu_id}",
        "/v1/rules",
        "/v1/schemas",
        "/v1/schemas/{filename}",
        "/healthz",
        "/metrics",
        "/v1/benchmarks",
    ):
        assert path in paths, path
    recommend = paths["/v1/recommendations"]["post"]
    assert recommend["requestBody"]["content"]["application/json"]["schema"]["examples"]
    answer = recommend["responses"]["200"]["content"]["application/json"]
    # a live answer (Litestar drops its null members)
    example = next(iter(answer["examples"].values()))["value"]
    assert example["verdict"] == "buy" and example["picks"][0]["rules"]
    assert "application/problem+json" in recommend["responses"]["422"]["content"]
    ask = paths["/v1/ask"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "ask-request.json" in ask["description"]
    body = doc["components"]["schemas"][ask["allOf"][0]["$ref"].rpartition("/")[2]]
    assert body["properties"]["text"]["maxLength"] == MAX_TEXT_CHARS
