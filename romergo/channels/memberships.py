"""An agent's memberships in the owner's rooms, and the proof of stopping: once the owner ends a
room, or removes or revokes its agent, the agent's later calls on that project are refused, and the
refusals are written on the room it left.

A membership binds while its channel lives and the owner has not removed or revoked the agent.
Once it no longer does, the project is closed to that agent (`channel_ended`) until the owner
invites it into a new channel on the project. Each refusal is a `tool_blocked` event on the closed room
(without a command), so the owner's panel lists what the agent still tried after the end. At most
`MAX_RECORDED` per agent and room are written: an agent hammering a closed door cannot grow the
history without bound (every refusal still reaches the settings page's "last refused").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from romergo.channels.actors import EventActor
from romergo.channels.events import ToolBlocked
from romergo.channels.ledger import CommandRecord, MembershipRecord, RoomRecord
from romergo.channels.store import channel_state, owned_command_rows
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import ATTRIBUTABLE_STATES, REMOVED_BY_OWNER, EventKind
from romergo.common.errors import RomergoError
from storage.channels.agent_rooms import (
    current_rooms_on_driver,
    held_on_driver,
    held_statement,
    joined_rooms_on_driver,
)
from storage.driver import Rows

MAX_RECORDED = 50


@dataclass(frozen=True)
class Membership:
    channel: RoomRecord
    member: MembershipRecord

    def binds(self, now: datetime) -> bool:
        """The room's rules apply to the agent's calls (it may also have left by itself)."""
        return channel_state(self.channel, now) == "live" and self.member.left_reason not in REMOVED_BY_OWNER

    def closed_at(self, now: datetime) -> datetime:
        """When the room stopped admitting this agent's calls."""
        if self.member.left_reason in REMOVED_BY_OWNER and self.member.left_at is not None:
            return self.member.left_at
        return self.channel.ended_at or min(self.channel.expires_at, now)


def memberships(rows: Rows, user_id: str, client_id: str) -> list[Membership]:
    """Every room of this owner the client ever joined, newest first."""
    return [Membership(*joined) for joined in joined_rooms_on_driver(rows, user_id, client_id)]


def current_rooms(
    rows: Rows, user_id: str, client_id: str, project_id: str | None, now: datetime
) -> list[Membership]:
    """What a call's checks need of the client's rooms, newest first: the rooms not yet ended or
    expired, and the newest room on `project_id` (which says why the project is closed when no
    room binds there). All that `closed_on` and the live rooms need, however many rooms the client
    joined before: a call's cost does not grow with the agent's history.

    Read on the driver (`Database.read_rows`), with whatever else the call's check reads."""
    return [
        Membership(*joined) for joined in current_rooms_on_driver(rows, user_id, client_id, project_id, now)
    ]


def rooms_and_commands_of_call(
    rows: Rows, user_id: str, client_id: str, project_id: str | None, command_id: str | None, now: datetime
) -> tuple[list[Membership], list[CommandRecord], tuple[CommandRecord, RoomRecord] | None]:
    """What a tool call's check reads, in one read: the caller's rooms (`current_rooms`); then the
    command the call names, with its room, or for a call that names none, the unfinished commands it
    holds in the live rooms, oldest first. Whether the named command may be used is decided after."""
    joined = current_rooms(rows, user_id, client_id, project_id, now)
    if command_id is not None:
        return joined, [], owned_command_rows(rows, user_id, command_id)
    held = [
        command
        for room in joined
        if room.binds(now)
        for command in held_on_driver(rows, _HELD, room.channel.id, client_id)
    ]
    return joined, sorted(held, key=lambda command: command.seq), None


def closed_on(rooms: list[Membership], project_id: str | None, now: datetime) -> Membership | None:
    """The room that closed this project to the agent, if no live room of it binds there."""
    if project_id is None:
        return None
    on_project = [room for room in rooms if room.channel.project_id == project_id]
    if any(room.binds(now) for room in on_project):
        return None
    return next(iter(on_project), None)


def stopped(room: Membership) -> RomergoError:
    reason = room.member.left_reason
    if reason == "removed":
        why = "The owner removed you from the Builder channel for this project."
    elif reason == "revoked":
        why = "The owner revoked your access."
    else:
        why = "The Builder channel for this project has ended."
    return RomergoError(
        "channel_ended",
        f"{why} Stop working on it: Romergo refuses your calls on this project until the owner "
        "invites you into a new channel.",
    )


async def record_refusal(tx: ChannelTx, room: Membership, agent: EventActor, tool: str) -> bool:
    """Write the refused call on the room it was refused for; False once the room holds enough."""
    since = room.closed_at(tx.now())
    recorded = await tx.room_ledger.events_by_since(
        room.channel.id, EventKind.TOOL_BLOCKED.value, agent.id, since
    )
    if recorded >= MAX_RECORDED:
        return False
    reason = {"removed": "after its removal", "revoked": "after its revocation"}.get(
        room.member.left_reason or "", "after the end"
    )
    await tx.event(room.channel.id, EventKind.TOOL_BLOCKED, agent, ToolBlocked(tool=tool, reason=reason))
    return True


_HELD = held_statement(tuple(state.value for state in ATTRIBUTABLE_STATES))
"""What a call that names no command looks for in each live room: the commands it holds there
(tests/romergo/test_channels_history.py: the cost does not grow with the client's history)."""
