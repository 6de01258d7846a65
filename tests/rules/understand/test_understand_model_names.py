"""Model names are read whole: every alias of the model table means its model, the longest alias wins, and a
family word with a variant the table lacks is never another model of the family."""

from __future__ import annotations

import json
import re
from datetime import date
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.understand import parse
from rules.understand.grammar import grammar
from rules.understand.models import _table_names

TODAY = date(2026, 11, 26)
DATA = Path(__file__).parents[3] / "rules" / "data"
MODELS = json.loads((DATA / "models.json").read_text())["models"]
FAMILIES = [a for e in json.loads((DATA / "vocabulary.json").read_text())["models"] for a in e["aliases"]]
TEMPLATES = (
    "{}",
    "run {} on my gpu",
    "fit {} on an rtx pro 6000",
    "which gpu for {}, $3000",
    "serve {} to 9 users",
)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _read_by_family(alias: str) -> bool:
    """Names are read where a family word starts them ('kontext' alone is the table's, not a reader's)."""
    return any(_letters(alias).startswith(_letters(f)) for f in FAMILIES)


def _unique(alias: str) -> bool:
    return sum(_letters(alias) in {_letters(a) for a in m.get("aliases", ())} for m in MODELS) == 1


# a family's plain name ('stable diffusion') means the model of the question's date: its own test is in
# test_understand_models.py
DATED_NAMES = json.loads((DATA / "vocabulary.json").read_text())["dated_model_names"]["names"]
DATED = {word for entry in DATED_NAMES for word in entry["words"]}
ALIASES = [
    (m["id"], alias)
    for m in MODELS
    for alias in m.get("aliases", ())
    if _read_by_family(alias) and _unique(alias) and alias not in DATED
]


@pytest.mark.parametrize(("model", "alias"), ALIASES)
@pytest.mark.parametrize("template", TEMPLATES[:2])
def test_every_alias_means_its_model(model, alias, template):
    assert parse(template.format(alias), today=TODAY).question.model == model


@settings(max_examples=60, deadline=None)
@given(pair=st.sampled_from(ALIASES), template=st.sampled_from(TEMPLATES))
def test_every_alias_means_its_model_in_any_question(pair, template):
    model, alias = pair
    assert parse(template.format(alias), today=TODAY).question.model == model


# variant words the reader knows ('large', 'pro'), with and without a version; a word it does not know
# ends the name ('mistral ultra' reads 'mistral'), so only these can make a family's name longer
SAME_WEIGHTS = {"instruct", "chat", "it", "base", "hf", "distill", "preview", "thinking", "reasoning"}
WORDS = [w for w in json.loads((DATA / "vocabulary.json").read_text())["model_words"] if len(w) > 2]
VARIANTS = [f"{w}{v}" for w in WORDS if w not in SAME_WEIGHTS for v in ("", " 3", " 9.5")]


@settings(max_examples=60, deadline=None)
@given(
    family=st.sampled_from(["mistral", "flux", "gemma", "phi", "llama", "qwen", "gpt-2"]),
    variant=st.sampled_from(VARIANTS),
)
def test_a_family_with_a_variant_the_table_lacks_is_no_other_model(family, variant):
    """'mistral large 3' is not Mistral 7B: an unknown member of a known family is said to be unknown."""
    name = f"{family} {variant}"
    known = {_letters(a) for m in MODELS for a in (m["id"], *m.get("aliases", ()))}
    if _letters(name) in known:
        return
    reading = parse(f"run {name} on my gpus", today=TODAY)
    assert reading.question.model not in {m["id"] for m in MODELS}, (name, reading.question.model)


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("fit flux.1 kontext on an rtx pro 6000", "flux-1-kontext-dev"),
        ("fit flux kontext dev on a 5090", "flux-1-kontext-dev"),
        ("gpt-2 1.5b", "gpt2-xl"),
        ("run mistral large 3 on my gpus", None),
        ("mistral small 3.1 24b on a 4090?", "mistral-small-3"),
        ("deepseek r1 1.5b on a laptop", "deepseek-r1-distill-qwen-1.5b"),
    ],
)
def test_names_read_whole(text, model):
    assert parse(text, today=TODAY).question.model == model


_SEPARATORS = ("", " ", "-", ".", "_", ":", "  ", " - ")


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_every_alias_of_the_model_table_is_read_with_any_separators_between_its_parts(data) -> None:
    """An alias written with any separators between its parts, or none where a letter meets a number
    ('llama3.1', 'llama 3-1'), is read as its model and to its end."""
    names = grammar().patterns(_table_names)
    parts = data.draw(st.sampled_from(sorted(p for bucket in names.by_initial.values() for p in bucket)))
    text = parts[0]
    for before, part in pairwise(parts):
        separator = data.draw(st.sampled_from(_SEPARATORS))
        if not separator and before[-1].isdigit() and part[0].isdigit():
            separator = " "
        text += separator + part
    found = names.match(text, 0)
    assert found is not None and found == (names.models["".join(parts)], len(text))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_an_alias_runs_to_the_end_of_its_word(data) -> None:
    """A name never ends inside a number or a word: 'flux 12 hours a week' is no 'flux 1' followed by
    '2 hours a week' (it read two hours, and 'flux 10 hours a week' none at all)."""
    names = grammar().patterns(_table_names)
    parts = data.draw(st.sampled_from(sorted(p for bucket in names.by_initial.values() for p in bucket)))
    text = " ".join(parts)
    after = data.draw(st.sampled_from("0123456789abcxyz"))
    found = names.match(text + after, 0)
    assert found is None or found[1] != len(text)


@pytest.mark.parametrize("hours", [10, 12, 40])
def test_hours_after_a_model_name_are_the_hours(hours: int) -> None:
    question = parse(f"flux {hours} hours a week", today=TODAY).question
    assert (question.model, question.hours_per_week) == ("flux-1-dev", hours)


@pytest.mark.parametrize(
    ("text", "model", "gpus"),
    [
        ("deepseek v3 2 gpus", "deepseek-v3", 2),  # not DeepSeek V3.2 on one card
        ("mistral small 3 2 cards", "mistral-small-3", 2),
        ("deepseek v3.2 2 gpus", "deepseek-v3", 2),  # the version written as one, then the count
        ("phi 4 cards", "phi-4", 1),  # a family's one number stays its name
    ],
)
def test_a_number_after_a_version_and_before_cards_is_their_count(text: str, model: str, gpus: int) -> None:
    question = parse(text, today=TODAY).question
    assert (question.model, question.gpus) == (model, gpus)


def test_no_version_split_by_a_space_is_read_before_a_count_of_cards() -> None:
    """Every alias whose last two parts end in numbers ('deepseek v3.2', 'mistral small 3.2'), written with a
    space before its last number and followed by cards, is not that alias: that number counts the cards."""
    names = grammar().patterns(_table_names)
    aliases = [p for bucket in names.by_initial.values() for p in bucket]
    split = [p for p in aliases if len(p) > 1 and p[-1].isdigit() and p[-2][-1].isdigit()]
    assert split  # the table has such versions
    for parts in split:
        text = " ".join(parts) + " gpus"
        found = names.match(text, 0)
        assert found is None or found[1] < len(" ".join(parts))


@settings(max_examples=200, deadline=None)
@given(
    family=st.sampled_from(["flux", "gemma 3", "llama 3", "qwen", "mistral", "sdxl", "phi", "deepseek"]),
    amount=st.sampled_from([300, 450, 700, 999]),
    currency=st.sampled_from([("dollars", "USD"), ("usd", "USD"), ("euro", "EUR"), ("руб", "RUB")]),
)
def test_a_number_before_money_words_after_a_model_is_the_budget(
    family: str, amount: int, currency: tuple[str, str]
) -> None:
    """'flux 700 dollars' is FLUX with 700 USD, not a model 'flux 700' and no budget."""
    question = parse(f"{family} {amount} {currency[0]}", today=TODAY).question
    assert (question.budget, question.currency) == (amount, currency[1])


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("serve Qwen3-30B-A3B-Instruct-2507 with vllm", "qwen3-30b-a3b"),
        ("run mistral-small-3.2-24b-instruct-2506 at q6_k", "mistral-small-3"),
        ("qwen3-32b-2504 for 10 users", "qwen3-32b"),
        ("нужно поднять Qwen3-30B-A3B-Instruct-2507 в bf16", "qwen3-30b-a3b"),
    ],
)
def test_a_release_joined_to_a_name_is_part_of_it(text: str, model: str) -> None:
    """'-2507' is the July 2025 update of the same weights, not a count, a card or an amount."""
    parsed = parse(text, today=TODAY)
    assert parsed.question.model == model and parsed.question.budget is None
    assert not parsed.unknown and not parsed.question.compare


@pytest.mark.parametrize("verb", ["поднять", "гонять", "развернуть"])
def test_russian_verbs_for_running_a_model_say_inference(verb: str) -> None:
    parsed = parse(f"хочу {verb} qwen3 32b дома, бюджет 200 000 рублей", today=TODAY)
    assert parsed.question.task == "inference" and verb not in parsed.unknown
