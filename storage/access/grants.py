"""Grants (`agent_grants`): one user's consent to one client or personal token, their revocation,
and the moments they were last used."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, exists, or_, update
from sqlmodel import col, select

from storage.access.records import UsableGrant
from storage.core_tables import AGENT_GRANTS
from storage.database import Database
from storage.tables import AgentClient, AgentGrant, AgentToken

# Built once: the busy path's stamps are written a few hundred at a time, one statement each.
_STAMP = (
    update(AGENT_GRANTS)
    .where(AGENT_GRANTS.c.id == bindparam("grant_id"))
    .values(last_used_at=bindparam("at"))
)


class StoredGrants:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def revoke(self, grant_ids: list[str], now: datetime) -> int:
        """Revokes these grants (those still live); how many were."""
        return await self._revoke_where(now, col(AgentGrant.id).in_(grant_ids))

    async def revoke_client(self, user_id: str, client_id: str, now: datetime) -> int:
        """Revokes every live grant of this user to this client; how many were."""
        return await self._revoke_where(
            now, col(AgentGrant.user_id) == user_id, col(AgentGrant.client_id) == client_id
        )

    async def live_clients(self, user_id: str) -> list[str]:
        """The clients holding an unrevoked grant of this user (expired or not), by id."""
        async with self.db.read() as session:
            found = await session.exec(
                select(AgentGrant.client_id)
                .where(col(AgentGrant.user_id) == user_id, col(AgentGrant.revoked_at).is_(None))
                .distinct()
                .order_by(col(AgentGrant.client_id))
            )
            return list(found.all())

    async def usable(self, user_id: str, now: datetime) -> list[UsableGrant]:
        """The user's grants live at `now` that still hold a token that can be used."""
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
        return [
            UsableGrant(
                grant_id=grant.id,
                client_id=client.id,
                client_name=client.name,
                kind=grant.kind,
                scopes=tuple(grant.scopes),
                created_at=grant.created_at,
                expires_at=grant.expires_at,
                last_used_at=grant.last_used_at,
            )
            for grant, client in rows
        ]

    async def stamp_last_uses(self, stamps: Mapping[str, datetime]) -> None:
        """Grant id → the moment it was last used, all in one write."""
        each = [{"grant_id": grant_id, "at": at} for grant_id, at in stamps.items()]
        await self.db.write_rows(lambda rows: rows.run_many(_STAMP, each))

    async def _revoke_where(self, now: datetime, *conditions: Any) -> int:
        async with self.db.write() as session:
            result = await session.exec(
                update(AgentGrant)  # type: ignore[call-overload]
                .where(*conditions, col(AgentGrant.revoked_at).is_(None))
                .values(revoked_at=now)
                .returning(AgentGrant.id)
            )
            return len(result.all())


def grant_row(
    *,
    grant_id: str,
    user_id: str,
    client_id: str,
    kind: str,
    scopes: list[str],
    now: datetime,
    expires_at: datetime | None = None,
) -> AgentGrant:
    """A grant to add in the caller's transaction, with the code or token issued under it."""
    return AgentGrant(
        id=grant_id,
        user_id=user_id,
        client_id=client_id,
        kind=kind,
        scopes=scopes,
        created_at=now,
        expires_at=expires_at,
    )
