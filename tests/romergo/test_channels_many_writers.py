"""Several writers on one database, as several processes (or instances) are (issue 17): two pools
post commands and claim them at once, and the channel's numbers and claims stay exact."""

from __future__ import annotations

import asyncio

from romergo.config import Settings
from romergo.services import build_services
from tests.support.channels import open_room


async def test_two_pools_number_events_without_gaps_and_claim_each_command_once(services, actor, tmp_path):
    other = build_services(Settings(data_dir=tmp_path, database_url=services.db.url))
    try:
        room = await open_room(services, actor)
        channel_id = room.channel.channel_id
        agents = [room.agent("first"), room.agent("second")]
        cursors = [(await services.channels.agent.join(agent, room.code)).cursor for agent in agents]
        posters = [services, other] * 15
        await asyncio.gather(
            *(
                side.channels.owner.post_command(actor.user_id, channel_id, f"Job {n}")
                for n, side in enumerate(posters)
            )
        )

        async def drain(side, agent, cursor) -> list[str]:
            taken: list[str] = []
            while True:
                got = await side.channels.agent.wait(agent, channel_id, cursor, 1)
                if got.status != "command":
                    return taken
                assert got.command is not None
                taken.append(got.command.command_id)
                await side.channels.agent.report(
                    agent, got.command.command_id, "reply", "done", {"status": "no_changes"}
                )
                cursor = got.cursor

        first, second = await asyncio.gather(
            drain(services, agents[0], cursors[0]), drain(other, agents[1], cursors[1])
        )
    finally:
        await other.close()
    assert len(first) + len(second) == 30
    assert len(set(first) | set(second)) == 30
    numbers = [event.seq for event in await room.events()]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
