"""A scene with everything it owns, as one snapshot and as one deletion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from romergo.story import snapshots
from storage.tables import Choice, DialogueLine, Scene

if TYPE_CHECKING:
    # For types only: undo's moves use these, and the registry of kinds they belong to is read
    # by `base` itself.
    from romergo.story.base import UnitOfWork


async def scene_tree(uow: UnitOfWork, scene: Scene) -> dict[str, Any]:
    """The scene, its choices and its lines: what a delete must remember for undo."""
    tree = snapshots.scene(scene, await uow.choices_of(scene.id))
    lines = await uow.ordered(DialogueLine, DialogueLine.scene_id, scene.id)
    tree["lines"] = [snapshots.line(line) for line in lines]
    return tree


async def delete_scene_rows(uow: UnitOfWork, scene: Scene) -> None:
    for line in await uow.ordered(DialogueLine, DialogueLine.scene_id, scene.id):
        await uow.session.delete(line)
    for choice in await uow.ordered(Choice, Choice.scene_id, scene.id):
        await uow.session.delete(choice)
    await uow.session.flush()
    await uow.session.delete(scene)
