"""What understanding asks of the rest of the engine, in one place, so it can be pointed elsewhere.

Understanding reads words; three things it cannot know from words alone it asks here: which card a name
means (the catalog's one resolver, and its Cloud TPUs), which model a name means (the model table), and how
much memory a job needs (the job count, for the most demanding of several models and for the fit note, and
the memory each kind of work asks for, for the most demanding of several kinds). Each
is imported when first asked: a text naming no card or model never loads the catalog, the model table or the
job count, and importing understanding stays as cheap as reading words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rules.configurations import Fit
    from rules.contract.question import Question
    from rules.job import Job
    from rules.knowledge.catalog import Catalog
    from rules.knowledge.models import ModelSpec


def catalog() -> Catalog:
    """The shipped catalog: its resolver reads card names, its TPUs the word 'tpu'."""
    from rules.knowledge.loaded import load_catalog

    return load_catalog()


def weight_format(name: str) -> str | None:
    """The id of the weight file format a name means ('q5_k_m': 'GGUF Q5_K_M'), or None."""
    from rules.knowledge.loaded import find_format

    found = find_format(name)
    return found.id if found is not None else None


def model(name: str) -> ModelSpec | None:
    """The model a name or alias means ('llama 3 8b', 'sdxl'), or None."""
    from rules.knowledge.loaded import find_model

    return find_model(name)


def models() -> Mapping[str, ModelSpec]:
    """The model table, keyed by id and every alias (as slugs)."""
    from rules.knowledge.loaded import load_models

    return load_models()


def job(question: Question) -> Job:
    """The job a question asks for, with the memory it needs, by the shipped rulebook."""
    from rules.job import job_for
    from rules.knowledge.loaded import load_rulebook

    return job_for(question, load_rulebook())


def fit(of: Job, memory_gb: float, count: int) -> Fit:
    """Whether ``count`` cards of ``memory_gb`` each hold the job."""
    from rules.configurations import fit_on

    return fit_on(of, memory_gb, count)


def method_name(method: str) -> str:
    """A job's method as the answers name it ('QLoRA')."""
    from rules.job import METHOD_NAMES

    return METHOD_NAMES.get(method, method)


def workload_memory_gb(workload: str) -> float:
    """The memory a kind of work asks of a card (rule memory-caveat), 0 for a kind the rule does not list."""
    from rules.knowledge.loaded import load_rulebook

    return float(load_rulebook().memory_caveat.min_memory_gb.get(workload, 0))
