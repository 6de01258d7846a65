"""Hardware names: the cards asked about (``compare``), the card owned (``owned_gpu``), counts beside cards.

Hardware names are never budgets: NVIDIA numbers (1050..5090, "rtx pro 6000"), AMD ones with a suffix or "rx"
("9070 xt", "rx 9060 xt"), any number after a series word, known or not ("rtx 60 series", "rx 10070"),
letter codes ("a100", "b580", "r9700", "gb200", "mi300x"), systems ("dgx spark", "mac studio m3 ultra",
"strix halo") and the listed names, unless a currency is attached ("$1080"). A memory size or form word beside
a name is part of it ("a100 80gb pcie", "16gb rtx 5060 ti"), never ``memory_gb``, so the catalog's resolver
can pick the exact variant; a size the card has anyway is dropped ("rtx 3090 24gb" -> "rtx 3090"), one no
variant has is kept so the answer can say so. Plurals are the card when the singular resolves and the plural
does not ("h100s"; "l40s" stays); "tpu(s)" alone is the newest Cloud TPU released by the date. A name goes to
``compare`` as written (series added to bare numbers: "3090" -> "rtx 3090"), also when the catalog does not
know it, so the engine can say "not in the catalog". A card after "I have", "my" or "у меня" is owned.
"Used"/"б/у" anywhere in a question naming cards allows used cards, even beside "new" ("4090 новая или 3090
б/у"): the used card is one of those asked about.
"""

from __future__ import annotations

import re
from datetime import date

from rules.understand import lookups
from rules.understand.grammar import Grammar, any_of, grammar
from rules.understand.money import after_budget_word
from rules.understand.text import CardCount, CardSaid, Scan
from rules.understand.units import count_of

_VARIANT_TAIL = (
    r"(?:[\s-]*(?:\d{1,3}\s?(?:gb|гб)|pcie|sxm[2-6]?|nvl|oam|ada|blackwell|laptop|mobile|max-q))"
    r"{0,3}"
)
_COMPARING = re.compile(r"(?<!\w)(?:vs\.?|versus|or|compare\w*|или|сравн\w*|против)(?!\w)")
_MEMORY_BEFORE = re.compile(r"(?<![\w.,])(?P<n>\d{1,3})\s?(?:gb|гб)[\s-]*$")
_SIZE_IN_NAME = re.compile(r" (\d+)gb(?!\w)")
_MEMORY_AFTER = re.compile(r"\s+(?:with|w/|с|на)\s+(?P<n>\d{1,3})\s?(?:gb|гб)(?!\w)")
_TPU_NAMES = frozenset({"tpu", "cloud tpu", "google tpu"})


def _gpu_patterns(g: Grammar) -> tuple[re.Pattern[str], ...]:
    """Shapes of hardware names, most specific first; each may carry its variant ("a100 80gb pcie")."""
    names = any_of(g.data["gpu_names"], bound=False)
    start, end = r"(?<![^\Wx×])(?<![$€£₽.])", r"s?(?!\w|[.,]\d)"
    line = r"(?:(?:rtx|quadro|tesla|radeon(?:[\s-]+ai)?(?:[\s-]+pro)?|instinct|arc(?:[\s-]+pro)?)[\s-]+)?"
    code = r"(?!a\d{1,3}b(?!\w)|h26[45](?!\w))(?:gb|gh|mi|[abhlvpkmtwr])\d{2,4}[a-z]?"
    return tuple(
        re.compile(start + p + rf"(?P<tail>{_VARIANT_TAIL})" + end)
        for p in (
            r"(?P<name>(?:mac[\s-]*(?:studio|mini|pro)|macbook[\s-]*pro)(?:[\s-]*m[1-5](?:[\s-]*(?:ultra|max|pro))?)?"
            r"|m[1-5][\s-]*(?:ultra|max))",
            rf"(?P<name>{names})",
            r"(?P<name>rtx[\s-]*pro[\s-]*\d{4}(?:[\s-]*(?:blackwell|max-q|server))?)",
            rf"(?P<name>{line}{code})",
            r"(?:(?P<series>rtx|gtx|gt)[\s-]*)?(?P<num>1[06][5-8]0|[2-5]0[5-9]0)(?P<suf>d?(?:[\s-]*(?:ti|super))*)",
            r"(?P<series>gtx|gt)[\s-]*(?P<num>[4-9][1-9]0)(?P<suf>(?:[\s-]*ti)?)",
            r"(?P<num>[6-9][5-8]0)(?P<suf>[\s-]*ti)",
            # a name the catalog may not know
            r"(?P<series>rtx|gtx)[\s-]*(?P<num>\d{2,5})(?P<suf>(?:[\s-]*(?:ti|super))*)(?:[\s-]+series)?",
            r"(?P<series>rx)[\s-]*(?P<num>\d{2,5})(?P<suf>(?:[\s-]*(?:xtx|xt|gre))?)(?:[\s-]+series)?",
            r"(?P<num>[5-9]\d[0-9]0)(?P<suf>[\s-]*(?:xtx|xt|gre))",
            # a bare Radeon number: a card only beside other cards or a compare word
            r"(?P<amd>(?:5[5-7]|6[4-9]|7[6-9])[05]0|90[1-9]0)",
        )
    )


def _before_gpu(g: Grammar) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What may stand right before a card: an owner ('i have', 'у меня') or a count ('2x', 'two')."""
    own = rf"(?<!\w){any_of(g.data['ownership'])}(?:\s+{any_of(g.data['ownership_fillers'])})*\s*$"
    brand = r"(?:(?:nvidia|geforce|amd|radeon|intel)\s+)*"  # "4× geforce rtx 4090": the count is the card's
    count = rf"(?<!\w)(?:(?P<n>\d{{1,2}})\s*[x×]?|(?P<w>{any_of(g.number_words)}))\s*{brand}$"
    return re.compile(own), re.compile(count)


def read_gpus(scan: Scan) -> None:
    """Every hardware name, most specific shape first; the first count said beside a card is the count."""
    g = grammar()
    digits = any(ch.isdigit() for ch in scan.text)
    for i, pattern in enumerate(g.patterns(_gpu_patterns)):
        if digits or i < 2:  # only the systems and the listed names can be written without a digit
            scan.take(pattern, lambda m: _gpu_found(scan, m, g))
    if scan.card_counts:  # "2x 4090 or 1x a6000": the first count said
        _, count, phrase = min(scan.card_counts)
        scan.put("gpus", count, phrase)


def _gpu_name(m: re.Match[str]) -> str:
    """'3090' -> 'rtx 3090', '1080ti' -> 'gtx 1080 ti', 'A100-80GB PCIe' -> 'a100 80gb pcie'."""
    groups = m.groupdict()
    tail = re.sub(r"(\d)\s*(?:gb|гб)", r"\1gb", re.sub(r"[\s-]+", " ", groups["tail"])).strip()
    if groups.get("name"):
        name = re.sub(r"[\s-]+", " ", groups["name"])
    elif groups.get("amd"):
        name = f"rx {groups['amd']}"
    else:
        num, suf = groups["num"], groups.get("suf") or ""
        amd = re.search(r"x|gre", suf)
        gtx = num.startswith("1") or len(num) == 3
        series = groups.get("series") or ("rx" if amd else "gtx" if gtx else "rtx")
        name = " ".join(
            [series, num + ("d" if suf.startswith("d") else ""), *re.findall(r"ti|super|xtx|xt|gre", suf)]
        )
    return f"{name} {tail}" if tail else name


def _gpu_found(scan: Scan, m: re.Match[str], g: Grammar) -> tuple[int, int] | bool:
    """A card after 'I have'/'у меня' is owned; '2x 3090' also sets the count."""
    if m.groupdict().get("amd") and (
        not (scan.cards or _COMPARING.search(scan.original)) or after_budget_word(scan.text[: m.start()])
    ):
        return False  # "nlp 6800" and "budget 6800 or so" are budgets; "3090 vs 6800" names a Radeon
    name, start = _gpu_name(m), m.start()
    if m.groupdict().get("name") and lookups.catalog().find(name) is None and _family_word(g, name):
        return False  # "mac studio" alone names the family, read by the words, not one unknown card
    window = max(0, start - 60)
    size = _MEMORY_BEFORE.search(scan.text[window:start])
    if size and not re.search(r"\d(?:gb|гб)", name):  # "16gb rtx 5060 ti": the size names the variant
        name, start = f"{name} {size.group('n')}gb", window + size.start()
    name, end = _with_memory(_catalog_name(name), scan.text, m.end())
    own_re, count_re = g.patterns(_before_gpu)
    owned = own_re.search(scan.text[window:start])
    if owned:
        scan.put("owned_gpu", name, name)
        return window + owned.start(), end
    count = count_re.search(scan.text[window:start])
    said = None
    if count:
        said = count_of(count)
        scan.card_counts.append(CardCount(start, said, count.group()))
        start = window + count.start()
    scan.cards.append(CardSaid(m.start(), name, said))
    return start, end


def _family_word(g: Grammar, name: str) -> bool:
    """Whether the vocabulary reads ``name`` as a family of cards ("mac studio")."""
    return any("family" in entry["set"] and name in entry["words"] for entry in g.data["concepts"])


def _with_memory(name: str, text: str, end: int) -> tuple[str, int]:
    """'mac studio m3 ultra with 256gb': a memory size said after the name picks the variant that has it,
    where the catalog has one; else it stays for the job ('a 3090 with 64gb of ram')."""
    after = _MEMORY_AFTER.match(text, end)
    if after is None or _SIZE_IN_NAME.search(name):
        return name, end
    sized = f"{name} {after.group('n')}gb"
    catalog = lookups.catalog()
    variant, plain = catalog.resolve(sized), catalog.resolve(name)
    if variant.exact and variant.gpu is not None:  # the size names the card: the variant, or the one read
        return (sized if variant.gpu != plain.gpu else name), after.end()
    return name, end


def _catalog_name(name: str) -> str:
    """The name as the catalog's resolver reads it best: 'h100s' -> 'h100', 'rtx 3090 24gb' -> 'rtx 3090'.

    A plural is a card's name when the singular resolves and the plural does not ("l40s"
    stays); a memory size the card has anyway is dropped, so it resolves exactly; a size
    no variant has is kept, so the engine can say there is no such variant.
    """
    size = _SIZE_IN_NAME.search(name)
    if not name.endswith("s") and size is None:
        return name  # nothing to ask the catalog
    catalog = lookups.catalog()
    if name.endswith("s") and not catalog.find(name):
        singular = name[:-1].rstrip("'")
        if catalog.find(singular) or singular in _TPU_NAMES:
            name = singular
            size = _SIZE_IN_NAME.search(name)
    if size and not catalog.resolve(name).exact:
        plain = catalog.resolve(name.replace(size.group(), ""))
        if plain.exact and plain.gpu is not None and plain.gpu.memory_gb == float(size.group(1)):
            return name.replace(size.group(), "")
    return name


def _tpu_of(name: str, as_of: date) -> str:
    """'tpu' (any generation) -> the newest Cloud TPU released by ``as_of``, which rent-vs-buy prices."""
    if name not in _TPU_NAMES:
        return name
    released = [t for t in lookups.catalog().tpus.values() if t.released <= as_of]
    return max(released, key=lambda t: t.released).id.replace("-", " ") if released else name


def _card_note(name: str) -> str:
    """'rx 9070 xt (AMD Radeon RX 9070 XT)' or 'strix halo (not in the catalog)', as the catalog reads it."""
    catalog = lookups.catalog()
    resolution = catalog.resolve(name)
    tpu = catalog.tpus.get(name.replace(" ", "-"))
    if resolution.gpu is None and tpu is not None:
        return f"{name} ({tpu.name}, rented in the cloud)"
    if resolution.gpu is None:
        return f"{name} (not in the catalog)"
    if not resolution.exact and resolution.note:
        return resolution.note  # it names both: "'a100' read as the NVIDIA A100 …; say 'sxm' for another"
    return f"{name} ({resolution.gpu.name})"


def counts_asked(scan: Scan, cards: tuple[str, ...], as_of: date) -> tuple[int, ...]:
    """How many of each card asked about ('2x 3090 vs a 5090': 2 and 1; a card said without a count is one
    when another has one); empty when no card had a count of its own or all had the same."""
    said: dict[str, int] = {}
    for card in sorted(scan.cards):
        if card.gpus is not None:
            said.setdefault(_tpu_of(card.name, as_of), card.gpus)
    counts = tuple(said.get(card, 1) for card in cards)
    return counts if said and len(cards) > 1 and len(set(counts)) > 1 else ()


def cards_asked(
    scan: Scan, as_of: date, memory_gb: float | None = None
) -> tuple[tuple[str, ...], str, bool]:
    """The cards asked about in the order said (six at most), the ``understood`` line naming them, and whether
    the memory size said picked them: a family said with a size ("a mac studio with 256gb") means its members
    of that size, if it has any, and the size is then theirs."""
    cards = tuple(dict.fromkeys(_tpu_of(card.name, as_of) for card in sorted(scan.cards)))
    sized: tuple[str, ...] = ()
    if scan.family_said and memory_gb:
        sized = tuple(card for card in cards if _memory_as_sold(card) == memory_gb)
    cards = (sized or cards)[:6]
    return cards, "gpus asked about: " + ", ".join(_card_note(card) for card in cards), bool(sized)


def _memory_as_sold(card: str) -> float | None:
    """A card's memory as it is sold: a unified-memory computer's own ("256 GB"), else the card's."""
    gpu = lookups.catalog().find(card)
    return None if gpu is None else gpu.system_memory_gb or gpu.memory_gb
