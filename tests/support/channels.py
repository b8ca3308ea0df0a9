"""Helpers for channel tests: an owner with a story and a channel, and agents to join it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sqlmodel import col, select

from romergo.channels import AgentRef, ChannelView, presence_topic
from romergo.channels.parking import Heartbeat
from romergo.common.actors import Actor
from romergo.services import Services
from storage.tables import ChannelEvent
from tests.support.story import SmallStory, small_story


@dataclass
class Room:
    services: Services
    owner: Actor
    story: SmallStory
    channel: ChannelView
    code: str

    def agent(self, name: str) -> AgentRef:
        return AgentRef(user_id=self.owner.user_id, client_id=f"client-{name}", client_name=name)

    async def send(self, text: str = "Do something", **kwargs):
        return await self.services.channels.owner.post_command(
            self.owner.user_id, self.channel.channel_id, text, **kwargs
        )

    async def kinds(self) -> list[str]:
        return [event.kind for event in await self.events()]

    async def events(self) -> list[ChannelEvent]:
        """The channel's events as the panel will have them (reads' tool events written)."""
        await self.services.channels.store.settled()
        async with self.services.db.read() as session:
            rows = await session.exec(
                select(ChannelEvent)
                .where(ChannelEvent.channel_id == self.channel.channel_id)
                .order_by(col(ChannelEvent.seq))
            )
            return list(rows.all())


async def open_room(services: Services, owner: Actor, **settings) -> Room:
    story = await small_story(services, owner)
    channel = await services.channels.owner.create_channel(owner.user_id, story.project_id, **settings)
    assert channel.code
    return Room(services, owner, story, channel, channel.code)


async def parked_wait(
    services: Services,
    agent: AgentRef,
    channel_id: str,
    cursor: int,
    timeout: float = 30,
    heartbeat: Heartbeat | None = None,
):
    """Start `agent`'s wait and return its task once it has parked (found nothing, announced itself).

    Tasks start in the order they are made, so the presence listener is in place first.
    """
    listening = asyncio.create_task(services.bus.wait(presence_topic(channel_id), 5))
    waiting = asyncio.create_task(services.channels.agent.wait(agent, channel_id, cursor, timeout, heartbeat))
    assert await listening, "the wait did not park"
    return waiting
