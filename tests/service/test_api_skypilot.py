"""POST /v1/ask with "skypilot": the rent path of a priced training run as a SkyPilot task, read back by
SkyPilot's own parser; a question without a run is refused with a problem naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app_client import app_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("skypilot")) as client:
        yield client


def test_a_training_run_comes_with_its_skypilot_task(client, tmp_path: Path) -> None:
    import sky

    response = client.post("/v1/ask", json={"text": "pretrain a 1b model on 20b tokens", "skypilot": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["recommendation"]["job_cost"]["tokens_b"] == 20
    path = tmp_path / "task.yaml"
    path.write_text(body["skypilot_task"], encoding="utf-8")
    resources = list(sky.Task.from_yaml(str(path)).resources)
    assert resources and all(r.accelerators for r in resources)
    plain = client.post("/v1/ask", json={"text": "pretrain a 1b model on 20b tokens"}).json()
    assert "skypilot_task" not in plain


def test_a_question_without_a_run_is_refused_by_name(client) -> None:
    response = client.post("/v1/ask", json={"text": "nlp $800", "skypilot": True})
    assert response.status_code == 422
    problem = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    assert problem["errors"][0]["field"] == "skypilot" and "training run" in problem["detail"]
