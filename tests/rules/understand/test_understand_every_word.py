"""Every word of a question is read, or the reply names it: the cases new users met, each pinned.

Through :func:`rules.ask.ask`, the one path every face shares, so what is proved here is what the CLI, the
API, chat, Slack and the page show.
"""

from __future__ import annotations

from datetime import date

import pytest

from rules.advisor import Advisor
from rules.ask import ask
from rules.contract.question import Question
from rules.knowledge.loaded import load_catalog
from rules.understand import parse

TODAY = date(2026, 11, 26)


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor(load_catalog())


@pytest.mark.parametrize(
    "text", ["nlp $800 no used cards", "nlp $800 new cards only", "nlp 80000 рублей только новые"]
)
def test_new_only_never_gets_a_used_pick(advisor: Advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.question is not None and reply.question.new_only and not reply.question.used_ok
    assert reply.recommendation is not None and reply.recommendation.picks
    shown = [*reply.recommendation.picks, *(p for p in reply.recommendation.alternatives.values() if p)]
    assert all(p.condition == "new" for p in shown), [(p.gpu, p.condition) for p in shown]


def test_new_only_as_a_follow_up_drops_the_used_pick(advisor: Advisor) -> None:
    first = ask(advisor, "nlp $800", today=TODAY)
    assert first.recommendation is not None and first.recommendation.picks[0].condition == "used"
    then = ask(
        advisor,
        "what about only new cards?",
        previous=first.question,
        today=TODAY,
        shown=first.recommendation,
    )
    assert then.question is not None and then.question.new_only and then.question.budget == 800
    assert then.recommendation is not None
    assert all(p.condition == "new" for p in then.recommendation.picks)


def test_when_nothing_new_fits_the_answer_says_so_and_names_the_cheapest_new(advisor: Advisor) -> None:
    reply = ask(advisor, "llm 70b fp16 inference $300 new only", today=TODAY)
    answer = reply.recommendation
    assert answer is not None and answer.verdict == "over-budget" and not answer.picks
    assert "cheapest that does" in reply.text.splitlines()[0]
    assert "(used" not in reply.text
    assert "consider used cards" not in reply.text and "used cards are left out" in reply.text


def test_used_and_new_only_are_one_at_a_time() -> None:
    base = Question(workload="transformer", budget=800.0, new_only=True)
    used = parse("with used cards?", previous=base, today=TODAY).question
    assert used.used_ok and not used.new_only
    again = parse("only new cards", previous=used, today=TODAY).question
    assert again.new_only and not again.used_ok
    assert not parse("nlp $800", today=TODAY).question.new_only  # not said: neither


@pytest.mark.parametrize(
    ("text", "words"),
    [("nlp 00", ("00",)), ("nlp 00 zxqv", ("00", "zxqv")), ("nlp $", ("$",)), ("cv 1500 flurb", ("flurb",))],
)
def test_words_not_understood_are_named_in_the_reply(
    advisor: Advisor, text: str, words: tuple[str, ...]
) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.not_understood == words
    assert "Not understood: " + ", ".join(f"'{w}'" for w in words) in reply.text
    shell_mangled = any(w.strip("0") == "" or w == "$" for w in words)
    assert ("single quotes" in reply.text) == shell_mangled


def test_a_reply_that_read_every_word_has_no_such_line(advisor: Advisor) -> None:
    reply = ask(advisor, "nlp $800", today=TODAY)
    assert reply.not_understood == () and "Not understood" not in reply.text


@pytest.mark.parametrize(
    "text",
    [
        "what's the best graphics card for ai stuff",
        "gen ai for a beginner, $500",
        "какая видеокарта лучше для ии",
        "what hardware do I need to run qwen3 32b",
        "cheapest new setup to run gpt-oss-120b for myself",
        "какое железо нужно для qwen3 32b",
        "i'm a cs student with $600, want to learn pytorch and fine-tune small models, new card please",
        "which gpu runs flux.1 dev at fp16 fully in vram, no offloading?",
        "flux.1 dev at fp16 without offloading, budget $2000",
        "run llama 3.3 70b without offloading to cpu",
        "cs undergrad with $350, i want to learn deep learning in pytorch",
        "startup here: we serve qwen3 32b to 50 users",
        "we want to serve llama 3.3 70b to 10 people at once in our office",
        "how much would it cost to fine-tune llama 3.1 70b with qlora on 100k examples in the cloud?",
    ],
)
def test_ai_is_a_job(advisor: Advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.intent == "recommend" and reply.recommendation is not None and not reply.not_understood


@pytest.mark.parametrize(
    ("text", "budget", "params_b", "notes"),
    [
        ("transcribe 200 hours of audio with whisper", None, None, "hours of audio to transcribe: 200"),
        ("расшифровать 300 часов аудио через whisper", None, None, "hours of audio to transcribe: 300"),
        ("continue pretraining an 8b model on 100b tokens", None, 8, "training tokens (billions): 100"),
        ("pretrain a 1b model on 2t tokens, $5000", 5000, 1, "training tokens (billions): 2000"),
    ],
)
def test_amounts_of_work_are_neither_budgets_nor_sizes(text, budget, params_b, notes) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.budget == budget and parsed.question.params_b == params_b
    assert any(notes in line for line in parsed.understood), parsed.understood
    assert not parsed.unknown


@pytest.mark.parametrize(
    ("text", "card_gb", "need_gb"),
    [
        ("what can I run on a card with 64gb vram", 64, None),
        ("what llms can I run on a 24gb card", 24, None),
        ("will llama 70b q4 fit on a 64gb vram card", 64, None),
        ("fine-tune needs 64 gb", None, 64),
    ],
)
def test_the_cards_memory_is_not_the_jobs_need(text, card_gb, need_gb) -> None:
    question = parse(text, today=TODAY).question
    assert (question.card_memory_gb, question.memory_gb) == (card_gb, need_gb)


@pytest.mark.parametrize(
    "text",
    [
        "2x rtx 3090 for 70b",
        "rtx 3090 x2 for 70b",
        "a pair of 3090s for 70b",
        "two 3090s for 70b",
        "две rtx 3090 для 70b",
        "4-gpu 3090 rig for 70b",
    ],
)
def test_a_count_stays_with_its_card(text: str) -> None:
    question = parse(text, today=TODAY).question
    assert question.compare in (("rtx-3090",), ("rtx 3090",))
    assert question.gpus == (4 if "4-gpu" in text else 2)


@pytest.mark.parametrize(
    "text", ["best mac for local llms", "apple silicon for llms", "какой мак взять для ллм"]
)
def test_a_mac_question_is_answered_with_macs(advisor: Advisor, text: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.recommendation is not None and reply.recommendation.picks
    assert {p.vendor for p in reply.recommendation.picks} == {"apple"}
    assert not reply.not_understood


def test_pretraining_a_sized_model_on_a_server() -> None:
    question = parse("8 gpu server for pretraining a 7b model", today=TODAY).question
    assert (question.workload, question.method, question.gpus, question.setting, question.params_b) == (
        "llm",
        "pretrain",
        8,
        "server",
        7,
    )


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("is renting cheaper than buying an rtx 4090 if I train 5 hours a week", "rent-or-buy"),
        ("rent or buy a 4090 for 10 hours a week", "rent-or-buy"),
        ("что дешевле: арендовать или купить rtx 4090, если я обучаю 5 часов в неделю", "rent-or-buy"),
        ("I have an rtx 3060, what should I upgrade to for 32b models, $1000", "upgrade"),
        ("у меня rtx 3060, на что обновиться, до 100000 рублей", "upgrade"),
        ("what can I run on an rtx 5090", "what-runs-on"),
        ("что можно запустить на rtx 3090", "what-runs-on"),
        ("will llama 13b fit on a 3060", "fit"),
        ("compare 3090 and 4090 for llms", "compare"),
        ("nlp $800", "recommend"),
    ],
)
def test_intents(advisor: Advisor, text: str, intent: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.intent == intent
    assert not reply.not_understood
    assert reply.question is not None and not (intent == "rent-or-buy" and reply.question.budget)


def test_is_renting_cheaper_is_no_follow_up() -> None:
    parsed = parse("is renting cheaper than buying an rtx 4090 if I train 5 hours a week", today=TODAY)
    assert not any(line.startswith("cheaper") for line in parsed.understood)
    assert parsed.question.hours_per_week == 5 and parsed.question.compare == ("rtx 4090",)


@pytest.mark.parametrize(
    ("text", "name"),
    [("can I run gemma 5 on an rtx 4090", "gemma 5"), ("qwen 9 on a 5090", "qwen 9")],
)
def test_a_model_the_table_lacks_is_said_to_be_unknown(advisor: Advisor, text: str, name: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert f"I don't know '{name}'; tell me its size (for example '70b')" in reply.text


def test_a_size_given_for_an_unknown_model_is_used() -> None:
    parsed = parse("llama 4 scout 109b int4 on one h100", today=TODAY)
    assert parsed.question.params_b == 109 and not parsed.unknown_models


@pytest.mark.parametrize(
    ("text", "name", "open_model"),
    [
        ("which gpu do I need to run gpt-5 locally", "GPT-5", "gpt-oss-120b"),
        ("gpu to run claude at home", "Claude", "qwen3-235b-a22b"),
        ("run gemini locally on a 4090", "Gemini", "qwen3-235b-a22b"),
        ("какая видеокарта нужна, чтобы запустить gpt-5 локально", "GPT-5", "gpt-oss-120b"),
    ],
)
def test_a_closed_model_is_not_downloadable(advisor: Advisor, text: str, name: str, open_model: str) -> None:
    reply = ask(advisor, text, today=TODAY)
    assert reply.question is not None and reply.question.model == open_model
    assert name in reply.text and open_model in reply.text
    assert ("not downloadable" in reply.text) or ("нельзя скачать" in reply.text)


def test_gemma_is_no_closed_model() -> None:
    assert parse("gemma 3 27b on a 3090", today=TODAY).closed_models == ()


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("and with 2 of them?", 0),
        ("that card for training?", 0),
        ("what about the cheaper one?", "cheaper"),
        ("the second one with 3 cards", 1),
    ],
)
def test_references_resolve_to_the_answer_before(advisor: Advisor, text: str, which: int | str) -> None:
    first = ask(advisor, "llm $1200", today=TODAY)
    assert first.recommendation is not None
    answer = first.recommendation
    shown = [*answer.picks, *(p for p in answer.alternatives.values() if p)]
    cards = list(dict.fromkeys((p.gpu, p.unit_price.amount) for p in shown))
    wanted = (
        min(cards, key=lambda c: c[1])[0] if which == "cheaper" else cards[min(int(which), len(cards) - 1)][0]
    )
    then = ask(advisor, text, previous=first.question, today=TODAY, shown=answer)
    assert then.question is not None and wanted in then.question.compare
    assert then.recommendation is not None
    assert any(n.gpu == wanted for n in then.recommendation.named)


def test_a_reference_with_no_answer_before_says_so() -> None:
    parsed = parse("and with 2 of them?", today=TODAY)
    assert any("no earlier answer" in line for line in parsed.understood)


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("serve with vllm on vulkan", "backend", "vulkan"),
        ("llm on my mac (metal)", "backend", "metal"),
        ("run qwen3 8b with mlx", "backend", "mlx"),
    ],
)
def test_backends(text: str, field: str, value: str) -> None:
    parsed = parse(text, today=TODAY)
    assert getattr(parsed.question, field) == value and not parsed.unknown


@pytest.mark.parametrize(
    ("text", "workload", "task"),
    [
        ("gpu for video generation with wan 2.1 1.3b", "image-generation", "inference"),
        ("local coding assistant", "llm", "inference"),
        ("rag with embeddings", "llm", "inference"),
        ("run an ai agent locally", "llm", "inference"),
        ("fine-tune llama 8b with unsloth", "llm", "training"),
        ("axolotl lora of qwen3 8b", "llm", "training"),
        ("comfyui flux", "image-generation", "inference"),
        ("ollama on a budget of $400", "general", "inference"),
        ("генерация видео", "image-generation", "inference"),
    ],
)
def test_the_words_of_2026(text: str, workload: str, task: str) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.workload, parsed.question.task) == (workload, task), parsed.understood
    assert not parsed.unknown


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("serve llama 8b for 30 users", 30),
        ("20 people at once on qwen3 32b", 20),
        ("10 requests/s with vllm", 10),
        ("сервер для 50 пользователей одновременно", 50),
    ],
)
def test_users_served_at_once(text: str, users: int) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.users == users and parsed.question.batch == users and not parsed.unknown


def test_a_family_beside_another_kind_is_named_not_compared_alone(advisor: Advisor) -> None:
    reply = ask(advisor, "mac or pc for running llama 70b locally, $4000", today=TODAY)
    assert reply.intent == "recommend" and reply.recommendation is not None
    vendors = {p.vendor for p in reply.recommendation.picks} | {
        p.vendor for p in reply.recommendation.alternatives.values() if p
    }
    assert "apple" in vendors and vendors - {"apple"}, vendors


@pytest.mark.parametrize(
    "text", ["sdxl 4-bit inference $1500", "fit flux 8-bit as of 2019", "llama 3 8b 4 bit"]
)
def test_a_bit_width_is_no_model_version(text: str) -> None:
    assert parse(text, today=TODAY).unknown_models == ()


def test_fully_is_a_plain_word_in_a_fit_question(advisor: Advisor) -> None:
    reply = ask(advisor, "does qwen3 30b a3b q4_k_m fit fully on a 3090?", today=TODAY)
    assert reply.intent == "fit" and not reply.not_understood
