"""When the owner revokes an agent at `/settings/agents`, or removes it from one room, it stops
being in the room at once.

Its tokens die with its grants (`romergo.access.agents`); here, in the same request, every live
membership of that client in the owner's channels ends with an `agent_left` event whose reason
is `revoked`. The event wakes the client's parked waits, which then return `channel_ended`
(`delivery`), and the panel says the agent was revoked. A command the agent held is
marked stalled, so the owner can retry it with another agent without waiting out the lease.
Removing one agent from a room does the same in that room only (reason `removed`); the removed
agent can join again only with a code made after its removal.
"""

from __future__ import annotations

from typing import Literal

from romergo.channels.actors import SYSTEM_ACTOR, EventActor
from romergo.channels.events import AgentPresence, Stalled
from romergo.channels.ledger import MembershipRecord
from romergo.channels.store import channel_state
from romergo.channels.tx import ChannelTx
from romergo.channels.vocabulary import HELD_STATES, REMOVED_BY_OWNER, EventKind
from romergo.common.errors import RomergoError


async def end_memberships(tx: ChannelTx, owner: EventActor, client_id: str) -> int:
    """Ends `client_id`'s live memberships in the owner's live channels; returns how many."""
    ended = 0
    for member, channel in await tx.room_ledger.present_in_owners_rooms(owner.id, client_id):
        if channel_state(channel, tx.now()) != "live":
            continue
        await _end_membership(tx, channel.id, member, owner, "revoked")
        ended += 1
    return ended


async def remove_member(tx: ChannelTx, channel_id: str, client_id: object, owner: EventActor) -> None:
    """The owner removes one agent from this room (it may have left by itself already)."""
    member = await tx.room_ledger.member(channel_id, client_id) if isinstance(client_id, str) else None
    if member is None:
        raise RomergoError("not_found", f'Agent "{str(client_id)[:100]}" is not a member of this channel.')
    if member.left_reason in REMOVED_BY_OWNER:
        raise RomergoError("conflict", f"{member.agent_name} is already out of this channel.")
    await _end_membership(tx, channel_id, member, owner, "removed")


async def _end_membership(
    tx: ChannelTx,
    channel_id: str,
    member: MembershipRecord,
    owner: EventActor,
    reason: Literal["removed", "revoked"],
) -> None:
    await _stall_held(tx, channel_id, member.client_id)
    await tx.room_ledger.end_membership(channel_id, member.client_id, tx.now(), reason)
    gone = AgentPresence(client_id=member.client_id, agent_name=member.agent_name, reason=reason)
    await tx.event(channel_id, EventKind.AGENT_LEFT, owner, gone)


async def _stall_held(tx: ChannelTx, channel_id: str, client_id: str) -> None:
    for held in await tx.room_ledger.commands_held(channel_id, client_id, HELD_STATES):
        await tx.command_event(held, EventKind.STALLED, SYSTEM_ACTOR, Stalled(claimed_by=client_id))
