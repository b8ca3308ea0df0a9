"""Migrations build exactly the models' schema, and upgrading an old data dir keeps its data."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlmodel import SQLModel

import storage.tables  # noqa: F401 - the models to compare with
from storage.migrate import alembic_config, current_revision, upgrade


def head() -> str:
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None
    return revision


async def test_the_migration_chain_builds_the_schema_of_the_models(empty_database):
    url = empty_database
    await upgrade(url)

    engine = create_async_engine(url)
    async with engine.connect() as connection:
        differences = await connection.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(sync, opts={"compare_type": True}), SQLModel.metadata
            )
        )
    await engine.dispose()
    assert differences == []
    assert await current_revision(url) == head()


async def test_upgrading_a_data_dir_made_by_the_first_migration_keeps_its_data(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await upgrade(url, "0001")
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        await connection.execute(
            text(
                "INSERT INTO users (id, username, password_hash, created_at) "
                "VALUES ('usr_1', 'ada', 'h', '2026-01-01')"
            )
        )
        await connection.execute(
            text(
                "INSERT INTO projects (id, owner_id, title, created_at, updated_at, published) "
                "VALUES ('prj_1', 'usr_1', 'Old story', '2026-01-01', '2026-01-02', 0)"
            )
        )
        await connection.execute(
            text(
                "INSERT INTO chapters (id, project_id, title, position, created_at, updated_at) "
                "VALUES ('chp_1', 'prj_1', 'First', 0, '2026-01-01', '2026-01-01')"
            )
        )
    await engine.dispose()
    assert await current_revision(url) == "0001"

    await upgrade(url)

    assert await current_revision(url) == head()
    engine = create_async_engine(url)
    async with engine.connect() as connection:
        users = (
            await connection.execute(text("SELECT id, username, password_hash, last_sign_in_at FROM users"))
        ).all()
        projects = (await connection.execute(text("SELECT id, owner_id, title FROM projects"))).all()
        chapters = (await connection.execute(text("SELECT id, project_id, title FROM chapters"))).all()
        sessions = (await connection.execute(text("SELECT count(*) FROM web_sessions"))).scalar_one()
    await engine.dispose()
    assert users == [("usr_1", "ada", "h", None)]
    assert projects == [("prj_1", "usr_1", "Old story")]
    assert chapters == [("chp_1", "prj_1", "First")]
    assert sessions == 0


async def test_upgrading_twice_is_harmless(empty_database):
    url = empty_database
    await upgrade(url)
    await upgrade(url)
    assert await current_revision(url) == head()


async def test_a_published_snapshot_moves_to_its_own_table_and_back(empty_database):
    """0011 takes the snapshot out of the project's row; what was published stays so."""
    url = empty_database
    await upgrade(url, "0010")
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        await connection.execute(
            text("INSERT INTO users (id, username, created_at) VALUES ('usr_1', 'ada', '2026-01-01')")
        )
        for project_id, snapshot in (("prj_1", '{"title": "Old story", "chapters": []}'), ("prj_2", None)):
            await connection.execute(
                text(
                    "INSERT INTO projects (id, owner_id, title, created_at, updated_at, published, "
                    "published_snapshot) VALUES (:id, 'usr_1', 'Old story', '2026-01-01', '2026-01-02', "
                    ":published, :snapshot)"
                ),
                {"id": project_id, "published": snapshot is not None, "snapshot": snapshot},
            )

    await upgrade(url)

    async with engine.connect() as connection:
        moved = (await connection.execute(text("SELECT project_id, snapshot FROM published_stories"))).all()
        columns = await connection.run_sync(lambda sync: inspect(sync).get_columns("projects"))
    assert [(project_id, _json(snapshot)) for project_id, snapshot in moved] == [
        ("prj_1", {"title": "Old story", "chapters": []})
    ]
    assert "published_snapshot" not in {column["name"] for column in columns}

    async with engine.begin() as connection:
        await connection.run_sync(_downgrade, "0010")
    async with engine.connect() as connection:
        back = (
            await connection.execute(text("SELECT id, published_snapshot FROM projects ORDER BY id"))
        ).all()
        tables = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
    await engine.dispose()
    assert [(project_id, _json(snapshot)) for project_id, snapshot in back] == [
        ("prj_1", {"title": "Old story", "chapters": []}),
        ("prj_2", None),
    ]
    assert "published_stories" not in tables


async def test_the_oldest_account_of_an_install_becomes_its_administrator(empty_database):
    """0017: an install from before administrators gets one, its oldest account; nobody is
    deactivated."""
    url = empty_database
    await upgrade(url, "0014")
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        for user_id, name, created in (
            ("usr_b", "bea", datetime(2026, 3, 1, tzinfo=UTC)),
            ("usr_a", "ada", datetime(2026, 1, 1, tzinfo=UTC)),
            ("usr_c", "cyd", datetime(2026, 2, 1, tzinfo=UTC)),
        ):
            await connection.execute(
                text("INSERT INTO users (id, username, created_at) VALUES (:id, :name, :created)"),
                {"id": user_id, "name": name, "created": created},
            )

    await upgrade(url, "0017")

    async with engine.connect() as connection:
        standing = (
            await connection.execute(
                text("SELECT username, administrator, deactivated_at FROM users ORDER BY username")
            )
        ).all()
    await engine.dispose()
    assert [(name, bool(administrator), deactivated) for name, administrator, deactivated in standing] == [
        ("ada", True, None),
        ("bea", False, None),
        ("cyd", False, None),
    ]


def _downgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)


def _json(value: object) -> object:
    """A JSON column's value as read by a plain SELECT: text on SQLite, decoded on PostgreSQL."""
    return json.loads(value) if isinstance(value, str) else value


async def test_each_existing_projects_owner_becomes_its_one_member_as_owner(empty_database):
    """0016: the members' table starts with each project's owner, a deleted project's too."""
    url = empty_database
    await upgrade(url, "0014")
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        for user_id, name in (("usr_1", "ada"), ("usr_2", "bo")):
            await connection.execute(
                text("INSERT INTO users (id, username, created_at) VALUES (:id, :name, '2026-01-01')"),
                {"id": user_id, "name": name},
            )
        for values in ("'prj_1', 'usr_1', NULL", "'prj_2', 'usr_2', '2026-02-01'"):
            await connection.execute(
                text(
                    "INSERT INTO projects "
                    "(id, owner_id, deleted_at, title, created_at, updated_at, published) "
                    f"VALUES ({values}, 'Old story', '2026-01-01', '2026-01-02', false)"
                )
            )

    await upgrade(url)

    async with engine.connect() as connection:
        members = (
            await connection.execute(
                text("SELECT project_id, user_id, role, added_by FROM project_members ORDER BY project_id")
            )
        ).all()
    await engine.dispose()
    assert [tuple(row) for row in members] == [
        ("prj_1", "usr_1", "owner", "usr_1"),
        ("prj_2", "usr_2", "owner", "usr_2"),
    ]
