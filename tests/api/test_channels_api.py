"""The JSON API (CONTRACT.md §6): the owner's side of the loop, its auth rules and error shape."""

from __future__ import annotations

import asyncio

import pytest

from romergo.access.agents.scopes import CONTROL
from romergo.channels import AgentRef
from romergo.common.actors import user_actor
from tests.api.conftest import TokenIdentity
from tests.support.story import database_state, small_story
from tests.support.waiting import still_running, until


@pytest.fixture
async def project_id(services, actor) -> str:
    return (await small_story(services, actor)).project_id


@pytest.fixture
def control(tokens, author) -> dict[str, str]:
    tokens["control-token"] = TokenIdentity(author.id, frozenset({"romergo:read", CONTROL}))
    return {"authorization": "Bearer control-token"}


async def test_the_loop_from_the_owners_side(client, control, project_id):
    created = await client.post("/api/v1/channels", json={"project_id": project_id}, headers=control)
    assert created.status_code == 201, created.text
    channel = created.json()
    assert channel["code"].startswith("rmg-")
    assert channel["permissions"] == {
        "read": True,
        "edit": True,
        "media": True,
        "publish": False,
        "delete": False,
    }
    channel_id = channel["channel_id"]

    sent = await client.post(
        f"/api/v1/channels/{channel_id}/commands",
        json={
            "text": "Describe this scene",
            "context": {"surface": "scene", "route": f"/projects/{project_id}"},
        },
        headers=control,
    )
    assert sent.status_code == 201, sent.text
    command = sent.json()
    assert (command["state"], command["text"], command["context"]["surface"]) == (
        "queued",
        "Describe this scene",
        "scene",
    )

    events = (await client.get(f"/api/v1/channels/{channel_id}/events", headers=control)).json()
    assert [e["kind"] for e in events["events"]] == ["settings_changed", "command"]
    assert events["cursor"] == events["events"][-1]["seq"]
    assert events["events"][-1]["actor"]["type"] == "user"

    patched = await client.patch(
        f"/api/v1/channels/{channel_id}", json={"permissions": {"publish": True}}, headers=control
    )
    assert patched.json()["permissions"]["publish"] is True and patched.json()["permissions"]["edit"] is True
    code = (await client.post(f"/api/v1/channels/{channel_id}/code", headers=control)).json()["code"]
    assert code != channel["code"]
    cancelled = await client.post(f"/api/v1/commands/{command['command_id']}/cancel", headers=control)
    assert cancelled.json()["state"] == "cancelled"
    retried = await client.post(f"/api/v1/commands/{command['command_id']}/retry", headers=control)
    assert retried.status_code == 201 and retried.json()["retry_of"] == command["command_id"]
    ended = await client.post(f"/api/v1/channels/{channel_id}/end", headers=control)
    assert ended.json()["state"] == "ended"
    assert "code" not in ended.json()


async def test_projects_are_listed_with_the_accounts_role_in_each(
    client, control, project_id, services, author
):
    other = await services.accounts.create_user("other-writer")
    shared = await small_story(services, user_actor(other.id, other.username))
    await services.members.add_member(
        user_actor(other.id, other.username), shared.project_id, author.username, "viewer"
    )

    answer = await client.get("/api/v1/projects", headers=control)

    roles = {project["id"]: project["role"] for project in answer.json()["projects"]}
    assert roles == {project_id: "owner", shared.project_id: "viewer"}


async def test_events_long_poll_wakes_on_a_new_event(client, control, project_id):
    channel = (await client.post("/api/v1/channels", json={"project_id": project_id}, headers=control)).json()
    url = f"/api/v1/channels/{channel['channel_id']}/events"
    waiting = asyncio.create_task(
        client.get(url, params={"after": channel["cursor"], "wait": 20}, headers=control)
    )
    assert await still_running(waiting, 0.1)  # parked: nothing new yet
    await client.post(
        f"/api/v1/channels/{channel['channel_id']}/commands", json={"text": "go"}, headers=control
    )
    answer = await asyncio.wait_for(waiting, 5)
    assert [e["kind"] for e in answer.json()["events"]] == ["command"]


async def test_without_credentials_nothing_is_answered(client, project_id):
    answer = await client.get("/api/v1/projects")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "unauthorized"
    garbage = await client.get("/api/v1/projects", headers={"authorization": "Bearer nope"})
    assert garbage.status_code == 401
    basic = await client.get("/api/v1/projects", headers={"authorization": "Basic dXNlcjpwYXNz"})
    assert basic.status_code == 401


async def test_an_agent_token_cannot_post_commands_or_open_channels(
    client, tokens, author, project_id, services
):
    tokens["agent-token"] = TokenIdentity(
        author.id, frozenset({"romergo:read", "romergo:edit", "romergo:media"})
    )
    agent = {"authorization": "Bearer agent-token"}
    before = await database_state(services)
    for method, url, body in (
        ("POST", "/api/v1/channels", {"project_id": project_id}),
        ("GET", "/api/v1/projects", None),
    ):
        answer = await client.request(method, url, json=body, headers=agent)
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "forbidden"
    assert await database_state(services) == before


async def test_the_browser_session_needs_its_csrf_header_to_change_things(
    client, browser_session, project_id, services
):
    cookie_only = {"cookie": browser_session["cookie"]}
    assert (await client.get("/api/v1/projects", headers=cookie_only)).status_code == 200
    before = await database_state(services)
    refused = await client.post("/api/v1/channels", json={"project_id": project_id}, headers=cookie_only)
    assert refused.status_code == 403
    assert await database_state(services) == before
    allowed = await client.post("/api/v1/channels", json={"project_id": project_id}, headers=browser_session)
    assert allowed.status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"project_id": ""},
        {"project_id": "prj_x", "colour": "red"},
        {"project_id": "prj_x", "confirmation_mode": "always"},
        {"project_id": "prj_x", "permissions": {"edit": "sure"}},
    ],
)
async def test_bad_bodies_are_400_with_the_error_shape(client, control, body, services):
    before = await database_state(services)
    answer = await client.post("/api/v1/channels", json=body, headers=control)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "invalid_argument"
    assert await database_state(services) == before


async def test_domain_refusals_keep_the_shape(client, control, project_id, services):
    channel = (await client.post("/api/v1/channels", json={"project_id": project_id}, headers=control)).json()
    base = f"/api/v1/channels/{channel['channel_id']}"
    for method, url, body, status, code in (
        ("POST", "/api/v1/channels", {"project_id": "prj_nope"}, 404, "not_found"),
        ("PATCH", base, {"permissions": {"fly": True}}, 400, "invalid_argument"),
        ("POST", f"{base}/commands", {"text": "x", "context": {"surface": "moon"}}, 400, "invalid_argument"),
        ("POST", f"{base}/commands", {"text": "x", "in_reply_to": "cmd_nope"}, 404, "not_found"),
        ("GET", f"{base}/events?wait=51", None, 400, "invalid_argument"),
        ("GET", "/api/v1/commands/cmd_nope", None, 404, "not_found"),
        ("GET", "/api/v1/nothing-here", None, 404, "not_found"),
        ("DELETE", base, None, 405, "invalid_argument"),
    ):
        answer = await client.request(method, url, json=body, headers=control)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), (url, answer.text)
        assert answer.json()["error"]["message"]


async def test_another_users_channel_is_not_found(client, control, tokens, services, project_id):
    channel = (await client.post("/api/v1/channels", json={"project_id": project_id}, headers=control)).json()
    stranger = await services.accounts.create_user("stranger")
    tokens["stranger"] = TokenIdentity(stranger.id, frozenset({CONTROL}))
    answer = await client.get(
        f"/api/v1/channels/{channel['channel_id']}", headers={"authorization": "Bearer stranger"}
    )
    assert answer.status_code == 404


async def test_the_api_describes_itself(client):
    document = (await client.get("/api/v1/openapi.json")).json()
    assert "/channels/{channel_id}/commands" in document["paths"]


async def test_a_confirmation_is_decided_by_the_owner_only(
    client, control, tokens, services, actor, project_id
):
    from romergo.channels import AgentRef, ToolCall

    channel = (
        await client.post(
            "/api/v1/channels",
            json={"project_id": project_id, "confirmation_mode": "every_change"},
            headers=control,
        )
    ).json()
    agent = AgentRef(actor.user_id, "client-a", "A")
    cursor = (await services.channels.agent.join(agent, channel["code"])).cursor
    await client.post(
        f"/api/v1/channels/{channel['channel_id']}/commands", json={"text": "go"}, headers=control
    )
    await services.channels.agent.wait(agent, channel["channel_id"], cursor, 1)
    call = ToolCall(
        agent, "romergo_add_chapter", "edit", {"project_id": project_id, "title": "New"}, None, project_id
    )
    waiting = asyncio.create_task(
        services.channels.guard.run_tool_call(call, lambda _: services.projects.list_projects(actor))
    )
    pending = await until(
        lambda: services.channels.confirmations.pending_confirmations(actor.user_id, channel["channel_id"]),
        what="the confirmation request",
    )
    confirmation_id = pending[0].confirmation_id

    tokens["agent"] = TokenIdentity(actor.user_id, frozenset({"romergo:read", "romergo:edit"}))
    by_agent = await client.post(
        f"/api/v1/confirmations/{confirmation_id}",
        json={"decision": "allow_once"},
        headers={"authorization": "Bearer agent"},
    )
    assert by_agent.status_code == 403
    bad = await client.post(
        f"/api/v1/confirmations/{confirmation_id}", json={"decision": "yes"}, headers=control
    )
    assert bad.status_code == 400
    allowed = await client.post(
        f"/api/v1/confirmations/{confirmation_id}", json={"decision": "allow_once"}, headers=control
    )
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["state"] == "granted"
    assert allowed.json()["tool"] == "romergo_add_chapter"
    await asyncio.wait_for(waiting, 5)


async def test_a_room_is_limited_to_chapters_widened_and_left_as_is(client, control, services, actor):
    story = await small_story(services, actor)
    created = await client.post(
        "/api/v1/channels",
        json={"project_id": story.project_id, "scope": {"chapter_ids": [story.chapter_id]}},
        headers=control,
    )
    assert created.status_code == 201, created.text
    assert created.json()["scope"] == {"chapter_ids": [story.chapter_id]}
    base = f"/api/v1/channels/{created.json()['channel_id']}"
    kept = await client.patch(base, json={"permissions": {"publish": True}}, headers=control)
    assert kept.json()["scope"] == {"chapter_ids": [story.chapter_id]}
    widened = await client.patch(base, json={"scope": None}, headers=control)
    assert widened.json()["scope"] is None
    for bad, status in (({"chapter_ids": []}, 400), ({"chapter_ids": ["chp_nope"]}, 404), (["x"], 400)):
        before = await database_state(services)
        answer = await client.patch(base, json={"scope": bad}, headers=control)
        assert answer.status_code == status, answer.text
        assert await database_state(services) == before


async def test_one_agent_is_removed_and_the_channel_goes_on(client, control, services, actor):
    story = await small_story(services, actor)
    channel = (
        await client.post("/api/v1/channels", json={"project_id": story.project_id}, headers=control)
    ).json()
    for name in ("one", "two"):
        await services.channels.agent.join(AgentRef(actor.user_id, f"client-{name}", name), channel["code"])
    base = f"/api/v1/channels/{channel['channel_id']}"
    removed = await client.delete(f"{base}/members/client-one", headers=control)
    assert removed.status_code == 200, removed.text
    members = {m["client_id"]: m["left_reason"] for m in removed.json()["members"]}
    assert members == {"client-one": "removed", "client-two": None}
    assert removed.json()["state"] == "live"
    again = await client.delete(f"{base}/members/client-one", headers=control)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "conflict")
    nobody = await client.delete(f"{base}/members/client-nobody", headers=control)
    assert (nobody.status_code, nobody.json()["error"]["code"]) == (404, "not_found")
