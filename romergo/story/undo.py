"""Undo and redo: take back a set of changes (an agent's command, or one write of the author) by
writing new revisions, never by deleting history.

A change set is `command:<id>` (every revision an agent's command made) or `batch:<id>` (the
revisions of one transaction, e.g. one click of the author, or an earlier undo). Taking it back
restores, per entity, the state before the set's first change, newest entity first, in one
transaction attributed to the user; the new batch remembers what it reverts. Undoing that batch
is the redo. Deleted entities come back with their ids and children, so choices that still point
to a deleted scene lead to it again.

Conflicts: an entity that changed after the set (by anyone) is listed and the whole set is left
alone, unless `force`, which overwrites only the fields the set changed. Publishing is never
taken back (its frozen story is not in the revision); such changes are reported as kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from romergo.common.actors import Actor
from romergo.common.errors import RomergoError
from romergo.story.base import Mutation, StoryStore
from romergo.story.kinds import KINDS, Held
from romergo.story.ledger import RevisionRecord, StoryTransaction
from romergo.story.restore import ChangedEntity, Restorer, changed_entities


@dataclass(frozen=True)
class Conflict:
    """An entity the set changed that someone changed again afterwards."""

    entity_type: str
    entity_id: str
    title: str
    actor_type: str
    tool: str | None
    at: datetime | None


@dataclass(frozen=True)
class UndoOutcome:
    reverted: int
    """Entities restored; 0 with conflicts means nothing was changed."""
    conflicts: list[Conflict] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Changes undo does not take back, in words (publishing)."""
    batch_id: str | None = None
    """The undo's own batch: undoing it is the redo."""


@dataclass(frozen=True)
class SetStatus:
    """Where a change set stands: `undone` after an odd number of undo/redo steps."""

    key: str
    head: str
    steps: int
    changes: int

    @property
    def undone(self) -> bool:
        return self.steps % 2 == 1


class UndoService:
    def __init__(self, store: StoryStore) -> None:
        self.store = store

    async def status(self, actor: Actor, key: str) -> SetStatus:
        async with self.store.read(actor) as uow:
            revisions = await _revisions(uow.story, key)
            if revisions:
                await uow.project_by_id(revisions[0].project_id)
            head, steps = await _head(uow.story, key)
            changes = len({(r.entity_type, r.entity_id) for r in revisions})
            return SetStatus(key, head, steps, changes)

    async def undo(self, actor: Actor, key: str, *, force: bool = False, redo: bool = False) -> UndoOutcome:
        """Take back the set `key` (`command:<id>` / `batch:<id>`); with `redo`, take back its undo.

        Refused with `conflict` when the set is already in the wanted state or changed nothing.
        """
        async with self.store.write(actor) as tx:
            head, steps = await _head(tx.story, key)
            if steps % 2 == (0 if redo else 1):
                raise RomergoError("conflict", "Nothing to redo." if redo else "This was already undone.")
            revisions = await _revisions(tx.story, head)
            if not revisions:
                raise RomergoError("conflict", "Nothing to undo: it changed nothing in the story.")
            await tx.project_by_id(revisions[0].project_id)
            entities = changed_entities(revisions)
            conflicts = await _conflicts(tx, revisions, entities)
            if conflicts and not force:
                return UndoOutcome(reverted=0, conflicts=conflicts)
            tx.reverts = head
            restorer = Restorer(tx)
            for entity in reversed(entities):
                await restorer.restore(entity)
            return UndoOutcome(
                reverted=restorer.restored, conflicts=conflicts, kept=restorer.kept, batch_id=tx.batch_id
            )


# ---- change sets ---------------------------------------------------------------------------------


async def _revisions(story: StoryTransaction, key: str) -> list[RevisionRecord]:
    kind, _, ident = key.partition(":")
    if kind not in ("command", "batch"):
        raise RomergoError("invalid_argument", f'"{key}" names no set of changes.')
    return await story.change_set(kind, ident)


async def _head(story: StoryTransaction, key: str) -> tuple[str, int]:
    """The newest step of the undo/redo chain that starts at `key`, and how many steps it has."""
    head, steps = key, 0
    while True:
        batch = await story.reverted_by(head)
        if batch is None:
            return head, steps
        head, steps = f"batch:{batch}", steps + 1


async def _conflicts(
    tx: Mutation, revisions: list[RevisionRecord], entities: list[ChangedEntity]
) -> list[Conflict]:
    own = {revision.id for revision in revisions}
    project_id = revisions[0].project_id
    created = {e.entity_id for e in entities if e.before is None}
    found: list[Conflict] = []
    for entity in entities:
        since = await tx.story.changes_after(
            project_id, entity.entity_type, entity.entity_id, entity.last_revision_id
        )
        later = [revision for revision in since if revision.id not in own]
        if later:
            found.append(_conflict(entity, later[-1]))
        elif entity.before is None:
            found.extend(await _held_since(tx, entity, created))
    return found


async def _held_since(tx: Mutation, entity: ChangedEntity, created: set[str]) -> list[Conflict]:
    """An entity the set created holds what someone else wrote since (a scene, lines): removing
    it would lose them."""
    kind = KINDS[entity.entity_type]
    for held in kind.guards:
        came_with_it = {item["id"] for item in (entity.after or {}).get(held.key, [])}
        if set(await _held_ids(tx, entity.entity_id, held)) - created - came_with_it:
            title = kind.title(entity.after or {})
            return [Conflict(entity.entity_type, entity.entity_id, title, "user", None, None)]
    return []


async def _held_ids(tx: Mutation, owner_id: str, held: Held) -> list[str]:
    child = KINDS[held.kind]
    assert child.parent is not None, f"{held.kind} lies in no other entity"
    return [record.id for record in await tx.story.lying_in(held.kind, child.parent.column, owner_id)]


def _conflict(entity: ChangedEntity, later: RevisionRecord) -> Conflict:
    snapshot = later.after or later.before or entity.before or entity.after or {}
    return Conflict(
        entity_type=entity.entity_type,
        entity_id=entity.entity_id,
        title=KINDS[entity.entity_type].title(snapshot),
        actor_type=later.actor_type,
        tool=later.tool,
        at=later.created_at,
    )
