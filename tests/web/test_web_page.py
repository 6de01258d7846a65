"""The page at ``/``: with and without a question, its filters, rules, benchmarks, and escaping."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from rules.contract.text import MAX_TEXT_CHARS
from rules.knowledge.loaded import load_rulebook
from service.benchmarks import ingest
from service.db import session_scope
from service.web import markdown_html
from tests.web.conftest import rtx_3090_run


class Page(HTMLParser):
    """The bits of a page the tests look at: tags with attributes, and text per section id."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.sections: dict[str, str] = {}
        self._section: str | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attributes))
        if tag == "section":
            self._section = attributes.get("id")
            self.sections[self._section] = ""

    def handle_data(self, data: str) -> None:
        if self._section:
            self.sections[self._section] += data

    def srcs(self, tag: str = "img") -> list[str]:
        return [a.get("src", "") for t, a in self.tags if t == tag]


def catalog_names(page: Page) -> str:
    """The catalog table's body text (not the filters or the note above it)."""
    return page.sections["catalog"].split("Perf / 1000", 1)[1]


def test_every_catalog_price_says_how_old_it_is(client) -> None:
    """A price on the page names its kind and date, in the catalog table as in the picks (the table once
    showed the bare amount: its rows were plain dicts, where the price's date is named otherwise)."""
    rows = catalog_names(Page(client.get("/", params={"as_of": "2023-06-01"}).text))
    prices = re.findall(r"\d[\d,]* USD(?: \(([^()]*)\))?", rows)
    assert len(prices) > 20
    # a fresh price by its day; one older than the freshness window by its month and age
    aged = r"[A-Z][a-z]+ (\d{4}), \d+ months old"
    assert all(re.fullmatch(rf"[^,]+, (\d{{4}}-\d{{2}}-\d{{2}}|{aged})", said) for said in prices), prices[:5]
    days = [said.rpartition(", ")[2] for said in prices if not said.endswith("months old")]
    assert days and max(days) <= "2023-06-01"
    assert all(int(m) <= 2023 for said in prices for m in re.findall(aged, said))


def test_the_page_without_a_question(client) -> None:
    response = client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    html = response.text
    assert '<meta name="viewport"' in html and 'name="q"' in html and 'method="get"' in html
    page = Page(html)
    assert not [t for t, a in page.tags if a.get("id") == "answer"]
    assert any(src.startswith("/v1/charts/perf-per-dollar.svg?workload=general") for src in page.srcs())
    for rule in load_rulebook():
        assert f'id="rule-{rule.id}"' in html
    assert "No benchmarks measured yet" in page.sections["benchmarks"]
    assert "GeForce RTX 3090" in catalog_names(page)


def test_the_page_answers_a_question(client) -> None:
    response = client.get("/", params={"q": "nlp $800"})
    assert response.status_code == 200
    answer = client.post("/v1/ask", json={"text": "nlp $800"}).json()["recommendation"]
    page = Page(response.text)
    text = page.sections["ask"]
    assert answer["summary"].split(":")[0] in text
    for pick in answer["picks"]:
        assert pick["name"] in text
    for rule in {r["rule"] for r in answer["picks"][0]["rules"]}:
        assert f'href="#rule-{rule}"' in response.text
    if answer["rent_vs_buy"]:
        assert "Rent or buy" in text
    for warning in answer["warnings"]:
        assert warning["reason"] in text
    srcs = page.srcs()
    assert "/v1/charts/question.svg?q=nlp+%24800" in srcs
    assert any(
        s.startswith(f"/v1/charts/perf-per-dollar.svg?workload={answer['workload']}&as_of={answer['as_of']}")
        for s in srcs
    )
    for src in srcs:  # every chart the page shows is there to fetch
        assert client.get(src).status_code == 200


def test_help_and_clarifications_are_rendered_from_markdown(client) -> None:
    response = client.get("/", params={"q": "help"})
    assert response.status_code == 200
    assert "<strong>whichgpu</strong>" in response.text and "<code>nlp $800</code>" in response.text
    assert "question.svg" not in response.text


def test_a_question_with_a_bad_value_says_so_on_the_page(client) -> None:
    response = client.get("/", params={"q": "as of 2009 nlp $800"})
    assert response.status_code == 422
    assert "2010-01-01" in Page(response.text).sections["ask"]


def test_the_page_reads_a_question_up_to_the_one_text_limit(client) -> None:
    padded = "nlp $800 " + "please " * ((MAX_TEXT_CHARS - 9) // 7)  # over the page's former 500-character cut
    assert 500 < len(padded.strip()) <= MAX_TEXT_CHARS
    assert client.get("/", params={"q": padded}).status_code == 200
    response = client.get("/", params={"q": "nlp $800 " + "x" * MAX_TEXT_CHARS})
    assert response.status_code == 422 and f"at most {MAX_TEXT_CHARS} characters" in response.text


def test_everything_is_escaped(client) -> None:
    evil = '<script>alert("x")</script> nlp $800'
    response = client.get("/", params={"q": evil})
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;alert(" in response.text
    assert response.headers["content-security-policy"].startswith("default-src 'self'")


def test_catalog_filters_by_vendor_memory_and_date(client) -> None:
    amd = Page(client.get("/", params={"vendor": "amd"}).text)
    assert "Radeon" in catalog_names(amd) and "GeForce" not in catalog_names(amd)
    big = client.get("/", params={"min_memory": "48"}).text
    memories = [float(m) for m in re.findall(r'<td class="num">([\d.]+) GB</td>', big)]
    assert memories and min(memories) >= 48
    old = Page(client.get("/", params={"as_of": "2019-04-03", "workload": "cnn"}).text)
    assert "GeForce RTX 2080 Ti" in catalog_names(old) and "RTX 3090" not in catalog_names(old)
    assert "released by 2019-04-03" in old.sections["catalog"]


def test_bad_filters_are_named_on_the_page_and_ignored(client) -> None:
    response = client.get(
        "/", params={"vendor": "acme", "min_memory": "lots", "as_of": "2009-01-01", "workload": "poems"}
    )
    assert response.status_code == 422
    text = Page(response.text).sections["catalog"]
    for field in ("vendor", "min_memory", "as_of", "workload"):
        assert field in text
    assert "GeForce" in text  # the catalog still shows, unfiltered


def test_static_files_are_served(client) -> None:
    css = client.get("/static/web/site.css")
    assert css.status_code == 200 and "@media" in css.text
    assert client.get("/static/web/site.js").status_code == 200


def test_the_lab_benchmarks_show_once_stored(fresh_client) -> None:
    state = fresh_client.app.state["api"]
    with session_scope(state.database_url) as session:
        ingest(session, state.holder.get().catalog, "lab-agent", rtx_3090_run(host="gpu-box-7"))
    state.holder.refresh()  # what the refresher thread does within a second
    page = Page(fresh_client.get("/").text)
    text = page.sections["benchmarks"]
    assert "NVIDIA GeForce RTX 3090" in text and "matmul fp16" in text
    assert "gpu-box-7" not in text, "hosts are for the admin only"
    assert "No benchmarks measured yet" not in text
    assert "measured" in catalog_names(page)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "**bold** and _it_ and `code`",
            "<p><strong>bold</strong> and <em>it</em> and <code>code</code></p>",
        ),
        ("- one\n- two", "<ul><li>one</li><li>two</li></ul>"),
        ("<b>x</b> & y", "<p>&lt;b&gt;x&lt;/b&gt; &amp; y</p>"),
        ("**<img src=x onerror=alert(1)>**", "<p><strong>&lt;img src=x onerror=alert(1)&gt;</strong></p>"),
        ("snake_case_name stays", "<p>snake_case_name stays</p>"),
    ],
)
def test_markdown_is_small_and_safe(source: str, expected: str) -> None:
    assert str(markdown_html(source)) == expected


def test_a_rental_of_several_cards_says_how_many_on_the_page(client) -> None:
    """The hourly price of a multi-card rental is for all of them: the page says '4 × …' as other faces do."""
    answer = client.post("/v1/ask", json={"text": "cv 4 gpus 3000"}).json()["recommendation"]
    offer = answer["rent_vs_buy"]["offer"]
    assert offer["count"] == 4
    page = Page(client.get("/", params={"q": "cv 4 gpus 3000"}).text)
    assert f"4 × {offer['accelerator']}" in page.sections["ask"]
