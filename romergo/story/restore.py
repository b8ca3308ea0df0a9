"""Putting entities back as a revision snapshot describes them: the moves undo is made of.

`changed_entities` folds a change set's revisions into one entry per entity (its state before the
set's first change and after its last). `Restorer` brings each entity back to its `before` inside
one Mutation, recording a revision for every entity it touches: rows the set created are removed,
rows it deleted come back with their ids and children, and for the rest only the fields the set
changed are written back (positions by re-placing the row among its current siblings). How a kind
is removed, brought back and snapshotted is its entry's in the registry (`romergo.story.kinds`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from romergo.common.errors import RomergoError
from romergo.story.base import Mutation, place, renumber
from romergo.story.kinds import KINDS, Action, EntityType, Kind

NOT_FIELDS = frozenset({"id", "position", "choices", "lines", "scenes", "deleted", "share_id", "published"})
"""Snapshot keys that are not columns written back as they were (positions are re-placed, lists
put back row by row, publishing is kept)."""


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


class Recorded(Protocol):
    """A recorded change: a `Revision` row, or the history's record of one."""

    @property
    def id(self) -> int | None: ...
    @property
    def entity_type(self) -> str: ...
    @property
    def entity_id(self) -> str: ...
    @property
    def before(self) -> dict[str, Any] | None: ...
    @property
    def after(self) -> dict[str, Any] | None: ...


def changed_entities(rows: Sequence[Recorded]) -> list[ChangedEntity]:
    """One entry per entity, in the order of each entity's last change (oldest first)."""
    first: dict[tuple[str, str], Recorded] = {}
    last: dict[tuple[str, str], Recorded] = {}
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


class Restorer:
    """Restores entities to their `before` inside one Mutation; counts what it restored."""

    def __init__(self, tx: Mutation) -> None:
        self.tx = tx
        self.session = tx.session
        self.restored = 0
        self.kept: list[str] = []

    async def restore(self, entity: ChangedEntity) -> None:
        kind = KINDS[entity.entity_type]
        if kind.inside is not None:
            return  # it travels inside the snapshot of its owner (a scene's choices)
        row = await self.session.get(kind.table, entity.entity_id)
        exists = row is not None and not _is_deleted(row)  # a deleted asset keeps its row
        if entity.before is None:
            if exists:
                await self._remove(kind, row)
        elif not exists:
            if entity.after is None:
                await self._recreate(kind, entity)
        else:
            await self._revert_fields(kind, entity, row)

    # ---- the three moves -------------------------------------------------------------------------

    async def _remove(self, kind: Kind, row: Any) -> None:
        if kind.remove is None:
            self.kept.append(kind.kept_created)
            return
        before = await kind.snapshot(self.tx, row, True)
        await kind.remove(self.tx, row)
        await self.session.flush()
        await self._renumber_siblings(kind, row)
        self.tx.record(kind.entity_type, row.id, "deleted", before, None)
        self.restored += 1

    async def _recreate(self, kind: Kind, entity: ChangedEntity) -> None:
        if kind.recreate is None:
            self.kept.append(kind.kept_deleted)
            return
        row = await kind.recreate(self.tx, entity.entity_id, entity.to_recreate)
        await self.session.flush()
        after = await kind.snapshot(self.tx, row, True)
        self.tx.record(kind.entity_type, entity.entity_id, "created", None, after)
        self.restored += 1

    async def _revert_fields(self, kind: Kind, entity: ChangedEntity, row: Any) -> None:
        target = entity.before or {}
        changed = entity.changed_fields
        if changed & kind.kept_fields:
            self.kept.append(kind.kept_fields_note)
        parent = kind.parent.column if kind.parent else ""
        before = await kind.snapshot(self.tx, row, False)
        for name in changed - NOT_FIELDS - {parent}:
            if name in target and hasattr(row, name):
                setattr(row, name, target[name])
        moved = bool(changed & {"position", parent}) and kind.parent is not None
        if moved:
            await self._move(kind, row, target)
        for key, put_back in kind.lists.items():
            if key in changed:
                await put_back(self.tx, row, target.get(key, []))
        self.session.add(row)
        await self.session.flush()
        after = await kind.snapshot(self.tx, row, False)
        only_moved = moved and not (changed - {"position", parent})
        action: Action = "moved" if only_moved else "updated"
        if self.tx.save(kind.entity_type, row, before, after, action, touch=hasattr(row, "updated_at")):
            self.restored += 1

    # ---- helpers ---------------------------------------------------------------------------------

    async def _move(self, kind: Kind, row: Any, target: dict[str, Any]) -> None:
        assert kind.parent is not None
        parent = kind.parent.column
        old_parent = getattr(row, parent)
        new_parent = target.get(parent, old_parent)
        home = KINDS[kind.parent.kind].table
        if new_parent != old_parent and await self.session.get(home, new_parent) is None:
            title = kind.title(target)
            raise RomergoError("conflict", f'"{title}" cannot go back: where it was no longer exists.')
        setattr(row, parent, new_parent)
        table = kind.table
        siblings = await self.tx.ordered(table, getattr(table, parent), new_parent)
        self.session.add_all(place(siblings, row, target.get("position")))
        if new_parent != old_parent:
            await self.session.flush()
            rows: list[Any] = await self.tx.ordered(table, getattr(table, parent), old_parent)
            renumber([r for r in rows if r.id != row.id])

    async def _renumber_siblings(self, kind: Kind, row: Any) -> None:
        if kind.parent is not None:
            table, parent = kind.table, kind.parent.column
            renumber(await self.tx.ordered(table, getattr(table, parent), getattr(row, parent)))


def _is_deleted(row: Any) -> bool:
    return getattr(row, "deleted_at", None) is not None
