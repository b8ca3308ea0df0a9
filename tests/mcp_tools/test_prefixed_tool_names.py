"""Agents find Romergo's tools under the names their harness gives them, against a running server.

Harnesses put their own prefix before a server's tool names (Claude Code shows
`mcp__romergo__romergo_join_builder_channel`, Gemini CLI and opencode `romergo_romergo_…`), while
Romergo's texts name the bare tools. The server's instructions and the join prompt (which carries
the instructions a join returns) say so, and which tool to call.
"""

from __future__ import annotations

import pytest

from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer

PREFIXED_EXAMPLE = "mcp__romergo__romergo_join_builder_channel"
WHICH_TO_CALL = "whose name ends with the bare name"


@pytest.fixture(scope="module")
def token(server: RunningServer) -> str:
    return personal_token(server, "ada", "--name", "Claude Code")


async def test_the_server_instructions_say_a_harness_may_prefix_the_tool_names(
    server: RunningServer, token: str
):
    async with mcp_client(server.base_url, token) as client:
        instructions = client.instructions or ""
    assert PREFIXED_EXAMPLE in instructions and WHICH_TO_CALL in instructions, instructions


async def test_the_join_prompt_says_a_harness_may_prefix_the_tool_names(server: RunningServer, token: str):
    async with mcp_client(server.base_url, token) as client:
        prompt = await client.get_prompt("join_builder_channel", {"code": "rmg-AbC_123-xyz"})
    text = prompt.messages[0].content.text
    assert PREFIXED_EXAMPLE in text and WHICH_TO_CALL in text, text
