"""The vocabulary document: valid, matching the question's values, every word understood alone."""

from __future__ import annotations

import json
import re
from datetime import date

from jsonschema import Draft202012Validator

from rules.contract import values
from rules.knowledge.datafile import DATA_DIR, SCHEMA_DIR, load_data
from rules.understand import parse
from rules.understand.grammar import Grammar, grammar

TODAY = date(2024, 6, 15)


def test_vocabulary_is_valid_and_matches_the_question_values() -> None:
    schema = json.loads((SCHEMA_DIR / "vocabulary.schema.json").read_text(encoding="utf-8"))
    data = json.loads((DATA_DIR / "vocabulary.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(data)
    sets = schema["properties"]["concepts"]["items"]["properties"]["set"]["properties"]
    assert tuple(schema["$defs"]["workload"]["enum"]) == values.WORKLOADS
    assert tuple(sets["experience"]["enum"]) == values.EXPERIENCE
    assert tuple(sets["task"]["enum"]) == values.TASKS
    assert tuple(sets["precision"]["enum"]) == values.PRECISIONS
    assert set(schema["properties"]["currencies"]["required"]) == set(values.CURRENCIES)


def test_a_broken_vocabulary_is_rejected_by_the_schema() -> None:
    schema = json.loads((SCHEMA_DIR / "vocabulary.schema.json").read_text(encoding="utf-8"))
    data = json.loads((DATA_DIR / "vocabulary.json").read_text(encoding="utf-8"))
    data["concepts"][0]["set"] = {"workload": "gaming"}
    assert list(Draft202012Validator(schema).iter_errors(data))
    data["concepts"][0]["set"] = {"workload": "cnn"}
    data["concepts"][0]["words"] = ["Upper Case"]
    assert list(Draft202012Validator(schema).iter_errors(data))


def test_every_vocabulary_word_is_understood_alone() -> None:
    """Each keyword, typed alone, changes the question or the intent (none is shadowed)."""
    data = json.loads((DATA_DIR / "vocabulary.json").read_text(encoding="utf-8"))
    missed = []
    for concept in data["concepts"]:
        meaning = concept["set"]
        if not meaning or "adjust" in meaning or "refers" in meaning or meaning.get("intent") == "compare":
            continue  # these need more words, or an answer before
        for word in concept["words"]:
            # a weak word counts only for a job people run: see test_weak_words in test_understand_words.py
            if set(meaning) == {"task_hint"}:
                parsed = parse(word.replace("*", "") + " llama 8b", today=TODAY)
                if parsed.question.task != "inference" or parsed.unknown:
                    missed.append(word)
                continue
            parsed = parse(word.replace("*", ""), today=TODAY)
            # a word for hardware the catalog does not hold is read as such, and said under the answer
            if not (parsed.changed or parsed.intent != "recommend" or parsed.outside) or parsed.unknown:
                missed.append(word)
    assert missed == []


def test_a_grammars_patterns_are_written_once_and_kept() -> None:
    """The grammar is what is kept between questions: each writer runs once, each keyword compiles once."""
    vocabulary = Grammar(load_data("vocabulary"))
    written: list[Grammar] = []

    def write(g: Grammar) -> re.Pattern[str]:
        written.append(g)
        return re.compile(g.thousands)

    first = vocabulary.patterns(write)
    assert vocabulary.patterns(write) is first and written == [vocabulary]
    assert vocabulary.keyword("nlp") is vocabulary.keyword("nlp")
    assert vocabulary.keyword("nlp").match("nlp") and not vocabulary.keyword("nlp").match("nlpx")
    assert grammar() is grammar()


def _as_alternation(words: list[str]) -> re.Pattern[str]:
    from rules.understand.grammar import any_of

    return re.compile(any_of(words))


def test_word_list_reads_a_word_as_the_alternation_of_every_word_does() -> None:
    """The filler list is matched by set lookups and stems, not a compiled alternation of every word: for any
    word with no spaces both must agree. Words are generated from the list's own spellings, their prefixes,
    extensions, hyphenations and joins, and random strings over the letters they use."""
    import random

    from rules.understand.grammar import WordList

    lists = {
        "fillers": list(grammar().data["fillers"]),
        "made up": ["i am", "re-do*", "a-b c", "x*", "über", "naïve", "q_1", "o'k", "под-ска*", "—dash"],
    }
    rng = random.Random(20261126)
    for name, words in lists.items():
        fast, slow = WordList(words), _as_alternation(words)
        alphabet = sorted({ch for w in words for ch in w.replace("*", "")} | set("-_'0éx"))
        spellings = [p.replace("*", "") for w in words for p in (w, w.replace(" ", ""), w.replace(" ", "-"))]
        candidates = set(spellings)
        for s in spellings:
            candidates |= {s[:i] for i in range(len(s))}
            candidates |= {s + tail for tail in ("s", "ing", "-", "'", "_x", "1")}
            candidates |= {"-" + s, s.upper(), s + "-" + rng.choice(spellings)}
        candidates |= {"".join(rng.choices(alphabet, k=rng.randint(1, 8))) for _ in range(5000)}
        for word in candidates:
            if re.search(r"\s", word):
                continue  # a leftover word holds no space
            assert fast.fullmatch(word) == (slow.fullmatch(word) is not None), (name, word)
