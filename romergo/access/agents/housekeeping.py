"""Forgetting what expired: consent requests, codes and tokens (their grants stay, for the record),
and the rate limits' counts that several instances share."""

from __future__ import annotations

import time

from romergo.access.agents.ledger import ExpiryLedger
from romergo.access.ratelimit import RateCountLedger, forget_expired_counts
from romergo.common.clock import utcnow

PURGE_EVERY_SECONDS = 600


class Housekeeping:
    def __init__(self, expiry: ExpiryLedger, rate_counts: RateCountLedger) -> None:
        self.expiry = expiry
        self.rate_counts = rate_counts
        self._next_purge = 0.0

    async def purge_expired(self) -> None:
        await self.expiry.forget_expired(utcnow())
        await forget_expired_counts(self.rate_counts)

    async def purge_if_due(self) -> None:
        """Purge at most every ten minutes, on the back of ordinary traffic (no timer of its own)."""
        if time.monotonic() >= self._next_purge:
            self._next_purge = time.monotonic() + PURGE_EVERY_SECONDS
            await self.purge_expired()
