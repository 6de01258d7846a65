"""Chart data and images, straight from the engine (no HTTP): the right cards, sorted, prices of the date."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

import pytest

from service.charts import PNG_DPI, TOP, ChartCache, bar_chart, bar_rows, write_chart

OLD = date(2019, 4, 3)
RECENT = date(2023, 6, 1)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_texts(data: bytes) -> list[str]:
    """The texts of an SVG chart (its <text> elements, tspans joined)."""
    root = ET.fromstring(data)
    return ["".join(node.itertext()).strip() for node in root.iter("{http://www.w3.org/2000/svg}text")]


def test_perf_per_dollar_keeps_the_best_priced_cards_sorted(advisor) -> None:
    rows = advisor.card_rows("transformer", RECENT)
    shown = bar_rows(rows, "perf-per-dollar")
    priced = [r for r in rows if r.performance_per_1000 is not None]
    assert len(shown) == min(TOP, len(priced)) and len(shown) > 10
    values = [r.performance_per_1000 for r in shown]
    assert values == sorted(values, reverse=True)
    assert values[0] == max(r.performance_per_1000 for r in priced)
    assert min(values) >= sorted((r.performance_per_1000 for r in priced), reverse=True)[len(shown) - 1]


def test_relative_performance_includes_unpriced_cards_sorted(advisor) -> None:
    rows = advisor.card_rows("cnn", RECENT)
    shown = bar_rows(rows, "relative-performance")
    assert [r.relative_performance for r in shown] == sorted(
        (r.relative_performance for r in rows), reverse=True
    )[:TOP]


def test_as_of_2019_shows_no_later_cards_and_no_later_prices(advisor) -> None:
    for kind in ("perf-per-dollar", "relative-performance"):
        shown = bar_rows(advisor.card_rows("transformer", OLD), kind)
        assert shown
        assert not [r.name for r in shown if re.search(r"GeForce RTX [345]0\d\d|A100|H100", r.name)]
        assert all(advisor.catalog.gpu(r.gpu).released <= OLD for r in shown)
        assert all(r.price.seen <= OLD.isoformat() for r in shown if r.price)
    svg = bar_chart(advisor, "perf-per-dollar", "transformer", OLD, "svg")
    texts = " ".join(svg_texts(svg))
    assert "RTX 2080 Ti" in texts and "RTX 3090" not in texts and "RTX 3060" not in texts


def test_the_caption_names_as_of_price_dates_and_the_reference(advisor) -> None:
    rows = bar_rows(advisor.card_rows("transformer", OLD), "perf-per-dollar")
    first, last = min(r.price.seen for r in rows), max(r.price.seen for r in rows)
    caption = " ".join(svg_texts(bar_chart(advisor, "perf-per-dollar", "transformer", OLD, "svg")))
    assert "As of 2019-04-03" in caption
    assert f"price dates {first} to {last}" in caption
    assert advisor.reference.name in caption and "estimated from specs" in caption


def test_measured_and_estimated_are_told_apart_in_the_legend(advisor) -> None:
    texts = svg_texts(bar_chart(advisor, "relative-performance", "rnn", OLD, "svg"))
    assert "measured in the lab" in texts and "estimated from specs" in texts
    assert f"{advisor.reference.name}  (reference)" in texts  # the reference card is named on its bar


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown chart kind"):
        bar_rows([], "pie")


@pytest.mark.parametrize("kind", ["perf-per-dollar", "relative-performance"])
def test_png_is_a_valid_image_of_sensible_size(advisor, kind: str) -> None:
    data = bar_chart(advisor, kind, "transformer", RECENT, "png")
    width, height = png_size(data)
    assert width == 10 * PNG_DPI and 0.6 * width <= height <= 1.4 * width
    assert len(data) > 20_000


@pytest.mark.parametrize("kind", ["perf-per-dollar", "relative-performance"])
def test_svg_parses_as_xml_of_sensible_size(advisor, kind: str) -> None:
    data = bar_chart(advisor, kind, "llm_inference", RECENT, "svg")
    root = ET.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    width, height = (float(root.get(k).removesuffix("pt")) for k in ("width", "height"))
    assert width == 720 and 400 <= height <= 1000
    assert 10_000 < len(data) < 2_000_000


def test_the_same_chart_gives_the_same_bytes(advisor) -> None:
    assert bar_chart(advisor, "perf-per-dollar", "cnn", OLD, "svg") == bar_chart(
        advisor, "perf-per-dollar", "cnn", OLD, "svg"
    )


def test_a_date_with_no_priced_cards_still_draws(advisor) -> None:
    svg = bar_chart(advisor, "perf-per-dollar", "cnn", date(2010, 1, 2), "svg")
    assert (
        "no priced cards by this date" in svg_texts(svg)
        or len(bar_rows(advisor.card_rows("cnn", date(2010, 1, 2)), "perf-per-dollar")) > 0
    )
    ET.fromstring(svg)


def test_write_chart_picks_the_format_from_the_suffix(advisor, tmp_path: Path) -> None:
    png = write_chart(
        advisor, "perf-per-dollar", "transformer", OLD, tmp_path / "c.png", currency="EUR", used_ok=True
    )
    assert png_size(png.read_bytes())[0] == 10 * PNG_DPI
    svg = write_chart(advisor, "relative-performance", "cnn", OLD, tmp_path / "c.svg")
    ET.fromstring(svg.read_bytes())
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        write_chart(advisor, "perf-per-dollar", "cnn", OLD, tmp_path / "c.gif")


def test_euro_chart_is_in_euros(advisor) -> None:
    texts = svg_texts(bar_chart(advisor, "perf-per-dollar", "transformer", RECENT, "svg", currency="EUR"))
    assert "relative performance per 1000 EUR" in texts
    assert not [t for t in texts if " USD, " in t]


def test_cache_evicts_the_least_recently_used() -> None:
    cache = ChartCache(max_items=2)
    cache.put(("a",), b"1")
    cache.put(("b",), b"2")
    assert cache.get(("a",)) == b"1"  # a is now the most recent
    cache.put(("c",), b"3")
    assert cache.get(("b",)) is None and cache.get(("a",)) == b"1" and cache.get(("c",)) == b"3"
    assert ChartCache.etag(("a", "v1")) != ChartCache.etag(("a", "v2"))


def test_charts_drawn_from_many_threads_are_whole_and_identical(advisor) -> None:
    """The server draws in worker threads: concurrent draws must not mix state."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [("perf-per-dollar", "png"), ("relative-performance", "svg")] * 4
    expected = {job: bar_chart(advisor, job[0], "rnn", OLD, job[1]) for job in set(jobs)}
    with ThreadPoolExecutor(max_workers=4) as pool:
        drawn = list(pool.map(lambda job: (job, bar_chart(advisor, job[0], "rnn", OLD, job[1])), jobs))
    assert all(data == expected[job] for job, data in drawn)
