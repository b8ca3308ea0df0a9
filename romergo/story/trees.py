"""A scene with everything it owns, as one snapshot and as one deletion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from romergo.story import snapshots
from romergo.story.ledger import SceneRecord

if TYPE_CHECKING:
    # For types only: undo's moves use these, and the registry of kinds they belong to is read
    # by `base` itself.
    from romergo.story.base import UnitOfWork


async def scene_tree(uow: UnitOfWork, scene: SceneRecord) -> dict[str, Any]:
    """The scene, its choices and its lines: what a delete must remember for undo."""
    tree = snapshots.scene(scene, await uow.story.choices_of(scene.id))
    tree["lines"] = [snapshots.line(line) for line in await uow.story.lines_of(scene.id)]
    return tree


async def delete_scene_rows(uow: UnitOfWork, scene: SceneRecord) -> None:
    await uow.story.remove_scene(scene.id)
