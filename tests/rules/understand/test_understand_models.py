"""Model names and sizes, and the most demanding of several models."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.understand import parse

TODAY = date(2024, 6, 15)

RUN = {"task": "inference", "method": "inference"}
PHRASES: list[tuple[str, dict[str, Any]]] = [
    # a model named without a training word is one to run
    ("llama 13b", {**RUN, "workload": "llm", "model": "llama-13b", "params_b": 13}),
    ("llama-2-70b", {**RUN, "workload": "llm", "model": "llama-2-70b", "params_b": 70}),
    ("Mistral 7B", {**RUN, "workload": "llm", "model": "mistral-7b", "params_b": 7}),
    ("qwen 72b", {**RUN, "workload": "llm", "model": "qwen-72b", "params_b": 72}),
    ("qwen2.5 72b", {**RUN, "workload": "llm", "model": "qwen-72b", "params_b": 72}),
    ("bert large", {"workload": "transformer", "model": "bert-large"}),
    ("gpt-2 xl", {"workload": "transformer", "model": "gpt2-xl"}),
    ("resnet50", {"workload": "cnn", "model": "resnet-50"}),
    ("resnet-101", {"workload": "cnn", "model": "resnet-101"}),
    ("vit-l", {"workload": "cnn", "model": "vit-l"}),
    ("t5 3b", {"workload": "transformer", "model": "t5-3b", "params_b": 3}),
    ("sdxl", {**RUN, "workload": "image-generation", "model": "sd-xl"}),
    ("stable diffusion", {**RUN, "workload": "image-generation", "model": "sd-xl"}),  # on TODAY, SDXL
    ("stable diffusion xl", {**RUN, "workload": "image-generation", "model": "sd-xl"}),
    ("yolov8x", {"workload": "cnn", "model": "yolov8-x"}),
    ("mixtral 8x7b", {**RUN, "workload": "llm", "model": "mixtral-8x7b"}),
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_models_and_sizes(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


@pytest.mark.parametrize(
    ("text", "model", "workload", "params_b"),
    [
        ("run llama 3.1 8b", "llama-8b", "llm", 8),
        ("llama3.1 8b instruct q4_k_m", "llama-8b", "llm", 8),
        ("llama 3.3 70b", "llama-70b", "llm", 70),
        ("qwen3 30b a3b", "qwen3-30b-a3b", "llm", 30),
        ("qwen 32b", "qwen-32b", "llm", 32),
        ("qwen2.5 72b", "qwen-72b", "llm", 72),
        ("deepseek r1 distill qwen 32b", "deepseek-r1-distill-qwen-32b", "llm", 32),
        ("r1 70b", "deepseek-r1-distill-llama-70b", "llm", 70),
        ("mixtral 8x7b", "mixtral-8x7b", "llm", None),
        ("gemma 3 27b", "gemma-3-27b", "llm", 27),
        ("gemma 2 9b", "gemma-2-9b", "llm", 9),
        ("phi-4", "phi-4", "llm", None),
        ("phi-3 mini", "phi-3-mini", "llm", None),
        ("gpt-oss 20b", "gpt-oss-20b", "llm", 20),
        ("gpt-oss-120b", "gpt-oss-120b", "llm", 120),
        ("sd 1.5", "sd-1.5", "image-generation", None),
        ("sdxl", "sd-xl", "image-generation", None),
        ("sd3", "sd3-medium", "image-generation", None),
        ("flux dev", "flux-1-dev", "image-generation", None),
        ("whisper large-v3", "whisper-large-v3", "speech", None),
        ("qwen2.5 coder 32b", "qwen-32b", "llm", 32),  # no entry for the coder: the same family's 32b
        ("qwen 110b", "qwen-110b", "llm", 110),  # no entry at all: the size still counts
    ],
)
def test_model_names(text: str, model: str, workload: str, params_b: float | None) -> None:
    parsed = parse(text, today=TODAY)
    question = parsed.question
    assert (question.model, question.workload, question.params_b) == (model, workload, params_b)
    assert parsed.unknown == ()


@pytest.mark.parametrize(
    ("text", "gpus", "compare"),
    [
        ("llama 70b 2 gpus", 2, ()),
        ("llama 70b on a 4090", 1, ("rtx 4090",)),
        ("qwen 32b 2x 3090", 2, ("rtx 3090",)),
    ],
)
def test_a_model_name_stops_before_counts_and_cards(text: str, gpus: int, compare: tuple[str, ...]) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.gpus, parsed.question.compare) == (gpus, compare)


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("which gpu for gpt-oss 120b", "inference"),
        ("mixtral 8x7b q4 which gpu", "inference"),
        ("will llama 70b fit on a 3090 or a 4090", "inference"),
        ("влезет ли qwen2.5 32b q4 в rtx 4090?", "inference"),
        ("how fast is llama 3 8b on an rtx 4090", "inference"),
        ("tokens per second for llama 3 70b on two rtx 3090", "inference"),
        ("can I qlora fine-tune a 33b model on an rtx 3090", "training"),
        ("bert large", "training"),  # not a model people run on their own: the 2019 default stays
        ("resnet50 $800", "training"),
    ],
)
def test_a_named_model_without_a_training_word_is_run(text: str, task: str) -> None:
    assert parse(text, today=TODAY).question.task == task


def test_a_follow_up_naming_another_model_keeps_the_job() -> None:
    first = parse("fine-tune llama 3 8b with lora", today=TODAY).question
    parsed = parse("what about llama 70b?", previous=first, today=TODAY)
    question = parsed.question
    assert (question.task, question.method, question.model) == ("training", "lora", "llama-70b")


@pytest.mark.parametrize(
    ("text", "model", "other"),
    [
        ("llama 8b and maybe qwen 14b", "qwen-14b", "'llama 8b'"),
        ("gpt-oss 120b and llama 70b", "gpt-oss-120b", "'llama 70b'"),
        ("sdxl + flux schnell", "flux-1-schnell", "'sdxl'"),
        ("llama 8b или qwen 14b локально", "qwen-14b", "'llama 8b'"),
    ],
)
def test_the_most_demanding_of_several_models_sizes_the_job(text: str, model: str, other: str) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    assert parsed.question.model == model
    note = next(u for u in parsed.understood if u.startswith("models:"))
    assert "sizes the job" in note and other in note
    assert sum(u.startswith("model:") for u in parsed.understood) == 1
    assert f"model: {model}" in next(u for u in parsed.understood if u.startswith("model:"))


@pytest.mark.parametrize(
    ("text", "task", "method", "params_b", "other"),
    [
        ("I want to run 32b models and do lora on 8b", "inference", "inference", 32, "'8b' (LoRA)"),
        ("хочу запускать модели 32b и делать lora на 8b", "inference", "inference", 32, "'8b' (LoRA)"),
        ("run llama 8b and full fine-tune llama 8b", "training", "full", 8, "(inference)"),
        ("lora on qwen 72b and run llama 8b", "training", "lora", 72, "(inference)"),
    ],
)
def test_two_jobs_on_two_models_keep_the_heavier(
    text: str, task: str, method: str, params_b: int, other: str
) -> None:
    parsed = parse(text, today=date(2026, 11, 23))
    q = parsed.question
    assert (q.task, q.method, q.params_b) == (task, method, params_b)
    note = next(u for u in parsed.understood if u.startswith("models:"))
    assert other in note.split("also", 1)[1]


def test_one_model_named_twice_is_one_job_with_the_method_the_text_gives():
    """'sdxl images and LoRA training for sdxl' is LoRA on SDXL, not full training of a second 'sdxl'."""
    for text in (
        "генерация картинок sdxl и обучение lora для sdxl, бюджет 80 тысяч рублей",
        "sdxl images and lora training for sdxl, $1000",
    ):
        q = parse(text, today=TODAY).question
        assert (q.model, q.task, q.method) == ("sd-xl", "training", "lora"), text


@pytest.mark.parametrize(
    ("text", "model", "params_b"),
    [
        # Ollama's tag: the 32B distill, not the 671B R1
        ("run deepseek-r1:32b in ollama", "deepseek-r1-distill-qwen-32b", 32),
        ("run deepseek-r1:70b in ollama", "deepseek-r1-distill-llama-70b", 70),
        ("run deepseek-r1:671b at home", "deepseek-r1", 671),
        # 'distill' names the tuning, not a size
        ("deepseek r1 distill 32b locally", "deepseek-r1-distill-qwen-32b", 32),
        ("ollama run qwen2.5:32b", "qwen-32b", 32),
        ("ollama run gemma3:27b", "gemma-3-27b", 27),
        ("llama 3.1 8b instruct on my laptop", "llama-8b", 8),
    ],
)
def test_ollama_tags_and_tuning_words_name_the_model_of_that_size(text, model, params_b):
    question = parse(text).question
    assert (question.model, question.params_b) == (model, params_b)


@pytest.mark.parametrize(
    "text",
    [
        "team of 10 serving a 70b model, server, $30000",
        "run a 70b model at q4",
        "serve a 7b model for my team",
    ],
)
def test_a_model_of_billions_of_parameters_to_run_is_a_language_model(text):
    """'serving a 70b model' named no workload, so it was ranked 'for general deep learning' and its asker
    taken for a beginner; a model of billions of parameters to run, with no other kind named, is a language
    model."""
    question = parse(text, today=date(2026, 11, 23)).question
    assert question.workload == "llm" and question.task == "inference"


def test_a_named_model_keeps_its_own_kind():
    """SDXL and Flux are image models of billions of parameters: the model table says what they are."""
    assert parse("run flux dev at fp8", today=date(2026, 11, 23)).question.workload == "image-generation"


@given(
    day=st.dates(min_value=date(2022, 11, 1), max_value=date(2026, 11, 27)),
    phrasing=st.sampled_from(["stable diffusion, $600", "train a lora for stable diffusion", "sd on a 3060"]),
)
@settings(max_examples=30, deadline=None)
def test_a_familys_plain_name_means_the_model_run_by_that_name_on_the_date(day, phrasing):
    """'Stable diffusion' meant SD 1.5 until SDXL 1.0 came out (Stability AI, 2023-07-26) and SDXL after it; a
    version said is always that version."""
    read = parse(phrasing, today=day).question
    assert read.model == ("sd-xl" if day >= date(2023, 7, 26) else "sd-1.5"), (day, read.model)
    assert parse("sd 1.5 lora", today=day).question.model == "sd-1.5"
    assert parse("sdxl inference", today=day).question.model == "sd-xl"


@pytest.mark.parametrize(
    ("text", "task", "params_b"),
    [
        ("i want to train small cnns and run 7b llms locally, $500", "inference", 7),
        ("train cnns and run a 13b model, $1200", "inference", 13),
        ("i train transformers and want to serve a 70b model too, $6000", "inference", 70),
    ],
)
def test_a_job_said_of_another_subject_does_not_size_the_model(text: str, task: str, params_b: float) -> None:
    """'train small cnns and run 7b llms': the training is the CNNs', the 7B is to run; the model takes the
    job word said beside it, and the reading says so."""
    parsed = parse(text)
    assert (parsed.question.task, parsed.question.params_b) == (task, params_b), parsed.understood
    assert any("the job said beside it" in line for line in parsed.understood), parsed.understood


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("fine-tune llama 3 8b so I can run it on my laptop", "training"),
        ("qlora fine-tune and serve 70b models, $40000", "training"),
        ("run and fine-tune llama 3 8b, $1500", "training"),
    ],
)
def test_jobs_said_of_the_model_itself_keep_the_heavier(text: str, task: str) -> None:
    assert parse(text).question.task == task


def _versions(spec: Any) -> set[str]:
    import re

    names = (spec.name, spec.id, *spec.aliases)
    return {n for name in names for n in re.findall(r"\d+(?:\.\d+)*", name.lower())}


@settings(max_examples=80, deadline=None)
@given(
    family=st.sampled_from(["llama", "gemma", "qwen", "mistral", "phi", "deepseek", "olmo", "yi"]),
    version=st.sampled_from(["", "2", "3", "3.1", "3.5", "4", "4.1", "5", "9"]),
    size=st.sampled_from(["7b", "8b", "14b", "27b", "32b", "70b", "110b"]),
)
def test_a_model_sized_as_another_version_or_by_its_size_alone_is_said_so(family, version, size) -> None:
    """The table's own model of the name said is sized without a word; another version of the family, or a
    bare count of parameters, stands in only with a note naming what was sized."""
    from rules.understand import lookups

    name = " ".join(filter(None, [family, version, size]))
    parsed = parse(f"{name} inference", today=TODAY)
    model = parsed.question.model
    if model is None:
        return
    spec = lookups.model(model)
    noted = dict(parsed.stand_ins)
    if spec is None:  # a bare size: sized by parameters alone
        assert noted == {name: ""}, (name, model, parsed.stand_ins)
    elif version and version not in _versions(spec):
        assert noted == {name: spec.name}, (name, spec.name, parsed.stand_ins)
    else:
        assert not noted, (name, spec.name, parsed.stand_ins)


def test_every_alias_of_the_table_is_its_own_model_without_a_note() -> None:
    from rules.understand import lookups

    for spec in set(lookups.models().values()):
        for alias in spec.aliases:
            parsed = parse(f"run {alias}", today=TODAY)
            if parsed.question.model == spec.id:
                assert not parsed.stand_ins, (alias, parsed.stand_ins)


def test_the_reply_names_the_model_sized_in_place_of_one_the_table_lacks(advisor: Any) -> None:
    from rules.ask import ask

    text = ask(advisor, "gemma 4 27b inference on one card, $1500", today=date(2026, 11, 26)).text
    assert "'gemma 4 27b' is not in the model table" in text and "Gemma 3 27B" in text
    said = "qwen3.5 27b на одной карте, бюджет 150 тысяч рублей"
    russian = ask(advisor, said, today=date(2026, 11, 26)).text
    assert "«qwen3.5 27b» нет в таблице моделей" in russian
