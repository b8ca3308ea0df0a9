"""A write transaction of the channel service, and the events it writes.

Every event gets the next number of its channel's one sequence, allocated by a single
`UPDATE … RETURNING` inside the write transaction that also writes the event (DESIGN.md §6), so
the numbers are gap-free and ordered even with several writers. An event about a command moves the
command's state by `next_state`, in the same transaction. Commands come and go as records: the
transaction keeps the moves it made, so it answers a command as it stands now (`current`) without
reading it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from romergo.channels.actors import EventActor
from romergo.channels.command_moves import command_moved
from romergo.channels.delivery_ledger import DeliveryLedger
from romergo.channels.event_ledger import EventLog, Row
from romergo.channels.events import NewEvents, Payload, dump
from romergo.channels.ledger import CommandRecord, ConfirmationLedger, RoomLedger
from romergo.channels.pending_tool_events import PendingToolEvents, merged
from romergo.channels.room_changes import RoomChanges
from romergo.channels.vocabulary import CommandState, EventKind
from romergo.common.clock import Clock
from storage.channels.event_log import append_on_driver, append_one_on_driver
from storage.driver import Writes


@dataclass
class ChannelTx:
    session: Any
    """The transaction's session, which the ledgers below are bound to."""
    clock: Clock
    log: EventLog
    """The channel's events and the commands they move, in this transaction."""
    room_ledger: RoomLedger
    """Rooms, their members and commands, kept in this transaction."""
    confirmations: ConfirmationLedger
    """The owner's "Allow once" requests, kept in this transaction."""
    deliveries: DeliveryLedger
    """A wait's delivery: its room, the presence, the claim, kept in this transaction."""
    room_changes: RoomChanges
    """The owner's changes to a room (opened, settings, code, end), written in this transaction."""
    touched: set[str] = field(default_factory=set)
    rooms: set[str] = field(default_factory=set)
    """Projects whose rooms changed in this transaction (published as `rooms_topic` after it)."""
    pending_tool_events: PendingToolEvents | None = None
    """Calls' tool events not written yet (SQLite): each command's go first
    (`channels.pending_tool_events`)."""
    _moves: dict[str, tuple[CommandRecord, Row]] = field(default_factory=dict, init=False, repr=False)
    """Each command this transaction moved: the record it moved, and its last move."""

    def now(self) -> datetime:
        return self.clock.now()

    def current(self, command: CommandRecord) -> CommandRecord:
        """The command as it stands in this transaction: as its last move here left it, or as given
        when the transaction has not moved it (without a read: its every move here went through `_move`)."""
        moves = self._moves.get(command.id)
        if moves is None:
            return command
        moved_from, moved = moves
        return replace(
            moved_from, state=moved["to_state"], last_activity_at=moved["at"], finished_at=moved["finished"]
        )

    async def fresh_command(self, command_id: str) -> CommandRecord | None:
        """The command as the database holds it now, for the events about it to move it from."""
        return await self.log.fresh_command(command_id)

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
        shared, own = self._rows(channel_id, actor, new_events, command_id)
        numbers = await self.log.append(channel_id, shared, own)
        self.touched.add(channel_id)
        return numbers

    async def numbers(self, channel_id: str, count: int) -> list[int]:
        """The channel's next `count` event numbers, taken (one `UPDATE … RETURNING`)."""
        return await self.log.numbers(channel_id, count)

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
        await self.log.write(numbers, shared, own)
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
        command: CommandRecord,
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
        command: CommandRecord,
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
            fresh = await self.log.fresh_command(command.id)  # moved on by those calls' events
            assert fresh is not None  # commands are never deleted
            command = fresh
        await self._move(command, new_events, redelivered=redelivered)
        return await self.events(command.channel_id, actor, new_events, command.id)

    async def tool_events(
        self, command: CommandRecord, actor: EventActor, new_events: NewEvents
    ) -> list[int]:
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

    async def _tool_events(
        self, command: CommandRecord, actor: EventActor, new_events: NewEvents
    ) -> list[int]:
        if not await self._move(command, new_events, expected=CommandState(command.state)):
            fresh = await self.log.fresh_command(command.id)
            assert fresh is not None  # commands are never deleted
            await self._move(fresh, new_events)
            command = fresh
        return await self.events(command.channel_id, actor, new_events, command.id)

    async def _move(
        self,
        command: CommandRecord,
        new_events: NewEvents,
        *,
        redelivered: bool = False,
        expected: CommandState | None = None,
    ) -> bool:
        """Move the command's row through `new_events` (`current` answers it so after); with
        `expected`, only if the row's state is still that (False when it is not, and nothing
        changed)."""
        waiting = 0
        if command.state == CommandState.NEEDS_CONFIRMATION:  # else none can be waiting: skip the query
            waiting = await self.log.pending_confirmations(command.id)
        values = command_moved(command, new_events, self.now(), waiting=waiting, redelivered=redelivered)
        if not await self.log.move_command(values, from_state=None if expected is None else expected.value):
            return False
        self._moves[command.id] = (command, values)
        return True


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
    return append_one_on_driver(rows, channel_id, shared, own, seq=seq, numbered_inserts=numbered_inserts)


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
    shared, own = event_rows(channel_id, actor, new_events, command_id, at)
    return append_on_driver(rows, channel_id, shared, own)
