"""Who an agent is, as far as the core is concerned: read from its verified token, never from arguments."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

AgentKind = Literal["oauth", "personal"]


@dataclass(frozen=True)
class AgentIdentity:
    user_id: str
    """The owner the agent acts for."""
    client_id: str
    """The agent: one OAuth client, or one personal token (each personal token is its own client)."""
    client_name: str
    """As registered by the client itself: unverified, display it as such."""
    scopes: frozenset[str]
    kind: AgentKind

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


@dataclass(frozen=True)
class VerifiedToken:
    """A bearer token that is known, unexpired and unrevoked right now."""

    identity: AgentIdentity
    expires_at: datetime | None
    resource: str | None
    """The audience the token was issued for (OAuth tokens); None for personal tokens, which are
    minted by this server for itself."""
