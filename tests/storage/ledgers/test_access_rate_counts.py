"""Rate counts shared by instances: an attempt is counted only while its window has room, the
previous window weighing as much as the core says, and expired counts are forgotten."""

from __future__ import annotations

import asyncio

from romergo.services import Services
from storage.access.rate_counts import RateCounts
from storage.database import Database

PERIOD = 1000


async def count(
    counts: RateCounts, key: str, *, weight: float = 0.0, limit: int = 3, period: int = PERIOD
) -> bool:
    return await counts.count_if_room(key, period, carried_weight=weight, expires_at=period + 10, limit=limit)


async def test_attempts_are_counted_until_the_limit(services: Services) -> None:
    counts = RateCounts(services.db)
    assert [await count(counts, "signin:alice") for _ in range(4)] == [True, True, True, False]
    assert await counts.counts("signin:alice", PERIOD) == (0, 3)
    assert await counts.counts("signin:bob", PERIOD) == (0, 0)


async def test_the_previous_window_weighs_by_its_carried_share(services: Services) -> None:
    counts = RateCounts(services.db)
    for _ in range(4):
        assert await count(counts, "k", limit=4, period=PERIOD - 1)
    # Half of the previous window's four still count: two attempts fit under four, not three.
    results = [await count(counts, "k", weight=0.5, limit=4) for _ in range(3)]
    assert results == [True, True, False]
    assert await counts.counts("k", PERIOD) == (4, 2)


async def test_a_full_previous_window_refuses_even_the_first_attempt(services: Services) -> None:
    counts = RateCounts(services.db)
    for _ in range(2):
        await count(counts, "k", limit=2, period=PERIOD - 1)
    assert not await count(counts, "k", weight=1.0, limit=2)
    assert await counts.counts("k", PERIOD) == (2, 0)


async def test_counters_racing_for_the_last_attempts_never_overshoot(services: Services) -> None:
    engines = [Database(services.db.url) for _ in range(3)]
    try:
        counters = [RateCounts(db) for db in engines]
        allowed = await asyncio.gather(*(count(counters[i % 3], "race", limit=5) for i in range(15)))
    finally:
        for db in engines:
            await db.dispose()
    assert allowed.count(True) == 5


async def test_only_expired_counts_are_forgotten(services: Services) -> None:
    counts = RateCounts(services.db)
    await counts.count_if_room("old", 1, carried_weight=0, expires_at=50, limit=1)
    await counts.count_if_room("new", 2, carried_weight=0, expires_at=150, limit=1)
    assert await counts.forget_expired(50) == 0  # expires at 50: still read at 50
    assert await counts.forget_expired(100) == 1
    assert await counts.counts("old", 1) == (0, 0)
    assert await counts.counts("new", 2) == (0, 1)
