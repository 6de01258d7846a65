"""What runs on the cards asked about, in a few lines: the largest models that run, those that tune, media."""

from __future__ import annotations

from rules.contract.answer import ModelRun, RunsOn
from rules.headline import TUNING_NAMES
from rules.knowledge.messages import Joined, Phrase, Text
from rules.render.figures import heading

__all__ = ["runs_on_lines"]

SHOWN = 5  # models named per line: the largest ones answer "how far do my cards go"


def _inference(row: ModelRun) -> Phrase:
    said = Phrase("runs.model", {"name": row.name, "precision": row.inference or ""})
    if row.tokens_per_second is None:
        return said
    return Phrase("runs.speed", {"model": said, "tps": f"{row.tokens_per_second:.0f}"})


def _card_lines(card: RunsOn) -> list[Text]:
    llms = [m for m in card.models if m.kind == "llm" and m.inference]
    media = [m for m in card.models if m.kind != "llm" and m.inference]
    tuned = {}
    for m in card.models:  # largest first: the first model of each method is its largest
        if m.fine_tune and m.fine_tune not in tuned:
            tuned[m.fine_tune] = m
    in_all = f"{card.memory_gb * card.count:g}"
    card_line = Phrase("runs.card", {"count": card.count, "name": card.name, "gb": in_all})
    lines: list[Text] = [Joined(("- **", card_line, "**"))]
    if llms:
        lines.append(
            "  - "
            + Phrase("runs.inference", {"models": Joined(tuple(_inference(m) for m in llms[:SHOWN]), "; ")})
        )
    if tuned:
        items = Joined(
            tuple(
                Phrase("runs.tune_item", {"name": m.name, "method": TUNING_NAMES[method]})
                for method, m in sorted(tuned.items(), key=lambda pair: -pair[1].params_b)
            ),
            "; ",
        )
        lines.append("  - " + Phrase("runs.tune", {"items": items}))
    if media:
        lines.append("  - " + Phrase("runs.media", {"models": ", ".join(m.name for m in media[:SHOWN])}))
    if len(lines) == 1:
        lines.append("  - " + Phrase("runs.none"))
    return lines


def runs_on_lines(cards: tuple[RunsOn, ...]) -> list[Text]:
    """The section answering "what can I run on …", one block per card."""
    if not cards:
        return []
    lines: list[Text] = ["", heading("heading.runs_on")]
    for card in cards:
        lines += _card_lines(card)
    return lines
