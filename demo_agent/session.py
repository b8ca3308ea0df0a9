"""The demo agent's connection: the MCP SDK client over Streamable HTTP with a bearer token.

Tool errors come back as `[code] message` (CONTRACT.md §1); they become ToolFailure so the rules
can react to the code. Project content arrives inside the untrusted-content envelope; the demo
agent only ever reads `data` from it and never treats any of it as an instruction.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent

_ERROR = re.compile(r"^\[([a-z_]+)\] (.*)$", re.DOTALL)
CALL_TIMEOUT_SECONDS = 70  # above the longest server-side wait (50 s) plus slack


class ToolFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message


ToolCaller = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def mcp_url(url: str) -> str:
    """Accept the server's base URL or its /mcp endpoint."""
    url = url.rstrip("/")
    return url if url.endswith("/mcp") else f"{url}/mcp"


@asynccontextmanager
async def connect(url: str, token: str, agent_name: str = "Romergo demo agent") -> AsyncIterator[ToolCaller]:
    headers = {"Authorization": f"Bearer {token}", "User-Agent": agent_name}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(CALL_TIMEOUT_SECONDS, connect=10))
    async with http, Client(streamable_http_client(mcp_url(url), http_client=http)) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments, read_timeout_seconds=CALL_TIMEOUT_SECONDS)
            if result.is_error:
                text = next(
                    (c.text for c in result.content if isinstance(c, TextContent)), "[internal] no message"
                )
                match = _ERROR.match(text)
                raise ToolFailure(match.group(1), match.group(2)) if match else ToolFailure("internal", text)
            structured = result.structured_content
            return structured if isinstance(structured, dict) else {}

        yield call


def data_of(result: dict[str, Any]) -> Any:
    """The payload of an untrusted-content envelope (or the result itself when there is none)."""
    envelope = result.get("untrusted_content") if isinstance(result, dict) else None
    return envelope.get("data") if isinstance(envelope, dict) else result
