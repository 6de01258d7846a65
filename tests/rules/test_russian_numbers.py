"""A Russian answer writes numbers as Russian does: digits grouped with a space ("58 422 RUB"), memory in ГБ,
and speed for money per a step of the currency (per 100,000 RUB, not 0.09 per 1000 RUB).
The English answer to the same question keeps its commas and GB, and both name the same amounts."""

from __future__ import annotations

import re
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ask import ask

TODAY = date(2026, 11, 22)
WORK = {
    "нейросети": "deep learning",
    "обучение трансформеров": "transformer training",
    "компьютерное зрение": "computer vision",
    "инференс llama 13b": "llama 13b inference",
}
ENGLISH_GROUPS = re.compile(r"\d,\d{3}(?!\d)")
PER_STEP = re.compile(r"([\d.]+) (?:на|per) 100[ ,]000 RUB")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(WORK)), st.integers(min_value=15, max_value=900).map(lambda k: k * 1000))
def test_russian_answers_group_digits_with_spaces_and_say_gb_in_russian(advisor, work, roubles):
    russian = ask(advisor, f"{work}, бюджет {roubles} рублей", today=TODAY).text
    english = ask(advisor, f"{WORK[work]}, budget {roubles} RUB", today=TODAY).text
    assert not ENGLISH_GROUPS.search(russian), russian
    assert not re.search(r"\d (?:GB|GiB)\b", _without_names(russian)), russian
    assert "на 1000 RUB" not in russian and "per 1000 RUB" not in english
    russian_amounts = [a.replace(" ", "") for a in re.findall(r"(\d{1,3}(?: \d{3})+) RUB", russian)]
    english_amounts = [a.replace(",", "") for a in re.findall(r"(\d{1,3}(?:,\d{3})+) RUB", english)]
    assert set(russian_amounts) == set(english_amounts)
    assert PER_STEP.findall(russian) == PER_STEP.findall(english)


def _without_names(text: str) -> str:
    """The answer less product names that carry their memory ("RTX 5060 Ti 16 GB", "RTX 4060 Ti 16 GB,",
    "A6000 (48 GB)")."""
    return re.sub(r"(?:\*\*[^*]+\*\*|\([^)]*\d+ GB\)|[A-Z][\w ]+ \d+ GB(?=[:\s,]))", "", text)
