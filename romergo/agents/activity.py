"""Each agent's last accepted and last refused tool call, for the settings page.

A refusal is written at once: it is rare, and it is the proof the owner looks for ("it tried,
and got nothing"). An accepted call is noted in this process (`agents.noted`) and every
`WRITE_EVERY` one write stores the newest call of every agent that made one: neither an agent's
busy work nor a thousand agents long-polling all day (a wait lasts up to 50 s) costs a write per
call. The page reads the database and lays this process's newer calls over it, so only another
instance's page, or one after a restart, sees a call up to a minute late, as with a token's "last
used".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, or_
from sqlalchemy.sql.dml import UpdateBase
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.agents.noted import NotedWrites
from romergo.clock import Clock, SystemClock, as_utc
from storage import Database
from storage.core_tables import AGENT_ACTIVITY
from storage.tables import AgentActivity

WRITE_EVERY = timedelta(minutes=1)
REFUSAL_CODES = frozenset(
    {"permission_denied", "out_of_scope", "channel_ended", "not_member", "rate_limited", "unauthorized"}
)
"""Error codes that mean Romergo refused the call (not that the call itself was wrong)."""


@dataclass(frozen=True)
class CallActivity:
    last_accepted_tool: str | None = None
    last_accepted_at: datetime | None = None
    last_refused_tool: str | None = None
    last_refused_at: datetime | None = None
    last_refused_code: str | None = None


class ActivityLog:
    def __init__(self, db: Database, clock: Clock | None = None) -> None:
        self.db = db
        self.clock: Clock = clock or SystemClock()
        self.accepted_calls: NotedWrites[tuple[str, str], tuple[str, datetime]] = NotedWrites(
            db,
            _accepted_statement(db),
            _accepted_params,
            every=WRITE_EVERY.total_seconds(),
            keep_first=False,
            what="agents' last accepted calls",
        )
        """(user id, client id) → the newest accepted call's tool and moment, not written yet."""

    def accepted(self, user_id: str, client_id: str, tool: str) -> None:
        self.accepted_calls.note((user_id, client_id), (tool, self.clock.now()))

    async def refused(self, user_id: str, client_id: str, tool: str, code: str) -> None:
        async with self.db.write() as session:
            row = await _row(session, (user_id, client_id))
            row.last_refused_tool, row.last_refused_at, row.last_refused_code = tool, self.clock.now(), code
            session.add(row)

    async def of_user(self, user_id: str) -> dict[str, CallActivity]:
        """Client id → its last accepted and refused calls for this user."""
        async with self.db.read() as session:
            rows = (await session.exec(select(AgentActivity).where(AgentActivity.user_id == user_id))).all()
        found = {
            row.client_id: CallActivity(
                row.last_accepted_tool,
                row.last_accepted_at,
                row.last_refused_tool,
                row.last_refused_at,
                row.last_refused_code,
            )
            for row in rows
        }
        for (owner, client_id), (tool, at) in self.accepted_calls.pending().items():
            if owner != user_id:
                continue
            known = found.get(client_id, CallActivity())
            if known.last_accepted_at is None or as_utc(known.last_accepted_at) <= at:
                found[client_id] = replace(known, last_accepted_tool=tool, last_accepted_at=at)
        return found


async def _row(session: AsyncSession, key: tuple[str, str]) -> AgentActivity:
    user_id, client_id = key
    return await session.get(AgentActivity, key) or AgentActivity(user_id=user_id, client_id=client_id)


def _accepted_statement(db: Database) -> UpdateBase:
    """Each agent's newest accepted call, its row made if it has none. An instance that writes
    later than another never puts an older call over a newer one."""
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


def _accepted_params(key: tuple[str, str], call: tuple[str, datetime]) -> dict[str, Any]:
    (user_id, client_id), (tool, at) = key, call
    return {"user_id": user_id, "client_id": client_id, "tool": tool, "at": at}
