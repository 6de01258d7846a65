"""The chart endpoints over HTTP: images, caching with ETags, Slack URLs, problem+json for bad parameters."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date, timedelta
from urllib.parse import urlencode

import pytest

from rules.contract.text import MAX_TEXT_CHARS
from service.benchmarks import ingest
from service.charts import PNG_DPI
from service.db import session_scope
from tests.web.conftest import rtx_3090_run
from tests.web.test_web_charts import png_size, svg_texts

# A week ahead, not tomorrow: the date is taken when tests are collected, and a run that crosses
# midnight would otherwise ask about a day that has become today.
NEXT_WEEK = (date.today() + timedelta(days=7)).isoformat()


def problem(response, status: int, field: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and field in [e["field"] for e in body["errors"]], body
    return body


@pytest.mark.parametrize("kind", ["perf-per-dollar", "relative-performance"])
def test_bar_charts_come_as_svg_and_png(client, kind: str) -> None:
    svg = client.get(f"/v1/charts/{kind}.svg", params={"workload": "cnn", "as_of": "2020-06-01"})
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    ET.fromstring(svg.content)
    png = client.get(
        f"/v1/charts/{kind}.png",
        params={"workload": "cnn", "as_of": "2020-06-01", "currency": "eur", "used": "true"},
    )
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png_size(png.content)[0] == 10 * PNG_DPI


def test_the_slack_image_and_page_urls_work(client) -> None:
    """Exactly the URLs the bot builds: workload is the answer's workload key, as_of its date."""
    for workload in ("transformer", "llm_inference"):
        url = "/v1/charts/perf-per-dollar.png?" + urlencode(
            {"workload": workload, "as_of": date.today().isoformat()}
        )
        response = client.get(url)
        assert response.status_code == 200 and png_size(response.content)[0] == 10 * PNG_DPI
    page = client.get("/?" + urlencode({"q": "nlp $800"}))
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_defaults_are_general_today_usd(client) -> None:
    texts = " ".join(svg_texts(client.get("/v1/charts/perf-per-dollar.svg").content))
    assert "general" in texts and f"As of {date.today().isoformat()}" in texts and "per 1000 USD" in texts


def test_charts_are_cached_with_etag_and_cache_control(fresh_client) -> None:
    url = "/v1/charts/relative-performance.svg?workload=rnn&as_of=2021-01-01"
    first = fresh_client.get(url)
    second = fresh_client.get(url)
    assert first.headers["x-chart-cache"] == "miss" and second.headers["x-chart-cache"] == "hit"
    assert first.content == second.content
    assert first.headers["etag"] == second.headers["etag"] and first.headers["etag"].startswith('"')
    assert "max-age" in first.headers["cache-control"]
    again = fresh_client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and not again.content and again.headers["etag"] == first.headers["etag"]
    other = fresh_client.get(url.replace("rnn", "cnn"))
    assert other.headers["etag"] != first.headers["etag"]


def test_new_measurements_change_the_data_version_and_the_chart(fresh_client) -> None:
    url = "/v1/charts/relative-performance.svg?workload=cnn&as_of=" + date.today().isoformat()
    before = fresh_client.get(url)
    state = fresh_client.app.state["api"]
    with session_scope(state.database_url) as session:
        ingest(session, state.holder.get().catalog, "lab-agent", rtx_3090_run())
    state.holder.refresh()  # what the refresher thread does within a second
    after = fresh_client.get(url)
    assert after.headers["etag"] != before.headers["etag"] and after.headers["x-chart-cache"] == "miss"
    stale = fresh_client.get(url, headers={"If-None-Match": before.headers["etag"]})
    assert stale.status_code == 200  # an old ETag gets the new chart


def test_the_question_chart_shows_the_candidates_and_picks(client) -> None:
    response = client.get("/v1/charts/question.svg", params={"q": "as of 2019-04-03 kaggle $700"})
    assert response.status_code == 200
    texts = svg_texts(response.content)
    answer = client.post("/v1/ask", json={"text": "as of 2019-04-03 kaggle $700"}).json()["recommendation"]
    for rank, pick in enumerate(answer["picks"], 1):
        assert f"{rank}. {pick['name']}" in texts
    assert "budget 700 USD" in texts and "as of 2019-04-03 kaggle $700" in texts
    png = client.get("/v1/charts/question.png", params={"q": "nlp $800"})
    assert png.status_code == 200 and png_size(png.content) == (10 * PNG_DPI, round(6.2 * PNG_DPI))


def test_question_points_hold_priced_purchasable_cards_marked_by_fit(client) -> None:
    from rules.ask import ask
    from service.web import question_chart_points

    advisor = client.app.state["api"].holder.get().advisor
    reply = ask(advisor, "serve llama 13b fp16 as of 2023-06-01", today=date(2024, 1, 1))
    points = question_chart_points(advisor, reply)
    assert points and all(p["price"] > 0 for p in points)
    # serving a 13B model in 16-bit leaves small cards out
    assert {p["fits"] for p in points} == {
        True,
        False,
    }
    fitting = {p["gpu"] for p in points if p["fits"]}
    assert {pick.gpu for pick in reply.recommendation.picks} <= fitting
    assert all(advisor.catalog.gpu(p["gpu"]).purchasable for p in points)
    big = max(points, key=lambda p: advisor.catalog.gpu(p["gpu"]).memory_gb)
    assert big["fits"]


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ({"workload": "poetry"}, 422, "workload"),
        ({"currency": "XYZ"}, 422, "currency"),
        ({"as_of": "2019-13-01"}, 400, "as_of"),
        ({"as_of": "yesterday"}, 400, "as_of"),
        ({"as_of": "2009-12-31"}, 422, "as_of"),
        ({"as_of": NEXT_WEEK}, 422, "as_of"),
        ({"used": "maybe"}, 400, "used"),
        ({"colour": "red"}, 422, "colour"),
    ],
)
def test_bad_chart_parameters_are_problems_naming_them(client, query: dict, status: int, field: str) -> None:
    problem(client.get("/v1/charts/perf-per-dollar.png", params=query), status, field)


def test_a_repeated_parameter_is_refused(client) -> None:
    problem(client.get("/v1/charts/relative-performance.svg?workload=cnn&workload=rnn"), 422, "workload")


@pytest.mark.parametrize(
    "q", ["", "   ", "help", "x" * (MAX_TEXT_CHARS + 1), f"nlp $800 as of {NEXT_WEEK}", "nlp $800 40 gpus"]
)
def test_bad_questions_are_problems_naming_q(client, q: str) -> None:
    problem(client.get("/v1/charts/question.svg", params={"q": q}), 422, "q")


def test_an_unknown_chart_is_a_404_problem(client) -> None:
    problem(client.get("/v1/charts/pie.svg"), 404, "path")
    problem(client.get("/v1/charts/perf-per-dollar.gif"), 404, "path")


def test_the_chart_parameters_are_typed_and_documented(client) -> None:
    document = client.get("/schema/openapi.json").json()
    parameters = {p["name"]: p for p in document["paths"]["/v1/charts/{name}"]["get"]["parameters"]}
    assert {"workload", "as_of", "currency", "used", "layout", "q"} <= set(parameters)
    assert all(parameters[n]["in"] == "query" and parameters[n].get("description") for n in ("workload", "q"))
