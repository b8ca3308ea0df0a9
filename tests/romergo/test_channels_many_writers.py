"""Several writers on one database, as several processes (or instances) are: two pools
post commands and claim them at once, and the channel's numbers and claims stay exact."""

from __future__ import annotations

import asyncio

import pytest

from romergo.channels.store import channel_topic
from romergo.common.config import Settings
from romergo.services import build_services
from tests.support.channels import open_room
from tests.support.waiting import until


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


@pytest.mark.parametrize("database", ["postgresql"])  # SQLite serves one process: nothing to relay
async def test_a_command_posted_in_one_process_wakes_the_agent_waiting_in_another(services, actor, tmp_path):
    """Two services on one PostgreSQL database, each with its own bus, as two server processes."""
    other = build_services(Settings(data_dir=tmp_path, database_url=services.db.url))
    await services.start_wakeups()
    await other.start_wakeups()
    try:
        room = await open_room(services, actor)
        helper = room.agent("helper")
        cursor = (await other.channels.agent.join(helper, room.code)).cursor
        waiting = asyncio.create_task(other.channels.agent.wait(helper, room.channel.channel_id, cursor, 30))
        topic = channel_topic(room.channel.channel_id)
        await until(lambda: other.bus.listener_count(topic), what="the wait to park")
        await room.send("Tidy the opening")  # posted through the first process
        got = await asyncio.wait_for(waiting, timeout=5)  # far below the wait's 30 s: woken, not timed out
    finally:
        await other.close()
    assert got.status == "command"
    assert got.command is not None and got.command.text == "Tidy the opening"


async def test_two_instances_sweeping_at_once_stall_a_silent_command_once(services, actor, clock, tmp_path):
    other = build_services(Settings(data_dir=tmp_path, database_url=services.db.url), clock)
    try:
        room = await open_room(services, actor)
        helper = room.agent("helper")
        cursor = (await services.channels.agent.join(helper, room.code)).cursor
        await room.send("Tidy the opening")
        await services.channels.agent.wait(helper, room.channel.channel_id, cursor, 1)
        clock.advance(services.settings.command_lease_seconds + 1)
        swept = await asyncio.gather(*(side.channels.sweeper.sweep() for side in (services, other) * 3))
    finally:
        await other.close()
    assert sum(stalled for stalled, _ in swept) == 1
    assert (await room.kinds()).count("stalled") == 1


async def test_instances_starting_together_create_the_first_account_once(services, tmp_path):
    others = [
        build_services(Settings(data_dir=tmp_path / str(n), database_url=services.db.url)) for n in range(3)
    ]
    try:
        started = await asyncio.gather(*(side.accounts.ensure_first_user() for side in [services, *others]))
    finally:
        for side in others:
            await side.close()
    assert [created for _, created in started].count(True) == 1
    assert len({user.id for user, _ in started}) == 1
