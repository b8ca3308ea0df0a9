"""`romergo db copy`: move an install from one database to another (SQLite → PostgreSQL).

Both sides are migrated to head first, so they have one schema. The target must be empty: a copy
never merges. Tables go in foreign-key order, in batches, inside one transaction on the target, so
a failed copy leaves the target as empty as it was. Afterwards every table's row count is compared
on both sides, and PostgreSQL's id sequences are moved past the copied ids (else the next revision
or event would collide with a copied one).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Integer, Table, func, insert, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine
from sqlmodel import SQLModel

import storage.tables  # noqa: F401 - the schema's tables
from storage.migrate import upgrade

BATCH_ROWS = 1000
ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}


class CopyRefused(Exception):
    """The copy cannot start or did not verify; the message says why, the target is unchanged."""


@dataclass(frozen=True)
class CopiedTable:
    name: str
    rows: int


async def copy_database(source: str, target: str) -> list[CopiedTable]:
    """Copy every table of the schema from `source` to the empty `target`; the counts, verified."""
    source, target = async_url(source), async_url(target)
    if make_url(source) == make_url(target):
        raise CopyRefused("The source and the target are the same database.")
    await upgrade(source)
    await upgrade(target)
    tables = SQLModel.metadata.sorted_tables
    reading = create_async_engine(source)
    writing = create_async_engine(target)
    try:
        async with reading.connect() as inbound, writing.begin() as outbound:
            await _refuse_unless_empty(outbound, tables)
            for table in tables:
                await _copy_table(inbound, outbound, table)
            if outbound.dialect.name == "postgresql":
                await _move_sequences(outbound, tables)
        async with reading.connect() as inbound, writing.connect() as outbound:
            return await _verified_counts(inbound, outbound, tables)
    finally:
        await reading.dispose()
        await writing.dispose()


def async_url(url: str) -> str:
    """The URL with its asyncio driver: `sqlite:///x` → `sqlite+aiosqlite:///x`, and so on."""
    try:
        parsed = make_url(url)
    except Exception as error:
        raise CopyRefused(f"Not a database URL: {url!r}.") from error
    backend = parsed.get_backend_name()
    if backend not in ASYNC_DRIVERS:
        raise CopyRefused(f"Romergo runs on SQLite or PostgreSQL, not {backend!r}.")
    if parsed.drivername == backend:
        parsed = parsed.set(drivername=ASYNC_DRIVERS[backend])
    return parsed.render_as_string(hide_password=False)


async def _refuse_unless_empty(outbound: AsyncConnection, tables: list[Table]) -> None:
    for table in tables:
        if (await outbound.execute(select(func.count()).select_from(table))).scalar_one():
            raise CopyRefused(
                f'The target is not empty (table "{table.name}" has rows): a copy never merges.'
            )


async def _copy_table(inbound: AsyncConnection, outbound: AsyncConnection, table: Table) -> None:
    rows = await inbound.stream(select(table))
    async for batch in rows.partitions(BATCH_ROWS):
        await outbound.execute(insert(table), [dict(row._mapping) for row in batch])


async def _move_sequences(outbound: AsyncConnection, tables: list[Table]) -> None:
    for table in tables:
        for column in table.primary_key.columns:
            if isinstance(column.type, Integer) and column.autoincrement in (True, "auto"):
                await outbound.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "  # noqa: S608 - schema names
                        f"COALESCE(MAX({column.name}), 1), MAX({column.name}) IS NOT NULL) FROM {table.name}"
                    )
                )


async def _verified_counts(
    inbound: AsyncConnection, outbound: AsyncConnection, tables: list[Table]
) -> list[CopiedTable]:
    copied = []
    for table in tables:
        count = select(func.count()).select_from(table)
        there, here = (
            (await inbound.execute(count)).scalar_one(),
            (await outbound.execute(count)).scalar_one(),
        )
        if there != here:
            raise CopyRefused(f'Table "{table.name}": {there} rows in the source, {here} in the target.')
        copied.append(CopiedTable(table.name, int(here)))
    return copied
