"""Every MCP tool call passes here: attribution to a command, the room's rules, tool events.

CONTRACT.md §2.5: a modifying call belongs to the `command_id` it names, else to the caller's one
unfinished command on that project. Once a client has joined a channel, the room binds all its
calls on that project while the channel lives (leaving does not lift it), and calls on other
projects are refused. Once the room is closed to it (ended, or the agent removed or revoked), its
calls on that project are refused and recorded (`memberships`). Inside a room, the reach is checked
before the permissions (`reach`). Calls attributed to a command show up in the panel as tool events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from romergo.access.ratelimit import rate_limit
from romergo.channels.actors import EventActor
from romergo.channels.at_work import AtWork
from romergo.channels.changes import command_changes
from romergo.channels.confirmations import Confirmations, needs_confirmation
from romergo.channels.events import (
    EntityRef,
    NewEvents,
    Payload,
    ReplacedNewerChange,
    ToolBlocked,
    ToolFailed,
    ToolFinished,
    ToolStarted,
)
from romergo.channels.ledger import CommandRecord, RoomRecord
from romergo.channels.memberships import (
    Membership,
    closed_on,
    current_rooms,
    memberships,
    record_refusal,
    rooms_and_commands_of_call,
    stopped,
)
from romergo.channels.models import Caller
from romergo.channels.pending_tool_events import PendingEvents, StartedIfSlow
from romergo.channels.reach import Locator, Target, check_reach, scope_chapters
from romergo.channels.room_view import changes_in_reach
from romergo.channels.shown_arguments import redact
from romergo.channels.store import ChannelStore, command_not_found, ensure_holder
from romergo.channels.vocabulary import FINISHED_STATES, EventKind
from romergo.common.errors import RomergoError
from romergo.story.base import EntityChange, collect_changes
from romergo.story.based_on import replaced_so_far

T = TypeVar("T")
UNCHECKED_CATEGORIES = ("channel",)
READ_CATEGORIES = ("read", "channel")


@dataclass(frozen=True)
class ToolCall:
    caller: Caller
    tool: str
    category: str
    arguments: dict[str, Any] = field(default_factory=dict)
    command_id: str | None = None
    project_id: str | None = None
    """The project the call touches, resolved by the adapter before the call (None: no single one)."""
    action: str = ""
    """The call in plain words for the owner's confirmation dialog ("Delete scene …")."""
    targets: tuple[Target, ...] = ()
    """The entities the call names (the one it works on first): the room must reach them."""
    whole_project: bool = False
    """The call acts on the whole project (publish, a new chapter): only a room without a limit."""


@dataclass(frozen=True)
class Attribution:
    command: CommandRecord | None
    room: RoomRecord | None
    rooms: tuple[RoomRecord, ...] = ()


@dataclass(frozen=True)
class Admission:
    """What a call that passed the guard runs with: its command and the room's reach."""

    command_id: str | None
    reach: frozenset[str] | None = None


class CallGuard:
    """The one server-side check every tool call passes (DESIGN.md §4)."""

    def __init__(
        self,
        store: ChannelStore,
        confirmations: Confirmations,
        locator: Locator | None = None,
        at_work: AtWork | None = None,
    ) -> None:
        self.store = store
        self.confirmations = confirmations
        self.locator = locator
        self.at_work = at_work
        self.tool_calls = rate_limit(
            store.settings,
            store.db,
            "tool_calls",
            limit=store.settings.rate_limit_per_minute,
            window_seconds=60,
        )

    async def run_tool_call(
        self,
        call: ToolCall,
        execute: Callable[[Admission], Awaitable[T]],
        heartbeat: Callable[[], Awaitable[None]] | None = None,
    ) -> T:
        """Check the call against its room (reach, permissions, then the owner's confirmation
        when the mode asks for one), then `execute(admission)` with tool events around it."""
        attribution = await self._attribute(call)
        command = attribution.command
        room = attribution.room
        if (
            command is not None
            and room is not None
            and needs_confirmation(room.confirmation_mode, call.category)
        ):
            action = call.action or f"{call.tool} with {redact(call.arguments)}"
            await self.confirmations.await_confirmation(
                call.caller, command, call.tool, call.arguments, redact(call.arguments), action, heartbeat
            )
        reach = scope_chapters(room.scope) if room is not None else None
        admission = Admission(command.id if command else None, reach)
        if command is None:
            return await execute(admission)
        if self.at_work is not None:
            await self.at_work.noted(call.caller.client_id, call.caller.client_name, call.targets, command)
        return await self._with_events(call, command, execute, admission)

    async def _with_events(
        self,
        call: ToolCall,
        command: CommandRecord,
        execute: Callable[[Admission], Awaitable[T]],
        admission: Admission,
    ) -> T:
        """`execute` with its tool events. A call's started and finished (or failed) events are
        written together just after it has answered (it takes milliseconds: the panel loses nothing,
        the call saves a write); a change still running after a moment shows as started
        meanwhile (`StartedIfSlow`). Where the process's writes do not take turns (PostgreSQL), they
        are written before the call answers (`channels.pending_tool_events`)."""
        read = call.category in READ_CATEGORIES
        start = None if read else StartedIfSlow(lambda: self._started(call, command))
        with collect_changes() as changes:
            try:
                result = await execute(admission)
            except Exception as error:
                together = read or not await _stopped(start)
                failed = (
                    ToolFailed(tool=call.tool, error_code=error.code, message=error.message)
                    if isinstance(error, RomergoError)
                    else ToolFailed(tool=call.tool, error_code="internal", message="Internal error.")
                )
                await self._ended(call, command, EventKind.TOOL_FAILED, failed, together)
                raise
            except BaseException:  # cancelled: as before, nothing more is written
                if start is not None:
                    start.abandon()
                raise
        finished = ToolFinished(
            tool=call.tool,
            changed=_changed(changes),
            replaced_newer_changes=[ReplacedNewerChange.of(r) for r in replaced_so_far()],
        )
        together = read or not await _stopped(start)
        await self._ended(call, command, EventKind.TOOL_FINISHED, finished, together)
        return result

    async def project_of_command(self, caller: Caller, command_id: str) -> str:
        """The project of a command in one of the caller's channels (else `not_found`)."""
        project_id = await self.store.project_of_command(caller.user_id, command_id)
        if project_id is None:
            raise command_not_found(command_id)
        return project_id

    async def changes_of_command(self, caller: Caller, command_id: str) -> list[dict[str, Any]]:
        """What the server recorded for a command, for the agent that holds (or held) it, as its
        room's reach is now (`room_view`)."""
        async with self.store.db.read() as session:
            command, room = await self.store.owned_command(session, caller.user_id, command_id)
            if command.claimed_by != caller.client_id:
                raise RomergoError("not_claimed_by_you", "This command was delivered to another agent.")
            reads = self.store.room_reads(session)
            return await changes_in_reach(reads, room, await command_changes(reads, command.id))

    async def rooms_of(self, caller: Caller) -> list[RoomRecord]:
        """The live channels whose rules bind this client (joined once, whether or not it left)."""
        now = self.store.now()
        rooms = await self.store.db.read_rows(
            lambda rows: current_rooms(rows, caller.user_id, caller.client_id, None, now)
        )
        return [room.channel for room in rooms if room.binds(now)]

    async def record_revoked_call(self, user_id: str, client_id: str, agent_name: str, tool: str) -> None:
        """A call with a token of a revoked grant: written on the room it was revoked from."""
        rooms = await self.store.db.read_rows(lambda rows: memberships(rows, user_id, client_id))
        revoked = next((room for room in rooms if room.member.left_reason == "revoked"), None)
        if revoked is not None:
            async with self.store.tx() as tx:
                await record_refusal(tx, revoked, EventActor("agent", client_id, agent_name), tool)

    async def _attribute(self, call: ToolCall) -> Attribution:
        """The command and room a call belongs to (CONTRACT.md §2.5), with the room's check done."""
        now = self.store.now()
        joined, held_anywhere, named_found = await self._rooms_and_commands(call, now)
        closed = closed_on(joined, call.project_id, now)
        if closed is not None:
            async with self.store.tx() as tx:
                await record_refusal(tx, closed, _agent(call), call.tool)
            raise stopped(closed)
        rooms = [room.channel for room in joined if room.binds(now)]
        if call.command_id is not None:
            named, room = await self._named_command(call, named_found)
            await self._check_room(call, room, named)
            if named.state in FINISHED_STATES:
                return Attribution(None, room, tuple(rooms))  # a read after the reply: no tool events
            return Attribution(named, room, tuple(rooms))
        if not rooms:
            return Attribution(None, None)
        on_project = await self._rooms_on_project(call, rooms)
        held = _in_rooms(held_anywhere, on_project)
        command = await self._held_command(call, on_project, held)
        bound = next((r for r in on_project if command and r.id == command.channel_id), None)
        if bound is None and on_project and call.category in READ_CATEGORIES:
            bound = on_project[0]
        await self._check_room(call, bound, command)
        return Attribution(command, bound, tuple(rooms))

    async def _rooms_on_project(self, call: ToolCall, rooms: list[RoomRecord]) -> list[RoomRecord]:
        on_project = [room for room in rooms if call.project_id is None or room.project_id == call.project_id]
        if call.project_id is not None and not on_project:
            await self._block(call, rooms[0], None, "This agent is bound to another project's channel.", None)
            raise RomergoError(
                "permission_denied",
                "This agent joined a channel for another project; it cannot touch this one.",
            )
        return on_project

    async def _held_command(
        self, call: ToolCall, on_project: list[RoomRecord], held: list[CommandRecord]
    ) -> CommandRecord | None:
        """The one unfinished command a call without `command_id` works for (a read may have none)."""
        if call.category in READ_CATEGORIES:
            return held[0] if len(held) == 1 else None
        if not held:
            await self._block(call, on_project[0], None, "No command is active for this agent.", None)
            raise RomergoError(
                "no_active_command",
                "You have no active command in this channel. "
                "Wait for the owner's next command before changing anything.",
            )
        if len(held) > 1:
            raise RomergoError(
                "ambiguous_command", "You hold several commands on this project: pass command_id."
            )
        return held[0]

    async def _named_command(
        self, call: ToolCall, found: tuple[CommandRecord, RoomRecord] | None
    ) -> tuple[CommandRecord, RoomRecord]:
        if found is None:
            raise command_not_found(call.command_id)
        command, channel = found
        if not _reads_own_finished(call, command):
            ensure_holder(command, call.caller.client_id)
        self.store.ensure_live(channel)
        if call.project_id is not None and channel.project_id != call.project_id:
            await self._block(call, channel, command, "The command belongs to another project.", None)
            raise RomergoError("permission_denied", "This command's channel is for another project.")
        return command, channel

    async def _check_room(
        self, call: ToolCall, room: RoomRecord | None, command: CommandRecord | None
    ) -> None:
        """The room's reach, then its permissions, narrow what the token allows (DESIGN.md §4)."""
        if room is None or call.category in UNCHECKED_CATEGORIES:
            return
        reach = scope_chapters(room.scope)
        if reach is not None:
            assert self.locator is not None, "a guard without a locator cannot check a limited room"
            try:
                await check_reach(
                    reach, call.targets, call.category, call.whole_project, self.locator, call.caller.user_id
                )
            except RomergoError:
                await self._block(call, room, command, "Outside the room's reach.", None)
                raise
        if not room.permissions.get(call.category, False):
            await self._block(call, room, command, f"The room does not allow {call.category}.", call.category)
            raise RomergoError(
                "permission_denied",
                f"The owner has not allowed {call.category} in this channel. "
                "Ask them to turn it on under Channel settings.",
            )

    async def _rooms_and_commands(
        self, call: ToolCall, now: datetime
    ) -> tuple[list[Membership], list[CommandRecord], tuple[CommandRecord, RoomRecord] | None]:
        """The caller's rooms; then the command the call names (with its room), or for a call that
        names none, the unfinished commands it holds in the live rooms. One read on the driver for
        what every call needs; whether the named command may be used is decided after the rooms'."""
        caller = call.caller
        return await self.store.db.read_rows(
            lambda rows: rooms_and_commands_of_call(
                rows, caller.user_id, caller.client_id, call.project_id, call.command_id, now
            )
        )

    async def _started(self, call: ToolCall, command: CommandRecord) -> None:
        async with self.store.tx() as tx:
            await tx.tool_events(command, _agent(call), [(EventKind.TOOL_STARTED, _start(call))])

    async def _ended(
        self, call: ToolCall, command: CommandRecord, kind: EventKind, payload: Payload, with_start: bool
    ) -> None:
        """The call's closing event (and its start, `with_start`): left to be written just after the
        call answers where the process's writes allow it (`channels.pending_tool_events`), else
        written now."""
        new_events: NewEvents = [(kind, payload)]
        if with_start:
            new_events.insert(0, (EventKind.TOOL_STARTED, _start(call)))
        if self.store.pending_tool_events is not None:
            self.store.pending_tool_events.add(PendingEvents(command, _agent(call), new_events))
            return
        async with self.store.tx() as tx:
            await tx.tool_events(command, _agent(call), new_events)

    async def _block(
        self,
        call: ToolCall,
        room: RoomRecord,
        command: CommandRecord | None,
        reason: str,
        permission: str | None,
    ) -> None:
        blocked = ToolBlocked(tool=call.tool, reason=reason, permission=permission)
        command_id = command.id if command else None
        async with self.store.tx() as tx:
            await tx.event(room.id, EventKind.TOOL_BLOCKED, _agent(call), blocked, command_id)


def _in_rooms(commands: list[CommandRecord], rooms: list[RoomRecord]) -> list[CommandRecord]:
    ids = {room.id for room in rooms}
    return [command for command in commands if command.channel_id in ids]


async def _stopped(start: StartedIfSlow | None) -> bool:
    """Whether the call's `tool_started` was written on its own while it ran."""
    return start is not None and await start.stop()


def _start(call: ToolCall) -> ToolStarted:
    return ToolStarted(tool=call.tool, arguments=redact(call.arguments), category=call.category)


def _reads_own_finished(call: ToolCall, command: CommandRecord) -> bool:
    """An agent may still read (not change) a command it finished, e.g. its recorded changes after
    replying, to check its work."""
    return (
        call.category in READ_CATEGORIES
        and command.claimed_by == call.caller.client_id
        and command.state in FINISHED_STATES
    )


def _changed(changes: list[EntityChange]) -> list[EntityRef]:
    seen: list[EntityRef] = []
    for change in changes:
        item = EntityRef(entity_type=change.entity_type, entity_id=change.entity_id)
        if item not in seen:
            seen.append(item)
    return seen


def _agent(call: ToolCall) -> EventActor:
    return EventActor("agent", call.caller.client_id, call.caller.client_name)
