"""Who measured where stays with the admin: the public sees runs without agents, hosts or hardware, and
aggregates per GPU.

On SQLite and PostgreSQL, through the real app: anonymous readers, a bench-agent
(write) token and a wrong admin token all get the public view; only the admin read
token sees agents, hosts, CPU, RAM and driver, and only it may filter by host.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.test_benchmarks import result, run_payload

ADMIN = "admin-read-token-for-the-lab"
PRIVATE = (
    "lab-host-secret-1",
    "lab-host-secret-2",
    "node-one",
    "node-two",
    "AMD EPYC",
    "550.54",
    "GPU-serial-42",
)


@pytest.fixture
def service(tmp_path, database_url: str):
    from litestar.testing import TestClient

    from service.agents import add_agent
    from service.app import create_app
    from service.settings import Settings

    settings = Settings(data_dir=tmp_path, database_url=database_url, admin_token=ADMIN)
    with TestClient(create_app(settings)) as client:
        client.agent_tokens = [add_agent(database_url, "node-one"), add_agent(database_url, "node-two")]
        for token, host, fp32 in zip(
            client.agent_tokens, ("lab-host-secret-1", "lab-host-secret-2"), (30.0, 32.0), strict=True
        ):
            payload = run_payload(
                host=host, results=[result("matmul", "fp32", fp32), result("triad", "fp32", 820.0)]
            )
            payload["device"]["uuid"] = "GPU-serial-42"
            response = client.post(
                "/v1/benchmarks", json=payload, headers={"Authorization": f"Bearer {token}"}
            )
            assert response.status_code == 201, response.text
        yield client


def _listing(service, token: str | None = None, **params: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = service.get("/v1/benchmarks", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("who", ["anonymous", "agent", "wrong-admin"])
def test_everyone_but_the_admin_sees_no_agent_host_or_hardware(service, who: str) -> None:
    token = {"anonymous": None, "agent": service.agent_tokens[0], "wrong-admin": ADMIN + "x"}[who]
    listing = _listing(service, token)
    assert listing["view"] == "public" and listing["total"] == 2
    text = service.get("/v1/benchmarks", headers={"Authorization": f"Bearer {token}"} if token else {}).text
    leaked = [word for word in PRIVATE if word in text]
    assert not leaked, f"{who} reads {leaked}"
    for item in listing["items"]:
        assert not {"agent", "host", "environ"} & set(item)
        assert item["device"]["name"] == "NVIDIA GeForce RTX 3090" and item["gpu_id"] == "rtx-3090"
        assert {(r["benchmark"], r["value"]) for r in item["results"]} <= {
            ("matmul", 30.0),
            ("matmul", 32.0),
            ("triad", 820.0),
        }


def test_the_public_sees_per_gpu_runs_hosts_and_medians(service) -> None:
    [gpu] = _listing(service)["gpus"]
    assert (gpu["gpu"], gpu["runs"], gpu["hosts"]) == ("rtx-3090", 2, 2)
    medians = {(m["benchmark"], m["precision"]): (m["value"], m["results"]) for m in gpu["medians"]}
    assert medians == {("matmul", "fp32"): (31.0, 2), ("triad", "fp32"): (820.0, 2)}


def test_the_admin_sees_agents_hosts_and_hardware(service) -> None:
    listing = _listing(service, ADMIN)
    assert listing["view"] == "admin"
    assert {(i["agent"], i["host"]) for i in listing["items"]} == {
        ("node-one", "lab-host-secret-1"),
        ("node-two", "lab-host-secret-2"),
    }
    item = listing["items"][0]
    assert (item["environ"]["cpu"], item["device"]["driver"], item["device"]["uuid"]) == (
        "AMD EPYC",
        "550.54",
        "GPU-serial-42",
    )
    [only] = _listing(service, ADMIN, host="lab-host-secret-2")["items"]
    assert only["agent"] == "node-two"


@pytest.mark.parametrize("who", ["anonymous", "agent"])
def test_filtering_by_host_needs_the_admin_token(service, who: str) -> None:
    headers = {"Authorization": f"Bearer {service.agent_tokens[0]}"} if who == "agent" else {}
    response = service.get("/v1/benchmarks", params={"host": "lab-host-secret-1"}, headers=headers)
    assert response.status_code == 401 and response.headers["content-type"].startswith(
        "application/problem+json"
    )
    assert "admin" in response.json()["detail"] and "lab-host-secret-1" not in response.text


def test_the_page_shows_aggregates_and_no_hosts(service) -> None:
    page = service.get("/")
    assert page.status_code == 200
    leaked = [word for word in PRIVATE if word in page.text]
    assert not leaked, f"the public page shows {leaked}"
    assert "rtx-3090" in page.text and "31" in page.text  # the median of 30 and 32 TFLOP/s
