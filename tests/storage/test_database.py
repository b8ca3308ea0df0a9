"""Write transactions take SQLite's lock up front, so read-modify-write steps never lose updates.

Two independent Database objects (two connection pools, as two processes would have) race on
the same row; every increment must land and none may fail with "database is locked". That is
SQLite's `BEGIN IMMEDIATE`; on PostgreSQL, writes are plain transactions and the app's
read-modify-write steps are single conditional statements instead
(tests/romergo/test_channels_many_writers.py runs them from two pools on both).
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import text
from sqlmodel import Session

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


async def test_a_read_in_a_thread_sees_one_snapshot_while_the_loop_writes(tmp_path):
    # A whole-project read on a SQLite file runs beside the loop: in a thread of its
    # own, and on one snapshot, so a write that commits between its statements is not half-seen.
    url = f"sqlite+aiosqlite:///{tmp_path / 'snapshot.db'}"
    await upgrade(url)
    db = Database(url)
    loop = asyncio.get_running_loop()
    first_read = threading.Event()
    written = threading.Event()

    def read(session: Session) -> tuple[int, int, int]:
        before = session.exec(text("SELECT count(*) FROM users")).scalar_one()
        first_read.set()
        assert written.wait(10)
        after = session.exec(text("SELECT count(*) FROM users")).scalar_one()
        return threading.get_ident(), before, after

    reading = asyncio.create_task(db.read_in_thread(read))
    assert await loop.run_in_executor(None, first_read.wait, 10)
    async with db.write() as session:
        await session.exec(
            text("INSERT INTO users (id, username, created_at) VALUES ('usr_y', 'y', '2026-01-01')")
        )
    written.set()
    thread, before, after = await reading
    async with db.read() as session:
        now = (await session.exec(text("SELECT count(*) FROM users"))).scalar_one()
    await db.dispose()
    assert thread != threading.get_ident()
    assert (before, after, now) == (0, 0, 1)


async def test_a_read_in_a_thread_passes_its_error_on(empty_database):
    url = empty_database
    await upgrade(url)
    db = Database(url)

    def read(session: Session) -> int:
        session.exec(text("SELECT count(*) FROM users")).scalar_one()
        raise LookupError("not there")

    try:
        with pytest.raises(LookupError, match="not there"):
            await db.read_in_thread(read)
        # The connection went back to its pool in a usable state: the next read works.
        assert await db.read_in_thread(lambda session: session.exec(text("SELECT 1")).scalar_one()) == 1
    finally:
        await db.dispose()
