"""Databases for tests that run on SQLite and on PostgreSQL.

PostgreSQL is the machine's own server (`ROMERGO_TEST_POSTGRES`, by default the local one with trust
auth); `scripts/test` starts or installs it, so a missing server fails the suite instead of
skipping half of it. Each test session migrates one template database, and each test gets a fresh
copy of it (`CREATE DATABASE … TEMPLATE`, a file copy: far quicker than migrating), dropped after it.

A copy takes a tenth of a second, its drop from a third of a second to many seconds when the server
is busy: so a test hands its database to threads that drop it while the next tests run, and the
session waits for every drop at its end.
"""

from __future__ import annotations

import asyncio
import os
import queue
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
        self._dropper = _Dropper()

    @asynccontextmanager
    async def fresh(self) -> AsyncIterator[str]:
        """A new database at the migrated schema; its URL."""
        name = await self._copy_of_template()
        try:
            yield database_url(name)
        finally:
            self._dropper.drop_later(name)

    @contextmanager
    def fresh_now(self) -> Iterator[str]:
        """`fresh` for synchronous fixtures (a module's server process, say)."""
        name = _in_a_thread(self._copy_of_template())
        try:
            yield database_url(name)
        finally:
            self._dropper.drop_later(name)

    async def _copy_of_template(self) -> str:
        if not self.made:
            await _admin(f'CREATE DATABASE "{self.template}"')
            self.made = True
            await upgrade(database_url(self.template))
        name = f"romergo_t_{uuid.uuid4().hex[:12]}"
        await _admin(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        return name

    @asynccontextmanager
    async def empty(self) -> AsyncIterator[str]:
        """A new database with nothing in it (for the migrations' own tests); its URL."""
        name = f"romergo_e_{uuid.uuid4().hex[:12]}"
        await _admin(f'CREATE DATABASE "{name}"')
        try:
            yield database_url(name)
        finally:
            self._dropper.drop_later(name)

    def drop_template_now(self) -> None:
        """At the end of the session, once the tests' databases are dropped: from synchronous code
        (in a thread: a loop may be running here)."""
        self._dropper.finish()
        if self.made:
            _in_a_thread(_drop(self.template))


class _Dropper:
    """Drops the databases handed to it on threads of their own, four at a time: a drop mostly
    waits on the server (seconds when it is busy), and drops side by side wait together."""

    THREADS = 4

    def __init__(self) -> None:
        self._names: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._failures: list[BaseException] = []
        self._threads: list[threading.Thread] = []

    def drop_later(self, name: str) -> None:
        if not self._threads:
            self._threads = [
                threading.Thread(target=self._run, name="database dropper", daemon=True)
                for _ in range(self.THREADS)
            ]
            for thread in self._threads:
                thread.start()
        self._names.put(name)

    def finish(self) -> None:
        """Wait for every drop handed over; a drop that failed fails the session's end."""
        for _ in self._threads:
            self._names.put(None)
        for thread in self._threads:
            thread.join()
        self._threads = []
        if self._failures:
            raise self._failures[0]

    def _run(self) -> None:
        while (name := self._names.get()) is not None:
            try:
                asyncio.run(_drop(name))
            except Exception as error:  # reported by finish(), on the session's thread
                self._failures.append(error)


async def _drop(name: str) -> None:
    await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _admin(statement: str) -> None:
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
