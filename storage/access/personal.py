"""Personal access tokens: each its own client, under a grant of its own (`romergo token create`)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import select

from storage.access.grants import grant_row
from storage.access.tokens import token_row
from storage.database import Database
from storage.tables import AgentClient, User


class StoredPersonalTokens:
    def __init__(self, db: Database) -> None:
        self.db = db

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
        """The token's client, grant and token for the user named, in one transaction; False (and
        nothing kept) if there is no such user or it is deactivated."""
        async with self.db.write() as session:
            user = (await session.exec(select(User).where(User.username == username))).first()
            if user is None or user.deactivated_at is not None:
                return False
            session.add(
                AgentClient(
                    id=client_id,
                    kind="personal",
                    name=name,
                    user_id=user.id,
                    scopes=scopes,
                    created_at=created_at,
                )
            )
            await session.flush()
            grant = grant_row(
                grant_id=grant_id,
                user_id=user.id,
                client_id=client_id,
                kind="personal",
                scopes=scopes,
                now=created_at,
                expires_at=expires_at,
            )
            session.add(grant)
            await session.flush()
            session.add(token_row(token_hash, "personal", grant, scopes, created_at, expires_at))
            return True
