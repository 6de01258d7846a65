"""A lab's own prices: stored dated and sourced (SQLite and PostgreSQL), managed by `whichgpu prices` and the
admin HTTP route, and used in that deployment's answers as "your quote"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from alembic import command
from litestar.testing import TestClient
from sqlalchemy import inspect

from service.app import create_app
from service.db import alembic_config, make_engine, migrate
from service.lab_prices import LabPriceError, add_prices, list_prices, parse_csv, validate
from service.lab_quotes import quoted_catalog
from service.settings import Settings

WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))
ADMIN = "lab-admin-token-for-tests"
QUESTION = "rtx 5070 ti for llm inference, 7b model"  # the card named leads, with its price
TODAY = date.today()


@pytest.fixture(scope="module")
def catalog():
    from rules.knowledge.loaded import load_catalog

    return load_catalog()


def test_the_migration_adds_the_price_table_and_goes_back(database_url: str) -> None:
    migrate(database_url)
    assert "lab_price" in inspect(make_engine(database_url)).get_table_names()
    command.downgrade(alembic_config(database_url), "0003")
    assert "lab_price" not in inspect(make_engine(database_url)).get_table_names()
    migrate(database_url)
    assert "lab_price" in inspect(make_engine(database_url)).get_table_names()


def test_a_stored_quote_prices_the_card_in_the_engine(database_url: str, catalog) -> None:
    migrate(database_url)
    quote = validate(
        catalog,
        gpu="rtx 5070 ti",
        price="699",
        currency="usd",
        seen="2026-11-20",
        source="Vendor X quote 2026-11-20",
        today=date(2026, 11, 26),
    )
    add_prices(database_url, [quote])
    [row] = list_prices(database_url)
    assert (row.gpu_id, row.price, row.currency, row.seen) == (
        "rtx-5070-ti",
        699.0,
        "USD",
        date(2026, 11, 20),
    )
    from rules.advisor import Advisor
    from rules.ask import ask

    quoted = quoted_catalog(database_url, catalog)
    assert quoted.version != catalog.version
    price = ask(Advisor(quoted), QUESTION, today=date(2026, 11, 26)).recommendation.picks[0].unit_price
    assert price.kind == "quote" and price.usd == 699 and "Vendor X" in (price.source or "")
    plain = ask(Advisor(catalog), QUESTION, today=date(2026, 11, 26)).recommendation.picks[0].unit_price
    assert plain.kind != "quote"  # another deployment, without the lab's quotes, is unchanged


@pytest.mark.parametrize(
    "field, given, says",
    [
        ("gpu", {"gpu": "rtx 9999"}, "no card called"),
        ("price", {"price": "-5"}, "above 0"),
        ("price", {"price": "cheap"}, "not a number"),
        ("currency", {"currency": "XYZ"}, "rates for"),
        ("date", {"seen": "2026-13-01"}, "not a date"),
        ("date", {"seen": "2099-01-01"}, "between"),
        ("source", {"source": ""}, "where the price comes from"),
    ],
)
def test_bad_input_names_its_field(catalog, field, given, says) -> None:
    fields = dict(gpu="rtx 4090", price="1800", currency="USD", seen="2026-11-01", source="Vendor quote")
    with pytest.raises(LabPriceError) as err:
        validate(catalog, **{**fields, **given}, today=date(2026, 11, 26))
    assert err.value.field == field and says in str(err.value)


def test_a_csv_with_a_bad_row_names_its_line_and_stores_nothing(catalog) -> None:
    good = "gpu,price,currency,date,source\nrtx 4090,1800,USD,2026-11-01,Vendor quote\n"
    assert [p.gpu_id for p in parse_csv(good, catalog, date(2026, 11, 26))] == ["rtx-4090"]
    with pytest.raises(LabPriceError, match="line 3: price"):
        parse_csv(good + "rtx 3090,oops,USD,2026-11-01,Vendor quote\n", catalog, date(2026, 11, 26))
    with pytest.raises(LabPriceError, match="missing: source"):
        parse_csv("gpu,price,currency,date\nrtx 4090,1,USD,2026-11-01\n", catalog, date(2026, 11, 26))


def _cli(*args: str, url: str, data_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "WHICHGPU_DATA_DIR": str(data_dir), "WHICHGPU_DATABASE_URL": url}
    return subprocess.run([WHICHGPU, *args], capture_output=True, text=True, env=env, timeout=180)


def test_the_prices_command_adds_imports_lists_and_removes(database_url: str, tmp_path: Path) -> None:
    added = _cli(
        "prices",
        "add",
        "rtx 5070 ti",
        "699",
        "--date",
        "2026-11-20",
        "--source",
        "Vendor X quote",
        url=database_url,
        data_dir=tmp_path,
    )
    assert added.returncode == 0 and "added #" in added.stdout, added.stderr
    sheet = tmp_path / "quotes.csv"
    sheet.write_text("gpu,price,currency,date,source\nrtx pro 6000,7900,USD,2026-11-18,Vendor Y price list\n")
    imported = _cli("prices", "import", str(sheet), url=database_url, data_dir=tmp_path)
    assert imported.returncode == 0, imported.stderr
    listed = json.loads(_cli("prices", "list", "--json", url=database_url, data_dir=tmp_path).stdout)
    assert {(r["gpu"], r["price"]) for r in listed} == {
        ("rtx-5070-ti", 699.0),
        ("rtx-pro-6000-blackwell", 7900.0),
    }
    answer = _cli("ask", QUESTION, url=database_url, data_dir=tmp_path)
    assert "your quote" in answer.stdout.splitlines()[0], answer.stdout
    first = next(r["id"] for r in listed if r["gpu"] == "rtx-5070-ti")
    assert _cli("prices", "remove", str(first), url=database_url, data_dir=tmp_path).returncode == 0
    gone = _cli("prices", "remove", str(first), url=database_url, data_dir=tmp_path)
    assert gone.returncode == 2 and "no price #" in gone.stderr and "Traceback" not in gone.stderr
    bad = _cli("prices", "add", "rtx 9999", "10", "--source", "typo", url=database_url, data_dir=tmp_path)
    assert bad.returncode == 2 and "no card called" in bad.stderr and "Traceback" not in bad.stderr


@pytest.fixture
def client(database_url: str, tmp_path: Path):
    app = create_app(Settings(data_dir=tmp_path, database_url=database_url, admin_token=ADMIN))
    with TestClient(app) as test_client:
        yield test_client


def _problem(response, status: int, field: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert any(e["field"] == field for e in response.json()["errors"]), response.json()


def test_the_admin_route_manages_prices_and_the_answers_use_them_at_once(client) -> None:
    auth = {"Authorization": f"Bearer {ADMIN}"}
    price = {"gpu": "rtx 5070 ti", "price": 699, "date": "2026-11-20", "source": "Vendor X quote"}
    body = {"prices": [price]}
    _problem(client.post("/v1/lab-prices", json=body), 401, "authorization")
    wrong = {"Authorization": "Bearer wrong"}
    _problem(client.post("/v1/lab-prices", json=body, headers=wrong), 401, "authorization")
    unknown_card = {"prices": [{**price, "gpu": "rtx 9999"}]}
    _problem(client.post("/v1/lab-prices", json=unknown_card, headers=auth), 422, "prices[0].gpu")
    second_bad = {"prices": [price, {**price, "price": 0}]}
    _problem(client.post("/v1/lab-prices", json=second_bad, headers=auth), 422, "prices[1].price")
    missing = client.post("/v1/lab-prices", json={"prices": [{"gpu": "rtx 4090"}]}, headers=auth)
    _problem(missing, 422, "prices[0].price")
    assert client.get("/v1/lab-prices", headers=auth).json() == {"prices": []}  # nothing refused was stored
    created = client.post("/v1/lab-prices", json=body, headers=auth)
    assert created.status_code == 201, created.text
    [row] = created.json()["prices"]
    assert row["gpu"] == "rtx-5070-ti" and row["currency"] == "USD" and row["date"] == "2026-11-20"
    asked = client.post("/v1/ask", json={"text": QUESTION}).json()
    price = asked["recommendation"]["picks"][0]["unit_price"]
    assert price["kind"] == "quote" and price["usd"] == 699, price
    _problem(client.get("/v1/lab-prices"), 401, "authorization")
    _problem(client.delete("/v1/lab-prices/999999", headers=auth), 404, "price_id")
    assert client.delete(f"/v1/lab-prices/{row['id']}", headers=auth).status_code == 204
    again = client.post("/v1/ask", json={"text": QUESTION}).json()
    assert again["recommendation"]["picks"][0]["unit_price"]["kind"] != "quote"
