"""Money: cost efficiency with diminishing returns, used cards, and renting (003, "Анализ экономической
эффективности" and "Deep Learning in the Cloud")."""

from __future__ import annotations

from rules.configurations import Configuration
from rules.contract.answer import Finding
from rules.explain.evidence import Evidence, Lines, RuleLines, each

__all__ = ["MONEY"]


def cost_efficiency(evidence: Evidence) -> Lines:
    """The choice weighed speed for money; a used pick's price is dated;
    a named card without a current price."""
    made = evidence.choice
    choice: tuple[Finding, ...] = ()
    if (
        made is not None and made.top is not None and evidence.question.objective != "cheapest"
    ):  # its own note says why
        choice = (Finding("cost-efficiency", "applied", evidence.say("rule.cost_efficiency.choice")),)

    def card(c: Configuration) -> list[Finding]:
        if c.offer.condition != "used":
            return []
        return [
            Finding(
                "cost-efficiency",
                "info",
                evidence.say("rule.cost_efficiency.used", date=c.offer.point.seen.isoformat()),
            )
        ]

    named = tuple(
        Finding("cost-efficiency", "info", e.reason) if e.status == "no-current-price" else None
        for e in evidence.named
    )
    return Lines(choice=choice, cards=each(evidence, card), named=named)


def used_cards(evidence: Evidence) -> Lines:
    """Why a used card leads, or that several cards stay new with the used option beside them."""
    made, used, q = evidence.choice, evidence.terms.used, evidence.question
    if made is None:
        return Lines()
    top = made.top
    if top is not None and top.offer.condition == "used":
        return Lines(
            choice=(
                Finding(
                    "used-cards",
                    "applied",
                    evidence.say(
                        "rule.used_cards.picked",
                        count=top.count,
                        name=top.gpu.name,
                        # no used-card term let it lead: the card was named and has only a resale price
                        why=used.why or evidence.say("rule.used_cards.resale_only"),
                    ),
                ),
            )
        )
    if used.several and not q.used_ok and "used" in made.alternatives:
        return Lines(choice=(Finding("used-cards", "applied", evidence.say("rule.used_cards.several")),))
    return Lines()


def rent_vs_buy(evidence: Evidence) -> Lines:
    """Renting is weighed in its own part of the answer (rules.rent does the sums)."""
    return Lines()


def job_cost(evidence: Evidence) -> Lines:
    """A training run is timed and priced in its own part of the answer (rules.jobcost does the sums)."""
    return Lines()


MONEY: dict[str, RuleLines] = {
    "cost-efficiency": cost_efficiency,
    "used-cards": used_cards,
    "rent-vs-buy": rent_vs_buy,
    "job-cost": job_cost,
}
