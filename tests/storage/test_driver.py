"""Reads and writes on the database's driver do what SQLAlchemy does.

`Database.read_rows`, `first_row` and `write_rows` run Core statements on the driver itself:
`sqlite3` on a SQLite file, asyncpg on PostgreSQL. Callers must not be able to tell the driver from
SQLAlchemy, so each test compares with SQLAlchemy's own rows for the same statement, on both
databases. Errors are the driver's own (`sqlite3.Error`, `asyncpg.PostgresError`).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from sqlalchemy import bindparam, insert, literal, select, update
from sqlmodel import col

from storage import Database
from storage.core_tables import core_table
from storage.migrate import upgrade
from storage.tables import Asset, AssetBlob, Project, User

CREATED = datetime(2026, 12, 5, 23, 46, 37, 123456, tzinfo=UTC)
PROJECTS = core_table(Project)
ASSETS = core_table(Asset)
MINE = (
    select(PROJECTS)
    .where(PROJECTS.c.owner_id == bindparam("owner_id"), PROJECTS.c.created_at >= bindparam("since"))
    .order_by(PROJECTS.c.id)
)
TAGGED = select(ASSETS.c.id, ASSETS.c.tags, ASSETS.c.deleted_at, literal("asset").label("kind_of_row")).where(
    ASSETS.c.project_id == bindparam("project_id")
)
ONE = select(PROJECTS.c.id, PROJECTS.c.title).order_by(PROJECTS.c.id).limit(1)
RETAG = (
    update(ASSETS)
    .where(ASSETS.c.project_id == bindparam("project"))
    .values(tags=bindparam("tags"), deleted_at=bindparam("gone"))
)
NEW_PROJECT = insert(PROJECTS).values(
    id=bindparam("id"),
    owner_id=bindparam("owner"),
    title="New",
    created_at=bindparam("at"),
    updated_at=bindparam("at"),
    published=False,
)


@pytest.fixture
async def db(empty_database: str) -> AsyncIterator[Database]:
    await upgrade(empty_database)
    database = Database(empty_database)
    async with database.write() as session:
        session.add(User(id="usr_1", username="ada", created_at=CREATED))
        await session.flush()
        for n, published in ((1, True), (2, False)):
            session.add(
                Project(
                    id=f"prj_{n}",
                    owner_id="usr_1",
                    title=f"Story {n}",
                    created_at=CREATED + timedelta(days=n),
                    updated_at=CREATED,
                    published=published,
                )
            )
        session.add(AssetBlob(id="blb_1", data=b"x"))
        await session.flush()
        session.add(
            Asset(
                id="ast_1",
                project_id="prj_1",
                kind="music",
                name="Theme",
                tags=["calm", "night"],
                mime="audio/ogg",
                size=1,
                sha256="0" * 64,
                blob_id="blb_1",
                created_at=CREATED,
            )
        )
    yield database
    await database.dispose()


async def test_rows_come_back_as_sqlalchemy_returns_them(db):
    since = {"owner_id": "usr_1", "since": CREATED + timedelta(days=2)}
    async with db.read() as session:
        expected_projects = [tuple(row) for row in (await session.exec(MINE, params=since)).all()]
        expected_assets = [
            tuple(row) for row in (await session.exec(TAGGED, params={"project_id": "prj_1"})).all()
        ]

    projects, assets = await db.read_rows(
        lambda rows: (rows.all(MINE, since), rows.all(TAGGED, {"project_id": "prj_1"}))
    )

    assert [tuple(row) for row in projects] == expected_projects
    assert [row.id for row in projects] == ["prj_2"]  # the datetime parameter was compared as a datetime
    [project] = projects
    assert project.created_at == CREATED + timedelta(days=2) and project.created_at.tzinfo is not None
    assert project.published is False and project.deleted_at is None
    assert [tuple(row) for row in assets] == expected_assets
    assert assets[0].tags == ["calm", "night"] and assets[0].kind_of_row == "asset"


async def test_first_row_reads_one_row_or_none(db):
    found = await db.first_row(ONE)
    assert (found.id, found.title) == ("prj_1", "Story 1")
    assert await db.first_row(MINE, {"owner_id": "usr_nobody", "since": CREATED}) is None


async def test_a_read_is_one_snapshot(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'snapshot.db'}"
    await upgrade(url)
    db = Database(url)
    other = sqlite3.connect(tmp_path / "snapshot.db", isolation_level=None)
    users = select(core_table(User).c.id).order_by(core_table(User).c.id)

    def read_around_a_write(rows):
        before = rows.all(users)
        other.execute("INSERT INTO users (id, username, created_at) VALUES ('usr_2', 'bo', '2026-01-01')")
        return before, rows.all(users)

    try:
        before, after = await db.read_rows(read_around_a_write)
        assert before == after == []
        assert [row.id for row in await db.read_rows(lambda rows: rows.all(users))] == ["usr_2"]
    finally:
        other.close()
        await db.dispose()


async def test_a_statement_with_an_expanding_list_is_refused(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'refuse.db'}"
    await upgrade(url)
    db = Database(url)
    listed = select(PROJECTS.c.id).where(col(PROJECTS.c.id).in_(bindparam("ids", expanding=True)))
    try:
        with pytest.raises(TypeError, match="expanding"):
            await db.read_rows(lambda rows: rows.all(listed, {"ids": ["prj_1"]}))
        with pytest.raises(KeyError, match="owner_id"):
            await db.read_rows(lambda rows: rows.all(MINE, {"since": CREATED}))
        # A failed read leaves no transaction open behind it.
        assert await db.read_rows(lambda rows: rows.all(ONE)) == []
    finally:
        await db.dispose()


async def test_the_reader_cannot_write(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'readonly.db'}"
    await upgrade(url)
    db = Database(url)
    assert db.sqlite_driver is not None
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await db.read_rows(
                lambda rows: rows._cursor.execute(  # type: ignore[attr-defined]
                    "INSERT INTO users (id, username, created_at) VALUES ('usr_x', 'x', '2026-01-01')"
                )
            )
    finally:
        await db.dispose()


async def test_a_write_stores_what_sqlalchemy_reads_back(db):
    gone = CREATED + timedelta(hours=1)

    def retag_and_add(rows):
        matched = rows.run(RETAG, {"project": "prj_1", "tags": ["day"], "gone": gone})
        rows.run(NEW_PROJECT, {"id": "prj_3", "owner": "usr_1", "at": CREATED})
        return matched, rows.first(ONE)

    matched, first = await db.write_rows(retag_and_add)

    assert matched == 1 and first.id == "prj_1"
    async with db.read() as session:
        asset = await session.get(Asset, "ast_1")
        project = await session.get(Project, "prj_3")
    assert asset is not None and asset.tags == ["day"] and asset.deleted_at == gone
    assert project is not None and project.created_at == CREATED and project.published is False


async def test_a_write_that_fails_changes_nothing(db):
    def retag_then_fail(rows):
        rows.run(RETAG, {"project": "prj_1", "tags": ["lost"], "gone": None})
        rows.run(NEW_PROJECT, {"id": "prj_9", "owner": "usr_nobody", "at": CREATED})  # no such owner

    with pytest.raises((sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)):
        await db.write_rows(retag_then_fail)

    async with db.read() as session:
        asset = await session.get(Asset, "ast_1")
        assert asset is not None and asset.tags == ["calm", "night"]
        assert await session.get(Project, "prj_9") is None
    # Nothing was left open: the next write goes through.
    assert (
        await db.write_rows(lambda rows: rows.run(RETAG, {"project": "prj_1", "tags": [], "gone": None})) == 1
    )


async def test_a_driver_write_waits_for_the_process_write_turn(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'turns.db'}"
    await upgrade(url)
    db = Database(url)
    order: list[str] = []
    holding = asyncio.Event()
    release = asyncio.Event()

    async def session_writer():
        async with db.write() as session:
            session.add(User(id="usr_1", username="ada", created_at=CREATED))
            await session.flush()
            holding.set()
            await release.wait()  # holds SQLite's write lock across a pause of the loop
            order.append("session committed")

    def add_project(rows):
        order.append("driver wrote")
        return rows.run(NEW_PROJECT, {"id": "prj_1", "owner": "usr_1", "at": CREATED})

    try:
        holder = asyncio.create_task(session_writer())
        await holding.wait()
        driver_write = asyncio.create_task(db.write_rows(add_project))
        await asyncio.sleep(0.05)
        assert order == []  # waiting on the loop for its turn, not in SQLite's busy handler
        release.set()
        await holder
        assert await driver_write == 1
        assert order == ["session committed", "driver wrote"]
    finally:
        await db.dispose()
