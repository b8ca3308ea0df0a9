"""Duplicate a scene or a whole chapter: a copy the author can change without touching the original.

A copy goes right after its original and brings everything the original owns: media slots, dialogue
lines (same speakers, same conditions) and choices (with their conditions and effects), and the
scene's entry effects. A scene's copy keeps its choices' targets; a chapter's copy
points choices between its own scenes at the copies, so the copied chapter plays by itself. A copy
is never the start scene. Every created row is a revision of its own, so undo takes a copy back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots
from romergo.story.base import Mutation, StoryStore
from romergo.story.ledger import ChapterRecord, LineRecord, SceneRecord

COPY_SUFFIX = " (copy)"

Placed = TypeVar("Placed", SceneRecord, ChapterRecord)
Found = TypeVar("Found")


@dataclass(frozen=True)
class CopyService:
    store: StoryStore
    limits: Limits

    async def duplicate_scene(self, actor: Actor, scene_id: str) -> SceneRecord:
        async with self.store.write(actor) as tx:
            await tx.scene(scene_id)
            original = await _read(tx.story.scene(scene_id))
            siblings = await tx.story.scenes_of(original.chapter_id)
            copy, moved = _placed(
                siblings,
                _scene_copy(original, original.chapter_id, self._copy_title(original.title)),
                original.position + 1,
            )
            for sibling in moved:
                await tx.story.save_scene(sibling)
            await tx.story.add_scene(copy)
            await _copy_contents(tx, original, copy, targets={})
        return copy

    async def duplicate_chapter(self, actor: Actor, chapter_id: str) -> ChapterRecord:
        async with self.store.write(actor) as tx:
            await tx.chapter(chapter_id)
            original = await _read(tx.story.chapter(chapter_id))
            siblings = await tx.story.chapters_of(original.project_id)
            now = utcnow()
            fresh = ChapterRecord(
                id=new_id("chp"),
                project_id=original.project_id,
                title=self._copy_title(original.title),
                position=0,
                music_asset_id=original.music_asset_id,
                background_asset_id=original.background_asset_id,
                created_at=now,
                updated_at=now,
            )
            copy, moved = _placed(siblings, fresh, original.position + 1)
            for sibling in moved:
                await tx.story.save_chapter(sibling)
            await tx.story.add_chapter(copy)
            tx.record("chapter", copy.id, "created", None, snapshots.chapter(copy))
            scenes = await tx.story.scenes_of(original.id)
            copies = [_scene_copy(scene, copy.id, scene.title) for scene in scenes]
            targets = {scene.id: duplicate.id for scene, duplicate in zip(scenes, copies, strict=True)}
            for duplicate in copies:
                await tx.story.add_scene(duplicate)
            for scene, duplicate in zip(scenes, copies, strict=True):
                await _copy_contents(tx, scene, duplicate, targets)
        return copy

    def _copy_title(self, title: str) -> str:
        """`Title (copy)`, shortened so it stays within the title limit."""
        room = self.limits.max_title_chars - len(COPY_SUFFIX)
        return title[:room].rstrip() + COPY_SUFFIX


def _placed(siblings: Sequence[Placed], copy: Placed, position: int) -> tuple[Placed, list[Placed]]:
    """`copy` at `position` among `siblings` (clamped), all numbered 0..n-1 again: the copy with its
    position, and the siblings whose position changed."""
    index = max(0, min(position, len(siblings)))
    moved = []
    for number, sibling in enumerate(siblings):
        wanted = number if number < index else number + 1
        if sibling.position != wanted:
            moved.append(replace(sibling, position=wanted))
    return replace(copy, position=index), moved


def _scene_copy(original: SceneRecord, chapter_id: str, title: str) -> SceneRecord:
    now = utcnow()
    return replace(
        original,
        id=new_id("scn"),
        chapter_id=chapter_id,
        title=title,
        is_start=False,
        created_at=now,
        updated_at=now,
    )


async def _copy_contents(
    tx: Mutation, original: SceneRecord, copy: SceneRecord, targets: dict[str, str]
) -> None:
    """Lines and choices of `original` onto `copy`; choice targets found in `targets` are remapped."""
    choices = [
        replace(
            choice,
            id=new_id("cho"),
            project_id=copy.project_id,
            scene_id=copy.id,
            target_scene_id=targets.get(choice.target_scene_id or "", choice.target_scene_id),
        )
        for choice in await tx.story.choices_of(original.id)
    ]
    for choice in choices:
        await tx.story.add_choice(choice)
    tx.record("scene", copy.id, "created", None, snapshots.scene(copy, choices))
    now = utcnow()
    for line in await tx.story.lines_of(original.id):
        duplicate: LineRecord = replace(
            line,
            id=new_id("lin"),
            project_id=copy.project_id,
            scene_id=copy.id,
            created_at=now,
            updated_at=now,
        )
        await tx.story.add_line(duplicate)
        tx.record("dialogue_line", duplicate.id, "created", None, snapshots.line(duplicate))


async def _read(found: Awaitable[Found | None]) -> Found:
    """A record the unit of work's ownership check read a moment ago."""
    record = await found
    assert record is not None, "read in this transaction a moment ago"
    return record
