"""An agent revoked at `/settings/agents` stops being in its channels at once.

Revoking used to kill the agent's tokens but leave it a member (`left_at` empty). Now the owner's
"Revoke" ends its memberships, its parked wait returns `channel_ended` at once, a command it held
is marked stalled (retry it with another agent), and the panel says the agent was revoked. What
the agent still tries afterwards is refused and written on the room it was revoked from (issue
15). The owner revokes the way they do it, in a real browser; the agent is an OAuth client over
real MCP.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from playwright.async_api import expect

from tests.support.oauth import mcp_client, mcp_status, oauth_tokens, personal_token, signed_in
from tests.support.server import RunningServer
from tests.support.signed_in_page import signed_in_page
from tests.support.tools import Agent


async def test_revoking_an_agent_ends_its_memberships_and_releases_its_wait(server: RunningServer):
    async with signed_in(server.base_url, "ada") as person:
        tokens = await oauth_tokens(person)
    async with owner_api(server) as api:
        project_id = (await api.get("/projects")).json()["projects"][0]["id"]
        parked = (await api.post("/channels", json={"project_id": project_id})).json()
        holding = (await api.post("/channels", json={"project_id": project_id})).json()
        async with mcp_client(server.base_url, tokens.access_token) as client:
            agent = Agent(client)
            cursor = await join(agent, parked["code"])
            command_id = await claim(agent, api, holding)
            wait = asyncio.create_task(
                agent.call(
                    "romergo_wait_for_builder_command",
                    channel_id=parked["channel_id"],
                    cursor=cursor,
                    timeout_seconds=50,
                )
            )
            await until_polling(api, parked["channel_id"])

            async with signed_in_page(server, "ada") as page:
                await page.goto(f"{server.base_url}/settings/agents")
                row = page.get_by_test_id(f"connection-{tokens.client_id}")
                revoked_at = time.monotonic()
                await row.get_by_role("button", name="Revoke").click()
                await expect(row).to_have_count(0)

                released = await asyncio.wait_for(wait, 10)
                assert time.monotonic() - revoked_at < 10
                assert not released.is_error and released.structured_content["status"] == "channel_ended"

                await page.goto(f"{server.base_url}/projects/{project_id}")
                await expect(page.get_by_test_id("agent-panel")).to_contain_text("was revoked")

        for channel in (parked, holding):
            view = (await api.get(f"/channels/{channel['channel_id']}")).json()
            [member] = view["members"]
            assert member["left_at"] is not None and not member["polling"]
            events = (await api.get(f"/channels/{channel['channel_id']}/events", params={"after": 0})).json()
            left = [e for e in events["events"] if e["kind"] == "agent_left"]
            assert [e["data"]["reason"] for e in left] == ["revoked"]
        assert (await api.get(f"/commands/{command_id}")).json()["state"] == "stalled"
        retried = await api.post(f"/commands/{command_id}/retry")
        assert retried.status_code == 201, retried.text

        tried = ["romergo_get_project_outline", "romergo_list_projects", "romergo_check_story"]
        for tool in tried:
            refused = await raw_tool_call(server.base_url, tokens.access_token, tool, project_id=project_id)
            assert refused.status_code == 401
        events = (await api.get(f"/channels/{holding['channel_id']}/events", params={"after": 0})).json()
        kinds = [e["kind"] for e in events["events"]]
        after = events["events"][kinds.index("agent_left") + 1 :]
        blocked = [e for e in after if e["kind"] == "tool_blocked"]
        assert [e["data"]["tool"] for e in blocked] == tried
        assert all(e["command_id"] is None and e["actor"]["id"] == tokens.client_id for e in blocked)
    assert (await mcp_status(server.base_url, tokens.access_token)).status_code == 401


async def raw_tool_call(base_url: str, token: str, tool: str, **arguments: Any) -> httpx.Response:
    """A tools/call as any client sends it, outside a session (a revoked token gets no further)."""
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": "2025-11-25",
    }
    async with httpx.AsyncClient(base_url=base_url) as http:
        return await http.post("/mcp", json=body, headers=headers)


@asynccontextmanager
async def owner_api(server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    control = personal_token(server, "ada", "--scopes", "read,control")
    headers = {"Authorization": f"Bearer {control}"}
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1", headers=headers) as api:
        yield api


async def join(agent: Agent, code: str) -> int:
    joined: Any = (await agent.call("romergo_join_builder_channel", code=code)).structured_content
    return int(joined["cursor"])


async def claim(agent: Agent, api: httpx.AsyncClient, channel: dict[str, Any]) -> str:
    """The agent joins `channel` and claims a command there; returns the command's id."""
    cursor = await join(agent, channel["code"])
    await api.post(f"/channels/{channel['channel_id']}/commands", json={"text": "Tidy the chapter"})
    got: Any = (
        await agent.call(
            "romergo_wait_for_builder_command",
            channel_id=channel["channel_id"],
            cursor=cursor,
            timeout_seconds=10,
        )
    ).structured_content
    return str(got["command"]["command_id"])


async def until_polling(api: httpx.AsyncClient, channel_id: str) -> None:
    """The wait is parked: the channel shows its agent polling (long-polls the events meanwhile)."""
    after = 0
    for _ in range(20):  # bounded: each round waits up to 1 s for news of the channel
        members = (await api.get(f"/channels/{channel_id}")).json()["members"]
        if members and members[0]["polling"]:
            return
        answer = (await api.get(f"/channels/{channel_id}/events", params={"after": after, "wait": 1})).json()
        after = answer["cursor"]
    raise AssertionError("the agent's wait never parked")
