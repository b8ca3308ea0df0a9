"""Agents over real HTTP: the SDK client with a personal token, calling Romergo's tools."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from mcp import Client

from tests.support.oauth import mcp_client

ERROR = re.compile(r"^\[([a-z_]+)\] ")


class ToolRefused(Exception):
    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text


@dataclass
class Agent:
    client: Client

    async def call(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        text = result.content[0].text if result.content else ""
        if result.is_error:
            match = ERROR.match(text)
            assert match, f"tool error without [code]: {text!r}"
            raise ToolRefused(match.group(1), text)
        return result.structured_content

    async def wait(self, channel_id: str, cursor: int, timeout_seconds: float = 30) -> dict[str, Any]:
        """One `romergo_wait_for_builder_command`."""
        return await self.call(
            "romergo_wait_for_builder_command",
            channel_id=channel_id,
            cursor=cursor,
            timeout_seconds=timeout_seconds,
        )

    async def reply_done(self, command_id: str, text: str = "done") -> dict[str, Any]:
        """Finish a command with a reply that changed nothing."""
        return await self.call(
            "romergo_report_builder_event",
            command_id=command_id,
            kind="reply",
            text=text,
            summary={"status": "no_changes", "description": "nothing to do"},
        )

    async def refused(self, tool: str, **arguments: Any) -> str:
        try:
            await self.call(tool, **arguments)
        except ToolRefused as refusal:
            return refusal.code
        raise AssertionError(f"{tool} was not refused")


@asynccontextmanager
async def agent(base_url: str, token: str, mode: str = "auto") -> AsyncIterator[Agent]:
    async with mcp_client(base_url, token, mode) as client:
        yield Agent(client)


class OwnerApi:
    """The owner's side over the JSON API, with a control token."""

    def __init__(self, base_url: str, token: str) -> None:
        self.http = httpx.AsyncClient(
            base_url=f"{base_url}/api/v1", headers={"Authorization": f"Bearer {token}"}, timeout=60
        )

    async def __call__(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        answer = await self.http.request(method, path, json=body, params=params or None)
        assert answer.status_code < 400, answer.text
        return answer.json()

    async def close(self) -> None:
        await self.http.aclose()


def data(result: dict[str, Any]) -> Any:
    return result["untrusted_content"]["data"]
