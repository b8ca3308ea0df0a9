from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from romergo.access.accounts.ledger import User
from romergo.common.actors import Actor, user_actor
from romergo.common.config import Settings
from romergo.services import Services, build_services
from storage.migrate import upgrade
from tests.support.clock import MovableClock
from tests.support.databases import PostgresDatabases

pytest_plugins = ["tests.support.file_times", "tests.support.long_files_first"]


@pytest.fixture(scope="session")
async def migrated_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One database migrated to head per test session; each test starts from a copy of it."""
    path = tmp_path_factory.mktemp("template") / "romergo.db"
    await upgrade(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresDatabases]:
    """This session's PostgreSQL databases: the template is made on first use, dropped at the end."""
    databases = PostgresDatabases()
    yield databases
    databases.drop_template_now()


@pytest.fixture
def clock() -> MovableClock:
    """The time the channels decide by: `clock.advance(seconds)` lets a lease or a TTL run out."""
    return MovableClock()


@pytest.fixture
def database(request: pytest.FixtureRequest) -> str:
    """Which database the `services` fixture uses; test packages that run on both parametrize it."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
async def services(
    database: str, migrated_database: Path, postgres: PostgresDatabases, tmp_path: Path, clock: MovableClock
) -> AsyncIterator[Services]:
    """The real services on a real database at the schema a server start produces: a SQLite file,
    or a fresh PostgreSQL database where the test is parametrized with `database="postgresql"`."""
    if database == "postgresql":
        async with postgres.fresh() as url:
            built = build_services(Settings(data_dir=tmp_path, database_url=url), clock)
            try:
                yield built
            finally:
                await built.close()
        return
    shutil.copyfile(migrated_database, tmp_path / "romergo.db")
    built = build_services(Settings(data_dir=tmp_path), clock)
    try:
        yield built
    finally:
        await built.close()


@pytest.fixture
async def author(services: Services) -> User:
    return await services.accounts.create_user("writer")


@pytest.fixture
def actor(author: User) -> Actor:
    return user_actor(author.id, author.username)
