"""What each agent last read, as stored: one row per agent (OAuth client) and entity, holding the
revision it last saw. A mark only ever moves forward."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import func, select
from sqlmodel import select as typed_select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.core_tables import AGENT_READS, REVISIONS
from storage.database import Database

_ROWS_PER_STATEMENT = 500
"""A whole outline's marks in few statements, each well under the databases' parameter limits."""


async def store_marks(db: Database, session: AsyncSession, client_id: str, marks: Mapping[str, int]) -> None:
    """One statement (per `_ROWS_PER_STATEMENT` entities), never moving a mark back, inside
    `session`'s transaction."""
    rows = [
        {"client_id": client_id, "entity_id": entity_id, "revision": number}
        for entity_id, number in sorted(marks.items())  # one order: two calls never wait on each other
    ]
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        new = db.upsert(AGENT_READS).values(rows[start : start + _ROWS_PER_STATEMENT])
        await session.exec(
            new.on_conflict_do_update(
                index_elements=[AGENT_READS.c.client_id, AGENT_READS.c.entity_id],
                set_={"revision": new.excluded.revision},
                where=AGENT_READS.c.revision < new.excluded.revision,
            )
        )


async def mark_and_newest(
    session: AsyncSession, client_id: str, project_id: str, entity_type: str, entity_id: str
) -> tuple[int | None, int | None]:
    """The revision of the entity this agent's mark holds, and the entity's newest: one query."""
    stored = (
        select(AGENT_READS.c.revision)
        .where(AGENT_READS.c.client_id == client_id, AGENT_READS.c.entity_id == entity_id)
        .scalar_subquery()
    )
    newest = (
        select(func.max(REVISIONS.c.id))
        .where(
            REVISIONS.c.project_id == project_id,
            REVISIONS.c.entity_type == entity_type,
            REVISIONS.c.entity_id == entity_id,
        )
        .scalar_subquery()
    )
    row = (await session.exec(typed_select(stored, newest))).one()
    return row[0], row[1]
