"""Spec details a strict MCP client checks ("Connecting"), against a real server:
JSON-RPC -32602 for a bad prompt or tool name, the package version in `serverInfo`, and no 500
for a stream resumption request."""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import httpx
import pytest
from mcp import MCPError
from mcp.types import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY

from tests.support.oauth import initialize_request, mcp_client, mcp_status, personal_token
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def token(server: RunningServer) -> str:
    return personal_token(server, "ada", "--scopes", "read")


async def test_server_info_carries_the_package_version(server: RunningServer, token: str):
    async with mcp_client(server.base_url, token) as client:
        info = client.server_info
    assert info.name == "romergo" and info.version == version("romergo")


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("no_such_prompt", {"code": "ABCD-EFGH"}), ("join_builder_channel", {})],
    ids=["unknown prompt", "missing argument"],
)
async def test_a_bad_prompt_request_is_invalid_params(
    server: RunningServer, token: str, name: str, arguments: dict[str, str]
):
    async with mcp_client(server.base_url, token) as client:
        with pytest.raises(MCPError) as refused:
            await client.get_prompt(name, arguments)
    assert refused.value.error.code == INVALID_PARAMS


async def test_an_unknown_tool_is_invalid_params(server: RunningServer, token: str):
    async with mcp_client(server.base_url, token) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("romergo_no_such_tool", {})
    assert refused.value.error.code == INVALID_PARAMS


async def test_a_get_with_last_event_id_is_answered_without_a_server_error(server: RunningServer, token: str):
    initialized = await mcp_status(server.base_url, token)
    session = initialized.headers.get("mcp-session-id", "")
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
        "Last-Event-ID": "no-such-event",
        **({"Mcp-Session-Id": session} if session else {}),
    }
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        async with http.stream("GET", "/mcp", headers=headers) as answer:
            status = answer.status_code
    assert status == 400, status  # no event store: resumption is refused clearly, not a 500


async def test_a_resumption_request_without_a_token_gets_the_challenge_first(server: RunningServer):
    headers = {"Accept": "text/event-stream", "Last-Event-ID": "1"}
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        answer = await http.get("/mcp", headers=headers)
    assert answer.status_code == 401 and "Bearer" in answer.headers["www-authenticate"]


TYPED = ("type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const")


def untyped_fields(schema: object, path: str = "") -> list[str]:
    """Every property, item or definition below `schema` that says nothing of its type (`{}`)."""
    found: list[str] = []
    if isinstance(schema, dict):
        children = [*schema.get("properties", {}).items(), *schema.get("$defs", {}).items()]
        if isinstance(schema.get("items"), dict):
            children.append(("[]", schema["items"]))
        for name, child in children:
            if isinstance(child, dict) and not any(key in child for key in TYPED):
                found.append(f"{path}/{name}")
        for key, value in schema.items():
            if isinstance(value, dict | list):
                found += untyped_fields(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for item in schema:
            found += untyped_fields(item, path)
    return found


def test_untyped_fields_are_found():
    assert untyped_fields({"properties": {"data": {"title": "Data"}, "ok": {"type": "string"}}}) == ["/data"]


async def test_every_output_schema_types_every_field(server: RunningServer, token: str):
    async with mcp_client(server.base_url, token) as client:
        tools = (await client.list_tools()).tools
    assert tools
    untyped = [f"{tool.name}{field}" for tool in tools for field in untyped_fields(tool.output_schema)]
    assert untyped == []


TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_CALLS = [
    ("tasks/get", {"taskId": "no-such-task"}),
    ("tasks/update", {"taskId": "no-such-task", "inputResponses": {}}),
    ("tasks/cancel", {"taskId": "no-such-task"}),
]


@pytest.mark.parametrize(("method", "params"), TASK_CALLS, ids=[method for method, _ in TASK_CALLS])
async def test_task_methods_without_the_tasks_extension_name_the_missing_capability(
    server: RunningServer, token: str, method: str, params: dict[str, object]
):
    error = await _task_call(server, token, {}, method, params)
    assert error["code"] == MISSING_REQUIRED_CLIENT_CAPABILITY, error
    assert error["data"]["requiredCapabilities"] == {"extensions": {TASKS_EXTENSION: {}}}


async def test_an_unknown_task_is_invalid_params(server: RunningServer, token: str):
    declared: dict[str, object] = {"extensions": {TASKS_EXTENSION: {}}}
    error = await _task_call(server, token, declared, "tasks/get", {"taskId": "no-such-task"})
    assert error["code"] == INVALID_PARAMS, error


async def _task_call(
    server: RunningServer, token: str, capabilities: dict[str, object], method: str, params: dict[str, object]
) -> dict[str, Any]:
    """The JSON-RPC error of `method`, from a client that declared `capabilities`."""
    initialized = await mcp_status(server.base_url, token, json=initialize_request(capabilities))
    session = initialized.headers.get("mcp-session-id", "")
    headers = {"Mcp-Session-Id": session} if session else {}
    await mcp_status(
        server.base_url,
        token,
        headers=headers,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
    )
    call = {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}
    answer = await mcp_status(server.base_url, token, headers=headers, json=call)
    return dict(_json_rpc(answer)["error"])


def _json_rpc(answer: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of an answer sent as JSON or as one server-sent event."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(next(chunk for chunk in data if chunk)))
    return dict(answer.json())
