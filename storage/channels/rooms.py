"""Rooms, their members and their commands, inside a transaction the channel service opened: what
the sweeper, a revocation, a removal and a refused call read and change before writing their events.

The rows are read into the session as they always were, so the transaction's own `get` of a command
or a room read here (to write an event about it) costs no second statement; what goes up is a
frozen record.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.records import CommandRecord, MembershipRecord, RoomRecord
from storage.tables import Channel, ChannelEvent, ChannelMember, Command


class RoomsInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

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
    return RoomRecord(
        id=row.id,
        user_id=row.user_id,
        project_id=row.project_id,
        permissions=dict(row.permissions),
        confirmation_mode=row.confirmation_mode,
        scope=row.scope,
        last_seq=row.last_seq,
        created_at=row.created_at,
        expires_at=row.expires_at,
        ended_at=row.ended_at,
        end_reason=row.end_reason,
    )


def membership_record(row: ChannelMember) -> MembershipRecord:
    return MembershipRecord(
        channel_id=row.channel_id,
        client_id=row.client_id,
        agent_name=row.agent_name,
        joined_at=row.joined_at,
        left_at=row.left_at,
        last_seen_at=row.last_seen_at,
        polling_until=row.polling_until,
        left_reason=row.left_reason,
    )


def command_record(row: Command) -> CommandRecord:
    return CommandRecord(
        id=row.id,
        channel_id=row.channel_id,
        seq=row.seq,
        text=row.text,
        context=row.context,
        state=row.state,
        claimed_by=row.claimed_by,
        reserved_for=row.reserved_for,
        in_reply_to=row.in_reply_to,
        retry_of=row.retry_of,
        deliveries=row.deliveries,
        created_at=row.created_at,
        claimed_at=row.claimed_at,
        last_activity_at=row.last_activity_at,
        finished_at=row.finished_at,
    )
