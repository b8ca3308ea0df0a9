"""The busy path's short reads and writes on asyncpg itself (`storage.driver`), on PostgreSQL.

Through SQLAlchemy's async engine a one-statement read cost ~260 µs of the loop's time and a
one-statement write transaction ~460 µs; on a connection of asyncpg's own pool, ~50 and ~130
(docs/performance.md). Every call's bearer check, the guard's rooms, a scene view, a
wait's check and a post run here.

- `work` is synchronous, as on SQLite: it runs in a greenlet (SQLAlchemy's own `greenlet_spawn`),
  and each statement awaits asyncpg from inside it, so the loop runs other work meanwhile.
- A read runs each statement on its own (autocommit), as `Database.read` does on PostgreSQL: under
  READ COMMITTED a transaction's statements each see their own snapshot anyway. A write is one
  transaction, committed when `work` returns and rolled back when it raises; its correctness
  between instances comes from row locks in its statements, as for every write here.
- The pool's connections decode `json` as SQLAlchemy's asyncpg dialect sets them up to, so the
  columns' result conversions are the same. A pool that met a restarted server is emptied with
  `expire()`, as the engine's pool is (`Database.drop_pooled_connections`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import asyncpg
from sqlalchemy import Executable, Select
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.util import await_only, greenlet_spawn

from storage.driver import Compiled, Found, Listener, Rows, Statements, T, Writes
from storage.wakeups import asyncpg_args

POOL_SIZE = 10


class PostgresDriver:
    """One database's driver-level reader and writer (one per `Database`), on a pool of its own."""

    def __init__(self, url: str, dialect: Dialect) -> None:
        self._connect_args = asyncpg_args(url)
        self._statements = Statements(dialect)
        self._pool: asyncpg.Pool | None = None
        self.listeners: list[Listener] = []
        """Told of every statement and transaction (the tests' statement counts, as for the engines)."""

    async def read(self, work: Callable[[Rows], T]) -> T:
        """`work`'s statements, each on its own (autocommit)."""
        return await self._each_on_its_own(work)

    async def first(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None = None
    ) -> Found | None:
        """A SELECT's first row, or the first row a write with `RETURNING` returned, on its own."""
        return await self._each_on_its_own(lambda rows: rows.first(statement, params))

    async def run_one(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        """One INSERT, UPDATE or DELETE on its own (atomic by itself: no BEGIN, no COMMIT)."""
        return await self._each_on_its_own(lambda rows: rows.run(statement, params))

    async def each_alone(self, work: Callable[[Writes], T]) -> T:
        """`work`'s statements, writes included, each atomic on its own (autocommit), on one
        connection: no BEGIN or COMMIT round trips, one connection taken from the pool."""
        return await self._each_on_its_own(work)

    async def write(self, work: Callable[[Writes], T]) -> T:
        """`work` as one transaction: committed when it returns, rolled back when it raises."""
        async with (await self._opened_pool()).acquire() as connection, connection.transaction():
            for listener in self.listeners:
                listener.began()
            return await greenlet_spawn(work, self._rows(connection))

    async def expire(self) -> None:
        """Connections in the pool are replaced before their next use (the server restarted)."""
        if self._pool is not None:
            await self._pool.expire_connections()

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    async def _each_on_its_own(self, work: Callable[[_RecordRows], T]) -> T:
        async with (await self._opened_pool()).acquire() as connection:
            return await greenlet_spawn(work, self._rows(connection))

    def _rows(self, connection: asyncpg.Connection) -> _RecordRows:
        return _RecordRows(connection, self._statements.compiled, self.listeners)

    async def _opened_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            pool = await asyncpg.create_pool(
                **self._connect_args,
                min_size=1,
                max_size=POOL_SIZE,
                init=_decode_json_as_sqlalchemy_does,
                reset=_nothing_to_reset,
            )
            if self._pool is None:  # another task may have opened one meanwhile
                self._pool = pool
            else:
                await pool.close()
        return self._pool


async def _nothing_to_reset(_connection: asyncpg.Connection) -> None:
    """What the pool runs on a connection it takes back, after rolling back a transaction left open.

    asyncpg's default (`UNLISTEN *`, `RESET ALL`, advisory locks released, cursors closed) is a round
    trip on every release, as long as the statement itself: this driver's connections change no
    session state (no LISTEN, no SET, no session-level locks), so there is nothing to reset."""


async def _decode_json_as_sqlalchemy_does(connection: asyncpg.Connection) -> None:
    """The codecs SQLAlchemy's asyncpg dialect gives its connections (`setup_asyncpg_json_codec`):
    `json` parameters arrive serialized by the column's bind conversion, and come back decoded."""
    await connection.set_type_codec(
        "json",
        encoder=str.encode,
        decoder=lambda value: json.loads(value.decode()),
        schema="pg_catalog",
        format="binary",
    )
    await connection.set_type_codec(
        "jsonb",
        encoder=lambda value: b"\x01" + value.encode(),
        decoder=lambda value: json.loads(value[1:].decode()),
        schema="pg_catalog",
        format="binary",
    )


class _RecordRows:
    """Statements on one asyncpg connection, from inside `greenlet_spawn`."""

    def __init__(
        self,
        connection: asyncpg.Connection,
        compile: Callable[[Executable], Compiled],
        listeners: list[Listener],
    ) -> None:
        self._connection = connection
        self._compile = compile
        self._listeners = listeners

    def all(self, statement: Select[Any], params: Mapping[str, Any] | None = None) -> list[Found]:
        compiled = self._compiled(statement)
        return compiled.rows(await_only(self._connection.fetch(compiled.sql, *compiled.parameters(params))))

    def first(
        self, statement: Select[Any] | UpdateBase, params: Mapping[str, Any] | None = None
    ) -> Found | None:
        compiled = self._compiled(statement)
        found = await_only(self._connection.fetchrow(compiled.sql, *compiled.parameters(params)))
        return None if found is None else compiled.rows([found])[0]

    def run(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        compiled = self._compiled(statement)
        status: str = await_only(self._connection.execute(compiled.sql, *compiled.parameters(params)))
        # "UPDATE 3", "DELETE 0", "INSERT 0 1": the count of rows is the last word.
        return int(status.rsplit(" ", 1)[-1])

    def run_many(self, statement: UpdateBase, each: Sequence[Mapping[str, Any]]) -> None:
        compiled = self._compiled(statement)
        await_only(self._connection.executemany(compiled.sql, [compiled.parameters(p) for p in each]))

    def _compiled(self, statement: Executable) -> Compiled:
        compiled = self._compile(statement)
        for listener in self._listeners:
            listener.ran(compiled.sql)
        return compiled
