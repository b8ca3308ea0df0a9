"""What a room's rules read inside a transaction already open: where story entities lie (now, or
as their last revision recorded them), the project's chapters in story order, a command's changes.

Bound to that transaction's session, so what it reads is what the transaction sees (its own writes
included) and no second transaction is opened on the busy path.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.records import RecordedRevision
from storage.records import record_of
from storage.story.entity_tables import TABLES
from storage.tables import Chapter, Revision


class RoomReadsInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def chapter_order(self, project_id: str) -> list[str]:
        statement = select(Chapter.id).where(Chapter.project_id == project_id).order_by(col(Chapter.position))
        return list((await self.session.exec(statement)).all())

    async def command_revisions(self, command_id: str) -> list[RecordedRevision]:
        rows = (
            await self.session.exec(
                select(Revision).where(Revision.command_id == command_id).order_by(col(Revision.id))
            )
        ).all()
        return [recorded_revision(row) for row in rows]

    async def parents_now_or_recorded(
        self, project_id: str, entity_type: str, ids: set[str], parent_column: str
    ) -> dict[str, str]:
        if not ids:
            return {}
        table = TABLES[entity_type]
        statement = select(table.id, getattr(table, parent_column)).where(
            table.project_id == project_id, col(table.id).in_(ids)
        )
        found: dict[str, str] = {ident: place for ident, place in (await self.session.exec(statement)).all()}
        missing = ids - set(found)
        if missing:
            history = select(Revision.entity_id, Revision.before, Revision.after).where(
                Revision.project_id == project_id,
                Revision.entity_type == entity_type,
                col(Revision.entity_id).in_(missing),
            )
            for ident, before, after in (await self.session.exec(history.order_by(col(Revision.id)))).all():
                place = (after or before or {}).get(parent_column)
                if isinstance(place, str):
                    found[ident] = place
        return found


def recorded_revision(row: Any) -> RecordedRevision:
    """A revision's columns the changes list shows, from its entity or a driver's row."""
    return record_of(RecordedRevision, row)
