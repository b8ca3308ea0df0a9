from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from romergo.actors import Actor, user_actor
from romergo.config import Settings
from romergo.entities import User
from romergo.services import Services, build_services
from storage.migrate import upgrade
from tests.support.clock import MovableClock


@pytest.fixture(scope="session")
async def migrated_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One database migrated to head per test session; each test starts from a copy of it."""
    path = tmp_path_factory.mktemp("template") / "romergo.db"
    await upgrade(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture
def clock() -> MovableClock:
    """The time the channels decide by: `clock.advance(seconds)` lets a lease or a TTL run out."""
    return MovableClock()


@pytest.fixture
async def services(tmp_path: Path, migrated_database: Path, clock: MovableClock) -> AsyncIterator[Services]:
    """The real services on a real SQLite file, at the schema a server start produces."""
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
