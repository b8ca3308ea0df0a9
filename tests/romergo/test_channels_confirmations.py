"""Confirmations (CONTRACT.md §2.7): one exact action, allowed once by the owner, run once."""

from __future__ import annotations

import asyncio

import pytest

from romergo.channels import ToolCall
from romergo.common.actors import agent_actor
from romergo.common.errors import RomergoError
from tests.support.channels import open_room
from tests.support.waiting import still_running, until


async def claimed(services, room, name="a"):
    agent = room.agent(name)
    cursor = (await services.channels.agent.join(agent, room.code)).cursor
    await room.send("Rename things")
    command = (await services.channels.agent.wait(agent, room.channel.channel_id, cursor, 1)).command
    return agent, command


class Renamer:
    """Counts executions, so a test can prove an action ran exactly once (or never)."""

    def __init__(self, services, agent, room):
        self.services, self.agent, self.room, self.runs = services, agent, room, 0

    def call(self, title, category="edit"):
        return ToolCall(
            self.agent,
            "romergo_update_scene",
            category,
            {"scene_id": self.room.story.first_scene_id, "title": title, "is_start": None, "is_ending": None},
            None,
            self.room.story.project_id,
            action=f'Rename scene "Opening" to "{title}"',
        )

    async def run(self, title, category="edit"):
        async def execute(admitted):
            self.runs += 1
            actor = agent_actor(self.agent.user_id, self.agent.client_id, self.agent.client_name)
            return await self.services.scenes.update_scene(
                actor.for_tool("romergo_update_scene", admitted.command_id),
                self.room.story.first_scene_id,
                title=title,
            )

        return await self.services.channels.guard.run_tool_call(self.call(title, category), execute)


async def requested(room, count=1):
    async def request():
        events = [e for e in await room.events() if e.kind == "confirmation_requested"]
        return events[count - 1] if len(events) >= count else None

    return await until(request, what=f"confirmation request #{count}")


async def title_of(services, actor, room):
    return (await services.scenes.scene_view(actor, room.story.first_scene_id)).scene.title


async def test_allow_once_runs_the_waiting_call_exactly_once(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, command = await claimed(services, room)
    renamer = Renamer(services, agent, room)

    call = asyncio.create_task(renamer.run("Dawn"))
    request = await requested(room)
    assert request.data["tool"] == "romergo_update_scene"
    assert request.data["action"] == 'Rename scene "Opening" to "Dawn"'
    assert (
        await services.channels.owner.get_command(actor.user_id, command.command_id)
    ).state == "needs_confirmation"
    assert renamer.runs == 0

    decided = await services.channels.confirmations.decide_confirmation(
        actor.user_id, request.data["confirmation_id"], "allow_once"
    )
    assert decided.state == "granted"
    scene = await asyncio.wait_for(call, 5)

    assert scene.title == "Dawn" and renamer.runs == 1
    kinds = await room.kinds()
    assert kinds[-4:] == ["confirmation_requested", "confirmation_decided", "tool_started", "tool_finished"]
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"

    # The spent grant cannot serve a second call: the same action asks again.
    again = asyncio.create_task(renamer.run("Dawn"))
    second = await requested(room, 2)
    assert second.data["confirmation_id"] != request.data["confirmation_id"]
    await services.channels.confirmations.decide_confirmation(
        actor.user_id, second.data["confirmation_id"], "reject"
    )
    with pytest.raises(RomergoError) as refused:
        await again
    assert refused.value.code == "confirmation_rejected"
    assert renamer.runs == 1


async def test_reject_changes_nothing(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, command = await claimed(services, room)
    renamer = Renamer(services, agent, room)
    call = asyncio.create_task(renamer.run("Dusk"))
    request = await requested(room)
    await services.channels.confirmations.decide_confirmation(
        actor.user_id, request.data["confirmation_id"], "reject"
    )
    with pytest.raises(RomergoError) as refused:
        await call
    assert refused.value.code == "confirmation_rejected"
    assert renamer.runs == 0
    assert await title_of(services, actor, room) == "Opening"
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"


async def test_a_grant_does_not_serve_other_arguments(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, _ = await claimed(services, room)
    services.channels.confirmations.wait_seconds = 0.3
    renamer = Renamer(services, agent, room)

    with pytest.raises(RomergoError) as pending:
        await renamer.run("Dawn")
    assert pending.value.code == "confirmation_pending"
    request = await requested(room)
    await services.channels.confirmations.decide_confirmation(
        actor.user_id, request.data["confirmation_id"], "allow_once"
    )

    with pytest.raises(RomergoError) as other:
        await renamer.run("Something else entirely")
    assert other.value.code == "confirmation_pending"
    assert renamer.runs == 0
    assert await title_of(services, actor, room) == "Opening"


async def test_calling_again_after_pending_reattaches_to_the_same_request(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, _ = await claimed(services, room)
    services.channels.confirmations.wait_seconds = 0.3
    renamer = Renamer(services, agent, room)

    for _ in range(2):
        with pytest.raises(RomergoError) as pending:
            await renamer.run("Dawn")
        assert pending.value.code == "confirmation_pending"
    requests = [e for e in await room.events() if e.kind == "confirmation_requested"]
    assert len(requests) == 1  # one prompt for the owner, however often the agent retries

    services.channels.confirmations.wait_seconds = 10
    retry = asyncio.create_task(renamer.run("Dawn"))
    assert await still_running(retry, 0.05)  # it re-attached to the request and waits for the owner
    await services.channels.confirmations.decide_confirmation(
        actor.user_id, requests[0].data["confirmation_id"], "allow_once"
    )
    assert (await asyncio.wait_for(retry, 5)).title == "Dawn"
    assert renamer.runs == 1


async def test_two_parallel_retries_run_the_action_once(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, _ = await claimed(services, room)
    renamer = Renamer(services, agent, room)
    first = asyncio.create_task(renamer.run("Dawn"))
    request = await requested(room)
    second = asyncio.create_task(renamer.run("Dawn"))
    assert await still_running(second, 0.05)  # both wait on the one request

    await services.channels.confirmations.decide_confirmation(
        actor.user_id, request.data["confirmation_id"], "allow_once"
    )
    results = await asyncio.gather(first, second, return_exceptions=True)

    assert renamer.runs == 1
    errors = [r for r in results if isinstance(r, RomergoError)]
    assert len(errors) == 1 and errors[0].code == "conflict"
    assert len([e for e in await room.events() if e.kind == "confirmation_requested"]) == 1


async def test_a_call_left_waiting_by_a_dead_agent_never_runs_after_redelivery(services, actor):
    """The agent died while its call waited: the server still holds that call. After the command is
    redelivered, the grant serves the call of the new delivery, and the orphan changes nothing."""
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, command = await claimed(services, room)
    renamer = Renamer(services, agent, room)
    orphan = asyncio.create_task(renamer.run("Dawn"))
    request = await requested(room)

    again = await services.channels.agent.wait(agent, room.channel.channel_id, 0, 1)
    assert again.command is not None and again.command.redelivered
    await services.channels.confirmations.decide_confirmation(
        actor.user_id, request.data["confirmation_id"], "allow_once"
    )
    with pytest.raises(RomergoError) as stale:
        await asyncio.wait_for(orphan, 5)
    assert stale.value.code == "conflict" and "delivered again" in stale.value.message
    assert renamer.runs == 0 and await title_of(services, actor, room) == "Opening"

    scene = await asyncio.wait_for(renamer.run("Dawn"), 5)  # re-attaches to the granted request
    assert scene.title == "Dawn" and renamer.runs == 1
    assert len([e for e in await room.events() if e.kind == "confirmation_requested"]) == 1
    assert (await services.channels.owner.get_command(actor.user_id, command.command_id)).state == "working"


async def test_an_expired_request_times_out_and_changes_nothing(services, actor, clock):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, _ = await claimed(services, room)
    renamer = Renamer(services, agent, room)
    call = asyncio.create_task(renamer.run("Dawn"))
    request = await requested(room)

    clock.advance(services.settings.confirmation_ttl_seconds + 1)  # 300 s pass in no time
    await services.channels.sweeper.sweep()
    with pytest.raises(RomergoError) as expired:
        await asyncio.wait_for(call, 5)
    assert expired.value.code == "confirmation_timeout"
    with pytest.raises(RomergoError) as late:
        await services.channels.confirmations.decide_confirmation(
            actor.user_id, request.data["confirmation_id"], "allow_once"
        )
    assert late.value.code == "conflict"
    assert renamer.runs == 0


async def test_cancelling_the_command_stops_the_waiting_call(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, command = await claimed(services, room)
    renamer = Renamer(services, agent, room)
    call = asyncio.create_task(renamer.run("Dawn"))
    await requested(room)
    answered = await services.channels.owner.cancel_command(actor.user_id, command.command_id)
    assert answered.state == "cancelled"  # moved on from where the closed request left it
    with pytest.raises(RomergoError) as cancelled:
        await asyncio.wait_for(call, 5)
    assert cancelled.value.code == "command_cancelled"
    assert renamer.runs == 0
    decided = [e for e in await room.events() if e.kind == "confirmation_decided"]
    assert decided[-1].data["decision"] == "cancelled"


async def test_publish_and_delete_mode_asks_only_for_those(services, actor):
    room = await open_room(
        services, actor, confirmation_mode="publish_and_delete", permissions={"publish": True, "delete": True}
    )
    agent, _ = await claimed(services, room)
    services.channels.confirmations.wait_seconds = 0.2
    renamer = Renamer(services, agent, room)
    assert (await renamer.run("Plain edit")).title == "Plain edit"
    with pytest.raises(RomergoError) as pending:
        await renamer.run("Pretend delete", category="delete")
    assert pending.value.code == "confirmation_pending"


async def test_only_the_owner_decides_and_only_once(services, actor):
    room = await open_room(services, actor, confirmation_mode="every_change")
    agent, _ = await claimed(services, room)
    renamer = Renamer(services, agent, room)
    call = asyncio.create_task(renamer.run("Dawn"))
    confirmation_id = (await requested(room)).data["confirmation_id"]
    stranger = await services.accounts.create_user("stranger")

    with pytest.raises(RomergoError) as foreign:
        await services.channels.confirmations.decide_confirmation(stranger.id, confirmation_id, "allow_once")
    assert foreign.value.code == "not_found"
    with pytest.raises(RomergoError) as bad:
        await services.channels.confirmations.decide_confirmation(actor.user_id, confirmation_id, "maybe")
    assert bad.value.code == "invalid_argument"
    await services.channels.confirmations.decide_confirmation(actor.user_id, confirmation_id, "reject")
    with pytest.raises(RomergoError) as twice:
        await services.channels.confirmations.decide_confirmation(
            actor.user_id, confirmation_id, "allow_once"
        )
    assert twice.value.code == "conflict"
    with pytest.raises(RomergoError):
        await call
    assert renamer.runs == 0
