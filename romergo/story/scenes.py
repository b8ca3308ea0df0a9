"""Scenes: add, rename, start/ending marks, move, delete, background, music and choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore
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
from romergo.story.ledger import ChoiceRecord, SceneRecord
from romergo.story.media_rules import MediaSlot
from romergo.story.positions import moved, placed, renumbered
from romergo.story.scene_view import read_scene_view
from romergo.story.state.variables import checked_condition, checked_effects, declared
from romergo.story.trees import delete_scene_rows, scene_tree
from romergo.story.views import SceneView

MAX_CHOICES = 20


@dataclass(frozen=True)
class SceneService:
    store: StoryStore
    limits: Limits

    async def scene_view(self, actor: Actor, scene_id: str) -> SceneView:
        return await read_scene_view(self.store.ledger, actor, scene_id)

    async def add_scene(
        self, actor: Actor, chapter_id: str, title: str, position: int | None = None
    ) -> SceneRecord:
        """Adds a scene; the first scene of a project becomes its start scene."""
        clean = validation.title(title, self.limits, "Scene title")
        position = validation.position(position)
        async with self.store.write(actor) as tx:
            chapter = await tx.chapter(chapter_id)
            siblings = await tx.story.scenes_of(chapter.id)
            first = not await tx.story.has_scenes(chapter.project_id)
            now = utcnow()
            new = SceneRecord(
                id=new_id("scn"),
                project_id=chapter.project_id,
                chapter_id=chapter.id,
                title=clean,
                position=0,
                is_start=first,
                is_ending=False,
                background_asset_id=None,
                music_asset_id=None,
                entry_effects=None,
                created_at=now,
                updated_at=now,
            )
            in_order = placed(siblings, new, position)
            scene = next(record for record in in_order if record.id == new.id)
            await tx.story.add_scene(scene)
            await _save_positions(tx, siblings, [record for record in in_order if record.id != scene.id])
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
    ) -> SceneRecord:
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
            choices = await tx.story.choices_of(scene.id)
            before = snapshots.scene(scene, choices)
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
            scene = await _save(tx, scene, replace(scene, **mine), choices)
        return scene

    async def move_scene(self, actor: Actor, scene_id: str, chapter_id: str, position: int) -> SceneRecord:
        new_position = validation.position(position)
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            target = await tx.chapter(chapter_id)
            choices = await tx.story.choices_of(scene.id)
            siblings = await tx.story.scenes_of(target.id)
            in_order = placed(siblings, replace(scene, chapter_id=target.id), new_position)
            await _save_positions(tx, siblings, [record for record in in_order if record.id != scene.id])
            if scene.chapter_id != target.id:
                left_behind = [s for s in await tx.story.scenes_of(scene.chapter_id) if s.id != scene.id]
                await _save_positions(tx, left_behind, renumbered(left_behind))
            now = next(record for record in in_order if record.id == scene.id)
            scene = await _save(tx, scene, now, choices, action="moved")
        return scene

    async def delete_scene(self, actor: Actor, scene_id: str) -> None:
        """Deletes the scene with its lines and choices. Choices into it are left dangling."""
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            before = await scene_tree(tx, scene)
            await delete_scene_rows(tx, scene)
            rest = [s for s in await tx.story.scenes_of(scene.chapter_id) if s.id != scene.id]
            await _save_positions(tx, rest, renumbered(rest))
            tx.record("scene", scene.id, "deleted", before, None)

    async def set_scene_background(
        self, actor: Actor, scene_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> SceneRecord:
        """None means: show the chapter's background in this scene."""
        return await self._set_media(actor, scene_id, "background", asset_id, expected_revision)

    async def set_scene_music(
        self, actor: Actor, scene_id: str, asset_id: str | None, *, expected_revision: int | None = None
    ) -> SceneRecord:
        """None means: play the chapter's music in this scene."""
        return await self._set_media(actor, scene_id, "music", asset_id, expected_revision)

    async def set_choices(
        self,
        actor: Actor,
        scene_id: str,
        choices: Sequence[ChoiceSpec],
        *,
        expected_revision: int | None = None,
    ) -> list[ChoiceRecord]:
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
            old = await tx.story.choices_of(scene.id)
            before = snapshots.scene(scene, old)
            for choice in wanted:
                if choice.target_scene_id is not None:
                    await tx.scene(choice.target_scene_id)
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
            written = await write_choices(tx, scene, old, wanted)
            if tx.changed("scene", scene.id, before, snapshots.scene(scene, written)):
                await tx.story.save_scene(replace(scene, updated_at=utcnow()))
        return written

    async def _set_media(
        self, actor: Actor, scene_id: str, slot: MediaSlot, asset_id: str | None, expected: int | None
    ) -> SceneRecord:
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            choices = await tx.story.choices_of(scene.id)
            before = snapshots.scene(scene, choices)
            mine = {f"{slot}_asset_id": await tx.asset_id_of_kind(asset_id, (slot,))}
            merged = await based_on(tx, "scene", scene.id, before, mine, expected)
            scene = await _save(tx, scene, replace(scene, **merged), choices)
        return scene


async def _clear_other_starts(tx: Mutation, scene: SceneRecord, reach: frozenset[str] | None) -> None:
    """The start mark leaves the scenes that had it, all of them inside the actor's room: a room
    limited to some chapters never changes a scene outside them, not even by moving a mark."""
    others = [other for other in await tx.story.start_scenes(scene.project_id) if other.id != scene.id]
    if reach is not None and any(other.chapter_id not in reach for other in others):
        raise RomergoError(
            "out_of_scope",
            "Marking this scene as the start would take the start mark from a scene outside the "
            "chapters this room covers. Do not work around it: tell the owner, who can move the mark "
            "or widen the room under Channel settings.",
        )
    for other in others:
        await _save(tx, other, replace(other, is_start=False), await tx.story.choices_of(other.id))


async def _save(
    tx: Mutation,
    scene: SceneRecord,
    changed: SceneRecord,
    choices: Sequence[ChoiceRecord],
    action: Action = "updated",
) -> SceneRecord:
    """`changed` written, stamped as changed now, unless it says what `scene` said (a move too is
    stamped: a scene's place is part of it). `choices`: the scene's, which its snapshots hold."""
    before, after = snapshots.scene(scene, choices), snapshots.scene(changed, choices)
    if not tx.changed("scene", scene.id, before, after, action):
        return scene
    stamped = replace(changed, updated_at=utcnow())
    await tx.story.save_scene(stamped)
    return stamped


async def _save_positions(tx: Mutation, before: list[SceneRecord], after: list[SceneRecord]) -> None:
    """The scenes whose place changed take their new one (a renumbering is no change of theirs)."""
    for record in moved(before, after):
        await tx.story.save_scene(record)
