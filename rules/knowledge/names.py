"""The one name resolver: what card a name people write means.

A name is split into words. Variant words (memory size, PCIe/SXM/NVL/OAM, server,
Max-Q) pick one member of a product family; the remaining words are the family's
core: "a100 80gb pcie" -> core "a100", variants {80gb, pcie}. The index of every
id, name and alias is built with the catalog and kept in the knowledge snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rules.knowledge.records import Gpu

__all__ = ["NameIndex", "Resolution", "index_names", "resolve"]

_NOISE = frozenset(
    {
        "nvidia",
        "geforce",
        "amd",
        "intel",
        "apple",
        "tesla",
        "graphics",
        "gpu",
        "ati",
        "r",
        "tm",
        "the",
        "card",
    }
)
_IGNORED = re.compile(r"hbm\d*e?|gddr\d*x?|edition|founders")
_VARIANT = re.compile(r"\d+gb|pcie|sxm\d?|oam|nvl|server|maxq")
_SHORT_FORM = re.compile(r"(?:rtx|gtx|rx)(.+)")


def _tokens(text: str) -> list[str]:
    t = text.lower().replace("(r)", " ").replace("(tm)", " ").replace("max-q", "maxq")
    t = re.sub(r"(\d)\s*gb\b", r"\1gb", t)
    return [w for w in re.split(r"[^a-z0-9]+", t) if w and w not in _NOISE]


def _norm(text: str) -> str:
    return "".join(_tokens(text))


def _split(text: str) -> tuple[str, frozenset[str]]:
    """(core key, variant words) of a name."""
    words = [w for w in _tokens(text) if not _IGNORED.fullmatch(w)]
    core = "".join(w for w in words if not _VARIANT.fullmatch(w))
    return core, frozenset(w for w in words if _VARIANT.fullmatch(w))


def _cores(core: str) -> list[str]:
    """A core and its short form without the rtx/gtx/rx prefix ("rtx3090" -> "3090")."""
    m = _SHORT_FORM.fullmatch(core)
    return [core, m.group(1)] if m else [core]


@dataclass(frozen=True)
class Resolution:
    """What a name resolves to; ``exact`` is False when a variant was guessed, and
    ``note`` then says which one and how to ask for another."""

    gpu: Gpu | None
    exact: bool
    note: str | None = None


@dataclass(frozen=True)
class NameIndex:
    exact: Mapping[str, str]  # normalised id/name/alias -> gpu id
    specific: frozenset[str]  # normalised names that carry variant words
    families: Mapping[str, tuple[str, ...]]  # core -> gpu ids, catalog order
    bare: Mapping[str, str]  # core -> gpu id owning that name without variant words: the default
    variants: Mapping[str, frozenset[str]]  # gpu id -> every variant word of its names
    id_variants: Mapping[str, frozenset[str]]  # gpu id -> variant words of its id (for hints)


def index_names(gpus: tuple[Gpu, ...]) -> NameIndex:
    """Every id, name and alias of ``gpus``, by exact form and by family core."""
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
    return NameIndex(
        exact=exact,
        specific=frozenset(specific),
        families={k: tuple(v) for k, v in families.items()},
        bare=bare,
        variants=variants,
        id_variants={g.id: _split(g.id)[1] for g in gpus},  # ids say plain "sxm"
    )


def resolve(index: NameIndex, by_id: Mapping[str, Gpu], name: str) -> Resolution:
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


def _preference(gpu: Gpu, family: tuple[str, ...]) -> tuple[bool, bool, float, int]:
    """Without a default name: a desktop card, then a PCIe one, then the larger memory."""
    return (not gpu.desktop, gpu.form_factor != "pcie", -gpu.memory_gb, family.index(gpu.id))
