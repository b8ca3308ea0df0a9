"""Chapters: add, rename, reorder, delete (with their scenes), chapter music and background."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore, renumber
from romergo.story.based_on import based_on
from romergo.story.chapter_view import read_chapter_outline
from romergo.story.kinds import Action
from romergo.story.media_rules import MediaSlot, put_in_slot
from romergo.story.trees import delete_scene_rows, scene_tree
from romergo.story.views import ChapterOutline
from storage.tables import Chapter, Scene


@dataclass(frozen=True)
class ChapterService:
    store: StoryStore
    limits: Limits

    async def chapter_outline(self, actor: Actor, chapter_id: str) -> ChapterOutline:
        return await read_chapter_outline(self.store.ledger, actor, chapter_id)

    async def add_chapter(
        self, actor: Actor, project_id: str, title: str, position: int | None = None
    ) -> Chapter:
        clean = validation.title(title, self.limits, "Chapter title")
        position = validation.position(position)
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            siblings = await tx.ordered(Chapter, col(Chapter.project_id), project_id)
            now = utcnow()
            chapter = Chapter(
                id=new_id("chp"),
                project_id=project_id,
                title=clean,
                position=0,
                created_at=now,
                updated_at=now,
            )
            tx.place(siblings, chapter, position)
            tx.record("chapter", chapter.id, "created", None, snapshots.chapter(chapter))
        return chapter

    async def update_chapter(
        self, actor: Actor, chapter_id: str, title: str, *, expected_revision: int | None = None
    ) -> Chapter:
        clean = validation.title(title, self.limits, "Chapter title")
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            mine = {"title": clean}
            for field, value in (
                await based_on(tx, "chapter", chapter.id, before, mine, expected_revision)
            ).items():
                setattr(chapter, field, value)
            _save(tx, chapter, before)
        return chapter

    async def move_chapter(self, actor: Actor, chapter_id: str, position: int) -> Chapter:
        new_position = validation.position(position)
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            siblings = await tx.ordered(Chapter, col(Chapter.project_id), chapter.project_id)
            tx.place(siblings, chapter, new_position)
            _save(tx, chapter, before, "moved")
        return chapter

    async def set_chapter_music(
        self, actor: Actor, chapter_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> Chapter:
        return await self._set_media(actor, chapter_id, "music", asset_id, expected_revision)

    async def set_chapter_background(
        self, actor: Actor, chapter_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> Chapter:
        return await self._set_media(actor, chapter_id, "background", asset_id, expected_revision)

    async def delete_chapter(self, actor: Actor, chapter_id: str) -> None:
        """Deletes the chapter with its scenes, lines and choices; the snapshot keeps all of it.

        Choices elsewhere that led into these scenes stay, pointing nowhere: the story check
        reports them as `dangling_target` so the author decides where they should go.
        """
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            scenes = await tx.ordered(Scene, col(Scene.chapter_id), chapter.id)
            before["scenes"] = [await scene_tree(tx, scene) for scene in scenes]
            for scene in scenes:
                await delete_scene_rows(tx, scene)
            await tx.session.flush()
            await tx.session.delete(chapter)
            await tx.session.flush()
            siblings = await tx.ordered(Chapter, col(Chapter.project_id), chapter.project_id)
            renumber(siblings)
            tx.record("chapter", chapter.id, "deleted", before, None)

    async def _set_media(
        self,
        actor: Actor,
        chapter_id: str,
        slot: MediaSlot,
        asset_id: str | None,
        expected: int | None = None,
    ) -> Chapter:
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            mine = {f"{slot}_asset_id": await tx.asset_id_of_kind(asset_id, (slot,))}
            for value in (await based_on(tx, "chapter", chapter.id, before, mine, expected)).values():
                put_in_slot(chapter, slot, value)
            _save(tx, chapter, before)
        return chapter


def _save(tx: Mutation, chapter: Chapter, before: dict[str, object], action: Action = "updated") -> None:
    tx.save("chapter", chapter, before, snapshots.chapter(chapter), action)
