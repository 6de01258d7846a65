"""Keywords: workloads, experience, precision and job words, setting, intents."""

from __future__ import annotations

from datetime import date
from itertools import permutations
from typing import Any

import pytest

from rules.contract.question import Question
from rules.understand import parse

TODAY = date(2024, 6, 15)

PHRASES: list[tuple[str, dict[str, Any]]] = [
    # workloads (EN)
    ("nlp $800", {"workload": "transformer", "budget": 800, "currency": "USD"}),
    ("transformers", {"workload": "transformer"}),
    # the model table's "bert"
    ("bert for machine translation", {"workload": "transformer", "model": "bert-base"}),
    ("gpt", {"workload": "transformer"}),
    ("llm chatbot", {"workload": "llm"}),
    ("a large language model", {"workload": "llm"}),
    ("computer vision", {"workload": "cnn"}),
    ("image segmentation and detection", {"workload": "cnn"}),
    ("convnets", {"workload": "cnn"}),
    ("yolo", {"workload": "cnn", "model": "yolov8-x"}),
    ("speech and audio with lstm", {"workload": "rnn"}),
    ("time series", {"workload": "rnn"}),
    ("reinforcement learning", {"workload": "rl"}),
    ("Kaggle!", {"workload": "kaggle"}),
    ("student course", {"workload": "general", "experience": "beginner"}),
    ("hobby", {"workload": "general", "experience": "hobby"}),
    ("learning nlp", {"workload": "transformer", "experience": "beginner"}),
    (
        "phd researcher, transformers, 5000$",
        {"workload": "transformer", "experience": "researcher", "budget": 5000, "currency": "USD"},
    ),
    ("not serious, just playing, $300", {"experience": "hobby", "budget": 300, "currency": "USD"}),
    # workloads (RU)
    ("нлп", {"workload": "transformer"}),
    ("обработка текста", {"workload": "transformer"}),
    ("хочу обучать языковую модель, облако не надо", {"workload": "transformer", "cloud_ok": False}),
    ("большие языковые модели", {"workload": "llm"}),
    ("компьютерное зрение", {"workload": "cnn"}),
    ("свёрточные сети для изображений, новичок", {"workload": "cnn", "experience": "beginner"}),
    ("рекуррентные сети, речь", {"workload": "rnn"}),
    ("временные ряды", {"workload": "rnn"}),
    ("обучение с подкреплением 1.5к$", {"workload": "rl", "budget": 1500, "currency": "USD"}),
    ("каггл", {"workload": "kaggle"}),
    ("начинающий", {"workload": "general", "experience": "beginner"}),
    ("исследователь nlp, б/у ок", {"workload": "transformer", "experience": "researcher", "used_ok": True}),
    # precision
    ("fp16", {"precision": "16-bit"}),
    ("16 bit", {"precision": "16-bit"}),
    ("bf16 mixed precision", {"precision": "16-bit"}),
    ("FP32", {"precision": "fp32"}),
    ("full precision", {"precision": "fp32"}),
    ("int8", {"precision": "8-bit"}),
    ("fp8", {"precision": "fp8"}),
    ("4-bit", {"precision": "4-bit"}),
    ("gptq", {"precision": "4-bit"}),
    ("awq", {"precision": "4-bit"}),
    # task
    ("training", {"task": "training"}),
    ("inference", {"task": "inference", "method": "inference"}),
    ("deploy", {"task": "inference", "method": "inference"}),
    ("инференс", {"task": "inference", "method": "inference"}),
    (
        "want to fine-tune llama 7b with qlora on 2 gpus",
        {
            "workload": "llm",
            "task": "training",
            "method": "qlora",
            "precision": "4-bit",
            "model": "llama-7b",
            "params_b": 7,
            "gpus": 2,
        },
    ),
    (
        "serving mistral 7b int8 in the cloud",
        {
            "workload": "llm",
            "task": "inference",
            "method": "inference",
            "precision": "8-bit",
            "model": "mistral-7b",
            "params_b": 7,
            "cloud_ok": True,
        },
    ),
    # new / used, cloud
    ("used", {"used_ok": True}),
    ("second hand from ebay", {"used_ok": True}),
    ("бу", {"used_ok": True}),
    ("new only, no cloud, fp32", {"new_only": True, "cloud_ok": False, "precision": "fp32"}),
    ("no used cards", {"new_only": True}),
    ("new cards only", {"new_only": True}),
    ("только новые карты", {"new_only": True}),
    ("без б/у", {"new_only": True}),
    ("buy only", {"cloud_ok": False}),
    ("local only", {"cloud_ok": False}),
    ("colab", {"cloud_ok": True}),
    ("аренда", {"cloud_ok": True, "setting": "cloud"}),  # renting said, no buying: the rental is asked for
]


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
def test_keywords(text: str, expected: dict[str, Any], sets_only) -> None:
    sets_only(text, expected, TODAY)


def test_understood_names_the_source_words() -> None:
    parsed = parse("nlp $800", today=TODAY)
    assert parsed.understood == ("workload: transformer (from 'nlp')", "budget: 800 USD (from '$800')")
    assert parsed.unknown == ()
    assert parsed.changed == ("workload", "budget", "currency")


@pytest.mark.parametrize(
    "text",
    [
        "fit llama 13b fp16",
        "can I run llama 70b",
        "will llama 13b fit in 24GB?",
        "does bert-large fit 8 gb",
        "влезет ли llama 13b в 24 гб",
    ],
)
def test_fit_intent(text: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.intent == "fit"
    assert parsed.question.model is not None


def test_fit_wins_over_compare_and_keeps_the_cards() -> None:
    parsed = parse("can i run llama 70b on a 3090 or a 4090", today=TODAY)
    assert parsed.intent == "fit"
    assert parsed.question.compare == ("rtx 3090", "rtx 4090")
    assert parsed.question.task == "inference"


@pytest.mark.parametrize("text", ["help", "?", "", "   ", "помощь", "HELP!", "🚀"])
def test_help_intent(text: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.intent == "help"
    assert not parsed.needs_clarification
    assert parsed.question == Question()


def test_help_word_inside_a_real_question_is_not_help() -> None:
    assert parse("help me choose a gpu for nlp", today=TODAY).intent == "recommend"


@pytest.mark.parametrize("text", ["blah blah", "hi", "asdf qwerty", "gpu"])
def test_nonsense_needs_clarification(text: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.intent == "recommend" and parsed.needs_clarification and parsed.changed == ()


@pytest.mark.parametrize(
    ("text", "task", "method"),
    [
        ("fine-tune llama 3 8b with lora", "training", "lora"),
        ("qlora llama 70b", "training", "qlora"),
        ("full fine-tune llama 7b", "training", "full"),
        ("full finetuning of mistral 7b", "training", "full"),
        ("full-parameter training", "training", "full"),
        ("pretrain a 1b model", "training", "pretrain"),
        ("train from scratch", "training", "pretrain"),
        ("fine-tune llama 8b", "training", None),
        ("finetune qwen 7b", "training", None),
        ("дообучение llama 3 8b", "training", None),
        ("дообучить llama 3 8b с lora", "training", "lora"),
        ("run llama 8b", "inference", "inference"),
        ("serve qwen 32b", "inference", "inference"),
        ("ollama", "inference", "inference"),
        ("llama.cpp", "inference", "inference"),
        ("lm studio", "inference", "inference"),
        ("vllm", "inference", "inference"),
        ("comfyui", "inference", "inference"),
        ("automatic1111", "inference", "inference"),
        ("forge", "inference", "inference"),
        ("запустить qwen 32b локально", "inference", "inference"),
        ("fine-tune llama 8b with lora and serve it with vllm", "training", "lora"),  # the heavier job wins
    ],
)
def test_method_words(text: str, task: str, method: str | None) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.task, parsed.question.method) == (task, method), parsed.understood
    assert "method" in parsed.changed


@pytest.mark.parametrize(
    "text, runtime",
    [
        ("serve qwen3 32b with vllm for 20 users", "vllm"),
        ("sglang server for llama 70b", "vllm"),
        ("tensorrt-llm on two h100", "vllm"),
        ("run llama 3.3 70b with ollama on two gpus", "llama.cpp"),
        ("llama.cpp on a 3090", "llama.cpp"),
        ("lm studio on my pc", "llama.cpp"),
        ("qwen 32b gguf", "llama.cpp"),
        ("запустить qwen 32b в ollama", "llama.cpp"),
        ("serve qwen 32b for 20 users", None),  # not named: the job decides (rules.job_defaults.runtime_for)
        ("qwen 32b awq", None),  # AWQ runs in vLLM and elsewhere alike
    ],
)
def test_a_named_runtime_is_kept(text: str, runtime: str | None) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.question.runtime == runtime, parsed.understood
    assert parsed.question.task == "inference"
    if runtime:
        assert any(line.startswith(f"runtime: {runtime}") for line in parsed.understood), parsed.understood


def test_fine_tune_without_a_method_says_the_engine_picks() -> None:
    parsed = parse("fine-tune llama 8b", today=TODAY)
    assert "method: not said; the answer picks one for the job and says so" in parsed.understood


def test_method_is_named_in_understood() -> None:
    assert "method: LoRA (from 'with lora')" in parse("fine-tune llama 8b with lora", today=TODAY).understood


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("which gpu to use for llama 8b", "inference"),
        ("chat with a local llm", "inference"),
        ("generate images with sdxl", "inference"),
        # a weak word alone does not turn a 2019 question into inference
        ("which gpu to use for cnn", "training"),
        ("use lora to fine-tune llama 8b", "training"),
    ],
)
def test_weak_words(text: str, task: str) -> None:
    assert parse(text, today=TODAY).question.task == task


def test_a_weak_word_in_a_follow_up_keeps_the_job() -> None:
    first = parse("fine-tune llama 3 8b with lora", today=TODAY).question
    parsed = parse("and at q4?", previous=first, today=TODAY)
    question = parsed.question
    assert (question.task, question.method, question.precision) == ("training", "lora", "4-bit")
    assert parse("and run it with ollama?", previous=first, today=TODAY).question.task == "inference"


@pytest.mark.parametrize(
    ("text", "setting", "cloud_ok"),
    [
        ("cloud only", "cloud", True),
        ("только облако", "cloud", True),
        ("rack server for llm inference", "server", True),
        ("data center", "server", True),
        ("datacenter", "server", True),
        ("сервер для обучения", "server", True),
        ("desktop", "desktop", True),
        ("a pc for cnn", "desktop", True),
        ("workstation", "desktop", True),
    ],
)
def test_setting(text: str, setting: str, cloud_ok: bool) -> None:
    parsed = parse(text, today=TODAY)
    assert (parsed.question.setting, parsed.question.cloud_ok) == (setting, cloud_ok)


@pytest.mark.parametrize(
    ("text", "workload"),
    [
        ("image generation", "image-generation"),
        ("generate images", "image-generation"),
        ("diffusion models", "image-generation"),
        ("генерация изображений", "image-generation"),
        ("speech recognition", "speech"),
        ("tts", "speech"),
        ("audio transformers", "speech"),
        ("распознавание речи", "speech"),
        ("speech with lstm", "rnn"),
    ],
)
def test_image_and_speech_workloads(text: str, workload: str) -> None:
    assert parse(text, today=TODAY).question.workload == workload


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "запустить qwen 32b локально",
            {"model": "qwen-32b", "task": "inference", "cloud_ok": False, "language": "ru"},
        ),
        ("дообучить llama 3 8b с lora", {"model": "llama-8b", "method": "lora", "language": "ru"}),
        (
            "какую видеокарту купить для нейросетей за 50000 рублей",
            {"budget": 50000, "currency": "RUB", "language": "ru"},
        ),
    ],
)
def test_russian_questions(text: str, expected: dict) -> None:
    question = parse(text, today=TODAY).question
    assert {name: getattr(question, name) for name in expected} == expected


@pytest.mark.parametrize(
    "text",
    [
        "which gpu is best for deep learning?",
        "best gpu for deep learning, price does not matter",
        "what is the best gpu for deep learning right now, money is not an issue",
        "какую видеокарту взять для глубокого обучения?",
    ],
)
def test_a_plain_deep_learning_question_is_answered_not_bounced(text: str) -> None:
    parsed = parse(text, today=TODAY)
    assert parsed.intent == "recommend" and not parsed.needs_clarification
    assert parsed.question.budget is None and parsed.unknown == ()


@pytest.mark.parametrize(
    ("text", "memory_gb"),
    [
        ("cheapest card for 24 GB", 24),
        ("самая дешёвая карта на 16 гб", 16),
        ("cheapest gpu to run llama 3 8b with ollama", None),
    ],
)
def test_cheapest_asks_for_the_least_that_does_the_job(text: str, memory_gb: int | None) -> None:
    parsed = parse(text, today=TODAY)
    question = parsed.question
    assert (question.objective, question.memory_gb, question.budget) == ("cheapest", memory_gb, None)
    assert parsed.unknown == ()


def test_several_methods_named_size_for_the_most_demanding() -> None:
    """'with LoRA and QLoRA': the machine must run 16-bit LoRA; QLoRA's 4-bit does not set the precision."""
    text = "$15k lab workstation to fine-tune 8B-14B models with LoRA and QLoRA"
    question = parse(text, today=TODAY).question
    assert (question.method, question.precision, question.params_b) == ("lora", None, 14)
    assert parse("fine-tune llama 8b with qlora", today=TODAY).question.method == "qlora"


@pytest.mark.parametrize(
    "text", ["cheapest decent used gpu for deep learning, I can spend $230", "cheapest good gpu for llm"]
)
def test_cheapest_decent_asks_for_value_not_the_floor(text):
    """'The cheapest decent card' wants good value, not the least card that runs at all (a 4 GB GTX 1650 for
    $230 in 2020, when a 6 GB GTX 1660 Super cost $229); 'the cheapest card for 24 GB' still asks for the
    floor."""
    assert parse(text, today=date(2020, 10, 1)).question.objective is None
    assert parse("cheapest card for 24 GB", today=date(2020, 10, 1)).question.objective == "cheapest"


@pytest.mark.parametrize(
    "text, workload",
    [
        ("phd student, $1200, training diffusion models from scratch on my own images", "image-generation"),
        ("grad student doing nlp research $2000", "transformer"),
        ("аспирант, обучаю диффузионные модели, 100000 рублей", "image-generation"),
    ],
)
def test_a_doctoral_student_is_a_researcher_not_a_beginner(text, workload):
    """'phd student …' was read as a beginner ('student') and told 'starting out: a modest card'; a PhD or
    graduate student does research. Russian 'диффузионные модели' are diffusion models."""
    question = parse(text, today=date(2026, 11, 23)).question
    assert question.experience == "researcher" and question.workload == workload
    student = parse("student with $300 who wants to learn deep learning", today=date(2026, 11, 23)).question
    assert student.experience == "beginner"


@pytest.mark.parametrize("model", ["qwen3 32b", "llama 3.1 70b q4", "a 13b model", "gpt-oss-20b"])
@pytest.mark.parametrize(
    "template",
    [
        "will {model} run on a {card}?",
        "does {model} run well on an {card}",
        "i want to run {model} on a {card}, is it good?",
        "{model} запустится на {card}?",
        "how fast is {model} on a {card}",
        "how many tokens/s does {model} get on a {card}",
        "{model} speed on {card}",
        "как быстро работает {model} на {card}",
        "сколько токенов в секунду даст {model} на {card}",
    ],
)
@pytest.mark.parametrize("card", ["rtx 3090", "rtx 5090", "mac studio m3 ultra"])
def test_a_model_asked_to_run_on_one_card_is_a_fit_question(model: str, template: str, card: str) -> None:
    """The answer to 'will X run on Y?' starts with yes or no for Y, not with a card to buy."""
    read = parse(template.format(model=model, card=card), today=TODAY)
    assert read.intent == "fit", read.understood


@pytest.mark.parametrize(
    "model", ["mistral small 3.1 24b", "whisper large-v3-turbo", "a 33b model qlora", "flux dev"]
)
@pytest.mark.parametrize("card", ["rtx 4090", "rtx 3060 12gb", "h100"])
def test_a_model_placed_on_one_card_is_a_fit_question_unless_something_is_bought_or_a_run_costed(
    model: str, card: str
) -> None:
    """'Gemma 3 27B on a 3090' asks whether it goes there; with a budget it asks what to buy, and with the
    tokens of a run it asks what the run costs."""
    assert parse(f"{model} on a {card}", today=TODAY).intent == "fit"
    assert parse(f"{model} на {card}", today=TODAY).intent == "fit"
    assert parse(f"{model} on a {card}, budget $3000", today=TODAY).intent != "fit"
    assert parse(f"pretrain {model} on 20b tokens on a {card}", today=TODAY).intent != "fit"


@pytest.mark.parametrize(
    "text",
    [
        "is 4x b200 enough for deepseek r1 in fp4?",
        "is an rtx 3090 enough for qwen3 32b",
        "хватит ли rtx 3090 для qwen3 32b",
        "is one h100 enough to run llama 3.3 70b",
        "can one rtx 5090 serve gpt-oss-20b to 32 people at once?",
        "can a 3090 run qwen3 32b?",
    ],
)
def test_a_card_asked_whether_it_is_enough_for_a_model_is_a_fit_question(text: str) -> None:
    """'Is 4x B200 enough for DeepSeek R1', 'can one RTX 5090 serve gpt-oss-20b' ask for a yes or no on those
    cards, not what else to buy."""
    assert parse(text, today=TODAY).intent == "fit"
    if text.isascii():  # 'хватит ли' asks for a fit whatever else is said
        assert parse(text + ", budget $500000", today=TODAY).intent != "fit"
    assert parse("is $800 enough for deep learning", today=TODAY).intent != "fit"


KINDS = {
    "cnns": "cnn",
    "transformers": "transformer",
    "reinforcement learning": "rl",
    "kaggle": "kaggle",
    "llms": "llm",
    "image generation": "image-generation",
    "speech recognition": "speech",
}


@pytest.mark.parametrize(("first", "second"), list(permutations(sorted(KINDS), 2)))
def test_two_kinds_of_work_are_sized_by_the_one_that_asks_most(first: str, second: str) -> None:
    """One card does every kind of work said: the kind whose memory (rule memory-caveat) is largest sizes it,
    the first said of equals, and the reading says which others were heard."""
    from rules.knowledge.loaded import load_rulebook

    needs = load_rulebook().memory_caveat.min_memory_gb
    parsed = parse(f"train {first} and {second}, $1000")
    a, b = KINDS[first], KINDS[second]
    expected = a if needs[a] >= needs[b] else b
    assert parsed.question.workload == expected, parsed.understood
    other = b if expected == a else a
    said = [line for line in parsed.understood if line.startswith(f"workload: {expected} sizes the card")]
    assert said and other in said[0], parsed.understood


@pytest.mark.parametrize("text", ["training lstm language models, $800", "speech with lstm, $900"])
def test_an_rnn_word_wins_over_the_domain_it_works_in(text: str) -> None:
    assert parse(text).question.workload == "rnn"


@pytest.mark.parametrize(
    "text",
    [
        "is a mac studio m4 max with 128gb good for running llama 3.3 70b?",
        "is the rtx 5060 ti 16gb good enough for qwen3 14b?",
        "is the rtx 4090 a good choice for flux dev?",
        "is an rtx 3090 ok for mistral 7b",
        "подойдёт ли rtx 3090 для llama 3.3 70b?",
        "rtx 4090 хороша для qwen3 32b?",
    ],
)
def test_a_card_asked_whether_it_is_good_for_a_model_is_judged_first(text: str) -> None:
    """'Is the Mac good for the 70B?' asks about the card named: yes or no on it, not another card to buy."""
    assert parse(text).intent == "fit"


def test_good_for_with_a_budget_stays_a_recommendation() -> None:
    assert parse("is the rtx 5090 good for llama 70b, budget $3000").intent != "fit"


@pytest.mark.parametrize(
    "text",
    ["best amd gpu for running llms locally, $1000", "an amd card for stable diffusion", "radeon gpu for llm",
     "какую видеокарту amd купить для llm", "only amd, nlp $900"],
)  # fmt: skip
def test_an_amd_card_asked_for_is_a_constraint(text: str) -> None:
    """'amd gpu' is what the asker will run, not a filler word: the ROCm stack is asked for."""
    assert parse(text).question.backend == "rocm"


@pytest.mark.parametrize(
    "who", ["cs freshman", "a freshman", "sophomore", "first-year student", "первокурсник"]
)
@pytest.mark.parametrize(
    "template", ["{}, which gpu to learn deep learning, $450", "{} here, $450, new card only"]
)
def test_a_first_year_student_is_starting_out(template: str, who: str) -> None:
    """'cs freshman here, $450' was answered with 'freshman' not understood: a first-year student starts out,
    as a student does."""
    read = parse(template.format(who), today=TODAY)
    assert read.question.experience == "beginner", read.understood
    assert not read.unknown, read.unknown


@pytest.mark.parametrize(
    "text",
    [
        "можно ли обучать lora на rtx 3060",
        "видеокарта для sdxl за 80 тысяч рублей, можно б/у",
        "что можно взять за 50000",
    ],
)
def test_mozhno_is_a_word_of_asking(text: str) -> None:
    """'можно' ('may I', 'is it possible') asks; it names nothing to read, and is not reported as unread."""
    assert "можно" not in parse(text, today=TODAY).unknown


DIFFUSION = ["sdxl", "flux", "sd 1.5", "stable diffusion 3.5", "flux schnell"]


@pytest.mark.parametrize("model", DIFFUSION)
@pytest.mark.parametrize(
    "template",
    ["which gpu to make {} images", "{} image, which gpu, $1200", "картинки в {}, какую видеокарту взять"],
)
def test_images_of_a_model_named_are_the_pictures_it_makes(template: str, model: str) -> None:
    """'sdxl image, which gpu' was read as CNN training ('image' names computer vision): a word for the data
    yields to the model named, whose pictures are generated, and the model is run."""
    read = parse(template.format(model), today=TODAY)
    assert read.question.workload == "image-generation", read.understood
    assert read.question.task == "inference", read.understood


@pytest.mark.parametrize("model", DIFFUSION)
def test_training_a_model_on_images_stays_training(model: str) -> None:
    read = parse(f"fine-tune {model} on my images", today=TODAY)
    assert (read.question.workload, read.question.task) == ("image-generation", "training")


@pytest.mark.parametrize("text", ["images, $800", "gpu for images", "картинки, бюджет 60000 рублей"])
def test_images_with_no_model_are_still_computer_vision(text: str) -> None:
    assert parse(text, today=TODAY).question.workload == "cnn"
