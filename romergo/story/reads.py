"""Whole-project reads: the loaded project, its outline and the story check (history: history.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import select

from romergo.actors import Actor
from romergo.story import check
from romergo.story.base import StoryStore, UnitOfWork
from romergo.story.views import ChapterOutline, Outline, ProjectData
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Scene


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
