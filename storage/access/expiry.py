"""Forgetting expired consent requests, codes and tokens (their grants stay, for the record)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete
from sqlmodel import col

from storage.database import Database
from storage.tables import AgentAuthorization, AgentCode, AgentToken


class AccessExpiry:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def forget_expired(self, now: datetime) -> None:
        """Deletes what expired by `now`, in one transaction; a token without expiry stays."""
        async with self.db.write() as session:
            await session.exec(delete(AgentAuthorization).where(col(AgentAuthorization.expires_at) <= now))
            await session.exec(delete(AgentCode).where(col(AgentCode.expires_at) <= now))
            await session.exec(
                delete(AgentToken).where(
                    col(AgentToken.expires_at).is_not(None), col(AgentToken.expires_at) <= now
                )
            )
