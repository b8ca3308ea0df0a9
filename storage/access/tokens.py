"""Codes and tokens (`agent_codes`, `agent_tokens`): the bearer check on every MCP call, codes and
refresh tokens redeemed once for a new pair, and whose token a revoked one was."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, bindparam, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.access.records import Bearer, CodeRecord, GrantRecord, Redemption, TokenPair, TokenRecord
from storage.core_tables import AGENT_CLIENTS, AGENT_GRANTS, AGENT_TOKENS
from storage.database import Database
from storage.records import record_of
from storage.tables import AgentClient, AgentCode, AgentGrant, AgentToken

SingleUse = TypeVar("SingleUse", AgentCode, AgentToken)
Held = TypeVar("Held", CodeRecord, TokenRecord)


class _Undone(Exception):
    """Raised inside a redemption's transaction to roll it back, carrying what it came to."""

    def __init__(self, redemption: Redemption) -> None:
        self.redemption = redemption


class StoredTokens:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def bearer(self, token_hash: str) -> Bearer | None:
        """An access or personal token with its grant and client: one prebuilt statement, read on
        the database's driver without a transaction (it runs on every MCP call)."""
        found = await self.db.first_row(_BEARER, {"token_hash": token_hash})
        return None if found is None else record_of(Bearer, found, scopes=tuple(found.scopes))

    async def held_code(self, code_hash: str, client_id: str) -> tuple[CodeRecord, GrantRecord | None] | None:
        """The code if this client holds it (used or not), with its grant if that still exists."""
        return await self._held(AgentCode, CodeRecord, code_hash, client_id)

    async def held_token(
        self, token_hash: str, client_id: str
    ) -> tuple[TokenRecord, GrantRecord | None] | None:
        """The token if this client holds it (used or not), with its grant if that still exists."""
        return await self._held(AgentToken, TokenRecord, token_hash, client_id)

    async def redeem_code(self, code_hash: str, client_id: str, now: datetime, pair: TokenPair) -> Redemption:
        """Uses the code (unused, unexpired, this client's) and issues `pair` with its scopes and
        resource, in one transaction; nothing changes unless it is `issued`."""
        try:
            async with self.db.write() as session:
                grant_id, scopes, resource = await _use(
                    session, AgentCode, code_hash, client_id, now, col(AgentCode.code_hash) == code_hash
                )
                grant = await _live_grant(session, grant_id)
                _issue(session, grant, pair, list(scopes), list(scopes), resource)
                return Redemption("issued", access_scopes=tuple(scopes))
        except _Undone as undone:
            return undone.redemption

    async def redeem_refresh(
        self, token_hash: str, client_id: str, now: datetime, requested: Sequence[str], pair: TokenPair
    ) -> Redemption:
        """Uses the refresh token (unused, unexpired, this client's) and issues `pair`, in one
        transaction: the refresh token keeps its scopes, the access token gets those `requested`
        (all of them when none are). Asking for one it does not carry changes nothing."""
        try:
            async with self.db.write() as session:
                grant_id, carried, resource = await _use(
                    session,
                    AgentToken,
                    token_hash,
                    client_id,
                    now,
                    col(AgentToken.token_hash) == token_hash,
                    col(AgentToken.kind) == "refresh",
                )
                if any(scope not in carried for scope in requested):
                    raise _Undone(Redemption("scopes_not_granted"))
                grant = await _live_grant(session, grant_id)
                # Kept in the order the refresh token carries them (its scopes are stored in order).
                access = [scope for scope in carried if scope in requested] or list(carried)
                _issue(session, grant, pair, access, list(carried), resource)
                return Redemption("issued", access_scopes=tuple(access))
        except _Undone as undone:
            return undone.redemption

    async def revoked_bearer(self, token_hash: str) -> tuple[GrantRecord, str] | None:
        """An access or personal token whose grant was revoked: the grant and its client's name."""
        async with self.db.read() as session:
            found = (
                await session.exec(
                    select(AgentGrant, AgentClient)
                    .join(AgentToken, col(AgentToken.grant_id) == col(AgentGrant.id))
                    .join(AgentClient, col(AgentClient.id) == col(AgentGrant.client_id))
                    .where(
                        col(AgentToken.token_hash) == token_hash,
                        col(AgentToken.kind).in_(["access", "personal"]),
                        col(AgentGrant.revoked_at).is_not(None),
                    )
                )
            ).first()
        if found is None:
            return None
        grant, client = found
        return _grant(grant), client.name

    async def grant_of(self, token_hash: str) -> str | None:
        """The grant any token (access, refresh or personal) was issued under."""
        async with self.db.read() as session:
            row = await session.get(AgentToken, token_hash)
        return None if row is None else row.grant_id

    async def _held(
        self, table: type[SingleUse], shape: type[Held], key: str, client_id: str
    ) -> tuple[Held, GrantRecord | None] | None:
        async with self.db.read() as session:
            row = await session.get(table, key)
            if row is None or row.client_id != client_id:
                return None
            grant = await session.get(AgentGrant, row.grant_id)
        held = record_of(shape, row, scopes=tuple(row.scopes))
        return held, None if grant is None else _grant(grant)


async def _live_grant(session: AsyncSession, grant_id: str) -> AgentGrant:
    grant = await session.get(AgentGrant, grant_id)
    if grant is None or grant.revoked_at is not None:
        raise _Undone(Redemption("grant_revoked"))
    return grant


async def _use(
    session: AsyncSession,
    table: type[SingleUse],
    key: str,
    client_id: str,
    now: datetime,
    *named: ColumnElement[bool],
) -> tuple[str, list[str], str | None]:
    """Marks the code or token `named` used if it is unused, unexpired and this client's: its grant
    id, scopes and resource. Otherwise it undoes the redemption, naming the grant of one used
    before (a replay)."""
    result = await session.exec(
        update(table)  # type: ignore[call-overload]
        .where(
            *named,
            col(table.client_id) == client_id,
            col(table.used_at).is_(None),
            or_(col(table.expires_at).is_(None), col(table.expires_at) > now),
        )
        .values(used_at=now)
        .returning(table.grant_id, table.scopes, table.resource)
    )
    consumed = result.first()
    if consumed is None:
        raise _Undone(Redemption("refused", replayed_grant_id=await _used_grant(session, table, key)))
    grant_id, scopes, resource = consumed
    return grant_id, list(scopes), resource


async def _used_grant(session: AsyncSession, table: type[SingleUse], key: str) -> str | None:
    """The grant of a secret that was already used (a replay), if that is why it was refused."""
    row = await session.get(table, key)
    return row.grant_id if row is not None and row.used_at is not None else None


def _issue(
    session: AsyncSession,
    grant: AgentGrant,
    pair: TokenPair,
    access_scopes: list[str],
    refresh_scopes: list[str],
    resource: str | None,
) -> None:
    for token_hash, kind, scopes, expires_at in (
        (pair.access_hash, "access", access_scopes, pair.access_expires_at),
        (pair.refresh_hash, "refresh", refresh_scopes, pair.refresh_expires_at),
    ):
        session.add(token_row(token_hash, kind, grant, scopes, pair.created_at, expires_at, resource))


def token_row(
    token_hash: str,
    kind: str,
    grant: AgentGrant,
    scopes: list[str],
    created_at: datetime,
    expires_at: datetime,
    resource: str | None = None,
) -> AgentToken:
    """A token issued under `grant` (to its client), to add in the caller's transaction."""
    return AgentToken(
        token_hash=token_hash,
        kind=kind,
        grant_id=grant.id,
        client_id=grant.client_id,
        scopes=scopes,
        resource=resource,
        created_at=created_at,
        expires_at=expires_at,
    )


def _grant(row: AgentGrant) -> GrantRecord:
    return record_of(GrantRecord, row, scopes=tuple(row.scopes))


# Built once: the bearer check runs on every MCP call, and building this join (a Core select of the
# tables: the ORM's compile step for entity columns) cost more than running it.
_BEARER: Select[*tuple[Any, ...]] = (
    sa_select(
        AGENT_TOKENS.c.scopes,
        AGENT_TOKENS.c.expires_at,
        AGENT_TOKENS.c.resource,
        AGENT_GRANTS.c.id.label("grant_id"),
        AGENT_GRANTS.c.last_used_at.label("grant_last_used_at"),
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
