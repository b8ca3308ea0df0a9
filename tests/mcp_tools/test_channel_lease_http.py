"""Leases over HTTP: with a 2-second lease a silent command turns stalled; retry sends it anew."""

from __future__ import annotations

from tests.support.agents import OwnerApi, agent
from tests.support.oauth import personal_token

SERVER_ENV = {"ROMERGO_COMMAND_LEASE_SECONDS": "2"}


async def test_a_silent_command_stalls_and_retry_makes_a_new_one(server):
    owner = OwnerApi(server.base_url, personal_token(server, "ada", "--scopes", "read,control"))
    project = (await owner("GET", "/projects"))["projects"][0]
    channel = await owner("POST", "/channels", {"project_id": project["id"]})
    channel_id = channel["channel_id"]
    async with agent(server.base_url, personal_token(server, "ada")) as a:
        cursor = (await a.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        sent = await owner("POST", f"/channels/{channel_id}/commands", {"text": "work, then go quiet"})
        await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=5
        )

        events = await owner("GET", f"/channels/{channel_id}/events", after=0)
        while not any(e["kind"] == "stalled" for e in events["events"]):
            events = await owner("GET", f"/channels/{channel_id}/events", after=0, wait=10)
        assert (await owner("GET", f"/commands/{sent['command_id']}"))["state"] == "stalled"

        retried = await owner("POST", f"/commands/{sent['command_id']}/retry")
        assert (retried["retry_of"], retried["state"]) == (sent["command_id"], "queued")
        assert (await owner("GET", f"/commands/{sent['command_id']}"))["state"] == "cancelled"
        got = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=sent["seq"], timeout_seconds=5
        )
        assert (got["command"]["command_id"], got["command"]["retry_of"]) == (
            retried["command_id"],
            sent["command_id"],
        )
    await owner.close()
