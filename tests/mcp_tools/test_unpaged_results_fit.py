"""Results that grow with the story or its history fit every common agent harness too.

A long list (a command's recorded changes, the variables) comes in pages like the other read
tools, `next_page` before the data; the conversation a joining agent gets keeps its newest events
that fit and says how many older ones it left out. Both forms of each result stay within 10,000
UTF-8 bytes by default, the bound written out here as promised to agents.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult

from romergo.channels import AgentRef
from tests.support.big_story import big_story
from tests.support.channels import open_room
from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.story import small_story
from tests.support.tools import ALL_SCOPES, agent, agent_of, text_of, untrusted

SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "5000"}  # the HTTP test adds its variables one call each
DEFAULT_PAGE = 10_000
LARGEST_PAGE = 60_000
MAX_PAGES = 200


def sizes(result: CallToolResult) -> tuple[int, int]:
    """The text rendering's and the structured content's size, in UTF-8 bytes."""
    structured = json.dumps(result.structured_content, ensure_ascii=False)
    return len(text_of(result).encode()), len(structured.encode())


def assert_fits(result: CallToolResult) -> None:
    text_size, structured_size = sizes(result)
    assert text_size <= DEFAULT_PAGE and structured_size <= DEFAULT_PAGE, (text_size, structured_size)


async def all_pages(helper: Any, tool: str, **arguments: Any) -> list[CallToolResult]:
    pages: list[CallToolResult] = []
    page = None
    for _ in range(MAX_PAGES):  # bounded: a paging bug must fail, not spin
        more: dict[str, str] = {"page": page} if page else {}
        result = await helper.call(tool, **arguments, **more)
        assert not result.is_error, text_of(result)
        assert_fits(result)
        pages.append(result)
        keys = list(untrusted(result))
        assert keys.index("next_page") < keys.index("data"), keys
        page = untrusted(result)["next_page"]
        if page is None:
            return pages
    raise AssertionError(f"no last page after {MAX_PAGES}")


async def claimed_command(services: Any, room: Any) -> tuple[str, AgentRef, str]:
    token, client_id = await services.agents.personal.create("writer", name="Helper", scopes=ALL_SCOPES)
    ref = AgentRef(user_id=room.owner.user_id, client_id=client_id, client_name="Helper")
    cursor = (await services.channels.agent.join(ref, room.code)).cursor
    await room.send("Tell the whole story of the harbour")
    got = await services.channels.agent.wait(ref, room.channel.channel_id, cursor, 1)
    assert got.command is not None
    return token, ref, got.command.command_id


async def test_a_join_after_fifty_long_reports_fits_with_the_newest_event_and_a_count_of_the_rest(
    services, actor
):
    room = await open_room(services, actor)
    token, ref, command_id = await claimed_command(services, room)
    for n in range(50):
        await services.channels.agent.report(ref, command_id, "status", f"Report {n}: " + "word " * 1_597)
    async with agent(services, token) as helper:
        result = await helper.call("romergo_join_builder_channel", code=room.code)
    assert not result.is_error, text_of(result)
    assert_fits(result)
    joined = result.structured_content or {}
    events = joined["conversation"]["untrusted_content"]["data"]["events"]
    texts = [event["data"].get("text", "") for event in events]
    reports = [text for text in texts if text.startswith("Report ")]
    assert reports and reports[-1].startswith("Report 49: ")  # the newest report, its start whole
    assert "6,995 more characters left out" in reports[-1]  # cut, and marked (the text is trimmed)
    assert joined["events_left_out"] > 0
    assert joined["events_left_out"] + len(events) >= 50
    assert f'"events_left_out": {joined["events_left_out"]}' in text_of(result)


async def test_a_command_with_many_changes_lists_them_in_pages_that_fit_each_change_once(services, actor):
    room = await open_room(services, actor)
    token, _, command_id = await claimed_command(services, room)
    async with agent(services, token) as helper:
        for n in range(60):
            await helper.ok(
                "romergo_update_scene", scene_id=room.story.first_scene_id, title=f"Dawn {n} " + "x" * 150
            )
        pages = await all_pages(helper, "romergo_list_command_changes", command_id=command_id)
    changes = [change for result in pages for change in untrusted(result)["data"]["changes"]]
    assert len(pages) >= 2
    assert [change["after"]["title"].split(" ")[1] for change in changes] == [str(n) for n in range(60)]


async def test_many_variables_come_in_pages_that_fit_each_variable_once(services, actor):
    story = await small_story(services, actor)
    names = [f"clue_{n:03d}" for n in range(150)]
    for name in names:
        await services.variables.add_variable(
            actor, story.project_id, name, "flag", description="A clue the keeper may find. " * 4
        )
    async with agent_of(services, "writer") as helper:
        pages = await all_pages(helper, "romergo_list_variables", project_id=story.project_id)
    listed = [variable["name"] for result in pages for variable in untrusted(result)["data"]["variables"]]
    assert len(pages) >= 2
    assert sorted(listed) == names and len(listed) == len(set(listed))


async def test_many_projects_come_in_pages_that_fit_each_project_once(services, actor):
    made = [
        await services.projects.create_project(actor, f"Harbour tale {n:03d}: " + "the keeper's lamp " * 5)
        for n in range(100)
    ]
    async with agent_of(services, "writer") as helper:
        pages = await all_pages(helper, "romergo_list_projects")
    listed = [project["id"] for result in pages for project in untrusted(result)["data"]["projects"]]
    assert len(pages) >= 2
    assert sorted(listed) == sorted(project.id for project in made) and len(listed) == len(set(listed))


async def test_a_long_play_through_comes_in_pages_that_fit_each_step_once(services, actor):
    story = await big_story(services, actor, scenes=120, lines_per_scene=1, chapters=2)
    async with agent_of(services, "writer") as helper:
        pages = await all_pages(helper, "romergo_simulate_playthrough", project_id=story.project_id)
        whole = await helper.call(
            "romergo_simulate_playthrough", project_id=story.project_id, page_size=LARGEST_PAGE
        )
    steps = [step["scene_id"] for result in pages for step in untrusted(result)["data"]["steps"]]
    assert len(pages) >= 2 and all(untrusted(result)["data"]["outcome"] == "ending" for result in pages)
    assert untrusted(whole)["next_page"] is None
    assert steps == [step["scene_id"] for step in untrusted(whole)["data"]["steps"]]


async def test_over_http_many_variables_come_in_pages_that_fit(server: RunningServer):
    token = personal_token(server, "ada")
    async with mcp_client(server.base_url, token) as client:
        projects = await client.call_tool("romergo_list_projects", {})
        project_id = untrusted(projects)["data"]["projects"][0]["id"]
        for n in range(120):
            added = await client.call_tool(
                "romergo_add_variable",
                {
                    "project_id": project_id,
                    "name": f"tide_{n:03d}",
                    "type": "flag",
                    "description": "Whether the keeper has seen this tide. " * 3,
                },
            )
            assert not added.is_error, text_of(added)
        names: list[str] = []
        page = None
        for _ in range(MAX_PAGES):
            more: dict[str, str] = {"page": page} if page else {}
            result = await client.call_tool("romergo_list_variables", {"project_id": project_id, **more})
            assert not result.is_error, text_of(result)
            assert_fits(result)
            names += [variable["name"] for variable in untrusted(result)["data"]["variables"]]
            page = untrusted(result)["next_page"]
            if page is None:
                break
    tides = [name for name in names if name.startswith("tide_")]
    assert tides == sorted(tides) and len(tides) == 120 == len(set(tides))
