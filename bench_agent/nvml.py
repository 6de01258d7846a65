"""NVIDIA telemetry through nvidia-ml-py (``pynvml``): clocks, temperature, power, throttling,
other processes on a GPU, and a background sampler that watches a run.

pynvml is imported lazily and is optional: without it (or without an NVIDIA driver)
:func:`open_nvml` returns ``None`` and every caller carries on with less to record.
Each query is guarded on its own, because many are unsupported on some boards
(``NVMLError_NotSupported``) and a missing figure must not fail a run.
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SLOWDOWN_REASONS",
    "THROTTLE_REASONS",
    "Nvml",
    "TelemetrySampler",
    "open_nvml",
]

# Bit values of nvmlClocksThrottleReasons / nvmlClocksEventReasons (stable across driver versions).
THROTTLE_REASONS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
SLOWDOWN_REASONS = frozenset(
    {"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown"})
"""Reasons that mean the clocks were held below what the workload asked for: ``throttled``."""


def reason_names(mask: int) -> list[str]:
    return [name for bit, name in THROTTLE_REASONS.items() if mask & bit]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Nvml:
    """An initialised NVML library (the pynvml module) and guarded queries on its devices."""

    def __init__(self, lib: Any):
        self.lib = lib

    def _call(self, name: str, *args: Any) -> Any:
        fn = getattr(self.lib, name, None)
        if fn is None:
            return None
        try:
            return fn(*args)
        except Exception:  # NVMLError_* (NotSupported, NoPermission, GpuIsLost …): a figure we lack
            return None

    def shutdown(self) -> None:
        self._call("nvmlShutdown")

    def driver_version(self) -> str | None:
        value = self._call("nvmlSystemGetDriverVersion")
        return _text(value) if value is not None else None

    def device_count(self) -> int:
        return self._call("nvmlDeviceGetCount") or 0

    def handle(self, uuid: str | None = None, index: int | None = None) -> Any:
        """The device handle by UUID (robust to ``CUDA_VISIBLE_DEVICES``), else by index."""
        if uuid:
            handle = self._call("nvmlDeviceGetHandleByUUID", uuid)
            if handle is not None:
                return handle
        if index is not None:
            return self._call("nvmlDeviceGetHandleByIndex", index)
        return None

    def uuid(self, handle: Any) -> str | None:
        value = self._call("nvmlDeviceGetUUID", handle)
        return _text(value) if value is not None else None

    def throttle_mask(self, handle: Any) -> int | None:
        for name in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            if hasattr(self.lib, name):
                return self._call(name, handle)
        return None

    def utilization(self, handle: Any) -> float | None:
        rates = self._call("nvmlDeviceGetUtilizationRates", handle)
        return float(rates.gpu) if rates is not None else None

    def sample(self, handle: Any) -> dict[str, Any]:
        """One reading: clocks (MHz), temperature (°C), power and its limit (W), utilisation (%),
        throttle reasons."""
        lib = self.lib
        power = self._call("nvmlDeviceGetPowerUsage", handle)
        limit = self._call("nvmlDeviceGetEnforcedPowerManagementLimit", handle)
        mask = self.throttle_mask(handle)
        return {
            "t": time.monotonic(),
            "sm_clock_mhz": self._call("nvmlDeviceGetClockInfo", handle, getattr(lib, "NVML_CLOCK_SM", 1)),
            "mem_clock_mhz": self._call("nvmlDeviceGetClockInfo", handle, getattr(lib, "NVML_CLOCK_MEM", 2)),
            "temperature_c": self._call("nvmlDeviceGetTemperature", handle,
                                        getattr(lib, "NVML_TEMPERATURE_GPU", 0)),
            "power_w": power / 1000.0 if power is not None else None,
            "power_limit_w": limit / 1000.0 if limit is not None else None,
            "utilization_pct": self.utilization(handle),
            "throttle_reasons": reason_names(mask) if mask is not None else None,
        }

    def processes(self, handle: Any, exclude_pid: int | None = None) -> list[dict[str, Any]]:
        """Compute and graphics processes on the device other than ``exclude_pid``."""
        seen: dict[int, dict[str, Any]] = {}
        for name in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
            for proc in self._call(name, handle) or []:
                pid = int(getattr(proc, "pid", -1))
                if pid == exclude_pid or pid in seen:
                    continue
                used = getattr(proc, "usedGpuMemory", None)
                used_mb = round(used / 1024**2) if isinstance(used, int) else None
                seen[pid] = {"pid": pid, "used_memory_mb": used_mb}
        return list(seen.values())


def open_nvml() -> Nvml | None:
    """Initialised NVML, or ``None`` when pynvml or the NVIDIA driver is absent."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # NVMLError_LibraryNotFound / DriverNotLoaded: no NVIDIA GPU here
        return None
    return Nvml(pynvml)


def _spread(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


@dataclass
class TelemetrySampler:
    """Samples one device every ``interval_s`` on a background thread while a run goes on."""

    nvml: Nvml
    handle: Any
    interval_s: float = 0.5
    samples: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="whichgpu-telemetry", daemon=True)

    def _loop(self) -> None:
        while True:
            self.samples.append(self.nvml.sample(self.handle))
            if self._stop.wait(self.interval_s):
                break

    def __enter__(self) -> TelemetrySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def window(self, start: float, end: float) -> list[dict[str, Any]]:
        """Samples taken between two ``time.monotonic()`` instants."""
        return [s for s in list(self.samples) if start <= s["t"] <= end]

    def summary(self, start: float | None = None, end: float | None = None) -> dict[str, Any]:
        """Spread of clocks, temperature, power (and its limit), utilisation; the throttle reasons seen."""
        samples = list(self.samples) if start is None or end is None else self.window(start, end)

        def values(key: str) -> list[float]:
            return [float(s[key]) for s in samples if s.get(key) is not None]

        reasons = sorted({r for s in samples for r in (s.get("throttle_reasons") or [])})
        limits = values("power_limit_w")
        return {
            "samples": len(samples),
            "sm_clock_mhz": _spread(values("sm_clock_mhz")),
            "mem_clock_mhz": _spread(values("mem_clock_mhz")),
            "temperature_c": _spread(values("temperature_c")),
            "power_w": _spread(values("power_w")),
            "power_limit_w": max(limits) if limits else None,
            "utilization_pct": _spread(values("utilization_pct")),
            "throttle_reasons": reasons,
            "throttled": bool(SLOWDOWN_REASONS.intersection(reasons)),
        }
