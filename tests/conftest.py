from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from romergo.actors import Actor, user_actor
from romergo.config import Settings
from romergo.entities import User
from romergo.services import Services, open_services


@pytest.fixture
async def services(tmp_path) -> AsyncIterator[Services]:
    """The real services on a real SQLite file, migrated like a server start."""
    built = await open_services(Settings(data_dir=tmp_path))
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
