"""Rate limits per key (a client id, a username, an address) over a sliding window.

Two kinds behind one interface (`RateLimit`):
- `LocalRateLimit`: counters in this process. One instance (SQLite) needs nothing more, and
  checking one costs no database statement on the tool-call path.
- `SharedRateLimit`: counts in the database (`rate_counts`), for several instances on one
  PostgreSQL (`Settings.many_instances`), so a client that spreads its calls over the instances
  behind a proxy gets no more than one limit. It estimates the sliding window from two fixed
  windows (the previous one weighted by how much of it still overlaps the last `window` seconds)
  and counts an attempt with one conditional upsert, so concurrent instances never overshoot.

Only allowed attempts are counted, by both kinds: a caller that keeps hammering a full limit is let
in again as the window slides, not locked out for as long as it keeps trying.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from romergo.common.config import Settings
from storage.access.rate_counts import RateCounts
from storage.database import Database


class RateLimit(Protocol):
    async def allow(self, key: str) -> bool:
        """Counts one attempt for `key`; False (and nothing counted) when the window is full."""
        ...

    async def full(self, key: str) -> bool:
        """Whether the next attempt would be refused, without counting one."""
        ...

    async def retry_after(self, key: str) -> float:
        """Seconds until the next attempt would be allowed (0 when it would be now)."""
        ...


class RateCountLedger(Protocol):
    """Attempts counted per key and fixed window in the database (`storage.access.rate_counts`)."""

    async def count_if_room(
        self, key: str, period: int, *, carried_weight: float, expires_at: int, limit: int
    ) -> bool:
        """Counts one attempt in window `period` if its count plus `carried_weight` times the
        previous window's stays within `limit`, atomically across instances; False if it would not."""
        ...

    async def counts(self, key: str, period: int) -> tuple[int, int]:
        """The previous window's and window `period`'s counts for `key`."""
        ...

    async def forget_expired(self, moment: int) -> int:
        """Deletes the counts that expired before `moment`; how many."""
        ...


def rate_limit(
    settings: Settings, db: Database, name: str, *, limit: int, window_seconds: float
) -> RateLimit:
    """The limit `name` (`signin`, `tool_calls`, ...): shared across instances when there are several."""
    if settings.many_instances:
        return SharedRateLimit(RateCounts(db), name, limit=limit, window_seconds=window_seconds)
    return LocalRateLimit(limit=limit, window_seconds=window_seconds)


async def forget_expired_counts(counts: RateCountLedger, now: float | None = None) -> int:
    """Deletes the shared counts no limiter reads any more (`Housekeeping.purge_expired` calls it)."""
    return await counts.forget_expired(int(time.time() if now is None else now))


class LocalRateLimit:
    def __init__(
        self, limit: int, window_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window_seconds
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}

    async def allow(self, key: str) -> bool:
        now = self._clock()
        hits = self._recent(key, now)
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        if len(self._hits) > 10_000:
            self._forget_idle(now)
        return True

    async def full(self, key: str) -> bool:
        return len(self._recent(key, self._clock())) >= self.limit

    async def retry_after(self, key: str) -> float:
        now = self._clock()
        hits = self._recent(key, now)
        if len(hits) < self.limit:
            return 0.0
        return max(0.0, hits[0] + self.window - now)

    def _recent(self, key: str, now: float) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def _forget_idle(self, now: float) -> None:
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= now - self.window]:
            del self._hits[key]


class SharedRateLimit:
    def __init__(
        self,
        counts: RateCountLedger,
        name: str,
        *,
        limit: int,
        window_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.counts = counts
        self.name = name
        self.limit = limit
        self.window = window_seconds
        # Wall time, not a monotonic clock: every instance must agree on which window is which.
        self._clock = clock

    async def allow(self, key: str) -> bool:
        number, elapsed = divmod(self._clock(), self.window)
        window = int(number)
        return await self.counts.count_if_room(
            self._key(key),
            window,
            carried_weight=1 - elapsed / self.window,
            expires_at=self._expiry(window),
            limit=self.limit,
        )

    async def full(self, key: str) -> bool:
        return await self.retry_after(key) > 0

    async def retry_after(self, key: str) -> float:
        now = self._clock()
        number, elapsed = divmod(now, self.window)
        previous, current = await self.counts.counts(self._key(key), int(number))
        if current + 1 + self._carried(previous, elapsed) <= self.limit:
            return 0.0
        if current + 1 > self.limit or previous == 0:
            # Only the next window helps; its own estimate starts from this one's count.
            return self.window - elapsed
        # The previous window's weight falls as this one goes on: when does it leave room for one?
        fraction = 1 - (self.limit - current - 1) / previous
        return max(0.0, math.ceil(fraction * self.window - elapsed))

    def _carried(self, previous: int, elapsed: float) -> float:
        """How much of the previous window still lies within the last `window` seconds."""
        return previous * (1 - elapsed / self.window)

    def _key(self, key: str) -> str:
        return f"{self.name}:{key}"

    def _expiry(self, number: int) -> int:
        """After the window that follows this one, nobody reads it."""
        return int((number + 2) * self.window) + 1
