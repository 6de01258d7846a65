"""answer JSON → Block Kit: pure functions, tested on answers the real engine gives."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from bot.blocks import (
    ACTION_CHEAPER,
    ACTION_MORE_GPUS,
    ACTION_MORE_MEMORY,
    ACTION_SHARE,
    ACTION_WHY,
    MAX_BLOCKS,
    MAX_TURNS,
    SECTION_LIMIT,
    Conversation,
    answer_blocks,
    fallback_text,
    help_blocks,
    home_view,
    mrkdwn,
    problem_blocks,
    too_long_blocks,
    unavailable_blocks,
)
from rules.contract.answer import Reply
from tests.fake_slack import block_text, buttons


def render(reply: dict[str, Any], questions: tuple[str, ...] = ("nlp $800",),
           **kwargs: Any) -> list[dict[str, Any]]:
    conversation = Conversation(reply.get("conversation_id"), questions)
    return [b.to_dict() for b in answer_blocks(msgspec.convert(reply, Reply), conversation, **kwargs)]


def of_type(blocks: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [b for b in blocks if b["type"] == kind]


def test_top_pick_shows_name_price_and_the_date_of_the_price(replies):
    reply = replies["nlp $800"]
    top = reply["recommendation"]["picks"][0]
    blocks = render(reply)
    assert of_type(blocks, "header")[0]["text"]["text"] == f"Top pick: {top['name']}"
    pick_line = blocks[2]["text"]["text"]
    assert top["name"] in pick_line
    assert f"{top['unit_price']['amount']:,.0f} {top['unit_price']['currency']}" in pick_line
    assert top["unit_price"]["date"] in pick_line and top["unit_price"]["kind"] in pick_line


def test_why_lists_each_rule_on_its_own_line_with_its_id(replies):
    reply = replies["cv 2 gpus 3000"]
    answer = reply["recommendation"]
    rules = [r for r in answer["picks"][0]["rules"] if r["verdict"] != "warning"]
    seen = {(r["rule"], r["reason"]) for r in rules}
    rules += [f for f in answer["findings"]
              if f["verdict"] in ("applied", "info") and (f["rule"], f["reason"]) not in seen]
    sections = [b["text"]["text"] for b in of_type(render(reply, full=True), "section")]
    why = next(text for text in sections if text.startswith("*Why*"))
    lines = why.splitlines()[1:]
    assert len(lines) == len(rules)
    for line, rule in zip(lines, rules, strict=True):
        assert line == f"• `{rule['rule']}` {rule['reason']}"
    assert any(line.startswith("• `multi-gpu-speedup` ") for line in lines)  # the answer's own findings too


def blocks_of(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return render(reply)


def test_alternatives_rent_vs_buy_and_context_line(replies):
    reply = replies["cv 2 gpus 3000"]
    answer = reply["recommendation"]
    text = block_text(render(reply, ("cv 2 gpus 3000",)))
    for pick in answer["alternatives"].values():
        if pick:
            assert pick["name"] in text
    assert "*Rent or buy*" in text and "`rent-vs-buy`" in text
    assert answer["rent_vs_buy"]["offer"]["provider"] in text
    context = of_type(render(reply), "context")[-1]["elements"][0]["text"]
    assert answer["catalog_version"] in context and answer["as_of"] in context
    assert "performance estimated from specs" in context


def test_multi_gpu_warning_names_its_rule(replies):
    text = block_text(render(replies["cv 2 gpus 3000"], ("cv 2 gpus 3000",)))
    assert "*Watch out*" in text
    assert "`multi-gpu-heat`" in text


def test_measured_performance_is_said_so(replies):
    reply = replies["nlp $800"]
    reply["recommendation"]["performance_basis"] = "measured on 3 lab hosts"
    context = of_type(render(reply), "context")[-1]["elements"][0]["text"]
    assert "performance measured on 3 lab hosts" in context


def test_foreign_currency_context_gives_the_rate(replies):
    answer = replies["nlp 80000 руб"]["recommendation"]
    context = of_type(render(replies["nlp 80000 руб"]), "context")[-1]["elements"][0]["text"]
    assert f"1 USD = {answer['currency']['per_usd']:g} RUB" in context


def test_ephemeral_answer_has_refine_and_share_buttons_carrying_the_conversation(replies):
    reply = replies["cv 2 gpus 3000"]
    found = buttons(render(reply, ("cv 2 gpus 3000",)))
    assert set(found) == {ACTION_CHEAPER, ACTION_MORE_MEMORY, ACTION_MORE_GPUS, ACTION_WHY, ACTION_SHARE}
    why, share = (Conversation.from_value(found[a]["value"]) for a in (ACTION_WHY, ACTION_SHARE))
    assert why == share, "Why? explains the answer on screen"
    assert found[ACTION_MORE_GPUS]["text"]["text"] == "4 GPUs"  # already 2: the button doubles
    conversation, ask = Conversation.from_value(found[ACTION_CHEAPER]["value"])
    assert conversation == Conversation(reply["conversation_id"], ("cv 2 gpus 3000",)) and ask == "cheaper"
    assert Conversation.from_value(found[ACTION_MORE_GPUS]["value"])[1] == "4 gpus"
    assert Conversation.from_value(found[ACTION_SHARE]["value"])[1] is None


def test_one_gpu_answer_offers_two_gpus(replies):
    found = buttons(render(replies["nlp $800"]))
    assert found[ACTION_MORE_GPUS]["text"]["text"] == "2 GPUs"
    assert Conversation.from_value(found[ACTION_MORE_GPUS]["value"])[1] == "2 gpus"


def test_message_in_channel_and_shared_answers_have_no_share_button(replies):
    assert ACTION_SHARE not in buttons(render(replies["nlp $800"], ephemeral=False))
    shared = render(replies["nlp $800"], shared_by="U0ASKER")
    assert not of_type(shared, "actions")
    assert "Shared by <@U0ASKER>" in block_text(shared)


def test_a_conversation_too_long_for_a_button_gets_no_buttons(replies):
    questions = tuple(f"cheaper {i}" for i in range(MAX_TURNS + 1))
    assert not of_type(render(replies["nlp $800"], questions), "actions")


def test_public_url_adds_the_chart_and_a_link_to_the_question(replies):
    reply = replies["nlp $800"]
    answer = reply["recommendation"]
    blocks = render(reply, public_url="https://gpu.example.org/")
    image = of_type(blocks, "image")[0]
    assert image["image_url"] == (f"https://gpu.example.org/v1/charts/perf-per-dollar.png?workload={answer['workload']}"
                                  f"&as_of={answer['as_of']}")
    assert "<https://gpu.example.org/?q=nlp+%24800|" in block_text(blocks)
    assert not of_type(render(reply), "image")


def test_compare_and_fit_headlines(replies):
    compare = of_type(render(replies["compare 3090 4090"]), "header")[0]["text"]["text"]
    assert compare.startswith("Compared: ") and "3090" in compare and "4090" in compare
    fit = of_type(render(replies["fit llama 13b fp16"]), "header")[0]["text"]["text"]
    assert fit.startswith("Holds the model: ")


def test_help_reply_is_the_help_text_in_slack_markup(replies):
    blocks = render(replies["help"])
    text = block_text(blocks)
    assert "*whichgpu* tells you" in text and "**" not in text
    assert "• `nlp $800`" in text


def test_clarifying_reply_shows_the_text_and_examples(replies):
    reply = replies["asdf qwerty"]
    blocks = render(reply, ("asdf qwerty",))
    text = block_text(blocks)
    assert "asdf" in text and "Try:" in text and "`nlp $800`" in text
    assert not of_type(blocks, "actions")
    assert fallback_text(msgspec.convert(reply, Reply)) == reply["answer"]


def test_user_and_catalog_text_is_escaped(replies):
    reply = replies["nlp $800"]
    reply["recommendation"]["summary"] = "<!channel> & friends"
    text = block_text(render(reply, full=True))
    assert "&lt;!channel&gt; &amp; friends" in text and "<!channel>" not in text
    assert "&lt;@here&gt;" in block_text(problem_blocks("<@here>", "bad"))


def test_mrkdwn_converts_bold_links_and_lists():
    converted = mrkdwn("**Top** [page](https://x.org/a) & more\n- one")
    assert converted == "*Top* <https://x.org/a|page> &amp; more\n• one"


def test_errors_are_said_plainly():
    errors = [{"field": "as_of", "message": "must not be after today"}]
    text = block_text(problem_blocks("as of 2030", "as_of is in the future", errors))
    assert "Sorry, I can't answer “as of 2030”: as_of is in the future" in text
    assert "as_of: must not be after today" in text
    assert "didn't answer" in block_text(unavailable_blocks("nlp $800"))
    assert "600 characters" in block_text(too_long_blocks(600))


def test_home_view_lists_what_the_bot_does_with_examples():
    view = home_view().to_dict()
    assert view["type"] == "home"
    text = block_text(view["blocks"])
    for example in ("/whichgpu nlp $800", "/whichgpu compare 3090 4090", "/whichgpu fit llama 13b fp16"):
        assert example in text
    assert "Share in channel" in text


@pytest.mark.parametrize("question", ["nlp $800", "cv 4 gpus 3000", "compare 3090 4090", "fit llama 13b fp16",
                                      "as of 2019 kaggle", "asdf qwerty", "help", "nlp 80000 руб"])
def test_every_answer_keeps_within_slack_limits(replies, question):
    blocks = render(replies[question], (question,), public_url="https://gpu.example.org")
    blocks += [b.to_dict() for b in help_blocks()]
    assert len(blocks) <= 50
    for block in blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= 3000
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= 150
    for button in buttons(blocks).values():
        assert len(button["value"]) <= 2000
    json.dumps(blocks)  # serialisable as Slack receives it


def test_conversation_value_round_trip_and_bad_values():
    conversation = Conversation("c-1", ("nlp €900", "cheaper"))
    assert Conversation.from_value(conversation.to_value("2 gpus")) == (conversation, "2 gpus")
    for bad in ("", "{}", "[1]", '{"q": []}'):
        with pytest.raises(ValueError):
            Conversation.from_value(bad)


def test_a_rental_of_several_cards_says_how_many_the_hourly_price_is_for(replies):
    """'RunPod RTX 5090 (secure cloud) (RTX 5090): 3.56 USD/h' was the price of four:
    every face says '4 × RTX 5090'."""
    reply = replies["cv 4 gpus 3000"]
    offer = reply["recommendation"]["rent_vs_buy"]["offer"]
    assert offer["count"] == 4
    units = f"4 × {offer['accelerator']}"
    assert units in block_text(render(reply, ("cv 4 gpus 3000",)))
    assert units in reply["answer"]


@pytest.mark.parametrize("question", ["nlp $800", "cv 2 gpus 3000"])
def test_short_by_default_and_why_gives_every_finding_within_slacks_limits(replies, question):
    reply = replies[question]
    short, full = render(reply, (question,)), render(reply, (question,), full=True)
    texts = [b["text"]["text"] for b in of_type(short, "section")]
    short_why = [text for text in texts if text.startswith("*Why*")]
    assert len(short_why[0].splitlines()) - 1 <= 5 and len(block_text(short)) < len(block_text(full))
    answer = reply["recommendation"]
    assert answer["headline"] and answer["headline"] in block_text(short)  # the first line answers
    assert answer["summary"] in block_text(full) and answer["summary"] not in block_text(short)
    for finding in [*answer["findings"], *answer["picks"][0]["rules"]]:
        if finding["verdict"] in ("applied", "info"):
            assert finding["reason"] in block_text(full), finding
    assert ACTION_WHY in buttons(short) and ACTION_WHY not in buttons(full)
    for blocks in (short, full):
        assert len(blocks) <= MAX_BLOCKS
        assert all(len(b["text"]["text"]) <= SECTION_LIMIT for b in of_type(blocks, "section"))


def test_thread_memory_keeps_a_threads_first_and_newest_questions():
    """A thread's memory grew with every follow-up; it keeps its first question and the newest ones."""
    from bot.app import THREAD_QUESTIONS, ThreadMemory

    memory = ThreadMemory(size=2)
    conversation = Conversation(None, ("nlp $800",))
    for i in range(500):
        conversation = conversation.then(f"cheaper {i}?", None)
        memory.put("C1", "t1", conversation)
        conversation = memory.get("C1", "t1")
    assert len(conversation.questions) == THREAD_QUESTIONS
    assert conversation.questions[0] == "nlp $800" and conversation.questions[-1] == "cheaper 499?"
