"""The plain records the access ledgers hand to the core: frozen, detached from any session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class User:
    id: str
    username: str
    password_hash: str | None
    created_at: datetime
    last_sign_in_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class BrowserSession:
    """A signed-in browser; its cookie's token is known here only by its SHA-256."""

    token_hash: str
    user_id: str
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class UsableGrant:
    """A live grant that still has a usable token, with its client: a row of the settings page."""

    grant_id: str
    client_id: str
    client_name: str
    kind: str
    scopes: tuple[str, ...]
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class AgentCalls:
    """One agent's last accepted and last refused tool call for one user."""

    client_id: str
    last_accepted_tool: str | None
    last_accepted_at: datetime | None
    last_refused_tool: str | None
    last_refused_at: datetime | None
    last_refused_code: str | None


@dataclass(frozen=True, slots=True)
class AgentClientRecord:
    """A registered agent: an OAuth client, or the client of one personal token."""

    id: str
    name: str
    redirect_uris: tuple[str, ...]
    scopes: tuple[str, ...]
    registration: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TrustedDocumentRecord:
    """A client metadata document an administrator trusts, kept under the URL that names it."""

    url: str
    document: dict[str, Any]
    trusted_at: datetime
