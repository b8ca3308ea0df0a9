"""What agents' access needs kept: registered clients, grants and their last use, each agent's last
calls, personal tokens, trusted client documents, and the forgetting of what expired.

Implemented in `storage.access` (one module per topic); the records are storage's
(`storage.access.records`), re-exported here for the core's callers. Codes, tokens and consent
requests: `romergo.access.agents.token_ledger`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from romergo.access.agents.token_ledger import ConsentLedger, TokenLedger
from romergo.access.ratelimit import RateCountLedger
from storage.access.records import AgentCalls, AgentClientRecord, TrustedDocumentRecord, UsableGrant

__all__ = [
    "ActivityLedger",
    "AgentCalls",
    "AgentClientRecord",
    "AgentLedgers",
    "ClientLedger",
    "ExpiryLedger",
    "GrantLedger",
    "PersonalTokenLedger",
    "TrustedDocumentLedger",
    "TrustedDocumentRecord",
    "UsableGrant",
]


class ClientLedger(Protocol):
    async def register(self, client: AgentClientRecord) -> bool:
        """Keeps a new OAuth client; False (and nothing kept) if its id is taken."""
        ...

    async def oauth_client(self, client_id: str) -> AgentClientRecord | None:
        """The OAuth client of that id; None if there is none, or it is a personal token's or a
        metadata document's."""
        ...

    async def keep_document_client(self, client: AgentClientRecord) -> AgentClientRecord | None:
        """Keeps the client of a metadata document (its id is the document's URL), or refreshes its
        name, redirect URIs, scopes and registration (its creation stays); None (nothing kept) if a
        client of another kind holds the id."""
        ...


class GrantLedger(Protocol):
    async def revoke(self, grant_ids: list[str], now: datetime) -> int:
        """Revokes those of these grants still live; how many were."""
        ...

    async def revoke_client(self, user_id: str, client_id: str, now: datetime) -> int:
        """Revokes every live grant of this user to this client; how many were."""
        ...

    async def live_clients(self, user_id: str) -> list[str]:
        """The clients (OAuth or personal tokens) holding an unrevoked grant of this user, expired
        or not: all that revoking every grant of the user has to name."""
        ...

    async def usable(self, user_id: str, now: datetime) -> list[UsableGrant]:
        """The user's unrevoked, unexpired grants that still hold a usable token (an unexpired
        access or personal token, or an unused unexpired refresh token), each with its client."""
        ...

    async def stamp_last_uses(self, stamps: Mapping[str, datetime]) -> None:
        """Grant id → the moment it was last used, written together."""
        ...


class ActivityLedger(Protocol):
    async def record_refusal(self, user_id: str, client_id: str, tool: str, at: datetime, code: str) -> None:
        """The agent's last refused call for this user, replacing the one before."""
        ...

    async def store_accepted(self, calls: Mapping[tuple[str, str], tuple[str, datetime]]) -> None:
        """(user id, client id) → its newest accepted call (tool, moment), written together; a call
        older than the one already kept does not replace it."""
        ...

    async def of_user(self, user_id: str) -> list[AgentCalls]:
        """The last calls of every agent that made one for this user."""
        ...


class ExpiryLedger(Protocol):
    async def forget_expired(self, now: datetime) -> None:
        """Forgets consent requests, codes and tokens expired by `now` (grants stay)."""
        ...


class PersonalTokenLedger(Protocol):
    async def add(
        self,
        username: str,
        *,
        client_id: str,
        grant_id: str,
        token_hash: str,
        name: str,
        scopes: list[str],
        created_at: datetime,
        expires_at: datetime,
    ) -> bool:
        """Keeps a personal token: its own client, its grant and the token, at once. False (and
        nothing kept) if there is no user of that name, or it is deactivated."""
        ...


class TrustedDocumentLedger(Protocol):
    async def keep(self, url: str, document: dict[str, Any], trusted_at: datetime) -> None:
        """Trusts `document` for `url`, replacing any trusted before."""
        ...

    async def forget(self, url: str) -> bool:
        """Stops trusting `url`'s document; False if none was trusted."""
        ...

    async def listed(self) -> list[TrustedDocumentRecord]:
        """Every trusted document, by URL."""
        ...

    async def with_client(self, url: str) -> tuple[TrustedDocumentRecord, AgentClientRecord | None] | None:
        """The document trusted for `url` with the client kept under that id, if any; None if no
        document is trusted for `url`."""
        ...


@dataclass(frozen=True)
class AgentLedgers:
    """Every ledger the agent service keeps its state in (`romergo.services` builds them)."""

    clients: ClientLedger
    grants: GrantLedger
    activity: ActivityLedger
    expiry: ExpiryLedger
    personal: PersonalTokenLedger
    trusted_documents: TrustedDocumentLedger
    rate_counts: RateCountLedger
    consent: ConsentLedger
    tokens: TokenLedger
