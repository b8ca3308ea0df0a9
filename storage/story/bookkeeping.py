"""What a unit of work reads and writes around the changes a story service states: which project an
entity lies in and the asker's role there, the revisions and what they say of an entity, the
project's stamp, and the rows a long write sets many at a time (`romergo.story.ledger.
StoryTransaction`, its bookkeeping half).

Each statement is built once (per table, per set of columns): these run in nearly every story
call, and building a statement (coercing its parts, computing its cache key) cost about as much
as running it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import Table, bindparam, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import SQLModel, col, select

from storage.core_tables import PROJECTS, REVISIONS, core_table
from storage.records import columns_of, record_of
from storage.story.entity_tables import TABLES
from storage.story.members import ROLE, membership
from storage.story.read_marks import mark_and_newest
from storage.story.records import HeldProject, ProjectRecord, RevisionRecord
from storage.story.revisions import newest_revisions
from storage.story.transaction import Transaction
from storage.tables import Project, ProjectMember, Revision


class Bookkeeping:
    def __init__(self, session: Transaction) -> None:
        self.session = session
        self._held: list[Any] = []
        """The rows read here, held until the transaction ends: the session's identity map holds
        them weakly, and a save of a record read here must find its row there, reading nothing."""

    async def project_holding(self, entity_type: str, entity_id: str, member_id: str) -> HeldProject | None:
        """One statement reads the entity with its project and the role of `member_id` in it; the
        entity's row stays in this transaction, so reading its record next reads nothing."""
        params = {"entity_id": entity_id, "member_id": member_id}
        found = (await self.session.exec(_with_project(entity_type), params=params)).first()
        if found is None:
            return None
        *rows, role = found
        self._held += rows
        return HeldProject(record_of(ProjectRecord, rows[-1]), role)

    async def touch_project(self, project_id: str, at: datetime) -> ProjectRecord:
        """The project stamped as changed at `at`: one UPDATE, the project's row in this transaction
        told the same without being written again."""
        await self.session.exec(_TOUCH_PROJECT, params={"project_id": project_id, "at": at})
        row = await self.session.get(Project, project_id)  # in the identity map: reads nothing
        if row is None:
            raise LookupError(f"no project {project_id} to stamp")
        set_committed_value(row, "updated_at", at)
        return record_of(ProjectRecord, row)

    async def write_revisions(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """In one INSERT, their ids in the order given."""
        if rows:
            await self.session.exec(_INSERT_REVISIONS, params=list(rows))

    async def latest_revisions(
        self, project_id: str, types: Collection[str], ids: Collection[str] | None = None
    ) -> dict[str, int]:
        return await newest_revisions(self.session, project_id, types, ids)

    async def newest_revision(
        self, project_id: str, entity_type: str, entity_id: str
    ) -> RevisionRecord | None:
        params = {"project_id": project_id, "entity_type": entity_type, "entity_id": entity_id}
        found = (await self.session.exec(_NEWEST_REVISION, params=params)).first()
        return None if found is None else record_of(RevisionRecord, found)

    async def snapshot_at(
        self, project_id: str, entity_type: str, entity_id: str, revision: int
    ) -> dict[str, Any] | None:
        params = {"project_id": project_id, "entity_type": entity_type, "entity_id": entity_id}
        found = (
            await self.session.exec(_FIRST_BEFORE_AFTER, params={**params, "revision": revision})
        ).first()
        return None if found is None else dict(found)

    async def mark_and_newest(
        self, client_id: str, project_id: str, entity_type: str, entity_id: str
    ) -> tuple[int | None, int | None]:
        return await mark_and_newest(self.session, client_id, project_id, entity_type, entity_id)

    async def insert_rows(self, entity_type: str, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            await self.session.exec(_insert(entity_type), params=list(rows))

    async def update_rows(self, entity_type: str, rows: Sequence[Mapping[str, Any]]) -> None:
        if not rows:
            return
        columns = tuple(sorted(name for name in rows[0] if name != "id"))
        params = [{"bulk_id": row["id"], **{f"bulk_{name}": row[name] for name in columns}} for row in rows]
        await self.session.exec(_update(entity_type, columns), params=params)

    async def _save(self, table: type[SQLModel], record: Any) -> None:
        """The row takes the record's values (it is in the identity map when the record was read
        in this transaction, so this reads nothing)."""
        row = await self.session.get(table, record.id)
        if row is None:
            raise LookupError(f"no {table.__name__} {record.id} to save")
        for name, value in columns_of(record).items():
            if getattr(row, name) != value:
                setattr(row, name, value)
        self.session.add(row)


def _table(entity_type: str) -> Table:
    return core_table(TABLES[entity_type])


@cache
def _with_project(entity_type: str) -> Any:
    model = TABLES[entity_type]
    if model is Project:
        return (
            select(Project, ROLE)
            .outerjoin(ProjectMember, membership(Project.id))
            .where(col(Project.id) == bindparam("entity_id"))
        )
    return (
        select(model, Project, ROLE)
        .join(Project, col(Project.id) == model.project_id)
        .outerjoin(ProjectMember, membership(Project.id))
        .where(col(model.id) == bindparam("entity_id"))
    )


@cache
def _insert(entity_type: str) -> Any:
    return insert(_table(entity_type))


@cache
def _update(entity_type: str, columns: tuple[str, ...]) -> Any:
    table = _table(entity_type)
    return (
        update(table)
        .where(table.c.id == bindparam("bulk_id"))
        .values({column: bindparam(f"bulk_{column}") for column in columns})
    )


_INSERT_REVISIONS = insert(REVISIONS)
_TOUCH_PROJECT = (
    update(PROJECTS).where(PROJECTS.c.id == bindparam("project_id")).values(updated_at=bindparam("at"))
)
_ENTITY = (
    col(Revision.project_id) == bindparam("project_id"),
    col(Revision.entity_type) == bindparam("entity_type"),
    col(Revision.entity_id) == bindparam("entity_id"),
)
_NEWEST_REVISION = select(Revision).where(*_ENTITY).order_by(col(Revision.id).desc()).limit(1)
# The entity as it was at a revision: the `before` of its first later change.
_FIRST_BEFORE_AFTER = (
    select(Revision.before)
    .where(*_ENTITY, col(Revision.id) > bindparam("revision"))
    .order_by(col(Revision.id))
    .limit(1)
)
