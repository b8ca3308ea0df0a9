"""A wait's delivery inside the channel's write transaction: what the driver's check
(`storage.channels.wait_checks`) leaves to it (a command handed over again, an answer to a question),
and where a joining agent's waits start.

Its statements are Core where they were (rows, not entities), so nothing goes through the ORM's
loading unless a command is handed over; a command or a room found here is the session's own
object, for the transaction to write events about.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.joins import CALLERS_MEMBERSHIP
from storage.channels.presence import PRESENCE
from storage.channels.wait_checks import WaitRoom, WaitStatements
from storage.driver import Found
from storage.tables import Channel, ChannelMember, Command


class DeliveriesInSession:
    def __init__(self, session: AsyncSession, waits: WaitStatements) -> None:
        self.session = session
        self.waits = waits

    async def wait_room(self, channel_id: str, client_id: str) -> WaitRoom | None:
        """The room of a wait and the caller's membership (`WaitRoom`); None when there is none."""
        found = (
            await self.session.exec(self.waits.room, params={"channel": channel_id, "who": client_id})
        ).first()
        return None if found is None else WaitRoom._make(found)

    async def listening(
        self, channel_id: str, client_id: str, seen: datetime, until: datetime | None
    ) -> None:
        """The caller seen at `seen` and listening until `until` (None: no longer listening)."""
        presence = {"channel": channel_id, "who": client_id, "seen": seen, "until": until}
        await self.session.exec(PRESENCE, params=presence)

    async def hand_again(self, command_id: str) -> Command:
        """The command its agent still holds, counted delivered once more (written at the commit)."""
        held = await self.session.get_one(Command, command_id)
        held.deliveries += 1
        return held

    async def claim(self, channel_id: str, client_id: str, after: int, at: datetime) -> Found | None:
        """The oldest command queued for the caller after `after`, claimed by one conditional
        UPDATE: the row it returned (all the command's columns), or None when there is none."""
        claim = {"channel": channel_id, "who": client_id, "after": after, "at": at}
        return (await self.session.exec(self.waits.claim, params=claim)).first()

    async def command(self, command_id: str) -> Command | None:
        return await self.session.get(Command, command_id)

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

    async def oldest_queued(self, channel_id: str, client_id: str) -> int | None:
        """The number of the oldest command queued for this client."""
        found = (
            await self.session.exec(
                select(Command.seq)
                .where(*self.waits.queued_for(channel_id, client_id))
                .order_by(col(Command.seq))
                .limit(1)
            )
        ).first()
        return None if found is None else int(found)

    async def room_and_member(
        self, channel_id: str, client_id: str
    ) -> tuple[Channel | None, ChannelMember | None]:
        """The room and this client's membership of it, in one statement."""
        row: Any = (
            await self.session.exec(_CHANNEL_AND_MEMBER, params={"channel": channel_id, "who": client_id})
        ).first()
        return (None, None) if row is None else (row[0], row[1])

    async def member(self, channel_id: str, client_id: str) -> ChannelMember | None:
        return await self.session.get(ChannelMember, (channel_id, client_id))


_CHANNEL_AND_MEMBER = (
    select(Channel, ChannelMember)
    .outerjoin(ChannelMember, CALLERS_MEMBERSHIP)
    .where(col(Channel.id) == bindparam("channel"))
)
