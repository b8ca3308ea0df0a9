"""The plain records the access ledgers hand to the core: frozen, detached from any session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class User:
    id: str
    username: str
    password_hash: str | None
    created_at: datetime
    last_sign_in_at: datetime | None = None
    administrator: bool = False
    """May manage the accounts (/settings/people); the first account is one."""
    deactivated_at: datetime | None = None
    """Set while the account may not sign in in any way."""


@dataclass(frozen=True, slots=True)
class BrowserSession:
    """A signed-in browser; its cookie's token is known here only by its SHA-256."""

    token_hash: str
    user_id: str
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class IdentityLink:
    """An account at the team's OpenID Connect provider, known by (issuer, subject), and the
    Romergo account it signs in as."""

    issuer: str
    subject: str
    user_id: str
    linked_at: datetime


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


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """An `/authorize` request waiting for its user's answer; known by its handle's SHA-256."""

    request_hash: str
    client_id: str
    redirect_uri: str
    redirect_uri_explicit: bool
    state: str | None
    requested_scopes: tuple[str, ...] | None
    code_challenge: str
    resource: str
    issuer: str | None
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class GrantRecord:
    id: str
    user_id: str
    client_id: str
    kind: str
    scopes: tuple[str, ...]
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class CodeRecord:
    """An authorization code, bound to its client, redirect URI, PKCE challenge and resource."""

    client_id: str
    grant_id: str
    scopes: tuple[str, ...]
    redirect_uri: str
    redirect_uri_explicit: bool
    code_challenge: str
    resource: str
    expires_at: datetime
    used_at: datetime | None


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """An access, refresh or personal token (known by its SHA-256)."""

    kind: str
    client_id: str
    grant_id: str
    scopes: tuple[str, ...]
    resource: str | None
    expires_at: datetime | None
    used_at: datetime | None


@dataclass(frozen=True, slots=True)
class Bearer:
    """What the bearer check reads for an access or personal token: it, its grant and its client."""

    scopes: tuple[str, ...]
    expires_at: datetime | None
    resource: str | None
    grant_id: str
    grant_kind: str
    grant_last_used_at: datetime | None
    grant_expires_at: datetime | None
    revoked_at: datetime | None
    user_id: str
    client_id: str
    client_name: str


@dataclass(frozen=True, slots=True)
class TokenPair:
    """The access and refresh token to issue, known by their hashes; their scopes and resource come
    from what they are issued for."""

    access_hash: str
    access_expires_at: datetime
    refresh_hash: str
    refresh_expires_at: datetime
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Redemption:
    """What presenting a code or a refresh token came to.

    `issued`: it was used, and the pair issued with `access_scopes`. Otherwise nothing changed:
    `grant_revoked` (its grant was revoked), `scopes_not_granted` (a refresh asked for more than it
    carries) or `refused` (unknown, foreign, expired or used; `replayed_grant_id` names the grant
    of one already used)."""

    outcome: Literal["issued", "grant_revoked", "scopes_not_granted", "refused"]
    access_scopes: tuple[str, ...] = ()
    replayed_grant_id: str | None = None
