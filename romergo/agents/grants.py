"""Grants: one user's consent to one client (or one personal token), and their revocation.

Every code and token is issued under a grant, so revoking the grant (from the settings page,
`/revoke`, or because a code or refresh token was replayed) kills all of them at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import exists, or_, update
from sqlmodel import col, select

from romergo.agents.identity import AgentKind
from romergo.agents.last_use import last_uses
from romergo.agents.records import Connection
from romergo.agents.scopes import ordered
from romergo.clock import utcnow
from romergo.ids import new_id
from storage import Database
from storage.tables import AgentClient, AgentGrant, AgentToken


class Grants:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.last_uses = last_uses(db)
        """When each grant was last used, noted by the bearer check and written a few at a time."""

    async def revoke(self, grant_ids: list[str]) -> int:
        """Revoke these grants (the ones still live); returns how many were."""
        return await self._revoke_where(col(AgentGrant.id).in_(grant_ids))

    async def revoke_client(self, user_id: str, client_id: str) -> int:
        """What "Revoke" on the settings page does: every live grant of this user to this client."""
        return await self._revoke_where(
            col(AgentGrant.user_id) == user_id, col(AgentGrant.client_id) == client_id
        )

    async def connections(self, user_id: str) -> list[Connection]:
        """Connected clients and personal tokens that can still be used, most recently used first."""
        now = utcnow()
        usable_token = exists().where(
            col(AgentToken.grant_id) == col(AgentGrant.id),
            or_(col(AgentToken.expires_at).is_(None), col(AgentToken.expires_at) > now),
            or_(col(AgentToken.kind) != "refresh", col(AgentToken.used_at).is_(None)),
        )
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(AgentGrant, AgentClient)
                    .join(AgentClient, col(AgentClient.id) == col(AgentGrant.client_id))
                    .where(
                        col(AgentGrant.user_id) == user_id,
                        col(AgentGrant.revoked_at).is_(None),
                        or_(col(AgentGrant.expires_at).is_(None), col(AgentGrant.expires_at) > now),
                        usable_token,
                    )
                )
            ).all()
        merged: dict[str, Connection] = {}
        for grant, client in rows:
            used = [moment for moment in (grant.last_used_at, self.last_uses.noted(grant.id)) if moment]
            grant.last_used_at = max(used) if used else None  # what this process noted, not written yet
            merged[client.id] = _merge(merged.get(client.id), grant, client)
        return sorted(merged.values(), key=lambda c: c.last_used_at or c.created_at, reverse=True)

    async def _revoke_where(self, *conditions: Any) -> int:
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentGrant)  # type: ignore[call-overload]
                .where(*conditions, col(AgentGrant.revoked_at).is_(None))
                .values(revoked_at=utcnow())
                .returning(AgentGrant.id)
            )
            return len(result.all())


def new_grant(
    *,
    user_id: str,
    client_id: str,
    kind: AgentKind,
    scopes: list[str],
    now: datetime,
    expires_at: datetime | None = None,
) -> AgentGrant:
    """A grant row to add in the caller's transaction (with the code or token issued under it)."""
    return AgentGrant(
        id=new_id("grt"),
        user_id=user_id,
        client_id=client_id,
        kind=kind,
        scopes=scopes,
        created_at=now,
        expires_at=expires_at,
    )


def _merge(before: Connection | None, grant: AgentGrant, client: AgentClient) -> Connection:
    """One row per client: a client with several live grants shows their union."""
    kind: AgentKind = "personal" if grant.kind == "personal" else "oauth"
    scopes = set(grant.scopes) | set(before.scopes if before else ())
    uses = [moment for moment in (grant.last_used_at, before and before.last_used_at) if moment]
    return Connection(
        client_id=client.id,
        name=client.name,
        kind=kind,
        scopes=tuple(ordered(scopes)),
        created_at=min(grant.created_at, before.created_at) if before else grant.created_at,
        last_used_at=max(uses) if uses else None,
        expires_at=grant.expires_at,
    )
