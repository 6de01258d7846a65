"""An answer leaves no reference cycles behind: refcounting frees it all, the collector has nothing to do.

A server answers thousands of questions a second at most, but each object left in a cycle waits
for a collection, and collections of a heap full of cached answers are what stall requests.
"""

from __future__ import annotations

import gc

import msgspec

from rules.ask import ask
from tests.rules.conftest import TODAY

QUESTIONS = (
    "nlp ${}",
    "cv ${} 2 gpus",
    "llm ${} used ok",
    "rl ${} in EUR",
    "kaggle ${} beginner",
    "learning ${} server",
    "llama 13b 4-bit inference ${}",
    "rnn ${} as of 2019",
)
FIXED = ("fit llama 13b fp16", "compare 3090 4090", "nlp $800 i have a rtx 3060", "help", "hello there")


def test_answers_leave_no_cycle_garbage(advisor):
    for text in FIXED + tuple(
        q.format(700) for q in QUESTIONS
    ):  # first use builds module-level caches and types
        msgspec.json.encode(ask(advisor, text, today=TODAY))
    gc.collect()
    gc.disable()
    try:
        for budget in (450, 1300, 2800, 9000):
            for text in FIXED + tuple(q.format(budget) for q in QUESTIONS):
                msgspec.json.encode(ask(advisor, text, today=TODAY))
        garbage = gc.collect()
    finally:
        gc.enable()
    assert garbage == 0
