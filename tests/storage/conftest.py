"""Storage tests that hold for any database take `empty_database`: they run on SQLite and on
PostgreSQL. Those about SQLite itself (its lock, its driver) use a SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.databases import PostgresDatabases


@pytest.fixture(params=["sqlite", "postgresql"])
async def empty_database(request, tmp_path, postgres: PostgresDatabases) -> AsyncIterator[str]:
    """The URL of a database with nothing in it yet."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
        return
    async with postgres.empty() as url:
        yield url
