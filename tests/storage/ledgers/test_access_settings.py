"""The server's shared settings: the first value kept under a name stays."""

from __future__ import annotations

import asyncio

from romergo.services import Services
from storage.access.settings import ServerSettings
from storage.database import Database


async def test_the_first_value_kept_stays(services: Services) -> None:
    settings = ServerSettings(services.db)
    assert await settings.keep_first("server_secret", "a" * 40) == "a" * 40
    assert await settings.keep_first("server_secret", "b" * 40) == "a" * 40


async def test_names_keep_values_of_their_own(services: Services) -> None:
    settings = ServerSettings(services.db)
    await settings.keep_first("one", "first")
    assert await settings.keep_first("two", "second") == "second"


async def test_of_proposals_made_at_once_exactly_one_wins(services: Services) -> None:
    engines = [Database(services.db.url) for _ in range(4)]
    try:
        kept = await asyncio.gather(
            *(ServerSettings(db).keep_first("server_secret", f"proposal-{n}") for n, db in enumerate(engines))
        )
    finally:
        for db in engines:
            await db.dispose()
    assert len(set(kept)) == 1 and kept[0].startswith("proposal-")
