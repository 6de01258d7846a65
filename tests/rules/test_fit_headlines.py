"""The first line of a fit question answers it as asked: the count of cards asked, the speed first when the
question asks how fast, a lower precision that one card holds, and once for a card named with its memory."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.ask import ask
from rules.understand import parse
from tests.rules.conftest import TODAY
from tests.wire import wire

LLMS = ["llama 3 8b", "qwen3 8b", "mistral 7b", "gemma 3 12b", "qwen3 14b"]
CARDS = [("rtx 4090", "GeForce RTX 4090"), ("rtx 3090", "GeForce RTX 3090"), ("rtx 5090", "GeForce RTX 5090")]
SPEED_ASKED = [
    "how fast is {m} on an {c}",
    "how many tokens per second does {m} get on an {c}?",
    "{m} tokens/s on an {c}",
    "как быстро работает {m} на {c}",
    "tokens per second of {m} on an {c}",
    "speed of {m} on an {c}",
]
SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.function_scoped_fixture]}


def _first_line(advisor, text: str) -> str:
    return wire(ask(advisor, text, today=TODAY))["answer"].split("\n", 1)[0]


@settings(max_examples=24, **SETTINGS)
@given(model=st.sampled_from(LLMS), card=st.sampled_from(CARDS), phrasing=st.sampled_from(SPEED_ASKED))
def test_a_speed_asked_of_one_card_leads_with_the_speed(advisor, model, card, phrasing):
    line = _first_line(advisor, phrasing.format(m=model, c=card[0]))
    assert re.match(r"\*\*(About|Около) \d", line), line
    assert card[1] in line


@settings(max_examples=12, **SETTINGS)
@given(model=st.sampled_from(LLMS), count=st.sampled_from([("2x", "two"), ("two", "two"), ("3 x", "three")]))
def test_a_count_asked_is_the_count_the_first_line_judges(advisor, model, count):
    line = _first_line(advisor, f"will {model} fit on {count[0]} rtx 3090")
    assert f"{count[1]} GeForce RTX 3090 have 24 GB each" in line and "one GeForce" not in line, line


def test_a_card_named_with_its_memory_is_judged_once(advisor):
    line = _first_line(advisor, "can i run gpt-oss-20b on an rtx 5070 with 12gb?")
    assert line.startswith("**No:") and line.count("12 GB") == 1, line


def test_an_image_model_that_does_not_split_says_so_not_eight_cards(advisor):
    line = _first_line(advisor, "will flux dev fit on a 6gb rtx 2060 at 16-bit")
    assert "eight" not in line and "runs whole on each card" in line, line


def test_a_lower_precision_one_card_holds_turns_no_into_yes_at_it(advisor):
    """FLUX.1 dev at the engine's fp8 needs ~14 GB; from a 4-bit checkpoint about 9 GB, which a 12 GB RTX
    3060 holds: 'is a 3060 enough' is answered yes, at 4-bit (InsiderLLM's Flux guide: a 3060 runs it)."""
    line = _first_line(advisor, "is an rtx 3060 12gb enough for flux dev?")
    assert line.startswith("**Yes at 4-bit:"), line
    asked = _first_line(advisor, "is an rtx 3060 12gb enough for flux dev at fp8?")  # the precision was asked
    assert asked.startswith("**No:"), asked


@given(
    n=st.integers(min_value=5, max_value=200),
    unit=st.sampled_from(["tokens per second", "tok/s", "tokens/s", "t/s", "токенов в секунду"]),
    model=st.sampled_from(["qwen3 8b", "llama 3 8b", "gemma 3 27b"]),
)
@settings(max_examples=40, deadline=None)
def test_a_rate_of_tokens_is_the_speed_each_user_needs_never_money_or_data(n, unit, model):
    read = parse(f"{model} {n} {unit} on which gpu", today=TODAY).question
    assert read.tokens_per_user == n and read.budget is None and read.training_tokens_b is None
    sized = parse(f"{model} tokens/s on a 3060", today=TODAY).question  # "8b tokens/s": a size, then a rate
    assert sized.model is not None and sized.training_tokens_b is None


@settings(max_examples=12, **SETTINGS)
@given(
    phrasing=st.sampled_from(
        ["best laptop gpu for deep learning", "which gaming laptop for llm inference, $2000",
         "notebook for stable diffusion", "какой ноутбук купить для нейросетей"]
    )
)
def test_a_laptop_asked_for_is_said_first_to_be_outside_the_catalog(advisor, phrasing):
    """Laptop GPUs are not in the catalog: an answer of desktop cards says so before it names one."""
    reply = wire(ask(advisor, phrasing, today=TODAY))
    first = reply["answer"].split("\n", 1)[0]
    leads = ("Laptop GPUs are not in the catalog", "Ноутбучных видеокарт в каталоге нет")
    assert first.startswith(leads), first
    assert not reply["not_understood"] and reply["reading_notes"][0] == first


@settings(max_examples=12, **SETTINGS)
@given(
    model=st.sampled_from(["llama 4 scout", "qwen3 30b a3b", "gpt-oss-120b", "mixtral 8x7b"]),
    card=st.sampled_from(["rtx 4060", "rtx 3090", "rtx 5070"]),
)
def test_a_mixture_of_experts_that_does_not_fit_names_the_experts_in_ram(advisor, model, card):
    """llama.cpp keeps a mixture of experts' experts in system RAM (--cpu-moe / --n-cpu-moe), reading the
    few each token needs: an expert names that way before more cards, a dense model has none."""
    line = _first_line(advisor, f"will {model} fit on an {card}")
    if line.startswith("**No:"):
        assert "--n-cpu-moe" in line, line
    dense = _first_line(advisor, f"will llama 3 70b fit on an {card}")
    assert dense.startswith("**No:") and "--n-cpu-moe" not in dense, dense


def test_a_count_asked_that_does_not_hold_is_named_with_its_count(advisor):
    line = _first_line(advisor, "will llama 3 70b fp16 fit on 2 rtx 4090")
    assert "two GeForce RTX 4090 have 24 GB each" in line and "one GeForce" not in line, line


def test_a_fit_with_nothing_to_spare_is_only_just(advisor, catalog):
    """Llama 3.3 70B at Q8 needs ~77 GB; the 96 GB Mac Studio gives its GPU 72 GiB (77.3 GB): it holds the
    model with under 1% left, so the answer says only just, not a plain yes."""
    reply = wire(ask(advisor, "mac studio or rtx pro 6000 for llama 3.3 70b q8", today=TODAY))
    mac = next(n for n in reply["recommendation"]["named"] if n["gpu"] == "mac-studio-m3-ultra-96gb")
    assert mac["status"] == "fits" and mac["spare"] < 0.1 and "only just" in mac["reason"]
    assert "only just" in reply["answer"].split("\n", 1)[0]


@settings(max_examples=12, **SETTINGS)
@given(
    card=st.sampled_from([("rtx 3090", "GeForce RTX 3090", 350), ("rtx 5090", "GeForce RTX 5090", 575)]),
    count=st.sampled_from([(1, "a"), (2, "two")]),
    phrasing=st.sampled_from(["what psu do i need for {n} {c}", "how many watts for {n} {c}",
                              "какой блок питания нужен для {n} {c}"]),
)
def test_a_power_supply_asked_for_is_the_first_line(advisor, catalog, card, count, phrasing):
    """The rule power-and-slots counts the cards' board power, the rest of the system and a headroom: a
    question that asks for the PSU gets that first, for the cards it names at the count it names."""
    n, word = count
    line = _first_line(advisor, phrasing.format(n=word if n > 1 else "an", c=card[0]))
    power = advisor.rulebook.power_and_slots
    watts = catalog.gpu(card[0].replace(" ", "-")).tdp_w * n + power.system_power_w
    assert card[1] in line and f" {watts} " in re.sub(r"(?<=\d)[, \u00a0](?=\d{3})", "", line), line
    assert (f"{n} × " in line) == (n > 1), line


def test_a_speed_asked_of_several_cards_is_their_speed_together(advisor):
    line = _first_line(advisor, "tokens per second for llama 3 70b q4_k_m on two rtx 3090")
    assert line.startswith("**About") and "on two GeForce RTX 3090" in line, line
    assert "one GeForce" not in line, line


def test_a_lab_of_six_is_six_users():
    read = parse("our lab of 6 wants one shared server running qwen3 30b a3b", today=TODAY).question
    assert read.batch == 6 and read.shared  # a team's size is the batch of the people it serves


IMAGE_MODELS = ["flux dev", "flux kontext", "flux schnell", "wan 2.1 14b", "sd 3.5 large", "hunyuanvideo"]
SMALL_CARDS = ["gtx 1650", "rtx 2060", "rtx 4060", "rtx 3060 12gb", "rtx 4060 ti 16gb", "rtx 4090"]


def _fit_entry(advisor, model: str, card: str) -> dict:
    reply = wire(ask(advisor, f"will {model} run on an {card}?", today=TODAY))
    (entry,) = [e for e in reply["recommendation"]["named"] if e.get("gpu")]
    return {"first": reply["answer"].split("\n", 1)[0], **entry}


@settings(max_examples=25, **SETTINGS)
@given(model=st.sampled_from(IMAGE_MODELS), card=st.sampled_from(SMALL_CARDS))
def test_an_image_model_too_large_for_the_card_runs_from_system_ram_only_where_the_card_holds_enough(
    advisor, model, card
):
    """A card that holds an image model whole at some precision is told so; one that does not, but holds its
    working memory, runtime and the rule's share of the 4-bit weights, runs it with the rest in system RAM
    (ComfyUI does this on its own), and its first line says yes and slower; a card with less gets no."""
    from rules.knowledge.loaded import load_rulebook

    entry = _fit_entry(advisor, model, card)
    first = entry["first"]
    if entry.get("offloaded"):
        assert first.startswith("**Yes at 4-bit with part of the model in system RAM, slower"), first
        share = load_rulebook().memory_fit.diffusion_offload_resident_share
        assert entry["memory_gb"] * 1.073741824 >= entry["at_lower_gb"] * share, entry
        assert entry["status"] == "does-not-fit"
    else:
        assert "system RAM" not in first, first


def test_flux_kontext_on_an_8_gb_card_runs_at_4_bit_with_part_in_ram_and_not_on_a_4_gb_one(advisor):
    assert _fit_entry(advisor, "flux kontext", "rtx 4060")["first"].startswith("**Yes at 4-bit with part")
    assert _fit_entry(advisor, "flux kontext", "gtx 1650")["first"].startswith("**No:")
    assert _fit_entry(advisor, "flux kontext", "rtx 3060 12gb")["first"].startswith("**Yes at 4-bit:")


def test_only_just_on_several_cards_names_the_count_asked(advisor):
    """'Kimi K2 on 8 H200': the tight fit is judged on the eight cards asked, and the line says eight."""
    first = _first_line(advisor, "fit kimi k2 on 8 h200")
    assert first.startswith("**Only just:") and "eight NVIDIA H200" in first and "one NVIDIA" not in first


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("sd 3.5 large on a 12gb card", "**Yes at 8-bit: about 12 GB there, which one 12 GB card holds"),
        ("is 8gb enough for flux dev", "**Yes at 4-bit with part of the model in system RAM, slower"),
        ("is 4gb enough for flux dev", "**No: one 4 GB card does not hold the job"),
        ("will llama 3 70b fit in 24gb", "**No: one 24 GB card does not hold the job"),
    ],
)
def test_a_size_without_a_card_is_judged_as_a_named_card_is(advisor, text: str, start: str) -> None:
    """'Is 8 GB enough for FLUX.1 dev': the same yes at a lower precision, or with part of an image model in
    system RAM, that a card of that size named by name gets."""
    assert _first_line(advisor, text).startswith(start)


@pytest.mark.parametrize(
    ("text", "member"),
    [
        ("can I run llama 3.1 405b on a mac studio with 256gb?", "Mac Studio (M3 Ultra, 80-core GPU, 256 GB"),
        ("will llama 3 70b fit on a mac studio with 96gb", "Mac Studio (M3 Ultra, 60-core GPU, 96 GB)"),
        ("llama 3 70b on a mac studio with 64gb", "Mac Studio (M4 Max, 40-core GPU, 64 GB)"),
    ],
)
def test_a_family_named_with_its_memory_is_judged_as_that_member(advisor, text: str, member: str) -> None:
    """'A Mac Studio with 256 GB' is the 256 GB Mac Studio, judged alone: not the family's first member, and
    not a second, bare '256 GB card' beside it."""
    first = _first_line(advisor, text)
    assert member in first and first.count("Mac Studio") == 1, first
    assert "card" not in first, first


@pytest.mark.parametrize(
    "text", ["will deepseek r1 run on a dgx spark", "llama 3.1 405b on a mac studio with 256gb"]
)
def test_a_whole_computer_that_does_not_hold_the_job_is_not_stacked(advisor, text: str) -> None:
    """A unified-memory computer's memory does not pool with a second one's: never 'two hold it', never 'not
    even eight', and no experts kept in a system RAM it does not have apart from its GPU's."""
    first = _first_line(advisor, text)
    assert first.startswith("**No:") and "does not pool" in first, first
    assert "hold it" not in first and "system RAM" not in first, first


def test_the_speed_asked_of_a_computer_no_longer_sold_is_its_own_estimate(advisor) -> None:
    first = _first_line(advisor, "mac studio m3 ultra 512gb for deepseek r1, how fast?")
    assert re.match(r"\*\*~\d+ tokens/s on one Mac Studio \(M3 Ultra, 80-core GPU, 512 GB\)", first), first


@pytest.mark.parametrize(
    ("text", "since"),
    [
        ("can I run llama 3.1 405b on a mac studio with 256gb?", "2026-05"),
        ("mac studio m3 ultra 512gb for deepseek r1, how fast?", "2026-03"),
    ],
)
def test_a_fit_judged_on_a_withdrawn_computer_says_it_is_no_longer_sold(advisor, text, since) -> None:
    assert _first_line(advisor, text).endswith(f"(no longer sold new since {since})**")


def test_a_computer_still_on_sale_is_not_called_withdrawn(advisor) -> None:
    assert "no longer sold" not in _first_line(advisor, "will llama 3 70b fit on a mac studio with 96gb")


@pytest.mark.parametrize("text", ["fit kimi k2 on an rtx pro 6000", "влезет ли kimi k2 на rtx pro 6000"])
def test_a_count_the_open_air_card_cannot_build_names_the_form_that_can(advisor, text):
    """Seven open-air RTX PRO 6000 Workstation Editions do not go in one machine; seven Max-Q (blower) or
    Server Edition (passive) cards do: the first line says which form holds the model, not only how many."""
    from datetime import date

    from rules.ask import ask

    reply = ask(advisor, text, today=date(2026, 11, 27))
    named = reply.recommendation.named[0]
    assert named.cards_needed == 7 and isinstance(named.built_as, str)
    assert named.built_as != named.name and "RTX PRO 6000" in named.built_as
    assert named.built_as in reply.text.splitlines()[0]


OWNED_FIT = [
    "can my {c} run {m}?",
    "is my {c} enough for {m}?",
    "will {m} fit on my {c}?",
    "does {m} fit on my {c}?",
    "i have an {c}, can it run {m}?",
    "хватит ли моей {c} для {m}?",
]
OWNED_MODELS = ["qwen3 8b", "qwen3 32b", "llama 3.3 70b", "flux dev", "gemma 3 27b", "deepseek r1"]
OWNED_CARDS = ["rtx 3060", "rtx 4070", "rtx 4090", "rtx 3090", "rtx 5090"]


@settings(max_examples=40, **SETTINGS)
@given(
    model=st.sampled_from(OWNED_MODELS),
    card=st.sampled_from(OWNED_CARDS),
    phrasing=st.sampled_from(OWNED_FIT),
)
def test_will_it_fit_on_the_card_owned_is_answered_yes_or_no_for_that_card(advisor, model, card, phrasing):
    """The card the asker has is the one asked about: the first line says whether it holds the model, never
    a card to buy instead or a verdict on keeping it that does not say."""
    reply = wire(ask(advisor, phrasing.format(c=card, m=model), today=TODAY))
    first = reply["answer"].split("\n", 1)[0]
    owned = [e for e in reply["recommendation"]["named"] if e.get("owned")]
    assert reply["recommendation"]["intent"] == "fit" and len(owned) == 1, (first, owned)
    assert owned[0]["name"] in first, first
    if owned[0]["status"] == "fits":
        assert re.match(r"\*\*(Yes|Да)\b", first) or re.search(r"already holds|уже вмещает", first), first
    else:
        assert re.match(r"\*\*(No|Нет|Yes at|Да, при)\b", first), first
