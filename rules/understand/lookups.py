"""What understanding asks of the rest of the engine, in one place, so it can be pointed at another knowledge.

Understanding reads words; three things it cannot know from words alone it asks here: which card a name means
(the catalog's one resolver, and its Cloud TPUs), which model a name means (the model table), and how much
memory a job needs (the job count, for the most demanding of several models and for the fit note).
"""

from __future__ import annotations

from rules.catalog import Catalog, load_catalog
from rules.job import METHOD_NAMES, Job, fit_on, job_for
from rules.memory import Fit, ModelSpec, find_model
from rules.question import Question
from rules.rulebook import load_rulebook


def catalog() -> Catalog:
    """The shipped catalog: its resolver reads card names, its TPUs the word 'tpu'."""
    return load_catalog()


def model(name: str) -> ModelSpec | None:
    """The model a name or alias means ('llama 3 8b', 'sdxl'), or None."""
    return find_model(name)


def job(question: Question) -> Job:
    """The job a question asks for, with the memory it needs, by the shipped rulebook."""
    return job_for(question, load_rulebook())


def fit(of: Job, memory_gb: float, count: int) -> Fit:
    """Whether ``count`` cards of ``memory_gb`` each hold the job."""
    return fit_on(of, memory_gb, count)


def method_name(method: str) -> str:
    """A job's method as the answers name it ('QLoRA')."""
    return METHOD_NAMES.get(method, method)
