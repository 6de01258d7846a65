"""A comparison's first line ("rtx 5090 or rtx pro 6000 for a qlora of qwen3 32b"): how much faster one card
is and what it costs more or less, behind the one to buy where the cards compared hold the job (the choice
puts it first: :func:`rules.choose.bought_first`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rules.choose import HOLDING
from rules.contract.answer import Answer, Money, Pick
from rules.knowledge.messages import Continued, Phrase, Text

__all__ = ["compare_first", "speed_measure"]


def speed_measure(picks: Sequence[Pick]) -> Callable[[Pick], float]:
    """How compared cards are weighed against each other: the job's own speed (tokens a second) where every
    card has one, else the multiple of the reference card."""
    timed = all(p.speed is not None for p in picks)
    return lambda p: p.speed.value if timed and p.speed else p.relative_performance


def compare_first(answer: Answer, same_speed: float) -> Text | None:
    """The one to buy and the comparison behind it; the speeds alone where one card has no price. Speeds
    within ``same_speed`` of each other are as fast (rule cost-efficiency, same_speed_share)."""
    as_fast = 1 + same_speed
    compared = _compare(answer.picks, as_fast)
    return _to_buy(answer, compared, as_fast) if compared else _compare_unpriced(answer)


def _against(top: Pick, rest: Sequence[Pick], speed: Callable[[Pick], float]) -> list[Pick]:
    """The card to buy beside the fastest of the others, so that the sentence behind it names it."""
    return [top, max(rest, key=lambda p: (speed(p), p.gpu))]


def _compare(picks: Sequence[Pick], as_fast: float) -> Phrase | None:
    """How much faster the fastest card is than the next, and what it costs more or less."""
    if len(picks) < 2:
        return None
    speed = speed_measure(picks)
    fast, slow = sorted(picks, key=lambda p: (-speed(p), p.gpu))[:2]
    ratio = speed(fast) / max(speed(slow), 1e-9)
    difference = fast.total_price.amount - slow.total_price.amount
    speeds = (
        Phrase("headline.speeds", {"fast": f"{fast.speed.value:.0f}", "slow": f"{slow.speed.value:.0f}"})
        if fast.speed and slow.speed
        else ""
    )
    money = Money(abs(difference), fast.total_price.currency, 0.0)
    if ratio < as_fast:
        cheaper = fast if difference < 0 else slow
        return Phrase(
            "headline.as_fast",
            {
                "fast": _name(fast),
                "slow": _name(slow),
                "speeds": speeds,
                "cheaper": _name(cheaper),
                "price": money.text,
            },
        )
    return Phrase(
        "headline.faster",
        {
            "fast": _name(fast),
            "slow": _name(slow),
            "ratio": f"{ratio:.1f}",
            "speeds": speeds,
            "price": money.text,
            "more_or_less": Phrase("headline.more" if difference >= 0 else "headline.less"),
            "fast_price": fast.total_price.text,
            "slow_price": slow.total_price.text,
        },
    )


def _to_buy(answer: Answer, compared: Phrase, as_fast: float) -> Phrase:
    """The comparison behind the card to buy, where two or more named cards hold the job and none is owned:
    the compared cards come best buy first (rules cost-efficiency, vendor-nvidia); the line says why."""
    picks = answer.picks
    fitting = [p for p in picks if p.label in HOLDING]
    if len(fitting) < 2 or picks[0] is not fitting[0] or answer.question.owned_gpu:
        return compared
    speed = speed_measure(fitting)
    top, rest = fitting[0], fitting[1:]
    # of three or more, the pick is named
    compared = _compare(_against(top, rest, speed), as_fast) or compared
    ratio = speed(top) / max(max(speed(p) for p in rest), 1e-9)
    budget = answer.question.budget
    key = (
        "headline.compare_buy_cuda"  # another maker's better value set aside for someone starting out
        if any(f.rule == "vendor-nvidia" for f in answer.findings)
        else "headline.compare_buy_budget"  # the faster one costs more than the budget
        if budget and ratio < 1 and any(p.total_price.amount > budget and speed(p) > speed(top) for p in rest)
        else "headline.compare_buy_speed"
        if ratio >= as_fast and top.total_price.usd > min(p.total_price.usd for p in rest)
        else "headline.compare_buy_value"
        if ratio <= 1 / as_fast
        else "headline.compare_buy"
    )
    # "buy the X: about 1.5× faster than the Y"
    return Phrase(key, {"name": _name(top), "compared": Continued(compared, _name(top))})


def _compare_unpriced(answer: Answer) -> Phrase | None:
    """One compared card priced, another known by its speed only: the speeds compared, the price said of the
    card that has one (what has no price is said further down, not first)."""
    if len(answer.picks) != 1:
        return None
    priced = answer.picks[0]
    # tokens/s where both have them (each at the count that holds the job), else speed against the reference
    by_tokens = priced.speed is not None and all(
        e.tokens_per_second for e in answer.named if e.gpu != priced.gpu
    )
    speeds = [
        (e.name, e.tokens_per_second if by_tokens else e.relative_performance)
        for e in answer.named
        if e.gpu != priced.gpu and isinstance(e.relative_performance, float) and e.relative_performance > 0
    ]
    if not speeds:
        return None
    other, speed = speeds[0]
    mine = priced.speed.value if by_tokens and priced.speed else priced.relative_performance
    fast, slow, ratio = priced.name, other, mine / (speed or 1e-9)
    if ratio < 1:
        fast, slow, ratio = slow, fast, 1 / ratio
    return Phrase(
        "headline.faster_unpriced",
        {
            "fast": fast,
            "slow": slow,
            "ratio": f"{ratio:.1f}",
            "priced": _name(priced),
            "price": priced.total_price.text,
        },
    )


def _name(pick: Pick) -> str:
    return f"{pick.count} × {pick.name}" if pick.count > 1 else pick.name
