"""A small sliding-window limiter, per key (a client id, a username, an address).

In-process by design: limits protect this process's resources; a multi-instance deployment keeps
per-instance limits, which is still a bound.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class RateLimiter:
    def __init__(
        self, limit: int, window_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window_seconds
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Counts one attempt for `key`; False when the window is already full."""
        now = self._clock()
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        if len(self._hits) > 10_000:
            self._forget_idle(now)
        return True

    def full(self, key: str) -> bool:
        """Whether the next attempt would be refused, without counting one."""
        now = self._clock()
        hits = self._hits.get(key)
        return hits is not None and len([hit for hit in hits if hit > now - self.window]) >= self.limit

    def retry_after(self, key: str) -> float:
        hits = self._hits.get(key)
        if not hits or len(hits) < self.limit:
            return 0.0
        return max(0.0, hits[0] + self.window - self._clock())

    def _forget_idle(self, now: float) -> None:
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= now - self.window]:
            del self._hits[key]
