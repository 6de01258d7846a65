"""Agent tokens: shown once, stored only as SHA-256, revocable, names checked — on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import text

from service.agents import (
    AgentExists,
    AgentNotFound,
    InvalidAgentName,
    add_agent,
    authenticate,
    list_agents,
    revoke_agent,
)
from service.db import make_engine, migrate, session_scope


@pytest.fixture
def db(database_url: str) -> str:
    migrate(database_url)
    return database_url


def test_token_is_returned_once_and_only_its_hash_is_stored(db: str) -> None:
    token = add_agent(db, "gpu-box-1")
    assert len(token) >= 40
    with make_engine(db).connect() as conn:
        rows = conn.execute(text("SELECT * FROM agent_token")).mappings().all()
    assert len(rows) == 1
    assert rows[0]["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert all(token not in str(value) for value in rows[0].values()), (
        "the plaintext token must not be stored"
    )
    assert token not in repr(list_agents(db))


def test_tokens_differ_between_agents(db: str) -> None:
    assert add_agent(db, "a") != add_agent(db, "b")


def test_authenticate_accepts_the_token_and_records_last_seen(db: str) -> None:
    token = add_agent(db, "lab.node-01")
    assert list_agents(db)[0]["last_seen_at"] is None
    with session_scope(db) as session:
        agent = authenticate(session, f"Bearer {token}")
        assert agent is not None and agent.name == "lab.node-01"
    with session_scope(db) as session:
        assert authenticate(session, token) is not None  # the bare token works too
    [row] = list_agents(db)
    assert row["last_seen_at"] is not None and row["active"]


def test_last_seen_is_written_at_most_once_a_minute(db: str) -> None:
    token = add_agent(db, "node")
    with session_scope(db) as session:
        authenticate(session, token)
    first = list_agents(db)[0]["last_seen_at"]
    with session_scope(db) as session:
        authenticate(session, token)
    assert list_agents(db)[0]["last_seen_at"] == first
    with make_engine(db).begin() as conn:  # a minute later
        conn.execute(text("UPDATE agent_token SET last_seen_at = :t"), {"t": first - timedelta(minutes=2)})
    with session_scope(db) as session:
        authenticate(session, token)
    assert list_agents(db)[0]["last_seen_at"] > first


@pytest.mark.parametrize("bearer", [None, "", "Bearer ", "Bearer nope", "wgat_" + "x" * 43, "x" * 10_000])
def test_authenticate_refuses_unknown_tokens(db: str, bearer: str | None) -> None:
    add_agent(db, "node")
    with session_scope(db) as session:
        assert authenticate(session, bearer) is None


def test_revoked_token_no_longer_authenticates(db: str) -> None:
    token = add_agent(db, "old-box")
    first = revoke_agent(db, "old-box")
    assert first["revoked_at"] is not None and not first["active"]
    with session_scope(db) as session:
        assert authenticate(session, token) is None
    again = revoke_agent(db, "old-box")  # idempotent, keeps the first date
    assert again["revoked_at"] == first["revoked_at"]
    [row] = list_agents(db)
    assert row["name"] == "old-box" and row["revoked_at"] is not None and row["last_seen_at"] is None


def test_duplicate_name_is_a_clear_error(db: str) -> None:
    add_agent(db, "node")
    with pytest.raises(AgentExists, match="'node' already exists"):
        add_agent(db, "node")
    revoke_agent(db, "node")
    with pytest.raises(AgentExists):  # names of revoked agents are not reused
        add_agent(db, "node")
    assert len(list_agents(db)) == 1


@pytest.mark.parametrize("name", ["", "a b", "x" * 121, "ünï", "node/1", "semi;colon"])
def test_bad_names_are_refused(db: str, name: str) -> None:
    with pytest.raises(InvalidAgentName, match="not valid"):
        add_agent(db, name)
    assert list_agents(db) == []


def test_names_at_the_limits_are_accepted(db: str) -> None:
    add_agent(db, "x" * 120)
    add_agent(db, "A.b_c-9")
    assert [r["name"] for r in list_agents(db)] == ["A.b_c-9", "x" * 120]


def test_revoking_an_unknown_agent_says_so(db: str) -> None:
    with pytest.raises(AgentNotFound, match="no agent named 'ghost'"):
        revoke_agent(db, "ghost")
