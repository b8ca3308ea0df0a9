"""Write transactions take SQLite's lock up front, so read-modify-write steps never lose updates.

Two independent Database objects (two connection pools, as two processes would have) race on
the same row; every increment must land and none may fail with "database is locked". That is
SQLite's `BEGIN IMMEDIATE`; on PostgreSQL, writes are plain transactions and the app's
read-modify-write steps are single conditional statements instead
(tests/romergo/test_channels_many_writers.py runs them from two pools on both).
"""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from storage import Database
from storage.migrate import upgrade


async def test_concurrent_read_modify_write_from_two_pools_loses_nothing(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'race.db'}"
    await upgrade(url)
    first, second = Database(url), Database(url)
    async with first.write() as session:
        await session.exec(
            text("INSERT INTO users (id, username, created_at) VALUES ('usr_counter', '0', '2026-01-01')")
        )

    async def bump(db: Database) -> None:
        async with db.write() as session:
            current = (
                await session.exec(text("SELECT username FROM users WHERE id = 'usr_counter'"))
            ).scalar_one()
            await asyncio.sleep(0)  # let the other writer try to interleave here
            await session.exec(
                text("UPDATE users SET username = :value WHERE id = 'usr_counter'").bindparams(
                    value=str(int(current) + 1)
                )
            )

    await asyncio.gather(*(bump(first if n % 2 else second) for n in range(60)))

    async with first.read() as session:
        final = (await session.exec(text("SELECT username FROM users WHERE id = 'usr_counter'"))).scalar_one()
    await first.dispose()
    await second.dispose()
    assert final == "60"


async def test_a_failed_write_rolls_back(empty_database):
    url = empty_database
    await upgrade(url)
    db = Database(url)
    try:
        async with db.write() as session:
            await session.exec(
                text("INSERT INTO users (id, username, created_at) VALUES ('usr_x', 'x', '2026-01-01')")
            )
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    async with db.read() as session:
        count = (await session.exec(text("SELECT count(*) FROM users"))).scalar_one()
    await db.dispose()
    assert count == 0
