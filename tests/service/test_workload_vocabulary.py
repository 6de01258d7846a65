"""One workload vocabulary: the page, `GET /v1/gpus`, the charts, `catalog` and `chart` offer and take the
same names, and a parameter may be any words the question reader maps to a workload."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.contract.values import WORKLOADS
from rules.errors import QuestionError
from rules.understand import parse
from rules.understand.workloads import LISTED_WORKLOADS, workload_named
from tests.app_client import app_client

VOCABULARY = json.loads((Path(__file__).resolve().parents[2] / "rules/data/vocabulary.json").read_text())
WORKLOAD_WORDS = [
    (word, concept["set"]["workload"])
    for concept in VOCABULARY["concepts"]
    if set(concept["set"]) == {"workload"}
    for word in concept["words"]
    if "*" not in word
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("vocabulary")) as client:
        yield client


def test_the_list_is_the_questions_workloads_and_llm_serving():
    assert LISTED_WORKLOADS[: len(WORKLOADS)] == WORKLOADS
    assert {"image-generation", "speech", "llm_inference"} <= set(LISTED_WORKLOADS)


@pytest.mark.parametrize(("word", "workload"), WORKLOAD_WORDS)
def test_every_word_the_reader_knows_names_its_workload(word, workload):
    assert workload_named(word) == workload == parse(word).question.workload


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_listed_workload_or_a_clear_refusal(text):
    try:
        assert workload_named(text) in LISTED_WORKLOADS
    except QuestionError as exc:
        assert exc.field == "workload" and "llm_inference" in exc.message


def test_the_page_offers_exactly_the_list(client):
    page = client.get("/").text
    select = page.split('<select name="workload">', 1)[1].split("</select>", 1)[0]
    assert tuple(re.findall(r'<option value="([^"]+)"', select)) == LISTED_WORKLOADS


@pytest.mark.parametrize("workload", LISTED_WORKLOADS)
def test_every_listed_workload_is_taken_by_the_api_the_page_and_the_chart(client, workload):
    listed = client.get("/v1/gpus", params={"workload": workload, "limit": 3})
    assert listed.status_code == 200, listed.text
    assert listed.json()["workload"] == workload and "relative_performance" in listed.json()["items"][0]
    assert client.get("/", params={"workload": workload}).status_code == 200
    chart = client.get("/v1/charts/relative-performance.svg", params={"workload": workload})
    assert chart.status_code == 200 and chart.text.lstrip().startswith("<")


def test_llm_serving_ranks_by_the_decode_model_not_by_training(client):
    serving = client.get("/v1/gpus", params={"workload": "llm_inference", "as_of": "2024-06-01"}).json()
    training = client.get("/v1/gpus", params={"workload": "llm", "as_of": "2024-06-01"}).json()
    assert [r["id"] for r in serving["items"]] != [r["id"] for r in training["items"]]
