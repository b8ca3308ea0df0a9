"""How undo takes a snapshot of each kind of entity, removes one and brings one back.

The registry of kinds (`romergo.story.kinds`) names these moves per kind; `restore.Restorer` calls
them and does what every kind shares (the revision, the renumbered siblings). A move works on the
rows of its kind and what they own: a scene's lines and choices, a chapter's scenes.

The registry is read by the transaction seam (`base`), so this module imports it only for types.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from sqlmodel import SQLModel, col, select

from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError
from romergo.story import snapshots
from romergo.story.trees import delete_scene_rows, scene_tree
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Scene

if TYPE_CHECKING:
    from romergo.story.base import Mutation

Snapshot = Callable[["Mutation", Any, bool], Awaitable[dict[str, Any]]]
"""(tx, row, tree) -> the row's snapshot; with `tree`, what it owns too."""
Remove = Callable[["Mutation", Any], Awaitable[None]]
Recreate = Callable[["Mutation", str, dict[str, Any]], Awaitable[SQLModel]]
"""(tx, entity id, snapshot as before the change set) -> the row back in the story."""
PutList = Callable[["Mutation", Any, list[dict[str, Any]]], Awaitable[None]]


# ---- snapshots -----------------------------------------------------------------------------------


def plain(make: Callable[[Any], dict[str, Any]]) -> Snapshot:
    """The snapshot of a kind that owns nothing: the same with or without `tree`."""

    async def taken(tx: Mutation, row: Any, tree: bool) -> dict[str, Any]:
        return make(row)

    return taken


async def scene_snapshot(tx: Mutation, row: Scene, tree: bool) -> dict[str, Any]:
    if tree:
        return await scene_tree(tx, row)
    return snapshots.scene(row, await tx.choices_of(row.id))


async def chapter_snapshot(tx: Mutation, row: Chapter, tree: bool) -> dict[str, Any]:
    data = snapshots.chapter(row)
    if tree:
        scenes = await tx.ordered(Scene, col(Scene.chapter_id), row.id)
        data["scenes"] = [await scene_tree(tx, scene) for scene in scenes]
    return data


# ---- removals ------------------------------------------------------------------------------------


async def delete_row(tx: Mutation, row: Any) -> None:
    await tx.session.delete(row)


async def delete_scene(tx: Mutation, row: Scene) -> None:
    await delete_scene_rows(tx, row)


async def delete_chapter(tx: Mutation, row: Chapter) -> None:
    for scene in await tx.ordered(Scene, col(Scene.chapter_id), row.id):
        await delete_scene_rows(tx, scene)
    await tx.session.flush()
    await tx.session.delete(row)


async def hide_asset(tx: Mutation, row: Asset) -> None:
    """Assets are never deleted while a revision points at them: marked deleted, as a delete does."""
    row.deleted_at = utcnow()
    tx.session.add(row)


async def delete_silent_character(tx: Mutation, row: Character) -> None:
    statement = select(DialogueLine.id).where(DialogueLine.character_id == row.id).limit(1)
    if (await tx.session.exec(statement)).first():
        raise RomergoError(
            "conflict", f'"{row.name}" speaks lines written since: they would lose their speaker.'
        )
    await tx.session.delete(row)


# ---- returns -------------------------------------------------------------------------------------


def from_fields(table: type[SQLModel]) -> Recreate:
    """The return of a kind that owns nothing and is not ordered: its row from the snapshot."""

    async def recreated(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> SQLModel:
        row = table(**_fields(table, snapshot), created_at=utcnow(), updated_at=utcnow())
        tx.session.add(row)
        return row

    return recreated


async def show_asset(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> SQLModel:
    row = await tx.session.get(Asset, entity_id)
    if row is None:
        raise RomergoError("conflict", f'The asset "{snapshot.get("name", "")}" no longer exists.')
    row.deleted_at = None
    tx.session.add(row)
    return row


async def scene_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> Scene:
    """The scene back in its chapter, with its choices and lines."""
    chapter = await tx.session.get(Chapter, snapshot.get("chapter_id"))
    if chapter is None:
        title = snapshot.get("title", "")
        raise RomergoError("conflict", f'The chapter of scene "{title}" no longer exists.')
    scene = Scene(**_fields(Scene, snapshot), created_at=utcnow(), updated_at=utcnow())
    siblings = await tx.ordered(Scene, col(Scene.chapter_id), chapter.id)
    tx.place(siblings, scene, snapshot.get("position"))
    await tx.session.flush()
    await put_choices(tx, scene, snapshot.get("choices", []))
    for line in snapshot.get("lines", []):
        tx.session.add(_line_row(tx, line))
    return scene


async def chapter_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> Chapter:
    """The chapter back in its place, with its scenes."""
    chapter = Chapter(**_fields(Chapter, snapshot), created_at=utcnow(), updated_at=utcnow())
    siblings = await tx.ordered(Chapter, col(Chapter.project_id), chapter.project_id)
    tx.place(siblings, chapter, snapshot.get("position"))
    await tx.session.flush()
    for scene in snapshot.get("scenes", []):
        await scene_from(tx, scene.get("id", ""), scene)
    return chapter


async def line_from(tx: Mutation, entity_id: str, snapshot: dict[str, Any]) -> DialogueLine:
    scene = await tx.session.get(Scene, snapshot.get("scene_id"))
    if scene is None:
        text = snapshot.get("text", "")
        raise RomergoError("conflict", f'The scene of line "{text}" no longer exists.')
    line = _line_row(tx, snapshot)
    siblings = await tx.ordered(DialogueLine, col(DialogueLine.scene_id), scene.id)
    tx.place(siblings, line, snapshot.get("position"))
    return line


async def put_choices(tx: Mutation, scene: Scene, wanted: list[dict[str, Any]]) -> None:
    """The scene's choices replaced by `wanted`, with their ids, in that order."""
    for old in await tx.choices_of(scene.id):
        await tx.session.delete(old)
    await tx.session.flush()
    for index, choice in enumerate(wanted):
        tx.session.add(
            Choice(
                id=choice["id"],
                project_id=scene.project_id,
                scene_id=scene.id,
                position=index,
                label=choice["label"],
                target_scene_id=choice.get("target_scene_id"),
                condition=choice.get("condition"),
                effects=choice.get("effects"),
            )
        )
    await tx.session.flush()


def _line_row(tx: Mutation, snapshot: dict[str, Any]) -> DialogueLine:
    project_id = tx.project.id if tx.project else ""
    fields = {**_fields(DialogueLine, snapshot), "project_id": project_id}
    return DialogueLine(**fields, created_at=utcnow(), updated_at=utcnow())


def _fields(model: type[SQLModel], snapshot: dict[str, Any]) -> dict[str, Any]:
    columns = set(model.model_fields) - {"created_at", "updated_at"}
    return {key: value for key, value in snapshot.items() if key in columns}
