"""SQLite runs on the event loop's thread, and writers in one process take turns on the loop.

These are the promises `storage.inline_sqlite` makes to the rest of the app; the race between two
pools on one file is in test_database.py.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import event, text

from storage import Database
from storage.migrate import upgrade


@pytest.fixture
async def db(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'inline.db'}"
    await upgrade(url)
    database = Database(url)
    yield database
    await database.dispose()


async def test_statements_run_on_the_loops_own_thread(db):
    # SQLite calls this function from whichever thread runs the statement.
    event.listen(
        db.engine.sync_engine,
        "connect",
        lambda connection, _record: connection.create_function("runner", 0, threading.get_ident),
    )
    async with db.read() as session:
        in_read = (await session.exec(text("SELECT runner()"))).scalar_one()
    async with db.write() as session:
        in_write = (await session.exec(text("SELECT runner()"))).scalar_one()
    assert in_read == in_write == threading.get_ident()


async def test_a_writer_that_yields_keeps_the_next_writer_waiting_on_the_loop_not_in_sqlite(db):
    order: list[str] = []
    first_holds = asyncio.Event()
    let_go = asyncio.Event()

    async def first() -> None:
        async with db.write() as session:
            await session.exec(
                text("INSERT INTO users (id, username, created_at) VALUES ('usr_1', '1', '2026-01-01')")
            )
            first_holds.set()
            await let_go.wait()  # yields to the loop while holding SQLite's write lock
            order.append("first commits")

    async def second() -> None:
        await first_holds.wait()
        async with db.write() as session:
            order.append("second writes")
            await session.exec(
                text("INSERT INTO users (id, username, created_at) VALUES ('usr_2', '2', '2026-01-01')")
            )

    async def reader() -> int:
        await first_holds.wait()
        async with db.read() as session:  # a reader never waits for the writer
            count = (await session.exec(text("SELECT count(*) FROM users"))).scalar_one()
        let_go.set()
        return int(count)

    results = await asyncio.wait_for(asyncio.gather(first(), second(), reader()), timeout=5)
    assert results[2] == 0
    assert order == ["first commits", "second writes"]
    async with db.read() as session:
        assert (await session.exec(text("SELECT count(*) FROM users"))).scalar_one() == 2


async def test_a_write_opened_inside_another_on_the_same_task_fails_at_once(db):
    async def nested() -> None:
        async with db.write(), db.write():
            pass

    with pytest.raises(RuntimeError, match="inside another"):
        await asyncio.wait_for(nested(), timeout=2)
    async with db.write() as session:  # the turn was given back
        await session.exec(text("SELECT 1"))
