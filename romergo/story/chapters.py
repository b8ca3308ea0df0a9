"""Chapters: add, rename, reorder, delete (with their scenes), chapter music and background."""

from __future__ import annotations

from dataclasses import dataclass, replace

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore
from romergo.story.based_on import based_on
from romergo.story.chapter_view import read_chapter_outline
from romergo.story.kinds import Action
from romergo.story.ledger import ChapterRecord
from romergo.story.media_rules import MediaSlot
from romergo.story.positions import moved, placed, renumbered
from romergo.story.trees import delete_scene_rows, scene_tree
from romergo.story.views import ChapterOutline


@dataclass(frozen=True)
class ChapterService:
    store: StoryStore
    limits: Limits

    async def chapter_outline(self, actor: Actor, chapter_id: str) -> ChapterOutline:
        return await read_chapter_outline(self.store.ledger, actor, chapter_id)

    async def add_chapter(
        self, actor: Actor, project_id: str, title: str, position: int | None = None
    ) -> ChapterRecord:
        clean = validation.title(title, self.limits, "Chapter title")
        position = validation.position(position)
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            siblings = await tx.story.chapters_of(project_id)
            now = utcnow()
            new = ChapterRecord(
                id=new_id("chp"),
                project_id=project_id,
                title=clean,
                position=0,
                music_asset_id=None,
                background_asset_id=None,
                created_at=now,
                updated_at=now,
            )
            in_order = placed(siblings, new, position)
            chapter = next(record for record in in_order if record.id == new.id)
            await tx.story.add_chapter(chapter)
            await _save_positions(tx, siblings, [record for record in in_order if record.id != chapter.id])
            tx.record("chapter", chapter.id, "created", None, snapshots.chapter(chapter))
        return chapter

    async def update_chapter(
        self, actor: Actor, chapter_id: str, title: str, *, expected_revision: int | None = None
    ) -> ChapterRecord:
        clean = validation.title(title, self.limits, "Chapter title")
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            mine = await based_on(tx, "chapter", chapter.id, before, {"title": clean}, expected_revision)
            chapter = await _save(tx, chapter, replace(chapter, **mine))
        return chapter

    async def move_chapter(self, actor: Actor, chapter_id: str, position: int) -> ChapterRecord:
        new_position = validation.position(position)
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            siblings = await tx.story.chapters_of(chapter.project_id)
            in_order = placed(siblings, chapter, new_position)
            await _save_positions(tx, siblings, [record for record in in_order if record.id != chapter.id])
            now = next(record for record in in_order if record.id == chapter.id)
            chapter = await _save(tx, chapter, now, "moved")
        return chapter

    async def set_chapter_music(
        self, actor: Actor, chapter_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> ChapterRecord:
        return await self._set_media(actor, chapter_id, "music", asset_id, expected_revision)

    async def set_chapter_background(
        self, actor: Actor, chapter_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> ChapterRecord:
        return await self._set_media(actor, chapter_id, "background", asset_id, expected_revision)

    async def delete_chapter(self, actor: Actor, chapter_id: str) -> None:
        """Deletes the chapter with its scenes, lines and choices; the snapshot keeps all of it.

        Choices elsewhere that led into these scenes stay, pointing nowhere: the story check
        reports them as `dangling_target` so the author decides where they should go.
        """
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            scenes = await tx.story.scenes_of(chapter.id)
            before["scenes"] = [await scene_tree(tx, scene) for scene in scenes]
            for scene in scenes:
                await delete_scene_rows(tx, scene)
            siblings = await tx.story.chapters_of(chapter.project_id)
            await tx.story.remove_chapter(chapter.id)
            rest = [record for record in siblings if record.id != chapter.id]
            await _save_positions(tx, rest, renumbered(rest))
            tx.record("chapter", chapter.id, "deleted", before, None)

    async def _set_media(
        self,
        actor: Actor,
        chapter_id: str,
        slot: MediaSlot,
        asset_id: str | None,
        expected: int | None = None,
    ) -> ChapterRecord:
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            before = snapshots.chapter(chapter)
            mine = {f"{slot}_asset_id": await tx.asset_id_of_kind(asset_id, (slot,))}
            merged = await based_on(tx, "chapter", chapter.id, before, mine, expected)
            chapter = await _save(tx, chapter, replace(chapter, **merged))
        return chapter


async def _save(
    tx: Mutation, chapter: ChapterRecord, changed: ChapterRecord, action: Action = "updated"
) -> ChapterRecord:
    """`changed` written, stamped as changed now, unless it says what `chapter` said (a move too
    is stamped: a chapter's place is part of it)."""
    if not tx.changed("chapter", chapter.id, snapshots.chapter(chapter), snapshots.chapter(changed), action):
        return chapter
    stamped = replace(changed, updated_at=utcnow())
    await tx.story.save_chapter(stamped)
    return stamped


async def _save_positions(tx: Mutation, before: list[ChapterRecord], after: list[ChapterRecord]) -> None:
    """The chapters whose place changed take their new one (a renumbering is no change of theirs)."""
    for record in moved(before, after):
        await tx.story.save_chapter(record)
