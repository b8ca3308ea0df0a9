"""Schema migrations (Alembic), run at every start-up before anything else touches the database.

Migration scripts are written by hand in portable operations (SQLite and PostgreSQL); a test
checks that the chain builds exactly the schema of `storage.tables`.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from storage.database import Database

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


async def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at `url` to `revision`; creates the SQLite file if needed."""
    Database._ensure_sqlite_dir(url)
    # A plain engine, without the app's hooks: SQLite table rebuilds need foreign keys off.
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run_upgrade, revision)
    finally:
        await engine.dispose()


async def current_revision(url: str) -> str | None:
    from alembic.runtime.migration import MigrationContext

    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(lambda c: MigrationContext.configure(c).get_current_revision())
    finally:
        await engine.dispose()


def _run_upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def known_revisions() -> set[str]:
    """Every schema revision this Romergo's migrations know (a database at another one was made
    by a newer Romergo, and cannot be run by this one)."""
    from alembic.script import ScriptDirectory

    return {script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
