"""Revoking an agent (attack 8): its memberships end in every live channel of the owner,
its parked wait returns `channel_ended`, a command it held stalls, and nobody else is
touched."""

from __future__ import annotations

import asyncio

from tests.support.channels import open_room, parked_wait
from ui.panel.model import Conversation


async def test_revoking_an_agent_ends_its_memberships_and_only_its_own(services, actor):
    holding, parked, ended = [await open_room(services, actor) for _ in range(3)]
    claude, other = holding.agent("claude"), holding.agent("other")
    for room in (holding, parked, ended):
        await services.channels.agent.join(claude, room.code)
    await services.channels.agent.join(other, holding.code)
    held = await holding.send("Tidy up")
    got = await services.channels.agent.wait(claude, holding.channel.channel_id, 0, 1)
    assert got.command.command_id == held.command_id
    await services.channels.owner.end_channel(actor.user_id, ended.channel.channel_id)
    cursor = (await services.channels.owner.get_channel(actor.user_id, parked.channel.channel_id)).cursor
    wait = await parked_wait(services, claude, parked.channel.channel_id, cursor)

    assert await services.revoke_agent(actor.user_id, claude.client_id) == 0  # no OAuth grant here
    released = await asyncio.wait_for(wait, 5)
    assert released.status == "channel_ended"

    for room, left in ((holding, True), (parked, True), (ended, False)):
        view = await services.channels.owner.get_channel(actor.user_id, room.channel.channel_id)
        claude_member = next(m for m in view.members if m.client_id == claude.client_id)
        assert (claude_member.left_at is not None) == left, room
        kinds = await room.kinds()
        assert (kinds[-1] == "agent_left") == left
    other_member = next(
        m
        for m in (
            await services.channels.owner.get_channel(actor.user_id, holding.channel.channel_id)
        ).members
        if m.client_id == other.client_id
    )
    assert other_member.left_at is None
    assert (await services.channels.owner.get_command(actor.user_id, held.command_id)).state == "stalled"

    conversation = Conversation()
    events, _ = await services.channels.owner.events(actor.user_id, holding.channel.channel_id)
    conversation.apply(events)
    assert conversation.notices[-1].text.startswith("claude was revoked")


async def test_revoking_an_agent_that_is_in_no_channel_changes_no_channel(services, actor):
    room = await open_room(services, actor)
    before = await room.kinds()
    await services.revoke_agent(actor.user_id, "client-nobody")
    assert await room.kinds() == before
