"""A broken data file is worded one way, whichever reader meets it: file, entry by its id, field, message."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.knowledge import CatalogError, DataFileError, load_knowledge
from rules.knowledge.datafile import DATA_DIR, load_data, shown


def _broken(tmp_path: Path, name: str, edit: Callable[[Any], object]) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA_DIR, folder)
    document = json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    edit(document)
    (folder / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


def test_a_reader_names_the_entry_by_its_id_and_the_field_by_its_path(tmp_path: Path) -> None:
    rule = json.loads((DATA_DIR / "rules.json").read_text(encoding="utf-8"))["rules"][2]
    folder = _broken(tmp_path, "rules", lambda doc: doc["rules"][2].update(title=5))
    expected = f"{folder / 'rules.json'}: entry {rule['id']!r} (#2): field 'title': 5 is not of type 'string'"
    with pytest.raises(DataFileError) as raised:
        load_data("rules", folder)
    assert str(raised.value) == expected
    with pytest.raises(DataFileError) as built:
        load_knowledge(folder, use_cache=False)
    assert str(built.value) == expected


def test_an_entry_without_an_id_is_named_by_its_list(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "messages", lambda doc: doc["languages"].append("xx"))
    with pytest.raises(DataFileError, match=r"messages\.json: entry #2 of 'languages': 'xx' is not one of"):
        load_data("messages", folder)


def test_the_catalog_names_an_entry_of_any_list_the_same_way(tmp_path: Path) -> None:
    tpu = json.loads((DATA_DIR / "cloud_offers.json").read_text(encoding="utf-8"))["tpus"][1]
    folder = _broken(tmp_path, "cloud_offers", lambda doc: doc["tpus"][1].update(name=5))
    with pytest.raises(CatalogError) as raised:
        load_knowledge(folder, use_cache=False)
    assert str(raised.value).endswith(
        f"cloud_offers.json: entry {tpu['id']!r} (#1): field 'name': 5 is not of type 'string'"
    )


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA_DIR, folder)
    (folder / "vocabulary.json").unlink()
    with pytest.raises(DataFileError, match=r"vocabulary\.json: file is missing"):
        load_knowledge(folder, use_cache=False)


def test_a_key_written_twice_in_one_object_is_refused(tmp_path: Path) -> None:
    """JSON keeps the last of two equal keys without a word: a message written twice (a new "headline.as_fast"
    below the comparison's own) silently replaced the comparison's first line."""
    folder = tmp_path / "data"
    shutil.copytree(DATA_DIR, folder)
    text = (folder / "messages.json").read_text(encoding="utf-8")
    entry = '"headline.each": {"en": " each", "ru": " каждая"},'
    (folder / "messages.json").write_text(text.replace('"messages": {', '"messages": {' + entry * 2, 1))
    twice = r"messages\.json: not valid JSON: the key 'headline\.each' appears twice"
    with pytest.raises(DataFileError, match=twice):
        load_knowledge(folder, use_cache=False)


def test_a_shipped_file_is_named_from_the_repository_root() -> None:
    assert shown(DATA_DIR / "gpus.json") == "rules/data/gpus.json"
    assert shown(Path("/elsewhere/gpus.json")) == "/elsewhere/gpus.json"
