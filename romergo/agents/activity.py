"""Each agent's last accepted and last refused tool call, for the settings page.

A refusal is written at once: it is rare, and it is the proof the owner looks for ("it tried,
and got nothing"). An accepted call is kept in this process and written at most once every
`WRITE_EVERY` per agent, so the busy path of an agent's work costs no extra write per call, nor
does an agent that long-polls all day (a wait lasts up to 50 s); the page reads the database and
lays this process's newer calls over it, so only another instance's page or one after a restart
sees a call up to a minute late, as with a token's "last used".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.clock import Clock, SystemClock, as_utc
from storage import Database
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
        self._accepted: dict[tuple[str, str], tuple[str, datetime]] = {}
        self._written: dict[tuple[str, str], datetime] = {}

    async def accepted(self, user_id: str, client_id: str, tool: str) -> None:
        now = self.clock.now()
        key = (user_id, client_id)
        self._accepted[key] = (tool, now)
        written = self._written.get(key)
        if written is not None and now - written < WRITE_EVERY:
            return
        self._written[key] = now
        async with self.db.write() as session:
            row = await _row(session, key)
            row.last_accepted_tool, row.last_accepted_at = tool, now
            session.add(row)

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
        for (owner, client_id), (tool, at) in self._accepted.items():
            if owner != user_id:
                continue
            known = found.get(client_id, CallActivity())
            if known.last_accepted_at is None or as_utc(known.last_accepted_at) <= at:
                found[client_id] = replace(known, last_accepted_tool=tool, last_accepted_at=at)
        return found


async def _row(session: AsyncSession, key: tuple[str, str]) -> AgentActivity:
    user_id, client_id = key
    return await session.get(AgentActivity, key) or AgentActivity(user_id=user_id, client_id=client_id)
