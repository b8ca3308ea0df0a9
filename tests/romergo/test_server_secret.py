"""The server secret lives in the database: every instance on one database signs alike."""

from __future__ import annotations

import asyncio

from romergo.access.secrets import SECRET_FILE, server_secret
from romergo.services import Services
from storage.access.settings import ServerSettings
from storage.database import Database

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""


async def test_the_first_server_creates_it_and_every_later_one_reads_it(services: Services, tmp_path) -> None:
    first = await server_secret(ServerSettings(services.db), tmp_path / "instance-a")
    assert len(first) >= 32
    assert await server_secret(ServerSettings(services.db), tmp_path / "instance-b") == first


async def test_instances_starting_together_agree(services: Services, tmp_path) -> None:
    engines = [Database(services.db.url) for _ in range(4)]
    try:
        values = await asyncio.gather(
            *(server_secret(ServerSettings(db), tmp_path / f"i{n}") for n, db in enumerate(engines))
        )
    finally:
        for db in engines:
            await db.dispose()
    assert len(set(values)) == 1


async def test_an_earlier_install_keeps_the_secret_of_its_data_directory(
    services: Services, tmp_path
) -> None:
    """Older versions kept the secret in a file; adopting it keeps open tabs and forms valid."""
    (tmp_path / SECRET_FILE).write_text("ab" * 32, encoding="ascii")
    assert await server_secret(ServerSettings(services.db), tmp_path) == "ab" * 32


async def test_a_damaged_secret_file_is_not_adopted(services: Services, tmp_path) -> None:
    (tmp_path / SECRET_FILE).write_text("short", encoding="ascii")
    value = await server_secret(ServerSettings(services.db), tmp_path)
    assert value != "short" and len(value) >= 32
