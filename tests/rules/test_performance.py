"""The performance model reproduces the seed's workload priorities (rule workload-priorities)."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from rules.performance import Measured, PerformanceModel
from rules.rulebook import load_rulebook


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
    more_tensor = replace(card, id="rtx-3090-tc", tensor_tflops=MappingProxyType({k: v * 1.5 for k, v in card.tensor_tflops.items()}))
    assert _gain(model, card, more_tensor, "cnn") > _gain(model, card, more_tensor, "transformer") > _gain(model, card, more_tensor, "rnn")
    cnn_moves = _rank(model, catalog, card, "cnn") - _rank(model, catalog, more_tensor, "cnn")
    rnn_moves = _rank(model, catalog, card, "rnn") - _rank(model, catalog, more_tensor, "rnn")
    assert cnn_moves > rnn_moves


def test_rnn_priorities_bandwidth_then_16bit_then_tensor_then_flops(model, catalog):
    card = catalog.gpu("rtx-2080-ti")
    bandwidth = _gain(model, card, replace(card, id="bw", bandwidth_gb_s=card.bandwidth_gb_s * 1.2), "rnn")
    tensor = _gain(model, card, replace(card, id="tc", tensor_tflops=MappingProxyType({k: v * 1.2 for k, v in card.tensor_tflops.items()})), "rnn")
    flops = _gain(model, card, replace(card, id="fl", fp32_tflops=card.fp32_tflops * 1.2), "rnn")
    sixteen = model.relative(card, "rnn", "16-bit") / model.relative(card, "rnn", "fp32")
    assert bandwidth > tensor > flops
    assert sixteen > tensor


def test_cnn_priorities_tensor_cores_before_bandwidth(model, catalog):
    card = catalog.gpu("rtx-2080-ti")
    tensor = _gain(model, card, replace(card, id="tc", tensor_tflops=MappingProxyType({k: v * 1.2 for k, v in card.tensor_tflops.items()})), "cnn")
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
    slow_lab = PerformanceModel(load_rulebook(), catalog.gpu("gtx-1080-ti"),
                                {"rtx-3090": Measured(hosts=2, matmul_tflops={"fp16": 10.0, "bf16": 10.0, "fp32": 5.0}, bandwidth_gb_s=400.0)})
    assert slow_lab.is_measured("rtx-3090") and not estimated.is_measured("rtx-3090")
    assert slow_lab.relative(card, "cnn", "16-bit") < estimated.relative(card, "cnn", "16-bit")
    # the reference unit stays the spec-sheet reference, so other cards do not move
    other = catalog.gpu("rtx-4090")
    assert slow_lab.relative(other, "cnn", "16-bit") == pytest.approx(estimated.relative(other, "cnn", "16-bit"))


def test_training_ratios_between_cards_match_published_throughputs(model, catalog):
    # Lambda deep learning GPU benchmarks (PyTorch, mixed precision, one GPU; rules/data/calibration.json):
    # each benchmark's ratios between 12 cards, the model's ratios within 20 % in the median
    from benchmarks.calibrate import training_report

    assert training_report(model, catalog, "fit") < 0.2
    assert training_report(model, catalog, "held-out") < 0.2
