"""An answer as Markdown text: the CLI, `/v1/ask` and chat clients show this.

Works from the JSON form of an answer (``Answer.to_dict()``), so any face that
received the JSON over HTTP renders exactly what the CLI prints.
"""

from __future__ import annotations

from typing import Any

__all__ = ["answer_markdown", "HELP_TEXT", "clarification_markdown"]

HELP_TEXT = """**whichgpu** tells you which GPU to buy or rent for deep learning, and why.

Ask in plain words, for example:
- `nlp $800` — best card for transformers under $800
- `cv 2 gpus 3000` — two cards for vision, 3000 USD in total
- `fit llama 13b fp16` — which cards hold a model
- `compare 3090 4090` — two cards side by side
- `as of 2019 kaggle` — the advice as it stood on a date
- `rnn €900 used ok 10 hours a week` — used cards, rent-vs-buy at your hours

It understands workloads (nlp, cv, rnn, llm, kaggle, rl, beginner), budgets ($, €, £, ₽),
GPU counts, precision (fp32, 16-bit, 8-bit, 4-bit), model names and sizes, new/used,
cloud ok, hours per week, and dates. Russian works too: `нлп 80000 руб`.
Every line of an answer names the rule of thumb behind it."""


def _price(money: dict[str, Any]) -> str:
    text = f"{money['amount']:,.0f} {money['currency']}"
    if money.get("date"):
        text += f" ({money['kind']}, {money['date']})"
    return text


def _pick_line(rank: str, pick: dict[str, Any], labelled: bool = True) -> str:
    count = f"{pick['count']} × " if pick["count"] > 1 else ""
    label = f" ({pick['label']})" if labelled and pick.get("label") else ""
    used = " used" if pick.get("condition") == "used" else ""
    total = f", {_price(pick['total_price'])} in all" if pick["count"] > 1 else ""
    speed = f", ~{pick['tokens_per_second']:.0f} tokens/s" if pick.get("tokens_per_second") else ""
    return (f"{rank} **{count}{pick['name']}**{label} —{used} {_price(pick['unit_price'])}{total}; "
            f"{pick['relative_performance']:.2f}× reference{speed}, {pick['performance_per_1000']:.2f} per 1000 {pick['total_price']['currency']}, "
            f"{pick['memory_gb']:g} GB")


def _named_lines(answer: dict[str, Any]) -> list[str]:
    """Every card the question named, with what became of it."""
    lines = []
    for entry in answer.get("named") or []:
        guessed = f" (read “{entry['asked']}” as {entry['name']})" if entry.get("guessed") else ""
        lines.append(f"- {entry['reason']}{guessed}")
    return ["", "**Cards you named**"] + lines if lines else []


def answer_markdown(answer: dict[str, Any]) -> str:
    """The whole answer: summary, picks with their rules, warnings, rent vs buy, context."""
    lines = [f"**{answer['summary']}**"]
    need = answer.get("memory_need") or {}
    if need.get("how"):
        said = "; ".join([need["how"], *need.get("assumptions", [])])
        lines += ["", f"_Assumed: {said}_"]
    lines.append("")
    for index, pick in enumerate(answer["picks"], 1):
        lines.append(_pick_line(f"{index}.", pick))
        if index == 1:
            lines += [f"   - _{r['rule']}_: {r['reason']}" for r in pick["rules"] if r["verdict"] != "warning"]
    lines += _named_lines(answer)
    others = [(name, pick) for name, pick in answer.get("alternatives", {}).items() if pick]
    if others:
        lines += ["", "**Alternatives**"]
        lines += [_pick_line(f"- {name}:", pick, labelled=False) for name, pick in others]
    if answer.get("warnings"):
        lines += ["", "**Watch out**"]
        lines += [f"- ⚠ {w['reason']} (_{w['rule']}_)" for w in answer["warnings"]]
    rent = answer.get("rent_vs_buy")
    if rent:
        offer = rent["offer"]
        lines += ["", "**Rent or buy**",
                  f"- {' '.join(filter(None, (offer['provider'], offer['instance'])))} ({offer['accelerator']}): "
                  f"{rent['rent_per_hour']['amount']:.2f} {rent['rent_per_hour']['currency']}/h (seen {offer['seen']})",
                  f"- {rent['reason']} (_rent-vs-buy_)"]
        lines += [f"- or {o['count']} × {o['name']} at {o['provider']}: {o['per_hour']['amount']:.2f} {o['per_hour']['currency']}/h, "
                  f"about {o['per_year']['amount']:,.0f} a year (seen {o['seen']})" for o in rent.get("options", [])[1:]]
    if answer.get("suggestions"):
        lines += ["", "**What would work**"] + [f"- {s}" for s in answer["suggestions"]]
    notes = [f for f in answer.get("findings", []) if f["verdict"] in ("applied", "info")]
    if notes:
        lines += ["", "**Why**"] + [f"- {f['reason']} (_{f['rule']}_)" for f in notes]
    if answer.get("excluded"):
        lines += ["", "**Left out**"] + [f"- {e['reason']} (_{e['rule']}_)" for e in answer["excluded"][:4]]
    currency = answer["currency"]
    rate = "" if currency["code"] == "USD" else f"; 1 USD = {currency['per_usd']:g} {currency['code']} ({currency['rate_date']})"
    lines += ["", f"_Prices as of {answer['as_of']}, catalog {answer['catalog_version']}; performance "
                  f"{answer['performance_basis']}, relative to {answer['reference_gpu']}{rate}._"]
    return "\n".join(lines)


def clarification_markdown(understood: list[str], unknown: list[str]) -> str:
    """A short clarifying answer for text the parser could not use."""
    parts = []
    if understood:
        parts.append("I understood: " + "; ".join(understood) + ".")
    if unknown:
        parts.append("I did not understand: " + ", ".join(f"“{u}”" for u in unknown[:6]) + ".")
    parts.append("Tell me what you will train or run and your budget, e.g. `nlp $800` or `fit llama 13b fp16`. "
                 "Type `help` for more examples.")
    return " ".join(parts)
