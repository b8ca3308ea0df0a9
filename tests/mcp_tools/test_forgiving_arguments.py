"""Arguments that survive a harness which strips schemas, against a running server.

Some harnesses drop `minimum`, `maximum` and `default` before their model sees a tool (Codex
does), and harnesses written in JavaScript round integers past 2^53. So the wait's description
states its range in words, a wait asked for outside that range waits as long as the range allows
and says so in `note`, and no integer a tool takes goes past what a JavaScript number holds
exactly. What is not a number at all is still refused.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from tests.support.agents import Agent, OwnerApi, ToolRefused, agent
from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer

WAIT = "romergo_wait_for_builder_command"
LARGEST_EXACT_IN_JAVASCRIPT = 2**53 - 1


@pytest.fixture(scope="module")
def tokens(server: RunningServer) -> dict[str, str]:
    return {
        "control": personal_token(server, "ada", "--scopes", "read,control", "--name", "ada's script"),
        "agent": personal_token(server, "ada", "--name", "Codex"),
    }


@pytest.fixture
async def owner(server: RunningServer, tokens: dict[str, str]) -> AsyncIterator[OwnerApi]:
    api = OwnerApi(server.base_url, tokens["control"])
    yield api
    await api.close()


@pytest.fixture
async def channel(owner: OwnerApi) -> dict[str, Any]:
    """A fresh channel on ada's project."""
    project = (await owner("GET", "/projects"))["projects"][0]
    return dict(await owner("POST", "/channels", {"project_id": project["id"]}))


@asynccontextmanager
async def joined(
    server: RunningServer, tokens: dict[str, str], channel: dict[str, Any]
) -> AsyncIterator[tuple[Agent, dict[str, Any]]]:
    """An agent in the channel (opened in the test's own task, as the client needs) and its join."""
    async with agent(server.base_url, tokens["agent"]) as codex:
        yield codex, await codex.call("romergo_join_builder_channel", code=channel["code"])


async def test_the_wait_states_its_range_and_default_in_words(server: RunningServer, tokens: dict[str, str]):
    async with mcp_client(server.base_url, tokens["agent"]) as client:
        [wait] = [tool for tool in (await client.list_tools()).tools if tool.name == WAIT]
    described = wait.description or ""
    assert "1 to 50 seconds" in described and "default 25" in described, described
    assert "up to 540 when your client asks for progress notifications" in described, described


async def test_a_wait_asked_for_longer_than_the_maximum_waits_the_maximum_and_says_so(
    server: RunningServer, tokens: dict[str, str], owner: OwnerApi, channel: dict[str, Any]
):
    # A command is already there, so the clamped wait answers at once.
    await owner("POST", f"/channels/{channel['channel_id']}/commands", {"text": "Tighten the opening"})
    async with joined(server, tokens, channel) as (codex, room):
        got = await codex.call(WAIT, channel_id=room["channel_id"], cursor=room["cursor"], timeout_seconds=60)
    assert got["status"] == "command" and got["command"]["text"] == "Tighten the opening"
    assert "50 seconds" in got["note"] and "60" in got["note"], got["note"]
    assert "progress notifications may wait up to 540" in got["note"], got["note"]


async def test_a_wait_kept_alive_by_progress_may_park_nine_minutes(
    server: RunningServer, tokens: dict[str, str], owner: OwnerApi, channel: dict[str, Any]
):
    """A call with a progress token gets a notification every 10 s, which keeps it open in harnesses
    such as Claude Code: it may ask for up to 540 s, and past that it waits 540 and says so."""
    await owner("POST", f"/channels/{channel['channel_id']}/commands", {"text": "First"})
    await owner("POST", f"/channels/{channel['channel_id']}/commands", {"text": "Second"})

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        return None  # asking for progress is what keeps the call alive; none comes in a quick wait

    async with mcp_client(server.base_url, tokens["agent"]) as client:
        room = (
            await client.call_tool("romergo_join_builder_channel", {"code": channel["code"]})
        ).structured_content
        assert room is not None
        arguments = {"channel_id": room["channel_id"], "cursor": room["cursor"], "timeout_seconds": 540}
        first = (await client.call_tool(WAIT, arguments, progress_callback=on_progress)).structured_content
        await Agent(client).reply_done(first["command"]["command_id"])
        arguments |= {"cursor": first["cursor"], "timeout_seconds": 541}
        second = (await client.call_tool(WAIT, arguments, progress_callback=on_progress)).structured_content
    assert first["command"]["text"] == "First" and "note" not in first, first
    assert second["command"]["text"] == "Second", second
    assert "longest kept-alive wait (540 seconds)" in second["note"], second["note"]


@pytest.mark.parametrize("asked", [0, -5])
async def test_a_wait_asked_for_less_than_one_second_waits_one_second_and_says_so(
    server: RunningServer, tokens: dict[str, str], channel: dict[str, Any], asked: int
):
    async with joined(server, tokens, channel) as (codex, room):
        started = time.monotonic()
        got = await codex.call(
            WAIT, channel_id=room["channel_id"], cursor=room["cursor"], timeout_seconds=asked
        )
        waited = time.monotonic() - started
    assert got["status"] == "timeout"
    assert "1 second" in got["note"], got["note"]
    assert 0.9 <= waited < 20, waited


async def test_a_wait_within_its_range_carries_no_note(
    server: RunningServer, tokens: dict[str, str], channel: dict[str, Any]
):
    async with joined(server, tokens, channel) as (codex, room):
        got = await codex.call(WAIT, channel_id=room["channel_id"], cursor=room["cursor"], timeout_seconds=1)
    assert got["status"] == "timeout" and "note" not in got, got


@pytest.mark.parametrize("asked", ["sixty", [60], {"seconds": 60}])
async def test_a_timeout_that_is_not_a_number_is_refused(
    server: RunningServer, tokens: dict[str, str], channel: dict[str, Any], asked: Any
):
    async with joined(server, tokens, channel) as (codex, room):
        with pytest.raises(ToolRefused) as refused:
            await codex.call(
                WAIT, channel_id=room["channel_id"], cursor=room["cursor"], timeout_seconds=asked
            )
    assert refused.value.code == "invalid_argument" and "timeout_seconds" in refused.value.text


async def test_a_cursor_past_what_javascript_numbers_hold_is_refused_naming_the_range(
    server: RunningServer, tokens: dict[str, str], channel: dict[str, Any]
):
    async with joined(server, tokens, channel) as (codex, room):
        refusals = []
        for cursor in (LARGEST_EXACT_IN_JAVASCRIPT + 1, 2**63 - 1):
            with pytest.raises(ToolRefused) as refused:
                await codex.call(WAIT, channel_id=room["channel_id"], cursor=cursor, timeout_seconds=1)
            refusals.append(refused.value)
        largest = await codex.call(
            WAIT, channel_id=room["channel_id"], cursor=LARGEST_EXACT_IN_JAVASCRIPT, timeout_seconds=1
        )
    for refusal in refusals:
        assert refusal.code == "invalid_argument", refusal.text
        assert f"0 to {LARGEST_EXACT_IN_JAVASCRIPT}" in refusal.text, refusal.text
    assert largest["status"] == "timeout" and largest["cursor"] == LARGEST_EXACT_IN_JAVASCRIPT


async def test_no_tool_takes_an_integer_past_what_javascript_numbers_hold(
    server: RunningServer, tokens: dict[str, str]
):
    async with mcp_client(server.base_url, tokens["agent"]) as client:
        tools = (await client.list_tools()).tools
    too_large = [
        f"{tool.name}.{where}: {bound}"
        for tool in tools
        for where, bound in _bounds(tool.input_schema)
        if abs(bound) > LARGEST_EXACT_IN_JAVASCRIPT
    ]
    assert not too_large, too_large


def _bounds(schema: Any, where: str = "") -> list[tuple[str, int | float]]:
    """Every minimum and maximum in a schema, with where it stands."""
    if isinstance(schema, list):
        return [found for item in schema for found in _bounds(item, where)]
    if not isinstance(schema, dict):
        return []
    found = [
        (where, schema[key]) for key in ("minimum", "maximum") if isinstance(schema.get(key), int | float)
    ]
    for key, value in schema.items():
        found += _bounds(value, f"{where}.{key}" if where else key)
    return found
