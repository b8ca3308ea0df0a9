"""Codes for tokens, refresh rotation, bearer verification and revocation.

- Codes are single use: a second exchange fails and revokes what the first exchange issued.
- Refresh tokens rotate: each is used once; presenting a used one revokes its whole family.
- Access tokens carry the audience they were issued for (`{base_url}/mcp`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, NoReturn, TypeVar

from sqlalchemy import Select, bindparam, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.agents.base import TOUCH_EVERY, expired, new_token
from romergo.agents.grants import Grants
from romergo.agents.identity import AgentIdentity, AgentKind, VerifiedToken
from romergo.agents.records import CodeInfo, IssuedTokens, RefreshInfo
from romergo.agents.scopes import ordered
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ids import plausible_secret, sha256_hex
from storage import Database
from storage.core_tables import AGENT_CLIENTS, AGENT_GRANTS, AGENT_TOKENS
from storage.tables import AgentClient, AgentCode, AgentGrant, AgentToken

SingleUse = TypeVar("SingleUse", AgentCode, AgentToken)
"""A secret that may be used once (a code, a refresh token): used again, it revokes its grant."""


class Tokens:
    def __init__(
        self, db: Database, grants: Grants, *, access_lifetime: timedelta, refresh_lifetime: timedelta
    ) -> None:
        self.db = db
        self.grants = grants
        self.access_lifetime = access_lifetime
        self.refresh_lifetime = refresh_lifetime

    # -- codes and refresh tokens ----------------------------------------------------------------

    async def load_code(self, client_id: str, code: str) -> CodeInfo | None:
        """A code this client may exchange; None if unknown, foreign, expired or revoked.

        Presenting an already-used code revokes everything its first exchange issued.
        """
        found = await self._presented(AgentCode, client_id, code)
        if found is None:
            return None
        row, grant = found
        return CodeInfo(
            client_id=row.client_id,
            user_id=grant.user_id,
            scopes=tuple(row.scopes),
            expires_at=row.expires_at,
            code_challenge=row.code_challenge,
            redirect_uri=row.redirect_uri,
            redirect_uri_explicit=row.redirect_uri_explicit,
            resource=row.resource,
        )

    async def exchange_code(self, client_id: str, code: str) -> IssuedTokens:
        """Consume the code atomically and issue the first access and refresh tokens of its grant."""
        now = utcnow()
        code_hash = sha256_hex(code)
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentCode)  # type: ignore[call-overload]
                .where(
                    col(AgentCode.code_hash) == code_hash,
                    col(AgentCode.client_id) == client_id,
                    col(AgentCode.used_at).is_(None),
                    col(AgentCode.expires_at) > now,
                )
                .values(used_at=now)
                .returning(AgentCode.grant_id, AgentCode.scopes, AgentCode.resource)
            )
            consumed = result.first()
            if consumed is not None:
                grant_id, scopes, resource = consumed
                grant = await _live_grant(session, grant_id)
                return self._issue(session, grant, list(scopes), list(scopes), resource)
            replayed = await _used_grant(session, AgentCode, code_hash)
        await self._refuse(replayed, "This authorization code was already used or has expired.")

    async def load_refresh(self, client_id: str, token: str) -> RefreshInfo | None:
        """A refresh token this client may use; presenting a used one revokes its family."""
        found = await self._presented(AgentToken, client_id, token)
        if found is None or found[0].kind != "refresh":
            return None
        row, grant = found
        return RefreshInfo(
            client_id=row.client_id,
            user_id=grant.user_id,
            scopes=tuple(row.scopes),
            expires_at=row.expires_at,
            resource=row.resource,
        )

    async def rotate_refresh(self, client_id: str, token: str, scopes: list[str]) -> IssuedTokens:
        """Use the refresh token (once) for a new access token and a new refresh token."""
        now = utcnow()
        token_hash = sha256_hex(token)
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentToken)  # type: ignore[call-overload]
                .where(
                    col(AgentToken.token_hash) == token_hash,
                    col(AgentToken.kind) == "refresh",
                    col(AgentToken.client_id) == client_id,
                    col(AgentToken.used_at).is_(None),
                    or_(col(AgentToken.expires_at).is_(None), col(AgentToken.expires_at) > now),
                )
                .values(used_at=now)
                .returning(AgentToken.grant_id, AgentToken.scopes, AgentToken.resource)
            )
            consumed = result.first()
            if consumed is not None:
                grant_id, refresh_scopes, resource = consumed
                narrower = [scope for scope in scopes if scope in refresh_scopes]
                if len(narrower) != len(scopes):
                    raise invalid("A refresh cannot add scopes that were not granted.")
                grant = await _live_grant(session, grant_id)
                access_scopes = narrower or list(refresh_scopes)
                return self._issue(session, grant, access_scopes, list(refresh_scopes), resource)
            replayed = await _used_grant(session, AgentToken, token_hash)
        await self._refuse(replayed, "This refresh token was already used, revoked or has expired.")

    # -- bearer tokens ---------------------------------------------------------------------------

    async def verify(self, token: str) -> VerifiedToken | None:
        """A bearer token presented at `/mcp`: access or personal, known, unexpired, unrevoked.

        Records its use at most once a minute per token (for the settings page).
        """
        if not plausible_secret(token):
            return None
        now = utcnow()
        token_hash = sha256_hex(token)
        found = await self.db.first_row(_BEARER, {"token_hash": token_hash})
        if found is None:
            return None
        if (
            found.revoked_at is not None
            or expired(found.expires_at, now)
            or expired(found.grant_expires_at, now)
        ):
            return None
        if found.last_used_at is None or now - found.last_used_at >= TOUCH_EVERY:
            # The grant's stamp is what the settings page shows (one row per client); a client's
            # tokens of one grant share it. Written with others' a moment later (`last_use`).
            self.grants.last_uses.note(found.grant_id, now)
        kind: AgentKind = "personal" if found.grant_kind == "personal" else "oauth"
        identity = AgentIdentity(
            user_id=found.user_id,
            client_id=found.client_id,
            client_name=found.client_name,
            scopes=frozenset(found.scopes),
            kind=kind,
        )
        return VerifiedToken(identity=identity, expires_at=found.expires_at, resource=found.resource)

    async def revoked_identity(self, token: str) -> AgentIdentity | None:
        """Whose token this was, when it was refused because the owner revoked its grant: the
        refusal is then recorded for the owner to see. None for anything else."""
        if not plausible_secret(token):
            return None
        async with self.db.read() as session:
            found = (
                await session.exec(
                    select(AgentGrant, AgentClient)
                    .join(AgentToken, col(AgentToken.grant_id) == col(AgentGrant.id))
                    .join(AgentClient, col(AgentClient.id) == col(AgentGrant.client_id))
                    .where(
                        col(AgentToken.token_hash) == sha256_hex(token),
                        col(AgentToken.kind).in_(["access", "personal"]),
                        col(AgentGrant.revoked_at).is_not(None),
                    )
                )
            ).first()
        if found is None:
            return None
        grant, client = found
        kind: AgentKind = "personal" if grant.kind == "personal" else "oauth"
        return AgentIdentity(grant.user_id, client.id, client.name, frozenset(), kind)

    async def identity(self, token: str) -> AgentIdentity | None:
        verified = await self.verify(token)
        return verified.identity if verified is not None else None

    async def revoke(self, token: str) -> bool:
        """Revoke the grant any of its tokens belongs to (access, refresh or personal)."""
        if not plausible_secret(token):
            return False
        async with self.db.read() as session:
            row = await session.get(AgentToken, sha256_hex(token))
        if row is None:
            return False
        return await self.grants.revoke([row.grant_id]) > 0

    # -- helpers ---------------------------------------------------------------------------------

    async def _presented(
        self, table: type[SingleUse], client_id: str, secret: str
    ) -> tuple[SingleUse, AgentGrant] | None:
        """The unused row of a code or refresh token this client holds, with its live grant.

        A used one presented again was stolen or replayed: its whole grant is revoked.
        """
        if not plausible_secret(secret):
            return None
        async with self.db.read() as session:
            row = await session.get(table, sha256_hex(secret))
            if row is None or row.client_id != client_id:
                return None
            grant = await session.get(AgentGrant, row.grant_id)
        if row.used_at is not None:
            await self.grants.revoke([row.grant_id])
            return None
        if grant is None or grant.revoked_at is not None:
            return None
        return row, grant

    async def _refuse(self, replayed_grant: str | None, message: str) -> NoReturn:
        """Nothing was consumed: revoke the grant if a used secret came back, and say no."""
        if replayed_grant is not None:
            await self.grants.revoke([replayed_grant])
        raise RomergoError("unauthorized", message)

    def _issue(
        self,
        session: AsyncSession,
        grant: AgentGrant,
        access_scopes: list[str],
        refresh_scopes: list[str],
        resource: str | None,
    ) -> IssuedTokens:
        now = utcnow()
        access = new_token("access")
        refresh = new_token("refresh")
        for secret, kind, scopes, expires_at in (
            (access, "access", access_scopes, now + self.access_lifetime),
            (refresh, "refresh", refresh_scopes, now + self.refresh_lifetime),
        ):
            session.add(
                AgentToken(
                    token_hash=sha256_hex(secret),
                    kind=kind,
                    grant_id=grant.id,
                    client_id=grant.client_id,
                    scopes=ordered(scopes),
                    resource=resource,
                    created_at=now,
                    expires_at=expires_at,
                )
            )
        return IssuedTokens(
            access_token=access,
            refresh_token=refresh,
            expires_in=int(self.access_lifetime.total_seconds()),
            scopes=tuple(ordered(access_scopes)),
        )


async def _live_grant(session: AsyncSession, grant_id: str) -> AgentGrant:
    grant = await session.get(AgentGrant, grant_id)
    if grant is None or grant.revoked_at is not None:
        raise RomergoError("unauthorized", "This authorization was revoked.")
    return grant


async def _used_grant(session: AsyncSession, table: type[SingleUse], key: str) -> str | None:
    """The grant of a secret that was already used (a replay), if that is why it was refused."""
    row = await session.get(table, key)
    return row.grant_id if row is not None and row.used_at is not None else None


# Built once: the bearer check runs on every MCP call, and building this join cost more than running it.
# Every MCP call runs this: a Core select of the tables, built once (the ORM's compile step for
# entity columns cost more than the statement itself).
_BEARER: Select[*tuple[Any, ...]] = (
    sa_select(
        AGENT_TOKENS.c.scopes,
        AGENT_TOKENS.c.expires_at,
        AGENT_TOKENS.c.resource,
        AGENT_GRANTS.c.id.label("grant_id"),
        AGENT_GRANTS.c.last_used_at,
        AGENT_GRANTS.c.kind.label("grant_kind"),
        AGENT_GRANTS.c.user_id,
        AGENT_GRANTS.c.revoked_at,
        AGENT_GRANTS.c.expires_at.label("grant_expires_at"),
        AGENT_CLIENTS.c.id.label("client_id"),
        AGENT_CLIENTS.c.name.label("client_name"),
    )
    .join(AGENT_GRANTS, AGENT_GRANTS.c.id == AGENT_TOKENS.c.grant_id)
    .join(AGENT_CLIENTS, AGENT_CLIENTS.c.id == AGENT_GRANTS.c.client_id)
    .where(
        AGENT_TOKENS.c.token_hash == bindparam("token_hash"),
        # Equalities, not IN: an IN list is expanded into the SQL at every execution.
        or_(AGENT_TOKENS.c.kind == "access", AGENT_TOKENS.c.kind == "personal"),
    )
)
