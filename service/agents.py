"""Bench-agent credentials: create, list, revoke, and authenticate a bearer token.

A token is shown once, when it is created; the database keeps only its SHA-256 (hex),
so a leaked database does not leak working tokens. Authentication hashes the
presented token, looks the hash up and compares it in constant time.

Errors::

    AgentError (ValueError)
    ├── InvalidAgentName   the name is not 1-120 characters of [A-Za-z0-9._-]
    ├── AgentExists        an agent of that name exists (revoked ones too: names are not reused)
    └── AgentNotFound      no agent of that name
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from .db import session_scope
from .models import AgentToken, BenchmarkRun

__all__ = [
    "TOKEN_PREFIX",
    "AgentError",
    "AgentExists",
    "AgentNotFound",
    "InvalidAgentName",
    "add_agent",
    "authenticate",
    "bind_host",
    "hash_token",
    "is_admin",
    "list_agents",
    "revoke_agent",
    "runs_in_last_hour",
]

NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,120}")
LAST_SEEN_RESOLUTION = timedelta(minutes=1)
TOKEN_PREFIX = "wgat_"  # whichgpu agent token: recognisable in logs and by secret scanners


class AgentError(ValueError):
    """A bench-agent credential operation that cannot be done."""


class InvalidAgentName(AgentError):
    pass


class AgentExists(AgentError):
    pass


class AgentNotFound(AgentError):
    pass


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime | None) -> datetime | None:
    """SQLite hands datetimes back naive; every stored datetime is UTC."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise InvalidAgentName(
            f"agent name {name!r} is not valid: use 1-120 characters of letters, digits, '.', '_' or '-'"
        )
    return name


def add_agent(url: str, name: str) -> str:
    """Create agent ``name`` and return its new token (shown once; only its hash is stored)."""
    check_name(name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    try:
        with session_scope(url) as session:
            if session.exec(select(AgentToken.id).where(AgentToken.name == name)).first() is not None:
                raise AgentExists(
                    f"an agent named {name!r} already exists (names are not reused, even after revoking): "
                    "pick another name"
                )
            session.add(AgentToken(name=name, token_hash=hash_token(token), created_at=_now()))
    except IntegrityError:  # created by someone else between the check and the insert
        raise AgentExists(f"an agent named {name!r} already exists") from None
    return token


def _describe(agent: AgentToken) -> dict[str, Any]:
    return {
        "name": agent.name,
        "active": agent.revoked_at is None,
        "created_at": _aware(agent.created_at),
        "last_seen_at": _aware(agent.last_seen_at),
        "revoked_at": _aware(agent.revoked_at),
    }


def list_agents(url: str) -> list[dict[str, Any]]:
    """Every agent by name: ``name``, ``active``, ``created_at``, ``last_seen_at``, ``revoked_at``."""
    with session_scope(url) as session:
        return [_describe(a) for a in session.exec(select(AgentToken).order_by(AgentToken.name)).all()]


def revoke_agent(url: str, name: str) -> dict[str, Any]:
    """Revoke agent ``name`` (its token stops working at once); revoking twice keeps the first date."""
    check_name(name)
    with session_scope(url) as session:
        agent = session.exec(select(AgentToken).where(AgentToken.name == name)).first()
        if agent is None:
            raise AgentNotFound(f"no agent named {name!r}; `whichgpu agents list` shows them")
        if agent.revoked_at is None:
            agent.revoked_at = _now()
            session.add(agent)
        return _describe(agent)


def _presented(bearer: str | None) -> str | None:
    """The token in a bare value or an ``Authorization: Bearer <token>`` header; None if absent or absurd."""
    token = (bearer or "").strip()
    if token[:7].lower() == "bearer ":
        token = token[7:].strip()
    return token if token and len(token) <= 512 else None


def is_admin(bearer: str | None, admin_token: str | None) -> bool:
    """True when ``bearer`` presents the configured admin read token (compared in constant time).

    Agent tokens only write runs; reading hosts and their hardware takes this one.
    """
    token = _presented(bearer)
    return bool(admin_token and token) and hmac.compare_digest(
        hash_token(token or ""), hash_token(admin_token or "")
    )


def authenticate(session: Session, bearer: str | None) -> AgentToken | None:
    """The live agent whose token is ``bearer``, with ``last_seen_at`` updated (to the minute), or None.

    ``bearer`` is the token itself or a whole ``Authorization`` header value
    (``Bearer <token>``). The caller's session commits the ``last_seen_at`` update.
    """
    token = _presented(bearer)
    if token is None:
        return None
    presented = hash_token(token)
    agent = session.exec(select(AgentToken).where(AgentToken.token_hash == presented)).first()
    if agent is None or not hmac.compare_digest(agent.token_hash, presented) or agent.revoked_at is not None:
        return None
    now = _now()
    last_seen = _aware(agent.last_seen_at)
    if last_seen is None or now - last_seen >= LAST_SEEN_RESOLUTION:
        agent.last_seen_at = now  # at most one write a minute: reports of one agent do not queue on its row
        session.add(agent)
    return agent


def bind_host(session: Session, agent: AgentToken, host: str) -> str | None:
    """Tie ``agent`` to ``host`` on its first report; afterwards, why a report from another host is refused.

    One token speaks for one host, so a single token cannot pose as many hosts and
    outvote real ones. The caller's session commits the binding.
    """
    if agent.host is None:
        agent.host = host
        session.add(agent)
        return None
    if agent.host != host:
        return (
            f"agent {agent.name!r} reports for host {agent.host!r}; give host {host[:80]!r} its own token "
            f"(`whichgpu agents add NAME`)"
        )
    return None


def runs_in_last_hour(session: Session, agent: AgentToken, now: datetime | None = None) -> int:
    """Runs this agent reported in the hour before ``now`` (its quota counts them)."""
    since = (now or _now()) - timedelta(hours=1)
    return session.exec(
        select(func.count(col(BenchmarkRun.id))).where(
            BenchmarkRun.agent == agent.name, col(BenchmarkRun.received_at) >= since
        )
    ).one()
