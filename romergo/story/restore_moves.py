"""How undo takes a snapshot of each kind of entity, removes one and brings one back.

The registry of kinds (`romergo.story.kinds`) names these moves per kind; `restore.Restorer` calls
them and does what every kind shares (the revision, the renumbered siblings). A move works on the
records of its kind and what they own (a scene's lines and choices, a chapter's scenes), read and
written through the story ledger's transaction.

The registry is read by the transaction seam (`base`), so this module imports it only for types.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError
from romergo.story import snapshots
from romergo.story.ledger import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRecord,
    SceneRecord,
    VariableRecord,
)
from romergo.story.positions import moved, placed
from romergo.story.trees import delete_scene_rows, scene_tree

if TYPE_CHECKING:
    from romergo.story.base import Mutation, UnitOfWork

Snapshot = Callable[["UnitOfWork", Any, bool], Awaitable[dict[str, Any]]]
"""(tx, record, tree) -> the record's snapshot; with `tree`, what it owns too."""
Remove = Callable[["Mutation", Any], Awaitable[None]]
Recreate = Callable[["Mutation", str, dict[str, Any]], Awaitable[Any]]
"""(tx, entity id, snapshot as before the change set) -> the record back in the story."""
PutList = Callable[["Mutation", Any, list[dict[str, Any]]], Awaitable[None]]

Made = TypeVar("Made", CharacterRecord, VariableRecord, SceneRecord, ChapterRecord, LineRecord)
Placed = TypeVar("Placed", SceneRecord, ChapterRecord, LineRecord)


# ---- snapshots -----------------------------------------------------------------------------------


def plain(make: Callable[[Any], dict[str, Any]]) -> Snapshot:
    """The snapshot of a kind that owns nothing: the same with or without `tree`."""

    async def taken(tx: UnitOfWork, record: Any, tree: bool) -> dict[str, Any]:
        return make(record)

    return taken


async def scene_snapshot(tx: UnitOfWork, record: SceneRecord, tree: bool) -> dict[str, Any]:
    if tree:
        return await scene_tree(tx, record)
    return snapshots.scene(record, await tx.story.choices_of(record.id))


async def chapter_snapshot(tx: UnitOfWork, record: ChapterRecord, tree: bool) -> dict[str, Any]:
    data = snapshots.chapter(record)
    if tree:
        data["scenes"] = [await scene_tree(tx, scene) for scene in await tx.story.scenes_of(record.id)]
    return data


# ---- removals ------------------------------------------------------------------------------------


async def delete_line(tx: Mutation, record: LineRecord) -> None:
    await tx.story.remove_line(record.id)


async def delete_variable(tx: Mutation, record: VariableRecord) -> None:
    await tx.story.remove_variable(record.id)


async def delete_scene(tx: Mutation, record: SceneRecord) -> None:
    await delete_scene_rows(tx, record)


async def delete_chapter(tx: Mutation, record: ChapterRecord) -> None:
    for scene in await tx.story.scenes_of(record.id):
        await delete_scene_rows(tx, scene)
    await tx.story.remove_chapter(record.id)


async def hide_asset(tx: Mutation, record: AssetRecord) -> None:
    """Assets are never deleted while a revision points at them: marked deleted, as a delete does."""
    await tx.story.save_asset(replace(record, deleted_at=utcnow()))


async def delete_silent_character(tx: Mutation, record: CharacterRecord) -> None:
    if await tx.story.chapters_where_speaking(record.id):
        raise RomergoError(
            "conflict", f'"{record.name}" speaks lines written since: they would lose their speaker.'
        )
    await tx.story.remove_character(record.id)


# ---- returns -------------------------------------------------------------------------------------


async def character_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> CharacterRecord:
    record = _record(CharacterRecord, snapshot)
    await tx.story.add_character(record)
    return record


async def variable_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> VariableRecord:
    record = _record(VariableRecord, snapshot)
    await tx.story.add_variable(record)
    return record


async def show_asset(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> AssetRecord:
    record = await tx.story.asset(entity_id)
    if record is None:
        raise RomergoError("conflict", f'The asset "{snapshot.get("name", "")}" no longer exists.')
    shown = replace(record, deleted_at=None)
    await tx.story.save_asset(shown)
    return shown


async def scene_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> SceneRecord:
    """The scene back in its chapter, with its choices and lines."""
    chapter = await tx.story.chapter(snapshot.get("chapter_id") or "")
    if chapter is None:
        title = snapshot.get("title", "")
        raise RomergoError("conflict", f'The chapter of scene "{title}" no longer exists.')
    siblings = await tx.story.scenes_of(chapter.id)
    scene = await _put_among(tx, "scene", siblings, _record(SceneRecord, snapshot), snapshot)
    await tx.story.add_scene(scene)
    await put_choices(tx, scene, snapshot.get("choices", []))
    for line in snapshot.get("lines", []):
        await tx.story.add_line(_line(tx, line))
    return scene


async def chapter_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> ChapterRecord:
    """The chapter back in its place, with its scenes."""
    fresh = _record(ChapterRecord, snapshot)
    siblings = await tx.story.chapters_of(fresh.project_id)
    chapter = await _put_among(tx, "chapter", siblings, fresh, snapshot)
    await tx.story.add_chapter(chapter)
    for scene in snapshot.get("scenes", []):
        await scene_from(tx, scene.get("id", ""), scene)
    return chapter


async def line_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> LineRecord:
    scene = await tx.story.scene(snapshot.get("scene_id") or "")
    if scene is None:
        text = snapshot.get("text", "")
        raise RomergoError("conflict", f'The scene of line "{text}" no longer exists.')
    siblings = await tx.story.lines_of(scene.id)
    line = await _put_among(tx, "dialogue_line", siblings, _line(tx, snapshot), snapshot)
    await tx.story.add_line(line)
    return line


async def put_choices(tx: Mutation, scene: SceneRecord, wanted: list[dict[str, Any]]) -> None:
    """The scene's choices become `wanted`, with their ids, in that order."""
    had = {choice.id: choice for choice in await tx.story.choices_of(scene.id)}
    for index, choice in enumerate(wanted):
        now = ChoiceRecord(
            id=choice["id"],
            project_id=scene.project_id,
            scene_id=scene.id,
            position=index,
            label=choice["label"],
            target_scene_id=choice.get("target_scene_id"),
            condition=choice.get("condition"),
            effects=choice.get("effects"),
        )
        was = had.pop(now.id, None)
        if was is None:
            await tx.story.add_choice(now)
        elif was != now:
            await tx.story.save_choice(now)
    for gone in had.values():
        await tx.story.remove_choice(gone.id)


# ---- helpers -------------------------------------------------------------------------------------


async def save_moved(tx: Mutation, entity_type: str, before: Sequence[Any], after: Sequence[Any]) -> None:
    """The siblings whose place changed take their new one (a renumbering is no change of theirs)."""
    for record in moved(before, after):
        await tx.story.save_entity(entity_type, record)


async def _put_among(
    tx: Mutation, entity_type: str, siblings: Sequence[Placed], record: Placed, snapshot: Mapping[str, Any]
) -> Placed:
    """`record` at its snapshot's place among `siblings`, which make room for it."""
    in_order = placed(siblings, record, snapshot.get("position"))
    await save_moved(tx, entity_type, siblings, [other for other in in_order if other.id != record.id])
    return next(other for other in in_order if other.id == record.id)


def _line(tx: Mutation, snapshot: dict[str, Any]) -> LineRecord:
    return _record(LineRecord, snapshot, project_id=tx.project.id if tx.project else "")


def _record(shape: type[Made], snapshot: Mapping[str, Any], **given: Any) -> Made:
    """A record made from a snapshot (state fields it leaves out while unset are None), as new."""
    now = utcnow()
    values: dict[str, Any] = {"created_at": now, "updated_at": now, **snapshot, **given}
    made: dict[str, Any] = {field.name: values.get(field.name) for field in fields(shape)}
    return shape(**made)
