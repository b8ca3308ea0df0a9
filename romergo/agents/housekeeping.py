"""Forgetting what expired: consent requests, codes and tokens (their grants stay, for the record),
and the rate limits' counts that several instances share."""

from __future__ import annotations

import time

from sqlalchemy import delete
from sqlmodel import col

from romergo.clock import utcnow
from romergo.ratelimit import forget_expired_counts
from storage import Database
from storage.access.rate_counts import RateCounts
from storage.tables import AgentAuthorization, AgentCode, AgentToken

PURGE_EVERY_SECONDS = 600


class Housekeeping:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.rate_counts = RateCounts(db)
        self._next_purge = 0.0

    async def purge_expired(self) -> None:
        now = utcnow()
        async with self.db.write() as session:
            await session.exec(delete(AgentAuthorization).where(col(AgentAuthorization.expires_at) <= now))
            await session.exec(delete(AgentCode).where(col(AgentCode.expires_at) <= now))
            await session.exec(
                delete(AgentToken).where(
                    col(AgentToken.expires_at).is_not(None), col(AgentToken.expires_at) <= now
                )
            )
        await forget_expired_counts(self.rate_counts)

    async def purge_if_due(self) -> None:
        """Purge at most every ten minutes, on the back of ordinary traffic (no timer of its own)."""
        if time.monotonic() >= self._next_purge:
            self._next_purge = time.monotonic() + PURGE_EVERY_SECONDS
            await self.purge_expired()
