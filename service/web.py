"""The human faces of the service: chart images and one small HTML page.

Routes (all GET, all answered from the app's snapshot)::

    /v1/charts/perf-per-dollar.svg|.png       ?workload&as_of&currency&used&layout
    /v1/charts/relative-performance.svg|.png  ?workload&as_of&currency&used&layout
    /v1/charts/question.svg|.png              ?q=<free text, as /v1/ask>&layout

``layout=narrow`` draws a chart for a phone's width (the page asks for it on small screens).
    /                                         ?q&workload&vendor&min_memory&as_of   the page
    /static/...                               its CSS and a little JS

Chart bytes are cached per data version (catalog version + measurements version)
and parameters, and carry an ETag and Cache-Control; a bad parameter is a
problem+json 400 (malformed) or 422 (out of range) naming it. The page is a
Litestar template rendered with jinja2 (autoescaped); it works without JavaScript.
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.openapi.spec import OpenAPIFormat, OpenAPIType, Schema
from litestar.params import FromPath, FromQuery, QueryParameter
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.static_files import create_static_files_router
from litestar.template.config import TemplateConfig
from markupsafe import Markup

from rules.ask import ask
from rules.contract.answer import CardRow, Reply
from rules.contract.checks import as_of_refusal
from rules.contract.text import MAX_TEXT_CHARS, check_text
from rules.contract.values import CURRENCIES
from rules.errors import QuestionError
from rules.knowledge.messages import basis, say, term
from rules.render.figures import dated_text, memory_text, price_text, speed_per_money
from rules.render.short import deciding
from rules.understand.workloads import LISTED_WORKLOADS
from service.api import today
from service.api.docs import also_served_as, problems
from service.api.query import known_parameters_only
from service.charts import (
    FORMATS,
    KINDS,
    LAYOUTS,
    MEDIA_TYPES,
    ChartCache,
    ChartMeta,
    question_points,
    render_bars,
    render_question,
    split_workload,
)
from service.problems import ApiError, InvalidInput, NotFound
from service.settings import Settings
from service.snapshot import Snapshot

__all__ = ["ChartQuery", "chart_query", "markdown_html", "template_config", "web_routes"]

log = logging.getLogger("whichgpu.web")
TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent / "static"
CHART_WORKLOADS = LISTED_WORKLOADS
VENDORS = ("nvidia", "amd", "intel")
CACHE_CONTROL = "public, max-age=300"
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


# --- query parameters ----------------------------------------------------------------------


class MalformedParameter(ApiError):
    status, title, slug = 400, "Malformed query parameter", "malformed-parameter"


def _problem(cls: type[ApiError], name: str, message: str) -> ApiError:
    return cls(f"{name}: {message}", [{"field": name, "message": message}])


def _given(values: dict[str, str | None], allowed: tuple[str, ...]) -> dict[str, str]:
    """The typed parameters a request gave; one the chart does not take is refused by name."""
    given = {name: value for name, value in values.items() if value is not None}
    for name in given:
        if name not in allowed:
            raise _problem(InvalidInput, name, f"unknown parameter; expected: {', '.join(allowed)}")
    return given


# The chart's query parameters, as text: each is checked by the function that reads it (so a malformed
# date is a 400 and an unknown workload a 422, each naming the parameter), not by Litestar's conversion.
WorkloadParameter = Annotated[
    str | None, QueryParameter(description=f"One of {', '.join(CHART_WORKLOADS)} (default general)")
]
AsOfParameter = Annotated[str | None, QueryParameter(description="A date, YYYY-MM-DD (default today)")]
CurrencyParameter = Annotated[
    str | None, QueryParameter(description=f"One of {', '.join(CURRENCIES)}, any case (default USD)")
]
UsedParameter = Annotated[
    str | None, QueryParameter(description="Count used prices: true/false, yes/no, on/off, 1/0")
]
LayoutParameter = Annotated[
    str | None, QueryParameter(description=f"One of {', '.join(LAYOUTS)}: narrow draws for a phone's width")
]
QuestionParameter = Annotated[
    str | None,
    QueryParameter(
        description="The question in plain words, as POST /v1/ask takes it (the question chart only)"
    ),
]


def _as_of(text: str | None, now: date) -> date:
    if not text:
        return now
    try:
        value = date.fromisoformat(text)
    except ValueError:
        raise _problem(
            MalformedParameter, "as_of", f"not a date: {text[:40]!r} (use YYYY-MM-DD, e.g. 2019-04-03)"
        ) from None
    refusal = as_of_refusal(value, now)
    if refusal:
        raise _problem(InvalidInput, "as_of", refusal)
    return value


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise _problem(
            InvalidInput, name, f"unknown {name} {value[:40]!r}; expected one of: {', '.join(allowed)}"
        )
    return value


def _flag(name: str, value: str | None) -> bool:
    text = (value or "").strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise _problem(MalformedParameter, name, f"not true or false: {text[:20]!r}")


@dataclass(frozen=True)
class ChartQuery:
    """A bar chart's parameters, checked."""

    workload: str
    as_of: date
    currency: str
    used_ok: bool
    layout: str = "wide"

    def key(self) -> tuple:
        return (self.workload, self.as_of.isoformat(), self.currency, self.used_ok, self.layout)

    def url(self, kind: str, fmt: str = "svg", layout: str | None = None) -> str:
        params = {"workload": self.workload, "as_of": self.as_of.isoformat()}
        if self.currency != "USD":
            params["currency"] = self.currency
        if self.used_ok:
            params["used"] = "true"
        if (layout or self.layout) != "wide":
            params["layout"] = layout or self.layout
        return f"/v1/charts/{kind}.{fmt}?{urlencode(params)}"


def chart_query(params: dict[str, str], now: date) -> ChartQuery:
    """Check a bar chart's query: workload (default general), as_of (default today), currency, used."""
    workload = _choice("workload", params.get("workload") or "general", CHART_WORKLOADS)
    currency = _choice("currency", (params.get("currency") or "USD").upper(), CURRENCIES)
    return ChartQuery(
        workload,
        _as_of(params.get("as_of"), now),
        currency,
        _flag("used", params.get("used")),
        _choice("layout", params.get("layout") or "wide", LAYOUTS),
    )


# --- charts ----------------------------------------------------------------------------------


def _image(request: Request, cache: ChartCache, key: tuple, fmt: str, draw: Any) -> Response[bytes]:
    """Cached bytes for ``key`` (drawn by ``draw()`` on a miss) with ETag; 304 when the client has them."""
    etag = ChartCache.etag(key)
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL, "X-Content-Type-Options": "nosniff"}
    if etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(b"", status_code=304, headers=headers)
    data = cache.get(key)
    headers["X-Chart-Cache"] = "hit" if data is not None else "miss"
    if data is None:
        data = draw()
        cache.put(key, data)
    return Response(data, media_type=MEDIA_TYPES[fmt], headers=headers)


def _split_name(name: str) -> tuple[str, str]:
    stem, _, fmt = name.rpartition(".")
    if stem not in (*KINDS, "question") or fmt not in FORMATS:
        raise NotFound(
            f"no chart {name[:60]!r}; charts: {', '.join(f'{k}.svg|.png' for k in (*KINDS, 'question'))}",
            [{"field": "path", "message": "unknown chart"}],
        )
    return stem, fmt


def _bar_chart(
    request: Request, snapshot: Snapshot, cache: ChartCache, kind: str, fmt: str, params: dict[str, str]
) -> Response[bytes]:
    query = chart_query(params, today())
    key = (kind, fmt, snapshot.catalog_version, snapshot.measurements_version, *query.key())

    def draw() -> bytes:
        workload, task = split_workload(query.workload)
        rows = snapshot.advisor.card_rows(workload, query.as_of, query.currency, query.used_ok, task=task)
        meta = ChartMeta(
            query.workload,
            query.as_of,
            query.currency,
            query.used_ok,
            snapshot.advisor.reference.name,
            snapshot.catalog_version,
        )
        return render_bars(rows, kind, meta, fmt, layout=query.layout)

    return _image(request, cache, key, fmt, draw)


def _question_text(params: dict[str, str], required: bool = True) -> str:
    """``q`` with its spaces collapsed, checked as every face checks a question's text."""
    text = " ".join((params.get("q") or "").split())
    if not text and required:
        raise _problem(InvalidInput, "q", "ask a question, e.g. q=nlp $800")
    try:
        return check_text(text)
    except QuestionError:
        raise _problem(InvalidInput, "q", f"at most {MAX_TEXT_CHARS} characters") from None


def _answer(snapshot: Any, text: str, now: date) -> Reply:
    """The reply to ``text``; a value out of range is a 422 naming ``q``."""
    try:
        return ask(snapshot.advisor, text, today=now)
    except QuestionError as exc:
        raise InvalidInput(
            f"q: {exc.message}", [{"field": "q", "message": f"{exc.field}: {exc.message}"}]
        ) from None


def question_chart_points(advisor: Any, reply: Reply) -> list[dict[str, Any]]:
    """Every purchasable, priced card for the question's workload, marked by whether it holds the job."""
    answer, question = reply.recommendation, reply.question
    if answer is None or question is None:  # only an answer with candidates has a chart
        return []
    used = question.used_ok or any(p.unit_price.kind == "used" for p in answer.picks)
    rows = advisor.card_rows(
        answer.question.workload,
        date.fromisoformat(answer.as_of),
        question.currency,
        used,
        precision=question.precision or "16-bit",
        task=question.task,
    )
    catalog = advisor.catalog
    purchasable = [r for r in rows if catalog.gpu(r.gpu).purchasable]
    counts = {p.gpu: p.count for p in answer.picks}  # a pick may be several cards that pool memory
    fits = {
        r.gpu: advisor.memory.fit(
            question, answer.memory_need, r.memory_gb, counts.get(r.gpu, question.gpus)
        ).fits
        for r in purchasable
    }
    return question_points(purchasable, fits)


def _question_chart(
    request: Request, snapshot: Snapshot, cache: ChartCache, fmt: str, params: dict[str, str]
) -> Response[bytes]:
    text, layout = _question_text(params), _choice("layout", params.get("layout") or "wide", LAYOUTS)
    now = today()
    key = (
        "question",
        fmt,
        snapshot.catalog_version,
        snapshot.measurements_version,
        text,
        now.isoformat(),
        layout,
    )

    def draw() -> bytes:  # a bad question raises here, before anything is cached: a 422, never a broken image
        reply = _answer(snapshot, text, now)
        if reply.recommendation is None:
            raise _problem(InvalidInput, "q", "not a question with candidates to chart; try e.g. 'nlp $800'")
        return render_question(
            reply.recommendation,
            question_chart_points(snapshot.advisor, reply),
            text,
            fmt,
            reference_name=snapshot.advisor.reference.name,
            layout=layout,
        )

    return _image(request, cache, key, fmt, draw)


IMAGES = {
    "image/svg+xml": Schema(type=OpenAPIType.STRING),
    "image/png": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY),
}


@get(
    "/v1/charts/{name:str}",
    operation_id="getChart",
    summary="A chart as SVG or PNG",
    tags=("charts",),
    sync_to_thread=True,
    responses=problems(400, 404, 422),
    operation_class=also_served_as(IMAGES, json=False),
    guards=[known_parameters_only],
)
def chart(  # noqa: PLR0913  each query parameter is its own typed, bounded and documented argument
    request: Request,
    *,
    name: FromPath[str],
    snapshot: NamedDependency[Snapshot],
    charts: NamedDependency[ChartCache],
    workload: WorkloadParameter = None,
    as_of: AsOfParameter = None,
    currency: CurrencyParameter = None,
    used: UsedParameter = None,
    layout: LayoutParameter = None,
    q: QuestionParameter = None,
) -> Response[bytes]:
    """`perf-per-dollar` or `relative-performance` (query: workload, as_of, currency, used) — the top 25
    cards,
    measured and estimated told apart; or `question` (query: q, free text as /v1/ask) — the candidates as
    performance against price with the budget line and the picks. `.svg` or `.png`; cached, with an ETag."""
    kind, fmt = _split_name(name)
    values = {
        "workload": workload,
        "as_of": as_of,
        "currency": currency,
        "used": used,
        "layout": layout,
        "q": q,
    }
    if kind == "question":
        return _question_chart(request, snapshot, charts, fmt, _given(values, ("q", "layout")))
    return _bar_chart(
        request,
        snapshot,
        charts,
        kind,
        fmt,
        _given(values, ("workload", "as_of", "currency", "used", "layout")),
    )


# --- the page --------------------------------------------------------------------------------

_INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])_(.+?)_(?!\w)"), r"<em>\1</em>"),
]


def _inline(text: str) -> str:
    out = html.escape(text, quote=True)
    for pattern, replacement in _INLINE:
        out = pattern.sub(replacement, out)
    return out


def markdown_html(text: str) -> Markup:
    """The engine's small Markdown (bold, italic, code, ``-`` and ``1.`` lists, paragraphs) as safe HTML.

    Everything is escaped first; only the tags this function writes are HTML.
    """
    blocks: list[str] = []
    items: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if items:
            blocks.append("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
            items.clear()
        if paragraph:
            blocks.append("<p>" + "<br>".join(paragraph) + "</p>")
            paragraph.clear()

    for raw in str(text).splitlines():
        line = raw.strip()
        bullet = re.match(r"^(?:[-*•]|\d+\.)\s+(.*)$", line)
        if not line:
            flush()
        elif bullet:
            if paragraph:
                flush()
            items.append(_inline(bullet.group(1)))
        else:
            if items:
                flush()
            paragraph.append(_inline(line))
    flush()
    return Markup("\n".join(blocks))


def _register(engine: JinjaTemplateEngine) -> None:
    engine.engine.filters["markdown"] = markdown_html
    engine.engine.globals.update(
        urlencode=urlencode,
        say=say,
        term=term,
        basis=basis,
        dated_words=dated_text,
        price_text=price_text,
        speed_per_money=speed_per_money,
        memory_text=memory_text,
    )


def template_config() -> TemplateConfig:
    """The page's templates (jinja2, autoescaped). The app may pass this as ``template_config=``; the page
    does not need it, since it renders through its own instance of the same config."""
    return TemplateConfig(directory=TEMPLATE_DIR, engine=JinjaTemplateEngine, engine_callback=_register)


_templates = template_config()


@dataclass
class PageQuery:
    q: str
    workload: str | None
    vendor: str
    min_memory: float
    as_of: date


def _page_query(params: dict[str, str], now: date, errors: list[dict[str, str]]) -> PageQuery:
    """The page's filters; a bad one is reported on the page (and in the status) and falls back to default."""

    def checked(name: str, convert: Any, default: Any) -> Any:
        if not params.get(name):
            return default
        try:
            return convert(params[name])
        except ApiError as exc:
            errors.extend(exc.errors)
            return default

    def memory(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _problem(MalformedParameter, "min_memory", f"not a number: {text[:20]!r}") from None
        if not 0 <= value <= 4096:
            raise _problem(InvalidInput, "min_memory", "must be between 0 and 4096 GB")
        return value

    return PageQuery(
        q=checked("q", lambda _: _question_text(params, required=False), ""),
        workload=checked("workload", lambda v: _choice("workload", v, CHART_WORKLOADS), None),
        vendor=checked("vendor", lambda v: _choice("vendor", v.lower(), VENDORS), ""),
        min_memory=checked("min_memory", memory, 0.0),
        as_of=checked("as_of", lambda v: _as_of(v, now), now),
    )


def _benchmarks(database_url: str) -> tuple[list[dict[str, Any]], int, list[dict[str, Any]], str | None]:
    """The newest runs and the per-GPU aggregates as the public may see them: no agents, hosts, hardware."""
    try:
        from service.benchmarks import gpu_summary, public_view, query
        from service.db import session_scope

        with session_scope(database_url) as session:
            found = public_view(query(session, limit=20))
            summary = gpu_summary(session)
        return found["items"], found["total"], summary, None
    except Exception:  # the page still serves the advice when the database is down
        log.exception("could not read the benchmarks for the page")
        return [], 0, [], "The lab's benchmarks cannot be read right now."


def _catalog_rows(snapshot: Any, page: PageQuery, workload: str, currency: str) -> list[CardRow]:
    name, task = split_workload(workload)
    rows = snapshot.advisor.card_rows(name, page.as_of, currency, False, task=task)
    return [
        r for r in rows if (not page.vendor or r.vendor == page.vendor) and r.memory_gb >= page.min_memory
    ]


def _page_context(
    snapshot: Snapshot, database_url: str, page: PageQuery, errors: list[dict[str, str]], now: date
) -> dict[str, Any]:
    reply, question_error = None, None
    if page.q:
        try:
            reply = _answer(snapshot, page.q, now)
        except ApiError as exc:
            question_error = exc.errors[0]["message"]
    answer = reply.recommendation if reply else None
    workload = page.workload or (answer.workload if answer else "general")
    currency = answer.currency.code if answer else "USD"
    chart_as_of = date.fromisoformat(answer.as_of) if answer and not page.workload else page.as_of
    used = bool(answer and answer.question.used_ok)
    benchmarks, benchmark_total, benchmark_gpus, benchmark_error = _benchmarks(database_url)
    return {
        "q": page.q,
        "page": page,
        "errors": errors,
        "reply": reply,
        "answer": answer,
        "deciding": deciding(answer) if answer else [],  # the reasons shown first; all under Why?
        "question_error": question_error,
        "rulebook": snapshot.rulebook,
        "workload": workload,
        "workloads": CHART_WORKLOADS,
        "vendors": VENDORS,
        "rows": _catalog_rows(snapshot, page, workload, currency),
        "currency": currency,
        "reference": snapshot.advisor.reference,
        "catalog_version": snapshot.catalog_version,
        "chart_url": ChartQuery(workload, chart_as_of, currency, used).url("perf-per-dollar"),
        "narrow_chart_url": ChartQuery(workload, chart_as_of, currency, used).url(
            "perf-per-dollar", layout="narrow"
        ),
        "question_chart_url": f"/v1/charts/question.svg?{urlencode({'q': page.q})}" if answer else None,
        "narrow_question_chart_url": f"/v1/charts/question.svg?{urlencode({'q': page.q, 'layout': 'narrow'})}"
        if answer
        else None,
        "benchmarks": benchmarks,
        "benchmark_total": benchmark_total,
        "benchmark_gpus": benchmark_gpus,
        "benchmark_error": benchmark_error,
        "examples": (
            "nlp $800",
            "cv 2 gpus 3000",
            "fit llama 13b fp16",
            "as of 2019-04-03 kaggle $700",
            "rnn €900 used ok",
        ),
        "today": now,
    }


@get("/", include_in_schema=False, sync_to_thread=True)
def page(
    *,
    snapshot: NamedDependency[Snapshot],
    settings: NamedDependency[Settings],
    q: FromQuery[str | None] = None,
    workload: FromQuery[str | None] = None,
    vendor: FromQuery[str | None] = None,
    min_memory: FromQuery[str | None] = None,
    as_of: FromQuery[str | None] = None,
) -> Response[str]:
    """The page: ask a question, see the answer and its chart, browse the catalog, the rules and the lab's
    benchmarks.
    Its filters are checked on the page (a bad one is named there and left out), so they come as text;
    other parameters are ignored, as a page's links may carry them."""
    now = today()
    errors: list[dict[str, str]] = []
    given = {"q": q, "workload": workload, "vendor": vendor, "min_memory": min_memory, "as_of": as_of}
    query = _page_query({name: value for name, value in given.items() if value is not None}, now, errors)
    context = _page_context(snapshot, settings.resolved_database_url, query, errors, now)
    body = _templates.engine_instance.get_template("web/index.html.j2").render(**context)
    status = 422 if errors or context["question_error"] else 200
    return Response(
        body,
        status_code=status,
        media_type=MediaType.HTML,
        headers={
            "Content-Security-Policy": (
                "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'"
            ),
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-cache",
        },
    )


def web_routes() -> list[Any]:
    """What the app includes: the chart images, the page and its static files."""
    static = create_static_files_router(
        path="/static",
        directories=[STATIC_DIR],
        name="web-static",
        include_in_schema=False,
        cache_control=None,
    )
    return [chart, page, static]
