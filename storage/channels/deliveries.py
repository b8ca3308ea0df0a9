"""Where a joining agent's waits start, and the caller's membership a join or a leave checks,
inside the channel's write transaction (a wait's own check runs on the driver:
`storage.channels.wait_checks`). A room and a membership found here come as frozen records; the
room's row stays in the session, so the events the transaction writes about it read it no more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.joins import CALLERS_MEMBERSHIP
from storage.channels.records import MembershipRecord, RoomRecord
from storage.channels.rooms import membership_record, room_record
from storage.tables import Channel, ChannelMember, Command


class DeliveriesInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def last_finished(self, channel_id: str, client_id: str, finished: Sequence[str]) -> int | None:
        """The number of the last command this client took that is in one of `finished`."""
        found = (
            await self.session.exec(
                select(Command.seq)
                .where(
                    Command.channel_id == channel_id,
                    Command.claimed_by == client_id,
                    col(Command.state).in_(finished),
                )
                .order_by(col(Command.seq).desc())
                .limit(1)
            )
        ).first()
        return None if found is None else int(found)

    async def oldest_queued(self, channel_id: str, client_id: str, queued: str) -> int | None:
        """The number of the oldest command waiting in `queued` for this client (not reserved for
        another: an answer goes to who asked)."""
        found = (
            await self.session.exec(
                select(Command.seq)
                .where(
                    Command.channel_id == channel_id,
                    Command.state == queued,
                    or_(col(Command.reserved_for).is_(None), Command.reserved_for == client_id),
                )
                .order_by(col(Command.seq))
                .limit(1)
            )
        ).first()
        return None if found is None else int(found)

    async def room_and_member(
        self, channel_id: str, client_id: str
    ) -> tuple[RoomRecord | None, MembershipRecord | None]:
        """The room and this client's membership of it, in one statement."""
        row: Any = (
            await self.session.exec(_CHANNEL_AND_MEMBER, params={"channel": channel_id, "who": client_id})
        ).first()
        if row is None:
            return None, None
        return room_record(row[0]), None if row[1] is None else membership_record(row[1])

    async def member(self, channel_id: str, client_id: str) -> MembershipRecord | None:
        found = await self.session.get(ChannelMember, (channel_id, client_id))
        return None if found is None else membership_record(found)


_CHANNEL_AND_MEMBER = (
    select(Channel, ChannelMember)
    .outerjoin(ChannelMember, CALLERS_MEMBERSHIP)
    .where(col(Channel.id) == bindparam("channel"))
)
