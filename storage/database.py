"""The async engine and its two transaction kinds.

`read()` opens an ordinary transaction on SQLite (one snapshot). `write()` opens one that takes
SQLite's write lock up front (`BEGIN IMMEDIATE`), so read-modify-write steps such as sequence
allocation or a claim never fail half way with "database is locked": they wait for the lock (busy
timeout) instead. On PostgreSQL a write is a plain transaction, whose correctness comes from row
locks in the statements, and a read runs its statements in autocommit (see `read`).

SQLite runs on the event loop's own thread (`storage.inline_sqlite`: no hand-off to a driver
thread per statement), so writers in this process take turns on the loop before `BEGIN IMMEDIATE`.
The one exception is `read_in_thread`: a read of a whole project, which would hold the loop for
tenths of a second, runs in a worker thread on a connection of its own. The busy path's short reads
(`read_rows`, `first_row`: the token, the caller's rooms, a scene) and small writes (`write_rows`: a
wait's check, a post) run on the database's driver itself, without SQLAlchemy's machinery around
each statement (`storage.driver`: `sqlite3` on the loop's thread, or asyncpg on a pool of its own).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, Select, Table, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.sql.dml import UpdateBase
from sqlmodel import Session
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.driver import Found, Listener, Rows, Writes
from storage.inline_sqlite import WriteTurns, database_file, inline_url
from storage.postgres_driver import PostgresDriver
from storage.sqlite_driver import SQLiteDriver

BUSY_TIMEOUT_MS = 15_000
_BEGIN_OPTION = "romergo_sqlite_begin"
# PostgreSQL advisory locks held until the transaction ends; the name is hashed to their int key.
_TRY_TURN = text("SELECT pg_try_advisory_xact_lock(hashtext(:name))")
_WAIT_TURN = text("SELECT pg_advisory_xact_lock(hashtext(:name))")
_AUTOCOMMIT: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"}
T = TypeVar("T")


class Database:
    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.data_modifying_ctes = not self.is_sqlite
        """Whether a `WITH … (UPDATE … RETURNING)` can feed another statement (PostgreSQL, not SQLite)."""
        if self.is_sqlite:
            self._ensure_sqlite_dir(url)
            self.engine: AsyncEngine = create_async_engine(
                inline_url(url), connect_args={"timeout": BUSY_TIMEOUT_MS / 1000}, pool_size=8, max_overflow=8
            )
            _install_sqlite_hooks(self.engine.sync_engine)
            self._file: str | None = database_file(url)
            self._threads_engine: Engine | None = _threads_engine(url)
            self.sqlite_driver: SQLiteDriver | None = SQLiteDriver(
                self._file, self.engine.dialect, BUSY_TIMEOUT_MS
            )
        else:
            # No ping before each checkout (a round trip per transaction, on the busy path): when
            # the server restarts, the wake-up listener notices and the pool is dropped
            # (`drop_pooled_connections`); a statement that still meets a dead connection fails
            # once, and SQLAlchemy then invalidates the whole pool.
            self.engine = create_async_engine(url, pool_size=10, max_overflow=10)
            self._file = None
            self._threads_engine = None
            self.sqlite_driver = None
        self.postgres_driver = None if self.is_sqlite else PostgresDriver(url, self.engine.dialect)
        self._writer = self.engine.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})
        # PostgreSQL only: a single statement is a transaction of its own (see `read`).
        self._autocommit = None if self.is_sqlite else self.engine.execution_options(**_AUTOCOMMIT)
        self._reader = self._autocommit or self.engine

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read: on SQLite one snapshot for all its statements (a deferred transaction in WAL).

        On PostgreSQL each statement runs on its own (autocommit). Under READ COMMITTED, the
        default, every statement of a transaction sees its own snapshot anyway, so a BEGIN and a
        COMMIT around a read bought nothing but two round trips (docs/performance.md)."""
        async with AsyncSession(self._reader, expire_on_commit=False) as session, session.begin():
            yield session

    async def read_in_thread(self, work: Callable[[Session], T]) -> T:
        """`work` run as one read (one snapshot on SQLite), off the event loop where it can be.

        For reads of a whole project (the check, the map, the pages: 50,000 lines at 2,000
        scenes), which on the loop's own thread held every other call for ~0.1 s each.
        On SQLite `work` runs in a worker thread, on a connection of a second engine on the same
        file (WAL lets it read beside the loop's writers). The thread shares the interpreter's lock
        with the loop, which still gets its turn every few milliseconds. On PostgreSQL the
        statements await the network anyway: `work` runs on the loop, in an ordinary read."""
        threads_engine = self._threads_engine
        if threads_engine is None:
            async with self.read() as session:
                # `sync_session`: the very session run_sync hands over, as sqlmodel types it.
                return await session.run_sync(lambda _: work(session.sync_session))

        def in_thread() -> T:
            with Session(threads_engine, expire_on_commit=False) as session, session.begin():
                return work(session)

        return await asyncio.to_thread(in_thread)

    def sync_engines(self) -> list[Engine]:
        """Every engine this database runs statements on (the loop's, and `read_in_thread`'s on a
        SQLite file): what instrumentation listens to."""
        own = [self.engine.sync_engine]
        return own if self._threads_engine is None else [*own, self._threads_engine]

    async def read_rows(self, work: Callable[[Rows], T]) -> T:
        """`work` as one short read of Core statements' rows, on the database's driver.

        For the busy path (a scene, the caller's rooms): on a SQLite file the statements run on the
        driver, on the loop's thread, as one snapshot (`storage.sqlite_driver`); on PostgreSQL on
        asyncpg, each on its own as in `read` (`storage.postgres_driver`). `work` is synchronous
        and must stay short."""
        if self.sqlite_driver is not None:
            return self.sqlite_driver.read(work)
        return await self._postgres.read(work)

    async def write_rows(self, work: Callable[[Writes], T]) -> T:
        """`work` as one short write transaction of Core statements, on the database's driver:
        committed when it returns, rolled back when it raises.

        For the busy path's small writes (every agent's wait checks its room with one, a thousand
        idle re-polls included; every post is one): on a SQLite file the statements run on the
        loop's thread in the process's write turn (`storage.sqlite_driver`), on PostgreSQL on
        asyncpg (`storage.postgres_driver`). `work` is synchronous and must stay short."""
        if self.sqlite_driver is not None and self._file is not None:
            async with WriteTurns.for_file(self._file).turn():
                return self.sqlite_driver.write(work)
        return await self._postgres.write(work)

    async def statements_alone(self, work: Callable[[Writes], T]) -> T:
        """`work`'s statements each atomic on its own, on one connection of PostgreSQL's driver: for
        busy work whose every write is a single statement that needs no transaction around it (a
        post, a wait's check: `channels.posting`, `channels.wait_check`). It spares the BEGIN and
        COMMIT round trips a `write_rows` costs there, and the pool hand-off each `first_row`
        would. PostgreSQL only: SQLite's writes take the process's write turn (`write_rows`)."""
        return await self._postgres.each_alone(work)

    async def first_row(
        self, statement: Select[Any], params: Mapping[str, Any] | None = None
    ) -> Found | None:
        """The first row of one Core statement, read without an ORM session or a transaction.

        For the busy path's single reads (the bearer check on every MCP call): one statement is
        its own snapshot, and a session's set-up, begin and commit cost about as much again as
        the statement (docs/performance.md)."""
        if self.sqlite_driver is not None:
            return self.sqlite_driver.first(statement, params)
        return await self._postgres.first(statement, params)

    @property
    def driver_listeners(self) -> list[Listener]:
        """Who is told of every statement run on the driver (the tests' statement counts)."""
        return (self.sqlite_driver or self._postgres).listeners

    @property
    def _postgres(self) -> PostgresDriver:
        """The driver where there is no SQLite file: every `Database` has one of the two."""
        assert self.postgres_driver is not None
        return self.postgres_driver

    async def write_statement(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        """Run one Core write statement (built once) as a transaction of its own, on the database's
        driver; the number of rows it matched.

        For the busy path's single writes (a presence cleared, a shared rate limit counted): each
        cost several times its statement through SQLAlchemy (docs/performance.md). On
        PostgreSQL one statement is atomic by itself: it runs without BEGIN and COMMIT round trips."""
        if self.sqlite_driver is not None:
            return await self.write_rows(lambda rows: rows.run(statement, params))
        return await self._postgres.run_one(statement, params)

    async def write_returning(
        self, statement: UpdateBase, params: Mapping[str, Any] | None = None
    ) -> Found | None:
        """Like `write_statement`, for a statement with `RETURNING`: the first row it returned."""
        if self.sqlite_driver is not None:
            return await self.write_rows(lambda rows: rows.first(statement, params))
        return await self._postgres.first(statement, params)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A transaction that commits when the block ends and rolls back if it raises."""
        if self._file is None:
            async with AsyncSession(self._writer, expire_on_commit=False) as session, session.begin():
                yield session
            return
        async with (
            WriteTurns.for_file(self._file).turn(),
            AsyncSession(self._writer, expire_on_commit=False) as session,
            session.begin(),
        ):
            yield session

    async def take_turn(self, session: AsyncSession, name: str) -> bool:
        """Whether this write transaction is the only one doing `name` right now, across processes.

        For periodic chores that every instance runs (the sweeper): the one that gets the turn does
        the work, the others skip it this round. SQLite's write transaction is exclusive already;
        PostgreSQL takes a transaction-scoped advisory lock, released at commit or rollback.
        """
        if self.is_sqlite:
            return True
        return bool(await session.scalar(_TRY_TURN, {"name": f"romergo:{name}"}))

    async def wait_turn(self, session: AsyncSession, name: str) -> None:
        """Like `take_turn`, but waits for the turn: for a step that must run once, after which the
        others see its result (the first start's account, when instances start together)."""
        if not self.is_sqlite:
            await session.scalar(_WAIT_TURN, {"name": f"romergo:{name}"})

    def upsert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        """An INSERT of this database's dialect, which has `on_conflict_do_nothing/_update`
        (SQLite and PostgreSQL spell them alike): one statement, correct with several writers."""
        return sqlite.insert(table) if self.is_sqlite else postgresql.insert(table)

    async def drop_pooled_connections(self) -> None:
        """Close the idle pooled connections; those in use are closed when they come back."""
        await self.engine.dispose()
        if self.postgres_driver is not None:
            await self.postgres_driver.expire()

    async def dispose(self) -> None:
        await self.engine.dispose()
        if self.sqlite_driver is not None:
            self.sqlite_driver.close()
        if self.postgres_driver is not None:
            await self.postgres_driver.close()
        if self._threads_engine is not None:
            self._threads_engine.dispose()

    @staticmethod
    def _ensure_sqlite_dir(url: str) -> None:
        _, _, path = url.partition(":///")
        if path and path != ":memory:" and not path.startswith("file:"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)


def _threads_engine(url: str) -> Engine:
    """The engine of `read_in_thread` on SQLite: the same database through SQLAlchemy's own pysqlite,
    whose pooled connections may pass from one worker thread to the next (one uses each at a time)."""
    engine = create_engine(
        make_url(url).set(drivername="sqlite+pysqlite"),
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
    )
    _install_sqlite_hooks(engine)
    return engine


def _install_sqlite_hooks(engine: Engine) -> None:
    """SQLAlchemy's documented recipe: let the driver emit no BEGIN, then emit our own."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA synchronous=NORMAL",
            f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
            "PRAGMA foreign_keys=ON",
        ):
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")
