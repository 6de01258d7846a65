"""Charts a phone can read, and the answer chart's "1." / "2." beside the right cards, checked on the SVG."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from datetime import date

import pytest

from rules.ask import ask
from rules.contract.answer import Answer
from service.charts import NARROW_TOP, bar_chart, render_question
from service.web import question_chart_points

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
TODAY = date(2026, 11, 22)
PHONE_CHART_PX = 350  # a 390 px wide screen less the page's padding
QUESTIONS = [
    "nlp $800",
    "cv 2 gpus 3000",
    "fit llama 13b fp16",
    "kaggle €600 used ok",
    "as of 2019-04-03 kaggle $700",
]


def _groups(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}


def _centre(group: ET.Element) -> tuple[float, float]:
    """The centre of a drawn marker: the middle of its path's coordinates."""
    path = next(group.iter(f"{SVG}path"))
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", path.get("d"))]
    xs, ys = numbers[0::2], numbers[1::2]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def _card_points(groups: dict[str, ET.Element]) -> list[tuple[float, float]]:
    return [
        (float(u.get("x")), float(u.get("y")))
        for name in ("cards-estimated", "cards-measured", "unfit")
        if name in groups
        for u in groups[name].iter(f"{SVG}use")
    ]


def _question_svg(advisor, text: str, layout: str) -> tuple[ET.Element, Answer]:
    reply = ask(advisor, text, today=TODAY)
    data = render_question(
        reply.recommendation, question_chart_points(advisor, reply), text, "svg", layout=layout
    )
    return ET.fromstring(data), reply.recommendation


@pytest.mark.parametrize("layout", ["wide", "narrow"])
@pytest.mark.parametrize("text", QUESTIONS)
def test_each_rank_label_sits_by_its_own_pick_on_its_cards_point(advisor, text: str, layout: str) -> None:
    root, answer = _question_svg(advisor, text, layout)
    groups = _groups(root)
    circles = [_centre(groups[f"pick-{rank}"]) for rank in range(1, len(answer.picks) + 1)]
    assert circles, "no picks drawn"
    points = _card_points(groups)
    for rank, circle in enumerate(circles, 1):
        label = next(groups[f"pick-label-{rank}"].iter(f"{SVG}text"))
        assert label.text == f"{rank}."
        spot = (float(label.get("x")), float(label.get("y")))
        distances = [math.dist(spot, c) for c in circles]
        assert min(range(len(circles)), key=distances.__getitem__) == rank - 1, (rank, spot, circles)
        assert distances[rank - 1] < 25
        assert min(math.dist(circle, p) for p in points) < 0.5, f"pick {rank} is not on its card's point"


def _font_sizes(root: ET.Element) -> list[float]:
    return [
        float(m)
        for t in root.iter(f"{SVG}text")
        for m in re.findall(r"font-size: ([\d.]+)px", t.get("style", ""))
    ]


def _phone_scale(root: ET.Element) -> float:
    return PHONE_CHART_PX / float(root.get("width").removesuffix("pt"))


@pytest.mark.parametrize("kind", ["perf-per-dollar", "relative-performance"])
def test_narrow_bar_charts_are_readable_on_a_phone(advisor, kind: str) -> None:
    root = ET.fromstring(bar_chart(advisor, kind, "transformer", TODAY, "svg", layout="narrow"))
    scale = _phone_scale(root)
    assert min(_font_sizes(root)) * scale >= 10, "text under 10 CSS px at 390 px"
    # drawn at about a phone's width, not shrunk from 720
    assert float(root.get("width").removesuffix("pt")) <= 300
    bar_labels = [t for t in root.iter(f"{SVG}text") if " · " in "".join(t.itertext())]
    assert 3 <= len(bar_labels) <= NARROW_TOP + 1  # + the reference card


def test_the_narrow_answer_chart_is_readable_on_a_phone(advisor) -> None:
    root, _ = _question_svg(advisor, "nlp $800", "narrow")
    assert min(_font_sizes(root)) * _phone_scale(root) >= 10
    wide, _ = _question_svg(advisor, "nlp $800", "wide")
    # what a phone showed before: the reason for the narrow layout
    assert min(_font_sizes(wide)) * _phone_scale(wide) < 6


def test_an_unknown_layout_is_refused(advisor) -> None:
    with pytest.raises(ValueError, match="layout"):
        bar_chart(advisor, "perf-per-dollar", "cnn", TODAY, "svg", layout="tiny")
