"""Every MCP tool call passes here: attribution to a command, the room's rules, tool events.

CONTRACT.md §2.5: a modifying call belongs to the `command_id` it names, else to the caller's one
unfinished command on that project. Once a client has joined a channel, the room binds all its
calls on that project until the channel ends (leaving does not lift it), and calls on other
projects are refused. Calls attributed to a command show up in the panel as tool events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlmodel import col, select

from romergo.channels.base import ChannelTx, EventActor, channel_state, ensure_holder, ensure_live
from romergo.channels.changes import command_changes
from romergo.channels.confirmations import ConfirmOps, needs_confirmation
from romergo.channels.models import HELD_STATES, Caller
from romergo.clock import utcnow
from romergo.errors import RomergoError
from romergo.story.base import EntityChange, collect_changes
from storage.tables import Channel, ChannelMember, Command

T = TypeVar("T")
UNCHECKED_CATEGORIES = ("channel",)
READ_CATEGORIES = ("read", "channel")
ATTRIBUTABLE_STATES = (*HELD_STATES, "stalled")
LARGE_ARGUMENTS = ("data_base64",)


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


@dataclass(frozen=True)
class Attribution:
    command: Command | None
    room: Channel | None
    rooms: tuple[Channel, ...] = ()


class CallOps(ConfirmOps):
    async def run_tool_call(
        self,
        call: ToolCall,
        execute: Callable[[str | None], Awaitable[T]],
        heartbeat: Callable[[], Awaitable[None]] | None = None,
    ) -> T:
        """Check the call against its room (permissions, then the owner's confirmation when the
        mode asks for one), then `execute(command_id)` with tool events around it."""
        attribution = await self._attribute(call)
        command = attribution.command
        room = attribution.room
        if (
            command is not None
            and room is not None
            and needs_confirmation(room.confirmation_mode, call.category)
        ):
            action = call.action or f"{call.tool} with {redact(call.arguments)}"
            await self.await_confirmation(
                call.caller, command, call.tool, call.arguments, redact(call.arguments), action, heartbeat
            )
        if command is not None:
            await self._started(call, command)
        with collect_changes() as changes:
            try:
                result = await execute(command.id if command else None)
            except RomergoError as error:
                if command is not None:
                    await self._ended(
                        call,
                        command,
                        "tool_failed",
                        {"tool": call.tool, "error_code": error.code, "message": error.message},
                    )
                raise
            except Exception:
                if command is not None:
                    await self._ended(
                        call,
                        command,
                        "tool_failed",
                        {"tool": call.tool, "error_code": "internal", "message": "Internal error."},
                    )
                raise
        if command is not None:
            await self._ended(
                call, command, "tool_finished", {"tool": call.tool, "changed": _changed(changes)}
            )
        return result

    async def project_of_command(self, caller: Caller, command_id: str) -> str:
        """The project of a command in one of the caller's channels (else `not_found`)."""
        async with self.db.read() as session:
            _, channel = await self._owned_command(session, caller.user_id, command_id)
        return channel.project_id

    async def changes_of_command(self, caller: Caller, command_id: str) -> list[dict[str, Any]]:
        """What the server recorded for a command, for the agent that holds (or held) it."""
        async with self.db.read() as session:
            command, _ = await self._owned_command(session, caller.user_id, command_id)
            if command.claimed_by != caller.client_id:
                raise RomergoError("not_claimed_by_you", "This command was delivered to another agent.")
            return await command_changes(session, command.id)

    async def rooms_of(self, caller: Caller) -> list[Channel]:
        """The live channels whose rules bind this client (joined once, whether or not it left)."""
        now = utcnow()
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(Channel)
                    .join(ChannelMember, col(ChannelMember.channel_id) == col(Channel.id))
                    .where(ChannelMember.client_id == caller.client_id, Channel.user_id == caller.user_id)
                )
            ).all()
            return [row for row in rows if channel_state(row, now) == "live"]

    async def _attribute(self, call: ToolCall) -> Attribution:
        rooms = await self.rooms_of(call.caller)
        if call.command_id is not None:
            named, room = await self._named_command(call, rooms)
            await self._check_room(call, room, named)
            return Attribution(named, room, tuple(rooms))
        if not rooms:
            return Attribution(None, None)
        on_project = [room for room in rooms if call.project_id is None or room.project_id == call.project_id]
        if call.project_id is not None and not on_project:
            await self._block(call, rooms[0], None, "This agent is bound to another project's channel.", None)
            raise RomergoError(
                "permission_denied",
                "This agent joined a channel for another project; it cannot touch this one.",
            )
        held = await self._unfinished(call, on_project)
        if call.category in READ_CATEGORIES:
            reading = held[0] if len(held) == 1 else None
            reading_room = next(
                (r for r in on_project if reading and r.id == reading.channel_id),
                on_project[0] if on_project else None,
            )
            await self._check_room(call, reading_room, reading)
            return Attribution(reading, reading_room, tuple(rooms))
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
        command = held[0]
        room = next(r for r in on_project if r.id == command.channel_id)
        await self._check_room(call, room, command)
        return Attribution(command, room, tuple(rooms))

    async def _named_command(self, call: ToolCall, rooms: list[Channel]) -> tuple[Command, Channel]:
        async with self.db.read() as session:
            command, channel = await self._owned_command(session, call.caller.user_id, call.command_id)
        ensure_holder(command, call.caller.client_id)
        ensure_live(channel)
        if call.project_id is not None and channel.project_id != call.project_id:
            await self._block(call, channel, command, "The command belongs to another project.", None)
            raise RomergoError("permission_denied", "This command's channel is for another project.")
        return command, channel

    async def _check_room(self, call: ToolCall, room: Channel | None, command: Command | None) -> None:
        """The room's permissions narrow what the token allows (DESIGN.md §4)."""
        if room is None or call.category in UNCHECKED_CATEGORIES:
            return
        if not room.permissions.get(call.category, False):
            await self._block(call, room, command, f"The room does not allow {call.category}.", call.category)
            raise RomergoError(
                "permission_denied",
                f"The owner has not allowed {call.category} in this channel. "
                "Ask them to turn it on under Channel settings.",
            )

    async def _unfinished(self, call: ToolCall, rooms: list[Channel]) -> list[Command]:
        if not rooms:
            return []
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(Command)
                    .where(
                        col(Command.channel_id).in_([room.id for room in rooms]),
                        Command.claimed_by == call.caller.client_id,
                        col(Command.state).in_(ATTRIBUTABLE_STATES),
                    )
                    .order_by(col(Command.seq))
                )
            ).all()
            return list(rows)

    async def _started(self, call: ToolCall, command: Command) -> None:
        async with self._tx() as tx:
            fresh = await tx.session.get(Command, command.id, populate_existing=True)
            if fresh is None:
                return
            now = utcnow()
            if fresh.state in ("claimed", "stalled"):
                fresh.state = "working"
            fresh.last_activity_at = now
            tx.session.add(fresh)
            await tx.session.flush()
            await tx.event(
                fresh.channel_id,
                "tool_started",
                _agent(call),
                {"tool": call.tool, "arguments": redact(call.arguments), "category": call.category},
                fresh.id,
            )

    async def _ended(self, call: ToolCall, command: Command, kind: str, data: dict[str, Any]) -> None:
        async with self._tx() as tx:
            fresh = await tx.session.get(Command, command.id, populate_existing=True)
            if fresh is not None:
                fresh.last_activity_at = utcnow()
                tx.session.add(fresh)
            await tx.event(command.channel_id, kind, _agent(call), data, command.id)

    async def _block(
        self, call: ToolCall, room: Channel, command: Command | None, reason: str, permission: str | None
    ) -> None:
        async with self._tx() as tx:
            await _blocked_event(tx, call, room.id, command.id if command else None, reason, permission)


async def _blocked_event(
    tx: ChannelTx,
    call: ToolCall,
    channel_id: str,
    command_id: str | None,
    reason: str,
    permission: str | None,
) -> None:
    await tx.event(
        channel_id,
        "tool_blocked",
        _agent(call),
        {"tool": call.tool, "reason": reason, "permission": permission},
        command_id,
    )


def redact(arguments: dict[str, Any]) -> dict[str, Any]:
    """Large values (base64 file contents) appear in events as their byte count."""
    shown: dict[str, Any] = {}
    for name, value in arguments.items():
        if name in LARGE_ARGUMENTS and isinstance(value, str):
            shown[name] = len(value) * 3 // 4 - value[-2:].count("=")
        else:
            shown[name] = value
    return shown


def _changed(changes: list[EntityChange]) -> list[dict[str, str]]:
    seen: list[dict[str, str]] = []
    for change in changes:
        item = {"entity_type": change.entity_type, "entity_id": change.entity_id}
        if item not in seen:
            seen.append(item)
    return seen


def _agent(call: ToolCall) -> EventActor:
    return EventActor("agent", call.caller.client_id, call.caller.client_name)
