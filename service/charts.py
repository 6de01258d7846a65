"""Charts drawn on the server with matplotlib: what the web page, Slack and the CLI show.

Three charts, each from the advisor's own numbers (``Advisor.card_rows`` and an
answer's ``to_dict()``), never from a second calculation:

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
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Iterable

import matplotlib
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator

__all__ = [
    "KINDS",
    "FORMATS",
    "TOP",
    "ChartMeta",
    "ChartCache",
    "bar_rows",
    "render_bars",
    "render_question",
    "question_points",
    "write_chart",
    "MEDIA_TYPES",
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
PICK_LABEL_OFFSETS = (((12, 10), "left"), ((12, -20), "left"), ((12, 24), "left"))
RC = {
    "svg.hashsalt": "whichgpu",  # stable element ids: the same chart gives the same bytes
    "svg.fonttype": "none",  # text stays text: 3× faster to draw, smaller, selectable; DejaVu Sans falls back to sans-serif
    "font.family": "DejaVu Sans",  # ships with matplotlib; has Cyrillic and ×
    "font.size": 10,
    "text.hinting": "no_hinting",
    "axes.spines.top": False,
    "axes.spines.right": False,
}

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


def bar_rows(rows: Iterable[dict[str, Any]], kind: str, top: int = TOP) -> list[dict[str, Any]]:
    """The cards a bar chart shows, best first: priced cards by performance per 1000 for
    ``perf-per-dollar``, every card by relative performance for ``relative-performance``."""
    if kind == "perf-per-dollar":
        chosen = [r for r in rows if r.get("performance_per_1000") is not None]
        key = "performance_per_1000"
    elif kind == "relative-performance":
        chosen = list(rows)
        key = "relative_performance"
    else:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of: {', '.join(KINDS)}")
    chosen.sort(key=lambda r: (-r[key], r["gpu"]))
    return chosen[:top]


def _price_dates(rows: Iterable[dict[str, Any]]) -> tuple[str, str] | None:
    dates = sorted(r["price"]["date"] for r in rows if r.get("price") and r["price"].get("date"))
    return (dates[0], dates[-1]) if dates else None


def _caption(kind: str, shown: list[dict[str, Any]], meta: ChartMeta, total: int) -> str:
    measured = sum(r["performance_basis"] == "measured" for r in shown)
    lines = [f"As of {meta.as_of.isoformat()} (cards released and prices known by then). "
             f"Performance for {meta.workload} at 16-bit, relative to the {meta.reference_name} (= 1.0);",
             f"{measured} of {len(shown)} cards shown measured in the lab, the rest estimated from specs."]
    if kind == "perf-per-dollar":
        span = _price_dates(shown)
        kinds = sorted({r["price"]["kind"] for r in shown if r.get("price")})
        when = f"price dates {span[0]} to {span[1]}" if span and span[0] != span[1] else f"price date {span[0]}" if span else "no price dates"
        lines.append(f"Best known {' or '.join(kinds) or 'new'} price per card in {meta.currency}, {when}; "
                     f"top {len(shown)} of {total} priced cards. Catalog {meta.catalog_version}.")
    else:
        lines[-1] += f" Top {len(shown)} of {total} released cards. Catalog {meta.catalog_version}."
    return "\n".join(_plain(line) for line in lines)


# --- drawing -------------------------------------------------------------------------------


def _margins(figure: Figure, width: float, height: float, *, left: float, bottom: float, top: float, right: float) -> None:
    """Fixed margins in inches (a layout engine would cost a second draw per chart)."""
    figure.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height)


def _save(figure: Figure, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "svg":
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    elif fmt == "png":
        figure.savefig(buffer, format="png", dpi=PNG_DPI, metadata={"Software": None}, pil_kwargs={"compress_level": 1})
    else:
        raise ValueError(f"unknown image format {fmt!r}; expected svg or png")
    return buffer.getvalue()


def _bar_label(row: dict[str, Any], kind: str) -> str:
    if kind == "perf-per-dollar":
        price = row["price"]
        return f"{row['performance_per_1000']:.2f} · {price['amount']:,.0f} {price['currency']} {price['kind']}"
    return f"{row['relative_performance']:.2f}×"


def render_bars(rows: list[dict[str, Any]], kind: str, meta: ChartMeta, fmt: str = "svg", top: int = TOP) -> bytes:
    """A sorted horizontal bar chart of ``card_rows`` output, as SVG or PNG bytes."""
    ranked = bar_rows(rows, kind, top=10**6)
    shown, total = ranked[:top], len(ranked)
    reference = [r for r in ranked[top:] if r["name"] == meta.reference_name]
    shown += reference  # the reference card stays on the chart, as the unit everything is read against
    key = "performance_per_1000" if kind == "perf-per-dollar" else "relative_performance"
    title = (f"Performance per 1000 {meta.currency}{' (used prices allowed)' if meta.used_ok else ''} — {meta.workload}"
             if kind == "perf-per-dollar" else f"Relative performance — {meta.workload}")
    height = 2.2 + 0.32 * max(len(shown), 3)
    with _draw_lock, matplotlib.rc_context(RC):
        figure = Figure(figsize=(10, height))
        axes = figure.add_subplot()
        names = [_plain(f"{r['name']}{'  (reference)' if r['name'] == meta.reference_name else ''}") for r in shown]
        values = [r[key] for r in shown]
        positions = list(range(len(shown)))[::-1]  # best at the top
        colors = [MEASURED_COLOR if r["performance_basis"] == "measured" else ESTIMATED_COLOR for r in shown]
        hatches = ["" if r["performance_basis"] == "measured" else ESTIMATED_HATCH for r in shown]
        bars = axes.barh(positions, values, color=colors, edgecolor="#34495e", linewidth=0.6)
        for bar, hatch in zip(bars, hatches):
            bar.set_hatch(hatch)
        axes.set_yticks(positions, names)
        for tick, row in zip(axes.get_yticklabels(), shown):
            if row["name"] == meta.reference_name:
                tick.set_color(REFERENCE_COLOR)
                tick.set_fontweight("bold")
        top_value = max(values, default=1.0) or 1.0
        for position, row, value in zip(positions, shown, values):
            axes.text(value + top_value * 0.01, position, _plain(_bar_label(row, kind)), va="center", fontsize=8)
        axes.set_xlim(0, top_value * (1.45 if kind == "perf-per-dollar" else 1.15))
        if kind == "relative-performance":
            axes.axvline(1.0, color=REFERENCE_COLOR, linestyle="--", linewidth=1)
        axes.set_xlabel(_plain(f"relative performance per 1000 {meta.currency}" if kind == "perf-per-dollar"
                               else f"relative performance ({meta.reference_name} = 1.0)"))
        axes.set_title(_plain(title), loc="left", fontsize=13, fontweight="bold")
        axes.legend(handles=[Patch(facecolor=MEASURED_COLOR, edgecolor="#34495e", label="measured in the lab"),
                             Patch(facecolor=ESTIMATED_COLOR, edgecolor="#34495e", hatch=ESTIMATED_HATCH, label="estimated from specs")],
                    loc="lower right", fontsize=8, frameon=False)
        if not shown:
            axes.text(0.5, 0.5, "no priced cards by this date" if kind == "perf-per-dollar" else "no cards released by this date",
                      transform=axes.transAxes, ha="center", va="center", color=OTHER_COLOR)
        figure.text(0.01, 0.0, _caption(kind, shown, meta, total), fontsize=7.5, color="#444444", va="bottom", ha="left")
        _margins(figure, 10, height, left=0.25 + 0.075 * max((len(n) for n in names), default=10), bottom=1.15, top=0.45,
                 right=0.25)
        return _save(figure, fmt)


def question_points(rows: list[dict[str, Any]], fits: dict[str, bool]) -> list[dict[str, Any]]:
    """The question chart's points: priced cards with whether they hold the job."""
    return [{"gpu": r["gpu"], "name": r["name"], "price": r["price"]["amount"], "relative": r["relative_performance"],
             "fits": fits.get(r["gpu"], True), "basis": r["performance_basis"]}
            for r in rows if r.get("price")]


def _plain_ticks(axis: Any) -> None:
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 1 else f"{value:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda value, _: ""))


def render_question(answer: dict[str, Any], points: list[dict[str, Any]], title: str, fmt: str = "svg",
                    reference_name: str | None = None) -> bytes:
    """Performance against price for one answer's candidates, the budget line and the picks."""
    question = answer["question"]
    currency = answer["currency"]["code"]
    gpus = int(question.get("gpus") or 1)
    budget = question.get("budget")
    with _draw_lock, matplotlib.rc_context(RC):
        figure = Figure(figsize=(10, 6.2))
        axes = figure.add_subplot()
        fit = [p for p in points if p["fits"]]
        unfit = [p for p in points if not p["fits"]]
        if unfit:
            axes.scatter([p["price"] * gpus for p in unfit], [p["relative"] for p in unfit], marker="x", s=22,
                         color=UNFIT_COLOR, label="too little memory for the job")
        for basis, color, marker in (("estimated", ESTIMATED_COLOR, "o"), ("measured", MEASURED_COLOR, "s")):
            chosen = [p for p in fit if p["basis"] == basis]
            if chosen:
                axes.scatter([p["price"] * gpus for p in chosen], [p["relative"] for p in chosen], marker=marker, s=30,
                             color=color, edgecolor="#34495e", linewidth=0.5,
                             label="measured in the lab" if basis == "measured" else "estimated from specs")
        picks = answer.get("picks", [])
        for rank, pick in enumerate(picks, 1):
            x, y = pick["total_price"]["amount"], pick["relative_performance"]
            axes.scatter([x], [y], s=170, facecolor="none", edgecolor=PICK_COLOR, linewidth=2,
                         label="picks" if rank == 1 else None, zorder=5)
            axes.annotate(_plain(f"{rank}. {pick['name']}"), (x, y), xytext=PICK_LABEL_OFFSETS[(rank - 1) % 3][0],
                          ha=PICK_LABEL_OFFSETS[(rank - 1) % 3][1], textcoords="offset points", fontsize=9, fontweight="bold", color=PICK_COLOR, zorder=6,
                          bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
        if picks and points:  # cards on this line give the same performance per unit of money as pick 1
            ratio = picks[0]["relative_performance"] / picks[0]["total_price"]["amount"]
            xs = [min(p["price"] * gpus for p in points), max(p["price"] * gpus for p in points)]
            axes.plot(xs, [ratio * x for x in xs], color=PICK_COLOR, linestyle=":", linewidth=1,
                      label="same performance per money as pick 1")
        if budget:
            axes.axvline(budget, color=PICK_COLOR, linestyle="--", linewidth=1.2, label=_plain(f"budget {budget:,.0f} {currency}"))
        if points or budget:
            axes.set_xscale("log")
            _plain_ticks(axes.xaxis)
        if points:
            axes.set_yscale("log")
            _plain_ticks(axes.yaxis)
            low, high = min(p["relative"] for p in points), max(p["relative"] for p in points)
            axes.set_ylim(low / 1.3, high * 1.3)
        axes.set_xlabel(_plain(f"price in {currency}" + (f" for {gpus} cards" if gpus > 1 else "") + " (log scale)"))
        axes.set_ylabel(_plain(f"performance per card relative to the {reference_name or answer['reference_gpu']} (log)"))
        axes.set_title(_plain(title), loc="left", fontsize=13, fontweight="bold")
        axes.grid(True, which="major", alpha=0.3)
        axes.legend(loc="upper left", fontsize=8, frameon=False)
        if not points:
            axes.text(0.5, 0.5, "no priced cards by this date", transform=axes.transAxes, ha="center", color=OTHER_COLOR)
        figure.text(0.01, 0.0, _plain(f"As of {answer['as_of']}, workload {answer['workload']}, catalog {answer['catalog_version']}; "
                                      f"performance {answer['performance_basis']}. Each point is a card's best known price by then."),
                    fontsize=7.5, color="#444444", va="bottom", ha="left")
        _margins(figure, 10, 6.2, left=0.75, bottom=0.85, top=0.4, right=0.25)
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
    """(workload, task) for a chart's workload; ``llm_inference`` (an answer's workload key) means LLM serving."""
    return ("llm", "inference") if workload == "llm_inference" else (workload, "training")


def bar_chart(advisor: Any, kind: str, workload: str, as_of: date, fmt: str, currency: str = "USD", used_ok: bool = False) -> bytes:
    """A bar chart straight from an advisor (no cache)."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}; expected one of: {', '.join(KINDS)}")
    name, task = split_workload(workload)
    rows = advisor.card_rows(name, as_of, currency, used_ok, task=task)
    return render_bars(rows, kind, chart_meta(advisor, workload, as_of, currency, used_ok), fmt)


def write_chart(advisor: Any, kind: str, workload: str, as_of: date, output_path: str | Path,
                currency: str = "USD", used_ok: bool = False) -> Path:
    """Draw ``kind`` for ``workload`` as of ``as_of`` to ``output_path`` (.png or .svg, by its suffix)."""
    path = Path(output_path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"cannot tell the image format from {path.name!r}: name it .png or .svg")
    path.write_bytes(bar_chart(advisor, kind, workload, as_of, fmt, currency, used_ok))
    return path
