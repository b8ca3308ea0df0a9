"""Putting entities back as a revision snapshot describes them: the moves undo is made of.

`changed_entities` folds a change set's revisions into one entry per entity (its state before the
set's first change and after its last). `Restorer` brings each entity back to its `before` inside
one Mutation, recording a revision for every entity it touches: entities the set created are
removed, ones it deleted come back with their ids and children, and for the rest only the fields
the set changed are written back (positions by re-placing the record among its current siblings).
It reads and writes records through the story ledger's transaction, naming each kind by its type. How a kind
is removed, brought back and snapshotted is its entry's in the registry (`romergo.story.kinds`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError
from romergo.story.kinds import KINDS, Action, EntityType, Kind
from romergo.story.positions import placed, renumbered
from romergo.story.restore_moves import save_moved
from romergo.story.shapes import STATE_FIELDS

if TYPE_CHECKING:
    from romergo.story.base import Mutation

NOT_FIELDS = frozenset({"id", "position", "choices", "lines", "scenes", "deleted", "share_id", "published"})
"""Snapshot keys that are not fields written back as they were (positions are re-placed, lists
put back one by one, publishing is kept)."""


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
    """A recorded change: a revision's record, as the ledger or the history holds it."""

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
        self.restored = 0
        self.kept: list[str] = []

    async def restore(self, entity: ChangedEntity) -> None:
        kind = KINDS[entity.entity_type]
        if kind.inside is not None:
            return  # it travels inside the snapshot of its owner (a scene's choices)
        record = await self.tx.story.entity(kind.entity_type, entity.entity_id)
        exists = record is not None and not _is_deleted(record)  # a deleted asset is still there
        if entity.before is None:
            if exists:
                await self._remove(kind, record)
        elif not exists:
            if entity.after is None:
                await self._recreate(kind, entity)
        else:
            await self._revert_fields(kind, entity, record)

    # ---- the three moves -------------------------------------------------------------------------

    async def _remove(self, kind: Kind, record: Any) -> None:
        if kind.remove is None:
            self.kept.append(kind.kept_created)
            return
        before = await kind.snapshot(self.tx, record, True)
        await kind.remove(self.tx, record)
        if kind.parent is not None:
            column = kind.parent.column
            rest = await self.tx.story.lying_in(kind.entity_type, column, getattr(record, column))
            await save_moved(self.tx, kind.entity_type, rest, renumbered(rest))
        self.tx.record(kind.entity_type, record.id, "deleted", before, None)
        self.restored += 1

    async def _recreate(self, kind: Kind, entity: ChangedEntity) -> None:
        if kind.recreate is None:
            self.kept.append(kind.kept_deleted)
            return
        record = await kind.recreate(self.tx, entity.entity_id, entity.to_recreate)
        after = await kind.snapshot(self.tx, record, True)
        self.tx.record(kind.entity_type, entity.entity_id, "created", None, after)
        self.restored += 1

    async def _revert_fields(self, kind: Kind, entity: ChangedEntity, record: Any) -> None:
        target = entity.before or {}
        changed = entity.changed_fields
        if changed & kind.kept_fields:
            self.kept.append(kind.kept_fields_note)
        parent = kind.parent.column if kind.parent else ""
        before = await kind.snapshot(self.tx, record, False)
        reverted = replace(record, **_written(record, target, changed - NOT_FIELDS - {parent}))
        moved = bool(changed & {"position", parent}) and kind.parent is not None
        if moved:
            reverted = await self._move(kind, reverted, target)
        for key, put_back in kind.lists.items():
            if key in changed:
                await put_back(self.tx, reverted, target.get(key, []))
        after = await kind.snapshot(self.tx, reverted, False)
        only_moved = moved and not (changed - {"position", parent})
        action: Action = "moved" if only_moved else "updated"
        if self.tx.changed(kind.entity_type, record.id, before, after, action):
            if hasattr(reverted, "updated_at"):
                reverted = replace(reverted, updated_at=utcnow())
            await self.tx.story.save_entity(kind.entity_type, reverted)
            self.restored += 1

    # ---- helpers ---------------------------------------------------------------------------------

    async def _move(self, kind: Kind, record: Any, target: dict[str, Any]) -> Any:
        """`record` back under the parent and at the place `target` gives, its siblings there and
        where it leaves renumbered."""
        assert kind.parent is not None
        column = kind.parent.column
        old_parent = getattr(record, column)
        new_parent = target.get(column, old_parent)
        if new_parent != old_parent and await self.tx.story.entity(kind.parent.kind, new_parent) is None:
            title = kind.title(target)
            raise RomergoError("conflict", f'"{title}" cannot go back: where it was no longer exists.')
        record = replace(record, **{column: new_parent})
        siblings = await self.tx.story.lying_in(kind.entity_type, column, new_parent)
        in_order = placed(siblings, record, target.get("position"))
        others = [sibling for sibling in in_order if sibling.id != record.id]
        await save_moved(self.tx, kind.entity_type, siblings, others)
        if new_parent != old_parent:
            left = [
                r
                for r in await self.tx.story.lying_in(kind.entity_type, column, old_parent)
                if r.id != record.id
            ]
            await save_moved(self.tx, kind.entity_type, left, renumbered(left))
        return next(sibling for sibling in in_order if sibling.id == record.id)


def _written(record: Any, target: dict[str, Any], changed: set[str]) -> dict[str, Any]:
    """The fields of `record` to put back as `target` holds them. A snapshot leaves out the story
    state's fields while unset (`shapes.STATE_FIELDS`): missing there means None."""
    return {
        name: target.get(name)
        for name in changed
        if (name in target or name in STATE_FIELDS) and hasattr(record, name)
    }


def _is_deleted(record: Any) -> bool:
    return getattr(record, "deleted_at", None) is not None
