"""The engine: which GPU to buy or rent for a deep-learning job, and why.

    from rules import Advisor, ask, load_knowledge
    knowledge = load_knowledge()
    reply = ask(Advisor(knowledge.catalog, rulebook=knowledge.rulebook), "nlp $800")

A question runs through the stages in order (rules/advisor.py draws them); every error it can raise is in
:mod:`rules.errors`. The names below are imported when first used, so that a package importing only
``rules.settings`` or ``rules.errors`` pays for nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.advisor import Advisor
    from rules.ask import ask
    from rules.contract.answer import Answer, Reply
    from rules.contract.question import Question
    from rules.errors import CatalogError, DataFileError, QuestionError, SettingsError, WhichGpuError
    from rules.knowledge import Knowledge, load_knowledge

__all__ = [
    "Advisor",
    "Answer",
    "CatalogError",
    "DataFileError",
    "Knowledge",
    "Question",
    "QuestionError",
    "Reply",
    "SettingsError",
    "WhichGpuError",
    "ask",
    "load_knowledge",
]

_HOMES = {
    "Advisor": "rules.advisor",
    "ask": "rules.ask",
    "Answer": "rules.contract.answer",
    "Reply": "rules.contract.answer",
    "Question": "rules.contract.question",
    "Knowledge": "rules.knowledge",
    "load_knowledge": "rules.knowledge",
    **dict.fromkeys(
        ("CatalogError", "DataFileError", "QuestionError", "SettingsError", "WhichGpuError"), "rules.errors"
    ),
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'rules' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
