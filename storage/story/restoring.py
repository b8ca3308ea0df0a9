"""What undo asks of the story ledger's transaction: any kind of entity read and saved by its type,
the entities lying in another in order, and the revisions of a change set and of what came after.

The core names kinds by entity type ("scene", "dialogue_line"); which table and which record each
is, is this package's (`entity_tables`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, select

from storage.records import record_of
from storage.story.bookkeeping import Bookkeeping
from storage.story.entity_tables import TABLES
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRecord,
    ProjectRecord,
    RevisionRecord,
    SceneRecord,
    VariableRecord,
)
from storage.tables import Revision

RECORDS: dict[str, type[Any]] = {
    "project": ProjectRecord,
    "chapter": ChapterRecord,
    "scene": SceneRecord,
    "dialogue_line": LineRecord,
    "choice": ChoiceRecord,
    "character": CharacterRecord,
    "asset": AssetRecord,
    "variable": VariableRecord,
}
"""The record each entity type is read and saved as."""


class RestoringTransaction(Bookkeeping):
    """The undo part of `writes.SessionStoryTransaction`, on the same session."""

    async def entity(self, entity_type: str, entity_id: str) -> Any | None:
        row = await self.session.get(TABLES[entity_type], entity_id)
        if row is None:
            return None
        self._held.append(row)
        return record_of(RECORDS[entity_type], row)

    async def save_entity(self, entity_type: str, record: Any) -> None:
        await self._save(TABLES[entity_type], record)

    async def lying_in(self, entity_type: str, parent_column: str, parent_id: str) -> list[Any]:
        table = TABLES[entity_type]
        statement = select(table).where(getattr(table, parent_column) == parent_id)
        if hasattr(table, "position"):
            statement = statement.order_by(col(table.position))
        rows = list((await self.session.exec(statement)).all())
        self._held += rows
        return [record_of(RECORDS[entity_type], row) for row in rows]

    async def change_set(self, kind: str, ident: str) -> list[RevisionRecord]:
        statement = _COMMAND_SET if kind == "command" else _BATCH_SET
        rows = (await self.session.exec(statement, params={"ident": ident})).all()
        return [record_of(RevisionRecord, row, id=row.id or 0) for row in rows]

    async def reverted_by(self, change_set: str) -> str | None:
        found = await self.session.exec(_REVERTED_BY, params={"change_set": change_set})
        batch = found.first()
        return None if batch is None else str(batch)

    async def changes_after(
        self, project_id: str, entity_type: str, entity_id: str, revision_id: int
    ) -> list[RevisionRecord]:
        wanted = {"project_id": project_id, "entity_type": entity_type, "entity_id": entity_id}
        rows = (await self.session.exec(_CHANGES_AFTER, params={**wanted, "after": revision_id})).all()
        return [record_of(RevisionRecord, row, id=row.id or 0) for row in rows]


# Prebuilt: the driver compiles each once.
_COMMAND_SET = (
    select(Revision).where(col(Revision.command_id) == bindparam("ident")).order_by(col(Revision.id))
)
_BATCH_SET = select(Revision).where(col(Revision.batch_id) == bindparam("ident")).order_by(col(Revision.id))
_REVERTED_BY = (
    select(Revision.batch_id)
    .where(col(Revision.reverts) == bindparam("change_set"))
    .order_by(col(Revision.id).desc())
    .limit(1)
)
_CHANGES_AFTER = (
    select(Revision)
    .where(
        col(Revision.project_id) == bindparam("project_id"),
        col(Revision.entity_type) == bindparam("entity_type"),
        col(Revision.entity_id) == bindparam("entity_id"),
        col(Revision.id) > bindparam("after"),
    )
    .order_by(col(Revision.id))
)
