"""The domain tools inside a Builder channel: their calls are attributed to the agent's command,
shown to the owner as tool events, bound to the room's project, and wait for the owner's
"Allow once" where the room asks for confirmation (the guard of CONTRACT.md §2.5-§2.7)."""

from __future__ import annotations

import asyncio
import base64

from romergo.channels import AgentRef
from tests.support.channels import open_room
from tests.support.story import TINY_WAV, revisions, small_story
from tests.support.tools import ALL_SCOPES, agent


async def joined(services, room):
    """A personal token's agent that joined the room and claimed one command."""
    token, client_id = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    ref = AgentRef(user_id=room.owner.user_id, client_id=client_id, client_name="Helper")
    cursor = (await services.channels.agent.join(ref, room.code)).cursor
    await room.send("Tidy the opening")
    got = await services.channels.agent.wait(ref, room.channel.channel_id, cursor, 1)
    assert got.command is not None
    return token, got.command.command_id


async def test_a_tool_call_belongs_to_the_agents_command_and_shows_in_the_panel(services, actor):
    room = await open_room(services, actor)
    token, command_id = await joined(services, room)
    async with agent(services, token) as helper:
        await helper.ok("romergo_update_scene", scene_id=room.story.first_scene_id, title="Dawn")
        await helper.ok(
            "romergo_import_asset",
            project_id=room.story.project_id,
            kind="music",
            name="Tune",
            data_base64=base64.b64encode(TINY_WAV).decode(),
            command_id=command_id,
        )
    revision = [r for r in await revisions(services, room.story.project_id) if r.entity_type == "scene"][-1]
    assert (revision.command_id, revision.tool) == (command_id, "romergo_update_scene")
    events = await room.events()
    started = [e.data for e in events if e.kind == "tool_started"]
    assert started[0] == {
        "tool": "romergo_update_scene",
        "arguments": {
            "scene_id": room.story.first_scene_id,
            "title": "Dawn",
            "is_start": None,
            "is_ending": None,
            "entry_effects": None,
            "expected_revision": None,
            "command_id": None,
        },
        "category": "edit",
    }
    assert started[1]["arguments"]["data_base64"] == len(TINY_WAV)  # large values as their size
    finished = [e.data for e in events if e.kind == "tool_finished"]
    assert finished[0]["changed"] == [{"entity_type": "scene", "entity_id": room.story.first_scene_id}]


async def test_a_joined_agent_cannot_touch_another_project_of_the_owner(services, actor):
    room = await open_room(services, actor)
    elsewhere = await small_story(services, actor, "Elsewhere")
    token, _ = await joined(services, room)
    async with agent(services, token) as helper:
        refused = await helper.error("romergo_add_chapter", project_id=elsewhere.project_id, title="Sneaky")
    assert refused.startswith("[permission_denied] ")
    assert [
        c.chapter.title for c in (await services.reads.outline(actor, elsewhere.project_id)).chapters
    ] == ["One"]


async def test_a_delete_waits_for_the_owners_allow_once_with_a_readable_action(services, actor):
    room = await open_room(
        services, actor, permissions={"delete": True}, confirmation_mode="publish_and_delete"
    )
    token, command_id = await joined(services, room)
    scene_id = room.story.second_scene_id
    async with agent(services, token) as helper:
        call = asyncio.create_task(
            helper.call("romergo_delete_scene", scene_id=scene_id, command_id=command_id)
        )
        after = 0
        request = None
        while request is None:
            assert not call.done(), call.result().content[0].text
            events, after = await services.channels.owner.events(
                actor.user_id, room.channel.channel_id, after, 5
            )
            request = next((e for e in events if e.kind == "confirmation_requested"), None)
        assert not call.done()
        assert request.data["action"] == f"Delete scene {scene_id}"
        assert request.data["arguments"] == {"scene_id": scene_id, "command_id": command_id}
        await services.channels.confirmations.decide_confirmation(
            actor.user_id, request.data["confirmation_id"], "allow_once"
        )
        result = await asyncio.wait_for(call, 20)
    assert not result.is_error, result.content[0].text
    scenes = (await services.chapters.chapter_outline(actor, room.story.chapter_id)).scenes
    assert scene_id not in [s.id for s in scenes]
