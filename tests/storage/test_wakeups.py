"""Wake-ups between processes on PostgreSQL: LISTEN/NOTIFY on one connection each.

Two `PostgresWakeups` on one database stand for two server processes: what one sends, the other
delivers (and the sender does not hear itself); a listener whose connection the server kills
reconnects, says so (its bus then wakes everyone to re-read), and hears the next wake-up.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from storage import Database
from storage.wakeups import PostgresWakeups, asyncpg_args
from tests.support.databases import PostgresDatabases


class Heard:
    def __init__(self) -> None:
        self.topics: list[str] = []
        self.reconnects = 0
        self.changed = asyncio.Event()

    def deliver(self, topic: str) -> None:
        self.topics.append(topic)
        self.changed.set()

    async def reconnected(self) -> None:
        self.reconnects += 1
        self.changed.set()

    async def until(self, check, timeout: float = 5) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                self.changed.clear()
                await self.changed.wait()


@pytest.fixture
async def database(postgres: PostgresDatabases) -> AsyncIterator[str]:
    async with postgres.fresh() as url:
        yield url


@pytest.fixture
async def two_processes(database) -> AsyncIterator[tuple[PostgresWakeups, Heard, PostgresWakeups, Heard]]:
    heard_a, heard_b = Heard(), Heard()
    a = PostgresWakeups(database, heard_a.deliver, heard_a.reconnected)
    b = PostgresWakeups(database, heard_b.deliver, heard_b.reconnected)
    await a.start()
    await b.start()
    yield a, heard_a, b, heard_b
    await a.stop()
    await b.stop()


async def test_what_one_process_sends_the_other_delivers_and_the_sender_does_not_hear_itself(two_processes):
    a, heard_a, _b, heard_b = two_processes
    a.send("channel:chn_1")
    a.send("project:prj_1")
    a.send("channel:chn_1")  # repeated in one batch: delivered once
    await heard_b.until(lambda: len(heard_b.topics) >= 2)
    assert heard_b.topics == ["channel:chn_1", "project:prj_1"]
    await asyncio.sleep(0.2)  # give a wrongly echoed notification time to arrive
    assert heard_a.topics == []


async def test_a_killed_listener_reconnects_says_so_and_hears_the_next_wake_up(two_processes, database):
    a, _heard_a, b, heard_b = two_processes
    admin = await asyncpg.connect(**asyncpg_args(database))
    try:
        killed = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid = $1",
            b._connection.get_server_pid(),
        )
    finally:
        await admin.close()
    assert killed == 1
    await heard_b.until(lambda: heard_b.reconnects == 1)
    assert b.connections == 2
    a.send("channel:after")
    await heard_b.until(lambda: "channel:after" in heard_b.topics)


async def test_a_notice_in_a_write_is_heard_when_it_commits_and_never_when_it_rolls_back(
    two_processes, database
):
    a, heard_a, _b, heard_b = two_processes
    db = Database(database)

    def notify_then_fail(rows):
        rows.first(*a.notice("channel:chn_rolled_back"))
        raise RuntimeError("the write fails after its notice")

    try:
        with pytest.raises(RuntimeError):
            await db.write_rows(notify_then_fail)
        await db.write_rows(lambda rows: rows.first(*a.notice("channel:chn_committed")))
        await heard_b.until(lambda: bool(heard_b.topics))
    finally:
        await db.dispose()
    # Notifications arrive in commit order: had the rolled-back one been sent, it would be first.
    assert heard_b.topics == ["channel:chn_committed"]
    assert heard_a.topics == []  # the sender's own process wakes itself (`EventBus.deliver`), not by NOTIFY
