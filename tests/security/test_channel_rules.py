"""docs/security.md, "The MCP endpoint and the channel", against a real server process.

What the other modules do not already prove: identity comes from the token alone, no tool can do
the owner's part, a confirmation is decided by the owner only and runs its action once however
many calls wait on it, and long-polls are capped per client. This module's server caps waits at
two per client (`SERVER_ENV`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from tests.support.agents import Agent, OwnerApi, agent, data
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer

SERVER_ENV = {"ROMERGO_MAX_WAITS_PER_CLIENT": "2"}
OWNER_WORDS = re.compile(
    r"create_channel|post_command|send_command|decide|confirm|allow|approve|settings|"
    r"permission|end_channel|rotate|cancel|retry|undo|grant|token|scope"
)


@pytest.fixture(scope="module")
def tokens(server: RunningServer) -> dict[str, str]:
    add_user(server, "bob")
    return {
        "agent": personal_token(server, "ada", "--scopes", "read,edit,media"),
        "control": personal_token(server, "ada", "--scopes", "read,control"),
        "bob": personal_token(server, "bob", "--scopes", "read,edit"),
    }


@asynccontextmanager
async def owner(server: RunningServer, tokens: dict[str, str]) -> AsyncIterator[OwnerApi]:
    api = OwnerApi(server.base_url, tokens["control"])
    try:
        yield api
    finally:
        await api.close()


@asynccontextmanager
async def room(
    server: RunningServer, tokens: dict[str, str], **settings: Any
) -> AsyncIterator[tuple[OwnerApi, Agent, dict[str, Any], int]]:
    """ada's channel on her first project, joined by her agent: (owner, agent, channel, cursor)."""
    async with owner(server, tokens) as api, agent(server.base_url, tokens["agent"]) as ada:
        project_id = (await api("GET", "/projects"))["projects"][0]["id"]
        channel = await api("POST", "/channels", {"project_id": project_id, **settings})
        joined = await ada.call("romergo_join_builder_channel", code=channel["code"])
        try:
            yield api, ada, channel, joined["cursor"]
        finally:
            await api("POST", f"/channels/{channel['channel_id']}/end")


async def test_no_mcp_tool_can_do_what_only_the_owner_does(server: RunningServer, tokens: dict[str, str]):
    async with agent(server.base_url, tokens["agent"]) as ada:
        names = [tool.name for tool in (await ada.client.list_tools()).tools]
    assert len(names) > 20
    assert [name for name in names if OWNER_WORDS.search(name)] == []


async def test_identity_comes_from_the_token_never_from_arguments_or_meta(
    server: RunningServer, tokens: dict[str, str]
):
    async with agent(server.base_url, tokens["bob"]) as bob:
        bobs = [p["id"] for p in data(await bob.call("romergo_list_projects"))["projects"]]
    async with agent(server.base_url, tokens["agent"]) as ada:
        own = data(await ada.call("romergo_list_projects"))["projects"]
        claimed = await ada.client.call_tool(
            "romergo_list_projects", {}, meta={"user_id": "bob", "client_id": "bob", "progressToken": 1}
        )
        assert [p["id"] for p in data(claimed.structured_content)["projects"]] == [p["id"] for p in own]
        for claims in ({}, {"user_id": "bob"}, {"owner_id": "bob", "client_id": "bob"}):
            refused = await ada.refused("romergo_get_project_outline", project_id=bobs[0], **claims)
            assert refused == "not_found", claims  # an identity in the arguments changes nothing
    assert not set(bobs) & {p["id"] for p in own}


async def test_a_confirmation_is_decided_by_the_owner_only_and_runs_its_action_once(
    server: RunningServer, tokens: dict[str, str]
):
    async with room(server, tokens, confirmation_mode="every_change") as (api, ada, channel, cursor):
        channel_id, project_id = channel["channel_id"], channel["project_id"]
        await api("POST", f"/channels/{channel_id}/commands", {"text": "Add an epilogue"})
        got = await ada.call("romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor)
        chapters_before = await chapter_titles(ada, project_id)

        def add() -> Any:
            return ada.client.call_tool(
                "romergo_add_chapter", {"project_id": project_id, "title": "Epilogue"}
            )

        first, second = asyncio.create_task(add()), asyncio.create_task(add())
        request = await confirmation_request(api, channel_id)
        async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1") as http:
            by_agent = await http.post(
                f"/confirmations/{request['confirmation_id']}",
                json={"decision": "allow_once"},
                headers={"Authorization": f"Bearer {tokens['agent']}"},
            )
        assert by_agent.status_code == 403
        await api("POST", f"/confirmations/{request['confirmation_id']}", {"decision": "allow_once"})
        results = await asyncio.wait_for(asyncio.gather(first, second), 30)

        assert sorted(r.is_error for r in results) == [False, True]
        assert await chapter_titles(ada, project_id) == [*chapters_before, "Epilogue"]
        events = (await api("GET", f"/channels/{channel_id}/events", after=0))["events"]
        requests = [e for e in events if e["kind"] == "confirmation_requested"]
        assert len(requests) == 1 and requests[0]["command_id"] == got["command"]["command_id"]
        await ada.call(
            "romergo_report_builder_event",
            command_id=got["command"]["command_id"],
            kind="error",
            text="Stopping here.",
        )


async def test_long_polls_are_capped_per_client(server: RunningServer, tokens: dict[str, str]):
    async with room(server, tokens) as (api, ada, channel, cursor):
        arguments = {"channel_id": channel["channel_id"], "cursor": cursor, "timeout_seconds": 30}
        three = [
            asyncio.create_task(ada.client.call_tool("romergo_wait_for_builder_command", arguments))
            for _ in range(3)
        ]
        # The cap is two: the third wait is refused at once while two stay parked.
        done, parked = await asyncio.wait(three, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        [refused] = done
        assert refused.result().is_error
        assert refused.result().content[0].text.startswith("[rate_limited] ")
        await api("POST", f"/channels/{channel['channel_id']}/end")
        released = await asyncio.wait_for(asyncio.gather(*parked), 10)  # ending releases both at once
    assert [r.structured_content["status"] for r in released] == ["channel_ended", "channel_ended"]


async def chapter_titles(ada: Agent, project_id: str) -> list[str]:
    outline = data(await ada.call("romergo_get_project_outline", project_id=project_id))
    return [chapter["title"] for chapter in outline["chapters"]]


async def confirmation_request(api: OwnerApi, channel_id: str) -> dict[str, Any]:
    after = 0
    for _ in range(30):  # bounded; each round long-polls the channel's events for up to 2 s
        answer = await api("GET", f"/channels/{channel_id}/events", after=after, wait=2)
        for event in answer["events"]:
            if event["kind"] == "confirmation_requested":
                return dict(event["data"])
        after = answer["cursor"]
    raise AssertionError("no confirmation was requested")
