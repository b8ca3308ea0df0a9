"""Codes for tokens, refresh rotation, bearer verification and revocation.

- Codes are single use: a second exchange fails and revokes what the first exchange issued.
- Refresh tokens rotate: each is used once; presenting a used one revokes its whole family.
- Access tokens carry the audience they were issued for (`{base_url}/mcp`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import NoReturn, TypeVar

from romergo.access.agents.base import TOUCH_EVERY, expired, new_token
from romergo.access.agents.grants import Grants
from romergo.access.agents.identity import AgentIdentity, AgentKind, VerifiedToken
from romergo.access.agents.records import CodeInfo, IssuedTokens, RefreshInfo
from romergo.access.agents.scopes import ordered
from romergo.access.agents.token_ledger import (
    CodeRecord,
    GrantRecord,
    Redemption,
    TokenLedger,
    TokenPair,
    TokenRecord,
)
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import plausible_secret, sha256_hex

Held = TypeVar("Held", CodeRecord, TokenRecord)


class Tokens:
    def __init__(
        self, ledger: TokenLedger, grants: Grants, *, access_lifetime: timedelta, refresh_lifetime: timedelta
    ) -> None:
        self.ledger = ledger
        self.grants = grants
        self.access_lifetime = access_lifetime
        self.refresh_lifetime = refresh_lifetime

    # -- codes and refresh tokens ----------------------------------------------------------------

    async def load_code(self, client_id: str, code: str) -> CodeInfo | None:
        """A code this client may exchange; None if unknown, foreign, expired or revoked.

        Presenting an already-used code revokes everything its first exchange issued.
        """
        code_hash = _hash(code)
        if code_hash is None:
            return None
        usable = await self._usable(await self.ledger.held_code(code_hash, client_id))
        if usable is None:
            return None
        row, grant = usable
        return CodeInfo(
            client_id=row.client_id,
            user_id=grant.user_id,
            scopes=row.scopes,
            expires_at=row.expires_at,
            code_challenge=row.code_challenge,
            redirect_uri=row.redirect_uri,
            redirect_uri_explicit=row.redirect_uri_explicit,
            resource=row.resource,
        )

    async def exchange_code(self, client_id: str, code: str) -> IssuedTokens:
        """Consume the code atomically and issue the first access and refresh tokens of its grant."""
        access, refresh = new_token("access"), new_token("refresh")
        redeemed = await self.ledger.redeem_code(
            sha256_hex(code), client_id, utcnow(), self._pair(access, refresh)
        )
        return await self._issued(
            redeemed, access, refresh, "This authorization code was already used or has expired."
        )

    async def load_refresh(self, client_id: str, token: str) -> RefreshInfo | None:
        """A refresh token this client may use; presenting a used one revokes its family."""
        token_hash = _hash(token)
        if token_hash is None:
            return None
        usable = await self._usable(await self.ledger.held_token(token_hash, client_id))
        if usable is None or usable[0].kind != "refresh":
            return None
        row, grant = usable
        return RefreshInfo(
            client_id=row.client_id,
            user_id=grant.user_id,
            scopes=row.scopes,
            expires_at=row.expires_at,
            resource=row.resource,
        )

    async def rotate_refresh(self, client_id: str, token: str, scopes: list[str]) -> IssuedTokens:
        """Use the refresh token (once) for a new access token and a new refresh token."""
        access, refresh = new_token("access"), new_token("refresh")
        redeemed = await self.ledger.redeem_refresh(
            sha256_hex(token), client_id, utcnow(), scopes, self._pair(access, refresh)
        )
        if redeemed.outcome == "scopes_not_granted":
            raise invalid("A refresh cannot add scopes that were not granted.")
        return await self._issued(
            redeemed, access, refresh, "This refresh token was already used, revoked or has expired."
        )

    # -- bearer tokens ---------------------------------------------------------------------------

    async def verify(self, token: str) -> VerifiedToken | None:
        """A bearer token presented at `/mcp`: access or personal, known, unexpired, unrevoked.

        Records its use at most once a minute per token (for the settings page).
        """
        token_hash = _hash(token)
        now = utcnow()
        found = None if token_hash is None else await self.ledger.bearer(token_hash)
        if found is None:
            return None
        if (
            found.revoked_at is not None
            or expired(found.expires_at, now)
            or expired(found.grant_expires_at, now)
        ):
            return None
        if found.grant_last_used_at is None or now - found.grant_last_used_at >= TOUCH_EVERY:
            # The grant's stamp is what the settings page shows (one row per client); a client's
            # tokens of one grant share it. Written with others' a moment later (`last_use`).
            self.grants.last_uses.note(found.grant_id, now)
        identity = AgentIdentity(
            user_id=found.user_id,
            client_id=found.client_id,
            client_name=found.client_name,
            scopes=frozenset(found.scopes),
            kind=_agent_kind(found.grant_kind),
        )
        return VerifiedToken(identity=identity, expires_at=found.expires_at, resource=found.resource)

    async def revoked_identity(self, token: str) -> AgentIdentity | None:
        """Whose token this was, when it was refused because the owner revoked its grant: the
        refusal is then recorded for the owner to see. None for anything else."""
        token_hash = _hash(token)
        found = None if token_hash is None else await self.ledger.revoked_bearer(token_hash)
        if found is None:
            return None
        grant, client_name = found
        kind = _agent_kind(grant.kind)
        return AgentIdentity(grant.user_id, grant.client_id, client_name, frozenset(), kind)

    async def identity(self, token: str) -> AgentIdentity | None:
        verified = await self.verify(token)
        return verified.identity if verified is not None else None

    async def revoke(self, token: str) -> bool:
        """Revoke the grant any of its tokens belongs to (access, refresh or personal)."""
        token_hash = _hash(token)
        grant_id = None if token_hash is None else await self.ledger.grant_of(token_hash)
        if grant_id is None:
            return False
        return await self.grants.revoke([grant_id]) > 0

    # -- helpers ---------------------------------------------------------------------------------

    async def _usable(self, held: tuple[Held, GrantRecord | None] | None) -> tuple[Held, GrantRecord] | None:
        """A code or token this client holds, with its grant, if it may still be used.

        A used one presented again was stolen or replayed: its whole grant is revoked.
        """
        if held is None:
            return None
        secret, grant = held
        if secret.used_at is not None:
            await self.grants.revoke([secret.grant_id])
            return None
        if grant is None or grant.revoked_at is not None:
            return None
        return secret, grant

    def _pair(self, access: str, refresh: str) -> TokenPair:
        now = utcnow()
        return TokenPair(
            access_hash=sha256_hex(access),
            access_expires_at=now + self.access_lifetime,
            refresh_hash=sha256_hex(refresh),
            refresh_expires_at=now + self.refresh_lifetime,
            created_at=now,
        )

    async def _issued(self, redeemed: Redemption, access: str, refresh: str, refusal: str) -> IssuedTokens:
        if redeemed.outcome == "issued":
            return IssuedTokens(
                access_token=access,
                refresh_token=refresh,
                expires_in=int(self.access_lifetime.total_seconds()),
                scopes=tuple(ordered(redeemed.access_scopes)),
            )
        if redeemed.outcome == "grant_revoked":
            raise RomergoError("unauthorized", "This authorization was revoked.")
        await self._refuse(redeemed.replayed_grant_id, refusal)

    async def _refuse(self, replayed_grant: str | None, message: str) -> NoReturn:
        """Nothing was consumed: revoke the grant if a used secret came back, and say no."""
        if replayed_grant is not None:
            await self.grants.revoke([replayed_grant])
        raise RomergoError("unauthorized", message)


def _hash(secret: str) -> str | None:
    """What a presented code or token is known by, or None if it cannot be one of Romergo's."""
    return sha256_hex(secret) if plausible_secret(secret) else None


def _agent_kind(grant_kind: str) -> AgentKind:
    return "personal" if grant_kind == "personal" else "oauth"
