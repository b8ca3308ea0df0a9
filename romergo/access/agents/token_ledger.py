"""What codes, tokens and consent need kept: pending `/authorize` requests and their answers, the
bearer check, and codes and refresh tokens redeemed once.

Implemented by `storage.access.consent` and `storage.access.tokens`; the records are storage's
(`storage.access.records`), re-exported here for the core."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from storage.access.records import (
    AgentClientRecord,
    AuthorizationRequest,
    Bearer,
    CodeRecord,
    GrantRecord,
    Redemption,
    TokenPair,
    TokenRecord,
)

__all__ = [
    "AuthorizationRequest",
    "Bearer",
    "CodeRecord",
    "ConsentLedger",
    "GrantRecord",
    "Redemption",
    "TokenLedger",
    "TokenPair",
    "TokenRecord",
]


class ConsentLedger(Protocol):
    async def add_request(self, request: AuthorizationRequest) -> None: ...

    async def waiting(
        self, request_hash: str, now: datetime
    ) -> tuple[AuthorizationRequest, AgentClientRecord] | None:
        """The request with its client, if it is unanswered and unexpired at `now`."""
        ...

    async def approve(
        self,
        request_hash: str,
        now: datetime,
        *,
        grant_id: str,
        user_id: str,
        scopes: list[str],
        code_hash: str,
        code_expires_at: datetime,
    ) -> bool:
        """Answers the request: a grant of `scopes` to its client and a code under it (bound to the
        request's redirect URI, PKCE challenge and resource), at once. Of two answers only the
        first counts: False (nothing kept) if it was answered already or has expired."""
        ...

    async def deny(self, request_hash: str, now: datetime) -> bool:
        """Answers the request with no; False if it was answered already or has expired."""
        ...


class TokenLedger(Protocol):
    async def bearer(self, token_hash: str) -> Bearer | None:
        """An access or personal token with its grant and client, in one statement (every MCP
        call asks); None for another kind or an unknown hash. Revocation and expiry are the caller's
        to judge."""
        ...

    async def held_code(self, code_hash: str, client_id: str) -> tuple[CodeRecord, GrantRecord | None] | None:
        """The code, used or not, if this client holds it; with its grant unless that is gone."""
        ...

    async def held_token(
        self, token_hash: str, client_id: str
    ) -> tuple[TokenRecord, GrantRecord | None] | None:
        """The token, used or not, if this client holds it; with its grant unless that is gone."""
        ...

    async def redeem_code(self, code_hash: str, client_id: str, now: datetime, pair: TokenPair) -> Redemption:
        """Uses the code once and issues `pair` under its grant with its scopes and resource, at
        once; nothing changes unless the redemption is `issued`."""
        ...

    async def redeem_refresh(
        self, token_hash: str, client_id: str, now: datetime, requested: Sequence[str], pair: TokenPair
    ) -> Redemption:
        """Uses the refresh token once and issues `pair`: the new refresh token carries the same
        scopes, the access token those `requested` (all when none are). Nothing changes unless
        the redemption is `issued` (asking for a scope it does not carry: `scopes_not_granted`)."""
        ...

    async def revoked_bearer(self, token_hash: str) -> tuple[GrantRecord, str] | None:
        """An access or personal token's grant, if that was revoked, and its client's name."""
        ...

    async def grant_of(self, token_hash: str) -> str | None:
        """The grant any token was issued under; None for an unknown hash."""
        ...
