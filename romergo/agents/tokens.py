"""Codes for tokens, refresh rotation, bearer verification and revocation."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.agents.base import TOKEN_PREFIX, TOUCH_EVERY, AgentBase, expired, plausible
from romergo.agents.identity import AgentIdentity, AgentKind, VerifiedToken
from romergo.agents.records import CodeInfo, IssuedTokens, RefreshInfo
from romergo.agents.scopes import ordered
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ids import new_secret, sha256_hex
from storage.tables import AgentClient, AgentCode, AgentGrant, AgentToken


class TokenOps(AgentBase):
    # -- codes and tokens ------------------------------------------------------------------------

    async def load_code(self, client_id: str, code: str) -> CodeInfo | None:
        """A code this client may exchange; None if unknown, foreign, expired or revoked.

        Presenting an already-used code revokes everything its first exchange issued.
        """
        if not plausible(code):
            return None
        async with self.db.read() as session:
            row = await session.get(AgentCode, sha256_hex(code))
            if row is None or row.client_id != client_id:
                return None
            grant = await session.get(AgentGrant, row.grant_id)
        if row.used_at is not None:
            await self._revoke_grants([row.grant_id])
            return None
        if grant is None or grant.revoked_at is not None:
            return None
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
        replayed_grant: str | None = None
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentCode)  # type: ignore[call-overload]
                .where(
                    col(AgentCode.code_hash) == sha256_hex(code),
                    col(AgentCode.client_id) == client_id,
                    col(AgentCode.used_at).is_(None),
                    col(AgentCode.expires_at) > now,
                )
                .values(used_at=now)
                .returning(AgentCode.grant_id, AgentCode.scopes, AgentCode.resource)
            )
            consumed = result.first()
            if consumed is None:
                row = await session.get(AgentCode, sha256_hex(code))
                replayed_grant = row.grant_id if row is not None and row.used_at is not None else None
                tokens = None
            else:
                grant_id, scopes, resource = consumed
                grant = await session.get(AgentGrant, grant_id)
                if grant is None or grant.revoked_at is not None:
                    raise RomergoError("unauthorized", "This authorization was revoked.")
                tokens = self._issue(session, grant, list(scopes), list(scopes), resource)
        if tokens is None:
            if replayed_grant is not None:
                await self._revoke_grants([replayed_grant])
            raise RomergoError("unauthorized", "This authorization code was already used or has expired.")
        return tokens

    async def load_refresh(self, client_id: str, token: str) -> RefreshInfo | None:
        """A refresh token this client may use; presenting a used one revokes its family."""
        if not plausible(token):
            return None
        async with self.db.read() as session:
            row = await session.get(AgentToken, sha256_hex(token))
            if row is None or row.kind != "refresh" or row.client_id != client_id:
                return None
            grant = await session.get(AgentGrant, row.grant_id)
        if row.used_at is not None:
            await self._revoke_grants([row.grant_id])
            return None
        if grant is None or grant.revoked_at is not None:
            return None
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
        replayed_grant: str | None = None
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentToken)  # type: ignore[call-overload]
                .where(
                    col(AgentToken.token_hash) == sha256_hex(token),
                    col(AgentToken.kind) == "refresh",
                    col(AgentToken.client_id) == client_id,
                    col(AgentToken.used_at).is_(None),
                    or_(col(AgentToken.expires_at).is_(None), col(AgentToken.expires_at) > now),
                )
                .values(used_at=now)
                .returning(AgentToken.grant_id, AgentToken.scopes, AgentToken.resource)
            )
            consumed = result.first()
            if consumed is None:
                row = await session.get(AgentToken, sha256_hex(token))
                replayed_grant = row.grant_id if row is not None and row.used_at is not None else None
                tokens = None
            else:
                grant_id, refresh_scopes, resource = consumed
                narrower = [scope for scope in scopes if scope in refresh_scopes]
                if len(narrower) != len(scopes):
                    raise invalid("A refresh cannot add scopes that were not granted.")
                grant = await session.get(AgentGrant, grant_id)
                if grant is None or grant.revoked_at is not None:
                    raise RomergoError("unauthorized", "This authorization was revoked.")
                access_scopes = narrower or list(refresh_scopes)
                tokens = self._issue(session, grant, access_scopes, list(refresh_scopes), resource)
        if tokens is None:
            if replayed_grant is not None:
                await self._revoke_grants([replayed_grant])
            raise RomergoError("unauthorized", "This refresh token was already used, revoked or has expired.")
        return tokens

    async def verify_token(self, token: str) -> VerifiedToken | None:
        """A bearer token presented at `/mcp`: access or personal, known, unexpired, unrevoked.

        Records its use at most once a minute per token (for the settings page).
        """
        if not plausible(token):
            return None
        now = utcnow()
        token_hash = sha256_hex(token)
        async with self.db.read() as session:
            found = (
                await session.exec(
                    select(AgentToken, AgentGrant, AgentClient)
                    .join(AgentGrant, col(AgentGrant.id) == col(AgentToken.grant_id))
                    .join(AgentClient, col(AgentClient.id) == col(AgentGrant.client_id))
                    .where(
                        col(AgentToken.token_hash) == token_hash,
                        col(AgentToken.kind).in_(["access", "personal"]),
                    )
                )
            ).first()
        if found is None:
            return None
        row, grant, client = found
        if grant.revoked_at is not None or expired(row.expires_at, now) or expired(grant.expires_at, now):
            return None
        if row.last_used_at is None or now - row.last_used_at >= TOUCH_EVERY:
            async with self.db.write() as session:
                touch_token = update(AgentToken).where(col(AgentToken.token_hash) == token_hash)
                await session.exec(touch_token.values(last_used_at=now))
                touch_grant = update(AgentGrant).where(col(AgentGrant.id) == grant.id)
                await session.exec(touch_grant.values(last_used_at=now))
        kind: AgentKind = "personal" if grant.kind == "personal" else "oauth"
        identity = AgentIdentity(
            user_id=grant.user_id,
            client_id=client.id,
            client_name=client.name,
            scopes=frozenset(row.scopes),
            kind=kind,
        )
        return VerifiedToken(identity=identity, expires_at=row.expires_at, resource=row.resource)

    async def identity(self, token: str) -> AgentIdentity | None:
        verified = await self.verify_token(token)
        return verified.identity if verified is not None else None

    # -- revocation ------------------------------------------------------------------------------

    async def revoke_token(self, token: str) -> bool:
        """Revoke the grant any of its tokens belongs to (access, refresh or personal)."""
        if not plausible(token):
            return False
        async with self.db.read() as session:
            row = await session.get(AgentToken, sha256_hex(token))
        if row is None:
            return False
        return await self._revoke_grants([row.grant_id]) > 0

    async def revoke_client(self, user_id: str, client_id: str) -> int:
        """What "Revoke" on the settings page does: every live grant of this user to this client."""
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentGrant)  # type: ignore[call-overload]
                .where(
                    col(AgentGrant.user_id) == user_id,
                    col(AgentGrant.client_id) == client_id,
                    col(AgentGrant.revoked_at).is_(None),
                )
                .values(revoked_at=utcnow())
                .returning(AgentGrant.id)
            )
            return len(result.all())

    def _issue(
        self,
        session: AsyncSession,
        grant: AgentGrant,
        access_scopes: list[str],
        refresh_scopes: list[str],
        resource: str | None,
    ) -> IssuedTokens:
        now = utcnow()
        access = TOKEN_PREFIX["access"] + new_secret(32)
        refresh = TOKEN_PREFIX["refresh"] + new_secret(32)
        lifetime = timedelta(minutes=self.settings.access_token_minutes)
        for secret, kind, scopes, expires_at in (
            (access, "access", access_scopes, now + lifetime),
            (refresh, "refresh", refresh_scopes, now + timedelta(days=self.settings.refresh_token_days)),
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
            expires_in=int(lifetime.total_seconds()),
            scopes=tuple(ordered(access_scopes)),
        )
