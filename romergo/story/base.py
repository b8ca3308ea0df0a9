"""The transaction seam every story service uses: ownership checks, revisions, change events.

Each service gets one `StoryStore` (composition, not inheritance). A service method opens
`store.write(actor)`, loads what it touches through the unit of work (which refuses anything
outside the actor's projects with `not_found`, revealing nothing), and states each change: as a
record written through the story ledger's transaction (`tx.story.save_character(...)`, then
`tx.changed(...)`), or, in the services not moved yet, as a changed row and `record(...)` (or
`save(...)`). The Revisions land in the same transaction; the change event is published only
after the commit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.common.actors import Actor
from romergo.common.bus import EventBus, project_topic, user_topic
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid, not_found, project_not_found
from romergo.common.ids import new_id
from romergo.story.kinds import LABELS, Action, EntityType
from romergo.story.ledger import (
    ChapterRecord,
    CharacterRecord,
    LineRecord,
    SceneRecord,
    StoryLedger,
    StoryTransaction,
    VariableRecord,
)
from romergo.story.owners import readable_by
from romergo.story.read_marks import remember_in
from romergo.story.revisions import latest_revisions, note_written, wants_written
from storage import Database
from storage.core_tables import PROJECTS, REVISIONS
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Project, Scene, StoryVariable

Row = TypeVar("Row", bound=SQLModel)
Found = TypeVar("Found", CharacterRecord, VariableRecord, LineRecord, ChapterRecord, SceneRecord)


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

    def __init__(self, session: AsyncSession, actor: Actor, story: StoryTransaction) -> None:
        self.session = session
        self.actor = actor
        self.story = story
        """The story ledger's reads and writes in this transaction, in records."""
        self.project: Project | None = None

    async def project_by_id(self, project_id: str) -> Project:
        row = await self.session.get(Project, project_id) if isinstance(project_id, str) else None
        project = owned(row, self.actor.user_id, project_id)
        self._bind(project)
        return project

    async def chapter(self, chapter_id: str) -> ChapterRecord:
        row = await self._owned(Chapter, chapter_id, "chapter")
        return await self._record(self.story.chapter(chapter_id), row)

    async def scene(self, scene_id: str) -> SceneRecord:
        row = await self._owned(Scene, scene_id, "scene")
        return await self._record(self.story.scene(scene_id), row)

    async def line(self, line_id: str) -> LineRecord:
        row = await self._owned(DialogueLine, line_id, "dialogue_line")
        return await self._record(self.story.line(line_id), row)

    async def character(self, character_id: str) -> CharacterRecord:
        row = await self._owned(Character, character_id, "character")
        return await self._record(self.story.character(character_id), row)

    async def variable(self, variable_id: str) -> VariableRecord:
        row = await self._owned(StoryVariable, variable_id, "variable")
        return await self._record(self.story.variable(variable_id), row)

    async def asset(self, asset_id: str, *, include_deleted: bool = False) -> Asset:
        row = await self._owned(Asset, asset_id, "asset")
        if row.deleted_at is not None and not include_deleted:
            raise not_found(LABELS["asset"], asset_id)
        return row

    async def asset_id_of_kind(self, asset_id: str | None, kinds: tuple[str, ...]) -> str | None:
        """Resolve an asset reference for a slot that takes only `kinds`; None clears the slot."""
        if asset_id is None:
            return None
        asset = await self.asset(asset_id)
        if asset.kind not in kinds:
            wanted = " or ".join(kinds)
            raise invalid(f'Asset "{asset.name}" is a {asset.kind} asset; this needs a {wanted} asset.')
        return asset.id

    async def ordered(self, model: type[Row], parent_column: Any, parent_id: str) -> list[Row]:
        statement = _children_in_order(model, parent_column.key)
        return list((await self.session.exec(statement, params={"parent_id": parent_id})).all())

    async def choices_of(self, scene_id: str) -> list[Choice]:
        return await self.ordered(Choice, col(Choice.scene_id), scene_id)

    async def _owned(self, model: type[Row], entity_id: str, entity_type: EntityType) -> Row:
        kind = LABELS[entity_type]
        if not isinstance(entity_id, str) or not entity_id:
            raise not_found(kind, str(entity_id))
        if self.project is not None:
            row = await self.session.get(model, entity_id)
            if row is None or row.project_id != self.project.id:  # type: ignore[attr-defined]
                raise not_found(kind, entity_id)
            return row
        # The first lookup of a unit of work reads the row and its project in one statement.
        statement = _with_project(model)
        found = (await self.session.exec(statement, params={"entity_id": entity_id})).first()
        if found is None:
            raise not_found(kind, entity_id)
        row, project = found
        if not readable_by(project, self.actor.user_id):
            raise not_found(kind, entity_id)
        self._bind(project)
        owned: Row = row
        return owned

    @staticmethod
    async def _record(read: Awaitable[Found | None], row: object) -> Found:
        """The record of the `row` `_owned` just found, from the identity map (which holds `row`
        only while it is referenced), so the first lookup stays one statement."""
        found = await read
        del row
        assert found is not None, "read in this transaction a moment ago"
        return found

    def _bind(self, project: Project) -> None:
        if self.project is not None and self.project.id != project.id:
            raise RomergoError("invalid_argument", "One change can only touch one project.")
        self.project = project


# Built once per model: these run in nearly every story call, and building a statement (coercing
# its parts, computing its cache key) cost about as much as running it.
@cache
def _children_in_order(model: type[Row], parent: str) -> Any:
    return select(model).where(getattr(model, parent) == bindparam("parent_id")).order_by(col(model.position))  # type: ignore[attr-defined]


@cache
def _with_project(model: type[Row]) -> Any:
    return (
        select(model, Project)
        .join(Project, col(Project.id) == model.project_id)  # type: ignore[attr-defined]
        .where(col(model.id) == bindparam("entity_id"))  # type: ignore[attr-defined]
    )


class Mutation(UnitOfWork):
    def __init__(self, session: AsyncSession, actor: Actor, story: StoryTransaction) -> None:
        super().__init__(session, actor, story)
        self.changes: list[EntityChange] = []
        self.batch_id = new_id("bat")
        self.reverts: str | None = None
        """Set by an undo: what its revisions take back (`command:<id>` or `batch:<id>`)."""
        self._revisions: list[dict[str, Any]] = []
        """Recorded, written at the end: as Core rows, not `Revision` entities, whose construction
        and flush cost about as much as the change itself."""

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
        if rows:
            await self.session.exec(_INSERT_REVISIONS, params=rows)

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

    def place(self, siblings: Sequence[Row], row: Row, position: int | None) -> None:
        """Put `row` among `siblings` at `position` (None = at the end) and stage every renumbered row."""
        self.session.add_all(place(siblings, row, position))

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

    def save(
        self,
        entity_type: EntityType,
        row: Any,
        before: dict[str, Any],
        after: dict[str, Any],
        action: Action = "updated",
        *,
        touch: bool = True,
    ) -> bool:
        """Record `row` as changed unless its snapshot stayed the same; False when nothing changed.

        `touch` stamps `updated_at` (rows without one, and line moves, pass False).
        """
        if after == before:
            return False
        if touch:
            row.updated_at = utcnow()
        self.session.add(row)
        self.record(entity_type, row.id, action, before, after)
        return True

    async def finish(self) -> None:
        """The project stamped as changed, and the revisions written (the changed rows are flushed
        before the first statement)."""
        if self.changes and self.project is not None:
            now = utcnow()
            await self.session.exec(_TOUCH_PROJECT, params={"project_id": self.project.id, "at": now})
            set_committed_value(self.project, "updated_at", now)
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
            found = await latest_revisions(self.session, self.project.id, (entity_type,), ids)
            note_written({(entity_type, entity_id): number for entity_id, number in found.items()})


_INSERT_REVISIONS = insert(REVISIONS)
_TOUCH_PROJECT = (
    update(PROJECTS).where(PROJECTS.c.id == bindparam("project_id")).values(updated_at=bindparam("at"))
)


class StoryStore:
    """Opens the units of work the story services run in, and publishes what a write changed."""

    def __init__(self, db: Database, bus: EventBus, ledger: StoryLedger) -> None:
        self.db = db
        self.bus = bus
        self.ledger = ledger

    @asynccontextmanager
    async def write(self, actor: Actor) -> AsyncIterator[Mutation]:
        async with self.db.write() as session:
            tx = Mutation(session, actor, self.ledger.within(session))
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
            yield UnitOfWork(session, actor, self.ledger.within(session))

    @asynccontextmanager
    async def read_public(self) -> AsyncIterator[AsyncSession]:
        """A read on behalf of nobody: what a share link may show, never checked against an owner."""
        async with self.db.read() as session:
            yield session

    def _publish(self, tx: Mutation) -> None:
        if not tx.changes or tx.project is None:
            return
        event = StoryChanged(tx.project.id, tuple(tx.changes), tx.actor)
        self.bus.publish(project_topic(tx.project.id), event)
        if any(change.entity_type == "project" for change in tx.changes):
            self.bus.publish(user_topic(tx.project.owner_id), event)


def owned(project: Project | None, user_id: str, project_id: object) -> Project:
    """The project if `user_id` owns it and it is not deleted, else `not_found` (the same words
    whether it is missing, someone else's or deleted)."""
    if project is None or not readable_by(project, user_id):
        raise project_not_found(project_id)
    return project


def place(rows: Sequence[Row], row: Row, position: int | None) -> list[Row]:
    """Put `row` at `position` (clamped; None = at the end) and renumber the list 0..n-1."""
    others = [r for r in rows if r.id != row.id]  # type: ignore[attr-defined]
    index = len(others) if position is None else max(0, min(position, len(others)))
    ordered = [*others[:index], row, *others[index:]]
    renumber(ordered)
    return ordered


def renumber(rows: Sequence[SQLModel]) -> None:
    for index, row in enumerate(rows):
        if row.position != index:  # type: ignore[attr-defined]
            row.position = index
