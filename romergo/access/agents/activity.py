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

from romergo.access.agents.ledger import ActivityLedger
from romergo.access.agents.noted import NotedWrites
from romergo.common.clock import Clock, SystemClock, as_utc

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
    def __init__(self, ledger: ActivityLedger, clock: Clock | None = None) -> None:
        self.ledger = ledger
        self.clock: Clock = clock or SystemClock()
        self.accepted_calls: NotedWrites[tuple[str, str], tuple[str, datetime]] = NotedWrites(
            ledger.store_accepted,
            every=WRITE_EVERY.total_seconds(),
            keep_first=False,
            what="agents' last accepted calls",
        )
        """(user id, client id) → the newest accepted call's tool and moment, not written yet."""

    def accepted(self, user_id: str, client_id: str, tool: str) -> None:
        self.accepted_calls.note((user_id, client_id), (tool, self.clock.now()))

    async def refused(self, user_id: str, client_id: str, tool: str, code: str) -> None:
        await self.ledger.record_refusal(user_id, client_id, tool, self.clock.now(), code)

    async def of_user(self, user_id: str) -> dict[str, CallActivity]:
        """Client id → its last accepted and refused calls for this user."""
        found = {
            row.client_id: CallActivity(
                row.last_accepted_tool,
                row.last_accepted_at,
                row.last_refused_tool,
                row.last_refused_at,
                row.last_refused_code,
            )
            for row in await self.ledger.of_user(user_id)
        }
        for (owner, client_id), (tool, at) in self.accepted_calls.pending().items():
            if owner != user_id:
                continue
            known = found.get(client_id, CallActivity())
            if known.last_accepted_at is None or as_utc(known.last_accepted_at) <= at:
                found[client_id] = replace(known, last_accepted_tool=tool, last_accepted_at=at)
        return found
