"""Putting entities back as a revision snapshot describes them: the moves undo is made of.

`changed_entities` folds a change set's revisions into one entry per entity (its state before the
set's first change and after its last). `Restorer` brings each entity back to its `before` inside
one Mutation, recording a revision for every entity it touches: rows the set created are deleted,
rows it deleted come back with their ids and children, and for the rest only the fields the set
changed are written back (positions by re-placing the row among its current siblings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import SQLModel, col, select

from romergo.clock import utcnow
from romergo.errors import RomergoError
from romergo.story import snapshots
from romergo.story.base import EntityType, Mutation, place, renumber
from romergo.story.trees import delete_scene_rows, scene_tree
from storage.tables import (
    Asset,
    Chapter,
    Character,
    Choice,
    DialogueLine,
    Project,
    Revision,
    Scene,
    StoryVariable,
)

MODELS: dict[str, type[SQLModel]] = {
    "project": Project,
    "chapter": Chapter,
    "scene": Scene,
    "dialogue_line": DialogueLine,
    "character": Character,
    "asset": Asset,
    "variable": StoryVariable,
}
PARENT = {"chapter": "project_id", "scene": "chapter_id", "dialogue_line": "scene_id"}
"""The column a row is ordered under: a change of it (or of `position`) is a move."""
NOT_FIELDS = frozenset({"id", "position", "choices", "lines", "scenes", "deleted", "share_id", "published"})
TITLE_KEYS = ("title", "name", "label", "text")


@dataclass(frozen=True)
class ChangedEntity:
    entity_type: EntityType
    entity_id: str
    before: dict[str, Any] | None
    """As it was before the set's first change of it; None when the set created it."""
    after: dict[str, Any] | None
    """As the set left it; None when the set deleted it."""
    last_revision_id: int
    removed: dict[str, Any] | None = None
    """When the set deleted it: the snapshot taken at the deletion, with its children."""

    @property
    def to_recreate(self) -> dict[str, Any]:
        """The deleted entity as it was before the set: children as deleted, fields as before."""
        return {**(self.removed or {}), **(self.before or {})}

    @property
    def changed_fields(self) -> set[str]:
        before, after = self.before or {}, self.after or {}
        return {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}


def changed_entities(rows: list[Revision]) -> list[ChangedEntity]:
    """One entry per entity, in the order of each entity's last change (oldest first)."""
    first: dict[tuple[str, str], Revision] = {}
    last: dict[tuple[str, str], Revision] = {}
    for row in rows:
        key = (row.entity_type, row.entity_id)
        first.setdefault(key, row)
        last[key] = row
    ordered = sorted(last.items(), key=lambda item: item[1].id or 0)
    return [
        ChangedEntity(
            entity_type=key[0],  # type: ignore[arg-type]
            entity_id=key[1],
            before=first[key].before,
            after=newest.after,
            last_revision_id=newest.id or 0,
            removed=newest.before if newest.after is None else None,
        )
        for key, newest in ordered
    ]


def title_of(snapshot: dict[str, Any]) -> str:
    for key in TITLE_KEYS:
        value = snapshot.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


class Restorer:
    """Restores entities to their `before` inside one Mutation; counts what it restored."""

    def __init__(self, tx: Mutation) -> None:
        self.tx = tx
        self.session = tx.session
        self.restored = 0
        self.kept: list[str] = []

    async def restore(self, entity: ChangedEntity) -> None:
        model = MODELS.get(entity.entity_type)
        if model is None:
            return  # choices travel inside their scene's snapshot
        row = await self.session.get(model, entity.entity_id)
        exists = row is not None and not _is_deleted(row)  # a deleted asset keeps its row
        if entity.before is None:
            if exists:
                await self._remove(entity, row)
        elif not exists:
            if entity.after is None:
                await self._recreate(entity)
        else:
            await self._revert_fields(entity, row)

    # ---- the three moves -------------------------------------------------------------------------

    async def _remove(self, entity: ChangedEntity, row: Any) -> None:
        kind = entity.entity_type
        if kind == "project":
            self.kept.append("The story itself was created by this change; delete it from the story list.")
            return
        before = await self._snapshot(kind, row, tree=True)
        if kind == "scene":
            await delete_scene_rows(self.tx, row)
        elif kind == "chapter":
            for scene in await self.tx.ordered(Scene, col(Scene.chapter_id), row.id):
                await delete_scene_rows(self.tx, scene)
            await self.session.flush()
            await self.session.delete(row)
        elif kind == "asset":
            row.deleted_at = utcnow()
            self.session.add(row)
        elif kind == "character":
            await self._ensure_silent(row)
            await self.session.delete(row)
        else:
            await self.session.delete(row)
        await self.session.flush()
        await self._renumber_siblings(kind, row)
        self.tx.record(kind, row.id, "deleted", before, None)
        self.restored += 1

    async def _recreate(self, entity: ChangedEntity) -> None:
        kind, snapshot = entity.entity_type, entity.to_recreate
        if kind == "asset":
            row: Any = await self.session.get(Asset, entity.entity_id)
            row.deleted_at = None
            self.session.add(row)
        elif kind == "scene":
            row = await self._scene_from(snapshot)
        elif kind == "chapter":
            row = await self._chapter_from(snapshot)
        elif kind == "dialogue_line":
            row = await self._line_from(snapshot)
        elif kind == "character":
            row = Character(**_fields(Character, snapshot), created_at=utcnow(), updated_at=utcnow())
            self.session.add(row)
        elif kind == "variable":
            row = StoryVariable(**_fields(StoryVariable, snapshot), created_at=utcnow(), updated_at=utcnow())
            self.session.add(row)
        else:
            self.kept.append("A deleted story comes back from the story list, not by undo.")
            return
        await self.session.flush()
        self.tx.record(kind, entity.entity_id, "created", None, await self._snapshot(kind, row, tree=True))
        self.restored += 1

    async def _revert_fields(self, entity: ChangedEntity, row: Any) -> None:
        kind, target = entity.entity_type, entity.before or {}
        changed = entity.changed_fields
        if kind == "project" and changed & {"published", "share_id"}:
            self.kept.append("Publishing is not undone: unpublish or publish again from the story's page.")
        before = await self._snapshot(kind, row, tree=False)
        for name in changed - NOT_FIELDS - {PARENT.get(kind, "")}:
            if name in target and hasattr(row, name):
                setattr(row, name, target[name])
        moved = bool(changed & {"position", PARENT.get(kind, "")}) and kind in PARENT
        if moved:
            await self._move(kind, row, target)
        if kind == "scene" and "choices" in changed:
            await self._put_choices(row, target.get("choices", []))
        self.session.add(row)
        await self.session.flush()
        after = await self._snapshot(kind, row, tree=False)
        only_moved = moved and not (changed - {"position", PARENT.get(kind, "")})
        if self.tx.save(
            kind, row, before, after, "moved" if only_moved else "updated", touch=hasattr(row, "updated_at")
        ):
            self.restored += 1

    # ---- helpers ---------------------------------------------------------------------------------

    async def _scene_from(self, snapshot: dict[str, Any]) -> Scene:
        chapter = await self.session.get(Chapter, snapshot.get("chapter_id"))
        if chapter is None:
            raise RomergoError("conflict", f'The chapter of scene "{title_of(snapshot)}" no longer exists.')
        scene = Scene(**_fields(Scene, snapshot), created_at=utcnow(), updated_at=utcnow())
        siblings = await self.tx.ordered(Scene, col(Scene.chapter_id), chapter.id)
        self.session.add_all(place(siblings, scene, snapshot.get("position")))
        await self.session.flush()
        await self._put_choices(scene, snapshot.get("choices", []))
        for line in snapshot.get("lines", []):
            self.session.add(self._line_row(line))
        return scene

    async def _chapter_from(self, snapshot: dict[str, Any]) -> Chapter:
        chapter = Chapter(**_fields(Chapter, snapshot), created_at=utcnow(), updated_at=utcnow())
        siblings = await self.tx.ordered(Chapter, col(Chapter.project_id), chapter.project_id)
        self.session.add_all(place(siblings, chapter, snapshot.get("position")))
        await self.session.flush()
        for scene in snapshot.get("scenes", []):
            await self._scene_from(scene)
        return chapter

    async def _line_from(self, snapshot: dict[str, Any]) -> DialogueLine:
        scene = await self.session.get(Scene, snapshot.get("scene_id"))
        if scene is None:
            raise RomergoError("conflict", f'The scene of line "{title_of(snapshot)}" no longer exists.')
        line = self._line_row(snapshot)
        siblings = await self.tx.ordered(DialogueLine, col(DialogueLine.scene_id), scene.id)
        self.session.add_all(place(siblings, line, snapshot.get("position")))
        return line

    def _line_row(self, snapshot: dict[str, Any]) -> DialogueLine:
        project_id = self.tx.project.id if self.tx.project else ""
        fields = {**_fields(DialogueLine, snapshot), "project_id": project_id}
        return DialogueLine(**fields, created_at=utcnow(), updated_at=utcnow())

    async def _move(self, kind: str, row: Any, target: dict[str, Any]) -> None:
        parent = PARENT[kind]
        old_parent = getattr(row, parent)
        new_parent = target.get(parent, old_parent)
        if new_parent != old_parent and await self.session.get(_parent_model(kind), new_parent) is None:
            raise RomergoError(
                "conflict", f'"{title_of(target)}" cannot go back: where it was no longer exists.'
            )
        setattr(row, parent, new_parent)
        model = MODELS[kind]
        siblings = await self.tx.ordered(model, getattr(model, parent), new_parent)
        self.session.add_all(place(siblings, row, target.get("position")))
        if new_parent != old_parent:
            await self.session.flush()
            rows: list[Any] = await self.tx.ordered(model, getattr(model, parent), old_parent)
            renumber([r for r in rows if r.id != row.id])

    async def _put_choices(self, scene: Scene, wanted: list[dict[str, Any]]) -> None:
        for old in await self.tx.choices_of(scene.id):
            await self.session.delete(old)
        await self.session.flush()
        for index, choice in enumerate(wanted):
            self.session.add(
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
        await self.session.flush()

    async def _renumber_siblings(self, kind: str, row: Any) -> None:
        if kind in PARENT:
            model = MODELS[kind]
            parent = PARENT[kind]
            renumber(await self.tx.ordered(model, getattr(model, parent), getattr(row, parent)))

    async def _ensure_silent(self, character: Character) -> None:
        statement = select(DialogueLine.id).where(DialogueLine.character_id == character.id).limit(1)
        if (await self.session.exec(statement)).first():
            raise RomergoError(
                "conflict", f'"{character.name}" speaks lines written since: they would lose their speaker.'
            )

    async def _snapshot(self, kind: str, row: Any, *, tree: bool) -> dict[str, Any]:
        if kind == "scene":
            return (
                await scene_tree(self.tx, row)
                if tree
                else snapshots.scene(row, await self.tx.choices_of(row.id))
            )
        if kind == "chapter":
            data = snapshots.chapter(row)
            if tree:
                scenes = await self.tx.ordered(Scene, col(Scene.chapter_id), row.id)
                data["scenes"] = [await scene_tree(self.tx, scene) for scene in scenes]
            return data
        makers: dict[str, Any] = {
            "project": snapshots.project,
            "dialogue_line": snapshots.line,
            "character": snapshots.character,
            "asset": snapshots.asset,
            "variable": snapshots.variable,
        }
        snapshot: dict[str, Any] = makers[kind](row)
        return snapshot


def _fields(model: type[SQLModel], snapshot: dict[str, Any]) -> dict[str, Any]:
    columns = set(model.model_fields) - {"created_at", "updated_at"}
    return {key: value for key, value in snapshot.items() if key in columns}


def _parent_model(kind: str) -> type[SQLModel]:
    parents: dict[str, type[SQLModel]] = {"chapter": Project, "scene": Chapter, "dialogue_line": Scene}
    return parents[kind]


def _is_deleted(row: Any) -> bool:
    return getattr(row, "deleted_at", None) is not None
