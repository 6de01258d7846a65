"""Jobs and their memory against published figures (rules memory-fit, 16-bit-memory);
each test names its source."""

from __future__ import annotations

from datetime import date

import pytest

from rules.configurations import fit_on
from rules.contract.question import Question
from rules.job import job_for
from rules.knowledge.loaded import load_models, load_rulebook
from rules.knowledge.messages import spoken


@pytest.fixture(scope="module")
def rulebook():
    return load_rulebook()


def job(rulebook, **fields):
    return job_for(Question(**fields), rulebook)


def weights_gb(found) -> float:
    """The weights figure the explanation gives ('16.1 GB weights ...')."""
    head = spoken(found.need.how).split(": ", 1)[1]
    return float(head.split(" GB", 1)[0])


def test_llama_3_8b_weights_match_the_gguf_files(rulebook):
    # bartowski/Meta-Llama-3-8B-Instruct-GGUF on Hugging Face: Q4_K_M 4.92 GB, f16 16.07 GB
    q4 = job(rulebook, workload="llm", model="llama 3 8b", task="inference", precision="4-bit")
    f16 = job(rulebook, workload="llm", model="llama 3 8b", task="inference", precision="16-bit")
    assert weights_gb(q4) == pytest.approx(4.92, abs=0.15)
    assert weights_gb(f16) == pytest.approx(16.1, abs=0.05)  # 8.03 B parameters x 2 bytes, not 17.7
    assert 16.1 < f16.need.gb < 18.5 and "KV cache" in spoken(f16.need.how)


def test_llama_70b_q4_k_m_matches_its_gguf_file(rulebook):
    # bartowski/Meta-Llama-3-70B-Instruct-GGUF: Q4_K_M 42.5 GB
    found = job(rulebook, workload="llm", model="llama 3 70b", task="inference", precision="4-bit")
    assert weights_gb(found) == pytest.approx(42.5, rel=0.03)
    assert not fit_on(found, 24, 1).fits
    two = fit_on(found, 24, 2)
    assert two.fits and two.sharded and "layer split" in spoken(two.said)


def test_local_llm_inference_defaults_to_4_bit_and_says_so(rulebook):
    # "ollama qwen 32b q4": Qwen2.5-32B-Instruct Q4_K_M is 19.85 GB (bartowski/Qwen2.5-32B-Instruct-GGUF);
    # ~20-24 GB with cache
    found = job(rulebook, workload="llm", model="qwen 32b", task="inference")
    assert found.precision == "4-bit" and found.precision_assumed
    assert 20 <= found.need.gb <= 24
    assert fit_on(found, 24, 1).fits and not fit_on(found, 16, 1).fits
    served = job(rulebook, workload="llm", model="qwen 32b", task="inference", setting="server")
    # a server runs vLLM-class serving, which serves FP8 weights and an FP8 KV cache (vLLM docs, FP8 W8A8)
    assert served.precision == "fp8" and served.pooling == "tensor-parallel"
    assert served.kv_cache_bytes == 1.0


def test_lora_on_llama_3_8b_needs_about_20_gb_not_142(rulebook):
    # PEFT / Unsloth guides: Llama 3 8B LoRA at 16 bit fits a 24 GB card (Unsloth's minimum: 22 GB)
    found = job(rulebook, workload="llm", model="llama 3 8b", method="lora")
    assert found.method == "lora" and not found.method_assumed
    assert 17 <= found.need.gb <= 24
    assert fit_on(found, 24, 1).fits
    others = dict(found.other_methods)
    assert set(others) == {"qlora", "full"} and others["qlora"] < found.need.gb < others["full"]


def test_llm_training_without_a_method_is_lora_stated(rulebook):
    found = job(rulebook, workload="llm", model="llama 3 8b", task="training")
    assert found.method == "lora" and found.method_assumed and found.precision == "16-bit"
    assert any("LoRA assumed" in said for said in map(spoken, found.assumptions))
    assert found.memory_factor == 1.0


def test_qlora_fits_a_65b_model_on_one_48_gb_card(rulebook):
    # Dettmers et al. 2023, QLoRA (arXiv 2305.14314): a 65B model fine-tuned on a single 48 GB GPU
    found = job(rulebook, workload="llm", model="llama 65b", method="qlora", context_tokens=512)
    assert found.precision == "4-bit"
    assert fit_on(found, 48, 1).fits
    seventy = job(rulebook, workload="llm", model="llama 3 70b", method="qlora")
    assert 38 < seventy.need.gb <= 48


def test_full_fine_tuning_is_16_bytes_per_parameter_without_the_16_bit_factor(rulebook):
    # ZeRO (Rajbhandari et al. 2020): mixed-precision Adam holds 16 bytes per parameter;
    # 6.74 B -> 108 GB + activations
    found = job(rulebook, workload="llm", model="llama 7b", method="full", precision="16-bit")
    assert 105 <= found.need.gb <= 135
    one = fit_on(found, 80, 1)
    assert not one.fits and one.effective_gb == pytest.approx(
        80 * 2**30 / 1e9
    )  # 80 GiB, no 1.5x stacked on a 16-bit count
    two = fit_on(found, 80, 2)
    assert two.fits and "FSDP" in spoken(two.said)


def test_sdxl_inference_needs_about_10_gb_not_training_memory(rulebook):
    # Stability AI / diffusers: SDXL base in fp16 generates 1024x1024 images on 8-12 GB cards
    found = job(rulebook, workload="image-generation", model="sdxl", task="inference")
    assert 8 <= found.need.gb <= 12 and found.precision == "16-bit"
    assert fit_on(found, 12, 1).fits


def test_mixtral_memory_counts_all_46_7_b_parameters(rulebook):
    # Jiang et al. 2024, Mixtral of Experts: 46.7 B total, 12.9 B active per token
    found = job(rulebook, workload="llm", model="mixtral 8x7b", task="inference", precision="16-bit")
    assert weights_gb(found) == pytest.approx(46.7 * 2, rel=0.01)
    assert found.model.active_b == pytest.approx(12.9)


def test_gqa_cache_is_smaller_than_mha_cache(rulebook):
    # Llama 2 7B: 32 KV heads; Llama 3 8B: 8 KV heads (config.json); 128k-token cache 64 GB vs 16 GB
    mha = job(rulebook, workload="llm", model="llama 2 7b", task="inference", context_tokens=4096)
    gqa = job(rulebook, workload="llm", model="llama 3 8b", task="inference", context_tokens=4096)
    assert mha.model.kv_values_per_token == 4 * gqa.model.kv_values_per_token
    long = job(
        rulebook,
        workload="llm",
        model="llama 3 8b",
        task="inference",
        precision="16-bit",
        context_tokens=131072,
    )
    assert long.need.gb - weights_gb(long) == pytest.approx(17.2 + 0.8, abs=0.3)


def test_gpt_oss_uses_its_released_mxfp4_size(rulebook):
    # openai/gpt-oss-120b model card: runs on a single 80 GB GPU
    found = job(rulebook, workload="llm", model="gpt-oss-120b", task="inference")
    assert fit_on(found, 80, 1).fits and not fit_on(found, 48, 1).fits


def test_2019_training_keeps_the_16_bit_rule(rulebook):
    # 003 "Required Memory Size and 16-bit Training": 8 GB behaves like 12 GB in 16-bit training
    found = job(rulebook, workload="transformer", precision="16-bit")
    assert found.method == "train" and found.memory_factor == 1.5
    assert fit_on(found, 8, 1).fits and fit_on(found, 8, 1).effective_gb == pytest.approx(
        12.0 * 2**30 / 1e9
    )  # 8 GiB x 1.5
    assert not fit_on(job(rulebook, workload="transformer", precision="fp32"), 8, 1).fits


def test_data_parallel_training_does_not_pool_memory(rulebook):
    found = job(rulebook, workload="cnn", model="efficientnet-b7", precision="fp32", gpus=2)
    assert found.pooling == "none"
    fit = fit_on(found, found.need.gb / 1.5, 2)
    assert not fit.fits and not fit.sharded and "full copy" in spoken(fit.said)


def test_asked_memory_and_unknown_models(rulebook):
    assert job(rulebook, memory_gb=24).need.gb == 24
    sized = job(rulebook, workload="llm", params_b=7, task="inference", precision="16-bit")
    assert 14 < sized.need.gb < 20


def test_model_table_covers_the_families_people_name():
    names = set(load_models())
    for alias in (
        "llama-2-7b",
        "llama-3.1-8b",
        "llama-3.2-1b",
        "llama-3.3-70b",
        "llama-405b",
        "qwen2.5-72b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "deepseek-r1",
        "deepseek-r1-distill-qwen-32b",
        "deepseek-r1-distill-llama-70b",
        "mistral-7b",
        "mixtral-8x22b",
        "gemma-2-27b",
        "gemma-3-12b",
        "phi-4",
        "phi-3-medium",
        "gpt-oss-20b",
        "sd-1.5",
        "sdxl",
        "sd3-medium",
        "flux-1-dev",
        "whisper-large-v3",
        "whisper-small",
        "bert-base",
        "gpt2",
        "resnet-50",
    ):
        assert alias in names, alias


def test_whisper_large_is_counted_at_its_published_10_gb_not_the_lean_estimate(rulebook):
    """openai/whisper README: large needs ~10 GB of VRAM; the weights alone are 3.1 GB at 16 bit."""
    job = job_for(Question(workload="speech", model="whisper-large-v3", task="inference"), rulebook)
    assert job.need.gb == pytest.approx(10) and "published" in spoken(job.need.how)
    assert not fit_on(job, 8, 1).fits and fit_on(job, 12, 1).fits
    small = job_for(Question(workload="speech", model="whisper-small", task="inference"), rulebook)
    assert small.need.gb < 4  # no published figure: the count stands


def test_the_runtime_named_decides_how_cards_pool_and_how_weights_are_named(rulebook):
    # vLLM docs (distributed serving): one machine's GPUs run a model in tensor parallel; llama.cpp docs
    # (multi-GPU):
    # --split-mode layer is the default, one GPU working at a time
    vllm = job(
        rulebook, workload="llm", model="qwen3 32b", task="inference", runtime="vllm", precision="4-bit"
    )
    ollama = job(rulebook, workload="llm", model="qwen3 32b", task="inference", runtime="llama.cpp")
    assert vllm.pooling == "tensor-parallel" and ollama.pooling == "layer-split"
    # no precision asked: vLLM serves FP8 weights and an FP8 KV cache, llama.cpp a Q4_K_M file
    served = job(rulebook, workload="llm", model="qwen3 32b", task="inference", runtime="vllm")
    assert (served.precision, served.kv_cache_bytes, ollama.precision) == ("fp8", 1.0, "4-bit")
    vllm_how, ollama_how = spoken(vllm.need.how), spoken(ollama.need.how)
    assert "AWQ / GPTQ" in vllm_how and "Q4_K_M" not in vllm_how and "Q4_K_M" in ollama_how
    assert any("vLLM" in line for line in map(spoken, vllm.assumptions)) and any(
        "llama.cpp" in line for line in map(spoken, ollama.assumptions)
    )
    # not named: several users at once or a server mean a batching server;
    # one person's desktop means llama.cpp
    assert (
        job(rulebook, workload="llm", model="qwen3 32b", task="inference", batch=20).pooling
        == "tensor-parallel"
    )
    assert (
        job(rulebook, workload="llm", model="qwen3 32b", task="inference", setting="server").pooling
        == "tensor-parallel"
    )
    assert job(rulebook, workload="llm", model="qwen3 32b", task="inference").pooling == "layer-split"
    assert (
        job(
            rulebook, workload="llm", model="qwen3 32b", task="inference", batch=20, runtime="llama.cpp"
        ).pooling
        == "layer-split"
    )
    # training pools by sharding whatever runtime is named
    assert (
        job(
            rulebook, workload="llm", model="qwen3 32b", method="lora", task="training", runtime="vllm"
        ).pooling
        == "fsdp"
    )


def test_tensor_parallelism_needs_a_count_that_divides_the_attention_heads(rulebook):
    # vLLM splits each layer's 64 heads evenly (Llama 3 70B): 2, 4 or 8 cards; 3 run as pipeline stages,
    # serially
    served = job(rulebook, workload="llm", model="llama 3 70b", task="inference", batch=20, precision="4-bit")
    assert served.model.heads == 64
    assert [served.poolings[n] for n in (1, 2, 3, 4, 8)] == [
        "tensor-parallel",
        "tensor-parallel",
        "pipeline-parallel",
        "tensor-parallel",
        "tensor-parallel",
    ]
    # 24.0 GB a card on three cards: more than vLLM's 90% of a 24 GB card, within a 32 GB one
    three, four = fit_on(served, 32, 3), fit_on(served, 32, 4)
    assert three.fits and three.serial and "pipeline stages" in spoken(three.said)
    assert four.fits and not four.serial and "tensor parallelism" in spoken(four.said)
    local = job(rulebook, workload="llm", model="llama 3 70b", task="inference")
    assert fit_on(local, 24, 2).serial and local.poolings[3] == "layer-split"
    # 16 cards split 64 heads but copy the 8 KV heads: vLLM allows it
    assert served.poolings[16] == "tensor-parallel"


def test_tensor_parallelism_needs_a_count_that_divides_the_kv_heads(rulebook):
    # Qwen3 14B: 40 attention heads, 8 KV heads (its config.json): 5 cards split the heads, not the KV heads
    served = job(rulebook, workload="llm", model="qwen3 14b", task="inference", users=20)
    assert (served.model.heads, served.model.kv_heads) == (40, 8)
    assert [served.poolings[n] for n in (2, 4, 5, 8, 10)] == [
        "tensor-parallel",
        "tensor-parallel",
        "pipeline-parallel",
        "tensor-parallel",
        "pipeline-parallel",
    ]


@pytest.mark.parametrize(
    ("model", "as_of", "precision"),
    [
        ("flux-1-dev", date(2026, 11, 26), "fp8"),
        ("wan-2.1-14b", date(2026, 11, 26), "fp8"),
        ("flux-1-dev", date(2024, 6, 1), "16-bit"),  # before FLUX's fp8 checkpoints
        ("sd-xl", date(2026, 11, 26), "16-bit"),  # small enough to run as released
    ],
)
def test_a_large_diffusion_transformer_runs_from_its_fp8_weights_and_computes_in_16_bit(
    model: str, as_of: date, precision: str
) -> None:
    """ComfyUI loads FLUX and Wan 14B from fp8 checkpoints and upcasts them: the memory is the fp8 weights',
    the speed the 16-bit arithmetic's."""
    question = Question(workload="image-generation", task="inference", model=model, as_of=as_of)
    job = job_for(question, load_rulebook())
    assert job.precision == precision and job.precision_assumed
    assert job.compute_precision == "16-bit"


def _sixteen_bit_gb(found, seed_factor: float) -> float:
    """The need as mixed precision holds it: 16 bits halve the activations' share the seed counts, not the
    32-bit master weights and optimizer state."""
    parts = found.need.parts
    return found.need.gb - parts.activations * (1 - 1 / seed_factor)


@pytest.mark.parametrize(
    ("fields", "cards"),
    [
        ({"workload": "images", "model": "sdxl", "method": "full"}, (24, 48, 96)),
        ({"workload": "cv", "model": "resnet-50"}, (8, 11, 12)),
        ({"workload": "nlp", "model": "bert large"}, (8, 12, 16)),
        ({"workload": "nlp", "model": "gpt-2 medium"}, (12, 16, 24)),
    ],
)
def test_sixteen_bit_training_holds_half_as_much_again_only_of_what_it_halves(rulebook, fields, cards):
    """Dettmers (2019): 16-bit training saves mainly activation memory, about 1.5x in the networks of the
    day. A full fine-tune of SDXL (3.5B parameters) is mostly 32-bit Adam state: a 48 GB card does not hold
    its ~62 GB counted in 32-bit terms, as it would at a flat 1.5x."""
    found = job(rulebook, **fields, precision="16-bit")
    seed = rulebook.rule_16_bit_memory.effective_memory_factor
    assert found.method == "train" and found.need.parts is not None
    assert 1.0 <= found.memory_factor <= seed
    held = _sixteen_bit_gb(found, seed)
    for card in cards:
        fits = fit_on(found, card, 1).fits
        usable = card * 1.073741824 * found.memory_share
        assert fits == (held <= usable), (card, held, usable)
