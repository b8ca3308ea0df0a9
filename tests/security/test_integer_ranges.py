"""Integers beyond what a JavaScript number holds exactly are refused as bad input.

A cursor or `after` of 2^63 used to reach the query and fail there (500 / `[internal]`). Harnesses
written in JavaScript round any integer past 2^53 - 1, so that is where the range ends: past it the
tool answers `[invalid_argument]` naming the range and the API 400, and 2^53 - 1 itself still works.
"""

from __future__ import annotations

import httpx

from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.tools import Agent

TOO_LARGE = 2**53
LARGEST = 2**53 - 1
RANGE_WORDS = f"0 to {LARGEST}"


async def test_a_wait_cursor_past_what_javascript_holds_exactly_is_an_invalid_argument_naming_the_range(
    server: RunningServer,
):
    token = personal_token(server, "ada", "--scopes", "read")
    async with mcp_client(server.base_url, token) as client:
        for cursor in (TOO_LARGE, 2**63 - 1, 2**63, 10**30, -1):
            result = await Agent(client).call(
                "romergo_wait_for_builder_command", channel_id="chn_nope", cursor=cursor, timeout_seconds=1
            )
            text = result.content[0].text
            assert result.is_error and text.startswith("[invalid_argument] "), (cursor, text)
            assert RANGE_WORDS in text, (cursor, text)


async def test_an_events_after_past_what_javascript_holds_exactly_is_a_400_naming_the_range(
    server: RunningServer,
):
    token = personal_token(server, "ada", "--scopes", "read,control")
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1", headers=headers) as http:
        too_large = [
            await http.get("/channels/chn_nope/events", params={"after": str(after)})
            for after in (TOO_LARGE, 2**63 - 1, 2**63, -1)
        ]
        largest = await http.get("/channels/chn_nope/events", params={"after": str(LARGEST)})
    for refused in too_large:
        error = refused.json()["error"]
        assert refused.status_code == 400 and error["code"] == "invalid_argument", refused.text
        assert RANGE_WORDS in error["message"], refused.text
    assert largest.status_code == 404, largest.text  # in range: the channel is what is missing
