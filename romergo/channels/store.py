"""What every part of the channel service shares: the database, the bus, the clock, the events.

Writes go through `ChannelStore.tx()` (a `channels.tx.ChannelTx`, which numbers and writes the
events); waiters are woken after the commit, on the channel's own topic only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Literal, Protocol

from romergo.channels.actors import EventActor
from romergo.channels.ledger import ChannelLedger, CommandRecord, EventRecord, RoomReads, RoomRecord
from romergo.channels.models import ChannelView, CommandView, EventView, MemberView
from romergo.channels.pending_tool_events import PendingToolEvents
from romergo.channels.pending_writes import write_pending
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import FINISHED_STATES, HELD_STATES, CommandState, EventKind
from romergo.common.bus import EventBus
from romergo.common.clock import Clock, SystemClock
from romergo.common.config import Settings
from romergo.common.errors import RomergoError
from storage import Database
from storage.channels.owned import command_with_room_on_driver
from storage.channels.records import PostingRoom
from storage.driver import Rows

__all__ = ["PostingRoom"]  # the post's room, named where posting and its tests look for it


def owned_command_rows(
    rows: Rows, user_id: str, command_id: object
) -> tuple[CommandRecord, RoomRecord] | None:
    """The command with its channel, if the channel is this owner's: `find_owned_command` for a
    read on the driver (`Database.read_rows`), in one statement."""
    if not isinstance(command_id, str) or not command_id:
        return None
    found = command_with_room_on_driver(rows, command_id)
    return found if found is not None and found[1].user_id == user_id else None


def channel_topic(channel_id: str) -> str:
    return f"channel:{channel_id}"


def rooms_topic(project_id: str) -> str:
    """A room of this project opened, changed its settings or ended (the outline marks its reach)."""
    return f"rooms:{project_id}"


def presence_topic(channel_id: str) -> str:
    """Presence only (an agent started or stopped listening): no event is written, and waiters
    on the channel topic are not disturbed."""
    return f"presence:{channel_id}"


class ChannelStore:
    """The channel service's shared parts; each side of the service holds one and adds its rules."""

    def __init__(
        self,
        db: Database,
        ledger: ChannelLedger,
        bus: EventBus,
        settings: Settings,
        clock: Clock | None = None,
    ) -> None:
        self.db = db
        self.ledger = ledger
        self.bus = bus
        self.settings = settings
        self.heartbeat_seconds: float = settings.heartbeat_seconds
        """How often a parked call calls its heartbeat (MCP progress keeps clients from timing out)."""
        self.clock: Clock = clock or SystemClock()
        self.numbered_inserts = db.data_modifying_ctes
        """Number and write a run of events in one statement (`storage.channels.numbering`)."""
        self.pending_tool_events: PendingToolEvents | None = None
        """Tool calls write their events after answering, where a process's writes take turns."""
        if db.is_sqlite and not settings.many_instances:
            self.pending_tool_events = PendingToolEvents()
            self.pending_tool_events.write = self.write_pending_tool_events

    async def write_pending_tool_events(self) -> None:
        """Every event calls left pending, in one write on the database's driver
        (`channels.pending_writes`)."""
        pending_tool_events = self.pending_tool_events
        assert pending_tool_events is not None
        # Taken in the write turn: order kept.
        touched = await self.db.write_rows(
            lambda rows: write_pending(rows, pending_tool_events.take_all(), self.now())
        )
        for channel_id in touched:
            self.bus.publish(channel_topic(channel_id))

    async def settled(self) -> None:
        """Every call's tool events written (before stopping; tests that read events next)."""
        if self.pending_tool_events is not None:
            await self.pending_tool_events.settled()

    def now(self) -> datetime:
        return self.clock.now()

    def room_reads(self, session: Any) -> RoomReads:
        """What a room's rules read, inside this open transaction."""
        return self.ledger.room_reads(session)

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[ChannelTx]:
        async with self.db.write() as session:
            tx = ChannelTx(
                session,
                self.clock,
                self.ledger.events(session),
                self.ledger.rooms(session),
                self.ledger.confirmations(session),
                self.ledger.deliveries(session),
                self.ledger.room_changes(session),
                pending_tool_events=self.pending_tool_events,
            )
            yield tx
        for channel_id in tx.touched:
            self.bus.publish(channel_topic(channel_id))
        for project_id in tx.rooms:
            self.bus.publish(rooms_topic(project_id))

    async def owned_channel(self, session: Any, user_id: str, channel_id: object) -> RoomRecord:
        """The owner's channel in this open transaction; `not_found` when it is not theirs."""
        channel = (
            await self.ledger.owned(session).room(channel_id)
            if isinstance(channel_id, str) and channel_id
            else None
        )
        if channel is None or channel.user_id != user_id:
            raise room_not_found(channel_id)
        return channel

    async def owned_command(
        self, session: Any, user_id: str, command_id: object
    ) -> tuple[CommandRecord, RoomRecord]:
        found = await self.find_owned_command(session, user_id, command_id)
        if found is None:
            raise command_not_found(command_id)
        return found

    async def find_owned_command(
        self, session: Any, user_id: str, command_id: object
    ) -> tuple[CommandRecord, RoomRecord] | None:
        """The command with its channel, if the channel is this owner's."""
        if not isinstance(command_id, str) or not command_id:
            return None
        found = await self.ledger.owned(session).command_with_room(command_id)
        return found if found is not None and found[1].user_id == user_id else None

    async def project_of_command(self, user_id: str, command_id: object) -> str | None:
        """The project of a command in one of this owner's channels; None when there is none."""
        found = await self.db.read_rows(lambda rows: owned_command_rows(rows, user_id, command_id))
        return None if found is None else found[1].project_id

    async def owner_actor(self, session: Any, user_id: str) -> EventActor:
        name = await self.ledger.owned(session).username(user_id)
        return EventActor("user", user_id, user_id if name is None else name)

    async def channel_view(self, session: Any, channel: RoomRecord, code: str | None = None) -> ChannelView:
        now = self.now()
        owned = self.ledger.owned(session)
        members = await owned.members(channel.id)
        held = await owned.commands_in(channel.id, HELD_STATES)
        active = {command.claimed_by: command.id for command in held}
        return ChannelView(
            channel_id=channel.id,
            project_id=channel.project_id,
            permissions=dict(channel.permissions),
            confirmation_mode=channel.confirmation_mode,
            state=channel_state(channel, now),
            expires_at=channel.expires_at,
            cursor=await self.latest_seq(session, channel.id),
            members=[
                MemberView(
                    client_id=m.client_id,
                    agent_name=m.agent_name,
                    joined_at=m.joined_at,
                    left_at=m.left_at,
                    last_seen_at=m.last_seen_at,
                    polling=m.polling_until is not None and m.polling_until > now,
                    active_command_id=active.get(m.client_id),
                    left_reason=m.left_reason,
                )
                for m in members
            ],
            code=code,
            scope=channel.scope,
        )

    async def latest_seq(self, session: Any, channel_id: str) -> int:
        return await self.ledger.owned(session).latest_seq(channel_id)

    async def events_after(self, session: Any, channel_id: str, after: int, limit: int) -> list[EventView]:
        events = await self.ledger.owned(session).events_after(channel_id, after, limit)
        return [event_view(row) for row in events]

    def ensure_live(self, channel: Ending) -> None:
        if channel_state(channel, self.now()) != "live":
            raise RomergoError("channel_ended", "This channel has ended. Ask the owner for a new one.")


class Ending(Protocol):
    """What decides a channel's state: its record (`RoomRecord`), or a row of its columns."""

    @property
    def ended_at(self) -> datetime | None: ...

    @property
    def end_reason(self) -> str | None: ...

    @property
    def expires_at(self) -> datetime: ...


def channel_state(channel: Ending, now: datetime) -> Literal["live", "ended", "expired"]:
    if channel.ended_at is not None:
        return "expired" if channel.end_reason == "expired" else "ended"
    if channel.expires_at <= now:
        return "expired"
    return "live"


def room_not_found(channel_id: object) -> RomergoError:
    """A room that is not there, or not this owner's: the same answer, revealing nothing."""
    return RomergoError("not_found", f'Channel "{channel_id}" does not exist.')


def command_not_found(command_id: object) -> RomergoError:
    """A command that is not there, or not this owner's: the same answer, revealing nothing."""
    return RomergoError("not_found", f'Command "{command_id}" does not exist.')


class Holding(Protocol):
    """Who holds a command and where it stands: its record, or a row of its columns."""

    @property
    def state(self) -> str: ...

    @property
    def claimed_by(self) -> str | None: ...


class ShownCommand(Holding, Protocol):
    """What a command shows: its record, or a row of all its columns (the claim's `RETURNING`)."""

    @property
    def id(self) -> str: ...

    @property
    def channel_id(self) -> str: ...

    @property
    def seq(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def in_reply_to(self) -> str | None: ...

    @property
    def retry_of(self) -> str | None: ...

    @property
    def created_at(self) -> datetime: ...

    @property
    def context(self) -> dict[str, Any] | None: ...


def ensure_holder(command: Holding, client_id: str) -> None:
    """The agent may act on this command (its record, or a row with its `state` and `claimed_by`):
    it holds it, and it is neither cancelled nor finished."""
    if command.state == CommandState.CANCELLED:
        raise RomergoError("command_cancelled", "The owner cancelled this command. Stop working on it.")
    if command.claimed_by != client_id:
        raise RomergoError("not_claimed_by_you", "This command was delivered to another agent.")
    if command.state in FINISHED_STATES:
        raise RomergoError(
            "command_finished", f"This command is already {command.state}; wait for the next one."
        )


def command_view(command: ShownCommand, *, redelivered: bool = False) -> CommandView:
    """A command as the agent and the panel see it, from its record or a row of all its columns
    (the claim's `RETURNING`)."""
    return CommandView(
        command_id=command.id,
        channel_id=command.channel_id,
        seq=command.seq,
        text=command.text,
        state=CommandState(command.state),
        claimed_by=command.claimed_by,
        in_reply_to=command.in_reply_to,
        retry_of=command.retry_of,
        created_at=command.created_at,
        context=command.context,
        redelivered=redelivered,
    )


def event_view(row: EventRecord) -> EventView:
    return EventView(
        seq=row.seq,
        kind=EventKind(row.kind),
        command_id=row.command_id,
        at=row.at,
        actor_type=row.actor_type,
        actor_id=row.actor_id,
        actor_name=row.actor_name,
        data=dict(row.data),
    )


def posting_room(row: Any, user_id: str, channel_id: object) -> tuple[PostingRoom, EventActor]:
    """What `storage.channels.posts.NUMBERED_POST` returned, with the owner as the posted
    command's actor; `not_found` when it matched nothing (not a channel of this owner's)."""
    if row is None:
        raise room_not_found(channel_id)
    room = row if isinstance(row, PostingRoom) else PostingRoom._make(row)
    return room, EventActor("user", user_id, room.owner_name)
