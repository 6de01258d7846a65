"""The performance model reproduces the seed's workload priorities (rule workload-priorities)."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from rules.knowledge.loaded import load_rulebook
from rules.performance import Measured, PerformanceModel, TrainingStep


@pytest.fixture(scope="module")
def model(catalog):
    return PerformanceModel(load_rulebook(), catalog.gpu("gtx-1080-ti"))


def _gain(model, before, after, workload, precision="16-bit"):
    """Speed-up from a changed spec (the model caches by id: changed cards need a new id)."""
    assert before.id != after.id
    return model.relative(after, workload, precision) / model.relative(before, workload, precision)


def _rank(model, catalog, card, workload):
    others = [g for g in catalog.gpus if g.id != card.id]
    mine = model.relative(card, workload, "16-bit")
    return sum(model.relative(g, workload, "16-bit") > mine for g in others)


def test_reference_card_is_one(model, catalog):
    assert model.relative(catalog.gpu("gtx-1080-ti"), "cnn", "fp32") == pytest.approx(1.0)


def test_bandwidth_moves_rnn_more_than_cnn(model, catalog):
    card = catalog.gpu("rtx-3090")
    faster_memory = replace(card, id="rtx-3090-bw", bandwidth_gb_s=card.bandwidth_gb_s * 1.5)
    assert _gain(model, card, faster_memory, "rnn") > _gain(model, card, faster_memory, "cnn") > 1.0
    rnn_moves = _rank(model, catalog, card, "rnn") - _rank(model, catalog, faster_memory, "rnn")
    cnn_moves = _rank(model, catalog, card, "cnn") - _rank(model, catalog, faster_memory, "cnn")
    assert rnn_moves > cnn_moves


def test_tensor_throughput_moves_cnn_more_than_rnn(model, catalog):
    card = catalog.gpu("rtx-3090")
    more_tensor = replace(
        card,
        id="rtx-3090-tc",
        tensor_tflops=MappingProxyType({k: v * 1.5 for k, v in card.tensor_tflops.items()}),
    )
    assert (
        _gain(model, card, more_tensor, "cnn")
        > _gain(model, card, more_tensor, "transformer")
        > _gain(model, card, more_tensor, "rnn")
    )
    cnn_moves = _rank(model, catalog, card, "cnn") - _rank(model, catalog, more_tensor, "cnn")
    rnn_moves = _rank(model, catalog, card, "rnn") - _rank(model, catalog, more_tensor, "rnn")
    assert cnn_moves > rnn_moves


def test_rnn_priorities_bandwidth_then_16bit_then_tensor_then_flops(model, catalog):
    card = catalog.gpu("rtx-2080-ti")
    bandwidth = _gain(model, card, replace(card, id="bw", bandwidth_gb_s=card.bandwidth_gb_s * 1.2), "rnn")
    tensor = _gain(
        model,
        card,
        replace(
            card, id="tc", tensor_tflops=MappingProxyType({k: v * 1.2 for k, v in card.tensor_tflops.items()})
        ),
        "rnn",
    )
    flops = _gain(model, card, replace(card, id="fl", fp32_tflops=card.fp32_tflops * 1.2), "rnn")
    sixteen = model.relative(card, "rnn", "16-bit") / model.relative(card, "rnn", "fp32")
    assert bandwidth > tensor > flops
    assert sixteen > tensor


def test_cnn_priorities_tensor_cores_before_bandwidth(model, catalog):
    card = catalog.gpu("rtx-2080-ti")
    tensor = _gain(
        model,
        card,
        replace(
            card, id="tc", tensor_tflops=MappingProxyType({k: v * 1.2 for k, v in card.tensor_tflops.items()})
        ),
        "cnn",
    )
    bandwidth = _gain(model, card, replace(card, id="bw", bandwidth_gb_s=card.bandwidth_gb_s * 1.2), "cnn")
    flops_fp32 = _gain(model, card, replace(card, id="fl", fp32_tflops=card.fp32_tflops * 1.2), "cnn", "fp32")
    assert tensor > bandwidth and flops_fp32 > bandwidth


def test_16bit_speed_only_on_cards_with_fast_16bit(model, catalog):
    pascal, turing = catalog.gpu("gtx-1080-ti"), catalog.gpu("rtx-2080-ti")
    assert not pascal.fast_16bit and turing.fast_16bit
    assert model.relative(pascal, "cnn", "16-bit") == pytest.approx(model.relative(pascal, "cnn", "fp32"))
    assert model.relative(turing, "cnn", "16-bit") > 2 * model.relative(turing, "cnn", "fp32")


def test_multi_gpu_speedups_follow_the_seed(model):
    assert [model.speedup("cnn", n) for n in (1, 2, 3, 4)] == pytest.approx([1.0, 1.9, 2.8, 3.5])
    assert model.speedup("transformer", 4) < model.speedup("cnn", 4)
    assert model.speedup("cnn", 8) > model.speedup("cnn", 4)


def test_measured_figures_replace_the_estimate(catalog):
    card = catalog.gpu("rtx-3090")
    estimated = PerformanceModel(load_rulebook(), catalog.gpu("gtx-1080-ti"))
    slow_lab = PerformanceModel(
        load_rulebook(),
        catalog.gpu("gtx-1080-ti"),
        {
            "rtx-3090": Measured(
                hosts=2, matmul_tflops={"fp16": 10.0, "bf16": 10.0, "fp32": 5.0}, bandwidth_gb_s=400.0
            )
        },
    )
    assert slow_lab.is_measured("rtx-3090") and not estimated.is_measured("rtx-3090")
    assert slow_lab.relative(card, "cnn", "16-bit") < estimated.relative(card, "cnn", "16-bit")
    # the reference unit stays the spec-sheet reference, so other cards do not move
    other = catalog.gpu("rtx-4090")
    assert slow_lab.relative(other, "cnn", "16-bit") == pytest.approx(
        estimated.relative(other, "cnn", "16-bit")
    )


def test_training_ratios_between_cards_match_published_throughputs(model, catalog):
    # Lambda deep learning GPU benchmarks (PyTorch, mixed precision, one GPU; rules/data/calibration.json):
    # each benchmark's ratios between 12 cards, the model's ratios within 20 % in the median
    from benchmarks.calibrate import training_report

    assert training_report(model, catalog, "fit") < 0.2
    assert training_report(model, catalog, "held-out") < 0.2


# --- the lab's training steps ----------------------------------------------------------------

LAB_SPECS = {  # the same measured matmul and bandwidth with and without training steps: only the steps differ
    "rtx-3080": dict(matmul_tflops={"fp16": 50.0, "fp32": 25.0}, bandwidth_gb_s=650.0),
    "rtx-3090": dict(matmul_tflops={"fp16": 62.0, "fp32": 31.0}, bandwidth_gb_s=800.0),
    "rtx-4090": dict(matmul_tflops={"fp16": 150.0, "fp32": 75.0}, bandwidth_gb_s=850.0),
}


def _lab(
    catalog,
    shares: dict[str, float],
    hosts: int = 2,
    tier=lambda gpu_id: "gpu",
    benchmark="cnn_train",
    cls="cnn",
):
    """A lab where each card's CNN training step runs at ``shares[card]`` × what the uncorrected model
    predicts."""
    plain = PerformanceModel(
        load_rulebook(),
        catalog.gpu("gtx-1080-ti"),
        {g: Measured(hosts=hosts, **LAB_SPECS[g]) for g in shares},
        gpu_of=catalog.gpu,
    )
    measured = {}
    for gpu_id, share in shares.items():
        predicted = (
            plain.relative(catalog.gpu(gpu_id), cls, "16-bit") * 1000.0
        )  # images/s in some unit: only ratios count
        steps = (TrainingStep(benchmark, tier(gpu_id), "fp16", predicted * share, hosts),)
        measured[gpu_id] = Measured(hosts=hosts, training=steps, **LAB_SPECS[gpu_id])
    return plain, PerformanceModel(load_rulebook(), catalog.gpu("gtx-1080-ti"), measured, gpu_of=catalog.gpu)


def _moved(plain, lab, card, workload="cnn"):
    return lab.relative(card, workload, "16-bit") / plain.relative(card, workload, "16-bit")


def test_a_card_slower_than_predicted_in_the_labs_training_steps_moves_down(catalog):
    # ratios 0.8, 1.0, 1.0 of the prediction: the median is 1.0, so the first card is 0.8x, the others stay
    plain, lab = _lab(catalog, {"rtx-3080": 0.8, "rtx-3090": 1.0, "rtx-4090": 1.0})
    assert _moved(plain, lab, catalog.gpu("rtx-3080")) == pytest.approx(0.8)
    assert _moved(plain, lab, catalog.gpu("rtx-3090")) == pytest.approx(1.0)
    assert _moved(plain, lab, catalog.gpu("rtx-3080"), "rnn") == pytest.approx(
        1.0
    )  # no LSTM step: the RNN figure stays
    assert 0.8 < _moved(plain, lab, catalog.gpu("rtx-3080"), "general") < 0.95  # CNNs are 40 % of the mix
    assert "CNN training step 0.80× the spec estimate on 2 of them" in lab.basis("rtx-3080", "cnn")
    assert lab.basis("rtx-3080", "rnn") == "measured on 2 lab hosts"


def test_the_correction_is_bounded_and_tighter_for_one_host(catalog):
    plain, lab = _lab(catalog, {"rtx-3080": 0.3, "rtx-3090": 1.0, "rtx-4090": 1.0})
    assert _moved(plain, lab, catalog.gpu("rtx-3080")) == pytest.approx(1 / 1.5)
    plain, lab = _lab(catalog, {"rtx-3080": 0.3, "rtx-3090": 1.0, "rtx-4090": 1.0}, hosts=1)
    assert _moved(plain, lab, catalog.gpu("rtx-3080")) == pytest.approx(1 / 1.15)
    plain, lab = _lab(catalog, {"rtx-3080": 3.0, "rtx-3090": 1.0, "rtx-4090": 1.0}, hosts=1)
    assert _moved(plain, lab, catalog.gpu("rtx-3080")) == pytest.approx(1.15)


def test_only_steps_of_one_size_tier_are_compared_and_a_lone_card_is_not_corrected(catalog):
    tiers = {"rtx-3080": "gpu_small", "rtx-3090": "gpu", "rtx-4090": "gpu"}
    plain, lab = _lab(catalog, {"rtx-3080": 0.5, "rtx-3090": 1.0, "rtx-4090": 0.8}, tier=tiers.get)
    assert _moved(plain, lab, catalog.gpu("rtx-3080")) == pytest.approx(1.0)  # alone in its tier
    assert _moved(plain, lab, catalog.gpu("rtx-4090")) == pytest.approx(0.8 / 0.9)  # median of 0.8 and 1.0
    plain, lab = _lab(catalog, {"rtx-3080": 0.5})
    assert _moved(plain, lab, catalog.gpu("rtx-3080")) == pytest.approx(1.0)


def test_lstm_and_transformer_steps_correct_their_own_classes(catalog):
    plain, lab = _lab(
        catalog, {"rtx-3080": 1.2, "rtx-3090": 1.0, "rtx-4090": 1.0}, benchmark="lstm_train", cls="rnn"
    )
    assert _moved(plain, lab, catalog.gpu("rtx-3080"), "rnn") == pytest.approx(1.2)
    assert _moved(plain, lab, catalog.gpu("rtx-3080"), "cnn") == pytest.approx(1.0)
    plain, lab = _lab(
        catalog,
        {"rtx-3080": 1.0, "rtx-3090": 0.9, "rtx-4090": 1.0},
        benchmark="transformer_train",
        cls="transformer",
    )
    assert _moved(plain, lab, catalog.gpu("rtx-3090"), "transformer") == pytest.approx(0.9)
    card = catalog.gpu("rtx-3090")  # no fp32 step in this lab: the 16-bit one stands for it
    assert lab.relative(card, "transformer", "fp32") / plain.relative(
        card, "transformer", "fp32"
    ) == pytest.approx(0.9)


def test_the_basis_names_the_factor_applied_at_the_precision(catalog):
    rulebook = load_rulebook()
    card = catalog.gpu("rtx-3080")
    steps = {
        "rtx-3080": (
            TrainingStep("cnn_train", "gpu", "fp32", 80.0, 2),
            TrainingStep("cnn_train", "gpu", "fp16", 100.0, 2),
        ),
        "rtx-3090": (
            TrainingStep("cnn_train", "gpu", "fp32", 100.0, 2),
            TrainingStep("cnn_train", "gpu", "fp16", 100.0, 2),
        ),
    }
    lab = PerformanceModel(
        rulebook,
        catalog.gpu("gtx-1080-ti"),
        {g: Measured(hosts=2, training=s, **LAB_SPECS[g]) for g, s in steps.items()},
        gpu_of=catalog.gpu,
    )
    fp32, half = lab.training_factor(card.id, "cnn", "fp32"), lab.training_factor(card.id, "cnn", "16-bit")
    assert fp32 != pytest.approx(half)
    assert f"CNN training step {fp32:.2f}×" in lab.basis(card.id, "cnn", "fp32")
    assert f"CNN training step {half:.2f}×" in lab.basis(card.id, "cnn", "16-bit")


@pytest.mark.parametrize(
    ("amd", "nvidia", "low", "high"),
    [
        ("mi300x", "h100-sxm", 0.85, 1.05),  # slightly behind
        ("mi325x", "h100-sxm", 1.0, 1.35),  # about an H200: ahead of the H100
    ],
)
def test_rocm_training_lands_where_mlperf_measured_it(model, catalog, amd, nvidia, low, high):
    """MLPerf Training v5.0 (2025-06-04, Llama 2 70B LoRA, one 8-GPU node): the MI300X slightly behind the
    H100, the MI325X up to 8% ahead of the H200. ROCm reaches its share of the bandwidth as of the compute:
    on compute alone the model put an MI300X at 1.36x an H100 SXM."""
    ratio = model.relative(catalog.gpu(amd), "transformer", "16-bit") / model.relative(
        catalog.gpu(nvidia), "transformer", "16-bit"
    )
    assert low <= ratio <= high, ratio
