"""`POST /api/v1/commands/{id}/undo` (CONTRACT.md §6): the owner takes back what an agent's command
changed; conflicts listed unless forced; agent tokens and other users get nothing."""

from __future__ import annotations

import pytest

from romergo.access.agents.scopes import CONTROL
from tests.api.conftest import TokenIdentity
from tests.support.channels import open_room
from tests.support.commands import carried_out
from tests.support.story import database_state


@pytest.fixture
def control(tokens, author) -> dict[str, str]:
    tokens["control-token"] = TokenIdentity(author.id, frozenset({"romergo:read", CONTROL}))
    return {"authorization": "Bearer control-token"}


async def scene_title(services, actor, scene_id):
    return (await services.scenes.scene_view(actor, scene_id)).scene.title


async def test_undo_takes_the_commands_changes_back(client, control, services, actor):
    room = await open_room(services, actor)
    scene_id = room.story.first_scene_id
    command = await carried_out(
        room, "Rename the opening", lambda agent: services.scenes.update_scene(agent, scene_id, title="Dawn")
    )
    assert await scene_title(services, actor, scene_id) == "Dawn"

    undone = await client.post(f"/api/v1/commands/{command.command_id}/undo", headers=control)

    assert undone.status_code == 200, undone.text
    assert undone.json() == {"reverted": 1, "conflicts": [], "kept": []}
    assert await scene_title(services, actor, scene_id) == "Opening"
    again = await client.post(f"/api/v1/commands/{command.command_id}/undo", headers=control)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "conflict")


async def test_a_later_change_is_listed_and_force_overrides_it(client, control, services, actor):
    room = await open_room(services, actor)
    scene_id = room.story.first_scene_id
    command = await carried_out(
        room,
        "Rename and end",
        lambda agent: services.scenes.update_scene(agent, scene_id, title="Dawn", is_ending=True),
    )
    await services.scenes.update_scene(actor, scene_id, title="Daybreak")
    before = await database_state(services)

    refused = await client.post(f"/api/v1/commands/{command.command_id}/undo", json={}, headers=control)

    assert refused.status_code == 200
    body = refused.json()
    assert body["reverted"] == 0
    assert [(c["entity_type"], c["entity_id"], c["title"], c["changed_by"]) for c in body["conflicts"]] == [
        ("scene", scene_id, "Daybreak", "user")
    ]
    assert await database_state(services) == before

    forced = await client.post(
        f"/api/v1/commands/{command.command_id}/undo", json={"force": True}, headers=control
    )
    assert forced.json()["reverted"] == 1
    view = await services.scenes.scene_view(actor, scene_id)
    assert (view.scene.title, view.scene.is_ending) == ("Opening", False)


async def test_agent_tokens_strangers_open_commands_and_bad_bodies_change_nothing(
    client, control, tokens, services, actor, author
):
    room = await open_room(services, actor)
    scene_id = room.story.first_scene_id
    command = await carried_out(
        room, "Rename", lambda agent: services.scenes.update_scene(agent, scene_id, title="Dawn")
    )
    stranger = await services.accounts.create_user("stranger")
    tokens["stranger"] = TokenIdentity(stranger.id, frozenset({CONTROL}))
    tokens["agent"] = TokenIdentity(author.id, frozenset({"romergo:read", "romergo:edit", "romergo:delete"}))
    url = f"/api/v1/commands/{command.command_id}/undo"
    before = await database_state(services)

    by_agent = await client.post(url, headers={"authorization": "Bearer agent"})
    by_stranger = await client.post(url, headers={"authorization": "Bearer stranger"})
    unknown = await client.post("/api/v1/commands/cmd_nope/undo", headers=control)
    bad_body = await client.post(url, json={"force": "yes please"}, headers=control)
    extra = await client.post(url, json={"force": True, "everything": True}, headers=control)

    assert (by_agent.status_code, by_agent.json()["error"]["code"]) == (403, "forbidden")
    assert (by_stranger.status_code, by_stranger.json()["error"]["code"]) == (404, "not_found")
    assert unknown.status_code == 404
    assert bad_body.status_code == extra.status_code == 400
    assert await database_state(services) == before


async def test_a_command_still_being_worked_on_cannot_be_undone(client, control, services, actor):
    room = await open_room(services, actor)
    scene_id = room.story.first_scene_id
    command = await carried_out(
        room,
        "Rename",
        lambda agent: services.scenes.update_scene(agent, scene_id, title="Dawn"),
        reply=False,
    )
    answer = await client.post(f"/api/v1/commands/{command.command_id}/undo", headers=control)
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "conflict")
    assert "still working" in answer.json()["error"]["message"]
    assert await scene_title(services, actor, scene_id) == "Dawn"
