"""What a run was measured on: the device, the host, and the software around them.

``host_record`` needs no torch; ``resolve_device``, ``device_record`` and ``environ_record``
import it. NVIDIA details torch does not give (driver version) come from
:mod:`bench_agent.nvml` when pynvml is present.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any

from ._version import __version__

__all__ = [
    "DeviceError",
    "available_devices",
    "cpu_model",
    "device_cache_bytes",
    "device_memory_bytes",
    "device_record",
    "environ_record",
    "host_record",
    "last_level_cache_bytes",
    "lock_key",
    "ram_bytes",
    "resolve_device",
]

GiB = 1024**3


class DeviceError(RuntimeError):
    """The requested device does not exist or this torch build cannot use it."""


def cpu_model() -> str:
    """The CPU's marketing name (``/proc/cpuinfo`` on Linux, ``platform`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def ram_bytes() -> int | None:
    """Physical memory of the host in bytes."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    for suffix, factor in (("K", 1024), ("M", 1024**2), ("G", 1024**3)):
        if text.endswith(suffix):
            return int(text[:-1]) * factor
    return int(text)


def last_level_cache_bytes(default: int = 32 * 1024**2) -> int:
    """Size of the CPU's largest cache level (Linux sysfs), or ``default`` when unknown."""
    best_level, best_size = -1, 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            level = int((index / "level").read_text())
            size = _parse_size((index / "size").read_text())
        except (OSError, ValueError):
            continue
        best_level, best_size = max((best_level, best_size), (level, size))
    return best_size or default


def host_record() -> dict[str, Any]:
    """Host name, OS, CPU and RAM."""
    ram = ram_bytes()
    return {
        "hostname": socket.gethostname(),
        "os": f"{platform.system()} {platform.release()}",
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "ram_gb": round(ram / GiB, 2) if ram else None,
    }


def available_devices() -> list[str]:
    """Every GPU torch can use (``cuda:N``, also ROCm), else ``mps``, else ``cpu``."""
    import torch

    if torch.cuda.is_available():
        return [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if _has_mps(torch):
        return ["mps"]
    return ["cpu"]


def _has_mps(torch: Any) -> bool:
    """Apple's Metal backend is usable (builds without it have no ``torch.backends.mps``)."""
    return getattr(torch.backends, "mps", None) is not None and bool(torch.backends.mps.is_available())


def resolve_device(name: str) -> Any:
    """``torch.device`` for ``name``, checked to exist; :class:`DeviceError` otherwise."""
    import torch

    try:
        device = torch.device(name)
    except (RuntimeError, ValueError) as exc:
        raise DeviceError(f"not a torch device: {name!r} ({exc})") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError(f"{name}: this torch build has no CUDA/ROCm device (torch {torch.__version__})")
        index = device.index if device.index is not None else torch.cuda.current_device()
        if index >= torch.cuda.device_count():
            raise DeviceError(f"{name}: only {torch.cuda.device_count()} CUDA device(s) present")
        return torch.device("cuda", index)
    if device.type == "mps" and not _has_mps(torch):
        raise DeviceError(f"{name}: MPS is not available on this host")
    if device.type not in ("cpu", "cuda", "mps", "xpu"):
        raise DeviceError(f"{name}: device type {device.type!r} is not supported by the agent")
    return device


def _cuda_uuid(props: Any) -> str | None:
    uuid = getattr(props, "uuid", None)
    if uuid is None:
        return None
    text = str(uuid)
    return text if text.startswith(("GPU-", "MIG-")) else f"GPU-{text}"


def device_type(device: Any) -> str:
    """``cuda``, ``rocm``, ``mps``, ``cpu`` … (ROCm builds expose AMD GPUs as ``cuda``)."""
    import torch

    if device.type == "cuda" and getattr(torch.version, "hip", None):
        return "rocm"
    return device.type


def device_record(device: Any, driver: str | None = None) -> dict[str, Any]:
    """Name, UUID, index, compute capability, memory (GiB), driver, CUDA/HIP version and type."""
    import torch

    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        return {
            "name": props.name,
            "uuid": _cuda_uuid(props),
            "index": device.index,
            "compute_capability": f"{props.major}.{props.minor}",
            "memory_gb": round(props.total_memory / GiB, 2),
            "driver": driver,
            "cuda": torch.version.cuda or getattr(torch.version, "hip", None),
            "type": device_type(device),
            "multiprocessors": props.multi_processor_count,
        }
    ram = ram_bytes()
    return {
        "name": _host_device_name(device),
        "uuid": None,
        "index": device.index,
        "compute_capability": None,
        "memory_gb": round(ram / GiB, 2) if ram else None,
        "driver": driver,
        "cuda": None,
        "type": device.type,
    }


def _host_device_name(device: Any) -> str:
    """A device without CUDA properties: the CPU's model, Apple's GPU, else torch's own name."""
    if device.type == "cpu":
        return cpu_model()
    if device.type == "mps":
        return f"Apple GPU ({platform.machine()})"
    return str(device)


def device_memory_bytes(device: Any) -> int:
    """Memory the benchmarks may size themselves from (free memory on CUDA, RAM elsewhere)."""
    import torch

    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    return ram_bytes() or 8 * GiB


def device_cache_bytes(device: Any) -> int:
    """Last-level cache of the device (GPU L2, or the CPU's largest cache)."""
    import torch

    if device.type == "cuda":
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0
        return int(l2) or 64 * 1024**2  # unknown: assume a large (H100-class) L2
    if device.type == "mps":
        return 64 * 1024**2  # system-level cache of Apple M-series chips is at most tens of MB
    return last_level_cache_bytes()


def environ_record(device: Any) -> dict[str, Any]:
    """Software versions and process-wide settings that change benchmark figures."""
    import torch

    record: dict[str, Any] = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "agent": __version__,
        "cuda_runtime": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "threads": torch.get_num_threads(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "platform": sys.platform,
        # process-wide defaults; each result also records the flags set for it ("settings")
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        **{k: v for k, v in host_record().items() if k in ("cpu", "cpu_count", "ram_gb", "os")},
    }
    return record


def lock_key(device: Any) -> str:
    """A name for the per-device lock that survives renumbering (the GPU UUID when known)."""
    if device.type == "cuda":
        import torch

        uuid = _cuda_uuid(torch.cuda.get_device_properties(device))
        if uuid:
            return uuid
    return str(device).replace(":", "-")
