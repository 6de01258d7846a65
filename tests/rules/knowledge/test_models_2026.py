"""The models people run in 2026 are known by name, each shaped from its published configuration, and the
weight formats people download are known as bits per weight."""

from __future__ import annotations

from datetime import date

import pytest

from rules.ask import ask
from rules.knowledge.loaded import find_format, find_model, load_models
from rules.knowledge.models import ModelSpec
from tests.wire import wire

TODAY = date(2026, 11, 26)


@pytest.mark.parametrize(
    "name, model_id",
    [
        ("llama 4 maverick", "llama-4-maverick"),
        ("Llama 4 Scout", "llama-4-scout"),
        ("mistral small 3.2", "mistral-small-3"),
        ("kimi k2", "kimi-k2"),
        ("GLM-4.5", "glm-4.5"),
        ("glm 4.5 air", "glm-4.5-air"),
        ("flux kontext", "flux-1-kontext-dev"),
        ("stable diffusion 3.5", "sd-3.5-large"),
        ("sd 3.5 medium", "sd-3.5-medium"),
        ("ltx-video", "ltx-video-13b"),
        ("wan 2.1", "wan-2.1-14b"),
        ("wan 2.2 ti2v 5b", "wan-2.2-ti2v-5b"),
        ("deepseek v3", "deepseek-v3"),
        ("wan 2.2", "wan-2.2-a14b"),
        ("wan 2.2 t2v-a14b", "wan-2.2-a14b"),
        ("wan2.2 i2v a14b", "wan-2.2-a14b"),
        ("FLUX.2 klein 9B", "flux-2-klein-9b"),
        ("flux 2 klein 4b", "flux-2-klein-4b"),
        ("Qwen-Image", "qwen-image"),
        ("qwen image edit", "qwen-image"),
        ("hunyuanvideo", "hunyuanvideo"),
        ("whisper large-v3-turbo", "whisper-large-v3-turbo"),
        ("qwen2.5-vl-7b", "qwen2.5-vl-7b"),
        ("gpt-oss-120b", "gpt-oss-120b"),
        ("phi-4", "phi-4"),
        ("gemma 3 27b", "gemma-3-27b"),
    ],
)
def test_a_2026_model_is_known_by_the_name_people_use(name, model_id):
    spec = find_model(name)
    assert spec is not None and spec.id == model_id, (name, spec)
    assert spec.source and spec.params_b > 0


def test_every_mixture_of_experts_names_experts_in_all_and_per_token(catalog):
    from rules.knowledge.store import load_knowledge

    specs = {s.id: s for s in load_knowledge().models.values()}
    moe = [s for s in specs.values() if s.active_params_b]
    assert {"llama-4-maverick", "kimi-k2", "glm-4.5", "qwen3-235b-a22b", "gpt-oss-120b"} <= {
        s.id for s in moe
    }
    for spec in moe:
        assert spec.active_params_b < spec.params_b, spec.id


@pytest.mark.parametrize(
    "name, bits",
    [
        ("q4_k_m", 4.84),
        ("GGUF Q5_K_M", 5.68),
        ("q8_0", 8.5),
        ("awq", 4.16),
        ("gptq", 4.16),
        ("fp8", 8.0),
        ("mxfp4", 4.25),
        ("nvfp4", 4.5),
    ],
)
def test_download_formats_are_known_as_bits_per_weight(name, bits):
    fmt = find_format(name)
    assert fmt is not None and fmt.bits_per_weight == bits and fmt.source
    assert fmt.bytes_per_weight == pytest.approx(bits / 8)


def test_a_fit_question_about_a_2026_model_sizes_that_model_not_a_generic_one(advisor):
    answer = wire(ask(advisor, "fit llama 4 maverick on an rtx pro 6000", today=TODAY))["recommendation"]
    assert "Llama 4 Maverick" in answer["memory_need"]["how"], answer["memory_need"]
    assert answer["memory_need"]["gb"] > 200  # 400B parameters at 4-bit


def test_a_model_of_unknown_architecture_caches_keys_and_values_as_todays_llms_do():
    """A size without a known model ('serve a 70b model to 36 users') is sized with grouped-query
    attention: its KV cache per token is within a third of the table's dense LLMs of the same size in
    the median, not the several times more of a cache for every head."""
    table = {m.id: m for m in load_models().values()}
    dense = [m for m in table.values() if m.kind == "llm" and m.kv_heads and not m.active_params_b]
    ratios = sorted(ModelSpec.generic(m.params_b).kv_values_per_token / m.kv_values_per_token for m in dense)
    median = ratios[len(ratios) // 2]
    assert len(dense) >= 20 and 0.75 <= median <= 1.33, ratios


def test_wan_22_a14b_at_720p_is_sized_to_its_measured_peak_not_as_typical_image_work(advisor):
    """ComfyUI's FP8 workflow for Wan 2.2 A14B peaks at 24 GB at 720p (one 14B expert resident, the other
    swapped out): a 16 GB card is short, a 24 GB one holds it only just."""
    answer = wire(
        ask(advisor, "make 720p clips with wan 2.2 t2v-a14b using the fp8 weights, budget $2500", today=TODAY)
    )
    need = answer["recommendation"]["memory_need"]
    assert need["model"] == "wan-2.2-a14b" and 22 <= need["gb"] <= 26
    assert all(p["memory_gb"] >= 24 for p in answer["recommendation"]["picks"])


@pytest.mark.parametrize(
    "text", ["flux.3 12b, budget $1500", "flux 3 20b at 16-bit", "flux.4 40b for a studio"]
)
def test_an_image_model_the_table_does_not_know_is_sized_as_a_diffusion_model_not_an_llm(advisor, text: str):
    """A size given for an image family the table lacks: its denoiser at that size, no cache of keys and
    values, its speed relative to the reference card (no tokens a second), and the reply says so."""
    answer = wire(ask(advisor, text, today=TODAY))
    need, top = answer["recommendation"]["memory_need"], answer["recommendation"]["picks"][0]
    assert "diffusion transformer" in need["how"] and "KV cache" not in need["how"]
    assert top["tokens_per_second"] is None
    assert any("not in the model table" in note for note in answer["reading_notes"])


def test_qwen_image_is_an_image_model_not_a_qwen_llm(advisor):
    """Qwen-Image's 20B transformer at FP8 is 20.4 GB of weights: a 16 GB card does not hold it."""
    answer = wire(ask(advisor, "qwen-image at fp8 in comfyui, budget $2000", today=TODAY))["recommendation"]
    assert answer["memory_need"]["model"] == "qwen-image" and 21 <= answer["memory_need"]["gb"] <= 24
    assert all(p["memory_gb"] >= 24 and p["tokens_per_second"] is None for p in answer["picks"])
