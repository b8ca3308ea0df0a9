"""The channel ledger on the database: what the channel service keeps, read and written here.

One path per operation on SQLite and PostgreSQL alike. What runs inside a transaction the channel
service opened is bound to its session (`room_reads`, `rooms`, `room_changes`, `confirmations`);
the rest opens its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.confirmations import ConfirmationsInSession
from storage.channels.deliveries import DeliveriesInSession
from storage.channels.event_log import EventLogInSession
from storage.channels.owned import OwnedInSession
from storage.channels.presence import PRESENCE, RUN_OUT
from storage.channels.room_changes import RoomChangesInSession
from storage.channels.room_reads import RoomReadsInSession
from storage.channels.rooms import RoomsInSession
from storage.database import Database
from storage.tables import Channel, Command


class DatabaseChannelLedger:
    def __init__(self, db: Database) -> None:
        self.db = db

    def room_reads(self, transaction: AsyncSession) -> RoomReadsInSession:
        """The room's reads inside `transaction`, an open session of this database."""
        return RoomReadsInSession(transaction)

    def rooms(self, transaction: AsyncSession) -> RoomsInSession:
        """Rooms, their members and commands inside `transaction`, an open session of this database."""
        return RoomsInSession(transaction)

    def room_changes(self, transaction: AsyncSession) -> RoomChangesInSession:
        """The owner's changes to a room inside `transaction`, an open write session of this
        database."""
        return RoomChangesInSession(transaction)

    def events(self, transaction: AsyncSession) -> EventLogInSession:
        """The channel's events and the commands they move inside `transaction`, an open write
        session of this database."""
        return EventLogInSession(transaction, numbered_inserts=self.db.data_modifying_ctes)

    def deliveries(self, transaction: AsyncSession) -> DeliveriesInSession:
        """Where a joining agent's waits start, and memberships, inside `transaction`, an open
        write session of this database."""
        return DeliveriesInSession(transaction)

    def owned(self, transaction: AsyncSession) -> OwnedInSession:
        """The owner's rooms and commands inside `transaction`, an open session of this database."""
        return OwnedInSession(transaction)

    def confirmations(self, transaction: AsyncSession) -> ConfirmationsInSession:
        """The owner's "Allow once" requests inside `transaction`, an open session of this database."""
        return ConfirmationsInSession(transaction)

    async def clear_presence(
        self, channel_id: str, client_id: str, seen: datetime, ran_out: datetime | None = None
    ) -> bool:
        """The agent no longer listens, seen last at `seen`; with `ran_out`, only if its listening
        ended by then. Whether a membership's presence was cleared."""
        params: dict[str, Any] = {"channel": channel_id, "who": client_id, "seen": seen, "until": None}
        if ran_out is None:
            return bool(await self.db.write_statement(PRESENCE, params))
        return bool(await self.db.write_statement(RUN_OUT, params | {"ran_out": ran_out}))

    async def command_number(self, channel_id: str, seq: int) -> int:
        """How many commands of the channel were posted up to the one numbered `seq`, it included."""
        earlier = (
            select(func.count())
            .select_from(Command)
            .where(col(Command.channel_id) == channel_id, col(Command.seq) <= seq)
        )
        async with self.db.read() as session:
            return int((await session.exec(earlier)).one())

    async def owned_command_state(self, user_id: str, command_id: str) -> str | None:
        """The state of a command in one of this owner's channels; None when there is none."""
        async with self.db.read() as session:
            command = await session.get(Command, command_id) if command_id else None
            channel = await session.get(Channel, command.channel_id) if command else None
        if command is None or channel is None or channel.user_id != user_id:
            return None
        return command.state
