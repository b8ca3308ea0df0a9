"""A write transaction of the channel service, and the events it writes.

Every event gets the next number of its channel's one sequence, allocated by a single
`UPDATE … RETURNING` inside the write transaction that also writes the event (DESIGN.md §6), so
the numbers are gap-free and ordered even with several writers. An event about a command moves the
command's state by `next_state`, in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, Row, bindparam, func, insert, update
from sqlalchemy.exc import NoResultFound
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from romergo.channels.events import NewEvents, Payload, dump
from romergo.channels.ledger import ConfirmationLedger, RoomLedger
from romergo.channels.pending_tool_events import PendingToolEvents, merged
from romergo.channels.vocabulary import FINISHED_STATES, CommandState, EventKind, next_state
from romergo.common.actors import ActorType
from romergo.common.clock import Clock
from storage.channels.numbering import COLUMNS, MAX_AT_ONCE, numbered_insert, numbered_params
from storage.core_tables import CHANNEL_EVENTS, CHANNELS, COMMANDS
from storage.driver import Writes
from storage.tables import Channel, Command, Confirmation


@dataclass(frozen=True)
class EventActor:
    type: ActorType
    id: str
    name: str


SYSTEM_ACTOR = EventActor("system", "romergo", "Romergo")


# Built once: a tool call moves its command twice, and building the statement cost more than
# running it.
MOVE_COMMAND = (
    update(COMMANDS)
    .where(COMMANDS.c.id == bindparam("command_id"))
    .values(state=bindparam("to_state"), last_activity_at=bindparam("at"), finished_at=bindparam("finished"))
)
MOVE_COMMAND_FROM = MOVE_COMMAND.where(COMMANDS.c.state == bindparam("from_state"))


@dataclass
class ChannelTx:
    session: AsyncSession
    clock: Clock
    room_ledger: RoomLedger
    """Rooms, their members and commands, kept in this transaction."""
    confirmations: ConfirmationLedger
    """The owner's "Allow once" requests, kept in this transaction."""
    touched: set[str] = field(default_factory=set)
    rooms: set[str] = field(default_factory=set)
    """Projects whose rooms changed in this transaction (published as `rooms_topic` after it)."""
    pending_tool_events: PendingToolEvents | None = None
    """Calls' tool events not written yet (SQLite): each command's go first
    (`channels.pending_tool_events`)."""
    numbered_inserts: bool = False
    """Number and write a run of events in one statement (PostgreSQL: `storage.channels.numbering`)."""

    def now(self) -> datetime:
        return self.clock.now()

    async def command(self, command_id: str) -> Command:
        """A command this transaction read (through `room_ledger`), to write events about it:
        the session's own object, without reading it again."""
        command = await self.session.get(Command, command_id)
        assert command is not None  # commands are never deleted
        return command

    async def room(self, channel_id: str) -> Channel:
        """A room this transaction read (through `room_ledger`), to change and write events on."""
        channel = await self.session.get(Channel, channel_id)
        assert channel is not None  # rooms are never deleted
        return channel

    async def fresh_command(self, command_id: str) -> Command | None:
        """The command as the database holds it now, for the events about it to move it from."""
        return await self.session.get(Command, command_id, populate_existing=True)

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
        new_events: NewEvents,
        command_id: str | None = None,
    ) -> list[int]:
        """Write events in a row: one `UPDATE … RETURNING` takes their numbers, one INSERT writes them
        (on PostgreSQL both are one statement)."""
        if self.numbered_inserts and len(new_events) <= MAX_AT_ONCE:
            shared, own = self._rows(channel_id, actor, new_events, command_id)
            taken = await self.session.exec(numbered_insert(len(own)), params=numbered_params(shared, own))
            numbers = sorted(taken.scalars().all())
            if len(numbers) != len(own):  # the channel is not there: as `numbers` would fail
                raise NoResultFound(f"No channel {channel_id} to number events in.")
            self.touched.add(channel_id)
            return numbers
        numbers = await self.numbers(channel_id, len(new_events))
        await self.write_events(channel_id, numbers, actor, new_events, command_id)
        return numbers

    async def numbers(self, channel_id: str, count: int) -> list[int]:
        """The channel's next `count` event numbers, taken (one `UPDATE … RETURNING`)."""
        taken = await self.session.exec(_TAKE_NUMBERS, params={"channel": channel_id, "count": count})
        last: int = taken.scalar_one()
        return list(range(last - count + 1, last + 1))

    async def write_events(
        self,
        channel_id: str,
        numbers: list[int],
        actor: EventActor,
        new_events: NewEvents,
        command_id: str | None = None,
    ) -> None:
        """The events under numbers taken with `numbers`, in one INSERT."""
        shared, own = self._rows(channel_id, actor, new_events, command_id)
        rows = [shared | row | {"seq": seq} for seq, row in zip(numbers, own, strict=True)]
        # The table, not the entity: a Core INSERT skips the ORM's bulk-insert path.
        await self.session.exec(insert(CHANNEL_EVENTS), params=rows)
        self.touched.add(channel_id)

    def _rows(
        self,
        channel_id: str,
        actor: EventActor,
        new_events: NewEvents,
        command_id: str | None,
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        return event_rows(channel_id, actor, new_events, command_id, self.now())

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
        new_events: NewEvents,
        *,
        redelivered: bool = False,
    ) -> list[int]:
        """Events about `command` in a row, its state moved through each: one UPDATE of the command
        (a statement, not an ORM flush), then the events."""
        if self.pending_tool_events is not None and (earlier := self.pending_tool_events.take(command.id)):
            for pending in merged(earlier):
                await self._tool_events(pending.command, pending.actor, pending.new_events)
            await self.session.refresh(command)  # moved on by those calls' events
        await self._move(command, new_events, redelivered=redelivered)
        return await self.events(command.channel_id, actor, new_events, command.id)

    async def tool_events(self, command: Command, actor: EventActor, new_events: NewEvents) -> list[int]:
        """`command_events` for a command read moments ago, outside this transaction (a tool call
        reads it with the caller's rooms): its state is moved only if the row still holds the state
        read (one conditional UPDATE); if the owner or the sweeper moved it meanwhile, it is read
        afresh and moved from there. Saves re-reading the command on every tool call.

        Earlier calls' events still pending for this command go first, in the same write when the same
        agent made them (which is every time but after a change of hands)."""
        earlier = self.pending_tool_events.take(command.id) if self.pending_tool_events is not None else []
        for pending in merged(earlier):
            if pending.actor == actor:
                new_events = [*pending.new_events, *new_events]
            else:
                await self._tool_events(pending.command, pending.actor, pending.new_events)
        return await self._tool_events(command, actor, new_events)

    async def _tool_events(self, command: Command, actor: EventActor, new_events: NewEvents) -> list[int]:
        if not await self._move(command, new_events, expected=CommandState(command.state)):
            fresh = await self.session.get(Command, command.id, populate_existing=True)
            assert fresh is not None  # commands are never deleted
            await self._move(fresh, new_events)
            command = fresh
        return await self.events(command.channel_id, actor, new_events, command.id)

    async def _move(
        self,
        command: Command,
        new_events: NewEvents,
        *,
        redelivered: bool = False,
        expected: CommandState | None = None,
    ) -> bool:
        """Move the command's row (and the object) through `new_events`; with `expected`, only if
        the row's state is still that (False when it is not, and nothing changed)."""
        waiting = 0
        if command.state == CommandState.NEEDS_CONFIRMATION:  # else none can be waiting: skip the query
            waiting = await self.session.scalar(  # type: ignore[assignment]  # count() is never None
                select(func.count())
                .select_from(Confirmation)
                .where(col(Confirmation.command_id) == command.id, col(Confirmation.state) == "pending")
            )
        now = self.now()
        values = command_moved(command, new_events, now, waiting=waiting or 0, redelivered=redelivered)
        moved = {
            "state": CommandState(values["to_state"]),
            "last_activity_at": now,
            "finished_at": values["finished"],
        }
        if expected is None:
            await self.session.exec(MOVE_COMMAND, params=values)
        else:
            done = await self.session.exec(MOVE_COMMAND_FROM, params={**values, "from_state": expected.value})
            if done.rowcount == 0:
                return False
        for name, value in moved.items():  # the object says what the row says, without a flush
            set_committed_value(command, name, value)
        return True


class NeedsOrmTransaction(Exception):
    """Raised inside a write on the driver (`Database.write_rows`) that met a case only the ORM's
    transaction handles: the write rolls back, having changed nothing, and the caller takes its ORM
    path instead."""


def command_moved(
    command: Command | Row[Any],
    new_events: NewEvents,
    now: datetime,
    *,
    waiting: int = 0,
    redelivered: bool = False,
) -> dict[str, Any]:
    """The command's row after `new_events` (`waiting`: its confirmations still pending), as
    `MOVE_COMMAND`'s parameters. `command`: its entity, or a row with its `id`, `state` and
    `finished_at`."""
    state = CommandState(command.state)
    for kind, _ in new_events:
        state = next_state(state, kind, redelivered=redelivered, waiting_confirmations=waiting)
    finished_at = command.finished_at
    if state in FINISHED_STATES or state == CommandState.CANCELLED:
        finished_at = finished_at or now
    return {"command_id": command.id, "to_state": state.value, "at": now, "finished": finished_at}


def event_rows(
    channel_id: str,
    actor: EventActor,
    new_events: NewEvents,
    command_id: str | None,
    at: datetime,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run's columns: those its events share, and each one's own."""
    shared = {
        "channel_id": channel_id,
        "command_id": command_id,
        "actor_type": actor.type,
        "actor_id": actor.id,
        "actor_name": actor.name,
        "at": at,
    }
    return shared, [{"kind": kind.value, "data": dump(kind, payload)} for kind, payload in new_events]


def write_event(
    rows: Writes,
    channel_id: str,
    actor: EventActor,
    kind: EventKind,
    payload: Payload | None,
    command_id: str | None,
    at: datetime,
    *,
    seq: int | None = None,
    numbered_inserts: bool = False,
) -> int:
    """One event written in a write on the database's driver (`Database.write_rows`): its number
    taken from the channel's sequence (unless taken already: `seq`), then its row; with
    `numbered_inserts` (PostgreSQL) both in one statement. The caller publishes the channel after
    the commit."""
    shared, [own] = event_rows(channel_id, actor, [(kind, payload)], command_id, at)
    if seq is None and numbered_inserts:
        written = rows.first(numbered_insert(1), numbered_params(shared, [own]))
        if written is None:
            raise NoResultFound(f"No channel {channel_id} to number events in.")
        return int(written.seq)
    if seq is None:
        taken = rows.first(_TAKE_NUMBERS, {"channel": channel_id, "count": 1})
        if taken is None:
            raise NoResultFound(f"No channel {channel_id} to number events in.")
        seq = int(taken.last_seq)
    rows.run(_INSERT_EVENT, shared | own | {"seq": seq})
    return seq


def write_events(
    rows: Writes,
    channel_id: str,
    actor: EventActor,
    new_events: NewEvents,
    command_id: str | None,
    at: datetime,
) -> list[int]:
    """A run of events written in a write on the database's driver: their numbers taken in one
    `UPDATE … RETURNING`, then each row. The caller publishes the channel after the commit."""
    taken = rows.first(_TAKE_NUMBERS, {"channel": channel_id, "count": len(new_events)})
    if taken is None:
        raise NoResultFound(f"No channel {channel_id} to number events in.")
    last = int(taken.last_seq)
    numbers = list(range(last - len(new_events) + 1, last + 1))
    shared, own = event_rows(channel_id, actor, new_events, command_id, at)
    each = [shared | event | {"seq": seq} for seq, event in zip(numbers, own, strict=True)]
    rows.run_many(_INSERT_EVENT, each)
    return numbers


# Built once: every event is numbered by it (building it cost about as much as running it).
# Core, on the table: the ORM's bulk-update path cost several times the statement, and nothing reads
# a loaded channel's `last_seq` after its numbers are taken.
_TAKE_NUMBERS = (
    update(CHANNELS)
    .where(CHANNELS.c.id == bindparam("channel"))
    .values(last_seq=CHANNELS.c.last_seq + bindparam("count", type_=Integer))
    .returning(CHANNELS.c.last_seq)
)
_INSERT_EVENT = insert(CHANNEL_EVENTS).values({name: bindparam(name) for name in COLUMNS})
