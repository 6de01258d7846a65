"""The memory a job needs and whether cards hold it (rules memory-fit, 16-bit-memory): needs per model,
method, precision and card count, counted by rules.need through the job stage."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rules.configurations import fit_on
from rules.contract.question import Question
from rules.job import job_for
from rules.knowledge.loaded import load_models, load_rulebook
from rules.knowledge.messages import spoken
from rules.need import kv_values

RULEBOOK = load_rulebook()


def _need(question: Question, floor_gb: float | None = None):
    return job_for(question, RULEBOOK, () if floor_gb is None else (floor_gb,)).need


def _fit(question: Question, need, memory_gb: float, count: int):
    return fit_on(job_for(question, RULEBOOK), memory_gb, count)


@pytest.fixture(scope="module")
def memory():
    return SimpleNamespace(need=_need, fit=_fit)


def test_16bit_training_counts_memory_one_and_a_half_times(memory):
    question = Question(workload="transformer", precision="16-bit")
    need = memory.need(question)  # 11 GB typical transformer work, in 32-bit terms
    assert memory.fit(question, need, 8, 1).fits
    assert memory.fit(question, need, 8, 1).effective_gb == pytest.approx(12.0 * 2**30 / 1e9)  # 8 GiB x 1.5
    assert not memory.fit(question.refined(precision="fp32"), need, 8, 1).fits


def test_inference_needs_weights_at_the_precision_plus_kv_cache(memory):
    fp16 = memory.need(Question(workload="llm", model="llama-70b", task="inference", precision="16-bit"))
    int4 = memory.need(Question(workload="llm", model="llama-70b", task="inference", precision="4-bit"))
    assert 140 < fp16.gb < 175 and 35 < int4.gb < 50
    assert "KV cache" in spoken(fp16.how)


def test_full_training_is_much_bigger_than_adapter_training(memory):
    full = memory.need(Question(workload="llm", model="llama-13b", precision="16-bit", method="full"))
    qlora = memory.need(Question(workload="llm", model="llama-13b", precision="4-bit"))
    assert full.gb > 200 and 8 < qlora.gb < 24
    assert "LoRA" in spoken(qlora.how)


def test_several_cards_hold_a_model_only_when_sharded_and_say_so(memory):
    question = Question(workload="llm", model="llama-13b", precision="16-bit", method="full", gpus=4)
    need = memory.need(question)
    assert not memory.fit(question.refined(gpus=1), need, 80, 1).fits
    fit = memory.fit(question, need, 80, 4)
    assert fit.fits and fit.sharded and "FSDP" in spoken(fit.said)


def test_llm_training_without_a_method_is_lora_not_full_training(memory):
    question = Question(workload="llm", model="llama 3 8b", precision="16-bit")
    need = memory.need(question)
    assert "LoRA" in spoken(need.how) and need.gb < 24 and memory.fit(question, need, 24, 1).fits


def test_a_floor_raises_only_an_unnamed_job(memory):
    assert memory.need(Question(workload="llm"), floor_gb=24).gb == 24
    assert memory.need(Question(workload="llm", model="llama 3 8b", task="inference"), floor_gb=24).gb < 10


def test_sizes_without_a_named_model(memory):
    need = memory.need(Question(workload="llm", params_b=7, task="inference", precision="16-bit"))
    assert 14 < need.gb < 20
    assert memory.need(Question(memory_gb=24)).gb == 24


def test_model_table_covers_the_common_families():
    names = set(load_models())
    for model in (
        "resnet-50",
        "resnet-101",
        "vit-b",
        "bert-base",
        "bert-large",
        "gpt2-xl",
        "t5-3b",
        "llama-13b",
        "mistral-7b",
        "qwen-72b",
        "sd-xl",
        "stable-diffusion",
    ):
        assert model in names, model


def test_sliding_window_layers_cache_only_their_window(memory):
    # google/gemma-3-27b-it config.json: 62 layers, 16 KV heads x 128, sliding_window 1024, every 6th layer
    # global (52 local); Gemma 3 report arXiv:2503.19786 "5 local layers per global layer,
    # local span 1024 tokens"
    gemma = load_models()["gemma-3-27b"]
    per_layer = 2 * 16 * 128
    assert kv_values(gemma, 131072) == per_layer * (10 * 131072 + 52 * 1024)
    assert (
        kv_values(gemma, 1024) == gemma.kv_values_per_token * 1024
    )  # within the window every layer holds it all
    need = memory.need(
        Question(
            workload="llm", model="gemma 3 27b", task="inference", precision="16-bit", context_tokens=131072
        )
    )
    assert "11.2 GB KV cache" in spoken(need.how)  # not the 66.6 GB of 62 global layers
    # openai/gpt-oss-120b config.json: 36 layers alternate a 128-token band and dense attention,
    # 8 KV heads x 64
    oss = load_models()["gpt-oss-120b"]
    assert kv_values(oss, 131072) == 2 * 8 * 64 * (18 * 131072 + 18 * 128)
    llama = load_models()["llama-8b"]
    assert kv_values(llama, 131072) == llama.kv_values_per_token * 131072


def test_a_flux_lora_is_trained_on_the_transformer_in_8_bit(memory):
    """ostris ai-toolkit (train_lora_flux_24gb.yaml: 'quantize: true', 24 GB) and kohya sd-scripts
    (--fp8_base,
    --cache_text_encoder_outputs): the 12B transformer in 8 bit, the text encoders' outputs cached. Counted
    with a 16-bit base and the encoders on the card, it needed 41 GB and $2,000 bought nothing;
    SDXL's base stays 16-bit."""
    flux = memory.need(
        Question(workload="image-generation", model="flux dev", task="training", method="lora")
    )
    assert 14 <= flux.gb <= 24
    sdxl = memory.need(Question(workload="image-generation", model="sdxl", task="training", method="lora"))
    assert "5.3 GB base" in spoken(sdxl.how)  # the 2.65B UNet and VAE at 16 bit; the text encoders run first


def test_flux_schnell_is_the_dev_transformer_distilled(memory):
    # black-forest-labs/FLUX.1-schnell model card: the 12B FLUX.1 transformer distilled to 1-4 steps
    dev = memory.need(
        Question(workload="image-generation", model="flux dev", task="inference", precision="16-bit")
    )
    schnell = memory.need(
        Question(workload="image-generation", model="flux schnell", task="inference", precision="16-bit")
    )
    assert schnell.model == "flux-1-schnell" and schnell.gb == pytest.approx(dev.gb)


@pytest.mark.parametrize("model", ["qwen3-32b", "llama-3.1-8b", "gemma-3-27b", "mistral-small-3.1-24b"])
@pytest.mark.parametrize("fmt", ["GGUF Q5_K_M", "GGUF Q6_K"])
def test_a_weight_file_named_sizes_the_weights_by_its_own_bits(model: str, fmt: str) -> None:
    """Q5_K_M is 5.68 bits a weight, not the 8.5 of Q8_0 it was rounded up to: Qwen3 32B's file is about
    23 GB, which a 24 GB card holds only just, not 35 GB, which it does not hold."""
    from rules.knowledge.loaded import find_format, find_model

    spec = find_model(model)
    assert spec is not None
    asked = Question(model=model, task="inference", method="inference", precision="8-bit", weight_format=fmt)
    bits = find_format(fmt).bits_per_weight
    parts = _need(asked).parts
    assert parts.weights == pytest.approx(spec.params_b * bits / 8, rel=0.02)
    assert _need(asked).gb < _need(Question(model=model, task="inference", method="inference",
                                            precision="8-bit")).gb  # fmt: skip


def test_the_weight_formats_a_question_takes_are_the_model_tables() -> None:
    import json
    from pathlib import Path

    from rules.contract.values import WEIGHT_FORMATS

    table = json.loads((Path(__file__).parents[2] / "rules" / "data" / "models.json").read_text())
    assert set(WEIGHT_FORMATS) == {f["id"] for f in table["formats"]}


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("qwen3 32b q5_k_m on a 3090", "GGUF Q5_K_M"),
        ("llama 3.1 8b Q6_K on an rtx 4060", "GGUF Q6_K"),
        ("gemma 3 27b q5 on a 4090", "GGUF Q5_K_M"),
        ("qwen3 32b q4_k_m on a 3090", None),
        ("llama 3 70b q8_0 on two a6000", None),
        ("is 4x b200 enough for deepseek r1 in fp4?", "NVFP4"),
        ("deepseek r1 nvfp4 on 8 b200", "NVFP4"),
        ("llama 3.3 70b mxfp4 on an rtx pro 6000", "MXFP4"),
        ("llama 3.3 70b int4 on an rtx pro 6000", None),
    ],
)
def test_a_file_between_4_and_8_bits_is_read_as_that_file(text: str, fmt: str | None) -> None:
    from rules.understand import parse

    read = parse(text)
    assert read.question.weight_format == fmt, read.understood


@pytest.mark.parametrize("model", ["llama-3.1-8b", "qwen3-14b", "qwen3-32b", "llama-3.3-70b"])
@pytest.mark.parametrize("method", ["lora", "qlora", "full"])
def test_adapters_keep_their_checkpoints_in_system_ram_from_2024(model: str, method: str) -> None:
    """From Unsloth's offloaded gradient checkpointing (2024-04) a LoRA or QLoRA keeps only the layer being
    recomputed on the card and takes its loss in chunks; before, every checkpoint and the logits stayed. Full
    fine-tuning is counted alike on both dates."""
    from datetime import date

    since = RULEBOOK.memory_fit.offloaded_checkpoints_since
    asked = {"model": model, "task": "training", "method": method}
    before = _need(Question(**asked, as_of=date(2023, 6, 15)))
    after = _need(Question(**asked, as_of=since))
    if method == "full":
        assert after.gb == pytest.approx(before.gb)
    else:
        assert after.parts.activations < before.parts.activations / 3
        assert after.gb < before.gb and after.parts.weights == before.parts.weights
        assert "system RAM" in spoken(after.how) and "system RAM" not in spoken(before.how)


def test_a_model_asked_in_the_format_it_ships_in_is_its_own_checkpoint() -> None:
    """gpt-oss ships with MXFP4 experts and 16-bit attention: asked 'in MXFP4' it is its 65 GB checkpoint, not
    every weight at 4.25 bits; another model in MXFP4 is sized by the format's bits."""
    from rules.knowledge.loaded import find_format, find_model

    oss = Question(model="gpt-oss-120b", task="inference", method="inference", precision="4-bit")
    assert _need(oss.refined(weight_format="MXFP4")).parts.weights == _need(oss).parts.weights
    llama = find_model("llama-3.3-70b")
    assert llama is not None
    asked = Question(
        model="llama-3.3-70b", task="inference", method="inference", precision="4-bit", weight_format="MXFP4"
    )
    bits = find_format("MXFP4").bits_per_weight
    assert _need(asked).parts.weights == pytest.approx(llama.params_b * bits / 8, rel=0.02)


def test_whisper_s_decoder_is_counted_over_its_text_not_the_audio(memory):
    """Whisper's decoder attends over at most 448 text positions, its encoder over 1,500 audio frames
    (config.json). Counting the decoder at 1,500 made a full fine-tune of large-v3 at batch 4 need 59 GB;
    counted by stack it needs about 47 GB in 32-bit terms, about 40 GB trained in mixed precision: the 40 GB
    Hugging Face's PEFT example gives for a full fine-tune of Whisper large."""
    question = Question(workload="speech", model="whisper-large-v3", task="training", method="full")
    need = memory.need(question)
    assert 44 <= need.gb <= 50
    holds_at = [gb for gb in (32, 40, 41, 42, 44, 48) if memory.fit(question, need, gb, 1).fits]
    assert holds_at and 38 <= holds_at[0] <= 44  # the smallest card that holds it, in mixed precision
    lora = memory.need(question.refined(method="lora"))
    assert lora.gb <= 16  # LoRA on large fits a 16 GB card (Hugging Face PEFT: a 16 GB T4)
