"""Helpers for story-service tests: a small story, the revision log, and whole-database snapshots."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select as sa_select
from sqlmodel import SQLModel, col, select

from romergo.common.actors import Actor
from romergo.demo.media import Backdrop, Tune, png_backdrop, wav_loop
from romergo.services import Services
from storage import Database
from storage.tables import Revision

TINY_PNG = png_backdrop(Backdrop((0, 0, 0), (9, 9, 9), (1, 1, 1), (0.5, 0.5), (5, 5, 5), 0.1))
TINY_WAV = wav_loop(Tune((0, 4), 220.0, 0.05, "sine"))


@dataclass
class SmallStory:
    project_id: str
    chapter_id: str
    first_scene_id: str
    second_scene_id: str
    hero_id: str


async def small_story(services: Services, actor: Actor, title: str = "Test Story") -> SmallStory:
    project = await services.projects.create_project(actor, title)
    chapter = await services.chapters.add_chapter(actor, project.id, "One")
    first = await services.scenes.add_scene(actor, chapter.id, "Opening")
    second = await services.scenes.add_scene(actor, chapter.id, "Closing")
    hero = await services.characters.add_character(actor, project.id, "Hero")
    return SmallStory(project.id, chapter.id, first.id, second.id, hero.id)


async def revisions(services: Services, project_id: str | None = None) -> list[Revision]:
    async with services.db.read() as session:
        statement = select(Revision).order_by(col(Revision.id))
        if project_id:
            statement = statement.where(Revision.project_id == project_id)
        return list((await session.exec(statement)).all())


async def database_state(services: Services) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table: compare before and after to prove that nothing was written.

    Except the rate limits' counts: a refused attempt is counted by design (in the database when
    several instances share their limits, in memory otherwise), and counting it is not a change."""
    await services.channels.store.settled()  # a read's tool events are not a change: not pending
    return await _rows(services.db, ("rate_counts",))


async def served_state(database_url: str, leaving: tuple[str, ...] = ()) -> dict[str, list[tuple[Any, ...]]]:
    """`database_state` of a running server's database, read from outside it, without the tables
    named in `leaving` (what a call writes about itself, say)."""
    db = Database(database_url)
    try:
        return await _rows(db, ("rate_counts", *leaving))
    finally:
        await db.dispose()


async def _rows(db: Database, leaving: tuple[str, ...]) -> dict[str, list[tuple[Any, ...]]]:
    state: dict[str, list[tuple[Any, ...]]] = {}
    async with db.read() as session:
        for table in SQLModel.metadata.sorted_tables:
            if table.name in leaving:
                continue
            rows = (await session.exec(sa_select(table))).all()
            state[table.name] = sorted(tuple(repr(v) for v in row) for row in rows)
    return state


async def client_of(database_url: str, revision: int) -> str:
    """The agent (client id) a revision of a running server's database records."""
    db = Database(database_url)
    try:
        async with db.read() as session:
            row = (await session.exec(select(Revision).where(col(Revision.id) == revision))).one()
    finally:
        await db.dispose()
    assert row.client_id
    return row.client_id
