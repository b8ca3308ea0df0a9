"""The transaction seam every story service uses: members' rights, revisions, change events.

Each service gets one `StoryStore` (composition, not inheritance). A service method opens
`store.write(actor)`, loads what it touches through the unit of work (which refuses anything
outside the projects the actor is a member of with `not_found`, revealing nothing, and a write
by a member whose role may not change the story with `permission_denied`: `roles`), and states
each change: as a record written through the story ledger's transaction
(`tx.story.save_character(...)`, then `tx.changed(...)`, or `record(...)` for a creation or a
deletion). The Revisions land in the same
transaction; the change event is published only after the commit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from romergo.common.actors import Actor
from romergo.common.bus import EventBus, project_topic, user_topic
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid, not_found, project_not_found
from romergo.common.ids import new_id
from romergo.story import roles
from romergo.story.kinds import LABELS, Action, EntityType
from romergo.story.ledger import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    LineRecord,
    ProjectRecord,
    SceneRecord,
    StoryLedger,
    StoryTransaction,
    VariableRecord,
)
from romergo.story.owners import role_in
from romergo.story.read_marks import remember_in
from romergo.story.revisions import note_written, wants_written
from romergo.story.roles import Right, Role
from storage import Database


class _InProject(Protocol):
    @property
    def project_id(self) -> str: ...


Found = TypeVar("Found", bound=_InProject)


@dataclass(frozen=True)
class EntityChange:
    entity_type: EntityType
    entity_id: str
    action: Action


@dataclass(frozen=True)
class StoryChanged:
    """Published on `project:<id>` (and `user:<owner>` for project-level changes) after a commit."""

    project_id: str
    changes: tuple[EntityChange, ...]
    actor: Actor


_collected: ContextVar[list[EntityChange] | None] = ContextVar("romergo_collected_changes", default=None)
_batches: ContextVar[list[str] | None] = ContextVar("romergo_collected_batches", default=None)


@contextmanager
def collect_changes() -> Iterator[list[EntityChange]]:
    """Gather every change recorded inside this block (in this task): what a tool call changed."""
    changes: list[EntityChange] = []
    token = _collected.set(changes)
    try:
        yield changes
    finally:
        _collected.reset(token)


@contextmanager
def collect_batches() -> Iterator[list[str]]:
    """Gather the ids of the writes that changed something inside this block (in this task):
    what one click of the author made, for the tab's Ctrl+Z. Undos are not gathered: the tab
    keeps those on its redo list itself."""
    batches: list[str] = []
    token = _batches.set(batches)
    try:
        yield batches
    finally:
        _batches.reset(token)


class UnitOfWork:
    """One transaction on behalf of one actor, bound to one project once something is loaded."""

    def __init__(self, actor: Actor, story: StoryTransaction) -> None:
        self.actor = actor
        self.story = story
        """The story ledger's reads and writes in this transaction, in records."""
        self.project: ProjectRecord | None = None
        self.role: Role | None = None
        """The actor's role in `project`, read with it."""

    async def project_by_id(self, project_id: str) -> ProjectRecord:
        user_id = self.actor.user_id
        held = (
            await self.story.project_holding("project", project_id, user_id)
            if isinstance(project_id, str)
            else None
        )
        role = role_in(held)
        if held is None or role is None:
            raise project_not_found(project_id)
        self._bind(held.project, role)
        return held.project

    def require(self, right: Right) -> None:
        """Refuse the actor unless their role in the bound project grants `right`."""
        if self.role is None:
            raise RuntimeError("require() before the project was loaded")
        roles.require(self.role, right)

    async def chapter(self, chapter_id: str) -> ChapterRecord:
        return await self._owned("chapter", chapter_id, self.story.chapter)

    async def scene(self, scene_id: str) -> SceneRecord:
        return await self._owned("scene", scene_id, self.story.scene)

    async def line(self, line_id: str) -> LineRecord:
        return await self._owned("dialogue_line", line_id, self.story.line)

    async def character(self, character_id: str) -> CharacterRecord:
        return await self._owned("character", character_id, self.story.character)

    async def variable(self, variable_id: str) -> VariableRecord:
        return await self._owned("variable", variable_id, self.story.variable)

    async def asset(self, asset_id: str, *, include_deleted: bool = False) -> AssetRecord:
        asset = await self._owned("asset", asset_id, self.story.asset)
        if asset.deleted_at is not None and not include_deleted:
            raise not_found(LABELS["asset"], asset_id)
        return asset

    async def asset_id_of_kind(self, asset_id: str | None, kinds: tuple[str, ...]) -> str | None:
        """Resolve an asset reference for a slot that takes only `kinds`; None clears the slot."""
        if asset_id is None:
            return None
        asset = await self.asset(asset_id)
        if asset.kind not in kinds:
            wanted = " or ".join(kinds)
            raise invalid(f'Asset "{asset.name}" is a {asset.kind} asset; this needs a {wanted} asset.')
        return asset.id

    async def _owned(
        self, entity_type: EntityType, entity_id: str, read: Callable[[str], Awaitable[Found | None]]
    ) -> Found:
        kind = LABELS[entity_type]
        if not isinstance(entity_id, str) or not entity_id:
            raise not_found(kind, str(entity_id))
        if self.project is None:
            # The first lookup of a unit of work reads the entity and its project in one
            # statement; the read of its record that follows reads nothing more.
            held = await self.story.project_holding(entity_type, entity_id, self.actor.user_id)
            role = role_in(held)
            if held is None or role is None:
                raise not_found(kind, entity_id)
            self._bind(held.project, role)
        found = await read(entity_id)
        if found is None or self.project is None or found.project_id != self.project.id:
            raise not_found(kind, entity_id)
        return found

    def _bind(self, project: ProjectRecord, role: Role) -> None:
        if self.project is not None and self.project.id != project.id:
            raise RomergoError("invalid_argument", "One change can only touch one project.")
        self.project, self.role = project, role


class Mutation(UnitOfWork):
    def __init__(self, actor: Actor, story: StoryTransaction) -> None:
        super().__init__(actor, story)
        self.changes: list[EntityChange] = []
        self.batch_id = new_id("bat")
        self.reverts: str | None = None
        """Set by an undo: what its revisions take back (`command:<id>` or `batch:<id>`)."""
        self._revisions: list[dict[str, Any]] = []
        """Recorded, written at the end: as plain columns, not entities, whose construction and
        flush cost about as much as the change itself."""

    def _bind(self, project: ProjectRecord, role: Role) -> None:
        """A change needs a role that may write (`Right.WRITE`), refused before anything is written."""
        roles.require(role, Right.WRITE)
        super()._bind(project, role)

    def record(
        self,
        entity_type: EntityType,
        entity_id: str,
        action: Action,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
    ) -> None:
        self._revisions.append(self.revision_values(entity_type, entity_id, action, before, after))
        self.note_change(EntityChange(entity_type, entity_id, action))

    async def write_revisions(self, more: Sequence[dict[str, Any]] = ()) -> None:
        """The revisions recorded so far, then `more` (a bulk write's, from `revision_values`), in
        one INSERT: their ids follow the order of the changes. `finish` writes what is left."""
        rows, self._revisions = [*self._revisions, *more], []
        await self.story.write_revisions(rows)

    def revision_values(
        self,
        entity_type: EntityType,
        entity_id: str,
        action: Action,
        before: dict[str, Any] | None,
        after: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """A revision's columns, as `record` writes them (`story.bulk` writes many at once)."""
        if self.project is None:
            raise RuntimeError("record() before the project was loaded")
        return {
            "project_id": self.project.id,
            "entity_type": entity_type,
            "entity_id": entity_id,
            "action": action,
            "before": before,
            "after": after,
            "actor_type": self.actor.type,
            "actor_id": self.actor.actor_id,
            "command_id": self.actor.command_id,
            "tool": self.actor.tool,
            "client_id": self.actor.client_id,
            "created_at": utcnow(),
            "batch_id": self.batch_id,
            "reverts": self.reverts,
        }

    def note_change(self, change: EntityChange) -> None:
        self.changes.append(change)
        collected = _collected.get()
        if collected is not None:
            collected.append(change)

    def changed(
        self,
        entity_type: EntityType,
        entity_id: str,
        before: dict[str, Any],
        after: dict[str, Any],
        action: Action = "updated",
    ) -> bool:
        """Record a change written through `story` unless the snapshot stayed the same; False when
        nothing changed (and nothing is to be written)."""
        if after == before:
            return False
        self.record(entity_type, entity_id, action, before, after)
        return True

    async def finish(self) -> None:
        """The project stamped as changed, and the revisions written (the changed rows are flushed
        before the first statement)."""
        if self.changes and self.project is not None:
            self.project = await self.story.touch_project(self.project.id, utcnow())
            await self.write_revisions()
            if wants_written():
                await self._note_written()

    async def _note_written(self) -> None:
        """The revisions this write ended at, read inside it: exactly its own, whatever follows."""
        assert self.project is not None
        by_type: dict[str, set[str]] = {}
        for change in self.changes:
            by_type.setdefault(change.entity_type, set()).add(change.entity_id)
        for entity_type, ids in by_type.items():
            found = await self.story.latest_revisions(self.project.id, (entity_type,), ids)
            note_written({(entity_type, entity_id): number for entity_id, number in found.items()})


class StoryStore:
    """Opens the units of work the story services run in, and publishes what a write changed."""

    def __init__(self, db: Database, bus: EventBus, ledger: StoryLedger) -> None:
        self.db = db
        self.bus = bus
        self.ledger = ledger

    @asynccontextmanager
    async def write(self, actor: Actor) -> AsyncIterator[Mutation]:
        async with self.db.write() as session:
            tx = Mutation(actor, self.ledger.within(session))
            yield tx
            await tx.finish()
            await remember_in(self.db, session, actor.client_id)
        self._publish(tx)
        batches = _batches.get()
        if batches is not None and tx.changes and tx.reverts is None:
            batches.append(tx.batch_id)

    @asynccontextmanager
    async def read(self, actor: Actor) -> AsyncIterator[UnitOfWork]:
        async with self.db.read() as session:
            yield UnitOfWork(actor, self.ledger.within(session))

    def _publish(self, tx: Mutation) -> None:
        if not tx.changes or tx.project is None:
            return
        event = StoryChanged(tx.project.id, tuple(tx.changes), tx.actor)
        self.bus.publish(project_topic(tx.project.id), event)
        if any(change.entity_type == "project" for change in tx.changes):
            self.bus.publish(user_topic(tx.project.owner_id), event)
