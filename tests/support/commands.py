"""A command an agent has carried out: claimed, its changes made under it, and its reply sent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from romergo.channels import CommandView
from romergo.common.actors import Actor, agent_actor
from tests.support.channels import Room

Change = Callable[[Actor], Awaitable[Any]]


async def carried_out(room: Room, text: str, *changes: Change, reply: bool = True) -> CommandView:
    """Send `text`, let an agent claim it and make `changes` (each gets the agent's actor for the
    command), then reply: the command ends `done` with those changes recorded under it."""
    services = room.services
    agent = room.agent("worker")
    cursor = (await services.channels.agent.join(agent, room.code)).cursor
    await room.send(text)
    got = await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)
    assert got.command is not None
    command_id = got.command.command_id
    actor = agent_actor(agent.user_id, agent.client_id, agent.client_name)
    for number, change in enumerate(changes):
        await change(actor.for_tool(f"romergo_change_{number}", command_id))
    if reply:
        await services.channels.agent.report(agent, command_id, "reply", "Done.", {"status": "success"})
    return await services.channels.owner.get_command(room.owner.user_id, command_id)
