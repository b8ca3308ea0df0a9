"""Databases for tests that run on SQLite and on PostgreSQL.

PostgreSQL is the machine's own server (`ROMERGO_TEST_POSTGRES`, by default the local one with trust
auth); `scripts/test` starts or installs it, so a missing server fails the suite instead of
skipping half of it. Each test session migrates one template database, and each test gets a fresh
copy of it (`CREATE DATABASE … TEMPLATE`, a file copy: far quicker than migrating), dropped at the end.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar

import asyncpg
from sqlalchemy import update
from sqlalchemy.engine import make_url

from storage import Database
from storage.migrate import upgrade
from storage.wakeups import asyncpg_args

# The password is the one scripts/postgres gives a server it installed; one that trusts local
# connections (as the project machines' does) ignores it.
T = TypeVar("T")

DEFAULT_SERVER = "postgresql+asyncpg://postgres:romergo-tests@127.0.0.1:5432/postgres"


def server_url() -> str:
    return os.environ.get("ROMERGO_TEST_POSTGRES", DEFAULT_SERVER)


def database_url(name: str) -> str:
    return make_url(server_url()).set(database=name).render_as_string(hide_password=False)


class PostgresDatabases:
    """Makes and drops this test session's databases on the PostgreSQL server."""

    def __init__(self) -> None:
        self.template = f"romergo_tpl_{uuid.uuid4().hex[:12]}"
        self.made = False

    @asynccontextmanager
    async def fresh(self) -> AsyncIterator[str]:
        """A new database at the migrated schema; its URL."""
        name = await self._copy_of_template()
        try:
            yield database_url(name)
        finally:
            await self._drop(name)

    @contextmanager
    def fresh_now(self) -> Iterator[str]:
        """`fresh` for synchronous fixtures (a module's server process, say)."""
        name = _in_a_thread(self._copy_of_template())
        try:
            yield database_url(name)
        finally:
            _in_a_thread(self._drop(name))

    async def _copy_of_template(self) -> str:
        if not self.made:
            await self._admin(f'CREATE DATABASE "{self.template}"')
            self.made = True
            await upgrade(database_url(self.template))
        name = f"romergo_t_{uuid.uuid4().hex[:12]}"
        await self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        return name

    async def _drop(self, name: str) -> None:
        await self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    @asynccontextmanager
    async def empty(self) -> AsyncIterator[str]:
        """A new database with nothing in it (for the migrations' own tests); its URL."""
        name = f"romergo_e_{uuid.uuid4().hex[:12]}"
        await self._admin(f'CREATE DATABASE "{name}"')
        try:
            yield database_url(name)
        finally:
            await self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def drop_template_now(self) -> None:
        """At the end of the session, from synchronous code (in a thread: a loop may be running here)."""
        if self.made:
            _in_a_thread(self._drop(self.template))

    async def _admin(self, statement: str) -> None:
        connection = await asyncpg.connect(**asyncpg_args(server_url()))
        try:
            await connection.execute(statement)
        finally:
            await connection.close()


def _in_a_thread(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end from synchronous code, which may be inside a running event loop."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(asyncio.run(work))
        except BaseException as error:
            failed.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return done[0]


async def update_rows(url: str, model: Any, where: Any, **values: Any) -> None:
    """Change stored rows behind a running server's back (to move a timestamp into the past, say),
    on whichever database it runs: the columns' own types convert the values."""
    db = Database(url)
    try:
        async with db.write() as session:
            await session.exec(update(model).where(where).values(**values))
    finally:
        await db.dispose()
