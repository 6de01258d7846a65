"""The short answer: a first line that answers the intent, the job's units with their band, one memory
language, named cards at the count they are shown at; the full answer keeps every finding."""

from __future__ import annotations

import itertools
import re

import msgspec
import pytest

from rules.ask import ask
from rules.knowledge.rulebook import load_rulebook
from rules.render.short import MAX_PICKS, MAX_REASONS
from tests.rules.conftest import TODAY

LIST_LINE = re.compile(r"^\s*(?:-|\d+\.) ")
TOKENS = re.compile(r"about (\d+) tokens/s, (\d+)-(\d+)")


def _list_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if LIST_LINE.match(line)]


def test_nlp_800_is_short_and_its_full_form_keeps_every_finding(advisor) -> None:
    short = ask(advisor, "nlp $800", today=TODAY)
    full = ask(advisor, "nlp $800", today=TODAY, detail="full")
    assert len(short.text.split()) <= 200 and len(_list_lines(short.text)) <= 10, short.text
    assert short.text.splitlines()[0] == "**Buy a used GeForce RTX 3090 (24 GB), about 750 USD: " + (
        "4.5× the GeForce GTX 1080 Ti for this job**"
    )
    answer = full.recommendation
    assert answer is not None
    said = [*answer.findings, *answer.warnings, *answer.picks[0].findings]
    assert [f.reason for f in said if f.reason not in full.text] == []
    assert [e.reason for e in answer.excluded[:4] if e.reason not in full.text] == []
    for loose in ("Cloud TPUs", "loss scaling", "unified-memory computers"):  # kept for the full form
        assert loose not in short.text and loose in full.text


def test_a_fit_question_is_answered_no_with_the_need_the_card_and_the_count_that_holds_it(advisor) -> None:
    first = ask(advisor, "will llama 3.3 70b 4-bit fit on a 3090", today=TODAY).text.splitlines()[0]
    assert first.startswith(
        "**No: Llama 3.3 70B (inference at 4-bit) needs ~45 GB, and one GeForce RTX 3090 has 24 GB;"
    )
    assert "two hold it at about 17 tokens/s" in first


def test_a_fit_question_about_a_card_that_holds_it_is_answered_yes(advisor) -> None:
    first = ask(advisor, "will llama 8b fit on a 4090", today=TODAY).text.splitlines()[0]
    assert first.startswith("**Yes: ") and "one GeForce RTX 4090 has 24 GB" in first and "tokens/s" in first


def test_a_comparison_says_how_much_faster_and_what_it_costs(advisor) -> None:
    reply = ask(advisor, "compare 5090 4090 for llama 8b inference", today=TODAY)
    first = reply.text.splitlines()[0]
    assert re.search(
        r"The GeForce RTX 5090 is about 1\.\d× faster than the GeForce RTX 4090 for this job", first
    )
    assert "USD more" in first and "tokens/s" in first


def test_a_named_card_shown_at_the_count_that_holds_the_job_is_labelled_so(advisor) -> None:
    reply = ask(advisor, "compare 3090 and 4090 for llama 70b", today=TODAY)
    answer = reply.recommendation
    assert answer is not None and answer.picks
    for shown in answer.picks:  # each is built at two: no label says it does not fit
        assert shown.count == 2 and shown.label == "as many as hold it"
    assert all(e.status == "does-not-fit" and e.cards_needed == 2 for e in answer.named)  # at the count asked
    assert "does not hold it; two do" in reply.text.splitlines()[0]


@pytest.mark.parametrize("text", ["compare 4090 and titan rtx for cnn", "compare 4090 and rtx 6090"])
def test_nothing_headlined_about_what_could_not_be_priced(advisor, text: str) -> None:
    answer = ask(advisor, text, today=TODAY).recommendation
    assert answer is not None and "could be priced" in answer.summary  # said further down
    assert "could be priced" not in answer.headline and "GeForce RTX 4090" in answer.headline


def test_a_card_known_by_its_speed_only_is_still_compared(advisor) -> None:
    first = ask(advisor, "compare 4090 and titan rtx for cnn", today=TODAY).text.splitlines()[0]
    assert re.match(r"\*\*The GeForce RTX 4090 is about 1\.\d× faster than the NVIDIA Titan RTX", first), (
        first
    )


def test_no_multiple_of_an_owned_card_that_cannot_hold_the_job(advisor) -> None:
    for detail in ("short", "full"):
        text = ask(advisor, "i have a 3080, upgrade for llama 70b $2000", today=TODAY, detail=detail).text
        assert "× your GeForce RTX 3080" not in text
        assert "your GeForce RTX 3080 (10 GB) does not hold this job" in text


def test_an_owned_card_that_holds_the_job_is_compared_by_speed(advisor) -> None:
    first = ask(advisor, "i have a 2080 ti, nlp $3000", today=TODAY).text.splitlines()[0]
    assert re.search(r"; \d+\.\d× your GeForce RTX 2080 Ti\*\*$", first), first


def test_llm_speed_is_in_tokens_a_second_with_the_calibrations_band(advisor) -> None:
    error = load_rulebook().workload_priorities.llm_decode.measured_error
    reply = ask(advisor, "ollama llama 8b $1500", today=TODAY)
    answer = reply.recommendation
    assert answer is not None
    for shown in answer.picks:
        assert shown.speed is not None and shown.speed.unit == "tokens/s"
        assert shown.speed.low == pytest.approx(shown.speed.value * (1 - error), abs=0.1)
        assert shown.speed.high == pytest.approx(shown.speed.value * (1 + error), abs=0.1)
    for line in _list_lines(reply.text)[: len(answer.picks)]:
        value, low, high = map(int, TOKENS.search(line).groups())
        assert low < value < high


def test_a_job_without_an_absolute_figure_says_so_relative_to_the_reference(advisor) -> None:
    answer = ask(advisor, "cv $1000", today=TODAY).recommendation
    assert answer is not None and all(p.speed is None for p in answer.picks)
    assert "× the GeForce GTX 1080 Ti for this job" in answer.headline


def test_effective_memory_is_said_only_where_the_2019_training_rule_applies(advisor) -> None:
    for text in ("ollama llama 8b $1500", "lora llama 8b $2000", "sdxl $1000"):
        full = ask(advisor, text, today=TODAY, detail="full").text
        assert "32-bit terms" not in full and "GB effective" not in full and "behaves like" not in full, text
    nlp = ask(advisor, "nlp $800", today=TODAY, detail="full").text
    assert "the card has 36 GB in 32-bit terms" in nlp
    assert "16-bit training lets 24 GB hold what 36 GB would in 32 bits" in nlp


def test_a_card_is_called_by_the_memory_it_is_sold_with(advisor) -> None:
    full = ask(advisor, "llama 8b on an 8 gb card", today=TODAY, detail="full").text
    assert "8.6 GB" not in full and "GiB" not in full


MODELS = ("llama 3 8b", "llama 70b", "qwen3 32b", "sdxl", "resnet50", "bert large", "mistral 7b")
METHODS = ("inference", "lora", "qlora", "full fine-tune", "train")


@pytest.mark.parametrize(("model", "method"), list(itertools.product(MODELS, METHODS)))
def test_the_memory_need_is_its_parts(advisor, model: str, method: str) -> None:
    answer = ask(advisor, f"{method} {model} $3000", today=TODAY).recommendation
    if answer is None or answer.memory_need.parts is None:
        return  # a typical or asked-for need has no parts to add up
    parts = msgspec.to_builtins(answer.memory_need.parts)
    assert set(parts) <= {
        "weights",
        "kv_cache",
        "adapters",
        "gradients",
        "optimizer",
        "activations",
        "runtime",
    }
    assert all(gb > 0 for gb in msgspec.json.decode(msgspec.json.encode(answer.memory_need.parts)).values())
    assert sum(parts.values()) == pytest.approx(answer.memory_need.gb, abs=0.4)


WORKLOADS = ("nlp", "cv", "llm", "kaggle", "rnn", "sdxl", "ollama llama 70b", "serve llama 8b to 20 users")
BUDGETS = ("$300", "$800", "$1500", "$4000", "€2000")


@pytest.mark.parametrize(("workload", "budget"), list(itertools.product(WORKLOADS, BUDGETS)))
def test_every_short_answer_keeps_to_its_shape(advisor, workload: str, budget: str) -> None:
    reply = ask(advisor, f"{workload} {budget}", today=TODAY)
    answer = reply.recommendation
    assert answer is not None
    lines = reply.text.splitlines()
    assert lines[0] == f"**{answer.headline}**" and answer.headline[:1].isupper()
    ranked = [line for line in lines if re.match(r"^\d+\. ", line)]
    assert len(ranked) <= MAX_PICKS
    why = lines[lines.index("**Why**") + 1 :] if "**Why**" in lines else []
    assert len(why) <= MAX_REASONS and all(re.search(r"\(_[a-z0-9-]+_\)$", line) for line in why)
    assert len(_list_lines(reply.text)) <= 10
    assert "scores higher" not in ask(advisor, f"{workload} {budget}", today=TODAY, detail="full").text


def test_the_vendor_note_does_not_contradict_itself(advisor) -> None:
    for budget in (300, 500, 800, 1200, 2000):
        for workload in ("nlp", "cv", "llm", "kaggle"):
            full = ask(advisor, f"{workload} ${budget}", today=TODAY, detail="full").text
            for line in full.splitlines():
                if "leads although" in line:
                    assert "ranks higher for the money" in line and "scores higher" not in line


def test_an_ollama_answer_has_no_tpu_lines_and_a_vllm_one_may(advisor) -> None:
    ollama = ask(advisor, "ollama llama 8b $1500", today=TODAY, detail="full")
    assert "TPU" not in ollama.text
    assert ollama.recommendation is not None and ollama.recommendation.rent_vs_buy is not None
    assert all(o.kind == "gpu" for o in ollama.recommendation.rent_vs_buy.options)
