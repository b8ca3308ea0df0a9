"""When the owner revokes an agent at `/settings/agents`, it stops being in the room at once.

Its tokens die with its grants (`romergo.agents`); here, in the same request, every live
membership of that client in the owner's channels ends with an `agent_left` event whose reason
is `revoked`. The event wakes the client's parked waits, which then find no membership and
return `not_member`, and the panel says the agent was revoked. A command the agent held is
marked stalled, so the owner can retry it with another agent without waiting out the lease.
"""

from __future__ import annotations

from sqlmodel import col, select

from romergo.channels.events import AgentPresence, Stalled
from romergo.channels.store import SYSTEM_ACTOR, ChannelTx, EventActor, channel_state
from romergo.channels.vocabulary import HELD_STATES, EventKind
from storage.tables import Channel, ChannelMember, Command


async def end_memberships(tx: ChannelTx, owner: EventActor, client_id: str) -> int:
    """Ends `client_id`'s live memberships in the owner's live channels; returns how many."""
    rows = (
        await tx.session.exec(
            select(ChannelMember, Channel)
            .join(Channel, col(Channel.id) == col(ChannelMember.channel_id))
            .where(
                col(Channel.user_id) == owner.id,
                col(ChannelMember.client_id) == client_id,
                col(ChannelMember.left_at).is_(None),
            )
        )
    ).all()
    ended = 0
    for member, channel in rows:
        if channel_state(channel, tx.now()) != "live":
            continue
        await _stall_held(tx, channel, client_id)
        member.left_at = tx.now()
        member.polling_until = None
        tx.session.add(member)
        await tx.session.flush()
        revoked = AgentPresence(client_id=client_id, agent_name=member.agent_name, reason="revoked")
        await tx.event(channel.id, EventKind.AGENT_LEFT, owner, revoked)
        ended += 1
    return ended


async def _stall_held(tx: ChannelTx, channel: Channel, client_id: str) -> None:
    held = (
        await tx.session.exec(
            select(Command).where(
                col(Command.channel_id) == channel.id,
                col(Command.claimed_by) == client_id,
                col(Command.state).in_(HELD_STATES),
            )
        )
    ).all()
    for command in held:
        await tx.command_event(command, EventKind.STALLED, SYSTEM_ACTOR, Stalled(claimed_by=client_id))
