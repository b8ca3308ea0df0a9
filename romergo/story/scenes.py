"""Scenes: add, rename, start/ending marks, move, delete, background, music and choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore, renumber
from romergo.story.based_on import based_on
from romergo.story.choice_lists import (
    ChoiceSpec,
    as_field,
    checked_ids,
    from_field,
    lost_choice_changes,
    merge_choice_field,
    unchanged,
    write_choices,
)
from romergo.story.kinds import Action
from romergo.story.media_rules import MediaSlot, put_in_slot
from romergo.story.scene_view import read_scene_view
from romergo.story.state.variables import checked_condition, checked_effects, declared
from romergo.story.trees import delete_scene_rows, scene_tree
from romergo.story.views import SceneView
from storage.tables import Choice, Scene

MAX_CHOICES = 20


@dataclass(frozen=True)
class SceneService:
    store: StoryStore
    limits: Limits

    async def scene_view(self, actor: Actor, scene_id: str) -> SceneView:
        return await read_scene_view(self.store.ledger, actor, scene_id)

    async def add_scene(
        self, actor: Actor, chapter_id: str, title: str, position: int | None = None
    ) -> Scene:
        """Adds a scene; the first scene of a project becomes its start scene."""
        clean = validation.title(title, self.limits, "Scene title")
        position = validation.position(position)
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            siblings = await tx.ordered(Scene, col(Scene.chapter_id), chapter.id)
            has_scenes = (
                await tx.session.exec(select(Scene.id).where(Scene.project_id == chapter.project_id).limit(1))
            ).first() is not None
            now = utcnow()
            scene = Scene(
                id=new_id("scn"),
                project_id=chapter.project_id,
                chapter_id=chapter.id,
                title=clean,
                position=0,
                is_start=not has_scenes,
                created_at=now,
                updated_at=now,
            )
            tx.place(siblings, scene, position)
            tx.record("scene", scene.id, "created", None, snapshots.scene(scene, []))
        return scene

    async def update_scene(
        self,
        actor: Actor,
        scene_id: str,
        title: str | None = None,
        is_start: bool | None = None,
        is_ending: bool | None = None,
        entry_effects: str | None = None,
        *,
        expected_revision: int | None = None,
    ) -> Scene:
        """Only given fields change. A project has one start scene: marking one moves the mark
        (`out_of_scope` from a limited room when the mark would leave a scene outside it).
        `entry_effects` are applied when the player enters the scene; "" clears them. With
        `expected_revision`, merged with what changed since (`romergo.story.based_on`)."""
        clean = None if title is None else validation.title(title, self.limits, "Scene title")
        for name, flag in (("is_start", is_start), ("is_ending", is_ending)):
            if flag is not None and not isinstance(flag, bool):
                raise invalid(f"{name} must be true or false.")
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            before = await _snapshot(tx, scene)
            given: dict[str, Any] = {"title": clean, "is_ending": is_ending, "is_start": is_start}
            if entry_effects is not None:
                types = await declared(tx, scene.project_id)
                given["entry_effects"] = checked_effects(entry_effects, types, "The scene's entry effects")
            given = {
                field: value
                for field, value in given.items()
                if field == "entry_effects" or value is not None
            }
            mine = await based_on(tx, "scene", scene.id, before, given, expected_revision)
            if mine.get("is_start"):
                await _clear_other_starts(tx, scene, actor.reach)
            for field, value in mine.items():
                setattr(scene, field, value)
            await _save(tx, scene, before)
        return scene

    async def move_scene(self, actor: Actor, scene_id: str, chapter_id: str, position: int) -> Scene:
        new_position = validation.position(position)
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            target = await tx.chapter(chapter_id)
            before = await _snapshot(tx, scene)
            old_chapter_id = scene.chapter_id
            scene.chapter_id = target.id
            siblings = await tx.ordered(Scene, col(Scene.chapter_id), target.id)
            tx.place(siblings, scene, new_position)
            if old_chapter_id != target.id:
                await tx.session.flush()
                left_behind = await tx.ordered(Scene, col(Scene.chapter_id), old_chapter_id)
                renumber([row for row in left_behind if row.id != scene.id])
            await _save(tx, scene, before, action="moved")
        return scene

    async def delete_scene(self, actor: Actor, scene_id: str) -> None:
        """Deletes the scene with its lines and choices. Choices into it are left dangling."""
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            before = await scene_tree(tx, scene)
            await delete_scene_rows(tx, scene)
            await tx.session.flush()
            renumber(await tx.ordered(Scene, col(Scene.chapter_id), scene.chapter_id))
            tx.record("scene", scene.id, "deleted", before, None)

    async def set_scene_background(
        self, actor: Actor, scene_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> Scene:
        """None means: show the chapter's background in this scene."""
        return await self._set_media(actor, scene_id, "background", asset_id, expected_revision)

    async def set_scene_music(
        self, actor: Actor, scene_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> Scene:
        """None means: play the chapter's music in this scene."""
        return await self._set_media(actor, scene_id, "music", asset_id, expected_revision)

    async def set_choices(
        self,
        actor: Actor,
        scene_id: str,
        choices: Sequence[ChoiceSpec],
        *,
        expected_revision: int | None = None,
    ) -> list[Choice]:
        """Replaces the scene's choices with these, in this order: a choice given with its id is
        that choice changed (its id kept), one without is new, the ones left out are removed.
        Targets stay in the project; conditions and effects must parse and name the story's
        variables. With `expected_revision`, merged choice by choice with what changed since
        (`romergo.story.choice_lists`)."""
        if len(choices) > MAX_CHOICES:
            raise invalid(f"A scene offers at most {MAX_CHOICES} choices.")
        labels = [validation.title(c.label, self.limits, "Choice label") for c in choices]
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            types = await declared(tx, scene.project_id)
            wanted = [
                ChoiceSpec(
                    label,
                    choice.target_scene_id,
                    checked_condition(choice.condition, types, f'The condition of "{label}"'),
                    checked_effects(choice.effects, types, f'The effects of "{label}"'),
                    choice.id,
                )
                for label, choice in zip(labels, choices, strict=True)
            ]
            before = await _snapshot(tx, scene)
            for choice in wanted:
                if choice.target_scene_id is not None:
                    await tx.scene(choice.target_scene_id)
            old = await tx.choices_of(scene.id)
            merged = await based_on(
                tx,
                "scene",
                scene.id,
                {"choices": as_field([ChoiceSpec.of(row) for row in old])},
                {"choices": as_field(wanted)},
                expected_revision,
                shape=lambda snapshot: {"choices": snapshot.get("choices", [])},
                merge=merge_choice_field,
                lost=lost_choice_changes,
            )
            wanted = from_field(merged["choices"])
            checked_ids(wanted, {row.id for row in old})
            if unchanged(old, wanted):
                # No change: keep the rows, so their ids still match the last revision's snapshot.
                return old
            rows = await write_choices(tx, scene, old, wanted)
            after = snapshots.scene(scene, rows)
            if before != after:
                tx.save("scene", scene, before, after)
        return rows

    async def _set_media(
        self, actor: Actor, scene_id: str, slot: MediaSlot, asset_id: str | None, expected: int | None
    ) -> Scene:
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            before = await _snapshot(tx, scene)
            mine = {f"{slot}_asset_id": await tx.asset_id_of_kind(asset_id, (slot,))}
            for value in (await based_on(tx, "scene", scene.id, before, mine, expected)).values():
                put_in_slot(scene, slot, value)
            await _save(tx, scene, before)
        return scene


async def _clear_other_starts(tx: Mutation, scene: Scene, reach: frozenset[str] | None) -> None:
    """The start mark leaves the scenes that had it, all of them inside the actor's room: a room
    limited to some chapters never changes a scene outside them, not even by moving a mark."""
    statement = select(Scene).where(
        Scene.project_id == scene.project_id, col(Scene.is_start), Scene.id != scene.id
    )
    others = (await tx.session.exec(statement)).all()
    if reach is not None and any(other.chapter_id not in reach for other in others):
        raise RomergoError(
            "out_of_scope",
            "Marking this scene as the start would take the start mark from a scene outside the "
            "chapters this room covers. Do not work around it: tell the owner, who can move the mark "
            "or widen the room under Channel settings.",
        )
    for other in others:
        before = await _snapshot(tx, other)
        other.is_start = False
        await _save(tx, other, before)


async def _snapshot(tx: Mutation, scene: Scene) -> dict[str, Any]:
    return snapshots.scene(scene, await tx.choices_of(scene.id))


async def _save(tx: Mutation, scene: Scene, before: dict[str, Any], action: Action = "updated") -> None:
    tx.save("scene", scene, before, await _snapshot(tx, scene), action)
