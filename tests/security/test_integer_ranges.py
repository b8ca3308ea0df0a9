"""Attack 3 of issue 13: integers beyond what a column holds are refused as bad input.

A cursor or `after` of 2^63 used to reach the query and fail there (500 / `[internal]`); now the
tool answers `[invalid_argument]` and the API 400, and the largest storable value still works.
"""

from __future__ import annotations

import httpx

from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.tools import Agent

TOO_LARGE = 2**63
LARGEST = 2**63 - 1


async def test_a_wait_cursor_outside_the_stored_range_is_an_invalid_argument(server: RunningServer):
    token = personal_token(server, "ada", "--scopes", "read")
    async with mcp_client(server.base_url, token) as client:
        for cursor in (TOO_LARGE, 10**30, -1):
            result = await Agent(client).call(
                "romergo_wait_for_builder_command", channel_id="chn_nope", cursor=cursor, timeout_seconds=1
            )
            assert result.is_error and result.content[0].text.startswith("[invalid_argument] "), cursor


async def test_an_events_after_outside_the_stored_range_is_a_400(server: RunningServer):
    token = personal_token(server, "ada", "--scopes", "read,control")
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1", headers=headers) as http:
        too_large = await http.get("/channels/chn_nope/events", params={"after": str(TOO_LARGE)})
        largest = await http.get("/channels/chn_nope/events", params={"after": str(LARGEST)})
    assert too_large.status_code == 400 and too_large.json()["error"]["code"] == "invalid_argument"
    assert largest.status_code == 404, largest.text  # in range: the channel is what is missing
