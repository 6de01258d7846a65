"""Charts drawn on the server with matplotlib: what the web page, Slack and the CLI show.

Three charts, each from the advisor's own numbers (``Advisor.card_rows`` and a
typed :class:`~rules.answer.Answer`), never from a second calculation:

- ``perf-per-dollar``: relative performance per 1000 units of the currency, the
  chart people remember from Tim Dettmers' posts; cards without a known price by
  ``as_of`` are left out.
- ``relative-performance``: performance relative to the reference card.
- the question chart: one answer's candidates as performance against price, the
  budget line and the picks marked.

Each bar chart keeps the top :data:`TOP` cards, sorted, measured cards drawn solid
and estimated ones hatched, with a caption naming the as-of date, the price dates
and the reference card. Drawing uses :class:`matplotlib.figure.Figure` directly
(no pyplot, no global figure registry) under one lock, since matplotlib's text
and font caches are not safe across threads. :class:`ChartCache` keeps rendered
bytes keyed by the data version and the parameters.
"""

from __future__ import annotations

import hashlib
import io
import math
import textwrap
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator

from rules.contract.answer import Answer, CardRow, Pick

__all__ = [
    "FORMATS",
    "KINDS",
    "LAYOUTS",
    "MEDIA_TYPES",
    "TOP",
    "ChartCache",
    "ChartMeta",
    "bar_rows",
    "question_points",
    "render_bars",
    "render_question",
    "write_chart",
]

KINDS = ("perf-per-dollar", "relative-performance")
FORMATS = ("svg", "png")
MEDIA_TYPES = {"svg": "image/svg+xml", "png": "image/png"}
TOP = 20  # the seed's charts show about twenty cards; more bars cost drawing time, not insight
PNG_DPI = 72  # 720 px wide: what Slack shows an image block at

MEASURED_COLOR = "#1b7f3b"
ESTIMATED_COLOR = "#7fb3d5"
REFERENCE_COLOR = "#d35400"
ESTIMATED_HATCH = "//"
PICK_COLOR = "#c0392b"
OTHER_COLOR = "#5d6d7e"
UNFIT_COLOR = "#bfc5cc"
RC: dict[Any, Any] = {
    "svg.hashsalt": "whichgpu",  # stable element ids: the same chart gives the same bytes
    # text stays text: 3× faster to draw, smaller, selectable; DejaVu Sans falls back to sans-serif
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",  # ships with matplotlib; has Cyrillic and ×
    "font.size": 10,
    "text.hinting": "no_hinting",
    "axes.spines.top": False,
    "axes.spines.right": False,
}

LAYOUTS = ("wide", "narrow")
NARROW_WIDTH = 3.9  # inches: about 375 CSS px, the width of a phone screen, so text is drawn at its own size
NARROW_TOP = 10
NARROW_WRAP = 54  # caption characters per line in the narrow layout
# points from a pick's centre
RANK_OFFSETS = (
    (15, 0),
    (-15, 0),
    (0, 14),
    (0, -14),
    (12, 12),
    (-12, 12),
    (12, -12),
    (-12, -12),
)

_draw_lock = threading.Lock()


@dataclass(frozen=True)
class ChartMeta:
    """What a bar chart's title and caption say about its data."""

    workload: str
    as_of: date
    currency: str
    used_ok: bool
    reference_name: str
    catalog_version: str


def _plain(text: str) -> str:
    """Text safe for matplotlib: a ``$`` would start mathtext."""
    return str(text).replace("$", r"\$")


# --- data ----------------------------------------------------------------------------------


def bar_value(row: CardRow, kind: str) -> float:
    """The figure a bar shows: performance per 1000 for ``perf-per-dollar`` (a row without a price has no bar
    there), relative performance for ``relative-performance``."""
    return (row.performance_per_1000 or 0.0) if kind == "perf-per-dollar" else row.relative_performance


def bar_rows(rows: Iterable[CardRow], kind: str, top: int = TOP) -> list[CardRow]:
    """The cards a bar chart shows, best first: priced cards by performance per 1000 for
    ``perf-per-dollar``, every card by relative performance for ``relative-performance``."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of: {', '.join(KINDS)}")
    chosen = [r for r in rows if kind == "relative-performance" or r.performance_per_1000 is not None]
    chosen.sort(key=lambda r: (-bar_value(r, kind), r.gpu))
    return chosen[:top]


def _price_dates(rows: Iterable[CardRow]) -> tuple[str, str] | None:
    dates = sorted(r.price.seen for r in rows if r.price and r.price.seen)
    return (dates[0], dates[-1]) if dates else None


def _caption(kind: str, shown: list[CardRow], meta: ChartMeta, total: int) -> str:
    measured = sum(r.performance_basis == "measured" for r in shown)
    lines = [
        f"As of {meta.as_of.isoformat()} (cards released and prices known by then). "
        f"Performance for {meta.workload} at 16-bit, relative to the {meta.reference_name} (= 1.0);",
        f"{measured} of {len(shown)} cards shown measured in the lab, the rest estimated from specs.",
    ]
    if kind == "perf-per-dollar":
        span = _price_dates(shown)
        kinds = sorted({r.price.kind for r in shown if r.price and r.price.kind})
        when = (
            f"price dates {span[0]} to {span[1]}"
            if span and span[0] != span[1]
            else f"price date {span[0]}"
            if span
            else "no price dates"
        )
        lines.append(
            f"Best known {' or '.join(kinds) or 'new'} price per card in {meta.currency}, {when}; "
            f"top {len(shown)} of {total} priced cards. Catalog {meta.catalog_version}."
        )
    else:
        lines[-1] += f" Top {len(shown)} of {total} released cards. Catalog {meta.catalog_version}."
    return "\n".join(_plain(line) for line in lines)


# --- drawing -------------------------------------------------------------------------------


def _margins(
    figure: Figure, width: float, height: float, *, left: float, bottom: float, top: float, right: float
) -> None:
    """Fixed margins in inches (a layout engine would cost a second draw per chart)."""
    figure.subplots_adjust(
        left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height
    )


def _save(figure: Figure, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "svg":
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    elif fmt == "png":
        figure.savefig(
            buffer, format="png", dpi=PNG_DPI, metadata={"Software": None}, pil_kwargs={"compress_level": 1}
        )
    else:
        raise ValueError(f"unknown image format {fmt!r}; expected svg or png")
    return buffer.getvalue()


def _bar_label(row: CardRow, kind: str) -> str:
    if kind == "perf-per-dollar" and row.price is not None:
        return f"{bar_value(row, kind):.2f} · {row.price.amount:,.0f} {row.price.currency} {row.price.kind}"
    return f"{row.relative_performance:.2f}×"


def _bar_title(kind: str, meta: ChartMeta) -> str:
    if kind == "perf-per-dollar":
        used = " (used prices allowed)" if meta.used_ok else ""
        return f"Performance per 1000 {meta.currency}{used} — {meta.workload}"
    return f"Relative performance — {meta.workload}"


def _bar_legend(axes: Any, **where: Any) -> None:
    axes.legend(
        handles=[
            Patch(facecolor=MEASURED_COLOR, edgecolor="#34495e", label="measured in the lab"),
            Patch(
                facecolor=ESTIMATED_COLOR,
                edgecolor="#34495e",
                hatch=ESTIMATED_HATCH,
                label="estimated from specs",
            ),
        ],
        frameon=False,
        **where,
    )


def _bars(
    axes: Any, shown: list[CardRow], values: list[float], positions: Sequence[float], height: float = 0.8
) -> None:
    """Measured cards solid, estimated ones hatched."""
    colors = [MEASURED_COLOR if r.performance_basis == "measured" else ESTIMATED_COLOR for r in shown]
    bars = axes.barh(positions, values, height=height, color=colors, edgecolor="#34495e", linewidth=0.6)
    for bar, row in zip(bars, shown, strict=True):
        bar.set_hatch("" if row.performance_basis == "measured" else ESTIMATED_HATCH)


def render_bars(
    rows: Iterable[CardRow],
    kind: str,
    meta: ChartMeta,
    fmt: str = "svg",
    top: int = TOP,
    layout: str = "wide",
) -> bytes:
    """A sorted horizontal bar chart of ``card_rows`` output, as SVG or PNG bytes; ``narrow`` is drawn
    for a phone's width (fewer cards, names above their bars)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown chart layout {layout!r}; expected one of: {', '.join(LAYOUTS)}")
    top = min(top, NARROW_TOP) if layout == "narrow" else top
    ranked = bar_rows(rows, kind, top=10**6)
    shown, total = ranked[:top], len(ranked)
    # the unit everything is read against stays
    shown += [r for r in ranked[top:] if r.name == meta.reference_name]
    draw = _narrow_bars if layout == "narrow" else _wide_bars
    with _draw_lock, matplotlib.rc_context(RC):
        figure = draw(shown, [bar_value(r, kind) for r in shown], kind, meta)
        caption = _caption(kind, shown, meta, total)
        if layout == "narrow":
            caption = "\n".join(textwrap.fill(line, NARROW_WRAP) for line in caption.split("\n"))
        figure.text(
            0.02,
            0.005,
            caption,
            fontsize=8.5 if layout == "narrow" else 7.5,
            color="#444444",
            va="bottom",
            ha="left",
        )
        if not shown:
            figure.axes[0].text(
                0.5,
                0.5,
                "no priced cards by this date"
                if kind == "perf-per-dollar"
                else "no cards released by this date",
                transform=figure.axes[0].transAxes,
                ha="center",
                va="center",
                color=OTHER_COLOR,
            )
        return _save(figure, fmt)


def _wide_bars(shown: list[CardRow], values: list[float], kind: str, meta: ChartMeta) -> Figure:
    """Names as tick labels on the left, value and price at each bar's end: for a desktop page and Slack."""
    height = 2.2 + 0.32 * max(len(shown), 3)
    figure = Figure(figsize=(10, height))
    axes = figure.add_subplot()
    names = [_plain(f"{r.name}{'  (reference)' if r.name == meta.reference_name else ''}") for r in shown]
    positions = list(range(len(shown)))[::-1]  # best at the top
    _bars(axes, shown, values, positions)
    axes.set_yticks(positions, names)
    for tick, row in zip(axes.get_yticklabels(), shown, strict=True):
        if row.name == meta.reference_name:
            tick.set_color(REFERENCE_COLOR)
            tick.set_fontweight("bold")
    top_value = max(values, default=1.0) or 1.0
    for position, row, value in zip(positions, shown, values, strict=True):
        axes.text(value + top_value * 0.01, position, _plain(_bar_label(row, kind)), va="center", fontsize=8)
    axes.set_xlim(0, top_value * (1.45 if kind == "perf-per-dollar" else 1.15))
    if kind == "relative-performance":
        axes.axvline(1.0, color=REFERENCE_COLOR, linestyle="--", linewidth=1)
    axes.set_xlabel(
        _plain(
            f"relative performance per 1000 {meta.currency}"
            if kind == "perf-per-dollar"
            else f"relative performance ({meta.reference_name} = 1.0)"
        )
    )
    axes.set_title(_plain(_bar_title(kind, meta)), loc="left", fontsize=13, fontweight="bold")
    _bar_legend(axes, loc="lower right", fontsize=8)
    _margins(
        figure,
        10,
        height,
        left=0.25 + 0.075 * max((len(n) for n in names), default=10),
        bottom=1.15,
        top=0.45,
        right=0.25,
    )
    return figure


def _narrow_bars(shown: list[CardRow], values: list[float], kind: str, meta: ChartMeta) -> Figure:
    """Each card's name and figures on a line above its bar, bars the full width: readable on a phone."""
    rows = max(len(shown), 3)
    height = 2.75 + 0.46 * rows
    figure = Figure(figsize=(NARROW_WIDTH, height))
    axes = figure.add_subplot()
    positions = [float(i) for i in range(len(shown))][::-1]
    _bars(axes, shown, values, positions, height=0.42)
    top_value = max(values, default=1.0) or 1.0
    for position, row in zip(positions, shown, strict=True):
        reference = row.name == meta.reference_name
        axes.text(
            0,
            position + 0.26,
            _plain(f"{row.name}{' (reference)' if reference else ''} · {_bar_label(row, kind)}"),
            va="bottom",
            ha="left",
            fontsize=9,
            color=REFERENCE_COLOR if reference else "#1c2833",
            fontweight="bold" if reference else "normal",
        )
    axes.set_yticks([])
    axes.set_ylim(-0.5, rows - 0.2 if shown else 2.5)
    axes.set_xlim(0, top_value * 1.05)
    axes.xaxis.set_major_locator(MaxNLocator(4))
    axes.tick_params(labelsize=9)
    axes.spines["left"].set_visible(False)
    if kind == "relative-performance":
        axes.axvline(1.0, color=REFERENCE_COLOR, linestyle="--", linewidth=1)
    axes.set_xlabel(
        _plain(f"per 1000 {meta.currency}" if kind == "perf-per-dollar" else f"× {meta.reference_name}"),
        fontsize=9,
    )
    axes.set_title(
        _plain(textwrap.fill(_bar_title(kind, meta), 34)), loc="left", fontsize=11, fontweight="bold"
    )
    _bar_legend(
        axes,
        loc="upper center",
        bbox_to_anchor=(0.45, -0.5 / (height - 2.5)),
        ncols=2,
        fontsize=8.5,
        handlelength=1.5,
        columnspacing=1.0,
    )
    _margins(figure, NARROW_WIDTH, height, left=0.12, bottom=1.95, top=0.55, right=0.12)
    return figure


def question_points(rows: Iterable[CardRow], fits: dict[str, bool]) -> list[dict[str, Any]]:
    """The question chart's points: priced cards with whether they hold the job."""
    return [
        {
            "gpu": r.gpu,
            "name": r.name,
            "price": r.price.amount,
            "relative": r.relative_performance,
            "fits": fits.get(r.gpu, True),
            "basis": r.performance_basis,
        }
        for r in rows
        if r.price
    ]


def _compact(value: float) -> str:
    """1,500 -> 1.5k: tick labels that fit a phone's width."""
    return f"{value / 1000:g}k" if value >= 1000 else f"{value:g}"


def _plain_ticks(axis: Any, compact: bool = False) -> None:
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 3.0) if compact else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(
        FuncFormatter(
            lambda value, _: _compact(value) if compact else f"{value:,.0f}" if value >= 1 else f"{value:g}"
        )
    )
    axis.set_minor_formatter(FuncFormatter(lambda value, _: ""))


def _pick_centres(
    picks: tuple[Pick, ...], points: list[dict[str, Any]], gpus: int
) -> list[tuple[float, float]]:
    """Where each pick sits: on its card's point (per-card performance at the price of the cards asked for);
    the pick's own figures only for a card the points lack."""
    where = {p["gpu"]: (p["price"] * gpus, p["relative"]) for p in points}
    return [
        where.get(pick.gpu, (pick.total_price.amount, pick.relative_performance / max(pick.count, 1)))
        for pick in picks
    ]


def _rank_offsets(axes: Any, centres: list[tuple[float, float]]) -> list[tuple[int, int]]:
    """For each pick, the first offset (points) whose label spot is nearer its own circle than any other
    pick's, and clear of labels already placed, so "1." and "2." never sit by the wrong card."""
    scale = axes.figure.dpi / 72
    pixels = [tuple(axes.transData.transform(c)) for c in centres]
    placed: list[tuple[float, float]] = []
    chosen: list[tuple[int, int]] = []

    def score(i: int, offset: tuple[int, int]) -> float:
        """How much nearer pick ``i``'s circle the spot is than anything else's (pixels)."""
        x, y = pixels[i]
        spot = (x + offset[0] * scale, y + offset[1] * scale)
        own = math.dist(spot, (x, y))
        others = [math.dist(spot, p) for j, p in enumerate(pixels) if j != i]
        others += [math.dist(spot, p) + own for p in placed]
        return min(others, default=math.inf) - own

    for i, (x, y) in enumerate(pixels):
        of_pick = partial(score, i)
        best = next((o for o in RANK_OFFSETS if of_pick(o) > 6 * scale), max(RANK_OFFSETS, key=of_pick))
        chosen.append(best)
        placed.append((x + best[0] * scale, y + best[1] * scale))
    return chosen


def _candidates(axes: Any, points: list[dict[str, Any]], gpus: int) -> None:
    """The cards as points: crossed out when they cannot hold the job, else measured or estimated."""
    unfit = [p for p in points if not p["fits"]]
    if unfit:
        axes.scatter(
            [p["price"] * gpus for p in unfit],
            [p["relative"] for p in unfit],
            marker="x",
            s=22,
            color=UNFIT_COLOR,
            label="too little memory for the job",
            gid="unfit",
        )
    for basis, color, marker in (("estimated", ESTIMATED_COLOR, "o"), ("measured", MEASURED_COLOR, "s")):
        chosen = [p for p in points if p["fits"] and p["basis"] == basis]
        if chosen:
            axes.scatter(
                [p["price"] * gpus for p in chosen],
                [p["relative"] for p in chosen],
                marker=marker,
                s=30,
                color=color,
                edgecolor="#34495e",
                linewidth=0.5,
                gid=f"cards-{basis}",
                label="measured in the lab" if basis == "measured" else "estimated from specs",
            )


def _picks(
    axes: Any, picks: tuple[Pick, ...], centres: list[tuple[float, float]], prices: list[float]
) -> None:
    """The picks circled, and the line of cards as good per unit of money as pick 1."""
    for rank, (pick, (x, y)) in enumerate(zip(picks, centres, strict=True), 1):
        axes.scatter(
            [x],
            [y],
            s=170,
            facecolor="none",
            edgecolor=PICK_COLOR,
            linewidth=2,
            zorder=5,
            gid=f"pick-{rank}",
            label=_plain(f"{rank}. {pick.name}"),
        )
    if picks and prices:
        ratio = centres[0][1] / centres[0][0]
        xs = [min(prices), max(prices)]
        axes.plot(
            xs,
            [ratio * x for x in xs],
            color=PICK_COLOR,
            linestyle=":",
            linewidth=1,
            label="same performance per money as pick 1",
        )


def _question_axes(axes: Any, answer: Answer, points: list[dict[str, Any]], narrow: bool) -> None:
    """The budget line, log scales, and the vertical range of the points."""
    budget = answer.question.budget
    if budget:
        axes.axvline(
            budget,
            color=PICK_COLOR,
            linestyle="--",
            linewidth=1.2,
            label=_plain(f"budget {budget:,.0f} {answer.currency.code}"),
        )
    if points or budget:
        axes.set_xscale("log")
        _plain_ticks(axes.xaxis, compact=narrow)
    if points:
        axes.set_yscale("log")
        _plain_ticks(axes.yaxis, compact=narrow)
        low, high = min(p["relative"] for p in points), max(p["relative"] for p in points)
        axes.set_ylim(low / 1.3, high * 1.3)


def _question_labels(
    axes: Any, answer: Answer, title: str, reference: str, narrow: bool, empty: bool
) -> None:
    """Axis labels, title, grid and legend; a note when no card has a price."""
    gpus = answer.question.gpus
    x_label = (
        f"price in {answer.currency.code}"
        + (f" for {gpus} cards" if gpus > 1 else "")
        + (" (log)" if narrow else " (log scale)")
    )
    axes.set_xlabel(_plain(x_label), fontsize=9 if narrow else None)
    y_label = (
        f"per card, × {reference} (log)"
        if narrow
        else f"performance per card relative to the {reference} (log)"
    )
    axes.set_ylabel(_plain(y_label), fontsize=9 if narrow else None)
    axes.set_title(
        _plain(textwrap.fill(title, 40) if narrow else title),
        loc="left",
        fontsize=11 if narrow else 13,
        fontweight="bold",
    )
    axes.grid(True, which="major", alpha=0.3)
    if narrow:
        axes.tick_params(labelsize=9)
        axes.legend(loc="upper left", bbox_to_anchor=(-0.2, -0.13), fontsize=8.5, frameon=False, ncols=1)
    else:
        axes.legend(loc="upper left", fontsize=8, frameon=False)
    if empty:
        axes.text(
            0.5, 0.5, "no priced cards by this date", transform=axes.transAxes, ha="center", color=OTHER_COLOR
        )


def _question_caption(figure: Figure, answer: Answer, narrow: bool) -> None:
    caption = (
        f"As of {answer.as_of}, workload {answer.workload}, catalog {answer.catalog_version}; "
        f"performance {answer.performance_basis}. Each point is a card's best known price by then."
    )
    figure.text(
        0.02,
        0.005,
        _plain(textwrap.fill(caption, NARROW_WRAP) if narrow else caption),
        fontsize=8.5 if narrow else 7.5,
        color="#444444",
        va="bottom",
        ha="left",
    )


def _rank_labels(axes: Any, centres: list[tuple[float, float]], narrow: bool) -> None:
    """ "1.", "2." … beside the picks' circles, each where no other pick's circle is nearer."""
    axes.autoscale_view()
    axes.set_xlim(axes.get_xlim())  # fixed now, so label spots computed below stay true
    for rank, ((x, y), offset) in enumerate(zip(centres, _rank_offsets(axes, centres), strict=True), 1):
        axes.annotate(
            f"{rank}.",
            (x, y),
            xytext=offset,
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=10 if narrow else 9,
            fontweight="bold",
            color=PICK_COLOR,
            zorder=6,
            gid=f"pick-label-{rank}",
        )


def render_question(
    answer: Answer,
    points: list[dict[str, Any]],
    title: str,
    fmt: str = "svg",
    reference_name: str | None = None,
    layout: str = "wide",
) -> bytes:
    """Performance against price for one answer's candidates, the budget line and the picks (numbered on the
    chart, named in the legend); ``narrow`` is drawn for a phone's width."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown chart layout {layout!r}; expected one of: {', '.join(LAYOUTS)}")
    narrow = layout == "narrow"
    gpus = answer.question.gpus
    width, height = (NARROW_WIDTH, 6.4) if narrow else (10, 6.2)
    with _draw_lock, matplotlib.rc_context(RC):
        figure = Figure(figsize=(width, height))
        axes = figure.add_subplot()
        _candidates(axes, points, gpus)
        centres = _pick_centres(answer.picks, points, gpus)
        _picks(axes, answer.picks, centres, [p["price"] * gpus for p in points])
        _question_axes(axes, answer, points, narrow)
        _question_labels(axes, answer, title, reference_name or answer.reference_gpu, narrow, not points)
        _question_caption(figure, answer, narrow)
        if narrow:
            _margins(figure, width, height, left=0.6, bottom=2.55, top=0.6, right=0.15)
        else:
            _margins(figure, width, height, left=0.75, bottom=0.85, top=0.4, right=0.25)
        _rank_labels(axes, centres, narrow)
        return _save(figure, fmt)


# --- cache ---------------------------------------------------------------------------------


class ChartCache:
    """Rendered chart bytes, least recently used first out; safe across threads."""

    def __init__(self, max_items: int = 128) -> None:
        self.max_items = max_items
        self._items: OrderedDict[tuple, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def etag(key: tuple) -> str:
        """A strong ETag for a key (the key holds the data version, so equal keys mean equal bytes)."""
        return '"' + hashlib.sha256(repr(key).encode()).hexdigest()[:32] + '"'

    def get(self, key: tuple) -> bytes | None:
        with self._lock:
            data = self._items.get(key)
            if data is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return data

    def put(self, key: tuple, data: bytes) -> None:
        with self._lock:
            self._items[key] = data
            self._items.move_to_end(key)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


# --- the CLI's entry ------------------------------------------------------------------------


def chart_meta(advisor: Any, workload: str, as_of: date, currency: str, used_ok: bool) -> ChartMeta:
    return ChartMeta(workload, as_of, currency, used_ok, advisor.reference.name, advisor.catalog.version)


def split_workload(workload: str) -> tuple[str, str]:
    """(workload, task) of a chart's workload; ``llm_inference`` (an answer's workload key) is LLM serving."""
    return ("llm", "inference") if workload == "llm_inference" else (workload, "training")


def bar_chart(
    advisor: Any,
    kind: str,
    workload: str,
    as_of: date,
    fmt: str,
    *,
    currency: str = "USD",
    used_ok: bool = False,
    layout: str = "wide",
) -> bytes:
    """A bar chart straight from an advisor (no cache)."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of: {', '.join(KINDS)}")
    name, task = split_workload(workload)
    rows = advisor.card_rows(name, as_of, currency, used_ok, task=task)
    return render_bars(
        rows, kind, chart_meta(advisor, workload, as_of, currency, used_ok), fmt, layout=layout
    )


def write_chart(
    advisor: Any,
    kind: str,
    workload: str,
    as_of: date,
    output_path: str | Path,
    *,
    currency: str = "USD",
    used_ok: bool = False,
) -> Path:
    """Draw ``kind`` for ``workload`` as of ``as_of`` to ``output_path`` (.png or .svg, by its suffix)."""
    path = Path(output_path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"cannot tell the image format from {path.name!r}: name it .png or .svg")
    path.write_bytes(bar_chart(advisor, kind, workload, as_of, fmt, currency=currency, used_ok=used_ok))
    return path
