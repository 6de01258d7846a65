"""The stages before the answer is put together say what they found as phrases and never take the asker's
language: the language is applied where the answer is assembled (rent, named cards, assemble, render), so
that a stage can be read, tested and changed without the prose of two languages in it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rules.advisor import Advisor
from rules.asker import asker_for
from rules.configurations import fit_on
from rules.contract.question import Question
from rules.job import job_for
from rules.knowledge.loaded import load_catalog, load_rulebook
from rules.knowledge.messages import Joined, Phrase, spoken
from rules.terms import TermsContext, terms_for

RULES = Path(__file__).resolve().parents[2] / "rules"
# The stages up to the choice, and the choice itself: none of them says anything in a language.
LANGUAGE_FREE = (
    "asker.py",
    "job.py",
    "job_defaults.py",
    "need.py",
    "memory_terms.py",
    "terms.py",
    "box.py",
    "configurations.py",
    "objective.py",
    "ranking.py",
    "leading.py",
    "choice_notes.py",
    "stages.py",
    "choose.py",
    "market.py",
)
SAYING = {"say", "spoken", "term", "cited", "grouped", "basis", "count_word", "article"}


def _sayers(path: Path) -> list[str]:
    """The names a module imports that put words into a language, and the parameters that carry one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module == "rules.knowledge.messages":
            found += [f"{path.name}:{node.lineno} imports {a.name}" for a in node.names if a.name in SAYING]
        elif isinstance(node, ast.arg) and node.arg in ("language", "lang"):
            found.append(f"{path.name}:{node.lineno} takes {node.arg}")
    return found


@pytest.mark.parametrize("name", LANGUAGE_FREE)
def test_a_stage_before_the_answer_takes_no_language(name: str) -> None:
    assert _sayers(RULES / name) == []


def test_the_check_sees_a_language_taken(tmp_path: Path) -> None:
    module = tmp_path / "stage.py"
    module.write_text(
        "from rules.knowledge.messages import Phrase, say\n\ndef f(x, language=None):\n    return x\n"
    )
    assert _sayers(module) == ["stage.py:1 imports say", "stage.py:3 takes language"]


@pytest.mark.parametrize(
    "asked",
    [
        Question(workload="llm", model="llama-70b", task="inference", precision="4-bit", gpus=2),
        Question(workload="llm", model="qwen3-32b", method="lora"),
        Question(workload="cnn", budget=900),
        Question(workload="llm", params_b=13.0, task="inference", users=20),
    ],
)
def test_the_same_job_is_said_in_each_language_from_one_count(asked: Question) -> None:
    """One job, counted once without a language, said in English and in Russian: each reads as its own
    language says it, and the figures are the same in both."""
    rulebook = load_rulebook()
    job = job_for(asked, rulebook)
    fit = fit_on(job, 24, asked.gpus)
    said = Joined((job.need.how, "; ", fit.said, "; ", Joined(job.assumptions, "; ")))
    english, russian = spoken(said, "en"), spoken(said, "ru")
    assert english != russian
    digits = [c for c in english if c.isdigit()]
    assert digits == [c for c in russian if c.isdigit()]
    assert "GB" in english and "ГБ" in russian


def test_terms_said_in_a_language_name_their_rule_in_it() -> None:
    """A rule's filter line is a phrase until the answer says it: the same terms read in either language."""
    catalog = load_catalog()
    advisor = Advisor(catalog)
    asked = Question(workload="transformer", budget=900, experience="hobby")
    rulebook = advisor.rulebook
    job = job_for(asked, rulebook)
    pricing = advisor.markets.on(advisor.reference.released).pricing("USD", False)
    asker = asker_for(asked, pricing, rulebook, None)
    work, performance = "transformer", advisor.performance
    keeps = terms_for(
        TermsContext(asked, asker, job, pricing.as_of, rulebook, performance, work, catalog.gpu, {}, None)
    ).keeps
    reasons = [k.reason for k in keeps if k.rule == "persona-not-serious"]
    assert reasons and all(isinstance(r, Phrase) for r in reasons)
    assert spoken(reasons[0], "en") != spoken(reasons[0], "ru")
