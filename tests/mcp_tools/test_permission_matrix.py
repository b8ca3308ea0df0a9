"""Rights belong to the room (DESIGN.md §4): every domain tool of CONTRACT.md §1.2 with each room
permission turned off in turn. A tool of that category is refused with `permission_denied`,
shows in the panel as blocked and changes nothing; every other tool still runs.

The categories below are copied from the contract, not read from the code under test."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from romergo.channels import AgentRef
from romergo.common.actors import Actor
from romergo.services import Services
from tests.support.contract import DOMAIN_TOOL_CATEGORIES
from tests.support.story import TINY_PNG, TINY_WAV
from tests.support.tools import ALL_SCOPES, Furnished, agent, furnished_story, story_state, text_of

Arguments = Callable[[Services, Actor, Furnished, str], Awaitable[dict[str, Any]]]
CONTRACT = DOMAIN_TOOL_CATEGORIES


async def fresh_line(services: Services, actor: Actor, story: Furnished) -> str:
    return (await services.lines.add_line(actor, story.first_scene_id, "A line to work on.")).id


async def fresh_scene(services: Services, actor: Actor, story: Furnished) -> str:
    return (await services.scenes.add_scene(actor, story.chapter_id, "Spare scene")).id


counter = iter(range(10_000))


def unique(word: str) -> str:
    return f"{word} {next(counter)}"


ARGUMENTS: dict[str, Arguments] = {
    "romergo_list_projects": lambda s, a, st, c: _const({}),
    "romergo_get_project_outline": lambda s, a, st, c: _const({"project_id": st.project_id}),
    "romergo_get_chapter": lambda s, a, st, c: _const({"chapter_id": st.chapter_id}),
    "romergo_get_scene": lambda s, a, st, c: _const({"scene_id": st.first_scene_id}),
    "romergo_search_assets": lambda s, a, st, c: _const({"project_id": st.project_id}),
    "romergo_preview_scene": lambda s, a, st, c: _const({"scene_id": st.first_scene_id}),
    "romergo_check_story": lambda s, a, st, c: _const({"project_id": st.project_id}),
    "romergo_search_story": lambda s, a, st, c: _const({"project_id": st.project_id, "query": "fog"}),
    "romergo_list_variables": lambda s, a, st, c: _const({"project_id": st.project_id}),
    "romergo_simulate_playthrough": lambda s, a, st, c: _const({"project_id": st.project_id}),
    "romergo_list_command_changes": lambda s, a, st, c: _const({"command_id": c}),
    "romergo_add_chapter": lambda s, a, st, c: _const(
        {"project_id": st.project_id, "title": unique("Chapter")}
    ),
    "romergo_update_chapter": lambda s, a, st, c: _const(
        {"chapter_id": st.chapter_id, "title": unique("Renamed")}
    ),
    "romergo_add_scene": lambda s, a, st, c: _const({"chapter_id": st.chapter_id, "title": unique("Scene")}),
    "romergo_update_scene": lambda s, a, st, c: _const(
        {"scene_id": st.first_scene_id, "title": unique("Dawn")}
    ),
    "romergo_move_scene": lambda s, a, st, c: _const(
        {"scene_id": st.second_scene_id, "chapter_id": st.chapter_id, "position": 0}
    ),
    "romergo_add_dialogue_line": lambda s, a, st, c: _const(
        {"scene_id": st.first_scene_id, "text": "Hello."}
    ),
    "romergo_update_dialogue_line": lambda s, a, st, c: _line(s, a, st, {"text": unique("Changed")}),
    "romergo_move_dialogue_line": lambda s, a, st, c: _line(s, a, st, {"position": 0}),
    "romergo_delete_dialogue_line": lambda s, a, st, c: _line(s, a, st, {}),
    "romergo_set_choices": lambda s, a, st, c: _const(
        {
            "scene_id": st.first_scene_id,
            "choices": [{"label": unique("Go"), "target_scene_id": st.second_scene_id}],
        }
    ),
    "romergo_add_character": lambda s, a, st, c: _const(
        {"project_id": st.project_id, "name": unique("Guard")}
    ),
    "romergo_update_character": lambda s, a, st, c: _const(
        {"character_id": st.hero_id, "name": unique("Hero")}
    ),
    "romergo_duplicate_scene": lambda s, a, st, c: _const({"scene_id": st.second_scene_id}),
    "romergo_duplicate_chapter": lambda s, a, st, c: _const({"chapter_id": st.chapter_id}),
    "romergo_delete_character": lambda s, a, st, c: _silent(s, a, st),
    "romergo_add_variable": lambda s, a, st, c: _const(
        {"project_id": st.project_id, "name": unique("flag").replace(" ", "_"), "type": "flag"}
    ),
    "romergo_update_variable": lambda s, a, st, c: _variable(s, a, st, {"initial": True}),
    "romergo_delete_variable": lambda s, a, st, c: _variable(s, a, st, {}),
    "romergo_set_scene_background": lambda s, a, st, c: _const(
        {"scene_id": st.second_scene_id, "asset_id": st.backdrop_id}
    ),
    "romergo_set_scene_music": lambda s, a, st, c: _const(
        {"scene_id": st.second_scene_id, "asset_id": st.theme_id}
    ),
    "romergo_set_chapter_music": lambda s, a, st, c: _const(
        {"chapter_id": st.chapter_id, "asset_id": st.theme_id}
    ),
    "romergo_import_asset": lambda s, a, st, c: _const(
        {
            "project_id": st.project_id,
            "kind": "background",
            "name": unique("Sky"),
            "data_base64": base64.b64encode(TINY_PNG).decode(),
        }
    ),
    "romergo_publish_project": lambda s, a, st, c: _const({"project_id": st.project_id}),
    "romergo_unpublish_project": lambda s, a, st, c: _published(s, a, st),
    "romergo_delete_scene": lambda s, a, st, c: _scene(s, a, st),
    "romergo_delete_chapter": lambda s, a, st, c: _chapter(s, a, st),
    "romergo_delete_asset": lambda s, a, st, c: _asset(s, a, st),
}


async def _const(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


async def _line(services: Services, actor: Actor, story: Furnished, extra: dict[str, Any]) -> dict[str, Any]:
    return {"line_id": await fresh_line(services, actor, story), **extra}


async def _variable(
    services: Services, actor: Actor, story: Furnished, extra: dict[str, Any]
) -> dict[str, Any]:
    name = unique("spare").replace(" ", "_")
    variable = await services.variables.add_variable(actor, story.project_id, name, "flag")
    return {"variable_id": variable.id, **extra}


async def _silent(services: Services, actor: Actor, story: Furnished) -> dict[str, Any]:
    """A character who speaks no line (so deleting them is allowed)."""
    character = await services.characters.add_character(actor, story.project_id, unique("Extra"))
    return {"character_id": character.id}


async def _published(services: Services, actor: Actor, story: Furnished) -> dict[str, Any]:
    await services.publishing.publish_project(actor, story.project_id)
    return {"project_id": story.project_id}


async def _scene(services: Services, actor: Actor, story: Furnished) -> dict[str, Any]:
    return {"scene_id": await fresh_scene(services, actor, story)}


async def _chapter(services: Services, actor: Actor, story: Furnished) -> dict[str, Any]:
    return {"chapter_id": (await services.chapters.add_chapter(actor, story.project_id, "Spare chapter")).id}


async def _asset(services: Services, actor: Actor, story: Furnished) -> dict[str, Any]:
    return {
        "asset_id": (
            await services.assets.import_asset(actor, story.project_id, "music", "Spare", TINY_WAV)
        ).id
    }


def test_the_matrix_covers_every_domain_tool_of_the_server(services):
    from mcp_tools.server import build_server

    registered = {tool.name for tool in build_server(services)._tool_manager.list_tools()}
    channel_tools = {
        name
        for name in registered
        if "builder_channel" in name or "builder_command" in name or "builder_event" in name
    }
    assert registered - channel_tools == set(CONTRACT)


@pytest.mark.parametrize("denied", ["read", "edit", "media", "publish", "delete"])
async def test_each_tool_is_allowed_or_refused_by_its_category(services, actor, denied):
    story = await furnished_story(services, actor)
    permissions = {name: name != denied for name in ("read", "edit", "media", "publish", "delete")}
    channel = await services.channels.owner.create_channel(actor.user_id, story.project_id, permissions)
    token, client_id = await services.agents.personal.create("writer", name="Matrix", scopes=ALL_SCOPES)
    ref = AgentRef(actor.user_id, client_id, "Matrix")
    cursor = (await services.channels.agent.join(ref, channel.code or "")).cursor
    await services.channels.owner.post_command(actor.user_id, channel.channel_id, "Try everything")
    command_id = (await services.channels.agent.wait(ref, channel.channel_id, cursor, 1)).command.command_id

    outcomes: dict[str, str] = {}
    async with agent(services, token) as helper:
        for tool, category in CONTRACT.items():
            arguments = await ARGUMENTS[tool](services, actor, story, command_id)
            before = await story_state(services)
            result = await helper.call(tool, **arguments)
            text = text_of(result)
            if category == denied:
                assert result.is_error and text.startswith("[permission_denied] "), (tool, text)
                after = await story_state(services)
                assert _story_only(after) == _story_only(before), f"{tool} changed something while refused"
                outcomes[tool] = "refused"
            else:
                assert not result.is_error, (tool, text[:300])
                outcomes[tool] = "ran"

    refused = {tool for tool, outcome in outcomes.items() if outcome == "refused"}
    assert refused == {tool for tool, category in CONTRACT.items() if category == denied}
    events, _ = await services.channels.owner.events(actor.user_id, channel.channel_id, 0)
    blocked = {e.data["tool"] for e in events if e.kind == "tool_blocked"}
    assert blocked == refused
    assert all(e.data["permission"] == denied for e in events if e.kind == "tool_blocked")


def _story_only(state: dict[str, Any]) -> dict[str, Any]:
    """The refused call itself writes its tool_blocked event; the story must not move."""
    return {table: rows for table, rows in state.items() if table not in ("channel_events", "channels")}


async def joined_room(services, actor, **settings):
    story = await furnished_story(services, actor)
    channel = await services.channels.owner.create_channel(actor.user_id, story.project_id, **settings)
    token, client_id = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    ref = AgentRef(actor.user_id, client_id, "Helper")
    cursor = (await services.channels.agent.join(ref, channel.code or "")).cursor
    await services.channels.owner.post_command(actor.user_id, channel.channel_id, "Go")
    command_id = (await services.channels.agent.wait(ref, channel.channel_id, cursor, 1)).command.command_id
    return story, channel, token, command_id


async def test_publish_and_delete_are_off_by_default_and_work_once_enabled(services, actor):
    story, channel, token, _ = await joined_room(services, actor)
    async with agent(services, token) as helper:
        for tool, arguments in (
            ("romergo_publish_project", {"project_id": story.project_id}),
            ("romergo_delete_scene", {"scene_id": story.second_scene_id}),
        ):
            assert (await helper.error(tool, **arguments)).startswith("[permission_denied] ")
        await services.channels.owner.update_settings(
            actor.user_id, channel.channel_id, {"publish": True, "delete": True}
        )
        published = await helper.ok("romergo_publish_project", project_id=story.project_id)
        assert "/published/" in published["url"]
        await helper.ok("romergo_delete_scene", scene_id=story.second_scene_id)


async def test_every_change_mode_asks_before_each_modification(services, actor):
    story, channel, token, _ = await joined_room(services, actor, confirmation_mode="every_change")
    services.channels.confirmations.wait_seconds = 0.2
    async with agent(services, token) as helper:
        for tool, arguments in (
            ("romergo_update_scene", {"scene_id": story.first_scene_id, "title": "Dawn"}),
            ("romergo_add_character", {"project_id": story.project_id, "name": "Guard"}),
            ("romergo_set_chapter_music", {"chapter_id": story.chapter_id, "asset_id": story.theme_id}),
        ):
            assert (await helper.error(tool, **arguments)).startswith("[confirmation_pending] ")
        await helper.ok("romergo_get_scene", scene_id=story.first_scene_id)  # reading asks nothing
    pending = await services.channels.confirmations.pending_confirmations(actor.user_id, channel.channel_id)
    assert [p.tool for p in pending] == [
        "romergo_update_scene",
        "romergo_add_character",
        "romergo_set_chapter_music",
    ]
