"""The room's reach over MCP: a room limited to one chapter.

Every domain tool of CONTRACT.md §1.2 is called on the entities of the *other* chapter (the
arguments of the permission matrix), with every permission on, so only the reach can refuse. A
refusal answers `[out_of_scope]`, names nothing but the id the agent sent, changes nothing and
shows in the panel as blocked. Lists keep to the room; a choice may lead out of it (title only).
"""

from __future__ import annotations

from typing import Any

from mcp_tools.tools.common import LIMITED_ROOM
from romergo.channels import AgentRef
from romergo.common.actors import Actor
from romergo.services import Services
from romergo.story import ChoiceSpec
from tests.mcp_tools.test_permission_matrix import ARGUMENTS, _story_only
from tests.support.contract import DOMAIN_TOOL_CATEGORIES
from tests.support.tools import ALL_SCOPES, Furnished, agent, data_of, furnished_story, story_state, text_of

EVERYTHING = {"read": True, "edit": True, "media": True, "publish": True, "delete": True}
RUN_IN_A_LIMITED_ROOM = {
    "romergo_list_projects",  # no single project: the titles of the owner's projects
    "romergo_get_project_outline",  # lists, kept to the room
    "romergo_search_assets",
    "romergo_check_story",
    "romergo_search_story",
    "romergo_list_variables",  # project-wide, like the characters
    "romergo_list_command_changes",  # the agent's own command
    "romergo_add_character",  # a new character is used nowhere yet
    "romergo_import_asset",  # so is a new asset
    "romergo_delete_asset",  # the matrix deletes a fresh asset that nothing uses
    "romergo_delete_character",  # and a fresh character who speaks no line
}
"""Written out by hand from the issue's rules, not read from the code under test."""


async def limited_room(services: Services, actor: Actor) -> tuple[Furnished, str, str, str, str, str]:
    """The furnished story plus chapter "Two" (a scene with a line and a choice back into "One"),
    and a room that covers only "Two", with an agent holding a command in it."""
    story = await furnished_story(services, actor)
    two = await services.chapters.add_chapter(actor, story.project_id, "Two")
    harbour = await services.scenes.add_scene(actor, two.id, "Harbour")
    await services.lines.add_line(actor, harbour.id, "Gulls over the pier.")
    await services.scenes.set_choices(
        actor, harbour.id, [ChoiceSpec("Back to the door", story.first_scene_id)]
    )
    channel = await services.channels.owner.create_channel(
        actor.user_id, story.project_id, EVERYTHING, scope={"chapter_ids": [two.id]}
    )
    token, client_id = await services.agents.personal.create("writer", name="Reach", scopes=ALL_SCOPES)
    ref = AgentRef(actor.user_id, client_id, "Reach")
    cursor = (await services.channels.agent.join(ref, channel.code or "")).cursor
    await services.channels.owner.post_command(actor.user_id, channel.channel_id, "Work on chapter two")
    command = (await services.channels.agent.wait(ref, channel.channel_id, cursor, 1)).command
    assert command is not None
    return story, two.id, harbour.id, channel.channel_id, token, command.command_id


async def test_every_tool_on_an_entity_outside_the_room_is_out_of_scope(services, actor):
    story, _, _, channel_id, token, command_id = await limited_room(services, actor)
    refused: set[str] = set()
    async with agent(services, token) as helper:
        for tool in DOMAIN_TOOL_CATEGORIES:
            arguments = await ARGUMENTS[tool](services, actor, story, command_id)
            before = await story_state(services)
            result = await helper.call(tool, **arguments)
            text = text_of(result)
            if tool in RUN_IN_A_LIMITED_ROOM:
                assert not result.is_error, (tool, text[:300])
                continue
            assert result.is_error and text.startswith("[out_of_scope] "), (tool, text)
            for secret in ("Opening", "Closing", "The fog rolls in", "Harbour at dusk", "Sea theme", "One"):
                assert secret not in text, (tool, text)
            assert _story_only(await story_state(services)) == _story_only(before), tool
            refused.add(tool)

    assert refused == set(DOMAIN_TOOL_CATEGORIES) - RUN_IN_A_LIMITED_ROOM
    events, _ = await services.channels.owner.events(actor.user_id, channel_id, 0)
    blocked = [e for e in events if e.kind == "tool_blocked"]
    assert {e.data["tool"] for e in blocked} == refused
    assert all(e.data["reason"] == "Outside the room's reach." for e in blocked)


async def test_lists_keep_to_the_room_and_say_so(services, actor):
    story, two_id, harbour_id, _, token, _ = await limited_room(services, actor)
    async with agent(services, token) as helper:
        outline = data_of(await helper.call("romergo_get_project_outline", project_id=story.project_id))
        check = data_of(await helper.call("romergo_check_story", project_id=story.project_id))
        assets = data_of(await helper.call("romergo_search_assets", project_id=story.project_id))
        found = data_of(
            await helper.call(
                "romergo_search_story", project_id=story.project_id, query="fog|harbour", regex=True
            )
        )
        scene = data_of(await helper.call("romergo_get_scene", scene_id=harbour_id))

    assert [chapter["id"] for chapter in outline["chapters"]] == [two_id]
    assert [scene["title"] for scene in outline["chapters"][0]["scenes"]] == ["Harbour"]
    assert outline["room"] == check["room"] == assets["room"] == found["room"] == LIMITED_ROOM
    assert [group["scene_title"] for group in found["scenes"]] == ["Harbour"]
    assert not [text for text in _words(found) if "fog" in text]  # ids are random: they may spell it
    assert check["problems"] and all(p["chapter_id"] in (None, two_id) for p in check["problems"])
    assert {a["name"] for a in assets["assets"]} == {"Harbour at dusk", "Sea theme", "Bell"}
    assert all(use == [] for use in (a["used_by"] for a in assets["assets"]))  # used in "One" only
    [choice] = scene["choices"]
    assert choice == {
        "id": choice["id"],
        "label": "Back to the door",
        "target_scene_id": story.first_scene_id,
        "target_title": "Opening",
        "condition": None,
        "effects": None,
    }
    assert "fog" not in str(scene)


async def test_a_whole_project_room_lists_everything_without_a_note(services, actor):
    story = await furnished_story(services, actor)
    await services.channels.owner.create_channel(actor.user_id, story.project_id)
    token, _ = await services.agents.personal.create("writer", name="Whole", scopes=ALL_SCOPES)
    async with agent(services, token) as helper:
        result = await helper.call("romergo_get_project_outline", project_id=story.project_id)
    assert "room" not in data_of(result)


async def test_widening_lets_the_next_call_through_and_narrowing_refuses_it(services, actor):
    story, two_id, _, channel_id, token, _ = await limited_room(services, actor)
    owner = services.channels.owner

    async def read_opening(helper: Any) -> str:
        return text_of(await helper.call("romergo_get_scene", scene_id=story.first_scene_id))

    async with agent(services, token) as helper:
        assert (await read_opening(helper)).startswith("[out_of_scope] ")
        await owner.update_settings(actor.user_id, channel_id, scope=None)
        assert "The fog rolls in." in await read_opening(helper)
        await owner.update_settings(actor.user_id, channel_id, scope={"chapter_ids": [two_id]})
        assert (await read_opening(helper)).startswith("[out_of_scope] ")
        await owner.update_settings(actor.user_id, channel_id, scope=[story.chapter_id, two_id])
        assert "The fog rolls in." in await read_opening(helper)

    events, _ = await owner.events(actor.user_id, channel_id, 0)
    scopes = [e.data["scope"] for e in events if e.kind == "settings_changed"]
    assert scopes == [
        {"chapter_ids": [two_id]},
        None,
        {"chapter_ids": [two_id]},
        {"chapter_ids": [story.chapter_id, two_id]},
    ]


def _words(data: object) -> list[str]:
    """Every string in a tool's data but its ids."""
    if isinstance(data, dict):
        return [
            w for key, value in data.items() if key != "id" and not key.endswith("_id") for w in _words(value)
        ]
    if isinstance(data, list):
        return [word for item in data for word in _words(item)]
    return [data] if isinstance(data, str) else []
