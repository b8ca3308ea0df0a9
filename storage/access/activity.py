"""Each agent's last accepted and last refused tool call per user (`agent_activity`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import bindparam, or_
from sqlalchemy.sql.dml import UpdateBase
from sqlmodel import select

from storage.access.records import AgentCalls
from storage.core_tables import AGENT_ACTIVITY
from storage.database import Database
from storage.tables import AgentActivity


class StoredActivity:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._accepted = _accepted_statement(db)

    async def record_refusal(self, user_id: str, client_id: str, tool: str, at: datetime, code: str) -> None:
        async with self.db.write() as session:
            row = await session.get(AgentActivity, (user_id, client_id))
            row = row or AgentActivity(user_id=user_id, client_id=client_id)
            row.last_refused_tool, row.last_refused_at, row.last_refused_code = tool, at, code
            session.add(row)

    async def store_accepted(self, calls: Mapping[tuple[str, str], tuple[str, datetime]]) -> None:
        """(user id, client id) → its newest accepted call's tool and moment, in one write. An
        older call never replaces a newer one another instance wrote meanwhile."""
        each = [
            {"user_id": user_id, "client_id": client_id, "tool": tool, "at": at}
            for (user_id, client_id), (tool, at) in calls.items()
        ]
        await self.db.write_rows(lambda rows: rows.run_many(self._accepted, each))

    async def of_user(self, user_id: str) -> list[AgentCalls]:
        async with self.db.read() as session:
            rows = (await session.exec(select(AgentActivity).where(AgentActivity.user_id == user_id))).all()
        return [
            AgentCalls(
                row.client_id,
                row.last_accepted_tool,
                row.last_accepted_at,
                row.last_refused_tool,
                row.last_refused_at,
                row.last_refused_code,
            )
            for row in rows
        ]


def _accepted_statement(db: Database) -> UpdateBase:
    """Each agent's newest accepted call, its row made if it has none (built once per database)."""
    table, newest = AGENT_ACTIVITY, AGENT_ACTIVITY.c.last_accepted_at
    new = db.upsert(table).values(
        user_id=bindparam("user_id"),
        client_id=bindparam("client_id"),
        last_accepted_tool=bindparam("tool"),
        last_accepted_at=bindparam("at"),
    )
    return new.on_conflict_do_update(
        index_elements=[table.c.user_id, table.c.client_id],
        set_={
            "last_accepted_tool": new.excluded.last_accepted_tool,
            "last_accepted_at": new.excluded.last_accepted_at,
        },
        where=or_(newest.is_(None), newest <= new.excluded.last_accepted_at),
    )
