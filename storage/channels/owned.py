"""The owner's rooms and commands as the channel service finds them, inside a transaction it opened
(or a read): a room or a command checked for its owner, whether a project is the owner's, the
owner's name for events, what a room's view shows and its events after a number.

Rooms and commands go up as frozen records (the owner's changes to a room are writes of their
own: `room_changes`; a command moves by the events the service writes about it).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam
from sqlalchemy import select as sa_select
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.records import CommandRecord, EventRecord, MembershipRecord, RoomRecord
from storage.channels.rooms import (
    ROOM_COLUMNS,
    command_of_columns,
    command_record,
    event_record,
    membership_record,
    room_of_columns,
    room_record,
)
from storage.core_tables import CHANNELS, COMMANDS, width
from storage.driver import Rows
from storage.tables import Channel, ChannelEvent, ChannelMember, Command, Project, User


class OwnedInSession:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def room(self, channel_id: str) -> RoomRecord | None:
        """The room (read once per transaction: the session keeps its row for a change to it)."""
        row = await self.session.get(Channel, channel_id)
        return None if row is None else room_record(row)

    async def command_with_room(self, command_id: str) -> tuple[CommandRecord, RoomRecord] | None:
        """The command and its room, as the session holds them."""
        command = await self.session.get(Command, command_id)
        channel = await self.session.get(Channel, command.channel_id) if command else None
        return None if command is None or channel is None else (command_record(command), room_record(channel))

    async def rooms_of_project(self, user_id: str, project_id: str) -> list[RoomRecord]:
        """The owner's rooms on the project, newest first."""
        rows = await self.session.exec(
            select(Channel)
            .where(Channel.user_id == user_id, Channel.project_id == project_id)
            .order_by(col(Channel.created_at).desc())
        )
        return [room_record(row) for row in rows.all()]

    async def owns_project(self, user_id: str, project_id: str) -> bool:
        """The project is this owner's and not deleted."""
        project = await self.session.get(Project, project_id)
        return project is not None and project.owner_id == user_id and project.deleted_at is None

    async def username(self, user_id: str) -> str | None:
        user = await self.session.get(User, user_id)
        return None if user is None else user.username

    async def members(self, channel_id: str) -> list[MembershipRecord]:
        """The room's memberships, left ones too, in the order they joined."""
        rows = await self.session.exec(
            select(ChannelMember)
            .where(ChannelMember.channel_id == channel_id)
            .order_by(col(ChannelMember.joined_at))
        )
        return [membership_record(row) for row in rows.all()]

    async def commands_in(self, channel_id: str, states: Sequence[str]) -> list[CommandRecord]:
        """The room's commands in one of `states`."""
        rows = await self.session.exec(
            select(Command).where(Command.channel_id == channel_id, col(Command.state).in_(states))
        )
        return [command_record(row) for row in rows.all()]

    async def latest_seq(self, channel_id: str) -> int:
        """The room's last event number (0 before its first event); fails if the room is not there."""
        latest = (await self.session.exec(select(Channel.last_seq).where(Channel.id == channel_id))).one()
        return int(latest)

    async def events_after(self, channel_id: str, after: int, limit: int) -> list[EventRecord]:
        """Up to `limit` of the room's events numbered after `after`, in order."""
        rows = await self.session.exec(
            select(ChannelEvent)
            .where(ChannelEvent.channel_id == channel_id, ChannelEvent.seq > after)
            .order_by(col(ChannelEvent.seq))
            .limit(limit)
        )
        return [event_record(row) for row in rows.all()]


def command_with_room_on_driver(rows: Rows, command_id: str) -> tuple[CommandRecord, RoomRecord] | None:
    """The command with its room, in one statement of a read on the driver (`Database.read_rows`):
    both as records."""
    found = rows.first(_COMMAND_WITH_CHANNEL, {"command_id": command_id})
    if found is None:
        return None
    return command_of_columns(found[:_COMMAND_END]), room_of_columns(found[_COMMAND_END:])


# A command and its channel, on the tables' columns for the driver (`command_with_room_on_driver`).
_COMMAND_END = width(Command)
_COMMAND_WITH_CHANNEL = (
    sa_select(COMMANDS, *ROOM_COLUMNS)
    .join(CHANNELS, CHANNELS.c.id == COMMANDS.c.channel_id)
    .where(COMMANDS.c.id == bindparam("command_id"))
)
