"""The page shows the short answer and offers the full one under a "Why?" disclosure."""

from __future__ import annotations

import html
import re

import pytest


def _section(page: str, start: str, end: str) -> str:
    return page[page.index(start) : page.index(end, page.index(start))]


@pytest.mark.parametrize("question", ["nlp $800", "cv 2 gpus 3000", "нлп 80000 руб"])
def test_the_reasons_shown_first_are_few_and_why_holds_them_all(client, question) -> None:
    page = html.unescape(client.get("/", params={"q": question}).text)
    full = client.post("/v1/ask", json={"text": question, "detail": "full"}).json()["recommendation"]
    shown = _section(page, '<ul class="reasons">', "</ul>")
    why = _section(page, '<details class="why" id="why">', "</details>")
    assert 0 < shown.count("<li>") <= 5
    assert f'<p class="summary"><strong>{full["headline"]}</strong></p>' in page, "the first line answers"
    assert re.search(r"<summary>(Why|Почему)\?</summary>", why)
    findings = [*full["picks"][0]["rules"], *full["findings"]]
    for finding in findings:
        if finding["verdict"] in ("applied", "info"):
            assert finding["reason"] in why, finding
    for left_out in full["excluded"]:
        assert left_out["reason"] in why
    assert why.count("<li>") > shown.count("<li>")
