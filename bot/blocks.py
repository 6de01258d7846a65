"""A typed answer of ``/v1/ask`` (:class:`~rules.answer.Reply`) as Slack Block Kit: pure functions, no I/O.

``answer_blocks`` is the whole reply: the top pick with its price and the date of
that price, why (each rule on its own line with its id), the other picks and the
alternatives, warnings, rent vs buy, a context line (catalog, date, measured or
estimated), and buttons that refine the answer or share it. The buttons carry a
:class:`Conversation` in their value, so a click needs no state in the bot.
Short by default (the reasons that decided the answer, three picks) with a *Why?*
button; the full form holds every finding, split over sections within Slack's limits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    ImageBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from rules.contract.answer import Answer, Finding, Money, Pick, RentVsBuy, Reply
from rules.contract.text import MAX_TEXT_CHARS
from rules.knowledge.messages import basis, say, term
from rules.render.figures import dated_text, memory_text, price_text, speed_per_money
from rules.render.replies import help_text
from rules.render.short import MAX_PICKS, deciding

__all__ = [
    "ACTION_CHEAPER",
    "ACTION_MORE_GPUS",
    "ACTION_MORE_MEMORY",
    "ACTION_SHARE",
    "ACTION_WHY",
    "MAX_BLOCKS",
    "REFINEMENTS",
    "Conversation",
    "answer_blocks",
    "failed_blocks",
    "fallback_text",
    "help_blocks",
    "home_view",
    "mrkdwn",
    "problem_blocks",
    "too_long_blocks",
    "unavailable_blocks",
]

SECTION_LIMIT = 3000   # Slack: text of a section block
HEADER_LIMIT = 150     # Slack: plain text of a header block
VALUE_LIMIT = 2000     # Slack: value of a button
MAX_TURNS = 6          # questions a conversation keeps in a button value
MAX_BLOCKS = 50        # Slack: blocks in one message

ACTION_CHEAPER = "whichgpu.cheaper"
ACTION_MORE_MEMORY = "whichgpu.more_memory"
ACTION_MORE_GPUS = "whichgpu.more_gpus"
ACTION_SHARE = "whichgpu.share"
ACTION_WHY = "whichgpu.why"
REFINEMENTS = (ACTION_CHEAPER, ACTION_MORE_MEMORY, ACTION_MORE_GPUS)

EXAMPLES = (
    ("nlp $800", "best card for transformers under $800"),
    ("cv 2 gpus 3000", "two cards for vision, 3000 USD in total"),
    ("fit llama 13b fp16", "which cards hold a model"),
    ("compare 3090 4090", "two cards side by side"),
    ("as of 2019 kaggle", "the advice as it stood on a date"),
)
ALTERNATIVE_LABELS = {"cheaper": "Cheaper", "roomier": "More memory", "faster": "Faster"}


@dataclass(frozen=True)
class Conversation:
    """The questions asked so far (first to last) and the service's conversation id.

    Refining asks the next question in the conversation; sharing posts the answer
    shown for it (:class:`bot.answers.ShownAnswers`), or asks its questions again
    when this process no longer has it.
    """

    conversation_id: str | None
    questions: tuple[str, ...]

    def then(self, question: str, conversation_id: str | None) -> Conversation:
        return Conversation(conversation_id, (*self.questions, question))

    def to_value(self, ask: str | None = None) -> str:
        """A button value: this conversation and the question the button asks next (if any)."""
        data: dict[str, Any] = {"c": self.conversation_id, "q": list(self.questions)}
        if ask:
            data["a"] = ask
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_value(cls, value: str) -> tuple[Conversation, str | None]:
        """The conversation in a button value and the question to ask next; ValueError if malformed."""
        try:
            data = json.loads(value)
            questions = tuple(str(q) for q in data["q"])
        except (TypeError, KeyError, json.JSONDecodeError) as exc:
            raise ValueError(f"not a whichgpu button value: {exc}") from None
        if not questions:
            raise ValueError("not a whichgpu button value: no questions")
        if len(questions) > MAX_TURNS:  # the bot never makes one: forged, and each question costs an answer
            raise ValueError(f"not a whichgpu button value: {len(questions)} questions, at most {MAX_TURNS}")
        return cls(data.get("c"), questions), (str(data["a"]) if data.get("a") else None)

    @property
    def fits_in_button(self) -> bool:
        return len(self.questions) <= MAX_TURNS and len(self.to_value("more memory")) + 32 <= VALUE_LIMIT


# --- text ------------------------------------------------------------------

def escape(text: str) -> str:
    """Slack's three control characters, escaped (user and catalog text)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(markdown: str) -> str:
    """The product's Markdown as Slack mrkdwn: **bold** → *bold*, [t](u) → <u|t>, lists → bullets."""
    text = escape(markdown)
    text = re.sub(r"\*\*(.+?)\*\*", r"*\1*", text)
    text = re.sub(r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r"<\2|\1>", text)
    return re.sub(r"(?m)^(\s*)- ", r"\1• ", text)


def _clip(text: str, limit: int = SECTION_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _section(text: str) -> SectionBlock:
    return SectionBlock(text=MarkdownTextObject(text=_clip(text)))


def _context(text: str) -> ContextBlock:
    return ContextBlock(elements=[MarkdownTextObject(text=_clip(text))])


def _headed(heading: str, lines: Iterable[str], lang: str | None = None) -> SectionBlock:
    """A section of lines under a bold heading (a ``heading.*`` phrase)."""
    return _section(f"*{say(heading, lang)}*\n" + "\n".join(lines))


def _headed_sections(heading: str, lines: Iterable[str], lang: str | None = None) -> list[Block]:
    """Lines under a bold heading, in as many sections as Slack's 3000 characters a section need: no line
    is cut off (a single line longer than a section is, with an ellipsis)."""
    sections: list[list[str]] = [[f"*{say(heading, lang)}*"]]
    for line in lines:
        if len("\n".join([*sections[-1], line])) > SECTION_LIMIT:
            sections.append([])
        sections[-1].append(line)
    return [_section("\n".join(part)) for part in sections if part]


def _suggestions(suggestions: Iterable[str], lang: str | None = None) -> SectionBlock:
    return _headed("heading.what_would_work", (f"• {escape(s)}" for s in suggestions), lang)


def _money(money: Money, lang: str | None = None) -> str:
    return price_text(money, lang)


def _pick_name(pick: Pick) -> str:
    count = f"{pick.count} × " if pick.count > 1 else ""
    return f"{count}{pick.name}"


def _pick_line(pick: Pick, lang: str | None = None) -> str:
    price = pick.unit_price
    each = " " + say("pick.each", lang) if pick.count > 1 else ""
    kind_words, when = dated_text(price, lang)  # an aged price says what it was and how old
    dated = f" ({escape(kind_words)}, {when})" if price.seen else ""
    relative = say("pick.reference", lang, relative=f"{pick.relative_performance:.2f}")
    per_money = speed_per_money(pick, lang)
    name = escape(_pick_name(pick))
    memory = memory_text(pick.memory_gb, lang)
    return f"*{name}* — {_money(price, lang)}{each}{dated}; {relative}, {per_money}, {memory}"


def _rule_line(finding: Finding, mark: str = "•") -> str:
    return f"{mark} `{escape(finding.rule)}` {escape(finding.reason)}"


# --- answers ---------------------------------------------------------------

def answer_blocks(reply: Reply, conversation: Conversation, *, ephemeral: bool = True,
                  public_url: str | None = None, shared_by: str | None = None,
                  full: bool = False) -> list[Block]:
    """The reply as blocks, short unless ``full``; help and clarifying replies get their own short forms."""
    if reply.intent == "help":
        return help_blocks(help_markdown=reply.text or help_text())  # the service's, in the asker's language
    answer = reply.recommendation
    if not answer or not answer.picks:
        return _text_reply_blocks(reply, answer)
    lang = answer.language
    headline = _clip(_headline(reply.intent, answer, lang), HEADER_LIMIT)
    blocks: list[Block] = [HeaderBlock(text=PlainTextObject(text=headline))]
    if shared_by:
        asked = escape(conversation.questions[-1])
        blocks.append(_context(f"Shared by <@{escape(shared_by)}> · asked: “{asked}”"))
    blocks.append(_section(escape(answer.headline or answer.summary)))  # the first line answers the question
    blocks += [_context(mrkdwn(note)) for note in reply.reading_notes]  # what the reading could not use
    if full and answer.headline and answer.headline != answer.summary:
        blocks.append(_section(escape(answer.summary)))
    blocks += _picks(answer, lang, full)
    blocks += _alternatives(answer, lang)
    blocks += _warnings(answer, lang)
    blocks += _rent_vs_buy(answer.rent_vs_buy, lang)
    if answer.suggestions:
        blocks.append(_suggestions(answer.suggestions, lang))
    if public_url:
        blocks += _chart(public_url, answer, conversation, lang)
    blocks.append(_context(_basis_line(answer, lang)))
    buttons = [] if shared_by else _buttons(answer, conversation, ephemeral, full)  # shared stays shared
    if len(blocks) > MAX_BLOCKS - 2:  # Slack refuses a message of more blocks: the page has the rest
        blocks = [*blocks[: MAX_BLOCKS - 3], _context(_basis_line(answer, lang))]
    if buttons:
        blocks.append(ActionsBlock(block_id="whichgpu.actions", elements=buttons))
    return blocks


def _headline(intent: str, answer: Answer, lang: str | None = None) -> str:
    picks = answer.picks
    if intent == "compare" and len(picks) > 1:
        return say("slack.compared", lang, names=" vs ".join(p.name for p in picks))
    if intent == "fit":
        return say("slack.holds_model", lang, name=_pick_name(picks[0]))
    return say("slack.top_pick", lang, name=_pick_name(picks[0]))


def _picks(answer: Answer, lang: str | None = None, full: bool = True) -> list[Block]:
    """The top pick and why: every finding in full, else the ones that decided it; the other picks."""
    top, *others = answer.picks
    blocks: list[Block] = [_section(_pick_line(top, lang))]
    if full:
        rules = [r for r in top.findings if r.verdict != "warning"]
        seen = {(r.rule, r.reason) for r in rules}
        rules += [f for f in answer.findings
                  if f.verdict in ("applied", "info") and (f.rule, f.reason) not in seen]
    else:
        rules = [f for f in deciding(answer) if f.verdict != "warning"]  # the warnings have their own block
        others = others[: MAX_PICKS - 1]
    why = [_rule_line(r) for r in rules]
    if why:
        blocks += _headed_sections("heading.why", why, lang)
    if others:
        lines = [f"{index}. {_pick_line(pick, lang)}" for index, pick in enumerate(others, 2)]
        blocks.append(_headed("heading.also_good", lines, lang))
    return blocks


def _alternatives(answer: Answer, lang: str | None = None) -> list[Block]:
    def label(kind: str) -> str:
        if lang and lang != "en":
            return term("label", kind, lang)
        return ALTERNATIVE_LABELS.get(kind, kind.title())

    alternatives = sorted(answer.alternatives.items())
    lines = [f"• {label(kind)}: {_pick_line(pick, lang)}" for kind, pick in alternatives if pick]
    return [_headed("heading.alternatives", lines, lang)] if lines else []


def _warnings(answer: Answer, lang: str | None = None) -> list[Block]:
    found = [*answer.warnings, *(r for r in answer.picks[0].findings if r.verdict == "warning")]
    unique = list({(w.rule, w.reason): w for w in found}.values())
    return [_headed("heading.watch_out", (_rule_line(w, "⚠️") for w in unique), lang)] if unique else []


def _rent_vs_buy(rent: RentVsBuy | None, lang: str | None = None) -> list[Block]:
    if not rent:
        return []
    offer = rent.offer
    where = " ".join(escape(part) for part in (offer.provider, offer.instance) if part)
    per_hour = f"{rent.rent_per_hour.amount:.2f} {rent.rent_per_hour.currency}"
    offered = say("rent.offer", lang, where=where, accelerator=escape(offer.units), per_hour=per_hour,
                  date=offer.seen)
    lines = [f"• {offered}", f"• `rent-vs-buy` {escape(rent.reason)}"]
    return [_headed("heading.rent_or_buy", lines, lang)]


def _basis_line(answer: Answer, lang: str | None = None) -> str:
    currency = answer.currency
    rate = ""
    if currency.code != "USD":
        rate = say("slack.rate", lang, per_usd=f"{currency.per_usd:g}", currency=currency.code,
                   date=currency.rate_date)
    icon = "🔬" if answer.performance_basis.startswith("measured") else "📐"
    reference = say("answer.relative_to", lang, reference=escape(answer.reference_gpu))
    return say("slack.basis", lang, as_of=answer.as_of, catalog=escape(answer.catalog_version), icon=icon,
               basis=escape(basis(answer.performance_basis, lang)), reference=reference, rate=rate)


def _chart(public_url: str, answer: Answer, conversation: Conversation,
           lang: str | None = None) -> list[Block]:
    base = public_url.rstrip("/")
    chart = f"{base}/v1/charts/perf-per-dollar.png?" + urlencode({"workload": answer.workload,
                                                                  "as_of": answer.as_of})
    page = f"{base}/?" + urlencode({"q": conversation.questions[0]})  # the page takes one whole question
    alt_text = f"Performance per dollar, {answer.workload}, as of {answer.as_of}"
    return [ImageBlock(image_url=chart, alt_text=alt_text),
            _context(say("slack.open_on_web", lang, url=page))]


def _buttons(answer: Answer, conversation: Conversation, shareable: bool,
             full: bool = False) -> list[ButtonElement]:
    if not conversation.fits_in_button:
        return []
    gpus = answer.question.gpus
    more = 2 if gpus < 2 else min(gpus * 2, 16)
    # The follow-ups are phrases the service's parser reads as refinements of the previous question.
    refinements = (("Cheaper", ACTION_CHEAPER, "cheaper"), ("More memory", ACTION_MORE_MEMORY, "more memory"),
                   (f"{more} GPUs", ACTION_MORE_GPUS, f"{more} gpus"))
    buttons = [ButtonElement(text=text, action_id=action, value=conversation.to_value(ask))
               for text, action, ask in refinements]
    if not full:  # the full form of this same answer
        buttons.append(ButtonElement(text="Why?", action_id=ACTION_WHY, value=conversation.to_value()))
    if shareable:
        buttons.append(ButtonElement(text="Share in channel", action_id=ACTION_SHARE,
                                     value=conversation.to_value(), style="primary"))
    return buttons


def _text_reply_blocks(reply: Reply, answer: Answer | None) -> list[Block]:
    """Clarifying replies, and answers with nothing to pick (the engine says why in text)."""
    lang = answer.language if answer else (reply.question.language if reply.question else None)
    blocks: list[Block] = [_section(mrkdwn(reply.text or say("slack.no_answer", lang)))]
    if answer and answer.suggestions:
        blocks.append(_suggestions(answer.suggestions, lang))
    if reply.follow_up:
        examples = " · ".join(f"`{escape(q)}`" for q in reply.follow_up[:5])
        blocks.append(_context(say("slack.try", lang, examples=examples)))
    return blocks


def fallback_text(reply: Reply) -> str:
    """The notification and screen-reader text that goes beside the blocks."""
    if reply.recommendation and reply.recommendation.summary:
        return _clip(reply.recommendation.summary)
    return _clip(reply.text or "whichgpu")


# --- help, errors, home ----------------------------------------------------

def help_blocks(note: str | None = None, help_markdown: str | None = None) -> list[Block]:
    """The help (English unless ``help_markdown`` gives the service's, in the asker's language), after
    ``note``."""
    help_markdown = help_markdown if help_markdown is not None else help_text()
    blocks: list[Block] = [_section(f"{escape(note)}\n")] if note else []
    return [*blocks, _section(mrkdwn(help_markdown))]


def too_long_blocks(length: int) -> list[Block]:
    return help_blocks(f"That question is {length} characters long; I read up to {MAX_TEXT_CHARS}. "
                       "Ask it in a line, like the examples below.")


def problem_blocks(question: str, detail: str, errors: Iterable[dict[str, Any]] = ()) -> list[Block]:
    """A 4xx from the service, said politely, with its detail and field errors."""
    lines = [f"Sorry, I can't answer “{escape(_clip(question, 200))}”: {escape(detail)}"]
    for error in errors:
        field, message = str(error.get("field") or "question"), str(error.get("message") or "")
        lines.append(f"• {escape(field)}: {escape(message)}")
    return [_section("\n".join(lines)), _context("Type `/whichgpu help` for examples.")]


def unavailable_blocks(question: str) -> list[Block]:
    return [_section(f":warning: The whichgpu service didn't answer “{escape(_clip(question, 200))}” in time "
                     "(it may be down or busy). Please try again in a minute."),
            _context("If this keeps happening, tell whoever runs whichgpu in your workspace.")]


def failed_blocks(question: str) -> list[Block]:
    """The bot could not read the service's answer (a newer service, a bug): say so rather than nothing."""
    asked = escape(_clip(question, 200))
    return [_section(f":warning: Sorry, something went wrong on our side while answering “{asked}”. "
                     "Please try again later."),
            _context("If this keeps happening, tell whoever runs whichgpu in your workspace.")]


def home_view() -> View:
    """The App Home tab: what the bot does, with examples."""
    examples = "\n".join(f"• `/whichgpu {q}` — {escape(what)}" for q, what in EXAMPLES)
    blocks: list[Block] = [
        HeaderBlock(text=PlainTextObject(text="whichgpu: which GPU to buy or rent for deep learning")),
        _section("Ask with `/whichgpu <question>` in any channel, mention me (`@whichgpu nlp $800`) "
                 "and I answer in the thread, or write to me here in Messages."),
        _section("*Examples*\n" + examples),
        DividerBlock(),
        _section("*What you get*\n• the top pick with its price and the date of that price\n"
                 "• why: every line names the rule of thumb behind it\n"
                 "• cheaper, roomier and faster alternatives, "
                 "warnings (e.g. blower-style cards for multi-GPU)\n"
                 "• whether renting a cloud GPU or TPU would be cheaper at your hours\n"
                 "• buttons: *Cheaper*, *More memory*, *2 GPUs* refine the answer; "
                 "*Share in channel* posts it"),
        _context("Answers are private to you until you share them. Performance is measured on your lab's "
                 "machines where bench-agent runs, otherwise estimated from specs."),
    ]
    return View(type="home", blocks=blocks)
