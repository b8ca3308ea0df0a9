"""Step-up authorization ("Connecting"): the token's scopes are answered in HTTP.

A tool call the token's scopes do not cover gets 403 `insufficient_scope` naming the scopes to
ask for, so a client can re-authorize for more; the 401 challenge names scopes too and carries no
error code when no token was sent (RFC 6750 §3.1).
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.support.oauth import personal_token
from tests.support.server import RunningServer

MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}


def tool_call(name: str, **arguments: object) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def challenge(answer: httpx.Response) -> dict[str, str]:
    header = answer.headers["www-authenticate"]
    assert header.startswith("Bearer "), header
    return dict(re.findall(r'(\w+)="([^"]*)"', header))


@pytest.fixture(scope="module")
def reader(server: RunningServer) -> str:
    return personal_token(server, "ada", "--scopes", "read")


@pytest.mark.parametrize(
    ("tool", "needed"),
    [
        ("romergo_add_chapter", "romergo:edit"),
        ("romergo_import_asset", "romergo:media"),
        ("romergo_publish_project", "romergo:publish"),
        ("romergo_delete_scene", "romergo:delete"),
    ],
)
async def test_a_tool_beyond_the_tokens_scopes_gets_the_step_up_challenge(
    server: RunningServer, reader: str, tool: str, needed: str
):
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {reader}"}
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post("/mcp", json=tool_call(tool, project_id="prj_x"), headers=headers)
    assert answer.status_code == 403, answer.text
    said = challenge(answer)
    assert said["error"] == "insufficient_scope"
    assert said["scope"].split() == ["romergo:read", needed]
    assert said["resource_metadata"] == f"{server.base_url}/.well-known/oauth-protected-resource/mcp"


async def test_a_tool_within_the_tokens_scopes_passes_the_gate(server: RunningServer, reader: str):
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {reader}"}
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post("/mcp", json=tool_call("romergo_list_projects"), headers=headers)
    assert answer.status_code != 403 and "www-authenticate" not in answer.headers, answer.text


async def test_without_a_token_the_challenge_names_scopes_and_no_error(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post("/mcp", json=tool_call("romergo_list_projects"), headers=MCP_HEADERS)
    assert answer.status_code == 401
    said = challenge(answer)
    assert "error" not in said
    assert said["scope"].split() == [
        "romergo:read",
        "romergo:edit",
        "romergo:media",
        "romergo:publish",
        "romergo:delete",
    ]
    assert said["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")


async def test_with_a_bad_token_the_challenge_says_invalid_token(server: RunningServer):
    headers = {**MCP_HEADERS, "Authorization": "Bearer not-a-token"}
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post("/mcp", json=tool_call("romergo_list_projects"), headers=headers)
    assert answer.status_code == 401
    assert challenge(answer)["error"] == "invalid_token"
