"""What the agent service hands out: plain frozen records, no database rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from romergo.access.agents.identity import AgentKind
from romergo.access.agents.scopes import OAUTH_SCOPES, READ, ordered
from storage.access.records import AgentClientRecord


@dataclass(frozen=True)
class RegisteredClient:
    client_id: str
    name: str
    redirect_uris: tuple[str, ...]
    scopes: tuple[str, ...]
    registration: dict[str, Any]
    created_at: datetime

    @property
    def document_host(self) -> str | None:
        """The host of the client's metadata document, when its client_id is that document's URL."""
        if not self.client_id.startswith(("https://", "http://")):
            return None
        return urlsplit(self.client_id).netloc or None


@dataclass(frozen=True)
class PendingAuthorization:
    """What the consent page shows, and all it may grant."""

    request_id: str
    client: RegisteredClient
    redirect_uri: str
    state: str | None
    requested_scopes: tuple[str, ...] | None
    expires_at: datetime
    issuer: str
    """The issuer the client asked (`iss` of the answer must be it: RFC 9207)."""

    @property
    def offered_scopes(self) -> tuple[str, ...]:
        """What the client asked for (or registered for, when it asked for nothing), read included."""
        asked = self.requested_scopes if self.requested_scopes is not None else self.client.scopes
        return tuple(ordered({*asked, READ} & set(OAUTH_SCOPES)))

    @property
    def redirect_host(self) -> str:
        """Where the answer goes, as the user should read it: host and port."""
        parts = urlsplit(self.redirect_uri)
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        return f"{host}:{parts.port}" if parts.port else host


@dataclass(frozen=True)
class CodeInfo:
    client_id: str
    user_id: str
    scopes: tuple[str, ...]
    expires_at: datetime
    code_challenge: str
    redirect_uri: str
    redirect_uri_explicit: bool
    resource: str


@dataclass(frozen=True)
class RefreshInfo:
    client_id: str
    user_id: str
    scopes: tuple[str, ...]
    expires_at: datetime | None
    resource: str | None


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class Connection:
    """One row of the settings page: a connected OAuth client or a personal token."""

    client_id: str
    name: str
    kind: AgentKind
    scopes: tuple[str, ...]
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None


def registered_client(client: AgentClientRecord) -> RegisteredClient:
    return RegisteredClient(
        client_id=client.id,
        name=client.name,
        redirect_uris=client.redirect_uris,
        scopes=client.scopes,
        registration=dict(client.registration),
        created_at=client.created_at,
    )
