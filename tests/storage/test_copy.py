"""`romergo db copy`: a demo install on SQLite copied into an empty PostgreSQL database
keeps every row, and the copy works as an install: new revisions and events get fresh ids."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel

from romergo.common.actors import user_actor
from romergo.common.config import Settings
from romergo.demo.seed import seed_demo
from romergo.services import build_services, open_services
from storage import Database
from storage.copy import CopyRefused, copy_database
from tests.support.databases import PostgresDatabases


@pytest.fixture
async def demo_install(tmp_path: Path) -> str:
    """A SQLite install with the demo, a channel, a command and an edit: rows in most tables."""
    services = await open_services(Settings(data_dir=tmp_path / "sqlite"))
    try:
        author = await services.accounts.create_user("author")
        await seed_demo(services, author.id)
        project = (await services.projects.list_projects(user_actor(author.id, author.username)))[0]
        channel = await services.channels.owner.create_channel(author.id, project.id)
        await services.channels.owner.post_command(author.id, channel.channel_id, "Hello")
        return services.db.url
    finally:
        await services.close()


@pytest.fixture
async def empty_postgres(postgres: PostgresDatabases) -> AsyncIterator[str]:
    async with postgres.empty() as url:
        yield url


async def test_the_demo_install_copies_to_postgresql_and_works_there(demo_install, empty_postgres, tmp_path):
    copied = {table.name: table.rows for table in await copy_database(demo_install, empty_postgres)}
    assert copied["projects"] == 1 and copied["scenes"] > 3 and copied["dialogue_lines"] > 10
    assert copied["revisions"] > 0 and copied["channel_events"] > 0 and copied["asset_blobs"] > 0
    assert copied == await counts(demo_install)

    services = build_services(Settings(data_dir=tmp_path / "pg", database_url=empty_postgres))
    try:
        author = await services.accounts.user_by_name("author")
        assert author is not None
        actor = user_actor(author.id, author.username)
        project = (await services.projects.list_projects(actor))[0]
        outline = await services.reads.outline(actor, project.id)
        first_line = (await services.scenes.scene_view(actor, outline.chapters[0].scenes[0].id)).lines[0]
        # New rows take ids after the copied ones (the sequences moved), in both id-numbered tables.
        await services.lines.update_line(actor, first_line.line.id, "Written on PostgreSQL")
        channel = await services.channels.owner.create_channel(author.id, project.id)
        await services.channels.owner.post_command(author.id, channel.channel_id, "Still works")
    finally:
        await services.close()
    after = await counts(empty_postgres)
    assert after["revisions"] > copied["revisions"] and after["channel_events"] > copied["channel_events"]


async def test_a_target_with_rows_is_refused_and_left_as_it_was(demo_install, empty_postgres):
    await copy_database(demo_install, empty_postgres)
    before = await counts(empty_postgres)
    with pytest.raises(CopyRefused, match="not empty"):
        await copy_database(demo_install, empty_postgres)
    assert await counts(empty_postgres) == before


@pytest.mark.parametrize(
    ("source", "target", "says"),
    [
        ("mysql://root@localhost/romergo", "postgresql://postgres@127.0.0.1/x", "SQLite or PostgreSQL"),
        ("not a url", "postgresql://postgres@127.0.0.1/x", "Not a database URL"),
        ("sqlite:////tmp/same.db", "sqlite+aiosqlite:////tmp/same.db", "same database"),
    ],
)
async def test_bad_urls_are_refused_before_anything_is_touched(source, target, says):
    with pytest.raises(CopyRefused, match=says):
        await copy_database(source, target)


async def counts(url: str) -> dict[str, int]:
    db = Database(url)
    try:
        async with db.read() as session:
            names = [table.name for table in SQLModel.metadata.sorted_tables]
            return {
                name: int((await session.exec(text(f'SELECT count(*) FROM "{name}"'))).scalar_one())
                for name in names
            }
    finally:
        await db.dispose()
