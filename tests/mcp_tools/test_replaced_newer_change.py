"""A write without expected_revision goes through as before, but its result says when it replaced a
change someone made after this agent last read the entity; the call's tool_finished event says it
too, for the panel's card. Over HTTP with two agents of one owner, in a channel in memory, and on
two server instances sharing one PostgreSQL database (the agent's last reads live in the database)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import pytest

from romergo.common.actors import user_actor
from tests.mcp_tools.test_tools_in_a_channel import joined
from tests.support.agents import Agent, agent, data
from tests.support.channels import open_room
from tests.support.databases import PostgresDatabases
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer, two_instances_on_postgres
from tests.support.story import client_of
from tests.support.tools import agent as agent_in_memory
from tests.support.update_cases import place_of

pytestmark = pytest.mark.long

SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}
ALL = ("--scopes", "read,edit,media,publish,delete")


@pytest.fixture(scope="module")
def tokens(server: RunningServer) -> dict[str, str]:
    return {name: personal_token(server, "ada", *ALL, "--name", name) for name in ("mine", "theirs")}


@asynccontextmanager
async def two_agents(
    base_urls: tuple[str, str], tokens: dict[str, str]
) -> AsyncIterator[tuple[Agent, Agent]]:
    async with agent(base_urls[0], tokens["mine"]) as mine, agent(base_urls[1], tokens["theirs"]) as theirs:
        yield mine, theirs


async def ok(who: Agent, tool: str, **arguments: Any) -> Any:
    return data(await who.call(tool, **arguments))


async def a_line(who: Agent) -> tuple[str, str]:
    place = await place_of(who)
    scene = await ok(who, "romergo_add_scene", chapter_id=place.chapter_id, title="Quay")
    line = await ok(who, "romergo_add_dialogue_line", scene_id=scene["id"], text="Who is there?")
    return scene["id"], line["id"]


async def test_a_write_over_a_change_made_since_the_agents_read_says_what_it_replaced(server, tokens):
    urls = (server.base_url, server.base_url)
    async with two_agents(urls, tokens) as (mine, theirs):
        scene_id, line_id = await a_line(mine)
        await ok(mine, "romergo_get_scene", scene_id=scene_id)
        before = datetime.now(UTC)
        theirs_wrote = await ok(
            theirs, "romergo_update_dialogue_line", line_id=line_id, text="Who hides there?"
        )
        written = await ok(mine, "romergo_update_dialogue_line", line_id=line_id, text="Who goes there?")
        again = await ok(mine, "romergo_update_dialogue_line", line_id=line_id, text="Who waits there?")
    note = written["replaced_newer_change"]
    assert written["text"] == "Who goes there?"  # today's behaviour: the write went through
    assert note["fields"] == ["text"] and note["command_id"] is None
    assert note["by"] == f"agent {await client_of(server.database_url, theirs_wrote['revision'])}"
    assert datetime.fromisoformat(note["at"].replace("Z", "+00:00")) >= before.replace(microsecond=0)
    assert "replaced_newer_change" not in again  # its own write's result was its read


async def test_no_note_when_the_agent_read_the_change_or_it_touched_another_field(server, tokens):
    urls = (server.base_url, server.base_url)
    async with two_agents(urls, tokens) as (mine, theirs):
        scene_id, line_id = await a_line(mine)
        speaker = (await place_of(mine)).character_id
        await ok(mine, "romergo_get_scene", scene_id=scene_id)
        await ok(theirs, "romergo_update_dialogue_line", line_id=line_id, character_id=speaker)
        other_field = await ok(mine, "romergo_update_dialogue_line", line_id=line_id, text="Who goes there?")
        await ok(theirs, "romergo_update_dialogue_line", line_id=line_id, text="Who hides there?")
        await ok(mine, "romergo_get_scene", scene_id=scene_id)
        read_since = await ok(mine, "romergo_update_dialogue_line", line_id=line_id, text="Who waits?")
        _, never_read_line = await a_line(theirs)
        await ok(theirs, "romergo_update_dialogue_line", line_id=never_read_line, text="Fog")
        never_read = await ok(mine, "romergo_update_dialogue_line", line_id=never_read_line, text="Mist")
    assert other_field["character_id"] == speaker
    for result in (other_field, read_since, never_read):
        assert "replaced_newer_change" not in result


async def test_choices_replaced_over_a_newer_edit_name_the_choice_and_field(server, tokens):
    urls = (server.base_url, server.base_url)
    async with two_agents(urls, tokens) as (mine, theirs):
        scene_id, _ = await a_line(mine)
        listed = await ok(
            mine,
            "romergo_set_choices",
            scene_id=scene_id,
            choices=[{"label": "Wait", "target_scene_id": None}],
        )
        [choice] = listed["choices"]
        edited = [{"id": choice["id"], "label": "Swim", "target_scene_id": None}]
        await ok(theirs, "romergo_set_choices", scene_id=scene_id, choices=edited)
        mine_now = [{"id": choice["id"], "label": "Row", "target_scene_id": None}]
        written = await ok(mine, "romergo_set_choices", scene_id=scene_id, choices=mine_now)
        added = [*mine_now, {"label": "Swim", "target_scene_id": None}]
        theirs_list = (await ok(theirs, "romergo_set_choices", scene_id=scene_id, choices=added))["choices"]
        dropped = await ok(mine, "romergo_set_choices", scene_id=scene_id, choices=mine_now)
    assert written["replaced_newer_change"]["fields"] == [f"choices[{choice['id']}].label"]
    # A list written as given that leaves out a choice added since says so.
    assert dropped["replaced_newer_change"]["fields"] == [f"choices[{theirs_list[1]['id']}]"]


async def test_the_tool_finished_event_carries_the_replaced_change_for_the_panel(services, actor):
    room = await open_room(services, actor)
    token, command_id = await joined(services, room)
    line = await services.lines.add_line(actor, room.story.first_scene_id, "Who is there?")
    async with agent_in_memory(services, token) as helper:
        await helper.ok("romergo_get_scene", scene_id=room.story.first_scene_id, command_id=command_id)
        await services.lines.update_line(user_actor(actor.user_id, "writer"), line.id, text="Who hides?")
        written = await helper.ok(
            "romergo_update_dialogue_line", line_id=line.id, text="Who goes?", command_id=command_id
        )
    finished = [e.data for e in await room.events() if e.kind == "tool_finished"]
    [replaced] = finished[-1]["replaced_newer_changes"]
    assert replaced == {
        "entity_type": "dialogue_line",
        "entity_id": line.id,
        "by": "author",
        "command_id": None,
        "at": written["replaced_newer_change"]["at"],
        "fields": ["text"],
    }
    assert "replaced_newer_changes" not in finished[0]  # the read replaced nothing


@pytest.fixture(scope="module")
def instances(
    tmp_path_factory: pytest.TempPathFactory, postgres: PostgresDatabases
) -> Iterator[tuple[RunningServer, RunningServer]]:
    with two_instances_on_postgres(tmp_path_factory, postgres, SERVER_ENV) as (a, b):
        add_user(a, "ada")
        yield a, b


async def test_a_read_on_one_instance_counts_for_a_write_on_the_other(instances):
    a, b = instances
    tokens = {name: personal_token(a, "ada", *ALL, "--name", name) for name in ("mine", "theirs")}
    async with two_agents((a.base_url, b.base_url), tokens) as (mine_on_a, theirs_on_b):
        scene_id, line_id = await a_line(mine_on_a)
        await ok(mine_on_a, "romergo_get_scene", scene_id=scene_id)
        await ok(theirs_on_b, "romergo_update_dialogue_line", line_id=line_id, text="Who hides there?")
        async with agent(b.base_url, tokens["mine"]) as mine_on_b:
            written = await ok(mine_on_b, "romergo_update_dialogue_line", line_id=line_id, text="Who goes?")
    assert written["replaced_newer_change"]["fields"] == ["text"]
