"""Duplicate a scene or a whole chapter: a copy the author can change without touching the original.

A copy goes right after its original and brings everything the original owns: media slots, dialogue
lines (same speakers, same conditions) and choices (with their conditions and effects), and the
scene's entry effects. A scene's copy keeps its choices' targets; a chapter's copy
points choices between its own scenes at the copies, so the copied chapter plays by itself. A copy
is never the start scene. Every created row is a revision of its own, so undo takes a copy back.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots
from romergo.story.base import Mutation, StoryStore
from romergo.story.ledger import SceneRecord
from storage.tables import Chapter, Choice, DialogueLine, Scene

COPY_SUFFIX = " (copy)"


@dataclass(frozen=True)
class CopyService:
    store: StoryStore
    limits: Limits

    async def duplicate_scene(self, actor: Actor, scene_id: str) -> Scene:
        async with self.store.write(actor) as tx:
            original = await tx.scene(scene_id)
            siblings = await tx.ordered(Scene, col(Scene.chapter_id), original.chapter_id)
            copy = _scene_copy(original, original.chapter_id, self._copy_title(original.title))
            tx.place(siblings, copy, original.position + 1)
            await _copy_contents(tx, original, copy, targets={})
        return copy

    async def duplicate_chapter(self, actor: Actor, chapter_id: str) -> Chapter:
        async with self.store.write(actor) as tx:
            original = await tx.chapter(chapter_id)
            siblings = await tx.ordered(Chapter, col(Chapter.project_id), original.project_id)
            now = utcnow()
            copy = Chapter(
                id=new_id("chp"),
                project_id=original.project_id,
                title=self._copy_title(original.title),
                position=0,
                music_asset_id=original.music_asset_id,
                background_asset_id=original.background_asset_id,
                created_at=now,
                updated_at=now,
            )
            tx.place(siblings, copy, original.position + 1)
            tx.record("chapter", copy.id, "created", None, snapshots.chapter(copy))
            scenes = await tx.ordered(Scene, col(Scene.chapter_id), original.id)
            copies = [_scene_copy(scene, copy.id, scene.title) for scene in scenes]
            targets = {scene.id: duplicate.id for scene, duplicate in zip(scenes, copies, strict=True)}
            for scene, duplicate in zip(scenes, copies, strict=True):
                duplicate.position = scene.position
                tx.session.add(duplicate)
                await _copy_contents(tx, scene, duplicate, targets)
        return copy

    def _copy_title(self, title: str) -> str:
        """`Title (copy)`, shortened so it stays within the title limit."""
        room = self.limits.max_title_chars - len(COPY_SUFFIX)
        return title[:room].rstrip() + COPY_SUFFIX


def _scene_copy(original: Scene | SceneRecord, chapter_id: str, title: str) -> Scene:
    now = utcnow()
    return Scene(
        id=new_id("scn"),
        project_id=original.project_id,
        chapter_id=chapter_id,
        title=title,
        position=original.position,
        is_start=False,
        is_ending=original.is_ending,
        background_asset_id=original.background_asset_id,
        music_asset_id=original.music_asset_id,
        entry_effects=original.entry_effects,
        created_at=now,
        updated_at=now,
    )


async def _copy_contents(
    tx: Mutation, original: Scene | SceneRecord, copy: Scene, targets: dict[str, str]
) -> None:
    """Lines and choices of `original` onto `copy`; choice targets found in `targets` are remapped."""
    choices = [
        Choice(
            id=new_id("cho"),
            project_id=copy.project_id,
            scene_id=copy.id,
            position=choice.position,
            label=choice.label,
            target_scene_id=targets.get(choice.target_scene_id or "", choice.target_scene_id),
            condition=choice.condition,
            effects=choice.effects,
        )
        for choice in await tx.choices_of(original.id)
    ]
    tx.session.add_all(choices)
    tx.record("scene", copy.id, "created", None, snapshots.scene(copy, choices))
    now = utcnow()
    for line in await tx.ordered(DialogueLine, col(DialogueLine.scene_id), original.id):
        duplicate = DialogueLine(
            id=new_id("lin"),
            project_id=copy.project_id,
            scene_id=copy.id,
            position=line.position,
            character_id=line.character_id,
            text=line.text,
            condition=line.condition,
            created_at=now,
            updated_at=now,
        )
        tx.session.add(duplicate)
        tx.record("dialogue_line", duplicate.id, "created", None, snapshots.line(duplicate))
