"""The message catalogue: every message in every language, with the same fields to fill."""

from __future__ import annotations

import string

import pytest

from rules.knowledge import load_knowledge
from rules.knowledge.datafile import DATA_DIR, DataFileError, load_data
from rules.knowledge.messages import (
    Cited,
    Continued,
    Joined,
    Phrase,
    Term,
    basis,
    catalogue,
    cited,
    languages,
    say,
    spoken,
    term,
)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_catalogue_speaks_english_and_russian() -> None:
    assert set(languages()) == {"en", "ru"}
    assert all(set(entry) == {"en", "ru"} for entry in catalogue().values())


@pytest.mark.parametrize("key", sorted(catalogue()))
def test_each_language_fills_the_same_fields(key: str) -> None:
    entry = catalogue()[key]
    assert _fields(entry["ru"]) == _fields(entry["en"]), key
    words = "".join(literal for literal, _, _, _ in string.Formatter().parse(entry["en"])).replace("USD", "")
    assert entry["ru"] != entry["en"] or not any(ch.isalpha() for ch in words), f"{key} is not translated"


def test_say_fills_names_and_numbers_unchanged() -> None:
    assert say("pick.per_step", "ru", value="0.14", step="1000 EUR") == "0.14 на 1000 EUR"
    assert say("pick.per_step", None, value="0.14", step="1000 EUR") == "0.14 per 1000 EUR"
    assert say("heading.why", "en") == "Why" and say("heading.why", "ru") == "Почему"


def test_a_language_the_catalogue_lacks_reads_english_and_an_unknown_key_raises() -> None:
    assert say("heading.why", "de") == "Why"
    with pytest.raises(KeyError):
        say("no.such.message", "en")


def test_the_messages_are_the_loaded_knowledges() -> None:
    messages = load_knowledge().messages
    assert catalogue() is messages.catalogue and languages() == messages.languages
    assert all(messages.templates[key, None] == entry["en"] for key, entry in catalogue().items())
    with pytest.raises(TypeError):
        catalogue()["heading.why"]["en"] = "changed"


def test_a_term_is_the_word_itself_without_an_entry() -> None:
    assert term("pick", "no such label at all", "ru") == "no such label at all"
    word = next(key.split(".", 1)[1] for key in catalogue() if key.startswith("basis."))
    assert term("basis", word.replace("_", " "), "ru") == catalogue()[f"basis.{word}"]["ru"]


def test_basis_and_citations_in_another_language() -> None:
    assert basis("measured on 3 lab hosts", "en") == "measured on 3 lab hosts"
    assert basis("measured on 3 lab hosts", "ru") == say("basis.measured_on", "ru", hosts="3")
    assert cited("Dettmers 2023: 24 GB for transformers", "ru") == "Dettmers 2023"
    assert cited("Dettmers 2023: 24 GB for transformers") == "Dettmers 2023: 24 GB for transformers"


def test_a_message_missing_a_language_breaks_the_schema(tmp_path) -> None:
    import json

    broken = json.loads((DATA_DIR / "messages.json").read_text(encoding="utf-8"))
    broken["messages"]["heading.why"].pop("ru")
    (tmp_path / "messages.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(DataFileError, match="ru"):
        load_data("messages", tmp_path)


def test_digits_are_grouped_as_the_language_writes_them() -> None:
    """Russian groups digits with a space ("58 422 RUB"), English with a comma; decimals and lists stay."""
    assert say("pick.per_step", "ru", value="7.70", step="100,000 RUB") == "7.70 на 100 000 RUB"
    assert say("pick.per_step", "en", value="7.70", step="100,000 RUB") == "7.70 per 100,000 RUB"
    assert say("pick.in_all", "ru", price="1,234,567 RUB") == "1 234 567 RUB всего"
    assert say("pick.in_all", "ru", price="4.5, 8 and 12,5") == "4.5, 8 and 12,5 всего"
    assert say("pick.memory", "ru", gb="24") == "24 ГБ" and say("pick.memory", "en", gb="24") == "24 GB"


@pytest.mark.parametrize("language", ["en", "ru", None])
def test_a_phrase_said_later_reads_as_the_message_said_at_once(language: str | None) -> None:
    """A stage hands on a phrase; said in a language it is the message said there with its values, a value
    that is itself a phrase said first, in the same language."""
    inner = Phrase("pick.per_step", {"value": "0.14", "step": "1000 EUR"})
    assert spoken(inner, language) == say("pick.per_step", language, value="0.14", step="1000 EUR")
    outer = Phrase("choice.used_only", {}) + "; " + Term("method", "LoRA") + " " + Cited("Dettmers 2023: x")
    assert spoken(outer, language) == (
        say("choice.used_only", language)
        + "; "
        + term("method", "LoRA", language)
        + " "
        + cited("Dettmers 2023: x", language)
    )
    listed = Joined((Phrase("heading.why"), "x", Phrase("heading.why")), ", ")
    why = say("heading.why", language)
    assert spoken(listed, language) == ", ".join([why, "x", why])


def test_a_sentence_continued_after_a_colon_leaves_off_its_subject_as_each_language_needs() -> None:
    """ "Buy the X: about 1.3x faster than the Y": the comparison's sentence about the card to buy loses its
    subject behind the colon; a sentence about another card keeps it, lower-cased where English starts it
    with "The"."""
    fields = {
        "ratio": "1.3",
        "speeds": "",
        "price": "1,149 USD",
        "fast_price": "2,699 USD",
        "slow_price": "1,550 USD",
    }
    about_the_pick = Phrase(
        "headline.faster", {"fast": "RTX 5090", "slow": "RTX 4090", "more_or_less": "more", **fields}
    )
    about_another = Phrase(
        "headline.faster", {"fast": "RTX 4090", "slow": "RTX 5090", "more_or_less": "less", **fields}
    )
    buy = Phrase(
        "headline.compare_buy", {"name": "RTX 5090", "compared": Continued(about_the_pick, "RTX 5090")}
    )
    assert spoken(buy, "en").startswith("Buy the RTX 5090: about 1.3× faster than the RTX 4090")
    assert spoken(buy, "ru").startswith("Купите RTX 5090: примерно в 1.3× быстрее RTX 4090")
    other = Phrase(
        "headline.compare_buy", {"name": "RTX 5090", "compared": Continued(about_another, "RTX 5090")}
    )
    assert spoken(other, "en").startswith("Buy the RTX 5090: the RTX 4090 is about 1.3× faster")
    assert spoken(other, "ru").startswith("Купите RTX 5090: RTX 4090 примерно в 1.3× быстрее")


def test_a_phrase_is_never_printed_without_a_language() -> None:
    """Printing a phrase before it is said would show a Python repr to the asker: it fails instead."""
    with pytest.raises(TypeError, match="no language"):
        str(Phrase("heading.why"))
    with pytest.raises(TypeError, match="no language"):
        f"{Term('method', 'LoRA')}"
