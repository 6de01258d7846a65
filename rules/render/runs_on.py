"""What runs on the cards asked about, in a few lines: the largest models that run, those that tune, media."""

from __future__ import annotations

from rules.contract.answer import ModelRun, RunsOn
from rules.headline import TUNING_NAMES
from rules.knowledge.messages import say

__all__ = ["runs_on_lines"]

SHOWN = 5  # models named per line: the largest ones answer "how far do my cards go"


def _inference(row: ModelRun, lang: str | None) -> str:
    said = say("runs.model", lang, name=row.name, precision=row.inference or "")
    if row.tokens_per_second is None:
        return said
    return say("runs.speed", lang, model=said, tps=f"{row.tokens_per_second:.0f}")


def _card_lines(card: RunsOn, lang: str | None) -> list[str]:
    llms = [m for m in card.models if m.kind == "llm" and m.inference]
    media = [m for m in card.models if m.kind != "llm" and m.inference]
    tuned = {}
    for m in card.models:  # largest first: the first model of each method is its largest
        if m.fine_tune and m.fine_tune not in tuned:
            tuned[m.fine_tune] = m
    in_all = f"{card.memory_gb * card.count:g}"
    lines = [f"- **{say('runs.card', lang, count=card.count, name=card.name, gb=in_all)}**"]
    if llms:
        lines.append(
            "  - " + say("runs.inference", lang, models="; ".join(_inference(m, lang) for m in llms[:SHOWN]))
        )
    if tuned:
        items = "; ".join(
            say("runs.tune_item", lang, name=m.name, method=TUNING_NAMES[method])
            for method, m in sorted(tuned.items(), key=lambda pair: -pair[1].params_b)
        )
        lines.append("  - " + say("runs.tune", lang, items=items))
    if media:
        lines.append("  - " + say("runs.media", lang, models=", ".join(m.name for m in media[:SHOWN])))
    if len(lines) == 1:
        lines.append("  - " + say("runs.none", lang))
    return lines


def runs_on_lines(cards: tuple[RunsOn, ...], lang: str | None) -> list[str]:
    """The section answering "what can I run on …", one block per card."""
    if not cards:
        return []
    lines = ["", f"**{say('heading.runs_on', lang)}**"]
    for card in cards:
        lines += _card_lines(card, lang)
    return lines
