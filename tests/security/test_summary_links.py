"""A reply's summary links that would open another site are refused.

Browsers drop tabs and newlines inside a URL and read `\\` as `/`, so `/\t/other-host:8129/x`
used to render as an `href` to another host. Now the report is refused with `[invalid_argument]`
when it is made, nothing of it is stored, and an accepted link is stored as the path Romergo
builds for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.tools import Agent

LEAVING = [
    "/\t/other-host:8129/x",
    "/\n/other-host:8129/x",
    "/\\other-host:8129/x",
    "\\\\other-host/x",
    "//other-host/x",
    "https://other-host/projects/x",
    "javascript:alert(1)",
    "/projects/x\u0000",
    " /projects/x",
]


@asynccontextmanager
async def held_command(server: RunningServer) -> AsyncIterator[tuple[Agent, httpx.AsyncClient, str, str]]:
    """A command of ada's, claimed by an agent with a personal token: (agent, api, command, channel)."""
    control = personal_token(server, "ada", "--scopes", "read,control")
    token = personal_token(server, "ada", "--scopes", "read,edit")
    headers = {"Authorization": f"Bearer {control}"}
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1", headers=headers) as api:
        project_id = (await api.get("/projects")).json()["projects"][0]["id"]
        channel = (await api.post("/channels", json={"project_id": project_id})).json()
        async with mcp_client(server.base_url, token) as client:
            agent = Agent(client)
            joined = (
                await agent.call("romergo_join_builder_channel", code=channel["code"])
            ).structured_content
            await api.post(f"/channels/{channel['channel_id']}/commands", json={"text": "Tidy up"})
            got = (
                await agent.call(
                    "romergo_wait_for_builder_command",
                    channel_id=channel["channel_id"],
                    cursor=joined["cursor"],
                    timeout_seconds=10,
                )
            ).structured_content
            yield agent, api, got["command"]["command_id"], channel["channel_id"]


async def test_a_summary_link_that_leaves_romergo_is_refused_when_reported(server: RunningServer):
    async with held_command(server) as (agent, api, command_id, _):
        for url in LEAVING:  # one command for all: a refused report changes nothing
            await _refused(agent, api, command_id, url)


async def _refused(agent: Agent, api: httpx.AsyncClient, command_id: str, url: str) -> None:
    for summary in (
        {"status": "success", "links": [{"title": "see", "url": url}]},
        {"status": "success", "changed_entities": [{"type": "scene", "id": "scn_1", "url": url}]},
    ):
        refused = await agent.error(
            "romergo_report_builder_event", command_id=command_id, kind="reply", text="Done.", summary=summary
        )
        assert refused.startswith("[invalid_argument] "), (url, refused)
    command = (await api.get(f"/commands/{command_id}")).json()
    assert command["state"] == "claimed"  # nothing of the refused reply was stored


async def test_an_accepted_summary_link_is_stored_as_the_path_romergo_builds(server: RunningServer):
    async with held_command(server) as (agent, api, command_id, channel_id):
        await _accepted(agent, api, command_id, channel_id)


async def _accepted(agent: Agent, api: httpx.AsyncClient, command_id: str, channel_id: str) -> None:
    project_id = (await api.get(f"/channels/{channel_id}")).json()["project_id"]
    summary = {"status": "success", "links": [{"title": "the project", "url": f"/projects/{project_id}"}]}
    reported = (
        await agent.call(
            "romergo_report_builder_event", command_id=command_id, kind="reply", text="Done.", summary=summary
        )
    ).structured_content
    assert reported["state"] == "done"
    events = (await api.get(f"/channels/{channel_id}/events", params={"after": 0})).json()["events"]
    [reply] = [event for event in events if event["kind"] == "reply"]
    assert reply["data"]["summary"]["links"] == [{"title": "the project", "url": f"/projects/{project_id}"}]
