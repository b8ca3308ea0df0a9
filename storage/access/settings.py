"""The values every instance on one database shares (`server_settings`): the server secret."""

from __future__ import annotations

from sqlalchemy import select

from storage.core_tables import SERVER_SETTINGS
from storage.database import Database


class ServerSettings:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def keep_first(self, name: str, proposal: str) -> str:
        """The value stored under `name`, which is `proposal` if none was stored yet.

        One conditional INSERT, so instances proposing at once agree on the first one written."""
        async with self.db.write() as session:
            await session.exec(
                self.db.upsert(SERVER_SETTINGS).values(name=name, value=proposal).on_conflict_do_nothing()
            )
        async with self.db.read() as session:
            value = await session.scalar(
                select(SERVER_SETTINGS.c.value).where(SERVER_SETTINGS.c.name == name)
            )
        assert isinstance(value, str)
        return value
