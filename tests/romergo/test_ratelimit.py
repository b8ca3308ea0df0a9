"""Rate limits: the in-process kind one instance uses, and the kind several instances share through
the database (counted with a conditional upsert, so instances racing for the last attempt never
overshoot). Each behaviour is shown on both kinds; the shared kind runs on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from romergo.access.ratelimit import (
    LocalRateLimit,
    RateLimit,
    SharedRateLimit,
    forget_expired_counts,
    rate_limit,
)
from romergo.common.config import Settings
from romergo.services import Services
from storage.access.rate_counts import RateCounts
from storage.database import Database

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""

WINDOW = 60.0


class Now:
    """Wall time the test moves; starts at the beginning of a window, as if on a minute's boundary."""

    def __init__(self) -> None:
        self.value = 1_800_000_000.0 - (1_800_000_000.0 % WINDOW)

    def __call__(self) -> float:
        return self.value


@pytest.fixture(params=["local", "shared"])
def make_limit(request: pytest.FixtureRequest, services: Services) -> Callable[[int, Now], RateLimit]:
    def make(limit: int, now: Now) -> RateLimit:
        if request.param == "local":
            return LocalRateLimit(limit=limit, window_seconds=WINDOW, clock=now)
        return SharedRateLimit(RateCounts(services.db), "test", limit=limit, window_seconds=WINDOW, clock=now)

    return make


async def test_a_full_window_refuses_and_counts_nothing_more(make_limit) -> None:
    now = Now()
    limit = make_limit(3, now)
    assert [await limit.allow("alice") for _ in range(3)] == [True, True, True]
    assert await limit.full("alice")
    assert not await limit.allow("alice")
    assert await limit.retry_after("alice") > 0
    # Another key has a window of its own.
    assert await limit.allow("bob")
    assert not await limit.full("bob")
    assert await limit.retry_after("bob") == 0


async def test_the_window_slides(make_limit) -> None:
    now = Now()
    limit = make_limit(4, now)
    for _ in range(4):
        assert await limit.allow("alice")
    now.value += WINDOW / 2
    assert not await limit.allow("alice")  # all four still lie within the last minute
    # Ninety seconds on: the four have left the last minute. (The shared kind, which estimates
    # them as spread over their window, counts half of them here: it errs on the strict side.)
    now.value += WINDOW
    assert await limit.allow("alice")
    now.value += 2 * WINDOW
    assert [await limit.allow("alice") for _ in range(5)] == [True, True, True, True, False]


async def test_refused_attempts_do_not_extend_the_block(make_limit) -> None:
    """A caller that keeps hammering a full limit is let in again once its window has passed."""
    now = Now()
    limit = make_limit(2, now)
    assert await limit.allow("alice") and await limit.allow("alice")
    for _ in range(30):
        now.value += 3
        await limit.allow("alice")  # refused, and not counted
    now.value += WINDOW
    assert await limit.allow("alice")


async def test_instances_racing_for_the_last_attempts_never_overshoot(services: Services) -> None:
    """Three instances (three engines on one database) count 30 attempts at once against 10."""
    now = Now()
    engines = [Database(services.db.url) for _ in range(3)]
    try:
        limits = [
            SharedRateLimit(RateCounts(db), "race", limit=10, window_seconds=WINDOW, clock=now)
            for db in engines
        ]
        allowed = await asyncio.gather(*(limits[i % 3].allow("agent") for i in range(30)))
        assert allowed.count(True) == 10
        assert all(await asyncio.gather(*(limit.full("agent") for limit in limits)))
    finally:
        for db in engines:
            await db.dispose()


async def test_counts_no_limiter_reads_are_forgotten(services: Services) -> None:
    now = Now()
    counts = RateCounts(services.db)
    limit = SharedRateLimit(counts, "old", limit=5, window_seconds=WINDOW, clock=now)
    await limit.allow("alice")
    assert await forget_expired_counts(counts, now=now.value + WINDOW) == 0  # still read
    assert await forget_expired_counts(counts, now=now.value + 3 * WINDOW) == 1
    assert await limit.allow("alice")


def test_several_instances_share_their_limits_one_keeps_them_in_process(tmp_path) -> None:
    one = Settings(data_dir=tmp_path)
    many = Settings(data_dir=tmp_path, database_url="postgresql+asyncpg://db/romergo")
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}")
    assert isinstance(rate_limit(one, db, "x", limit=1, window_seconds=1), LocalRateLimit)
    assert isinstance(rate_limit(many, db, "x", limit=1, window_seconds=1), SharedRateLimit)
    pinned = Settings(data_dir=tmp_path, database_url="postgresql+asyncpg://db/romergo", instances="one")
    assert isinstance(rate_limit(pinned, db, "x", limit=1, window_seconds=1), LocalRateLimit)
