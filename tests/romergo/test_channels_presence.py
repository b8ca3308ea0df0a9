"""When the panel stops showing an agent as listening (`romergo/channels/presence.py`)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from romergo.channels import presence as presence_module
from romergo.channels import presence_topic
from tests.support.channels import open_room, parked_wait
from tests.support.statements import counting
from tests.support.waiting import still_running, until

MARGIN = 1.0
"""The test's own margin after a wait's window (5 s in Romergo): short, so the tests are quick, yet
long enough that a loaded CI machine's stall between a wait's end and the next read (0.3 s was not,
once) does not pass for the margin running out."""


@pytest.fixture(autouse=True)
def short_margin(monkeypatch):
    monkeypatch.setattr(presence_module, "MARGIN", timedelta(seconds=MARGIN))


async def joined(services, room, name):
    agent = room.agent(name)
    return agent, (await services.channels.agent.join(agent, room.code)).cursor


async def listening(services, room) -> list[bool]:
    view = await services.channels.owner.get_channel(room.owner.user_id, room.channel.channel_id)
    return [member.polling for member in view.members]


async def test_a_timed_out_wait_stays_listening_for_the_margin_then_the_panel_is_told(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    channel_id = room.channel.channel_id
    woken: list[float] = []
    loop = asyncio.get_running_loop()
    services.bus.listen(presence_topic(channel_id), lambda _: woken.append(loop.time()))

    got = await services.channels.agent.wait(agent, channel_id, cursor, 1)
    ended = loop.time()

    assert got.status == "timeout"
    assert len(woken) == 1  # started listening; the timeout itself changed nothing
    assert await listening(services, room) == [True]
    stopped = asyncio.create_task(services.bus.wait(presence_topic(channel_id), 5))
    assert await stopped, "the presence did not run out"
    assert loop.time() - ended >= MARGIN * 0.9
    assert await listening(services, room) == [False]


async def test_waiting_again_within_the_margin_writes_nothing_to_end_the_last_wait(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    channel_id = room.channel.channel_id
    await services.channels.agent.wait(agent, channel_id, cursor, 1)

    with counting(services) as seen:
        again = await parked_wait(services, agent, channel_id, cursor, 30)
        stopped = asyncio.create_task(services.bus.wait(presence_topic(channel_id), MARGIN * 2))
        assert not await stopped  # the first wait's margin passed with no word to the panel
    # The new wait's check, nothing else: its room and its presence, one write transaction on SQLite,
    # a read and a write on their own on PostgreSQL (`channels.wait_check`).
    assert (seen.count, seen.transactions) == ((2, 1) if services.db.is_sqlite else (2, 0)), str(seen)
    assert await listening(services, room) == [True]
    assert await still_running(again, 0.01)
    again.cancel()


async def test_an_abandoned_wait_stops_listening_at_once(services, actor):
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    channel_id = room.channel.channel_id
    waiting = await parked_wait(services, agent, channel_id, cursor, 30)
    stopped = asyncio.create_task(services.bus.wait(presence_topic(channel_id), 5))

    waiting.cancel()  # the agent's connection went away

    assert await stopped
    assert await listening(services, room) == [False]


async def test_the_late_clear_leaves_a_later_wait_listening(services, actor):
    """A wait that timed out here must not clear one the agent began since on another instance."""
    room = await open_room(services, actor)
    agent, cursor = await joined(services, room, "a")
    channel_id = room.channel.channel_id
    presence = services.channels.agent.presence
    await services.channels.agent.wait(agent, channel_id, cursor, 1)
    assert presence.pending == 1
    # What the agent's next wait, on the other instance, writes: its own, later, end of listening.
    later = presence.listening_until(30)
    await services.channels.agent.delivery.next_for(agent, channel_id, cursor, later)

    await until(lambda: presence.pending == 0, what="the first wait's presence to run out")

    assert await listening(services, room) == [True]
