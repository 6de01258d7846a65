"""The reference benchmarks: dense matmul, memory bandwidth, three training steps, LLM decode and prompt.

Each case is planned for a device (which precisions the hardware has, sizes from its
memory and cache), prepared (random inputs, never zeros), measured with
:func:`bench_agent.timing.measure` under explicitly set precision flags, and checked
cheaply for correctness. A case that fails is recorded with its error and the sweep
goes on (``userbenchmark/test_bench`` style).
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .timing import FULL, QUICK, TimingPolicy, clock_for, measure

__all__ = [
    "BENCHMARKS",
    "PRECISIONS",
    "UNITS",
    "Case",
    "Interrupted",
    "SuiteConfig",
    "plan",
    "run_case",
    "run_suite",
]

BENCHMARKS = ("matmul", "copy", "triad", "cnn_train", "lstm_train", "transformer_train", "llm_decode",
              "llm_prompt")
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
UNITS = {
    "matmul": "TFLOP/s",
    "copy": "GB/s",
    "triad": "GB/s",
    "cnn_train": "images/s",
    "lstm_train": "sequences/s",
    "transformer_train": "tokens/s",
    "llm_decode": "tokens/s",
    "llm_prompt": "tokens/s",
}
LLM_BENCHMARKS = ("llm_decode", "llm_prompt")
# Llama-shaped decoders: TinyLlama-1.1B's shape on GPUs (2.2 GB at 16 bit, far beyond any cache),
# small ones on CPUs; the decode step attends to a filled cache of ``context`` tokens.
TINYLLAMA = dict(vocab=32000, hidden=2048, layers=22, heads=32, kv_heads=4, ffn=5632, context=512, prompt=512)
LLM_SIZES: dict[str, dict[str, int]] = {
    "tiny": dict(vocab=256, hidden=64, layers=2, heads=4, kv_heads=2, ffn=128, context=16, prompt=16),
    "cpu_quick": dict(vocab=4000, hidden=256, layers=4, heads=8, kv_heads=2, ffn=704, context=128, prompt=64),
    "cpu": dict(vocab=32000, hidden=1024, layers=8, heads=16, kv_heads=4, ffn=2816, context=256, prompt=128),
    "gpu_small": TINYLLAMA,
    "gpu": TINYLLAMA,
}
MAX_ERROR_CHARS = 2000
GiB = 1024**3

# Model sizes per tier; a tier is picked from the device type and its free memory.
MODEL_SIZES: dict[str, dict[str, dict[str, int]]] = {
    "tiny": {
        "cnn_train": dict(batch=4, width=8, image=16, classes=10),
        "lstm_train": dict(batch=4, seq_len=8, input=16, hidden=32, layers=1, classes=10),
        "transformer_train": dict(batch=2, seq_len=16, d_model=32, heads=2, layers=1, vocab=100),
    },
    "cpu_quick": {
        "cnn_train": dict(batch=16, width=16, image=32, classes=10),
        "lstm_train": dict(batch=16, seq_len=32, input=64, hidden=128, layers=2, classes=10),
        "transformer_train": dict(batch=4, seq_len=64, d_model=128, heads=4, layers=2, vocab=1000),
    },
    "cpu": {
        "cnn_train": dict(batch=32, width=32, image=32, classes=10),
        "lstm_train": dict(batch=32, seq_len=64, input=128, hidden=256, layers=2, classes=10),
        "transformer_train": dict(batch=8, seq_len=128, d_model=256, heads=4, layers=4, vocab=8000),
    },
    "gpu_small": {  # under 12 GiB free
        "cnn_train": dict(batch=128, width=64, image=32, classes=10),
        "lstm_train": dict(batch=64, seq_len=128, input=256, hidden=1024, layers=2, classes=10),
        "transformer_train": dict(batch=8, seq_len=512, d_model=768, heads=12, layers=6, vocab=32000),
    },
    "gpu": {
        "cnn_train": dict(batch=256, width=64, image=32, classes=10),
        "lstm_train": dict(batch=128, seq_len=128, input=256, hidden=1024, layers=2, classes=10),
        "transformer_train": dict(batch=16, seq_len=512, d_model=768, heads=12, layers=6, vocab=32000),
    },
}


class Interrupted(Exception):
    """The sweep was asked to stop (SIGTERM); its partial results are discarded."""


@dataclass(frozen=True)
class SuiteConfig:
    """What to run and how long; ``None`` sizes are chosen from the device."""

    quick: bool = False
    policy: TimingPolicy | None = None
    benchmarks: tuple[str, ...] = BENCHMARKS
    tier: str | None = None
    matmul_n: int | None = None
    stream_bytes: int | None = None
    check_size: int = 64

    @property
    def timing(self) -> TimingPolicy:
        return self.policy or (QUICK if self.quick else FULL)


@dataclass(frozen=True)
class Case:
    """One benchmark at one precision, with the sizes it will use."""

    benchmark: str
    precision: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def unit(self) -> str:
        return UNITS[self.benchmark]

    @property
    def label(self) -> str:
        return f"{self.benchmark} {self.precision}"


@dataclass
class Prepared:
    """A ready-to-time callable, the work one call does (in the unit's numerator) and a check."""

    fn: Callable[[], Any]
    work: float
    check: Callable[[], dict[str, Any]]


# --- capabilities and sizes ---------------------------------------------------------------


def cpu_has_fast_bf16() -> bool:
    """Native bf16 arithmetic on this CPU (AVX512-BF16 / AMX on x86, BF16 on Arm)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    flags = set(text.split())
    return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})


def cuda_bf16_native(torch: Any, device: Any) -> bool:
    try:
        return bool(torch.cuda.is_bf16_supported(including_emulation=False))
    except TypeError:  # older torch: no emulation argument; Ampere (8.0) and newer have bf16
        return torch.cuda.get_device_capability(device) >= (8, 0)


def matmul_precisions(torch: Any, device: Any, quick: bool) -> list[str]:
    if device.type == "cuda":
        found = ["fp32"]
        if not getattr(torch.version, "hip", None) and torch.cuda.get_device_capability(device) >= (8, 0):
            found.append("tf32")
        found.append("fp16")
        if cuda_bf16_native(torch, device):
            found.append("bf16")
        return found
    if device.type == "mps":
        return ["fp32", "fp16"]
    return ["fp32"] if quick or not cpu_has_fast_bf16() else ["fp32", "bf16"]


def training_precisions(torch: Any, device: Any, quick: bool) -> list[str]:
    if device.type == "cuda":
        return ["fp32", "fp16"] + (["bf16"] if cuda_bf16_native(torch, device) else [])
    if device.type == "mps":
        return ["fp32", "fp16"]
    return ["fp32"] if quick or not cpu_has_fast_bf16() else ["fp32", "bf16"]


def llm_precisions(torch: Any, device: Any, quick: bool) -> list[str]:
    """16-bit where the device computes in it (LLM weights ship in 16 bit); fp32 on CPUs without bf16."""
    if device.type == "cuda":
        return ["fp16"] + (["bf16"] if cuda_bf16_native(torch, device) else [])
    if device.type == "mps":
        return ["fp16"]
    return ["bf16"] if not quick and cpu_has_fast_bf16() else ["fp32"]


def pick_tier(device: Any, free_bytes: int, quick: bool) -> str:
    if device.type == "cpu":
        return "cpu_quick" if quick else "cpu"
    return "gpu" if free_bytes >= 12 * GiB else "gpu_small"


def pick_matmul_n(device: Any, free_bytes: int, quick: bool) -> int:
    """Largest square size whose three fp32 matrices take at most a quarter of free memory."""
    if device.type == "cpu":
        return 1024 if quick else 2048
    for n in (8192, 4096, 2048, 1024):
        if 3 * n * n * 4 <= free_bytes / 4:
            return n
    return 512


def pick_stream_bytes(device: Any, free_bytes: int, cache_bytes: int) -> int:
    """Bytes per array: at least 4x the last-level cache (and a floor), at most 1/12 of memory."""
    floor = GiB if device.type == "cuda" else 64 * 1024**2
    size = max(4 * cache_bytes, floor)
    return int(min(size, free_bytes // 12))


def plan(device: Any, config: SuiteConfig) -> list[Case]:
    """The cases to run on ``device``: precisions it has, sizes from its memory and cache."""
    import torch

    from .device import device_cache_bytes, device_memory_bytes

    free = device_memory_bytes(device)
    tier = config.tier or pick_tier(device, free, config.quick)
    cases: list[Case] = []
    for bench in config.benchmarks:
        if bench == "matmul":
            n = config.matmul_n or pick_matmul_n(device, free, config.quick)
            precisions = matmul_precisions(torch, device, config.quick)
            cases += [Case("matmul", p, {"m": n, "n": n, "k": n}) for p in precisions]
        elif bench in ("copy", "triad"):
            nbytes = config.stream_bytes or pick_stream_bytes(device, free, device_cache_bytes(device))
            array = {"elements": nbytes // 4, "array_mb": round(nbytes / 1024**2, 1)}
            cases.append(Case(bench, "fp32", array))
        elif bench in LLM_BENCHMARKS:
            sizes = dict(LLM_SIZES[tier], tier=tier)
            cases += [Case(bench, p, sizes) for p in llm_precisions(torch, device, config.quick)]
        elif bench in MODEL_SIZES[tier]:
            sizes = dict(MODEL_SIZES[tier][bench], tier=tier)
            cases += [Case(bench, p, sizes) for p in training_precisions(torch, device, config.quick)]
        else:
            raise ValueError(f"unknown benchmark {bench!r}; known: {', '.join(BENCHMARKS)}")
    return cases


# --- precision flags ----------------------------------------------------------------------


@contextlib.contextmanager
def precision_flags(torch: Any, device: Any, tf32: bool) -> Iterator[dict[str, Any]]:
    """Set TF32 (matmul and cuDNN) and cudnn.benchmark explicitly; restore them afterwards."""
    cuda_matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    new_api = hasattr(cuda_matmul, "fp32_precision") and hasattr(cudnn, "conv")
    if new_api:  # torch >= 2.9: mixing with allow_tf32 is an error, so use only this API
        saved = (cuda_matmul.fp32_precision, cudnn.conv.fp32_precision, cudnn.rnn.fp32_precision,
                 cudnn.benchmark)
        mode = "tf32" if tf32 else "ieee"
        cuda_matmul.fp32_precision = cudnn.conv.fp32_precision = cudnn.rnn.fp32_precision = mode
    else:
        saved = (cuda_matmul.allow_tf32, cudnn.allow_tf32, None, cudnn.benchmark)
        cuda_matmul.allow_tf32 = cudnn.allow_tf32 = tf32
    cudnn.benchmark = device.type == "cuda"
    try:
        yield {"tf32": tf32, "cudnn_benchmark": cudnn.benchmark, "threads": torch.get_num_threads()}
    finally:
        if new_api:
            (cuda_matmul.fp32_precision, cudnn.conv.fp32_precision, cudnn.rnn.fp32_precision,
             cudnn.benchmark) = saved
        else:
            cuda_matmul.allow_tf32, cudnn.allow_tf32, _, cudnn.benchmark = saved


def _dtype(torch: Any, precision: str) -> Any:
    dtypes = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    return dtypes[precision]


def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


# --- the benchmarks -----------------------------------------------------------------------

MATMUL_TOLERANCE = {"fp32": 1e-4, "tf32": 5e-3, "fp16": 1e-2, "bf16": 3e-2}


def prepare_matmul(torch: Any, device: Any, case: Case, check_size: int) -> Prepared:
    n, dtype = case.params["n"], _dtype(torch, case.precision)
    gen = torch.Generator(device=device).manual_seed(0) if device.type != "mps" else None
    a = torch.randn(n, n, device=device, dtype=dtype, generator=gen)
    b = torch.randn(n, n, device=device, dtype=dtype, generator=gen)
    out = torch.empty(n, n, device=device, dtype=dtype)

    def fn() -> None:
        torch.matmul(a, b, out=out)

    def check() -> dict[str, Any]:
        s = min(check_size, n)
        ref = a[:s].double() @ b[:, :s].double()
        err = ((out[:s, :s].double() - ref).abs().max() / ref.abs().max()).item()
        tolerance = MATMUL_TOLERANCE[case.precision]
        return {"max_rel_error": err, "tolerance": tolerance, "ok": err <= tolerance}

    return Prepared(fn, 2.0 * n**3 / 1e12, check)


def prepare_stream(torch: Any, device: Any, case: Case, check_size: int) -> Prepared:
    n = case.params["elements"]
    a = torch.empty(n, device=device).uniform_(-1, 1)
    b = torch.empty(n, device=device).uniform_(-1, 1)
    idx = torch.randint(0, n, (check_size,), device=device)
    if case.benchmark == "copy":

        def copy() -> None:
            b.copy_(a)

        def check_copy() -> dict[str, Any]:
            ok = bool(torch.equal(b[idx], a[idx]))
            return {"ok": ok}

        return Prepared(copy, 2 * n * 4 / 1e9, check_copy)  # read a, write b
    c = torch.empty(n, device=device).uniform_(-1, 1)
    scalar = 3.0

    def fn() -> None:  # STREAM triad: a = b + s*c, one fused kernel
        torch.add(b, c, alpha=scalar, out=a)

    def check() -> dict[str, Any]:
        err = (a[idx] - (b[idx] + scalar * c[idx])).abs().max().item()
        return {"max_abs_error": err, "ok": err <= 1e-5}

    return Prepared(fn, 3 * n * 4 / 1e9, check)  # read b and c, write a


def build_model(torch: Any, case: Case) -> tuple[Any, Callable[[], tuple[Any, Any]], float]:
    """The model, a batch maker (random inputs and targets) and the items per step."""
    from . import models

    p = case.params
    model: Any
    shape: tuple[int, ...]
    if case.benchmark == "cnn_train":
        model = models.ResNetCNN(width=p["width"], classes=p["classes"])
        shape = (p["batch"], 3, p["image"], p["image"])
        return model, lambda: (torch.randn(shape), torch.randint(0, p["classes"], (p["batch"],))), p["batch"]
    if case.benchmark == "lstm_train":
        model = models.LSTMClassifier(p["input"], p["hidden"], p["layers"], p["classes"])
        shape = (p["batch"], p["seq_len"], p["input"])
        return model, lambda: (torch.randn(shape), torch.randint(0, p["classes"], (p["batch"],))), p["batch"]
    model = models.TransformerLM(p["vocab"], p["d_model"], p["heads"], p["layers"], p["seq_len"])
    shape = (p["batch"], p["seq_len"])

    def tokens_and_targets() -> tuple[Any, Any]:
        return torch.randint(0, p["vocab"], shape), torch.randint(0, p["vocab"], shape)

    return model, tokens_and_targets, p["batch"] * p["seq_len"]


def prepare_training(torch: Any, device: Any, case: Case, check_size: int) -> Prepared:
    torch.manual_seed(0)
    model, make_batch, items = build_model(torch, case)
    model = model.to(device).train()
    x, y = (t.to(device) for t in make_batch())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    autocast_dtype = None if case.precision == "fp32" else _dtype(torch, case.precision)
    autocasting = autocast_dtype is not None
    scaler = torch.amp.GradScaler(device.type) if case.precision == "fp16" and device.type == "cuda" else None
    last: dict[str, Any] = {}

    def fn() -> None:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=autocast_dtype, enabled=autocasting):
            out = model(x)
            loss = loss_fn(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1))
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        last["loss"] = loss.detach()

    def check() -> dict[str, Any]:
        loss = float(last["loss"])
        return {"loss": loss, "ok": math.isfinite(loss)}

    autocast = _dtype_name(autocast_dtype) if autocast_dtype else None
    case.params.update(optimizer="SGD(momentum=0.9)", autocast=autocast, grad_scaler=scaler is not None)
    return Prepared(fn, float(items), check)


def prepare_llm(torch: Any, device: Any, case: Case, check_size: int) -> Prepared:
    """Token generation at batch 1 over a filled KV cache, or one prompt processed at once."""
    from . import models

    p, dtype = case.params, _dtype(torch, case.precision)
    torch.manual_seed(0)
    with torch.device(device):
        model = models.LlamaDecoder(p["vocab"], p["hidden"], p["layers"], p["heads"], p["kv_heads"], p["ffn"])
        model = model.to(dtype).eval()
    last: dict[str, Any] = {}
    inputs: tuple[Any, Any]
    if case.benchmark == "llm_decode":
        caches = model.random_cache(p["context"], dtype, device)
        token = torch.randint(0, p["vocab"], (1, 1), device=device)
        inputs, work = (token, caches), 1.0
        case.params["bytes_per_token"] = model.bytes_per_token(p["context"], torch.finfo(dtype).bits // 8)
    else:
        prompt = torch.randint(0, p["vocab"], (1, p["prompt"]), device=device)
        inputs, work = (prompt, None), float(p["prompt"])
    case.params["parameters"] = sum(t.numel() for t in model.parameters())

    def fn() -> None:
        with torch.inference_mode():
            last["logits"] = model(*inputs)

    def check() -> dict[str, Any]:
        finite = bool(torch.isfinite(last["logits"].float()).all())
        return {"ok": finite, "logits_finite": finite}

    return Prepared(fn, work, check)


PREPARE = {
    "matmul": prepare_matmul,
    "copy": prepare_stream,
    "triad": prepare_stream,
    "cnn_train": prepare_training,
    "lstm_train": prepare_training,
    "transformer_train": prepare_training,
    "llm_decode": prepare_llm,
    "llm_prompt": prepare_llm,
}


# --- running ------------------------------------------------------------------------------


def _error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text[:MAX_ERROR_CHARS]


def _free_device_memory(torch: Any, device: Any) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    elif device.type == "mps":
        torch.mps.empty_cache()


def run_case(device: Any, case: Case, config: SuiteConfig, sampler: Any = None) -> dict[str, Any]:
    """Measure one case; never raises for a benchmark failure (the error is recorded)."""
    import torch

    case = replace(case, params=dict(case.params))
    result: dict[str, Any] = {
        "benchmark": case.benchmark,
        "precision": case.precision,
        "unit": case.unit,
        "value": None,
        "p10": None,
        "p90": None,
        "cv": None,
        "repeats": 0,
        "params": case.params,
        "flags": [],
        "error": None,
    }
    started = time.monotonic()
    prepared = None
    try:
        with precision_flags(torch, device, tf32=case.precision == "tf32") as settings:
            result["settings"] = dict(settings, dtype=_dtype_name(_dtype(torch, case.precision)))
            prepared = PREPARE[case.benchmark](torch, device, case, config.check_size)
            measured = measure(prepared.fn, clock_for(device), config.timing)
            check = prepared.check()
        stats = measured.stats
        result.update(stats.rate(prepared.work), cv=stats.cv, repeats=stats.repeats)
        result["time_ms"] = {"median": stats.median * 1e3, "p10": stats.p10 * 1e3, "p90": stats.p90 * 1e3}
        result["calls_per_repeat"] = measured.calls_per_block
        result["check"] = check
        if "bytes_per_token" in case.params:  # token generation is bandwidth-bound: say how much it reached
            result["achieved_gb_s"] = result["value"] * case.params["bytes_per_token"] / 1e9
        if stats.noisy:
            result["flags"].append("noisy")
        if not check.get("ok", True):
            result["flags"].append("check_failed")
    except Exception as exc:  # OOM, unsupported dtype/kernel …: record it and go on
        result["error"] = _error_text(exc)
    finally:
        prepared = None
        _free_device_memory(torch, device)
    result["params"] = case.params
    if sampler is not None:
        window = sampler.summary(started, time.monotonic())
        result["telemetry"] = window
        if window.get("throttled"):
            result["flags"].append("throttled")
    return result


def run_suite(
    device: Any,
    config: SuiteConfig,
    *,
    sampler: Any = None,
    on_case: Callable[[int, int, Case], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[dict[str, Any]]:
    """Run every planned case in order; :class:`Interrupted` when ``should_stop()`` turns true."""
    import torch

    cases = plan(device, config)
    results = []
    # CUDA events record on the current device's stream: make the benchmarked GPU current.
    with torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext():
        for i, case in enumerate(cases):
            if should_stop and should_stop():
                raise Interrupted(f"stopped before {case.label}")
            if on_case:
                on_case(i, len(cases), case)
            results.append(run_case(device, case, config, sampler))
    if on_case:
        on_case(len(cases), len(cases), None)  # type: ignore[arg-type]
    return results
