"""Rooms, their members and their commands, inside a transaction the channel service opened: what
a join, a leave, the sweeper, a revocation, a removal and a refused call read and change
before writing their events.

The rows are read into the session as they always were, so the transaction's own `get` of a room
read here (to write an event about it, or to end the room: `room_changes`) costs no second
statement; what goes up is a frozen record (a command's events take its record as it is).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.records import CommandRecord, EventRecord, MembershipRecord, RoomRecord
from storage.core_tables import record_columns, record_maker
from storage.records import record_of
from storage.tables import Channel, ChannelEvent, ChannelMember, Command, Project


class RoomsInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def room(self, channel_id: str) -> RoomRecord | None:
        row = await self.session.get(Channel, channel_id)
        return None if row is None else room_record(row)

    async def room_by_code(self, code_hash: str) -> RoomRecord | None:
        """The room whose current join code has this hash."""
        row = (await self.session.exec(select(Channel).where(Channel.code_hash == code_hash))).first()
        return None if row is None else room_record(row)

    async def project_title(self, project_id: str) -> str | None:
        project = await self.session.get(Project, project_id)
        return None if project is None else project.title

    async def latest_events(self, channel_id: str, limit: int) -> list[EventRecord]:
        """The room's last `limit` events, newest first."""
        rows = (
            await self.session.exec(
                select(ChannelEvent)
                .where(ChannelEvent.channel_id == channel_id)
                .order_by(col(ChannelEvent.seq).desc())
                .limit(limit)
            )
        ).all()
        return [event_record(row) for row in rows]

    async def member(self, channel_id: str, client_id: str) -> MembershipRecord | None:
        row = await self.session.get(ChannelMember, (channel_id, client_id))
        return None if row is None else membership_record(row)

    async def present_in_owners_rooms(
        self, owner_id: str, client_id: str
    ) -> list[tuple[MembershipRecord, RoomRecord]]:
        """The client's memberships it has not left, in every room of this owner's (ended or not)."""
        rows = (
            await self.session.exec(
                select(ChannelMember, Channel)
                .join(Channel, col(Channel.id) == col(ChannelMember.channel_id))
                .where(
                    col(Channel.user_id) == owner_id,
                    col(ChannelMember.client_id) == client_id,
                    col(ChannelMember.left_at).is_(None),
                )
            )
        ).all()
        return [(membership_record(member), room_record(channel)) for member, channel in rows]

    async def admit(
        self, channel_id: str, client_id: str, agent_name: str, at: datetime, *, joined_before: bool
    ) -> None:
        """The client is a member of the room from `at`, under `agent_name` (again, if it
        `joined_before`: its membership was read in this transaction); written now."""
        # A membership read in this transaction is the session's: `get` finds it without a statement.
        member = await self.session.get(ChannelMember, (channel_id, client_id)) if joined_before else None
        if member is None:
            member = ChannelMember(
                channel_id=channel_id,
                client_id=client_id,
                agent_name=agent_name,
                joined_at=at,
                last_seen_at=at,
            )
        member.left_at = None
        member.left_reason = None
        member.last_seen_at = at
        member.agent_name = agent_name
        self.session.add(member)
        await self.session.flush()

    async def member_left(self, channel_id: str, client_id: str, at: datetime) -> None:
        """The agent left the room by itself at `at`; written now."""
        member = await self.session.get(ChannelMember, (channel_id, client_id))
        assert member is not None  # memberships are never deleted
        member.left_at = at
        member.left_reason = "left"
        self.session.add(member)
        await self.session.flush()

    async def end_membership(self, channel_id: str, client_id: str, at: datetime, reason: str) -> None:
        """The agent is out of the room from `at`, for `reason`, and no longer listening; written now."""
        member = await self.session.get(ChannelMember, (channel_id, client_id))
        assert member is not None  # memberships are never deleted
        member.left_at = at
        member.left_reason = reason
        member.polling_until = None
        self.session.add(member)
        await self.session.flush()

    async def events_by_since(self, channel_id: str, kind: str, actor_id: str, since: datetime) -> int:
        """How many events of `kind` this actor wrote in the room from `since` on."""
        counted = await self.session.scalar(
            select(func.count())
            .select_from(ChannelEvent)
            .where(
                col(ChannelEvent.channel_id) == channel_id,
                col(ChannelEvent.kind) == kind,
                col(ChannelEvent.actor_id) == actor_id,
                col(ChannelEvent.at) >= since,
            )
        )
        return counted or 0

    async def commands_held(
        self, channel_id: str, client_id: str, states: Sequence[str]
    ) -> list[CommandRecord]:
        """The room's commands in one of `states` that this client took."""
        rows = (
            await self.session.exec(
                select(Command).where(
                    col(Command.channel_id) == channel_id,
                    col(Command.claimed_by) == client_id,
                    col(Command.state).in_(states),
                )
            )
        ).all()
        return [command_record(row) for row in rows]

    async def silent_commands(self, states: Sequence[str], quiet_since: datetime) -> list[CommandRecord]:
        """Commands in one of `states`, in every room, with no activity since `quiet_since`."""
        rows = (
            await self.session.exec(
                select(Command).where(
                    col(Command.state).in_(states), col(Command.last_activity_at) < quiet_since
                )
            )
        ).all()
        return [command_record(row) for row in rows]

    async def rooms_run_out(self, now: datetime) -> list[RoomRecord]:
        """Rooms not ended whose time ran out by `now`."""
        rows = (
            await self.session.exec(
                select(Channel).where(col(Channel.ended_at).is_(None), col(Channel.expires_at) <= now)
            )
        ).all()
        return [room_record(row) for row in rows]


def room_record(row: Channel) -> RoomRecord:
    return record_of(RoomRecord, row, permissions=dict(row.permissions))


ROOM_COLUMNS = record_columns(RoomRecord, Channel)
"""What a statement on the driver selects of a room: its record's columns (no code hash)."""


def room_of_columns(values: Sequence[Any]) -> RoomRecord:
    """A room's record from the values of `ROOM_COLUMNS`, in order."""
    return RoomRecord(*values)


def membership_record(row: ChannelMember) -> MembershipRecord:
    return record_of(MembershipRecord, row)


def command_record(row: Command) -> CommandRecord:
    return record_of(CommandRecord, row)


command_of_columns = record_maker(CommandRecord, Command)
"""A command's record from a row of all its table's columns, in table order (a Core read's)."""


def event_record(row: ChannelEvent) -> EventRecord:
    return record_of(EventRecord, row, data=dict(row.data))
