"""The parser's amount memo: a text read through a scan remembered for another amount reads exactly as fresh.

Every text is parsed twice: once with the memo empty, and once right after a text that differs from it only in
the digits after its currency sign (as many of them) was parsed, so the memo holds that skeleton's scan. The two
must be equal down to the repr (812 and 812.0 are equal numbers but not the same answer), or raise the same
QuestionError. The texts: the golden questions, the parser's phrase table, the answer snapshot's questions
(fixed, varied, follow-ups), and varied ones shaped like benchmarks/post_varied.lua with edge amounts and with
the grammar that sits next to an amount (ranges, 'k', 'million', grouping, decimals, counts, sizes, dates, cards).
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
from datetime import date
from pathlib import Path

import pytest

from rules import parser
from rules.parser import parse
from rules.question import MAX_BUDGET_USD_EQUIVALENT, RUB_PER_USD_AT_MOST, QuestionError
from tests.rules.test_parser import PHRASES

ROOT = Path(__file__).resolve().parents[2]
TODAY = date(2026, 1, 15)
SIGNED = re.compile(r"[$€£₽]([0-9]+)")


def _snapshot_module():
    spec = importlib.util.spec_from_file_location("answer_snapshot", ROOT / "scripts" / "answer_snapshot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SNAPSHOT = _snapshot_module()

# benchmarks/post_varied.lua's words, models, methods, extras and cards
WORDS = ("cv", "rnn", "nlp", "llm", "rl", "kaggle", "learning", "deep learning", "stable diffusion", "transformers",
         "computer vision", "image classification", "speech recognition", "reinforcement learning")
MODELS = ("llama 8b", "llama 13b", "llama 70b", "qwen 7b", "qwen 32b", "mistral 7b", "bert large", "gpt2", "resnet 50",
          "yolov8", "vit large", "t5 3b", "sdxl", "flux")
METHODS = ("inference", "lora", "qlora", "fine-tuning", "training", "4-bit inference", "fp16 inference")
EXTRAS = ("", " used ok", " 2 gpus", " 4 gpus", " in EUR", " in GBP", " as of 2019", " as of 2021-03", " as of 2023-06",
          " server", " beginner", " 10 hours a week", " cheapest", " for inference", " i have a rtx 3060", " desktop",
          " 8 gpus", " as of 2026", " as of 2026-01", " in 2025", " cheaper", " fit on 24 gb", " vs 4090", " 2x 3090")
CARDS = ("3090", "4090", "3060", "4060 ti", "a100", "h100", "7900 xtx", "5090", "a6000", "l40s", "2080 ti", "1080 ti")
LIMIT = MAX_BUDGET_USD_EQUIVALENT
EDGE = ("1", "9", "0", "00", "050", "50", "49", "99", "100", "999", "1000", "2019", "2021", "2049", "2050", "3090",
        "6800", "9999", "10000", "99999", "10000000", str(LIMIT + 1), str(LIMIT * RUB_PER_USD_AT_MOST),
        str(LIMIT * RUB_PER_USD_AT_MOST + 1), "9" * 16, "9" * 25, "9" * 400)
# what may stand next to an amount: '#' is the sign and its digits
AROUND = ("#", "budget #", "budget: #", "under #", "~#", "<#", "за #", "до #", "около #", "# usd", "# dollars",
          "# euros", "# рублей", "# k", "#k", "# million", "# billion", "# grand", "# тыс", "# тр", "#.50", "#,000",
          "#.5k", "# 000 рублей", "# 000", "#e3", "#gb", "# gb of vram", "# gpus", "# x 3090", "#x", "# cards",
          "#b", "# tokens", "# context", "# hours a week", "# users", "team of #", "batch #", "#-03", "# as of 2021",
          "as of 2021 #", "in 2021 #", "500 to #", "500-#", "# to 500", "#-500", "# - 1000", "from 500 to #",
          "between 500 and #", "between # and 5000", "от 500 до #", "# or 3090", "3090 for # or 4090 for 1200 usd",
          "3090 for 700 or 4090 for #", "i have #", "my #", "q#", "x#", "#/month", "#?", "(#)", "#!", "4090 #",
          "# 4090", "2 x #", "llama #", "llama #b", "4 #",
          "1-2k #", "from 1000 to 2000 usd, #", "budget 1500 usd or #", "cheap, #", "# cheaper")


def _outcome(text: str, previous, today: date) -> str:
    try:
        return repr(parse(text, previous, today))
    except QuestionError as error:
        return f"QuestionError({error.field!r}, {str(error)!r})"


def _another(digits: str, rng: random.Random) -> str:
    """Other digits as many: the same skeleton in the memo's key, another amount."""
    while True:
        other = "".join(rng.choice("0123456789") for _ in digits)
        if other != digits:
            return other


def _check(text: str, previous, today: date, rng: random.Random) -> bool:
    """Fresh and after a warm-up with another amount give the same outcome; True when it was a memo hit.

    Before the warm-up with as many digits on the same day come ones on another day and with another count of
    digits: a memo that kept either out of its key would answer the text from one of those."""
    parser._SCANS.clear()
    fresh = _outcome(text, previous, today)
    parser._SCANS.clear()
    found = SIGNED.search(text)
    hit = False
    if found:
        start, end = found.span(1)
        digits = found.group(1)
        _outcome(text[:start] + _another(digits, rng) + text[end:], previous, date(today.year - 1, today.month, min(today.day, 28)))
        _outcome(text[:start] + _another(digits + "0", rng) + text[end:], previous, today)
        kept = len(parser._SCANS)
        _outcome(text[:start] + _another(digits, rng) + text[end:], previous, today)
        hit = len(parser._SCANS) > kept
    assert _outcome(text, previous, today) == fresh, (text, previous)
    return hit


def _post_varied(rng: random.Random, count: int) -> list[str]:
    def amount() -> str:
        if rng.random() < 0.3:
            return rng.choice(EDGE)
        scale = rng.choice((150, 300, 500, 800, 1200, 2000, 3500, 6000, 15000, 60000))
        return str(scale + rng.randint(0, scale // 4))

    texts = []
    for _ in range(count):
        sign = rng.choice("$$$$€£₽")
        shape = rng.random()
        if shape < 0.45:
            text = f"{rng.choice(WORDS)} {sign}{amount()}{rng.choice(EXTRAS)}"
        elif shape < 0.7:
            text = f"{rng.choice(MODELS)} {rng.choice(METHODS)} {sign}{amount()}{rng.choice(EXTRAS)}"
        elif shape < 0.8:
            text = f"compare {rng.choice(CARDS)} {rng.choice(CARDS)} for {rng.choice(WORDS)} {sign}{amount()}"
        else:
            around = rng.choice(AROUND).replace("#", f"{sign}{amount()}")
            text = f"{rng.choice(WORDS + MODELS)} {around}{rng.choice(EXTRAS)}"
        texts.append(text)
    return texts


RUSSIAN = ("нейросети {}", "нейросети 50000 рублей", "нейросети {} рублей", "какую видеокарту купить для нейросетей за {}",
           "обучение языковой модели, бюджет {}", "llama 70b qlora {} б/у", "3090 б/у за {} или 4090 за 150000",
           "компьютерное зрение {} тыс", "видеокарта для игр и нейросетей до {}")


def test_a_remembered_scan_reads_every_text_as_a_fresh_parse():
    rng = random.Random(7)
    cases: list[tuple[str, object, date]] = []
    golden = json.loads((ROOT / "tests" / "quality" / "golden.json").read_text())["questions"]
    cases += [(q["text"], None, date.fromisoformat(q["as_of"])) for q in golden]
    cases += [(text, None, TODAY) for text, _ in PHRASES]
    for text, today, previous_text in SNAPSHOT.questions(600):
        previous = parse(previous_text, today=today).question if previous_text else None
        cases.append((text, previous, today))
    cases += [(text, None, TODAY) for text in _post_varied(rng, 3000)]
    for template in RUSSIAN:
        for _ in range(8):
            cases.append((template.format(rng.choice("$€£₽") + rng.choice(EDGE[:22])), None, TODAY))
    # follow-ups and other days read the same: the scan holds neither the previous question nor anything of today but its key
    earlier = [parse(t, today=TODAY).question for t in ("nlp $800", "llama 70b qlora ₽300000", "cv 500 евро as of 2021")]
    cases += [(text, rng.choice(earlier), TODAY) for text in _post_varied(rng, 400)]
    cases += [(text, None, date(2024, 6, 15)) for text in _post_varied(rng, 300)]

    hits = sum(_check(text, previous, today, rng) for text, previous, today in cases)
    signed = sum(1 for text, _, _ in cases if SIGNED.search(text))
    assert len(cases) > 5000
    assert hits > signed * 0.7, (hits, signed)  # most amounts after a sign are remembered, so hits were tested


@pytest.mark.parametrize("around", AROUND)
def test_each_neighbour_of_an_amount_reads_as_fresh_for_edge_amounts(around):
    rng = random.Random(around)
    for digits in EDGE:
        for words in ("nlp", "llama 70b qlora", "нейросети"):
            _check(f"{words} {around.replace('#', '$' + digits)}", None, TODAY, rng)


def test_only_a_lone_sign_with_its_plain_digits_is_remembered():
    def remembered(text: str) -> bool:
        parser._SCANS.clear()
        _outcome(text, None, TODAY)
        return bool(parser._SCANS)

    assert remembered("nlp $812 used ok") and remembered("llama 70b qlora €3400 as of 2021-03")
    assert remembered("nlp $2k") and remembered("nlp ~$812") and remembered("нейросети ₽50000")
    # the amount's value decides what these mean, or its number is more than the digits after the sign
    for text in ("nlp 500 to $812", "nlp $812-500", "between 500 and $812", "nlp $1,500", "nlp $2.5k", "$500 or $800",
                 "nlp 50000 рублей", "nlp 812", "x$2", "nlp $", "nlp $ 812"):
        assert not remembered(text), text


def test_a_hit_rebuilds_the_amount_phrase_and_limits():
    parser._SCANS.clear()
    parse("nlp $812 used ok", today=TODAY)
    hit = parse("nlp $143 used ok", today=TODAY)
    assert hit.question.budget == 143 and "budget: 143 USD (from '$143')" in hit.understood
    parse("cv ₽1000", today=TODAY)
    assert parse("cv ₽5000", today=TODAY).question.currency == "RUB"
    parse("cv $10", today=TODAY)
    with pytest.raises(QuestionError, match=r"budget must be positive \(read 0 USD from '\$00'\)"):
        parse("cv $00", today=TODAY)


@pytest.mark.parametrize("text", ["4090 for 1200 usd or 3090 б/у for $#", "3090 for $# or 4090 for 1200 usd", "nlp $# used ok"])
def test_reading_a_text_leaves_the_remembered_scan_as_it_was(text):
    parser._SCANS.clear()
    parse(text.replace("#", "1500"), today=TODAY)
    (known,) = parser._SCANS.values()
    before = repr(vars(known.scan))
    for digits in ("9000", "0900"):
        parse(text.replace("#", digits), today=TODAY)
    assert repr(vars(known.scan)) == before
