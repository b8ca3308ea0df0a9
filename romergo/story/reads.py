"""Whole-project reads: the loaded project, its outline, its history and the story check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from romergo.actors import Actor
from romergo.story import check
from romergo.story.base import StoryStore, UnitOfWork
from romergo.story.views import ChapterOutline, Outline, ProjectData, RevisionView
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Revision, Scene


@dataclass(frozen=True)
class StoryReads:
    store: StoryStore

    async def project_data(self, actor: Actor, project_id: str) -> ProjectData:
        async with self.store.read(actor) as uow:
            return await load_project(uow, project_id)

    async def project_of(self, actor: Actor, entity_type: str, entity_id: str) -> str:
        """The project an entity belongs to, if the actor owns it (else `not_found`)."""
        async with self.store.read(actor) as uow:
            if entity_type == "project":
                await uow.project_by_id(entity_id)
            elif entity_type == "chapter":
                await uow.chapter(entity_id)
            elif entity_type == "scene":
                await uow.scene(entity_id)
            elif entity_type == "dialogue_line":
                await uow.line(entity_id)
            elif entity_type == "character":
                await uow.character(entity_id)
            elif entity_type == "asset":
                await uow.asset(entity_id, include_deleted=True)
            else:
                raise ValueError(f"no project lookup for {entity_type}")
            assert uow.project is not None
            return uow.project.id

    async def outline(self, actor: Actor, project_id: str) -> Outline:
        return outline_of(await self.project_data(actor, project_id))

    async def check_story(self, actor: Actor, project_id: str) -> list[check.Problem]:
        return check.check_story(await self.project_data(actor, project_id))

    async def history(self, actor: Actor, project_id: str, limit: int = 200) -> list[RevisionView]:
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            statement = (
                select(Revision)
                .where(Revision.project_id == project_id)
                .order_by(col(Revision.id).desc())
                .limit(limit)
            )
            rows = (await uow.session.exec(statement)).all()
            return [RevisionView(row, _title_of(row)) for row in rows]


async def load_project(uow: UnitOfWork, project_id: str) -> ProjectData:
    """The whole project in one query per table, for the actor of `uow` (else `not_found`)."""
    project = await uow.project_by_id(project_id)
    session = uow.session

    async def rows(model: Any) -> list[Any]:
        return list((await session.exec(select(model).where(model.project_id == project_id))).all())

    assets = [a for a in await rows(Asset) if a.deleted_at is None]
    return ProjectData(
        project=project,
        chapters=await rows(Chapter),
        scenes=await rows(Scene),
        lines=await rows(DialogueLine),
        choices=await rows(Choice),
        characters=await rows(Character),
        assets=assets,
    )


def outline_of(data: ProjectData) -> Outline:
    chapters = [ChapterOutline(chapter, data.scenes_of(chapter.id)) for chapter in data.chapters_in_order()]
    return Outline(data.project, chapters, sorted(data.characters, key=lambda c: c.name.casefold()))


def _title_of(revision: Revision) -> str:
    snapshot = revision.after or revision.before or {}
    for key in ("title", "name", "label", "text"):
        value = snapshot.get(key)
        if isinstance(value, str):
            return value if len(value) <= 60 else value[:57] + "…"
    return revision.entity_id
