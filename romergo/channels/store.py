"""What every part of the channel service shares: the database, the bus, the clock, the events.

Every event gets the next number of its channel's one sequence, allocated by a single
`UPDATE … RETURNING` inside the write transaction that also writes the event (DESIGN.md §6), so
the numbers are gap-free and ordered even with several writers. Waiters are woken after the
commit, on the channel's own topic only. An event about a command moves the command's state by
`next_state`, in the same transaction.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.actors import ActorType
from romergo.bus import EventBus
from romergo.channels.events import Payload, dump
from romergo.channels.models import ChannelView, CommandView, EventView, MemberView
from romergo.channels.vocabulary import FINISHED_STATES, HELD_STATES, CommandState, EventKind, next_state
from romergo.clock import Clock, SystemClock
from romergo.config import Settings
from romergo.errors import RomergoError
from storage import Database
from storage.tables import Channel, ChannelEvent, ChannelMember, Command, Confirmation, User


def channel_topic(channel_id: str) -> str:
    return f"channel:{channel_id}"


def rooms_topic(project_id: str) -> str:
    """A room of this project opened, changed its settings or ended (the outline marks its reach)."""
    return f"rooms:{project_id}"


def presence_topic(channel_id: str) -> str:
    """Presence only (an agent started or stopped listening): no event is written, and waiters
    on the channel topic are not disturbed."""
    return f"presence:{channel_id}"


@dataclass(frozen=True)
class EventActor:
    type: ActorType
    id: str
    name: str


SYSTEM_ACTOR = EventActor("system", "romergo", "Romergo")


_COMMANDS = Command.__table__  # type: ignore[attr-defined]
# Built once: a tool call moves its command twice, and building the statement cost more than
# running it (issue 16).
_MOVE_COMMAND = (
    update(_COMMANDS)
    .where(_COMMANDS.c.id == bindparam("command_id"))
    .values(state=bindparam("to_state"), last_activity_at=bindparam("at"), finished_at=bindparam("finished"))
)
_MOVE_COMMAND_FROM = _MOVE_COMMAND.where(_COMMANDS.c.state == bindparam("from_state"))


@dataclass
class ChannelTx:
    session: AsyncSession
    clock: Clock
    touched: set[str] = field(default_factory=set)
    rooms: set[str] = field(default_factory=set)
    """Projects whose rooms changed in this transaction (published as `rooms_topic` after it)."""

    def now(self) -> datetime:
        return self.clock.now()

    async def event(
        self,
        channel_id: str,
        kind: EventKind,
        actor: EventActor,
        payload: Payload | None = None,
        command_id: str | None = None,
    ) -> int:
        return (await self.events(channel_id, actor, [(kind, payload)], command_id))[-1]

    async def events(
        self,
        channel_id: str,
        actor: EventActor,
        happenings: list[tuple[EventKind, Payload | None]],
        command_id: str | None = None,
    ) -> list[int]:
        """Write events in a row: one `UPDATE … RETURNING` takes their numbers, one INSERT writes them."""
        numbers = await self.numbers(channel_id, len(happenings))
        await self.write_events(channel_id, numbers, actor, happenings, command_id)
        return numbers

    async def numbers(self, channel_id: str, count: int) -> list[int]:
        """The channel's next `count` event numbers, taken (one `UPDATE … RETURNING`)."""
        last: int = (
            await self.session.exec(
                update(Channel)  # type: ignore[call-overload]
                .where(col(Channel.id) == channel_id)
                .values(last_seq=Channel.last_seq + count)
                .returning(Channel.last_seq)
            )
        ).scalar_one()
        return list(range(last - count + 1, last + 1))

    async def write_events(
        self,
        channel_id: str,
        numbers: list[int],
        actor: EventActor,
        happenings: list[tuple[EventKind, Payload | None]],
        command_id: str | None = None,
    ) -> None:
        """The events under numbers taken with `numbers`, in one INSERT."""
        at = self.now()
        rows = [
            {
                "channel_id": channel_id,
                "seq": seq,
                "kind": kind.value,
                "command_id": command_id,
                "actor_type": actor.type,
                "actor_id": actor.id,
                "actor_name": actor.name,
                "data": dump(kind, payload),
                "at": at,
            }
            for seq, (kind, payload) in zip(numbers, happenings, strict=True)
        ]
        await self.session.exec(insert(ChannelEvent), params=rows)
        self.touched.add(channel_id)

    async def command_event(
        self,
        command: Command,
        kind: EventKind,
        actor: EventActor,
        payload: Payload | None = None,
        *,
        redelivered: bool = False,
    ) -> int:
        """Write an event about `command` and move its state as `next_state` says."""
        return (await self.command_events(command, actor, [(kind, payload)], redelivered=redelivered))[-1]

    async def command_events(
        self,
        command: Command,
        actor: EventActor,
        happenings: list[tuple[EventKind, Payload | None]],
        *,
        redelivered: bool = False,
    ) -> list[int]:
        """Events about `command` in a row, its state moved through each: one UPDATE of the command
        (a statement, not an ORM flush), then the events."""
        await self._move(command, happenings, redelivered=redelivered)
        return await self.events(command.channel_id, actor, happenings, command.id)

    async def tool_events(
        self, command: Command, actor: EventActor, happenings: list[tuple[EventKind, Payload | None]]
    ) -> list[int]:
        """`command_events` for a command read moments ago, outside this transaction (a tool call
        reads it with the caller's rooms): its state is moved only if the row still holds the state
        read (one conditional UPDATE); if the owner or the sweeper moved it meanwhile, it is read
        afresh and moved from there. Saves re-reading the command on every tool call (issue 16)."""
        if not await self._move(command, happenings, expected=CommandState(command.state)):
            fresh = await self.session.get(Command, command.id, populate_existing=True)
            assert fresh is not None  # commands are never deleted
            await self._move(fresh, happenings)
            command = fresh
        return await self.events(command.channel_id, actor, happenings, command.id)

    async def _move(
        self,
        command: Command,
        happenings: list[tuple[EventKind, Payload | None]],
        *,
        redelivered: bool = False,
        expected: CommandState | None = None,
    ) -> bool:
        """Move the command's row (and the object) through `happenings`; with `expected`, only if
        the row's state is still that (False when it is not, and nothing changed)."""
        waiting = 0
        if command.state == CommandState.NEEDS_CONFIRMATION:  # else none can be waiting: skip the query
            waiting = await self.session.scalar(  # type: ignore[assignment]  # count() is never None
                select(func.count())
                .select_from(Confirmation)
                .where(col(Confirmation.command_id) == command.id, col(Confirmation.state) == "pending")
            )
        state = CommandState(command.state)
        for kind, _ in happenings:
            state = next_state(state, kind, redelivered=redelivered, waiting_confirmations=waiting or 0)
        now = self.now()
        finished_at = command.finished_at
        if state in FINISHED_STATES or state == CommandState.CANCELLED:
            finished_at = finished_at or now
        moved = {"state": state, "last_activity_at": now, "finished_at": finished_at}
        values = {"command_id": command.id, "to_state": state.value, "at": now, "finished": finished_at}
        if expected is None:
            await self.session.exec(_MOVE_COMMAND, params=values)
        else:
            done = await self.session.exec(
                _MOVE_COMMAND_FROM, params={**values, "from_state": expected.value}
            )
            if done.rowcount == 0:
                return False
        for name, value in moved.items():  # the object says what the row says, without a flush
            set_committed_value(command, name, value)
        return True


class ChannelStore:
    """The channel service's shared parts; each side of the service holds one and adds its rules."""

    heartbeat_seconds: float = 10.0
    """How often a parked call calls its heartbeat (MCP progress keeps clients from timing out)."""

    def __init__(self, db: Database, bus: EventBus, settings: Settings, clock: Clock | None = None) -> None:
        self.db = db
        self.bus = bus
        self.settings = settings
        self.clock: Clock = clock or SystemClock()

    def now(self) -> datetime:
        return self.clock.now()

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[ChannelTx]:
        async with self.db.write() as session:
            tx = ChannelTx(session, self.clock)
            yield tx
        for channel_id in tx.touched:
            self.bus.publish(channel_topic(channel_id))
        for project_id in tx.rooms:
            self.bus.publish(rooms_topic(project_id))

    async def owned_channel(self, session: AsyncSession, user_id: str, channel_id: object) -> Channel:
        channel = (
            await session.get(Channel, channel_id) if isinstance(channel_id, str) and channel_id else None
        )
        if channel is None or channel.user_id != user_id:
            raise RomergoError("not_found", f'Channel "{channel_id}" does not exist.')
        return channel

    async def owned_channel_and_owner(
        self, session: AsyncSession, user_id: str, channel_id: object
    ) -> tuple[Channel, EventActor]:
        """`owned_channel` and `owner_actor` in one statement, for the busy path (posting a command)."""
        row = (
            (
                await session.exec(
                    select(Channel, User.username)
                    .join(User, col(User.id) == Channel.user_id)
                    .where(col(Channel.id) == channel_id, col(Channel.user_id) == user_id)
                )
            ).first()
            if isinstance(channel_id, str) and channel_id
            else None
        )
        if row is None:
            raise RomergoError("not_found", f'Channel "{channel_id}" does not exist.')
        return row[0], EventActor("user", user_id, row[1])

    async def owned_command(
        self, session: AsyncSession, user_id: str, command_id: object
    ) -> tuple[Command, Channel]:
        command = (
            await session.get(Command, command_id) if isinstance(command_id, str) and command_id else None
        )
        channel = await session.get(Channel, command.channel_id) if command else None
        if command is None or channel is None or channel.user_id != user_id:
            raise RomergoError("not_found", f'Command "{command_id}" does not exist.')
        return command, channel

    async def owner_actor(self, session: AsyncSession, user_id: str) -> EventActor:
        user = await session.get(User, user_id)
        return EventActor("user", user_id, user.username if user else user_id)

    async def channel_view(
        self, session: AsyncSession, channel: Channel, code: str | None = None
    ) -> ChannelView:
        now = self.now()
        members = (
            await session.exec(
                select(ChannelMember)
                .where(ChannelMember.channel_id == channel.id)
                .order_by(col(ChannelMember.joined_at))
            )
        ).all()
        held = (
            await session.exec(
                select(Command).where(Command.channel_id == channel.id, col(Command.state).in_(HELD_STATES))
            )
        ).all()
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

    async def latest_seq(self, session: AsyncSession, channel_id: str) -> int:
        latest = (await session.exec(select(Channel.last_seq).where(Channel.id == channel_id))).one()
        return int(latest)

    async def events_after(
        self, session: AsyncSession, channel_id: str, after: int, limit: int
    ) -> list[EventView]:
        rows = (
            await session.exec(
                select(ChannelEvent)
                .where(ChannelEvent.channel_id == channel_id, ChannelEvent.seq > after)
                .order_by(col(ChannelEvent.seq))
                .limit(limit)
            )
        ).all()
        return [event_view(row) for row in rows]

    def ensure_live(self, channel: Channel) -> None:
        if channel_state(channel, self.now()) != "live":
            raise RomergoError("channel_ended", "This channel has ended. Ask the owner for a new one.")


def channel_state(channel: Channel, now: datetime) -> Literal["live", "ended", "expired"]:
    if channel.ended_at is not None:
        return "expired" if channel.end_reason == "expired" else "ended"
    if channel.expires_at <= now:
        return "expired"
    return "live"


def ensure_holder(command: Command, client_id: str) -> None:
    """The agent may act on this command: it holds it, and it is neither cancelled nor finished."""
    if command.state == CommandState.CANCELLED:
        raise RomergoError("command_cancelled", "The owner cancelled this command. Stop working on it.")
    if command.claimed_by != client_id:
        raise RomergoError("not_claimed_by_you", "This command was delivered to another agent.")
    if command.state in FINISHED_STATES:
        raise RomergoError(
            "command_finished", f"This command is already {command.state}; wait for the next one."
        )


def command_view(command: Command, *, redelivered: bool = False) -> CommandView:
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


def event_view(row: ChannelEvent) -> EventView:
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
