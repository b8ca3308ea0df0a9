"""SQLite on the event loop's own thread: the driver the server's engine uses for a SQLite URL.

aiosqlite runs every connection in a thread of its own and hands each call over to it: a cursor,
the statement, the fetch and the close are four hand-offs, and BEGIN, COMMIT and the pool's reset
three more per transaction. At ~0.09 ms a hand-off that was ~7.5 ms of an agent's ~15 ms tool call
(docs/performance.md), while the statements themselves take microseconds. This dialect is
SQLAlchemy's own pysqlite dialect declared async: the async engine runs it inside its greenlet, so
`await session.exec(...)` runs the statement right here and never waits on another thread.

What that asks of the rest (kept by `storage.database.Database`):
- A statement blocks the loop while it runs. Fine for the short statements of this app; a whole
  story (50,000 lines) reads in tens of milliseconds.
- A write transaction may await something that yields to the loop while it holds SQLite's write
  lock. Another coroutine's `BEGIN IMMEDIATE` would then wait in SQLite's busy handler *on the loop
  thread*, and the holder could never resume. So write transactions on one database file take
  turns on an asyncio lock first (`WriteTurns`); SQLite's lock still decides between processes.
- Another process's write (the CLI while the server runs) can still make a writer here wait in
  the busy handler: for as long as that process holds the lock, which the app's short
  transactions keep to milliseconds.
"""

from __future__ import annotations

import asyncio
import sqlite3
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL, make_url

DRIVER = "romergo_inline"


class InlineSQLiteDialect(SQLiteDialect_pysqlite):
    """pysqlite, accepted by `create_async_engine` because its calls never need to await."""

    driver = DRIVER
    is_async = True
    supports_statement_cache = True

    def connect(self, *cargs: Any, **cparams: Any) -> Any:
        cparams["factory"] = _Connection
        return super().connect(*cargs, **cparams)

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        # The async pool: waiting for a free connection must not block the loop.
        if cls._is_url_file_db(url):
            return pool.AsyncAdaptedQueuePool
        return pool.StaticPool


class _Cursor(sqlite3.Cursor):
    async def _async_soft_close(self) -> None:
        """The async result's hook to let go of a driver thread early; there is none here."""


class _Connection(sqlite3.Connection):
    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)


registry.register(f"sqlite.{DRIVER}", __name__, "InlineSQLiteDialect")


def inline_url(url: str) -> URL:
    """The same SQLite database, through this module's driver (`sqlite+aiosqlite:///x` → inline)."""
    return make_url(url).set(drivername=f"sqlite+{DRIVER}")


class WriteTurns:
    """One write transaction at a time per database file within this process (and event loop).

    Not a correctness device (`BEGIN IMMEDIATE` is, also between processes): it keeps a second
    writer waiting on the loop instead of in SQLite's busy handler on the loop's thread. A write
    opened inside another on the same task would wait for itself, so it fails at once instead.
    """

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[Any] | None = None

    @classmethod
    def for_file(cls, database: str) -> WriteTurns:
        turns = _TURNS.setdefault(asyncio.get_running_loop(), {})
        found = turns.get(database)
        if found is None:
            found = turns[database] = cls()
        return found

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            raise RuntimeError("a write transaction was opened inside another one on the same task")
        async with self._lock:
            self._holder = task
            try:
                yield
            finally:
                self._holder = None


_TURNS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, WriteTurns]] = (
    weakref.WeakKeyDictionary()
)


def database_file(url: str) -> str:
    """The key writers take turns on: the file's path (an in-memory database is its own)."""
    return make_url(url).database or ":memory:"
