"""The cards a question names: each answered (compared, fitted, or why not), and the side-by-side answer."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from rules.answer import Answer, MemoryNeed, NamedCard, Pick
from rules.choose import BUDGET_SLACK
from rules.configurations import Configuration, Sizing
from rules.job import METHOD_NAMES, fit_on, job_for
from rules.messages import DEFAULT_LANGUAGE, say, term
from rules.money import Pricing
from rules.offers import Offer
from rules.question import Question
from rules.ranking import pick
from rules.registry import Context, Rulings

if TYPE_CHECKING:
    from rules.catalog import Gpu, PricePoint
    from rules.engine import Advisor

__all__ = ["named_cards", "card_memory", "compared"]

COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _count_word(count: int | None, language: str | None) -> str:
    """"two" in English prose; a figure elsewhere."""
    english = (language or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE
    return COUNT_WORDS[count] if english and count is not None and count < len(COUNT_WORDS) else str(count)


def named_cards(advisor: Advisor, question: Question, as_of: date, offers: tuple[Offer, ...], sizing: Sizing) -> list[dict[str, Any]]:
    """Every card the question names, answered: compared, fitted, or why it cannot be."""
    names = list(question.compare) + ([question.owned_gpu] if question.owned_gpu else [])
    if not names:
        return []
    priced: dict[str, Offer] = {}
    for offer in offers:
        if offer.condition == "new" or question.used_ok or offer.gpu.id not in priced:
            priced[offer.gpu.id] = offer
    entries = []
    for asked in names:
        entry = _named_one(advisor, question, as_of, asked, priced, sizing)
        if asked == question.owned_gpu and asked not in question.compare:
            entry["owned"] = True
        entries.append(entry)
    return entries


def _named_one(advisor: Advisor, question: Question, as_of: date, asked: str, priced: dict[str, Offer], sizing: Sizing) -> dict[str, Any]:
    gpu, guessed = advisor.resolve(asked)
    lang = question.language
    if gpu is None and advisor.renting.rentable([asked]):
        return {"asked": asked, "gpu": None, "name": asked, "status": "compared", "reason": say("named.rented_only", lang, name=asked)}
    if gpu is None:
        return {"asked": asked, "gpu": None, "name": asked, "status": "not-in-catalog", "reason": say("named.not_in_catalog", lang, name=asked)}
    entry: dict[str, Any] = {"asked": asked, "gpu": gpu.id, "name": gpu.name, "memory_gb": gpu.memory_gb, "form_factor": gpu.form_factor,
                             "relative_performance": round(sizing.relative(gpu), 3), "guessed": guessed}
    if gpu.released > as_of:
        return entry | {"status": "not-released", "reason": say("named.not_released", lang, name=gpu.name, released=gpu.released.isoformat(),
                                                                date=as_of.isoformat())}
    count = max(question.gpus, 1)
    fit = sizing.fit(gpu.memory_gb, count)
    enough = next((n for n in range(count, 9) if sizing.fit(gpu.memory_gb, n).fits), None)
    entry["cards_needed"] = enough
    tps = sizing.tokens_per_second(gpu, enough or count)
    if tps:
        entry["tokens_per_second"] = round(tps, 1)
    built = enough or count
    refused = sizing.build(gpu, built) if built > 1 else None
    unbuildable = say("named.refused", lang, count=built, name=gpu.name, why=refused) if refused else ""
    offer = priced.get(gpu.id)
    if offer is not None:
        entry["price"] = {"usd": round(offer.unit_usd, 2), "date": offer.point.seen.isoformat(), "kind": offer.point.kind}
    cards = {"need": _need_text(advisor, question), "count": _count_word(count, lang), "gb": f"{gpu.memory_gb:g}", "name": gpu.name}
    if not fit.fits:
        many = say("named.enough", lang, count=_count_word(enough, lang)) if enough else \
            (say("named.not_even_eight", lang) if count < 8 and fit.sharded else "")
        return entry | {"status": "does-not-fit",
                        "reason": say("named.does_not_hold" if count == 1 else "named.do_not_hold", lang, many=many, **cards) + unbuildable}
    speed = say("named.speed", lang, relative=f"{entry['relative_performance']:.2f}", reference=advisor.reference.name) \
        + (", " + say("pick.tokens", lang, tokens=f"{tps:.0f}") if tps else "")
    unpriced = ""
    if offer is None:
        last = _last_price(advisor, gpu, as_of)
        pricing = advisor.pricing(as_of, question.currency, question.used_ok)  # the answer's: its currency and rate
        unpriced = say("named.last_seen", lang, date=last.seen.isoformat(), price=pricing.text(last.price_usd, last),
                       kind=term("price.kind", last.kind, lang)) if last else say("named.no_price", lang)
    if question.model or question.params_b or question.memory_gb:  # a fit question: the fit is the answer
        holds = say("named.holds" if count == 1 else "named.hold", lang, **cards)
        return entry | {"status": "fits", "reason": f"{holds} ({speed}{'; ' + unpriced if unpriced else ''}){unbuildable}"}
    room = _room(advisor, question, gpu.memory_gb, count)
    if offer is None:
        return entry | {"status": "no-current-price", "reason": f"{gpu.name}: {unpriced}; {speed}{room}{unbuildable}"}
    return entry | {"status": "compared", "reason": f"{gpu.name}: {speed}, {gpu.memory_gb:g} GB{room}{_priced(advisor, question, as_of, offer, count)}"
                                                 f"{unbuildable}"}


def _priced(advisor: Advisor, question: Question, as_of: date, offer: Offer, count: int) -> str:
    """"; 2,550 USD (new), 50 USD over the budget": a named card's price is half of what the asker weighs."""
    pricing = advisor.pricing(as_of, question.currency, question.used_ok)
    total = offer.unit_usd * count
    money = pricing.money(total, offer.point)
    text = say("named.price", question.language, count=f"{count} × " if count > 1 else "", amount=f"{money.amount:,.0f}",
               currency=money.currency, kind=term("price.kind", offer.point.kind, question.language))
    if question.budget and total > pricing.to_usd(question.budget) * BUDGET_SLACK:
        text += say("named.over_budget", question.language, over=f"{money.amount - question.budget:,.0f}",
                    currency=money.currency)
    return text


def _room(advisor: Advisor, question: Question, memory_gb: float, count: int) -> str:
    """For an LLM compare with no model named, the largest dense model the cards hold: speed
    alone hides the trade people weigh (an RTX 5090 is faster; a 128 GB DGX Spark holds
    models the 5090 cannot)."""
    if question.workload != "llm" or question.model or question.params_b or question.memory_gb:
        return ""
    largest = _largest_model_b(advisor, question, memory_gb, count)
    if largest is None:
        return ""
    job = job_for(question.refined(params_b=largest), advisor.rulebook)
    lang = question.language
    return say("named.room", lang, params=f"{largest:g}", precision=term("precision", job.precision, lang),
               method=term("method", METHOD_NAMES[job.method], lang), context=f"{job.context_tokens:,}")


def _largest_model_b(advisor: Advisor, question: Question, memory_gb: float, count: int) -> float | None:
    """Largest dense model size (billions, two significant figures) whose job, as asked, fits: fit grows with size."""
    def fits(params_b: float) -> bool:
        return fit_on(job_for(question.refined(params_b=params_b), advisor.rulebook), memory_gb, count).fits

    low, high = 0.5, 2000.0
    if not fits(low):
        return None
    for _ in range(14):  # to well under 1 %: sizes then round down to two figures
        middle = (low * high) ** 0.5
        low, high = (middle, high) if fits(middle) else (low, middle)
    digits = 10 ** (len(str(int(low))) - 2) if low >= 100 else 1
    return float(int(low // digits * digits)) if low >= 10 else round(int(low * 10) / 10, 1)


def card_memory(question: Question, sizing: Sizing) -> list[dict[str, Any]]:
    """"Will llama 13b fit on 8 GB": whether a card (or the cards asked for) of that memory holds the job."""
    gb = question.card_memory_gb
    if not gb:
        return []
    count = max(question.gpus, 1)
    fit = sizing.fit(gb, count)
    lang = question.language
    cards = say("fit.cards", lang, count=count, gb=f"{gb:g}") if count > 1 else say("fit.one_card", lang, gb=f"{gb:g}")
    verdict = say("fit.holds" if fit.fits else "fit.does_not_hold", lang)
    return [{"asked": f"{gb:g} GB", "gpu": None, "name": cards, "status": "fits" if fit.fits else "does-not-fit",
             "reason": say("fit.card_memory", lang, cards=cards, verdict=verdict, reason=fit.reason)}]


def _need_text(advisor: Advisor, question: Question) -> str:
    job, lang = job_for(question, advisor.rulebook), question.language
    what = job.model.name if job.model else (f"{question.params_b:g}B" if question.params_b else say("named.the_job", lang))
    return say("named.need", lang, what=what, method=term("method", job.method, lang), precision=job.precision, gb=f"{job.need.gb:.0f}")


def _last_price(advisor: Advisor, gpu: Gpu, as_of: date) -> PricePoint | None:
    return advisor.pricing(as_of, "USD", True).last_known(gpu)


def compared(advisor: Advisor, ctx: Context, rulings: Rulings, pricing: Pricing, need: MemoryNeed, sizing: Sizing,
             named: list[dict[str, Any]]) -> Answer:
    """The named cards side by side: each priced one as a pick, every one in ``named``."""
    question, as_of = ctx.question, ctx.as_of
    offers: dict[str, Offer] = {}
    for o in advisor.offers(as_of):  # a new price wins; a used one stands in when no new price is known
        if o.gpu.id not in offers or o.condition == "new":
            offers[o.gpu.id] = o
    picks: list[Pick] = []
    shown: set[str] = set()
    bought: list[Configuration] = []
    for entry in named:
        offer = offers.get(entry["gpu"]) if entry["gpu"] else None
        if offer is None or entry["status"] in ("not-released",) or entry["gpu"] in shown:
            continue
        shown.add(entry["gpu"])
        count = entry.get("cards_needed") or max(question.gpus, 1)
        fit = sizing.fit(offer.gpu.memory_gb, count)
        relative = sizing.relative(offer.gpu)
        speed = relative * (1.0 if fit.serial else sizing.speedup(count))
        config = Configuration(offer, count, offer.unit_usd * count, relative, speed, fit, sizing.tokens_per_second(offer.gpu, count))
        picks.append(pick(config, rulings, pricing, advisor.performance.measured(offer.gpu.id), entry["status"], sizing.factor))
        bought.append(config)
    picks.sort(key=lambda p: (-p.performance_per_1000, p.gpu))
    unpriced = [e for e in named if e["status"] in ("no-current-price", "not-in-catalog", "not-released")]
    lang = question.language
    if len(picks) >= 2:
        fastest = max(picks, key=lambda p: (p.relative_performance, p.gpu))
        thriftiest = picks[0]
        summary = say("summary.compare", lang, fastest=fastest.name, workload=term("workload", ctx.label, lang),
                      relative=f"{fastest.relative_performance:.2f}", reference=advisor.reference.name,
                      thriftiest=thriftiest.name, currency=pricing.currency, per_1000=f"{thriftiest.performance_per_1000:.2f}")
    elif picks:
        summary = say("summary.compare_one", lang, name=picks[0].name)
    else:
        summary = say("summary.compare_none", lang)
    if unpriced:
        summary += "; " + "; ".join(e["reason"] for e in unpriced)
    findings = [line for entry in named for ruling in rulings if ruling.named is not None and (line := ruling.named(entry)) is not None]
    rent = advisor.rent(rulings, question, pricing, ctx.work, sizing, max(bought, key=lambda c: (c.relative, c.gpu.id)) if bought else None)
    if rent and not picks and any(o.named for o in rent.options):
        summary = rent.reason
    return Answer(
        question=question, intent="compare", verdict="compare", summary=summary, as_of=as_of.isoformat(),
        catalog_version=advisor.catalog.version, currency=pricing.describe(), reference_gpu=advisor.reference.id,
        workload=ctx.work, memory_need=need, picks=tuple(picks), findings=tuple(findings), named=NamedCard.all_of(named), rent_vs_buy=rent,
    )

