"""The stand-in model's loop run by the MCP SDK client itself, handing the script Romergo's text
results as they are: the yardstick each harness is held to, and proof that the checks pass only on
a loop that really ran."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from mcp.types import TextContent

from tests.bench.harness_idle import Idle, IdleLoop, requests_per_wait
from tests.harnesses.checks import (
    Channel,
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.conftest import first_outline_page
from tests.harnesses.model.loop import Answer, Loop, ToolCall
from tests.harnesses.model.standin import Conversation, Exchange
from tests.support.agents import OwnerApi
from tests.support.oauth import mcp_client
from tests.support.server import RunningServer


async def test_the_loop_through_the_sdk_client_passes_every_check(
    server: RunningServer, agent_token: str, owner: OwnerApi, channel: Channel, loop: Loop, story
):
    results = await _run(server, agent_token, loop)

    await assert_loop_completed(owner, channel, results)
    assert assert_wait_clamped(results) == 50  # the SDK client asks for no progress
    assert_hostile_line_escaped(results)
    assert_first_page_whole(results, await first_outline_page(server.base_url, agent_token, story.project_id))


async def test_the_checks_fail_on_a_raw_scene_and_a_cut_page(
    server: RunningServer, agent_token: str, channel: Channel, loop: Loop, story
):
    results = await _run(server, agent_token, loop)
    first_page = await first_outline_page(server.base_url, agent_token, story.project_id)

    raw = [*results]
    raw[2] = raw[2].replace("\\u{202e}", "\u202e")
    with pytest.raises(AssertionError, match="reached the model as it is"):
        assert_hostile_line_escaped(raw)
    cut = [*results]
    cut[3] = cut[3][: len(cut[3]) // 2]
    with pytest.raises(AssertionError, match="did not reach the model"):
        assert_first_page_whole(cut, first_page)


async def test_an_idle_agent_through_the_sdk_client_costs_one_request_a_timed_out_wait(
    server: RunningServer, agent_token: str, channel: Channel, loop: Loop
):
    """The idle benchmark's loop and figures on a client that makes one request per tool result."""
    results = await _run(server, agent_token, IdleLoop(**asdict(loop), waits=2))
    offered = ["romergo_join_builder_channel"]
    one_each = [Exchange("sdk", offered, results[:done]) for done in range(len(results) + 1)]
    conversation = Conversation(exchanges=[*one_each, one_each[-1]])  # the last wait cost two

    assert requests_per_wait(conversation, 2) == [1, 2]
    idle = Idle("SDK client", "", [1, 1], assert_wait_clamped(results), told_wait=50)
    assert (idle.served_wait, idle.per_hour(50), idle.per_hour(25)) == (50, 72, 144)
    assert idle.per_hour(540) == pytest.approx(6.67, abs=0.01)
    with pytest.raises(AssertionError, match="2 of 3 waits reached the model"):
        requests_per_wait(conversation, 3)


async def _run(server: RunningServer, token: str, loop: Loop) -> list[str]:
    results: list[str] = []
    async with mcp_client(server.base_url, token) as client:
        while isinstance(step := loop.step(results), ToolCall):
            result = await client.call_tool(step.tool, step.arguments)
            assert isinstance(result.content[0], TextContent)
            results.append(result.content[0].text)
    assert isinstance(step, Answer)
    return results
